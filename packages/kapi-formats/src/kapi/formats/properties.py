"""Java .properties bundles: each key's value is a block, spliced back with the file's escaping.

The reader follows ``java.util.Properties.load``: logical lines joined by a
trailing backslash (the next line's leading blanks skipped), ``#``/``!``
comments, a key ending at the first unescaped ``=``, ``:`` or blank, blanks
around the separator skipped, ``\\t \\n \\r \\f \\uXXXX`` and ``\\x`` -> ``x``
escapes (surrogate pairs joined). The writer copies the original text and
replaces only edited values, so separators, spacing, comments, CRLF and
untouched continuation lines stay as they were.

* Encoding: a BOM decides (UTF-8, UTF-16, UTF-32). Otherwise bytes that are
  valid UTF-8 and hold non-ASCII are UTF-8 (what ``PropertyResourceBundle``
  does since Java 9); any other non-ASCII bytes are ISO-8859-1 (the
  ``Properties.load`` default); pure ASCII is read as ISO-8859-1. UTF-16 or
  UTF-32 without a BOM (which would read as ISO-8859-1 full of NULs) is
  refused ``unsupported`` (``encoding``).
* Escaping an edit: ``\\`` ``\\n`` ``\\r`` ``\\t`` ``\\f`` always, a leading blank as
  ``\\ ``, ``=``/``:`` and ``#``/``!`` only when the file escapes them in values.
  Characters: a UTF-8/UTF-16 file gets them raw; an ISO-8859-1 file gets Latin-1
  raw and the rest as ``\\uXXXX`` (UTF-16 units); a pure-ASCII file, or an
  ISO-8859-1 file that already writes Latin-1 letters as ``\\u`` escapes, gets
  every non-ASCII character as ``\\uXXXX``. Hex case follows the file's escapes.
* An edited value that was continued over several lines is written on one line
  (the continuation layout cannot be mapped onto new text); untouched ones keep it.
* Codes: MessageFormat arguments ``{0}``, ``{1,number,#.##}`` (nested braces
  of ``choice`` included), named ``{min}`` and ``${expr}`` are ``icu:argument`` /
  ``java:el`` placeholders; Mozilla's ``{{name}}`` is ``mozilla:variable``;
  ``%s``, ``%1$s``, ``%.2f``, ``%n`` are ``printf:<conv>``.
  ``data`` is the slice of the decoded value; it is re-escaped with the value.
  MessageFormat quoting (``''``, ``'{'``) is left as written in the text.
* Names are the decoded keys; a repeated key gets ``#2``, ``#3`` in its id.
  The comment lines right above an entry become its ``note`` property.

Limits: ``max_bytes`` of input and ``max_entries`` entries (``budget_exceeded``);
nesting does not apply. A malformed ``\\uXXXX`` fails with ``invalid`` at its
line and column.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from attrs import field, frozen

from kapi.core.format import DEFAULT_LIMITS, FormatError, Limits, WriteRefused
from kapi.core.model import Block, Document, PcClose, PcOpen, Ph, Run, Runs, Text
from kapi.formats.common import canonical_or_error, refuse_targets, runs_text, unique_id
from kapi.formats.respell import respell
from kapi.formats.skeleton import Span, TextSkeleton, decode_text, line_column

__all__ = ["PropertiesFormat"]

_BREAK = re.compile(r"\r\n|\r|\n")
_BLANKS = " \t\f"
_SIMPLE_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}
_PRINTF = re.compile(
    r"%%|%(?:\d+\$)?[-#+0,(<]*\d*(?:\.\d+)?(?P<conversion>[bBhHsScCdoxXeEfgGaAn]|[tT][a-zA-Z])"
)
_MUSTACHE = re.compile(r"\{\{\s*[A-Za-z_][\w.-]*\s*\}\}")
_BRACE_START = re.compile(r"\$\{|\{\s*\d+\s*[,}]|\{[A-Za-z_][\w.-]*\}")
_HEX_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")


@frozen
class _PropertiesSkeleton:
    text: TextSkeleton
    policy: str  # raw, latin1, ascii: which characters an edit writes as \uXXXX
    upper_hex: bool = True
    escape_separators: bool = False
    escape_comment_marks: bool = False
    # Value spans after a key with no separator at all, and after blanks only.
    bare: frozenset[int] = field(factory=frozenset)
    loose: frozenset[int] = field(factory=frozenset)


class PropertiesFormat:
    """Java .properties resource bundles."""

    name = "properties"

    def __init__(self, limits: Limits = DEFAULT_LIMITS) -> None:
        self.limits = limits

    def read(self, data: bytes, *, path: str = "", locale: str = "") -> Document:
        text, encoding, bom, policy = _decode(data, path, self.limits)
        doc_locale = canonical_or_error(locale, path) or "en"
        blocks: list[Block] = []
        spans: list[Span] = []
        bare: set[int] = set()
        loose: set[int] = set()
        ids: set[str] = set()
        raw_slices: list[str] = []
        for entry in _entries(text, path):
            if len(blocks) >= self.limits.max_entries:
                line, column = line_column(text, entry.value_start)
                raise FormatError(
                    f"more than {self.limits.max_entries} entries",
                    path=path,
                    line=line,
                    column=column,
                    code="budget_exceeded",
                )
            block_id = unique_id(entry.key or f"line{line_column(text, entry.value_start)[0]}", ids)
            runs = _parse_runs(entry.value)
            properties = {"note": entry.note} if entry.note else {}
            blocks.append(
                Block(
                    id=block_id,
                    source=runs,
                    name=entry.key,
                    locale=doc_locale,
                    properties=properties,
                )
            )
            spans.append(Span(block_id, entry.value_start, entry.value_end, runs))
            if entry.separator == "":
                bare.add(entry.value_start)
            elif entry.separator == " ":
                loose.add(entry.value_start)
            raw_slices.append(text[entry.value_start : entry.value_end])
        raw_values = "\n".join(raw_slices)
        hex_digits = "".join(m.group(1) for m in _HEX_ESCAPE.finditer(text))
        letters = [c for c in hex_digits if c.isalpha()]
        if policy == "latin1" and any(
            0x80 <= int(m.group(1), 16) <= 0xFF for m in _HEX_ESCAPE.finditer(raw_values)
        ):
            policy = "ascii"
        skeleton = _PropertiesSkeleton(
            text=TextSkeleton(text=text, encoding=encoding, bom=bom, spans=tuple(spans)),
            policy=policy,
            upper_hex=not letters or letters[0].isupper(),
            escape_separators="\\=" in raw_values or "\\:" in raw_values,
            escape_comment_marks="\\#" in raw_values or "\\!" in raw_values,
            bare=frozenset(bare),
            loose=frozenset(loose),
        )
        return Document(
            format=self.name, blocks=tuple(blocks), locale=doc_locale, skeleton=skeleton
        )

    def write(self, document: Document) -> bytes:
        refuse_targets(document, "a .properties file", "its own bundle")
        skeleton = document.skeleton
        if not isinstance(skeleton, _PropertiesSkeleton):
            return _generate(document)

        def render(block: Block, span: Span, runs: Runs) -> str:
            raw = skeleton.text.text[span.start : span.end]
            value = _respell(skeleton, raw, _runs_text(block, runs))
            if span.start in skeleton.bare:
                return "=" + value
            if span.start in skeleton.loose and value[:1] in ("=", ":"):
                # after a blank separator a leading = or : would be read as the separator
                return "\\" + value
            return value

        return skeleton.text.render(document, render)

    def block_lines(self, document: Document) -> dict[str, tuple[int, int]] | None:
        skeleton = document.skeleton
        if not isinstance(skeleton, _PropertiesSkeleton):
            return None
        return skeleton.text.block_lines(document)


# ---------------------------------------------------------------------------
# reading


def _decode(data: bytes, path: str, limits: Limits) -> tuple[str, str, bytes, str]:
    """``(text, encoding, bom, policy)`` by the rule in the module docstring."""
    text, encoding, bom = decode_text(
        data, path=path, encodings=("utf-8", "iso-8859-1"), limits=limits
    )
    if bom:
        return text, encoding, bom, "raw"
    if text.isascii():
        return text, "iso-8859-1", bom, "ascii"
    return text, encoding, bom, "raw" if encoding == "utf-8" else "latin1"


@frozen
class _Entry:
    key: str
    value: str
    value_start: int
    value_end: int
    separator: str  # "" none, " " blanks only, "=" an explicit = or :
    note: str


def _natural_lines(text: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each line's content, line break excluded."""
    pos = 0
    while pos < len(text):
        match = _BREAK.search(text, pos)
        if match is None:
            yield pos, len(text)
            return
        yield pos, match.start()
        pos = match.end()


