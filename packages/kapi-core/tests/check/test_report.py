"""The report: verdict order (§4.4), score (§4.5), exit codes, the JSON shape and the text table."""

from __future__ import annotations

import json

import pytest

from kapi.core.check.analyzers import Canary
from kapi.core.check.findings import Finding, Location, Point
from kapi.core.check.report import (
    AnalyzerRun,
    Report,
    ReportTarget,
    ScopeFile,
    Summary,
    decide,
    encode_report,
    exit_code,
    render_text,
    score,
    sort_findings,
    summarize,
)
from kapi.core.check.text import Anchor, Position

CAUGHT = Canary(status="caught")


def run(
    status: str = "passed",
    canary: Canary | None = CAUGHT,
    required: bool = False,
    name: str = "hygiene",
) -> AnalyzerRun:
    return AnalyzerRun(id=name, status=status, file="a.md", canary=canary, required=required)


def finding(
    rule: str = "voice.vocabulary", fails: bool = True, block: str = "p1", suggested: bool = False
) -> Finding:
    return Finding(
        rule=rule,
        check=rule.split(".")[0],
        fails=fails,
        message=f"{rule} here",
        location=Location(file="a.md", block=block),
        suggested=suggested,
    )


FAILING = Summary(findings=1, failing=1, reporting=0, score=75)
CLEAN = Summary()


def test_an_invalid_analyzer_wins_even_over_failing_findings() -> None:
    verdict, cause, items = decide(
        summary=FAILING, blocks=3, analyzers=[run("findings"), run("invalid", name="terms")]
    )
    assert (verdict, cause, items) == ("did_not_run", "checker_invalid", ("terms@a.md",))


def test_failing_findings_fail() -> None:
    assert decide(summary=FAILING, blocks=3, analyzers=[run("findings")])[:2] == ("failed", "")


def test_zero_blocks_is_nothing_to_check() -> None:
    assert decide(summary=CLEAN, blocks=0, analyzers=[])[:2] == ("did_not_run", "nothing_to_check")


def test_zero_blocks_in_a_diff_with_an_unchecked_file_is_content_not_checked() -> None:
    files = [ScopeFile("b.md", "did_not_run", "unreadable")]
    assert decide(summary=CLEAN, blocks=0, analyzers=[], scope_files=files, diff=True)[:2] == (
        "did_not_run",
        "content_not_checked",
    )
    assert decide(summary=CLEAN, blocks=0, analyzers=[], scope_files=files, diff=False)[:2] == (
        "did_not_run",
        "nothing_to_check",
    )


@pytest.mark.parametrize(
    ("analyzers", "files"),
    [
        ([run("passed")], [ScopeFile("b.md", "did_not_run")]),
        ([run("passed"), run("passed", canary=None, name="pattern")], []),
        ([run("passed"), run("passed", canary=Canary(status="impossible"), name="pattern")], []),
        ([run("passed"), run("did_not_run", required=True, name="voice.rules")], []),
        ([run("not_requested", canary=None)], []),
    ],
)
def test_content_not_checked(analyzers: list[AnalyzerRun], files: list[ScopeFile]) -> None:
    verdict, cause, items = decide(summary=CLEAN, blocks=2, analyzers=analyzers, scope_files=files)
    assert (verdict, cause) == ("did_not_run", "content_not_checked")
    assert items


def test_passed_when_every_running_analyzer_proved_itself() -> None:
    analyzers = [
        run("passed"),
        run("did_not_run", name="voice.rules"),
        run("not_requested", canary=None, name="length"),
    ]
    assert decide(summary=CLEAN, blocks=2, analyzers=analyzers) == ("passed", "", ())


def test_score_weights_and_clamp() -> None:
    findings = [finding(fails=True), finding(fails=False), finding(fails=False, suggested=True)]
    assert score(findings) == 74
    assert score([finding()] * 5) == 0
    assert score([finding(fails=False)] * 3, words=600) == 100  # 3 × 100 / 600 rounds to 0
    assert score([finding(fails=False)] * 30, words=600) == 95
    assert summarize(findings) == Summary(findings=3, failing=1, reporting=2, score=74)


def _report(verdict: str) -> Report:
    return Report(verdict=verdict, target=ReportTarget(), summary=CLEAN)


def test_exit_codes() -> None:
    assert exit_code(_report("passed")) == 0
    assert exit_code(_report("failed")) == 3
    assert exit_code(_report("failed"), no_fail=True) == 0
    assert exit_code(_report("did_not_run")) == 4
    assert exit_code(_report("did_not_run"), no_fail=True) == 4


def test_findings_sort_failing_first_then_rule_then_block() -> None:
    ordered = sort_findings(
        [
            finding("hygiene.doubled-word", False, "p1"),
            finding("voice.style", True, "p2"),
            finding("terms.vocabulary", True, "p9"),
            finding("terms.vocabulary", True, "p3"),
        ]
    )
    assert [(f.rule, f.location.block) for f in ordered] == [
        ("terms.vocabulary", "p3"),
        ("terms.vocabulary", "p9"),
        ("voice.style", "p2"),
        ("hygiene.doubled-word", "p1"),
    ]


def test_encoded_report_has_the_v2_shape() -> None:
    anchored = Finding(
        rule="voice.vocabulary",
        check="voice",
        fails=True,
        message='Use "use" instead of "utilize"',
        suggestion="use",
        replacement="use",
        location=Location(
            file="a.md",
            block="p3",
            anchor=Anchor(Position(0, 4), Position(1, 0), (2, ("plural", "one"))),
            snippet="…utilize…",
        ),
        point=Point(profile="northsea", channel="docs"),
        analyzer="voice.rules",
    )
    report = Report(
        verdict="failed",
        target=ReportTarget(kind="file", file="a.md", format="markdown", blocks=3),
        summary=summarize([anchored]),
        findings=(anchored,),
    )
    data = json.loads(json.dumps(encode_report(report)))
    assert list(data)[:8] == [
        "schema",
        "pass",
        "verdict",
        "did_not_run",
        "target",
        "summary",
        "findings",
        "warnings",
    ]
    assert data["schema"] == "kapi.check/v2"
    assert data["pass"] is False
    assert data["summary"] == {"findings": 1, "failing": 1, "reporting": 0, "score": 75}
    (encoded,) = data["findings"]
    assert encoded["location"]["anchor"] == {
        "start": {"run": 0, "offset": 4},
        "end": {"run": 1, "offset": 0},
        "path": [2, {"plural": "one"}],
    }
    assert encoded["point"] == {"profile": "northsea", "channel": "docs", "comments": False}
    assert "analyzer" not in encoded and "fix" not in encoded
    assert encoded["suggested"] is False
    assert "did_not_run_cause" not in data


def test_text_table_lists_fails_then_reports_and_rolls_up() -> None:
    findings = sort_findings(
        [finding("hygiene.double-spaces", False), finding("voice.style", True, "p2")]
    )
    report = Report(
        verdict="failed", target=ReportTarget(), summary=summarize(findings), findings=findings
    )
    text = render_text(report)
    assert (
        text.index("FAILS")
        < text.index("voice.style")
        < text.index("REPORTS")
        < text.index("hygiene.double-spaces")
    )
    assert text.rstrip().endswith("1 failing, 1 reported · score 74/100")


def test_text_of_a_report_that_did_not_run_says_why() -> None:
    report = Report(
        verdict="did_not_run",
        did_not_run_cause="nothing_to_check",
        target=ReportTarget(),
        summary=CLEAN,
    )
    assert "did not run: nothing to check" in render_text(report)
    assert render_text(report).rstrip().endswith("0 failing, 0 reported · score 100/100")
