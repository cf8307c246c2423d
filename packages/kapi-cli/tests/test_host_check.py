"""The check verb called directly, as every door calls it: a request of flags in, an outcome out.

Each case mirrors one of ``test_check.py`` and ``test_governance_files.py``;
here the report, the ship gates, the files left out and the exit code are
values, not printed text.
"""

from __future__ import annotations

import subprocess
import textwrap

import pytest

from kapi.core.check.report import Verdict
from kapi.host.check import CheckOutcome, CheckRequest, SkippedGovernance, run_check
from kapi.host.errors import EXIT_DID_NOT_RUN, EXIT_ERROR, EXIT_GATE, EXIT_OK, EXIT_USAGE, HostError
from kapi.host.wire import encode
from kapi.host.workspace import open_workspace

RECIPE = textwrap.dedent(
    """\
    version: v1
    id: prj_checks
    defaults:
      source_language: en
      target_languages: [fr]
    profiles:
      docs:
        channels: [guides]
        voice: {pack: technical-docs}
      app:
        channels: [ui]
        voice: ui
    collections:
      - name: ui
        channel: app/ui
        content:
          - path: locales/en.json
            target: locales/{lang}.json
      - name: docs
        channel: docs/guides
        source_only: true
        content:
          - path: docs/**/*.md
    """
)
UI_VOICE = "name: ui\nterms:\n  - term: basket\n    replacement: cart\n"


