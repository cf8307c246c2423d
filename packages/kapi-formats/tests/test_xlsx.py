"""Excel workbooks: text cells as blocks, shared strings split when one cell changes, formulas untouched."""

from __future__ import annotations

import importlib.util
import io
import shutil
import subprocess
import sys
from pathlib import Path
from xml.sax.saxutils import escape

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kapi.core.format import WriteRefused
from kapi.core.model import Document, PcClose, PcOpen, Runs, Text, plain_text
from kapi.formats.office.xlsx import XlsxFormat
from kapi.formats.registry import get, load_codec


def _fixtures():  # type: ignore[no-untyped-def]
    """The shared package builders (tests/office_fixtures.py), loaded by path."""
    found = sys.modules.get("office_fixtures")
    if found is None:
        spec = importlib.util.spec_from_file_location(
            "office_fixtures", Path(__file__).with_name("office_fixtures.py")
        )
        assert spec is not None and spec.loader is not None
        found = importlib.util.module_from_spec(spec)
        sys.modules["office_fixtures"] = found
        spec.loader.exec_module(found)
    return found


fx = _fixtures()
CODEC = XlsxFormat()

ROWS = (
    '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1"><v>42.5</v></c></row>'
    '<row r="2"><c r="A2" t="s"><v>0</v></c><c r="B2"><f>C1*2</f><v>85</v></c><c r="C2" t="b"><v>1</v></c></row>'
    '<row r="3"><c r="A3" t="inlineStr"><is><t>Inline text</t></is></c><c r="B3" t="s"><v>2</v></c>'
    '<c r="C3" t="str"><f>"a"&amp;"b"</f><v>ab</v></c></row>'
    '<row r="4"><c t="s"><v>3</v></c><c t="s"><v>1</v></c></row>'
)
SHARED = [
    "<t>Shared</t>",
    '<r><t xml:space="preserve">Plain </t></r><r><rPr><b/><sz val="11"/></rPr><t>bold</t></r>',
    "<t>Line_x000D_break &amp; _x005F_x0041_</t>",
    "<t>Row four</t>",
]


def _workbook() -> bytes:
    return fx.xlsx([("Data", ROWS)], SHARED, count=7)


def _edit(document: Document, changes: dict[str, Runs]) -> Document:
    return document.with_blocks(
        tuple(
            block.with_source(changes[block.id]) if block.id in changes else block
            for block in document.blocks
        )
    )


def _part(data: bytes, name: str) -> str:
    return fx.entries(data)[name].decode("utf-8")


def test_registry_flags() -> None:
    assert isinstance(load_codec("xlsx"), XlsxFormat)
    spec = get("xlsx")
    assert spec.editable and spec.round_trip and not spec.generative


def test_cells_become_blocks_keyed_by_sheet_and_reference() -> None:
    document = CODEC.read(_workbook(), path="book.xlsx")
    summary = [(b.id, b.translatable, b.role, plain_text(b.source)) for b in document.blocks]
    assert summary == [
        ("Data!A1", True, "", "Shared"),
        ("Data!B1", True, "", "Plain bold"),
        ("Data!C1", False, "number", "42.5"),
        ("Data!A2", True, "", "Shared"),
        ("Data!B2", False, "formula", "C1*2"),
        ("Data!C2", False, "value", "1"),
        ("Data!A3", True, "", "Inline text"),
        ("Data!B3", True, "", "Line\rbreak & _x0041_"),
        ("Data!C3", False, "formula", '"a"&"b"'),
        ("Data!A4", True, "", "Row four"),
        ("Data!B4", True, "", "Plain bold"),
    ]
    assert document.blocks[0].properties == {"sheet": "Data", "cell": "A1"}
    assert document.blocks[0].name == "Data!A1"
    assert document.locale == "en"


def test_rich_text_runs_are_codes() -> None:
    document = CODEC.read(_workbook())
    assert document.blocks[1].source == (
        Text("Plain "),
        PcOpen(
            id="1", type="fmt:bold", sub_type="xlsx:run", data='<r><rPr><b/><sz val="11"/></rPr>'
        ),
        Text("bold"),
        PcClose(id="1", type="fmt:bold", sub_type="xlsx:run", data="</r>"),
    )


