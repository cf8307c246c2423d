"""YAML catalogues (plain and Rails i18n): every string scalar is a block, spliced back in place.

The reader parses with ruamel.yaml's event parser, which reports where each
scalar sits; the writer copies the original text and re-renders only edited
scalars, in the style they were written in when the new text fits it.

* Rails files: a document whose only root key is a language tag (``en:``,
  ``pt-BR:``) over a mapping gives the document locale, and block names leave
  that key out (``views.home.title``). The key counts as a language when its
  language subtag is a two-letter ISO 639-1 code, or it equals the ``locale``
  argument, or a dot-separated part of the file name that names more than the
  key or sits in a ``locales``/``i18n``-like folder (``devise.fil.yml``,
  ``config/locales/fil.yml``).
* Names: mapping keys joined by ``.``, sequence items as ``[i]``
  (``date.day_names[0]``); a repeated name gets ``#2``, ``#3`` in its id.
* Blocks: plain, single-quoted, double-quoted, literal (``|``) and folded
  (``>``) string scalars. Not blocks: keys, aliases (``*a``; the anchored value
  is the block), and non-strings as Ruby's Psych would load them (null,
  booleans incl. ``yes``/``off``, numbers, timestamps, ``:symbols``, values
  with a tag other than ``!!str``/``!``).
* Rails plurals: a mapping whose keys are all CLDR forms (``zero one two few
  many other``, with ``other``) over string values is one block holding a
  ``Plural(pivot="count")``. Writing may add forms (new lines in the
  siblings' style, CLDR order) or drop them, when each form sits on its own
  lines; a plural cannot be flattened to text.
* ``%{name}`` is a ``code:placeholder`` (``ruby:interpolation``);
  ``%<name>d`` likewise (``ruby:format``). Their ``data`` is the slice of the
  decoded value. Literal text that looks like ``%{x}`` reads back as a code.
* Edits: plain stays plain unless the text needs quotes (leading indicator,
  ``: ``, `` #``, edge spaces, a line break, or text YAML would read as a
  non-string), then the file's prevailing quote is used; single quotes switch
  to double when the text holds a line break or a control character; double
  quotes escape ``\\ " \\n \\t``, control characters, and non-ASCII only when
  the file is ASCII and writes non-ASCII as ``\\u`` escapes (then a plain or
  single-quoted value holding non-ASCII moves to double quotes; block scalars
  keep their style and take the characters raw). Literal and folded blocks keep
  their header, indentation and line breaks (the chomping indicator follows the
  new text's trailing newlines); a text they cannot hold (leading spaces or a
  blank first line, a line of blanks, two or more trailing newlines unless the
  block is ``|+`` with as many) falls back to double quotes. Multi-line plain or quoted scalars are re-emitted on
  one line.

Adding and removing blocks (``insert_block`` / ``delete_block``). A new block
(an id the skeleton does not know) is named by its key path (``views.home.title``,
under the Rails locale key when the file has one). It is written as one
``key: value`` line in the mapping's key column, after the block named by
``properties["insert_after"]`` (or before ``properties["insert_before"]``, at
its key line) when that block sits in the same mapping, else after the
mapping's last entry; missing parent mappings are created, indented by the
file's step (2 when it has none), a Plural as a map of CLDR forms. Keys and
values are plain unless they need quotes (then the file's prevailing quote),
newlines follow the file. A block missing from the document loses its whole
entry: the key's line through the value's last line (all lines of a block
scalar; a Rails plural's whole mapping; the trailing comment on those lines).
Comment lines of their own are kept. A mapping left with no keys goes with its
own key; an emptied root becomes ``{}``. A file without a final newline keeps
none. Refused (``WriteRefused``): inserting into a flow mapping, a sequence,
below a key that holds a value, onto an existing key, or into a file without
one root mapping; deleting a sequence item (it would renumber its siblings), a
key in a flow mapping or sharing its line (``- a: x``), or an entry holding an
anchor an alias outside it refers to. The result is read back before it is
returned; if any block would not read back as written (a new ``other`` key
turning a mapping into a Rails plural), the write is refused.

Limits (``kapi.core.format.Limits``): ``max_bytes`` of input, ``max_depth``
nested collections, ``max_entries`` YAML nodes; past one the read fails with
``budget_exceeded``. Malformed YAML fails with ``invalid`` and its line/column.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import PurePath
from typing import Any

from attrs import field, frozen

from kapi.core.edition import EditionKeyError, canonical_locale
from kapi.core.format import DEFAULT_LIMITS, FormatError, Limits, WriteRefused
from kapi.core.model import Block, Document, PcClose, PcOpen, Ph, Plural, Run, Runs, Text
from kapi.formats.common import (
    UNICODE,
    canonical_or_error,
    encode_or_refuse,
    refuse_targets,
    runs_text,
)
from kapi.formats.respell import Unit, respell
from kapi.formats.skeleton import Span, TextSkeleton, decode_text

__all__ = ["YamlFormat"]

_CLDR_FORMS = ("zero", "one", "two", "few", "many", "other")
_STR_TAGS = frozenset({"tag:yaml.org,2002:str", "!"})

# ISO 639-1 language codes: a root key that is one of these (with an optional
# script/region) marks a Rails locale file.
_ISO_639_1_CODES = """
aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs
cu cv cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha
he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn
ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb
nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd
se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw
ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu
"""
_ISO_639_1 = frozenset(_ISO_639_1_CODES.split())

_LOCALE_FOLDERS = frozenset({"locales", "locale", "i18n", "lang", "langs", "translations"})

# What Psych (Ruby's YAML) loads as something other than a string.
_NON_STRING = re.compile(
    r"""(?x)^(?:
      ~|null|Null|NULL
    | (?i:yes|no|true|false|on|off)
    | [-+]?0b[01_,]+
    | [-+]?0x[0-9a-fA-F_,]+
    | [-+]?0o?[0-7_,]+
    | [-+]?(?:0|[1-9](?:[0-9]|,[0-9]|_[0-9])*)
    | [-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?
    | [-+]?(?=[0-9_,]*\.?[0-9])(?:[0-9][0-9_,]*)?\.[0-9_]*(?:[eE][-+]?[0-9]+)?
    | [-+]?[0-9][0-9_]*(?:\.[0-9]*)?[eE][-+]?[0-9]+
    | [-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)
    | [0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}
        (?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::?[0-9]{2})?))?)?
    )$"""
)
_PLACEHOLDER = re.compile(r"%%|%\{[\w|]+\}|%<\w+>[-+ 0#]*\d*(?:\.\d+)?[bBdiouxXeEfgGcps]")
_ESCAPED_NON_ASCII = re.compile(
    r"\\(?:x(?:[89a-fA-F][0-9a-fA-F])|u(?!00[0-7])[0-9a-fA-F]{4}|U[0-9a-fA-F]{8})"
)
# Printable as YAML defines it, minus what we always escape in double quotes.
_UNPRINTABLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]"
)


@frozen
class _Scalar:
    """How one scalar is written: style, where its value sits, what frames it."""

    style: str  # plain, single, double, literal, folded
    start: int
    end: int
    flow: bool = False
    header: str = ""  # block scalars: "|", ">-", "|2+"
    header_rest: str = ""  # block scalars: text after the header on its line
    indent: int = 0  # block scalars: content indentation
    original_trailing: int = 0  # block scalars: trailing newlines of the value as read


@frozen
class _FormSlot:
    """One form of a Rails plural: its scalar and, when aligned, its whole lines."""

    form: str
    runs: Runs
    scalar: _Scalar
    file_forms: tuple[str, ...]
    aligned: bool
    key_indent: str = ""


@frozen
class _YamlSkeleton:
    text: TextSkeleton
    scalars: Mapping[int, _Scalar] = field(factory=dict)
    forms: Mapping[int, _FormSlot] = field(factory=dict)
    maps: tuple[_Map, ...] = ()
    entries: Mapping[str, tuple[int, int]] = field(factory=dict)  # block id -> (map, entry)
    block_ids: frozenset[str] = frozenset()
    base: int = -1  # the mapping new names are relative to (the Rails locale's), -1: none
    anchors: tuple[tuple[str, int], ...] = ()  # (anchor, offset) of every anchored node
    aliases: tuple[tuple[str, int], ...] = ()  # (anchor, offset) of every alias
    indent_unit: int = 2
    path: str = ""
    locale: str = ""
    newline: str = "\n"
    quote: str = '"'
    escape_non_ascii: bool = False
    upper_hex: bool = True


class _Node:
    __slots__ = ("end", "event", "flow", "items", "kind", "pending")

    def __init__(self, kind: str, event: Any) -> None:
        self.kind = kind  # map, seq, scalar, alias
        self.event = event
        self.items: list[Any] = []
        self.pending: _Node | None = None
        self.flow = bool(getattr(event, "flow_style", False))
        self.end = int(event.end_mark.index)  # collections: set by their end event


class _Entry:
    """One ``key: value`` of a mapping: its whole lines and what its value is."""

    __slots__ = ("block_id", "child", "end", "key", "own_line", "start")

    def __init__(self, key: str, start: int, own_line: bool) -> None:
        self.key = key
        self.start = start  # start of the key's line
        self.end = start  # end of the value's last line, line break included
        self.own_line = own_line  # nothing but indentation before the key on its line
        self.block_id = ""  # the block the value is (a string or a Rails plural)
        self.child = -1  # index of the mapping the value is, if a mapping


class _Map:
    """A mapping of the file, as far as inserting and deleting entries needs it."""

    __slots__ = ("column", "depth", "entries", "fill", "fill_at", "flow", "parent")

    def __init__(self, flow: bool, column: int, depth: int) -> None:
        self.flow = flow
        self.column = column  # column of its keys
        self.depth = depth
        self.entries: list[_Entry] = []
        self.parent: tuple[int, int] | None = None  # (mapping, entry) whose value it is
        self.fill = ""  # a root mapping: what an emptied one becomes (" {}" or "{}\n")
        self.fill_at = 0


class YamlFormat:
    """YAML catalogues, Rails i18n included."""

    name = "yaml"

    def __init__(self, limits: Limits = DEFAULT_LIMITS) -> None:
        self.limits = limits

    def read(self, data: bytes, *, path: str = "", locale: str = "") -> Document:
        text, encoding, bom = decode_text(data, path=path, unmarked=UNICODE, limits=self.limits)
        documents = _parse(text, path, self.limits)
        reader = _Reader(text, path)
        root_locale = ""
        base = -1
        for document in documents:
            root = document
            found = _root_locale(document, path, locale) if len(documents) == 1 else ""
            first_map = len(reader.maps)
            if found:
                root_locale = found
                root = document.items[0][1]
            reader.walk(root, [], flow=False)
            if root.kind == "map" and first_map < len(reader.maps):
                top = reader.maps[first_map]
                if found:
                    colon = text.index(":", document.items[0][0].event.end_mark.index)
                    top.fill, top.fill_at = " {}", colon + 1
                elif top.entries:
                    top.fill, top.fill_at = "{}" + reader.newline, top.entries[0].start
                if len(documents) == 1:
                    base = first_map
        doc_locale = root_locale or canonical_or_error(locale, path) or "en"
        blocks = tuple(
            Block(id=b.id, source=b.source, name=b.name, locale=doc_locale) for b in reader.blocks
        )
        skeleton = _YamlSkeleton(
            text=TextSkeleton(text=text, encoding=encoding, bom=bom, spans=tuple(reader.spans)),
            scalars=reader.scalars,
            forms=reader.forms,
            maps=tuple(reader.maps),
            entries=reader.entries,
            block_ids=frozenset(b.id for b in blocks),
            base=base,
            anchors=tuple(reader.anchors),
            aliases=tuple(reader.aliases),
            indent_unit=reader.indent_unit or 2,
            path=path,
            locale=locale,
            newline=reader.newline,
            quote=reader.preferred_quote(),
            escape_non_ascii=reader.escapes_non_ascii and text.isascii(),
            upper_hex=_upper_hex(text),
        )
        return Document(format=self.name, blocks=blocks, locale=doc_locale, skeleton=skeleton)

    def write(self, document: Document) -> bytes:
        skeleton = document.skeleton
        if not isinstance(skeleton, _YamlSkeleton):
            return _generate(document)
        refuse_targets(document, "a YAML file", "its own file")
        present = {block.id for block in document.blocks}
        if skeleton.block_ids <= present and all(
            block.id in skeleton.block_ids for block in document.blocks
        ):
            return skeleton.text.render(document, lambda b, s, r: _render_span(skeleton, b, s, r))
        return _Restructure(skeleton, document, self.limits).write()

    def block_lines(self, document: Document) -> dict[str, tuple[int, int]] | None:
        skeleton = document.skeleton
        if not isinstance(skeleton, _YamlSkeleton):
            return None
        return skeleton.text.block_lines(document)


# ---------------------------------------------------------------------------
# parsing


def _parse(text: str, path: str, limits: Limits) -> list[_Node]:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError
    from ruamel.yaml.reader import ReaderError

    documents: list[_Node] = []
    stack: list[_Node] = []
    count = 0
    try:
        for event in YAML(typ="safe", pure=True).parse(text):
            kind = type(event).__name__
            if kind in ("ScalarEvent", "AliasEvent", "MappingStartEvent", "SequenceStartEvent"):
                count += 1
                if count > limits.max_entries:
                    line, column = _position(text, event.start_mark.index)
                    raise FormatError(
                        f"more than {limits.max_entries} YAML nodes",
                        path=path,
                        line=line,
                        column=column,
                        code="budget_exceeded",
                    )
                node = _Node(
                    {
                        "ScalarEvent": "scalar",
                        "AliasEvent": "alias",
                        "MappingStartEvent": "map",
                        "SequenceStartEvent": "seq",
                    }[kind],
                    event,
                )
                _attach(node, stack, documents)
                if node.kind in ("map", "seq"):
                    stack.append(node)
                    if len(stack) > limits.max_depth:
                        line, column = _position(text, event.start_mark.index)
                        raise FormatError(
                            f"nested deeper than {limits.max_depth} levels",
                            path=path,
                            line=line,
                            column=column,
                            code="budget_exceeded",
                        )
            elif kind in ("MappingEndEvent", "SequenceEndEvent"):
                stack.pop().end = event.end_mark.index
    except FormatError:
        raise
    except MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        message = " ".join(str(p) for p in (err.context, err.problem) if p) or "malformed YAML"
        if mark is None:
            raise FormatError(message, path=path) from None
        raise FormatError(message, path=path, line=mark.line + 1, column=mark.column + 1) from None
    except ReaderError as err:
        line, column = _position(text, err.position)
        raise FormatError(
            f"character {err.character!r} is not allowed in YAML",
            path=path,
            line=line,
            column=column,
        ) from None
    except (YAMLError, ValueError, IndexError, RecursionError) as err:
        raise FormatError(f"malformed YAML: {err}", path=path) from None
    return documents


def _upper_hex(text: str) -> bool:
    """Whether the file writes hex escapes in upper case (the default when it has none)."""
    for match in re.finditer(r"\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8})", text):
        letters = [c for c in match.group()[2:] if c.isalpha()]
        if letters:
            return letters[0].isupper()
    return True


def _position(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def _attach(node: _Node, stack: list[_Node], documents: list[_Node]) -> None:
    if not stack:
        documents.append(node)
        return
    parent = stack[-1]
    if parent.kind == "seq":
        parent.items.append(node)
    elif parent.pending is None:
        parent.pending = node
    else:
        parent.items.append((parent.pending, node))
        parent.pending = None


def _root_locale(document: _Node, path: str, locale: str) -> str:
    """The language of a Rails locale file, from its single root key; "" if it is not one."""
    if document.kind != "map" or len(document.items) != 1:
        return ""
    key, value = document.items[0]
    if key.kind != "scalar" or value.kind != "map" or key.event.tag is not None:
        return ""
    tag = key.event.value
    try:
        canonical = canonical_locale(tag)
    except EditionKeyError:
        return ""
    where = PurePath(path)
    parts = where.name.split(".")[:-1]
    in_locale_folder = any(p.lower() in _LOCALE_FOLDERS for p in where.parts[:-1])
    if tag in parts and (len(parts) > 1 or in_locale_folder):
        return canonical
    if locale:
        try:
            if canonical_locale(locale) == canonical:
                return canonical
        except EditionKeyError:
            pass
    if canonical.split("-")[0] in _ISO_639_1 and len(tag.replace("_", "-").split("-")[0]) == 2:
        return canonical
    return ""


def _is_string(event: Any) -> bool:
    tag = event.tag
    if tag is not None and tag not in _STR_TAGS:
        return False
    if event.style is not None or tag is not None:
        return True
    value: str = event.value
    if not value or _NON_STRING.match(value):
        return False
    return not (value.startswith(":") and len(value) > 1)


class _Reader:
    """Walks the node tree, making blocks and recording where their values sit."""

    def __init__(self, text: str, path: str) -> None:
        self.text = text
        self.path = path
        self.blocks: list[Block] = []
        self.spans: list[Span] = []
        self.scalars: dict[int, _Scalar] = {}
        self.forms: dict[int, _FormSlot] = {}
        self.ids: set[str] = set()
        self.quotes = {"'": 0, '"': 0}
        self.escapes_non_ascii = False
        self.maps: list[_Map] = []
        self.entries: dict[str, tuple[int, int]] = {}
        self.anchors: list[tuple[str, int]] = []
        self.aliases: list[tuple[str, int]] = []
        self.located: dict[int, _Scalar] = {}  # id(node) -> where a string scalar sits
        self.indent_unit = 0
        self.newline = "\r\n" if "\r\n" in text else "\n"

    def note_anchor(self, node: _Node) -> None:
        anchor = getattr(node.event, "anchor", None)
        if anchor:
            (self.aliases if node.kind == "alias" else self.anchors).append(
                (str(anchor), node.event.start_mark.index)
            )

    def walk(self, node: _Node, path: list[str], *, flow: bool, depth: int = 0) -> None:
        flow = flow or node.flow
        self.note_anchor(node)
        if node.kind == "map":
            first = node.items[0][0].event.start_mark.index if node.items else node.end
            mapping = _Map(flow, _position(self.text, first)[1] - 1, depth)
            here = len(self.maps)
            self.maps.append(mapping)
            for key, value in node.items:
                child = [*path, _key_text(key)]
                key_start = key.event.start_mark.index
                line_start = self.text.rfind("\n", 0, key_start) + 1
                entry = _Entry(
                    _key_text(key),
                    line_start,
                    not self.text[line_start:key_start].strip(" ") and key.kind == "scalar",
                )
                mapping.entries.append(entry)
                blocks_before = len(self.blocks)
                maps_before = len(self.maps)
                if value.kind == "map" and self._plural(value, child, flow=flow or value.flow):
                    self.note_anchor(value)
                    for pair in value.items:
                        self.note_anchor(pair[0])
                        self.note_anchor(pair[1])
                else:
                    self.walk(value, child, flow=flow, depth=depth + 1)
                if value.kind == "map" and maps_before < len(self.maps):
                    entry.child = maps_before
                    inner = self.maps[maps_before]
                    inner.parent = (here, len(mapping.entries) - 1)
                    if not self.indent_unit and not inner.flow and inner.column > mapping.column:
                        self.indent_unit = inner.column - mapping.column
                elif value.kind in ("map", "scalar") and len(self.blocks) == blocks_before + 1:
                    entry.block_id = self.blocks[-1].id
                    self.entries[entry.block_id] = (here, len(mapping.entries) - 1)
                if (
                    value.kind == "scalar"
                    and value.event.start_mark.index == value.end
                    and (value.event.style is None and not value.event.value)
                ):
                    end = _line_end(self.text, key.event.end_mark.index, with_break=True)
                else:
                    end = self._end(value)
                entry.end = end
        elif node.kind == "seq":
            for index, item in enumerate(node.items):
                self.walk(item, [*path, f"[{index}]"], flow=flow, depth=depth + 1)
        elif node.kind == "scalar" and _is_string(node.event):
            scalar = self._locate(node.event, flow)
            self.located[id(node)] = scalar
            runs = _parse_runs(node.event.value)
            block_id = self._new_id(_join(path))
            self.blocks.append(Block(id=block_id, source=runs, name=_join(path)))
            self.spans.append(Span(block_id, scalar.start, scalar.end, runs))
            self.scalars[scalar.start] = scalar

    def _end(self, node: _Node) -> int:
        """Where the lines of a value end: past the line break of its last line."""
        text = self.text
        if node.kind in ("map", "seq") and not node.flow and node.items:
            last = node.items[-1]
            return self._end(last[1] if node.kind == "map" else last)
        end = node.end
        scalar = self.located.get(id(node))
        if scalar is not None and scalar.style in ("literal", "folded"):
            if "+" not in scalar.header:
                end = scalar.end
            elif end > 0 and text[end - 1] == "\n":
                return end
        elif node.kind == "scalar" and node.event.style in ("|", ">"):
            end = node.event.end_mark.index
            if end > 0 and text[end - 1] == "\n":
                return int(end)
        return _line_end(text, end, with_break=True)

    def _plural(self, node: _Node, path: list[str], *, flow: bool) -> bool:
        forms: list[tuple[str, _Node, _Node]] = []
        for key, value in node.items:
            if key.kind != "scalar" or key.event.tag is not None or value.kind != "scalar":
                return False
            if key.event.value not in _CLDR_FORMS or not _is_string(value.event):
                return False
            forms.append((key.event.value, key, value))
        names = [form for form, _, _ in forms]
        if "other" not in names or len(set(names)) != len(names):
            return False
        located = [(form, key, self._locate(value.event, flow)) for form, key, value in forms]
        for (_, _, value), (_, _, scalar) in zip(forms, located, strict=True):
            self.located[id(value)] = scalar
        aligned = all(self._aligned(key, scalar) for _, key, scalar in located)
        plural_forms = {form: _parse_runs(value.event.value) for form, _, value in forms}
        runs: Runs = (
            Plural(
                pivot="count", forms={f: plural_forms[f] for f in _CLDR_FORMS if f in plural_forms}
            ),
        )
        name = _join(path)
        block_id = self._new_id(name)
        self.blocks.append(Block(id=block_id, source=runs, name=name))
        for form, key, scalar in located:
            key_start = key.event.start_mark.index
            line_start = self.text.rfind("\n", 0, key_start) + 1
            if aligned:
                start, end = line_start, _line_end(self.text, scalar.end, with_break=True)
            else:
                start, end = scalar.start, scalar.end
            self.spans.append(Span(block_id, start, end, runs, kind="plural-form"))
            self.forms[start] = _FormSlot(
                form=form,
                runs=plural_forms[form],
                scalar=scalar,
                file_forms=tuple(names),
                aligned=aligned,
                key_indent=self.text[line_start:key_start],
            )
        return True

    def _aligned(self, key: _Node, scalar: _Scalar) -> bool:
        key_start = key.event.start_mark.index
        line_start = self.text.rfind("\n", 0, key_start) + 1
        if self.text[line_start:key_start].strip(" "):
            return False
        rest = self.text[scalar.end : _line_end(self.text, scalar.end, with_break=False)]
        return not rest.strip() or rest.strip().startswith("#")

    def _locate(self, event: Any, flow: bool) -> _Scalar:
        text = self.text
        pos = _skip_properties(text, event.start_mark.index, event.end_mark.index)
        end = event.end_mark.index
        style = {None: "plain", "'": "single", '"': "double", "|": "literal", ">": "folded"}[
            event.style
        ]
        if style in ("single", "double"):
            self.quotes[text[pos]] += 1
            if style == "double" and _ESCAPED_NON_ASCII.search(text, pos, end):
                self.escapes_non_ascii = True
        if style not in ("literal", "folded"):
            return _Scalar(style=style, start=pos, end=end, flow=flow)
        header_end = pos + 1
        while header_end < end and text[header_end] in "+-0123456789":
            header_end += 1
        header_line_end = _line_end(text, header_end, with_break=False)
        span_end = header_line_end
        indent = 0
        cursor = _line_end(text, header_end, with_break=True)
        while cursor < end:
            line_end = _line_end(text, cursor, with_break=False)
            line = text[cursor:line_end]
            if line.strip():
                if not indent:
                    indent = len(line) - len(line.lstrip(" "))
                span_end = line_end
            cursor = _line_end(text, cursor, with_break=True)
        if not indent:
            line_start = text.rfind("\n", 0, pos) + 1
            line = text[line_start:pos]
            indent = len(line) - len(line.lstrip(" ")) + 2
        value: str = event.value
        trailing = len(value) - len(value.rstrip("\n"))
        return _Scalar(
            style=style,
            start=pos,
            end=span_end,
            flow=flow,
            header=text[pos:header_end],
            header_rest=text[header_end:header_line_end],
            indent=indent,
            original_trailing=trailing,
        )

    def _new_id(self, name: str) -> str:
        candidate = name
        number = 1
        while candidate in self.ids:
            number += 1
            candidate = f"{name}#{number}"
        self.ids.add(candidate)
        return candidate

    def preferred_quote(self) -> str:
        return "'" if self.quotes["'"] > self.quotes['"'] else '"'


def _skip_properties(text: str, pos: int, end: int) -> int:
    """Past a node's anchor and tag (``&a !!str``) to the first character of its value."""
    while pos < end and text[pos] in "&!":
        while pos < end and text[pos] not in " \t\r\n":
            pos += 1
        while pos < end:
            if text[pos] in " \t\r\n":
                pos += 1
            elif text[pos] == "#":
                pos = _line_end(text, pos, with_break=True)
            else:
                break
    return pos


