"""PowerPoint decks (.pptx, .pptm, .potx): text paragraphs of shapes as blocks, edited in place.

Blocks: every DrawingML paragraph (``a:p``) with text in a shape's text body
(``p:sp``, in groups too) or a table cell (``p:graphicFrame``), on the slides in
presentation order, each slide followed by its notes, then the slide masters,
each followed by its layouts. A block's id and name are
``<part stem>/shape<id>/p<n>`` (``slide3/shape5/p1``), where the stem is the
part's file name (stable when slides are reordered; ``properties["slide"]``
holds the position), ``id`` the shape's ``p:cNvPr`` id, ``n`` the paragraph's
position in the text body from 1; table cells add ``/r<row>c<col>``
(``slide3/shape7/r1c2/p1``); notes are ``slide3/notes/shape2/p1``; a shape id
repeated in one slide gets ``~2``, ``~3`` on its later copies. Roles: a
title placeholder's paragraphs are ``heading`` level 1, table cells
``table-cell``. The document's language is the ``locale`` argument, else ``en``.

Runs: the base formatting (runs without ``a:rPr`` if any, else the run
properties under most of the text) makes no code;
sibling runs with other properties (``dirty``, ``err``, ``smtClean``
ignored, so spell-check splits merge) are a pair ``fmt:bold`` /
``fmt:italic`` / ``fmt:underline`` / ``fmt:strikethrough`` / ``fmt:style`` or,
with ``a:hlinkClick``, ``link:hyperlink`` (``href`` from the relationship), sub_type
``pptx:run``, open ``data`` the run's start tag and ``a:rPr``, close
``</a:r>``. ``a:br`` is ``fmt:linebreak``; ``a:fld`` (slide number, date) a
``code:field`` placeholder whose equiv is its current text; math and other
content ``code:tag``. A newline in edited text becomes ``a:br`` between runs.
Writing follows :mod:`kapi.formats.office.inline`; limits those of
:mod:`kapi.formats.office.package`.

Charts a slide (or its notes, master or layout) relates to follow that
part's blocks, named after the chart part's stem (``chart2/title/p1``,
``chart2/series1``; see :mod:`kapi.formats.office.chart`); a series name
edited is written into the chart's cache and its embedded workbook
(:mod:`kapi.formats.office.embedded`). SmartArt and embedded objects are not
read (their parts are copied untouched).
"""

from __future__ import annotations

import posixpath

from attrs import frozen

from kapi.core.format import FormatError
from kapi.core.model import Block, Document
from kapi.formats.common import canonical_or_error
from kapi.formats.office.chart import ChartValue, chart_blocks, chart_parts
from kapi.formats.office.codec import ParagraphFormat, ParagraphsSkeleton
from kapi.formats.office.drawingml import walk_drawing_paragraph
from kapi.formats.office.embedded import update_workbooks
from kapi.formats.office.inline import ParagraphSkeleton, PartEdits
from kapi.formats.office.package import OfficePackage
from kapi.formats.office.xmlsplice import Ancestors, Element

__all__ = ["PptxFormat"]

_TITLES = frozenset({"title", "ctrTitle"})


@frozen
class PptxSkeleton(ParagraphsSkeleton):
    """A PowerPoint deck as read: each block from one paragraph."""


class PptxFormat(ParagraphFormat[PptxSkeleton]):
    """PowerPoint decks, edited in place (editable and round-trip, not generative)."""

    name = "pptx"
    application = "PowerPoint"
    noun = "a PowerPoint deck"
    skeleton_type = PptxSkeleton

    def _update_sources(
        self, package: OfficePackage, referred: list[tuple[str, ChartValue, str]], edits: PartEdits
    ) -> None:
        update_workbooks(package, referred, edits, self.limits)

    def _read(self, package: OfficePackage, path: str, locale: str) -> Document:
        doc_locale = canonical_or_error(locale, path) or "en"
        main = package.main_part
        blocks: list[Block] = []
        paragraphs: dict[str, tuple[tuple[str, ParagraphSkeleton], ...]] = {}
        values: dict[str, ChartValue] = {}
        charts: set[str] = set()

        def read_part(part: str, stem: str, position: int) -> None:
            reader = _SlideReader(package, part, stem, position, doc_locale)
            blocks.extend(reader.blocks)
            paragraphs.update(reader.paragraphs)
            where = {"slide": str(position)} if position else {}
            for chart in chart_parts(package, part, charts):
                blocks.extend(
                    chart_blocks(
                        package, chart, _stem(chart) + "/", doc_locale, where, paragraphs, values
                    )
                )

        slides, masters = _presentation_order(package, main)
        for position, slide in enumerate(slides, start=1):
            stem = _stem(slide)
            read_part(slide, stem, position)
            for notes in package.related(slide, "notesSlide"):
                read_part(package.target(slide, notes), f"{stem}/notes", position)
        seen_layouts: set[str] = set()
        for master in masters:
            read_part(master, _stem(master), 0)
            for layout in package.related(master, "slideLayout"):
                entry = package.target(master, layout)
                if entry not in seen_layouts:
                    seen_layouts.add(entry)
                    read_part(entry, _stem(entry), 0)
        return Document(
            format=self.name,
            blocks=tuple(blocks),
            locale=doc_locale,
            skeleton=PptxSkeleton(package, paragraphs, values),
        )


