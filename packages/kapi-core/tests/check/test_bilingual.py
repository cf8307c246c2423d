"""``placeholder`` and ``dnt``: bilingual checks against a target edition."""

from __future__ import annotations

from kapi.core.check.analyzers import AnalyzerStatus, CheckUnit, run_canary
from kapi.core.check.bilingual import DntAnalyzer, PlaceholderAnalyzer, placeholders
from kapi.core.check.options import CheckOptions
from kapi.core.governance.resolve import ResolvedGovernance
from kapi.core.governance.voice import TermRule
from kapi.core.model import Block, Ph, Plural, Runs, Text


def unit(
    source: Runs,
    target: Runs | None,
    *,
    dnt: tuple[str, ...] = (),
    governance: ResolvedGovernance | None = None,
) -> CheckUnit:
    block = Block(id="k1", source=source)
    return CheckUnit(
        file="en.json",
        locale="en",
        blocks=(block,),
        target_locale="fr" if target is not None else "",
        targets={"k1": target} if target is not None else {},
        options=CheckOptions(dnt=dnt),
        governance=governance or ResolvedGovernance(),
    )


def test_placeholders_are_collected_from_codes_and_text() -> None:
    runs = (Text("Hi {name}, %1$s and {{count}}"), Ph(id="1", type="code:placeholder", equiv="%d"))
    assert sorted(placeholders(runs)) == ["%1$s", "%d", "{name}", "{{count}}"]


def test_plural_forms_count_their_placeholders_once() -> None:
    runs = (Plural(pivot="n", forms={"one": (Text("{n} file"),), "other": (Text("{n} files"),)}),)
    assert placeholders(runs) == {"{n}": 1}


def test_missing_and_unexpected_placeholders_fail() -> None:
    found = PlaceholderAnalyzer().run(
        unit((Text("Hello {name}, you have %d"),), (Text("Bonjour {nom}, vous avez %d"),))
    )
    assert [(f.rule, f.fails, f.metadata["placeholder"]) for f in found] == [
        ("placeholder.missing", True, "{name}"),
        ("placeholder.unexpected", True, "{nom}"),
    ]


def test_matching_placeholders_in_any_order_pass() -> None:
    assert PlaceholderAnalyzer().run(unit((Text("{a} then {b}"),), (Text("{b} puis {a}"),))) == []


def test_not_requested_without_a_target_and_did_not_run_with_nothing_to_compare() -> None:
    assert PlaceholderAnalyzer().plan(unit((Text("x"),), None))[0] == AnalyzerStatus.NOT_REQUESTED  # type: ignore[index]
    empty = CheckUnit(file="a", locale="en", blocks=(), target_locale="fr")
    assert PlaceholderAnalyzer().plan(empty)[0] == AnalyzerStatus.DID_NOT_RUN  # type: ignore[index]
    assert PlaceholderAnalyzer().required(empty)


def test_dnt_terms_must_stay_verbatim() -> None:
    found = DntAnalyzer().run(
        unit((Text("Open Kapi Cloud now"),), (Text("Ouvrez kapi cloud"),), dnt=("Kapi Cloud",))
    )
    assert [(f.rule, f.fails, f.suggestion) for f in found] == [("dnt.missing", True, "Kapi Cloud")]
    assert (
        DntAnalyzer().run(
            unit((Text("Open Kapi Cloud"),), (Text("Ouvrez Kapi Cloud"),), dnt=("Kapi Cloud",))
        )
        == []
    )
    assert DntAnalyzer().run(unit((Text("Open it"),), (Text("Ouvrez"),), dnt=("Kapi Cloud",))) == []


def test_dnt_terms_come_from_rules_too() -> None:
    governance = ResolvedGovernance(
        term_rules=(TermRule(replacement="GitHub", do_not_translate=True),)
    )
    found = DntAnalyzer().run(
        unit((Text("On GitHub"),), (Text("Sur Gitub"),), governance=governance)
    )
    assert [f.metadata["term"] for f in found] == ["GitHub"]


def test_dnt_not_applicable_without_terms() -> None:
    assert DntAnalyzer().plan(unit((Text("x"),), (Text("y"),)))[0] == AnalyzerStatus.NOT_APPLICABLE  # type: ignore[index]


def test_canaries_are_caught() -> None:
    assert run_canary(PlaceholderAnalyzer(), unit((Text("x"),), (Text("y"),))).status == "caught"
    assert (
        run_canary(DntAnalyzer(), unit((Text("x"),), (Text("y"),), dnt=("Kapi",))).status
        == "caught"
    )
