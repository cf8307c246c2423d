"""GNU gettext PO/POT: a line-based reader that records where every string sits.

Each entry becomes a block whose source is the msgid (a Plural run for
msgid/msgid_plural) and whose target, keyed by the header's Language, is the
msgstr. The writer splices re-quoted strings (and the fuzzy flag) into the
original text, so everything it did not change comes back byte for byte.

Writing: an edited string is re-quoted the way gettext writes it. A file
that wraps (the default) gets gettext's layout: ``""`` first and one line per
``\\n`` and per 77 columns, broken at spaces; a file written with
``--no-wrap`` (a line past 79 columns that could have been broken) keeps
values on one line, broken only after ``\\n``. An entry wrapped by hand (its
lines are not gettext's) keeps its own breaks where the text around them is
unchanged, so an edit set back gives its bytes again. A target added to an empty
msgstr fills it; a removed target empties it. The ``fuzzy`` flag follows the
edition's status only when the status changes: to ``translated`` (or any
status but ``draft``) removes it, to ``draft`` adds it; an edit that keeps the
status keeps the flags. BOM, CRLF, the charset and the final newline are kept.
A block the file has no entry for (one its template gained) is written as a
new entry where ``properties["insert_after"]`` or ``["insert_before"]`` puts
it, else after the last entry, as msgmerge writes one (see ``_NewEntries``);
an entry whose block is gone stays as it is.

Limits: the file size (``Limits.max_bytes``) and the number of entries
(``Limits.max_entries``); past either the reader refuses with
``budget_exceeded``. Malformed syntax (a line that is not a comment, keyword
or string; an unterminated string; an unknown escape; msgid without msgstr;
plural/non-plural msgstr mismatches) is refused as ``invalid`` with its line
and column.

Plural forms: ``msgstr[i]`` maps to the CLDR category that gettext's order
gives it for the target language and the header's ``nplurals`` (table below).
When the language is not in the table for that count, the names are
positional: 1 -> other; 2 -> one, other; 3 -> one, few, other; 4 -> one, two,
few, other; 5 -> one, two, few, many, other; 6 -> zero, one, two, few, many,
other (the last form is always ``other``). The names used are recorded on the
block as ``properties["plural_forms"]`` (gettext index order), and the writer
maps them back through the same order, so the round trip never depends on
the names being semantically right. A target with a CLDR category the
catalogue has no msgstr for (``one`` in a Japanese file) is written without
it when it also has ``other``; otherwise such a form is refused.
"""

from __future__ import annotations

import difflib
import itertools
import re
import sys
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property
from pathlib import PurePath
from typing import Any

from attrs import define, field, frozen

from kapi.core.edition import EditionKeyError, canonical_locale
from kapi.core.format import DEFAULT_LIMITS, FormatError, Limits, WriteRefused
from kapi.core.model import Block, Document, Edition, PcClose, PcOpen, Ph, Plural, Run, Runs, Text
from kapi.formats.common import canonical_or_error, gc_paused, text_encoding
from kapi.formats.skeleton import Span, TextSkeleton, decode_text, line_column

__all__ = ["PoFormat", "catalogue_plural_forms", "header_fields", "plural_categories"]

FORMAT = "po"
PIVOT = "n"
WRAP_WIDTH = 79  # gettext's default page width; content lines hold at most 77 characters

# CLDR categories in gettext index order, by language and nplurals, for the
# counts where position alone would name them wrongly.
_PLURAL_TABLE: Mapping[str, Mapping[int, tuple[str, ...]]] = {
    **{key: {3: ("one", "many", "other")} for key in ("fr", "es", "it", "pt", "ca")},
    **{
        key: {3: ("one", "few", "many"), 4: ("one", "few", "many", "other")}
        for key in ("ru", "uk", "be", "pl")
    },
    **{
        key: {3: ("one", "few", "other"), 4: ("one", "few", "many", "other")}
        for key in ("cs", "sk")
    },
    **{key: {3: ("one", "few", "other")} for key in ("hr", "sr", "bs", "ro")},
    "lt": {3: ("one", "few", "other"), 4: ("one", "few", "many", "other")},
    "lv": {3: ("one", "other", "zero")},
    "he": {3: ("one", "two", "other"), 4: ("one", "two", "many", "other")},
    **{key: {4: ("one", "two", "few", "other")} for key in ("sl", "dsb", "hsb", "gd")},
    "mt": {4: ("one", "few", "many", "other")},
    **{key: {5: ("one", "two", "few", "many", "other")} for key in ("ga", "br")},
    "ar": {6: ("zero", "one", "two", "few", "many", "other")},
}
_CLDR_FORMS = frozenset(("zero", "one", "two", "few", "many", "other"))
_POSITIONAL: Mapping[int, tuple[str, ...]] = {
    1: ("other",),
    2: ("one", "other"),
    3: ("one", "few", "other"),
    4: ("one", "two", "few", "other"),
    5: ("one", "two", "few", "many", "other"),
    6: ("zero", "one", "two", "few", "many", "other"),
}


def plural_categories(language: str, nplurals: int) -> tuple[str, ...]:
    """CLDR category names for ``msgstr[0..nplurals-1]`` of ``language`` (see module doc)."""
    base = language.replace("_", "-").split("-")[0].lower()
    known = _PLURAL_TABLE.get(base, {}).get(nplurals)
    if known is not None:
        return known
    if nplurals in _POSITIONAL:
        return _POSITIONAL[nplurals]
    middle = tuple(f"={index}" for index in range(5, nplurals - 1))
    return ("zero", "one", "two", "few", "many", *middle, "other")


# --- the file as read -------------------------------------------------------------------


@frozen
class PoField:
    """One keyword's string in the file: ``msgid``, ``msgstr[1]``..."""

    keyword: str
    start: int  # the first string literal's opening quote
    end: int  # after the last literal's closing quote
    value: str
    newline: str
    line: int


@frozen
class PoEntry:
    """Where one block's entry sits, and what it held when read."""

    block_id: str
    flags: tuple[str, ...]
    flag_line: tuple[int, int] | None  # start and end (newline included) of the `#,` line
    insert_at: int  # where a new `#, fuzzy` line goes
    start: int  # where the entry's first line (a comment's or a keyword's) starts
    newline: str
    msgid: PoField
    msgid_plural: PoField | None
    msgstr: tuple[PoField, ...]  # index order; one field for a non-plural entry
    forms: tuple[str, ...]  # CLDR names of msgstr[i]; () for a non-plural entry
    source: Runs
    target: Runs | None
    status: str
    syntax: str