def _stem(part: str) -> str:
    return posixpath.splitext(posixpath.basename(part))[0]


def _presentation_order(package: OfficePackage, main: str) -> tuple[list[str], list[str]]:
    """Slides in show order and masters, as entry names; each relationship checked."""
    by_id = package.targets_by_id(main)
    slide_ids: list[str] = []
    master_ids: list[str] = []

    def collect(element: Element, _ancestors: Ancestors) -> None:
        (slide_ids if element.name == "p:sldId" else master_ids).append(
            element.attrs.get("r:id", "")
        )

    package.parse(main, frozenset({"p:sldId", "p:sldMasterId"}), collect)

    def resolve(ids: list[str], kind: str) -> list[str]:
        out: list[str] = []
        for rel_id in ids:
            relationship = by_id.get(rel_id)
            if relationship is None:
                raise FormatError(
                    f"part {main} lists {kind} {rel_id}, which has no relationship",
                    path=package.path,
                    capability="dangling-relationship",
                )
            out.append(package.target(main, relationship))
        return out

    return resolve(slide_ids, "slide"), resolve(master_ids, "slide master")


class _SlideReader:
    """Reads the text of every shape of one slide-like part."""

    def __init__(
        self, package: OfficePackage, part: str, stem: str, position: int, locale: str
    ) -> None:
        self.part = part
        self.stem = stem
        self.position = position
        self.locale = locale
        self.relationships = package.targets_by_id(part)
        self.blocks: list[Block] = []
        self.paragraphs: dict[str, tuple[tuple[str, ParagraphSkeleton], ...]] = {}
        self.seen: dict[str, int] = {}
        self.data = package.read(part)
        package.parse(part, _wants_shape, self._on_shape, data=self.data)

    def _on_shape(self, shape: Element, ancestors: Ancestors) -> None:
        if any(name == "mc:Fallback" for name, _attrs in ancestors):
            return
        shape_id = ""
        placeholder = ""
        for element in shape.iter():
            if element.name == "p:cNvPr" and not shape_id:
                shape_id = element.attrs.get("id", "")
            elif element.name == "p:ph" and not placeholder:
                placeholder = element.attrs.get("type", "body")
            if shape_id and placeholder:
                break
        base = f"{self.stem}/shape{shape_id}"
        # Shape ids should be unique in a slide; a copy-pasted shape can repeat one.
        self.seen[base] = self.seen.get(base, 0) + 1
        if self.seen[base] > 1:
            base += f"~{self.seen[base]}"
        if shape.name == "p:sp":
            body = shape.first("p:txBody")
            if body is not None:
                role = "heading" if placeholder in _TITLES else ""
                self._text_body(body, base, role)
            return
        for table in shape.iter("a:tbl"):
            rows = [row for row in table.children if row.name == "a:tr"]
            for row_number, row in enumerate(rows, start=1):
                cells = [cell for cell in row.children if cell.name == "a:tc"]
                for column, cell in enumerate(cells, start=1):
                    body = cell.first("a:txBody")
                    if body is not None:
                        self._text_body(body, f"{base}/r{row_number}c{column}", "table-cell")
            break

    def _text_body(self, body: Element, base: str, role: str) -> None:
        number = 0
        for paragraph in body.children:
            if paragraph.name != "a:p":
                continue
            number += 1
            built = walk_drawing_paragraph(paragraph, self.data, self.relationships)
            if built is None:
                continue
            block_id = f"{base}/p{number}"
            properties = {"part": self.part}
            if self.position:
                properties["slide"] = str(self.position)
            self.paragraphs[block_id] = ((self.part, built),)
            self.blocks.append(
                Block(
                    id=block_id,
                    source=built.runs,
                    name=block_id,
                    role=role,
                    level=1 if role == "heading" else 0,
                    locale=self.locale,
                    properties=properties,
                )
            )


def _wants_shape(name: str, _ancestors: Ancestors) -> bool:
    return name in ("p:sp", "p:graphicFrame")
