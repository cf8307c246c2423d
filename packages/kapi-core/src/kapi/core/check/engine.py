"""The one check engine: every surface (``kapi check``, MCP, hooks, the commit check) calls it.

:func:`run_check` takes targets the host has read, a resolver that gives the
governance at each target's point, and the options; it runs every analyzer
with its canary and builds the ``kapi.check/v2`` report. It is a
:class:`Checker` over each target, then :func:`build_report` merging the
:class:`TargetResult` parts in order, so a host may check targets in several
processes and merge what they return. :func:`analyze_blocks` and
:func:`introduced_failures` (the change service's before/after check) live in
:mod:`kapi.core.check.analysis`, which does not load the report's classes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

from attrs import evolve, frozen

from kapi.core.check.analysis import (
    BlockAnalysis,
    StoreRules,
    analyze_blocks,
    default_analyzers,
    introduced_failures,
    make_unit,
)
from kapi.core.check.analyzers import (
    RAN,
    Analyzer,
    AnalyzerStatus,
    Canary,
    CanaryStatus,
    CheckUnit,
    run_canary,
)
from kapi.core.check.findings import FilePosition, Finding
from kapi.core.check.matcher import is_english
from kapi.core.check.options import CheckOptions
from kapi.core.check.report import (
    AnalyzerRun,
    ContextRecord,
    Evaluation,
    EvaluationAnalyzer,
    Execution,
    Report,
    ReportTarget,
    Scope,
    ScopeFile,
    TermMatching,
    Timings,
    VoiceRecord,
    decide,
    sort_findings,
    summarize,
)
from kapi.core.check.target import CheckTarget, ScopeStatus, checked_blocks
from kapi.core.governance.errors import ConfigWarning
from kapi.core.governance.resolve import ResolvedGovernance

__all__ = [
    "BlockAnalysis",
    "Checker",
    "Clock",
    "GovernanceResolver",
    "TargetResult",
    "analyze_blocks",
    "build_report",
    "default_analyzers",
    "introduced_failures",
    "run_check",
]

GovernanceResolver = Callable[[CheckTarget], ResolvedGovernance]
Clock = Callable[[], float]

_DETERMINISTIC_WORDS = frozenset({"voice.rules", "terms", "suggested"})


def _paired_unit(target: CheckTarget, unit: CheckUnit, store: StoreRules) -> CheckUnit:
    """For a file that is a translation: its source's blocks, each with this file's text as
    its target side (the unit the bilingual analyzers read)."""
    own = {block.ref_key: block.source for block in unit.blocks}
    sources = tuple(
        block for block in checked_blocks(target.source_blocks or ()) if block.ref_key in own
    )
    locale = target.source_locale or unit.locale
    governance = unit.governance
    return evolve(
        unit,
        locale=locale,
        blocks=sources,
        target_locale=target.target_locale,
        targets={block.ref_key: own[block.ref_key] for block in sources},
        store_rules=store.rules(governance.concepts, locale, governance.at),
    )


def _in_scope(finding: Finding, scope: frozenset[str] | None) -> bool:
    return scope is None or not finding.location.block or finding.location.block in scope


@frozen(kw_only=True)
class TargetResult:
    """One target's part of the report, before the merge: what :func:`build_report` combines.

    Plain values that pickle, so a host may check targets in worker processes
    and merge their results here in target order. ``blocks`` counts the blocks
    in scope; ``scoped`` says a diff limited the target to some blocks;
    ``warnings`` and ``term_matching`` are this target's, without repeats.
    """

    file: str
    scope_file: ScopeFile
    format: str = ""
    kind: str = "file"
    context_path: str = ""
    scoped: bool = False
    blocks: int = 0
    context: ContextRecord | None = None
    runs: tuple[AnalyzerRun, ...] = ()
    findings: tuple[Finding, ...] = ()
    warnings: tuple[ConfigWarning, ...] = ()
    term_matching: tuple[TermMatching, ...] = ()
    extraction_ms: float = 0.0
    context_ms: float = 0.0
    analyzers_ms: float = 0.0


class Checker:
    """Checks targets one at a time for one run, keeping canaries and store rules across them.

    :func:`run_check` is one checker over every target, then
    :func:`build_report`. A host may give each of several processes its own
    checker with the same options and analyzers and merge the results in
    target order: a canary depends only on what its analyzer's
    :meth:`~kapi.core.check.analyzers.Analyzer.canary_key` names, so each
    process records the canary a single process would.
    """

    def __init__(
        self,
        options: CheckOptions | None = None,
        *,
        analyzers: Sequence[Analyzer] | None = None,
        clock: Clock = time.perf_counter,
    ) -> None:
        self.options = options or CheckOptions()
        self.options.validate()
        self.analyzers = tuple(analyzers) if analyzers is not None else default_analyzers()
        self.clock = clock
        self._store = StoreRules()
        self._canaries: dict[Hashable, tuple[Canary, CheckUnit]] = {}

    def check(
        self, target: CheckTarget, governance_resolver: GovernanceResolver | None = None
    ) -> TargetResult:
        """One target: resolved (only when the host read content from it), then analysed."""
        if target.status != ScopeStatus.CHECKED:
            return self._result(target, ScopeFile(target.file, target.status, target.reason))
        clock = self.clock
        before = clock()
        governance = governance_resolver(target) if governance_resolver else ResolvedGovernance()
        return self.analyse(target, governance, context_ms=(clock() - before) * 1000)

    def analyse(
        self, target: CheckTarget, governance: ResolvedGovernance, *, context_ms: float = 0.0
    ) -> TargetResult:
        """A target the host read, under the governance already resolved at its point."""
        if target.status != ScopeStatus.CHECKED:
            return self._result(target, ScopeFile(target.file, target.status, target.reason))
        blocks = checked_blocks(target.blocks)
        if target.scope_blocks is not None:
            in_scope = sum(1 for block in blocks if block.ref_key in target.scope_blocks)
        else:
            in_scope = len(blocks)
        warnings: dict[ConfigWarning, None] = {}
        for warning in (
            *governance.warnings,
            *(governance.point.warnings if governance.point else ()),
        ):
            warnings.setdefault(warning, None)
        unit = make_unit(target, blocks, governance, self.options, self._store)
        paired = (
            _paired_unit(target, unit, self._store) if target.source_blocks is not None else None
        )
        context = _context_record(target, governance, unit)
        if not blocks:
            return self._result(
                target,
                ScopeFile(target.file, ScopeStatus.NO_CONTENT, "no prose blocks to check"),
                blocks=in_scope,
                context=context,
                warnings=tuple(warnings),
                context_ms=context_ms,
            )
        clock = self.clock
        runs: list[AnalyzerRun] = []
        findings: list[Finding] = []
        matching: dict[TermMatching, None] = {}
        before_analyzers = clock()
        for analyzer in self.analyzers:
            chosen = paired if paired is not None and analyzer.bilingual else unit
            run, found = _run_analyzer(analyzer, chosen, target, self._canaries, clock)
            runs.append(run)
            findings.extend(found)
            if analyzer.id in _DETERMINISTIC_WORDS and run.status in (
                AnalyzerStatus.PASSED,
                AnalyzerStatus.FINDINGS,
            ):
                matching.setdefault(_term_matching(unit), None)
        analyzers_ms = (clock() - before_analyzers) * 1000
        return self._result(
            target,
            ScopeFile(target.file, ScopeStatus.CHECKED),
            blocks=in_scope,
            context=context,
            runs=tuple(runs),
            findings=tuple(findings),
            warnings=tuple(warnings),
            term_matching=tuple(matching),
            context_ms=context_ms,
            analyzers_ms=analyzers_ms,
        )

    @staticmethod
    def _result(target: CheckTarget, scope_file: ScopeFile, **parts: Any) -> TargetResult:
        return TargetResult(
            file=target.file,
            scope_file=scope_file,
            format=target.format,
            kind=target.kind,
            context_path=target.context_path,
            scoped=target.scope_blocks is not None,
            extraction_ms=target.extraction_ms,
            **parts,
        )


def run_check(
    targets: Sequence[CheckTarget],
    governance_resolver: GovernanceResolver | None = None,
    options: CheckOptions | None = None,
    clock: Clock = time.perf_counter,
    *,
    analyzers: Sequence[Analyzer] | None = None,
    label: str = "",
    context: Mapping[str, Any] | None = None,
) -> Report:
    """Check the targets and build the report.

    ``governance_resolver`` answers the governance at a target's point (the
    host resolves the recipe, loads the voice, reads the store); it may raise
    :class:`~kapi.core.governance.errors.GovernanceError` when context does
    not resolve, which the host turns into exit 1 with no report. ``clock``
    returns seconds (monotonic); ``label`` names a multi-file target
    (``docs/``); ``context`` fills ``evaluation.context``.
    """
    checker = Checker(options, analyzers=analyzers, clock=clock)
    started = clock()
    results = [checker.check(target, governance_resolver) for target in targets]
    return build_report(
        results,
        checker.options,
        started=started,
        clock=clock,
        analyzers=checker.analyzers,
        label=label,
        context=context,
    )


def build_report(
    results: Sequence[TargetResult],
    options: CheckOptions,
    *,
    started: float,
    clock: Clock = time.perf_counter,
    analyzers: Sequence[Analyzer] | None = None,
    label: str = "",
    context: Mapping[str, Any] | None = None,
) -> Report:
    """Merge the targets' results, in the order given, into the report: findings, verdict, scope.

    ``started`` is the ``clock`` reading when checking began, after the targets
    were read: ``timings.total_ms`` is the time since then plus the results'
    extraction time. ``analyzers`` are those the results ran (default: every
    one), in report order.
    """
    analyzers = tuple(analyzers) if analyzers is not None else default_analyzers()
    findings: list[Finding] = []
    runs: list[AnalyzerRun] = []
    contexts: list[ContextRecord] = []
    warnings: dict[ConfigWarning, None] = {}
    matching: dict[TermMatching, None] = {}
    total_blocks = 0
    for result in results:
        total_blocks += result.blocks
        if result.context is not None:
            contexts.append(result.context)
        for warning in result.warnings:
            warnings.setdefault(warning, None)
        runs.extend(result.runs)
        findings.extend(result.findings)
        for entry in result.term_matching:
            matching.setdefault(entry, None)
    scope_files = [result.scope_file for result in results]
    context_ms = sum(result.context_ms for result in results)
    analyzers_ms = sum(result.analyzers_ms for result in results)
    extraction_ms = sum(result.extraction_ms for result in results)

    report_started = clock()
    ordered = sort_findings(findings)
    summary = summarize(ordered)
    diff = bool(options.diff) or any(result.scoped for result in results)
    verdict, cause, not_run = decide(
        summary=summary, blocks=total_blocks, analyzers=runs, scope_files=scope_files, diff=diff
    )
    report_target = _report_target(results, label, total_blocks, diff)
    evaluation = None
    if options.at or options.tool_version or context is not None:
        evaluation = Evaluation(
            at=options.at,
            context=context,
            tool={"name": "kapi", "version": options.tool_version},
            analyzers=_evaluation_analyzers(analyzers, runs),
        )
    finished = clock()
    timings = Timings(
        context_ms=round(context_ms, 3),
        extraction_ms=round(extraction_ms, 3),
        analyzers_ms=round(analyzers_ms, 3),
        report_ms=round((finished - report_started) * 1000, 3),
        total_ms=round((finished - started) * 1000 + extraction_ms, 3),
    )
    return Report(
        verdict=verdict,
        target=report_target,
        summary=summary,
        findings=ordered,
        did_not_run=not_run,
        did_not_run_cause=cause,
        warnings=tuple(warnings),
        execution=Execution(
            analyzers=tuple(runs),
            timings=timings,
            contexts=tuple(contexts),
            term_matching=tuple(matching),
        ),
        scope=Scope(files=tuple(scope_files), diff=options.diff),
        evaluation=evaluation,
    )


def _run_analyzer(
    analyzer: Analyzer,
    unit: CheckUnit,
    target: CheckTarget,
    canaries: dict[Hashable, tuple[Canary, CheckUnit]],
    clock: Clock,
) -> tuple[AnalyzerRun, list[Finding]]:
    started = clock()
    required = analyzer.required(unit)
    planned = analyzer.plan(unit)
    if planned is not None:
        status, reason = planned
        return (
            AnalyzerRun(
                id=analyzer.id,
                status=status,
                file=target.file,
                required=required,
                reason=reason,
                duration_ms=round((clock() - started) * 1000, 3),
                point=unit.point,
            ),
            [],
        )
    found = [
        _with_lines(finding, target)
        for finding in analyzer.run(unit)
        if _in_scope(finding, target.scope_blocks)
    ]
    key = analyzer.canary_key(unit)
    cached = canaries.get(key)
    if cached is None:
        cached = (run_canary(analyzer, unit), unit)
        canaries[key] = cached
    canary = cached[0]
    if canary.status == CanaryStatus.MISSED:
        status = AnalyzerStatus.INVALID
        reason = f"the canary was missed: {canary.missed!r} ({canary.reason})"
    elif found:
        status, reason = AnalyzerStatus.FINDINGS, ""
    else:
        status, reason = AnalyzerStatus.PASSED, ""
    if canary.status == CanaryStatus.IMPOSSIBLE and not reason:
        reason = f"no canary: {canary.reason}"
    return (
        AnalyzerRun(
            id=analyzer.id,
            status=status,
            file=target.file,
            required=required,
            findings=len(found),
            reason=reason,
            duration_ms=round((clock() - started) * 1000, 3),
            canary=canary,
            point=unit.point,
        ),
        found,
    )


def _with_lines(finding: Finding, target: CheckTarget) -> Finding:
    """The finding with its block's lines and, when the format can place it, its file range."""
    location = finding.location
    fingerprint = target.fingerprints.get(location.block) if location.block else None
    if fingerprint is not None:
        location = evolve(location, comment_sha256=fingerprint)
        finding = evolve(finding, location=location)
    lines = target.block_lines.get(location.block) if location.block else None
    placed = _placed(finding, target) if lines is not None else None
    if placed is not None:
        start, end, snippet = placed
        return evolve(
            finding,
            location=evolve(location, lines=lines, start=start, end=end, snippet=snippet),
        )
    if lines is None:
        return finding
    return evolve(finding, location=evolve(location, lines=lines))


