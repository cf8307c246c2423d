"""Strict decoding of a change set from any of its three input forms.

A set arrives as one JSON object with ``ops``, as JSONL (an envelope line, or
none, then one op per line) or as a bare JSON array of ops. Anything that does
not fit (bad JSON, unknown field, ``null``, wrong type, a self-contradicting op)
is refused with ``invalid`` and the RFC 6901 pointer of the fault in the set as
sent; nothing else ever escapes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

from attrs import evolve

from kapi.core.change.errors import ChangeError, ErrorCode, ErrorInfo
from kapi.core.change.ops import (
    SCHEMA,
    Annotate,
    BlockRef,
    ChangeSet,
    Decide,
    DeleteBlock,
    Edit,
    EditionContent,
    InsertBlock,
    Mark,
    Memory,
    Native,
    Op,
    Origin,
    Position,
    Recipe,
    Ref,
    RemoveEdition,
    ReplaceText,
    Selection,
    SetAttribute,
    SetContent,
    Term,
    Unannotate,
)
from kapi.core.change.read import ReadPage
from kapi.core.change.result import Result
from kapi.core.change.wire import (
    structure_change_set,
    structure_op,
    structure_read_page,
    structure_result,
)
from kapi.core.change.wire_shape import Fault, PathKey, WireFault
from kapi.core.edition import EditionKey, EditionKeyError, canonical_locale

__all__ = ["MAX_DEPTH", "decode_change_set", "decode_read_page", "decode_result", "pointer"]

MAX_DEPTH = 64
"""The deepest nesting of arrays and objects a change set may have."""

_MAX_INT_DIGITS = 4000
_REVISION = re.compile(r"r:[0-9a-f]{16}")
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
_SURROGATE = re.compile(r"[\ud800-\udfff]")

_SEND_REV = "send the rev a read reported (r: and 16 lowercase hex digits)"


def pointer(path: tuple[PathKey, ...]) -> str:
    """The RFC 6901 JSON pointer of ``path``."""
    return "".join("/" + str(key).replace("~", "~0").replace("/", "~1") for key in path)


def _invalid(path: tuple[PathKey, ...], message: str) -> ChangeError:
    return ChangeError(ErrorInfo(code=ErrorCode.INVALID, message=message, pointer=pointer(path)))


# ---------------------------------------------------------------------------
# Parsing: JSON values with what json.loads would otherwise let through marked.


class _DuplicateKeys(dict[str, Any]):
    """An object that named one key twice; ``duplicate`` is the first such key."""

    duplicate: str = ""


class _BadNumber:
    """A number JSON allows but a change set cannot carry (NaN, infinity, thousands of digits)."""

    def __init__(self, text: str) -> None:
        self.text = text


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out and not isinstance(out, _DuplicateKeys):
            marked = _DuplicateKeys(out)
            marked.duplicate = key
            out = marked
        out[key] = value
    return out


def _parse_int(text: str) -> int | _BadNumber:
    return _BadNumber(text) if len(text) > _MAX_INT_DIGITS else int(text)


def _parse_float(text: str) -> float | _BadNumber:
    value = float(text)
    return value if value not in (float("inf"), float("-inf")) else _BadNumber(text)


_DECODER = json.JSONDecoder(
    object_pairs_hook=_pairs,
    parse_int=_parse_int,
    parse_float=_parse_float,
    parse_constant=_BadNumber,
)
_WHITESPACE = re.compile(r"[ \t\n\r]*")


class _SyntaxFault(Exception):
    def __init__(self, index: int, message: str) -> None:
        super().__init__(message)
        self.index = index
        self.message = message


def _values(text: str) -> list[Any]:
    """The JSON values of ``text`` one after another (one, or one per JSONL line)."""
    out: list[Any] = []
    position = 0
    while True:
        match = _WHITESPACE.match(text, position)
        position = match.end() if match else position
        if position >= len(text):
            return out
        try:
            value, position = _DECODER.raw_decode(text, position)
        except json.JSONDecodeError as exc:
            raise _SyntaxFault(
                len(out), f"not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
            ) from None
        except RecursionError:
            raise _SyntaxFault(len(out), f"nested deeper than {MAX_DEPTH} levels") from None
        except ValueError as exc:
            line = text.count("\n", 0, position) + 1
            raise _SyntaxFault(len(out), f"not JSON: {exc} (value at line {line})") from None
        out.append(value)


def _text(data: str | bytes) -> str:
    if isinstance(data, str):
        return data[1:] if data.startswith("\ufeff") else data
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _invalid(
            (), f"not UTF-8: byte {exc.start} cannot be decoded; send UTF-8 JSON"
        ) from None


def _clean(value: Any, depth: int) -> bool:
    """Whether :func:`_scan` finds nothing in ``value``, strings aside: no bad number, no
    repeated key, no nesting too deep. Its strings are for the caller to clear."""
    stack = [(value, depth)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, dict):
            if level >= MAX_DEPTH or isinstance(node, _DuplicateKeys):
                return False
            children: Any = node.values()
        elif isinstance(node, list):
            if level >= MAX_DEPTH:
                return False
            children = node
        else:
            if isinstance(node, _BadNumber):
                return False
            continue
        for child in children:
            if isinstance(child, dict | list | _BadNumber):
                stack.append((child, level + 1))
    return True


def _scan(value: Any, path: tuple[PathKey, ...], depth: int = 0) -> Iterator[Fault]:
    """What JSON parsing let through: repeated keys, bad numbers, lone surrogates, deep nesting."""
    if isinstance(value, _BadNumber):
        yield path, f"{value.text} is not a number a change set can carry"
    elif isinstance(value, str):
        if _SURROGATE.search(value):
            yield path, "holds a lone surrogate (\\ud800-\\udfff); send valid Unicode"
    elif isinstance(value, dict | list):
        if depth >= MAX_DEPTH:
            yield path, f"nested deeper than {MAX_DEPTH} levels"
            return
        if isinstance(value, _DuplicateKeys):
            yield (
                (*path, value.duplicate),
                f'the key "{value.duplicate}" appears twice; send it once',
            )
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            if isinstance(key, str) and _SURROGATE.search(key):
                yield (*path, key), "the key holds a lone surrogate; send valid Unicode"
            yield from _scan(item, (*path, key), depth + 1)


# ---------------------------------------------------------------------------
# The three input forms.


def decode_change_set(data: str | bytes) -> ChangeSet:
    """Decode a change set strictly; every refusal is a :class:`ChangeError` of code ``invalid``.

    ``data`` is one JSON object with ``ops``, JSONL (an envelope line without
    ``ops`` then one op per line, or op lines only), or a JSON array of ops.
    Edition keys come back canonical; fields left out stay ``None``.
    """
    try:
        return _decode(data)
    except ChangeError:
        raise
    except RecursionError:
        raise _invalid((), f"nested deeper than {MAX_DEPTH} levels") from None
    except Exception as exc:  # a bug in the decoder must still reach the sender as a refusal
        raise _invalid(
            (), f"internal decoder error ({type(exc).__name__}: {exc}); please report it"
        ) from None


def _decode(data: str | bytes) -> ChangeSet:
    text = _text(data)
    try:
        values = _values(text)
    except _SyntaxFault as fault:
        raise _invalid(_syntax_place(text, fault.index), fault.message) from None
    if not values:
        raise _invalid(
            (),
            "empty input; send a change set: an object with ops, JSONL, or an array of operations",
        )
    first = values[0]
    envelope: dict[str, Any] = {}
    scans: list[tuple[Any, tuple[PathKey, ...]]]
    if isinstance(first, list):
        if len(values) > 1:
            raise _invalid((), "an array of operations is the whole input; found more after it")
        ops: Any = first
        scans = [(first, ("ops",))]
    elif isinstance(first, dict) and "op" in first:
        ops = values
        scans = [(value, ("ops", index)) for index, value in enumerate(values)]
    elif isinstance(first, dict):
        envelope = first
        scans = [(first, ())]
        if len(values) > 1:
            if "ops" in first:
                raise _invalid(
                    ("ops",),
                    "a JSONL change set carries its operations on the lines after the envelope, "
                    "not in ops",
                )
            ops = values[1:]
            scans += [(value, ("ops", index)) for index, value in enumerate(ops)]
        elif "ops" not in first:
            raise _invalid(
                ("ops",),
                'a change set lists its operations under "ops"; "ops": [] changes nothing',
            )
        else:
            ops = first["ops"]
    else:
        raise _invalid((), "a change set is an object with ops, JSONL, or an array of operations")

    # a lone surrogate is a character of the text or one of its \u escapes
    plain = "\\u" not in text and _SURROGATE.search(text) is None
    for value, base in scans:
        if plain and _clean(value, len(base)):
            continue
        for path, message in _scan(value, base, len(base)):
            raise _invalid(path, message)

    document = {key: value for key, value in envelope.items() if key != "ops"}
    document["ops"] = ops
    change_set, faults = _structure(document)
    if faults:
        raise _first(document, faults)
    return change_set


def _structure(document: dict[str, Any]) -> tuple[ChangeSet, list[Fault]]:
    """Structure the envelope and each op on its own, so the first fault of the set wins."""
    ops = document["ops"]
    faults: list[Fault] = []
    shell = ChangeSet()
    try:
        shell = structure_change_set({**document, "ops": ops if not isinstance(ops, list) else []})
    except WireFault as fault:
        faults += fault.faults
    else:
        faults += _check_envelope(shell)
    checked: list[Op] = []
    for index, value in enumerate(ops if isinstance(ops, list) else []):
        path: _Path = ("ops", index)
        try:
            op = structure_op(value)
        except WireFault as fault:
            faults += [((*path, *where), message) for where, message in fault.faults]
            continue
        op, op_faults = _CHECKS[type(op)](op, path)
        checked.append(op)
        faults += op_faults
    return evolve(shell, ops=tuple(checked)), faults


def _syntax_place(text: str, index: int) -> tuple[PathKey, ...]:
    """Where a value that is not JSON sits: the set itself, or the op of a JSONL line."""
    if index == 0:
        return ()
    try:
        first = _DECODER.raw_decode(text, _WHITESPACE.match(text, 0).end())[0]  # type: ignore[union-attr]
    except (ValueError, RecursionError):
        return ()
    if not isinstance(first, dict):
        return ()
    if "ops" in first:
        return ()
    if "op" not in first:
        return ("ops", index - 1)
    return ("ops", index)


def _first(document: Any, faults: list[Fault]) -> ChangeError:
    """The refusal for the fault that comes first in the set as sent."""
    path, message = min(faults, key=lambda fault: _document_order(document, fault[0]))
    return _invalid(path, message)


def _document_order(document: Any, path: tuple[PathKey, ...]) -> list[int]:
    order: list[int] = []
    node = document
    for key in path:
        if isinstance(node, dict):
            keys = list(node)
            order.append(keys.index(key) if key in node else len(keys))
            node = node.get(key)
        elif isinstance(node, list) and isinstance(key, int) and 0 <= key < len(node):
            order.append(key)
            node = node[key]
        else:
            order.append(0)
            node = None
    return order


# ---------------------------------------------------------------------------
# What a type cannot say: choices, patterns, ranges, edition keys.

_Path = tuple[PathKey, ...]


def _check_envelope(change_set: ChangeSet) -> list[Fault]:
    faults: list[Fault] = []
    if change_set.schema is not None and change_set.schema != SCHEMA:
        faults.append((("schema",), f'schema "{change_set.schema}"; this decoder reads {SCHEMA}'))
    if change_set.mode == "propose":
        faults.append(
            (("mode",), "propose is reserved and not yet accepted; send apply or preview")
        )
    elif change_set.mode not in (None, "apply", "preview"):
        faults.append((("mode",), f'mode "{change_set.mode}"; one of apply, preview'))
    if change_set.gate not in (None, "enforce", "report"):
        faults.append((("gate",), f'gate "{change_set.gate}"; one of enforce, report'))
    return faults


def _need(value: str, path: _Path, what: str) -> list[Fault]:
    return [] if value else [(path, f"names no {what}")]


def _check_doc(doc: str, path: _Path) -> list[Fault]:
    """A document path: present, and no NUL byte (no file system can name one)."""
    if "\x00" in doc:
        return [((*path, "doc"), "holds a NUL byte; no file is named that way")]
    return _need(doc, (*path, "doc"), "document; give its path as a read reports it")


def _check_ref(ref: Ref, path: _Path) -> tuple[Ref, list[Fault]]:
    faults = _check_doc(ref.doc, path)
    faults += _need(ref.block, (*path, "block"), "block; give the block key a read reports")
    if ref.edition:
        try:
            edition = _canonical_edition(ref.edition)
        except EditionKeyError as exc:
            faults.append(((*path, "edition"), _edition_message(exc)))
        else:
            if edition != ref.edition:
                ref = evolve(ref, edition=edition)
    return ref, faults


@lru_cache(maxsize=256)
def _canonical_edition(text: str) -> str:
    """An edition key's canonical text (a set names the same few editions in every op)."""
    return EditionKey.parse(text).text


