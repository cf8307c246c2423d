"""Who may send what (spec change-contract §10).

A person may send everything. An agent may send content operations and
``decide`` with ``advise``; not terms, memory or recipe changes (it records a
suggestion instead), not blind writes, and not ``gate: report``. A tool may
decide only with ``advise``; a sender of unknown kind may send nothing.
"""

from __future__ import annotations

from attrs import frozen

from kapi.core.change.errors import ErrorCode, ErrorInfo
from kapi.core.change.ops import ASSET_OPS, ChangeSet, Decide, DeleteBlock, Op

__all__ = ["ChangePolicy"]

_KINDS = ("person", "agent", "tool")


@frozen
class ChangePolicy:
    """Checks every op of a set against the sender before anything is staged."""

    def refusals(self, change_set: ChangeSet, actor_kind: str) -> dict[int, ErrorInfo]:
        """Refused op indexes with their errors; empty when the set may proceed."""
        refused: dict[int, ErrorInfo] = {}
        if actor_kind not in _KINDS:
            for index, _ in enumerate(change_set.ops):
                refused[index] = _deny(
                    f"a sender of kind {actor_kind or 'none'!r} may send nothing"
                )
            return refused
        if actor_kind == "agent" and change_set.gate == "report":
            for index, _ in enumerate(change_set.ops):
                refused[index] = _deny(
                    "an agent may not land edits over failing findings (gate: report); "
                    "fix the findings or ask a person",
                    field="gate",
                )
            return refused
        for index, op in enumerate(change_set.ops):
            reason = self._refuse(op, actor_kind)
            if reason is not None:
                refused[index] = reason
        return refused

    def _refuse(self, op: Op, kind: str) -> ErrorInfo | None:
        if kind == "person":
            return None
        if op.op in ASSET_OPS:
            if kind == "agent":
                return _deny(
                    f"an agent may not send {op.op} ops; record a suggestion "
                    "(`kapi context observe`) and a person decides"
                )
            return _deny(f"a tool may not send {op.op} ops")
        if isinstance(op, Decide) and op.outcome != "advise":
            return _deny(
                f"an agent or tool may only advise; {op.outcome!r} is a person's decision",
                field="outcome",
            )
        if kind == "agent":
            if isinstance(op, DeleteBlock):
                if any(rev == "*" for rev in op.if_match.values()):
                    return _deny("an agent may not delete blind (if_match '*')", field="if_match")
            elif getattr(op, "if_match", None) == "*":
                return _deny(
                    "an agent may not write blind (if_match '*'); read the block and send its rev",
                    field="if_match",
                )
        return None


def _deny(message: str, field: str | None = None) -> ErrorInfo:
    return ErrorInfo(code=ErrorCode.NOT_PERMITTED, message=message, field=field)