def _line_end(text: str, index: int, *, with_break: bool) -> int:
    newline = text.find("\n", index)
    if newline == -1:
        return len(text)
    if with_break:
        return newline + 1
    return newline - 1 if newline > 0 and text[newline - 1] == "\r" else newline


def _key_text(key: _Node) -> str:
    if key.kind == "scalar":
        return str(key.event.value)
    if key.kind == "alias":
        return f"*{key.event.anchor}"
    return "?"


def _join(path: list[str]) -> str:
    out = ""
    for part in path:
        if part.startswith("[") or not out:
            out += part
        else:
            out += "." + part
    return out


def _parse_runs(value: str) -> Runs:
    runs: list[Run] = []
    cursor = 0
    number = 0
    for match in _PLACEHOLDER.finditer(value):
        if match.group() == "%%":
            continue
        if match.start() > cursor:
            runs.append(Text(value[cursor : match.start()]))
        number += 1
        data = match.group()
        sub_type = "ruby:interpolation" if data.startswith("%{") else "ruby:format"
        runs.append(
            Ph(id=str(number), type="code:placeholder", sub_type=sub_type, data=data, equiv=data)
        )
        cursor = match.end()
    if cursor < len(value):
        runs.append(Text(value[cursor:]))
    return _merge_text(runs)


