"""Operations on editions and blocks rather than text: removing an edition, stand-off
annotations, and inserting or deleting a block (where the format can)."""

from __future__ import annotations

from collections.abc import Sequence

from attrs import evolve

from kapi.core.change import content
from kapi.core.change.cells import cell_of_position
from kapi.core.change.errors import ChangeError, ErrorCode, GuardSubcode
from kapi.core.change.ops import Annotate, DeleteBlock, InsertBlock, RemoveEdition, Unannotate
from kapi.core.change.plan import (
    DocPlan,
    Target,
    check_if_match,
    edition_rev,
    edition_runs,
    find_block,
)
from kapi.core.change.result import Current, OpResult, OpStatus, ResultRef
from kapi.core.edittext import render_edit_text
from kapi.core.model import Annotation, Block, Edition, EditionStatus, Runs
from kapi.core.revision import ABSENT

__all__ = ["annotate", "delete_block", "edition_content", "insert_block", "remove_edition"]


def remove_edition(
    index: int, op: RemoveEdition, plan: DocPlan, target: Target, before: str
) -> OpResult:
    if not target.edition:
        raise ChangeError.of(
            ErrorCode.INVALID,
            "the own edition cannot be removed; delete the block",
            field="at/edition",
        )
    block = plan.block(target.block_id)
    if target.edition not in block.targets:
        if op.if_match == "*":
            return OpResult(
                i=index,
                op=op.op,
                status=OpStatus.UNCHANGED,
                at=target.ref,
                before=ABSENT,
                after=ABSENT,
            )
        raise ChangeError.of(ErrorCode.NOT_FOUND, "the edition does not exist", field="at/edition")
    plan.replace(block.with_target(target.edition, None))
    plan.changed[(target.block_id, target.edition)] = index
    return OpResult(
        i=index, op=op.op, status=OpStatus.APPLIED, at=target.ref, before=before, after=ABSENT
    )


def annotate(index: int, op: Annotate | Unannotate, plan: DocPlan, target: Target) -> OpResult:
    if not plan.staged.annotations:
        raise ChangeError.of(
            ErrorCode.UNSUPPORTED,
            f"{plan.staged.doc} cannot keep stand-off annotations",
            capability=op.op,
        )
    block = plan.block(target.block_id)
    if isinstance(op, Unannotate):
        kept = tuple(
            a
            for a in block.annotations
            if not (a.type == op.type and a.id == op.id and a.edition == target.edition)
        )
        if len(kept) == len(block.annotations):
            raise ChangeError.of(
                ErrorCode.NOT_FOUND,
                f"no {op.type} annotation {op.id!r} on this edition",
                field="id",
            )
        plan.replace(evolve(block, annotations=kept))
        plan.changed[(target.block_id, target.edition)] = index
        return OpResult(i=index, op=op.op, status=OpStatus.APPLIED, at=target.ref)
    if op.if_match is not None:
        check_if_match(plan, target, op.if_match, op)
    runs = edition_runs(block, target.edition)
    if runs is None:
        raise ChangeError.of(ErrorCode.NOT_FOUND, "the edition does not exist", field="at/edition")
    if op.anchor is not None and op.anchor.kind == "range":
        for name, position in (("start", op.anchor.start), ("end", op.anchor.end)):
            if (
                position is None
                or cell_of_position(runs, position.run, position.offset or 0) is None
            ):
                raise content.guard(
                    GuardSubcode.BAD_POSITION,
                    f"the anchor's {name} does not resolve",
                    f"anchor/{name}",
                )
    annotation_id = op.id
    if annotation_id is None:
        taken = {a.id for a in block.annotations if a.type == op.type}
        n = 1
        while f"{op.type}-{n}" in taken:
            n += 1
        annotation_id = f"{op.type}-{n}"
    anchor = None
    if op.anchor is not None:
        anchor = {"kind": op.anchor.kind}
    annotation = Annotation(
        type=op.type, id=annotation_id, edition=target.edition, anchor=anchor, value=op.value
    )
    kept = tuple(
        a
        for a in block.annotations
        if not (a.type == op.type and a.id == annotation_id and a.edition == target.edition)
    )
    plan.replace(evolve(block, annotations=(*kept, annotation)))
    plan.changed[(target.block_id, target.edition)] = index
    rev = edition_rev(block, target.edition)
    return OpResult(
        i=index,
        op=op.op,
        status=OpStatus.APPLIED,
        at=target.ref,
        id=annotation_id,
        before=rev,
        after=rev,
    )