def test_no_op_write_is_byte_identical() -> None:
    data = _workbook()
    assert CODEC.write(CODEC.read(data)) == data


def test_editing_one_cell_of_a_shared_string_appends_a_new_entry() -> None:
    data = _workbook()
    document = CODEC.read(data)
    out = CODEC.write(_edit(document, {"Data!A1": (Text("Geteilt"),)}))
    shared = _part(out, "xl/sharedStrings.xml")
    assert 'count="7" uniqueCount="5"' in shared
    assert shared.endswith("<si><t>Row four</t></si><si><t>Geteilt</t></si></sst>")
    sheet = _part(out, "xl/worksheets/sheet1.xml")
    assert sheet == _part(data, "xl/worksheets/sheet1.xml").replace(
        '<c r="A1" t="s"><v>0</v></c>', '<c r="A1" t="s"><v>4</v></c>'
    )
    assert fx.changed_entries(data, out) == ["xl/worksheets/sheet1.xml", "xl/sharedStrings.xml"]
    again = {b.id: plain_text(b.source) for b in CODEC.read(out).blocks}
    assert again["Data!A1"] == "Geteilt"
    assert again["Data!A2"] == "Shared"


def test_the_same_edit_in_every_cell_changes_the_entry_in_place() -> None:
    data = _workbook()
    document = CODEC.read(data)
    out = CODEC.write(_edit(document, {"Data!A1": (Text("Both"),), "Data!A2": (Text("Both"),)}))
    assert fx.changed_entries(data, out) == ["xl/sharedStrings.xml"]
    assert _part(out, "xl/sharedStrings.xml") == _part(data, "xl/sharedStrings.xml").replace(
        "<t>Shared</t>", "<t>Both</t>"
    )


def test_different_edits_of_one_shared_string_leave_no_entry_unused() -> None:
    document = CODEC.read(_workbook())
    out = CODEC.write(_edit(document, {"Data!A1": (Text("One"),), "Data!A2": (Text("Two"),)}))
    shared = _part(out, "xl/sharedStrings.xml")
    assert 'uniqueCount="5"' in shared
    assert shared.count("<si>") == 5 and "<t>Shared</t>" not in shared
    assert "<t>One</t>" in shared and shared.endswith("<si><t>Two</t></si></sst>")
    again = {b.id: plain_text(b.source) for b in CODEC.read(out).blocks}
    assert (again["Data!A1"], again["Data!A2"]) == ("One", "Two")


def test_rich_text_entry_split_keeps_its_runs() -> None:
    document = CODEC.read(_workbook())
    runs = document.blocks[1].source
    out = CODEC.write(_edit(document, {"Data!B1": (Text("Simple "), *runs[1:])}))
    shared = _part(out, "xl/sharedStrings.xml")
    assert shared.endswith(
        '<si><r><t xml:space="preserve">Simple </t></r><r><rPr><b/><sz val="11"/></rPr>'
        "<t>bold</t></r></si></sst>"
    )
    again = {b.id: b.source for b in CODEC.read(out).blocks}
    assert again["Data!B1"] == (Text("Simple "), *runs[1:])
    assert again["Data!B4"] == runs


def test_inline_string_is_edited_in_the_sheet() -> None:
    data = _workbook()
    document = CODEC.read(data)
    out = CODEC.write(_edit(document, {"Data!A3": (Text("  Zeile  "),)}))
    assert fx.changed_entries(data, out) == ["xl/worksheets/sheet1.xml"]
    assert '<is><t xml:space="preserve">  Zeile  </t></is>' in _part(
        out, "xl/worksheets/sheet1.xml"
    )


def test_formulas_and_numbers_are_not_editable() -> None:
    document = CODEC.read(_workbook())
    for block_id in ("Data!B2", "Data!C1"):
        with pytest.raises(WriteRefused) as caught:
            CODEC.write(_edit(document, {block_id: (Text("0"),)}))
        assert caught.value.capability == "editable"


