"""HTML: the text of block elements as blocks, inline markup as codes carrying its exact bytes.

The stdlib ``html.parser`` reports every construct in order; the position of
each one (and so its exact source slice) comes from ``getpos()``. A block is
the text between two block-level tags: ``<p>``, ``<h1>``-``<h6>`` (role
``heading``), ``<li>`` (``list-item``, level = list depth), ``<td>``/``<th>``
(``table-cell``), ``<title>``, captions, ``<dt>``/``<dd>``, ``<blockquote>``
(``quote``) and text directly inside ``<div>``, ``<section>`` and the like.
Leading and trailing whitespace stays in the skeleton. Inline tags become codes:
``<b>``/``<strong>`` ``fmt:bold``, ``<i>``/``<em>`` ``fmt:italic``, ``<u>``
``fmt:underline``, ``<s>``/``<del>`` ``fmt:strikethrough``, ``<code>``
``fmt:code``, ``<a>`` ``link:hyperlink`` (attrs href/title), ``<img>``
``media:image`` (attrs src/alt/title), ``<br>`` ``fmt:linebreak``; any other
tag, a comment, an unmatched tag or a whole inline ``<math>``/``<svg>`` is a
``code:tag``. Text in ``<code>``, ``<kbd>``, ``<samp>`` is ``no_translate``. A
character reference is a ``Ph`` ``entity:char`` (data ``&amp;``, equiv ``&``).

Translatable attributes (``alt``, ``title``, ``placeholder``, ``aria-label``,
``label``, the ``value`` of input buttons, ``<meta>`` description/title
``content``) are blocks of their own named ``img[3]@alt`` (the tag, its 1-based
index among that tag in the document, the attribute), unless the element is an
inline code inside a text block: then the attribute travels with the code
(``attrs``), and the writer rewrites ``href``/``title`` of a link and
``src``/``alt``/``title`` of an image when those attrs change.
``<script>``, ``<style>``, ``<template>``, ``<noscript>`` and anything under ``translate="no"``
give no blocks (an inline ``translate="no"`` element's text is ``no_translate``).

Ids count blocks by kind (``h1``, ``p1``, ``li1``, ``td1``, ``attr1``); names are
``p[4]`` (fourth ``<p>`` in the document), ``div[2].2`` for a second stretch of
text directly inside one element, ``text[1]`` for text outside any element.

Writing escapes ``<`` and ``&`` in new text where they would start markup or
a character reference (``a < b`` and ``R&D`` stay as they are; ``<b>`` becomes
``&lt;b>``), the attribute's quote in attribute values, and writes characters
the file's encoding lacks as numeric references. New codes without ``data``
are written as tags (``<b>``, ``<a href="..">``, ``<br>``, ``<img ..>``).

Encoding: a BOM, else a ``<meta charset>`` / XML declaration, else UTF-8.
Limits: ``Limits.max_bytes``, ``Limits.max_depth`` (open elements),
``Limits.max_entries`` (blocks) give ``budget_exceeded``; undecodable bytes and
parser failures give ``invalid``, with line and column.
"""

from __future__ import annotations

import codecs
import contextlib
import html
import html.entities
import re

from attrs import evolve, frozen

from kapi.core.edition import EditionKeyError, canonical_locale
from kapi.core.format import DEFAULT_LIMITS, FormatError, Limits, WriteRefused
from kapi.core.model import Block, Document, PcClose, PcOpen, Ph, Run, Runs, Text
from kapi.formats.skeleton import Span, TextSkeleton, decode_text, line_column

__all__ = ["HtmlFormat"]

