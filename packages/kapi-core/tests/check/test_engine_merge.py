"""Checking targets in parts (as worker processes do) and merging gives run_check's report."""

from __future__ import annotations

import itertools
import pickle
from collections.abc import Callable, Sequence

import pytest
from attrs import evolve
from hypothesis import given, settings
from hypothesis import strategies as st

from kapi.core.check.engine import Checker, TargetResult, build_report, run_check
from kapi.core.check.findings import Lines
from kapi.core.check.options import CheckOptions
from kapi.core.check.report import Report, encode_report
from kapi.core.check.target import CheckTarget
from kapi.core.governance.errors import ConfigWarning, GovernanceError
from kapi.core.governance.resolve import GovernancePoint, ResolvedGovernance, VoiceBinding
from kapi.core.governance.terms import Concept, Term
from kapi.core.governance.voice import TermRule, load_voice_profile
from kapi.core.model import Block, Edition, Text


def _voice(name: str, terms: list[dict[str, str]], patterns: list[str]) -> ResolvedGovernance:
    profile, warnings = load_voice_profile(
        {
            "name": name,
            "terms": terms,
            "style": {"prohibited_patterns": [{"regex": r, "description": r} for r in patterns]},
        },
        f"voices/{name}.yaml",
    )
    return ResolvedGovernance(
        voice=profile,
        voice_source=f"store:{name}",
        point=GovernancePoint(
            path="",
            profile=name,
            channel="guides",
            voice=VoiceBinding(profile=name),
            selection="project",
            fallback=False,
        ),
        concepts=CONCEPTS,
        terms_bound=True,
        warnings=warnings,
    )


CONCEPTS = (
    Concept(id="c", terms=(Term("berth", "en", "preferred"), Term("mooring", "en", "forbidden"))),
    Concept(id="d", terms=(Term("cart", "en", "preferred"), Term("basket", "en", "forbidden"))),
)
DOCS = _voice("docs", [{"term": "utilize", "replacement": "use"}], [r"(?i)\bsimply\b"])
UI = evolve(
    _voice("ui", [{"term": "log in", "replacement": "sign in"}], []),
    suggested_rules=(TermRule(term="click", replacement="select"),),
    warnings=(ConfigWarning("voice.unknown_key", "unknown key 'mood' ignored", "ui.yaml", "mood"),),
)
NONE = ResolvedGovernance()

SENTENCES = (
    "Simply utilize the mooring.",
    "Put it in the basket and log in.",
    "Click the the button to save.",
    "Use the berth and the cart.",
    "Open the report.",
)


def _block(index: int, text: str) -> Block:
    return Block(id=f"p{index}", source=(Text(text),))


def _targets() -> list[CheckTarget]:
    """Every kind of target: prose under two voices and none, odd statuses, bilingual, a diff."""
    out: list[CheckTarget] = []
    for n in range(14):
        blocks = tuple(_block(i, SENTENCES[(n + i) % len(SENTENCES)]) for i in range(1, 2 + n % 3))
        folder = ("docs", "app", "misc")[n % 3]
        out.append(
            CheckTarget(
                file=f"{folder}/page{n:02d}.md",
                format="markdown",
                blocks=blocks,
                locale="en",
                context_path=f"{folder}/page{n:02d}.md",
                block_lines={f"p{i}": Lines(i * 2, i * 2) for i in range(1, 4)},
                extraction_ms=1.5,
            )
        )
    out.insert(3, CheckTarget(file="docs/broken.md", status="did_not_run", reason="not UTF-8"))
    out.insert(6, CheckTarget(file="docs/notes.bin", status="no_reader", reason="no format"))
    out.insert(
        8,
        CheckTarget(
            file="docs/code.md",
            format="markdown",
            blocks=(Block(id="c1", source=(Text("utilize()"),), role="code"),),
            locale="en",
        ),
    )
    out.insert(
        10,
        CheckTarget(
            file="app/strings.po",
            format="po",
            locale="en",
            target_locale="fr",
            blocks=(
                Block(
                    id="s1",
                    source=(Text("Hello {name}, log in to Kapi"),),
                    targets={"fr": Edition(runs=(Text("Bonjour, connectez-vous"),))},
                ),
            ),
        ),
    )
    out.append(
        CheckTarget(
            file="docs/diffed.md",
            format="markdown",
            blocks=(_block(1, SENTENCES[0]), _block(2, SENTENCES[1])),
            locale="en",
            scope_blocks=frozenset({"p2"}),
        )
    )
    return out


def _resolver(target: CheckTarget) -> ResolvedGovernance:
    folder = target.file.split("/")[0]
    governance = {"docs": DOCS, "app": UI}.get(folder, NONE)
    return evolve(governance, context_path=target.file)