def _skip_blanks(text: str, pos: int, end: int) -> int:
    while pos < end and text[pos] in _BLANKS:
        pos += 1
    return pos


def _continues(text: str, start: int, end: int) -> bool:
    count = 0
    while end - count > start and text[end - count - 1] == "\\":
        count += 1
    return count % 2 == 1


def _entries(text: str, path: str) -> Iterator[_Entry]:
    lines = list(_natural_lines(text))
    index = 0
    note: list[str] = []
    while index < len(lines):
        start, end = lines[index]
        index += 1
        first = _skip_blanks(text, start, end)
        if first == end:
            note = []
            continue
        if text[first] in "#!":
            note.append(text[first + 1 : end].strip())
            continue
        # Join the logical line, keeping each character's position in the text.
        chars: list[str] = []
        offsets: list[int] = []
        segment_start, segment_end = first, end
        while True:
            continued = _continues(text, segment_start, segment_end)
            stop = segment_end - 1 if continued else segment_end
            chars.extend(text[segment_start:stop])
            offsets.extend(range(segment_start, stop))
            if not continued or index >= len(lines):
                break
            next_start, segment_end = lines[index]
            index += 1
            segment_start = _skip_blanks(text, next_start, segment_end)
        logical = "".join(chars)
        key_end = 0
        while key_end < len(logical):
            char = logical[key_end]
            if char == "\\":
                key_end += 2
                continue
            if char in "=:" or char in _BLANKS:
                break
            key_end += 1
        key_end = min(key_end, len(logical))
        value_at = _skip_blanks(logical, key_end, len(logical))
        separator = "" if key_end == len(logical) else " "
        if value_at < len(logical) and logical[value_at] in "=:":
            value_at = _skip_blanks(logical, value_at + 1, len(logical))
            separator = "="
        value_start = offsets[value_at] if value_at < len(logical) else segment_end
        key = _unescape(logical[:key_end], offsets, 0, text, path)
        value = _unescape(logical[value_at:], offsets, value_at, text, path)
        yield _Entry(
            key=key,
            value=value,
            value_start=value_start,
            value_end=segment_end,
            separator=separator,
            note="\n".join(note),
        )
        note = []


