"""Chart text in DOCX, XLSX and PPTX: titles, axis titles, series names and data labels as blocks."""

from __future__ import annotations

import importlib.util
import io
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kapi.core.format import FormatError, WriteRefused
from kapi.core.model import Document, PcClose, PcOpen, Runs, Text, plain_text
from kapi.formats.office.docx import DocxFormat
from kapi.formats.office.pptx import PptxFormat
from kapi.formats.office.xlsx import XlsxFormat


def _fixtures():  # type: ignore[no-untyped-def]
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
DOCX, XLSX, PPTX = DocxFormat(), XlsxFormat(), PptxFormat()
CHART = "word/charts/chart1.xml"
NO_SOFFICE = pytest.mark.skipif(
    shutil.which("soffice") is None, reason="LibreOffice is not installed"
)
_CHART_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\ufffe\uffff"),
    min_size=1,
    max_size=20,
).filter(lambda text: text.strip() != "")


def _edit(document: Document, changes: dict[str, Runs | str]) -> Document:
    def runs(value: Runs | str) -> Runs:
        return (Text(value),) if isinstance(value, str) else value

    return document.with_blocks(
        tuple(
            block.with_source(runs(changes[block.id])) if block.id in changes else block
            for block in document.blocks
        )
    )


def _pdf(tmp_path: Path, *files: Path) -> None:
    """LibreOffice opens each file and prints it to PDF (it refuses a corrupt one)."""
    result = subprocess.run(
        [
            "soffice",
            f"-env:UserInstallation=file://{tmp_path / 'profile'}",
            "--headless",
            "--convert-to",
            "pdf",
            "--outdir",
            str(tmp_path / "pdf"),
            *map(str, files),
        ],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 0, result.stderr
    for file in files:
        assert (tmp_path / "pdf" / file.with_suffix(".pdf").name).read_bytes().startswith(b"%PDF")


# --- DOCX: a chart composed by hand ---------------------------------------------------------


def test_a_word_chart_gives_its_title_axis_title_series_names_and_labels() -> None:
    document = DOCX.read(fx.docx_with_chart(fx.chart_xml()))
    charts = [(b.id, b.role, plain_text(b.source)) for b in document.blocks if "charts" in b.id]
    assert charts == [
        (f"{CHART}#title/p1", "chart-title", "Sales by region"),
        (f"{CHART}#series1", "series-name", "Revenue"),
        (f"{CHART}#series1/label2/p1", "data-label", "Best quarter"),
        (f"{CHART}#series2", "series-name", "Costs & fees"),
        (f"{CHART}#axis2/title/p1", "axis-title", "Euros"),
    ]
    assert all(b.translatable for b in document.blocks)
    assert document.blocks[-1].properties == {"part": CHART}


def test_a_word_chart_edited_changes_only_the_edited_text_and_set_back_gives_the_bytes() -> None:
    data = fx.docx_with_chart(fx.chart_xml())
    document = DOCX.read(data)
    assert DOCX.write(document) == data
    edited = DOCX.write(
        _edit(
            document,
            {
                f"{CHART}#title/p1": "Ventes par région",
                f"{CHART}#series1": "Chiffre <d'affaires>",
                f"{CHART}#series2": "Coûts",
                f"{CHART}#axis2/title/p1": "Euros (k)",
            },
        )
    )
    assert fx.changed_entries(data, edited) == [CHART]
    before = fx.entries(data)[CHART].decode()
    after = fx.entries(edited)[CHART].decode()
    assert after == (
        before.replace("<a:t>Sales by region</a:t>", "<a:t>Ventes par région</a:t>")
        .replace("<c:v>Revenue</c:v>", "<c:v>Chiffre &lt;d'affaires&gt;</c:v>")
        .replace("<c:v>Costs &amp; fees</c:v>", "<c:v>Coûts</c:v>")
        .replace("<a:t>Euros</a:t>", "<a:t>Euros (k)</a:t>")
    )
    again = {b.id: plain_text(b.source) for b in DOCX.read(edited).blocks}
    assert again[f"{CHART}#series1"] == "Chiffre <d'affaires>"
    originals = {b.id: b.source for b in document.blocks}
    restored = DOCX.write(_edit(DOCX.read(edited), originals))  # type: ignore[arg-type]
    assert fx.changed_entries(data, restored) == []
    assert restored == data


@settings(max_examples=30, deadline=None)
@given(_CHART_TEXT, st.sampled_from(["\r", "\n", "\t", "\r\n"]))
def test_a_series_name_keeps_its_line_breaks_and_tabs(text: str, separator: str) -> None:
    document = DOCX.read(fx.docx_with_chart(fx.chart_xml()))
    name = text + separator + text
    edited = DOCX.write(_edit(document, {f"{CHART}#series1": name}))
    again = {b.id: plain_text(b.source) for b in DOCX.read(edited).blocks}
    assert again[f"{CHART}#series1"] == name


def test_a_word_charts_series_name_reaches_its_embedded_workbook() -> None:
    openpyxl = pytest.importorskip("openpyxl")
    workbook = io.BytesIO()
    book = openpyxl.Workbook()
    book.active.title = "Sheet1"
    book.active["C1"] = "Costs & fees"
    book.active["C2"] = "Costs & fees"  # the same text in another cell: a shared string
    book.save(workbook)
    embedded = "word/embeddings/Microsoft_Excel_Sheet1.xlsx"
    base = fx.docx_with_chart(fx.chart_xml())
    parts: dict[str, str | bytes] = dict(fx.entries(base))
    parts[embedded] = workbook.getvalue()
    parts["word/charts/_rels/chart1.xml.rels"] = fx.rels_xml(
        [("rId1", "package", "../embeddings/Microsoft_Excel_Sheet1.xlsx")]
    )
    data = fx.zip_parts(parts)
    document = DOCX.read(data)
    edited = DOCX.write(_edit(document, {f"{CHART}#series2": "Kosten"}))
    assert fx.changed_entries(data, edited) == [CHART, embedded]
    sheet = openpyxl.load_workbook(io.BytesIO(fx.entries(edited)[embedded])).active
    assert (sheet["C1"].value, sheet["C2"].value) == ("Kosten", "Costs & fees")
    # a name written out (series1) has no cell: its edit leaves the workbook alone
    alone = DOCX.write(_edit(document, {f"{CHART}#series1": "Umsatz"}))
    assert fx.changed_entries(data, alone) == [CHART]
    restored = DOCX.write(_edit(DOCX.read(edited), {f"{CHART}#series2": "Costs & fees"}))
    assert fx.entries(restored) == fx.entries(data)


def test_chart_text_without_text_or_with_a_cache_of_several_points_gives_no_block() -> None:
    odd = (
        '<c:plotArea><c:lineChart><c:ser><c:idx val="0"/><c:tx/></c:ser>'
        '<c:ser><c:idx val="1"/><c:tx><c:strRef><c:f>Sheet1!$B$1</c:f></c:strRef></c:tx></c:ser>'
        '<c:ser><c:idx val="2"/><c:tx><c:strRef><c:f>Sheet1!$C$1:$D$1</c:f><c:strCache>'
        '<c:ptCount val="2"/><c:pt idx="0"><c:v>Two</c:v></c:pt><c:pt idx="1"><c:v>cells</c:v>'
        "</c:pt></c:strCache></c:strRef></c:tx></c:ser>"
        '<c:ser><c:idx val="3"/><c:tx><c:strRef><c:f>Sheet1!$E$1</c:f><c:strCache>'
        '<c:ptCount val="1"/><c:pt idx="0"/></c:strCache></c:strRef></c:tx></c:ser>'
        '<c:ser><c:idx val="4"/><c:tx><c:v>  </c:v></c:tx><c:dLbls><c:dLbl><c:tx><c:rich>'
        "<a:p><a:r><a:t>no index</a:t></a:r></a:p></c:rich></c:tx></c:dLbl></c:dLbls></c:ser>"
        '<c:ser><c:idx val="5"/><c:tx><c:v>Kept</c:v></c:tx></c:ser>'
        '</c:lineChart><c:valAx><c:title><c:overlay val="0"/></c:title></c:valAx></c:plotArea>'
    )
    data = fx.docx_with_chart(fx.chart_xml(body=odd))
    document = DOCX.read(data)
    charts = [(b.id, plain_text(b.source)) for b in document.blocks if "charts" in b.id]
    assert charts == [(f"{CHART}#title/p1", "Sales by region"), (f"{CHART}#series6", "Kept")]
    assert DOCX.write(document) == data


def test_a_series_name_takes_no_codes() -> None:
    document = DOCX.read(fx.docx_with_chart(fx.chart_xml()))
    bold = (
        PcOpen(id="1", type="fmt:bold", data='<a:r><a:rPr b="1"/>'),
        Text("Revenue"),
        PcClose(id="1", type="fmt:bold", data="</a:r>"),
    )
    with pytest.raises(WriteRefused) as caught:
        DOCX.write(_edit(document, {f"{CHART}#series1": bold}))
    assert caught.value.capability == "editable"
    assert "plain text" in str(caught.value)


def test_a_chart_part_missing_from_the_file_is_passed_over_and_the_rest_edits() -> None:
    data = fx.docx_with_chart(None)
    document = DOCX.read(data)
    assert [b.id for b in document.blocks] == ["word/document.xml#p1", "word/document.xml#p3"]
    edited = DOCX.write(_edit(document, {"word/document.xml#p3": "Nach dem Diagramm"}))
    assert fx.changed_entries(data, edited) == ["word/document.xml"]
    assert b'r:id="rIdChart"' in fx.entries(edited)["word/document.xml"]


def test_a_chart_part_that_is_not_well_formed_is_refused_naming_the_part() -> None:
    data = fx.docx_with_chart(fx.chart_xml().replace("</c:title>", ""))
    with pytest.raises(FormatError) as caught:
        DOCX.read(data, path="report.docx")
    assert CHART in str(caught.value) and caught.value.line is not None


def test_kapi_inspect_lists_a_broken_charts_document_without_a_traceback(tmp_path: Path) -> None:
    good = tmp_path / "good.docx"
    good.write_bytes(fx.docx_with_chart(None))
    bad = tmp_path / "bad.docx"
    bad.write_bytes(fx.docx_with_chart("<c:chartSpace"))
    kapi = Path(sys.executable).with_name("kapi")
    result = subprocess.run(
        [str(kapi), "inspect", "--jsonl", "good.docx", "bad.docx"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "KAPI_NO_PROJECT": "1", "HOME": str(tmp_path)},
    )
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert CHART in result.stderr
    assert "After the chart" in result.stdout


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(
        st.sampled_from(["title/p1", "series1", "series2", "axis2/title/p1", "series1/label2/p1"]),
        _CHART_TEXT,
        min_size=1,
    )
)
def test_any_chart_text_is_written_read_back_and_set_back(changes: dict[str, str]) -> None:
    data = fx.docx_with_chart(fx.chart_xml())
    document = DOCX.read(data)
    edited = DOCX.write(
        _edit(document, {f"{CHART}#{path}": text for path, text in changes.items()})
    )
    assert fx.changed_entries(data, edited) == [CHART]
    again = {b.id: plain_text(b.source) for b in DOCX.read(edited).blocks}
    for path, text in changes.items():
        assert again[f"{CHART}#{path}"] == text
    originals = {b.id: b.source for b in document.blocks}
    assert DOCX.write(_edit(DOCX.read(edited), originals)) == data  # type: ignore[arg-type]


