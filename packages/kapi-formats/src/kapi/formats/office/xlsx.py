"""Excel workbooks (.xlsx, .xlsm, .xltx): cells as blocks, text edited in place in the zip.

Blocks, sheet by sheet in workbook order (chart sheets have no cells, only
charts), cell by cell in file order; id and name ``<sheet name>!<cell>``
(``Sheet1!B3``):

* a text cell, from the shared string table or an inline string
  (``t="inlineStr"``), is a translatable block; rich text runs become pairs
  ``fmt:bold`` / ``fmt:italic`` / ``fmt:underline`` / ``fmt:strikethrough`` /
  ``fmt:style`` (sub_type ``xlsx:run``, open ``data`` the run's start tag and
  ``rPr``, close ``</r>``); the base formatting (runs without ``rPr`` if any,
  else the properties under most of the text) makes no code. ``_xHHHH_`` escapes are decoded on read and written for
  characters XML cannot hold (``\\r`` as ``_x000D_``, as Excel does).
* a chart on a worksheet's or chart sheet's drawing follows the sheet's
  cells: ``<sheet name>!<chart stem>/<path>`` (``Sales!chart1/title/p1``,
  ``Sales!chart1/series2``; see :mod:`kapi.formats.office.chart`). Rich text
  and a series name written out are edited in the chart part. A chart text
  taken from a cell (``c:strRef``) is that cell's: a block with
  ``translatable=False`` and ``properties["source"]`` the cell
  (``Sales!B1``), whose edit is refused (``editable``, naming the cell); an
  edit of the cell writes its text into every chart cache that refers to it,
  so what the chart shows matches the cell before Excel recalculates (a
  reference kapi cannot resolve, a defined name or another workbook, names
  itself in ``source`` and is refused the same way);
* a formula cell is a block with ``translatable=False``, role ``formula``, text
  the formula; any other cell with a value (number, boolean, error, date)
  ``translatable=False`` with role ``number`` (``value`` for booleans, errors
  and dates) and the value as written. Editing either is refused.

Writing an edited text cell: an inline string is spliced in the sheet. A
shared-string cell points at an entry that already holds its new text (one
another cell keeps using); else its entry, when no other cell keeps it, is
rewritten in place (so a string used once is edited where it is; entries
no cell keeps are given texts so that as many as can be are rewritten,
earlier entries first); else it gets a new ``<si>`` at the end of the table
(``uniqueCount`` updated; ``count`` unchanged, every cell still holds one
reference), new entries in the order their cells are read. No entry is left
that no cell uses: one left unused at the end of the table is removed, and
then each entry left last that repeats an earlier one this write leaves as
it was (its cells point at the earlier one); one left unused mid-table keeps
its first edited cell, rewritten in place, so that no other cell's index
moves. So an edit set back at once gives the workbook's own bytes, except
when it gave cells of several entries one text that a single entry then
held for all of them: set back, that entry may go to another of their texts
and the entries end in another order. Set back piecemeal, the entries may
end in another order or one text repeated, except when each cell had split
from a shared string.
Formulas, ``calcChain.xml`` and every other part are copied untouched. The
document's language is the ``locale`` argument, else ``en``. Limits: those of
:mod:`kapi.formats.office.package`.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from collections.abc import Mapping

from attrs import evolve, field, frozen

from kapi.core.format import FormatError, WriteRefused
from kapi.core.model import Block, Document, Runs, Text
from kapi.formats.common import canonical_or_error
from kapi.formats.office.chart import (
    ChartValue,
    chart_blocks,
    chart_parts,
    splice_value,
    write_value,
)
from kapi.formats.office.codec import OfficeFormat
from kapi.formats.office.inline import (
    RUN_PAIR,
    Dialect,
    InlineBuilder,
    ParagraphSkeleton,
    PartEdits,
    choose_base,
    rebuild_content,
)
from kapi.formats.office.package import OfficePackage
from kapi.formats.office.xmlsplice import Ancestors, Element, escape_text

__all__ = ["XlsxFormat"]

_ESCAPED = re.compile(r"_x([0-9A-Fa-f]{4})_")
_NEEDS_ESCAPE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\r\ufffe\uffff]|_(?=x[0-9A-Fa-f]{4}_)")
_BETWEEN_TAGS = re.compile(rb">\s+<")
_CELL_REF = re.compile(r"([A-Z]+)(\d+)$")
_FALSE = frozenset({"0", "false"})
_NO_PROPERTIES: Mapping[str, str] = {}


def decode_escapes(text: str) -> str:
    """ST_Xstring: ``_x000D_`` stands for U+000D."""
    if "_x" not in text:
        return text
    return _ESCAPED.sub(lambda match: chr(int(match.group(1), 16)), text)


class XlsxDialect(Dialect):
    """SpreadsheetML strings: ``t`` alone or one per ``r``; newlines and tabs are literal."""

    def escape(self, text: str, prefix: bytes, run_open: bytes, block: str) -> tuple[bytes, str]:
        encoded = _NEEDS_ESCAPE.sub(
            lambda match: "_x005F_" if match.group() == "_" else f"_x{ord(match.group()):04X}_",
            text,
        )
        return escape_text(encoded).encode("utf-8"), text


_DIALECT = XlsxDialect()


@frozen
class _Cell:
    """Where a text cell's content lives."""

    kind: str  # "shared", "inline" or "value"
    part: str
    runs: Runs
    value_start: int = 0  # the <v> content of a shared-string cell
    value_end: int = 0
    index: int = -1
    paragraph: ParagraphSkeleton | None = None


