"""Where a MyST or MDX file holds code rather than prose, found from its text by simple rules
that share nothing with kapi's reader, so a finding can be judged to sit inside code or not.

Regions (character ranges of the decoded text): front matter; fenced code (every fence except
the body of a directive or admonition that holds prose, whose fence and option lines still
count); inline code spans and the role before one (``{ref}`x```); URLs and link destinations;
MyST targets and ``%`` comments; MDX ``import``/``export`` lines, JSX tags, ``{expressions}``
and HTML comments.
"""

from __future__ import annotations

import re

__all__ = ["code_regions", "inside", "offset_of"]

# Directives and admonitions whose body is prose, as MyST and Docusaurus document them.
PROSE_BODIES = frozenset(
    [
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
        "admonition",
        "versionadded",
        "versionchanged",
        "versionremoved",
        "deprecated",
        "topic",
        "sidebar",
        "margin",
        "epigraph",
        "pull-quote",
        "highlights",
        "compound",
        "container",
        "div",
        "figure",
        "table",
        "list-table",
        "glossary",
        "only",
        "tab-set",
        "tabs",
        "tab",
        "tab-item",
        "grid",
        "grid-item",
        "grid-item-card",
        "card",
        "dropdown",
        "toggle",
        "hlist",
        "rubric",
        "centered",
        "info",
        "success",
        "secondary",
    ]
)
_FENCE = re.compile(r"^[ \t>]*(`{3,}|~{3,}|:{3,})[ \t]*(\{([\w.+:-]+)\}|([A-Za-z]+))?(.*)$")
_OPTION = re.compile(r"^[ \t>]*:[\w.+-]+:")
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)((?:(?!\n[ \t>]*\n).)+?)(?<!`)\1(?!`)", re.DOTALL)
_ROLE = re.compile(r"\{[\w.+:-]+\}(?=`)")
_URL = re.compile(r"(?:https?|ftp)://[^\s<>\"'`)\]]+|\]\([^)\s]*\)|<(?:https?|mailto):[^>\s]*>")
_REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:[ \t]*\S+", re.MULTILINE)
_MYST_LINE = re.compile(r"^[ \t]*(?:\([^()\s][^()]*\)=[ \t]*|%.*)$", re.MULTILINE)
_ESM = re.compile(r"^(?:import|export)\b[\s\S]*?(?=\n[ \t]*\n|\Z)", re.MULTILINE)
_BRACES = r"\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}"
_JSX = re.compile(
    r"</?[A-Za-z][\w.:-]*(?:\s+(?:[\w.:-]+(?:=(?:\"[^\"]*\"|'[^']*'|"
    + _BRACES
    + r"))?|"
    + _BRACES
    + r"))*\s*/?>|<>|</>"
)
_EXPRESSION = re.compile(_BRACES)
_COMMENT = re.compile(r"<!--[\s\S]*?-->")


def _front_matter(text: str) -> list[tuple[int, int]]:
    if not text.startswith(("---\n", "---\r\n")):
        return []
    match = re.compile(r"^(?:---|\.\.\.)[ \t]*$", re.MULTILINE).search(text, 4)
    return [(0, match.end() if match else len(text))]


def _fences(text: str) -> list[tuple[int, int]]:
    """Code fences as ranges; a prose container's fence lines, not its body."""
    regions: list[tuple[int, int]] = []
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    open_fences: list[tuple[str, int, bool, int]] = []  # marker, count, prose, start line
    index = 0
    while index < len(lines):
        line = lines[index].rstrip("\r\n")
        match = _FENCE.match(line)
        if open_fences and not open_fences[-1][2]:
            marker, count, _, start = open_fences[-1]
            stripped = line.strip(" \t>")
            if stripped and set(stripped) == {marker} and len(stripped) >= count:
                regions.append((starts[start], starts[index + 1]))
                open_fences.pop()
            index += 1
            continue
        if match is not None:
            fence, name = match.group(1), match.group(3) or match.group(4) or ""
            closing = not match.group(2) and not match.group(5).strip()
            if (
                closing
                and open_fences
                and open_fences[-1][0] == fence[0]
                and len(fence) >= open_fences[-1][1]
            ):
                regions.append((starts[index], starts[index + 1]))
                open_fences.pop()
                index += 1
                continue
            if fence[0] == ":" and not name:
                index += 1
                continue
            prose = name in PROSE_BODIES and bool(match.group(3) or fence[0] == ":")
            if fence[0] == ":" and match.group(4) and not prose:
                index += 1  # ":::word" that is no admonition is text
                continue
            open_fences.append((fence[0], len(fence), prose, index))
            if prose:
                # the name is code; an argument after it may be a title, which is prose
                head_end = match.end(2)
                regions.append((starts[index], starts[index] + head_end))
                index += 1
                while index < len(lines) and _OPTION.match(lines[index]):
                    regions.append((starts[index], starts[index + 1]))
                    index += 1
                continue
        index += 1
    for _, _, prose, start in open_fences:
        if not prose:
            regions.append((starts[start], len(text)))
    return regions


def code_regions(text: str, flavour: str) -> list[tuple[int, int]]:
    """Sorted character ranges of ``text`` that hold code (``flavour`` is ``myst`` or ``mdx``)."""
    regions = _front_matter(text) + _fences(text)
    plain = _blank(text, regions)
    for pattern in (_CODE_SPAN, _ROLE, _URL, _REFERENCE_DEFINITION, _COMMENT):
        regions += [m.span() for m in pattern.finditer(plain)]
    if flavour == "myst":
        regions += [m.span() for m in _MYST_LINE.finditer(plain)]
    else:
        regions += [m.span() for m in _ESM.finditer(plain)]
        plain = _blank(text, regions)
        regions += [m.span() for m in _JSX.finditer(plain)]
        regions += [m.span() for m in _EXPRESSION.finditer(_blank(text, regions))]
    return sorted(regions)


def _blank(text: str, regions: list[tuple[int, int]]) -> str:
    chars = list(text)
    for start, end in regions:
        for pos in range(start, end):
            if chars[pos] != "\n":
                chars[pos] = " "
    return "".join(chars)


def inside(regions: list[tuple[int, int]], start: int, end: int) -> bool:
    """Does ``[start, end)`` overlap any region?"""
    return any(low < end and start < high for low, high in regions)


def offset_of(text: str, line: int, column: int, utf16: bool = True) -> int:
    """The character offset of a 1-based line and 1-based column (UTF-16 units or code points)."""
    lines = text.split("\n")
    offset = sum(len(one) + 1 for one in lines[: line - 1])
    if not utf16:
        return offset + column - 1
    units = 0
    current = lines[line - 1] if line - 1 < len(lines) else ""
    for index, char in enumerate(current):
        if units >= column - 1:
            return offset + index
        units += 2 if ord(char) > 0xFFFF else 1
    return offset + len(current)