OPTIONS = CheckOptions(forbid=(r"\bsave\b",), max_words=6, dnt=("Kapi",), at="2025-01-01T00:00:00Z")


def _comparable(report: Report) -> dict[str, object]:
    """The wire report without what measures time."""
    wire = encode_report(report)
    wire["execution"].pop("timings")
    for run in wire["execution"]["analyzers"]:
        run.pop("duration_ms", None)
    return wire


def _in_parts(
    targets: Sequence[CheckTarget],
    cuts: Sequence[int],
    resolver: Callable[[CheckTarget], ResolvedGovernance],
) -> Report:
    """Each part checked by its own checker on governance that went through pickle, as in a
    worker process; the parts' results merged in order."""
    bounds = [0, *sorted(cuts), len(targets)]
    results: list[TargetResult] = []
    for start, end in itertools.pairwise(bounds):
        checker = Checker(OPTIONS)
        for target in targets[start:end]:
            if target.status != "checked":
                result = checker.check(target)
            else:
                governance = pickle.loads(pickle.dumps(resolver(target)))
                result = checker.analyse(pickle.loads(pickle.dumps(target)), governance)
            results.append(pickle.loads(pickle.dumps(result)))
    return build_report(results, OPTIONS, started=0.0, label="docs")


def test_parts_merged_in_order_give_the_report_of_one_run() -> None:
    targets = _targets()
    whole = run_check(targets, _resolver, OPTIONS, label="docs")
    parts = _in_parts(targets, [5, 9, 16], _resolver)
    assert _comparable(parts) == _comparable(whole)
    # the report is a real one: both voices, store terms, canaries, bilingual, odd files
    assert whole.verdict == "failed"
    rules = {finding.rule for finding in whole.findings}
    assert {"voice.vocabulary", "terms.vocabulary", "voice.style", "hygiene.doubled-word"} <= rules
    assert {
        "pattern.forbidden-pattern",
        "length.max-words-exceeded",
        "placeholder.missing",
    } <= rules
    assert {"suggested.vocabulary", "dnt.missing"} <= rules
    assert whole.scope is not None
    statuses = [entry.status for entry in whole.scope.files]
    assert {"did_not_run", "no_reader", "no_content", "checked"} <= set(statuses)
    assert len(whole.warnings) == 1
    assert whole.execution is not None
    canaries = {run.canary.status for run in whole.execution.analyzers if run.canary}
    assert canaries == {"caught"}
    assert whole.target.kind == "diff"


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=19), max_size=6))
def test_any_split_merges_to_the_same_report(cuts: list[int]) -> None:
    targets = _targets()
    whole = run_check(targets, _resolver, OPTIONS, label="docs")
    assert _comparable(_in_parts(targets, cuts, _resolver)) == _comparable(whole)


def test_a_single_target_keeps_its_own_name_in_the_report() -> None:
    (target,) = [t for t in _targets() if t.file == "docs/page00.md"]
    whole = run_check([target], _resolver, OPTIONS)
    result = Checker(OPTIONS).check(target, _resolver)
    merged = build_report([result], OPTIONS, started=0.0)
    assert _comparable(merged) == _comparable(whole)
    assert merged.target.file == "docs/page00.md"
    assert merged.target.context_path == "docs/page00.md"


def test_a_result_pickles_to_an_equal_result() -> None:
    checker = Checker(OPTIONS)
    for target in _targets():
        result = checker.check(target, _resolver)
        assert pickle.loads(pickle.dumps(result)) == result
    assert pickle.loads(pickle.dumps(DOCS)) == DOCS


def test_timings_sum_the_parts_and_count_extraction_once() -> None:
    ticks = itertools.count(0.0, 0.001)

    def clock() -> float:
        return next(ticks)

    checker = Checker(OPTIONS, clock=clock)
    started = clock()
    results = [checker.check(target, _resolver) for target in _targets()[:3]]
    report = build_report(results, OPTIONS, started=started, clock=clock)
    timings = report.execution.timings  # type: ignore[union-attr]
    assert timings.extraction_ms == pytest.approx(4.5)
    assert timings.context_ms == pytest.approx(3.0)  # one tick per resolution
    assert timings.analyzers_ms == pytest.approx(sum(r.analyzers_ms for r in results))
    assert timings.total_ms > timings.analyzers_ms + timings.extraction_ms


def test_an_unchecked_target_is_never_resolved() -> None:
    def refuse(target: CheckTarget) -> ResolvedGovernance:
        raise GovernanceError("no voice profile 'docs'", "store:docs")

    result = Checker().check(CheckTarget(file="x.md", status="did_not_run", reason="gone"), refuse)
    assert (result.scope_file.status, result.runs, result.context) == ("did_not_run", (), None)
    with pytest.raises(GovernanceError):
        Checker().check(_targets()[0], refuse)
