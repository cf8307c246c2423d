"""Word documents (.docx, .docm, .dotx): paragraphs as blocks, edited in place in the zip.

Blocks: every ``w:p`` with text in the main document, the headers and
footers, footnotes, endnotes and comments it relates to, and text boxes
(``w:txbxContent``) inside any of them. A block's id and name are
``<part>#p<n>`` (``word/document.xml#p12``), ``n`` counting every paragraph of
the part from 1 in document order, so names stay put when text changes.
After each part come the charts it relates to: ``<chart part>#<path>``
(``word/charts/chart1.xml#title/p1``, ``…#series2``; see
:mod:`kapi.formats.office.chart`); a series name edited is written into the
chart's cache and its embedded workbook (:mod:`kapi.formats.office.embedded`). Roles:
``heading`` with ``level`` (a style named ``heading N`` or ``Title``, or an
outline level, inherited through ``basedOn``), ``list-item`` with ``level``
(``ilvl`` + 1, numbering on the paragraph or its style), ``table-cell``.
The document's language is the ``locale`` argument, else the styles'
default ``w:lang``, else ``en`` (a run's ``w:lang`` is a proofing setting, so
an explicit locale wins).

Runs become text and codes:

* Formatting: a paragraph's base formatting makes no code: runs without
  ``w:rPr`` if it has any, else the run properties under most of its text. A stretch of sibling runs whose ``w:rPr`` differs
  from the base (equal runs merged, ``w:rsid*`` ignored, so words Word split
  by revision ids are one text) is a pair ``fmt:bold`` / ``fmt:italic`` /
  ``fmt:underline`` / ``fmt:strikethrough`` / ``fmt:superscript`` /
  ``fmt:subscript`` / ``fmt:style`` with sub_type ``docx:run``; its open
  ``data`` is the first run's start tag and ``w:rPr``, its close ``</w:r>``.
  A differently formatted run with no text is one standalone code.
* ``w:hyperlink`` -> ``link:hyperlink`` pair (``href`` from the relationship,
  or ``#anchor``); ``w:sdt``, ``w:smartTag``, ``w:customXml`` -> ``code:tag``
  pairs; ``w:fldSimple`` -> ``code:field`` pair around its result.
* Complex fields: the runs from ``begin`` to ``separate`` (the field code,
  hidden) are one ``code:field`` placeholder, the result text stays editable
  text, the ``end`` run is another placeholder. A field code may span
  paragraphs (a table of contents); each paragraph gets its own piece.
* ``w:tab`` -> ``fmt:tab`` (equiv ``\\t``), ``w:br``/``w:cr`` ->
  ``fmt:linebreak`` (page and column breaks ``fmt:break``), ``w:sym``/hyphens
  -> ``entity:char``, drawings and pictures -> ``media:image``, footnote and
  endnote references, comment references -> ``code:tag``; bookmarks and
  comment ranges inside the text -> ``code:tag`` (at the paragraph's edges they
  stay in the skeleton); math -> ``code:tag``.
* Tracked changes: ``w:ins``/``w:moveTo`` text is visible text inside a
  ``code:tag`` pair (``docx:ins``); ``w:del``/``w:moveFrom`` is a placeholder
  with no text. An edit that changes text inside an insertion, or moves any
  code of a paragraph with tracked changes, is refused (``editable``); text
  outside them is edited normally. Revisions are never accepted or rejected.
* A text box written twice (``mc:Choice`` and the ``mc:Fallback`` copy for
  old readers) is one block; an edit is applied to both copies when the
  fallback holds the same runs, else the fallback is left as it was.

Writing: see :mod:`kapi.formats.office.inline` (a tab or newline in edited
text becomes ``w:tab``/``w:br``; a new line break or tab code without markup
is made as ``<w:br/>``/``<w:tab/>``; other new codes need their ``data``).
Limits: those of :mod:`kapi.formats.office.package`, plus ``max_depth``
nesting in any part.
"""

from __future__ import annotations

import re
from collections import Counter

from attrs import frozen

