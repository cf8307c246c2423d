"""Chart text in office documents: the titles, axis titles, series names and data labels of a chart part.

A chart part (``word/charts/chart1.xml``, ``xl/charts/chart1.xml``,
``ppt/charts/chart1.xml``) holds its text in two forms:

* rich text, DrawingML paragraphs under ``c:tx/c:rich``: the chart's title
  (``title/p1``), an axis title (``axis2/title/p1``, axes counted in the plot
  area from 1) and a data label (``series1/label3/p1``, the point's
  ``c:idx`` + 1); read and written as :mod:`kapi.formats.office.drawingml`
  paragraphs;
* a plain value: a series name written out (``c:ser/c:tx/c:v``) or the cached
  text of a reference (``c:tx/c:strRef`` with one ``c:strCache/c:pt/c:v``),
  for a series (``series2``, series counted from 1 in the chart) or a title
  taken from a cell (``title``). A value holds text only; an edit that adds a
  code to it is refused (``editable``).

What a reference means is the format's to decide: in a workbook it names a
cell of the same workbook; in a document or a deck the chart's embedded
workbook. A chart part that is not well-formed is refused, naming the part.
"""

from __future__ import annotations

import re

from attrs import frozen

from kapi.core.format import WriteRefused
from kapi.core.model import Block, Runs, Text
from kapi.formats.office.drawingml import refuse_invalid_xml, walk_drawing_paragraph
from kapi.formats.office.inline import ParagraphSkeleton, PartEdits
from kapi.formats.office.package import OfficePackage
from kapi.formats.office.xmlsplice import Element, escape_text

__all__ = [
    "ChartText",
    "ChartValue",
    "chart_blocks",
    "chart_parts",
    "read_chart",
    "splice_value",
    "write_value",
]

_AXES = frozenset({"c:catAx", "c:valAx", "c:dateAx", "c:serAx"})
_CELL = re.compile(r"^(?:'((?:[^']|'')+)'|([^'!]+))!\$?([A-Za-z]{1,3})\$?(\d+)$")


@frozen
class ChartValue:
    """A plain value of a chart: where its ``c:v`` content lies, the text, and its reference."""

    part: str
    start: int
    end: int
    text: str
    formula: str = ""  # the c:f of a c:strRef; empty for text written out

    def cell(self) -> tuple[str, str] | None:
        """The sheet and cell (``("Sheet1", "B1")``) a reference to one cell names."""
        match = _CELL.match(self.formula.strip().lstrip("="))
        if match is None:
            return None
        sheet = match.group(1).replace("''", "'") if match.group(1) else match.group(2)
        return sheet, f"{match.group(3).upper()}{match.group(4)}"


@frozen
class ChartText:
    """One text of a chart: its path in the chart, role, and the paragraph or value it is."""

    path: str
    role: str
    runs: Runs
    paragraph: ParagraphSkeleton | None = None
    value: ChartValue | None = None


def chart_parts(package: OfficePackage, source: str, seen: set[str]) -> list[str]:
    """The chart parts ``source`` relates to that are in the file, each once per document.

    A relationship to a chart that is not in the file is passed over: the rest of
    the document reads, and the chart's frame stays as it was.
    """
    found: list[str] = []
    for relationship in package.related(source, "chart"):
        if relationship.external:
            continue
        entry = package.find(relationship.target)
        if entry is None or entry in seen:
            continue
        seen.add(entry)
        found.append(entry)
    return found


def read_chart(package: OfficePackage, part: str) -> list[ChartText]:
    """Every text of one chart part, in file order."""
    data = package.read(part)
    charts: list[Element] = []
    package.parse(
        part, frozenset({"c:chart"}), lambda element, _ancestors: charts.append(element), data=data
    )
    reader = _ChartReader(part, data)
    for chart in charts:
        reader.walk(chart, "")
    return reader.texts