INLINE = frozenset(
    [
        "a",
        "abbr",
        "acronym",
        "b",
        "bdi",
        "bdo",
        "big",
        "br",
        "cite",
        "code",
        "data",
        "del",
        "dfn",
        "em",
        "font",
        "i",
        "img",
        "ins",
        "kbd",
        "mark",
        "q",
        "rb",
        "rp",
        "rt",
        "rtc",
        "ruby",
        "s",
        "samp",
        "small",
        "span",
        "strike",
        "strong",
        "sub",
        "sup",
        "time",
        "tt",
        "u",
        "var",
        "wbr",
    ]
)
VOID = frozenset(
    [
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "keygen",
        "link",
        "meta",
        "param",
        "source",
        "track",
        "wbr",
    ]
)
EXCLUDED = frozenset({"script", "style", "template", "noscript", "svg", "math"})
_PAIR_TYPES = {
    "b": "fmt:bold",
    "strong": "fmt:bold",
    "i": "fmt:italic",
    "em": "fmt:italic",
    "u": "fmt:underline",
    "code": "fmt:code",
    "tt": "fmt:code",
    "s": "fmt:strikethrough",
    "strike": "fmt:strikethrough",
    "del": "fmt:strikethrough",
    "a": "link:hyperlink",
}
_CODE_ATTRS = {"a": ("href", "title"), "img": ("src", "alt", "title")}
_WRITABLE = {"link:hyperlink": ("href", "title"), "media:image": ("src", "alt", "title")}
_ROLES = {
    "li": "list-item",
    "td": "table-cell",
    "th": "table-cell",
    "title": "title",
    "caption": "caption",
    "figcaption": "caption",
    "dt": "term",
    "dd": "definition",
    "blockquote": "quote",
    "p": "paragraph",
    "div": "text",
    "pre": "preformatted",
}
_CONTAINER_ROLES = frozenset({"li", "td", "th", "blockquote", "dd", "dt", "caption", "figcaption"})
_ID_PREFIX = {"heading": "h", "list-item": "li", "table-cell": "td", "attribute": "attr"}
_TEXT_ATTRS = frozenset({"alt", "title", "placeholder", "aria-label"})
_META_NAMES = frozenset(
    {"description", "og:title", "og:description", "twitter:title", "twitter:description"}
)
_LISTS = frozenset({"ul", "ol", "menu"})
# Elements a new start tag of these closes implicitly (the parser reports no end tag).
_CLOSED_BY = {
    "li": frozenset({"li"}),
    "dt": frozenset({"dt", "dd"}),
    "dd": frozenset({"dt", "dd"}),
    "td": frozenset({"td", "th"}),
    "th": frozenset({"td", "th"}),
    "tr": frozenset({"tr", "td", "th"}),
    "option": frozenset({"option"}),
}
_CLOSES_P = frozenset(
    [
        "address",
        "article",
        "aside",
        "blockquote",
        "details",
        "div",
        "dl",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hgroup",
        "hr",
        "main",
        "menu",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "table",
        "ul",
    ]
)
_REFERENCE = re.compile(r"&(?:#[xX][0-9a-fA-F]+;?|#[0-9]+;?|[A-Za-z][A-Za-z0-9]*;?)")
_STRAY_MARKUP = re.compile(r"<[A-Za-z/!?][^>]*>?")
# A bare "&#" is markup too: html.parser reads what follows an unfinished one as text.
_TEXT_TOKEN = re.compile(_REFERENCE.pattern + "|&#|" + _STRAY_MARKUP.pattern)
_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)""", re.IGNORECASE)
_XML_ENCODING = re.compile(rb"""^<\?xml[^>]+encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")
_LANG = re.compile(r"""\blang\s*=\s*["']?([A-Za-z0-9_-]+)""")
_HTML_SPACE = " \t\n\r\f"
# "<" that html.parser reads as the start of markup, not as text.
_MARKUP_START = re.compile(r"<(?=[A-Za-z/!?])")


def _is_reference(raw: str) -> str | None:
    """The character(s) ``raw`` (``&amp;``, ``&#233``) stands for, or None if it is plain text."""
    if raw.startswith("&#"):
        return html.unescape(raw)
    return html.entities.html5.get(raw[1:])


def _text_runs(
    raw: str, next_id: list[int], no_translate: bool = False, *, markup: bool = True
) -> list[Run]:
    """Text with character references as ``entity:char`` codes.

    Markup the parser skipped without a report (``</>``) stays a ``code:tag``:
    written as text it would be escaped and change what the file says.
    """
    runs: list[Run] = []
    last = 0
    for match in (_TEXT_TOKEN if markup else _REFERENCE).finditer(raw):
        token = match.group(0)
        if token == "&#":
            code = Ph("", "code:tag", "html:markup", token)
        elif token[0] == "&":
            char = _is_reference(token)
            if char is None:
                continue
            code = Ph("", "entity:char", "html:entity", token, equiv=char)
        else:
            code = Ph("", "code:tag", "html:markup", token)
        if match.start() > last:
            runs.append(Text(raw[last : match.start()], no_translate))
        next_id[0] += 1
        runs.append(evolve(code, id=str(next_id[0])))
        last = match.end()
    if last < len(raw):
        runs.append(Text(raw[last:], no_translate))
    return runs


def _visible(raw: str) -> str:
    return html.unescape(_STRAY_MARKUP.sub("", raw))


def _merge_text(runs: list[Run]) -> Runs:
    out: list[Run] = []
    for run in runs:
        if (
            isinstance(run, Text)
            and out
            and isinstance(out[-1], Text)
            and out[-1].no_translate == run.no_translate
        ):
            out[-1] = Text(out[-1].text + run.text, run.no_translate)
        elif not (isinstance(run, Text) and run.text == ""):
            out.append(run)
    return tuple(out)


