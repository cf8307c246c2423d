"""A read page: blocks as an agent sees them before it sends a change (``kapi.change/v1`` read)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from attrs import frozen

from kapi.core.change.ops import PathStep
from kapi.core.change.result import ResultRef
from kapi.core.model import Constraints

__all__ = ["BlockRead", "CodeInfo", "EditionRead", "PlainRead", "ReadPage", "Structure"]


@frozen
class CodeInfo:
    """What a read tells about one inline code, keyed by its token id.

    ``kind`` is ``paired`` (bold, a link), ``placeholder`` (a value the
    program fills in: ``%(name)s``, ``{count}``), ``standalone`` (any other
    lone code: an inline code span, a line break, an image, a tag) or
    ``subblock``. ``disp`` is what the code stands for as the file spells it
    (``%(name)s``, ``**…**``); ``constraints`` what the guard lets an edit do
    with it.
    """

    kind: str
    type: str | None = None
    attrs: Mapping[str, str] | None = None
    equiv: str | None = None
    disp: str | None = None
    writable: tuple[str, ...] | None = None
    constraints: Constraints | None = None


@frozen
class Structure:
    """A plural or select inside an edition, with each branch's edit text.

    ``codes`` lists the codes of its branches only where a token names a
    different code than the text around the structure does.
    """

    path: tuple[PathStep, ...]
    kind: str
    branches: Mapping[str, str]
    pivot: str | None = None
    codes: Mapping[str, CodeInfo] | None = None


@frozen
class EditionRead:
    """Another edition of a read block."""

    rev: str
    text: str
    status: str
    stale: bool
    codes: Mapping[str, CodeInfo] | None = None
    structures: tuple[Structure, ...] | None = None
    basis: str | None = None


@frozen
class BlockRead:
    """One block as read. ``role``/``level``/``projected`` are the inspect record's extras."""

    ref: ResultRef
    rev: str
    text: str
    ops: tuple[str, ...]
    codes: Mapping[str, CodeInfo] | None = None
    structures: tuple[Structure, ...] | None = None
    editions: Mapping[str, EditionRead] | None = None
    role: str | None = None
    level: int | None = None
    projected: Mapping[str, str] | None = None


class PlainRead(NamedTuple):
    """A :class:`BlockRead` of a block of plain text with no editions, made cheaply: no
    codes, no structures, no editions, no projection; the ref's fields are its own."""

    doc: str
    block: str
    edition: str | None
    rev: str
    text: str
    ops: tuple[str, ...]
    role: str | None
    level: int | None

    def record(self) -> BlockRead:
        """The same record as a :class:`BlockRead`."""
        return BlockRead(
            ref=ResultRef(doc=self.doc, block=self.block, edition=self.edition),
            rev=self.rev,
            text=self.text,
            ops=self.ops,
            role=self.role,
            level=self.level,
        )


@frozen
class ReadPage:
    """A page of a document's blocks."""

    doc: str
    home: str
    format: str
    head: str
    blocks: tuple[BlockRead, ...]
    next: str | None = None