def test_escapes_are_written_for_carriage_returns_and_literal_escape_text() -> None:
    document = CODEC.read(_workbook())
    text = "a\rb _x0042_ <&>\nnew line\ttab"
    out = CODEC.write(_edit(document, {"Data!B3": (Text(text),)}))
    assert "<t>a_x000D_b _x005F_x0042_ &lt;&amp;&gt;\nnew line\ttab</t>" in _part(
        out, "xl/sharedStrings.xml"
    )
    again = {b.id: plain_text(b.source) for b in CODEC.read(out).blocks}
    assert again["Data!B3"] == text


def test_openpyxl_reads_the_edited_workbook() -> None:
    openpyxl = pytest.importorskip("openpyxl")
    document = CODEC.read(_workbook())
    out = CODEC.write(_edit(document, {"Data!A1": (Text("Geteilt"),), "Data!A3": (Text("Neu"),)}))
    sheet = openpyxl.load_workbook(io.BytesIO(out))["Data"]
    assert (sheet["A1"].value, sheet["A2"].value, sheet["A3"].value) == ("Geteilt", "Shared", "Neu")
    assert sheet["B2"].value == "=C1*2"


@pytest.mark.skipif(
    shutil.which("soffice") is None, reason="LibreOffice (soffice) is not installed"
)
def test_libreoffice_converts_the_edited_workbook_to_pdf(tmp_path: Path) -> None:
    document = CODEC.read(_workbook())
    runs = document.blocks[1].source
    edited = _edit(
        document, {"Data!A1": (Text("Geteilt"),), "Data!B1": (Text("Einfach "), *runs[1:])}
    )
    source = tmp_path / "edited.xlsx"
    source.write_bytes(CODEC.write(edited))
    result = subprocess.run(
        [
            "soffice",
            f"-env:UserInstallation=file://{tmp_path / 'profile'}",
            "--headless",
            "--convert-to",
            "pdf",
            "--outdir",
            str(tmp_path),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, result.stderr
    assert source.with_suffix(".pdf").read_bytes().startswith(b"%PDF")


_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\ufffe\uffff"),
    min_size=1,
    max_size=15,
).filter(lambda text: text.strip() != "")


def _encode(text: str) -> str:
    import re

    encoded = re.sub(
        "[\x00-\x08\x0b\x0c\x0e-\x1f\r]|_(?=x[0-9A-Fa-f]{4}_)",
        lambda m: "_x005F_" if m.group() == "_" else f"_x{ord(m.group()):04X}_",
        text,
    )
    return escape(encoded)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_TEXT, min_size=1, max_size=6), st.data())
def test_generated_workbooks_round_trip_and_take_edits(
    texts: list[str], data: st.DataObject
) -> None:
    shared = [f'<t xml:space="preserve">{_encode(text)}</t>' for text in texts]
    rows = "".join(
        f'<row r="{n}"><c r="A{n}" t="s"><v>{n - 1}</v></c></row>' for n in range(1, len(texts) + 1)
    )
    workbook = fx.xlsx([("S", rows)], shared)
    document = CODEC.read(workbook)
    assert [plain_text(b.source) for b in document.blocks] == texts
    assert CODEC.write(document) == workbook
    target = data.draw(st.sampled_from([b.id for b in document.blocks]))
    new_text = data.draw(_TEXT)
    out = CODEC.write(_edit(document, {target: (Text(new_text),)}))
    again = {b.id: plain_text(b.source) for b in CODEC.read(out).blocks}
    expected = {b.id: plain_text(b.source) for b in document.blocks}
    expected[target] = new_text
    assert again == expected


# --- undo: a cell set back gives the workbook's own bytes --------------------------------


def test_a_split_shared_string_set_back_points_at_its_entry_again() -> None:
    data = _workbook()
    edited = CODEC.write(_edit(CODEC.read(data), {"Data!A1": (Text("Geteilt"),)}))
    restored = CODEC.write(_edit(CODEC.read(edited), {"Data!A1": (Text("Shared"),)}))
    assert _part(restored, "xl/sharedStrings.xml") == _part(data, "xl/sharedStrings.xml")
    assert restored == data