# ---------------------------------------------------------------------------
# Events with positions.


@frozen
class _Event:
    kind: str  # start, end, startend, text, comment, other
    start: int
    end: int
    tag: str = ""
    attrs: tuple[tuple[str, str | None], ...] = ()


def _events(text: str, path: str) -> list[_Event]:
    from html.parser import HTMLParser

    line_starts = [0]
    for match in re.finditer("\n", text):
        line_starts.append(match.end())
    found: list[tuple[str, int, str, tuple[tuple[str, str | None], ...]]] = []

    class Recorder(HTMLParser):
        def _at(self) -> int:
            line, column = self.getpos()
            return line_starts[line - 1] + column

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            found.append(("start", self._at(), tag, tuple(attrs)))

        def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            found.append(("startend", self._at(), tag, tuple(attrs)))

        def handle_endtag(self, tag: str) -> None:
            found.append(("end", self._at(), tag, ()))

        def handle_data(self, data: str) -> None:
            found.append(("text", self._at(), "", ()))

        def handle_entityref(self, name: str) -> None:
            found.append(("text", self._at(), "", ()))

        def handle_charref(self, name: str) -> None:
            found.append(("text", self._at(), "", ()))

        def handle_comment(self, data: str) -> None:
            found.append(("comment", self._at(), "", ()))

        def handle_decl(self, decl: str) -> None:
            found.append(("other", self._at(), "", ()))

        def handle_pi(self, data: str) -> None:
            found.append(("other", self._at(), "", ()))

        def unknown_decl(self, data: str) -> None:
            found.append(("other", self._at(), "", ()))

    parser = Recorder(convert_charrefs=False)
    try:
        parser.feed(text)
        parser.close()
    except Exception as err:  # html.parser asserts on a few malformed declarations
        line, column = parser.getpos()
        raise FormatError(
            f"HTML could not be parsed: {err}", path=path, line=line, column=column + 1
        ) from None
    if found and found[0][1] > 0:
        found.insert(0, ("text", 0, "", ()))  # the parser can skip a leading "&" at the very end
    events: list[_Event] = []
    for index, (kind, start, tag, attrs) in enumerate(found):
        end = found[index + 1][1] if index + 1 < len(found) else len(text)
        if end <= start and kind in ("text", "other", "comment"):
            continue
        if kind == "text" and _MARKUP_START.match(text, start):
            kind = "other"  # markup the parser gave up on (an unfinished tag at the end)
            if ">" not in text[start:]:
                events.append(_Event(kind, start, len(text)))
                break
        if kind == "text" and events and events[-1].kind == "text" and events[-1].end == start:
            events[-1] = _Event("text", events[-1].start, end)
            continue
        events.append(_Event(kind, start, end, tag, attrs))
    return events


# ---------------------------------------------------------------------------
# Attributes inside a tag's text.


def _attribute_spans(tag_text: str) -> list[tuple[str, int, int, str]]:
    """``(name, value start, value end, quote)`` of each attribute with a value, as the parser reads them."""
    from html.parser import attrfind_tolerant, tagfind_tolerant  # type: ignore[attr-defined]

    match = tagfind_tolerant.match(tag_text, 1)
    if match is None:
        return []
    out: list[tuple[str, int, int, str]] = []
    pos = match.end()
    while pos < len(tag_text):
        found = attrfind_tolerant.match(tag_text, pos)
        if not found:
            break
        if found.group(2):
            start, end = found.span(3)
            value = found.group(3)
            quote = (
                value[:1]
                if value[:1] in "'\"" and value[-1:] == value[:1] and len(value) >= 2
                else ""
            )
            if quote:
                start, end = start + 1, end - 1
            out.append((found.group(1).lower(), start, end, quote))
        pos = found.end()
    return out


def _escape_attribute(value: str, quote: str, *, minimal: bool = False) -> str:
    """An attribute value escaped for ``quote``; ``minimal`` escapes ``&`` only where it would read as a reference."""
    if minimal:
        value = _escape_ampersands(value)
    else:
        value = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    if quote == "'":
        return value.replace("'", "&#39;")
    return value.replace('"', "&quot;")


def _escape_ampersands(text: str) -> str:
    """``&`` escaped where it would read as a reference, and before ``#`` always:
    html.parser reads everything after an unfinished ``&#`` as text."""
    if "&" not in text:
        return text

    def replace(match: re.Match[str]) -> str:
        raw = match.group(0)
        return "&amp;" + raw[1:] if _is_reference(raw) is not None else raw

    return _REFERENCE.sub(replace, text).replace("&#", "&amp;#")


def _needs_quotes(value: str) -> bool:
    return value == "" or any(char in value for char in " \t\n\r\f\"'=<>`")