def _merge_text(runs: list[Run]) -> Runs:
    out: list[Run] = []
    for run in runs:
        if isinstance(run, Text) and out and isinstance(out[-1], Text):
            out[-1] = Text(out[-1].text + run.text)
        else:
            out.append(run)
    return tuple(out)


# ---------------------------------------------------------------------------
# writing


def _runs_text(block: Block, runs: Runs) -> str:
    return runs_text(block, runs, _synthesize, value="a YAML value", hint=" here")


def _synthesize(block: Block, run: Ph | PcOpen | PcClose) -> str:
    if run.type == "code:placeholder":
        if re.fullmatch(r"%\{[\w|]+\}", run.equiv):
            return run.equiv
        name = run.attrs.get("name", "") if not isinstance(run, PcClose) else ""
        if re.fullmatch(r"\w+", name):
            return "%{" + name + "}"
    if run.type == "fmt:linebreak":
        return "\n"
    raise WriteRefused(
        f"block {block.id!r}: YAML has no markup for a new {run.type or 'untyped'} code",
        capability=f"synthesize:{run.type}",
        block=block.id,
    )


def _render_span(skeleton: _YamlSkeleton, block: Block, span: Span, runs: Runs) -> str:
    text = skeleton.text.text
    if span.kind != "plural-form":
        if len(runs) == 1 and isinstance(runs[0], Plural):
            raise WriteRefused(
                f"block {block.id!r} is a single value in the file; it cannot become a plural",
                capability="plural",
                block=block.id,
            )
        scalar = skeleton.scalars[span.start]
        value = _runs_text(block, runs)
        return _respelled(skeleton, scalar, value) or _render_scalar(skeleton, scalar, value)
    slot = skeleton.forms[span.start]
    if len(runs) != 1 or not isinstance(runs[0], Plural):
        raise WriteRefused(
            f"block {block.id!r} is a plural in the file; edit its forms, not flat text",
            capability="plural-flatten",
            block=block.id,
        )
    forms = runs[0].forms
    unknown = [form for form in forms if form not in _CLDR_FORMS]
    if unknown:
        raise WriteRefused(
            f"block {block.id!r}: Rails plurals have no form {unknown[0]!r}",
            capability="plural-forms",
            block=block.id,
        )
    added = [form for form in _CLDR_FORMS if form in forms and form not in slot.file_forms]
    removed = [form for form in slot.file_forms if form not in forms]
    if (added or removed) and not slot.aligned:
        raise WriteRefused(
            f"block {block.id!r}: its forms share a line, so forms cannot be added or removed",
            capability="plural-forms",
            block=block.id,
        )
    original = text[span.start : span.end]
    if slot.form not in forms:
        body = ""
    elif forms[slot.form] == slot.runs:
        body = original
    else:
        scalar = slot.scalar
        value = _runs_text(block, forms[slot.form])
        rendered = _respelled(skeleton, scalar, value) or _render_scalar(skeleton, scalar, value)
        body = text[span.start : scalar.start] + rendered + text[scalar.end : span.end]
    before: list[str] = []
    after: list[str] = []
    ranks = {form: index for index, form in enumerate(_CLDR_FORMS)}
    for form in added:
        earlier = [f for f in slot.file_forms if ranks[f] < ranks[form]]
        anchor = max(earlier, key=ranks.__getitem__) if earlier else slot.file_forms[0]
        if anchor != slot.form:
            continue
        line = slot.key_indent + form + ": "
        line += _render_new(skeleton, slot.scalar, _runs_text(block, forms[form]))
        (after if earlier else before).append(line + skeleton.newline)
    if after and not original.endswith("\n"):
        # The form is the file's last line and has no line break: keep it that way.
        if body:
            after[0] = skeleton.newline + after[0]
        after[-1] = after[-1][: -len(skeleton.newline)]
    return "".join(before) + body + "".join(after)