from kapi.core.edition import EditionKeyError, canonical_locale
from kapi.core.format import WriteRefused
from kapi.core.model import Block, Document, PcClose, PcOpen, Ph
from kapi.formats.common import canonical_or_error
from kapi.formats.office.chart import ChartValue, chart_blocks, chart_parts
from kapi.formats.office.codec import ParagraphFormat, ParagraphsSkeleton
from kapi.formats.office.embedded import update_workbooks
from kapi.formats.office.inline import (
    CONTAINER,
    OUTER_LEVEL,
    RUN_LEVEL,
    RUN_PAIR,
    STANDALONE,
    CodeInfo,
    Dialect,
    InlineBuilder,
    ParagraphSkeleton,
    PartEdits,
    choose_base,
)
from kapi.formats.office.package import (
    OfficePackage,
    Relationship,
)
from kapi.formats.office.xmlsplice import Ancestors, Element, escape_text

__all__ = ["DocxFormat"]

_STORY_PARTS = ("header", "footer", "footnotes", "endnotes", "comments")
_CONTAINERS = frozenset(
    {
        "w:hyperlink",
        "w:ins",
        "w:moveTo",
        "w:smartTag",
        "w:customXml",
        "w:fldSimple",
        "w:dir",
        "w:bdo",
        "w:sdt",
    }
)
_CONTAINER_PROPERTIES = frozenset({"w:smartTagPr", "w:customXmlPr"})
_MARKERS = frozenset(
    {
        "w:bookmarkStart",
        "w:bookmarkEnd",
        "w:commentRangeStart",
        "w:commentRangeEnd",
        "w:permStart",
        "w:permEnd",
        "w:moveFromRangeStart",
        "w:moveFromRangeEnd",
        "w:moveToRangeStart",
        "w:moveToRangeEnd",
        "w:customXmlInsRangeStart",
        "w:customXmlInsRangeEnd",
        "w:customXmlDelRangeStart",
        "w:customXmlDelRangeEnd",
        "w:customXmlMoveFromRangeStart",
        "w:customXmlMoveFromRangeEnd",
        "w:customXmlMoveToRangeStart",
        "w:customXmlMoveToRangeEnd",
    }
)
_DROPPABLE = frozenset({"w:proofErr", "w:lastRenderedPageBreak"})
_DELETIONS = frozenset({"w:del", "w:moveFrom"})
_INSERTIONS = frozenset({"w:ins", "w:moveTo"})
_FALSE = frozenset({"0", "false", "off", "none"})
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_RSID = re.compile(rb'\s+[\w.-]*:rsid\w*="[^"]*"')
_BETWEEN_TAGS = re.compile(rb">\s+<")
_HEADING_NAME = re.compile(r"heading\s*(\d)$", re.IGNORECASE)

# Run content -> (type, sub_type, equiv)
_RUN_CODES: dict[str, tuple[str, str, str]] = {
    "w:tab": ("fmt:tab", "docx:tab", "\t"),
    "w:ptab": ("fmt:tab", "docx:ptab", "\t"),
    "w:cr": ("fmt:linebreak", "docx:cr", "\n"),
    "w:noBreakHyphen": ("entity:char", "docx:noBreakHyphen", "\u2011"),
    "w:softHyphen": ("entity:char", "docx:softHyphen", "\u00ad"),
    "w:drawing": ("media:image", "docx:drawing", ""),
    "w:pict": ("media:image", "docx:pict", ""),
    "mc:AlternateContent": ("media:image", "docx:alternateContent", ""),
    "w:object": ("code:tag", "docx:object", ""),
    "w:footnoteReference": ("code:tag", "docx:footnoteReference", ""),
    "w:endnoteReference": ("code:tag", "docx:endnoteReference", ""),
    "w:commentReference": ("code:tag", "docx:commentReference", ""),
}


