"""Span skeletons: the original text with the position of every value a block came from.

A text format's reader records, for each value it turned into runs, where the
value sits in the decoded text and the runs it read there. The writer copies
the text verbatim and re-renders only the spans whose runs changed, so an
untouched document comes back byte for byte (BOM, encoding and newlines kept).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence

from attrs import frozen

from kapi.core.model import Block, Document, Run, Runs, Text
from kapi.formats.common import decode_text, encode_or_refuse, unencodable

__all__ = [
    "Edit",
    "Span",
    "SpanLocator",
    "TextSkeleton",
    "apply_edits",
    "decode_text",
    "line_column",
    "text_locator",
]


@frozen
class Span:
    """Where one edition of one block sits in the text, and what was read there.

    ``edition`` is ``""`` for the block's own edition, else the edition key the
    value holds (a PO msgstr, an XLIFF target). ``kind`` lets a format mark a
    span that is a place to insert (an XLIFF unit with no target yet).
    """

    block_id: str
    start: int
    end: int
    runs: Runs
    edition: str = ""
    kind: str = "value"


# (start, end, replacement) on the decoded text
Edit = tuple[int, int, str]

# Renders new runs for a span into the format's native text (escaped).
SpanRenderer = Callable[[Block, Span, Runs], str]


@frozen
class TextSkeleton:
    """Decoded text, how it was encoded, and the spans of its values in order."""

    text: str
    encoding: str = "utf-8"
    bom: bytes = b""
    spans: tuple[Span, ...] = ()

    def render(self, document: Document, renderer: SpanRenderer) -> bytes:
        """The document's bytes: original text with changed spans re-rendered."""
        by_id = {block.id: block for block in document.blocks}
        out: list[str] = []
        rendered: list[tuple[str, str]] = []
        cursor = 0
        for span in self.spans:
            block = by_id.get(span.block_id)
            if block is None:
                continue
            current = _edition_runs(block, span.edition)
            if current is None or current == span.runs:
                continue
            out.append(self.text[cursor : span.start])
            value = renderer(block, span, current)
            out.append(value)
            rendered.append((block.id, value))
            cursor = span.end
        if cursor == 0 and not out:
            body = self.text
        else:
            out.append(self.text[cursor:])
            body = "".join(out)
        try:
            return self.bom + body.encode(self.encoding)
        except UnicodeEncodeError as err:
            # only new text can fail: the rest was decoded from this encoding
            for block_id, value in rendered:
                encode_or_refuse(value, self.encoding, block=block_id)
            raise unencodable(body[err.start], self.encoding) from None

    def splice(self, edits: Sequence[Edit]) -> bytes:
        """The bytes of the text with each edit made (see :func:`apply_edits`), in its encoding."""
        return self.bom + encode_or_refuse(apply_edits(self.text, edits), self.encoding)

    def block_lines(self, document: Document) -> dict[str, tuple[int, int]]:
        """The first and last line (1-based) of each block's spans, by the block's key."""
        keys = {block.id: block.ref_key for block in document.blocks}
        newlines = [found.start() for found in re.finditer("\n", self.text)] if self.spans else []
        lines: dict[str, tuple[int, int]] = {}
        for span in self.spans:
            key = keys.get(span.block_id)
            if key is None:
                continue
            before = bisect_left(newlines, span.start)
            start = before + 1
            end = start + bisect_left(newlines, max(span.start, span.end)) - before
            known = lines.get(key)
            lines[key] = (min(start, known[0]), max(end, known[1])) if known else (start, end)
        return lines

    def locator(self, document: Document) -> SpanLocator:
        """Places run positions of the document's blocks in this text (see :class:`SpanLocator`)."""
        return SpanLocator(self, tuple((block.id, block.ref_key) for block in document.blocks))

    def changed(self, document: Document) -> bool:
        by_id = {block.id: block for block in document.blocks}
        for span in self.spans:
            block = by_id.get(span.block_id)
            if block is not None and _edition_runs(block, span.edition) != span.runs:
                return True
        return False


def _edition_runs(block: Block, edition: str) -> Runs | None:
    if not edition:
        return block.source
    found = block.targets.get(edition)
    return None if found is None else found.runs


def apply_edits(text: str, edits: Sequence[Edit]) -> str:
    """``text`` with each ``(start, end, replacement)`` applied; edits must not overlap."""
    if not edits:
        return text
    out: list[str] = []
    cursor = 0
    for start, end, replacement in sorted(edits, key=lambda edit: (edit[0], edit[1])):
        if start < cursor:
            raise AssertionError(f"overlapping edits at {start}")
        out.append(text[cursor:start])
        out.append(replacement)
        cursor = end
    out.append(text[cursor:])
    return "".join(out)


def line_column(text: str, index: int) -> tuple[int, int]:
    """1-based line and column of a character index."""
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return line, column


# how far past the last matched character a character of the runs is looked for in the text
_ALIGN_WINDOW = 16


