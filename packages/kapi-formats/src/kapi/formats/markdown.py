"""Markdown (CommonMark, GFM tables, task lists and strikethrough, YAML/TOML front matter).

markdown-it-py finds the blocks and, through wrapped block rules, the exact
line segments each paragraph, heading or table cell is made of; an own
CommonMark inline scanner turns a block's text into runs whose codes carry the
exact source slice. The writer re-renders only edited blocks and checks by
re-reading that the edit reads back as written (see ``MarkdownFormat.write``).

Blocks and names. ``id`` counts blocks by kind in document order: ``h1`` (heading),
``p1`` (paragraph), ``li1`` (paragraph in a list item), ``q1`` (paragraph in a
block quote), ``td1`` (table cell), ``code1`` (fenced or indented code), ``html1``
(HTML block), ``fm1`` (front matter). ``name`` is an address that survives
translation and edits in other sections: ``s1.2`` is the second level-2 heading
under the first level-1 heading (outline numbering, ``0`` for a skipped level),
content under it is ``s1.2/p3`` (third paragraph of that section, counted per
kind), table cells are ``s1.2/t1.r2c3``; content before the first heading has no
section prefix (``p1``), front matter is ``front-matter``.

Runs. Emphasis, strong and GFM ``~~``/``~`` are paired codes (``fmt:italic``/
``fmt:bold``/``fmt:strikethrough``, data = the delimiter); links are pairs ``link:hyperlink``
(open data ``[``, close data ``](url "title")`` or ``][label]``); a backslash
escape or a character reference is a ``Ph`` ``entity:char`` (data ``\\*`` or
``&amp;``, equiv the character); code spans, images, autolinks, inline HTML
and hard breaks are ``Ph``. A soft line break is ``"\\n"`` in the text; the line
end, the next line's container markers (``> ``, list indentation) and spaces stay
in the skeleton. The text of a shortcut or collapsed reference link
(``[label]``, ``[label][]``) is also its reference label, so it is
``no_translate``; if it is edited anyway the writer keeps the link by writing
``[new text][label]``. Inline HTML tags are ``Ph`` ``code:tag`` (``html:kbd``).

Writing. An edited block's text is first written as it is; the result is read
back, and a block whose text would have turned into markup (``*x*``, a leading
``# ``, ``|`` in a cell...) is written again with that markup backslash-escaped
(``\\*``, ``\\#``, ``\\|``), so escapes appear only where needed. A line break
in new text gets the block's continuation markers; in a heading or a table
cell, which cannot hold one, it becomes a space. New codes without ``data``
are written as Markdown (``**``, ``[..](..)``, backticks, ``![..](..)``);
one Markdown cannot express is refused (``WriteRefused``, ``synthesize:<type>``).

Limits: ``Limits.max_bytes`` (file size), ``Limits.max_depth`` (container
nesting, at most 100), ``Limits.max_entries`` (blocks); past one, read raises
``FormatError`` with code ``budget_exceeded``. Invalid UTF-8 is ``invalid``.
"""

from __future__ import annotations

import bisect
import html.entities
import re
import unicodedata
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

from attrs import field, frozen

from kapi.core.edition import canonical_locale
from kapi.core.format import DEFAULT_LIMITS, FormatError, Limits, WriteRefused
from kapi.core.model import Block, Document, PcClose, PcOpen, Ph, Run, Runs, Text
from kapi.formats.skeleton import Span, TextSkeleton, decode_text

__all__ = ["MarkdownFormat", "parse_inline"]

_MD_TRIM = "".join(
    chr(code)
    for code in sorted(
        {0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0xA0, 0x1680, 0x202F, 0x205F, 0x3000}
        | set(range(0x2000, 0x200B))
        | {0x2028, 0x2029}
    )
)
_ASCII_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_SPECIAL = re.compile(r"[\n\\`*_~\[\]!<&]")
_BACKTICKS = re.compile(r"`+")
_ENTITY = re.compile(r"&(?:#[xX]([0-9a-fA-F]{1,6})|#([0-9]{1,7})|([A-Za-z][A-Za-z0-9]{1,31}));")
_AUTOLINK_URI = re.compile(r"<([A-Za-z][A-Za-z0-9.+-]{1,31}:[^<>\x00-\x20]*)>")
_AUTOLINK_EMAIL = re.compile(
    r"<([a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
    r"(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*)>"
)
_TAG_NAME = re.compile(r"</?([A-Za-z][A-Za-z0-9-]*)")
_POINTY_DEST = re.compile(r"<(?:[^<>\n\\]|\\.)*>")
_TITLE = re.compile(r"\"(?:\\[\s\S]|[^\"\\])*\"|'(?:\\[\s\S]|[^'\\])*'|\((?:\\[\s\S]|[^()\\])*\)")
_LABEL = re.compile(r"\[(?:[^\\\[\]]|\\.){0,1000}\]", re.DOTALL)
_SPNL = re.compile(r"[ \t]*(?:\n[ \t]*)?")
_ESCAPE_OR_ENTITY = re.compile(
    r"\\([!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])|&(?:#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[A-Za-z][A-Za-z0-9]{1,31});"
)
_HTML_TAG: re.Pattern[str] | None = None


def _html_tag_re() -> re.Pattern[str]:
    global _HTML_TAG
    if _HTML_TAG is None:
        from markdown_it.common.html_re import HTML_TAG_RE

        _HTML_TAG = HTML_TAG_RE
    return _HTML_TAG


def _normalize_label(label: str) -> str:
    from markdown_it.common.utils import normalizeReference

    return normalizeReference(label)


def _entity_char(match: re.Match[str]) -> str | None:
    """The character a reference stands for, or None when it names no entity."""
    hex_digits, dec_digits, name = match.group(1), match.group(2), match.group(3)
    if name is not None:
        return html.entities.html5.get(name + ";")
    code = int(hex_digits, 16) if hex_digits is not None else int(dec_digits)
    if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        return "\ufffd"
    return chr(code)


def _unescape(text: str) -> str:
    """Backslash escapes and character references resolved (link destinations, titles)."""

    def replace(match: re.Match[str]) -> str:
        if match.group(1) is not None:
            return match.group(1)
        found = _ENTITY.fullmatch(match.group(0))
        char = _entity_char(found) if found else None
        return match.group(0) if char is None else char

    if "\\" not in text and "&" not in text:
        return text
    return _ESCAPE_OR_ENTITY.sub(replace, text)