class DocxDialect(Dialect):
    """WordprocessingML text nodes: ``w:t`` in ``w:r``; tabs and breaks are elements."""

    def escape(self, text: str, prefix: bytes, run_open: bytes, block: str) -> tuple[bytes, str]:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        _refuse_invalid(text, block)
        pieces = re.split("([\t\n])", text)
        out = [escape_text(pieces[0]).encode("utf-8")]
        for separator, piece in zip(pieces[1::2], pieces[2::2]):
            element = b"tab" if separator == "\t" else b"br"
            out.append(
                b"</"
                + prefix
                + b"t><"
                + prefix
                + element
                + b"/><"
                + prefix
                + b't xml:space="preserve">'
                + escape_text(piece).encode("utf-8")
            )
        return b"".join(out), pieces[0]

    def synthesize(
        self, run: Ph | PcOpen | PcClose, prefix: bytes, block: str
    ) -> tuple[bytes, CodeInfo]:
        if isinstance(run, Ph) and run.type in ("fmt:linebreak", "fmt:tab"):
            element = b"br" if run.type == "fmt:linebreak" else b"tab"
            return b"<" + prefix + element + b"/>", CodeInfo(0, 0, STANDALONE, RUN_LEVEL)
        return super().synthesize(run, prefix, block)

    def classify(self, run: Ph | PcOpen | PcClose, data: bytes) -> CodeInfo:
        if not isinstance(run, Ph):
            return super().classify(run, data)
        name = re.match(rb"<(?:[\w.-]+:)?([\w.-]+)", data)
        local = name.group(1).decode("ascii") if name else ""
        run_content = {key.split(":", 1)[1] for key in _RUN_CODES} | {"br", "t", "sym"}
        level = RUN_LEVEL if local in run_content else OUTER_LEVEL
        return CodeInfo(0, 0, STANDALONE, level)


def _refuse_invalid(text: str, block: str) -> None:
    bad = _INVALID_XML.search(text)
    if bad:
        raise WriteRefused(
            f"block {block}: character U+{ord(bad.group()):04X} cannot be written in XML",
            capability="characters",
            block=block,
        )


_DIALECT = DocxDialect()


@frozen
class _Style:
    name: str
    based_on: str
    outline: int | None
    numbered: bool
    ilvl: int


@frozen
class _Styles:
    styles: dict[str, _Style]
    language: str

    def heading_level(self, style_id: str) -> int:
        seen: set[str] = set()
        current = style_id
        while current and current not in seen:
            seen.add(current)
            style = self.styles.get(current)
            if style is None:
                break
            match = _HEADING_NAME.match(style.name.strip())
            if match:
                return int(match.group(1))
            if style.name.strip().lower() == "title":
                return 1
            if style.outline is not None:
                return style.outline + 1 if style.outline < 9 else 0
            current = style.based_on
        match = re.fullmatch(r"Heading(\d)", style_id)
        return int(match.group(1)) if match else 0

    def numbering(self, style_id: str) -> tuple[bool, int]:
        seen: set[str] = set()
        current = style_id
        while current and current not in seen:
            seen.add(current)
            style = self.styles.get(current)
            if style is None:
                break
            if style.numbered:
                return True, style.ilvl
            current = style.based_on
        return False, 0


@frozen
class DocxSkeleton(ParagraphsSkeleton):
    """A Word document as read: a text box read from its fallback copy too."""


class DocxFormat(ParagraphFormat[DocxSkeleton]):
    """Word documents, edited in place (editable and round-trip, not generative)."""

    name = "docx"
    application = "Word"
    noun = "a Word document"
    skeleton_type = DocxSkeleton

    def _update_sources(
        self, package: OfficePackage, referred: list[tuple[str, ChartValue, str]], edits: PartEdits
    ) -> None:
        update_workbooks(package, referred, edits, self.limits)

    def _read(self, package: OfficePackage, path: str, locale: str) -> Document:
        main = package.main_part
        styles = _read_styles(package, main)
        doc_locale = (
            canonical_or_error(locale, path) or _canonical_or_empty(styles.language) or "en"
        )
        parts = [main]
        for relationship in package.relationships(main):
            if any(relationship.is_type(kind) for kind in _STORY_PARTS):
                entry = package.target(main, relationship)
                if entry not in parts:
                    parts.append(entry)
        blocks: list[Block] = []
        paragraphs: dict[str, tuple[tuple[str, ParagraphSkeleton], ...]] = {}
        values: dict[str, ChartValue] = {}
        charts: set[str] = set()
        for part in parts:
            reader = _PartReader(package, part, styles, doc_locale)
            blocks.extend(reader.blocks)
            paragraphs.update(reader.paragraphs)
            for chart in chart_parts(package, part, charts):
                blocks += chart_blocks(
                    package, chart, f"{chart}#", doc_locale, {}, paragraphs, values
                )
        return Document(
            format=self.name,
            blocks=tuple(blocks),
            locale=doc_locale,
            skeleton=DocxSkeleton(package, paragraphs, values),
        )


