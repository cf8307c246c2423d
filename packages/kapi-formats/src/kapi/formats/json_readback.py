"""The read-back of a JSON write that only replaced values: edited values re-read, the rest compared.

A write that changes only string values (the common ``set_content`` set) leaves
every other character of the file where it was. Instead of reading the whole
new file again, :func:`read_back` walks it beside the text the document was
read from: the text between the values the document changed must be the very
same characters, and at each changed value the new file must hold one JSON
string, which is decoded and read into runs the way the reader would. Only
those blocks come back, each beside the block meant; every other block reads
as before, since its value and everything around it is unchanged.

Whenever that cannot be told so cheaply (a block added, deleted or renamed,
an i18next plural gaining or losing a form, the file turning ICU or ceasing
to be, another encoding, anything in the new bytes that differs from the old
outside the changed values), it answers ``None`` and the caller reads the
whole file back, as every write did before.
"""

from __future__ import annotations

import re
from json.decoder import scanstring  # type: ignore[attr-defined]
from operator import attrgetter
from typing import TYPE_CHECKING

from kapi.core.format import Limits
from kapi.core.model import Block, Document, Plural, Runs
from kapi.formats.json_values import parse_value, structured

if TYPE_CHECKING:  # pragma: no cover
    from kapi.formats.json_catalog import JsonSkeleton, _Value

__all__ = ["read_back"]

_ID = attrgetter("id")
_NAME = attrgetter("name")
_TARGETS = attrgetter("targets")
_BLOCK_ID = attrgetter("block_id")

# The inside of a JSON string token, up to (not including) its closing quote.
_CONTENT = re.compile(r'(?:[^"\\\x00-\x1f]++|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*+')


def read_back(
    skeleton: JsonSkeleton, meant: Document, data: bytes, limits: Limits
) -> list[tuple[Block, Block]] | None:
    """The blocks ``meant`` changed beside how ``data`` reads them; ``None``: read it all."""
    source = skeleton.source
    if (
        source.encoding != "utf-8"
        or meant.target_locale
        or len(data) > limits.max_bytes
        or not data.startswith(source.bom)
        or b"\x00" in data
    ):
        return None
    names = skeleton.names
    blocks = meant.blocks
    ids = list(map(_ID, blocks))
    # the blocks as read, in the order read (one added, removed, renamed or moved: read it all)
    if ids != list(names) or list(map(_NAME, blocks)) != list(names.values()):
        return None
    if any(map(_TARGETS, blocks)):
        return None
    # the values the document changed: (value, block, runs meant there)
    changed: list[tuple[_Value, Block, Runs]]
    folded = skeleton.folded
    values = skeleton.values
    if not folded and list(map(_BLOCK_ID, values)) == ids:
        # one value a block, in the order of the blocks
        changed = [
            (value, block, block.source)
            for block, value in zip(blocks, values)
            if block.source is not value.runs and block.source != value.runs
        ]
    else:
        by_id = dict(zip(ids, blocks))
        forms_of = _folded_forms(skeleton)
        changed = []
        for value in values:
            block = by_id[value.block_id]
            if value.block_id in folded:
                meant_forms = _plural_forms(block.source)
                if meant_forms is None or meant_forms.keys() != forms_of[value.block_id].keys():
                    return None  # a form added or removed: siblings come or go
                runs = meant_forms[value.form]
            else:
                runs = block.source
            if runs is not value.runs and runs != value.runs:
                changed.append((value, block, runs))
    try:
        text = data[len(source.bom) :].decode("utf-8")
    except UnicodeDecodeError:
        return None
    old = source.text
    new_values: list[str] = [""] * len(changed)
    old_at = new_at = 0
    # through the text in order; ``changed`` stays in the order of the blocks
    for index in sorted(range(len(changed)), key=lambda i: changed[i][0].node.start):
        node = changed[index][0].node
        between = old[old_at : node.start + 1]
        if not text.startswith(between, new_at):
            return None
        new_at += len(between)
        found = _CONTENT.match(text, new_at)
        assert found is not None  # the pattern matches the empty string
        end = found.end()
        if end >= len(text) or text[end] != '"':
            return None
        inside = found.group()
        new_values[index] = inside if "\\" not in inside else scanstring(text, new_at)[0]
        old_at, new_at = node.end - 1, end
    if len(text) - new_at != len(old) - old_at or not text.startswith(old[old_at:], new_at):
        return None
    icu = skeleton.icu
    if not skeleton.arb and _reads_as_icu(skeleton, changed, new_values) != icu:
        return None
    pairs: dict[str, tuple[Block, Block]] = {}
    read_forms: dict[str, dict[str, Runs]] = {}
    for (value, block, _), new in zip(changed, new_values):
        runs, _layouts = parse_value(new, icu)
        if value.block_id in folded:
            forms = read_forms.get(value.block_id)
            if forms is None:
                forms = read_forms[value.block_id] = dict(_folded_forms(skeleton)[value.block_id])
            forms[value.form] = runs
            runs = (Plural(pivot="count", forms=forms),)
        pairs[value.block_id] = (block, Block(id=block.id, source=runs, name=block.name))
    return list(pairs.values())


def _folded_forms(skeleton: JsonSkeleton) -> dict[str, dict[str, Runs]]:
    forms: dict[str, dict[str, Runs]] = {}
    for value in skeleton.values:
        if value.block_id in skeleton.folded:
            forms.setdefault(value.block_id, {})[value.form] = value.runs
    return forms


def _plural_forms(runs: Runs) -> dict[str, Runs] | None:
    if len(runs) == 1 and isinstance(runs[0], Plural) and runs[0].pivot == "count":
        return dict(runs[0].forms)
    return None


def _reads_as_icu(
    skeleton: JsonSkeleton, changed: list[tuple[_Value, Block, Runs]], new_values: list[str]
) -> bool:
    """Whether the new file is ICU: some string value holds a plural or select that parses.

    Unchanged values decide as they did: in a file that was not ICU none of them
    does; in one that was, their runs were read as ICU and show it. Where no
    unchanged block value shows it (the one that did may be a shadowed duplicate
    member, which is no block) the answer is no, and the caller reads it all.
    """
    from kapi.formats import icu

    for new in new_values:
        if icu.has_complex_argument(new):
            try:
                if structured(icu.parse(new).runs):
                    return True
            except icu.IcuSyntaxError:
                continue
    if not skeleton.icu:
        return False
    edited = {id(value) for value, _, _ in changed}
    return any(
        id(v) not in edited and icu.has_complex_argument(v.node.value) and structured(v.runs)
        for v in skeleton.values
    )
