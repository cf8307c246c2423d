"""Office corpus: real .docx/.xlsx/.pptx files that other projects made, edited in place.

Sources (sdists pinned by sha256, never committed):

* python-docx 1.2.0 (MIT): 47 ``.docx``, mostly saved by Word;
* python-pptx 1.0.2 (MIT): 69 ``.pptx``/``.pptm`` (PowerPoint-made, with
  charts, tables, notes, masters) and one embedded ``.docx`` and ``.xlsx``;
* xlrd 1.2.0 (BSD): 11 ``.xlsx`` from Excel, Google Sheets and Apache POI
  (one with backslash entry names);
* tablib 3.7.0 (MIT): 4 ``.xlsx``;
* and, when LibreOffice is installed, files LibreOffice itself writes from
  inputs made here (HTML -> .docx, CSV -> .xlsx, a corpus deck -> .pptx).

Per file: (1) a no-op write gives the identical bytes; (2) pseudo-translating
every block, writing and re-reading gives the pseudo text with the same codes
(compared by id, type and sub_type: a drawing's markup holds a text box's text,
which the pseudo-translation changes too); (3) a one-word edit is read back,
changes only the part holding that text (plus a re-pointed sheet for a
shared string), and every other entry keeps its bytes; (4) the edited files
convert to PDF with LibreOffice (one batch per format; skipped without it).

Charts (the DOCX and the 20 decks that hold some): every chart block gets a
word before its text, the edits are read back (python-pptx reads the series
names too), only the chart parts and embedded workbooks change, LibreOffice
converts the edited files, and setting the blocks back leaves every part (and
every part of an embedded workbook) holding the bytes it held. The same runs on
what LibreOffice writes from a corpus deck, the corpus document with a chart,
and a workbook openpyxl charts (whose series names are cells: a cell's edit
reaches the chart's cache).
"""

from __future__ import annotations

import io
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from attrs import evolve

from kapi.core.format import FormatCodec
from kapi.core.model import Document, Runs, Text, plain_text
from kapi.formats.office.docx import DocxFormat
from kapi.formats.office.pptx import PptxFormat
from kapi.formats.office.xlsx import XlsxFormat
from tests.corpus.faithful import map_text, pseudo_text
from tests.corpus.fetch import Source, unpacked

pytestmark = pytest.mark.corpus

PYTHON_DOCX = Source(
    registry="pypi",
    name="python-docx",
    version="1.2.0",
    sha256="7bc9d7b7d8a69c9c02ca09216118c86552704edc23bac179283f2e38f86220ce",
    filename="python_docx-1.2.0.tar.gz",
    binary=False,
)
PYTHON_PPTX = Source(
    registry="pypi",
    name="python-pptx",
    version="1.0.2",
    sha256="479a8af0eaf0f0d76b6f00b0887732874ad2e3188230315290cd1f9dd9cc7095",
    filename="python_pptx-1.0.2.tar.gz",
    binary=False,
)
XLRD = Source(
    registry="pypi",
    name="xlrd",
    version="1.2.0",
    sha256="546eb36cee8db40c3eaa46c351e67ffee6eeb5fa2650b71bc4c758a29a1b29b2",
    filename="xlrd-1.2.0.tar.gz",
    binary=False,
)
TABLIB = Source(
    registry="pypi",
    name="tablib",
    version="3.7.0",
    sha256="f9db84ed398df5109bd69c11d46613d16cc572fb9ad3213f10d95e2b5f12c18e",
    filename="tablib-3.7.0.tar.gz",
    binary=False,
)

CODECS: dict[str, FormatCodec] = {"docx": DocxFormat(), "xlsx": XlsxFormat(), "pptx": PptxFormat()}
SUFFIXES = {"docx": (".docx",), "xlsx": (".xlsx",), "pptx": (".pptx", ".pptm")}
EXPECTED = {"docx": 48, "xlsx": 16, "pptx": 69}


# Files the PDF check leaves out, with the reason (the other checks still run on them).
NO_PDF = {
    "apachepoi_49609.xlsx": "LibreOffice 7.4 cannot load the original (backslash entry names)",
    "issue150.xlsx": "LibreOffice 7.4 cannot load the original",
    "err_cell_empty.xlsx": "converting its 12,781 cells to PDF takes minutes",
}


def corpus(kind: str) -> list[Path]:
    files: list[Path] = []
    for source in (PYTHON_DOCX, PYTHON_PPTX, XLRD, TABLIB):
        tree = unpacked(source)
        files += sorted(p for p in tree.rglob("*") if p.suffix in SUFFIXES[kind])
    return files


