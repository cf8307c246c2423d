"""Who may send what (spec change-contract §10).

A person may send everything. An agent may send content operations and
``decide`` with ``advise``; not terms, memory or recipe changes (it records a
suggestion instead), not blind writes, and not ``gate: report``; nor may it
change a file that governs the project (the recipe, a voice, terms, kapi's
state), whatever the op. A tool may decide only with ``advise``; a sender of
unknown kind may send nothing. What a tool's edit breaks (a guard, an
introduced failing finding) is reported on its op rather than refusing it:
a tool writes drafts a person reviews.
"""

from __future__ import annotations

from attrs import frozen

from kapi.core.change.errors import ErrorCode, ErrorInfo
from kapi.core.change.ops import ASSET_OPS, ChangeSet, Decide, DeleteBlock, Op
from kapi.core.change.ports import ActorKind

__all__ = ["ChangePolicy"]

_KINDS = tuple(ActorKind)


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
        if actor_kind == ActorKind.AGENT and change_set.gate == "report":
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

    def governed_refusal(
        self, file: str, governs: str, actor_kind: str, *, field: str | None = None
    ) -> ErrorInfo | None:
        """Why ``actor_kind`` may not change ``file``, which is ``governs``; ``None`` when it may.

        The files that govern a project are a person's, as the recipe and terms
        ops are: an agent records a suggestion or asks. A person may change them,
        and so may a tool a person runs.
        """
        if actor_kind != ActorKind.AGENT:
            return None
        return _deny(
            f"an agent may not change {file} ({governs}); record a suggestion "
            "(`kapi context note`) and a person decides, or ask the person you work for "
            "to change it",
            field=field,
        )

    def refuses_guard_breaks(self, actor_kind: str) -> bool:
        """Whether an edit that breaks a guard is refused (else the break is reported on the op)."""
        return actor_kind != ActorKind.TOOL

    def refuses_introduced_findings(self, change_set: ChangeSet, actor_kind: str) -> bool:
        """Whether an edit that introduces failing findings is refused at the commit check.

        Only under ``gate: enforce``, and not for a tool, whose findings are reported.
        """
        return change_set.gate_mode == "enforce" and self.refuses_guard_breaks(actor_kind)

    def _refuse(self, op: Op, kind: str) -> ErrorInfo | None:
        if kind == ActorKind.PERSON:
            return None
        if op.op in ASSET_OPS:
            if kind == ActorKind.AGENT:
                return _deny(
                    f"an agent may not send {op.op} ops; record a suggestion "
                    "(`kapi context note`) and a person decides"
                )
            return _deny(f"a tool may not send {op.op} ops")
        if isinstance(op, Decide) and op.outcome != "advise":
            return _deny(
                f"an agent or tool may only advise; {op.outcome!r} is a person's decision",
                field="outcome",
            )
        if kind == ActorKind.AGENT:
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