@frozen
class _SharedStrings:
    part: str
    entries: list[ParagraphSkeleton | None]
    prefix: bytes
    end_tag: int  # where new <si> go (the start of </sst>)
    unique_count: tuple[int, int] | None  # the uniqueCount value's byte range
    bounds: list[tuple[int, int]] = field(factory=list)  # each <si>'s byte range


@frozen
class XlsxSkeleton:
    package: OfficePackage
    cells: dict[str, _Cell]
    shared: _SharedStrings | None
    users: dict[int, list[str]]  # shared string index -> cells using it
    charts: dict[str, tuple[tuple[str, ParagraphSkeleton], ...]] = field(factory=dict)
    values: dict[str, ChartValue] = field(factory=dict)  # chart text written out
    linked: dict[str, str] = field(factory=dict)  # chart block -> the cell its text is
    caches: dict[str, list[ChartValue]] = field(factory=dict)  # cell -> chart caches of it


class XlsxFormat(OfficeFormat[XlsxSkeleton]):
    """Excel workbooks, edited in place (editable and round-trip, not generative)."""

    name = "xlsx"
    application = "Excel"
    noun = "an Excel workbook"
    skeleton_type = XlsxSkeleton

    def _read(self, package: OfficePackage, path: str, locale: str) -> Document:
        doc_locale = canonical_or_error(locale, path) or "en"
        main = package.main_part
        shared = _read_shared_strings(package, main)
        sheets: list[tuple[str, str]] = []

        def collect(element: Element, _ancestors: Ancestors) -> None:
            sheets.append((element.attrs.get("name", ""), element.attrs.get("r:id", "")))

        package.parse(main, frozenset({"x:sheet"}), collect)
        by_id = package.targets_by_id(main)
        blocks: list[Block] = []
        cells: dict[str, _Cell] = {}
        users: dict[int, list[str]] = {}
        charts = _Charts(package, doc_locale)
        for sheet_name, rel_id in sheets:
            relationship = by_id.get(rel_id)
            if relationship is None:
                raise FormatError(
                    f"sheet {sheet_name!r} has no relationship {rel_id}",
                    path=path,
                    capability="dangling-relationship",
                )
            if relationship.is_type("chartsheet"):
                if package.find(relationship.target) is not None:
                    blocks += charts.of_sheet(relationship.target, sheet_name)
                continue
            if not relationship.is_type("worksheet"):
                continue
            part = package.target(main, relationship)
            _SheetReader(package, part, sheet_name, shared, doc_locale, blocks, cells, users)
            blocks += charts.of_sheet(part, sheet_name)
        blocks = charts.link(blocks, cells)
        return Document(
            format=self.name,
            blocks=tuple(blocks),
            locale=doc_locale,
            skeleton=XlsxSkeleton(
                package,
                cells,
                shared,
                users,
                charts.paragraphs,
                charts.values,
                charts.linked,
                charts.caches,
            ),
        )

    def _edit(self, document: Document, skeleton: XlsxSkeleton, edits: PartEdits) -> None:
        shared_edits: dict[int, list[tuple[str, Runs]]] = {}
        for block in document.blocks:
            if _edit_chart(skeleton, block, edits):
                continue
            cell = skeleton.cells.get(block.id)
            if cell is None or block.source == cell.runs:
                continue
            for cache in skeleton.caches.get(block.id, ()):
                text = "".join(run.text for run in block.source if isinstance(run, Text))
                if text != cache.text:
                    splice_value(cache, text, edits, block.id)
            if cell.kind == "value":
                raise WriteRefused(
                    f"block {block.id}: formulas and values are not editable text; change them "
                    "in Excel",
                    capability="editable",
                    block=block.id,
                )
            if cell.kind == "inline":
                assert cell.paragraph is not None
                edits.paragraph(cell.part, cell.paragraph, block.source, block.id)
            else:
                shared_edits.setdefault(cell.index, []).append((block.id, block.source))
        if shared_edits:
            _write_shared(skeleton, shared_edits, edits)