@frozen
class PoSkeleton:
    """The decoded file, its spans, and one record per block entry.

    How the file was wrapped is worked out the first time a write needs it, not on
    every read: most reads never write.
    """

    text: TextSkeleton
    entries: tuple[PoEntry, ...]
    long_single: bool  # a long value on one line: the file may not wrap at all
    target_locale: str
    layout: dict[str, int] = field(factory=dict, eq=False, repr=False)  # the width, once found
    header: Mapping[str, str] = field(
        factory=dict, eq=False
    )  # the header entry's fields, names lowercased

    @property
    def width(self) -> int:
        """The page width the file was wrapped at (msgcat's ``--width``)."""
        width = self.layout.get("width")
        if width is None:
            fields = [f for entry in self.entries for f in _fields(entry)]
            width = self.layout["width"] = _page_width(self.text.text, fields)
        return width

    @property
    def wrap(self) -> bool:
        return not self.long_single or self.width != WRAP_WIDTH


@define
class _Draft:
    """An entry being read."""

    start_line: int
    comments: list[tuple[str, str, int, int]] = field(factory=list)  # (marker, body, start, end)
    fields: list[PoField] = field(factory=list)
    first_keyword: int = -1


# --- strings and escapes ----------------------------------------------------------------

_LITERAL = re.compile(r'"((?:[^"\\]++|\\.)*+)"')
_KEYWORD = re.compile(r"(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?)(?=[\s\"]|$)")
_ESCAPE = re.compile(
    r"\\(?:([ntr\\\"abfv?'])|((?:[0-7]{1,3}|x[0-9A-Fa-f]+)(?:\\(?:[0-7]{1,3}|x[0-9A-Fa-f]+))*)|(.))"
)
_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "a": "\a", "b": "\b",
           "f": "\f", "v": "\v", "?": "?", "'": "'"}  # fmt: skip
_NUMERIC = re.compile(r"\\([0-7]{1,3}|x[0-9A-Fa-f]+)")
_OUT_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\a": "\\a",
                "\b": "\\b", "\f": "\\f", "\v": "\\v"}  # fmt: skip
_OUT_ESCAPE = re.compile(r'[\\"\n\t\r\a\b\f\v]')


def unescape(raw: str, encoding: str = "utf-8") -> str:
    """A PO string literal's content as text; raises ValueError at a bad escape (its index)."""
    if "\\" not in raw:
        return raw

    def replace(match: re.Match[str]) -> str:
        if match.group(1) is not None:
            return _SIMPLE[match.group(1)]
        if match.group(2) is not None:
            values = [
                int(code[1:], 16) if code.startswith("x") else int(code, 8)
                for code in _NUMERIC.findall(match.group(0))
            ]
            if any(value > 255 for value in values):
                raise ValueError(match.start())
            try:
                return bytes(values).decode(encoding)
            except UnicodeDecodeError:
                return bytes(values).decode("latin-1")
        raise ValueError(match.start())

    return _ESCAPE.sub(replace, raw)


def escape(text: str) -> str:
    """Text as the content of a PO string literal."""
    return _OUT_ESCAPE.sub(lambda match: _OUT_ESCAPES[match.group(0)], text)


def quote(text: str, *, prefix: int, wrap: bool, newline: str, width: int = WRAP_WIDTH) -> str:
    """The string literal(s) gettext writes for ``text`` after a keyword ``prefix`` wide.

    A value with an inner newline, or one too wide for its line when the file
    wraps, starts with ``""`` and continues one literal per line: broken after
    each ``\\n`` and, when wrapping, at spaces so a line stays within ``width``
    columns (msgcat's ``--width``, 79 unless the file shows another).
    """
    pieces = text.split("\n")
    lines = [piece + "\n" for piece in pieces[:-1]]
    if pieces[-1]:
        lines.append(pieces[-1])
    escaped = [escape(line) for line in lines] or [""]
    single = "".join(escaped)
    if len(escaped) == 1 and (not wrap or prefix + display_width(single) + 2 <= width):
        return f'"{single}"'
    out = ['""']
    for piece in escaped:
        out.extend(f'"{chunk}"' for chunk in (_wrap(piece, width - 2) if wrap else [piece]))
    return newline.join(out)


_WORD = re.compile(r"\S*\s*")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
# From the first character that may take two columns on: a text without any is never
# wider than it is long.
_FIRST_WIDE = next(c for c in range(0x1100) if unicodedata.east_asian_width(chr(c)) in ("W", "F"))
_MAYBE_WIDE = re.compile(f"[{chr(_FIRST_WIDE)}-\U0010ffff]")


def display_width(text: str) -> int:
    """Columns a terminal gives ``text``: wide characters two, combining marks none."""
    if text.isascii():
        return len(text)
    # Every ASCII character is one column; look only at the others.
    width = len(text)
    for char in _NON_ASCII.findall(text):
        if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
            width -= 1
        elif unicodedata.east_asian_width(char) in ("W", "F"):
            width += 1
    return width


def _wrap(piece: str, width: int = WRAP_WIDTH - 2) -> list[str]:
    chunks: list[str] = []
    current = ""
    current_width = 0
    for word in _WORD.findall(piece):
        if not word:
            continue
        word_width = display_width(word)
        if current and current_width + word_width > width:
            chunks.append(current)
            current, current_width = word, word_width
        else:
            current += word
            current_width += word_width
    if current or not chunks:
        chunks.append(current)
    return chunks


# --- placeholders -----------------------------------------------------------------------

_PRINTF = re.compile(
    r"%(?:%|(?:\([^)\n]*\)|\d+\$)?[-+ #0']*(?:\*(?:\d+\$)?|\d+)?(?:\.(?:\*(?:\d+\$)?|\d+))?"
    r"(?:hh|ll|[hlLqjzt])?([diouxXeEfFgGaAcrsp]))"
)
_PRINTF_PLAIN = re.compile(r"%(?:\(\w+\)[sdifr]|\d+\$[sdif]|[sd])")
_BRACE = re.compile(r"\{\{|\}\}|\{[^{}\n]*\}")
_PRINTF_FLAGS = frozenset(
    f"{name}-format"
    for name in [
        "c",
        "objc",
        "python",
        "php",
        "perl",
        "javascript",
        "lua",
        "awk",
        "gcc-internal",
        "gfc-internal",
        "boost",
    ]
)


