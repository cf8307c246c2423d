"""Markdown corpus: every CommonMark spec example, the spec itself, and real documentation.

Sources (npm, pinned): commonmark-spec 0.31.2 (CC-BY-SA-4.0; its 652 examples,
tabs written as U+2192 in the spec and restored here) and markdownlint 0.38.0
(MIT; 61 Markdown files: README, CHANGELOG, one page per lint rule).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kapi.formats.markdown import MarkdownFormat
from tests.corpus.faithful import assert_faithful
from tests.corpus.fetch import Source, unpacked

pytestmark = pytest.mark.corpus

SPEC = Source(
    registry="npm",
    name="commonmark-spec",
    version="0.31.2",
    sha256="588280df96c211f7ce9db0b7943ded34ac4b8ba321e2fdf9c03d188ec0f01fea",
    filename="commonmark-spec-0.31.2.tgz",
)
MARKDOWNLINT = Source(
    registry="npm",
    name="markdownlint",
    version="0.38.0",
    sha256="6d201c8109307cef3b56a1a9a320c2e27a0114d63c8f8da996ddb8507e10f596",
    filename="markdownlint-0.38.0.tgz",
)

_EXAMPLE = re.compile(r"^`{32} example\n([\s\S]*?)^\.\n[\s\S]*?^`{32}$", re.MULTILINE)


def _spec_text() -> str:
    return (unpacked(SPEC) / "package" / "spec.txt").read_text("utf-8")


def _examples() -> list[str]:
    text = _spec_text().split("<!-- END TESTS -->")[0]
    return [match.group(1).replace("\u2192", "\t") for match in _EXAMPLE.finditer(text)]


def test_every_commonmark_example_round_trips() -> None:
    codec = MarkdownFormat()
    examples = _examples()
    assert len(examples) == 652
    for number, markdown in enumerate(examples, start=1):
        assert_faithful(codec, markdown.encode("utf-8"), f"spec-example-{number}.md")


def test_the_spec_document_round_trips() -> None:
    data = (unpacked(SPEC) / "package" / "spec.txt").read_bytes()
    assert_faithful(MarkdownFormat(), data, "spec.txt")


def _markdownlint_files() -> list[Path]:
    root = unpacked(MARKDOWNLINT) / "package"
    return sorted(root.rglob("*.md"))


def test_markdownlint_documentation_round_trips() -> None:
    codec = MarkdownFormat()
    files = _markdownlint_files()
    assert len(files) == 61
    blocks = 0
    for path in files:
        data = path.read_bytes()
        assert_faithful(codec, data, str(path.name))
        blocks += len(codec.read(data, path=path.name).blocks)
    assert blocks > 1000