def test_a_string_used_once_is_edited_in_place_and_set_back() -> None:
    data = _workbook()
    edited = CODEC.write(_edit(CODEC.read(data), {"Data!B3": (Text("Changed"),)}))
    assert fx.changed_entries(data, edited) == ["xl/sharedStrings.xml"]
    assert 'uniqueCount="4"' in _part(edited, "xl/sharedStrings.xml")
    as_read = {b.id: b.source for b in CODEC.read(data).blocks}["Data!B3"]
    assert CODEC.write(_edit(CODEC.read(edited), {"Data!B3": as_read})) == data


def test_a_cell_set_to_a_text_the_table_holds_points_at_that_entry() -> None:
    data = _workbook()
    out = CODEC.write(_edit(CODEC.read(data), {"Data!A1": (Text("Row four"),)}))
    assert _part(out, "xl/sharedStrings.xml") == _part(data, "xl/sharedStrings.xml")
    assert _part(out, "xl/worksheets/sheet1.xml") == _part(
        data, "xl/worksheets/sheet1.xml"
    ).replace('<c r="A1" t="s"><v>0</v></c>', '<c r="A1" t="s"><v>3</v></c>')


# --- a table edited mid-way: a new entry only where cells still share, none left unused ----

# Eight rows: column A repeats three texts (each entry used by several cells), column B
# holds texts used once, so an edited cell has cells and entries after it.
_MID_SHARED = ["Open", "Closed", "Pending"] + [f"Note {n}" for n in range(1, 9)]


def _mid_table() -> bytes:
    rows = "".join(
        f'<row r="{n}"><c r="A{n}" t="s"><v>{(n - 1) % 3}</v></c>'
        f'<c r="B{n}" t="s"><v>{n + 2}</v></c><c r="C{n}"><v>{n * 10}</v></c></row>'
        for n in range(1, 9)
    )
    return fx.xlsx([("Tasks", rows)], [f"<t>{text}</t>" for text in _MID_SHARED], count=16)


def _values(data: bytes) -> dict[str, object]:
    """Every cell's value as openpyxl reads it."""
    openpyxl = pytest.importorskip("openpyxl")
    sheet = openpyxl.load_workbook(io.BytesIO(data))["Tasks"]
    return {cell.coordinate: cell.value for row in sheet.iter_rows() for cell in row}


def _entries_used(data: bytes) -> tuple[int, set[int]]:
    """How many entries the table holds, and the indices the cells point at."""
    import re

    table = _part(data, "xl/sharedStrings.xml")
    sheet = _part(data, "xl/worksheets/sheet1.xml")
    used = {int(index) for index in re.findall(r't="s"><v>(\d+)</v>', sheet)}
    count = int(re.search(r'uniqueCount="(\d+)"', table).group(1))  # type: ignore[union-attr]
    assert count == table.count("<si>")
    return count, used


def _set(data: bytes, changes: dict[str, str]) -> bytes:
    out = CODEC.write(_edit(CODEC.read(data), {k: (Text(v),) for k, v in changes.items()}))
    count, used = _entries_used(out)
    assert used == set(range(count)), "an entry no cell uses was left in the table"
    return out


def test_a_shared_string_edited_mid_table_gets_a_new_entry_for_that_cell_only() -> None:
    data = _mid_table()
    before = _values(data)
    edited = _set(data, {"Tasks!A4": "Offen"})  # "Open" is also A1 and A7
    assert _values(edited) == {**before, "A4": "Offen"}
    shared = _part(edited, "xl/sharedStrings.xml")
    assert shared == _part(data, "xl/sharedStrings.xml").replace(
        'uniqueCount="11"', 'uniqueCount="12"'
    ).replace("</sst>", "<si><t>Offen</t></si></sst>")
    sheet = _part(edited, "xl/worksheets/sheet1.xml")
    assert sheet == _part(data, "xl/worksheets/sheet1.xml").replace(
        '<c r="A4" t="s"><v>0</v>', '<c r="A4" t="s"><v>11</v>'
    )
    restored = _set(edited, {"Tasks!A4": "Open"})
    assert _part(restored, "xl/sharedStrings.xml") == _part(data, "xl/sharedStrings.xml")
    assert _part(restored, "xl/worksheets/sheet1.xml") == _part(data, "xl/worksheets/sheet1.xml")
    assert restored == data


