"""Decisions and asset ops (terms, memory, recipe): validated before anything is written,
landed in the store only after every document's content has."""

from __future__ import annotations

from collections.abc import Sequence

from kapi.core.change.errors import ChangeError, ErrorCode, ErrorInfo
from kapi.core.change.ops import Decide, Memory, Recipe, Term
from kapi.core.change.ports import Actor, AssetSink
from kapi.core.change.records import OpRecord
from kapi.core.change.result import OpResult, OpStatus, SetStatus
from kapi.core.edition import EditionKey, EditionKeyError

__all__ = ["land_assets", "need_store", "validate_asset"]


def need_store(sink: AssetSink | None, op: Decide | Term | Memory | Recipe) -> None:
    """Refuse an op that lands in the project store when there is none (outside a project)."""
    if sink is None:
        raise ChangeError.of(
            ErrorCode.UNSUPPORTED,
            f"{op.op} ops need a project store; run inside a project (kapi init)",
            capability=op.op,
        )


def validate_asset(sink: AssetSink | None, op: Term | Memory | Recipe, actor: Actor) -> None:
    """Refuse (ChangeError) an asset op the store would not take, before anything is written."""
    need_store(sink, op)
    assert sink is not None
    if isinstance(op, Memory):
        for side, name in ((op.from_, "from"), (op.to, "to")):
            try:
                EditionKey.parse(side.edition)
            except EditionKeyError as err:
                raise ChangeError.of(ErrorCode.INVALID, str(err), field=f"{name}/edition") from None
    reason = sink.validate(op, actor)
    if reason is not None:
        raise ChangeError.of(ErrorCode.INVALID, reason)


def land_assets(
    sink: AssetSink | None, records: Sequence[OpRecord], actor: Actor, ops: list[OpResult]
) -> SetStatus:
    """Land every decision, then every asset op, in set order; the set's status after.

    A store that refuses after content landed turns that op's result in ``ops``
    into a refusal and the set into a partial one.
    """
    status = SetStatus.APPLIED
    decisions = [r for r in records if isinstance(r.op, Decide) and r.outcome is not None]
    assets = [r for r in records if isinstance(r.op, Term | Memory | Recipe)]
    for record in (*decisions, *assets):
        op = record.op
        assert isinstance(op, Decide | Term | Memory | Recipe)
        assert sink is not None
        rev = record.outcome.before if isinstance(op, Decide) and record.outcome else None
        try:
            sink.apply(op, actor, rev)
        except Exception as err:  # the store refused after content landed: partial
            index = record.index
            ops[index] = OpResult(
                i=index,
                op=op.op,
                status=OpStatus.REFUSED,
                at=ops[index].at,
                error=ErrorInfo(code=ErrorCode.UNREACHABLE, message=f"the store refused: {err}"),
            )
            status = SetStatus.PARTIAL
    return status
