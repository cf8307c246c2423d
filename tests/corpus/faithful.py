"""The per-file assertions of the corpus tier, shared by every format.

1. read -> write unchanged gives identical bytes;
2. pseudo-translating every text run -> write -> re-read gives the pseudo text, codes intact;
3. a one-word edit is visible on re-read and changes nothing outside that value;
4. BOM, final newline and CRLF are kept (a consequence of 1 and 3, asserted explicitly).
"""

from __future__ import annotations

from collections.abc import Callable

from attrs import evolve

from kapi.core.format import FormatCodec
from kapi.core.model import Block, Document, Edition, Plural, Run, Runs, Select, Text

_PSEUDO = str.maketrans(
    "aeiouyAEIOUYcnsz",
    "\u00e5\u00e9\u00ee\u00f8\u00fc\u00fd\u00c5\u00c9\u00ce\u00d8\u00dc\u00dd\u00e7\u00f1\u0161\u017e",
)


def pseudo_text(text: str) -> str:
    return text.translate(_PSEUDO)


def map_text(runs: Runs, change: Callable[[str], str]) -> Runs:
    out: list[Run] = []
    for run in runs:
        if isinstance(run, Text) and not run.no_translate:
            out.append(evolve(run, text=change(run.text)))
        elif isinstance(run, Plural):
            out.append(evolve(run, forms={k: map_text(v, change) for k, v in run.forms.items()}))
        elif isinstance(run, Select):
            out.append(evolve(run, cases={k: map_text(v, change) for k, v in run.cases.items()}))
        else:
            out.append(run)
    return tuple(out)


def edited_editions(block: Block, document: Document) -> Block:
    """Apply pseudo-translation to the edition a writer of this document writes."""
    if document.target_locale:
        target = block.targets.get(document.target_locale)
        runs = target.runs if target is not None else block.source
        status = target.status if target is not None else ""
        return block.with_target(
            document.target_locale, Edition(runs=map_text(runs, pseudo_text), status=status)
        )
    return block.with_source(map_text(block.source, pseudo_text))


def _edition(block: Block, document: Document) -> Runs:
    if document.target_locale:
        target = block.targets.get(document.target_locale)
        return target.runs if target is not None else ()
    return block.source


def _codes(runs: Runs) -> list[Run]:
    out: list[Run] = []
    for run in runs:
        if isinstance(run, Plural):
            for key in sorted(run.forms):
                out.extend(_codes(run.forms[key]))
        elif isinstance(run, Select):
            for key in sorted(run.cases):
                out.extend(_codes(run.cases[key]))
        elif not isinstance(run, Text):
            out.append(run)
    return out


def _forms_kept(want: Runs, got: Runs) -> Runs:
    """``want`` with each plural limited to the forms the written file kept.

    A language with fewer plural categories than the source (Japanese has only
    ``other``) cannot hold the source's ``one``; the writer drops it, and must
    keep ``other``.
    """
    if len(want) != len(got):
        return want
    out: list[Run] = []
    for mine, theirs in zip(want, got):
        if isinstance(mine, Plural) and isinstance(theirs, Plural):
            kept = {k: v for k, v in mine.forms.items() if k in theirs.forms}
            if set(theirs.forms) <= set(mine.forms) and "other" in kept:
                mine = evolve(mine, forms=kept)
        out.append(mine)
    return tuple(out)


def assert_faithful(codec: FormatCodec, data: bytes, path: str, locale: str = "en") -> None:
    document = codec.read(data, path=path, locale=locale)
    # 1. no-op round trip
    assert codec.write(document) == data, f"{path}: no-op write changed bytes"

    # 2. pseudo-translation keeps every code
    editable = [b for b in document.blocks if b.translatable]
    pseudo = document.with_blocks(
        tuple(edited_editions(b, document) if b.translatable else b for b in document.blocks)
    )
    written = codec.write(pseudo)
    reread = codec.read(written, path=path, locale=locale)
    by_id = {b.id: b for b in reread.blocks}
    for block in editable:
        expected = edited_editions(block, document)
        again = by_id.get(block.id)
        assert again is not None, f"{path}: block {block.id} lost after pseudo-translation"
        want = _edition(expected, document)
        got = _edition(again, reread)
        want = _forms_kept(want, got)
        assert _codes(got) == _codes(want), f"{path}: codes changed in {block.id}"
        assert got == want or _flat(got) == _flat(want), f"{path}: {block.id}: {got!r} != {want!r}"

    # 3. one-word edit changes only that value; 4. BOM/newlines kept
    for block in editable:
        runs = _edition(block, document)
        text_runs = [i for i, r in enumerate(runs) if isinstance(r, Text) and r.text.strip()]
        if not text_runs:
            continue
        index = text_runs[0]
        first = runs[index]
        assert isinstance(first, Text)
        edited_runs = (
            *runs[:index],
            evolve(first, text="Kapiword " + first.text),
            *runs[index + 1 :],
        )
        if document.target_locale:
            status = block.targets[document.target_locale].status
            changed = block.with_target(
                document.target_locale, Edition(runs=edited_runs, status=status)
            )
        else:
            changed = block.with_source(edited_runs)
        blocks = tuple(changed if b.id == block.id else b for b in document.blocks)
        out = codec.write(document.with_blocks(blocks))
        assert (
            b"Kapiword" in out
            or "Kapiword".encode("utf-16-le") in out
            or "Kapiword".encode("utf-16-be") in out
        )
        again = codec.read(out, path=path, locale=locale)
        moved = [
            b.id
            for b, o in zip(document.blocks, again.blocks)
            if b.id != block.id and _edition(b, document) != _edition(o, again)
        ]
        assert not moved, f"{path}: editing {block.id} changed {moved[:3]}"
        assert out.startswith(data[:3]) or not data.startswith(b"\xef\xbb\xbf")
        assert out.endswith(b"\n") == data.endswith(b"\n")
        assert (b"\r\n" in out) == (b"\r\n" in data)
        break


def _flat(runs: Runs) -> str:
    from kapi.core.model import plain_text

    return plain_text(runs)
