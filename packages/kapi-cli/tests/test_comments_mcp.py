"""What the MCP tools answer for a source file: a refusal that says how to edit its comments."""

from __future__ import annotations

import pytest

from kapi.host.comments import check_reads_comments, comment_refusal
from kapi.host.wire import encode


@pytest.mark.parametrize("tool", ["read_blocks", "apply_edits"])
def test_a_source_file_is_refused_unsupported_with_the_capability_comment(tool):
    result = comment_refusal("src/app.py", tool)
    assert result is not None
    assert result.exit_code == 3
    data = encode(result)
    assert data["schema"] == "kapi.change-result/v1"
    assert data["status"] == "refused"
    error = data["error"]
    assert error["code"] == "unsupported"
    assert error["capability"] == "comment"
    assert tool in error["message"]
    assert "edit the comment in the file, then run check_file" in error["message"]


def test_a_document_is_not_refused():
    assert comment_refusal("docs/guide.md", "read_blocks") is None
    assert comment_refusal("locales/en.json", "apply_edits") is None


def test_check_file_on_a_source_file_checks_its_comments():
    assert check_reads_comments("src/app.ts")
    assert check_reads_comments("tool.lua")  # then reported as no grammar, never as prose
    assert not check_reads_comments("docs/guide.md")
    assert not check_reads_comments("-")


def test_the_mcp_functions_are_public_host_api():
    import kapi.host

    assert "comment_refusal" in kapi.host.__all__
    assert kapi.host.check_reads_comments is check_reads_comments
