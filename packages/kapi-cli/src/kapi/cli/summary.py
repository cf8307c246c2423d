"""One readable paragraph about a change set's result, for stderr."""

from __future__ import annotations

from kapi.core.change.result import Result, ResultRef

__all__ = ["summarise"]


def _where(at: ResultRef | None) -> str:
    if at is None:
        return ""
    place = at.doc
    if at.block:
        place += f"#{at.block}"
    if at.edition:
        place += f" [{at.edition}]"
    return place


def summarise(result: Result) -> str:
    if result.error is not None and not result.ops:
        where = f" at {result.error.pointer}" if result.error.pointer is not None else ""
        return f"refused: {result.error.code}{where}: {result.error.message}"
    counts: dict[str, int] = {}
    for op in result.ops:
        counts[op.status] = counts.get(op.status, 0) + 1
    written = [d.file or d.doc for d in result.docs if d.written]
    parts = [f"{result.status}: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))]
    if written:
        parts.append(f"wrote {', '.join(written)}")
    lines = ["; ".join(parts) if counts else f"{result.status}: no operations"]
    for op in result.ops:
        if op.error is None:
            continue
        error = op.error
        code = error.code + (f"/{error.subcode}" if error.subcode else "")
        field = f" ({error.field})" if error.field else ""
        if error.capability:
            field += f" [capability {error.capability}]"
        lines.append(f"  op {op.i} {op.op} {_where(op.at)}: {code}{field}: {error.message}")
        if op.current is not None:
            lines.append(
                f"    current rev {op.current.rev}"
                + (f": {op.current.text}" if op.current.text is not None else "")
            )
        for candidate in error.candidates or ():
            label = candidate.key or (
                f"occurrence {candidate.occurrence}" if candidate.occurrence else ""
            )
            lines.append(
                f"    candidate {label}" + (f": {candidate.text}" if candidate.text else "")
            )
    for op in result.ops:
        for finding in op.findings or ():
            lines.append(
                f"  op {op.i} finding [{'fails' if finding.fails else 'reports'}] {finding.rule}: {finding.message}"
            )
    return "\n".join(lines)
