"""Excel workbooks (.xlsx, .xlsm, .xltx): cells as blocks, text edited in place in the zip.

Blocks, sheet by sheet in workbook order (worksheets only; chart sheets have
no cells), cell by cell in file order; id and name ``<sheet name>!<cell>``
(``Sheet1!B3``):

* a text cell, from the shared string table or an inline string
  (``t="inlineStr"``), is a translatable block; rich text runs become pairs
  ``fmt:bold`` / ``fmt:italic`` / ``fmt:underline`` / ``fmt:strikethrough`` /
  ``fmt:style`` (sub_type ``xlsx:run``, open ``data`` the run's start tag and
  ``rPr``, close ``</r>``); the base formatting (runs without ``rPr`` if any,
  else the properties under most of the text) makes no code. ``_xHHHH_`` escapes are decoded on read and written for
  characters XML cannot hold (``\\r`` as ``_x000D_``, as Excel does).
* a formula cell is a block with ``translatable=False``, role ``formula``, text
  the formula; any other cell with a value (number, boolean, error, date)
  ``translatable=False`` with role ``number`` (``value`` for booleans, errors
  and dates) and the value as written. Editing either is refused.

Writing an edited text cell: an inline string is spliced in the sheet; a
shared string used by no other cell, or changed the same way in every cell
that uses it, is spliced in ``sharedStrings.xml``; otherwise each new text gets
a new ``<si>`` appended to the table (``uniqueCount`` updated; ``count``
is unchanged because every cell still holds one reference) and only the edited
cells are pointed at it, so the other cells keep their text. A cell set to a
text another entry holds points at that entry instead; the table's last entry,
when no cell uses it any more, is removed (so setting a split cell back gives
the workbook's own bytes). Formulas,
``calcChain.xml`` and every other part are copied untouched. The document's
language is the ``locale`` argument, else ``en``. Limits: those of
:mod:`kapi.formats.office.package`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping

from attrs import field, frozen

from kapi.core.format import FormatError, WriteRefused
from kapi.core.model import Block, Document, Runs, Text
from kapi.formats.common import canonical_or_error
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
        for sheet_name, rel_id in sheets:
            relationship = by_id.get(rel_id)
            if relationship is None:
                raise FormatError(
                    f"sheet {sheet_name!r} has no relationship {rel_id}",
                    path=path,
                    capability="dangling-relationship",
                )
            if not relationship.is_type("worksheet"):
                continue
            part = package.target(main, relationship)
            _SheetReader(package, part, sheet_name, shared, doc_locale, blocks, cells, users)
        return Document(
            format=self.name,
            blocks=tuple(blocks),
            locale=doc_locale,
            skeleton=XlsxSkeleton(package, cells, shared, users),
        )

    def _edit(self, document: Document, skeleton: XlsxSkeleton, edits: PartEdits) -> None:
        shared_edits: dict[int, list[tuple[str, Runs]]] = {}
        for block in document.blocks:
            cell = skeleton.cells.get(block.id)
            if cell is None or block.source == cell.runs:
                continue
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


def _write_shared(
    skeleton: XlsxSkeleton, shared_edits: dict[int, list[tuple[str, Runs]]], edits: PartEdits
) -> None:
    shared = skeleton.shared
    assert shared is not None
    # entries no edit touches, by the text their cells show: a cell set to one of these
    # texts points at it again rather than making a copy
    holding: list[tuple[Runs, int]] = [
        (skeleton.cells[cells[0]].runs, index)
        for index, cells in sorted(skeleton.users.items())
        if cells and index not in shared_edits
    ]

    def held(runs: Runs) -> int:
        return next((number for known, number in holding if known == runs), -1)

    last = len(shared.entries) - 1
    removed = -1  # the table's last entry, when the edit leaves no cell using it
    appended: list[bytes] = []
    moves: list[tuple[str, int]] = []
    for index, changes in sorted(shared_edits.items()):
        entry = shared.entries[index]
        assert entry is not None
        everyone = skeleton.users.get(index, [])
        first_runs = changes[0][1]
        if len(changes) == len(everyone) and all(runs == first_runs for _id, runs in changes):
            existing = held(first_runs)
            if existing >= 0 and index == last and len(shared.bounds) == len(shared.entries):
                removed = index
                moves.extend((block_id, existing) for block_id, _runs in changes)
            else:
                edits.paragraph(shared.part, entry, first_runs, changes[0][0])
            continue
        assigned: list[tuple[Runs, int]] = []
        for block_id, runs in changes:
            new_index = held(runs)
            if new_index < 0:
                new_index = next((number for known, number in assigned if known == runs), -1)
            if new_index < 0:
                new_index = len(shared.entries) + len(appended)
                appended.append(_new_entry(shared, entry, runs, block_id, edits))
                assigned.append((runs, new_index))
            moves.append((block_id, new_index))
    if removed >= 0 and appended:
        # the new entries take the indices after the last one: keep it, edited in place
        entry = shared.entries[removed]
        assert entry is not None
        changes = shared_edits[removed]
        edits.paragraph(shared.part, entry, changes[0][1], changes[0][0])
        moves = [(block_id, number) for block_id, number in moves if block_id not in dict(changes)]
        removed = -1
    for block_id, new_index in moves:
        cell = skeleton.cells[block_id]
        splicer = edits.splicer(cell.part, block_id)
        splicer.replace(cell.value_start, cell.value_end, str(new_index).encode("ascii"))
    if not appended and removed < 0:
        return
    splicer = edits.splicer(shared.part, "sharedStrings")
    if removed >= 0:
        start = shared.bounds[removed - 1][1] if removed else shared.bounds[removed][0]
        splicer.replace(start, shared.bounds[removed][1], b"")
    else:
        splicer.insert(shared.end_tag, b"".join(appended))
    if shared.unique_count is not None:
        start, end = shared.unique_count
        count = len(shared.entries) + len(appended) - (1 if removed >= 0 else 0)
        splicer.replace(start, end, str(count).encode("ascii"))


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