def _unescape(raw: str, offsets: list[int], base: int, text: str, path: str) -> str:
    out: list[str] = []
    index = 0
    while index < len(raw):
        char = raw[index]
        if char != "\\":
            out.append(char)
            index += 1
            continue
        if index + 1 >= len(raw):
            index += 1  # a backslash at the very end of the file is dropped
            continue
        escaped = raw[index + 1]
        if escaped == "u":
            digits = raw[index + 2 : index + 6]
            if len(digits) != 4 or not all(c in "0123456789abcdefABCDEF" for c in digits):
                line, column = line_column(text, offsets[base + index])
                raise FormatError(
                    "malformed \\uXXXX escape: four hex digits must follow \\u",
                    path=path,
                    line=line,
                    column=column,
                )
            out.append(chr(int(digits, 16)))
            index += 6
            continue
        out.append(_SIMPLE_ESCAPES.get(escaped, escaped))
        index += 2
    joined = "".join(out)
    try:
        return joined.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
    except UnicodeDecodeError:
        return joined  # a lone surrogate stays as it is


def _parse_runs(value: str) -> Runs:
    runs: list[Run] = []
    cursor = 0
    number = 0
    position = 0
    while position < len(value):
        brace = _BRACE_START.match(value, position) if value[position] in "{$" else None
        mustache = _MUSTACHE.match(value, position) if value[position] == "{" else None
        if mustache is not None:
            end = mustache.end()
            sub_type = "mozilla:variable"
        elif brace is not None:
            end = _matching_brace(value, value.index("{", position))
            if end < 0:
                position += 1
                continue
            sub_type = "java:el" if value[position] == "$" else "icu:argument"
        elif value[position] == "%" and (printf := _PRINTF.match(value, position)):
            if printf.group() == "%%":
                position = printf.end()
                continue
            end = printf.end()
            sub_type = "printf:" + printf.group("conversion")
        else:
            position += 1
            continue
        if position > cursor:
            runs.append(Text(value[cursor:position]))
        number += 1
        data = value[position:end]
        runs.append(
            Ph(id=str(number), type="code:placeholder", sub_type=sub_type, data=data, equiv=data)
        )
        cursor = position = end
    if cursor < len(value):
        runs.append(Text(value[cursor:]))
    return tuple(runs)


def _matching_brace(value: str, open_at: int) -> int:
    depth = 0
    for index in range(open_at, len(value)):
        if value[index] == "{":
            depth += 1
        elif value[index] == "}":
            depth -= 1
            if depth == 0:
                return index + 1
    return -1


# ---------------------------------------------------------------------------
# writing


def _runs_text(block: Block, runs: Runs) -> str:
    return runs_text(block, runs, _synthesize, value="a .properties value")


def _synthesize(block: Block, run: Ph | PcOpen | PcClose) -> str:
    if run.type == "code:placeholder" and run.equiv:
        parsed = _parse_runs(run.equiv)
        if len(parsed) == 1 and isinstance(parsed[0], Ph):
            return run.equiv
    if run.type == "fmt:linebreak":
        return "\n"
    raise WriteRefused(
        f"block {block.id!r}: .properties has no markup for a new {run.type or 'untyped'} code",
        capability=f"synthesize:{run.type}",
        block=block.id,
    )


