"""Runs written back as Markdown: each block's layout, markup escaped where text would
read as markup, and codes added by an edit synthesised."""

from __future__ import annotations

import re
from typing import Any

from attrs import field, frozen

from kapi.core.format import WriteRefused
from kapi.core.model import PcClose, PcOpen, Ph, Runs, Text
from kapi.formats.markdown_inline import ASCII_PUNCT, BACKTICKS, ENTITY

__all__ = ["Layout", "render_runs"]


@frozen
class Layout:
    """How to write one inline block back: its line breaks and what it may hold."""

    mode: str  # paragraph, setext, atx, cell
    separators: tuple[str, ...] = ()
    default_separator: str = "\n"
    labels: dict[str, str] = field(factory=dict)  # link code id -> raw reference label
    referenced: str = ""  # characters only a character reference spells here


# What opens a block at a line's start: a heading, a quote, a list item, a setext underline
# or thematic break, and the first character of a table's delimiter row (``|-``, ``:-``).
_LINE_START_MARKS = frozenset("#>-+=|:")
_ORDERED_MARK = re.compile(r"[0-9]{1,9}[.)]")
_ENDS_LINE = re.compile(r"\n[ \t>]*\Z")


def _escape_text(
    text: str, line_start: bool, mode: str, extra: tuple[str, str] = ("", ""), referenced: str = ""
) -> str:
    """Backslash-escape what would otherwise be read as markup (``extra``: a flavour's own
    marks, anywhere and at a line's start; ``referenced``: characters written as ``&#N;``)."""
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
            if char in _LINE_START_MARKS or char in extra[1]:
                out.append("\\" + char)
                index += 1
                continue
        if char in referenced:
            out.append(f"&#{ord(char)};")
        elif char in "\\`*_[]<~" or char in extra[0]:
            out.append("\\" + char)
        elif char == "&" and ENTITY.match(text, index):
            out.append("\\&")
        elif (char == "|" and mode == "cell") or (char == "#" and mode == "atx"):
            out.append("\\" + char)
        else:
            out.append(char)
        index += 1
    return "".join(out)


def _code_fence(text: str) -> str:
    longest = max((len(m.group(0)) for m in BACKTICKS.finditer(text)), default=0)
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


def _synthesize(run: Ph | PcOpen | PcClose, opener: PcOpen | None, layout: Layout) -> str:
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
            return "\\" + run.equiv if run.equiv in ASCII_PUNCT else f"&#{ord(run.equiv)};"
        if kind == "code:placeholder" and run.equiv:
            return run.equiv
    raise WriteRefused(
        f"Markdown has no way to write a new {kind or 'untyped'} code without its markup",
        capability=f"synthesize:{kind}",
    )


def render_runs(
    runs: Runs, layout: Layout, as_read: Runs, escaped: bool, extra: tuple[str, str] = ("", "")
) -> str:
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
                    out.append(
                        _escape_text(part, line_start, layout.mode, extra, layout.referenced)
                        if escaped
                        else part
                    )
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


def _edited_reference_links(runs: Runs, as_read: Runs, layout: Layout) -> dict[str, str]:
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
