"""What formats share: language tags, block ids, one edition per file, reading without GC churn."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

from kapi.core.edition import EditionKeyError, canonical_locale
from kapi.core.format import FormatError, WriteRefused
from kapi.core.model import Document

__all__ = ["canonical_or_error", "gc_paused", "refuse_targets", "unique_id"]


def canonical_or_error(tag: str, path: str) -> str:
    """The canonical form of a language tag a file states; a bad tag is a FormatError."""
    if not tag:
        return ""
    try:
        return canonical_locale(tag)
    except EditionKeyError:
        raise FormatError(f"{tag!r} is not a language tag", path=path) from None


def refuse_targets(document: Document, kind: str, home: str) -> None:
    """A file that holds one language cannot write another edition (``kind``: "a YAML file")."""
    for block in document.blocks:
        for key in block.targets:
            raise WriteRefused(
                f"block {block.id!r}: {kind} holds one language; write the {key!r} edition "
                f"to {home}",
                capability="edition",
                block=block.id,
            )


def unique_id(name: str, ids: set[str]) -> str:
    """``name``, or ``name#2``, ``name#3``… when taken; records the id chosen."""
    candidate = name
    number = 1
    while candidate in ids:
        number += 1
        candidate = f"{name}#{number}"
    ids.add(candidate)
    return candidate


@contextmanager
def gc_paused() -> Iterator[None]:
    """Hold the cycle collector while a reader builds many small acyclic objects.

    Without the pause the collector walks the growing heap again and again,
    which took most of a large read's time; the objects a read builds hold no
    cycles, so nothing is lost. The collector's previous state is restored.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