def _edit_chart(skeleton: XlsxSkeleton, block: Block, edits: PartEdits) -> bool:
    """Write an edited chart block; whether the block is a chart's."""
    found = skeleton.charts.get(block.id)
    if found is not None:
        part, paragraph = found[0]
        if block.source != paragraph.runs:
            edits.paragraph(part, paragraph, block.source, block.id)
        return True
    value = skeleton.values.get(block.id)
    if value is None:
        return False
    if block.source == (Text(value.text),):
        return True
    cell = skeleton.linked.get(block.id)
    if cell is not None or value.formula:
        source = f"cell {cell}" if cell else f"the reference {value.formula}"
        raise WriteRefused(
            f"block {block.id}: this chart text is {source}, which Excel reads again "
            f"when it opens the workbook; edit {'that cell' if cell else 'what it refers to'}, "
            "and kapi updates the chart's copy",
            capability="editable",
            block=block.id,
        )
    write_value(value, block.source, edits, block.id)
    return True


class _Charts:
    """The charts of the workbook's sheets, read into blocks."""

    def __init__(self, package: OfficePackage, locale: str) -> None:
        self.package = package
        self.locale = locale
        self.seen: set[str] = set()
        self.paragraphs: dict[str, tuple[tuple[str, ParagraphSkeleton], ...]] = {}
        self.values: dict[str, ChartValue] = {}
        self.linked: dict[str, str] = {}
        self.caches: dict[str, list[ChartValue]] = {}

    def of_sheet(self, part: str, sheet: str) -> list[Block]:
        """The chart blocks of a worksheet's or chart sheet's drawings (a missing one passed over)."""
        blocks: list[Block] = []
        package = self.package
        for drawing in package.related(part, "drawing"):
            if drawing.external or package.find(drawing.target) is None:
                continue
            for chart in chart_parts(package, drawing.target, self.seen):
                stem = posixpath.splitext(posixpath.basename(chart))[0]
                blocks += chart_blocks(
                    package,
                    chart,
                    f"{sheet}!{stem}/",
                    self.locale,
                    {"sheet": sheet},
                    self.paragraphs,
                    self.values,
                )
        return blocks

    def link(self, blocks: list[Block], cells: dict[str, _Cell]) -> list[Block]:
        """A chart text that refers to a cell is the cell's: not translatable on its own."""
        out: list[Block] = []
        for block in blocks:
            value = self.values.get(block.id)
            if value is None or not value.formula:
                out.append(block)
                continue
            named = value.cell()
            cell_id = f"{named[0]}!{named[1]}" if named is not None else ""
            properties = dict(block.properties)
            properties["source"] = cell_id or value.formula
            if cell_id in cells:
                self.linked[block.id] = cell_id
                if cells[cell_id].kind != "value":
                    self.caches.setdefault(cell_id, []).append(value)
            out.append(evolve(block, translatable=False, properties=properties))
        return out