def _with_at(op: Any, at: Ref) -> Any:
    """``op`` at ``at`` (itself when ``at`` is its own)."""
    return op if at is op.at else evolve(op, at=at)


def _edition_message(exc: EditionKeyError) -> str:
    return f"{exc}; an edition key is a language tag with optional ;tone= and ;channel="


def _check_block_ref(ref: BlockRef, path: _Path) -> list[Fault]:
    return _check_doc(ref.doc, path) + _need(
        ref.block, (*path, "block"), "block; give the block key a read reports"
    )


def _check_if_match(value: str, path: _Path, *, absent: bool) -> list[Fault]:
    if _REVISION.fullmatch(value) or value == "*":
        return []
    if value == "absent":
        if absent:
            return []
        return [(path, "absent is only for set_content, which creates an edition; " + _SEND_REV)]
    also = ', "absent" to create the edition' if absent else ""
    return [(path, f'"{value}" is not a revision: {_SEND_REV}{also}, or "*" to write blind')]


def _check_revision(value: str, path: _Path) -> list[Fault]:
    if _REVISION.fullmatch(value):
        return []
    return [(path, f'"{value}" is not a revision: {_SEND_REV}')]


def _check_origin(origin: Origin | None, path: _Path) -> list[Fault]:
    if origin is None:
        return []
    return _need(origin.tool, (*path, "origin", "tool"), "tool")


