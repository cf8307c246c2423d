"""The review queue: the editions waiting for a person's decision, and one of them in full.

A translation is pending while no ``establish`` holds for its current
revision; an agent's ``advise`` at that revision gives its score. When the
recipe says ``defaults.translate_after: established``, each source block is
pending the same way (the source ladder ``written → established``): its ref
has no edition and it is marked ``is_source``. Each row carries the ``ref`` a
``decide`` op takes and the ``rev`` to send as its ``if_match``.

:func:`review_block` gives one edition with what a decision needs: its
decisions, the blocks around it, the content memory's best match and the
findings on it (translation QA and the checks at its file).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from attrs import frozen

from kapi.host.errors import EXIT_USAGE, HostError

if TYPE_CHECKING:
    from kapi.core.change.ports import Staged
    from kapi.core.model import Runs
    from kapi.host.memory import MemoryMatch
    from kapi.host.translate import Unit
    from kapi.host.workspace import Workspace

__all__ = [
    "ReviewAction",
    "ReviewBlock",
    "ReviewItem",
    "ReviewQueue",
    "ReviewRef",
    "decide_on",
    "edit_under_review",
    "established",
    "review_block",
    "review_queue",
]


@frozen
class ReviewRef:
    """The address a ``decide`` op takes (a source's has no edition)."""

    doc: str
    block: str
    edition: str = ""


@frozen
class ReviewItem:
    """One pending edition: its ref and rev, its rung, and an agent's advice if any."""

    ref: ReviewRef
    rev: str
    collection: str
    status: str  # draft | translated (a target), written (a source)
    stale: bool
    source: str
    target: str
    score: int | None = None
    reasons: tuple[str, ...] = ()
    is_source: bool = False


@frozen
class LanguageCount:
    """Pending editions per language (a source counts under its own), before the filters."""

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
class Neighbour:
    """A block beside the one under review, as edit text (its translation when it has one)."""

    block: str
    position: str  # before | after
    source: str
    target: str = ""


@frozen
class ReviewFinding:
    """A finding on the text under review: ``on`` the ``source`` or the ``target``, with the
    character range (``start``, ``end``) it anchors to when it has one."""

    rule: str
    message: str
    fails: bool
    on: str
    start: int | None = None
    end: int | None = None
    excerpt: str = ""


@frozen
class ReviewBlock:
    """One edition under review: what a decision needs to be made and sent."""

    item: ReviewItem
    established: bool
    decisions: tuple[Decision, ...] = ()
    neighbours: tuple[Neighbour, ...] = ()
    memory: MemoryMatch | None = None
    findings: tuple[ReviewFinding, ...] = ()

    def encoded(self) -> dict[str, Any]:
        from kapi.host.wire import encode

        payload = dict(encode(self.item))
        for name in ("established", "decisions", "neighbours", "memory", "findings"):
            payload[name] = encode(getattr(self, name))
        return payload


@frozen
class ReviewAction:
    """What became of a decision or an edit sent from the review walk: ``applied`` with the
    edition's revision after it, or ``refused`` with the service's code and reason."""

    status: str
    rev: str = ""
    code: str = ""
    reason: str = ""


def _ref_wire(ref: ReviewRef) -> dict[str, str]:
    out = {"doc": ref.doc, "block": ref.block}
    if ref.edition:
        out["edition"] = ref.edition
    return out


def _register_wire() -> None:
    from kapi.host.wire import converter

    converter.register_unstructure_hook(ReviewRef, _ref_wire)


_register_wire()


@frozen
class _Pending:
    collection: str
    staged: Staged
    unit: Unit
    is_source: bool = False


def _pending(workspace: Workspace, docs: list[str] | None = None) -> list[_Pending]:
    """Every edition that could wait for review: each translation, and each source block when the
    recipe has translation wait for an established source."""
    from kapi.host.memory import memory_index
    from kapi.host.translate import (
        Unit,
        classify,
        has_words,
        languages_for,
        project_documents,
        source_revision,
    )

    project = workspace.project
    if project is None:
        raise HostError("the review queue is a project's: run `kapi init` first", exit_code=1)
    index = memory_index(workspace)
    try:
        stamps = index.stamps()
    finally:
        index.close()
    sources = project.translate_after == "established"
    found: list[_Pending] = []
    for doc in docs if docs is not None else project.source_files():
        languages = languages_for(workspace, doc)
        if not languages and not sources:
            continue
        claimed = project.claim(doc)
        collection = claimed[0].name if claimed is not None else ""
        staged = next(project_documents(workspace, [doc]))
        if sources:
            for block in staged.document.blocks:
                if block.translatable and has_words(block.source):
                    rev = source_revision(block)
                    unit = Unit(
                        doc,
                        block.ref_key,
                        staged.document.locale or project.source_language,
                        state="written",
                        source=block.source,
                        source_rev=rev,
                        target_rev=rev,
                    )
                    found.append(_Pending(collection, staged, unit, is_source=True))
        found.extend(
            _Pending(collection, staged, unit) for unit in classify(staged, languages, stamps)
        )
    return found


def _edition(pending: _Pending) -> str:
    return "" if pending.is_source else pending.unit.language


def _item(workspace: Workspace, pending: _Pending) -> tuple[ReviewItem, list[Any]]:
    from kapi.core.edittext import render_edit_text

    unit = pending.unit
    store = workspace.store
    edition = _edition(pending)
    decisions = store.decisions(unit.doc, unit.block, edition) if store is not None else []
    advice = [d for d in decisions if d["outcome"] == "advise" and d["rev"] == unit.target_rev]
    last = advice[-1] if advice else None
    if pending.is_source:
        status = "written"
    else:
        status = "draft" if unit.state in ("draft", "draft-stale") else "translated"
    item = ReviewItem(
        ref=ReviewRef(unit.doc, unit.block, edition),
        rev=unit.target_rev,
        collection=pending.collection,
        status=status,
        stale=unit.state in ("draft-stale", "person-stale"),
        source=render_edit_text(unit.source),
        target=render_edit_text(unit.target or ()),
        score=last["score"] if last is not None else None,
        reasons=tuple(last["reasons"] or ()) if last is not None else (),
        is_source=pending.is_source,
    )
    return item, decisions


def established(decisions: list[Any], rev: str) -> bool:
    """Whether a person's ``establish`` is the standing decision at ``rev``."""
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
    for entry in _pending(workspace):
        unit = entry.unit
        if unit.state == "missing":
            continue
        item, decisions = _item(workspace, entry)
        if established(decisions, unit.target_rev):
            continue
        counts[unit.language] = counts.get(unit.language, 0) + 1
        if language and unit.language != language:
            continue
        if collection and entry.collection != collection:
            continue
        pending.append(item)
    return ReviewQueue(
        pending=tuple(pending),
        total=len(pending),
        languages=tuple(LanguageCount(k, v) for k, v in sorted(counts.items())),
    )


def review_block(workspace: Workspace, doc: str, block: str, edition: str) -> ReviewBlock:
    """One edition under review; ``not_found`` when the project holds no such edition."""
    project = workspace.project
    known = project is not None and doc in set(project.source_files())
    for entry in _pending(workspace, [doc]) if known else []:
        unit = entry.unit
        if (unit.doc, unit.block, _edition(entry)) != (doc, block, edition):
            continue
        if unit.state == "missing":
            break
        item, decisions = _item(workspace, entry)
        return ReviewBlock(
            item=item,
            established=established(decisions, unit.target_rev),
            decisions=tuple(
                Decision(d["outcome"], d["rev"], d["actor"]["kind"], d.get("at", ""), d["score"])
                for d in decisions
            ),
            neighbours=_neighbours(entry),
            memory=None if entry.is_source else _memory_match(workspace, entry),
            findings=_findings(workspace, entry),
        )
    what = f"a translation in {edition}" if edition else "a source block"
    raise HostError(f"{doc} {block} has no {what} to review", exit_code=3, code="not_found")


def _neighbours(entry: _Pending) -> tuple[Neighbour, ...]:
    """The translatable blocks just before and after the one under review."""
    from kapi.core.edittext import render_edit_text
    from kapi.host.translate import has_words

    blocks = [b for b in entry.staged.document.blocks if b.translatable and has_words(b.source)]
    keys = [b.ref_key for b in blocks]
    if entry.unit.block not in keys:
        return ()
    at = keys.index(entry.unit.block)
    out = []
    for position, index in (("before", at - 1), ("after", at + 1)):
        if 0 <= index < len(blocks):
            near = blocks[index]
            target = near.targets.get(entry.unit.language) if not entry.is_source else None
            out.append(
                Neighbour(
                    near.ref_key,
                    position,
                    render_edit_text(near.source),
                    render_edit_text(target.runs) if target is not None else "",
                )
            )
    return tuple(out)


def _memory_match(workspace: Workspace, entry: _Pending) -> MemoryMatch | None:
    """The content memory's best match for the source (0.7 or better), if any."""
    from kapi.core.edittext import render_edit_text
    from kapi.host.memory import find_matches, memory_index

    project = workspace.project
    assert project is not None
    source_language = entry.staged.document.locale or project.source_language
    index = memory_index(workspace)
    try:
        matches = find_matches(
            index,
            render_edit_text(entry.unit.source),
            source_language,
            entry.unit.language,
            wanted=1,
        )
    finally:
        index.close()
    return matches[0] if matches else None


def _findings(workspace: Workspace, entry: _Pending) -> tuple[ReviewFinding, ...]:
    """Translation QA on a target, and the checks of the file it sits in (voice, terms,
    hygiene) on the text under review."""
    project = workspace.project
    assert project is not None
    unit = entry.unit
    out: list[ReviewFinding] = []
    if entry.is_source:
        return _checked(workspace, unit.doc, unit.source, "source")
    if unit.target:
        from kapi.core.check.qa import qa_issues

        source_language = entry.staged.document.locale or project.source_language
        out.extend(
            ReviewFinding(issue.rule, issue.message, issue.fails, "target")
            for issue in qa_issues(
                unit.source,
                unit.target,
                source_language=source_language,
                target_language=unit.language,
            )
        )
    path = project.translation_paths(unit.doc).get(unit.language)
    if path and unit.target:
        out.extend(_checked(workspace, path, unit.target, "target"))
    return tuple(out)


def _checked(workspace: Workspace, path: str, runs: Runs, on: str) -> tuple[ReviewFinding, ...]:
    """The findings ``kapi check`` gives ``runs`` as plain text at ``path``."""
    from kapi.core.model import plain_text
    from kapi.host.check import CheckRequest, run_check

    text = plain_text(runs).replace("\n", " ")  # one block, the same offsets
    try:
        report = run_check(
            CheckRequest(files=(path,), text=text, format_name="plaintext"), workspace
        ).report
    except HostError:
        return ()  # governance that does not resolve is `kapi check`'s to report
    out = []
    for finding in report.findings:
        anchor = finding.location.anchor
        start = end = None
        if anchor is not None and anchor.start.run == 0 and anchor.end.run == 0:
            start, end = anchor.start.offset, anchor.end.offset
        out.append(
            ReviewFinding(
                finding.rule,
                finding.message,
                finding.fails,
                on,
                start,
                end,
                text[start:end] if start is not None else "",
            )
        )
    return tuple(out)


# --- deciding -------------------------------------------------------------------------------


def decide_on(
    workspace: Workspace,
    ref: ReviewRef,
    rev: str,
    outcome: str,
    reasons: tuple[str, ...] = (),
) -> ReviewAction:
    """Send the sender's ``decide`` op on ``ref`` as read at ``rev`` (``KAPI_ACTOR``: a person's
    establish, reject or withdraw; an agent's is refused ``not_permitted``)."""
    from kapi.core.change.ops import Decide, Ref

    op = Decide(
        at=Ref(ref.doc, ref.block, ref.edition or None),
        if_match=rev,
        outcome=outcome,
        reasons=reasons or None,
    )
    return _send(workspace, op, f"{outcome} in `kapi review`")


def edit_under_review(workspace: Workspace, ref: ReviewRef, rev: str, text: str) -> ReviewAction:
    """Replace the edition under review with ``text`` (edit text, its codes as tokens)."""
    from kapi.core.change.ops import Ref, SetContent

    op = SetContent(at=Ref(ref.doc, ref.block, ref.edition or None), if_match=rev, text=text)
    return _send(workspace, op, "edited in `kapi review`")


def _send(workspace: Workspace, op: Any, note: str) -> ReviewAction:
    from kapi.core.change.ops import ChangeSet
    from kapi.host.actor import actor_from_env
    from kapi.host.apply import apply_decoded

    result = apply_decoded(
        ChangeSet(ops=(op,), note=note), actor=actor_from_env(), workspace=workspace
    ).result
    done = result.ops[0] if result.ops else None
    error = done.error if done is not None and done.error is not None else result.error
    if error is not None:
        return ReviewAction("refused", code=str(error.code), reason=error.message)
    return ReviewAction("applied", rev=(done.after or "") if done is not None else "")