def _is_whitespace(char: str) -> bool:
    if char in "\t\n\f\r ":
        return True
    return ord(char) > 127 and unicodedata.category(char) == "Zs"


def _is_punct(char: str) -> bool:
    if char in _ASCII_PUNCT:
        return True
    return ord(char) > 127 and unicodedata.category(char)[0] in "PS"


# ---------------------------------------------------------------------------
# Inline scanning: text -> disjoint items with exact positions.


class _Item:
    """One disjoint slice of a block's inline text: text, a break, or (half of) a code."""

    __slots__ = ("end", "info", "kind", "no_translate", "pair", "start")

    def __init__(self, start: int, end: int, kind: str, info: dict[str, Any] | None = None) -> None:
        self.start = start
        self.end = end
        self.kind = kind
        self.info = info or {}
        self.pair = -1
        self.no_translate = False


class _Delim:
    __slots__ = ("can_close", "can_open", "char", "count", "item", "next", "orig", "prev")

    def __init__(self, item: _Item, char: str, count: int, can_open: bool, can_close: bool) -> None:
        self.item = item
        self.char = char
        self.count = count
        self.orig = count
        self.can_open = can_open
        self.can_close = can_close
        self.prev: _Delim | None = None
        self.next: _Delim | None = None


class _Bracket:
    __slots__ = ("active", "bracket_after", "image", "item", "prev", "prev_delim")

    def __init__(
        self, item: _Item, image: bool, prev: _Bracket | None, prev_delim: _Delim | None
    ) -> None:
        self.item = item
        self.image = image
        self.prev = prev
        self.prev_delim = prev_delim
        self.active = True
        self.bracket_after = False