@pytest.fixture
def root(tmp_path, monkeypatch):
    """A project in tmp_path, the current folder (the file arguments are relative to it)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KAPI_CHECK_WORKERS", raising=False)
    (tmp_path / "kapi.yaml").write_text(RECIPE)
    (tmp_path / "voices").mkdir()
    (tmp_path / "voices/ui.yaml").write_text(UI_VOICE)
    (tmp_path / "locales").mkdir()
    (tmp_path / "locales/en.json").write_text(
        '{\n  "add": "Add to basket",\n  "buy": "Buy now"\n}\n'
    )
    (tmp_path / "locales/fr.json").write_text('{\n  "add": "Ajouter au panier"\n}\n')
    (tmp_path / "docs").mkdir()
    for n in range(5):
        (tmp_path / f"docs/page{n}.md").write_text(
            f"# Page {n}\n\nThe tool runs the import.\n\nIt writes a report.\n"
        )
    return tmp_path


def check(root, **flags) -> CheckOutcome:
    with open_workspace(cwd=root, environ={}) as workspace:
        return run_check(CheckRequest(**flags), workspace)


def refusal(root, **flags) -> HostError:
    with pytest.raises(HostError) as raised:
        check(root, **flags)
    return raised.value


def git(root, *args):
    subprocess.run(
        ["git", *args],
        cwd=root,
        check=True,
        capture_output=True,
        env={
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@e",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@e",
            "PATH": "/usr/bin:/bin",
            "HOME": str(root),
        },
    )


def test_findings_follow_the_voice_where_the_file_sits(root):
    (root / "docs/page0.md").write_text("# Page\n\nSimply add it to the basket.\n")
    outcome = check(root, files=("docs/page0.md", "locales/en.json"))
    assert outcome.exit_code == EXIT_GATE
    assert outcome.report.verdict == Verdict.FAILED
    rules = {(f.location.file, f.rule) for f in outcome.report.findings}
    assert ("docs/page0.md", "voice.style") in rules
    assert ("locales/en.json", "voice.vocabulary") in rules
    assert ("docs/page0.md", "voice.vocabulary") not in rules
    assert outcome.ship is None and outcome.skipped == ()
    assert check(root, files=("docs/page0.md",), no_fail=True).exit_code == EXIT_OK


def test_the_project_content_is_checked_when_no_file_is_named(root):
    outcome = check(root)
    files = {entry.path for entry in outcome.report.scope.files}
    assert files == {"locales/en.json", *(f"docs/page{n}.md" for n in range(5))}
    assert outcome.exit_code == EXIT_GATE  # "basket" in the ui strings


def test_a_clean_file_passes(root):
    outcome = check(root, files=("docs/page1.md",))
    assert outcome.report.verdict == Verdict.PASSED and outcome.exit_code == EXIT_OK


def test_an_unreadable_file_never_passes(root):
    (root / "docs/broken.json").write_text('{"a": ')
    outcome = check(root, files=("docs/broken.json",))
    assert outcome.report.verdict == Verdict.DID_NOT_RUN
    assert outcome.exit_code == EXIT_DID_NOT_RUN
    assert check(root, files=("docs/broken.json",), no_fail=True).exit_code == EXIT_DID_NOT_RUN


def test_nothing_to_check_is_exit_4(root):
    (root / "docs/empty.md").write_text("```\ncode only\n```\n")
    assert check(root, files=("docs/empty.md",)).exit_code == EXIT_DID_NOT_RUN


def test_the_report_counts_and_scores(root):
    (root / "docs/page2.md").write_text("# Page\n\nSimply run it.\n")
    summary = check(root, files=("docs/page2.md",)).report.summary
    assert (summary.findings, summary.failing, summary.reporting, summary.score) == (1, 1, 0, 75)


def test_diff_against_checks_only_changed_blocks(root):
    (root / "docs/page3.md").write_text("# Page\n\nSimply old text.\n\nUntouched paragraph.\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    (root / "docs/page3.md").write_text("# Page\n\nSimply old text.\n\nChanged, clearly.\n")
    (root / "docs/new.md").write_text("# New\n\nJust arrived.\n")
    outcome = check(root, diff_against="HEAD")
    files = {entry.path: entry.status for entry in outcome.report.scope.files}
    assert files["docs/page3.md"] == "checked" and files["docs/new.md"] == "checked"
    assert "docs/page1.md" not in files
    blocks = {(f.location.file, f.location.block) for f in outcome.report.findings}
    assert ("docs/page3.md", "s1/p1") not in blocks
    assert {file for file, _ in blocks} == {"docs/page3.md", "docs/new.md"}
    assert outcome.exit_code == EXIT_GATE


def test_staged_and_a_diff_file_agree(root):
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    (root / "docs/page4.md").write_text(
        "# Page 4\n\nThe tool runs the import.\n\nObviously it writes a report.\n"
    )
    nothing = check(root, staged=True)
    assert nothing.report.verdict == Verdict.DID_NOT_RUN
    assert nothing.exit_code == EXIT_DID_NOT_RUN
    git(root, "add", "docs/page4.md")
    staged = check(root, staged=True)
    assert staged.exit_code == EXIT_GATE
    diff = subprocess.run(
        ["git", "diff", "--cached"], cwd=root, capture_output=True, text=True, check=True
    ).stdout
    (root / "change.diff").write_text(diff)
    from_file = check(root, diff_file="change.diff")
    assert [f.rule for f in from_file.report.findings] == [f.rule for f in staged.report.findings]


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        ({"staged": True, "diff_against": "HEAD"}, "exclude one another"),
        ({"diff_file": "x.diff", "diff_against": "HEAD"}, "exclude one another"),
        ({"staged": True, "ship": True}, "neither --ship nor --target"),
        ({"diff_against": "HEAD", "target": "fr.json"}, "neither --ship nor --target"),
    ],
)
def test_a_request_with_flags_that_exclude_one_another_cannot_be_made(flags, message):
    with pytest.raises(HostError) as raised:
        CheckRequest(**flags)
    assert raised.value.exit_code == EXIT_USAGE and message in raised.value.message


def test_a_malformed_or_missing_diff_is_a_usage_error(root):
    (root / "bad.diff").write_text("+++ b/docs/page0.md\n@@ -x +y @@\n")
    error = refusal(root, diff_file="bad.diff")
    assert error.exit_code == EXIT_USAGE and "malformed hunk" in error.message
    assert refusal(root, diff_file="nowhere.diff").exit_code == EXIT_USAGE


def test_bad_options_are_usage_errors(root):
    assert refusal(root, files=("docs/page1.md",), forbid=("(",)).exit_code == EXIT_USAGE
    assert refusal(root, files=("docs/page1.md",), max_chars=-1).exit_code == EXIT_USAGE
    error = refusal(
        root, files=("locales/en.json",), target="locales/fr.json", target_lang="not a tag!"
    )
    assert error.exit_code == EXIT_USAGE


def test_unknown_voice_is_exit_1_without_a_report(root):
    (root / "voices/ui.yaml").unlink()
    error = refusal(root, files=("locales/en.json",))
    assert error.exit_code == EXIT_ERROR and "no voice profile 'ui'" in error.message


def test_a_broken_voice_file_names_its_line_and_key(root):
    (root / "voices/ui.yaml").write_text("name: ui\nstyle:\n  sentence_length: forever\n")
    error = refusal(root, files=("locales/en.json",))
    assert error.exit_code == EXIT_ERROR
    assert "voices/ui.yaml:3 style.sentence_length" in error.message


def test_ship_gates(root):
    (root / "docs/page0.md").write_text("# Page\n\nSimply do it.\n")
    outcome = check(root, files=("docs/page0.md",), ship=True)
    assert outcome.ship is not None
    gates = {gate.gate: gate.passed for gate in outcome.ship.gates}
    assert gates == {"voice": False, "terminology": False, "qa": False}
    assert not outcome.ship.passed and outcome.exit_code == EXIT_GATE
    voice, terminology, _ = outcome.ship.gates
    assert [f.block for f in voice.findings] == ["s1/p1"] and voice.reason == ""
    assert terminology.reason == "terminology is not bound in this project"
    assert (outcome.ship.summary.gates, outcome.ship.summary.failed) == (3, 3)
    # on the wire `pass` is the verdict's name; an unbound gate says why before its findings
    wire = encode(outcome.ship)
    assert list(wire) == ["pass", "gates", "summary", "warnings"]
    assert list(wire["gates"][0]) == ["gate", "pass", "findings"]
    assert list(wire["gates"][1]) == ["gate", "pass", "reason", "findings"]
    no_fail = check(root, files=("docs/page0.md",), ship=True, no_fail=True)
    assert no_fail.exit_code == EXIT_OK


def test_a_named_gate_alone_decides(root):
    outcome = check(root, files=("docs/page1.md",), ship=True, gates=("voice",))
    assert outcome.ship is not None and [g.gate for g in outcome.ship.gates] == ["voice"]
    assert outcome.ship.passed and outcome.exit_code == EXIT_OK


def test_ship_over_nothing_checked_is_exit_4(root):
    (root / "docs/empty.md").write_text("```\ncode only\n```\n")
    outcome = check(root, files=("docs/empty.md",), ship=True, gates=("voice",), no_fail=True)
    assert outcome.ship is not None and not outcome.ship.passed
    assert outcome.exit_code == EXIT_DID_NOT_RUN


def test_ship_needs_a_project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.md").write_text("# A\n\nText.\n")
    error = refusal(tmp_path, files=("a.md",), ship=True)
    assert error.exit_code == EXIT_ERROR and "--ship needs a project" in error.message
    assert check(tmp_path, files=("a.md",)).exit_code == EXIT_OK


def test_check_text(root):
    outcome = check(root, text="Simply do it.", files=("docs/x.md",))
    assert outcome.report.target.kind == "text" and outcome.exit_code == EXIT_GATE


def test_bilingual_check_finds_a_dropped_placeholder(root):
    (root / "locales/fr.json").write_text(
        '{\n  "add": "Ajouter au panier",\n  "buy": "Acheter"\n}\n'
    )
    (root / "locales/en.json").write_text(
        '{\n  "add": "Add {{count}} to cart",\n  "buy": "Buy now"\n}\n'
    )
    outcome = check(root, files=("locales/en.json",), target="locales/fr.json", target_lang="fr")
    assert outcome.exit_code == EXIT_GATE
    assert "placeholder.missing" in [f.rule for f in outcome.report.findings]
    error = refusal(root, files=("locales/en.json",), target="locales/fr.json")
    assert error.exit_code == EXIT_USAGE


def test_governance_named_outright_is_skipped_and_said(root):
    outcome = check(root, files=("kapi.yaml", "voices/ui.yaml", "docs/page1.md"))
    assert outcome.skipped == (
        SkippedGovernance(path="kapi.yaml", governs="the project recipe"),
        SkippedGovernance(path="voices/ui.yaml", governs=outcome.skipped[1].governs),
    )
    assert outcome.skipped[0].message == (
        "kapi.yaml: skipped as governance (the project recipe), not content"
    )
    assert [entry.path for entry in outcome.report.scope.files] == ["docs/page1.md"]
    assert outcome.exit_code == EXIT_OK
    # found in a folder or by a glob, governance is left out without a word
    assert check(root, files=(".",)).skipped == ()
    assert check(root, files=("voices", "docs")).skipped == ()


def test_with_nothing_named_outside_a_project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    at_a_terminal = refusal(tmp_path)
    assert at_a_terminal.exit_code == EXIT_USAGE and "no input" in at_a_terminal.message
    piped = refusal(tmp_path, stdin_is_terminal=False)  # stdin, but no format to read it by
    assert piped.exit_code == EXIT_USAGE and "--format" in piped.message