# --- PPTX: a chart python-pptx makes (with its embedded workbook) -------------------------------


def _deck() -> bytes:
    pptx = pytest.importorskip("pptx")
    from pptx.chart.data import CategoryChartData
    from pptx.enum.chart import XL_CHART_TYPE
    from pptx.util import Inches

    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Quarterly results"
    data = CategoryChartData()
    data.categories = ["Q1", "Q2", "Q3"]
    data.add_series("North region", (1.0, 2.0, 3.0))
    data.add_series("South region", (2.0, 1.5, 2.5))
    frame = slide.shapes.add_chart(
        XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(2), Inches(6), Inches(4), data
    )
    chart = frame.chart
    chart.has_title = True
    chart.chart_title.text_frame.text = "Revenue per quarter"
    chart.value_axis.has_title = True
    chart.value_axis.axis_title.text_frame.text = "Million euros"
    buffer = io.BytesIO()
    deck.save(buffer)
    return buffer.getvalue()


def test_a_powerpoint_chart_is_read_edited_and_python_pptx_reads_the_edit() -> None:
    pptx = pytest.importorskip("pptx")
    data = _deck()
    document = PPTX.read(data)
    charts = {
        b.id: (b.role, plain_text(b.source)) for b in document.blocks if b.id.startswith("chart")
    }
    assert charts == {
        "chart1/title/p1": ("chart-title", "Revenue per quarter"),
        "chart1/series1": ("series-name", "North region"),
        "chart1/series2": ("series-name", "South region"),
        "chart1/axis2/title/p1": ("axis-title", "Million euros"),
    }
    assert PPTX.write(document) == data
    edited = PPTX.write(
        _edit(
            document,
            {
                "chart1/title/p1": "Umsatz pro Quartal",
                "chart1/series1": "Region Nord",
                "chart1/axis2/title/p1": "Millionen Euro",
            },
        )
    )
    embedded = next(name for name in fx.entries(data) if name.startswith("ppt/embeddings/"))
    assert fx.changed_entries(data, edited) == ["ppt/charts/chart1.xml", embedded]
    # the chart's own workbook holds the new series name too, so "Edit Data" keeps it
    openpyxl = pytest.importorskip("openpyxl")
    sheet = openpyxl.load_workbook(io.BytesIO(fx.entries(edited)[embedded])).active
    assert (sheet["B1"].value, sheet["C1"].value) == ("Region Nord", "South region")
    assert fx.changed_entries(fx.entries(data)[embedded], fx.entries(edited)[embedded]) == [
        "xl/sharedStrings.xml"
    ]
    chart = pptx.Presentation(io.BytesIO(edited)).slides[0].shapes[1].chart
    assert chart.chart_title.text_frame.text == "Umsatz pro Quartal"
    assert [series.name for series in chart.plots[0].series] == ["Region Nord", "South region"]
    assert chart.value_axis.axis_title.text_frame.text == "Millionen Euro"
    restored = PPTX.write(
        _edit(
            PPTX.read(edited),
            {
                "chart1/title/p1": "Revenue per quarter",
                "chart1/series1": "North region",
                "chart1/axis2/title/p1": "Million euros",
            },
        )
    )
    assert fx.changed_entries(data, restored) == []
    assert restored == data


