"""The check report (``kapi.check/v2``): verdict, score, findings, execution and scope.

:func:`decide` applies spec §4.4 in order; :func:`score` is §4.5;
:func:`exit_code` maps a verdict to 0/3/4 (``--no-fail`` turns 3 into 0,
never 4). :func:`encode_report` gives the JSON shape through one cattrs
converter; :func:`render_text` the readable table. ``warnings``,
``execution`` and ``evaluation`` never move the verdict, the score or the exit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from functools import cache
from typing import TYPE_CHECKING, Any

from attrs import field, frozen

from kapi.core.check.analyzers import RAN, AnalyzerStatus, Canary, CanaryStatus
from kapi.core.check.findings import Finding, Point, finding_weight
from kapi.core.check.target import ScopeStatus
from kapi.core.check.text import Anchor
from kapi.core.governance.errors import ConfigWarning

if TYPE_CHECKING:  # cattrs is loaded when a report is encoded, not by a text check
    import cattrs

__all__ = [
    "REPORT_SCHEMA",
    "AnalyzerRun",
    "Cause",
    "ContextRecord",
    "Evaluation",
    "Execution",
    "Report",
    "ReportTarget",
    "Scope",
    "ScopeBlock",
    "ScopeFile",
    "Summary",
    "TermMatching",
    "Timings",
    "Verdict",
    "VoiceRecord",
    "decide",
    "encode_report",
    "exit_code",
    "render_text",
    "score",
    "sort_findings",
    "summarize",
]

REPORT_SCHEMA = "kapi.check/v2"


class Verdict(StrEnum):
    """A check's verdict (spec §4.4): only ``passed`` passes; ``did_not_run`` is never a pass."""

    PASSED = "passed"
    FAILED = "failed"
    DID_NOT_RUN = "did_not_run"


class Cause(StrEnum):
    """Why a verdict is ``did_not_run``."""

    CHECKER_INVALID = "checker_invalid"
    NOTHING_TO_CHECK = "nothing_to_check"
    CONTENT_NOT_CHECKED = "content_not_checked"


EXIT_PASSED = 0
EXIT_GATE = 3
EXIT_NOT_RUN = 4


@frozen
class ReportTarget:
    kind: str = "file"  # file | text | diff
    file: str = ""
    format: str = ""
    blocks: int = 0
    context_path: str = ""


@frozen
class Summary:
    findings: int = 0
    failing: int = 0
    reporting: int = 0
    score: int = 100


@frozen
class AnalyzerRun:
    """One ``execution.analyzers[]`` entry: an analyzer's status on one file, with its canary."""

    id: str
    status: AnalyzerStatus
    file: str = ""
    required: bool = False
    findings: int = 0
    reason: str = ""
    duration_ms: float = 0.0
    canary: Canary | None = None
    point: Point | None = None


@frozen
class Timings:
    context_ms: float = 0.0
    extraction_ms: float = 0.0
    analyzers_ms: float = 0.0
    report_ms: float = 0.0
    total_ms: float = 0.0


@frozen
class VoiceRecord:
    selection: str = "none"  # project | override | none
    applied: bool = False
    name: str = ""
    source: str = ""
    profile: str = ""
    channel: str = ""


@frozen
class ContextRecord:
    """One ``execution.contexts[]`` entry: the governance a file was checked under."""

    file: str
    context_path: str = ""
    voice: VoiceRecord = VoiceRecord()
    terms_applied: bool = False
    point: Point | None = None


@frozen
class TermMatching:
    locale: str
    source: str  # english-inflection | whole-word
    target: str = ""  # containment | containment+forms


@frozen
class Execution:
    analyzers: tuple[AnalyzerRun, ...] = ()
    timings: Timings = Timings()
    contexts: tuple[ContextRecord, ...] = ()
    term_matching: tuple[TermMatching, ...] = ()


@frozen
class ScopeBlock:
    block: str
    lines: Mapping[str, int] | None = None


@frozen
class ScopeFile:
    path: str
    status: ScopeStatus
    reason: str = ""
    blocks: tuple[ScopeBlock, ...] = ()


