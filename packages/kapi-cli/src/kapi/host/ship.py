"""``kapi check --ship``: the report seen as gates (voice, terminology, qa)."""

from __future__ import annotations

from typing import Any

from attrs import frozen
from cattrs.gen import make_dict_unstructure_fn, override

from kapi.core.check.report import Report, Verdict
from kapi.host.wire import converter

__all__ = ["GATES", "ShipFinding", "ShipGate", "ShipReport", "ShipSummary", "ship_report"]

GATES = ("voice", "terminology", "qa")
_FAMILIES = {
    "voice": ("voice.",),
    "terminology": ("terms.",),
    "qa": ("placeholder.", "dnt.", "qa."),
}


@frozen
class ShipFinding:
    gate: str
    file: str
    block: str
    message: str
    suggestion: str
    fails: bool


@frozen
class ShipGate:
    """One gate's verdict; ``reason`` says why a gate that was named is not bound."""

    gate: str
    passed: bool
    reason: str = ""
    findings: tuple[ShipFinding, ...] = ()


@frozen
class ShipSummary:
    gates: int
    passed: int
    failed: int
    findings: int
    failing: int
    reporting: int


@frozen
class ShipWarning:
    code: str
    message: str


@frozen
class ShipReport:
    """The gates as ``kapi check --ship --json`` prints them."""

    passed: bool
    gates: tuple[ShipGate, ...]
    summary: ShipSummary
    warnings: tuple[ShipWarning, ...]


_gate_fields = make_dict_unstructure_fn(ShipGate, converter, passed=override(rename="pass"))


def _unstructure_gate(gate: ShipGate) -> dict[str, Any]:
    data = _gate_fields(gate)
    if not gate.reason:  # only a gate that is not bound says why, in its place before the findings
        del data["reason"]
    return data


converter.register_unstructure_hook(ShipGate, _unstructure_gate)
converter.register_unstructure_hook(
    ShipReport, make_dict_unstructure_fn(ShipReport, converter, passed=override(rename="pass"))
)


def ship_report(
    report: Report, gates: tuple[str, ...], *, terms_bound: bool, bilingual: bool
) -> ShipReport:
    """Each gate's verdict from the report's findings; an unbound gate that was named fails."""
    out = []
    for gate in gates:
        findings = [f for f in report.findings if f.rule.startswith(_FAMILIES[gate])]
        bound = {"voice": True, "terminology": terms_bound, "qa": bilingual}[gate]
        out.append(
            ShipGate(
                gate=gate,
                passed=bound and not any(f.fails for f in findings),
                reason="" if bound else f"{gate} is not bound in this project",
                findings=tuple(
                    ShipFinding(
                        gate=gate,
                        file=f.location.file,
                        block=f.location.block,
                        message=f.message,
                        suggestion=f.suggestion,
                        fails=f.fails,
                    )
                    for f in findings
                ),
            )
        )
    failed = sum(1 for gate in out if not gate.passed)
    failing = sum(1 for f in report.findings if f.fails)
    return ShipReport(
        passed=failed == 0 and report.verdict != Verdict.DID_NOT_RUN,
        gates=tuple(out),
        summary=ShipSummary(
            gates=len(out),
            passed=len(out) - failed,
            failed=failed,
            findings=len(report.findings),
            failing=failing,
            reporting=len(report.findings) - failing,
        ),
        warnings=tuple(ShipWarning(code=w.code, message=w.message) for w in report.warnings),
    )