class _InlineScanner:
    """CommonMark inline parsing (spec 0.31 with GFM strikethrough) that keeps positions."""

    def __init__(self, text: str, references: dict[str, Any], table: bool) -> None:
        self.s = text
        self.n = len(text)
        self.refs = references
        self.table = table
        self.items: list[_Item] = []
        self.marks: list[_Item] = []
        self.delims: _Delim | None = None
        self.brackets: _Bracket | None = None
        self.absorbed: list[tuple[int, int]] = []
        self.label_ranges: list[tuple[int, int]] = []
        self.pairs = 0
        runs: dict[int, list[int]] = {}
        for match in _BACKTICKS.finditer(text):
            runs.setdefault(match.end() - match.start(), []).append(match.start())
        self.tick_runs = runs

    # -- helpers

    def _text(self, start: int, end: int) -> _Item:
        item = _Item(start, end, "text")
        self.items.append(item)
        return item

    def _new_pair(self) -> int:
        self.pairs += 1
        return self.pairs

    def _char_before(self, pos: int) -> str:
        return self.s[pos - 1] if pos > 0 else "\n"

    def _char_at(self, pos: int) -> str:
        return self.s[pos] if pos < self.n else "\n"

    # -- main loop

    def scan(self) -> list[_Item]:
        s, n = self.s, self.n
        pos = 0
        while pos < n:
            char = s[pos]
            if char == "\n":
                pos = self._newline(pos)
            elif char == "\\":
                pos = self._backslash(pos)
            elif char == "`":
                pos = self._code_span(pos)
            elif char in "*_~":
                pos = self._delimiter_run(pos)
            elif char == "[":
                item = self._text(pos, pos + 1)
                self._push_bracket(item, image=False)
                pos += 1
            elif char == "!" and pos + 1 < n and s[pos + 1] == "[":
                item = self._text(pos, pos + 2)
                self._push_bracket(item, image=True)
                pos += 2
            elif char == "]":
                pos = self._close_bracket(pos)
            elif char == "<":
                pos = self._angle(pos)
            elif char == "&":
                pos = self._entity(pos)
            else:
                match = _SPECIAL.search(s, pos + 1)
                end = match.start() if match else n
                self._text(pos, end)
                pos = end
        self._process_emphasis(None)
        return self._collect()

    def _newline(self, pos: int) -> int:
        space_start = pos
        last = self.items[-1] if self.items else None
        if (
            last is not None
            and last.kind == "text"
            and last.end == pos
            and last.info.get("delim") is None
        ):
            while space_start > last.start and self.s[space_start - 1] == " ":
                space_start -= 1
            spaces = pos - space_start
            last.end = space_start
        else:
            spaces = 0
        kind = "hardbreak" if spaces >= 2 else "soft"
        self.items.append(_Item(space_start, pos + 1, kind))
        return pos + 1

    def _backslash(self, pos: int) -> int:
        following = self.s[pos + 1] if pos + 1 < self.n else ""
        if following == "\n":
            self.items.append(_Item(pos, pos + 2, "hardbreak"))
            return pos + 2
        if following in _ASCII_PUNCT and following:
            self.items.append(_Item(pos, pos + 2, "escape", {"char": following}))
            return pos + 2
        self._text(pos, pos + 1)
        return pos + 1

    def _code_span(self, pos: int) -> int:
        match = _BACKTICKS.match(self.s, pos)
        assert match is not None
        length = match.end() - pos
        starts = self.tick_runs.get(length, [])
        index = bisect.bisect_left(starts, match.end())
        if index >= len(starts):
            self._text(pos, match.end())
            return match.end()
        close = starts[index]
        end = close + length
        body = self.s[match.end() : close].replace("\n", " ")
        if self.table:
            body = body.replace("\\|", "|")
        if len(body) >= 2 and body[0] == " " and body[-1] == " " and body.strip(" "):
            body = body[1:-1]
        self.items.append(_Item(pos, end, "code", {"text": body}))
        return end

    def _delimiter_run(self, pos: int) -> int:
        char = self.s[pos]
        end = pos
        while end < self.n and self.s[end] == char:
            end += 1
        count = end - pos
        item = self._text(pos, end)
        if char == "~" and count > 2:
            return end
        before = self._char_before(pos)
        after = self._char_at(end)
        after_space = _is_whitespace(after)
        before_space = _is_whitespace(before)
        after_punct = _is_punct(after)
        before_punct = _is_punct(before)
        left = not after_space and (not after_punct or before_space or before_punct)
        right = not before_space and (not before_punct or after_space or after_punct)
        if char == "_":
            can_open = left and (not right or before_punct)
            can_close = right and (not left or after_punct)
        else:
            can_open, can_close = left, right
        if not (can_open or can_close):
            return end
        item.info["delim"] = char
        delim = _Delim(item, char, count, can_open, can_close)
        delim.prev = self.delims
        if self.delims is not None:
            self.delims.next = delim
        self.delims = delim
        return end

    def _push_bracket(self, item: _Item, image: bool) -> None:
        if self.brackets is not None:
            self.brackets.bracket_after = True
        self.brackets = _Bracket(item, image, self.brackets, self.delims)

    def _remove_bracket(self) -> None:
        assert self.brackets is not None
        self.brackets = self.brackets.prev

    def _close_bracket(self, pos: int) -> int:
        opener = self.brackets
        after = pos + 1
        if opener is None:
            self._text(pos, after)
            return after
        if not opener.active:
            self._text(pos, after)
            self._remove_bracket()
            return after
        dest: str | None = None
        title = ""
        matched = False
        end = after
        form = "inline"
        if after < self.n and self.s[after] == "(":
            parsed = self._inline_link(after)
            if parsed is not None:
                dest, title, end = parsed
                matched = True
        label_start = opener.item.end
        if not matched:
            label = _LABEL.match(self.s, after)
            reference: str | None = None
            if label is not None and label.end() - after > 2:
                reference = self.s[after + 1 : label.end() - 1]
                form = "full"
                end = label.end()
            elif not opener.bracket_after:
                reference = self.s[label_start:pos]
                form = "collapsed" if label is not None else "shortcut"
                end = label.end() if label is not None else after
            if reference is not None and len(reference) <= 999:
                found = self.refs.get(_normalize_label(reference))
                if found is not None:
                    dest = str(found.get("href", ""))
                    title = str(found.get("title", "") or "")
                    matched = True
        if not matched:
            self._remove_bracket()
            self._text(pos, after)
            return after
        assert dest is not None
        self._process_emphasis(opener.prev_delim)
        self._remove_bracket()
        start = opener.item.start
        if opener.image:
            item = opener.item
            item.kind = "image"
            item.end = end
            item.info = {"src": dest, "title": title, "label": (label_start, pos), "form": form}
            self.absorbed.append((start, end))
        else:
            pair = self._new_pair()
            opener.item.kind = "open"
            opener.item.pair = pair
            opener.item.info = {"href": dest, "title": title, "form": form}
            close = _Item(pos, end, "close")
            close.pair = pair
            self.items.append(close)
            if form in ("collapsed", "shortcut"):
                self.label_ranges.append((label_start, pos))
            bracket = self.brackets
            while bracket is not None:
                if not bracket.image:
                    bracket.active = False
                bracket = bracket.prev
        return end

    def _inline_link(self, paren: int) -> tuple[str, str, int] | None:
        s, n = self.s, self.n
        pos = _SPNL.match(s, paren + 1).end()  # type: ignore[union-attr]
        if pos < n and s[pos] == "<":
            pointy = _POINTY_DEST.match(s, pos)
            if pointy is None:
                return None
            dest = _unescape(s[pos + 1 : pointy.end() - 1])
            pos = pointy.end()
        else:
            start = pos
            depth = 0
            while pos < n:
                char = s[pos]
                if char == "\\" and pos + 1 < n and s[pos + 1] in _ASCII_PUNCT:
                    pos += 2
                    continue
                if char == "(":
                    depth += 1
                    if depth > 32:
                        return None
                elif char == ")":
                    if depth == 0:
                        break
                    depth -= 1
                elif ord(char) <= 0x20 or char == "\x7f":
                    break
                pos += 1
            if depth != 0 or (pos == start and (pos >= n or s[pos] != ")")):
                return None
            dest = _unescape(s[start:pos])
        before_title = pos
        pos = _SPNL.match(s, pos).end()  # type: ignore[union-attr]
        title = ""
        if pos > before_title and pos < n and s[pos] in "\"'(":
            found = _TITLE.match(s, pos)
            if found is not None:
                title = _unescape(s[pos + 1 : found.end() - 1])
                pos = _SPNL.match(s, found.end()).end()  # type: ignore[union-attr]
        if pos < n and s[pos] == ")":
            return dest, title, pos + 1
        return None

    def _angle(self, pos: int) -> int:
        uri = _AUTOLINK_URI.match(self.s, pos)
        if uri is not None:
            target = uri.group(1)
            self.items.append(_Item(pos, uri.end(), "autolink", {"href": target, "text": target}))
            return uri.end()
        email = _AUTOLINK_EMAIL.match(self.s, pos)
        if email is not None:
            target = email.group(1)
            info = {"href": "mailto:" + target, "text": target}
            self.items.append(_Item(pos, email.end(), "autolink", info))
            return email.end()
        tag = _html_tag_re().match(self.s, pos)
        if tag is not None:
            self.items.append(_Item(pos, tag.end(), "html"))
            return tag.end()
        self._text(pos, pos + 1)
        return pos + 1

    def _entity(self, pos: int) -> int:
        match = _ENTITY.match(self.s, pos)
        if match is not None:
            char = _entity_char(match)
            if char is not None:
                self.items.append(_Item(pos, match.end(), "entity", {"char": char}))
                return match.end()
        self._text(pos, pos + 1)
        return pos + 1

    # -- emphasis (the spec's "process emphasis" procedure)

    def _unlink(self, delim: _Delim) -> None:
        if delim.prev is not None:
            delim.prev.next = delim.next
        if delim.next is not None:
            delim.next.prev = delim.prev
        else:
            self.delims = delim.prev
        delim.prev = delim.next = None

    def _process_emphasis(self, bottom: _Delim | None) -> None:
        openers_bottom: dict[tuple[str, bool, int], _Delim | None] = {}
        closer = self.delims
        while closer is not None and closer.prev is not bottom:
            closer = closer.prev
        if closer is bottom:
            closer = None
        while closer is not None:
            if not closer.can_close:
                closer = closer.next
                continue
            key = (
                closer.char,
                closer.can_open,
                closer.orig if closer.char == "~" else closer.orig % 3,
            )
            floor = openers_bottom.get(key, bottom)
            opener = closer.prev
            found = False
            while opener is not None and opener is not bottom and opener is not floor:
                if opener.char == closer.char and opener.can_open:
                    if closer.char == "~":
                        found = opener.count == closer.count
                    else:
                        odd = (
                            (closer.can_open or opener.can_close)
                            and closer.orig % 3 != 0
                            and (opener.orig + closer.orig) % 3 == 0
                        )
                        found = not odd
                    if found:
                        break
                opener = opener.prev
            old_closer = closer
            if found:
                assert opener is not None
                if closer.char == "~":
                    use = closer.count
                    kind = "strike"
                else:
                    use = 2 if closer.count >= 2 and opener.count >= 2 else 1
                    kind = "strong" if use == 2 else "em"
                opener.count -= use
                closer.count -= use
                open_item = opener.item
                close_item = closer.item
                pair = self._new_pair()
                mark_open = _Item(open_item.end - use, open_item.end, "open", {"emphasis": kind})
                mark_close = _Item(close_item.start, close_item.start + use, "close")
                mark_open.pair = mark_close.pair = pair
                open_item.end -= use
                close_item.start += use
                self.marks.append(mark_open)
                self.marks.append(mark_close)
                between = closer.prev
                while between is not None and between is not opener:
                    earlier = between.prev
                    self._unlink(between)
                    between = earlier
                if opener.count == 0:
                    self._unlink(opener)
                if closer.count == 0:
                    following = closer.next
                    self._unlink(closer)
                    closer = following
            else:
                closer = closer.next
                openers_bottom[key] = old_closer.prev
                if not old_closer.can_open:
                    self._unlink(old_closer)
        while self.delims is not None and self.delims is not bottom:
            self._unlink(self.delims)

    # -- result

    def _collect(self) -> list[_Item]:
        items = [i for i in self.items if i.end > i.start] + self.marks
        items.sort(key=lambda item: item.start)
        if self.absorbed:
            starts = [item.start for item in items]
            for item in items:
                if item.kind == "image":
                    low, high = item.info.pop("label")
                    inside = items[
                        bisect.bisect_left(starts, low) : bisect.bisect_left(starts, high)
                    ]
                    item.info["alt"] = "".join(_alt_text(self.s, part) for part in inside)
            merged: list[tuple[int, int]] = []
            for low, high in sorted(self.absorbed):
                if merged and low < merged[-1][1]:
                    continue
                merged.append((low, high))
            lows = [low for low, _ in merged]
            kept: list[_Item] = []
            for item in items:
                index = bisect.bisect_right(lows, item.start) - 1
                if index >= 0 and merged[index][0] < item.start < merged[index][1]:
                    continue
                kept.append(item)
            items = kept
        if self.label_ranges:
            starts = [item.start for item in items]
            for low, high in self.label_ranges:
                first = bisect.bisect_left(starts, low)
                for item in items[first:]:
                    if item.start >= high:
                        break
                    if item.kind in ("text", "soft"):
                        item.no_translate = True
        return items