def _without(data: bytes, name: str, content: bytes | None = None) -> bytes:
    """The package with entry ``name`` left out, or holding ``content``."""
    parts: dict[str, str | bytes] = {}
    for entry, value in fx.entries(data).items():
        if entry != name:
            parts[entry] = value
        elif content is not None:
            parts[entry] = content
    return fx.zip_parts(parts)


def test_a_chart_whose_workbook_is_missing_has_its_cache_written_alone() -> None:
    data = _deck()
    embedded = next(name for name in fx.entries(data) if name.startswith("ppt/embeddings/"))
    data = _without(data, embedded)
    document = PPTX.read(data)
    edited = PPTX.write(_edit(document, {"chart1/series2": "Region Süd"}))
    assert fx.changed_entries(data, edited) == ["ppt/charts/chart1.xml"]
    again = {b.id: plain_text(b.source) for b in PPTX.read(edited).blocks}
    assert again["chart1/series2"] == "Region Süd"


def test_a_chart_whose_workbook_is_damaged_refuses_the_series_edit_naming_it() -> None:
    data = _deck()
    embedded = next(name for name in fx.entries(data) if name.startswith("ppt/embeddings/"))
    data = _without(data, embedded, b"PK\x03\x04 not a workbook")
    document = PPTX.read(data)  # the workbook is read only when a name is edited
    with pytest.raises(WriteRefused) as caught:
        PPTX.write(_edit(document, {"chart1/series2": "Region Süd"}))
    assert embedded in str(caught.value) and caught.value.capability == "embedded"
    # the title does not come from the workbook: it edits
    edited = PPTX.write(_edit(document, {"chart1/title/p1": "Umsatz"}))
    assert fx.changed_entries(data, edited) == ["ppt/charts/chart1.xml"]