def _render_new(skeleton: _YamlSkeleton, like: _Scalar, value: str) -> str:
    style = like.style if like.style in ("plain", "single", "double") else "double"
    return _render_scalar(skeleton, _Scalar(style=style, start=0, end=0, flow=like.flow), value)


_DOUBLE_UNIT = re.compile(
    r'\\(?:x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|[0abtnvfre "/\\N_LP\t])|[^"\\]'
)
_DOUBLE_READS = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n",
                 "v": "\v", "f": "\f", "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/",
                 "\\": "\\", "N": "\x85", "_": "\xa0", "L": "\u2028", "P": "\u2029"}  # fmt: skip


def _respelled(skeleton: _YamlSkeleton, scalar: _Scalar, value: str) -> str | None:
    """A double-quoted one-line value in the file's own escapes where the edit kept them."""
    raw = skeleton.text.text[scalar.start : scalar.end]
    if scalar.style != "double" or len(raw) < 2 or raw[0] != '"' or raw[-1] != '"':
        return None
    if "\n" in raw or "\r" in raw:
        return None
    units: list[Unit] = []
    for match in _DOUBLE_UNIT.finditer(raw, 1, len(raw) - 1):
        spelling = match.group()
        if spelling[0] != "\\":
            units.append((spelling, spelling))
        elif spelling[1] in "xuU":
            units.append((chr(int(spelling[2:], 16)), spelling))
        else:
            units.append((_DOUBLE_READS[spelling[1]], spelling))
    if sum(len(spelling) for _, spelling in units) != len(raw) - 2:
        return None  # an escape this reading does not know: write the value afresh
    return '"' + respell(units, value, lambda char: _double(char, skeleton)[1:-1]) + '"'