def _check_content(text: str | None, runs: object, path: _Path) -> list[Fault]:
    if (text is None) == (runs is None):
        return [(path, "takes exactly one of text and runs")]
    return []


def _check_position(position: Position, path: _Path) -> list[Fault]:
    faults: list[Fault] = []
    if position.run < 0:
        faults.append(((*path, "run"), "a run index counts from 0"))
    if position.offset is not None and position.offset < 0:
        faults.append(((*path, "offset"), "an offset counts from 0"))
    return faults


def _check_selection(selection: Edit | Selection, path: _Path) -> list[Fault]:
    """Exactly one of find, start and end, or range; occurrence only with find."""
    forms = 0
    if selection.find is not None:
        forms += 1
        if selection.find == "":
            return [((*path, "find"), "is empty; give the text to match")]
    start, end = selection.start, selection.end
    if start is not None or end is not None:
        forms += 1
        if start is None or end is None:
            return [(path, "start and end go together; send both")]
        if start < 0 or end < start:
            return [(path, f"start {start} and end {end} do not make a range")]
    if selection.range is not None:
        forms += 1
        span = selection.range
        faults = _check_position(span.start, (*path, "range", "start"))
        faults += _check_position(span.end, (*path, "range", "end"))
        if faults:
            return faults
        if (span.start.run, span.start.offset or 0) > (span.end.run, span.end.offset or 0):
            return [((*path, "range"), "starts after it ends")]
    if forms != 1:
        return [(path, "names its text by exactly one of find, start and end, or range")]
    if selection.occurrence is not None:
        if selection.occurrence < 1:
            return [((*path, "occurrence"), "counts from 1")]
        if selection.find is None:
            return [((*path, "occurrence"), "goes with find")]
    return []