def _alt_text(text: str, item: _Item) -> str:
    kind = item.kind
    if kind == "text":
        return text[item.start : item.end]
    if kind in ("soft", "hardbreak"):
        return "\n" if kind == "hardbreak" else " "
    if kind in ("escape", "entity"):
        return str(item.info["char"])
    if kind in ("code", "autolink"):
        return str(item.info["text"])
    return ""


def parse_inline(
    text: str, references: dict[str, Any] | None = None, *, table: bool = False
) -> list[tuple[int, int, str, dict[str, Any]]]:
    """Inline items of ``text`` as ``(start, end, kind, info)``, for tests and tools."""
    scanner = _InlineScanner(text, references or {}, table)
    return [(i.start, i.end, i.kind, i.info) for i in scanner.scan()]


# ---------------------------------------------------------------------------
# Items -> runs.


@frozen
class _Layout:
    """How to write one inline block back: its line breaks and what it may hold."""

    mode: str  # paragraph, setext, atx, cell
    separators: tuple[str, ...] = ()
    default_separator: str = "\n"
    labels: dict[str, str] = field(factory=dict)  # link code id -> raw reference label


_EMPHASIS = {
    "em": ("fmt:italic", "md:emphasis"),
    "strong": ("fmt:bold", "md:strong"),
    "strike": ("fmt:strikethrough", "md:strikethrough"),
}
_LINK_FORMS = {
    "inline": "md:link",
    "full": "md:link-full",
    "collapsed": "md:link-collapsed",
    "shortcut": "md:link-shortcut",
}


def _html_sub_type(data: str) -> str:
    if data.startswith("<!--"):
        return "html:comment"
    name = _TAG_NAME.match(data)
    return f"html:{name.group(1).lower()}" if name else "html:markup"


def _items_to_runs(
    items: Sequence[_Item], content: str, source: Callable[[int, int], str]
) -> tuple[Runs, tuple[str, ...], dict[str, str]]:
    """Runs, the soft-break separators as written, and the raw labels of reference links."""
    runs: list[Run] = []
    separators: list[str] = []
    labels: dict[str, str] = {}
    pending: list[str] = []
    pending_flag = False
    next_id = 0
    pair_ids: dict[int, tuple[str, str, str, _Item]] = {}

    def flush() -> None:
        if pending:
            runs.append(Text("".join(pending), no_translate=pending_flag))
            pending.clear()

    def add_text(text: str, flag: bool) -> None:
        nonlocal pending_flag
        if pending and flag != pending_flag:
            flush()
        pending_flag = flag
        pending.append(text)

    for item in items:
        kind = item.kind
        if kind == "text":
            add_text(content[item.start : item.end], item.no_translate)
            continue
        if kind == "soft":
            add_text("\n", item.no_translate)
            separators.append(source(item.start, item.end))
            continue
        flush()
        data = source(item.start, item.end)
        info = item.info
        if kind == "close":
            code_id, code_type, sub_type, opener = pair_ids.pop(item.pair)
            runs.append(PcClose(code_id, code_type, sub_type, data))
            if opener.info.get("form") in ("collapsed", "shortcut"):
                labels[code_id] = source(opener.end, item.start)
            continue
        next_id += 1
        code_id = str(next_id)
        if kind == "open":
            if "emphasis" in info:
                code_type, sub_type = _EMPHASIS[info["emphasis"]]
                attrs: dict[str, str] = {}
            else:
                code_type, sub_type = "link:hyperlink", _LINK_FORMS[info["form"]]
                attrs = {"href": info["href"]}
                if info["title"]:
                    attrs["title"] = info["title"]
            pair_ids[item.pair] = (code_id, code_type, sub_type, item)
            runs.append(PcOpen(code_id, code_type, sub_type, data, attrs=attrs))
        elif kind in ("escape", "entity"):
            sub_type = "md:escape" if kind == "escape" else "md:entity"
            runs.append(Ph(code_id, "entity:char", sub_type, data, equiv=info["char"]))
        elif kind == "code":
            runs.append(Ph(code_id, "fmt:code", "md:code", data, equiv=info["text"]))
        elif kind == "hardbreak":
            runs.append(Ph(code_id, "fmt:linebreak", "md:hardbreak", data, equiv="\n"))
        elif kind == "autolink":
            attrs = {"href": info["href"]}
            runs.append(
                Ph(code_id, "link:hyperlink", "md:autolink", data, info["text"], attrs=attrs)
            )
        elif kind == "html":
            runs.append(Ph(code_id, "code:tag", _html_sub_type(data), data))
        elif kind == "image":
            attrs = {"src": info["src"], "alt": info["alt"]}
            if info["title"]:
                attrs["title"] = info["title"]
            runs.append(Ph(code_id, "media:image", "md:image", data, attrs=attrs))
    flush()
    return tuple(runs), tuple(separators), labels


