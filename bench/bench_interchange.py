"""Figures: ``kapi extract`` and ``kapi merge`` of a 10,000-unit JSON catalogue, and the merge
of a DOCX with 500 paragraphs.

Run: .venv/bin/python bench/bench_interchange.py   (--units N, default 10000; --runs N, default 3;
--paragraphs N, default 500)

Cold processes (median of ``--runs``), in a temporary project whose French file holds every
key: the extract to XLIFF 2.0, then, every target changed as a translator would, the merge
through the change service. Beside them, translate-toolkit's converters doing the same work
through PO: ``json2po -t en.json fr.json`` (the catalogue and its translations to PO) and
``po2json -t en.json fr.po`` (the returned PO back to JSON); they write a new file and check
no revision, so they are a floor, not a rival. The DOCX (made with python-docx, every third
paragraph with a bold run) has no French file yet: the merge starts it and lands every
paragraph. Figures are printed, never asserted; the load
average is printed with them.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import figures

KAPI = str(Path(sys.executable).with_name("kapi"))
RECIPE = """version: v1
id: prj_benchinterchange00000000000
name: bench
defaults:
  source_language: en
  target_languages: [fr]
collections:
  - name: ui
    content:
      - path: locales/en.json
        target: locales/{lang}.json
"""


def _timed(root: Path, *args: str) -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KAPI_", "CLAUDE", "CODEX"))}
    command = args if "/" in args[0] else (KAPI, *args)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(
            f"{' '.join(command[:2])} failed ({done.returncode}): {done.stderr[-2000:]}"
        )
    return elapsed


def _toolkit(root: Path, runs: int) -> tuple[float, float] | None:
    """Medians of json2po and po2json on the project's files, or None without them."""
    json2po = shutil.which("json2po", path=str(Path(sys.executable).parent))
    po2json = shutil.which("po2json", path=str(Path(sys.executable).parent))
    if not (json2po and po2json):
        return None
    forth = [
        _timed(root, json2po, "-t", "locales/en.json", "locales/fr.json", "fr.po")
        for _ in range(runs)
    ]
    po = root / "fr.po"
    po.write_text(re.sub(r'msgstr "Bonjour', 'msgstr "Salut', po.read_text(encoding="utf-8")))
    back = [
        _timed(root, po2json, "-t", "locales/en.json", "fr.po", "fr-back.json") for _ in range(runs)
    ]
    if "Salut" not in (root / "fr-back.json").read_text(encoding="utf-8"):
        raise SystemExit("po2json wrote no changed target")
    return statistics.median(forth), statistics.median(back)


DOCX_RECIPE = RECIPE.replace(
    "      - path: locales/en.json\n        target: locales/{lang}.json\n",
    "      - path: docs/report.docx\n        target: docs/report.{lang}.docx\n",
)


def docx_merge(paragraphs: int) -> tuple[float, float]:
    """Extract and merge wall times of a DOCX with ``paragraphs`` paragraphs."""
    import docx

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "docs").mkdir()
        (root / "kapi.yaml").write_text(DOCX_RECIPE, encoding="utf-8")
        document = docx.Document()
        for number in range(paragraphs):
            paragraph = document.add_paragraph(f"Paragraph {number} tells the reader ")
            paragraph.add_run("what changed" if number % 3 == 0 else "why it matters").bold = (
                number % 3 == 0
            )
            paragraph.add_run(" in this release.")
        document.save(str(root / "docs/report.docx"))
        extract = _timed(root, "extract", "--to", "fr", "-o", "fr.xlf")
        xliff = root / "fr.xlf"
        xliff.write_text(
            re.sub(
                r"<source>(.*?)</source>",
                lambda m: f"<source>{m.group(1)}</source><target>FR {m.group(1)}</target>",
                xliff.read_text(encoding="utf-8"),
            ),
            encoding="utf-8",
        )
        merge = _timed(root, "merge", "fr.xlf")
        if not (root / "docs/report.fr.docx").exists():
            raise SystemExit("the merge wrote no French DOCX")
    return extract, merge


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--units", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--paragraphs", type=int, default=500)
    figures.add_json_option(parser)
    args = parser.parse_args()
    figures.written_on_exit(args.json)
    units = args.units
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "locales").mkdir()
        (root / "kapi.yaml").write_text(RECIPE, encoding="utf-8")
        source = {f"key{i}": f"Hello {{{{name}}}}, item {i} is ready" for i in range(units)}
        french = {f"key{i}": f"Bonjour {{{{name}}}}, article {i}" for i in range(units)}
        (root / "locales/en.json").write_text(json.dumps(source, indent=2), encoding="utf-8")
        french_bytes = json.dumps(french, indent=2).encode()
        (root / "locales/fr.json").write_bytes(french_bytes)
        toolkit = _toolkit(root, args.runs)
        extract = statistics.median(
            _timed(root, "extract", "--to", "fr", "-o", "fr.xlf") for _ in range(args.runs)
        )
        xliff = root / "fr.xlf"
        xliff.write_text(
            re.sub(r"<target>Bonjour", "<target>Salut", xliff.read_text(encoding="utf-8")),
            encoding="utf-8",
        )
        merges = []
        for _ in range(args.runs):
            (root / "locales/fr.json").write_bytes(french_bytes)
            merges.append(_timed(root, "merge", "fr.xlf"))
        merge = statistics.median(merges)
        if "Salut" not in (root / "locales/fr.json").read_text(encoding="utf-8"):
            raise SystemExit("kapi merge landed no changed target")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"units {units}: extract {extract:.2f} s, merge {merge:.2f} s (load {load:.2f})")
    docx_extract, docx_merged = docx_merge(args.paragraphs)
    print(
        f"docx {args.paragraphs} paragraphs: extract {docx_extract:.2f} s, "
        f"merge {docx_merged:.2f} s"
    )
    figures.record(f"kapi extract (DOCX, {args.paragraphs} paragraphs)", docx_extract)
    figures.record(f"kapi merge (DOCX, {args.paragraphs} paragraphs)", docx_merged)
    if toolkit is None:
        print("  translate-toolkit's json2po/po2json are not installed: no anchors")
        figures.record(f"kapi extract ({units:,} units)", extract)
        figures.record(f"kapi merge ({units:,} units)", merge)
        return
    forth, back = toolkit
    print(
        f"  json2po -t {forth:.2f} s (kapi extract {extract / forth:.2f}x), "
        f"po2json -t {back:.2f} s (kapi merge {merge / back:.2f}x)"
    )
    figures.record(f"kapi extract ({units:,} units)", extract, "json2po -t", forth)
    figures.record(f"kapi merge ({units:,} units)", merge, "po2json -t", back)


if __name__ == "__main__":
    main()