def placeholder_syntax(flags: Iterable[str]) -> str:
    """Which placeholders an entry's flags declare: ``brace``, ``printf``, ``plain`` or ``none``."""
    flag_set = set(flags)
    if "python-brace-format" in flag_set:
        return "brace"
    if flag_set & _PRINTF_FLAGS:
        return "printf"
    if any(flag.startswith("no-") and flag.endswith("-format") for flag in flag_set):
        return "none"
    return "plain"


_PATTERNS = {"printf": _PRINTF, "plain": _PRINTF_PLAIN, "brace": _BRACE}


def text_runs(text: str, syntax: str) -> Runs:
    """Runs of one string: text, and placeholders as ``code:placeholder`` codes."""
    pattern = _PATTERNS.get(syntax)
    if not text:
        return ()
    # Every placeholder has a percent sign, every brace code a brace.
    if pattern is None or (
        "{" not in text and "}" not in text if syntax == "brace" else "%" not in text
    ):
        return (Text(text),)
    runs: list[Run] = []
    cursor = 0
    for count, match in enumerate(pattern.finditer(text), start=1):
        if match.start() > cursor:
            runs.append(Text(text[cursor : match.start()]))
        data = match.group(0)
        if syntax == "brace":
            sub_type, equiv = (
                ("brace:escape", data[0]) if data in ("{{", "}}") else ("brace:field", data)
            )
        elif data == "%%":
            sub_type, equiv = "printf:%", "%"
        else:
            sub_type, equiv = f"printf:{data[-1]}", data
        runs.append(
            Ph(id=str(count), type="code:placeholder", sub_type=sub_type, data=data, equiv=equiv)
        )
        cursor = match.end()
    if cursor < len(text):
        runs.append(Text(text[cursor:]))
    return tuple(runs)


def render_runs(runs: Sequence[Run], block: str) -> str:
    """Flat runs as the string they stand for: text, and each code's native data."""
    out: list[str] = []
    for run in runs:
        if isinstance(run, Text):
            out.append(run.text)
        elif isinstance(run, Ph | PcOpen | PcClose):
            if run.data:
                out.append(run.data)
            elif run.type == "code:placeholder" and run.equiv:
                out.append(run.equiv)
            elif run.type == "fmt:linebreak":
                out.append("\n")
            else:
                raise WriteRefused(
                    f"a PO string cannot hold a new {run.type or 'untyped'} code",
                    capability=f"synthesize:{run.type}",
                    block=block,
                )
        elif isinstance(run, Plural):
            raise WriteRefused("this entry has no plural forms", capability="plural", block=block)
        else:
            raise WriteRefused(
                f"a PO string cannot hold a {type(run).__name__} run",
                capability=f"synthesize:{type(run).__name__.lower()}",
                block=block,
            )
    return "".join(out)


# --- reading ----------------------------------------------------------------------------

_CHARSET = re.compile(rb"charset=([A-Za-z0-9_.:-]+)")
_COMMENT_MARKERS = ("#,", "#.", "#:", "#|", "#~")


def _encodings(data: bytes) -> tuple[str, ...]:
    found = _CHARSET.search(data[:4096])
    if found is None:
        return ("utf-8",)
    encoding = text_encoding(found.group(1).decode("ascii"))
    if encoding is None:
        return ("utf-8",)
    return ("utf-8",) if encoding in ("utf-8", "ascii") else (encoding,)


_PATH_LOCALE = re.compile(r"^[A-Za-z]{2,3}(?:[_-][A-Za-z0-9]{2,8})*(?:@[A-Za-z0-9]+)?$")


def _locale_of_path(path: str) -> str:
    parts = PurePath(path).parts
    candidates = []
    if "LC_MESSAGES" in parts:
        index = parts.index("LC_MESSAGES")
        if index > 0:
            candidates.append(parts[index - 1])
    if path.endswith(".po"):
        candidates.append(PurePath(path).stem)
    for candidate in candidates:
        if not _PATH_LOCALE.match(candidate):
            continue
        tag = gettext_locale(candidate)
        if tag:
            return tag
    return ""


_SCRIPT_MODIFIERS = {"latin": "Latn", "cyrillic": "Cyrl", "arabic": "Arab", "devanagari": "Deva"}


def gettext_locale(value: str) -> str:
    """A gettext language (``pt_BR``, ``sr@latin``) as a canonical BCP-47 tag, or ``""``."""
    value = value.strip().split(".")[0]
    if not value:
        return ""
    base, _, modifier = value.partition("@")
    tag = base.replace("_", "-")
    if modifier:
        script = _SCRIPT_MODIFIERS.get(modifier.lower())
        parts = tag.split("-")
        if script:
            tag = "-".join([parts[0], script, *parts[1:]])
        elif 5 <= len(modifier) <= 8 and modifier.isalnum():
            tag = f"{tag}-{modifier}"
    for attempt in (tag, base.replace("_", "-"), base.split("_")[0]):
        try:
            return canonical_locale(attempt)
        except EditionKeyError:
            continue
    return ""


