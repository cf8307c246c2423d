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
``FormatError`` with code ``budget_exceeded``. UTF-8, or UTF-16/UTF-32 with
a BOM; BOM-less UTF-16/UTF-32 and legacy 8-bit text are ``unsupported``
(``encoding``), damaged UTF-8 ``invalid``.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from typing import Any

from attrs import frozen

from kapi.core.edition import canonical_locale
from kapi.core.format import DEFAULT_LIMITS, FormatError, Limits, WriteRefused
from kapi.core.model import Block, Document, Runs, Text
from kapi.formats.markdown_blocks import MD_TRIM, BlockSyntaxError, block_parser
from kapi.formats.markdown_inline import InlineScanner, Item, parse_inline
from kapi.formats.markdown_runs import items_to_runs
from kapi.formats.markdown_write import Layout, render_runs
from kapi.formats.skeleton import Span, TextSkeleton, decode_text

__all__ = ["MarkdownFormat", "MarkdownReader", "parse_inline"]


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
    layouts: dict[str, Layout]
    fixed: dict[str, Runs]
    order: tuple[tuple[str, str, bool], ...] = ()
    path: str = ""


class MarkdownReader:
    """One read: walks markdown-it's block tokens and builds blocks, spans and layouts."""

    def __init__(self, text: str, path: str, locale: str, limits: Limits) -> None:
        self.text = text
        self.path = path
        self.locale = locale
        self.limits = limits
        self.lines = _Lines(text)
        self.blocks: list[Block] = []
        self.spans: list[Span] = []
        self.layouts: dict[str, Layout] = {}
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
            tokens = self.parser(depth).parse(norm, env)
        except RecursionError:
            raise FormatError(
                "Markdown nests too deeply to read", path=self.path, code="budget_exceeded"
            ) from None
        except BlockSyntaxError as err:
            raise FormatError(str(err), path=self.path, line=err.line + 1) from None
        self.references = env.get("references", {})
        self._walk(tokens, depth)
        self.finish()
        return self.blocks, self.spans

    def parser(self, depth: int) -> Any:
        """The block parser of this flavour of Markdown."""
        return block_parser(depth)

    def finish(self) -> None:
        """Called when every token was walked: a flavour checks what spans blocks here."""

    def special(self, tokens: list[Any], index: int) -> None:
        """A block token plain Markdown does not make (a flavour's own blocks)."""

    def inline_items(self, content: str, mode: str, position: Callable[[int], int]) -> list[Item]:
        """A block's inline text as scanned items (``position`` maps to the file's text)."""
        return InlineScanner(content, self.references, mode == "cell").scan()

    def inline_runs(self, runs: Runs) -> Runs:
        """The runs of a block as this flavour labels them."""
        return runs

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
            else:
                self.special(tokens, index)
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
        if not token.content.strip(MD_TRIM):
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

        items = self.inline_items(content, mode, position)
        runs, separators, labels = items_to_runs(items, content, source)
        runs = self.inline_runs(runs)
        first_line = bisect.bisect_right(self.lines.starts, original_starts[0]) - 1
        prefix = text[self.lines.starts[first_line] : original_starts[0]]
        continuation = re.sub(r"[^ \t>]", " ", prefix)
        self.layouts[block_id] = Layout(mode, separators, self.lines.newline + continuation, labels)
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
    reader: type[MarkdownReader] = MarkdownReader
    # A flavour's own marks an edited text escapes where they would read as markup:
    # (anywhere, at a line's start).
    escapes: tuple[str, str] = ("", "")

    def __init__(self, limits: Limits = DEFAULT_LIMITS) -> None:
        self.limits = limits

    def read(self, data: bytes, *, path: str = "", locale: str = "") -> Document:
        text, encoding, bom = decode_text(data, path=path, limits=self.limits)
        language = canonical_locale(locale or "en")
        reader = self.reader(text, path, language, self.limits)
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

    def block_lines(self, document: Document) -> dict[str, tuple[int, int]] | None:
        skeleton = document.skeleton
        if not isinstance(skeleton, _MarkdownSkeleton):
            return None
        return skeleton.text.block_lines(document)

    def _render(self, document: Document, skeleton: _MarkdownSkeleton, escaped: set[str]) -> bytes:
        def renderer(block: Block, span: Span, runs: Runs) -> str:
            layout = skeleton.layouts[block.id]
            return render_runs(runs, layout, span.runs, block.id in escaped, self.escapes)

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
