"""Span skeletons: the original text with the position of every value a block came from.

A text format's reader records, for each value it turned into runs, where the
value sits in the decoded text and the runs it read there. The writer copies
the text verbatim and re-renders only the spans whose runs changed, so an
untouched document comes back byte for byte (BOM, encoding and newlines kept).
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Iterable

from attrs import frozen

from kapi.core.format import DEFAULT_LIMITS, FormatError, Limits
from kapi.core.model import Block, Document, Runs

__all__ = ["Span", "TextSkeleton", "decode_text", "line_column"]


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
        cursor = 0
        for span in self.spans:
            block = by_id.get(span.block_id)
            if block is None:
                continue
            current = _edition_runs(block, span.edition)
            if current is None or current == span.runs:
                continue
            out.append(self.text[cursor : span.start])
            out.append(renderer(block, span, current))
            cursor = span.end
        if cursor == 0 and not out:
            body = self.text
        else:
            out.append(self.text[cursor:])
            body = "".join(out)
        return self.bom + body.encode(self.encoding)

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


_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def decode_text(
    data: bytes,
    *,
    path: str = "",
    encodings: Iterable[str] = ("utf-8",),
    limits: Limits = DEFAULT_LIMITS,
) -> tuple[str, str, bytes]:
    """Decode a text file: ``(text, encoding, bom)``.

    A BOM decides the encoding. Otherwise the first of ``encodings`` that
    decodes wins; when none does, the error names the line and column of the
    first byte the first encoding could not read.
    """
    if len(data) > limits.max_bytes:
        raise FormatError(
            f"file is {len(data)} bytes; the limit is {limits.max_bytes}",
            path=path,
            code="budget_exceeded",
        )
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            body = data[len(bom) :]
            try:
                return body.decode(encoding), encoding, bom
            except UnicodeDecodeError as err:
                raise _decode_error(body, err, path, encoding) from None
    candidates = list(encodings)
    first_error: UnicodeDecodeError | None = None
    for encoding in candidates:
        try:
            return data.decode(encoding), encoding, b""
        except UnicodeDecodeError as err:
            first_error = first_error or err
    assert first_error is not None
    raise _decode_error(data, first_error, path, candidates[0]) from None


def _decode_error(data: bytes, err: UnicodeDecodeError, path: str, encoding: str) -> FormatError:
    line = data.count(b"\n", 0, err.start) + 1
    column = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
    return FormatError(
        f"not valid {encoding}: byte 0x{data[err.start]:02x} at byte {err.start}",
        path=path,
        line=line,
        column=column,
        offset=err.start,
    )


def line_column(text: str, index: int) -> tuple[int, int]:
    """1-based line and column of a character index."""
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return line, column
