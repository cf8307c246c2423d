"""MDX (``.mdx``): Markdown with JSX elements, ESM lines and ``{expressions}``, as Docusaurus
and other documentation sites write it.

Blocks. Markdown's blocks stay, as MDX reads them: there is no indented code
(indentation inside a JSX element is only layout) and HTML is JSX. A line of
JSX tags alone (``<Tabs>``, ``<TabItem value="x" label="X">``, ``</Tabs>``,
``<Foo />``, a tag over several lines) is a ``jsx`` block; the prose between
such lines is Markdown blocks, so text inside ``<Admonition>`` or
``<TabItem>`` is read and checked. ``import``/``export`` lines are an ``esm``
block, an expression alone on its lines (``{/* note */}``) an ``expression``
block, an HTML comment from a line's start (which Docusaurus allows) a
``comment`` block; none of these is translatable. A Docusaurus admonition
(``:::note Title`` or ``:::tip[Title]`` ... ``:::``) is a ``directive`` block
whose title is a ``title`` block and whose body is Markdown blocks. In text, a
JSX tag is a ``code:tag`` code (sub-type ``jsx:<name>``) and an expression a
``code:expression`` code (``mdx:expression``).

Bad input is refused (``invalid``) with the line that breaks it: a tag never
ended (``<Foo bar="x"`` to the end of the file), an element never closed, a
closing tag that closes nothing or another element, an admonition never
closed. MDX itself refuses such files.
"""

from __future__ import annotations

import bisect
import re
from functools import cache
from typing import Any

from attrs import evolve

from kapi.core.format import FormatError
from kapi.core.model import Ph, Runs
from kapi.formats.markdown import MarkdownFormat, MarkdownReader
from kapi.formats.markdown_blocks import BlockSyntaxError, new_parser
from kapi.formats.markdown_directives import container_rule, fold
from kapi.formats.markdown_inline import Item
from kapi.formats.myst import MystReader

__all__ = ["ADMONITIONS", "MdxFormat", "MdxReader", "scan_braces", "scan_tag"]

ADMONITIONS = frozenset(
    {"note", "tip", "info", "warning", "danger", "caution", "important", "success", "secondary"}
)
"""Docusaurus admonition kinds (``:::note``); another word after ``:::`` is text."""

_TAG_NAME = re.compile(r"[A-Za-z_$][\w$.:-]*")
_ATTRIBUTE = re.compile(r"[A-Za-z_$:][\w$.:-]*")
_ADMONITION = re.compile(r"([A-Za-z]+)(?:\[((?:\\.|[^\]\\\n])*)\])?[ \t]*")
_ESM = re.compile(r"(?:import|export)(?:[ \t{*]|$)")
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
)
UNENDED = -1
_STARTS = re.compile(r"[<{]")
_INLINE_SPAN = 4000  # the longest JSX tag in text that is looked for


def _brace_pairs(text: str) -> dict[int, int]:
    """Each ``{`` of the text that a ``}`` closes: its position -> just past the ``}``."""
    pairs: dict[int, int] = {}
    opened: list[int] = []
    for match in re.finditer(r"[{}]", text):
        if match.group() == "{":
            opened.append(match.start())
        elif opened:
            pairs[opened.pop()] = match.end()
    return pairs


def scan_braces(text: str, pos: int, stop: int | None = None) -> int:
    """The end of the balanced ``{...}`` at ``pos`` (strings and comments skipped), or UNENDED
    when it does not end before ``stop`` (the end of the text)."""
    depth = 0
    index = pos
    length = len(text) if stop is None else min(stop, len(text))
    while index < length:
        char = text[index]
        if char in "\"'`":
            close = text.find(char, index + 1, length)
            while close > 0 and text[close - 1] == "\\":
                close = text.find(char, close + 1, length)
            if close < 0:
                return UNENDED
            index = close + 1
            continue
        if text.startswith("/*", index):
            close = text.find("*/", index + 2, length)
            if close < 0:
                return UNENDED
            index = close + 2
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    return UNENDED


def scan_tag(
    text: str, pos: int, stop: int | None = None, braces: dict[int, int] | None = None
) -> int | None:
    """The end of the JSX tag at ``pos`` (``text[pos] == "<"``): None when it is no tag,
    UNENDED when it is one that does not end before ``stop`` (the end of the text).
    ``braces`` (from :func:`_brace_pairs`) says where each ``{`` closes, when known."""
    index = pos + 1
    length = len(text) if stop is None else min(stop, len(text))
    if index < length and text[index] == "/":
        index += 1
    if index < length and text[index] == ">":
        return index + 1  # a fragment, <> or </>
    name = _TAG_NAME.match(text, index)
    if name is None:
        return None
    index = name.end()
    while index < length:
        char = text[index]
        if char in " \t\r\n":
            index += 1
        elif char == ">":
            return index + 1
        elif char == "/" and text.startswith("/>", index):
            return index + 2
        elif char == "{":
            end = scan_braces(text, index, length) if braces is None else braces.get(index, -1)
            if end == UNENDED:
                return UNENDED
            index = end
        elif char in "\"'":
            close = text.find(char, index + 1, length)
            if close < 0:
                return UNENDED
            index = close + 1
        elif char == "=":
            index += 1
        else:
            attribute = _ATTRIBUTE.match(text, index)
            if attribute is None:
                return None
            index = attribute.end()
    return UNENDED


