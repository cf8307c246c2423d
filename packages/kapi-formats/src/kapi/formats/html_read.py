"""Reading HTML events into blocks: block-level elements own the text between them, inline
tags become codes, translatable attributes become blocks of their own."""

from __future__ import annotations

import html
import re

from attrs import evolve, frozen

from kapi.core.format import FormatError, Limits
from kapi.core.model import Block, PcClose, PcOpen, Ph, Run, Runs, Text
from kapi.formats.html_events import HTML_SPACE, REFERENCE, Event, attribute_spans, is_reference
from kapi.formats.html_tags import (
    CLOSED_BY,
    CLOSES_P,
    CODE_ATTRS,
    CONTAINER_ROLES,
    EXCLUDED,
    ID_PREFIX,
    INLINE,
    LISTS,
    META_NAMES,
    PAIR_TYPES,
    QUIET_TAGS,
    ROLES,
    TEXT_ATTRS,
    VOID,
)
from kapi.formats.skeleton import Span, line_column

__all__ = ["Layout", "Reader"]

_STRAY_MARKUP = re.compile(r"<[A-Za-z/!?][^>]*>?")
# A bare "&#" is markup too: html.parser reads what follows an unfinished one as text.
_TEXT_TOKEN = re.compile(REFERENCE.pattern + "|&#|" + _STRAY_MARKUP.pattern)


def _text_runs(
    raw: str, next_id: list[int], no_translate: bool = False, *, markup: bool = True
) -> list[Run]:
    """Text with character references as ``entity:char`` codes.

    Markup the parser skipped without a report (``</>``) stays a ``code:tag``:
    written as text it would be escaped and change what the file says.
    """
    runs: list[Run] = []
    last = 0
    for match in (_TEXT_TOKEN if markup else REFERENCE).finditer(raw):
        token = match.group(0)
        if token == "&#":
            code = Ph("", "code:tag", "html:markup", token)
        elif token[0] == "&":
            char = is_reference(token)
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


@frozen
class Layout:
    kind: str  # text, attribute
    quote: str = '"'


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


_MAX_INLINE_RUN = 64


class Reader:
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
        self.segment: list[tuple[Event, bool]] = []
        self.blocks: list[tuple[int, Block, Span, Layout]] = []
        self.lang = ""
        self.block_depth = 0

    # -- structure

    def _translating(self) -> bool:
        return not self.stack or self.stack[-1].translate

    def _open(self, event: Event) -> None:
        tag = event.tag
        closes = CLOSED_BY.get(tag)
        if closes is not None:
            self._close_implied(closes, stop=LISTS | {"table", "dl", "select", "datalist"})
        if tag in CLOSES_P and self.stack and self.stack[-1].tag == "p":
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

    def read(self, events: list[Event]) -> list[tuple[int, Block, Span, Layout]]:
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

    def _open_inline(self, event: Event) -> None:
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
            or event.tag in QUIET_TAGS
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
        prefix = ID_PREFIX.get(role, "p")
        self.ids[prefix] = self.ids.get(prefix, 0) + 1
        return f"{prefix}{self.ids[prefix]}"

    def _add(self, start: int, block: Block, span: Span, layout: Layout) -> None:
        self.blocks.append((start, block, span, layout))
        if len(self.blocks) > self.limits.max_entries:
            raise FormatError(
                f"more than {self.limits.max_entries} blocks",
                path=self.path,
                code="budget_exceeded",
            )

    def _attribute_blocks(self, event: Event) -> None:
        tag_text = self.text[event.start : event.end]
        if not tag_text.startswith("<"):
            return
        attrs = {name: value or "" for name, value in event.attrs}
        tag = event.tag
        wanted: list[str] = [name for name in attrs if name in TEXT_ATTRS]
        if tag in ("option", "optgroup", "track"):
            wanted.append("label")
        if tag == "input" and attrs.get("type", "").lower() in ("submit", "button", "reset"):
            wanted.append("value")
        if tag == "meta":
            kind = (attrs.get("name") or attrs.get("property") or "").lower()
            if kind in META_NAMES:
                wanted.append("content")
        if not wanted:
            return
        spans = {name: (start, end, quote) for name, start, end, quote in attribute_spans(tag_text)}
        index = self.tag_index.get(event.start, 0)
        for name in sorted((n for n in set(wanted) if n in spans), key=lambda n: spans[n][0]):
            start, end, quote = spans[name]
            raw = tag_text[start:end]
            if not raw.strip(HTML_SPACE):
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
            self._add(absolute, block, span, Layout("attribute", quote))

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

    def _excluded(self, event: Event) -> bool:
        value = dict(event.attrs).get("translate") or ""
        return value.strip().lower() == "no"

    def _edge(self, segment: list[Event], leading: bool) -> tuple[int, int]:
        """The index of the first (last) event that is content, and where the content starts (ends)."""
        order = range(len(segment)) if leading else range(len(segment) - 1, -1, -1)
        for index in order:
            event = segment[index]
            if event.kind in ("comment", "other"):
                continue
            if event.kind != "text":
                return index, event.start if leading else event.end
            raw = self.text[event.start : event.end]
            stripped = raw.lstrip(HTML_SPACE) if leading else raw.rstrip(HTML_SPACE)
            if stripped:
                if leading:
                    return index, event.start + len(raw) - len(stripped)
                return index, event.start + len(stripped)
        raise AssertionError("a segment with text has content")

    def _text_block(
        self,
        events: list[tuple[Event, bool]],
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
                        code_id, PAIR_TYPES.get(tag, "code:tag"), f"html:{tag}", data, attrs=attrs
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
        self._add(start, block, Span(block_id, start, end, merged), Layout("text"))

    def _void_code(self, code_id: str, event: Event, data: str) -> Ph:
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
            return "list-item", sum(1 for element in self.stack[:depth] if element.tag in LISTS)
        if tag in ("p", "div"):
            # A paragraph inside a list item, a cell or a quote plays that part.
            for above in range(depth - 1, -1, -1):
                container = self.stack[above].tag
                if container in CONTAINER_ROLES:
                    return self._role(self.stack[above], above)
        return ROLES.get(tag, "text"), 0

    def _name(self, owner: _Element | None, depth: int) -> str:
        if owner is None:
            self.loose_segments += 1
            return f"text[{self.loose_segments}]"
        owner.segments += 1
        base = self.element_names[depth]
        return base if owner.segments == 1 else f"{base}.{owner.segments}"


def _code_attrs(event: Event) -> dict[str, str]:
    wanted = CODE_ATTRS.get(event.tag, ())
    return {name: value for name, value in event.attrs if name in wanted and value is not None}