def _set_attribute(tag_text: str, name: str, value: str | None) -> str:
    """``tag_text`` with attribute ``name`` set to ``value`` (None removes it), quoting kept."""
    spans = {attr: (start, end, quote) for attr, start, end, quote in _attribute_spans(tag_text)}
    if name in spans:
        start, end, quote = spans[name]
        if value is None:
            pattern = re.compile(r"\s+" + re.escape(name) + r"\s*=\s*", re.IGNORECASE)
            found = None
            for candidate in pattern.finditer(tag_text, 0, start):
                found = candidate
            if found is None:
                return tag_text
            return tag_text[: found.start()] + tag_text[end + len(quote) :]
        if not quote and _needs_quotes(value):
            return tag_text[:start] + '"' + _escape_attribute(value, '"') + '"' + tag_text[end:]
        return tag_text[:start] + _escape_attribute(value, quote or '"') + tag_text[end:]
    if value is None:
        return tag_text
    close = len(tag_text) - (2 if tag_text.endswith("/>") else 1)
    while close > 0 and tag_text[close - 1] in _HTML_SPACE:
        close -= 1
    return tag_text[:close] + f' {name}="{_escape_attribute(value, chr(34))}"' + tag_text[close:]


_OPAQUE = frozenset({"math", "svg"})


def _collapse_opaque(events: list[_Event]) -> list[_Event]:
    """An inline ``<math>`` or ``<svg>`` element becomes one event: it is a code, not prose."""
    closing: dict[int, int] = {}
    open_at: dict[str, list[int]] = {tag: [] for tag in _OPAQUE}
    for index, event in enumerate(events):
        if event.tag in _OPAQUE:
            if event.kind == "start":
                open_at[event.tag].append(index)
            elif event.kind == "end" and open_at[event.tag]:
                closing[open_at[event.tag].pop()] = index
    if not closing:
        return events
    out: list[_Event] = []
    index = 0
    while index < len(events):
        event = events[index]
        close = closing.get(index)
        if close is not None:
            out.append(_Event("opaque", event.start, events[close].end, event.tag, event.attrs))
            index = close + 1
            continue
        out.append(event)
        index += 1
    return out


# ---------------------------------------------------------------------------
# Reading.


@frozen
class _Layout:
    kind: str  # text, attribute
    quote: str = '"'


@frozen
class _HtmlSkeleton:
    text: TextSkeleton
    layouts: dict[str, _Layout]
    path: str = ""


class _Element:
    """An open element: block-level ones own text; inline ones carry translate="no" and <code>."""

    __slots__ = ("inline", "owner", "quiet", "segments", "tag", "translate")

    def __init__(self, tag: str, translate: bool, inline: bool, owner: int, quiet: bool) -> None:
        self.tag = tag
        self.translate = translate
        self.inline = inline
        self.owner = owner  # stack index of the block-level element that owns text here, or -1
        self.quiet = quiet  # text here is no_translate
        self.segments = 0


_QUIET_TAGS = frozenset({"code", "tt", "kbd", "samp"})
_MAX_INLINE_RUN = 64