def _render_scalar(skeleton: _YamlSkeleton, scalar: _Scalar, value: str) -> str:
    style = scalar.style
    # An ASCII file that writes non-ASCII as escapes gets escapes, so double quotes.
    must_escape = skeleton.escape_non_ascii and not value.isascii()
    if style == "plain":
        if _plain_ok(value, scalar.flow) and not must_escape:
            return value
        style = "single" if skeleton.quote == "'" and not must_escape else "double"
    if style == "single" and must_escape:
        style = "double"
    if style in ("literal", "folded"):
        rendered = _render_block(skeleton, scalar, value)
        if rendered is not None:
            return rendered
        return _double(value, skeleton) + scalar.header_rest
    if (
        style == "single"
        and "\n" not in value
        and not _UNPRINTABLE.search(value)
        and "\r" not in value
    ):
        return "'" + value.replace("'", "''") + "'"
    return _double(value, skeleton)


def _plain_ok(value: str, flow: bool) -> bool:
    if not value or value != value.strip(" \t") or _UNPRINTABLE.search(value):
        return False
    if any(c in value for c in "\n\r\t\x85"):
        return False
    first = value[0]
    if first in ",[]{}#&*!|>'\"%@`:":
        return False
    if first in "-?" and (len(value) == 1 or value[1] in " \t"):
        return False
    if value.startswith(("---", "...")):
        return False
    if ": " in value or " #" in value or value.endswith(":"):
        return False
    if flow and any(c in value for c in ",[]{}"):
        return False
    if value in ("=", "<<"):  # YAML 1.1's value and merge keys, not strings when plain
        return False
    return not _NON_STRING.match(value)