def _canonical_or_empty(tag: str) -> str:
    try:
        return canonical_locale(tag) if tag else ""
    except EditionKeyError:
        return ""


def _read_styles(package: OfficePackage, main: str) -> _Styles:
    styles: dict[str, _Style] = {}
    language = [""]
    related = package.related(main, "styles")
    if not related or package.find(related[0].target) is None:
        return _Styles(styles, "")

    def collect(element: Element, _ancestors: Ancestors) -> None:
        if element.name == "w:docDefaults":
            for lang in element.iter("w:lang"):
                language[0] = lang.attrs.get("w:val", "")
                break
            return
        style_id = element.attrs.get("w:styleId", "")
        if element.attrs.get("w:type", "paragraph") != "paragraph" or not style_id:
            return
        name = element.first("w:name")
        based_on = element.first("w:basedOn")
        properties = element.first("w:pPr")
        outline: int | None = None
        numbered, ilvl = False, 0
        if properties is not None:
            level = properties.first("w:outlineLvl")
            if level is not None and level.attrs.get("w:val", "").isdigit():
                outline = int(level.attrs["w:val"])
            numbering = properties.first("w:numPr")
            if numbering is not None:
                numbered, ilvl = _numbering(numbering)
        styles[style_id] = _Style(
            name=name.attrs.get("w:val", "") if name is not None else "",
            based_on=based_on.attrs.get("w:val", "") if based_on is not None else "",
            outline=outline,
            numbered=numbered,
            ilvl=ilvl,
        )

    package.parse(related[0].target, frozenset({"w:style", "w:docDefaults"}), collect)
    return _Styles(styles, language[0])


def _numbering(numbering: Element) -> tuple[bool, int]:
    num_id = numbering.first("w:numId")
    ilvl = numbering.first("w:ilvl")
    numbered = num_id is None or num_id.attrs.get("w:val", "0") != "0"
    level = ilvl.attrs.get("w:val", "0") if ilvl is not None else "0"
    return numbered, int(level) if level.isdigit() else 0


