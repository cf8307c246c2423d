"""Plain text: paragraphs separated by blank lines, each one a block.

A paragraph is a run of lines that are not blank (a blank line holds only
spaces and tabs). Its text keeps its line breaks as ``"\\n"`` (a CRLF file's
breaks are written back as CRLF) and its indentation; blank lines, the final
newline and a BOM stay in the skeleton. Blocks are ``p1``, ``p2``... in order
(``name`` = ``id``: plain text has no other structure), role ``paragraph``.

An edit cannot add a blank line or empty a paragraph: that would change where
paragraphs begin, so the writer refuses it (capability ``paragraph-break``).
Limits: ``Limits.max_bytes`` and ``Limits.max_entries`` (paragraphs) give
``budget_exceeded``. The encoding is UTF-8, or UTF-16/UTF-32 with a BOM:
BOM-less UTF-16/UTF-32 and legacy 8-bit text are ``unsupported``
(``encoding``), damaged UTF-8 ``invalid`` with line and column.
"""

from __future__ import annotations

import re

from attrs import frozen

from kapi.core.edition import canonical_locale
from kapi.core.format import DEFAULT_LIMITS, FormatError, Limits, WriteRefused
from kapi.core.model import Block, Document, Runs, Text
from kapi.formats.skeleton import Span, TextSkeleton, decode_text

__all__ = ["PlainTextFormat"]

_LINE = re.compile(r"[^\n]*\n|[^\n]+")
_BLANK_LINE = re.compile(r"(?:^|\n)[ \t]*(?:\n|$)")


@frozen
class _PlainSkeleton:
    text: TextSkeleton
    newlines: dict[str, str]


class PlainTextFormat:
    """Plain text files, one block per paragraph."""

    name = "plaintext"

    def __init__(self, limits: Limits = DEFAULT_LIMITS) -> None:
        self.limits = limits

    def read(self, data: bytes, *, path: str = "", locale: str = "") -> Document:
        text, encoding, bom = decode_text(data, path=path, limits=self.limits)
        language = canonical_locale(locale or "en")
        default_newline = "\r\n" if "\r\n" in text else "\n"
        blocks: list[Block] = []
        spans: list[Span] = []
        newlines: dict[str, str] = {}
        start: int | None = None
        end = 0
        for match in _LINE.finditer(text):
            line = match.group(0)
            if line.strip(" \t\r\n") == "":
                if start is not None:
                    self._paragraph(
                        text, start, end, blocks, spans, newlines, language, path, default_newline
                    )
                    start = None
                continue
            if start is None:
                start = match.start()
            end = match.end()
            end -= 1 if line.endswith("\n") else 0
            end -= 1 if text[start:end].endswith("\r") else 0
        if start is not None:
            self._paragraph(
                text, start, end, blocks, spans, newlines, language, path, default_newline
            )
        skeleton = _PlainSkeleton(TextSkeleton(text, encoding, bom, tuple(spans)), newlines)
        return Document(self.name, tuple(blocks), locale=language, skeleton=skeleton)

    def _paragraph(
        self,
        text: str,
        start: int,
        end: int,
        blocks: list[Block],
        spans: list[Span],
        newlines: dict[str, str],
        language: str,
        path: str,
        default_newline: str,
    ) -> None:
        block_id = f"p{len(blocks) + 1}"
        if len(blocks) >= self.limits.max_entries:
            raise FormatError(
                f"more than {self.limits.max_entries} paragraphs", path=path, code="budget_exceeded"
            )
        raw = text[start:end]
        newlines[block_id] = "\r\n" if "\r\n" in raw else ("\n" if "\n" in raw else default_newline)
        runs: Runs = (Text(raw.replace("\r\n", "\n")),)
        blocks.append(
            Block(id=block_id, source=runs, name=block_id, role="paragraph", locale=language)
        )
        spans.append(Span(block_id, start, end, runs))

    def write(self, document: Document) -> bytes:
        skeleton = document.skeleton
        if not isinstance(skeleton, _PlainSkeleton):
            raise WriteRefused(
                "this document was not read as plain text; only its own reader's documents can be written",
                capability="skeleton",
            )
        for block in document.blocks:
            if block.targets:
                raise WriteRefused(
                    f"a plain text file holds one edition; block {block.id} carries others",
                    capability="edition",
                    block=block.id,
                )

        def renderer(block: Block, span: Span, runs: Runs) -> str:
            parts: list[str] = []
            for run in runs:
                if not isinstance(run, Text):
                    raise WriteRefused(
                        "plain text holds only text, no inline codes",
                        capability=f"run:{getattr(run, 'type', '') or type(run).__name__.lower()}",
                        block=block.id,
                    )
                parts.append(run.text)
            value = "".join(parts).replace("\r\n", "\n")
            if _BLANK_LINE.search(value):
                raise WriteRefused(
                    f"block {block.id}: an empty paragraph or a blank line would change where "
                    "paragraphs begin; edit each paragraph on its own",
                    capability="paragraph-break",
                    block=block.id,
                )
            return value.replace("\n", skeleton.newlines[block.id])

        return skeleton.text.render(document, renderer)

    def block_lines(self, document: Document) -> dict[str, tuple[int, int]] | None:
        skeleton = document.skeleton
        if not isinstance(skeleton, _PlainSkeleton):
            return None
        return skeleton.text.block_lines(document)
