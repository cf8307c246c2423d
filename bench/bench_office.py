"""K4 figures: inspecting and editing a 200-page DOCX and a 50,000-cell XLSX.

Run: .venv/bin/python bench/bench_office.py   (about a minute; inputs are generated in a temp folder)

Each figure is measured in a fresh interpreter, so peak memory is the process's
peak resident size (``ru_maxrss``) above its resident size after imports; that counts
libxml2's memory behind python-docx and openpyxl, which ``tracemalloc`` does not
see. Times are the best of three runs. ``inspect`` is reading the file into
blocks; ``apply 1`` reads, changes one sentence and writes the file back;
``apply all`` pseudo-translates every block and writes. The anchors are
python-docx ``Document()`` and openpyxl ``load_workbook()`` merely loading the
same file (no save). Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import figures

WORDS = [
    "account", "settings", "profile", "welcome", "back", "save", "changes", "cancel",
    "delete", "the", "your", "file", "folder", "message", "error", "network", "please",
    "try", "again", "later", "search", "results", "for", "order", "shipped", "payment",
    "failed", "invoice", "download", "upload", "share", "invite", "team", "member",
]  # fmt: skip


def sentence(rng: random.Random, low: int = 6, high: int = 18) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(low, high))]
    words[0] = words[0].capitalize()
    return " ".join(words) + "."


def make_docx(path: Path, pages: int = 200) -> None:
    """About ``pages`` pages: headings, formatted body paragraphs, lists and tables."""
    import docx

    rng = random.Random(4)
    document = docx.Document()
    for page in range(pages):
        document.add_heading(f"Section {page + 1}: {sentence(rng, 2, 5)}", level=1 + page % 3)
        for _ in range(6):
            paragraph = document.add_paragraph(sentence(rng) + " ")
            paragraph.add_run(sentence(rng, 2, 4)).bold = True
            paragraph.add_run(" " + sentence(rng) + " ")
            paragraph.add_run(sentence(rng, 1, 3)).italic = True
            paragraph.add_run(" " + sentence(rng))
        document.add_paragraph(sentence(rng, 3, 6), style="List Bullet")
        document.add_paragraph(sentence(rng, 3, 6), style="List Bullet")
        if page % 10 == 0:
            table = document.add_table(rows=3, cols=3)
            for cell in table._cells:
                cell.text = sentence(rng, 1, 3)
    document.save(str(path))


def make_xlsx(path: Path, rows: int = 5000, columns: int = 10) -> None:
    """50,000 cells the way Excel writes them: shared strings, numbers, formulas."""
    rng = random.Random(5)
    strings: list[str] = []
    index: dict[str, int] = {}
    references = 0
    body: list[str] = []
    for row in range(1, rows + 1):
        cells = []
        for column in range(columns):
            ref = f"{chr(65 + column)}{row}"
            if column < 5:
                text = sentence(rng, 1, 6) if column else f"Item {rng.randint(1, 400)}"
                if text not in index:
                    index[text] = len(strings)
                    strings.append(text)
                references += 1
                cells.append(f'<c r="{ref}" t="s"><v>{index[text]}</v></c>')
            elif column == 9:
                cells.append(f'<c r="{ref}"><f>SUM(F{row}:I{row})</f><v>0</v></c>')
            else:
                cells.append(f'<c r="{ref}"><v>{rng.randint(0, 10_000) / 100}</v></c>')
        body.append(f'<row r="{row}">{"".join(cells)}</row>')
    ns = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    decl = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    parts = {
        "[Content_Types].xml": decl
        + '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
        '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
        '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>'
        "</Types>",
        "_rels/.rels": decl
        + '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        f'<Relationship Id="rId1" Type="{rel}/officeDocument" Target="xl/workbook.xml"/></Relationships>',
        "xl/workbook.xml": decl + f'<workbook xmlns="{ns}" xmlns:r="{rel}"><sheets>'
        '<sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>',
        "xl/_rels/workbook.xml.rels": decl
        + '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        f'<Relationship Id="rId1" Type="{rel}/worksheet" Target="worksheets/sheet1.xml"/>'
        f'<Relationship Id="rId2" Type="{rel}/sharedStrings" Target="sharedStrings.xml"/>'
        "</Relationships>",
        "xl/worksheets/sheet1.xml": decl
        + f'<worksheet xmlns="{ns}"><sheetData>{"".join(body)}</sheetData></worksheet>',
        "xl/sharedStrings.xml": decl
        + f'<sst xmlns="{ns}" count="{references}" uniqueCount="{len(strings)}">'
        + "".join(f"<si><t>{text}</t></si>" for text in strings)
        + "</sst>",
    }
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in parts.items():
            archive.writestr(name, content)


# --- one measurement per interpreter ----------------------------------------------------


def _task(kind: str, path: Path) -> None:
    if kind.startswith("kapi"):
        from attrs import evolve

        from kapi.core.model import Text
        from kapi.formats.registry import load_codec

        codec = load_codec(path.suffix.lstrip("."))
        data = path.read_bytes()
        document = codec.read(data, path=str(path))
        if kind == "kapi-apply-1":
            block = next(b for b in document.blocks if b.translatable)
            index = next(i for i, run in enumerate(block.source) if isinstance(run, Text))
            first = block.source[index]
            assert isinstance(first, Text)
            runs = (
                *block.source[:index],
                evolve(first, text="Edited " + first.text),
                *block.source[index + 1 :],
            )
            codec.write(
                document.with_blocks(
                    tuple(b.with_source(runs) if b.id == block.id else b for b in document.blocks)
                )
            )
        elif kind == "kapi-apply-all":
            table = str.maketrans("aeiou", "\u00e5\u00e9\u00ee\u00f8\u00fc")
            blocks = tuple(
                b.with_source(
                    tuple(
                        evolve(r, text=r.text.translate(table)) if isinstance(r, Text) else r
                        for r in b.source
                    )
                )
                if b.translatable
                else b
                for b in document.blocks
            )
            codec.write(document.with_blocks(blocks))
    elif kind == "python-docx":
        import docx

        docx.Document(str(path))
    elif kind == "openpyxl":
        import openpyxl

        openpyxl.load_workbook(str(path))
    else:
        raise SystemExit(f"unknown task {kind}")


def _current_rss_kb() -> int:
    """The resident size now (Linux), to compare with the peak ``ru_maxrss`` reports."""
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[1])
    return pages * resource.getpagesize() // 1024


def _measure(kind: str, path: Path) -> None:
    # Import what the task needs first, so the baseline excludes module loading.
    if kind.startswith("kapi"):
        import kapi.formats.office.docx
        import kapi.formats.office.pptx
        import kapi.formats.office.xlsx  # noqa: F401
    elif kind == "python-docx":
        import docx  # noqa: F401
    else:
        import openpyxl  # noqa: F401
    gc.collect()
    baseline = _current_rss_kb()
    start = time.perf_counter()
    _task(kind, path)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - baseline
    print(json.dumps({"seconds": seconds, "peak_kb": peak}))


def run(kind: str, path: Path, repeat: int = 3) -> tuple[float, float]:
    """Best time of ``repeat`` fresh runs and the largest peak memory (MiB) among them."""
    best, peak = float("inf"), 0.0
    for _ in range(repeat):
        result = subprocess.run(
            [sys.executable, __file__, "--measure", kind, str(path)],
            capture_output=True,
            text=True,
            check=True,
        )
        figures = json.loads(result.stdout.strip().splitlines()[-1])
        best = min(best, figures["seconds"])
        peak = max(peak, figures["peak_kb"] / 1024)
    return best, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="fresh runs per figure (best of)")
    parser.add_argument("--pages", type=int, default=200, help="pages of the DOCX (200)")
    parser.add_argument("--rows", type=int, default=5000, help="rows of 10 cells in the XLSX")
    figures.add_json_option(parser)
    args = parser.parse_args()
    figures.written_on_exit(args.json)
    with tempfile.TemporaryDirectory() as folder:
        docx_path = Path(folder) / "report.docx"
        xlsx_path = Path(folder) / "book.xlsx"
        make_docx(docx_path, args.pages)
        make_xlsx(xlsx_path, args.rows)
        import docx

        pages = docx.Document(str(docx_path))
        paragraphs = len(pages.paragraphs)
        sizes = {
            "docx": f"{docx_path.stat().st_size / 1024:.0f} KiB, {paragraphs} paragraphs",
            "xlsx": f"{xlsx_path.stat().st_size / 1024:.0f} KiB, {args.rows * 10:,} cells",
        }
        print(f"DOCX: {sizes['docx']} (about {args.pages} pages)")
        print(f"XLSX: {sizes['xlsx']} ({args.rows:,} rows x 10 columns)")
        print()
        print(
            f"{'file':6} {'operation':16} {'time s':>8} {'peak MiB':>9} {'x time':>7} {'x mem':>6}"
        )
        for path, anchor in ((docx_path, "python-docx"), (xlsx_path, "openpyxl")):
            anchor_time, anchor_memory = run(anchor, path, args.repeat)
            rows = [(f"{anchor} load", anchor_time, anchor_memory)]
            for kind, label in (
                ("kapi-inspect", "kapi inspect"),
                ("kapi-apply-1", "kapi apply 1"),
                ("kapi-apply-all", "kapi apply all"),
            ):
                seconds, memory = run(kind, path, args.repeat)
                rows.append((label, seconds, memory))
                figures.record(
                    f"{path.suffix[1:]}: {label}", seconds, f"{anchor} load", anchor_time
                )
            for label, seconds, memory in rows:
                print(
                    f"{path.suffix[1:]:6} {label:16} {seconds:8.3f} {memory:9.1f} "
                    f"{seconds / anchor_time:7.2f} {memory / max(anchor_memory, 0.1):6.2f}"
                )


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--measure":
        _measure(sys.argv[2], Path(sys.argv[3]))
    else:
        main()
