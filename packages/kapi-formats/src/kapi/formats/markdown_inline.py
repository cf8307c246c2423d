"""The CommonMark inline scanner: a block's text as disjoint items (text, breaks, halves of
codes) with exact positions, per spec 0.31 with GFM strikethrough."""

from __future__ import annotations

import bisect
import html.entities
import re
import unicodedata
from typing import Any

__all__ = ["ASCII_PUNCT", "BACKTICKS", "ENTITY", "InlineScanner", "Item", "parse_inline"]

ASCII_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_SPECIAL = re.compile(r"[\n\\`*_~\[\]!<&]")
BACKTICKS = re.compile(r"`+")
ENTITY = re.compile(r"&(?:#[xX]([0-9a-fA-F]{1,6})|#([0-9]{1,7})|([A-Za-z][A-Za-z0-9]{1,31}));")
_AUTOLINK_URI = re.compile(r"<([A-Za-z][A-Za-z0-9.+-]{1,31}:[^<>\x00-\x20]*)>")
_AUTOLINK_EMAIL = re.compile(
    r"<([a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
    r"(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*)>"
)

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
        found = ENTITY.fullmatch(match.group(0))
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
    if char in ASCII_PUNCT:
        return True
    return ord(char) > 127 and unicodedata.category(char)[0] in "PS"


class Item:
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

    def __init__(self, item: Item, char: str, count: int, can_open: bool, can_close: bool) -> None:
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
        self, item: Item, image: bool, prev: _Bracket | None, prev_delim: _Delim | None
    ) -> None:
        self.item = item
        self.image = image
        self.prev = prev
        self.prev_delim = prev_delim
        self.active = True
        self.bracket_after = False


class InlineScanner:
    """CommonMark inline parsing (spec 0.31 with GFM strikethrough) that keeps positions."""

    def __init__(self, text: str, references: dict[str, Any], table: bool) -> None:
        self.s = text
        self.n = len(text)
        self.refs = references
        self.table = table
        self.items: list[Item] = []
        self.marks: list[Item] = []
        self.delims: _Delim | None = None
        self.brackets: _Bracket | None = None
        self.absorbed: list[tuple[int, int]] = []
        self.label_ranges: list[tuple[int, int]] = []
        self.pairs = 0
        runs: dict[int, list[int]] = {}
        for match in BACKTICKS.finditer(text):
            runs.setdefault(match.end() - match.start(), []).append(match.start())
        self.tick_runs = runs

    # -- helpers

    def _text(self, start: int, end: int) -> Item:
        item = Item(start, end, "text")
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

    def scan(self) -> list[Item]:
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
        self.items.append(Item(space_start, pos + 1, kind))
        return pos + 1

    def _backslash(self, pos: int) -> int:
        following = self.s[pos + 1] if pos + 1 < self.n else ""
        if following == "\n":
            self.items.append(Item(pos, pos + 2, "hardbreak"))
            return pos + 2
        if following in ASCII_PUNCT and following:
            self.items.append(Item(pos, pos + 2, "escape", {"char": following}))
            return pos + 2
        self._text(pos, pos + 1)
        return pos + 1

    def _code_span(self, pos: int) -> int:
        match = BACKTICKS.match(self.s, pos)
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
        self.items.append(Item(pos, end, "code", {"text": body}))
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

    def _push_bracket(self, item: Item, image: bool) -> None:
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
            close = Item(pos, end, "close")
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
                if char == "\\" and pos + 1 < n and s[pos + 1] in ASCII_PUNCT:
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
            self.items.append(Item(pos, uri.end(), "autolink", {"href": target, "text": target}))
            return uri.end()
        email = _AUTOLINK_EMAIL.match(self.s, pos)
        if email is not None:
            target = email.group(1)
            info = {"href": "mailto:" + target, "text": target}
            self.items.append(Item(pos, email.end(), "autolink", info))
            return email.end()
        tag = _html_tag_re().match(self.s, pos)
        if tag is not None:
            self.items.append(Item(pos, tag.end(), "html"))
            return tag.end()
        self._text(pos, pos + 1)
        return pos + 1

    def _entity(self, pos: int) -> int:
        match = ENTITY.match(self.s, pos)
        if match is not None:
            char = _entity_char(match)
            if char is not None:
                self.items.append(Item(pos, match.end(), "entity", {"char": char}))
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
                mark_open = Item(open_item.end - use, open_item.end, "open", {"emphasis": kind})
                mark_close = Item(close_item.start, close_item.start + use, "close")
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

    def _collect(self) -> list[Item]:
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
            kept: list[Item] = []
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


def _alt_text(text: str, item: Item) -> str:
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
    scanner = InlineScanner(text, references or {}, table)
    return [(i.start, i.end, i.kind, i.info) for i in scanner.scan()]
