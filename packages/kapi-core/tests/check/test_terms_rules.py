"""``terms``: store terms through the matcher; forbidden and competitor fail, deprecated reports."""

from __future__ import annotations

from datetime import UTC, datetime

from kapi.core.check.analyzers import AnalyzerStatus, CheckUnit, run_canary
from kapi.core.check.terms_rules import TermsAnalyzer
from kapi.core.governance.resolve import ResolvedGovernance
from kapi.core.governance.terms import Concept, Term, rules_from_concepts
from kapi.core.governance.voice import TermRule
from kapi.core.model import Block, Text

CONCEPTS = (
    Concept(
        id="c1",
        terms=(
            Term("berth", "en", "preferred"),
            Term("mooring", "en", "forbidden"),
            Term("slip", "en", "deprecated", note="old word"),
            Term("SeaDock", "en", "approved", competitor_term=True),
            Term("quai", "fr", "forbidden"),
        ),
    ),
)


def unit(
    text: str, *, bound: bool = True, concepts: tuple[Concept, ...] = CONCEPTS, locale: str = "en"
) -> CheckUnit:
    governance = ResolvedGovernance(
        concepts=concepts, terms_bound=bound, at=datetime(2026, 1, 1, tzinfo=UTC)
    )
    return CheckUnit(
        file="a.md",
        locale=locale,
        blocks=(Block(id="p1", source=(Text(text),)),),
        governance=governance,
        store_rules=tuple(rules_from_concepts(concepts, locale)),
    )


def test_statuses_become_failing_and_reporting_findings() -> None:
    found = TermsAnalyzer().run(unit("The mooring and the slips near SeaDock, by the quai."))
    assert [(f.rule, f.message, f.fails) for f in found] == [
        ("terms.vocabulary", 'Use "berth" instead of "mooring"', True),
        ("terms.vocabulary", 'Use "berths" instead of "slips" (old word)', False),
        ("terms.vocabulary", '"SeaDock" is a competitor\'s term; use "berth"', True),
    ]
    assert found[0].replacement == "berth"
    assert found[0].metadata == {"term": "mooring", "replacement": "berth", "concept_id": "c1"}


def test_preferred_and_approved_terms_are_uses_not_violations() -> None:
    assert TermsAnalyzer().run(unit("Find a berth.")) == []


def test_not_applicable_when_no_terms_are_bound() -> None:
    assert (
        TermsAnalyzer().plan(unit("x", bound=False, concepts=()))[0]
        == AnalyzerStatus.NOT_APPLICABLE
    )  # type: ignore[index]


def test_did_not_run_when_the_bound_terms_reject_nothing_here() -> None:
    only_preferred = (Concept(id="gh", terms=(Term("GitHub", "en", "preferred"),)),)
    assert TermsAnalyzer().plan(unit("x", concepts=only_preferred))[0] == AnalyzerStatus.DID_NOT_RUN  # type: ignore[index]


def test_workspace_rules_count_as_terms_even_without_a_store() -> None:
    governance = ResolvedGovernance(term_rules=(TermRule(term="okay", replacement="OK"),))
    u = CheckUnit(
        file="a",
        locale="en",
        blocks=(Block(id="p1", source=(Text("okay"),)),),
        governance=governance,
    )
    assert TermsAnalyzer().plan(u) is None
    assert [f.message for f in TermsAnalyzer().run(u)] == ['Use "OK" instead of "okay"']


def test_canary_uses_a_failing_term_and_is_caught() -> None:
    canary = run_canary(TermsAnalyzer(), unit("x"))
    assert (canary.status, canary.input) == ("caught", "mooring")