def _placed(finding: Finding, target: CheckTarget) -> tuple[FilePosition, FilePosition, str] | None:
    """Where a finding's anchored text stands in the file: start, exclusive end, text as written."""
    locator = target.locator
    anchor = finding.location.anchor
    if locator is None or anchor is None:
        return None
    form = ""
    if anchor.path:
        # Only a plural form the file writes as a value of its own can be placed.
        if len(anchor.path) != 2 or anchor.path[0] != 0:
            return None
        step = anchor.path[1]
        if not isinstance(step, tuple) or step[0] != "plural":
            return None
        form = step[1]
    edition = str(finding.metadata.get("edition", "") or "")
    if edition and target.target_blocks is not None:
        return None  # the target side was read from another file
    if edition and target.source_blocks is not None:
        edition = ""  # the target side is this file's own text
    block = finding.location.block
    start = locator.locate(block, edition, anchor.start.run, anchor.start.offset, form=form)
    if start is None:
        return None
    end = locator.locate(block, edition, anchor.end.run, anchor.end.offset, end=True, form=form)
    if end is None or end < start:
        end = start
    return (
        FilePosition(*locator.line_column(start)),
        FilePosition(*locator.line_column(end)),
        locator.excerpt(start, end) or finding.location.snippet,
    )


def _context_record(
    target: CheckTarget, governance: ResolvedGovernance, unit: CheckUnit
) -> ContextRecord:
    point = governance.point
    voice = governance.voice
    return ContextRecord(
        file=target.file,
        context_path=governance.context_path or target.context_path,
        voice=VoiceRecord(
            selection=point.selection if point is not None else ("project" if voice else "none"),
            applied=voice is not None,
            name=governance.voice_name,
            source=governance.voice_source,
            profile=point.profile if point is not None else "",
            channel=point.channel if point is not None else "",
        ),
        terms_applied=governance.terms_bound,
        point=unit.point,
    )