class _Reader:
    def __init__(self, text: str, path: str, locale: str, limits: Limits) -> None:
        self.text = text
        self.path = path
        self.locale = locale
        self.limits = limits
        self.stack: list[_Element] = []
        self.tag_counts: dict[str, int] = {}
        self.tag_index: dict[int, int] = {}  # event start -> 1-based index among its tag
        self.element_names: list[str] = []  # parallel to stack: "p[3]"
        self.ids: dict[str, int] = {}
        self.loose_segments = 0
        self.segment: list[tuple[_Event, bool]] = []
        self.blocks: list[tuple[int, Block, Span, _Layout]] = []
        self.lang = ""
        self.block_depth = 0

    # -- structure

    def _translating(self) -> bool:
        return not self.stack or self.stack[-1].translate

    def _open(self, event: _Event) -> None:
        tag = event.tag
        closes = _CLOSED_BY.get(tag)
        if closes is not None:
            self._close_implied(closes, stop=_LISTS | {"table", "dl", "select", "datalist"})
        if tag in _CLOSES_P and self.stack and self.stack[-1].tag == "p":
            self._truncate(len(self.stack) - 1)
        attrs = dict(event.attrs)
        translate = self._translating()
        value = (attrs.get("translate") or "").strip().lower()
        if value in ("no", "yes"):
            translate = value == "yes"
        if tag in EXCLUDED:
            translate = False
        if tag == "html" and attrs.get("lang"):
            self.lang = attrs["lang"] or ""
        self.stack.append(_Element(tag, translate, False, len(self.stack), not translate))
        self.element_names.append(f"{tag}[{self.tag_index[event.start]}]")
        self.block_depth += 1
        if self.block_depth > self.limits.max_depth:
            line, column = line_column(self.text, event.start)
            raise FormatError(
                f"elements nest deeper than {self.limits.max_depth} levels",
                path=self.path,
                line=line,
                column=column,
                code="budget_exceeded",
            )

    def _close_implied(self, tags: frozenset[str], stop: frozenset[str]) -> None:
        for depth in range(len(self.stack) - 1, -1, -1):
            tag = self.stack[depth].tag
            if tag in stop:
                return
            if tag in tags:
                self._truncate(depth)
                return

    def _close(self, tag: str) -> None:
        for depth in range(len(self.stack) - 1, -1, -1):
            if self.stack[depth].tag == tag and not self.stack[depth].inline:
                self._truncate(depth)
                return

    def _truncate(self, depth: int) -> None:
        self.block_depth -= sum(1 for element in self.stack[depth:] if not element.inline)
        del self.stack[depth:]
        del self.element_names[depth:]

    # -- the walk

    def read(self, events: list[_Event]) -> list[tuple[int, Block, Span, _Layout]]:
        for event in events:
            if event.kind in ("start", "startend", "opaque"):
                self.tag_counts[event.tag] = self.tag_counts.get(event.tag, 0) + 1
                self.tag_index[event.start] = self.tag_counts[event.tag]
        for event in events:
            kind, tag = event.kind, event.tag
            inline = kind == "opaque" or (tag in INLINE and kind in ("start", "end", "startend"))
            if kind in ("text", "comment", "other") or inline:
                owner, _ = self._owner()
                if owner is None or owner.translate:
                    self.segment.append((event, self._no_translate()))
                if kind == "start" and tag not in VOID:
                    self._open_inline(event)
                elif kind == "end":
                    self._close_inline(tag)
                continue
            self._flush()
            if kind in ("start", "startend"):
                if self._translating() and tag not in EXCLUDED and not self._excluded(event):
                    self._attribute_blocks(event)
                if kind == "start" and tag not in VOID:
                    self._open(event)
            elif kind == "end":
                self._close(tag)
        self._flush()
        return self.blocks

    def _no_translate(self) -> bool:
        """Whether text here is kept as written: under translate="no" or in <code>."""
        return bool(self.stack) and self.stack[-1].quiet

    def _open_inline(self, event: _Event) -> None:
        top = self.stack[-1] if self.stack else None
        owner = top.owner if top is not None else -1
        if len(self.stack) - owner > _MAX_INLINE_RUN:
            return  # tag soup: stop tracking, the text keeps its surroundings' state
        translate = self._translating()
        value = (dict(event.attrs).get("translate") or "").strip().lower()
        if value in ("no", "yes"):
            translate = value == "yes"
        quiet = (
            not translate
            or event.tag in _QUIET_TAGS
            or (top is not None and top.inline and top.quiet)
        )
        self.stack.append(_Element(event.tag, translate, True, owner, quiet))
        self.element_names.append(self.element_names[-1] if self.element_names else "")

    def _close_inline(self, tag: str) -> None:
        for depth in range(len(self.stack) - 1, -1, -1):
            element = self.stack[depth]
            if not element.inline:
                return
            if element.tag == tag:
                del self.stack[depth:]
                del self.element_names[depth:]
                return

    def _owner(self) -> tuple[_Element | None, int]:
        if not self.stack or self.stack[-1].owner < 0:
            return None, -1
        depth = self.stack[-1].owner
        return self.stack[depth], depth

    # -- blocks

    def _next_id(self, role: str) -> str:
        prefix = _ID_PREFIX.get(role, "p")
        self.ids[prefix] = self.ids.get(prefix, 0) + 1
        return f"{prefix}{self.ids[prefix]}"

    def _add(self, start: int, block: Block, span: Span, layout: _Layout) -> None:
        self.blocks.append((start, block, span, layout))
        if len(self.blocks) > self.limits.max_entries:
            raise FormatError(
                f"more than {self.limits.max_entries} blocks",
                path=self.path,
                code="budget_exceeded",
            )

    def _attribute_blocks(self, event: _Event) -> None:
        tag_text = self.text[event.start : event.end]
        if not tag_text.startswith("<"):
            return
        attrs = {name: value or "" for name, value in event.attrs}
        tag = event.tag
        wanted: list[str] = [name for name in attrs if name in _TEXT_ATTRS]
        if tag in ("option", "optgroup", "track"):
            wanted.append("label")
        if tag == "input" and attrs.get("type", "").lower() in ("submit", "button", "reset"):
            wanted.append("value")
        if tag == "meta":
            kind = (attrs.get("name") or attrs.get("property") or "").lower()
            if kind in _META_NAMES:
                wanted.append("content")
        if not wanted:
            return
        spans = {
            name: (start, end, quote) for name, start, end, quote in _attribute_spans(tag_text)
        }
        index = self.tag_index.get(event.start, 0)
        for name in sorted((n for n in set(wanted) if n in spans), key=lambda n: spans[n][0]):
            start, end, quote = spans[name]
            raw = tag_text[start:end]
            if not raw.strip(_HTML_SPACE):
                continue
            runs = _merge_text(_text_runs(raw, [0], markup=False))
            block_id = self._next_id("attribute")
            absolute = event.start + start
            block = Block(
                id=block_id,
                source=runs,
                name=f"{tag}[{index}]@{name}",
                role="attribute",
                locale=self.locale,
                properties={"element": tag, "attribute": name},
            )
            span = Span(block_id, absolute, event.start + end, runs)
            self._add(absolute, block, span, _Layout("attribute", quote))

    def _flush(self) -> None:
        segment, self.segment = self.segment, []
        if not segment:
            return
        events = [event for event, _ in segment]
        has_text = any(
            event.kind == "text"
            and not _visible(self.text[event.start : event.end]).isspace()
            and _visible(self.text[event.start : event.end]) != ""
            for event in events
        )
        if not has_text:
            for event, no_translate in segment:
                if (
                    event.kind in ("start", "startend")
                    and not no_translate
                    and not self._excluded(event)
                ):
                    self._attribute_blocks(event)
            return
        first, start = self._edge(events, leading=True)
        last, end = self._edge(events, leading=False)
        owner, depth = self._owner()
        self._text_block(segment[first : last + 1], start, end, owner, depth)

    def _excluded(self, event: _Event) -> bool:
        value = dict(event.attrs).get("translate") or ""
        return value.strip().lower() == "no"

    def _edge(self, segment: list[_Event], leading: bool) -> tuple[int, int]:
        """The index of the first (last) event that is content, and where the content starts (ends)."""
        order = range(len(segment)) if leading else range(len(segment) - 1, -1, -1)
        for index in order:
            event = segment[index]
            if event.kind in ("comment", "other"):
                continue
            if event.kind != "text":
                return index, event.start if leading else event.end
            raw = self.text[event.start : event.end]
            stripped = raw.lstrip(_HTML_SPACE) if leading else raw.rstrip(_HTML_SPACE)
            if stripped:
                if leading:
                    return index, event.start + len(raw) - len(stripped)
                return index, event.start + len(stripped)
        raise AssertionError("a segment with text has content")

    def _text_block(
        self,
        events: list[tuple[_Event, bool]],
        start: int,
        end: int,
        owner: _Element | None,
        depth: int,
    ) -> None:
        text = self.text
        runs: list[Run] = []
        next_id = [0]
        open_codes: list[tuple[str, int]] = []  # (tag, index in runs)
        for event, no_translate in events:
            low, high = max(event.start, start), min(event.end, end)
            if event.kind == "text":
                runs.extend(_text_runs(text[low:high], next_id, no_translate))
                continue
            data = text[event.start : event.end]
            next_id[0] += 1
            code_id = str(next_id[0])
            tag = event.tag
            if event.kind in ("comment", "other"):
                sub = "html:comment" if event.kind == "comment" else "html:markup"
                runs.append(Ph(code_id, "code:tag", sub, data))
            elif event.kind == "opaque":
                runs.append(Ph(code_id, "code:tag", f"html:{tag}", data))
            elif event.kind == "startend" or tag in VOID:
                runs.append(self._void_code(code_id, event, data))
            elif event.kind == "start":
                attrs = _code_attrs(event)
                runs.append(
                    PcOpen(
                        code_id, _PAIR_TYPES.get(tag, "code:tag"), f"html:{tag}", data, attrs=attrs
                    )
                )
                open_codes.append((tag, len(runs) - 1))
            else:
                next_id[0] -= 1
                self._close_code(runs, open_codes, tag, data, next_id)
        for _tag, index in open_codes:
            opener = runs[index]
            assert isinstance(opener, PcOpen)
            runs[index] = Ph(
                opener.id, "code:tag", opener.sub_type, opener.data, attrs=opener.attrs
            )
        merged = _merge_text(runs)
        role, level = self._role(owner, depth)
        block_id = self._next_id(role)
        block = Block(
            id=block_id,
            source=merged,
            name=self._name(owner, depth),
            role=role,
            level=level,
            locale=self.locale,
        )
        self._add(start, block, Span(block_id, start, end, merged), _Layout("text"))

    def _void_code(self, code_id: str, event: _Event, data: str) -> Ph:
        tag = event.tag
        if tag == "br":
            return Ph(code_id, "fmt:linebreak", "html:br", data, equiv="\n")
        if tag == "img":
            return Ph(code_id, "media:image", "html:img", data, attrs=_code_attrs(event))
        return Ph(code_id, "code:tag", f"html:{tag}", data, attrs=_code_attrs(event))

    def _close_code(
        self,
        runs: list[Run],
        open_codes: list[tuple[str, int]],
        tag: str,
        data: str,
        next_id: list[int],
    ) -> None:
        for position in range(len(open_codes) - 1, -1, -1):
            if open_codes[position][0] == tag:
                # Openers above the match never closed here: they become lone tags.
                for _, index in open_codes[position + 1 :]:
                    opener = runs[index]
                    assert isinstance(opener, PcOpen)
                    runs[index] = Ph(
                        opener.id, "code:tag", opener.sub_type, opener.data, attrs=opener.attrs
                    )
                index = open_codes[position][1]
                opener = runs[index]
                assert isinstance(opener, PcOpen)
                del open_codes[position:]
                runs.append(PcClose(opener.id, opener.type, opener.sub_type, data))
                return
        next_id[0] += 1
        runs.append(Ph(str(next_id[0]), "code:tag", f"html:{tag}", data))

    def _role(self, owner: _Element | None, depth: int) -> tuple[str, int]:
        if owner is None:
            return "text", 0
        tag = owner.tag
        if len(tag) == 2 and tag[0] == "h" and tag[1] in "123456":
            return "heading", int(tag[1])
        if tag == "li":
            return "list-item", sum(1 for element in self.stack[:depth] if element.tag in _LISTS)
        if tag in ("p", "div"):
            # A paragraph inside a list item, a cell or a quote plays that part.
            for above in range(depth - 1, -1, -1):
                container = self.stack[above].tag
                if container in _CONTAINER_ROLES:
                    return self._role(self.stack[above], above)
        return _ROLES.get(tag, "text"), 0

    def _name(self, owner: _Element | None, depth: int) -> str:
        if owner is None:
            self.loose_segments += 1
            return f"text[{self.loose_segments}]"
        owner.segments += 1
        base = self.element_names[depth]
        return base if owner.segments == 1 else f"{base}.{owner.segments}"