@frozen
class Scope:
    files: tuple[ScopeFile, ...] = ()
    diff: str = ""


@frozen
class EvaluationAnalyzer:
    id: str
    ran: int = 0
    not_run: tuple[str, ...] = ()


@frozen
class Evaluation:
    at: str = ""
    context: Mapping[str, Any] | None = None
    tool: Mapping[str, str] = field(factory=dict)
    plugins: tuple[str, ...] = ()
    analyzers: tuple[EvaluationAnalyzer, ...] = ()


@frozen
class Report:
    """A ``kapi.check/v2`` report."""

    verdict: Verdict
    target: ReportTarget
    summary: Summary
    findings: tuple[Finding, ...] = ()
    did_not_run: tuple[str, ...] = ()
    did_not_run_cause: Cause | str = ""
    warnings: tuple[ConfigWarning, ...] = ()
    execution: Execution | None = None
    scope: Scope | None = None
    evaluation: Evaluation | None = None
    schema: str = REPORT_SCHEMA

    @property
    def passed(self) -> bool:
        """``pass``: true exactly when the verdict is ``passed``."""
        return self.verdict == Verdict.PASSED


# ---------------------------------------------------------------------------
# summary, score, verdict


def score(findings: Sequence[Finding], *, words: int = 0) -> int:
    """100 minus the findings' weights (failing 25, reporting 1, suggested 0), clamped at 0.

    With ``words`` the penalty is normalised by length (penalty × 100 / words).
    """
    penalty = sum(finding_weight(finding) for finding in findings)
    if words > 0:
        penalty = round(penalty * 100 / words)
    return max(0, 100 - penalty)


def summarize(findings: Sequence[Finding]) -> Summary:
    failing = sum(1 for finding in findings if finding.fails)
    return Summary(
        findings=len(findings),
        failing=failing,
        reporting=len(findings) - failing,
        score=score(findings),
    )


def sort_findings(findings: Sequence[Finding]) -> tuple[Finding, ...]:
    """Failing first, then by rule, then by block (then file and position, for a stable order)."""

    def key(finding: Finding) -> tuple[Any, ...]:
        anchor = finding.location.anchor
        start = (anchor.start.run, anchor.start.offset) if anchor is not None else (-1, -1)
        return (
            not finding.fails,
            finding.rule,
            finding.location.block,
            finding.location.file,
            start,
            finding.message,
        )

    return tuple(sorted(findings, key=key))


def decide(
    *,
    summary: Summary,
    blocks: int,
    analyzers: Sequence[AnalyzerRun],
    scope_files: Sequence[ScopeFile] = (),
    diff: bool = False,
) -> tuple[Verdict, Cause | str, tuple[str, ...]]:
    """The verdict, its cause (``""`` unless it did not run) and what did not run (spec §4.4)."""
    invalid = [
        f"{run.id}@{run.file}" if run.file else run.id
        for run in analyzers
        if run.status == AnalyzerStatus.INVALID
    ]
    if invalid:
        return Verdict.DID_NOT_RUN, Cause.CHECKER_INVALID, tuple(invalid)
    if summary.failing > 0:
        return Verdict.FAILED, "", ()
    unchecked_files = [file.path for file in scope_files if file.status == ScopeStatus.DID_NOT_RUN]
    if blocks == 0 and not (diff and unchecked_files):
        return Verdict.DID_NOT_RUN, Cause.NOTHING_TO_CHECK, ()
    not_run: list[str] = list(unchecked_files)
    proved = False
    for run in analyzers:
        label = f"{run.id}@{run.file}" if run.file else run.id
        if run.status in RAN:
            if run.canary is None or run.canary.status != CanaryStatus.CAUGHT:
                not_run.append(label)
            else:
                proved = True
        elif run.required and run.status == AnalyzerStatus.DID_NOT_RUN:
            not_run.append(label)
    if not proved:
        not_run.append("no analyzer proved it can catch a finding")
    if not_run:
        return Verdict.DID_NOT_RUN, Cause.CONTENT_NOT_CHECKED, tuple(dict.fromkeys(not_run))
    return Verdict.PASSED, "", ()