def _term_matching(unit: CheckUnit) -> TermMatching:
    locale = unit.locale or "en"
    source = "english-inflection" if is_english(unit.locale) else "whole-word"
    return TermMatching(locale=locale, source=source, target="containment" if unit.targets else "")


def _report_target(
    results: Sequence[TargetResult], label: str, blocks: int, diff: bool
) -> ReportTarget:
    if len(results) == 1 and not label:
        only = results[0]
        return ReportTarget(
            kind="diff" if diff else only.kind,
            file=only.file,
            format=only.format,
            blocks=blocks,
            context_path=only.context_path,
        )
    formats = {result.format for result in results}
    return ReportTarget(
        kind="diff" if diff else (results[0].kind if results else "file"),
        file=label,
        format=formats.pop() if len(formats) == 1 else "",
        blocks=blocks,
    )


def _evaluation_analyzers(
    analyzers: Sequence[Analyzer], runs: Sequence[AnalyzerRun]
) -> tuple[EvaluationAnalyzer, ...]:
    out: list[EvaluationAnalyzer] = []
    for analyzer in analyzers:
        mine = [run for run in runs if run.id == analyzer.id]
        ran = sum(1 for run in mine if run.status in RAN)
        not_run = tuple(run.file for run in mine if run.status not in RAN)
        out.append(EvaluationAnalyzer(id=analyzer.id, ran=ran, not_run=not_run))
    return tuple(out)


# The store's rules made for analyze_blocks, which the change service calls for every
# edited block: the same concepts (one tuple per run) give the same rules.
