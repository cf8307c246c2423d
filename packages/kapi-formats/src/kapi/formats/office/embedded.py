"""The workbook a Word or PowerPoint chart embeds: the source of its series names, kept in step.

A chart in a document or a deck takes a series name from a cell of its own
workbook (``word/embeddings/Microsoft_Excel_Sheet1.xlsx``, related to the
chart part as a ``package``), and shows the copy cached in the chart. An
edited name is written into the cache and into that cell, so the name stays
when someone opens the chart's data in Word or PowerPoint. The workbook is
edited like any workbook (:mod:`kapi.formats.office.xlsx`), so setting the
name back gives its bytes back. A chart whose workbook is not in the file,
or whose reference names no text cell of it, has its cache written alone; a
workbook that cannot be read refuses the edit, naming the part.
"""

from __future__ import annotations

from kapi.core.format import FormatError, Limits, WriteRefused
from kapi.core.model import Text
from kapi.formats.office.chart import ChartValue
from kapi.formats.office.inline import PartEdits
from kapi.formats.office.package import OfficePackage
from kapi.formats.office.xlsx import XlsxFormat

__all__ = ["update_workbooks"]


def update_workbooks(
    package: OfficePackage,
    referred: list[tuple[str, ChartValue, str]],
    edits: PartEdits,
    limits: Limits,
) -> None:
    """Write each edited chart value (block, value, new text) into its chart's workbook."""
    by_chart: dict[str, list[tuple[str, ChartValue, str]]] = {}
    for item in referred:
        by_chart.setdefault(item[1].part, []).append(item)
    for chart, items in by_chart.items():
        links = [rel for rel in package.related(chart, "package") if not rel.external]
        embedded = package.find(links[0].target) if links else None
        if embedded is None:
            continue
        first_block = items[0][0]
        codec = XlsxFormat(limits)
        try:
            workbook = codec.read(
                edits.whole.get(embedded) or package.read(embedded), path=embedded
            )
        except FormatError as error:
            raise WriteRefused(
                f"block {first_block}: the chart's workbook {embedded} cannot be read "
                f"({error.message}), so the series name cannot be kept in step with it; "
                "repair the chart's data in Word or PowerPoint first",
                capability="embedded",
                block=first_block,
            ) from None
        cells = {block.id: block for block in workbook.blocks if block.translatable}
        changes: dict[str, str] = {}
        for _block, value, text in items:
            named = value.cell()
            if named is not None and f"{named[0]}!{named[1]}" in cells:
                changes[f"{named[0]}!{named[1]}"] = text
        if not changes:
            continue
        edited = workbook.with_blocks(
            tuple(
                block.with_source((Text(changes[block.id]),)) if block.id in changes else block
                for block in workbook.blocks
            )
        )
        edits.replace_part(embedded, codec.write(edited))