def _tag_of(data: str) -> tuple[str, str] | None:
    """``(name, open|close|self)`` of a tag's text; None for comments and the like."""
    match = re.match(r"<(/?)\s*([A-Za-z_$][\w$.:-]*)?", data)
    if match is None or data.startswith("<!"):
        return None
    name = match.group(2) or ""
    if match.group(1):
        return name, "close"
    return name, "self" if data.rstrip().endswith("/>") else "open"


def _line_of(state: Any, pos: int) -> int:
    return bisect.bisect_right(state.bMarks, pos) - 1


def _jsx_rule(state: Any, start: int, end: int, silent: bool) -> bool:
    src = state.src
    pos = state.bMarks[start] + state.tShift[start]
    if pos >= state.eMarks[start] or src[pos] != "<":
        return False
    tags: list[tuple[int, int]] = []
    index = pos
    while True:
        close = scan_tag(src, index)
        if close is None:
            return False
        if close == UNENDED:
            raise BlockSyntaxError("this JSX tag never ends", start)
        tags.append((index, close))
        index = close
        while index < len(src) and src[index] in " \t":
            index += 1
        if index >= len(src) or src[index] == "\n":
            break
        if src[index] != "<":
            return False
    last = _line_of(state, index if index < len(src) else len(src) - 1)
    if last >= end:
        return False
    if silent:
        return True
    token = state.push("jsx_block", "", 0)
    token.map = [start, last + 1]
    token.content = src[pos:index]
    token.meta = {"tags": [(src[a:b], _line_of(state, a)) for a, b in tags]}
    state.line = last + 1
    return True


def _until_blank(token_type: str, starts: Any) -> Any:
    def rule(state: Any, start: int, end: int, silent: bool) -> bool:
        pos = state.bMarks[start] + state.tShift[start]
        if state.blkIndent or not starts(state, pos, start):
            return False
        if silent:
            return True
        line = start + 1
        while line < end and state.bMarks[line] + state.tShift[line] < state.eMarks[line]:
            line += 1
        token = state.push(token_type, "", 0)
        token.map = [start, line]
        token.content = state.getLines(start, line, 0, False)
        state.line = line
        return True

    return rule


def _esm_start(state: Any, pos: int, line: int) -> bool:
    return state.tShift[line] == 0 and _ESM.match(state.src, pos) is not None


def _expression_rule(state: Any, start: int, end: int, silent: bool) -> bool:
    src = state.src
    pos = state.bMarks[start] + state.tShift[start]
    if pos >= state.eMarks[start] or src[pos] != "{":
        return False
    pairs = state.env.get("mdx_braces")
    if pairs is None:
        pairs = state.env["mdx_braces"] = _brace_pairs(src)
    paired = pairs.get(pos)
    if paired is None:
        raise BlockSyntaxError("this expression never ends (a } is missing)", start)
    # a string may hold a brace: read the expression as JavaScript does, near where it pairs
    close = scan_braces(src, pos, paired + 4096)
    if close == UNENDED:
        close = paired
    index = close
    while index < len(src) and src[index] in " \t":
        index += 1
    if index < len(src) and src[index] != "\n":
        return False
    last = _line_of(state, close - 1)
    if last >= end:
        return False
    if silent:
        return True
    token = state.push("mdx_expression", "", 0)
    token.map = [start, last + 1]
    token.content = src[pos:close]
    state.line = last + 1
    return True


def _comment_rule(state: Any, start: int, end: int, silent: bool) -> bool:
    """An HTML comment from a line's start, blank lines and all (Docusaurus keeps MDX 1's)."""
    src = state.src
    pos = state.bMarks[start] + state.tShift[start]
    if not src.startswith("<!--", pos):
        return False
    close = src.find("-->", pos + 4)
    if close < 0:
        raise BlockSyntaxError("this HTML comment never ends (--> is missing)", start)
    index = close + 3
    while index < len(src) and src[index] in " \t":
        index += 1
    if index < len(src) and src[index] != "\n":
        return False
    last = _line_of(state, close)
    if last >= end:
        return False
    if silent:
        return True
    token = state.push("mdx_comment", "", 0)
    token.map = [start, last + 1]
    token.content = src[pos : close + 3]
    state.line = last + 1
    return True