class _PartReader:
    """Reads the paragraphs of one part into blocks."""

    def __init__(self, package: OfficePackage, part: str, styles: _Styles, locale: str) -> None:
        self.package = package
        self.part = part
        self.styles = styles
        self.locale = locale
        self.relationships = package.targets_by_id(part)
        self.blocks: list[Block] = []
        self.paragraphs: dict[str, tuple[tuple[str, ParagraphSkeleton], ...]] = {}
        self.count = 0
        self.fields: list[str] = []  # open complex fields of the story: "code" or "result"
        self.data = package.read(part)
        package.parse(part, _wants_paragraph, self._on_paragraph, data=self.data)

    def _on_paragraph(self, paragraph: Element, ancestors: Ancestors) -> None:
        if any(name == "mc:Fallback" for name, _attrs in ancestors):
            return
        in_cell = any(name == "w:tc" for name, _attrs in ancestors)
        comment = next((attrs for name, attrs in ancestors if name == "w:comment"), None)
        nested = _nested_paragraphs(paragraph)
        numbered: dict[int, int] = {}
        for element, _is_fallback, _cell in nested:
            if not _is_fallback:
                self.count += 1
                numbered[id(element)] = self.count
        mirrors = _mirrors(paragraph)
        for element, is_fallback, cell in nested:
            if is_fallback:
                continue
            number = numbered[id(element)]
            outer = element is paragraph
            fields = self.fields if outer else []
            built = _walk_paragraph(element, self.data, self.relationships, fields)
            if built is None:
                continue
            block_id = f"{self.part}#p{number}"
            entries: list[tuple[str, ParagraphSkeleton]] = [(self.part, built)]
            for mirror in mirrors.get(id(element), ()):
                copy = _walk_paragraph(mirror, self.data, self.relationships, [])
                if copy is not None and copy.runs == built.runs:
                    entries.append((self.part, copy))
            self.paragraphs[block_id] = tuple(entries)
            self.blocks.append(
                self._block(block_id, element, built, in_cell if outer else cell, comment)
            )

    def _block(
        self,
        block_id: str,
        paragraph: Element,
        built: ParagraphSkeleton,
        in_cell: bool,
        comment: dict[str, str] | None,
    ) -> Block:
        properties: dict[str, str] = {"part": self.part}
        role, level = "", 0
        style_id = ""
        paragraph_properties = paragraph.first("w:pPr")
        own_outline: int | None = None
        numbered, ilvl = False, 0
        if paragraph_properties is not None:
            style = paragraph_properties.first("w:pStyle")
            if style is not None:
                style_id = style.attrs.get("w:val", "")
            outline = paragraph_properties.first("w:outlineLvl")
            if outline is not None and outline.attrs.get("w:val", "").isdigit():
                own_outline = int(outline.attrs["w:val"])
            numbering = paragraph_properties.first("w:numPr")
            if numbering is not None:
                numbered, ilvl = _numbering(numbering)
        if style_id:
            properties["style"] = style_id
        heading = self.styles.heading_level(style_id) if style_id else 0
        if own_outline is not None:
            heading = own_outline + 1 if own_outline < 9 else 0
        if not numbered and style_id:
            numbered, ilvl = self.styles.numbering(style_id)
        if heading:
            role, level = "heading", heading
        elif numbered:
            role, level = "list-item", ilvl + 1
        elif in_cell:
            role = "table-cell"
        if comment is not None:
            properties["comment"] = comment.get("w:id", "")
            if comment.get("w:author"):
                properties["author"] = comment["w:author"]
        return Block(
            id=block_id,
            source=built.runs,
            name=block_id,
            role=role,
            level=level,
            locale=self.locale,
            properties=properties,
        )


def _wants_paragraph(name: str, _ancestors: Ancestors) -> bool:
    return name == "w:p"


def _nested_paragraphs(paragraph: Element) -> list[tuple[Element, bool, bool]]:
    """Every ``w:p`` in the subtree (itself first): (element, in a fallback, in a table cell)."""
    found: list[tuple[Element, bool, bool]] = []
    stack: list[tuple[Element, bool, bool]] = [(paragraph, False, False)]
    while stack:
        element, fallback, cell = stack.pop()
        if element.name == "w:p":
            found.append((element, fallback, cell))
        for child in reversed(element.children):
            stack.append(
                (
                    child,
                    fallback or child.name == "mc:Fallback",
                    (cell or child.name == "w:tc") and child.name != "w:txbxContent",
                )
            )
    return found


def _mirrors(paragraph: Element) -> dict[int, list[Element]]:
    """Fallback copies of text-box paragraphs, by the id of the paragraph they copy."""
    out: dict[int, list[Element]] = {}
    for alternate in paragraph.iter("mc:AlternateContent"):
        choice = alternate.first("mc:Choice")
        fallback = alternate.first("mc:Fallback")
        if choice is None or fallback is None:
            continue
        chosen = [p for p in choice.iter("w:p")]
        copies = [p for p in fallback.iter("w:p")]
        if len(chosen) == len(copies):
            for original, copy in zip(chosen, copies):
                out.setdefault(id(original), []).append(copy)
    return out


# -- one paragraph ----------------------------------------------------------------


def _rpr_key(data: bytes, properties: Element | None) -> bytes:
    if properties is None:
        return b""
    raw = data[properties.start : properties.end]
    raw = _RSID.sub(b"", raw)
    raw = _BETWEEN_TAGS.sub(b"><", raw)
    if raw.endswith(b"/>") and raw.count(b"<") == 1:
        return b""  # an empty <w:rPr/>
    inner_start = raw.find(b">") + 1
    inner_end = raw.rfind(b"<")
    return raw[inner_start:inner_end]