_DOUBLE_ESCAPES = {
    "\\": "\\\\",
    '"': '\\"',
    "\n": "\\n",
    "\t": "\\t",
    "\r": "\\r",
    "\x00": "\\0",
    "\x07": "\\a",
    "\x08": "\\b",
    "\x0b": "\\v",
    "\x0c": "\\f",
    "\x1b": "\\e",
    "\x85": "\\N",
    "\xa0": "\\_",
    "\u2028": "\\L",
    "\u2029": "\\P",
}


def _double(value: str, skeleton: _YamlSkeleton) -> str:
    escape_non_ascii = skeleton.escape_non_ascii
    out = ['"']
    for char in value:
        escaped = _DOUBLE_ESCAPES.get(char)
        if escaped is not None and (char != "\xa0" or escape_non_ascii):
            out.append(escaped)
        elif _UNPRINTABLE.match(char) or (escape_non_ascii and ord(char) > 0x7E):
            code = ord(char)
            if code < 0xA0:
                escape = f"\\x{code:02X}"
            elif code <= 0xFFFF:
                escape = f"\\u{code:04X}"
            else:
                escape = f"\\U{code:08X}"
            out.append(escape if skeleton.upper_hex else escape[:2] + escape[2:].lower())
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def _render_block(skeleton: _YamlSkeleton, scalar: _Scalar, value: str) -> str | None:
    """A literal or folded block holding ``value`` in the scalar's own layout, or None."""
    if _UNPRINTABLE.search(value) or "\r" in value or "\x85" in value or scalar.indent <= 0:
        return None
    body = value.rstrip("\n")
    trailing = len(value) - len(body)
    lines = body.split("\n")
    explicit = any(c.isdigit() for c in scalar.header)
    if not body or not lines[0].strip() or (lines[0][0] == " " and not explicit):
        return None
    if any(line.strip() == "" and line for line in lines):
        return None
    keep = "+" in scalar.header
    if trailing == 0:
        chomp = "-"
    elif trailing == 1 and not (keep and scalar.original_trailing == 1):
        chomp = ""
    elif keep and trailing == scalar.original_trailing:
        chomp = "+"
    else:
        return None
    if scalar.style == "folded":
        if any(line[:1] in (" ", "\t") for line in lines):
            return None
        folded: list[str] = []
        for index, line in enumerate(lines):
            folded.append(line)
            if line and index + 1 < len(lines):
                folded.append("")
        lines = folded
    header = scalar.header
    stripped = header.replace("+", "").replace("-", "")
    chomp_at = next((i for i, c in enumerate(header) if c in "+-"), len(header))
    header = stripped[:chomp_at] + chomp + stripped[chomp_at:]
    pad = " " * scalar.indent
    content = skeleton.newline.join(pad + line if line else "" for line in lines)
    return header + scalar.header_rest + skeleton.newline + content


# ---------------------------------------------------------------------------
# adding and removing blocks


class _NewNode:
    """A key the writer adds: a value (rendered) or, when ``value`` is None, a new mapping."""

    __slots__ = ("children", "key", "value")

    def __init__(self, key: str, value: str | None) -> None:
        self.key = key
        self.value = value
        self.children: list[_NewNode] = []