def _code_attrs(event: _Event) -> dict[str, str]:
    wanted = _CODE_ATTRS.get(event.tag, ())
    return {name: value for name, value in event.attrs if name in wanted and value is not None}


# ---------------------------------------------------------------------------
# Writing.

_SYNTHESIZED = {
    "fmt:bold": ("<b>", "</b>"),
    "fmt:italic": ("<i>", "</i>"),
    "fmt:underline": ("<u>", "</u>"),
    "fmt:code": ("<code>", "</code>"),
    "fmt:strikethrough": ("<s>", "</s>"),
    "link:hyperlink": ("<a>", "</a>"),
}


def _escape_text(text: str, encoding: str) -> str:
    """Text as HTML: ``&`` and ``<`` escaped where they would start a reference or markup."""
    escaped = _MARKUP_START.sub("&lt;", _escape_ampersands(text))
    return _encodable(escaped, encoding)


def _encodable(text: str, encoding: str) -> str:
    if encoding.startswith("utf"):
        return text
    out: list[str] = []
    for char in text:
        try:
            char.encode(encoding)
            out.append(char)
        except UnicodeEncodeError:
            out.append(f"&#{ord(char)};")
    return "".join(out)


def _with_attrs(run: Ph | PcOpen, data: str, as_read: Ph | PcOpen | None) -> str:
    """The tag text with the writable attrs that changed since reading written into it."""
    names = _WRITABLE.get(run.type, ())
    before = dict(as_read.attrs) if as_read is not None else {}
    for name in names:
        now = run.attrs.get(name)
        if now != before.get(name):
            data = _set_attribute(data, name, now)
    return data


