"""An op's address resolved in its staged document: the block it names and the edition.

A translation kept in its own file addresses that edition of its source
document; an edition the document has no place for is refused here.
"""

from __future__ import annotations

from functools import lru_cache

from kapi.core.change.errors import ChangeError, ErrorCode
from kapi.core.change.plan import DocPlan, Target, find_block
from kapi.core.change.result import ResultRef
from kapi.core.edition import EditionKey, EditionKeyError

__all__ = ["resolve_target"]


def resolve_target(plan: DocPlan, block_key: str, edition: str | None, doc: str = "") -> Target:
    """The block ``block_key`` names in ``plan`` and the edition (``""``: its own)."""
    joined = plan.staged.joined_file(doc) if doc else None
    if joined is not None:
        if edition:
            named = _parse(edition).text
            if named != joined.edition:
                raise ChangeError.of(
                    ErrorCode.INVALID,
                    f"{doc} holds the {joined.edition} edition, not {named}",
                    field="at/edition",
                )
        edition = joined.edition
    block = find_block(plan, block_key, "at/block")
    if block.id in plan.inserted:
        raise ChangeError.of(
            ErrorCode.INVALID,
            f"block {block_key!r} is inserted by this set; send its content with insert_block",
            field="at/block",
        )
    resolved = ""
    if edition:
        key = _parse(edition)
        same = key.is_plain and key.language == block.locale and key.text not in block.targets
        if not same:
            resolved = key.text
            allowed = plan.staged.editions
            if allowed is not None and resolved not in allowed and resolved not in block.targets:
                where = ", ".join(sorted(allowed)) or "only its own edition"
                raise ChangeError.of(
                    ErrorCode.UNSUPPORTED,
                    f"{plan.staged.doc} has no place for the {resolved} edition (it holds {where})",
                    capability="edition",
                    field="at/edition",
                )
    ref = ResultRef(doc=plan.staged.doc, block=block.ref_key, edition=resolved or None)
    return Target(block.id, resolved, ref)


def _parse(edition: str) -> EditionKey:
    try:
        return _parsed(edition)
    except EditionKeyError as err:
        raise ChangeError.of(ErrorCode.INVALID, str(err), field="at/edition") from None


@lru_cache(maxsize=256)
def _parsed(edition: str) -> EditionKey:
    """An edition key (frozen, so shared): a set names the same few editions in every op."""
    return EditionKey.parse(edition)