# --- XLSX: a workbook composed by hand (a sheet's chart and a chart sheet) ----------------------


def test_a_workbooks_charts_follow_their_sheets_and_a_referenced_name_is_its_cell() -> None:
    data = fx.xlsx_with_chart()
    document = XLSX.read(data)
    assert XLSX.write(document) == data
    charts = [
        (b.id, b.role, b.translatable, b.properties.get("source", ""))
        for b in document.blocks
        if "chart" in b.id
    ]
    assert charts == [
        ("Sheet1!chart1/title/p1", "chart-title", True, ""),
        ("Sheet1!chart1/series1", "series-name", True, ""),
        ("Sheet1!chart1/series1/label2/p1", "data-label", True, ""),
        ("Sheet1!chart1/series2", "series-name", False, "Sheet1!C1"),
        ("Sheet1!chart1/axis2/title/p1", "axis-title", True, ""),
        ("Overview!chart2/title/p1", "chart-title", True, ""),
        ("Overview!chart2/series1", "series-name", False, "Sheet1!A1"),
    ]
    with pytest.raises(WriteRefused) as caught:
        XLSX.write(_edit(document, {"Overview!chart2/series1": "Gebiet"}))
    assert caught.value.capability == "editable" and "cell Sheet1!A1" in str(caught.value)


