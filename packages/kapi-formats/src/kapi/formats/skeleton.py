"""Span skeletons: the original text with the position of every value a block came from.

A text format's reader records, for each value it turned into runs, where the
value sits in the decoded text and the runs it read there. The writer copies
the text verbatim and re-renders only the spans whose runs changed, so an
untouched document comes back byte for byte (BOM, encoding and newlines kept).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Sequence

from attrs import frozen

from kapi.core.model import Block, Document, Runs
from kapi.formats.common import decode_text, encode_or_refuse, unencodable

__all__ = ["Edit", "Span", "TextSkeleton", "apply_edits", "decode_text", "line_column"]


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