# ---------------------------------------------------------------------------
# Blocks: markdown-it-py with rules that record where each inline text lies.


def _trim_segments(src: str, segments: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """markdown-it's ``mdTrim`` of the joined lines, kept as line segments."""
    out = list(segments)
    while out:
        start, end = out[0]
        while start < end and src[start] in _MD_TRIM:
            start += 1
        if start < end:
            out[0] = (start, end)
            break
        out.pop(0)
    while out:
        start, end = out[-1]
        while end > start and src[end - 1] in _MD_TRIM:
            end -= 1
        if end > start:
            out[-1] = (start, end)
            break
        out.pop()
    return out


def _segments_match(src: str, segments: list[tuple[int, int]], content: str) -> bool:
    mine = [src[a:b].lstrip(" \t") for a, b in segments]
    theirs = [line.lstrip(" \t") for line in content.split("\n")] if content else []
    return mine == theirs


def _table_columns(src: str, start: int, end: int) -> list[tuple[int, int]]:
    """The cells of a table row as markdown-it splits them (escaped pipes kept)."""
    while start < end and src[start] in _MD_TRIM:
        start += 1
    while end > start and src[end - 1] in _MD_TRIM:
        end -= 1
    columns: list[tuple[int, int]] = []
    last = start
    escaped = False
    for pos in range(start, end):
        char = src[pos]
        if char == "|" and not escaped:
            columns.append((last, pos))
            last = pos + 1
        escaped = char == "\\"
    columns.append((last, end))
    if columns and columns[0][0] == columns[0][1]:
        columns.pop(0)
    if columns and columns[-1][0] == columns[-1][1]:
        columns.pop()
    trimmed = []
    for low, high in columns:
        while low < high and src[low] in _MD_TRIM:
            low += 1
        while high > low and src[high - 1] in _MD_TRIM:
            high -= 1
        trimmed.append((low, high))
    return trimmed


def _record_segments(state: Any, tokens: list[Any]) -> None:
    src: str = state.src
    row: list[tuple[int, int]] = []
    column = 0
    for token in tokens:
        if token.type == "tr_open":
            line = token.map[0]
            row = _table_columns(src, state.bMarks[line] + state.tShift[line], state.eMarks[line])
            column = 0
            continue
        if token.type != "inline" or token.map is None:
            continue
        first, last = token.map
        if tokens[0].type == "table_open":
            segment = row[column] if column < len(row) else None
            column += 1
            ok = (
                segment is not None
                and src[segment[0] : segment[1]].replace("\\|", "|") == token.content
            )
            token.meta["segments"] = [segment] if ok and segment[0] < segment[1] else None  # type: ignore[index]
            continue
        if tokens[0].type == "heading_open" and tokens[0].markup.startswith("#"):
            pos = state.bMarks[first] + state.tShift[first] + len(tokens[0].markup)
            rest = src[pos : state.eMarks[first]]
            start = pos + len(rest) - len(rest.lstrip(_MD_TRIM))
            end = start + len(token.content)
            ok = src[start:end] == token.content
            token.meta["segments"] = [(start, end)] if ok and start < end else None
            continue
        segments = [
            (state.bMarks[line] + state.tShift[line], state.eMarks[line])
            for line in range(first, last)
        ]
        segments = _trim_segments(src, segments)
        token.meta["segments"] = segments if _segments_match(src, segments, token.content) else None


def _recording(rule: Callable[..., bool]) -> Callable[..., bool]:
    def recorded(state: Any, start_line: int, end_line: int, silent: bool) -> bool:
        before = len(state.tokens)
        found = rule(state, start_line, end_line, silent)
        if found and not silent:
            _record_segments(state, state.tokens[before:])
        return found

    return recorded


@cache
def _parser(max_nesting: int) -> Any:
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark", {"maxNesting": max_nesting, "tasklists": True})
    parser.enable("table")
    parser.core.ruler.disable(["inline", "text_join"])
    # Links are not rendered here, so every definition counts and URLs stay as written.
    parser.validateLink = lambda url: True  # type: ignore[method-assign]
    parser.normalizeLink = lambda url: url  # type: ignore[method-assign]
    for rule in parser.block.ruler.__rules__:
        if rule.name in ("paragraph", "heading", "lheading", "table"):
            rule.fn = _recording(rule.fn)
    parser.block.ruler.__cache__ = None
    return parser


# ---------------------------------------------------------------------------
# Writing runs back as Markdown.

_LINE_START_MARKS = frozenset("#>-+=")
_ORDERED_MARK = re.compile(r"[0-9]{1,9}[.)]")
_ENDS_LINE = re.compile(r"\n[ \t>]*\Z")


def _escape_text(text: str, line_start: bool, mode: str) -> str:
    """Backslash-escape what would otherwise be read as markup."""
    out: list[str] = []
    at_start = line_start
    length = len(text)
    index = 0
    while index < length:
        char = text[index]
        if at_start and char in " \t":
            index += 1  # leading blanks are not content in Markdown; writing them would indent
            continue
        if at_start:
            at_start = False
            ordered = _ORDERED_MARK.match(text, index)
            if ordered is not None:
                out.append(text[index : ordered.end() - 1] + "\\" + text[ordered.end() - 1])
                index = ordered.end()
                continue
            if char in _LINE_START_MARKS:
                out.append("\\" + char)
                index += 1
                continue
        if char in "\\`*_[]<~":
            out.append("\\" + char)
        elif char == "&" and _ENTITY.match(text, index):
            out.append("\\&")
        elif (char == "|" and mode == "cell") or (char == "#" and mode == "atx"):
            out.append("\\" + char)
        else:
            out.append(char)
        index += 1
    return "".join(out)


def _code_fence(text: str) -> str:
    longest = max((len(m.group(0)) for m in _BACKTICKS.finditer(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith(("`", " ")) or text.endswith(("`", " ")) else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _destination(href: str) -> str:
    if href == "" or re.search(r"[\s<>]", href) or href.count("(") != href.count(")"):
        return "<" + re.sub(r"([<>\\])", r"\\\1", href) + ">"
    return re.sub(r"([()\\])", r"\\\1", href) if "\\" in href else href


def _link_tail(attrs: dict[str, str] | Any) -> str:
    title = attrs.get("title", "")
    quoted = ' "' + re.sub(r'(["\\])', r"\\\1", title) + '"' if title else ""
    return "(" + _destination(attrs.get("href", attrs.get("src", ""))) + quoted + ")"


def _synthesize(run: Ph | PcOpen | PcClose, opener: PcOpen | None, layout: _Layout) -> str:
    """Markdown for a code that came without native data (added by an edit)."""
    kind = run.type
    if kind in ("fmt:bold", "fmt:italic", "fmt:strikethrough") and not isinstance(run, Ph):
        if opener is not None and opener.data:
            return opener.data
        return {"fmt:bold": "**", "fmt:italic": "*", "fmt:strikethrough": "~~"}[kind]
    if kind == "link:hyperlink" and isinstance(run, PcOpen):
        return "["
    if kind == "link:hyperlink" and isinstance(run, PcClose):
        return "]" + _link_tail(opener.attrs if opener is not None else {})
    if isinstance(run, Ph):
        if kind == "fmt:code":
            return _code_fence(run.equiv)
        if kind == "fmt:linebreak" and layout.mode in ("paragraph", "setext"):
            return "\\" + layout.default_separator
        if kind == "link:hyperlink":
            href = run.attrs.get("href", "")
            if not run.equiv and re.fullmatch(
                r"[A-Za-z][A-Za-z0-9.+-]{1,31}:[^<>\x00-\x20]*", href
            ):
                return f"<{href}>"
            label = _escape_text(run.equiv or href, False, layout.mode)
            return f"[{label}]" + _link_tail(run.attrs)
        if kind == "media:image":
            alt = _escape_text(run.attrs.get("alt", ""), False, layout.mode)
            return f"![{alt}]" + _link_tail(run.attrs)
        if kind == "entity:char" and len(run.equiv) == 1:
            return "\\" + run.equiv if run.equiv in _ASCII_PUNCT else f"&#{ord(run.equiv)};"
        if kind == "code:placeholder" and run.equiv:
            return run.equiv
    raise WriteRefused(
        f"Markdown has no way to write a new {kind or 'untyped'} code without its markup",
        capability=f"synthesize:{kind}",
    )


def _render_runs(runs: Runs, layout: _Layout, as_read: Runs, escaped: bool) -> str:
    out: list[str] = []
    soft = 0
    line_start = layout.mode in ("paragraph", "setext")
    single_line = layout.mode in ("atx", "cell")
    openers: dict[str, PcOpen] = {}
    changed_labels = _edited_reference_links(runs, as_read, layout)
    for run in runs:
        if isinstance(run, Text):
            parts = run.text.split("\n")
            for index, part in enumerate(parts):
                if index:
                    if escaped and single_line:
                        out.append(" ")
                    else:
                        if escaped and out:
                            out[-1] = out[-1].rstrip(" ")
                        out.append(
                            layout.separators[soft]
                            if soft < len(layout.separators)
                            else layout.default_separator
                        )
                        soft += 1
                        line_start = True
                if part:
                    out.append(_escape_text(part, line_start, layout.mode) if escaped else part)
                    line_start = False
        elif isinstance(run, Ph | PcOpen | PcClose):
            opener = openers.get(run.id) if isinstance(run, PcClose) else None
            if isinstance(run, PcOpen):
                openers[run.id] = run
            if isinstance(run, PcClose) and run.id in changed_labels:
                data = "][" + changed_labels[run.id] + "]"
            else:
                data = run.data or _synthesize(run, opener, layout)
            out.append(data)
            line_start = bool(_ENDS_LINE.search(data)) and not single_line
        else:
            raise WriteRefused(
                f"Markdown cannot hold a {type(run).__name__.lower()} run",
                capability=f"run:{type(run).__name__.lower()}",
            )
    return "".join(out)


def _edited_reference_links(runs: Runs, as_read: Runs, layout: _Layout) -> dict[str, str]:
    """Shortcut/collapsed links whose text changed: code id -> the label to keep them linked."""
    if not layout.labels:
        return {}
    out: dict[str, str] = {}
    for code_id, label in layout.labels.items():
        now = _inside_pair(runs, code_id)
        if now is not None and now != _inside_pair(as_read, code_id):
            out[code_id] = label
    return out


def _inside_pair(runs: Runs, code_id: str) -> Runs | None:
    start = end = None
    for index, run in enumerate(runs):
        if isinstance(run, PcOpen) and run.id == code_id:
            start = index
        elif isinstance(run, PcClose) and run.id == code_id:
            end = index
    if start is None or end is None or end < start:
        return None
    return tuple(Text(r.text) if isinstance(r, Text) else r for r in runs[start + 1 : end])


def _shape(runs: Runs) -> list[Any]:
    """What a re-read must reproduce: text (merged) and the kind of every code."""
    out: list[Any] = []
    for run in runs:
        if isinstance(run, Text):
            if out and isinstance(out[-1], str):
                out[-1] += run.text
            else:
                out.append(run.text)
        else:
            out.append((type(run).__name__, getattr(run, "type", "")))
    return [part for part in out if part != ""]


# ---------------------------------------------------------------------------
# The codec.

_NEWLINE = re.compile(r"\r\n|\r|\n")
_MAX_NESTING = 100


class _Lines:
    """The text's lines, and the line-normalised copy markdown-it reads."""

    def __init__(self, text: str) -> None:
        starts = [0]
        contents: list[str] = []
        last = 0
        self.newline = ""
        for match in _NEWLINE.finditer(text):
            if not self.newline:
                self.newline = match.group(0)
            contents.append(text[last : match.start()])
            last = match.end()
            starts.append(last)
        contents.append(text[last:])
        self.starts = starts
        self.contents = contents
        self.newline = self.newline or "\n"

    def normalized(self, blank_until: int) -> tuple[str, list[int]]:
        lines = [
            "" if index < blank_until else line.replace("\0", "\ufffd")
            for index, line in enumerate(self.contents)
        ]
        starts: list[int] = []
        offset = 0
        for line in lines:
            starts.append(offset)
            offset += len(line) + 1
        return "\n".join(lines), starts


def _front_matter(lines: list[str]) -> tuple[int, str] | None:
    """``(lines it takes, syntax)`` when the file opens with YAML or TOML front matter."""
    if not lines:
        return None
    opening = lines[0].rstrip(" \t")
    closers: tuple[str, ...]
    if opening == "---":
        closers, syntax = ("---", "..."), "yaml"
    elif opening == "+++":
        closers, syntax = ("+++",), "toml"
    else:
        return None
    for index in range(1, len(lines)):
        if lines[index].rstrip(" \t") in closers:
            return index + 1, syntax
    return None


@frozen
class _MarkdownSkeleton:
    text: TextSkeleton
    layouts: dict[str, _Layout]
    fixed: dict[str, Runs]
    order: tuple[tuple[str, str, bool], ...] = ()
    path: str = ""


class _Reader:
    """One read: walks markdown-it's block tokens and builds blocks, spans and layouts."""

    def __init__(self, text: str, path: str, locale: str, limits: Limits) -> None:
        self.text = text
        self.path = path
        self.locale = locale
        self.limits = limits
        self.lines = _Lines(text)
        self.blocks: list[Block] = []
        self.spans: list[Span] = []
        self.layouts: dict[str, _Layout] = {}
        self.fixed: dict[str, Runs] = {}
        self.ids: dict[str, int] = {}
        self.section = ""
        self.in_section: dict[str, int] = {}

    def _next(self, kind: str) -> tuple[str, str]:
        self.ids[kind] = self.ids.get(kind, 0) + 1
        self.in_section[kind] = self.in_section.get(kind, 0) + 1
        return f"{kind}{self.ids[kind]}", self._address(f"{kind}{self.in_section[kind]}")

    def _address(self, local: str) -> str:
        return f"s{self.section}/{local}" if self.section else local

    def _to_original(self, pos: int) -> int:
        line = bisect.bisect_right(self.norm_starts, pos) - 1
        return self.lines.starts[line] + (pos - self.norm_starts[line])

    def read(self) -> tuple[list[Block], list[Span]]:
        front = _front_matter(self.lines.contents)
        norm, self.norm_starts = self.lines.normalized(front[0] if front else 0)
        if front is not None:
            body = "\n".join(self.lines.contents[1 : front[0] - 1])
            self._fixed_block("fm", "front-matter", body, "front-matter", {"syntax": front[1]})
        env: dict[str, Any] = {}
        depth = min(self.limits.max_depth, _MAX_NESTING)
        try:
            tokens = _parser(depth).parse(norm, env)
        except RecursionError:
            raise FormatError(
                "Markdown nests too deeply to read", path=self.path, code="budget_exceeded"
            ) from None
        self.references = env.get("references", {})
        self._walk(tokens, depth)
        return self.blocks, self.spans

    def _too_deep(self, token: Any) -> FormatError:
        line = token.map[0] + 1 if token.map else None
        return FormatError(
            f"containers nest deeper than {min(self.limits.max_depth, _MAX_NESTING)} levels",
            path=self.path,
            line=line,
            code="budget_exceeded",
        )

    def _walk(self, tokens: list[Any], depth: int) -> None:
        containers: list[str] = []
        outline = [0] * 7
        table = row = column = 0
        checked: list[Any] = []
        for index, token in enumerate(tokens):
            kind = token.type
            if token.level >= depth - 1 and token.nesting == 1:
                raise self._too_deep(token)
            if kind == "blockquote_open":
                containers.append("quote")
            elif kind in ("bullet_list_open", "ordered_list_open"):
                containers.append("list")
            elif kind == "list_item_open":
                containers.append("item")
                checked.append(token.meta.get("checked") if token.meta else None)
            elif kind in (
                "blockquote_close",
                "bullet_list_close",
                "ordered_list_close",
                "list_item_close",
            ):
                containers.pop()
                if kind == "list_item_close":
                    checked.pop()
            elif kind == "heading_open":
                level = int(token.tag[1])
                outline[level] += 1
                for deeper in range(level + 1, 7):
                    outline[deeper] = 0
                self.section = ".".join(str(outline[n]) for n in range(1, level + 1))
                self.in_section = {}
            elif kind == "table_open":
                self.in_section["t"] = self.in_section.get("t", 0) + 1
                table, row = self.in_section["t"], 0
            elif kind == "tr_open":
                row, column = row + 1, 0
            elif kind in ("th_open", "td_open"):
                column += 1
            elif kind == "inline":
                opener = tokens[index - 1]
                if opener.type == "heading_open":
                    mode = "atx" if opener.markup.startswith("#") else "setext"
                    self._inline_block(
                        token, "h", "s" + self.section, "heading", int(opener.tag[1]), mode
                    )
                elif opener.type in ("th_open", "td_open"):
                    name = self._address(f"t{table}.r{row}c{column}")
                    self._inline_block(token, "td", name, "table-cell", 0, "cell")
                else:
                    inner = next((c for c in reversed(containers) if c != "list"), "")
                    if inner == "item":
                        level = containers.count("list")
                        state = checked[-1] if checked and containers[-1] == "item" else None
                        props = {} if state is None else {"checked": "true" if state else "false"}
                        self._inline_block(token, "li", "", "list-item", level, "paragraph", props)
                    elif inner == "quote":
                        self._inline_block(token, "q", "", "quote", 0, "paragraph")
                    else:
                        self._inline_block(token, "p", "", "paragraph", 0, "paragraph")
            elif kind in ("fence", "code_block"):
                props = (
                    {"info": token.info.strip()} if kind == "fence" and token.info.strip() else {}
                )
                block_id, name = self._next("code")
                self._add_fixed(block_id, name, token.content, "code", props)
            elif kind == "html_block":
                block_id, name = self._next("html")
                self._add_fixed(block_id, name, token.content, "html", {})
            if len(self.blocks) > self.limits.max_entries:
                raise FormatError(
                    f"more than {self.limits.max_entries} blocks",
                    path=self.path,
                    code="budget_exceeded",
                )

    def _fixed_block(
        self, kind: str, name: str, body: str, role: str, props: dict[str, str]
    ) -> None:
        self.ids[kind] = self.ids.get(kind, 0) + 1
        self._add_fixed(f"{kind}{self.ids[kind]}", name, body, role, props)

    def _add_fixed(
        self, block_id: str, name: str, body: str, role: str, props: dict[str, str]
    ) -> None:
        runs: Runs = (Text(body),) if body else ()
        self.fixed[block_id] = runs
        self.blocks.append(
            Block(
                id=block_id,
                source=runs,
                name=name,
                translatable=False,
                role=role,
                locale=self.locale,
                properties=props,
            )
        )

    def _inline_block(
        self,
        token: Any,
        kind: str,
        name: str,
        role: str,
        level: int,
        mode: str,
        props: dict[str, str] | None = None,
    ) -> None:
        if not token.content.strip(_MD_TRIM):
            return
        if kind in ("h", "td"):
            self.ids[kind] = self.ids.get(kind, 0) + 1
            block_id = f"{kind}{self.ids[kind]}"
        else:
            block_id, name = self._next(kind)
        segments = token.meta.get("segments") if token.meta else None
        if not segments:
            # markdown-it saw text we could not place: keep it, but only as read.
            self._add_fixed(block_id, name, token.content, role, props or {})
            return
        text = self.text
        content_starts: list[int] = []
        original_starts: list[int] = []
        parts: list[str] = []
        offset = 0
        for start, end in segments:
            original = self._to_original(start)
            content_starts.append(offset)
            original_starts.append(original)
            parts.append(text[original : original + (end - start)])
            offset += end - start + 1
        content = "\n".join(parts)

        def position(pos: int) -> int:
            line = bisect.bisect_right(content_starts, pos) - 1
            return original_starts[line] + (pos - content_starts[line])

        def source(start: int, end: int) -> str:
            return text[position(start) : position(end)]

        items = _InlineScanner(content, self.references, mode == "cell").scan()
        runs, separators, labels = _items_to_runs(items, content, source)
        first_line = bisect.bisect_right(self.lines.starts, original_starts[0]) - 1
        prefix = text[self.lines.starts[first_line] : original_starts[0]]
        continuation = re.sub(r"[^ \t>]", " ", prefix)
        self.layouts[block_id] = _Layout(
            mode, separators, self.lines.newline + continuation, labels
        )
        self.spans.append(Span(block_id, position(0), position(len(content)), runs))
        self.blocks.append(
            Block(
                id=block_id,
                source=runs,
                name=name,
                role=role,
                level=level,
                locale=self.locale,
                properties=props or {},
            )
        )


class MarkdownFormat:
    """Markdown documents: prose blocks with inline codes, written back byte for byte."""

    name = "markdown"

    def __init__(self, limits: Limits = DEFAULT_LIMITS) -> None:
        self.limits = limits

    def read(self, data: bytes, *, path: str = "", locale: str = "") -> Document:
        text, encoding, bom = decode_text(data, path=path, limits=self.limits)
        language = canonical_locale(locale or "en")
        reader = _Reader(text, path, language, self.limits)
        blocks, spans = reader.read()
        skeleton = _MarkdownSkeleton(
            TextSkeleton(text, encoding, bom, tuple(spans)),
            reader.layouts,
            reader.fixed,
            tuple((b.id, b.role, b.translatable) for b in blocks),
            path,
        )
        return Document(self.name, tuple(blocks), locale=language, skeleton=skeleton)

    def write(self, document: Document) -> bytes:
        skeleton = document.skeleton
        if not isinstance(skeleton, _MarkdownSkeleton):
            raise WriteRefused(
                "this document was not read as Markdown; only its own reader's documents can be written",
                capability="skeleton",
            )
        for block in document.blocks:
            if block.targets:
                raise WriteRefused(
                    f"a Markdown file holds one edition; block {block.id} carries others",
                    capability="edition",
                    block=block.id,
                )
            fixed = skeleton.fixed.get(block.id)
            if fixed is not None and block.source != fixed:
                raise WriteRefused(
                    f"block {block.id} ({block.role}) is not translatable and is written as read",
                    capability="translatable",
                    block=block.id,
                )
        by_id = {block.id: block for block in document.blocks}
        changed = [
            span.block_id
            for span in skeleton.text.spans
            if span.block_id in by_id and by_id[span.block_id].source != span.runs
        ]
        escaped: set[str] = set()
        output = self._render(document, skeleton, escaped)
        if not changed:
            return output
        # Text written as it is reads back as itself almost always; where it would
        # turn into markup, those blocks are written again with markup escaped.
        for _ in range(2):
            wrong = self._misread(output, document, skeleton, changed)
            if not wrong:
                break
            escaped |= wrong
            output = self._render(document, skeleton, escaped)
        return output

    def _render(self, document: Document, skeleton: _MarkdownSkeleton, escaped: set[str]) -> bytes:
        def renderer(block: Block, span: Span, runs: Runs) -> str:
            layout = skeleton.layouts[block.id]
            return _render_runs(runs, layout, span.runs, block.id in escaped)

        return skeleton.text.render(document, renderer)

    def _misread(
        self, output: bytes, document: Document, skeleton: _MarkdownSkeleton, changed: list[str]
    ) -> set[str]:
        try:
            again = self.read(output, path=skeleton.path, locale=document.locale or "en")
        except FormatError:
            return set(changed)
        if tuple((b.id, b.role, b.translatable) for b in again.blocks) != skeleton.order:
            return set(changed)
        expected = {span.block_id: span.runs for span in skeleton.text.spans}
        expected.update(skeleton.fixed)
        expected.update({block.id: block.source for block in document.blocks})
        wrong: set[str] = set()
        for block in again.blocks:
            if _shape(expected[block.id]) != _shape(block.source):
                if block.id not in changed:
                    return set(changed)
                wrong.add(block.id)
        return wrong