def test_a_cell_a_chart_names_updates_its_cache_and_set_back_gives_the_bytes() -> None:
    openpyxl = pytest.importorskip("openpyxl")
    data = fx.xlsx_with_chart()
    edited = XLSX.write(
        _edit(XLSX.read(data), {"Sheet1!C1": "Kosten <netto>", "Sheet1!A1": "Gebiet"})
    )
    assert fx.changed_entries(data, edited) == [
        "xl/worksheets/sheet1.xml",
        "xl/sharedStrings.xml",
        "xl/charts/chart1.xml",
        "xl/charts/chart2.xml",
    ]
    chart = fx.entries(edited)["xl/charts/chart1.xml"].decode()
    assert chart == fx.entries(data)["xl/charts/chart1.xml"].decode().replace(
        "<c:v>Costs &amp; fees</c:v>", "<c:v>Kosten &lt;netto&gt;</c:v>"
    )
    assert "<c:v>Gebiet</c:v>" in fx.entries(edited)["xl/charts/chart2.xml"].decode()
    again = {b.id: plain_text(b.source) for b in XLSX.read(edited).blocks}
    assert again["Sheet1!chart1/series2"] == "Kosten <netto>" == again["Sheet1!C1"]
    assert again["Sheet1!C4"] == "Costs & fees"  # the other cell keeps the shared string
    sheet = openpyxl.load_workbook(io.BytesIO(edited))["Sheet1"]
    assert (sheet["A1"].value, sheet["C1"].value, sheet["C4"].value) == (
        "Gebiet",
        "Kosten <netto>",
        "Costs & fees",
    )
    restored = XLSX.write(
        _edit(XLSX.read(edited), {"Sheet1!C1": "Costs & fees", "Sheet1!A1": "Region"})
    )
    assert restored == data