def _synthesize(run: Ph | PcOpen | PcClose, opener: PcOpen | None) -> str:
    kind = run.type
    if isinstance(run, PcOpen | PcClose) and kind in _SYNTHESIZED:
        open_tag, close_tag = _SYNTHESIZED[kind]
        if isinstance(run, PcClose):
            if opener is not None and opener.data.startswith("<"):
                name = re.match(r"<([A-Za-z][^\s/>]*)", opener.data)
                if name:
                    return f"</{name.group(1)}>"
            return close_tag
        return _with_attrs(run, open_tag, None)
    if isinstance(run, Ph):
        if kind == "fmt:linebreak":
            return "<br>"
        if kind == "media:image":
            return _with_attrs(run, "<img>", None)
        if kind == "entity:char" and run.equiv:
            return "".join(f"&#{ord(char)};" for char in run.equiv)
        if kind == "code:placeholder" and run.equiv:
            return _escape_text(run.equiv, "utf-8")
    raise WriteRefused(
        f"HTML has no way to write a new {kind or 'untyped'} code without its markup",
        capability=f"synthesize:{kind}",
    )


def _render_text_block(runs: Runs, as_read: Runs, encoding: str) -> str:
    before: dict[tuple[str, str], Ph | PcOpen] = {
        (type(run).__name__, run.id): run for run in as_read if isinstance(run, Ph | PcOpen)
    }
    openers: dict[str, PcOpen] = {}
    out: list[str] = []
    for run in runs:
        if isinstance(run, Text):
            out.append(_escape_text(run.text, encoding))
        elif isinstance(run, Ph | PcOpen):
            if isinstance(run, PcOpen):
                openers[run.id] = run
            if not run.data:
                out.append(_synthesize(run, None))
                continue
            out.append(_with_attrs(run, run.data, before.get((type(run).__name__, run.id))))
        elif isinstance(run, PcClose):
            out.append(run.data or _synthesize(run, openers.get(run.id)))
        else:
            raise WriteRefused(
                f"HTML cannot hold a {type(run).__name__.lower()} run",
                capability=f"run:{type(run).__name__.lower()}",
            )
    return "".join(out)