class _Restructure:
    """Writes a document that gained or lost blocks: whole ``key: value`` lines in and out."""

    def __init__(self, skeleton: _YamlSkeleton, document: Document, limits: Limits) -> None:
        self.skeleton = skeleton
        self.document = document
        self.limits = limits
        self.text = skeleton.text.text
        self.maps = skeleton.maps
        self.deleted: set[tuple[int, int]] = set()
        # (point, mapping) -> the new entries written there, in order
        self.buckets: dict[tuple[int, int], list[_NewNode]] = {}
        self.fresh: dict[int, dict[str, _NewNode]] = {}  # mapping -> its new top-level keys
        self.placed: dict[str, tuple[list[_NewNode], _NewNode, tuple[int, int] | None]] = {}
        self.emptied: set[int] = set()
        self.fills: list[int] = []
        self.labels: dict[tuple[int, int], str] = {}  # a cascaded entry -> a block it removes

    def write(self) -> bytes:
        skeleton = self.skeleton
        present = {block.id for block in self.document.blocks}
        order = dict.fromkeys(span.block_id for span in skeleton.text.spans)
        for block_id in order:
            if block_id not in present:
                self.delete(block_id)
        new = [block for block in self.document.blocks if block.id not in skeleton.block_ids]
        for block in new:
            self.insert(block)
        self.cascade()
        self.check_anchors()
        data = self.render()
        self.verify(data, "insert_block" if new else "delete_block")
        return data

    # deleting

    def delete(self, block_id: str) -> None:
        where = self.skeleton.entries.get(block_id)
        if where is None:
            raise WriteRefused(
                f"block {block_id!r} is not the value of a mapping key (a sequence item or the "
                "file's only value); removing it would renumber or break its neighbours",
                capability="delete_block",
                block=block_id,
            )
        self.refuse_unsafe_delete(where, block_id)
        self.deleted.add(where)

    def refuse_unsafe_delete(self, where: tuple[int, int], block_id: str) -> None:
        mapping = self.maps[where[0]]
        entry = mapping.entries[where[1]]
        if mapping.flow:
            raise WriteRefused(
                f"block {block_id!r}: its key {entry.key!r} sits in a flow mapping "
                "({a: b}); keys are removed only from block mappings",
                capability="delete_block",
                block=block_id,
            )
        if not entry.own_line:
            raise WriteRefused(
                f"block {block_id!r}: its key {entry.key!r} shares its line with other "
                "content (a sequence dash or an explicit '?' key); it cannot be removed alone",
                capability="delete_block",
                block=block_id,
            )

    def cascade(self) -> None:
        """A mapping that lost every key (and gained none) goes too, with its own key."""
        targets = {where[1] for where in self.buckets}
        changed = True
        while changed:
            changed = False
            for index, mapping in enumerate(self.maps):
                if index in self.emptied or index in targets or not mapping.entries:
                    continue
                if any((index, e) not in self.deleted for e in range(len(mapping.entries))):
                    continue
                self.emptied.add(index)
                witness = next(
                    (e.block_id for e in mapping.entries if e.block_id), mapping.entries[0].key
                )
                if mapping.parent is not None:
                    witness = next(
                        (
                            self.labels[(index, e)]
                            for e in range(len(mapping.entries))
                            if (index, e) in self.labels
                        ),
                        witness,
                    )
                    self.refuse_unsafe_delete(mapping.parent, witness)
                    self.deleted.add(mapping.parent)
                    self.labels[mapping.parent] = witness
                    changed = True
                elif mapping.fill:
                    self.fills.append(index)
                else:
                    raise WriteRefused(
                        f"block {witness!r}: removing every key of a sequence item's mapping "
                        "would leave an empty item",
                        capability="delete_block",
                        block=witness,
                    )

    def regions(self) -> list[tuple[int, int, str]]:
        """The deleted entries' line ranges, outermost only, with the block each removes."""
        found = sorted(
            (
                (entry.start, entry.end, entry.block_id or self.labels.get((m, e), entry.key))
                for m, e in self.deleted
                for entry in (self.maps[m].entries[e],)
            ),
            key=lambda r: (r[0], -r[1]),
        )
        out: list[tuple[int, int, str]] = []
        for region in found:
            if out and region[1] <= out[-1][1]:
                continue
            out.append(region)
        return out

    def check_anchors(self) -> None:
        regions = self.regions()

        def inside(offset: int) -> tuple[int, int, str] | None:
            for region in regions:
                if region[0] <= offset < region[1]:
                    return region
            return None

        gone: dict[str, str] = {}
        for anchor, offset in self.skeleton.anchors:
            region = inside(offset)
            if region is not None:
                gone[anchor] = region[2]
        for anchor, offset in self.skeleton.aliases:
            if anchor in gone and inside(offset) is None:
                line, _ = _position(self.text, offset)
                raise WriteRefused(
                    f"block {gone[anchor]!r}: removing it removes the anchor &{anchor}, "
                    f"which the alias *{anchor} on line {line} still refers to",
                    capability="delete_block",
                    block=gone[anchor],
                )

    # inserting

    def refuse_insert(self, block: Block, why: str) -> WriteRefused:
        return WriteRefused(
            f"block {block.id!r} ({block.name or 'no name'}): cannot insert it: {why}",
            capability="insert_block",
            block=block.id,
        )

    def insert(self, block: Block) -> None:
        skeleton = self.skeleton
        if not block.name:
            raise self.refuse_insert(block, "a new YAML value needs a name (its key path)")
        if skeleton.base < 0:
            raise self.refuse_insert(block, "the file has no single root mapping to add keys to")
        index, rest = skeleton.base, block.name
        while True:
            mapping = self.maps[index]
            match: _Entry | None = None
            for e, entry in enumerate(mapping.entries):
                key = entry.key
                if (index, e) in self.deleted or not (
                    rest == key or rest.startswith((key + ".", key + "["))
                ):
                    continue
                if match is None or len(key) > len(match.key):
                    match = entry
            if match is None:
                break
            if rest == match.key:
                raise self.refuse_insert(block, f"the key {match.key!r} already exists")
            if rest[len(match.key)] == "[":
                raise self.refuse_insert(
                    block, f"{match.key!r} is a sequence; values are not added to sequences"
                )
            if match.child < 0:
                raise self.refuse_insert(block, f"{match.key!r} holds a value, not a mapping")
            index, rest = match.child, rest[len(match.key) + 1 :]
        keys = rest.split(".")
        if any(not key or "[" in key or "]" in key for key in keys):
            raise self.refuse_insert(block, f"{rest!r} is not a path of mapping keys")
        if self.maps[index].flow:
            raise self.refuse_insert(
                block, "the mapping it goes into is a flow mapping ({a: b}); it cannot take lines"
            )
        leaf = _NewNode(keys[-1], None)
        self.fill_value(block, leaf)
        top = leaf
        for key in reversed(keys[:-1]):
            group = _NewNode(key, None)
            group.children.append(top)
            top = group
        fresh = self.fresh.setdefault(index, {})
        existing = fresh.get(keys[0])
        if existing is None:
            point, position = self.anchor(block, index)
            bucket = self.buckets.setdefault((point, index), [])
            bucket.insert(len(bucket) if position is None else position, top)
            fresh[keys[0]] = top
            holder, where = bucket, (point, index)
        else:
            # Under a key another new block already added: join it there.
            node, depth = existing, 0
            while True:
                if node.value is not None or depth == len(keys) - 1:
                    raise self.refuse_insert(
                        block, f"{'.'.join(keys[: depth + 1])!r} is already added by another block"
                    )
                depth += 1
                child = next((c for c in node.children if c.key == keys[depth]), None)
                if child is None:
                    break
                node = child
            top = leaf
            for key in reversed(keys[depth:-1]):
                group = _NewNode(key, None)
                group.children.append(top)
                top = group
            holder, where = node.children, None
            position = self.new_position(block, holder)
            holder.insert(len(holder) if position is None else position, top)
        self.placed[block.id] = self.placed[block.name] = (holder, top, where)

    def fill_value(self, block: Block, leaf: _NewNode) -> None:
        like = _Scalar(style="plain", start=0, end=0)
        runs = block.source
        if len(runs) == 1 and isinstance(runs[0], Plural):
            forms = runs[0].forms
            if "other" not in forms or any(form not in _CLDR_FORMS for form in forms):
                raise self.refuse_insert(
                    block, "a Rails plural needs the form 'other' and CLDR form names only"
                )
            for form in _CLDR_FORMS:
                if form in forms:
                    value = _render_scalar(self.skeleton, like, _runs_text(block, forms[form]))
                    leaf.children.append(_NewNode(form, value))
            return
        leaf.value = _render_scalar(self.skeleton, like, _runs_text(block, runs))

    def new_position(self, block: Block, holder: list[_NewNode]) -> int | None:
        for prop, before in (("insert_after", False), ("insert_before", True)):
            reference = block.properties.get(prop)
            placed = self.placed.get(reference) if reference else None
            if placed is not None and placed[0] is holder:
                position = holder.index(placed[1])
                return position if before else position + 1
        return None

    def anchor(self, block: Block, index: int) -> tuple[int, int | None]:
        """Where in the text a new key of mapping ``index`` goes, and where among new ones."""
        mapping = self.maps[index]
        for prop, before in (("insert_after", False), ("insert_before", True)):
            reference = block.properties.get(prop)
            if not reference:
                continue
            placed = self.placed.get(reference)
            if placed is not None and placed[2] is not None and placed[2][1] == index:
                position = placed[0].index(placed[1])
                return placed[2][0], position if before else position + 1
            where = self.skeleton.entries.get(self.block_id(reference))
            if where is None or where[0] != index:
                continue
            entry = mapping.entries[where[1]]
            if not before:
                return entry.end, None
            if entry.own_line:
                return entry.start, None
        return mapping.entries[-1].end, None

    def block_id(self, reference: str) -> str:
        if reference in self.skeleton.entries:
            return reference
        for block in self.document.blocks:
            if block.name == reference and block.id in self.skeleton.entries:
                return block.id
        return reference

    def new_lines(self, nodes: list[_NewNode], column: int) -> str:
        skeleton = self.skeleton
        like = _Scalar(style="plain", start=0, end=0)
        out: list[str] = []
        for node in nodes:
            key = _render_scalar(skeleton, like, node.key)
            if node.value is not None:
                out.append(" " * column + key + ": " + node.value + skeleton.newline)
            else:
                out.append(" " * column + key + ":" + skeleton.newline)
                out.append(self.new_lines(node.children, column + skeleton.indent_unit))
        return "".join(out)

    # the output

    def render(self) -> bytes:
        skeleton = self.skeleton
        text = self.text
        by_id = {block.id: block for block in self.document.blocks}
        # (start, end, order, replacement, inline)
        edits: list[tuple[int, int, int, str, bool]] = []
        for span in skeleton.text.spans:
            block = by_id.get(span.block_id)
            if block is None or span.edition or block.source == span.runs:
                continue
            edits.append(
                (span.start, span.end, 0, _render_span(skeleton, block, span, block.source), True)
            )
        for start, end, _ in self.regions():
            edits.append((start, end, 0, "", True))
        for (point, index), nodes in self.buckets.items():
            mapping = self.maps[index]
            edits.append(
                (point, point, -mapping.depth, self.new_lines(nodes, mapping.column), False)
            )
        for index in self.fills:
            mapping = self.maps[index]
            edits.append((mapping.fill_at, mapping.fill_at, 1, mapping.fill, mapping.fill == " {}"))
        edits.sort(key=lambda edit: edit[:3])
        out: list[str] = []
        cursor = 0
        last = ""  # the last character written so far
        for start, end, _, replacement, inline in edits:
            if start < cursor:
                continue
            out.append(text[cursor:start])
            last = text[start - 1] if start > cursor else last
            if not inline and last not in ("", "\n"):
                replacement = skeleton.newline + replacement
            out.append(replacement)
            last = replacement[-1:] or last
            cursor = end
        out.append(text[cursor:])
        body = "".join(out)
        if text and not text.endswith("\n") and body.endswith("\n"):
            body = body[: -len(skeleton.newline) if body.endswith(skeleton.newline) else -1]
        return skeleton.text.bom + encode_or_refuse(body, skeleton.text.encoding)

    def verify(self, data: bytes, capability: str) -> None:
        """The written file must read back as the document: a safety net, never expected to fire."""
        skeleton = self.skeleton
        try:
            again = YamlFormat(self.limits).read(data, path=skeleton.path, locale=skeleton.locale)
        except FormatError as err:
            raise WriteRefused(
                f"adding or removing blocks would make the file unreadable: {err}",
                capability=capability,
            ) from None
        by_id = {block.id: block for block in again.blocks}
        by_name: dict[str, Block] = {}
        for block in again.blocks:
            by_name.setdefault(block.name, block)
        for block in self.document.blocks:
            found = by_id.get(block.id) if block.id in skeleton.block_ids else None
            if found is None and block.id not in skeleton.block_ids:
                found = by_name.get(block.name)
            if found is None or _texts(found) != _texts(block):
                raise WriteRefused(
                    f"block {block.id!r} would not read back as written after adding or "
                    "removing blocks",
                    capability=capability,
                    block=block.id,
                )