def exit_code(report: Report, *, no_fail: bool = False) -> int:
    """0 passed, 3 failed (0 with ``--no-fail``), 4 did not run (never changed by ``--no-fail``)."""
    if report.verdict == Verdict.PASSED:
        return EXIT_PASSED
    if report.verdict == Verdict.FAILED:
        return EXIT_PASSED if no_fail else EXIT_GATE
    return EXIT_NOT_RUN


# ---------------------------------------------------------------------------
# JSON


def _anchor(anchor: Anchor) -> dict[str, Any]:
    data: dict[str, Any] = {
        "start": {"run": anchor.start.run, "offset": anchor.start.offset},
        "end": {"run": anchor.end.run, "offset": anchor.end.offset},
    }
    if anchor.path:
        data["path"] = [
            step if isinstance(step, int) else {step[0]: step[1]} for step in anchor.path
        ]
    return data


@cache
def _converter() -> cattrs.Converter:
    """Built on first use: building it costs more than a small check does."""
    import cattrs
    from cattrs.gen import make_dict_unstructure_fn, override

    converter = cattrs.Converter()
    converter.register_unstructure_hook(Anchor, _anchor)
    converter.register_unstructure_hook_func(
        lambda kind: kind in (Mapping[str, Any], Mapping[str, str], Mapping[str, int]),
        lambda value: dict(value),
    )
    converter.register_unstructure_hook(
        Finding,
        make_dict_unstructure_fn(
            Finding, converter, analyzer=override(omit=True), replacement=override(omit=True)
        ),
    )
    return converter


_REPORT_ORDER = (
    "schema",
    "pass",
    "verdict",
    "did_not_run",
    "did_not_run_cause",
    "target",
    "summary",
    "findings",
    "warnings",
    "execution",
    "scope",
    "evaluation",
)


def _drop_empty(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _drop_empty(item) for key, item in value.items() if item is not None}
    if isinstance(value, list | tuple):
        return [_drop_empty(item) for item in value]
    return value


def encode_report(report: Report) -> dict[str, Any]:
    """The report as ``kapi.check/v2`` JSON data (``None`` fields left out)."""
    data = _drop_empty(_converter().unstructure(report))
    data["pass"] = report.passed
    if not report.did_not_run_cause:
        data.pop("did_not_run_cause", None)
    return {key: data[key] for key in _REPORT_ORDER if key in data}


# ---------------------------------------------------------------------------
# text


def render_text(report: Report) -> str:
    """The readable report: FAILS, then REPORTS, then the roll-up line."""
    lines: list[str] = []
    failing = [f for f in report.findings if f.fails]
    reporting = [f for f in report.findings if not f.fails]
    for title, group in (("FAILS", failing), ("REPORTS", reporting)):
        if not group:
            continue
        lines.append(title)
        rows = [_row(finding) for finding in group]
        widths = [max(len(row[i]) for row in rows) for i in range(3)]
        for row in rows:
            lines.append(
                "  "
                + "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:3]))
                + "  "
                + row[3]
            )
        lines.append("")
    if report.verdict == Verdict.DID_NOT_RUN:
        cause = report.did_not_run_cause.replace("_", " ")
        lines.append(f"did not run: {cause}")
        for item in report.did_not_run:
            lines.append(f"  {item}")
    lines.append(
        f"{report.summary.failing} failing, {report.summary.reporting} reported"
        f" · score {report.summary.score}/100"
    )
    return "\n".join(lines) + "\n"


def _row(finding: Finding) -> tuple[str, str, str, str]:
    location = finding.location
    where = location.file or "-"
    if location.start is not None:
        where += f":{location.start.line}:{location.start.column}"
    elif location.lines is not None:
        where += f":{location.lines.start}"
    message = finding.message
    if finding.suggestion and finding.suggestion not in message:
        message += f" → {finding.suggestion}"
    if finding.suggested:
        message += " (suggested)"
    return (where, location.block or "-", finding.rule, message)