def _write_shared(
    skeleton: XlsxSkeleton, shared_edits: dict[int, list[tuple[str, Runs]]], edits: PartEdits
) -> None:
    """Give each edited shared-string cell its text, leaving no entry that no cell uses.

    A cell points at an entry that already holds its new text (one some other
    cell keeps using, or one rewritten in this write), else at its own entry
    rewritten in place when no other cell keeps it, else at a new entry at the
    end of the table. When the edit adds none, entries left unused at the end
    of the table are removed, and so is each entry this exposes at the end
    that repeats an earlier one (its cells point at the earlier one): so
    setting cells back gives the table's own bytes. An unused entry mid-table
    (or at the end, when new entries follow it) keeps its first cell,
    rewritten in place, so that no other cell's index moves.
    """
    shared = skeleton.shared
    assert shared is not None
    entries = shared.entries
    total = len(entries)
    changed = {block_id for changes in shared_edits.values() for block_id, _runs in changes}
    pointer: dict[str, int] = {}  # every shared-string cell -> the entry it will use
    for index, cells in skeleton.users.items():
        for block_id in cells:
            pointer[block_id] = index
    final: dict[int, Runs] = {}  # entries whose text this write decides
    # entries a cell this write leaves alone keeps using: their text stays
    for index, cells in sorted(skeleton.users.items()):
        entry = entries[index]
        if entry is not None and any(block_id not in changed for block_id in cells):
            final[index] = entry.runs
    in_place: dict[int, str] = {}  # entry -> the block whose edit rewrites it
    appended: list[tuple[Runs, int, str]] = []  # new entries: runs, template entry, block

    def holding(runs: Runs) -> int:
        found = next((index for index, known in final.items() if known == runs), -1)
        if found < 0:
            found = next(
                (total + number for number, (known, _, _) in enumerate(appended) if known == runs),
                -1,
            )
        return found

    grouped: dict[int, list[tuple[Runs, list[str]]]] = {}
    for index, changes in sorted(shared_edits.items()):
        groups = grouped[index] = []
        for block_id, runs in changes:
            group = next((ids for known, ids in groups if known == runs), None)
            if group is None:
                groups.append((runs, [block_id]))
            else:
                group.append(block_id)
    # first the entries no cell keeps: each is rewritten for its first new text that no
    # kept entry holds, so a cell set back to that entry's text finds it; one whose texts
    # earlier entries all took takes one of them when the entry holding it can take another
    # of its own, so cells set back at once each find their own entry, not one a
    # neighbour took first, and entries early in the table are kept before later ones
    # (which the edit can then remove)
    kept = dict(final)
    candidates = {
        index: [
            (runs, ids) for runs, ids in groups if not any(known == runs for known in kept.values())
        ]
        for index, groups in grouped.items()
        if index not in kept
    }

    def claim(index: int, seen: set[int]) -> bool:
        """Rewrite the entry for one of its texts, moving the entry that holds it on."""
        seen.add(index)
        for runs, ids in candidates[index]:
            holder = next((other for other in in_place if final[other] == runs), None)
            if holder is None or (holder not in seen and claim(holder, seen)):
                in_place[index] = ids[0]
                final[index] = runs
                return True
        return False

    for index, choices in candidates.items():
        free = next(((runs, ids) for runs, ids in choices if holding(runs) < 0), None)
        if free is not None:
            in_place[index] = free[1][0]
            final[index] = free[0]
        else:
            claim(index, set())
    # the rest point at an entry holding their text, else at a new one; new entries
    # follow the order their cells are read in, as the table's own entries do
    position = {block_id: number for number, block_id in enumerate(skeleton.cells)}
    rest = sorted(
        (
            (min(position[block_id] for block_id in ids), index, runs, ids)
            for index, groups in grouped.items()
            for runs, ids in groups
        ),
        key=lambda item: item[0],
    )
    for _at, index, runs, ids in rest:
        target = holding(runs)
        if target < 0:
            appended.append((runs, index, ids[0]))
            target = total + len(appended) - 1
        for block_id in ids:
            pointer[block_id] = target

    used = Counter(pointer.values())
    unused = [index for index in sorted(shared_edits) if not used[index]]
    removed: list[int] = []
    if not appended:  # new entries go at the end, after every entry kept
        last = total - 1
        while unused and unused[-1] == last:
            removed.append(unused.pop())
            last -= 1
    for index in unused:  # mid-table: its first cell keeps it, rewritten in place
        block_id, runs = shared_edits[index][0]
        pointer[block_id] = index
        in_place[index] = block_id
        final[index] = runs
    if removed:
        _compact_tail(entries, final, pointer, in_place, removed, total)
    survivors = total - len(removed)

    for index, block_id in in_place.items():
        entry = entries[index]
        assert entry is not None
        edits.paragraph(shared.part, entry, final[index], block_id)
    original = {block_id: index for index, cells in skeleton.users.items() for block_id in cells}
    for block_id, target in pointer.items():
        if target != original[block_id]:
            cell = skeleton.cells[block_id]
            splicer = edits.splicer(cell.part, block_id)
            splicer.replace(cell.value_start, cell.value_end, str(target).encode("ascii"))
    if not appended and not removed:
        return
    splicer = edits.splicer(shared.part, "sharedStrings")
    for index in removed:
        start, end = shared.bounds[index]
        splicer.replace(start, end, b"")
    if appended:
        added = []
        for runs, template, block_id in appended:
            entry = entries[template]
            assert entry is not None
            added.append(_new_entry(shared, entry, runs, block_id, edits))
        splicer.insert(shared.end_tag, b"".join(added))
    if shared.unique_count is not None:
        start, end = shared.unique_count
        splicer.replace(start, end, str(survivors + len(appended)).encode("ascii"))