class _ChartReader:
    def __init__(self, part: str, data: bytes) -> None:
        self.part = part
        self.data = data
        self.texts: list[ChartText] = []
        self.series = 0
        self.axes = 0

    def walk(self, element: Element, path: str) -> None:
        for child in element.children:
            name = child.name
            if name == "c:title":
                self.title(child, _join(path, "title"), "chart-title" if not path else "axis-title")
            elif name in _AXES:
                self.axes += 1
                self.walk(child, _join(path, f"axis{self.axes}"))
            elif name == "c:ser":
                self.series += 1
                self.one_series(child, _join(path, f"series{self.series}"))
            elif name == "c:plotArea" or name.endswith("Chart"):
                self.walk(child, path)

    def title(self, title: Element, path: str, role: str) -> None:
        text = title.first("c:tx")
        if text is None:
            return
        rich = text.first("c:rich")
        if rich is not None:
            self.rich(rich, path, role)
            return
        reference = text.first("c:strRef")
        if reference is not None:
            self.reference(reference, path, role)

    def one_series(self, series: Element, path: str) -> None:
        name = series.first("c:tx")
        if name is not None:
            literal = name.first("c:v")
            reference = name.first("c:strRef")
            if literal is not None:
                self.value(literal, path, "series-name", "")
            elif reference is not None:
                self.reference(reference, path, "series-name")
        labels = series.first("c:dLbls")
        if labels is None:
            return
        for label in labels.children:
            if label.name != "c:dLbl":
                continue
            index = label.first("c:idx")
            number = index.attrs.get("val", "") if index is not None else ""
            text = label.first("c:tx")
            rich = text.first("c:rich") if text is not None else None
            if rich is not None and number.isdigit():
                self.rich(rich, f"{path}/label{int(number) + 1}", "data-label")

    def rich(self, rich: Element, path: str, role: str) -> None:
        number = 0
        for paragraph in rich.children:
            if paragraph.name != "a:p":
                continue
            number += 1
            built = walk_drawing_paragraph(paragraph, self.data, {})
            if built is not None:
                self.texts.append(ChartText(f"{path}/p{number}", role, built.runs, paragraph=built))

    def reference(self, reference: Element, path: str, role: str) -> None:
        formula = reference.first("c:f")
        cache = reference.first("c:strCache")
        if cache is None:
            return
        points = [point for point in cache.children if point.name == "c:pt"]
        if len(points) != 1:
            return  # a name over several cells: Office joins them; kapi leaves them as they are
        found = points[0].first("c:v")
        if found is not None:
            self.value(found, path, role, formula.text if formula is not None else "")

    def value(self, element: Element, path: str, role: str, formula: str) -> None:
        if element.self_closing or not element.text.strip():
            return
        value = ChartValue(
            self.part, element.start_end(self.data), element.end_start, element.text, formula
        )
        self.texts.append(ChartText(path, role, (Text(element.text),), value=value))


def _join(path: str, segment: str) -> str:
    return f"{path}/{segment}" if path else segment


def write_value(value: ChartValue, runs: Runs, edits: PartEdits, block: str) -> None:
    """Write a chart value's new text into its ``c:v``."""
    if not all(isinstance(run, Text) for run in runs):
        raise WriteRefused(
            f"block {block}: a chart's series name is plain text; it cannot hold codes",
            capability="editable",
            block=block,
        )
    text = "".join(run.text for run in runs if isinstance(run, Text))
    splice_value(value, text, edits, block)


def splice_value(value: ChartValue, text: str, edits: PartEdits, block: str) -> None:
    """Put ``text`` in the value's ``c:v`` (a cache a cell's edit reaches, or an edited name)."""
    refuse_invalid_xml(text, block)
    splicer = edits.splicer(value.part, block)
    # a bare carriage return would read back as a line feed: write it as a reference
    content = escape_text(text).replace("\r", "&#13;")
    splicer.replace(value.start, value.end, content.encode("utf-8"))


def chart_blocks(
    package: OfficePackage,
    part: str,
    name: str,
    locale: str,
    properties: dict[str, str],
    paragraphs: dict[str, tuple[tuple[str, ParagraphSkeleton], ...]],
    values: dict[str, ChartValue],
) -> list[Block]:
    """The blocks of one chart, named ``name`` + their path; their skeletons into the maps."""
    blocks: list[Block] = []
    for text in read_chart(package, part):
        block_id = name + text.path
        if text.paragraph is not None:
            paragraphs[block_id] = ((part, text.paragraph),)
        elif text.value is not None:
            values[block_id] = text.value
        blocks.append(
            Block(
                id=block_id,
                source=text.runs,
                name=block_id,
                role=text.role,
                locale=locale,
                properties={**properties, "part": part},
            )
        )
    return blocks
