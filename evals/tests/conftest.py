"""Two runs of the evaluations shared by the tests: the paired study's cells, and MCP tool choice."""

from __future__ import annotations

import pytest
from evals_harness import MODEL, Run, run_evals


@pytest.fixture(scope="session")
def study(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """Triggering and completion over the cells the recordings cover, each condition among them."""
    run = run_evals(
        tmp_path_factory.mktemp("study"),
        *("--agent", "claude", "--mode", "skill,completion", "--model", MODEL),
        *("--repeat", "1", "--rounds", "2", "--timeout", "120"),
        *("--scenario", "xliff-edit-string@skill,mcp,baseline"),
        *("--scenario", "docx-fix-wording@skill"),
        *("--scenario", "docs-in-voice@skill,mcp"),
        *("--scenario", "record-term-correction@mcp,no-project"),
        *("--scenario", "refactor-function@skill"),
        *("--scenario", "fix-failing-test@skill"),
    )
    assert run.code == 0, run.stderr
    return run


@pytest.fixture(scope="session")
def tool_choice(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """The MCP tool-choice mode: a right first tool, a wrong one, and a negative that calls none."""
    run = run_evals(
        tmp_path_factory.mktemp("mcp"),
        *("--mode", "mcp", "--repeat", "1", "--timeout", "120"),
        *("--scenario", "xliff-edit-string", "--scenario", "docx-fix-wording"),
        *("--scenario", "refactor-function"),
    )
    assert run.code == 0, run.stderr
    return run
