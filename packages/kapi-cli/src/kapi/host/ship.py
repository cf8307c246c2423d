"""``kapi check --ship``: the report seen as gates (voice, terminology, qa)."""

from __future__ import annotations

from typing import Any

from kapi.core.check.report import Report, Verdict

__all__ = ["GATES", "ship_report"]

GATES = ("voice", "terminology", "qa")
_FAMILIES = {"voice": ("voice.",), "terminology": ("terms.",), "qa": ("placeholder.", "dnt.")}


def ship_report(
    report: Report, gates: tuple[str, ...], *, terms_bound: bool, bilingual: bool
) -> dict[str, Any]:
    """Each gate's verdict from the report's findings; an unbound gate that was named fails."""
    out = []
    failed = 0
    for gate in gates:
        findings = [f for f in report.findings if f.rule.startswith(_FAMILIES[gate])]
        bound = {"voice": True, "terminology": terms_bound, "qa": bilingual}[gate]
        passed = bound and not any(f.fails for f in findings)
        failed += 0 if passed else 1
        out.append(
            {
                "gate": gate,
                "pass": passed,
                **({} if bound else {"reason": f"{gate} is not bound in this project"}),
                "findings": [
                    {
                        "gate": gate,
                        "file": f.location.file,
                        "block": f.location.block,
                        "message": f.message,
                        "suggestion": f.suggestion,
                        "fails": f.fails,
                    }
                    for f in findings
                ],
            }
        )
    failing = sum(1 for f in report.findings if f.fails)
    return {
        "pass": failed == 0 and report.verdict != Verdict.DID_NOT_RUN,
        "gates": out,
        "summary": {
            "gates": len(out),
            "passed": len(out) - failed,
            "failed": failed,
            "findings": len(report.findings),
            "failing": failing,
            "reporting": len(report.findings) - failing,
        },
        "warnings": [{"code": w.code, "message": w.message} for w in report.warnings],
    }