def _compact_tail(
    entries: list[ParagraphSkeleton | None],
    final: dict[int, Runs],
    pointer: dict[str, int],
    in_place: dict[int, str],
    removed: list[int],
    total: int,
) -> None:
    """Remove each entry left at the table's end that repeats an earlier one.

    Runs only once the edit has removed the entries after it, so a table the
    edit leaves whole keeps its repeats. The earlier entry must be one this
    write leaves as it was: an entry rewritten here (an unused one mid-table
    kept for its first cell) may repeat a text another entry holds, and that
    entry's cells keep it, so setting the cell back finds its own entry again.
    """
    users: dict[int, list[str]] = {}
    for block_id, index in pointer.items():
        users.setdefault(index, []).append(block_id)
    last = total - len(removed) - 1
    while last > 0 and users.get(last):
        runs = final.get(last)
        if runs is None:
            entry = entries[last]
            runs = entry.runs if entry is not None else None
        if runs is None:
            return
        earlier = next(
            (
                index
                for index in range(last)
                if index not in in_place
                and users.get(index)
                and _runs_of(entries, final, index) == runs
            ),
            -1,
        )
        if earlier < 0:
            return
        for block_id in users.pop(last):
            pointer[block_id] = earlier
            users[earlier].append(block_id)
        final.pop(last, None)
        in_place.pop(last, None)
        removed.append(last)
        last -= 1


def _runs_of(entries: list[ParagraphSkeleton | None], final: dict[int, Runs], index: int) -> Runs:
    if index in final:
        return final[index]
    entry = entries[index]
    return entry.runs if entry is not None else ()


def _new_entry(
    shared: _SharedStrings, entry: ParagraphSkeleton, runs: Runs, block_id: str, edits: PartEdits
) -> bytes:
    data = edits.splicer(shared.part, block_id).data
    if all(isinstance(run, Text) for run in runs):
        text = "".join(run.text for run in runs if isinstance(run, Text))
        content = _DIALECT.text_node(text, shared.prefix, b"", block_id)
    else:
        content = rebuild_content(entry, runs, data, block_id)
    return b"<" + shared.prefix + b"si>" + content + b"</" + shared.prefix + b"si>"


