"""One record per op of a change set: its outcome or its refusal, and the findings reported on it.

The phases of the change service fill the records in; the result of the set
is read from them (refused, previewed or landed).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from attrs import define, evolve, field

from kapi.core.change.errors import ErrorInfo
from kapi.core.change.ops import ChangeSet, Op
from kapi.core.change.result import (
    Current,
    DocResult,
    Finding,
    OpResult,
    OpStatus,
    Result,
    ResultRef,
    SetStatus,
)

__all__ = ["OpRecord", "new_records", "refused_result"]


@define
class OpRecord:
    """What became of one op: its outcome once applied in memory, or why it was refused.

    ``current`` is what a stale refusal found; ``findings`` are the guard breaks
    and introduced findings reported on the op (kept when it is refused too).
    """

    index: int
    op: Op
    outcome: OpResult | None = None
    refusal: ErrorInfo | None = None
    current: Current | None = None
    findings: list[Finding] = field(factory=list)

    @property
    def refused(self) -> bool:
        return self.refusal is not None

    def refuse(self, info: ErrorInfo, current: Current | None = None) -> None:
        self.refusal = info
        if current is not None:
            self.current = current

    def report(self, findings: Iterable[Finding]) -> None:
        self.findings.extend(findings)

    def applied(self) -> OpResult:
        """The op's outcome (an op with none, such as an asset op, reads as applied)."""
        return self.outcome or OpResult(i=self.index, op=self.op.op, status=OpStatus.APPLIED)

    def landed(self) -> OpResult:
        return self.with_findings(self.applied())

    def previewed(self) -> OpResult:
        outcome = self.applied()
        status = OpStatus.UNCHANGED if outcome.status == OpStatus.UNCHANGED else OpStatus.PREVIEWED
        return self.with_findings(evolve(outcome, status=status))

    def with_findings(self, result: OpResult) -> OpResult:
        if not self.findings:
            return result
        return evolve(result, findings=tuple(self.findings))


def new_records(change_set: ChangeSet) -> list[OpRecord]:
    return [OpRecord(index, op) for index, op in enumerate(change_set.ops)]


def refused_result(
    records: Sequence[OpRecord],
    error: ErrorInfo | None = None,
    docs: Sequence[DocResult] = (),
) -> Result:
    """A refused set: each refused op with its error, every other blocked by the first refused."""
    refused = [record.index for record in records if record.refused]
    if not refused:
        return Result(status=SetStatus.REFUSED, error=error)
    first = min(refused)
    ops = []
    for record in records:
        if record.refused:
            ops.append(
                OpResult(
                    i=record.index,
                    op=record.op.op,
                    status=OpStatus.REFUSED,
                    at=echo_ref(record.op),
                    error=record.refusal,
                    current=record.current,
                    findings=tuple(record.findings) or None,
                )
            )
        else:
            ops.append(
                OpResult(
                    i=record.index,
                    op=record.op.op,
                    status=OpStatus.NOT_APPLIED,
                    at=echo_ref(record.op),
                    blocked_by=first,
                )
            )
    return Result(status=SetStatus.REFUSED, docs=tuple(docs), ops=tuple(ops), error=error)


def echo_ref(op: Op) -> ResultRef | None:
    """The address an op names, echoed as its sender wrote it."""
    at = getattr(op, "at", None)
    if at is not None:
        return ResultRef(doc=at.doc, block=at.block, edition=getattr(at, "edition", None) or None)
    doc = getattr(op, "doc", None)
    return ResultRef(doc=doc) if doc else None
