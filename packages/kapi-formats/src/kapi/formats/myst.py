"""MyST Markdown, as Sphinx reads it through myst-parser: Markdown with directives and roles.

Which files. The format ``myst`` reads a file when a recipe entry or
``--format`` names it, and a ``.md`` file whose first 4 KiB hold MyST syntax
(a directive fence such as ```` ```{note} ```` or ``:::{tip}``, a role such as
``{ref}`label```, or a ``(label)=`` target line) is detected as MyST;
``kapi init`` declares ``format: myst`` for the Markdown of a Sphinx project
(a ``conf.py`` beside it or above it).

Blocks. Everything plain Markdown reads stays as it is. A directive that holds
prose (the admonitions ``note``, ``tip``, ``warning``, ``seealso``...,
``admonition``, ``versionadded``/``versionchanged``/``deprecated``, ``topic``,
``sidebar``, ``margin``, ``figure`` and ``table`` captions, ``list-table``
cells, ``glossary``, ``dropdown``, ``card``, ``tab-item``, ``grid-item``...)
is a ``directive`` block (``dir1``: the opening fence and its option lines,
not translatable) whose body is read as Markdown blocks in place, nested
directives too; where its argument is a title (``{admonition} Title``, a
note's first line) the argument is a ``title`` block. Every other directive
(``code-block``, ``code-cell``, ``eval-rst``, ``math``, ``mermaid``,
``literalinclude``, ``toctree``, ``include``, ``image``, ``raw`` and any
directive kapi does not know) is one ``code`` block, as read. ``(label)=``
targets (``target``), ``%`` comments (``comment``), ``+++`` block breaks
(``break``) and ``$$`` display math (``math``) are blocks that are not
translatable. In text, a role (``{py:func}`x```) is one ``fmt:code`` code
(sub-type ``myst:role``) and a substitution (``{{ name }}``) a
``code:placeholder``.

Bad input: a directive whose fence is never closed is refused (``invalid``,
naming its line): Sphinx would read the rest of the file into it. Read it
with ``--format markdown`` to take it as code.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from types import SimpleNamespace
from typing import Any

from attrs import evolve

from kapi.core.model import Ph, Runs
from kapi.formats.markdown import MarkdownFormat, MarkdownReader
from kapi.formats.markdown_blocks import BlockSyntaxError, new_parser
from kapi.formats.markdown_directives import closed_fence, container_rule, fold, line_text
from kapi.formats.markdown_inline import Item

__all__ = ["CODE_DIRECTIVES", "PROSE_DIRECTIVES", "MystFormat", "MystReader"]

_ADMONITIONS = frozenset(
    {
        "attention",
        "caution",
        "danger",
        "error",
        "hint",
        "important",
        "note",
        "seealso",
        "tip",
        "warning",
    }
)
# Directives whose argument is prose (a title, or a first line of the body).
_TITLED = _ADMONITIONS | {
    "admonition",
    "topic",
    "sidebar",
    "margin",
    "table",
    "list-table",
    "dropdown",
    "card",
    "grid-item-card",
    "tab-item",
    "tab",
    "rubric",
    "centered",
}
PROSE_DIRECTIVES = _TITLED | {
    "versionadded",
    "versionchanged",
    "versionremoved",
    "deprecated",
    "epigraph",
    "pull-quote",
    "highlights",
    "compound",
    "container",
    "div",
    "figure",
    "glossary",
    "only",
    "tab-set",
    "tabs",
    "grid",
    "grid-item",
    "toggle",
    "hlist",
}
"""Directives whose body is Markdown prose; every other directive is code."""

CODE_DIRECTIVES = frozenset(
    {
        "code",
        "code-block",
        "code-cell",
        "sourcecode",
        "eval-rst",
        "math",
        "mermaid",
        "graphviz",
        "literalinclude",
        "toctree",
        "include",
        "image",
        "raw",
        "csv-table",
        "jupyter-execute",
        "ipython",
        "autoclass",
        "autofunction",
        "automodule",
        "bibliography",
    }
)
"""Directives known to hold code (listed for the docs; unknown ones are code as well)."""

_NAME = r"[A-Za-z][\w.+:-]*"
_DIRECTIVE = re.compile(r"\{(" + _NAME + r")\}[ \t]*")
_ROLE_WINDOW = 200  # how far before a code span its role's name may begin
_ROLE_BEFORE = re.compile(r"(?<!\\)\{" + _NAME + r"\}\Z")
_SUBSTITUTION = re.compile(r"\{\{[^{}\n]*\}\}")
_CLOSES_MATH = re.compile(r"\$\$(?:[ \t]*\([^()]*\))?\Z")
_TARGET = re.compile(r"\(([^()\s][^()]*)\)=[ \t]*\Z")


def _prose_opener(marker: str, params: str) -> tuple[str, int, int] | None:
    match = _DIRECTIVE.match(params)
    if match is None or match.group(1) not in PROSE_DIRECTIVES:
        return None
    name = match.group(1)
    rest = params[match.end() :].rstrip(" \t")
    if name not in _TITLED or not rest:
        return name, match.end(), match.end()
    return name, match.end(), match.end() + len(rest)


def _refuse_unclosed(rule: Any) -> Any:
    """A fence rule that refuses a directive fence (```` ```{name} ````) never closed."""

    def fenced(state: Any, start: int, end: int, silent: bool) -> bool:
        before = len(state.tokens)
        found = rule(state, start, end, silent)
        if found and not silent and len(state.tokens) > before:
            token = state.tokens[-1]
            directive = _DIRECTIVE.match(token.info)
            if directive is not None and not closed_fence(state, token):
                raise BlockSyntaxError(
                    f"the directive {directive.group(1)!r} is never closed"
                    f" (a line of {token.markup} is missing)",
                    start,
                )
        return bool(found)

    return fenced


def _line_rule(pattern: Callable[[str], bool], token_type: str) -> Any:
    def rule(state: Any, start: int, end: int, silent: bool) -> bool:
        if state.is_code_block(start) or not pattern(line_text(state, start)):
            return False
        if silent:
            return True
        line = start + 1
        if token_type == "myst_comment":
            while line < end and not state.is_code_block(line) and pattern(line_text(state, line)):
                line += 1
        token = state.push(token_type, "", 0)
        token.map = [start, line]
        token.content = state.getLines(start, line, 0, False)
        state.line = line
        return True

    return rule


def _math_rule(state: Any, start: int, end: int, silent: bool) -> bool:
    if state.is_code_block(start):
        return False
    text = line_text(state, start)
    if not text.startswith("$$"):
        return False
    rest = text[2:].rstrip(" \t")
    close = None
    # where a search for a closing $$ found none before ``end``: a later one finds none either
    unclosed: dict[int, int] = state.env.setdefault("myst_math_unclosed", {})
    if _CLOSES_MATH.search(rest):
        close = start
    elif start < unclosed.get(end, end + 1):
        for line in range(start + 1, end):
            if state.sCount[line] < state.blkIndent and line_text(state, line):
                break
            if _CLOSES_MATH.search(line_text(state, line).rstrip(" \t")):
                close = line
                break
        else:
            unclosed[end] = start
    if close is None:
        return False
    if silent:
        return True
    token = state.push("math_block", "math", 0)
    token.map = [start, close + 1]
    token.content = state.getLines(start, close + 1, 0, False)
    state.line = close + 1
    return True


_ALT = {"alt": ["paragraph", "reference", "blockquote", "list"]}


@cache
def myst_parser(max_nesting: int) -> Any:
    from markdown_it.rules_block.fence import make_fence_rule

    parser = new_parser(max_nesting)
    ruler = parser.block.ruler
    for rule in ruler.__rules__:
        if rule.name == "fence":
            rule.fn = _refuse_unclosed(rule.fn)
    ruler.__cache__ = None
    ruler.before(
        "fence",
        "myst_directive",
        container_rule(_prose_opener, options=True, what="directive"),
        _ALT,
    )
    colon = make_fence_rule(markers=(":",), token_type="colon_fence")
    ruler.after("myst_directive", "myst_colon_fence", _refuse_unclosed(_colon_only(colon)), _ALT)
    ruler.before(
        "blockquote",
        "myst_comment",
        _line_rule(lambda text: text.startswith("%"), "myst_comment"),
        _ALT,
    )
    ruler.before(
        "hr",
        "myst_break",
        _line_rule(lambda text: re.match(r"\+\+\+(?:[ \t]|\Z)", text) is not None, "myst_break"),
        _ALT,
    )
    ruler.before(
        "hr",
        "myst_target",
        _line_rule(lambda text: _TARGET.match(text) is not None, "myst_target"),
        _ALT,
    )
    ruler.before("fence", "myst_math", _math_rule)
    return parser


def _colon_only(rule: Any) -> Any:
    """A colon fence only where it opens a directive (``:::{name}``); else it is text."""

    def colon(state: Any, start: int, end: int, silent: bool) -> bool:
        text = line_text(state, start).lstrip(":")
        if _DIRECTIVE.match(text) is None:
            return False
        return bool(rule(state, start, end, silent))

    return colon


_FIXED = {
    "myst_comment": ("cmt", "comment"),
    "myst_break": ("brk", "break"),
    "myst_target": ("tgt", "target"),
    "math_block": ("math", "math"),
}


class MystReader(MarkdownReader):
    """One read of a MyST file: Markdown's blocks, and directives, targets and roles."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.directives: list[str] = []

    def parser(self, depth: int) -> Any:
        return myst_parser(depth)

    def special(self, tokens: list[Any], index: int) -> None:
        token = tokens[index]
        kind = token.type
        if kind == "colon_fence":
            props = {"info": token.info.strip()} if token.info.strip() else {}
            block_id, name = self._next("code")
            self._add_fixed(block_id, name, token.content, "code", props)
        elif kind in _FIXED:
            prefix, role = _FIXED[kind]
            block_id, name = self._next(prefix)
            self._add_fixed(block_id, name, token.content.rstrip("\n"), role, {})
        elif kind == "directive_open":
            self.open_directive(token)
        elif kind == "directive_close":
            self.directives.pop()

    def open_directive(self, token: Any) -> None:
        name = token.meta["name"]
        block_id, address = self._next("dir")
        self._add_fixed(block_id, address, token.content, "directive", {"directive": name})
        self.directives.append(name)
        start, end = token.meta["arg"]
        if end > start:
            original = self._to_original(start)
            content = self.text[original : original + (end - start)]
            title = SimpleNamespace(content=content, meta={"segments": [(start, end)]})
            self._inline_block(title, "title", "", "title", 0, "atx")
            made = self.blocks[-1].id
            if token.markup.startswith("`") and made in self.layouts:
                # a backtick fence's line holds no backtick: a new one is written &#96;
                self.layouts[made] = evolve(self.layouts[made], referenced="`")

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
        if self.directives:
            props = {**(props or {}), "directive": self.directives[-1]}
        super()._inline_block(token, kind, name, role, level, mode, props)

    def inline_items(self, content: str, mode: str, position: Any) -> list[Item]:
        items = super().inline_items(content, mode, position)
        spans: list[tuple[int, int, Item]] = []
        for item in items:
            if item.kind == "code":
                role = _ROLE_BEFORE.search(content, max(0, item.start - _ROLE_WINDOW), item.start)
                if role is not None:
                    made = Item(role.start(), item.end, "code", dict(item.info))
                    spans.append((role.start(), item.end, made))
        for match in _SUBSTITUTION.finditer(content):
            spans.append((match.start(), match.end(), Item(match.start(), match.end(), "html")))
        if not spans:
            return items
        spans.sort(key=lambda span: span[0])
        return fold(items, spans, ("code", "escape", "entity"))

    def inline_runs(self, runs: Runs) -> Runs:
        out = []
        for run in runs:
            if isinstance(run, Ph) and run.type == "fmt:code" and run.data.startswith("{"):
                run = evolve(run, sub_type="myst:role")
            elif isinstance(run, Ph) and run.type == "code:tag" and run.data.startswith("{{"):
                run = evolve(run, type="code:placeholder", sub_type="myst:substitution")
            out.append(run)
        return tuple(out)


class MystFormat(MarkdownFormat):
    """MyST Markdown: Markdown whose prose directives are read as blocks, roles as codes."""

    name = "myst"
    reader = MystReader
    escapes = ("{", "(%$")