def _read_shared_strings(package: OfficePackage, main: str) -> _SharedStrings | None:
    related = package.related(main, "sharedStrings")
    if not related:
        return None
    part = package.target(main, related[0])
    data = package.read(part)
    entries: list[ParagraphSkeleton | None] = []
    table: dict[str, object] = {}

    def on_start(name: str, attrs: dict[str, str], offset: int) -> None:
        if name == "x:sst":
            table["offset"] = offset

    bounds: list[tuple[int, int]] = []

    def collect(element: Element, _ancestors: Ancestors) -> None:
        entries.append(_walk_string(element, data))
        bounds.append((element.start, element.end))

    package.parse(part, frozenset({"x:si"}), collect, on_start=on_start, data=data)
    offset = table.get("offset")
    prefix = b""
    end_tag = len(data)
    unique_count: tuple[int, int] | None = None
    if isinstance(offset, int):
        match = re.match(rb"<([\w.-]+:)?sst\b", data[offset:])
        prefix = match.group(1) or b"" if match else b""
        end_tag = data.rfind(b"</" + prefix + b"sst>")
        tag_end = data.index(b">", offset)
        found = re.search(rb'\suniqueCount\s*=\s*["\'](\d+)["\']', data[offset:tag_end])
        if found:
            unique_count = (offset + found.start(1), offset + found.end(1))
    return _SharedStrings(part, entries, prefix, end_tag, unique_count, bounds)


def _rpr_key(data: bytes, properties: Element | None) -> bytes:
    if properties is None:
        return b""
    raw = _BETWEEN_TAGS.sub(b"><", data[properties.start_end(data) : properties.end_start])
    return raw


def _pair_type(properties: Element | None) -> str:
    if properties is None:
        return "fmt:style"

    def on(local: str) -> bool:
        element = properties.first("x:" + local)
        return element is not None and element.attrs.get("val", "1").lower() not in _FALSE

    if on("b"):
        return "fmt:bold"
    if on("i"):
        return "fmt:italic"
    underline = properties.first("x:u")
    if underline is not None and underline.attrs.get("val", "single") != "none":
        return "fmt:underline"
    if on("strike"):
        return "fmt:strikethrough"
    return "fmt:style"


def _walk_string(string: Element, data: bytes) -> ParagraphSkeleton | None:
    """A shared string ``si`` or an inline string ``is``."""
    content = [child for child in string.children if child.name in ("x:t", "x:r")]
    raw_name = string.raw_name(data)
    prefix = raw_name[: raw_name.index(b":") + 1] if b":" in raw_name else b""
    builder = InlineBuilder(data)
    if not content:
        return builder.finish(
            content_start=string.start_end(data),
            content_end=string.end_start,
            base_open=b"<" + prefix + b"r>",
            prefix=prefix,
            dialect=_DIALECT,
        )
    runs: dict[int, tuple[Element | None, bytes]] = {}
    weights: Counter[bytes] = Counter()
    for element in content:
        if element.name == "x:r":
            first = element.children[0] if element.children else None
            properties = first if first is not None and first.name == "x:rPr" else None
            key = _rpr_key(data, properties)
            runs[id(element)] = (properties, key)
            weights[key] += len(element.all_text("x:t"))
    base_key = choose_base(weights)
    base_open = b"<" + prefix + b"r>"
    for element in content:
        if element.name == "x:r" and runs[id(element)][1] == base_key:
            properties = runs[id(element)][0]
            base_open = data[
                element.start : properties.end
                if properties is not None
                else element.start_end(data)
            ]
            break
    index = 0
    while index < len(content):
        element = content[index]
        if element.name == "x:t":
            builder.slot(element, text=decode_escapes(element.text))
            index += 1
            continue
        properties, key = runs[id(element)]
        stop = index
        while (
            stop + 1 < len(content)
            and content[stop + 1].name == "x:r"
            and runs[id(content[stop + 1])][1] == key
        ):
            stop += 1
        code_id = ""
        pair_type = ""
        if key != base_key:
            pair_type = _pair_type(properties)
            open_end = properties.end if properties is not None else element.start_end(data)
            code_id = builder.open(
                element.start, open_end, kind=RUN_PAIR, type=pair_type, sub_type="xlsx:run"
            )
        for run in content[index : stop + 1]:
            for child in run.children:
                if child.name == "x:t":
                    builder.slot(child, text=decode_escapes(child.text))
        if code_id:
            last = content[stop]
            builder.close(
                code_id,
                last.end_start,
                last.end,
                kind=RUN_PAIR,
                type=pair_type,
                sub_type="xlsx:run",
            )
        index = stop + 1
    return builder.finish(
        content_start=content[0].start,
        content_end=content[-1].end,
        base_open=base_open,
        prefix=prefix,
        dialect=_DIALECT,
    )


