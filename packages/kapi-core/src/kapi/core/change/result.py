"""The outcome of a change set (``kapi.change-result/v1``)."""

from __future__ import annotations

from enum import StrEnum

from attrs import frozen

from kapi.core.change.errors import ErrorInfo, TextSpan

__all__ = [
    "RESULT_SCHEMA",
    "Current",
    "DocResult",
    "Finding",
    "Invalidation",
    "OpResult",
    "OpStatus",
    "Result",
    "ResultRef",
    "SetStatus",
]

RESULT_SCHEMA = "kapi.change-result/v1"


class SetStatus(StrEnum):
    """A change set's outcome: every op landed, none did, a preview, or some landed."""

    APPLIED = "applied"
    REFUSED = "refused"
    PREVIEWED = "previewed"
    PARTIAL = "partial"


class OpStatus(StrEnum):
    """One op's outcome; ``not_applied`` when another op's refusal kept it from landing."""

    APPLIED = "applied"
    UNCHANGED = "unchanged"
    REFUSED = "refused"
    NOT_APPLIED = "not_applied"
    PREVIEWED = "previewed"


@frozen
class ResultRef:
    """A canonical reference echoed in a result; edition left out for the own edition."""

    doc: str
    block: str | None = None
    edition: str | None = None


@frozen
class Finding:
    """A check finding attached to an op or a document."""

    rule: str
    message: str
    fails: bool
    suggested: bool | None = None
    at: ResultRef | None = None
    range: TextSpan | None = None
    replacement: str | None = None


@frozen
class Current:
    """What a stale refusal found: the current revision and its edit text."""

    rev: str
    text: str | None = None


@frozen
class Invalidation:
    """A derived edition made stale by this op's authoritative edit."""

    edition: str
    reason: str = "basis_moved"


@frozen
class OpResult:
    """One operation's outcome."""

    i: int
    op: str
    status: OpStatus
    at: ResultRef | None = None
    before: str | None = None
    after: str | None = None
    basis: str | None = None
    id: str | None = None
    resolved: tuple[TextSpan, ...] | None = None
    invalidates: tuple[Invalidation, ...] | None = None
    findings: tuple[Finding, ...] | None = None
    error: ErrorInfo | None = None
    current: Current | None = None
    blocked_by: int | None = None


@frozen(kw_only=True)
class DocResult:
    """One document staged by the set: written or not, its digests, preview diff."""

    doc: str
    home: str | None = None
    file: str | None = None
    edition: str | None = None
    written: bool
    before: str | None = None
    after: str | None
    findings: tuple[Finding, ...] | None = None
    diff: str | None = None


@frozen
class Result:
    """The result of a change set."""

    status: SetStatus
    record: str | None = None
    docs: tuple[DocResult, ...] = ()
    ops: tuple[OpResult, ...] = ()
    error: ErrorInfo | None = None
    schema: str = RESULT_SCHEMA

    @property
    def exit_code(self) -> int:
        """0 applied/previewed; a refusal's code by its first refused op; 3 partial."""
        if self.status in (SetStatus.APPLIED, SetStatus.PREVIEWED):
            return 0
        if self.error is not None:
            return self.error.exit_code
        if self.status == SetStatus.PARTIAL:
            return 3
        for op in self.ops:
            if op.status == OpStatus.REFUSED and op.error is not None:
                return op.error.exit_code
        return 3