def _check_set_content(op: SetContent, path: _Path) -> tuple[Op, list[Fault]]:
    at, faults = _check_ref(op.at, (*path, "at"))
    faults += _check_if_match(op.if_match, (*path, "if_match"), absent=True)
    if op.basis is not None:
        faults += _check_revision(op.basis, (*path, "basis"))
    faults += _check_content(op.text, op.runs, path)
    faults += _check_origin(op.origin, path)
    return _with_at(op, at), faults


def _check_replace_text(op: ReplaceText, path: _Path) -> tuple[Op, list[Fault]]:
    at, faults = _check_ref(op.at, (*path, "at"))
    faults += _check_if_match(op.if_match, (*path, "if_match"), absent=False)
    if not op.edits:
        faults.append(((*path, "edits"), "has no edits; send at least one"))
    for index, edit in enumerate(op.edits):
        faults += _check_selection(edit, (*path, "edits", index))
    faults += _check_origin(op.origin, path)
    return _with_at(op, at), faults


def _check_set_attribute(op: SetAttribute, path: _Path) -> tuple[Op, list[Fault]]:
    at, faults = _check_ref(op.at, (*path, "at"))
    faults += _check_if_match(op.if_match, (*path, "if_match"), absent=False)
    faults += _need(op.code, (*path, "code"), 'code; give its id as the token <x id="…"/> shows it')
    faults += _need(op.name, (*path, "name"), "attribute")
    return _with_at(op, at), faults