def test_a_string_one_cell_uses_mid_table_is_rewritten_in_place_and_set_back() -> None:
    data = _mid_table()
    edited = _set(data, {"Tasks!B3": "Call back"})
    assert fx.changed_entries(data, edited) == ["xl/sharedStrings.xml"]
    assert _values(edited) == {**_values(data), "B3": "Call back"}
    assert _set(edited, {"Tasks!B3": "Note 3"}) == data


def test_a_cell_set_to_a_text_another_entry_holds_keeps_its_entry_mid_table() -> None:
    data = _mid_table()
    edited = _set(data, {"Tasks!B3": "Closed"})  # Note 3 is used once, mid-table
    assert fx.changed_entries(data, edited) == ["xl/sharedStrings.xml"]
    assert _values(edited)["B3"] == "Closed"
    assert _set(edited, {"Tasks!B3": "Note 3"}) == data


def test_split_cells_set_back_one_at_a_time_in_either_order_give_the_original_bytes() -> None:
    data = _mid_table()
    edited = _set(data, {"Tasks!A2": "Zu", "Tasks!A4": "Offen", "Tasks!A6": "Wartend"})
    assert _entries_used(edited)[0] == 14
    assert _values(edited) == {**_values(data), "A2": "Zu", "A4": "Offen", "A6": "Wartend"}
    originals = {"Tasks!A2": "Closed", "Tasks!A4": "Open", "Tasks!A6": "Pending"}
    for order in (["Tasks!A2", "Tasks!A4", "Tasks!A6"], ["Tasks!A6", "Tasks!A2", "Tasks!A4"]):
        step = edited
        for block_id in order:
            step = _set(step, {block_id: originals[block_id]})
        assert _part(step, "xl/sharedStrings.xml") == _part(data, "xl/sharedStrings.xml")
        assert step == data, order
    assert _set(edited, originals) == data


def test_every_cell_of_a_shared_string_edited_apart_leaves_no_entry_unused() -> None:
    data = _mid_table()
    edited = _set(data, {"Tasks!A1": "Eins", "Tasks!A4": "Vier", "Tasks!A7": "Sieben"})
    assert _entries_used(edited)[0] == 13  # "Open" rewritten for A1, two new entries
    assert _values(edited) == {**_values(data), "A1": "Eins", "A4": "Vier", "A7": "Sieben"}
    restored = _set(edited, {"Tasks!A1": "Open", "Tasks!A4": "Open", "Tasks!A7": "Open"})
    assert restored == data


_POOL = ("Open", "Closed", "Note 5", "Neu", "Fertig")


_CELLS = st.sampled_from([f"Tasks!{column}{row}" for column in "AB" for row in range(1, 9)])
_CHANGES = st.dictionaries(_CELLS, st.sampled_from(_POOL), min_size=1, max_size=4)


def _texts_of(data: bytes) -> dict[str, str]:
    return {b.id: plain_text(b.source) for b in CODEC.read(data).blocks if b.translatable}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_CHANGES)
# B1's entry, left unused mid-table, is rewritten to the text B5's entry holds: B5 keeps its own
@example({"Tasks!B1": "Note 5", "Tasks!B6": "Open", "Tasks!B7": "Open", "Tasks!B8": "Open"})
# "Closed" and "Pending" edited away from all their cells: each entry takes back its own text
@example(
    {
        "Tasks!A2": "Open",
        "Tasks!A3": "Open",
        "Tasks!A5": "Open",
        "Tasks!A6": "Neu",
        "Tasks!A8": "Neu",
    }
)
def test_any_edit_set_back_at_once_gives_the_original_bytes(changes: dict[str, str]) -> None:
    data = _mid_table()
    original = _texts_of(data)
    edited = _set(data, changes)
    assert _texts_of(edited) == {**original, **changes}
    assert _values(edited) == {
        **_values(data),
        **{block_id.split("!")[1]: text for block_id, text in changes.items()},
    }
    restored = _set(edited, {block_id: original[block_id] for block_id in changes})
    assert _part(restored, "xl/sharedStrings.xml") == _part(data, "xl/sharedStrings.xml")
    assert restored == data
