"""The format port: what the core asks of a reader/writer, and what a format may refuse.

A format turns bytes into a :class:`~kapi.core.model.Document` and back. The
writer works from the document's skeleton, so a document read and written
unchanged gives back the same bytes, and an edit changes only the edited value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, runtime_checkable

from attrs import field, frozen

from kapi.core.errors import KapiError, contract_exit_code
from kapi.core.model import Document

__all__ = [
    "DEFAULT_LIMITS",
    "FormatCapabilities",
    "FormatCodec",
    "FormatError",
    "Limits",
    "TextLocator",
    "WriteRefused",
]


@frozen
class Limits:
    """Resource bounds a reader enforces; past one it refuses with ``budget_exceeded``."""

    max_bytes: int = 64 * 1024 * 1024
    max_depth: int = 200
    max_entries: int = 1_000_000
    # Office containers, counted on what the zip holds and on the bytes inflated from it,
    # never on the sizes its headers declare alone: entries in the zip, bytes one part
    # inflates to, bytes declared and inflated in all, and the ratio that marks a zip bomb.
    max_zip_entries: int = 65_535
    max_part_bytes: int = 64 * 1024 * 1024
    max_unpacked_bytes: int = 512 * 1024 * 1024
    max_ratio: int = 200


DEFAULT_LIMITS = Limits()


class FormatError(KapiError):
    """A document could not be read: names what is wrong and where.

    ``code`` is a change-contract error code: ``invalid`` for malformed input,
    ``budget_exceeded`` past a limit, ``unsupported`` for a feature the format
    does not handle (an encrypted office file).
    """

    def __init__(
        self,
        message: str,
        *,
        path: str = "",
        line: int | None = None,
        column: int | None = None,
        offset: int | None = None,
        code: str = "invalid",
        capability: str = "",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line
        self.column = column
        self.offset = offset
        self.code = code
        self.exit_code = contract_exit_code(code)
        self.capability = capability

    def located(self) -> str:
        """The message with the file and the position, as a person reads it."""
        where = self.path or "<input>"
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        elif self.offset is not None:
            where += f" (byte {self.offset})"
        return f"{where}: {self.message}"

    def __str__(self) -> str:
        return self.located()


class WriteRefused(KapiError):
    """A writer cannot express an edit (an edition the file has no place for)."""

    def __init__(self, message: str, *, capability: str = "edition", block: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.capability = capability
        self.block = block
        self.code = "unsupported"
        self.exit_code = contract_exit_code("unsupported")


@frozen
class FormatCapabilities:
    """What a format can do, declared without loading it (spec/formats.md §1.9)."""

    name: str
    reader: bool = True
    writer: bool = True
    interchange: bool = False
    generative: bool = True
    round_trip: bool = True
    structural: bool = False
    writable_attrs: Mapping[str, tuple[str, ...]] = field(factory=dict)
    new_codes: tuple[str, ...] = ()
    # A translation's own file takes the blocks its source gained (a PO catalogue the
    # entries of its template, as msgmerge adds them), though a change set may not insert
    # or delete one (``structural``).
    adds_blocks: bool = False

    @property
    def editable(self) -> bool:
        return self.reader and self.writer and not self.interchange

    @property
    def editions(self) -> str:
        return "in-file" if self.interchange else "one-per-file"


@runtime_checkable
class TextLocator(Protocol):
    """Where a block's text stands in the file a text format read it from.

    A text format whose skeleton records the span of each value gives one
    (``kapi.formats.skeleton.text_locator``); formats without spans (office
    packages) give none and findings keep their lines.
    Positions are computed only when asked, for findings.
    """

    def locate(
        self, block: str, edition: str, run: int, offset: int, *, end: bool = False, form: str = ""
    ) -> int | None:
        """The character index in the file's text of a run position in a block's edition.

        ``edition`` is ``""`` for the block's own text, else the edition key
        (a PO msgstr's locale). ``end`` asks for an exclusive end: just after
        the last character before the position. ``form`` names the plural form
        of a block written as one value per form (``run`` and ``offset`` are then
        in that form's runs). ``None`` when the block, edition or form has no span.
        """
        ...

    def line_column(self, index: int) -> tuple[int, int]:
        """The 1-based line and 1-based UTF-16 column of a character index, as editors count."""
        ...

    def excerpt(self, start: int, end: int, context: int = 30) -> str:
        """The text from ``start`` to ``end`` as the file writes it, with a little context
        inside the same value, whitespace collapsed."""
        ...


@runtime_checkable
class FormatCodec(Protocol):
    """A loaded format: reads bytes into a document and writes a document back."""

    name: str

    def read(self, data: bytes, *, path: str = "", locale: str = "") -> Document:
        """Read ``data``; ``locale`` is the own edition's language when the file does not say."""
        ...

    def write(self, document: Document) -> bytes:
        """Write ``document`` back through its skeleton."""
        ...

    def block_lines(self, document: Document) -> Mapping[str, tuple[int, int]] | None:
        """Where each block of a document this codec read stands in its file.

        The first and last line (1-based) by block key, for the blocks the
        file gives a place; ``None`` when the format has no lines to tell
        (a zip package) or the document was not read from a file.
        """
        ...
