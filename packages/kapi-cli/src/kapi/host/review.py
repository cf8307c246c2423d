"""The review queue: the translations waiting for a person's decision, and one of them in full.

An edition is pending while no ``establish`` holds for its current revision; an
agent's ``advise`` at that revision gives its score. Each row carries the
``ref`` a ``decide`` op takes and the ``rev`` to send as its ``if_match``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from attrs import frozen

from kapi.host.errors import EXIT_USAGE, HostError

if TYPE_CHECKING:
    from kapi.host.translate import Unit
    from kapi.host.workspace import Workspace

__all__ = [
    "ReviewBlock",
    "ReviewItem",
    "ReviewQueue",
    "ReviewRef",
    "review_block",
    "review_queue",
]


@frozen
class ReviewRef:
    """The address a ``decide`` op takes."""

    doc: str
    block: str
    edition: str


@frozen
class ReviewItem:
    """One pending edition: its ref and rev, its rung, and an agent's advice if any."""

    ref: ReviewRef
    rev: str
    collection: str
    status: str  # draft | translated
    stale: bool
    source: str
    target: str
    score: int | None = None
    reasons: tuple[str, ...] = ()


@frozen
class LanguageCount:
    """Pending editions per target language, before the filters."""

    language: str
    pending: int


@frozen
class ReviewQueue:
    """The pending editions (filtered), how many, and the count per language."""

    pending: tuple[ReviewItem, ...]
    total: int
    languages: tuple[LanguageCount, ...]

    def encoded(self) -> dict[str, Any]:
        from kapi.host.wire import encode

        return dict(encode(self))


@frozen
class Decision:
    """One recorded decision on an edition."""

    outcome: str
    rev: str
    actor: str
    at: str
    score: int | None = None


@frozen
class ReviewBlock:
    """One edition under review: what a decision needs to be made and sent."""

    item: ReviewItem
    established: bool
    decisions: tuple[Decision, ...] = ()

    def encoded(self) -> dict[str, Any]:
        from kapi.host.wire import encode

        payload = dict(encode(self.item))
        payload["established"] = self.established
        payload["decisions"] = encode(self.decisions)
        return payload


def _units(workspace: Workspace) -> list[tuple[str, Unit]]:
    from kapi.host.memory import memory_index
    from kapi.host.translate import classify, languages_for, project_documents

    project = workspace.project
    if project is None:
        raise HostError("the review queue is a project's: run `kapi init` first", exit_code=1)
    index = memory_index(workspace)
    try:
        stamps = index.stamps()
    finally:
        index.close()
    found: list[tuple[str, Unit]] = []
    for doc in project.source_files():
        languages = languages_for(workspace, doc)
        if not languages:
            continue
        claimed = project.claim(doc)
        collection = claimed[0].name if claimed is not None else ""
        staged = next(project_documents(workspace, [doc]))
        found.extend((collection, unit) for unit in classify(staged, languages, stamps))
    return found


def _item(workspace: Workspace, collection: str, unit: Unit) -> tuple[ReviewItem, list[Any]]:
    from kapi.core.edittext import render_edit_text

    store = workspace.store
    decisions = store.decisions(unit.doc, unit.block, unit.language) if store is not None else []
    advice = [d for d in decisions if d["outcome"] == "advise" and d["rev"] == unit.target_rev]
    last = advice[-1] if advice else None
    item = ReviewItem(
        ref=ReviewRef(unit.doc, unit.block, unit.language),
        rev=unit.target_rev,
        collection=collection,
        status="draft" if unit.state in ("draft", "draft-stale") else "translated",
        stale=unit.state in ("draft-stale", "person-stale"),
        source=render_edit_text(unit.source),
        target=render_edit_text(unit.target or ()),
        score=last["score"] if last is not None else None,
        reasons=tuple(last["reasons"] or ()) if last is not None else (),
    )
    return item, decisions


def _established(decisions: list[Any], rev: str) -> bool:
    standing = [d for d in decisions if d["rev"] == rev and d["outcome"] != "advise"]
    return bool(standing) and standing[-1]["outcome"] == "establish"


def review_queue(
    workspace: Workspace, *, language: str | None = None, collection: str | None = None
) -> ReviewQueue:
    """The editions waiting for review, in ``language`` and ``collection`` when named."""
    project = workspace.project
    if (
        project is not None
        and collection
        and collection not in {c.name for c in project.collections}
    ):
        raise HostError(
            f"no collection {collection!r} in the recipe "
            f"({', '.join(c.name for c in project.collections)})",
            exit_code=EXIT_USAGE,
        )
    pending: list[ReviewItem] = []
    counts: dict[str, int] = {}
    for coll, unit in _units(workspace):
        if unit.state == "missing":
            continue
        item, decisions = _item(workspace, coll, unit)
        if _established(decisions, unit.target_rev):
            continue
        counts[unit.language] = counts.get(unit.language, 0) + 1
        if language and unit.language != language:
            continue
        if collection and coll != collection:
            continue
        pending.append(item)
    return ReviewQueue(
        pending=tuple(pending),
        total=len(pending),
        languages=tuple(LanguageCount(k, v) for k, v in sorted(counts.items())),
    )


def review_block(workspace: Workspace, doc: str, block: str, edition: str) -> ReviewBlock:
    """One edition under review; ``not_found`` when the project holds no such translation."""
    for coll, unit in _units(workspace):
        if (unit.doc, unit.block, unit.language) == (doc, block, edition):
            if unit.state == "missing":
                break
            item, decisions = _item(workspace, coll, unit)
            return ReviewBlock(
                item=item,
                established=_established(decisions, unit.target_rev),
                decisions=tuple(
                    Decision(
                        d["outcome"], d["rev"], d["actor"]["kind"], d.get("at", ""), d["score"]
                    )
                    for d in decisions
                ),
            )
    raise HostError(
        f"{doc} {block} has no translation in {edition or '(no edition)'} to review",
        exit_code=3,
        code="not_found",
    )