def test_a_chart_name_written_out_and_a_title_edit_in_the_chart_part_only() -> None:
    data = fx.xlsx_with_chart()
    document = XLSX.read(data)
    edited = XLSX.write(
        _edit(
            document, {"Sheet1!chart1/series1": "Umsatz", "Overview!chart2/title/p1": "Übersicht"}
        )
    )
    assert fx.changed_entries(data, edited) == ["xl/charts/chart1.xml", "xl/charts/chart2.xml"]
    originals = {b.id: b.source for b in document.blocks}
    assert XLSX.write(_edit(XLSX.read(edited), originals)) == data  # type: ignore[arg-type]


def test_a_sheet_drawing_missing_from_the_workbook_leaves_its_charts_out() -> None:
    data = fx.xlsx_with_chart(drawing=False)
    document = XLSX.read(data)
    ids = [b.id for b in document.blocks]
    assert "Sheet1!C1" in ids and not any(i.startswith("Sheet1!chart") for i in ids)
    assert "Overview!chart2/title/p1" in ids
    edited = XLSX.write(_edit(document, {"Sheet1!A4": "Notiz"}))
    assert fx.changed_entries(data, edited) == ["xl/sharedStrings.xml"]


def test_kapi_apply_edits_a_chart_and_refuses_a_name_that_is_a_cell(tmp_path: Path) -> None:
    import json

    book = tmp_path / "sales.xlsx"
    book.write_bytes(fx.xlsx_with_chart())
    kapi = Path(sys.executable).with_name("kapi")
    env = {
        "PATH": "/usr/bin:/bin",
        "KAPI_NO_PROJECT": "1",
        "HOME": str(tmp_path),
        "KAPI_ACTOR": "person",
    }

    def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(kapi), *args],
            cwd=tmp_path,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )

    records = {r["ref"]["block"]: r for r in json.loads(run("inspect", "sales.xlsx").stdout)}
    title = records["Sheet1!chart1/title/p1"]
    series = records["Sheet1!chart1/series2"]

    def op(record: dict, text: str) -> dict:  # type: ignore[type-arg]
        return {
            "op": "replace_text",
            "at": record["ref"],
            "if_match": record["rev"],
            "edits": [{"find": record["text"], "text": text}],
        }

    refused = run("apply", "--json", "-", stdin=json.dumps({"ops": [op(series, "Kosten")]}))
    assert refused.returncode in (2, 3), refused.stderr
    assert "Traceback" not in refused.stderr
    assert book.read_bytes() == fx.xlsx_with_chart()
    applied = run(
        "apply", "--json", "-", stdin=json.dumps({"ops": [op(title, "Umsatz nach Region")]})
    )
    assert applied.returncode == 0, applied.stderr + applied.stdout
    after = {r["ref"]["block"]: r["text"] for r in json.loads(run("inspect", "sales.xlsx").stdout)}
    assert after["Sheet1!chart1/title/p1"] == "Umsatz nach Region"


# --- XLSX: a chart openpyxl makes, saved again by LibreOffice (which caches the names) ----------


def _workbook_with_chart() -> bytes:
    openpyxl = pytest.importorskip("openpyxl")
    from openpyxl.chart import BarChart, Reference

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Sales"
    for row in [("Region", "Revenue", "Costs"), ("North", 120, 80), ("South", 90, 70)]:
        sheet.append(row)
    chart = BarChart()
    chart.title = "Revenue by region"
    chart.y_axis.title = "Euros"
    chart.add_data(
        Reference(sheet, min_col=2, min_row=1, max_col=3, max_row=3), titles_from_data=True
    )
    chart.set_categories(Reference(sheet, min_col=1, min_row=2, max_row=3))
    sheet.add_chart(chart, "E2")
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def test_an_openpyxl_chart_title_is_a_block_named_after_its_sheet() -> None:
    data = _workbook_with_chart()
    document = XLSX.read(data)
    charts = {b.id: (b.role, plain_text(b.source)) for b in document.blocks if "chart" in b.id}
    assert charts == {
        "Sales!chart1/title/p1": ("chart-title", "Revenue by region"),
        "Sales!chart1/axis2/title/p1": ("axis-title", "Euros"),
    }
    assert XLSX.write(document) == data
    edited = XLSX.write(_edit(document, {"Sales!chart1/title/p1": "Umsatz nach Region"}))
    assert fx.changed_entries(data, edited) == ["xl/charts/chart1.xml"]


