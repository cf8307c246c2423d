"""Apple .strings tables: each ``"key" = "value";`` is a block, spliced back in place.

The reader tokenizes the old-style property-list syntax Foundation reads:
entries ``key = value;`` (or ``key;``, whose value is the key), keys and values
quoted (``"…"``) or unquoted (letters, digits and ``_$+/:.-``), ``/* */`` and
``//`` comments anywhere between tokens. The writer copies the original text
and replaces only edited values, so comments, spacing and line breaks stay.

* Encoding: a BOM decides (UTF-8, UTF-16 or UTF-32, LE/BE). Without one, NUL
  bytes mark UTF-16 (LE when they sit at odd offsets, BE at even ones); else
  UTF-8. BOM-less UTF-32 and bytes that are not UTF-8 (a legacy 8-bit
  encoding) are refused ``unsupported`` (``encoding``). Written back in the
  same encoding, BOM kept.
* Escapes read as Foundation reads them: ``\\" \\' \\\\ \\n \\t \\r \\a \\b \\f \\v``,
  ``\\U`` + up to four hex digits (surrogate pairs joined), ``\\`` + up to three
  octal digits, ``\\x`` -> ``x``. An edit escapes ``\\`` ``"`` and line breaks, tabs
  and other control characters (``\\UXXXX``); other characters are written as
  they are. An unquoted value stays unquoted when the new text fits the
  unquoted alphabet, else it is quoted. A ``key;`` entry gains ``= "value"``.
* Codes: printf conversions with Apple's extensions (``%@``, ``%d``, ``%1$@``,
  ``%lld``, ``%.2f``, ``%#@var@``) are ``code:placeholder`` with sub_type
  ``printf:<length><conversion>``; ``%%`` is text. ``data`` is the slice of the
  decoded value.
* Names are the decoded keys; a repeated key gets ``#2``, ``#3`` in its id.
  The comment right above an entry becomes its ``note`` property.

Limits: ``max_bytes`` of input and ``max_entries`` entries (``budget_exceeded``);
nesting does not apply. Malformed input (an unterminated string or comment, a
missing ``=`` or ``;``) fails with ``invalid`` at its line and column; a
compiled binary-plist .strings fails with ``unsupported``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from attrs import frozen

from kapi.core.format import DEFAULT_LIMITS, FormatError, Limits, WriteRefused
from kapi.core.model import Block, Document, PcClose, PcOpen, Ph, Run, Runs, Text
from kapi.formats.common import UTF16, canonical_or_error, refuse_targets, runs_text, unique_id
from kapi.formats.respell import Unit, respell
from kapi.formats.skeleton import Span, TextSkeleton, decode_text, line_column

__all__ = ["StringsFormat"]

_UNQUOTED = re.compile(r"[A-Za-z0-9_$+/:.\-]+")
_SIMPLE_ESCAPES = {
    "a": "\x07",
    "b": "\x08",
    "f": "\x0c",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\x0b",
}
_WRITE_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_PRINTF = re.compile(
    r"%%|%#@[A-Za-z_]\w*@|%(?:\d+\$)?[-+#0']*(?:\d+|\*(?:\d+\$)?)?(?:\.(?:\d+|\*(?:\d+\$)?))?"
    r"(?P<length>hh|h|ll|l|L|q|j|z|t)?(?P<conversion>[@dDiuUxXoOfFeEgGaAcCsSp])"
)


@frozen
class _Token:
    kind: str  # string, word, "=", ";"
    start: int
    end: int
    value: str = ""


class StringsFormat:
    """Apple .strings files in UTF-8 or UTF-16."""

    name = "applestrings"

    def __init__(self, limits: Limits = DEFAULT_LIMITS) -> None:
        self.limits = limits

    def read(self, data: bytes, *, path: str = "", locale: str = "") -> Document:
        text, encoding, bom = _decode(data, path, self.limits)
        doc_locale = canonical_or_error(locale, path) or "en"
        blocks: list[Block] = []
        spans: list[Span] = []
        ids: set[str] = set()
        for key, value, note in _entries(text, path):
            if len(blocks) >= self.limits.max_entries:
                line, column = line_column(text, key.start)
                raise FormatError(
                    f"more than {self.limits.max_entries} entries",
                    path=path,
                    line=line,
                    column=column,
                    code="budget_exceeded",
                )
            block_id = unique_id(key.value, ids)
            if value is None:
                runs = _parse_runs(key.value)
                span = Span(block_id, key.end, key.end, runs, kind="key-only")
            else:
                runs = _parse_runs(value.value)
                kind = "quoted" if value.kind == "string" else "unquoted"
                span = Span(block_id, value.start, value.end, runs, kind=kind)
            blocks.append(
                Block(
                    id=block_id,
                    source=runs,
                    name=key.value,
                    locale=doc_locale,
                    properties={"note": note} if note else {},
                )
            )
            spans.append(span)
        skeleton = TextSkeleton(text=text, encoding=encoding, bom=bom, spans=tuple(spans))
        return Document(
            format=self.name, blocks=tuple(blocks), locale=doc_locale, skeleton=skeleton
        )

    def write(self, document: Document) -> bytes:
        refuse_targets(document, "a .strings file", "its own .lproj file")
        skeleton = document.skeleton
        if not isinstance(skeleton, TextSkeleton):
            return _generate(document)
        text = skeleton.text
        return skeleton.render(document, lambda *args: _render(text, *args))

    def block_lines(self, document: Document) -> dict[str, tuple[int, int]] | None:
        skeleton = document.skeleton
        if not isinstance(skeleton, TextSkeleton):
            return None
        return skeleton.block_lines(document)


# ---------------------------------------------------------------------------
# reading


def _decode(data: bytes, path: str, limits: Limits) -> tuple[str, str, bytes]:
    if data.startswith(b"bplist"):
        raise FormatError(
            "this is a compiled (binary property list) .strings file; edit its source, or "
            "convert it with `plutil -convert xml1` first",
            path=path,
            offset=0,
            code="unsupported",
        )
    return decode_text(data, path=path, unmarked=UTF16, limits=limits)


def _error(text: str, index: int, message: str, path: str) -> FormatError:
    line, column = line_column(text, index)
    return FormatError(message, path=path, line=line, column=column)


def _tokens(text: str, path: str) -> Iterator[tuple[_Token, str]]:
    """Each token with the comment text that came right before it."""
    pos = 0
    comment: list[str] = []
    length = len(text)
    while pos < length:
        char = text[pos]
        if char in " \t\r\n\f\v":
            end = _next_nonspace(text, pos)
            if text.count("\n", pos, end) > 1:
                comment = []  # a blank line parts a comment from the entry below
            pos = end
        elif text.startswith("/*", pos):
            end = text.find("*/", pos + 2)
            if end < 0:
                raise _error(text, pos, "unterminated /* comment", path)
            comment = [text[pos + 2 : end].strip()]
            pos = end + 2
        elif text.startswith("//", pos):
            end = text.find("\n", pos)
            end = length if end < 0 else end
            comment.append(text[pos + 2 : end].strip())
            pos = end
        elif char == '"':
            value, end = _read_quoted(text, pos, path)
            yield _Token("string", pos, end, value), "\n".join(comment)
            comment = []
            pos = end
        elif char in "=;":
            yield _Token(char, pos, pos + 1), ""
            pos += 1
        else:
            match = _UNQUOTED.match(text, pos)
            if match is None:
                raise _error(text, pos, f"unexpected character {char!r}", path)
            yield _Token("word", pos, match.end(), match.group()), "\n".join(comment)
            comment = []
            pos = match.end()


def _next_nonspace(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n\f\v":
        pos += 1
    return pos


def _entries(text: str, path: str) -> Iterator[tuple[_Token, _Token | None, str]]:
    """``(key, value or None for "key";, note)`` for each entry."""
    tokens = _tokens(text, path)
    for key, note in tokens:
        if key.kind not in ("string", "word"):
            raise _error(text, key.start, f"expected a key, found {key.kind!r}", path)
        following = _next(tokens, text, key.end, path, "'=' or ';'")
        if following.kind == ";":
            yield key, None, note
            continue
        if following.kind != "=":
            raise _error(text, following.start, "expected '=' or ';' after the key", path)
        value = _next(tokens, text, following.end, path, "a value")
        if value.kind not in ("string", "word"):
            raise _error(text, value.start, "expected a value after '='", path)
        end = _next(tokens, text, value.end, path, "';'")
        if end.kind != ";":
            raise _error(text, end.start, "expected ';' after the value", path)
        yield key, value, note


def _next(
    tokens: Iterator[tuple[_Token, str]], text: str, after: int, path: str, wanted: str
) -> _Token:
    for token, _ in tokens:
        return token
    raise _error(text, after, f"the file ends where {wanted} should be", path)


def _read_quoted(text: str, start: int, path: str) -> tuple[str, int]:
    """The decoded content of the string opening at ``start`` and the index after it."""
    units, end = _quoted_units(text, start, path)
    return _join_surrogates("".join(char for char, _ in units)), end


def _quoted_units(text: str, start: int, path: str) -> tuple[list[Unit], int]:
    """The string opening at ``start`` as (UTF-16 unit, its spelling) pairs; the index after it."""
    units: list[Unit] = []
    pos = start + 1
    length = len(text)
    while pos < length:
        char = text[pos]
        if char == '"':
            return units, pos + 1
        if char != "\\":
            units.append((char, char))
            pos += 1
            continue
        if pos + 1 >= length:
            break
        began = pos
        escaped = text[pos + 1]
        pos += 2
        if escaped == "U":
            digits = re.match(r"[0-9a-fA-F]{1,4}", text[pos : pos + 4])
            if digits is None:
                decoded = "U"
            else:
                decoded = chr(int(digits.group(), 16))
                pos += digits.end()
        elif escaped in "01234567":
            octal = re.match(r"[0-7]{1,3}", text[pos - 1 : pos + 2])
            assert octal is not None
            decoded = chr(int(octal.group(), 8))
            pos += octal.end() - 1
        else:
            decoded = _SIMPLE_ESCAPES.get(escaped, escaped)
        units.append((decoded, text[began:pos]))
    raise _error(text, start, "unterminated string", path)


def _join_surrogates(text: str) -> str:
    """``\\U`` escapes are UTF-16 units: pair the surrogates; a lone one stays as it is."""
    try:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
    except UnicodeDecodeError:
        return text


def _parse_runs(value: str) -> Runs:
    runs: list[Run] = []
    cursor = 0
    number = 0
    for match in _PRINTF.finditer(value):
        data = match.group()
        if data == "%%":
            continue
        if match.start() > cursor:
            runs.append(Text(value[cursor : match.start()]))
        number += 1
        if data.startswith("%#@"):
            sub_type = "printf:#@"
        else:
            sub_type = "printf:" + (match.group("length") or "") + match.group("conversion")
        runs.append(
            Ph(id=str(number), type="code:placeholder", sub_type=sub_type, data=data, equiv=data)
        )
        cursor = match.end()
    if cursor < len(value):
        runs.append(Text(value[cursor:]))
    return tuple(runs)


# ---------------------------------------------------------------------------
# writing


def _render(text: str, block: Block, span: Span, runs: Runs) -> str:
    value = _runs_text(block, runs)
    if span.kind == "unquoted" and _UNQUOTED.fullmatch(value):
        return value
    if span.kind != "key-only" and text[span.start : span.start + 1] == '"':
        # the file's own spelling for the characters the edit kept
        units, _end = _quoted_units(text, span.start, "")
        if not any("\ud800" <= char <= "\udfff" for char, _ in units):
            return '"' + respell(units, value, lambda char: _quote(char)[1:-1]) + '"'
    quoted = _quote(value)
    return " = " + quoted if span.kind == "key-only" else quoted


def _quote(value: str) -> str:
    out = ['"']
    for char in value:
        escaped = _WRITE_ESCAPES.get(char)
        if escaped is not None:
            out.append(escaped)
        elif ord(char) < 0x20 or ord(char) == 0x7F or 0xD800 <= ord(char) <= 0xDFFF:
            out.append(f"\\U{ord(char):04X}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def _runs_text(block: Block, runs: Runs) -> str:
    return runs_text(
        block,
        runs,
        _synthesize,
        value="a .strings value",
        hint=" (plurals belong in a .stringsdict)",
    )


def _synthesize(block: Block, run: Ph | PcOpen | PcClose) -> str:
    if run.type == "code:placeholder" and _PRINTF.fullmatch(run.equiv) and run.equiv != "%%":
        return run.equiv
    if run.type == "fmt:linebreak":
        return "\n"
    raise WriteRefused(
        f"block {block.id!r}: .strings has no markup for a new {run.type or 'untyped'} code",
        capability=f"synthesize:{run.type}",
        block=block.id,
    )


def _generate(document: Document) -> bytes:
    """A UTF-8 table from blocks alone, one ``"key" = "value";`` line each."""
    lines = [
        f"{_quote(block.name or block.id)} = {_quote(_runs_text(block, block.source))};\n"
        for block in document.blocks
    ]
    return "".join(lines).encode("utf-8")


# The .stringsdict codec lives in its own module; the registry names it here.
from kapi.formats.stringsdict import StringsdictFormat  # noqa: E402,F401