def _pair_type(properties: Element | None) -> str:
    if properties is None:
        return "fmt:style"

    def on(name: str) -> bool:
        element = properties.first(name)
        return element is not None and element.attrs.get("w:val", "1").lower() not in _FALSE

    if on("w:b"):
        return "fmt:bold"
    if on("w:i"):
        return "fmt:italic"
    if on("w:u"):
        return "fmt:underline"
    if on("w:strike") or on("w:dstrike"):
        return "fmt:strikethrough"
    align = properties.first("w:vertAlign")
    if align is not None and align.attrs.get("w:val") in ("superscript", "subscript"):
        return "fmt:" + align.attrs["w:val"]
    return "fmt:style"


class _Token:
    __slots__ = (
        "close_start",
        "depth",
        "element",
        "field",
        "key",
        "kind",
        "open_end",
        "properties",
        "run_open_end",
    )

    def __init__(self, kind: str, element: Element, depth: int = 0) -> None:
        self.kind = kind  # run, open, close, marker, opaque, deleted
        self.element = element
        self.depth = depth  # containers around it
        self.field = False
        self.open_end = 0
        self.close_start = 0
        self.properties: Element | None = None
        self.run_open_end = 0
        self.key = b""


def _flatten(children: list[Element], data: bytes, tokens: list[_Token], depth: int = 0) -> bool:
    """Inline content as a flat token list; returns whether it holds tracked changes."""
    tracked = False
    for element in children:
        name = element.name
        if name == "w:r":
            token = _Token("run", element, depth)
            first = element.children[0] if element.children else None
            token.properties = first if first is not None and first.name == "w:rPr" else None
            token.run_open_end = (
                token.properties.end if token.properties is not None else element.start_end(data)
            )
            token.key = _rpr_key(data, token.properties)
            tokens.append(token)
        elif name in _CONTAINERS:
            content, open_end, close_start = _container_parts(element, data)
            if content is None:
                tokens.append(_Token("opaque", element))
                tracked = tracked or name in _INSERTIONS
                continue
            tracked = tracked or name in _INSERTIONS
            opening = _Token("open", element)
            opening.open_end = open_end
            tokens.append(opening)
            tracked = _flatten(content, data, tokens, depth + 1) or tracked
            closing = _Token("close", element)
            closing.close_start = close_start
            tokens.append(closing)
        elif name in _DROPPABLE:
            continue
        elif name in _MARKERS:
            tokens.append(_Token("marker", element))
        elif name in _DELETIONS:
            tracked = True
            tokens.append(_Token("deleted", element))
        elif name == "w:pPr":
            continue
        else:
            tokens.append(_Token("opaque", element))
    return tracked


def _container_parts(element: Element, data: bytes) -> tuple[list[Element] | None, int, int]:
    if element.self_closing:
        return None, 0, 0
    if element.name == "w:sdt":
        content = element.first("w:sdtContent")
        if content is None or content.self_closing or not content.children:
            return None, 0, 0
        return content.children, content.start_end(data), content.end_start
    children = [child for child in element.children if child.name not in _CONTAINER_PROPERTIES]
    if not children:
        return None, 0, 0
    return children, children[0].start, children[-1].end


def _mark_fields(tokens: list[_Token], fields: list[str]) -> None:
    """Mark the tokens that are field code (begin .. separate) or field ends."""
    for token in tokens:
        if token.kind == "run":
            characters = [
                child.attrs.get("w:fldCharType", "")
                for child in token.element.children
                if child.name == "w:fldChar"
            ]
            instruction = any(
                child.name in ("w:instrText", "w:delInstrText") for child in token.element.children
            )
            hidden = "code" in fields
            for kind in characters:
                if kind == "begin":
                    fields.append("code")
                elif kind == "separate" and fields:
                    fields[-1] = "result"
                elif kind == "end" and fields:
                    fields.pop()
            token.field = hidden or bool(characters) or instruction
        elif token.kind in ("marker", "opaque") and "code" in fields:
            token.field = True