@pytest.fixture(scope="module")
def libreoffice_workbook(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    if shutil.which("soffice") is None:
        pytest.skip("LibreOffice is not installed")
    folder = tmp_path_factory.mktemp("lo")
    source = folder / "made.xlsx"
    source.write_bytes(_workbook_with_chart())
    subprocess.run(
        [
            "soffice",
            f"-env:UserInstallation=file://{folder / 'profile'}",
            "--headless",
            "--convert-to",
            "xlsx",
            "--outdir",
            str(folder / "out"),
            str(source),
        ],
        capture_output=True,
        timeout=240,
        check=True,
    )
    return (folder / "out" / "made.xlsx").read_bytes()


def _cache(data: bytes, formula: str) -> str:
    chart = fx.entries(data)["xl/charts/chart1.xml"].decode()
    found = re.search(re.escape(formula) + r"</c:f><c:strCache>.*?<c:v>(.*?)</c:v>", chart)
    assert found is not None
    return found.group(1)


def test_a_series_name_in_a_workbook_is_its_cell_and_follows_the_cells_edits(
    libreoffice_workbook: bytes,
) -> None:
    openpyxl = pytest.importorskip("openpyxl")
    data = libreoffice_workbook
    document = XLSX.read(data)
    by_id = {b.id: b for b in document.blocks}
    series = by_id["Sales!chart1/series1"]
    assert (series.translatable, series.role, plain_text(series.source)) == (
        False,
        "series-name",
        "Revenue",
    )
    assert series.properties["source"] == "Sales!B1"
    with pytest.raises(WriteRefused) as caught:
        XLSX.write(_edit(document, {"Sales!chart1/series1": "Umsatz"}))
    assert "Sales!B1" in str(caught.value)

    edited = XLSX.write(_edit(document, {"Sales!B1": "Umsatz", "Sales!chart1/title/p1": "Umsatz"}))
    assert _cache(edited, "Sales!B1") == "Umsatz"
    assert _cache(edited, "Sales!C1") == "Costs"
    again = {b.id: plain_text(b.source) for b in XLSX.read(edited).blocks}
    assert again["Sales!chart1/series1"] == "Umsatz" == again["Sales!B1"]
    book = openpyxl.load_workbook(io.BytesIO(edited))
    assert [cell.value for cell in book["Sales"][1]][:3] == ["Region", "Umsatz", "Costs"]
    restored = XLSX.write(
        _edit(
            XLSX.read(edited), {"Sales!B1": "Revenue", "Sales!chart1/title/p1": "Revenue by region"}
        )
    )
    assert fx.changed_entries(data, restored) == []
    assert restored == data


@NO_SOFFICE
def test_libreoffice_opens_every_edited_chart(tmp_path: Path, libreoffice_workbook: bytes) -> None:
    files = []
    word = DOCX.read(fx.docx_with_chart(fx.chart_xml()))
    files.append(
        (
            "report.docx",
            DOCX.write(_edit(word, {f"{CHART}#series1": "Umsatz", f"{CHART}#title/p1": "Titel"})),
        )
    )
    deck = PPTX.read(_deck())
    files.append(
        (
            "deck.pptx",
            PPTX.write(_edit(deck, {"chart1/series2": "Süd", "chart1/title/p1": "Titel"})),
        )
    )
    book = XLSX.read(libreoffice_workbook)
    files.append(
        (
            "book.xlsx",
            XLSX.write(_edit(book, {"Sales!C1": "Kosten", "Sales!chart1/title/p1": "Titel"})),
        )
    )
    paths = []
    for name, content in files:
        path = tmp_path / name
        path.write_bytes(content)
        with zipfile.ZipFile(path) as archive:
            assert archive.testzip() is None
        paths.append(path)
    _pdf(tmp_path, *paths)