def _check_mark(op: Mark, path: _Path) -> tuple[Op, list[Fault]]:
    at, faults = _check_ref(op.at, (*path, "at"))
    faults += _check_if_match(op.if_match, (*path, "if_match"), absent=False)
    selection = op.range
    selection_faults = _check_selection(selection, (*path, "range"))
    if not selection_faults:
        empty = selection.start is not None and selection.start == selection.end
        if selection.range is not None:
            span = selection.range
            empty = (span.start.run, span.start.offset or 0) == (span.end.run, span.end.offset or 0)
        if empty:
            selection_faults = [((*path, "range"), "is empty; mark wraps at least one character")]
    faults += selection_faults
    faults += _need(op.type, (*path, "type"), "type; give a vocabulary type such as fmt:bold")
    return _with_at(op, at), faults


def _check_remove_edition(op: RemoveEdition, path: _Path) -> tuple[Op, list[Fault]]:
    at, faults = _check_ref(op.at, (*path, "at"))
    faults += _check_if_match(op.if_match, (*path, "if_match"), absent=False)
    return _with_at(op, at), faults


_ANCHOR_KINDS = ("block", "run", "range", "form")


def _check_annotate(op: Annotate, path: _Path) -> tuple[Op, list[Fault]]:
    at, faults = _check_ref(op.at, (*path, "at"))
    if op.if_match is not None:
        faults += _check_revision(op.if_match, (*path, "if_match"))
    faults += _need(op.type, (*path, "type"), "annotation type")
    anchor = op.anchor
    if anchor is not None:
        if anchor.kind not in _ANCHOR_KINDS:
            faults.append(
                (
                    (*path, "anchor", "kind"),
                    f'anchor kind "{anchor.kind}"; one of block, run, range, form',
                )
            )
        for name, position in (("start", anchor.start), ("end", anchor.end)):
            if position is not None:
                faults += _check_position(position, (*path, "anchor", name))
    return _with_at(op, at), faults


def _check_unannotate(op: Unannotate, path: _Path) -> tuple[Op, list[Fault]]:
    at, faults = _check_ref(op.at, (*path, "at"))
    faults += _need(op.type, (*path, "type"), "annotation type")
    faults += _need(op.id, (*path, "id"), "annotation; give the id the annotation has")
    return _with_at(op, at), faults


def _canonical_keys(
    mapping: dict[str, Any], path: _Path, check: Callable[[Any, _Path], list[Fault]]
) -> tuple[dict[str, Any], list[Fault]]:
    """The map with canonical edition keys; a key that does not parse or repeats is a fault."""
    out: dict[str, Any] = {}
    faults: list[Fault] = []
    for key, value in mapping.items():
        at = (*path, key)
        try:
            canonical = EditionKey.parse(key).text
        except EditionKeyError as exc:
            faults.append((at, _edition_message(exc)))
            continue
        faults += check(value, at)
        if canonical in out:
            faults.append((at, f"names edition {canonical} a second time"))
        out[canonical] = value
    return out, faults


def _check_edition_content(content: EditionContent, path: _Path) -> list[Fault]:
    return _check_content(content.text, content.runs, path)


def _check_insert_block(op: InsertBlock, path: _Path) -> tuple[Op, list[Fault]]:
    faults = _check_doc(op.doc, path)
    if op.after is not None and op.before is not None:
        faults.append((path, "insert_block takes after or before, not both"))
    if not op.editions:
        faults.append(((*path, "editions"), "has no editions; give at least the document's own"))
    editions, more = _canonical_keys(dict(op.editions), (*path, "editions"), _check_edition_content)
    return evolve(op, editions=editions), faults + more


