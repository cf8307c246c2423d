"""A read page: blocks as an agent sees them before it sends a change (``kapi.change/v1`` read)."""

from __future__ import annotations

from collections.abc import Mapping

from attrs import frozen

from kapi.core.change.ops import PathStep
from kapi.core.change.result import ResultRef

__all__ = ["BlockRead", "CodeInfo", "EditionRead", "ReadPage", "Structure"]


@frozen
class CodeInfo:
    """What a read tells about one inline code, keyed by its token id."""

    kind: str  # paired | placeholder | subblock
    type: str | None = None
    attrs: Mapping[str, str] | None = None
    equiv: str | None = None
    disp: str | None = None
    writable: tuple[str, ...] | None = None


@frozen
class Structure:
    """A plural or select inside an edition, with each branch's edit text."""

    path: tuple[PathStep, ...]
    kind: str
    branches: Mapping[str, str]
    pivot: str | None = None


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


@frozen
class ReadPage:
    """A page of a document's blocks."""

    doc: str
    home: str
    format: str
    head: str
    blocks: tuple[BlockRead, ...]
    next: str | None = None