def _entries(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def _code_shape(runs: Runs) -> list[tuple[str, str, str, str]]:
    return [
        (
            type(run).__name__,
            getattr(run, "id", ""),
            getattr(run, "type", ""),
            getattr(run, "sub_type", ""),
        )
        for run in runs
        if not isinstance(run, Text)
    ]


def _texts(runs: Runs) -> list[str]:
    return [run.text for run in runs if isinstance(run, Text)]


def check_file(kind: str, data: bytes, path: str) -> tuple[int, bytes | None]:
    """The per-file assertions; returns the block count and a one-word-edited copy."""
    codec = CODECS[kind]
    document = codec.read(data, path=path)
    # 1. no-op
    assert codec.write(document) == data, f"{path}: no-op write changed bytes"

    # 2. pseudo-translation keeps every code
    editable = [b for b in document.blocks if b.translatable]
    pseudo = document.with_blocks(
        tuple(
            b.with_source(map_text(b.source, pseudo_text)) if b.translatable else b
            for b in document.blocks
        )
    )
    written = codec.write(pseudo)
    assert list(_entries(written)) == list(_entries(data)), f"{path}: entry list changed"
    again = {b.id: b for b in codec.read(written, path=path).blocks}
    for block in editable:
        got = again.get(block.id)
        assert got is not None, f"{path}: block {block.id} lost"
        want = map_text(block.source, pseudo_text)
        assert "".join(_texts(got.source)) == "".join(_texts(want)), f"{path}: {block.id} text"
        assert _code_shape(got.source) == _code_shape(want), f"{path}: {block.id} codes"

    # 3. one-word edit
    target = next((b for b in editable if any(t.strip() for t in _texts(b.source))), None)
    if target is None:
        return len(document.blocks), None
    index = next(i for i, r in enumerate(target.source) if isinstance(r, Text) and r.text.strip())
    first = target.source[index]
    assert isinstance(first, Text)
    edited_runs = (
        *target.source[:index],
        evolve(first, text="Kapiword " + first.text),
        *target.source[index + 1 :],
    )
    edited = _with_source(document, target.id, edited_runs)
    out = codec.write(edited)
    reread = {b.id: b for b in codec.read(out, path=path).blocks}
    assert plain_text(reread[target.id].source) == plain_text(edited_runs), (
        f"{path}: edit not read back"
    )
    before, after = _entries(data), _entries(out)
    assert list(before) == list(after)
    changed = {_part_name(name) for name in before if before[name] != after[name]}
    part = target.properties.get("part", "")
    if part:
        allowed = {_part_name(part)}
        if target.role == "series-name":  # a chart's series name is a cell of its own workbook too
            allowed |= {_part_name(n) for n in before if "/embeddings/" in _part_name(n)}
    else:  # a cell: its shared string, or its sheet (inline string, re-pointed shared string)
        allowed = {"xl/sharedstrings.xml"} | {
            _part_name(n) for n in before if _part_name(n).startswith("xl/worksheets/")
        }
    assert changed and changed <= allowed, f"{path}: edit changed {sorted(changed)}"
    for block in document.blocks:
        if block.id != target.id:
            assert plain_text(reread[block.id].source) == plain_text(block.source), (
                f"{path}: {block.id} moved"
            )
    return len(document.blocks), out


def _part_name(name: str) -> str:
    return name.replace("\\", "/").lower()


def _with_source(document: Document, block_id: str, runs: Runs) -> Document:
    return document.with_blocks(
        tuple(b.with_source(runs) if b.id == block_id else b for b in document.blocks)
    )


def _run_corpus(kind: str, files: list[Path], tmp_path: Path) -> list[Path]:
    failures: list[str] = []
    edited: list[Path] = []
    blocks = 0
    for number, path in enumerate(files):
        try:
            count, out = check_file(kind, path.read_bytes(), str(path))
        except AssertionError as err:
            failures.append(str(err))
            continue
        blocks += count
        if out is not None and path.name not in NO_PDF:
            target = tmp_path / f"{number:03d}-{path.name}"
            target.write_bytes(out)
            edited.append(target)
    print(f"{kind}: {len(files)} files, {blocks} blocks, {len(edited)} edited")
    assert not failures, "\n".join(failures[:10])
    return edited


@pytest.mark.parametrize("kind", ["docx", "xlsx", "pptx"])
def test_corpus_files_are_edited_faithfully(kind: str, tmp_path: Path) -> None:
    files = corpus(kind)
    assert len(files) == EXPECTED[kind], [p.name for p in files]
    edited = _run_corpus(kind, files, tmp_path)
    if shutil.which("soffice") is not None:
        convert_all(edited, tmp_path)


def convert_all(files: list[Path], folder: Path) -> None:
    """Convert every edited file to PDF in one LibreOffice run; each must give a PDF."""
    out = folder / "pdf"
    result = subprocess.run(
        [
            "soffice",
            f"-env:UserInstallation=file://{folder / 'profile'}",
            "--headless",
            "--convert-to",
            "pdf",
            "--outdir",
            str(out),
            *map(str, files),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    missing = [f.name for f in files if not (out / f.with_suffix(".pdf").name).exists()]
    assert not missing, f"LibreOffice made no PDF for {missing}"


HTML = """<html><body>
<h1>Annual report</h1>
<p>Sales <b>rose</b> by <i>ten</i> percent; see <a href="https://example.com/q4">the Q4 notes</a>.</p>
<ul><li>First point</li><li>Second point</li></ul>
<table><tr><td>Region</td><td>North</td></tr><tr><td>Total</td><td>42</td></tr></table>
<p>Caf\u00e9 &amp; cr\u00e8me, a tab\there.</p>
</body></html>
"""
CSV = "Name,Amount,Note\nAlice,10,First & best\nBob,20,Second\nCarol,30,=SUM(B2:B3)\n"


@pytest.mark.skipif(
    shutil.which("soffice") is None, reason="LibreOffice (soffice) is not installed"
)
def test_files_written_by_libreoffice_are_edited_faithfully(tmp_path: Path) -> None:
    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "report.html").write_text(HTML, encoding="utf-8")
    (inputs / "sheet.csv").write_text(CSV, encoding="utf-8")
    deck = next(p for p in unpacked(PYTHON_PPTX).rglob("test_slides.pptx"))
    shutil.copy(deck, inputs / "deck.pptx")
    made = tmp_path / "made"
    conversions = [
        ("docx:MS Word 2007 XML", inputs / "report.html"),
        ("xlsx:Calc MS Excel 2007 XML", inputs / "sheet.csv"),
        ("pptx:Impress MS PowerPoint 2007 XML", inputs / "deck.pptx"),
    ]
    for target, source in conversions:
        result = subprocess.run(
            [
                "soffice",
                f"-env:UserInstallation=file://{tmp_path / 'profile'}",
                "--headless",
                "--convert-to",
                target,
                "--outdir",
                str(made),
                str(source),
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 0, result.stderr
    edited: list[Path] = []
    for kind in ("docx", "xlsx", "pptx"):
        files = sorted(made.glob(f"*.{kind}"))
        assert files, f"LibreOffice wrote no .{kind}"
        for path in files:
            count, out = check_file(kind, path.read_bytes(), str(path))
            assert count > 0
            assert out is not None
            edited_path = tmp_path / f"edited-{path.name}"
            edited_path.write_bytes(out)
            edited.append(edited_path)
    convert_all(edited, tmp_path)


# --- chart text: every chart block of the corpus edited, read back, and set back ----------------

CHART_ROLES = frozenset({"chart-title", "axis-title", "series-name", "data-label"})


def check_charts(kind: str, data: bytes, path: str) -> tuple[int, bytes | None]:
    """Edit every chart block (a word put before its text), read the edits back, set them back.

    Returns the chart block count and the edited file. Set back, every part holds the
    bytes it held (an embedded workbook: every part of it).
    """
    codec = CODECS[kind]
    document = codec.read(data, path=path)
    charts = [b for b in document.blocks if b.role in CHART_ROLES]
    editable = {b.id for b in charts if b.translatable}
    if not editable:
        return len(charts), None

    def with_word(runs: Runs) -> Runs:
        index = next(i for i, r in enumerate(runs) if isinstance(r, Text) and r.text.strip())
        first = runs[index]
        assert isinstance(first, Text)
        return (*runs[:index], evolve(first, text="Kapiwort " + first.text), *runs[index + 1 :])

    edited = document.with_blocks(
        tuple(
            b.with_source(with_word(b.source)) if b.id in editable else b for b in document.blocks
        )
    )
    out = codec.write(edited)
    assert list(_entries(out)) == list(_entries(data)), f"{path}: entry list changed"
    again = {b.id: b for b in codec.read(out, path=path).blocks}
    for block in edited.blocks:
        assert plain_text(again[block.id].source) == plain_text(block.source), f"{path}: {block.id}"
    before, after = _entries(data), _entries(out)
    changed = {n for n in before if before[n] != after[n]}
    allowed = {b.properties["part"] for b in charts if b.id in editable}
    assert {n for n in changed if "/embeddings/" not in n} <= allowed, f"{path}: {sorted(changed)}"
    as_read = {b.id: b.source for b in document.blocks}
    reread = codec.read(out, path=path)
    restored = codec.write(
        reread.with_blocks(tuple(b.with_source(as_read[b.id]) for b in reread.blocks))
    )
    assert _parts_of(restored) == _parts_of(data), f"{path}: chart text set back differs"
    return len(charts), out


def _parts_of(data: bytes) -> list[tuple[str, object]]:
    """Every part's bytes, an embedded package's as its own parts' bytes.

    Compressed bytes depend on the compressor that wrote them, so a part set back
    is compared by what it holds (as the undo tier compares office files).
    """
    out: list[tuple[str, object]] = []
    for name, content in _entries(data).items():
        if name.endswith(".xlsx") and content.startswith(b"PK"):
            out.append((name, _parts_of(content)))
        else:
            out.append((name, content))
    return out


@pytest.mark.parametrize("kind", ["docx", "pptx"])
def test_corpus_charts_are_edited_and_set_back_byte_for_byte(kind: str, tmp_path: Path) -> None:
    files_with_charts = 0
    chart_blocks = 0
    identical = 0
    edited: list[Path] = []
    failures: list[str] = []
    for number, path in enumerate(corpus(kind)):
        data = path.read_bytes()
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            if not any("/charts/chart" in name for name in archive.namelist()):
                continue
        files_with_charts += 1
        try:
            count, out = check_charts(kind, data, str(path))
        except AssertionError as err:
            failures.append(str(err))
            continue
        chart_blocks += count
        if out is not None:
            identical += 1
            target = tmp_path / f"{number:03d}-{path.name}"
            target.write_bytes(out)
            edited.append(target)
    # the figures the tier reports
    print(
        f"charts {kind}: {files_with_charts} files with charts, {chart_blocks} chart blocks, "
        f"{identical} edited and set back with every part byte-identical"
    )
    assert not failures, "\n".join(failures[:10])
    assert files_with_charts and identical == files_with_charts
    if kind == "pptx":  # python-pptx reads every edited series name
        pptx = pytest.importorskip("pptx")
        for path in edited:
            names: set[str | None] = set()
            for slide in pptx.Presentation(str(path)).slides:
                for shape in slide.shapes:
                    if not getattr(shape, "has_chart", False):
                        continue
                    try:
                        names |= {s.name for plot in shape.chart.plots for s in plot.series}
                    except NotImplementedError:  # a chart type python-pptx does not read
                        names.add(None)
            if None in names:
                continue
            ours = {
                plain_text(b.source)
                for b in CODECS[kind].read(path.read_bytes()).blocks
                if b.role == "series-name"
            }
            assert ours <= names, f"{path.name}: {sorted(ours - names)}"
    if shutil.which("soffice") is not None:
        convert_all(edited, tmp_path)


@pytest.mark.skipif(
    shutil.which("soffice") is None, reason="LibreOffice (soffice) is not installed"
)
def test_charts_libreoffice_writes_are_edited_and_set_back(tmp_path: Path) -> None:
    """LibreOffice saves a corpus deck, the corpus document with a chart, and a workbook
    openpyxl charts; every chart block of what it writes edits and sets back."""
    openpyxl = pytest.importorskip("openpyxl")
    from openpyxl.chart import BarChart, Reference

    inputs = tmp_path / "in"
    inputs.mkdir()
    shutil.copy(next(unpacked(PYTHON_PPTX).rglob("cht-series.pptx")), inputs / "deck.pptx")
    shutil.copy(
        next(unpacked(PYTHON_DOCX).rglob("shp-inline-shape-access.docx")), inputs / "report.docx"
    )
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
    sheet.add_chart(chart, "E2")
    book.save(inputs / "sales.xlsx")
    made = tmp_path / "made"
    for target, source in (
        ("pptx:Impress MS PowerPoint 2007 XML", "deck.pptx"),
        ("docx:MS Word 2007 XML", "report.docx"),
        ("xlsx:Calc MS Excel 2007 XML", "sales.xlsx"),
    ):
        result = subprocess.run(
            [
                "soffice",
                f"-env:UserInstallation=file://{tmp_path / 'profile'}",
                "--headless",
                "--convert-to",
                target,
                "--outdir",
                str(made),
                str(inputs / source),
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 0, result.stderr
    edited: list[Path] = []
    for path in sorted(made.iterdir()):
        kind = path.suffix[1:]
        count, out = check_charts(kind, path.read_bytes(), str(path))
        assert count > 0 and out is not None, path.name
        target = tmp_path / f"edited-{path.name}"
        target.write_bytes(out)
        edited.append(target)
    # the workbook's series names are its cells: a cell's edit reaches the chart's cache
    workbook = made / "sales.xlsx"
    codec = CODECS["xlsx"]
    document = codec.read(workbook.read_bytes())
    out = codec.write(_with_source(document, "Sales!B1", (Text("Umsatz"),)))
    again = {b.id: plain_text(b.source) for b in codec.read(out).blocks}
    assert again["Sales!chart1/series1"] == "Umsatz"
    edited_workbook = tmp_path / "edited-cell-sales.xlsx"
    edited_workbook.write_bytes(out)
    convert_all([*edited, edited_workbook], tmp_path)