def _check_delete_block(op: DeleteBlock, path: _Path) -> tuple[Op, list[Fault]]:
    faults = _check_block_ref(op.at, (*path, "at"))
    if not op.if_match:
        faults.append(
            (
                (*path, "if_match"),
                "names no edition revision; send the rev you read of each edition",
            )
        )
    revisions, more = _canonical_keys(dict(op.if_match), (*path, "if_match"), _check_revision)
    return evolve(op, if_match=revisions), faults + more


def _check_native(op: Native, path: _Path) -> tuple[Op, list[Fault]]:
    faults = _check_doc(op.doc, path)
    if not _DIGEST.fullmatch(op.if_match):
        faults.append(
            (
                (*path, "if_match"),
                f'"{op.if_match}" is not a document digest: send the head a read reported '
                "(sha256: and 64 lowercase hex digits)",
            )
        )
    faults += _need(op.name, (*path, "name"), "operation")
    return op, faults


_OUTCOMES = ("establish", "reject", "withdraw", "advise")


def _check_decide(op: Decide, path: _Path) -> tuple[Op, list[Fault]]:
    at, faults = _check_ref(op.at, (*path, "at"))
    faults += _check_if_match(op.if_match, (*path, "if_match"), absent=False)
    if op.outcome not in _OUTCOMES:
        faults.append(
            ((*path, "outcome"), f'outcome "{op.outcome}"; one of {", ".join(_OUTCOMES)}')
        )
    if op.score is not None and not 0 <= op.score <= 100:
        faults.append(((*path, "score"), f"score {op.score} is outside 0 to 100"))
    return _with_at(op, at), faults


def _check_term(op: Term, path: _Path) -> tuple[Op, list[Fault]]:
    faults: list[Fault] = []
    if op.action not in ("upsert", "delete"):
        faults.append(((*path, "action"), f'action "{op.action}"; one of upsert, delete'))
    faults += _need(op.term, (*path, "term"), "term")
    if op.locale is not None:
        try:
            op = evolve(op, locale=canonical_locale(op.locale))
        except EditionKeyError as exc:
            faults.append(((*path, "locale"), f"{exc}; give a language tag such as en or pt-BR"))
    return op, faults


def _check_memory(op: Memory, path: _Path) -> tuple[Op, list[Fault]]:
    faults: list[Fault] = []
    if op.action not in ("add", "delete"):
        faults.append(((*path, "action"), f'action "{op.action}"; one of add, delete'))
    sides = {}
    for name, side in (("from", op.from_), ("to", op.to)):
        try:
            sides[name] = evolve(side, edition=EditionKey.parse(side.edition).text)
        except EditionKeyError as exc:
            faults.append(((*path, name, "edition"), _edition_message(exc)))
            sides[name] = side
    return evolve(op, from_=sides["from"], to=sides["to"]), faults


def _check_recipe(op: Recipe, path: _Path) -> tuple[Op, list[Fault]]:
    return op, _need(op.path, (*path, "path"), "recipe field; give its dotted path")


_CHECKS: dict[type, Callable[[Any, _Path], tuple[Op, list[Fault]]]] = {
    SetContent: _check_set_content,
    ReplaceText: _check_replace_text,
    SetAttribute: _check_set_attribute,
    Mark: _check_mark,
    RemoveEdition: _check_remove_edition,
    Annotate: _check_annotate,
    Unannotate: _check_unannotate,
    InsertBlock: _check_insert_block,
    DeleteBlock: _check_delete_block,
    Native: _check_native,
    Decide: _check_decide,
    Term: _check_term,
    Memory: _check_memory,
    Recipe: _check_recipe,
}


# ---------------------------------------------------------------------------
# Our own replies, read back (for tools that keep results and pages).


def _reply(data: str | bytes) -> Any:
    try:
        return json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise _invalid((), f"not JSON: {exc}") from None


def decode_result(data: str | bytes) -> Result:
    """Read a ``kapi.change-result/v1`` back; a refusal is a :class:`ChangeError`."""
    try:
        return structure_result(_reply(data))
    except WireFault as fault:
        path, message = fault.faults[0]
        raise _invalid(path, message) from None


def decode_read_page(data: str | bytes) -> ReadPage:
    """Read a read page back; a refusal is a :class:`ChangeError`."""
    try:
        return structure_read_page(_reply(data))
    except WireFault as fault:
        path, message = fault.faults[0]
        raise _invalid(path, message) from None
