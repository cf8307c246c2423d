"""JSON catalogues (flat, nested, i18next, ICU) and Flutter ARB, read and written by splicing.

The scanner (:mod:`kapi.formats.jsonscan`) records where every token sits; every string value becomes a block and the writer re-renders only
the values whose runs changed, escaped the way the file escapes, so an
untouched catalogue comes back byte for byte. Blocks may also be added or
removed (``insert_block`` / ``delete_block``): the writer adds or drops the
member and its comma in the file's own indentation and separator style.

Names. A block's ``name`` is its key path. In a *flat* file (no object below
the root) it is the key as written (``"home.title"``); in a nested file the
keys are joined with ``.`` and a key's own ``\\``, ``.`` and ``[`` are escaped
with a backslash (``errors.field\\.required``). Array items add ``[index]``
(``countries.US[0]``). The block ``id`` is the name (``#2``, ``#3`` appended
when two values share one); a root that is a single string is ``$``.

Values. Numbers, booleans and null are not content: they stay in the
skeleton. Whether values are ICU MessageFormat is decided per file: in an ARB
file, or one where any value holds an ICU plural/select (``{n, plural, ...}``),
every value is read as ICU (:mod:`kapi.formats.icu`: ``''`` is an apostrophe,
``'{x}'`` literal text); elsewhere, and for a value that does not parse as
ICU, a value is plain text where ``{{x}}`` and ``$t(key)`` (i18next) and
``{name}`` are placeholder codes. An edit that would flip the file between the
two (the first plural added, the last removed) is written only if every other
value still reads the same.
i18next v4 plural siblings (``key_one``, ``key_other``, … with ``key_other``
present and no ``key`` beside them) fold into one block named ``key`` whose
source is one Plural (pivot ``count``); editing a form rewrites just that
sibling, adding or removing a form adds or removes the sibling. A new plural
block on ``count`` is written as siblings where the file already has some, or
where the file holds no ICU plural and the plural or another value has an
i18next code (``{{x}}``, ``$t(key)``): a translation file lacking the plural
keys of its i18next source gets them the source's way; elsewhere it is an ICU
message.

ARB. ``@@locale`` gives the document's locale (a ``.json`` file with
``@@locale`` at its root is read the same way); ``@key`` metadata are not
blocks and are kept verbatim, ``@key.description`` becomes the block's
``properties["note"]``; deleting a block deletes its ``@key`` too.

Duplicate keys. As ``JSON.parse`` does, the last member with a key wins: it is
the block; the earlier ones are shadowed, kept verbatim and not exposed.

Writing. Escapes follow the file: non-ASCII written as ``\\u00e9`` when the
file escapes non-ASCII and has no raw non-ASCII in its strings (hex case
kept), else raw UTF-8; ``<``, ``>``, ``&`` as ``\\u003c`` when the file does
so; ``/`` as ``\\/`` when the value did (for a new value: when the file does);
``"``, ``\\``, control characters and lone surrogates always. A new value must
read back as the runs it was written from, or the writer refuses
(``WriteRefused``, capability ``escape``: plain values have no way to write a
literal ``{name}``). A new block (no span in the skeleton) is inserted after the
block named by ``properties["insert_after"]`` (or before
``properties["insert_before"]``) when that block sits in the same object, else
at the end of the object its name points into; missing parent objects are
created. A document with no skeleton is written from scratch as a flat file.

Limits (``Limits``): ``max_bytes`` of input, ``max_depth`` nesting of
arrays/objects and ``max_entries`` members plus array items, each refused with
``budget_exceeded``; malformed JSON (trailing commas, comments, bad escapes,
unterminated strings, invalid UTF-8) is ``invalid`` with line and column.
UTF-8; UTF-16 and UTF-32 are read from a BOM or, without one, from the NUL
pattern of the first bytes (RFC 4627), and written back the same way. CRLF
newlines are kept.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left
from collections.abc import Callable, Mapping
from typing import Any, TypeAlias

from kapi.core.edition import EditionKeyError, canonical_locale
from kapi.core.format import DEFAULT_LIMITS, FormatError, Limits, WriteRefused
from kapi.core.model import (
    Block,
    Document,
    PcClose,
    PcOpen,
    Ph,
    Plural,
    Runs,
    Select,
    Text,
    text_block,
)
from kapi.formats import icu
from kapi.formats.common import UNICODE, encode_or_refuse, gc_paused
from kapi.formats.json_values import parse_value as _parse_value
from kapi.formats.json_values import structured as _structured
from kapi.formats.jsonscan import (
    EscapeStyle,
    JsonArray,
    JsonContainer,
    JsonMember,
    JsonNode,
    JsonObject,
    JsonString,
    ScanStats,
    entries,
    escape_json,
    scan,
)
from kapi.formats.skeleton import Span, TextSkeleton, decode_text

__all__ = ["ArbFormat", "JsonFormat", "JsonSkeleton"]

# --- names -------------------------------------------------------------------------------

Segment: TypeAlias = str | int


def _escape_key(key: str) -> str:
    if "\\" not in key and "." not in key and "[" not in key:
        return key
    return key.replace("\\", "\\\\").replace(".", "\\.").replace("[", "\\[")


def _child_name(name: str, depth: int, segment: Segment, flat: bool) -> str:
    """``_join((*path, segment), flat)``, given ``name = _join(path, flat)`` and ``len(path)``."""
    if isinstance(segment, int):
        return f"{name}[{segment}]"
    if flat:
        return name + segment
    return f"{name}.{_escape_key(segment)}" if depth else _escape_key(segment)


def _join(path: tuple[Segment, ...], flat: bool) -> str:
    out: list[str] = []
    for segment in path:
        if isinstance(segment, int):
            out.append(f"[{segment}]")
        elif flat:
            out.append(segment)
        else:
            if out:
                out.append(".")
            out.append(_escape_key(segment))
    return "".join(out)


_INDEX_TAIL = re.compile(r"((?:\[[0-9]+\])+)$")
_INDEX = re.compile(r"\[([0-9]+)\]")


def _split(name: str, flat: bool) -> tuple[Segment, ...]:
    """The key path a name stands for (the inverse of :func:`_join`)."""
    if flat:
        tail = _INDEX_TAIL.search(name)
        if tail is None or tail.start() == 0:
            return (name,)
        indexes = [int(i) for i in re.findall(r"\[([0-9]+)\]", tail.group())]
        return (name[: tail.start()], *indexes)
    segments: list[Segment] = []
    current: list[str] = []
    open_key = True  # a key segment starts here (after the start or a dot), maybe empty
    index = 0
    while index < len(name):
        char = name[index]
        if char == "\\" and index + 1 < len(name):
            current.append(name[index + 1])
            index += 2
            continue
        if char == ".":
            if current or open_key:
                segments.append("".join(current))
            current, open_key = [], True
            index += 1
            continue
        bracket = _INDEX.match(name, index) if char == "[" else None
        if bracket is not None:
            if current or (open_key and index > 0):
                segments.append("".join(current))
            segments.append(int(bracket.group(1)))
            current, open_key = [], False
            index = bracket.end()
            continue
        current.append(char)
        index += 1
    if current or open_key:
        segments.append("".join(current))
    return tuple(segments)


# --- the skeleton ------------------------------------------------------------------------


class _Value:
    """One JSON string a block was read from, and the runs read there."""

    __slots__ = ("block_id", "form", "layouts", "node", "runs")

    def __init__(
        self,
        block_id: str,
        node: JsonString,
        runs: Runs,
        form: str = "",  # the i18next plural form this sibling holds
        layouts: tuple[icu.StructureLayout, ...] = (),
    ) -> None:
        self.block_id = block_id
        self.node = node
        self.runs = runs
        self.form = form
        self.layouts = layouts


class _Place:
    """An item (member or array element) that belongs to a block."""

    __slots__ = ("container", "index")

    def __init__(self, container: JsonContainer, index: int) -> None:
        self.container = container
        self.index = index


class JsonSkeleton:
    """What the JSON writer needs: the text, the tree, and where each block's values are.

    It is made from the text the first time one of its fields is asked for: a
    read that only shows the blocks (``kapi inspect``) never scans the text for
    positions, and a write scans it once, the way the read found the blocks.
    """

    __slots__ = (
        "_located",
        "_plan",
        "arb",
        "flat",
        "folded",
        "icu",
        "indent_unit",
        "key_separator",
        "names",
        "newline",
        "places",
        "pretty",
        "root",
        "source",
        "style",
        "values",
    )

    source: TextSkeleton
    root: JsonNode
    values: tuple[_Value, ...]
    places: Mapping[str, tuple[_Place, ...]]
    names: Mapping[str, str]
    folded: frozenset[str]
    style: EscapeStyle
    flat: bool
    arb: bool
    icu: bool
    pretty: bool
    indent_unit: str
    key_separator: str
    newline: str

    def __init__(self, plan: _Plan) -> None:
        self._plan: _Plan | None = plan
        self._located: TextSkeleton | None = None

    def __getattr__(self, name: str) -> object:
        # Reached only for a field not made yet (a slot never set).
        plan = object.__getattribute__(self, "_plan")
        if plan is not None and not name.startswith("_"):
            with gc_paused():
                self._make(plan)
            self._plan = None
            return getattr(self, name)
        if name == "places" and plan is None:
            # a file read one block a string value: its places are found the first time
            # they are asked for (a write that adds or deletes a block)
            places = self.places = _places_of(self.root, self.values)
            return places
        raise AttributeError(name)

    def _make(self, plan: _Plan) -> None:
        text, encoding, bom, path, limits, arb, locale, read, light, shape = plan
        icu_file, flat, simple = shape
        root, stats = scan(text, path, limits)
        values = _values_in_order(root, read, icu_file) if simple else None
        if values is not None:
            # one value a block, in the order of the blocks; places are left to __getattr__
            self.values = values
            self.names = {block.id: block.name for block in read}
            self.folded = frozenset()
        else:
            reader = _Reader(light, arb, locale, text, exact=root, read=read)
            reader.read()
            self.values = tuple(reader.values)
            self.places = {key: tuple(value) for key, value in reader.places.items()}
            self.names = dict(reader.names)
            self.folded = frozenset(reader.folded)
        self.source = TextSkeleton(text=text, encoding=encoding, bom=bom)
        self.root = root
        self.style = _style(stats)
        self.flat = flat
        self.arb = arb
        self.icu = icu_file
        self.pretty, self.indent_unit, self.key_separator = _layout(text, root)
        self.newline = "\r\n" if "\r\n" in text else "\n"

    def located(self) -> TextSkeleton:
        """The text with the span of each value, for placing runs and lines in it."""
        if self._located is None:
            source = self.source
            self._located = TextSkeleton(
                text=source.text,
                encoding=source.encoding,
                bom=source.bom,
                spans=tuple(
                    Span(
                        value.block_id,
                        value.node.start + 1,
                        value.node.end - 1,
                        value.runs,
                        kind=f"form:{value.form}" if value.form else "value",
                    )
                    for value in self.values
                ),
            )
        return self._located


def _values_in_order(
    root: JsonNode, read: tuple[Block, ...], icu_file: bool
) -> tuple[_Value, ...] | None:
    """The values of a file read one block a string value, in order (no ARB, no repeated key,
    no folded plural), each beside its block; ``None`` when they do not pair up."""
    strings: list[JsonString] = []
    add = strings.append
    stack: list[JsonNode] = [root]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is JsonString:
            add(node)  # type: ignore[arg-type]
        elif kind is JsonObject:
            stack.extend(reversed([member.value for member in node.members]))  # type: ignore[union-attr]
        elif kind is JsonArray:
            stack.extend(reversed(node.items))  # type: ignore[union-attr]
    if len(strings) != len(read):
        return None
    values: list[_Value] = []
    add_value = values.append
    for block, node in zip(read, strings):
        runs = block.source
        value = node.value
        if (
            len(runs) == 1
            and type(runs[0]) is Text
            and runs[0].text == value
            and "{" not in value
            and "$t(" not in value
            and not (icu_file and "'" in value)
        ):
            add_value(_Value(block.id, node, runs))
            continue
        parsed, layouts = _parse_value(value, icu_file)
        if parsed != runs:
            return None
        add_value(_Value(block.id, node, runs, "", layouts))
    return tuple(values)


def _places_of(root: JsonNode, values: tuple[_Value, ...]) -> dict[str, tuple[_Place, ...]]:
    """Where each value of a file read one block a string value sits in its container
    (none for a root string)."""
    places: dict[int, _Place] = {}
    stack: list[JsonNode] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, JsonObject):
            children = [member.value for member in node.members]
        elif isinstance(node, JsonArray):
            children = node.items
        else:
            continue
        for index, child in enumerate(children):
            if isinstance(child, JsonString):
                places[id(child)] = _Place(node, index)
            else:
                stack.append(child)
    out: dict[str, tuple[_Place, ...]] = {}
    for value in values:
        place = places.get(id(value.node))
        out[value.block_id] = (place,) if place is not None else ()
    return out


# What a skeleton is made from: text, encoding, BOM, path, limits, ARB, the document's locale,
# the blocks it was read as, the light tree they were read from, and what the read found of
# its shape: whether the file is ICU, flat, and read one block a string value in order.
_Plan: TypeAlias = tuple[
    str, str, bytes, str, Limits, bool, str, tuple[Block, ...], Any, tuple[bool, bool, bool]
]


# --- the light tree ----------------------------------------------------------------------
#
# Blocks are read from a tree the standard library's C decoder builds: a string is a str,
# an array a list, an object a _Object (its members in order, a repeated key kept), and
# every other value None or a bool. Only text the exact scanner (:mod:`kapi.formats.jsonscan`)
# accepts within the limits is read this way; for anything else the exact scanner reads
# the text, so an error names its line and column as before, and its tree is made light.


class _Object:
    """An object of the light tree: its members as ``(key, value)`` pairs, in order."""

    __slots__ = ("members",)

    def __init__(self, members: list[tuple[str, Any]]) -> None:
        self.members = members


def _not_content(_text: str) -> None:
    return None  # a number: not content, and never converted


def _not_json(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


_DECODER = json.JSONDecoder(
    object_pairs_hook=_Object,
    parse_int=_not_content,
    parse_float=_not_content,
    parse_constant=_not_json,
)


def _light_tree(text: str, path: str, limits: Limits) -> Any:
    """The light tree of ``text``; FormatError (with line and column) when it is not JSON."""
    try:
        root = _DECODER.decode(text)
    except (ValueError, RecursionError):
        pass
    else:
        if _within(root, limits):
            return root
    exact, _ = scan(text, path, limits)  # raises, naming where
    return _lighten(exact)


def _within(root: Any, limits: Limits) -> bool:
    """Whether the tree keeps to ``max_depth`` nesting and ``max_entries`` entries."""
    max_depth = limits.max_depth
    budget = limits.max_entries
    stack: list[tuple[Any, int]] = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        kind = type(node)
        if kind is not _Object and kind is not list:
            continue
        if depth > max_depth:
            return False
        children = [value for _, value in node.members] if kind is _Object else node
        budget -= len(children)
        if budget < 0:
            return False
        for child in children:
            if type(child) is _Object or type(child) is list:
                stack.append((child, depth + 1))
    return True


def _lighten(node: JsonNode) -> Any:
    """The light tree of a tree the exact scanner made."""
    if isinstance(node, JsonString):
        return node.value
    if isinstance(node, JsonObject):
        return _Object([(member.key.value, _lighten(member.value)) for member in node.members])
    if isinstance(node, JsonArray):
        return [_lighten(item) for item in node.items]
    return None


# --- reading -----------------------------------------------------------------------------

_PLURAL_KEY = re.compile(r"^(.+)_(zero|one|two|few|many|other)$")
_CLDR_ORDER = ("zero", "one", "two", "few", "many", "other")
# A JSON block has no editions and, outside ARB, no properties: every such block shares
# one empty mapping (the model is frozen; nothing changes a block's mappings in place).
_NONE: Mapping[str, Any] = {}


def _own_locale(*candidates: str) -> str:
    for candidate in candidates:
        if not candidate:
            continue
        try:
            return canonical_locale(candidate)
        except EditionKeyError:
            continue
    return "en"


def _branches(run: object) -> list[Runs]:
    if isinstance(run, Plural):
        return list(run.forms.values())
    if isinstance(run, Select):
        return list(run.cases.values())
    return []


def _is_icu_file(root: Any, arb: bool, text: str) -> bool:
    """ARB, or any string value holding an ICU plural/select that parses."""
    if arb:
        return True
    if "plural" not in text and "select" not in text and "\\u" not in text:
        # Only a \u escape can spell a keyword the raw text does not show.
        return False
    stack: list[Any] = [root]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is _Object:
            stack.extend(value for _, value in node.members)
        elif kind is list:
            stack.extend(node)
        elif kind is str and icu.has_complex_argument(node):
            try:
                if _structured(icu.parse(node).runs):
                    return True
            except icu.IcuSyntaxError:
                continue
    return False


def _has_object(node: Any) -> bool:
    kind = type(node)
    if kind is _Object:
        return True
    if kind is list:
        return any(_has_object(item) for item in node)
    return False


def _is_flat(root: Any, arb: bool) -> bool:
    """No object below the root object (an ARB file's ``@key`` metadata aside)."""
    if type(root) is not _Object:
        return False
    for key, value in root.members:
        if type(value) is not str and _has_object(value) and not (arb and key.startswith("@")):
            return False
    return True


class _Reader:
    """Walks the light tree into blocks; with the exact tree beside it (``exact``), also
    into the values and the places a block occupies, for the skeleton."""

    def __init__(
        self,
        root: Any,
        arb: bool,
        locale: str,
        text: str,
        exact: JsonNode | None = None,
        read: tuple[Block, ...] = (),
    ) -> None:
        self.root = root
        self.exact = exact
        self.record = exact is not None
        # the blocks the document was read with: the skeleton's values hold their very runs,
        # so the writer and the read-back tell an untouched block by identity
        self.read_runs = {block.id: block.source for block in read}
        self.arb = arb
        self.icu = _is_icu_file(root, arb, text)
        self.locale = locale
        self.flat = _is_flat(root, arb)
        # one block a string value, in document order: no ARB, repeated key or folded plural
        self.simple = not arb
        self.blocks: list[Block] = []
        self.values: list[_Value] = []
        self.places: dict[str, list[_Place] | tuple[_Place, ...]] = {}
        self.names: dict[str, str] = {}
        self.folded: set[str] = set()
        self.notes: dict[str, str] = {}
        self.meta: dict[str, int] = {}
        self.seen: set[str] = set()

    def read(self) -> None:
        root = self.root
        if type(root) is _Object and self.arb:
            for index, (key, value) in enumerate(root.members):
                if key.startswith("@") and not key.startswith("@@"):
                    self.meta[key[1:]] = index
                    note = _description(value)
                    if note is not None:
                        self.notes[key[1:]] = note
        self.walk(root, self.exact, 0, "", "")

    def new_id(self, name: str) -> str:
        base = name or "$"
        candidate = base
        counter = 1
        while candidate in self.seen:
            counter += 1
            candidate = f"{base}#{counter}"
        self.seen.add(candidate)
        return candidate

    # A value's key path is told by its depth (the path's length), its last segment and
    # its name (the path joined). ``exact`` is the exact tree's node where ``node`` is,
    # when the reader records places.

    def walk(self, node: Any, exact: Any, depth: int, segment: Segment, name: str) -> None:
        kind = type(node)
        if kind is str:
            self.string(node, exact, depth, segment, name, None)
        elif kind is list:
            flat = self.flat
            record = self.record
            for index, item in enumerate(node):
                child = _child_name(name, depth, index, flat)
                inner = exact.items[index] if record else None
                if type(item) is str:
                    place = _Place(exact, index) if record else None
                    self.string(item, inner, depth + 1, index, child, place)
                else:
                    self.walk(item, inner, depth + 1, index, child)
        elif kind is _Object:
            self.object(node, exact, depth, name)

    def object(self, node: _Object, exact: Any, depth: int, name: str) -> None:
        flat = self.flat
        record = self.record
        arb = self.arb
        members = node.members
        keys = dict(members)
        # Where a key is repeated only its last member counts: ``last`` says which that is.
        last = (
            {key: index for index, (key, _) in enumerate(members)}
            if len(keys) != len(members)
            else None
        )
        groups: dict[str, dict[str, int]] = {}
        if not arb:
            for key, index in (
                last.items() if last is not None else ((k, i) for i, (k, _) in enumerate(members))
            ):
                if "_" not in key:
                    continue
                match = _PLURAL_KEY.match(key)
                if match is not None and type(members[index][1]) is str:
                    groups.setdefault(match.group(1), {})[match.group(2)] = index
        folded = {
            base: forms for base, forms in groups.items() if "other" in forms and base not in keys
        }
        owner = {index: base for base, forms in folded.items() for index in forms.values()}
        if last is not None or owner:
            self.simple = False
        emitted: set[str] = set()
        arb_root = arb and not depth
        # Without places to record or ARB notes, a string value is made a block right here.
        light = not record and not arb
        icu_file = self.icu
        seen = self.seen
        add_block = self.blocks.append
        locale = self.locale
        for index, (key, value) in enumerate(members):
            if last is not None and last[key] != index:
                continue  # shadowed by a later member with the same key
            if arb_root and key.startswith("@"):
                continue
            if owner:
                base = owner.get(index)
                if base is not None:
                    if base not in emitted:
                        emitted.add(base)
                        child = _child_name(name, depth, base, flat)
                        self.plural(node, exact, child, folded[base])
                    continue
            child = name + key if flat else _child_name(name, depth, key, flat)
            if light and type(value) is str:
                if child and child not in seen:
                    seen.add(child)
                    block_id = child
                else:
                    block_id = self.new_id(child)
                if "{" not in value and "$t(" not in value and not (icu_file and "'" in value):
                    runs: Runs = (Text(value),) if value else ()
                else:
                    runs = _parse_value(value, icu_file)[0]
                add_block(text_block(block_id, runs, child, locale))
                continue
            inner = exact.members[index].value if record else None
            if type(value) is str:
                place = _Place(exact, index) if record else None
                self.string(value, inner, depth + 1, key, child, place)
            else:
                self.walk(value, inner, depth + 1, key, child)

    def place_list(self, block_id: str, depth: int, segment: Segment) -> list[_Place]:
        places: list[_Place] = []
        self.places[block_id] = places
        if self.arb and depth == 1 and isinstance(self.exact, JsonObject):
            meta = self.meta.get(str(segment))
            if meta is not None:
                places.append(_Place(self.exact, meta))
        return places

    def properties(self, depth: int, segment: Segment) -> Mapping[str, str]:
        if self.arb and depth == 1:
            note = self.notes.get(str(segment))
            if note is not None:
                return {"note": note}
        return _NONE

    def string(
        self,
        value: str,
        node: JsonString | None,
        depth: int,
        segment: Segment,
        name: str,
        place: _Place | None,
    ) -> None:
        if name and name not in self.seen:
            self.seen.add(name)
            block_id = name
        else:
            block_id = self.new_id(name)
        runs: Runs
        layouts: tuple[icu.StructureLayout, ...]
        if self.record:
            # The skeleton's read: the values and places only (the blocks were read before).
            assert node is not None
            known = self.read_runs.get(block_id)
            if (
                known is not None
                and len(known) == 1
                and type(known[0]) is Text
                and known[0].text == value
                and "{" not in value
                and "$t(" not in value
                and not (self.icu and "'" in value)
            ):
                runs, layouts = known, ()  # plain text, read the same way before
            else:
                runs, layouts = _parse_value(value, self.icu)
                if known is not None and known == runs:
                    runs = known
            self.values.append(_Value(block_id, node, runs, "", layouts))
            if self.arb:
                places = self.place_list(block_id, depth, segment)
                if place is not None:
                    places.insert(0, place)
            else:
                self.places[block_id] = (place,) if place is not None else ()
            self.names[block_id] = name
            return
        runs, layouts = _parse_value(value, self.icu)
        self.blocks.append(
            Block(
                id=block_id,
                source=runs,
                name=name,
                locale=self.locale,
                targets=_NONE,
                properties=self.properties(depth, segment) if self.arb else _NONE,
            )
        )

    def plural(self, node: _Object, exact: Any, name: str, forms: dict[str, int]) -> None:
        block_id = self.new_id(name)
        branches: dict[str, Runs] = {}
        places: list[_Place] = []
        for form in sorted(forms, key=_CLDR_ORDER.index):
            index = forms[form]
            value = node.members[index][1]
            assert type(value) is str
            runs, layouts = _parse_value(value, self.icu)
            branches[form] = runs
            if self.record:
                self.values.append(
                    _Value(block_id, exact.members[index].value, runs, form, layouts)
                )
                places.append(_Place(exact, index))
        if self.record:
            self.places[block_id] = places
            self.names[block_id] = name
            self.folded.add(block_id)
        self.blocks.append(
            Block(
                id=block_id,
                source=(Plural(pivot="count", forms=branches),),
                name=name,
                locale=self.locale,
                targets=_NONE,
                properties=_NONE,
            )
        )


def _read_runs(values: list[_Value] | None) -> Runs | None:
    """The runs read for a block that is not a folded plural (``None``: a new block)."""
    return values[0].runs if values else None


def _description(node: Any) -> str | None:
    if type(node) is _Object:
        for key, value in reversed(node.members):
            if key == "description" and type(value) is str:
                return value
    return None


def _line_indent(text: str, index: int) -> str:
    start = text.rfind("\n", 0, index) + 1
    match = re.match(r"[ \t]*", text[start:index])
    return match.group() if match else ""


def _layout(text: str, root: JsonNode) -> tuple[bool, str, str]:
    """(pretty, indent unit, key separator) as the file writes them."""
    pretty = "\n" in text[root.start : root.end]
    unit = ""
    separator = ""
    stack: list[JsonNode] = [root]
    while stack and not (unit and separator):
        node = stack.pop(0)
        if not isinstance(node, JsonObject | JsonArray):
            continue
        items = entries(node)
        if not items:
            continue
        if not separator and isinstance(node, JsonObject):
            member = node.members[0]
            separator = text[member.key.end : member.value.start]
        lead = text[node.start + 1 : items[0].start]
        if not unit and "\n" in lead:
            inner = lead.rsplit("\n", 1)[1]
            outer = _line_indent(text, node.start)
            if inner.startswith(outer) and len(inner) > len(outer):
                unit = inner[len(outer) :]
        for item in items:
            stack.append(item.value if isinstance(item, JsonMember) else item)
    return pretty, unit or "  ", separator or ": "


def _style(stats: ScanStats) -> EscapeStyle:
    return EscapeStyle(
        ascii=stats.escaped_non_ascii > 0 and not stats.raw_non_ascii,
        upper_hex=stats.upper_hex > stats.lower_hex,
        html=stats.escaped_html > 0 and not stats.raw_html,
        slash=stats.escaped_slash > 0 and not stats.raw_slash,
    )


# --- writing -----------------------------------------------------------------------------


class _NewItem:
    """A member or array item the writer adds: key path below the container, value text.

    A new object that several new values share (``a.new.x`` and ``a.new.y``)
    is one item whose ``children`` are its members, so its key is written once.
    """

    __slots__ = ("children", "keys", "value")

    def __init__(self, keys: tuple[str, ...], value: str) -> None:
        self.keys = keys
        self.value = value
        self.children: list[_NewItem] | None = None

    def add(self, keys: tuple[str, ...], value: str) -> _NewItem:
        """Place a value below this new object; returns the item that holds it."""
        assert self.children is not None
        if len(keys) > 1:
            for child in self.children:
                if child.children is not None and child.keys == keys[:1]:
                    return child.add(keys[1:], value)
            group = _NewItem(keys[:1], "")
            group.children = []
            self.children.append(group)
            return group.add(keys[1:], value)
        item = _NewItem(keys, value)
        self.children.append(item)
        return item


class _ContainerEdit:
    def __init__(self, node: JsonContainer) -> None:
        self.node = node
        self.deleted: set[int] = set()
        # after which original item (-1: before the first) the new items go, in order
        self.inserts: dict[int, list[_NewItem]] = {}


Producer: TypeAlias = Callable[[], str]


class _Writer:
    def __init__(self, skeleton: JsonSkeleton, document: Document) -> None:
        self.skeleton = skeleton
        self.document = document
        self.text = skeleton.source.text
        self.edits: list[tuple[int, int, str | Producer]] = []
        self.containers: dict[int, _ContainerEdit] = {}
        self.new_items: dict[str, tuple[_ContainerEdit, int, _NewItem]] = {}
        self.starts: list[int] = []
        self.icu = skeleton.icu

    # the plan

    def write(self) -> bytes:
        skeleton = self.skeleton
        by_id: dict[str, Block] = {}
        for block in self.document.blocks:
            if block.targets:
                raise WriteRefused(
                    f"{block.ref_key}: a {self.document.format} file holds one language; "
                    f"write {', '.join(sorted(block.targets))} to its own file",
                    capability="edition",
                    block=block.ref_key,
                )
            by_id[block.id] = block
        values_by_block: dict[str, list[_Value]] = {}
        for value in skeleton.values:
            values_by_block.setdefault(value.block_id, []).append(value)
        blocks = self.document.blocks
        if not skeleton.icu:
            # No value of a file that is not ICU was read as a plural or select: only a block
            # whose runs are not those read (new or edited) can make it ICU.
            blocks = tuple(
                block
                for block in blocks
                if block.id in skeleton.folded
                or block.source is not _read_runs(values_by_block.get(block.id))
            )
        # Whether values are ICU is decided per file; an edit may make the file ICU or not.
        self.icu = skeleton.arb or any(
            any(_structured(runs) for run in block.source for runs in _branches(run))
            if block.id in skeleton.folded or self.sibling_plural(block)
            else _structured(block.source)
            for block in blocks
        )
        for block_id in skeleton.names:
            if block_id not in by_id:
                self.delete(block_id)
        for block_id, values in values_by_block.items():
            current = by_id.get(block_id)
            if current is None:
                continue
            if block_id in skeleton.folded:
                self.folded(current, values)
            elif current.source is not values[0].runs and current.source != values[0].runs:
                node = values[0].node
                text = self.value_text(current, current.source, values[0])
                self.edits.append((node.start + 1, node.end - 1, text))
        for block in self.document.blocks:
            if block.id not in skeleton.names:
                self.insert(block)
        for container in self.containers.values():
            self.edits.append(
                (container.node.start + 1, container.node.end - 1, self.producer(container))
            )
        self.edits.sort(key=lambda edit: (edit[0], -edit[1]))
        self.starts = [edit[0] for edit in self.edits]
        body = self.render(0, len(self.text))
        source = skeleton.source
        data = source.bom + encode_or_refuse(body, source.encoding)
        if self.icu != skeleton.icu:
            self.verify(data)
        return data

    def verify(self, data: bytes) -> None:
        """After the file turned ICU (or stopped being), every value must still read the same."""
        codec = ArbFormat() if self.skeleton.arb else JsonFormat()
        reread = codec.read(data).blocks
        again = {block.id: block.source for block in reread}
        named = {block.name: block.source for block in reread}
        for block in self.document.blocks:
            known = block.id in self.skeleton.names
            runs = again.get(block.id) if known else named.get(block.name)
            if runs is None or _normal(runs) != _normal(block.source):
                raise WriteRefused(
                    f"{block.ref_key}: this edit changes whether the file is ICU MessageFormat, "
                    "and this value would then read differently",
                    capability="escape",
                    block=block.ref_key,
                )

    def container(self, node: JsonContainer) -> _ContainerEdit:
        edit = self.containers.get(id(node))
        if edit is None:
            edit = self.containers[id(node)] = _ContainerEdit(node)
        return edit

    def delete(self, block_id: str) -> None:
        places = self.skeleton.places.get(block_id, ())
        if not places:
            raise WriteRefused(
                f"{self.skeleton.names[block_id] or block_id}: the file's only value cannot be deleted",
                capability="delete_block",
                block=block_id,
            )
        for place in places:
            self.container(place.container).deleted.add(place.index)

    def value_text(self, block: Block, runs: Runs, value: _Value | None) -> str:
        """The escaped inside of the JSON string that holds ``runs``.

        ICU text where the file is ICU or the runs need it, else plain text; the
        first spelling that reads back as ``runs`` wins.
        """
        structured = _structured(runs)
        renderings: list[Callable[[], str]] = []
        if self.icu or structured:
            layouts = value.layouts if value is not None else ()
            renderings.append(lambda: icu.render(runs, layouts=layouts))
        if not structured:
            renderings.append(lambda: icu.render_placeholders(runs))
        failure: icu.IcuRenderError | None = None
        for rendering in renderings:
            try:
                text = rendering()
            except icu.IcuRenderError as err:
                failure = failure or err
                continue
            again, _ = _parse_value(text, self.icu)
            if _normal(again) == _normal(runs):
                break
        else:
            if failure is not None:
                raise WriteRefused(
                    f"{block.ref_key}: {failure.message}",
                    capability=failure.capability,
                    block=block.ref_key,
                )
            raise WriteRefused(
                f"{block.ref_key}: {text!r} would read back as different content "
                "(a plain JSON value cannot hold a literal placeholder such as '{name}')",
                capability="escape",
                block=block.ref_key,
            )
        slash = self.skeleton.style.slash
        if value is not None:
            raw = self.text[value.node.start + 1 : value.node.end - 1]
            if "\\/" in raw:
                slash = True
            elif "/" in raw:
                slash = False
        return escape_json(text, self.skeleton.style, slash)

    def folded(self, block: Block, values: list[_Value]) -> None:
        runs = block.source
        if runs == (Plural(pivot="count", forms={v.form: v.runs for v in values}),):
            return
        plural = runs[0] if len(runs) == 1 else None
        if not isinstance(plural, Plural) or plural.pivot != "count":
            raise WriteRefused(
                f"{block.ref_key}: an i18next plural must stay one plural on 'count'",
                capability="plural",
                block=block.ref_key,
            )
        unknown = [form for form in plural.forms if form not in _CLDR_ORDER]
        if unknown or "other" not in plural.forms:
            raise WriteRefused(
                f"{block.ref_key}: i18next plural keys exist only for the CLDR forms "
                f"{', '.join(_CLDR_ORDER)} and need 'other'",
                capability="plural",
                block=block.ref_key,
            )
        by_form = {value.form: value for value in values}
        places = {value.form: place for value, place in zip(values, self.skeleton.places[block.id])}
        for form, value in by_form.items():
            if form not in plural.forms:
                place = places[form]
                self.container(place.container).deleted.add(place.index)
            elif plural.forms[form] != value.runs:
                node = value.node
                text = self.value_text(block, plural.forms[form], value)
                self.edits.append((node.start + 1, node.end - 1, text))
        first = places[values[0].form]
        container = first.container
        assert isinstance(container, JsonObject)
        base = container.members[first.index].key.value.rsplit("_", 1)[0]
        # A new form goes right after the nearest earlier form (CLDR order), else first.
        after_of = {form: place.index for form, place in places.items()}
        for form in _CLDR_ORDER:
            if form not in plural.forms or form in by_form:
                continue
            earlier = [f for f in _CLDR_ORDER[: _CLDR_ORDER.index(form)] if f in after_of]
            if earlier:
                after = after_of[earlier[-1]]
            else:
                after = min(after_of.values()) - 1
            item = _NewItem((f"{base}_{form}",), self.quoted(block, plural.forms[form]))
            self.container(container).inserts.setdefault(after, []).append(item)
            after_of[form] = after

    def quoted(self, block: Block, runs: Runs) -> str:
        return '"' + self.value_text(block, runs, None) + '"'

    def insert(self, block: Block) -> None:
        skeleton = self.skeleton
        name = block.name
        if not name:
            raise WriteRefused(
                f"{block.id}: a new JSON value needs a name (its key path)",
                capability="insert_block",
                block=block.id,
            )
        path = _split(name, skeleton.flat)
        container, rest = self.locate(block, path)
        if isinstance(container, JsonArray):
            if not isinstance(rest[0], int) or any(isinstance(s, int) for s in rest[1:]):
                raise self.refuse_path(block, "an array takes items, not keys")
            keys: tuple[str, ...] = tuple(str(s) for s in rest[1:])
            if keys:
                raise self.refuse_path(block, "an array item cannot be created with keys")
        else:
            if any(isinstance(s, int) for s in rest):
                raise self.refuse_path(block, "arrays are not created by inserting a value")
            keys = tuple(str(s) for s in rest)
        source = block.source
        plural = source[0] if source else None
        if self.sibling_plural(block) and isinstance(plural, Plural):
            if not keys:
                raise self.refuse_path(block, "an i18next plural needs a key")
            parents, base = keys[:-1], keys[-1]
            siblings = [
                (f"{base}_{form}", self.quoted(block, runs))
                for form, runs in sorted(
                    plural.forms.items(), key=lambda f: _CLDR_ORDER.index(f[0])
                )
            ]
            if parents:
                # The plural's object is new too: its siblings go into it, created once.
                group = self.new_object(container, parents[0])
                if group is not None:
                    for key, value in siblings:
                        group.add((*parents[1:], key), value)
                    return
                group = _NewItem(parents[:1], "")
                group.children = []
                for key, value in siblings:
                    group.add((*parents[1:], key), value)
                items = [group]
            else:
                items = [_NewItem((key,), value) for key, value in siblings]
                taken = [i.keys[0] for i in items if self.kept(container, i.keys[0])]
                if taken:
                    raise WriteRefused(
                        f"{block.name}: the key {taken[0]!r} already exists",
                        capability="insert_block",
                        block=block.id,
                    )
        else:
            value = self.quoted(block, source)
            if len(keys) > 1:
                group = self.new_object(container, keys[0])
                if group is not None:
                    group.add(keys[1:], value)  # members of a new object go in order
                    return
                group = _NewItem(keys[:1], "")
                group.children = []
                group.add(keys[1:], value)
                items = [group]
            else:
                items = [_NewItem(keys, value)]
        edit = self.container(container)
        after, position = self.anchor(block, edit)
        bucket = edit.inserts.setdefault(after, [])
        if position is None:
            position = len(bucket)
        for offset, item in enumerate(items):
            bucket.insert(position + offset, item)
        self.new_items[name] = (edit, after, items[-1])
        self.new_items[block.id] = (edit, after, items[-1])

    def new_object(self, container: JsonContainer, key: str) -> _NewItem | None:
        """A new object this write already adds to ``container`` under ``key``."""
        edit = self.containers.get(id(container))
        if edit is None:
            return None
        for bucket in edit.inserts.values():
            for item in bucket:
                if item.children is not None and item.keys == (key,):
                    return item
        return None

    def sibling_plural(self, block: Block) -> bool:
        """Whether a new block is written as i18next plural siblings.

        So it is where the file already holds plural siblings, and in a file
        with no ICU plural where the plural or another value speaks i18next
        (``{{x}}``, ``$t(key)``): a translation file that lacks the plural
        keys of its i18next source gets them in the source's convention.
        """
        skeleton = self.skeleton
        if block.id in skeleton.names or skeleton.arb:
            return False
        plural = block.source[0] if len(block.source) == 1 else None
        if not (
            isinstance(plural, Plural)
            and plural.pivot == "count"
            and "other" in plural.forms
            and set(plural.forms) <= set(_CLDR_ORDER)
        ):
            return False
        if skeleton.folded:
            return True
        if skeleton.icu:
            return False
        return any(_i18next(runs) for runs in plural.forms.values()) or any(
            _i18next(value.runs) for value in skeleton.values
        )

    def refuse_path(self, block: Block, why: str) -> WriteRefused:
        return WriteRefused(
            f"{block.name}: cannot insert there: {why}", capability="insert_block", block=block.id
        )

    def locate(
        self, block: Block, path: tuple[Segment, ...]
    ) -> tuple[JsonContainer, tuple[Segment, ...]]:
        node = self.skeleton.root
        if not isinstance(node, JsonObject | JsonArray):
            raise self.refuse_path(block, "the file's root is not an object")
        index = 0
        while index < len(path) - 1:
            child = _child(node, path[index])
            if child is None:
                break
            if not isinstance(child, JsonObject | JsonArray):
                raise self.refuse_path(
                    block, f"{_join(path[: index + 1], self.skeleton.flat)} holds a value"
                )
            node = child
            index += 1
        rest = path[index:]
        if len(rest) == 1 and isinstance(node, JsonObject) and self.kept(node, rest[0]):
            raise WriteRefused(
                f"{block.name}: the key already exists",
                capability="insert_block",
                block=block.id,
            )
        if isinstance(rest[0], int) != isinstance(node, JsonArray):
            raise self.refuse_path(block, "the path does not match the file's structure")
        return node, rest

    def kept(self, node: JsonContainer, key: Segment) -> bool:
        """Whether ``node`` keeps a member ``key`` (one this write deletes does not count)."""
        if not isinstance(node, JsonObject):
            return False
        edit = self.containers.get(id(node))
        deleted = edit.deleted if edit is not None else set()
        return any(
            member.key.value == key and index not in deleted
            for index, member in enumerate(node.members)
        )

    def anchor(self, block: Block, edit: _ContainerEdit) -> tuple[int, int | None]:
        """After which original item the new block goes, and where among new items there."""
        last = len(entries(edit.node)) - 1
        for key, before in (("insert_after", False), ("insert_before", True)):
            reference = block.properties.get(key)
            if not reference:
                continue
            fresh = self.new_items.get(reference)
            if fresh is not None and fresh[0] is edit:
                bucket = edit.inserts[fresh[1]]
                position = bucket.index(fresh[2])
                return fresh[1], position if before else position + 1
            block_id = self._block_id(reference)
            places = [
                place.index
                for place in self.skeleton.places.get(block_id or "", ())
                if place.container is edit.node
            ]
            if places:
                return (min(places) - 1, None) if before else (max(places), 0)
        return last, None

    def _block_id(self, reference: str) -> str | None:
        if reference in self.skeleton.names:
            return reference
        for block_id, name in self.skeleton.names.items():
            if name == reference:
                return block_id
        return None

    # the rendering

    def render(self, start: int, end: int, inside: Producer | None = None) -> str:
        """The text from ``start`` to ``end`` with the edits inside it applied.

        ``inside`` is the producer of the container being rendered: in a compact
        file a member's span can equal its container's interior, whose own edit
        must not be applied again inside it.
        """
        out: list[str] = []
        cursor = start
        index = bisect_left(self.starts, start)
        while index < len(self.edits) and self.edits[index][0] < end:
            edit_start, edit_end, replacement = self.edits[index]
            index += 1
            if edit_start < cursor or edit_end > end or replacement is inside:
                continue
            out.append(self.text[cursor:edit_start])
            out.append(replacement if isinstance(replacement, str) else replacement())
            cursor = edit_end
        out.append(self.text[cursor:end])
        return "".join(out)

    def producer(self, edit: _ContainerEdit) -> Producer:
        produce: Producer = lambda: self.interior(edit, produce)  # noqa: E731
        return produce

    def interior(self, edit: _ContainerEdit, own: Producer | None = None) -> str:
        text = self.text
        node = edit.node
        items = entries(node)
        count = len(items)
        opening, closing = node.start + 1, node.end - 1
        sequence: list[int | _NewItem] = list(edit.inserts.get(-1, []))
        for index in range(count):
            if index not in edit.deleted:
                sequence.append(index)
            sequence.extend(edit.inserts.get(index, []))
        if not sequence:
            return ""
        skeleton = self.skeleton
        if count == 0:
            inside = text[opening:closing]
            if skeleton.pretty or "\n" in inside:
                outer = _line_indent(text, node.start)
                indent = outer + skeleton.indent_unit
                lead = skeleton.newline + indent
                separator = "," + lead
                trail = skeleton.newline + outer
            else:
                indent = ""
                lead = trail = ""
                separator = "," + (" " if skeleton.key_separator.endswith(" ") else "")
            separators: list[str] = []
        else:
            lead = text[opening : items[0].start]
            trail = text[items[-1].end : closing]
            separators = [text[items[i].end : items[i + 1].start] for i in range(count - 1)]
            separator = separators[0] if separators else "," + lead
            shape = lead if "\n" in lead else separator
            indent = shape.rsplit("\n", 1)[1] if "\n" in shape else ""
        parts = [lead]
        previous: int | _NewItem | None = None
        for entry in sequence:
            if previous is not None:
                if isinstance(previous, int) and previous < count - 1:
                    parts.append(separators[previous])
                else:
                    parts.append(separator)
            if isinstance(entry, int):
                parts.append(self.render(items[entry].start, items[entry].end, own))
            else:
                parts.append(self.new_text(entry, indent))
            previous = entry
        parts.append(trail)
        return "".join(parts)

    def new_text(self, item: _NewItem, indent: str) -> str:
        """A new member: a value, or a new object with its members (written once)."""
        if item.children is None:
            return self.item_text(item.keys, item.value, indent)
        skeleton = self.skeleton
        key = '"' + escape_json(item.keys[0], skeleton.style, skeleton.style.slash) + '"'
        key += skeleton.key_separator
        if not skeleton.pretty:
            return key + "{" + ",".join(self.new_text(c, indent) for c in item.children) + "}"
        inner = indent + skeleton.indent_unit
        members = ("," + skeleton.newline + inner).join(
            self.new_text(c, inner) for c in item.children
        )
        return key + "{" + skeleton.newline + inner + members + skeleton.newline + indent + "}"

    def item_text(self, keys: tuple[str, ...], value: str, indent: str) -> str:
        if not keys:
            return value
        skeleton = self.skeleton
        key = '"' + escape_json(keys[0], skeleton.style, skeleton.style.slash) + '"'
        key += skeleton.key_separator
        if len(keys) == 1:
            return key + value
        if not skeleton.pretty:
            return key + "{" + self.item_text(keys[1:], value, indent) + "}"
        inner = indent + skeleton.indent_unit
        nested = self.item_text(keys[1:], value, inner)
        return key + "{" + skeleton.newline + inner + nested + skeleton.newline + indent + "}"


def _child(node: JsonContainer, segment: Segment) -> JsonNode | None:
    if isinstance(node, JsonObject):
        if not isinstance(segment, str):
            return None
        for member in reversed(node.members):
            if member.key.value == segment:
                return member.value
        return None
    if isinstance(segment, int) and 0 <= segment < len(node.items):
        return node.items[segment]
    return None


def _i18next(runs: Runs) -> bool:
    """Whether runs hold an i18next code: an interpolation ``{{x}}`` or a nesting ``$t(key)``."""
    for run in runs:
        if isinstance(run, Ph):
            if run.sub_type in (icu.I18NEXT_INTERPOLATION, icu.I18NEXT_NESTING):
                return True
            if run.data.startswith(("{{", "$t(")):
                return True
        elif isinstance(run, Plural | Select) and any(_i18next(b) for b in _branches(run)):
            return True
    return False


def _normal(runs: Runs) -> tuple[object, ...]:
    """Runs as the file can tell them apart: merged text, codes by native text."""
    out: list[object] = []
    for run in runs:
        if isinstance(run, Text):
            if not run.text:
                continue
            if out and isinstance(out[-1], str):
                out[-1] = out[-1] + run.text
            else:
                out.append(run.text)
        elif isinstance(run, Plural):
            out.append(("plural", run.pivot, {k: _normal(v) for k, v in run.forms.items()}))
        elif isinstance(run, Select):
            out.append(("select", run.pivot, {k: _normal(v) for k, v in run.cases.items()}))
        elif isinstance(run, Ph | PcOpen | PcClose):
            data = run.data or (run.equiv if isinstance(run, Ph) else "")
            out.append((type(run).__name__, data))
        else:
            out.append(("sub", run.id))
    return tuple(out)


# --- the codecs --------------------------------------------------------------------------


class JsonFormat:
    """JSON catalogues: flat, nested, i18next (v4 plurals folded), ICU values."""

    name = "json"
    arb = False

    def __init__(self, limits: Limits = DEFAULT_LIMITS) -> None:
        self.limits = limits

    def read(self, data: bytes, *, path: str = "", locale: str = "") -> Document:
        text, encoding, bom = decode_text(data, path=path, unmarked=UNICODE, limits=self.limits)
        try:
            with gc_paused():
                return self._read(text, encoding, bom, path, locale)
        except RecursionError:
            # Only with a max_depth above what Python's stack allows.
            raise FormatError(
                "objects and arrays nest too deeply", path=path, code="budget_exceeded"
            ) from None

    def _read(self, text: str, encoding: str, bom: bytes, path: str, locale: str) -> Document:
        root = _light_tree(text, path, self.limits)
        declared = ""
        arb = self.arb
        if type(root) is _Object:
            for key, value in reversed(root.members):
                if key == "@@locale":
                    arb = True
                    if type(value) is str:
                        declared = value
                    break
        own = _own_locale(declared, locale)
        reader = _Reader(root, arb, own, text)
        reader.read()
        blocks = tuple(reader.blocks)
        shape = (reader.icu, reader.flat, reader.simple)
        skeleton = JsonSkeleton(
            (text, encoding, bom, path, self.limits, arb, own, blocks, root, shape)
        )
        return Document(format=self.name, blocks=blocks, locale=own, skeleton=skeleton)

    def write(self, document: Document) -> bytes:
        skeleton = document.skeleton
        if skeleton is None:
            skeleton = self._empty(document)
        if not isinstance(skeleton, JsonSkeleton):
            raise WriteRefused(
                f"this document was not read as {self.name}; its skeleton cannot be written here",
                capability="skeleton",
            )
        return _Writer(skeleton, document).write()

    def read_back(self, meant: Document, data: bytes) -> list[tuple[Block, Block]] | None:
        """The blocks ``meant`` changed beside how ``data`` reads them, when ``data`` is the
        file ``meant`` was read from with only those values replaced; else ``None``.

        See :mod:`kapi.formats.json_readback`; :func:`kapi.formats.verify.verify_written`
        compares these pairs instead of reading every block again.
        """
        skeleton = meant.skeleton
        if not isinstance(skeleton, JsonSkeleton) or (self.arb and not skeleton.arb):
            return None
        from kapi.formats.json_readback import read_back

        return read_back(skeleton, meant, data, self.limits)

    def block_lines(self, document: Document) -> dict[str, tuple[int, int]] | None:
        """The first and last line of each block's values, by the block's key."""
        skeleton = document.skeleton
        if not isinstance(skeleton, JsonSkeleton) or not skeleton.values:
            return None
        return skeleton.located().block_lines(document)

    def _empty(self, document: Document) -> JsonSkeleton:
        """The skeleton of an empty catalogue, for writing a document from scratch."""
        if self.arb:
            locale = json.dumps(document.locale or "en", ensure_ascii=False)
            start = f'{{\n  "@@locale": {locale}\n}}\n'
        else:
            start = "{\n}\n"
        empty = self.read(start.encode("utf-8"), locale=document.locale)
        skeleton = empty.skeleton
        assert isinstance(skeleton, JsonSkeleton)
        return skeleton


class ArbFormat(JsonFormat):
    """Flutter Application Resource Bundles: ICU values, ``@@locale``, ``@key`` metadata."""

    name = "arb"
    arb = True
