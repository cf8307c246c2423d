"""``suggested``: pending suggestions report with weight 0 and never fail."""

from __future__ import annotations

from kapi.core.check.analyzers import AnalyzerStatus, CheckUnit, run_canary
from kapi.core.check.findings import finding_weight
from kapi.core.check.suggested import SuggestedAnalyzer
from kapi.core.governance.resolve import ResolvedGovernance
from kapi.core.governance.voice import TermRule
from kapi.core.model import Block, Text


def unit(text: str, *rules: TermRule) -> CheckUnit:
    return CheckUnit(
        file="a.md",
        locale="en",
        blocks=(Block(id="p1", source=(Text(text),)),),
        governance=ResolvedGovernance(suggested_rules=rules),
    )


def test_a_suggestion_reports_without_failing() -> None:
    (finding,) = SuggestedAnalyzer().run(
        unit("We utilise it.", TermRule(term="utilise", replacement="use"))
    )
    assert (finding.rule, finding.fails, finding.suggested) == ("suggested.vocabulary", False, True)
    assert finding.message == 'Suggested rule about "utilise", not yet established'
    assert finding.suggestion == "use"
    assert finding_weight(finding) == 0


def test_even_a_non_advisory_suggestion_never_fails() -> None:
    found = SuggestedAnalyzer().run(unit("mooring", TermRule(term="mooring", advisory=False)))
    assert [f.fails for f in found] == [False]


def test_miss_and_not_applicable() -> None:
    assert SuggestedAnalyzer().run(unit("We use it.", TermRule(term="utilise"))) == []
    assert SuggestedAnalyzer().plan(unit("x"))[0] == AnalyzerStatus.NOT_APPLICABLE  # type: ignore[index]


def test_canary_is_caught() -> None:
    assert run_canary(SuggestedAnalyzer(), unit("x", TermRule(term="utilise"))).status == "caught"
