"""Edits of an edition's runs: the new runs by op type, the guards, and the edition written.

An edit is checked against the content it replaces (a new edition: against
the authoritative one); whether a broken guard refuses the op or is reported
on it is the policy's to say. A derived edition written records its basis
and how it was made (status and origin, by the kind of sender).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from attrs import evolve, frozen

from kapi.core.change import content
from kapi.core.change.content import EditLog
from kapi.core.change.errors import ChangeError, ErrorCode, TextSpan
from kapi.core.change.guards import check_codes
from kapi.core.change.ops import Mark, PathStep, ReplaceText, SetAttribute, SetContent
from kapi.core.change.plan import Target, edition_rev, edition_runs, own_edition_key
from kapi.core.change.ports import ActorKind
from kapi.core.change.result import Current, Finding, Invalidation, OpResult, OpStatus
from kapi.core.change.step import OpStep
from kapi.core.edittext import render_edit_text
from kapi.core.format import FormatCapabilities
from kapi.core.model import Block, Edition, EditionStatus, Origin, Runs
from kapi.core.revision import revision

__all__ = ["edit_edition"]

ContentEdit = SetContent | ReplaceText | SetAttribute | Mark


@frozen
class _Editing:
    """The edition an edit works on: as it stands, as the set began, and its edit log."""

    block: Block
    target: Target
    current: Runs | None
    original: Runs | None
    extra: list[Runs]
    log: dict[tuple[PathStep, ...], EditLog]
    caps: FormatCapabilities

    @property
    def reference(self) -> Runs:
        """The runs a new text's codes are matched against (a new edition: the own edition)."""
        return self.current if self.current is not None else self.block.source

    def existing(self) -> Runs:
        """The current runs of an edition that exists (an op other than set_content needs one)."""
        assert self.current is not None
        return self.current


_Edited = tuple[Runs, tuple[TextSpan, ...] | None]


def edit_edition(step: OpStep, op: ContentEdit, target: Target, before: str) -> OpResult:
    """Apply a content edit to ``target`` in memory; ``before`` is the rev the sender read."""
    plan = step.plan
    block = plan.block(target.block_id)
    if not target.edition and isinstance(op, SetContent) and op.basis is not None:
        raise ChangeError.of(
            ErrorCode.INVALID,
            "basis names the authoritative edition a derived edition was made from; "
            "this is the authoritative edition",
            field="basis",
        )
    original_block = plan.original.get(target.block_id)
    editing = _Editing(
        block=block,
        target=target,
        current=edition_runs(block, target.edition),
        original=edition_runs(original_block, target.edition) if original_block else None,
        extra=[block.source] if target.edition else [],
        log=plan.log(target.block_id, target.edition),
        caps=plan.staged.capabilities,
    )
    new_runs, resolved = _EDITS[type(op)](editing, op)
    _guard(step, editing, new_runs)

    if editing.current is not None and new_runs == editing.current:
        return OpResult(
            i=step.index,
            op=op.op,
            status=OpStatus.UNCHANGED,
            at=target.ref,
            before=before,
            after=edition_rev(block, target.edition),
            resolved=resolved,
        )

    new_block, basis, invalidates = _write_edition(step, block, target, new_runs, op)
    plan.replace(new_block)
    plan.changed[(target.block_id, target.edition)] = step.index
    plan.touched_ops.append(step.index)
    return OpResult(
        i=step.index,
        op=op.op,
        status=OpStatus.APPLIED,
        at=target.ref,
        before=before,
        after=edition_rev(new_block, target.edition),
        basis=basis,
        resolved=resolved,
        invalidates=invalidates,
    )


# --- the new runs, by op type ---------------------------------------------------------


def _set_content(editing: _Editing, op: SetContent) -> _Edited:
    new_codes = editing.caps.new_codes
    extra = editing.extra
    if op.path:
        current = editing.current
        if current is None:
            raise ChangeError.of(
                ErrorCode.NOT_FOUND,
                "the edition does not exist; create it whole first, then edit a branch",
                field="path",
            )
        branch_reference = content.branch_reference(current, op.path)
        if op.text is not None:
            branch = content.parse_text(op.text, branch_reference, extra, "text")
        else:
            assert op.runs is not None
            branch = content.fill_payload_codes(
                op.runs, [branch_reference, *extra], new_codes, "runs"
            )
        new_runs = content.set_branch(current, op.path, branch, create=True)
        editing.log.setdefault(tuple(op.path), EditLog()).replaced_whole()
        return new_runs, None
    if op.text is not None:
        new_runs = content.parse_text(op.text, editing.reference, extra, "text")
    else:
        assert op.runs is not None
        new_runs = content.fill_payload_codes(
            op.runs, [editing.reference, *extra], new_codes, "runs"
        )
    editing.log.setdefault((), EditLog()).replaced_whole()
    return new_runs, None