def _render_attribute(runs: Runs, quote: str, encoding: str) -> str:
    out: list[str] = []
    for run in runs:
        if isinstance(run, Text):
            out.append(
                _encodable(_escape_attribute(run.text, quote or '"', minimal=True), encoding)
            )
        elif isinstance(run, Ph) and run.type == "entity:char":
            out.append(run.data or _synthesize(run, None))
        else:
            raise WriteRefused(
                "an attribute value holds only text and character references",
                capability=f"run:{getattr(run, 'type', '') or type(run).__name__.lower()}",
            )
    value = "".join(out)
    if not quote and _needs_quotes(value):
        return '"' + value + '"'
    return value


def _sniff_encoding(data: bytes) -> str | None:
    head = data[:4096]
    for pattern in (_XML_ENCODING, _CHARSET):
        found = pattern.search(head)
        if found is None:
            continue
        name = found.group(1).decode("ascii", "replace").lower()
        try:
            encoding = codecs.lookup(name).name
        except LookupError:
            return None
        return (
            None if encoding in ("ascii", "utf-8", "utf-16", "utf-16-le", "utf-16-be") else encoding
        )
    return None


class HtmlFormat:
    """HTML pages: block text with inline codes, translatable attributes, byte-faithful writes."""

    name = "html"

    def __init__(self, limits: Limits = DEFAULT_LIMITS) -> None:
        self.limits = limits

    def read(self, data: bytes, *, path: str = "", locale: str = "") -> Document:
        has_bom = data.startswith((codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))
        declared = None if has_bom else _sniff_encoding(data)
        encodings = (declared,) if declared else ("utf-8",)
        text, encoding, bom = decode_text(data, path=path, encodings=encodings, limits=self.limits)
        events = _collapse_opaque(_events(text, path))
        language = canonical_locale(locale or "en")
        reader = _Reader(text, path, language, self.limits)
        found = reader.read(events)
        if reader.lang:
            with contextlib.suppress(EditionKeyError):
                language = canonical_locale(reader.lang.strip())
        found.sort(key=lambda entry: entry[0])
        blocks = tuple(evolve(block, locale=language) for _, block, _, _ in found)
        skeleton = _HtmlSkeleton(
            TextSkeleton(text, encoding, bom, tuple(span for _, _, span, _ in found)),
            {block.id: layout for _, block, _, layout in found},
            path,
        )
        return Document(self.name, blocks, locale=language, skeleton=skeleton)

    def write(self, document: Document) -> bytes:
        skeleton = document.skeleton
        if not isinstance(skeleton, _HtmlSkeleton):
            raise WriteRefused(
                "this document was not read as HTML; only its own reader's documents can be written",
                capability="skeleton",
            )
        for block in document.blocks:
            if block.targets:
                raise WriteRefused(
                    f"an HTML file holds one edition; block {block.id} carries others",
                    capability="edition",
                    block=block.id,
                )
        encoding = skeleton.text.encoding

        def renderer(block: Block, span: Span, runs: Runs) -> str:
            layout = skeleton.layouts[block.id]
            if layout.kind == "attribute":
                return _render_attribute(runs, layout.quote, encoding)
            return _render_text_block(runs, span.runs, encoding)

        return skeleton.text.render(document, renderer)