class _Reader:
    """Reads PO text into entries; every error names its line and column."""

    def __init__(self, text: str, path: str, encoding: str, limits: Limits) -> None:
        self.text = text
        self.path = path
        self.encoding = encoding
        self.limits = limits
        self.drafts: list[_Draft] = []
        self.long_single = False
        # Lines up to this long cannot be too wide (see _note_width).
        self.short_line = WRAP_WIDTH if _MAYBE_WIDE.search(text) is None else WRAP_WIDTH // 2

    def fail(self, message: str, index: int) -> FormatError:
        line, column = line_column(self.text, index)
        return FormatError(message, path=self.path, line=line, column=column)

    def read(self) -> list[_Draft]:
        text = self.text
        drafts = self.drafts
        max_entries = self.limits.max_entries
        draft: _Draft | None = None
        # The open field: keyword, start, end, its literals' texts, line, newline.
        current: list[Any] | None = None
        length = len(text)
        lines = text.split("\n")
        if not lines[-1]:
            lines.pop()  # the text ends with a newline (or is empty)
        position = 0

        def close_field() -> None:
            nonlocal current
            if current is not None and draft is not None:
                keyword, start, end, parts, line, newline = current
                draft.fields.append(PoField(keyword, start, end, "".join(parts), newline, line))
            current = None

        def finish() -> None:
            nonlocal draft
            close_field()
            if draft is not None and draft.fields:
                drafts.append(draft)
                if len(drafts) > max_entries:
                    raise FormatError(
                        f"more than {max_entries} entries",
                        path=self.path,
                        line=draft.start_line,
                        code="budget_exceeded",
                    )
                draft = None

        for line_number, line in enumerate(lines, start=1):
            line_end = position + len(line) + 1
            if line_end > length:
                line_end = length  # the last line has no newline
            content = line[:-1] if line.endswith("\r") else line
            stripped = content.lstrip(" \t")
            content_end = position + len(content)
            indent = content_end - len(stripped)
            first = stripped[:1]
            if first == '"':
                if current is None:
                    raise self.fail("a string continues no keyword", indent)
                end = self._literals(indent, content_end, current[3])
                current[2] = end
                if not self.long_single and end - position > self.short_line:
                    self._note_width(position, indent, end)
            elif not first:
                finish()
            elif first == "#":
                close_field()
                if draft is not None and draft.first_keyword >= 0:
                    finish()
                if draft is None:
                    draft = _Draft(start_line=line_number)
                marker = stripped[:2]
                if marker not in _COMMENT_MARKERS:
                    marker = "#"
                draft.comments.append((marker, stripped[len(marker) :], position, line_end))
            else:
                match = _KEYWORD.match(text, indent, content_end)
                if match is None:
                    raise self.fail("expected a comment, a keyword or a string", indent)
                keyword = match.group(1)
                close_field()
                if draft is not None and draft.fields and keyword in ("msgctxt", "msgid"):
                    seen = {item.keyword.split("[")[0] for item in draft.fields}
                    if "msgstr" in seen:
                        finish()
                    elif keyword == "msgctxt" or "msgid" in seen:
                        raise self.fail(f"{keyword} before the previous entry's msgstr", indent)
                if draft is None:
                    draft = _Draft(start_line=line_number)
                if draft.first_keyword < 0:
                    draft.first_keyword = position
                start = match.end()
                while start < content_end and text[start] in " \t":
                    start += 1
                if start >= content_end or text[start] != '"':
                    raise self.fail(f"{keyword} needs a string", start)
                literals: list[str] = []
                end = self._literals(start, content_end, literals)
                if not self.long_single and end - position > self.short_line:
                    self._note_width(position, start, end)
                newline = text[content_end:line_end] or "\n"
                current = [keyword, start, end, literals, line_number, newline]
            position = line_end
        finish()
        return drafts

    def _note_width(self, line_start: int, literal: int, end: int) -> None:
        # A line past 79 columns that gettext could have broken at a space means
        # the file was written without wrapping (msgcat --no-wrap).
        if self.long_single or end - line_start <= WRAP_WIDTH // 2:
            return
        if (
            " " in self.text[literal + 1 : literal + WRAP_WIDTH // 2]
            and display_width(self.text[line_start:end]) > WRAP_WIDTH
        ):
            self.long_single = True

    def _literals(self, start: int, stop: int, parts: list[str]) -> int:
        """Read the string literals from ``start`` to the line's end into ``parts``; their end."""
        cursor = start
        text = self.text
        while True:
            match = _LITERAL.match(text, cursor, stop)
            if match is None:
                raise self.fail("unterminated string", cursor)
            raw = match.group(1)
            if "\\" in raw:
                try:
                    raw = unescape(raw, self.encoding)
                except ValueError as err:
                    raise self.fail(
                        "unknown escape sequence", cursor + 1 + int(str(err.args[0]))
                    ) from None
            parts.append(raw)
            end = match.end()
            if end == stop:
                return end
            cursor = end
            while cursor < stop and text[cursor] in " \t":
                cursor += 1
            if cursor >= stop:
                return end
            if text[cursor] != '"':
                raise self.fail("unexpected text after a string", cursor)


def _comment_lines(draft: _Draft) -> tuple[dict[str, list[str]], tuple[int, int] | None, int]:
    """Each comment marker's lines (one leading space dropped) in file order; where the
    first ``#,`` line sits; where a new ``#,`` line goes (before ``#|``, else the keywords)."""
    out: dict[str, list[str]] = {}
    flag_line: tuple[int, int] | None = None
    insert_at = -1
    for mark, body, start, end in draft.comments:
        lines = out.get(mark)
        if lines is None:
            lines = out[mark] = []
            if mark == "#,":
                flag_line = (start, end)
            elif mark == "#|":
                insert_at = start
        lines.append(body[1:] if body.startswith(" ") else body)
    return out, flag_line, draft.first_keyword if insert_at < 0 else insert_at


def _previous(lines: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    key = ""
    for line in lines:
        stripped = line.strip()
        match = _KEYWORD.match(stripped)
        rest = stripped
        if match is not None:
            key = "previous_" + match.group(1)
            rest = stripped[match.end() :].strip()
        if not key:
            continue
        literal = _LITERAL.fullmatch(rest)
        try:
            value = unescape(literal.group(1)) if literal else rest
        except ValueError:
            value = rest
        out[key] = out.get(key, "") + value
    return out


def header_fields(document: Document) -> Mapping[str, str]:
    """The header entry's fields of a PO document this format read (names lowercased)."""
    skeleton = document.skeleton
    return skeleton.header if isinstance(skeleton, PoSkeleton) else {}


def catalogue_plural_forms(document: Document) -> tuple[str, ...]:
    """The CLDR names of ``msgstr[0..]`` a new plural entry of a PO document takes.

    Its header's ``nplurals`` and language say them (see the module doc); ``()``
    for a document this format did not read.
    """
    skeleton = document.skeleton
    if not isinstance(skeleton, PoSkeleton):
        return ()
    return plural_categories(skeleton.target_locale, _nplurals(skeleton.header))


def _nplurals(header: Mapping[str, str]) -> int:
    """The ``nplurals`` a header's ``Plural-Forms`` declares; gettext's 2 without one."""
    found = re.search(r"nplurals\s*=\s*(\d+)", header.get("plural-forms", ""))
    return 2 if found is None else max(1, min(int(found.group(1)), 64))


def _header_fields(value: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in value.split("\n"):
        name, colon, rest = line.partition(":")
        if colon:
            out[name.strip().lower()] = rest.strip()
    return out


class PoFormat:
    """GNU gettext PO and POT catalogues (bilingual: msgid is the source, msgstr the target)."""

    name = FORMAT

    def __init__(self, limits: Limits = DEFAULT_LIMITS) -> None:
        self.limits = limits

    def read(self, data: bytes, *, path: str = "", locale: str = "") -> Document:
        text, encoding, bom = decode_text(
            data,
            path=path,
            encodings=_encodings(data),
            hint=" or name its encoding in the header's charset",
            limits=self.limits,
        )
        with gc_paused():
            return self._read(text, encoding, bom, path, locale)

    def _read(self, text: str, encoding: str, bom: bytes, path: str, locale: str) -> Document:
        reader = _Reader(text, path, encoding, self.limits)
        drafts = reader.read()
        source_locale = _source_locale(locale, path)

        header: dict[str, str] = {}
        body = drafts
        if drafts:
            head = drafts[0]
            keys = [item.keyword for item in head.fields]
            if keys[:1] == ["msgid"] and head.fields[0].value == "":
                header = _header_fields(head.fields[-1].value if len(head.fields) > 1 else "")
                body = drafts[1:]
        target_locale = gettext_locale(header.get("language", "")) or _locale_of_path(path)
        order = plural_categories(target_locale, _nplurals(header))

        blocks: list[Block] = []
        entries: list[PoEntry] = []
        spans: list[Span] = []
        pending: list[tuple[_Draft, dict[str, PoField | None], list[PoField]]] = []
        for draft in body:
            pending.append((draft, *self._structure(reader, draft)))
        if not target_locale and any(
            item.value for _, _, strs in pending for item in strs
        ):  # translations in a file that names no language
            target_locale = "und"

        for number, (draft, named, msgstr) in enumerate(pending, start=1):
            block_id = f"tu{number}"
            comments, flag_line, insert_at = _comment_lines(draft)
            flag_lines = comments.get("#,")
            flags = (
                tuple(
                    flag.strip() for line in flag_lines for flag in line.split(",") if flag.strip()
                )
                if flag_lines
                else ()
            )
            syntax = placeholder_syntax(flags) if flags else "plain"
            msgid = named["msgid"]
            assert msgid is not None
            plural_field = named["msgid_plural"]
            context = named["msgctxt"]
            forms: tuple[str, ...] = ()
            if plural_field is not None:
                forms = order if len(msgstr) <= len(order) else plural_categories("", len(msgstr))
                source: Runs = (
                    Plural(
                        pivot=PIVOT,
                        forms={
                            "one": text_runs(msgid.value, syntax),
                            "other": text_runs(plural_field.value, syntax),
                        },
                    ),
                )
                target: Runs | None = (
                    Plural(
                        pivot=PIVOT,
                        forms={
                            forms[i]: text_runs(item.value, syntax) for i, item in enumerate(msgstr)
                        },
                    ),
                )
            else:
                source = text_runs(msgid.value, syntax)
                target = text_runs(msgstr[0].value, syntax)
            has_text = any(item.value for item in msgstr)
            status = ("draft" if "fuzzy" in flags else "translated") if has_text else ""
            if not has_text:
                target = None
            properties = self._properties(comments, flags, context)
            if plural_field is not None:
                properties["plural_forms"] = " ".join(forms)
            name = msgid.value if context is None else f"{context.value}\u0004{msgid.value}"
            targets = (
                {target_locale: Edition(runs=target, status=status)} if target is not None else {}
            )
            blocks.append(
                Block(
                    id=block_id,
                    source=source,
                    name=name,
                    locale=source_locale,
                    targets=targets,
                    properties=properties,
                )
            )
            entries.append(
                PoEntry(
                    block_id=block_id,
                    flags=flags,
                    flag_line=flag_line,
                    insert_at=insert_at,
                    start=draft.comments[0][2] if draft.comments else draft.first_keyword,
                    newline=msgid.newline,
                    msgid=msgid,
                    msgid_plural=plural_field,
                    msgstr=tuple(msgstr),
                    forms=forms,
                    source=source,
                    target=target,
                    status=status,
                    syntax=syntax,
                )
            )
            spans.append(
                Span(block_id, msgid.start, (plural_field or msgid).end, source, kind="msgid")
            )
            spans.append(
                Span(
                    block_id,
                    msgstr[0].start,
                    msgstr[-1].end,
                    target or (),
                    edition=target_locale,
                    kind="msgstr",
                )
            )

        skeleton = PoSkeleton(
            text=TextSkeleton(text=text, encoding=encoding, bom=bom, spans=tuple(spans)),
            entries=tuple(entries),
            long_single=reader.long_single,
            target_locale=target_locale,
            header=header,
        )
        return Document(
            format=FORMAT,
            blocks=tuple(blocks),
            locale=source_locale,
            target_locale=target_locale,
            skeleton=skeleton,
        )

    def _structure(
        self, reader: _Reader, draft: _Draft
    ) -> tuple[dict[str, PoField | None], list[PoField]]:
        named: dict[str, PoField | None] = {"msgctxt": None, "msgid": None, "msgid_plural": None}
        msgstr: list[PoField] = []
        for item in draft.fields:
            base = item.keyword.split("[")[0]
            if base == "msgstr":
                if named["msgid"] is None:
                    raise reader.fail("msgstr before msgid", item.start)
                msgstr.append(item)
                continue
            if (
                msgstr
                or named[base] is not None
                or (base == "msgctxt" and named["msgid"] is not None)
            ):
                raise reader.fail(f"{base} out of place", item.start)
            if base == "msgid_plural" and named["msgid"] is None:
                raise reader.fail("msgid_plural before msgid", item.start)
            named[base] = item
        msgid = named["msgid"]
        if msgid is None:
            raise reader.fail("an entry without msgid", draft.fields[0].start)
        if not msgstr:
            raise reader.fail("msgid without msgstr", msgid.start)
        if named["msgid_plural"] is not None:
            for index, item in enumerate(msgstr):
                if item.keyword != f"msgstr[{index}]":
                    raise reader.fail(f"expected msgstr[{index}] in a plural entry", item.start)
        elif len(msgstr) != 1 or msgstr[0].keyword != "msgstr":
            raise reader.fail("indexed msgstr without msgid_plural", msgstr[0].start)
        return named, msgstr

    def _properties(
        self, comments: dict[str, list[str]], flags: tuple[str, ...], context: PoField | None
    ) -> dict[str, str]:
        properties: dict[str, str] = {}
        if context is not None:
            properties["context"] = context.value
        if flags:
            properties["flags"] = ", ".join(flags)
        notes = comments.get("#.")
        if notes:
            properties["note"] = "\n".join(notes)
        translator = comments.get("#")
        if translator:
            properties["comment"] = "\n".join(translator)
        locations = [token for line in comments.get("#:", ()) for token in line.split()]
        if locations:
            properties["locations"] = " ".join(locations)
        previous = comments.get("#|")
        if previous:
            properties.update(_previous(previous))
        return properties

    # --- writing ------------------------------------------------------------------------

    def write(self, document: Document) -> bytes:
        skeleton = document.skeleton
        if not isinstance(skeleton, PoSkeleton):
            raise WriteRefused("this document was not read from a PO file", capability="generative")
        by_id = {block.id: block for block in document.blocks}
        edits: list[tuple[int, int, str]] = []
        for entry in skeleton.entries:
            block = by_id.get(entry.block_id)
            if block is None:
                continue
            _refuse_other_editions(block, skeleton.target_locale)
            edits.extend(self._source_edits(block, entry, skeleton))
            edits.extend(self._target_edits(block, entry, skeleton))
        if len(by_id) > len(skeleton.entries):
            known = {entry.block_id for entry in skeleton.entries}
            added = [block for block in document.blocks if block.id not in known]
            if added:
                # before any edit at the same place: a new entry ends where the next one starts
                edits[:0] = _NewEntries(document, skeleton).edits(added)
        return skeleton.text.splice(edits)

    def block_lines(self, document: Document) -> dict[str, tuple[int, int]] | None:
        skeleton = document.skeleton
        if not isinstance(skeleton, PoSkeleton):
            return None
        return skeleton.text.block_lines(document)

    def _quoted(self, field_: PoField, value: str, skeleton: PoSkeleton) -> tuple[int, int, str]:
        prefix = len(field_.keyword) + 1
        literal = quote(
            value, prefix=prefix, wrap=skeleton.wrap, newline=field_.newline, width=skeleton.width
        )
        raw = skeleton.text.text[field_.start : field_.end]
        kept = _hand_layout(raw, field_, value, skeleton.text.encoding)
        if kept is not None and raw != quote(
            field_.value,
            prefix=prefix,
            wrap=skeleton.wrap,
            newline=field_.newline,
            width=skeleton.width,
        ):
            literal = kept
        return (field_.start, field_.end, literal)

    def _source_edits(
        self, block: Block, entry: PoEntry, skeleton: PoSkeleton
    ) -> list[tuple[int, int, str]]:
        if block.source == entry.source:
            return []
        if entry.msgid_plural is None:
            return [self._quoted(entry.msgid, render_runs(block.source, block.id), skeleton)]
        plural = _single_plural(block.source, block.id)
        unknown = set(plural.forms) - {"one", "other"}
        if unknown:
            raise WriteRefused(
                f"a PO source holds only the forms one and other, not {sorted(unknown)}",
                capability="plural",
                block=block.id,
            )
        old = _single_plural(entry.source, block.id).forms
        edits = []
        for form, field_ in (("one", entry.msgid), ("other", entry.msgid_plural)):
            runs = plural.forms.get(form, ())
            if runs != old.get(form, ()):
                edits.append(self._quoted(field_, render_runs(runs, block.id), skeleton))
        return edits

    def _target_edits(
        self, block: Block, entry: PoEntry, skeleton: PoSkeleton
    ) -> list[tuple[int, int, str]]:
        current = block.targets.get(skeleton.target_locale) if skeleton.target_locale else None
        edits: list[tuple[int, int, str]] = []
        runs = current.runs if current is not None else None
        if runs != entry.target:
            edits.extend(self._msgstr_edits(block, entry, runs, skeleton))
        if current is not None and current.status and current.status != entry.status:
            edits.extend(_fuzzy_edits(entry, skeleton.text.text, fuzzy=current.status == "draft"))
        return edits

    def _msgstr_edits(
        self, block: Block, entry: PoEntry, runs: Runs | None, skeleton: PoSkeleton
    ) -> list[tuple[int, int, str]]:
        if not entry.forms:
            value = render_runs(runs or (), block.id)
            return [self._quoted(entry.msgstr[0], value, skeleton)]
        forms: Mapping[str, Runs] = _single_plural(runs, block.id).forms if runs else {}
        unknown = set(forms) - set(entry.forms)
        if unknown and "other" in forms and all(form in _CLDR_FORMS for form in unknown):
            # A category the language does not use (one in Japanese) is never chosen.
            unknown = set()
        if unknown:
            raise WriteRefused(
                f"this catalogue's plural forms are {' '.join(entry.forms)}, not {sorted(unknown)}",
                capability="plural",
                block=block.id,
            )
        old: Mapping[str, Runs] = (
            _single_plural(entry.target, block.id).forms if entry.target else {}
        )
        edits: list[tuple[int, int, str]] = []
        added: list[str] = []
        last = entry.msgstr[-1]
        for index, form in enumerate(entry.forms):
            new_runs = forms.get(form, ())
            value = render_runs(new_runs, block.id)
            if index < len(entry.msgstr):
                if new_runs != old.get(form, ()):
                    edits.append(self._quoted(entry.msgstr[index], value, skeleton))
            elif value:
                keyword = f"msgstr[{index}]"
                literal = quote(
                    value,
                    prefix=len(keyword) + 1,
                    wrap=skeleton.wrap,
                    newline=last.newline,
                    width=skeleton.width,
                )
                added.append(f"{last.newline}{keyword} {literal}")
            else:
                # gettext wants every index; fill the gap only when a later form has text
                added.append(f'{last.newline}msgstr[{index}] ""')
        while added and added[-1].endswith(' ""'):
            added.pop()
        if added:
            edits.append((last.end, last.end, "".join(added)))
        return edits


def _refuse_other_editions(block: Block, target_key: str) -> None:
    other = [key for key in block.targets if key != target_key or not key]
    if other:
        raise WriteRefused(
            f"this PO file holds only {target_key or 'no'} translations, not {other[0]!r}",
            capability="edition",
            block=block.id,
        )


class _NewEntries:
    """Entries for the blocks a document gained, each placed as msgmerge places it.

    A new block goes after the entry (or the new block) that
    ``properties["insert_after"]`` names, or before the entry
    ``properties["insert_before"]`` names, else after the file's last entry
    (before any obsolete ``#~`` entries that close it); a blank line parts it
    from its neighbours.
    It is written as gettext writes an entry: ``#.`` notes, ``#:`` references
    and ``#,`` flags from the block's properties (``fuzzy`` first when the
    target is a draft), ``msgctxt``, ``msgid`` (and ``msgid_plural``), and
    ``msgstr`` (one ``msgstr[i]`` for each of the catalogue's ``nplurals``).
    A block whose msgid an obsolete ``#~`` entry holds is refused: gettext
    takes the two for one message defined twice, and msgmerge brings the
    obsolete one back with its translation.
    """

    def __init__(self, document: Document, skeleton: PoSkeleton) -> None:
        self.skeleton = skeleton
        self.text = text = skeleton.text.text
        entries = skeleton.entries
        self.newline = entries[0].newline if entries else ("\r\n" if "\r\n" in text else "\n")
        by_id = {block.id: block for block in document.blocks}
        self.after: dict[str, int] = {}  # an entry's name: where the text after it starts
        self.before: dict[str, int] = {}  # an entry's name: where it starts
        for entry in entries:
            block = by_id.get(entry.block_id)
            if block is not None:
                self.after.setdefault(block.name, self._line_end(entry.msgstr[-1].end))
                self.before.setdefault(block.name, entry.start)
        self.end = self._line_end(entries[-1].msgstr[-1].end) if entries else len(text)

    @cached_property
    def obsolete(self) -> frozenset[str]:
        """The names (msgctxt U+0004 msgid, or msgid) of the file's obsolete ``#~`` entries."""
        lines = _OBSOLETE_LINE.findall(self.text)
        if not lines:
            return frozenset()
        text = "\n".join(lines) + "\n"
        limits = Limits(max_bytes=sys.maxsize, max_entries=sys.maxsize)
        try:
            reader = _Reader(text, "", self.skeleton.text.encoding, limits)
            named = [PoFormat()._structure(reader, draft)[0] for draft in reader.read()]
        except FormatError:
            return frozenset()  # obsolete lines gettext would not read either
        return frozenset(
            (f"{ctx.value}\u0004" if (ctx := fields["msgctxt"]) is not None else "") + msgid.value
            for fields in named
            if (msgid := fields["msgid"]) is not None and msgid.value
        )

    def _line_end(self, index: int) -> int:
        found = self.text.find("\n", index)
        return len(self.text) if found < 0 else found + 1

    def edits(self, blocks: Sequence[Block]) -> list[tuple[int, int, str]]:
        # (position, before the entry there): (name, entry text) in order
        places: dict[tuple[int, bool], list[tuple[str, str]]] = {}
        placed: dict[str, tuple[int, bool]] = {}  # a new block's name: its place
        for block in blocks:
            if block.name in self.after or block.name in placed:
                raise WriteRefused(
                    f"{block.name!r}: the catalogue has this entry already",
                    capability="insert_block",
                    block=block.id,
                )
            if block.name in self.obsolete:
                raise WriteRefused(
                    f"{block.name!r}: the catalogue holds it as an obsolete #~ entry; bring "
                    "that back (msgmerge does, with its translation) and run kapi again",
                    capability="insert_block",
                    block=block.id,
                )
            _refuse_other_editions(block, self.skeleton.target_locale)
            anchor = block.properties.get("insert_after", "")
            entry = (block.name, self._entry(block))
            if anchor in placed:
                group = places[placed[anchor]]
                index = next(i for i, (name, _) in enumerate(group) if name == anchor)
                group.insert(index + 1, entry)
                placed[block.name] = placed[anchor]
                continue
            following = block.properties.get("insert_before", "")
            if not anchor and following in self.before:
                place = (self.before[following], True)
            else:
                place = (self.after.get(anchor, self.end) if anchor else self.end, False)
            places.setdefault(place, []).append(entry)
            placed[block.name] = place
        return [
            (at, at, self._joined(at, [t for _, t in places[at, before]], before=before))
            for at, before in sorted(places)
        ]

    def _joined(self, at: int, entries: list[str], *, before: bool) -> str:
        newline, text = self.newline, self.text
        if before:  # at an entry's first line: each new one, then a blank line
            out = "".join(entry + newline for entry in entries)
            if at and not text.endswith(newline * 2, 0, at):
                out = newline + out
            return out
        out = "".join(newline + entry for entry in entries)  # each after a blank line
        if not text:
            return out[len(newline) :]
        if at == len(text) and not text.endswith("\n"):
            return newline + out[: -len(newline)]  # the file ends without a newline: so it still
        if at < len(text) and not text.startswith(newline, at):
            out += newline  # a blank line before what follows, too
        return out

    def _entry(self, block: Block) -> str:
        skeleton, newline = self.skeleton, self.newline
        properties = block.properties
        lines: list[str] = []
        note = properties.get("note")
        if note:
            lines.extend(f"#. {line}".rstrip(" ") for line in note.split("\n"))
        locations = properties.get("locations", "").split()
        if locations:
            lines.extend(_location_lines(locations, skeleton.width))
        current = block.targets.get(skeleton.target_locale) if skeleton.target_locale else None
        flags = [
            flag.strip()
            for flag in properties.get("flags", "").split(",")
            if flag.strip() and flag.strip() != "fuzzy"
        ]
        if current is not None and current.runs and current.status == "draft":
            flags.insert(0, "fuzzy")
        if flags:
            lines.append("#, " + ", ".join(flags))
        context = properties.get("context")
        if context is None and "\u0004" in block.name:
            context = block.name.split("\u0004", 1)[0]
        if context is not None:
            lines.append(self._field("msgctxt", context))
        runs = current.runs if current is not None else ()
        if not (len(block.source) == 1 and isinstance(block.source[0], Plural)):
            lines.append(self._field("msgid", render_runs(block.source, block.id)))
            lines.append(self._field("msgstr", render_runs(runs, block.id)))
            return newline.join(lines) + newline
        source = block.source[0].forms
        unknown = set(source) - {"one", "other"}
        if unknown:
            raise WriteRefused(
                f"a PO source holds only the forms one and other, not {sorted(unknown)}",
                capability="plural",
                block=block.id,
            )
        lines.append(self._field("msgid", render_runs(source.get("one", ()), block.id)))
        lines.append(self._field("msgid_plural", render_runs(source.get("other", ()), block.id)))
        order = plural_categories(skeleton.target_locale, _nplurals(skeleton.header))
        forms: Mapping[str, Runs] = _single_plural(runs, block.id).forms if runs else {}
        unknown = set(forms) - set(order)
        if unknown and not ("other" in forms and unknown <= _CLDR_FORMS):
            raise WriteRefused(
                f"this catalogue's plural forms are {' '.join(order)}, not {sorted(unknown)}",
                capability="plural",
                block=block.id,
            )
        for index, form in enumerate(order):
            value = render_runs(forms.get(form, ()), block.id)
            lines.append(self._field(f"msgstr[{index}]", value))
        return newline.join(lines) + newline

    def _field(self, keyword: str, value: str) -> str:
        skeleton = self.skeleton
        literal = quote(
            value,
            prefix=len(keyword) + 1,
            wrap=skeleton.wrap,
            newline=self.newline,
            width=skeleton.width,
        )
        return f"{keyword} {literal}"


# An obsolete entry's line, its ``#~ `` taken off (not a ``#~|`` previous-msgid line).
_OBSOLETE_LINE = re.compile(r"^#~(?!\|) ?(.*?)\r?$", re.MULTILINE)


def _location_lines(locations: Sequence[str], width: int) -> list[str]:
    """``#:`` lines as gettext writes them: references joined by spaces within the page width."""
    lines: list[str] = []
    line = "#:"
    for location in locations:
        if len(line) > 2 and len(line) + 1 + len(location) > width:
            lines.append(line)
            line = "#:"
        line += " " + location
    lines.append(line)
    return lines


def _hand_layout(raw: str, field_: PoField, value: str, encoding: str) -> str | None:
    """``value`` broken into literals where the file's own literals broke the old value.

    A person who wrapped an entry by hand (at sentence ends, at a width of their
    own) keeps their lines: a break between two literals stays where the text
    around it is unchanged, so an edit moves only the lines it touches and an
    edit set back gives the entry's bytes again. None when ``raw`` is not plain
    literals one per line.
    """
    literals = _LITERAL.findall(raw)
    if len(literals) < 2 or raw != field_.newline.join(f'"{x}"' for x in literals):
        return None
    try:
        chunks = [unescape(literal, encoding) for literal in literals]
    except ValueError:
        return None
    if "".join(chunks) != field_.value:
        return None
    breaks, at = [], 0
    for chunk in chunks[:-1]:
        at += len(chunk)
        breaks.append(at)
    moved: list[int] = []
    matcher = difflib.SequenceMatcher(None, field_.value, value, autojunk=False)
    for tag, old_start, old_end, new_start, _ in matcher.get_opcodes():
        if tag != "equal" or old_end - old_start < 3:
            continue  # a character or two matching inside new text is chance
        moved.extend(new_start + b - old_start for b in breaks if old_start < b <= old_end)
    cuts = [0, *sorted(set(moved)), len(value)]
    pieces = [value[start:end] for start, end in itertools.pairwise(cuts)]
    if chunks[0] == "" and (not pieces or pieces[0] != ""):
        pieces.insert(0, "")  # the file's `msgid ""` opening line
    pieces = [p for i, p in enumerate(pieces) if p or i == 0]
    return field_.newline.join(f'"{escape(piece)}"' for piece in pieces)


def _fields(entry: PoEntry) -> list[PoField]:
    plural = [entry.msgid_plural] if entry.msgid_plural is not None else []
    return [entry.msgid, *plural, *entry.msgstr]


def _page_width(text: str, fields: Sequence[PoField]) -> int:
    """The page width msgcat wrapped the file at: 79 unless its broken lines rule it out.

    A line broken at a space bounds the width both ways: the line fitted, and
    the next line's first word did not.
    """
    widest, narrowest = 0, sys.maxsize
    for field_ in fields:
        if text[field_.start : field_.start + 2] != '""' or field_.end - field_.start < 4:
            continue
        literals = [m.group(1) for m in _LITERAL.finditer(text, field_.start, field_.end)][1:]
        for index, literal in enumerate(literals):
            line = display_width(literal) + 2
            widest = max(widest, line)
            if index + 1 < len(literals) and not literal.endswith("\\n"):
                word = _WORD.match(literals[index + 1])
                following = display_width(word.group(0)) if word else 0
                if following:
                    narrowest = min(narrowest, line + following - 1)
    if narrowest == sys.maxsize or widest > narrowest:
        return WRAP_WIDTH
    # of the widths the lines allow, the ones tools are set to, then the narrowest seen
    for width in _USUAL_WIDTHS:
        if widest <= width <= narrowest:
            return width
    return widest


_USUAL_WIDTHS = (WRAP_WIDTH, 80, 76, 77, 78, 75, 72, 70, 60, 100, 120)


def _fuzzy_edits(entry: PoEntry, text: str, *, fuzzy: bool) -> list[tuple[int, int, str]]:
    if ("fuzzy" in entry.flags) == fuzzy:
        return []
    if entry.flag_line is None:
        return [(entry.insert_at, entry.insert_at, f"#, fuzzy{entry.newline}")]
    start, end = entry.flag_line
    line = text[start:end]
    body = line.rstrip("\r\n")
    newline = line[len(body) :]
    own = [flag.strip() for flag in body[2:].split(",") if flag.strip()]
    flags = ["fuzzy", *own] if fuzzy else [flag for flag in own if flag != "fuzzy"]
    return [(start, end, "#, " + ", ".join(flags) + newline if flags else "")]


def _single_plural(runs: Runs | None, block: str) -> Plural:
    if runs is not None and len(runs) == 1 and isinstance(runs[0], Plural):
        return runs[0]
    raise WriteRefused("a plural entry needs one Plural run", capability="plural", block=block)


def _source_locale(locale: str, path: str) -> str:
    return canonical_or_error(locale or "en", path)
