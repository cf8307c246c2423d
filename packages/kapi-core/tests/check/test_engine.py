"""The one engine: end-to-end reports, scope, canaries, timings, and the commit check helpers."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator

import pytest
from attrs import evolve

from kapi.core.check.analyzers import Analyzer, CheckUnit, Probe, sample_block
from kapi.core.check.engine import analyze_blocks, introduced_failures, run_check
from kapi.core.check.findings import Finding, Lines, Location, fix_op
from kapi.core.check.hygiene import HygieneAnalyzer
from kapi.core.check.options import CheckOptions
from kapi.core.check.report import encode_report, exit_code
from kapi.core.check.target import CheckTarget, text_target
from kapi.core.governance.errors import ConfigWarning, GovernanceError
from kapi.core.governance.resolve import GovernancePoint, ResolvedGovernance, VoiceBinding
from kapi.core.governance.terms import Concept, Term
from kapi.core.governance.voice import load_voice_profile
from kapi.core.model import Block, Edition, PcClose, PcOpen, Text

VOICE, _ = load_voice_profile(
    {
        "name": "northsea",
        "terms": [{"term": "utilize", "replacement": "use"}],
        "style": {
            "prohibited_patterns": [{"regex": r"(?i)\bsimply\b", "description": "no simply"}]
        },
    },
    "voice.yaml",
)
GOVERNANCE = ResolvedGovernance(
    voice=VOICE,
    voice_source="store:northsea",
    point=GovernancePoint(
        path="docs/a.md",
        profile="northsea",
        channel="docs",
        voice=VoiceBinding(profile="northsea"),
        selection="project",
        fallback=False,
    ),
    concepts=(
        Concept(
            id="c", terms=(Term("berth", "en", "preferred"), Term("mooring", "en", "forbidden"))
        ),
    ),
    terms_bound=True,
)


def resolver(_target: CheckTarget) -> ResolvedGovernance:
    return GOVERNANCE


def doc(*blocks: Block, file: str = "docs/a.md", **kw: object) -> CheckTarget:
    return CheckTarget(file=file, format="markdown", blocks=blocks, locale="en", **kw)  # type: ignore[arg-type]


def p(text: str, block_id: str = "p1") -> Block:
    return Block(id=block_id, source=(Text(text),))


def test_clean_file_passes_with_every_analyzer_accounted_for() -> None:
    report = run_check([doc(p("Use the berth."))], resolver)
    assert report.verdict == "passed", report.did_not_run
    assert exit_code(report) == 0
    statuses = {run.id: run.status for run in report.execution.analyzers}  # type: ignore[union-attr]
    assert statuses == {
        "hygiene": "passed",
        "length": "not_requested",
        "pattern": "not_requested",
        "voice.rules": "passed",
        "terms": "passed",
        "suggested": "not_applicable",
        "voice.guidance": "unsupported",
        "voice.llm": "not_requested",
        "placeholder": "not_requested",
        "dnt": "not_requested",
        "qa": "not_requested",
    }
    canaries = {run.id: run.canary.status for run in report.execution.analyzers if run.canary}  # type: ignore[union-attr]
    assert canaries == {"hygiene": "caught", "voice.rules": "caught", "terms": "caught"}


def test_findings_from_voice_and_terms_fail_the_check() -> None:
    report = run_check([doc(p("Simply utilize the mooring."))], resolver)
    assert report.verdict == "failed"
    assert exit_code(report) == 3 and exit_code(report, no_fail=True) == 0
    assert [(f.rule, f.fails) for f in report.findings] == [
        ("terms.vocabulary", True),
        ("voice.style", True),
        ("voice.vocabulary", True),
    ]
    assert report.findings[0].point is not None and report.findings[0].point.profile == "northsea"
    assert report.summary.score == 25


def test_findings_never_come_from_code_front_matter_code_spans_or_urls() -> None:
    blocks = (
        Block(
            id="fm",
            source=(Text("title: simply utilize mooring"),),
            role="front-matter",
            translatable=False,
        ),
        Block(id="code", source=(Text("simply = utilize(mooring)"),), role="code"),
        Block(
            id="p1",
            source=(
                Text("Call "),
                PcOpen(id="1", type="fmt:code", data="`"),
                Text("utilize(mooring)"),
                PcClose(id="1", type="fmt:code", data="`"),
                Text(" or see https://example.com/simply/mooring."),
            ),
        ),
    )
    report = run_check([doc(*blocks)], resolver)
    assert report.findings == ()
    assert report.target.blocks == 1
    assert report.verdict == "passed"


def test_a_file_with_no_prose_is_nothing_to_check() -> None:
    report = run_check([doc(Block(id="c", source=(Text("x"),), role="code"))], resolver)
    assert (report.verdict, report.did_not_run_cause) == ("did_not_run", "nothing_to_check")
    assert exit_code(report, no_fail=True) == 4
    assert report.scope is not None and report.scope.files[0].status == "no_content"


def test_an_unreadable_file_never_silently_passes() -> None:
    unreadable = CheckTarget(
        file="docs/b.md", status="did_not_run", reason="invalid UTF-8 at line 3"
    )
    report = run_check([doc(p("Fine.")), unreadable], resolver, label="docs/")
    assert (report.verdict, report.did_not_run_cause) == ("did_not_run", "content_not_checked")
    assert "docs/b.md" in report.did_not_run
    assert [(f.path, f.status) for f in report.scope.files] == [
        ("docs/a.md", "checked"),
        ("docs/b.md", "did_not_run"),
    ]  # type: ignore[union-attr]
    assert report.target.file == "docs/"


class _Blind(Analyzer):
    """An analyzer whose canary is missed: it never finds anything."""

    id = "blind"
    family = "blind"

    def run(self, unit: CheckUnit) -> list[Finding]:
        return []

    def probes(self, unit: CheckUnit) -> list[Probe]:
        return [Probe(unit.with_blocks([sample_block("bad")]), "blind.bad", "bad")]


def test_a_missed_canary_makes_the_verdict_did_not_run_even_with_failures() -> None:
    report = run_check([doc(p("Simply."))], resolver, analyzers=[HygieneAnalyzer(), _Blind()])
    blind = [run for run in report.execution.analyzers if run.id == "blind"]  # type: ignore[union-attr]
    assert blind[0].status == "invalid"
    assert blind[0].canary is not None and blind[0].canary.status == "missed"
    assert (report.verdict, report.did_not_run_cause) == ("did_not_run", "checker_invalid")
    assert exit_code(report) == 4


def test_a_diff_scope_reports_only_touched_blocks_but_reads_the_whole_file() -> None:
    options = CheckOptions(require=("©",), diff="HEAD")
    target = doc(p("Simply one.", "p1"), p("Simply two.", "p2"), scope_blocks=frozenset({"p2"}))
    report = run_check([target], resolver, options)
    blocks = [(f.rule, f.location.block) for f in report.findings]
    assert ("voice.style", "p2") in blocks
    assert ("voice.style", "p1") not in blocks
    assert ("pattern.pattern-missing", "") in blocks  # a document rule still applies
    assert report.target.kind == "diff"
    assert report.scope is not None and report.scope.diff == "HEAD"


def test_bilingual_checks_run_against_in_file_targets() -> None:
    block = Block(
        id="k1", source=(Text("Hello {name}"),), targets={"fr": Edition(runs=(Text("Bonjour"),))}
    )
    report = run_check([doc(block)], None, CheckOptions(target_locale="fr"))
    assert [f.rule for f in report.findings] == ["placeholder.missing"]


def test_bilingual_checks_run_against_a_target_file() -> None:
    source = Block(id="k1", name="home.title", source=(Text("Open Kapi now"),))
    target = Block(id="x9", name="home.title", source=(Text("Ouvrez maintenant"),))
    report = run_check(
        [doc(source, target_blocks=(target,), target_locale="fr")],
        None,
        CheckOptions(dnt=("Kapi",)),
    )
    assert [f.rule for f in report.findings] == ["dnt.missing"]
    assert report.execution is not None
    assert report.execution.term_matching == ()


def test_locations_get_line_numbers_when_the_host_knows_them() -> None:
    report = run_check([doc(p("Simply."), block_lines={"p1": Lines(4, 6)})], resolver)
    assert report.findings[0].location.lines == Lines(4, 6)


def test_timings_use_the_injected_clock_and_contexts_record_the_voice() -> None:
    ticks: Iterator[float] = itertools.count(0.0, 0.001)
    report = run_check([doc(p("Fine."), extraction_ms=2.5)], resolver, clock=lambda: next(ticks))
    timings = report.execution.timings  # type: ignore[union-attr]
    assert timings.extraction_ms == 2.5
    assert timings.context_ms == pytest.approx(1.0)
    assert timings.total_ms > timings.analyzers_ms > 0
    (context,) = report.execution.contexts  # type: ignore[union-attr]
    assert (
        context.voice.selection,
        context.voice.name,
        context.voice.source,
        context.voice.channel,
    ) == ("project", "northsea", "store:northsea", "docs")
    assert context.terms_applied
    assert report.execution.term_matching[0].source == "english-inflection"  # type: ignore[union-attr]


def test_warnings_are_reported_once_and_never_move_the_verdict() -> None:
    warning = ConfigWarning("voice.unknown_key", "unknown key 'mood' ignored", "voice.yaml", "mood")
    governance = evolve(GOVERNANCE, warnings=(warning,))
    report = run_check(
        [doc(p("Fine.")), doc(p("Also fine."), file="docs/c.md")], lambda _t: governance
    )
    assert report.warnings == (warning,)
    assert report.verdict == "passed"


def test_a_resolver_error_propagates_for_the_host_to_exit_1() -> None:
    def broken(_target: CheckTarget) -> ResolvedGovernance:
        raise GovernanceError("profile 'x' is not declared", "kapi.yaml", "profile")

    with pytest.raises(GovernanceError):
        run_check([doc(p("x"))], broken)


def test_bad_options_are_refused_before_anything_runs() -> None:
    with pytest.raises(GovernanceError) as caught:
        run_check([doc(p("x"))], None, CheckOptions(max_chars=-1))
    assert caught.value.key == "max_chars"


def test_check_text_keeps_kind_text_and_the_context_path() -> None:
    report = run_check([text_target("Simply.\n\nSecond.", context_path="docs/new.md")], resolver)
    assert (report.target.kind, report.target.context_path, report.target.blocks) == (
        "text",
        "docs/new.md",
        2,
    )
    data = json.loads(json.dumps(encode_report(report)))
    assert data["target"]["kind"] == "text"
    assert data["execution"]["analyzers"][0]["canary"]["status"] == "caught"
    assert run_check([text_target("  \n")], resolver).did_not_run_cause == "nothing_to_check"


def test_analyze_blocks_and_introduced_failures_for_the_commit_check() -> None:
    before = analyze_blocks(
        [p("Simply go.", "p1"), p("Utilize it.", "p2")], GOVERNANCE, locale="en"
    )
    after = analyze_blocks(
        [p("Simply go.", "p1"), p("Utilize it. Simply.", "p2"), p("Go.", "p3")],
        GOVERNANCE,
        locale="en",
    )
    introduced = introduced_failures(before, after)
    assert [(f.rule, f.location.block) for f in introduced] == [("voice.style", "p2")]


def test_introduced_failures_are_counted_by_rule_and_message() -> None:
    def f(
        block: str, *, fails: bool = True, message: str = "m", suggested: bool = False
    ) -> Finding:
        return Finding(
            rule="r",
            check="r",
            fails=fails,
            message=message,
            location=Location(block=block),
            suggested=suggested,
        )

    assert introduced_failures([f("a")], [f("b")]) == []  # moved, not introduced
    assert [x.location.block for x in introduced_failures([f("a")], [f("a"), f("b")])] == ["b"]
    assert [x.location.block for x in introduced_failures([f("a")], [f("b"), f("a")])] == ["b"]
    assert introduced_failures([], [f("a", fails=False), f("a", suggested=True)]) == []
    assert len(introduced_failures([f("a", message="x")], [f("a", message="y")])) == 1


def test_fix_op_builds_a_replace_text_op() -> None:
    report = run_check([doc(p("Utilize it."))], resolver)
    (finding,) = [f for f in report.findings if f.rule == "voice.vocabulary"]
    assert fix_op(finding, doc="docs/a.md", if_match="r:1") == {
        "op": "replace_text",
        "at": {"doc": "docs/a.md", "block": "p1"},
        "if_match": "r:1",
        "edits": [
            {
                "range": {"start": {"run": 0, "offset": 0}, "end": {"run": 0, "offset": 7}},
                "text": "Use",
            }
        ],
    }