def _walk_paragraph(
    paragraph: Element, data: bytes, relationships: dict[str, Relationship], fields: list[str]
) -> ParagraphSkeleton | None:
    children = paragraph.children
    inline = [child for child in children if child.name != "w:pPr"]
    edge = _MARKERS | _DROPPABLE
    first = 0
    while first < len(inline) and inline[first].name in edge:
        first += 1
    last = len(inline)
    while last > first and inline[last - 1].name in edge:
        last -= 1
    content = inline[first:last]
    if not content:
        return None
    tokens: list[_Token] = []
    tracked = _flatten(content, data, tokens)
    _mark_fields(tokens, fields)

    # The base formatting: the run properties under the most characters of text
    # directly in the paragraph (a link's style is not the paragraph's).
    weights: Counter[bytes] = Counter()
    outer: Counter[bytes] = Counter()
    base_open = b""
    for token in tokens:
        if token.kind == "run" and not token.field:
            length = sum(len(child.text) for child in token.element.children if child.name == "w:t")
            if length:
                weights[token.key] += length
                if token.depth == 0:
                    outer[token.key] += length
    weights = outer or weights
    base_key = choose_base(weights)
    if base_key is not None:
        for token in tokens:
            if token.kind == "run" and not token.field and token.key == base_key:
                base_open = data[token.element.start : token.run_open_end]
                break
    raw_name = paragraph.raw_name(data)
    prefix = raw_name[: raw_name.index(b":") + 1] if b":" in raw_name else b""
    if not base_open:
        base_open = b"<" + prefix + b"r>"

    builder = InlineBuilder(data)
    builder.tracked = tracked
    open_ids: dict[int, tuple[str, str, str, bool]] = {}
    index = 0
    while index < len(tokens):
        token = tokens[index]
        kind = token.kind
        if token.field:
            stop = index
            while stop + 1 < len(tokens) and tokens[stop + 1].field:
                stop += 1
            _field_ph(builder, tokens[index : stop + 1], data)
            index = stop + 1
            continue
        if kind == "run":
            stop = index
            while (
                stop + 1 < len(tokens)
                and tokens[stop + 1].kind == "run"
                and not tokens[stop + 1].field
                and tokens[stop + 1].key == token.key
            ):
                stop += 1
            _emit_runs(builder, tokens[index : stop + 1], data, token.key == base_key)
            index = stop + 1
            continue
        element = token.element
        if kind == "open":
            code_type, sub_type, attrs, protected = _container_code(element, relationships)
            code_id = builder.open(
                element.start,
                token.open_end,
                kind=CONTAINER,
                type=code_type,
                sub_type=sub_type,
                attrs=attrs,
                protected=protected,
            )
            open_ids[id(element)] = (code_id, code_type, sub_type, protected)
        elif kind == "close":
            code_id, code_type, sub_type, protected = open_ids.pop(id(element))
            builder.close(
                code_id,
                token.close_start,
                element.end,
                kind=CONTAINER,
                type=code_type,
                sub_type=sub_type,
                protected=protected,
            )
        elif kind in ("marker", "deleted"):
            builder.ph(
                element.start,
                element.end,
                level=OUTER_LEVEL,
                type="code:tag",
                sub_type="docx:" + _local(element.name),
            )
        else:
            builder.ph(
                element.start,
                element.end,
                level=OUTER_LEVEL,
                type="code:tag",
                sub_type="docx:" + _local(element.name),
                equiv=_math_text(element),
            )
        index += 1
    if not builder.has_text():
        return None
    return builder.finish(
        content_start=content[0].start,
        content_end=content[-1].end,
        base_open=base_open,
        prefix=prefix,
        dialect=_DIALECT,
    )


def _local(name: str) -> str:
    return (
        name.split(":", 1)[1]
        if ":" in name and not name.startswith("{")
        else name.rsplit("}", 1)[-1]
    )


def _math_text(element: Element) -> str:
    if element.name in ("m:oMath", "m:oMathPara"):
        return element.all_text("m:t")
    return ""


