"""Scenario files are read strictly, and the committed ones hold what the study needs."""

from __future__ import annotations

from pathlib import Path

import pytest

from kapi_evals.cli import main

GOOD = """\
title: Edit a string
kind: positive
prompt: Change the pay button.
workspace:
  copy: [examples/shop]
mcp:
  first_tool: [read_blocks]
checks:
  - changed: [locales/en.json]
"""


def test_the_committed_scenarios_are_positive_and_negative_tasks_each_with_checks(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["scenarios"]) == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert {(name, kind) for name, kind, _ in rows} == {
        ("xliff-edit-string", "positive"),
        ("docx-fix-wording", "positive"),
        ("docs-in-voice", "positive"),
        ("record-term-correction", "positive"),
        ("refactor-function", "negative"),
        ("fix-failing-test", "negative"),
    }


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("prompt:", "promt:"), ':3: unknown field "promt" in the scenario'),
        (("checks:\n  - changed: [locales/en.json]\n", ""), 'is missing the field "checks"'),
        (("  - changed: [locales/en.json]\n", ""), ":8: checks must list at least one check"),
        (("  - changed:", "  - chnged:"), ':9: unknown check "chnged" (checks: changed,'),
        (
            ("  - changed: [locales/en.json]", "  - text: {file: a.md, contain: [x]}"),
            ':9: unknown field "contain" in text (fields: file, contains, lacks, target, read)',
        ),
        (
            ("  - changed: [locales/en.json]", "  - text: {file: a.md}"),
            ':9: text needs "contains" or "lacks"',
        ),
        (
            ("[locales/en.json]", "[../outside.json]"),
            "\"changed\" in changed: '../outside.json' is not a path inside the workspace",
        ),
        (
            ("mcp:\n  first_tool: [read_blocks]\n", ""),
            'a positive scenario is missing the field "mcp"',
        ),
        (("kind: positive", "kind: negative"), ':6: a negative scenario has no "mcp"'),
        (
            ("kind: positive", "kind: maybe"),
            ":2: \"kind\" in the scenario is 'maybe'; it is one of positive, negative",
        ),
        (
            ("[examples/shop]", "[../elsewhere]"),
            ":5: workspace copies '../elsewhere', not a folder",
        ),
        (("title: Edit a string\n", "title: [1\n"), "not valid YAML"),
    ],
)
def test_a_bad_scenario_is_refused_naming_its_file_line_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: tuple[str, str], message: str
) -> None:
    folder = tmp_path / "scenarios"
    folder.mkdir()
    (folder / "good.yaml").write_text(GOOD, encoding="utf-8")
    old, new = change
    assert old in GOOD
    (folder / "bad.yaml").write_text(GOOD.replace(old, new), encoding="utf-8")
    assert main(["scenarios", "--scenarios", str(folder)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("kapi-evals: bad.yaml")
    assert message in captured.err
    assert captured.err.count("\n") == 1


def test_a_run_names_an_unknown_scenario_or_condition_before_it_starts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", "--scenario", "no-such-task"]) == 2
    assert "no scenario 'no-such-task': the scenarios are docs-in-voice" in capsys.readouterr().err
    assert main(["run", "--condition", "plugin"]) == 2
    assert "unknown condition 'plugin': the conditions are skill, mcp, no-project, baseline" in (
        capsys.readouterr().err
    )
    assert main(["run", "--mode", "skill", "--condition", "baseline"]) == 2
    assert "no chosen mode is measured under the condition 'baseline'" in capsys.readouterr().err


def test_the_evals_page_shows_the_newest_results_kept_in_the_repository() -> None:
    assert main(["report", "--check"]) == 0