def _admonition_opener(marker: str, params: str) -> tuple[str, int, int] | None:
    match = _ADMONITION.match(params)
    if marker != ":" or match is None or match.group(1) not in ADMONITIONS:
        return None
    if match.group(2) is not None:
        start = match.start(2)
        return match.group(1), start, start + len(match.group(2))
    rest = params[match.end() :].rstrip(" \t")
    return match.group(1), match.end(), match.end() + len(rest)


_ALT = {"alt": ["paragraph", "reference", "blockquote", "list"]}


@cache
def mdx_parser(max_nesting: int) -> Any:
    parser = new_parser(max_nesting)
    parser.disable(["code", "html_block"])
    ruler = parser.block.ruler
    ruler.before(
        "fence",
        "mdx_admonition",
        container_rule(_admonition_opener, options=False, what="admonition"),
        _ALT,
    )
    ruler.before("blockquote", "mdx_comment", _comment_rule, _ALT)
    ruler.before("blockquote", "mdx_jsx", _jsx_rule, _ALT)
    ruler.before("paragraph", "mdx_esm", _until_blank("mdx_esm", _esm_start))
    ruler.before("paragraph", "mdx_expression", _expression_rule)
    return parser


_FIXED = {
    "jsx_block": ("jsx", "jsx"),
    "mdx_esm": ("esm", "esm"),
    "mdx_expression": ("expr", "expression"),
    "mdx_comment": ("cmt", "comment"),
}


class MdxReader(MystReader):
    """One read of an MDX file: Markdown's blocks, JSX, ESM and admonitions."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.open_tags: list[tuple[str, int]] = []

    def parser(self, depth: int) -> Any:
        return mdx_parser(depth)

    def special(self, tokens: list[Any], index: int) -> None:
        token = tokens[index]
        if token.type in _FIXED:
            prefix, role = _FIXED[token.type]
            block_id, name = self._next(prefix)
            self._add_fixed(block_id, name, token.content.rstrip("\n"), role, {})
            for tag, line in (token.meta or {}).get("tags", ()):
                self.balance(tag, line)
        else:
            super().special(tokens, index)

    def balance(self, tag: str, line: int) -> None:
        """Follow one tag's opening or closing; a close that closes nothing is refused."""
        found = _tag_of(tag)
        if found is None:
            return
        name, kind = found
        if kind == "self" or name.lower() in _VOID:
            return
        if kind == "open":
            self.open_tags.append((name, line))
            return
        if not self.open_tags:
            raise FormatError(f"</{name}> closes no element", path=self.path, line=line + 1)
        opened, at = self.open_tags.pop()
        if opened != name:
            raise FormatError(
                f"</{name}> closes <{opened}>, opened on line {at + 1}",
                path=self.path,
                line=line + 1,
            )

    def finish(self) -> None:
        if self.open_tags:
            name, line = self.open_tags[-1]
            raise FormatError(
                f"<{name}> is never closed (</{name}> is missing)",
                path=self.path,
                line=line + 1,
            )

    def inline_items(self, content: str, mode: str, position: Any) -> list[Item]:
        items = MarkdownReader.inline_items(self, content, mode, position)
        closes = _brace_pairs(content)
        spans: list[tuple[int, int, Item]] = []
        reached = 0
        for item in items:
            if item.kind != "text":
                continue
            for match in _STARTS.finditer(content, max(item.start, reached), item.end):
                pos = match.start()
                if pos < reached:
                    continue
                if content[pos] == "{":
                    end = closes.get(pos, UNENDED)
                else:
                    found = scan_tag(content, pos, pos + _INLINE_SPAN, closes)
                    end = UNENDED if found is None else found
                if end != UNENDED:
                    spans.append((pos, end, Item(pos, end, "html")))
                    reached = end
        if spans:
            items = fold(items, spans, ("soft", "escape", "entity", "html"))
        starts = self.lines.starts
        for item in items:
            if item.kind == "html":
                line = bisect.bisect_right(starts, position(item.start)) - 1
                self.balance(content[item.start : item.end], line)
        return items

    def inline_runs(self, runs: Runs) -> Runs:
        out = []
        for run in runs:
            if isinstance(run, Ph) and run.type == "code:tag":
                if run.data.startswith("{"):
                    run = evolve(run, type="code:expression", sub_type="mdx:expression")
                else:
                    found = _tag_of(run.data)
                    if found is not None:
                        run = evolve(
                            run, sub_type=f"jsx:{found[0]}" if found[0] else "jsx:fragment"
                        )
            out.append(run)
        return tuple(out)


class MdxFormat(MarkdownFormat):
    """MDX: Markdown with JSX and ESM, its prose read as blocks and its code as codes."""

    name = "mdx"
    reader = MdxReader
    escapes = ("{}", "")