class SpanLocator:
    """Maps a run position in a block to its place in the skeleton's text.

    A span's text is its runs as written: text runs with their escapes and
    quoting, codes as their ``data``. When the two agree the place is a sum
    of lengths; otherwise the runs are aligned to the span's text character
    by character, skipping what the format adds (quotes, escapes, wrapping).
    Columns are counted in UTF-16 code units, as editors and LSP count them.
    """

    def __init__(self, skeleton: TextSkeleton, keys: tuple[tuple[str, str], ...]) -> None:
        self.skeleton = skeleton
        self.keys = keys
        self._spans: dict[tuple[str, str, str], Span] | None = None
        self._newlines: list[int] | None = None
        self._starts: list[int] | None = None

    def _span(self, block: str, edition: str, form: str = "") -> Span | None:
        if self._spans is None:
            by_id = dict(self.keys)
            spans: dict[tuple[str, str, str], Span] = {}
            for span in self.skeleton.spans:
                key = by_id.get(span.block_id)
                if key is not None and span.end > span.start and span.kind != "plural-form":
                    # a value of one plural form (a JSON ``key_one``) is placed by its form
                    written = span.kind[5:] if span.kind.startswith("form:") else ""
                    spans.setdefault((key, span.edition, written), span)
            self._spans = spans
        return self._spans.get((block, edition, form))

    def locate(
        self, block: str, edition: str, run: int, offset: int, *, end: bool = False, form: str = ""
    ) -> int | None:
        span = self._span(block, edition, form)
        if span is None:
            return None
        written = _written_text(span.runs)
        if written is None:
            return None  # a plural or select: its branches are placed by no sum of lengths
        index = sum(len(_written(item) or "") for item in span.runs[:run])
        if run < len(span.runs) and isinstance(span.runs[run], Text):
            index += offset
        source = self.skeleton.text[span.start : span.end]
        if written == source:
            return span.start + index
        return span.start + _align(source, written, index, end=end)

    def line_column(self, index: int) -> tuple[int, int]:
        text = self.skeleton.text
        if self._newlines is None:
            self._newlines = [found.start() for found in re.finditer("\n", text)]
        line = bisect_left(self._newlines, index)
        start = self._newlines[line - 1] + 1 if line else 0
        column = index - start + sum(1 for char in text[start:index] if ord(char) > 0xFFFF)
        return line + 1, column + 1

    def excerpt(self, start: int, end: int, context: int = 30) -> str:
        spans = self.skeleton.spans
        if self._starts is None:
            self._starts = [span.start for span in spans]
        at = bisect_right(self._starts, start) - 1
        span = spans[at] if at >= 0 and end <= spans[at].end else None
        if span is None or _written_text(span.runs) != self.skeleton.text[span.start : span.end]:
            return ""  # quoted or escaped: the runs' own text reads better
        low, high = span.start, span.end
        whole = self.skeleton.text
        left, right = max(low, start - context), min(high, end + context)
        while left > low and not whole[left - 1].isspace():  # whole words only
            left -= 1
        while right < high and not whole[right].isspace():
            right += 1
        text = " ".join(whole[left:right].split())
        return ("…" if left > low else "") + text + ("…" if right < high else "")


def _written(run: Run) -> str | None:
    """A run as its span writes it, as far as the runs tell: a text's text, a code's data."""
    if isinstance(run, Text):
        return run.text
    data = getattr(run, "data", None)
    return data if isinstance(data, str) else None


def _written_text(runs: Runs) -> str | None:
    pieces: list[str] = []
    for item in runs:
        piece = _written(item)
        if piece is None:
            return None
        pieces.append(piece)
    return "".join(pieces)


def _align(source: str, written: str, index: int, *, end: bool) -> int:
    """The offset in ``source`` of offset ``index`` in ``written``, matching character by character.

    A character is looked for a little ahead of the last one matched (what
    lies between is the format's: a quote, an escape's backslash); any
    whitespace matches any whitespace. A start moves on to the next matched
    character; an end stays just after the last one.
    """
    cursor = 0

    def find(char: str) -> int:
        limit = min(len(source), cursor + _ALIGN_WINDOW)
        for place in range(cursor, limit):
            found = source[place]
            if found == char or (char.isspace() and found.isspace()):
                return place
        return -1

    for char in written[:index]:
        place = find(char)
        if place >= 0:
            cursor = place + 1
    if not end and index < len(written):
        place = find(written[index])
        if place >= 0:
            cursor = place
    return cursor


def text_locator(document: Document) -> SpanLocator | None:
    """The locator of a document a span-skeleton text format read, else ``None``."""
    skeleton = document.skeleton
    located = getattr(skeleton, "located", None)
    if callable(located):  # a format that splices by its own units (XLIFF) places spans on demand
        skeleton = located()
    text = skeleton if isinstance(skeleton, TextSkeleton) else getattr(skeleton, "text", None)
    if not isinstance(text, TextSkeleton):  # a JSON catalogue keeps its text as ``source``
        text = getattr(skeleton, "source", None)
    if not isinstance(text, TextSkeleton):
        return None
    return text.locator(document)
