"""One document during a change set: as it was read, as it stands, and what changed.

Editions are addressed by key text (``""`` for a block's own edition); an op's
``if_match`` is checked against the revision an edition had when the set began.
"""

from __future__ import annotations

from attrs import frozen

from kapi.core.change.content import EditLog
from kapi.core.change.errors import Candidate, ChangeError, ErrorCode
from kapi.core.change.ops import Op, PathStep, RemoveEdition
from kapi.core.change.ports import Staged
from kapi.core.change.result import Current, ResultRef
from kapi.core.edittext import render_edit_text
from kapi.core.model import Block, Runs
from kapi.core.revision import ABSENT, revision

__all__ = [
    "DocPlan",
    "Target",
    "check_if_match",
    "edition_rev",
    "edition_rev_key",
    "edition_runs",
    "find_block",
    "own_edition_key",
    "stale",
]


def own_edition_key(block: Block) -> str:
    """The key text a revision of the own edition hashes: its locale, or "" beside a same-language target."""
    return "" if block.locale in block.targets else block.locale


def edition_rev_key(block: Block, edition: str) -> str:
    return edition if edition else own_edition_key(block)


def edition_runs(block: Block, edition: str) -> Runs | None:
    if not edition:
        return block.source
    found = block.targets.get(edition)
    return None if found is None else found.runs


def edition_rev(block: Block, edition: str) -> str:
    runs = edition_runs(block, edition)
    return ABSENT if runs is None else revision(edition_rev_key(block, edition), runs)


@frozen
class Target:
    """An op's resolved address: the block's id, the edition ("" = own), the ref to echo."""

    block_id: str
    edition: str
    ref: ResultRef


class DocPlan:
    """One document during a change set: as read, as it stands, and what changed."""

    def __init__(self, staged: Staged) -> None:
        self.staged = staged
        self.original: dict[str, Block] = {b.id: b for b in staged.document.blocks}
        self.blocks: list[Block] = list(staged.document.blocks)
        self.logs: dict[tuple[str, str], dict[tuple[PathStep, ...], EditLog]] = {}
        self.changed: dict[tuple[str, str], int] = {}  # (block, edition) -> last op index
        self.deleted: set[str] = set()
        self.inserted: set[str] = set()
        self.touched_ops: list[int] = []
        self.counter = 0
        self._positions: dict[str, int] | None = None
        self._start_revs: dict[tuple[str, str], str] = {}
        self._keys: dict[str, list[str]] = {}

    def _index(self) -> dict[str, int]:
        if self._positions is None:
            self._positions = {b.id: i for i, b in enumerate(self.blocks)}
            keys: dict[str, list[str]] = {}
            for b in self.blocks:
                for name in {b.key, b.name, b.id}:
                    if name:
                        keys.setdefault(name, []).append(b.id)
            self._keys = keys
        return self._positions

    def block(self, block_id: str) -> Block:
        return self.blocks[self._index()[block_id]]

    def find(self, block_id: str) -> Block | None:
        """The block with this reader id, or None when the set deleted it."""
        position = self._index().get(block_id)
        return self.blocks[position] if position is not None else None

    def named(self, key: str) -> list[Block]:
        """Blocks answering to ``key`` by durable key, name or reader id."""
        self._index()
        return [self.block(block_id) for block_id in self._keys.get(key, ())]

    def replace(self, block: Block) -> None:
        self.blocks[self._index()[block.id]] = block

    def restructure(self) -> None:
        """Blocks were inserted or deleted: rebuild the indexes on next use."""
        self._positions = None

    def start_rev(self, block_id: str, edition: str) -> str:
        """The revision an edition had when the set began (what every if_match names)."""
        key = (block_id, edition)
        found = self._start_revs.get(key)
        if found is None:
            original = self.original.get(block_id)
            found = edition_rev(original, edition) if original is not None else ABSENT
            self._start_revs[key] = found
        return found

    def log(self, block_id: str, edition: str) -> dict[tuple[PathStep, ...], EditLog]:
        return self.logs.setdefault((block_id, edition), {})


def find_block(plan: DocPlan, key: str, field: str) -> Block:
    matches = plan.named(key) if key else []
    if len(matches) > 1:
        raise ChangeError.of(
            ErrorCode.AMBIGUOUS,
            f"{len(matches)} blocks answer to {key!r}; name the block by its key",
            field=field,
            candidates=tuple(Candidate(key=b.id) for b in matches[:5]),
        )
    if not matches:
        if key in plan.deleted:
            raise ChangeError.of(
                ErrorCode.NOT_FOUND, f"block {key!r} was deleted by an earlier op", field=field
            )
        import difflib  # only for a block that is not there: kept off an apply's start-up

        near = difflib.get_close_matches(key, [b.ref_key for b in plan.blocks], n=3)
        hint = f"; did you mean {', '.join(repr(n) for n in near)}?" if near else ""
        raise ChangeError.of(
            ErrorCode.NOT_FOUND,
            f"no block {key!r} in {plan.staged.doc}{hint}",
            field=field,
            candidates=tuple(Candidate(key=n) for n in near) or None,
        )
    return matches[0]


def check_if_match(plan: DocPlan, target: Target, if_match: str | None, op: Op) -> str:
    """The rev the sender read, checked against the set's start state; returns it."""
    original = plan.original.get(target.block_id)
    start_rev = plan.start_rev(target.block_id, target.edition)
    current_block = plan.block(target.block_id)
    if if_match is None or if_match == "*":
        if edition_runs(current_block, target.edition) is None and not isinstance(
            op, RemoveEdition
        ):
            raise ChangeError.of(
                ErrorCode.NOT_FOUND,
                'the edition does not exist; create it with if_match "absent"',
                field="at/edition",
            )
        return start_rev
    if if_match == ABSENT:
        if start_rev != ABSENT:
            raise stale(original, target, "the edition exists already; read it and send its rev")
        return ABSENT
    if if_match != start_rev:
        message = (
            "the edition does not exist (its rev is absent)"
            if start_rev == ABSENT
            else "the content changed since it was read; read it again"
        )
        raise stale(original, target, message)
    if edition_runs(current_block, target.edition) is None and not isinstance(op, RemoveEdition):
        raise ChangeError.of(
            ErrorCode.NOT_FOUND,
            "an earlier op in this set removed the edition",
            field="at/edition",
        )
    return start_rev


def stale(block: Block | None, target: Target, message: str) -> ChangeError:
    runs = edition_runs(block, target.edition) if block else None
    rev = (
        ABSENT
        if runs is None or block is None
        else revision(edition_rev_key(block, target.edition), runs)
    )
    current = Current(rev=rev, text=render_edit_text(runs) if runs is not None else None)
    return ChangeError.of(ErrorCode.STALE, message, field="if_match", current=current)


# --- one op -------------------------------------------------------------------------
