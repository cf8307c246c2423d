"""What MyST and MDX add to Markdown's blocks: fenced containers whose body is Markdown, and
the inline items a flavour folds into one code.

A container (a MyST directive that holds prose, a Docusaurus admonition) is a
block rule that finds its closing fence first, then parses the lines between
as Markdown in place, so every block inside keeps its position in the file. Its
tokens are ``directive_open`` (the opening line and any option lines) and
``directive_close``; a fence that is never closed is a ``BlockSyntaxError``
naming its line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from kapi.formats.markdown_blocks import BlockSyntaxError
from kapi.formats.markdown_inline import Item

__all__ = ["Opener", "closed_fence", "container_rule", "fold", "line_text"]

# What an opening fence says: the container's name and where its argument lies in the line.
Opener = Callable[[str, str], "tuple[str, int, int] | None"]

_OPTION = re.compile(r"[ \t]*:[A-Za-z0-9][\w.+-]*:(?:[ \t]|$)")


def line_text(state: Any, line: int) -> str:
    """A line's text from its indentation on, as the block parser sees it."""
    return str(state.src[state.bMarks[line] + state.tShift[line] : state.eMarks[line]])


def closed_fence(state: Any, token: Any) -> bool:
    """Does a fence token end at a closing fence (not at the end of the file or its container)?"""
    first, end = token.map
    if end - 1 <= first:
        return False
    last = line_text(state, end - 1).rstrip(" \t")
    marker = token.markup[:1]
    return bool(last) and set(last) == {marker} and len(last) >= len(token.markup)


def _option_lines(state: Any, start: int, end: int) -> int:
    """The first line after a directive's options (``:key: value`` lines or a ``---`` block)."""
    line = start
    if line < end and line_text(state, line).rstrip(" \t") == "---":
        for close in range(line + 1, end):
            if line_text(state, close).rstrip(" \t") == "---":
                return close + 1
        return line
    while line < end and _OPTION.match(line_text(state, line)):
        line += 1
    return line


def container_rule(opener: Opener, *, options: bool, what: str) -> Callable[..., bool]:
    """A block rule for a fenced container whose body is Markdown (see the module's doc)."""

    def rule(state: Any, start: int, end: int, silent: bool) -> bool:
        if state.is_code_block(start):
            return False
        pos = state.bMarks[start] + state.tShift[start]
        maximum = state.eMarks[start]
        if pos + 3 > maximum:
            return False
        marker = state.src[pos]
        if marker not in "`~:":
            return False
        after = state.skipCharsStr(pos, marker)
        count = after - pos
        if count < 3:
            return False
        params = state.src[after:maximum]
        if marker == "`" and "`" in params:
            return False
        head = opener(marker, params)
        if head is None:
            return False
        if silent:
            return True
        name, arg_start, arg_end = head
        close = _closing_line(state, start, end, marker, count)
        if close is None:
            raise BlockSyntaxError(
                f"the {what} {name!r} is never closed (a line of {marker * count} is missing)",
                start,
            )
        body = _option_lines(state, start + 1, close) if options else start + 1
        old_parent, old_max = state.parentType, state.lineMax
        token = state.push("directive_open", "div", 1)
        token.info = name
        token.markup = marker * count
        token.map = [start, body]
        # The argument, when it is prose, is a block of its own: the head holds the rest.
        opening = (
            state.src[pos : after + arg_start] if arg_end > arg_start else line_text(state, start)
        )
        rest = state.getLines(start + 1, body, 0, False)
        token.content = opening.rstrip(" \t") + ("\n" + rest if rest else "")
        token.meta = {"name": name, "arg": (after + arg_start, after + arg_end)}
        state.parentType = "directive"
        state.lineMax = close
        state.md.block.tokenize(state, body, close)
        state.parentType, state.lineMax = old_parent, old_max
        token = state.push("directive_close", "div", -1)
        token.markup = marker * count
        token.map = [close, close + 1]
        state.line = close + 1
        return True

    return rule


def _closing_line(state: Any, start: int, end: int, marker: str, count: int) -> int | None:
    line = start
    while True:
        line += 1
        if line >= end:
            return None
        pos = state.bMarks[line] + state.tShift[line]
        maximum = state.eMarks[line]
        if pos < maximum and state.sCount[line] < state.blkIndent:
            return None
        if pos >= maximum or state.src[pos] != marker or state.is_code_block(line):
            continue
        after = state.skipCharsStr(pos, marker)
        if after - pos >= count and state.skipSpaces(after) >= maximum:
            return line


def fold(
    items: list[Item], spans: Iterable[tuple[int, int, Item]], inside: Iterable[str]
) -> list[Item]:
    """``items`` with each ``(start, end, made)`` span folded into its one item ``made``, in one
    pass. ``spans`` come sorted by start; a span that overlaps one folded before it, would cut a
    code in two (only text may be split) or would swallow a kind not in ``inside`` is skipped."""
    allowed = set(inside) | {"text"}
    out: list[Item] = []
    count = len(items)
    index = 0
    cut = items[0].start if items else 0  # where the rest of items[index] begins
    for start, end, made in spans:
        while index < count and items[index].end <= start:
            out.append(_rest(items[index], cut))
            index += 1
            cut = items[index].start if index < count else 0
        if index >= count:
            break
        if start < cut:
            continue
        last = index
        fits = True
        while last < count and items[last].start < end:
            item = items[last]
            partial = item.start < start or item.end > end
            if item.kind not in allowed or item.pair != -1 or (partial and item.kind != "text"):
                fits = False
                break
            last += 1
        if not fits or last == index:
            continue
        if items[index].start < start:
            out.append(_text_piece(items[index], cut, start))
        out.append(made)
        if items[last - 1].end > end:
            index, cut = last - 1, end
        else:
            index = last
            cut = items[index].start if index < count else 0
    if index < count:
        out.append(_rest(items[index], cut))
        out.extend(items[index + 1 :])
    return out


def _rest(item: Item, cut: int) -> Item:
    return _text_piece(item, cut, item.end) if cut > item.start else item


def _text_piece(item: Item, start: int, end: int) -> Item:
    piece = Item(start, end, "text")
    piece.no_translate = item.no_translate
    return piece