def _replace_text(editing: _Editing, op: ReplaceText) -> _Edited:
    current = editing.existing()
    new_runs, spans = content.apply_edits(
        op.edits, op.path, current, editing.original or current, editing.log, editing.extra, "edits"
    )
    return new_runs, tuple(spans)


def _set_attribute(editing: _Editing, op: SetAttribute) -> _Edited:
    runs = editing.existing()
    code = content.find_code(runs, op.code)
    if code is None:
        raise ChangeError.of(
            ErrorCode.NOT_FOUND, f"no code {op.code!r} in this edition", field="code"
        )
    writable: object = editing.caps.writable_attrs
    allowed = writable.get(code.type, ()) if isinstance(writable, dict) else ()
    if op.name not in allowed:
        names = ", ".join(allowed) or "none"
        raise ChangeError.of(
            ErrorCode.UNSUPPORTED,
            f"attribute {op.name!r} of a {code.type or 'untyped'} code is not writable "
            f"(writable: {names})",
            capability="set_attribute",
            field="name",
        )
    new_runs, _ = content.set_code_attribute(runs, op.code, op.name, op.value)
    return new_runs, None


def _mark(editing: _Editing, op: Mark) -> _Edited:
    current = editing.existing()
    if op.type not in editing.caps.new_codes:
        raise ChangeError.of(
            ErrorCode.UNSUPPORTED,
            f"format {editing.caps.name} cannot add a {op.type} code",
            capability=f"synthesize:{op.type}",
            field="type",
        )
    new_runs, span = content.mark_range(
        op.range,
        current,
        editing.original or current,
        editing.log,
        op.type,
        op.attrs or {},
        "range",
    )
    return new_runs, (span,)


_EDITS: Mapping[type[Any], Callable[[_Editing, Any], _Edited]] = {
    SetContent: _set_content,
    ReplaceText: _replace_text,
    SetAttribute: _set_attribute,
    Mark: _mark,
}


# --- guards and the edition written ---------------------------------------------------


def _guard(step: OpStep, editing: _Editing, new_runs: Runs) -> None:
    """Refuse an edit that breaks a guard, or report the break on the op, as the policy says."""
    problem = check_codes(editing.reference, new_runs)
    if problem is None:
        return
    if step.policy.refuses_guard_breaks(step.actor.kind):
        raise ChangeError(problem)
    step.record.report(
        [
            Finding(
                rule=f"guard.{problem.subcode}",
                message=problem.message,
                fails=True,
                at=editing.target.ref,
            )
        ]
    )


def _write_edition(
    step: OpStep, block: Block, target: Target, runs: Runs, op: ContentEdit
) -> tuple[Block, str | None, tuple[Invalidation, ...] | None]:
    """The block with ``runs`` as the edition, its basis, and the derived editions it makes stale."""
    stamp = step.stamp()
    if not target.edition:
        new_block = block.with_source(runs)
        if block.source_status == EditionStatus.ESTABLISHED:
            new_block = evolve(new_block, source_status=EditionStatus.WRITTEN)
        invalidates = tuple(Invalidation(edition=key) for key in sorted(block.targets)) or None
        return new_block, None, invalidates
    authoritative_rev = revision(own_edition_key(block), block.source)
    sent_basis = op.basis if isinstance(op, SetContent) else None
    if step.change_set.require_basis and sent_basis is not None and sent_basis != authoritative_rev:
        raise ChangeError.of(
            ErrorCode.STALE,
            "the authoritative edition moved since the basis was read; translate it again",
            field="basis",
            current=Current(rev=authoritative_rev, text=render_edit_text(block.source)),
        )
    basis = sent_basis or authoritative_rev
    status, origin = _provenance(step, op, stamp)
    edition = Edition(runs=runs, status=status, basis=basis, origin=origin)
    return block.with_target(target.edition, edition), basis, None


def _provenance(step: OpStep, op: ContentEdit, stamp: str) -> tuple[str, Origin]:
    """A derived edition's status and origin, by who wrote it (a tool's stays a draft)."""
    actor = step.actor
    if actor.kind == ActorKind.TOOL:
        tool_origin = getattr(op, "origin", None)
        origin = Origin(
            kind=(tool_origin.kind or "tool") if tool_origin else "tool",
            tool=tool_origin.tool if tool_origin else actor.name,
            engine=(tool_origin.engine or "") if tool_origin else "",
            at=stamp,
        )
        return EditionStatus.DRAFT, origin
    if actor.kind == ActorKind.AGENT:
        return EditionStatus.TRANSLATED, Origin(
            kind="agent", engine=actor.name, reference=actor.session, at=stamp
        )
    return EditionStatus.TRANSLATED, Origin(kind="human", at=stamp)
