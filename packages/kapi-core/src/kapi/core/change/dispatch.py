"""One content op (or decision) applied to its staged document in memory, by a handler per op type.

An op that names a block is resolved to its block and edition first; one
that edits content needs translatable content and an ``if_match`` checked
against the state the set began with.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kapi.core.change.addressing import resolve_target
from kapi.core.change.edits import edit_edition
from kapi.core.change.errors import ChangeError, ErrorCode
from kapi.core.change.ops import (
    Annotate,
    Decide,
    DeleteBlock,
    InsertBlock,
    Mark,
    Native,
    Op,
    RemoveEdition,
    ReplaceText,
    SetAttribute,
    SetContent,
    Unannotate,
)
from kapi.core.change.plan import Target, check_if_match, edition_rev
from kapi.core.change.result import OpResult, OpStatus
from kapi.core.change.step import OpStep
from kapi.core.change.structure import annotate, delete_block, insert_block, remove_edition

__all__ = ["apply_op"]

AddressedOp = SetContent | ReplaceText | SetAttribute | Mark | RemoveEdition | Decide
AnnotationOp = Annotate | Unannotate


def apply_op(step: OpStep, op: Op) -> OpResult:
    """Apply ``op`` to ``step.plan``; raises ChangeError with the refusal."""
    handler = _HANDLERS.get(type(op))
    if handler is None:
        raise ChangeError.of(ErrorCode.UNSUPPORTED, f"{op.op} is not supported", capability=op.op)
    return handler(step, op)


def _native(step: OpStep, op: Native) -> OpResult:
    raise ChangeError.of(
        ErrorCode.UNSUPPORTED,
        f"format {step.plan.staged.capabilities.name} declares no native operations",
        capability="native",
    )


def _insert_block(step: OpStep, op: InsertBlock) -> OpResult:
    return insert_block(step.index, op, step.plan)


def _delete_block(step: OpStep, op: DeleteBlock) -> OpResult:
    return delete_block(step.index, op, step.plan)


def _annotate(step: OpStep, op: AnnotationOp) -> OpResult:
    return annotate(step.index, op, step.plan, _address(step, op, editing=False))


def _decide(step: OpStep, op: Decide) -> OpResult:
    target = _address(step, op, editing=False)
    block = step.plan.block(target.block_id)
    before = check_if_match(step.plan, target, op.if_match, op)
    if op.outcome == "advise" and op.score is None:
        raise ChangeError.of(ErrorCode.INVALID, "advise needs a score (0-100)", field="score")
    return OpResult(
        i=step.index,
        op=op.op,
        status=OpStatus.APPLIED,
        at=target.ref,
        before=before,
        after=edition_rev(block, target.edition),
    )


def _remove_edition(step: OpStep, op: RemoveEdition) -> OpResult:
    target = _address(step, op)
    before = check_if_match(step.plan, target, op.if_match, op)
    return remove_edition(step.index, op, step.plan, target, before)


def _edit(step: OpStep, op: SetContent | ReplaceText | SetAttribute | Mark) -> OpResult:
    target = _address(step, op)
    before = check_if_match(step.plan, target, op.if_match, op)
    return edit_edition(step, op, target, before)


def _address(step: OpStep, op: AddressedOp | AnnotationOp, *, editing: bool = True) -> Target:
    """The block and edition ``op.at`` names; an edit needs translatable content."""
    target = resolve_target(step.plan, op.at.block, op.at.edition, op.at.doc)
    block = step.plan.block(target.block_id)
    if editing and not block.translatable:
        raise ChangeError.of(
            ErrorCode.UNSUPPORTED,
            f"block {block.ref_key!r} is not translatable content (role {block.role or 'none'})",
            capability="editable",
        )
    return target


_HANDLERS: Mapping[type[Any], Callable[[OpStep, Any], OpResult]] = {
    Native: _native,
    InsertBlock: _insert_block,
    DeleteBlock: _delete_block,
    Annotate: _annotate,
    Unannotate: _annotate,
    Decide: _decide,
    RemoveEdition: _remove_edition,
    SetContent: _edit,
    ReplaceText: _edit,
    SetAttribute: _edit,
    Mark: _edit,
}