def _texts(block: Block) -> object:
    runs = block.source
    if len(runs) == 1 and isinstance(runs[0], Plural):
        return {form: _runs_text(block, branch) for form, branch in runs[0].forms.items()}
    return _runs_text(block, runs)


# ---------------------------------------------------------------------------
# generating a file from blocks alone


def _generate(document: Document) -> bytes:
    """A nested YAML file from block names (for documents made without reading a file)."""
    refuse_targets(document, "a YAML file", "its own file")
    tree: dict[str, Any] = {}
    for block in document.blocks:
        parts = [p for p in re.split(r"\.(?![^\[]*\])", block.name or block.id) if p]
        node = tree
        for part in parts[:-1]:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                raise WriteRefused(
                    f"block {block.id!r}: {part!r} is both a value and a group",
                    capability="structure",
                    block=block.id,
                )
            node = child
        if len(block.source) == 1 and isinstance(block.source[0], Plural):
            node[parts[-1]] = {
                form: _runs_text(block, runs) for form, runs in block.source[0].forms.items()
            }
        else:
            node[parts[-1]] = _runs_text(block, block.source)
    empty = _YamlSkeleton(text=TextSkeleton(text=""))
    return "".join(_emit(empty, tree, 0)).encode("utf-8")


def _emit(skeleton: _YamlSkeleton, tree: Mapping[str, Any], depth: int) -> Iterator[str]:
    for key, value in tree.items():
        quoted_key = key if _plain_ok(key, False) else _double(key, skeleton)
        if isinstance(value, Mapping):
            yield "  " * depth + quoted_key + ":\n"
            yield from _emit(skeleton, value, depth + 1)
        else:
            scalar = _Scalar(style="plain", start=0, end=0)
            yield "  " * depth + quoted_key + ": " + _render_scalar(skeleton, scalar, value) + "\n"