def _raw_units(raw: str) -> list[tuple[str, str]]:
    """A value's raw text as ``(character, spelling)`` pairs, in order.

    A line continuation (backslash, line break, the next line's leading blanks)
    is part of the spelling of the character after it, so that keeping that
    character keeps the line the file broke there.
    """
    logical: list[str] = []
    breaks: dict[int, str] = {}  # logical index -> the continuation before it
    index = 0
    while index < len(raw):
        char = raw[index]
        if char == "\\" and index + 1 < len(raw):
            following = raw[index + 1]
            if following in "\r\n":
                match = _BREAK.match(raw, index + 1)
                end = _skip_blanks(raw, match.end() if match else index + 2, len(raw))
                breaks[len(logical)] = breaks.get(len(logical), "") + raw[index:end]
                index = end
                continue
            if following == "\\":
                logical.extend("\\\\")
                index += 2
                continue
        logical.append(char)
        index += 1
    text = "".join(logical)

    def spelled(start: int, end: int) -> str:
        return "".join(breaks.get(at, "") + text[at] for at in range(start, end))

    units: list[tuple[str, str]] = []
    at = 0
    while at < len(text):
        if text[at] != "\\" or at + 1 >= len(text):
            units.append((text[at], spelled(at, at + 1)))
            at += 1
        elif text[at + 1] == "u" and _HEX_ESCAPE.match(text, at):
            units.append((chr(int(text[at + 2 : at + 6], 16)), spelled(at, at + 6)))
            at += 6
        else:
            units.append((_SIMPLE_ESCAPES.get(text[at + 1], text[at + 1]), spelled(at, at + 2)))
            at += 2
    if len(text) in breaks and units:
        units[-1] = (units[-1][0], units[-1][1] + breaks[len(text)])
    return units


def _respell(skeleton: _PropertiesSkeleton, raw: str, value: str) -> str:
    """An edited value in the file's own spelling.

    The characters the edit kept keep the bytes the file held for them (their
    escapes and the lines they were continued over); a new character takes the
    escape the value already used for it, or else the file's escaping rule.
    """
    units = _raw_units(raw)
    old = "".join(char for char, _ in units)
    if any("\ud800" <= char <= "\udfff" for char in old):
        return _escape_value(skeleton, value)  # a pair of \u escapes makes one character
    out = respell(units, value, lambda char: _escape_value(skeleton, "x" + char)[1:])
    if out.startswith(" "):
        return "\\" + out  # a leading blank would be read as the separator's
    return out


def _escape_value(skeleton: _PropertiesSkeleton, value: str) -> str:
    out: list[str] = []
    for index, char in enumerate(value):
        code = ord(char)
        if char == "\\":
            out.append("\\\\")
        elif char in "\t\n\r\f":
            out.append("\\" + {"\t": "t", "\n": "n", "\r": "r", "\f": "f"}[char])
        elif char == " " and index == 0:
            out.append("\\ ")
        elif (char in "=:" and skeleton.escape_separators) or (
            char in "#!" and skeleton.escape_comment_marks
        ):
            out.append("\\" + char)
        elif code < 0x20 or code == 0x7F or _needs_escape(skeleton.policy, code):
            out.append(_u_escape(char, skeleton.upper_hex))
        else:
            out.append(char)
    return "".join(out)


def _needs_escape(policy: str, code: int) -> bool:
    if 0xD800 <= code <= 0xDFFF:
        return True
    if policy == "ascii":
        return code > 0x7F
    if policy == "latin1":
        return code > 0xFF
    return False


def _u_escape(char: str, upper: bool) -> str:
    data = char.encode("utf-16-be", "surrogatepass")
    out = []
    for index in range(0, len(data), 2):
        unit = int.from_bytes(data[index : index + 2], "big")
        out.append(f"\\u{unit:04X}" if upper else f"\\u{unit:04x}")
    return "".join(out)


def _generate(document: Document) -> bytes:
    """A bundle from blocks alone: ``key=value`` lines, non-ASCII as ``\\uXXXX``."""
    skeleton = _PropertiesSkeleton(text=TextSkeleton(text=""), policy="ascii")
    lines: list[str] = []
    for block in document.blocks:
        key = "".join(
            "\\" + c if c in "=: #!" else _escape_value(skeleton, c)
            for c in (block.name or block.id)
        )
        lines.append(f"{key}={_escape_value(skeleton, _runs_text(block, block.source))}\n")
    return "".join(lines).encode("ascii")
