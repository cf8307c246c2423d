"""What the three office codecs share: reading a package, and writing edits back into it.

A document is written back only over the package it was read from: its
blocks' edits are spliced into the parts they came from and every other
entry of the zip is copied as it was.
"""

from __future__ import annotations

from typing import Generic, Protocol, TypeVar

from attrs import field, frozen

from kapi.core.format import DEFAULT_LIMITS, Limits, WriteRefused
from kapi.core.model import Document, Text, plain_text
from kapi.formats.common import gc_paused, refuse_targets
from kapi.formats.office.chart import ChartValue, write_value
from kapi.formats.office.inline import ParagraphSkeleton, PartEdits
from kapi.formats.office.package import OfficePackage, open_package, write_package

__all__ = ["OfficeFormat", "ParagraphFormat", "ParagraphsSkeleton"]


class _Packaged(Protocol):
    @property
    def package(self) -> OfficePackage: ...


SkeletonT = TypeVar("SkeletonT", bound=_Packaged)


class OfficeFormat(Generic[SkeletonT]):
    """An office codec: its limits, reading with the collector paused, writing in place.

    A subclass names its skeleton class, the application its files are edited
    in (``"Word"``) and what a person calls one (``"a Word document"``).
    """

    name = ""
    application = ""
    noun = ""
    skeleton_type: type[SkeletonT]

    def __init__(self, limits: Limits = DEFAULT_LIMITS) -> None:
        self.limits = limits

    def read(self, data: bytes, *, path: str = "", locale: str = "") -> Document:
        with gc_paused():
            package = open_package(data, path=path, kind=self.name, limits=self.limits)
            return self._read(package, path, locale)

    def write(self, document: Document) -> bytes:
        skeleton = document.skeleton
        if not isinstance(skeleton, self.skeleton_type):
            raise WriteRefused(
                f"{self.noun} can only be written back over the file it was read from",
                capability="generative",
            )
        refuse_targets(document, f"a {self.application} file", "its own copy of the file")
        edits = PartEdits(skeleton.package.read)
        self._edit(document, skeleton, edits)
        return write_package(skeleton.package, edits.rendered())

    def block_lines(self, document: Document) -> None:
        """Office parts are XML in a zip: a block has no lines in the file."""
        return None

    def _read(self, package: OfficePackage, path: str, locale: str) -> Document:
        raise NotImplementedError

    def _edit(self, document: Document, skeleton: SkeletonT, edits: PartEdits) -> None:
        raise NotImplementedError


@frozen
class ParagraphsSkeleton:
    """The package and, per block, the paragraphs it was read from: ``(part, paragraph)``.

    ``values`` holds the blocks that are a chart's plain value (a series name).
    """

    package: OfficePackage
    paragraphs: dict[str, tuple[tuple[str, ParagraphSkeleton], ...]]
    values: dict[str, ChartValue] = field(factory=dict)


ParagraphsT = TypeVar("ParagraphsT", bound=ParagraphsSkeleton)


class ParagraphFormat(OfficeFormat[ParagraphsT]):
    """An office codec whose blocks are paragraphs (Word, PowerPoint).

    A chart value read from a reference is written into what it refers to by
    :meth:`_update_sources` (a subclass's; by default nothing is).
    """

    def _edit(self, document: Document, skeleton: ParagraphsT, edits: PartEdits) -> None:
        """Write each changed block into the paragraphs it was read from.

        A block read from two copies of a paragraph (a text box and its
        fallback) is written into each copy that still holds what the first
        one held.
        """
        referred: list[tuple[str, ChartValue, str]] = []  # block, value, its new text
        for block in document.blocks:
            value = skeleton.values.get(block.id)
            if value is not None:
                if block.source != (Text(value.text),):
                    write_value(value, block.source, edits, block.id)
                    if value.formula:
                        referred.append((block.id, value, plain_text(block.source)))
                continue
            found = skeleton.paragraphs.get(block.id)
            if not found or block.source == found[0][1].runs:
                continue
            primary = found[0][1].runs
            for part, paragraph in found:
                if paragraph.runs == primary:
                    edits.paragraph(part, paragraph, block.source, block.id)
        if referred:
            self._update_sources(skeleton.package, referred, edits)

    def _update_sources(
        self, package: OfficePackage, referred: list[tuple[str, ChartValue, str]], edits: PartEdits
    ) -> None:
        """Write edited chart values (block, value, new text) into what they refer to."""