def _container_code(
    element: Element, relationships: dict[str, Relationship]
) -> tuple[str, str, dict[str, str], bool]:
    name = element.name
    local = _local(name)
    if name == "w:hyperlink":
        attrs: dict[str, str] = {}
        rel_id = element.attrs.get("r:id", "")
        relationship = relationships.get(rel_id)
        if relationship is not None and relationship.target:
            attrs["href"] = relationship.target
        anchor = element.attrs.get("w:anchor", "")
        if anchor:
            attrs["href"] = attrs.get("href", "") + "#" + anchor
        if element.attrs.get("w:tooltip"):
            attrs["title"] = element.attrs["w:tooltip"]
        return "link:hyperlink", "docx:hyperlink", attrs, False
    if name == "w:fldSimple":
        return "code:field", "docx:fldSimple", {"instr": element.attrs.get("w:instr", "")}, False
    if name in _INSERTIONS:
        return "code:tag", "docx:" + local, {}, True
    return "code:tag", "docx:" + local, {}, False


def _emit_runs(builder: InlineBuilder, runs: list[_Token], data: bytes, is_base: bool) -> None:
    has_text = any(child.name == "w:t" for token in runs for child in token.element.children)
    if not is_base and not has_text:
        for token in runs:
            items = [
                child
                for child in token.element.children
                if child.name not in ("w:rPr", "w:lastRenderedPageBreak")
            ]
            if not items:
                continue
            code_type, sub_type, equiv = _run_code(items[0])
            builder.ph(
                token.element.start,
                token.element.end,
                level=OUTER_LEVEL,
                type=code_type,
                sub_type=sub_type,
                equiv="".join(_run_code(item)[2] for item in items),
            )
        return
    code_id = ""
    pair_type = ""
    if not is_base:
        first = runs[0]
        pair_type = _pair_type(first.properties)
        code_id = builder.open(
            first.element.start,
            first.run_open_end,
            kind=RUN_PAIR,
            type=pair_type,
            sub_type="docx:run",
        )
    for token in runs:
        run_open = data[token.element.start : token.run_open_end]
        for child in token.element.children:
            name = child.name
            if name in ("w:rPr", "w:lastRenderedPageBreak"):
                continue
            if name == "w:t":
                builder.slot(child, run_open)
                continue
            code_type, sub_type, equiv = _run_code(child)
            builder.ph(
                child.start,
                child.end,
                level=RUN_LEVEL,
                type=code_type,
                sub_type=sub_type,
                equiv=equiv,
                attrs=_run_code_attrs(child),
            )
    if not is_base:
        last = runs[-1].element
        builder.close(
            code_id, last.end_start, last.end, kind=RUN_PAIR, type=pair_type, sub_type="docx:run"
        )


def _run_code(element: Element) -> tuple[str, str, str]:
    name = element.name
    if name == "w:br":
        kind = element.attrs.get("w:type", "textWrapping")
        if kind in ("page", "column"):
            return "fmt:break", "docx:br", "\n"
        return "fmt:linebreak", "docx:br", "\n"
    if name == "w:sym":
        try:
            char = chr(int(element.attrs.get("w:char", ""), 16))
        except ValueError:
            char = ""
        return "entity:char", "docx:sym", char
    found = _RUN_CODES.get(name)
    if found is not None:
        return found
    return "code:tag", "docx:" + _local(name), ""


def _run_code_attrs(element: Element) -> dict[str, str]:
    if element.name in ("w:drawing", "w:pict", "mc:AlternateContent"):
        for properties in element.iter():
            if properties.name.endswith("docPr") and properties.attrs.get("descr"):
                return {"alt": properties.attrs["descr"]}
    return {}


def _field_ph(builder: InlineBuilder, tokens: list[_Token], data: bytes) -> None:
    start = tokens[0].element.start
    end = tokens[-1].element.end
    instruction = "".join(
        child.text
        for token in tokens
        for child in token.element.iter()
        if child.name in ("w:instrText", "w:delInstrText")
    )
    attrs = {"instr": instruction} if instruction else {}
    builder.ph(start, end, level=OUTER_LEVEL, type="code:field", sub_type="docx:field", attrs=attrs)
