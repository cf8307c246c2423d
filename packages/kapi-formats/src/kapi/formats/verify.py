"""Every write is read back before it lands: what the file would say must be what was sent.

A writer that cannot express an edit (a value the format has no way to hold,
a block it cannot insert, an edition it drops) must not report it applied.
Reading the new bytes with the same format and comparing every block with the
document that was meant catches that, and any damage to blocks nobody edited.
Native markup is not compared (a new code's markup is the writer's to choose,
and a character reference counts as the character it stands for);
text, the kinds, types and order of codes, their attributes, and plural and
select branches are.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

from kapi.core.edittext import entity_char, render_edit_text
from kapi.core.format import FormatCodec, FormatError, WriteRefused
from kapi.core.model import (
    Block,
    Document,
    PcClose,
    PcOpen,
    Ph,
    Plural,
    Run,
    Runs,
    Select,
    Sub,
    Text,
)

__all__ = ["verify_written"]

Shape = tuple[object, ...]


def _shape(runs: Runs) -> Shape:
    out: list[object] = []
    for run in runs:
        # a character reference reads as its character: a writer may spell a new character
        # the way the file does
        text = run.text if isinstance(run, Text) else entity_char(run) or _escaped_char(run)
        if text is not None:
            if out and isinstance(out[-1], str):
                out[-1] = out[-1] + text
            elif text:
                out.append(text)
        elif isinstance(run, Plural):
            out.append(("plural", run.pivot, _branches(run.forms)))
        elif isinstance(run, Select):
            out.append(("select", run.pivot, _branches(run.cases)))
        elif isinstance(run, Ph | PcOpen | PcClose):
            out.append((type(run).__name__, run.type))
        else:
            out.append((type(run).__name__, ""))
    return tuple(out)


def _escaped_char(run: Run) -> str | None:
    """The character a backslash escape (Markdown's ``\\*``) stands for."""
    if isinstance(run, Ph) and run.type == "entity:char" and len(run.equiv) == 1:
        return run.equiv if run.data == "\\" + run.equiv else None
    return None


def _branches(branches: Mapping[str, Runs]) -> Shape:
    return tuple(sorted((name, _shape(runs)) for name, runs in branches.items()))


def _attrs_kept(meant: Runs, got: Runs) -> bool:
    """Every attribute sent on a code is on the code read back (a reader may add more)."""
    meant_codes = [r for r in _codes(meant) if isinstance(r, Ph | PcOpen)]
    got_codes = [r for r in _codes(got) if isinstance(r, Ph | PcOpen)]
    return all(
        all(theirs.attrs.get(k) == v for k, v in mine.attrs.items())
        for mine, theirs in zip(meant_codes, got_codes)
    )


def _codes(runs: Runs) -> list[Run]:
    out: list[Run] = []
    for run in runs:
        if isinstance(run, Plural):
            for name in sorted(run.forms):
                out.extend(_codes(run.forms[name]))
        elif isinstance(run, Select):
            for name in sorted(run.cases):
                out.extend(_codes(run.cases[name]))
        elif isinstance(run, Ph | PcOpen | PcClose | Sub):
            out.append(run)
    return out


def _editions(block: Block, target_locale: str) -> dict[str, Runs]:
    found = {"": block.source}
    if target_locale and target_locale in block.targets:
        found[target_locale] = block.targets[target_locale].runs
    return found


def _by_key(document: Document) -> dict[str, list[Block]]:
    grouped: dict[str, list[Block]] = defaultdict(list)
    for block in document.blocks:
        grouped[block.ref_key].append(block)
    return grouped


def verify_written(
    codec: FormatCodec, meant: Document, data: bytes, *, path: str, locale: str
) -> None:
    """Raise WriteRefused when ``data`` does not read back as ``meant``.

    A codec may offer ``read_back(meant, data)``: the blocks ``meant`` changed,
    each beside the block ``data`` holds there, when it can tell that every other
    block of ``data`` is, character for character, where and what it was when
    ``meant`` was read (``None`` when it cannot). Only those pairs are compared
    then; otherwise ``data`` is read whole and every block compared.
    """
    read_back = getattr(codec, "read_back", None)
    if read_back is not None:
        pairs = read_back(meant, data)
        if pairs is not None:
            for mine, theirs in pairs:
                if not _as_meant(mine, theirs, ""):
                    _compare(mine, theirs, meant, "", path)
            return
    try:
        again = codec.read(data, path=path, locale=locale or meant.locale)
    except FormatError as err:
        raise WriteRefused(
            f"{path}: the edited file would not read back ({err.message}); nothing was written",
            capability="edition",
        ) from None
    same_target = meant.target_locale == again.target_locale
    for mine, theirs in _pairs(meant, again, path):
        if same_target and _as_meant(mine, theirs, meant.target_locale):
            continue
        _compare(mine, theirs, meant, again.target_locale, path)


def _compare(mine: Block, theirs: Block, meant: Document, again_target: str, path: str) -> None:
    """Refuse unless ``theirs`` (read back) holds every edition of ``mine`` as sent."""
    if not mine.translatable:
        return
    key = mine.ref_key
    meant_editions = _editions(mine, meant.target_locale)
    got_editions = _editions(theirs, again_target)
    for edition, runs in meant_editions.items():
        got = got_editions.get(edition)
        if got is None or _shape(got) != _shape(runs) or not _attrs_kept(runs, got):
            shown = "nothing" if got is None else repr(render_edit_text(got))
            label = f"the {edition} edition of " if edition else ""
            raise WriteRefused(
                f"{path}: {meant.format} would write {label}block {key!r} as {shown}, "
                f"not as sent ({render_edit_text(runs)!r}); change the text so the format "
                "can hold it",
                capability="edition",
                block=mine.id,
            )
    extra = set(got_editions) - set(meant_editions)
    if extra:
        raise WriteRefused(
            f"{path}: {meant.format} would keep the {sorted(extra)[0]} edition of block "
            f"{key!r}, which the change removes; this format cannot remove it",
            capability="remove_edition",
            block=mine.id,
        )


def _as_meant(mine: Block, theirs: Block, target: str) -> bool:
    """The block read back with the very runs meant (every block nobody edited, in a writer
    that splices): equal runs have equal text, codes and attributes, so nothing more to see."""
    if theirs.source != mine.source:
        return False
    if not target:
        return True
    meant, got = mine.targets.get(target), theirs.targets.get(target)
    if meant is None or got is None:
        return meant is None and got is None
    return got.runs == meant.runs


def _pairs(meant: Document, again: Document, path: str) -> list[tuple[Block, Block]]:
    """Blocks meant and read back, paired by key, then the rest in document order.

    A format that names blocks by their source text (a PO msgid) gives an
    edited source a new key; such blocks pair by position among the unmatched.
    """
    written = _by_key(again)
    pairs: list[tuple[Block, Block]] = []
    unmatched: list[Block] = []
    for block in meant.blocks:
        candidates = written.get(block.ref_key)
        if candidates:
            pairs.append((block, candidates.pop(0)))
        else:
            unmatched.append(block)
    leftover = [b for blocks in written.values() for b in blocks]
    position = {id(block): index for index, block in enumerate(again.blocks)}
    leftover.sort(key=lambda b: position[id(b)])
    if len(unmatched) != len(leftover):
        if len(unmatched) > len(leftover):
            missing = unmatched[len(leftover)]
            raise WriteRefused(
                f"{path}: block {missing.ref_key!r} is missing from what {meant.format} would "
                "write; the format cannot make this change",
                capability="edition",
                block=missing.id,
            )
        extra = leftover[len(unmatched)]
        raise WriteRefused(
            f"{path}: block {extra.ref_key!r} would still be in what {meant.format} writes; "
            "the format cannot delete it",
            capability="delete_block",
        )
    pairs.extend(zip(unmatched, leftover))
    return pairs
