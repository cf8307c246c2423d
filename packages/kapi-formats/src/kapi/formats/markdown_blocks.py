"""Markdown blocks through markdown-it-py, its block rules wrapped to record the exact line
segments each paragraph, heading and table cell is made of."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from kapi.core.errors import KapiError

__all__ = ["MD_TRIM", "BlockSyntaxError", "block_parser", "new_parser", "recording"]


class BlockSyntaxError(KapiError):
    """A block rule met markup it cannot read (a fence never closed, say); ``line`` is 0-based.

    The reader turns it into a ``FormatError`` naming the file and the line."""

    code = "invalid"

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


MD_TRIM = "".join(
    chr(code)
    for code in sorted(
        {0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0xA0, 0x1680, 0x202F, 0x205F, 0x3000}
        | set(range(0x2000, 0x200B))
        | {0x2028, 0x2029}
    )
)


def _trim_segments(src: str, segments: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """markdown-it's ``mdTrim`` of the joined lines, kept as line segments."""
    out = list(segments)
    while out:
        start, end = out[0]
        while start < end and src[start] in MD_TRIM:
            start += 1
        if start < end:
            out[0] = (start, end)
            break
        out.pop(0)
    while out:
        start, end = out[-1]
        while end > start and src[end - 1] in MD_TRIM:
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
    while start < end and src[start] in MD_TRIM:
        start += 1
    while end > start and src[end - 1] in MD_TRIM:
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
        while low < high and src[low] in MD_TRIM:
            low += 1
        while high > low and src[high - 1] in MD_TRIM:
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
            start = pos + len(rest) - len(rest.lstrip(MD_TRIM))
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


def recording(rule: Callable[..., bool]) -> Callable[..., bool]:
    """A block rule that records the line segments of the inline tokens it makes."""

    def recorded(state: Any, start_line: int, end_line: int, silent: bool) -> bool:
        before = len(state.tokens)
        found = rule(state, start_line, end_line, silent)
        if found and not silent:
            _record_segments(state, state.tokens[before:])
        return found

    return recorded


@cache
def block_parser(max_nesting: int) -> Any:
    return new_parser(max_nesting)


def new_parser(max_nesting: int) -> Any:
    """A CommonMark block parser (GFM tables) whose inline tokens carry their segments."""
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark", {"maxNesting": max_nesting, "tasklists": True})
    parser.enable("table")
    parser.core.ruler.disable(["inline", "text_join"])
    # Links are not rendered here, so every definition counts and URLs stay as written.
    parser.validateLink = lambda url: True  # type: ignore[method-assign]
    parser.normalizeLink = lambda url: url  # type: ignore[method-assign]
    for rule in parser.block.ruler.__rules__:
        if rule.name in ("paragraph", "heading", "lheading", "table"):
            rule.fn = recording(rule.fn)
    parser.block.ruler.__cache__ = None
    return parser