def insert_block(index: int, op: InsertBlock, plan: DocPlan) -> OpResult:
    caps = plan.staged.capabilities
    if not caps.structural:
        raise ChangeError.of(
            ErrorCode.UNSUPPORTED,
            f"format {caps.name} cannot insert blocks",
            capability="insert_block",
        )
    locale = plan.staged.document.locale
    own_keys = [k for k in op.editions if k in ("", locale)]
    if not own_keys:
        raise ChangeError.of(
            ErrorCode.INVALID,
            f"insert_block needs the document's own edition ({locale or 'its language'})",
            field="editions",
        )
    anchor = op.after or op.before
    if anchor is not None:
        find_block(plan, anchor, "after" if op.after else "before")
    name = op.name or ""
    if name:
        existing = plan.named(name)
        if existing:
            block = existing[0]
            raise ChangeError.of(
                ErrorCode.STALE,
                f"a block {name!r} exists already",
                field="name",
                current=Current(rev=edition_rev(block, ""), text=render_edit_text(block.source)),
            )
    plan.counter += 1
    new_id = f"new-{plan.counter}"
    key = name or new_id
    own = op.editions[own_keys[0]]
    source = edition_content(own, (), caps.new_codes, f"editions/{own_keys[0]}")
    targets: dict[str, Edition] = {}
    for edition_key, payload in op.editions.items():
        if edition_key in own_keys:
            continue
        allowed = plan.staged.editions
        if allowed is not None and edition_key not in allowed:
            raise ChangeError.of(
                ErrorCode.UNSUPPORTED,
                f"{plan.staged.doc} has no place for the {edition_key} edition",
                capability="edition",
                field=f"editions/{edition_key}",
            )
        runs = edition_content(payload, source, caps.new_codes, f"editions/{edition_key}")
        targets[edition_key] = Edition(runs=runs, status=EditionStatus.TRANSLATED)
    properties = {}
    if op.after:
        properties["insert_after"] = op.after
    if op.before:
        properties["insert_before"] = op.before
    block = Block(
        id=new_id,
        name=key,
        source=source,
        locale=locale,
        targets=targets,
        properties=properties,
    )
    position = len(plan.blocks)
    if anchor is not None:
        anchor_block = find_block(plan, anchor, "after")
        position = plan.blocks.index(anchor_block) + (1 if op.after else 0)
    plan.blocks.insert(position, block)
    plan.restructure()
    plan.inserted.add(block.id)
    plan.changed[(block.id, "")] = index
    ref = ResultRef(doc=plan.staged.doc, block=key)
    return OpResult(
        i=index,
        op=op.op,
        status=OpStatus.APPLIED,
        at=ref,
        before=ABSENT,
        after=edition_rev(block, ""),
    )


def edition_content(payload: object, reference: Runs, new_codes: Sequence[str], field: str) -> Runs:
    text = getattr(payload, "text", None)
    runs = getattr(payload, "runs", None)
    if text is not None:
        return content.parse_text(text, reference, [], f"{field}/text")
    assert runs is not None
    return content.fill_payload_codes(runs, [reference], new_codes, f"{field}/runs")


def delete_block(index: int, op: DeleteBlock, plan: DocPlan) -> OpResult:
    caps = plan.staged.capabilities
    if not caps.structural:
        raise ChangeError.of(
            ErrorCode.UNSUPPORTED,
            f"format {caps.name} cannot delete blocks",
            capability="delete_block",
        )
    block = find_block(plan, op.at.block, "at/block")
    if block.id in plan.inserted:
        raise ChangeError.of(
            ErrorCode.INVALID,
            "this set inserts that block; leave both ops out",
            field="at/block",
        )
    original = plan.original.get(block.id, block)
    own_names = {"", block.locale}
    if not any(key in own_names for key in op.if_match):
        raise ChangeError.of(
            ErrorCode.INVALID,
            f"delete_block must name the own edition's rev ({block.locale or 'own'})",
            field="if_match",
        )
    for key, rev in op.if_match.items():
        edition = "" if key in own_names else key
        current = edition_rev(original, edition)
        if rev != "*" and rev != current:
            raise ChangeError.of(
                ErrorCode.STALE,
                f"the {key or 'own'} edition changed since it was read",
                field=f"if_match/{key}",
                current=Current(
                    rev=current,
                    text=render_edit_text(edition_runs(original, edition) or ())
                    if current != ABSENT
                    else None,
                ),
            )
    plan.blocks = [b for b in plan.blocks if b.id != block.id]
    plan.restructure()
    plan.deleted.add(block.ref_key)
    plan.changed[(block.id, "")] = index
    ref = ResultRef(doc=plan.staged.doc, block=block.ref_key)
    return OpResult(
        i=index,
        op=op.op,
        status=OpStatus.APPLIED,
        at=ref,
        before=edition_rev(original, ""),
        after=ABSENT,
    )
