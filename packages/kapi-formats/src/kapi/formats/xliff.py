"""XLIFF 1.2 and XLIFF 2.x: bilingual files read into blocks and written back by splicing.

Every unit is one block (``name`` = the unit id; ``block.id`` = ``tu1``,
``tu2``… in document order). The source language (``source-language`` /
``srcLang``) is the document's and the blocks' locale; the target language
(``target-language`` / ``trgLang``, canonical BCP-47) is ``target_locale`` and
keys the target edition. A file whose ``<file>`` elements name different
languages is refused (``unsupported``). Without a declared target language the
``<target>`` elements are kept as they are and not read, and no target can be
written. When two ``<file>`` elements hold the same unit id, the name is
``<file original or id>\\u0004<unit id>``.

XLIFF 1.2: ``<trans-unit>`` (also inside ``<group>``; ``translate="no"``, own
or inherited, gives ``translatable=False``), its ``<source>`` and ``<target>``
(``<alt-trans>`` is ignored). ``resname``, ``restype``, ``approved``, the raw
``state``, the file's ``original`` and the ``<note>`` texts go to properties.
Status: ``translated``/``final``/``signed-off`` or ``approved="yes"`` ->
``translated``; ``new``/``needs-*`` -> ``draft``. A segmented unit
(``<seg-source>`` with ``<mrk mtype="seg">``) is read from ``<source>`` as one
block; its target keeps the segment markers as paired codes, and a source edit
of such a unit is refused because ``<seg-source>`` would go stale.

XLIFF 2.x: one block per ``<unit>``; its runs are the ``<segment>`` and
``<ignorable>`` contents in order (a segment boundary is a boundary between
runs: adjacent text runs are not merged across it). The target concatenates
the segments' targets, an ignorable without target standing for its source.
Segment ``state`` (the least advanced) gives the status: ``initial`` ->
``draft``, else ``translated``. An edit of a unit with several parts is
written back segment by segment: when the new runs have the shape of the old
ones (or, for a new target, of the source) run i goes where run i was; else
when the changed stretch (after the common start and end) lies in one part, only
that part changes; else the write is refused (``WriteRefused``, capability
``edition``) asking to keep the segment boundaries.

Inline codes (``data`` = the exact markup; ``sub_type`` = ``xlf:<element>``):
1.2 ``g``/``mrk`` paired; ``x``, ``ph``, ``it`` standalone; ``bx``/``ex`` and
``bpt``/``ept`` paired through ``rid`` (else ``id``), each half's data the
whole element with its native text. 2.x ``pc``/``mrk`` paired, ``sc``/``ec``
and ``sm``/``em`` paired through ``startRef``, ``ph``/``cp`` standalone.
Halves without partner become standalone codes. Comments and processing
instructions inside content are standalone codes (``code:tag``). Text inside
``mrk mtype="protected"`` / ``translate="no"`` is ``no_translate``.

Writing: only changed content is re-rendered; unchanged text at the start and
end of an edited text keeps its raw form (character references, CDATA). New
text escapes ``& < >``, writes newlines in the file's style, ``\\r`` as
``&#13;``; characters XML cannot hold are refused. A new code is synthesised
for bold/italic/underline (``<g ctype>`` / ``<pc subType>``) and line breaks,
anything else is refused (``synthesize:<type>``). A missing target is inserted
after ``</source>`` (or ``</seg-source>``) with the whitespace the unit uses
between its children, with ``xml:lang`` when other targets carry it and
``state`` when the file uses it. A changed status rewrites ``state`` (1.2: on
``<target>``; 2.x: on each ``<segment>``) where the file uses ``state``.

Limits (besides those of :mod:`kapi.formats.xmlspans`): at most
``Limits.max_entries`` units (``budget_exceeded``).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence

from attrs import evolve, frozen

from kapi.core.edition import EditionKeyError, canonical_locale
from kapi.core.format import DEFAULT_LIMITS, FormatError, Limits, WriteRefused
from kapi.core.model import (
    Block,
    Document,
    Edition,
    PcClose,
    PcOpen,
    Ph,
    Run,
    Runs,
    Text,
)
from kapi.formats.skeleton import TextSkeleton, line_column
from kapi.formats.xmlspans import (
    XML_NS,
    Edit,
    Node,
    apply_edits,
    decode_gap,
    decode_xml,
    escape_attribute,
    escape_text,
    newline_of,
    parse_xml,
    render_text,
    rewrite_element,
)

__all__ = ["Xliff1Format", "Xliff2Format"]

_NS1 = frozenset(
    {
        "",
        "urn:oasis:names:tc:xliff:document:1.0",
        "urn:oasis:names:tc:xliff:document:1.1",
        "urn:oasis:names:tc:xliff:document:1.2",
    }
)
_NS2 = frozenset(
    {
        "",
        "urn:oasis:names:tc:xliff:document:2.0",
        "urn:oasis:names:tc:xliff:document:2.1",
        "urn:oasis:names:tc:xliff:document:2.2",
    }
)
_LANG = f"{{{XML_NS}}}lang"

# ---------------------------------------------------------------- code types

_CTYPE = {
    "bold": "fmt:bold",
    "x-html-b": "fmt:bold",
    "x-html-strong": "fmt:bold",
    "italic": "fmt:italic",
    "x-html-i": "fmt:italic",
    "x-html-em": "fmt:italic",
    "underlined": "fmt:underline",
    "x-html-u": "fmt:underline",
    "link": "link:hyperlink",
    "x-html-a": "link:hyperlink",
    "x-html-code": "fmt:code",
    "lb": "fmt:linebreak",
    "x-html-br": "fmt:linebreak",
    "image": "media:image",
    "x-html-img": "media:image",
}
_NATIVE_TAG = {
    "b": "fmt:bold",
    "strong": "fmt:bold",
    "i": "fmt:italic",
    "em": "fmt:italic",
    "u": "fmt:underline",
    "a": "link:hyperlink",
    "code": "fmt:code",
    "br": "fmt:linebreak",
    "img": "media:image",
}
_SUBTYPE2 = {
    "xlf:b": "fmt:bold",
    "xlf:i": "fmt:italic",
    "xlf:u": "fmt:underline",
    "xlf:lb": "fmt:linebreak",
}
_TAG_NAME = re.compile(r"^\s*<\s*/?\s*([A-Za-z][\w:.-]*)")
_HREF = re.compile(r"""\bhref\s*=\s*(["'])(.*?)\1""", re.S)
_BARE_START = re.compile(r"^<([^\s/>!?]+)(?:\s[^<>]*)?(?<!/)>$")
_BARE_END = re.compile(r"^</([^\s>]+)\s*>$")
_ID_ATTR = re.compile(r"""\bid\s*=\s*["']([^"']*)["']""")

# status as read from XLIFF 1.2 state values
_DONE_STATES1 = frozenset({"translated", "final", "signed-off"})
_STATE1_FOR = {
    "translated": "translated",
    "draft": "needs-review-translation",
    "reviewed": "signed-off",
    "final": "final",
}
_RANK2 = {"initial": 0, "translated": 1, "reviewed": 2, "final": 3}
_STATE2_FOR = {
    "translated": "translated",
    "draft": "initial",
    "reviewed": "reviewed",
    "final": "final",
    "signed-off": "final",
}


def _native_type(native: str) -> str:
    found = _TAG_NAME.match(native)
    return _NATIVE_TAG.get(found.group(1).lower(), "") if found else ""


# ---------------------------------------------------------------- skeleton


@frozen
class _Slot:
    """Where one part of one edition sits: an element's content, or where one would go."""

    element: Node | None
    runs: Runs
    pieces: tuple[str, ...]
    insert_at: int = 0
    indent: str = ""
    qname: str = "target"
    inherited: bool = False  # an ignorable's target that stands for its source


@frozen
class _Part:
    kind: str  # "unit" (1.2), "segment" or "ignorable" (2.x)
    element: Node
    source: _Slot
    target: _Slot


@frozen
class _Unit:
    block_id: str
    parts: tuple[_Part, ...]
    source: Runs
    target: Runs | None
    status: str
    segmented_source: bool = False


@frozen
class _XliffSkeleton:
    text: TextSkeleton
    version: int
    units: tuple[_Unit, ...]
    target_key: str
    target_lang: str  # the file's raw target language, for xml:lang on new targets
    newline: str
    lang_on_targets: bool
    state_used: bool


# ---------------------------------------------------------------- inline reading


class _Raw:
    """A run being read: text, or a code before pairing and numbering."""

    __slots__ = ("close_of", "fields", "kind", "no_translate", "pair", "raw", "text")

    def __init__(self, kind: str, raw: str, **fields: object) -> None:
        self.kind = kind  # "text", "ph", "open", "close", "half-open", "half-close"
        self.raw = raw
        self.text = ""
        self.no_translate = False
        self.pair: object = None
        self.close_of: _Raw | None = None
        self.fields: dict[str, object] = fields


def _text(raw: str, no_translate: bool) -> _Raw:
    run = _Raw("text", raw)
    run.text = decode_gap(raw)
    run.no_translate = no_translate
    return run


class _InlineReader:
    """Turns the content of a source or target element into provisional runs."""

    def __init__(self, text: str, version: int, data_refs: Mapping[str, str] | None = None) -> None:
        self.text = text
        self.version = version
        self.namespaces = _NS1 if version == 1 else _NS2
        self.data_refs = data_refs or {}

    def read(self, element: Node, no_translate: bool = False) -> list[_Raw]:
        out: list[_Raw] = []
        for item in element.items():
            if isinstance(item, tuple):
                out.append(_text(self.text[item[0] : item[1]], no_translate))
            elif item.kind != "element":
                kind = "xml:comment" if item.kind == "comment" else "xml:pi"
                out.append(
                    _Raw("ph", self.text[item.start : item.end], type="code:tag", sub_type=kind)
                )
            elif item.ns not in self.namespaces:
                out.append(self._opaque(item))
            elif self.version == 1:
                self._code1(item, out, no_translate)
            else:
                self._code2(item, out, no_translate)
        return out

    def _whole(self, node: Node) -> str:
        return self.text[node.start : node.end]

    def _opaque(self, node: Node) -> _Raw:
        return _Raw("ph", self._whole(node), type="code:tag", sub_type=f"xlf:{node.local}")

    def _pair(self, node: Node, out: list[_Raw], no_translate: bool, **fields: object) -> None:
        equiv_end = fields.pop("equiv_end", "")
        opening = _Raw("open", self.text[node.start : node.content_start], **fields)
        closing = _Raw(
            "close",
            self.text[node.content_end : node.end],
            type=fields.get("type", ""),
            sub_type=fields.get("sub_type", ""),
            equiv=equiv_end,
        )
        opening.pair = closing.pair = object()
        out.append(opening)
        out.extend(self.read(node, no_translate))
        out.append(closing)

    def _inner(self, node: Node) -> str:
        return decode_gap(self.text[node.content_start : node.content_end])

    def _code1(self, node: Node, out: list[_Raw], no_translate: bool) -> None:
        local = node.local
        attrs = node.attrs
        sub_type = f"xlf:{local}"
        ctype = _CTYPE.get(attrs.get("ctype", ""), "")
        if local in ("g", "mrk") and not node.empty:
            protected = local == "mrk" and attrs.get("mtype") == "protected"
            kind = (ctype or "code:tag") if local == "g" else "code:tag"
            self._pair(
                node,
                out,
                no_translate or protected,
                type=kind,
                sub_type=sub_type,
                attrs=_link_attrs(kind, attrs.get("href", "")),
            )
        elif local == "x":
            out.append(self._x(node))
        elif local in ("bx", "ex", "bpt", "ept"):
            native = self._inner(node) if local in ("bpt", "ept") else ""
            kind = _native_type(native) or ctype or "code:tag"
            half = "half-open" if local in ("bx", "bpt") else "half-close"
            run = _Raw(half, self._whole(node), type=kind, sub_type=sub_type)
            if kind == "link:hyperlink":
                run.fields["attrs"] = _href_attrs(native)
            key = attrs.get("rid") or attrs.get("id", "")
            run.pair = ("b" if local in ("bx", "ex") else "pt", key)
            out.append(run)
        elif local == "ph":
            native = self._inner(node)
            out.append(self._placeholder(node, native, ctype, attrs.get("equiv-text")))
        else:  # it, g/mrk as empty elements, anything unknown
            native = self._inner(node) if local == "it" else ""
            kind = _native_type(native) if local == "it" else ""
            out.append(_Raw("ph", self._whole(node), type=kind or "code:tag", sub_type=sub_type))

    def _x(self, node: Node) -> _Raw:
        attrs = node.attrs
        unit_id = attrs.get("id", "")
        kind = _CTYPE.get(attrs.get("ctype", ""), "")
        if unit_id == "LINE_BREAK":
            kind = "fmt:linebreak"
        elif unit_id.startswith("TAG_IMG"):
            kind = "media:image"
        elif unit_id.startswith(("START_", "CLOSE_")):
            kind = "code:tag"
        if kind == "fmt:linebreak":
            equiv = "\n"
        elif kind in ("", "code:placeholder"):
            kind = "code:placeholder"
            equiv = attrs.get("equiv-text", "")
        else:
            kind = kind if kind in ("media:image",) else "code:tag"
            equiv = ""
        return _Raw("ph", self._whole(node), type=kind, sub_type="xlf:x", equiv=equiv)

    def _placeholder(self, node: Node, native: str, ctype: str, equiv: str | None) -> _Raw:
        kind = _native_type(native) or ctype
        if kind == "fmt:linebreak":
            text = "\n"
        elif kind == "media:image":
            text = ""
        elif native.lstrip().startswith("<"):
            kind, text = "code:tag", ""
        else:
            kind, text = "code:placeholder", native
        if equiv is not None:
            text = equiv
        return _Raw("ph", self._whole(node), type=kind, sub_type=f"xlf:{node.local}", equiv=text)

    def _code2(self, node: Node, out: list[_Raw], no_translate: bool) -> None:
        local = node.local
        attrs = node.attrs
        sub_type = f"xlf:{local}"
        if local in ("pc", "mrk") and not node.empty:
            kind = _type2(attrs, "code:tag") if local == "pc" else "code:tag"
            self._pair(
                node,
                out,
                no_translate or (local == "mrk" and attrs.get("translate") == "no"),
                type=kind,
                sub_type=sub_type,
                equiv=attrs.get("equivStart", ""),
                equiv_end=attrs.get("equivEnd", ""),
                disp=attrs.get("dispStart", ""),
            )
        elif local == "ph":
            kind = _type2(attrs, "code:placeholder")
            equiv = attrs.get("equiv")
            if equiv is None:
                equiv = "\n" if kind == "fmt:linebreak" else ""
                native = self.data_refs.get(attrs.get("dataRef", ""), "")
                if kind == "code:placeholder" and native and not native.lstrip().startswith("<"):
                    equiv = native
            out.append(
                _Raw(
                    "ph",
                    self._whole(node),
                    type=kind,
                    sub_type=sub_type,
                    equiv=equiv,
                    disp=attrs.get("disp", ""),
                )
            )
        elif local == "cp":
            try:
                char = chr(int(attrs.get("hex", ""), 16))
            except ValueError:
                char = ""
            out.append(
                _Raw("ph", self._whole(node), type="entity:char", sub_type=sub_type, equiv=char)
            )
        elif local in ("sc", "sm") and attrs.get("isolated") != "yes":
            run = _Raw(
                "half-open",
                self._whole(node),
                type=_type2(attrs, "code:tag"),
                sub_type=sub_type,
                equiv=attrs.get("equiv", ""),
                disp=attrs.get("disp", ""),
            )
            run.pair = (local, attrs.get("id", ""))
            out.append(run)
        elif local in ("ec", "em") and attrs.get("startRef"):
            run = _Raw(
                "half-close",
                self._whole(node),
                type=_type2(attrs, "code:tag"),
                sub_type=sub_type,
                equiv=attrs.get("equiv", ""),
            )
            run.pair = ("sc" if local == "ec" else "sm", attrs["startRef"])
            out.append(run)
        else:
            out.append(
                _Raw(
                    "ph",
                    self._whole(node),
                    type=_type2(attrs, "code:tag"),
                    sub_type=sub_type,
                    equiv=attrs.get("equiv", ""),
                    disp=attrs.get("disp", ""),
                )
            )


def _type2(attrs: Mapping[str, str], default: str) -> str:
    sub = attrs.get("subType", "")
    if sub in _SUBTYPE2:
        return _SUBTYPE2[sub]
    kind = attrs.get("type", "")
    if kind == "link":
        return "link:hyperlink"
    if kind == "image":
        return "media:image"
    return default


def _link_attrs(kind: str, href: str) -> dict[str, str]:
    return {"href": href} if kind == "link:hyperlink" and href else {}


def _href_attrs(native: str) -> dict[str, str]:
    found = _HREF.search(native)
    return {"href": found.group(2)} if found else {}


def _finish(raws: Sequence[_Raw]) -> tuple[Runs, tuple[str, ...]]:
    """Pair the halves, number the codes 1, 2, … and build the runs with their raw text."""
    pending: dict[object, list[_Raw]] = defaultdict(list)
    for raw in raws:
        if raw.kind == "half-open":
            pending[raw.pair].append(raw)
        elif raw.kind == "half-close":
            openers = pending.get(raw.pair)
            if openers:
                opener = openers.pop()
                opener.kind, raw.kind = "open", "close"
                raw.close_of = opener
                shared = object()
                opener.pair = raw.pair = shared
                raw.fields["type"] = opener.fields.get("type", raw.fields.get("type", ""))
    runs: list[Run] = []
    pieces: list[str] = []
    number = 0
    ids: dict[int, str] = {}
    for raw in raws:
        pieces.append(raw.raw)
        fields = raw.fields
        if raw.kind == "text":
            runs.append(Text(raw.text, no_translate=raw.no_translate))
            continue
        if raw.kind == "close":
            code_id = ids.get(id(raw.pair), "")
            runs.append(
                PcClose(
                    id=code_id,
                    type=str(fields.get("type", "")),
                    sub_type=str(fields.get("sub_type", "")),
                    data=raw.raw,
                    equiv=str(fields.get("equiv", "")),
                )
            )
            continue
        number += 1
        code_id = str(number)
        found_attrs = fields.get("attrs")
        code_attrs = dict(found_attrs) if isinstance(found_attrs, dict) else {}
        if raw.kind == "open":
            ids[id(raw.pair)] = code_id
        kind: type[PcOpen] | type[Ph] = PcOpen if raw.kind == "open" else Ph
        runs.append(
            kind(
                id=code_id,
                type=str(fields.get("type", "")),
                sub_type=str(fields.get("sub_type", "")),
                data=raw.raw,
                equiv=str(fields.get("equiv", "")),
                disp=str(fields.get("disp", "")),
                attrs=code_attrs,
            )
        )
    return tuple(runs), tuple(pieces)


# ---------------------------------------------------------------- reading


class _Reader:
    """Reads one XLIFF file (either version) into blocks and a skeleton."""

    def __init__(self, text: str, path: str, locale: str, version: int, limits: Limits) -> None:
        self.text = text
        self.path = path
        self.locale = locale
        self.version = version
        self.limits = limits
        self.namespaces = _NS1 if version == 1 else _NS2
        self.blocks: list[Block] = []
        self.units: list[_Unit] = []
        self.source_lang = ""
        self.target_lang = ""
        self.lang_on_targets = False
        self.state_used = False
        self.file_keys: list[tuple[str, str]] = []  # (file key, unit id) per block
        self.target_lang_raw = ""
        self.unnamed_files: set[str] = set()

    def error(self, message: str, node: Node | None, code: str = "invalid") -> FormatError:
        index = node.start if node is not None else 0
        line, column = line_column(self.text, index)
        return FormatError(
            message, path=self.path, line=line, column=column, offset=index, code=code
        )

    def child(self, node: Node, local: str) -> Node | None:
        for child in node.elements(local):
            if child.ns in self.namespaces:
                return child
        return None

    def canonical(self, tag: str, node: Node) -> str:
        try:
            return canonical_locale(tag.strip())
        except EditionKeyError as err:
            raise self.error(f"{tag!r} is not a language tag: {err}", node) from None

    def language(self, current: str, value: str, node: Node, what: str) -> str:
        if not value:
            return current
        canonical = self.canonical(value, node)
        if current and canonical != current:
            raise self.error(
                f"this file mixes {what}s {current!r} and {canonical!r}; "
                "kapi reads XLIFF files with one language pair (split the file)",
                node,
                code="unsupported",
            )
        return canonical

    # -- structure

    def read_root(self, root: Node) -> None:
        if root.local != "xliff" or root.ns not in (_NS1 | _NS2):
            raise self.error("not an XLIFF document (the root element is not <xliff>)", root)
        version = root.attrs.get("version", "")
        major = 2 if version.startswith("2") or root.ns.endswith((":2.0", ":2.1", ":2.2")) else 1
        if major != self.version:
            other = "xliff2" if major == 2 else "xliff"
            raise self.error(
                f"this is XLIFF {version or major}; read it with the {other!r} format",
                root,
                code="unsupported",
            )
        if self.version == 2:
            self.source_lang = self.language("", root.attrs.get("srcLang", ""), root, "source")
            self.target_lang_raw = root.attrs.get("trgLang", "")
            self.target_lang = self.language("", self.target_lang_raw, root, "target")
        for index, file_node in enumerate(root.elements("file")):
            if file_node.ns not in self.namespaces:
                continue
            if self.version == 1:
                self.source_lang = self.language(
                    self.source_lang,
                    file_node.attrs.get("source-language", ""),
                    file_node,
                    "source",
                )
                raw_target = file_node.attrs.get("target-language", "")
                self.target_lang = self.language(self.target_lang, raw_target, file_node, "target")
                self.target_lang_raw = self.target_lang_raw or raw_target
                key = file_node.attrs.get("original", "")
                if not key:
                    key = f"file{index + 1}"
                    self.unnamed_files.add(key)
                for body in file_node.elements("body"):
                    self.walk(body, key, translate=True)
            else:
                key = file_node.attrs.get("id", "")
                if not key:
                    key = f"file{index + 1}"
                    self.unnamed_files.add(key)
                self.walk(file_node, key, translate=file_node.attrs.get("translate") != "no")

    def walk(self, node: Node, file_key: str, translate: bool) -> None:
        unit_name = "trans-unit" if self.version == 1 else "unit"
        for child in node.elements():
            if child.ns not in self.namespaces:
                continue
            flag = child.attrs.get("translate")
            inherited = translate if flag is None else flag != "no"
            if child.local == "group":
                self.walk(child, file_key, inherited)
            elif child.local == unit_name:
                if len(self.units) >= self.limits.max_entries:
                    raise self.error(
                        f"more than {self.limits.max_entries} units",
                        child,
                        code="budget_exceeded",
                    )
                self.file_keys.append((file_key, child.attrs.get("id", "")))
                if self.version == 1:
                    self.unit1(child, file_key, inherited)
                else:
                    self.unit2(child, file_key, inherited)

    def insertion(self, parent: Node, anchor: Node, source: Node) -> tuple[int, str]:
        """Where a new target goes (after ``anchor``) and the whitespace put before it."""
        siblings = parent.children
        position = siblings.index(anchor)
        if position + 1 < len(siblings):
            gap = self.text[anchor.end : siblings[position + 1].start]
            if not gap.strip():
                return anchor.end, gap
        position = siblings.index(source)
        before = siblings[position - 1].end if position else parent.content_start
        gap = self.text[before : source.start]
        return anchor.end, gap if not gap.strip() else ""

    def target_qname(self, source: Node) -> str:
        qname = source.qname(self.text)
        prefix = qname[: -len("source")] if qname.endswith("source") else ""
        return f"{prefix}target"

    def slot(self, element: Node, reader: _InlineReader, **extra: object) -> _Slot:
        runs, pieces = _finish(reader.read(element))
        return _Slot(element=element, runs=runs, pieces=pieces, **extra)  # type: ignore[arg-type]

    def notes(self, unit: Node) -> str:
        holder = unit if self.version == 1 else self.child(unit, "notes")
        if holder is None:
            return ""
        texts = [
            decode_gap(self.text[note.content_start : note.content_end])
            for note in holder.elements("note")
            if note.ns in self.namespaces and not note.children
        ]
        return "\n".join(texts)

    # -- XLIFF 1.2

    def unit1(self, unit: Node, file_key: str, translate: bool) -> None:
        source = self.child(unit, "source")
        if source is None:
            raise self.error("<trans-unit> without <source>", unit)
        seg_source = self.child(unit, "seg-source")
        target = self.child(unit, "target")
        reader = _InlineReader(self.text, 1)
        source_slot = self.slot(source, reader)
        qname = self.target_qname(source)
        if target is not None:
            target_slot = self.slot(target, reader, qname=qname)
            self.lang_on_targets = self.lang_on_targets or _LANG in target.attrs
            self.state_used = self.state_used or "state" in target.attrs
        else:
            at, indent = self.insertion(unit, seg_source or source, source)
            target_slot = _Slot(None, (), (), insert_at=at, indent=indent, qname=qname)
        properties: dict[str, str] = {}
        for name in ("resname", "restype", "approved"):
            if name in unit.attrs:
                properties[name] = unit.attrs[name]
        if target is not None and "state" in target.attrs:
            properties["state"] = target.attrs["state"]
        if file_key not in self.unnamed_files:
            properties["file"] = file_key
        note = self.notes(unit)
        if note:
            properties["note"] = note
        status = _status1(target, unit)
        part = _Part("unit", unit, source_slot, target_slot)
        self.add(unit, (part,), translate, properties, status, seg_source is not None)

    # -- XLIFF 2.x

    def unit2(self, unit: Node, file_key: str, translate: bool) -> None:
        data_refs: dict[str, str] = {}
        original = self.child(unit, "originalData")
        if original is not None:
            for data in original.elements("data"):
                data_refs[data.attrs.get("id", "")] = decode_gap(
                    self.text[data.content_start : data.content_end]
                )
        reader = _InlineReader(self.text, 2, data_refs)
        found: list[tuple[Node, Node, Node | None, list[_Raw], list[_Raw] | None]] = []
        for element in unit.elements():
            if element.ns not in self.namespaces or element.local not in ("segment", "ignorable"):
                continue
            source = self.child(element, "source")
            if source is None:
                raise self.error(f"<{element.local}> without <source>", element)
            target = self.child(element, "target")
            source_raws = reader.read(source)
            if target is not None:
                target_raws: list[_Raw] | None = reader.read(target)
                self.lang_on_targets = self.lang_on_targets or _LANG in target.attrs
            elif element.local == "ignorable":
                target_raws = reader.read(source)  # an ignorable's target is its source
            else:
                target_raws = None
            if element.local == "segment":
                self.state_used = self.state_used or "state" in element.attrs
            found.append((element, source, target, source_raws, target_raws))
        all_source = [raw for item in found for raw in item[3]]
        all_target = [raw for item in found for raw in (item[4] or ())]
        source_runs, source_pieces = _finish(all_source)
        target_runs, target_pieces = _finish(all_target)
        parts: list[_Part] = []
        at_source = at_target = 0
        for element, source, target, source_raws, target_raws in found:
            size = len(source_raws)
            source_slot = _Slot(
                source,
                source_runs[at_source : at_source + size],
                source_pieces[at_source : at_source + size],
            )
            at_source += size
            size = len(target_raws or ())
            runs = target_runs[at_target : at_target + size]
            pieces = target_pieces[at_target : at_target + size]
            at_target += size
            qname = self.target_qname(source)
            if target is not None:
                target_slot = _Slot(target, runs, pieces, qname=qname)
            else:
                at, indent = self.insertion(element, source, source)
                target_slot = _Slot(
                    None,
                    runs,
                    pieces,
                    insert_at=at,
                    indent=indent,
                    qname=qname,
                    inherited=element.local == "ignorable",
                )
            parts.append(_Part(element.local, element, source_slot, target_slot))
        properties: dict[str, str] = {}
        if "name" in unit.attrs:
            properties["name"] = unit.attrs["name"]
        if file_key not in self.unnamed_files:
            properties["file"] = file_key
        note = self.notes(unit)
        if note:
            properties["note"] = note
        states = [
            part.element.attrs["state"]
            for part in parts
            if part.kind == "segment" and "state" in part.element.attrs
        ]
        if states:
            properties["state"] = " ".join(states)
        status = ""
        if states:
            least = min(states, key=lambda state: _RANK2.get(state, 0))
            status = "draft" if _RANK2.get(least, 0) == 0 else "translated"
        self.add(
            unit,
            tuple(parts),
            translate,
            properties,
            status,
            False,
            source=source_runs,
            target=target_runs,
        )

    # -- both

    def add(
        self,
        unit: Node,
        parts: tuple[_Part, ...],
        translate: bool,
        properties: dict[str, str],
        status: str,
        segmented: bool,
        *,
        source: Runs | None = None,
        target: Runs | None = None,
    ) -> None:
        block_id = f"tu{len(self.units) + 1}"
        if source is None:
            source = parts[0].source.runs
        has_target = any(
            part.target.element is not None and part.target.runs and part.kind != "ignorable"
            for part in parts
        )
        if not has_target:
            target = None
        elif target is None:
            target = parts[0].target.runs
        targets: dict[str, Edition] = {}
        if target is not None and self.target_lang:
            targets[self.target_lang] = Edition(runs=target, status=status)
        else:
            target = None
            status = ""
        locale = self.source_lang or self.locale
        self.blocks.append(
            Block(
                id=block_id,
                source=source,
                name=unit.attrs.get("id", ""),
                translatable=translate,
                locale=locale,
                targets=targets,
                properties=properties,
            )
        )
        self.units.append(_Unit(block_id, parts, source, target, status, segmented))

    def finish_names(self) -> list[Block]:
        files_of: dict[str, set[str]] = defaultdict(set)
        for file_key, unit_id in self.file_keys:
            files_of[unit_id].add(file_key)
        out: list[Block] = []
        for block, (file_key, unit_id) in zip(self.blocks, self.file_keys):
            if unit_id and len(files_of[unit_id]) > 1:
                block = evolve(block, name=f"{file_key}\u0004{unit_id}")
            out.append(block)
        return out


def _status1(target: Node | None, unit: Node) -> str:
    if target is None:
        return ""
    state = target.attrs.get("state", "")
    if state in _DONE_STATES1:
        return "translated"
    if state == "new" or state.startswith("needs-"):
        return "draft"
    if not state and unit.attrs.get("approved") == "yes":
        return "translated"
    return ""


def _read(data: bytes, path: str, locale: str, version: int, limits: Limits) -> Document:
    text, encoding, bom = decode_xml(data, path=path, limits=limits)
    root = parse_xml(text, path=path, limits=limits)
    own = "en"
    if locale:
        try:
            own = canonical_locale(locale)
        except EditionKeyError:
            own = locale
    reader = _Reader(text, path, own, version, limits)
    reader.read_root(root)
    blocks = reader.finish_names()
    skeleton = _XliffSkeleton(
        text=TextSkeleton(text=text, encoding=encoding, bom=bom),
        version=version,
        units=tuple(reader.units),
        target_key=reader.target_lang,
        target_lang=reader.target_lang_raw,
        newline=newline_of(text),
        lang_on_targets=reader.lang_on_targets,
        state_used=reader.state_used,
    )
    return Document(
        format="xliff" if version == 1 else "xliff2",
        blocks=tuple(blocks),
        locale=reader.source_lang or own,
        target_locale=reader.target_lang,
        skeleton=skeleton,
    )


# ---------------------------------------------------------------- writing


class _Renderer:
    """Renders runs of one unit into XLIFF markup, synthesising new codes where it can."""

    def __init__(self, skeleton: _XliffSkeleton, unit: _Unit, block: Block) -> None:
        self.skeleton = skeleton
        self.block = block
        self.known: dict[str, str] = {}
        used: set[str] = set()
        for part in unit.parts:
            for slot in (part.source, part.target):
                for run, piece in zip(slot.runs, slot.pieces):
                    if isinstance(run, Text):
                        self.known.setdefault(run.text, piece)
                    else:
                        used.update(_ID_ATTR.findall(piece))
        numbers = [int(value) for value in used if value.isdigit()]
        self.next_id = max(numbers, default=0) + 1
        self.synthesised: dict[str, str] = {}  # code id -> closing markup

    def escape(self, value: str) -> str:
        text = self.skeleton.text
        return escape_text(
            value, encoding=text.encoding, newline=self.skeleton.newline, block=self.block.id
        )

    def render(self, runs: Runs, slot: _Slot, prefix: str) -> str:
        out: list[str] = []
        open_tags: list[str] = []
        for index, run in enumerate(runs):
            if isinstance(run, Text):
                old = slot.runs[index] if index < len(slot.runs) else None
                if isinstance(old, Text):
                    out.append(render_text(run.text, slot.pieces[index], self.escape))
                elif run.text in self.known:
                    out.append(self.known[run.text])
                else:
                    out.append(self.escape(run.text))
                continue
            if isinstance(run, PcOpen):
                data = run.data or self.synthesise(run, prefix)
                found = _BARE_START.match(data)
                if found:
                    open_tags.append(found.group(1))
                out.append(data)
            elif isinstance(run, PcClose):
                data = run.data or self.synthesised.get(run.id, "")
                if not data:
                    data = self.close_for(run, runs[:index])
                found = _BARE_END.match(data)
                if found:
                    if not open_tags or open_tags[-1] != found.group(1):
                        raise WriteRefused(
                            f"block {self.block.id}: the paired codes cross each other "
                            "(or cross a segment boundary); XML elements must nest",
                            capability="code-order",
                            block=self.block.id,
                        )
                    open_tags.pop()
                out.append(data)
            elif isinstance(run, Ph):
                out.append(run.data or self.synthesise(run, prefix))
            else:
                raise WriteRefused(
                    f"block {self.block.id}: XLIFF cannot hold a {type(run).__name__} run",
                    capability=f"run:{type(run).__name__.lower()}",
                    block=self.block.id,
                )
        if open_tags:
            raise WriteRefused(
                f"block {self.block.id}: <{open_tags[-1]}> is opened and not closed "
                "(or its close is in another segment)",
                capability="code-order",
                block=self.block.id,
            )
        return "".join(out)

    def synthesise(self, run: Ph | PcOpen, prefix: str) -> str:
        number = str(self.next_id)
        if self.skeleton.version == 1:
            ctype = {"fmt:bold": "bold", "fmt:italic": "italic", "fmt:underline": "underlined"}
            if isinstance(run, PcOpen) and run.type in ctype:
                self.next_id += 1
                self.synthesised[run.id] = f"</{prefix}g>"
                return f'<{prefix}g id="{number}" ctype="{ctype[run.type]}">'
            if isinstance(run, Ph) and run.type == "fmt:linebreak":
                self.next_id += 1
                return f'<{prefix}x id="{number}" ctype="lb"/>'
        else:
            sub = {"fmt:bold": "xlf:b", "fmt:italic": "xlf:i", "fmt:underline": "xlf:u"}
            if isinstance(run, PcOpen) and run.type in sub:
                self.next_id += 1
                self.synthesised[run.id] = f"</{prefix}pc>"
                return f'<{prefix}pc id="{number}" type="fmt" subType="{sub[run.type]}">'
            if isinstance(run, Ph) and run.type == "fmt:linebreak":
                self.next_id += 1
                return f'<{prefix}ph id="{number}" type="fmt" subType="xlf:lb"/>'
        raise WriteRefused(
            f"block {self.block.id}: cannot make XLIFF markup for a new {run.type or 'untyped'} code",
            capability=f"synthesize:{run.type}",
            block=self.block.id,
        )

    def close_for(self, run: PcClose, before: Runs) -> str:
        for earlier in reversed(before):
            if isinstance(earlier, PcOpen) and earlier.id == run.id and earlier.data:
                found = _BARE_START.match(earlier.data)
                if found:
                    return f"</{found.group(1)}>"
        raise WriteRefused(
            f"block {self.block.id}: cannot make XLIFF markup for the new closing code {run.id}",
            capability=f"synthesize:{run.type}",
            block=self.block.id,
        )


def _prefix(qname: str) -> str:
    return qname[: qname.index(":") + 1] if ":" in qname else ""


def _same_shape(new: Runs, old: Runs) -> bool:
    if len(new) != len(old):
        return False
    return all(type(a) is type(b) for a, b in zip(new, old))


def _atoms(runs: Runs) -> list[object]:
    out: list[object] = []
    for run in runs:
        if isinstance(run, Text):
            out.extend((char, run.no_translate) for char in run.text)
        else:
            out.append(run)
    return out


def _from_atoms(atoms: Sequence[object]) -> Runs:
    runs: list[Run] = []
    chars: list[str] = []
    flag: bool | None = None
    for atom in atoms:
        if isinstance(atom, tuple):
            char, no_translate = atom
            if flag is not None and no_translate != flag:
                runs.append(Text("".join(chars), no_translate=flag))
                chars = []
            chars.append(char)
            flag = no_translate
        else:
            if chars:
                runs.append(Text("".join(chars), no_translate=bool(flag)))
                chars, flag = [], None
            runs.append(atom)  # type: ignore[arg-type]
    if chars:
        runs.append(Text("".join(chars), no_translate=bool(flag)))
    return tuple(runs)


def _split(
    new: Runs,
    old_parts: Sequence[Runs],
    layouts: Sequence[Sequence[Runs]],
    kinds: Sequence[str],
    *,
    diff: bool = True,
) -> list[Runs] | None:
    """New runs divided among the parts (segments, ignorables), or None when it is unclear."""
    if len(old_parts) == 1:
        return [new]
    for layout in layouts:
        flat = tuple(run for runs in layout for run in runs)
        if _same_shape(new, flat):
            out: list[Runs] = []
            cursor = 0
            for runs in layout:
                out.append(new[cursor : cursor + len(runs)])
                cursor += len(runs)
            return out
    if not diff:
        return None
    old_atoms = [_atoms(runs) for runs in old_parts]
    flat_old = [atom for atoms in old_atoms for atom in atoms]
    flat_new = _atoms(new)
    head = 0
    limit = min(len(flat_old), len(flat_new))
    while head < limit and flat_old[head] == flat_new[head]:
        head += 1
    tail = 0
    while tail < limit - head and flat_old[-1 - tail] == flat_new[-1 - tail]:
        tail += 1
    changed_end = len(flat_old) - tail
    candidates: list[int] = []
    start = 0
    for index, atoms in enumerate(old_atoms):
        end = start + len(atoms)
        if start <= head and changed_end <= end:
            candidates.append(index)
        start = end
    if not candidates:
        return None
    segments = [index for index in candidates if kinds[index] != "ignorable"]
    chosen = (segments or candidates)[0]
    start = sum(len(atoms) for atoms in old_atoms[:chosen])
    atoms = old_atoms[chosen]
    middle = flat_new[head : len(flat_new) - tail]
    replaced = atoms[: head - start] + middle + atoms[changed_end - start :]
    out = list(old_parts)
    out[chosen] = _from_atoms(replaced)
    return out


def _state_for(status: str, version: int) -> str:
    return (_STATE1_FOR if version == 1 else _STATE2_FOR).get(status, "")


def _unit_edits(skeleton: _XliffSkeleton, unit: _Unit, block: Block) -> list[Edit]:
    text = skeleton.text.text
    edits: list[Edit] = []
    renderer: _Renderer | None = None
    kinds = [part.kind for part in unit.parts]

    def refuse(edition: str) -> WriteRefused:
        return WriteRefused(
            f"block {block.id} ({block.name}): unit has {len(unit.parts)} segments and the "
            f"{edition} edit spans several; keep the text of each segment in its own runs "
            "or edit one segment at a time",
            capability="edition",
            block=block.id,
        )

    if block.source != unit.source:
        if unit.segmented_source:
            raise WriteRefused(
                f"block {block.id} ({block.name}): the source of a segmented unit "
                "(<seg-source>) cannot be edited here",
                capability="edition",
                block=block.id,
            )
        old = [part.source.runs for part in unit.parts]
        split = _split(block.source, old, [old], kinds)
        if split is None:
            raise refuse("source")
        renderer = _Renderer(skeleton, unit, block)
        for part, runs in zip(unit.parts, split):
            slot = part.source
            if runs != slot.runs and slot.element is not None:
                content = renderer.render(runs, slot, _prefix(slot.element.qname(text)))
                edits.extend(rewrite_element(text, slot.element, content=content))

    for key in block.targets:
        if key != skeleton.target_key:
            held = skeleton.target_key or "no target language"
            raise WriteRefused(
                f"block {block.id} ({block.name}): this XLIFF file holds {held!r}; "
                f"it has no place for the {key!r} edition",
                capability="edition",
                block=block.id,
            )
    if not skeleton.target_key:
        return edits
    edition = block.targets.get(skeleton.target_key)
    if edition is None:
        return edits
    old_target = unit.target or ()
    runs_changed = edition.runs != old_target
    new_state = ""
    if edition.status != unit.status and (unit.target is not None or edition.runs):
        new_state = _state_for(edition.status, skeleton.version)
    if not runs_changed and not new_state:
        return edits
    renderer = renderer or _Renderer(skeleton, unit, block)
    old_parts = [part.target.runs for part in unit.parts]
    if runs_changed:
        layouts: list[list[Runs]] = []
        if unit.target is not None:
            layouts.append(old_parts)
        layouts.append([part.source.runs for part in unit.parts])
        split = _split(edition.runs, old_parts, layouts, kinds, diff=unit.target is not None)
        if split is None:
            raise refuse("target")
        per_part = split
    else:
        per_part = old_parts
    for part, runs in zip(unit.parts, per_part):
        slot = part.target
        will_hold = bool(runs) if slot.element is None else True
        attributes: dict[str, str] = {}
        state_node = slot.element if skeleton.version == 1 else part.element
        if (
            new_state
            and part.kind != "ignorable"
            and will_hold
            and (skeleton.state_used or (state_node is not None and "state" in state_node.attrs))
        ):
            attributes["state"] = new_state
        changed = runs != slot.runs
        if skeleton.version == 2 and attributes:
            edits.extend(rewrite_element(text, part.element, attributes=attributes))
            attributes = {}
        if slot.element is not None:
            new_content = renderer.render(runs, slot, _prefix(slot.qname)) if changed else None
            if new_content is not None or attributes:
                edits.extend(
                    rewrite_element(text, slot.element, content=new_content, attributes=attributes)
                )
        elif changed and runs:
            content = renderer.render(runs, slot, _prefix(slot.qname))
            edits.append(
                (
                    slot.insert_at,
                    slot.insert_at,
                    slot.indent + _new_target(skeleton, slot, attributes, content),
                )
            )
    return edits


def _new_target(
    skeleton: _XliffSkeleton, slot: _Slot, attributes: dict[str, str], content: str
) -> str:
    pairs: list[tuple[str, str]] = []
    if skeleton.lang_on_targets and skeleton.target_lang:
        pairs.append(("xml:lang", skeleton.target_lang))
    pairs.extend(attributes.items())
    attrs = "".join(f' {name}="{escape_attribute(value)}"' for name, value in pairs)
    return f"<{slot.qname}{attrs}>{content}</{slot.qname}>"


def _write(document: Document, version: int) -> bytes:
    skeleton = document.skeleton
    if not isinstance(skeleton, _XliffSkeleton) or skeleton.version != version:
        raise WriteRefused(
            "this document was not read from an XLIFF file of this version; "
            "kapi writes XLIFF only back over the file it read",
            capability="generate",
        )
    units = {unit.block_id: unit for unit in skeleton.units}
    edits: list[Edit] = []
    for block in document.blocks:
        unit = units.get(block.id)
        if unit is None:
            raise WriteRefused(
                f"block {block.id} is not in the XLIFF file; new units cannot be added",
                capability="structure",
                block=block.id,
            )
        edits.extend(_unit_edits(skeleton, unit, block))
    body = apply_edits(skeleton.text.text, edits)
    return skeleton.text.bom + body.encode(skeleton.text.encoding)


class Xliff1Format:
    """XLIFF 1.2 (1.0 and 1.1 too): ``<trans-unit>`` blocks, spliced back into the file."""

    name = "xliff"

    def __init__(self, limits: Limits = DEFAULT_LIMITS) -> None:
        self.limits = limits

    def read(self, data: bytes, *, path: str = "", locale: str = "") -> Document:
        return _read(data, path, locale, 1, self.limits)

    def write(self, document: Document) -> bytes:
        return _write(document, 1)


class Xliff2Format:
    """XLIFF 2.0/2.1/2.2: one block per ``<unit>``, segments kept, spliced back into the file."""

    name = "xliff2"

    def __init__(self, limits: Limits = DEFAULT_LIMITS) -> None:
        self.limits = limits

    def read(self, data: bytes, *, path: str = "", locale: str = "") -> Document:
        return _read(data, path, locale, 2, self.limits)

    def write(self, document: Document) -> bytes:
        return _write(document, 2)