def _column_number(letters: str) -> int:
    number = 0
    for letter in letters:
        number = number * 26 + ord(letter) - 64
    return number


def _column_letters(number: int) -> str:
    letters = ""
    while number:
        number, remainder = divmod(number - 1, 26)
        letters = chr(65 + remainder) + letters
    return letters


class _SheetReader:
    """Reads the cells of one worksheet."""

    def __init__(
        self,
        package: OfficePackage,
        part: str,
        sheet: str,
        shared: _SharedStrings | None,
        locale: str,
        blocks: list[Block],
        cells: dict[str, _Cell],
        users: dict[int, list[str]],
    ) -> None:
        self.package = package
        self.part = part
        self.sheet = sheet
        self.shared = shared
        self.locale = locale
        self.blocks = blocks
        self.cells = cells
        self.users = users
        self.row = 0
        self.column = 0
        self.data = package.read(part)
        package.parse(
            part, frozenset({"x:c"}), self._on_cell, on_start=self._on_start, data=self.data
        )

    def _on_start(self, name: str, attrs: dict[str, str], _offset: int) -> None:
        if name == "x:row":
            row = attrs.get("r", "")
            self.row = int(row) if row.isdigit() else self.row + 1
            self.column = 0

    def _on_cell(self, cell: Element, _ancestors: Ancestors) -> None:
        reference = cell.attrs.get("r", "")
        match = _CELL_REF.match(reference)
        if match:
            self.column = _column_number(match.group(1))
        else:
            self.column += 1
            reference = f"{_column_letters(self.column)}{self.row}"
        block_id = f"{self.sheet}!{reference}"
        if block_id in self.cells:
            return  # a repeated cell reference: Excel keeps the first
        kind = cell.attrs.get("t", "n")
        value = cell.first("x:v")
        formula = cell.first("x:f")
        if formula is not None and formula.text:
            self._value(block_id, reference, formula.text, "formula")
            return
        if kind == "s" and value is not None:
            self._shared(block_id, reference, cell, value)
            return
        if kind == "inlineStr":
            inline = cell.first("x:is")
            if inline is None:
                return
            paragraph = _walk_string(inline, self.data)
            if paragraph is None or not _has_text(paragraph.runs):
                return
            self.cells[block_id] = _Cell("inline", self.part, paragraph.runs, paragraph=paragraph)
            self._text_block(block_id, reference, paragraph.runs)
            return
        if value is not None and value.text:
            self._value(block_id, reference, value.text, "number" if kind == "n" else "value")

    def _shared(self, block_id: str, reference: str, cell: Element, value: Element) -> None:
        shared = self.shared
        text = value.text.strip()
        if shared is None or not text.isdigit() or int(text) >= len(shared.entries):
            raise FormatError(
                f"cell {block_id} points to shared string {text!r}, which the workbook "
                "does not have",
                path=self.package.path,
                capability="dangling-relationship",
            )
        index = int(text)
        entry = shared.entries[index]
        if entry is None or not _has_text(entry.runs):
            return
        self.cells[block_id] = _Cell(
            "shared",
            self.part,
            entry.runs,
            value_start=value.start_end(self.data),
            value_end=value.end_start,
            index=index,
        )
        self.users.setdefault(index, []).append(block_id)
        self._text_block(block_id, reference, entry.runs)

    def _text_block(self, block_id: str, reference: str, runs: Runs) -> None:
        self.blocks.append(
            Block(
                id=block_id,
                source=runs,
                name=block_id,
                locale=self.locale,
                properties={"sheet": self.sheet, "cell": reference},
            )
        )

    def _value(self, block_id: str, reference: str, text: str, role: str) -> None:
        runs: Runs = (Text(text),)
        self.cells[block_id] = _Cell("value", self.part, runs)
        self.blocks.append(
            Block(
                id=block_id,
                source=runs,
                name=block_id,
                translatable=False,
                role=role,
                locale=self.locale,
                properties=_NO_PROPERTIES,
            )
        )


def _has_text(runs: Runs) -> bool:
    return any(isinstance(run, Text) and run.text.strip() for run in runs)
