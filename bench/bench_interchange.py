"""Figures: ``kapi extract`` and ``kapi merge`` of a 10,000-unit JSON catalogue, and the merge
of a DOCX with 500 paragraphs.

Run: .venv/bin/python bench/bench_interchange.py   (--units N, default 10000; --paragraphs N,
default 500)

One cold process each, in a temporary project. The catalogue's French file holds
every key: the extract to XLIFF 2.0, then, every target changed as a translator
would, the merge through the change service. The DOCX (made with python-docx,
every third paragraph with a bold run) has no French file yet: the merge starts
it and lands every paragraph. Figures are printed, never asserted; the load
average is printed with them.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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
    started = time.perf_counter()
    done = subprocess.run([KAPI, *args], cwd=root, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"kapi {args[0]} failed ({done.returncode}): {done.stderr[-2000:]}")
    return elapsed


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
    parser.add_argument("--paragraphs", type=int, default=500)
    arguments = parser.parse_args()
    units = arguments.units
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "locales").mkdir()
        (root / "kapi.yaml").write_text(RECIPE, encoding="utf-8")
        source = {f"key{i}": f"Hello {{{{name}}}}, item {i} is ready" for i in range(units)}
        french = {f"key{i}": f"Bonjour {{{{name}}}}, article {i}" for i in range(units)}
        (root / "locales/en.json").write_text(json.dumps(source, indent=2), encoding="utf-8")
        (root / "locales/fr.json").write_text(json.dumps(french, indent=2), encoding="utf-8")
        extract = _timed(root, "extract", "--to", "fr", "-o", "fr.xlf")
        xliff = root / "fr.xlf"
        xliff.write_text(
            re.sub(r"<target>Bonjour", "<target>Salut", xliff.read_text(encoding="utf-8")),
            encoding="utf-8",
        )
        merge = _timed(root, "merge", "fr.xlf")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"units {units}: extract {extract:.2f} s, merge {merge:.2f} s (load {load:.2f})")
    docx_extract, docx_merged = docx_merge(arguments.paragraphs)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"docx {arguments.paragraphs} paragraphs: extract {docx_extract:.2f} s, "
        f"merge {docx_merged:.2f} s (load {load:.2f})"
    )


if __name__ == "__main__":
    main()
