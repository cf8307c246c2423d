"""K14 figures: MyST and MDX read faithfully, and prose checks that stay out of code.

Run: .venv/bin/python bench/bench_prose_in_code.py   (a few minutes; needs the package
registries the first time: the corpus is fetched into the corpus cache, the tools into a temp
folder)

On the corpus tier's MyST pages (sphinx-book-theme 1.1.3's docs) and MDX pages
(@typescript-eslint/eslint-plugin 8.18.0's rule docs) it prints, per flavour: files, files
kapi reads, files that round-trip byte for byte, files whose every block edited and then set
back gives the file's bytes; then the findings of ``kapi check`` (forbidden terms that occur
in the files' code, JSX, front matter and URLs as well as in their prose), of textlint with
``textlint-rule-terminology`` holding the same terms, and of proselint (its built-in checks:
it takes no term list), each as a total and as the number inside code, JSX, front matter or
URLs, judged by ``tests/corpus/regions.py``. Figures are printed, never asserted.

textlint reads ``.md`` and ``.mdx`` with its Markdown plugin (it has no MyST or MDX one);
the tools are installed pinned, textlint with ``npm install --no-save`` into the temp
folder, proselint into a throwaway venv; kapi's venv is left alone.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kapi.core.format import FormatError  # noqa: E402
from kapi.formats.mdx import MdxFormat  # noqa: E402
from kapi.formats.myst import MystFormat  # noqa: E402
from tests.corpus.regions import code_regions, inside, offset_of  # noqa: E402
from tests.corpus.test_myst_mdx_corpus import (  # noqa: E402
    MDX_TERMS,
    MYST_TERMS,
    check_project,
    mdx_files,
    myst_files,
    restored_after_editing_every_block,
)

TEXTLINT = "textlint@15.8.0"
TERMINOLOGY = "textlint-rule-terminology@5.2.16"
PROSELINT = "proselint==0.16.0"


def faithful(codec: MystFormat | MdxFormat, files: list[Path]) -> dict[str, int]:
    counts = {"files": len(files), "read": 0, "round-trip": 0, "edit+restore": 0}
    for path in files:
        data = path.read_bytes()
        try:
            document = codec.read(data, path=path.name)
        except FormatError as err:
            print(f"  refused: {err}")
            continue
        counts["read"] += 1
        counts["round-trip"] += codec.write(document) == data
        counts["edit+restore"] += restored_after_editing_every_block(codec, data, path.name)
    return counts


def kapi_findings(work: Path, files: list[Path], flavour: str, terms: tuple[str, ...]):
    folder = work / f"kapi-{flavour}"
    folder.mkdir()
    texts, findings = check_project(folder, files, flavour, terms)
    codec = MystFormat() if flavour == "myst" else MdxFormat()
    contained: dict[str, set[str]] = {}  # file -> names of blocks inside a directive or JSX
    for name, text in texts.items():
        blocks = codec.read(text.encode("utf-8"), path=name).blocks
        contained[name] = {
            b.name
            for before, b in zip((None, *blocks), blocks)
            if "directive" in b.properties or (before is not None and before.role == "jsx")
        }
    spots = []
    in_containers = 0  # findings in prose a directive, admonition or JSX element holds
    for finding in findings:
        location = finding["location"]
        if not location.get("start"):
            continue
        in_containers += location.get("block", "") in contained[location["file"]]
        text = texts[location["file"]]
        start = offset_of(text, location["start"]["line"], location["start"]["column"])
        end = offset_of(text, location["end"]["line"], location["end"]["column"])
        spots.append((location["file"], start, end))
    by_name = {name: (folder / name) for name in texts}
    return spots, by_name, texts, in_containers


def install(work: Path) -> tuple[Path | None, Path | None]:
    textlint = proselint = None
    npm = shutil.which("npm")
    if npm:
        folder = work / "textlint"
        folder.mkdir()
        (folder / "package.json").write_text('{"private": true}\n')
        done = subprocess.run(
            [npm, "install", "--no-save", "--no-audit", "--no-fund", TEXTLINT, TERMINOLOGY],
            cwd=folder,
            capture_output=True,
            text=True,
        )
        if done.returncode == 0:
            textlint = folder / "node_modules" / ".bin" / "textlint"
        else:
            print(f"textlint not installed: {done.stderr[-300:]}")
    venv = work / "proselint-venv"
    done = subprocess.run([sys.executable, "-m", "venv", str(venv)], capture_output=True)
    if done.returncode == 0:
        done = subprocess.run(
            [str(venv / "bin" / "pip"), "install", "-q", "--disable-pip-version-check", PROSELINT],
            capture_output=True,
            text=True,
        )
    if done.returncode == 0:
        proselint = venv / "bin" / "proselint"
    else:
        print("proselint not installed")
    return textlint, proselint


def textlint_findings(textlint: Path, work: Path, paths: list[Path], terms: tuple[str, ...]):
    config = work / f"textlintrc-{len(terms)}-{terms[0]}.json"
    rules = {"terminology": {"defaultTerms": False, "terms": [[t, f"X-{t}"] for t in terms]}}
    plugins = {"@textlint/markdown": {"extensions": [".mdx"]}}
    config.write_text(json.dumps({"plugins": plugins, "rules": rules}))
    done = subprocess.run(
        [str(textlint), "-c", str(config), "-f", "json", *map(str, paths)],
        cwd=textlint.parents[2],
        capture_output=True,
        text=True,
    )
    spots = []
    for result in json.loads(done.stdout or "[]"):
        text = Path(result["filePath"]).read_text("utf-8")
        for message in result["messages"]:
            start = offset_of(text, message["line"], message["column"])
            fix = message.get("fix") or {}
            length = (fix["range"][1] - fix["range"][0]) if fix else 1
            spots.append((result["filePath"], start, start + length))
    return spots


def proselint_findings(proselint: Path, paths: list[Path]):
    spots = []
    for path in paths:
        done = subprocess.run(
            [str(proselint), "check", "-o", "json", str(path)], capture_output=True, text=True
        )
        try:
            result = json.loads(done.stdout)["result"]
        except (ValueError, KeyError):
            continue
        for entry in result.values():
            for diagnostic in entry.get("diagnostics", []):
                low, high = diagnostic["span"]
                spots.append((str(path), low - 1, high - 1))
    return spots


def inside_count(spots, texts: dict[str, str], flavour: str) -> int:
    regions = {name: code_regions(text, flavour) for name, text in texts.items()}
    return sum(inside(regions[name], start, end) for name, start, end in spots)


def main() -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="kapi-bench-prose-") as temp:
        work = Path(temp)
        textlint, proselint = install(work)
        for flavour, codec, files, terms in (
            ("myst", MystFormat(), myst_files(), MYST_TERMS),
            ("mdx", MdxFormat(), mdx_files(), MDX_TERMS),
        ):
            print(f"{flavour}: {len(files)} files")
            counts = faithful(codec, files)
            readable = [p for p in files if _reads(codec, p)]
            spots, copies, texts, in_containers = kapi_findings(work, readable, flavour, terms)
            by_copy = {str(copies[name]): texts[name] for name in texts}
            row = {"flavour": flavour, **counts}
            row["kapi"] = (len(spots), inside_count(spots, texts, flavour))
            row["in containers"] = in_containers
            paths = [copies[name] for name in texts]
            if textlint:
                found = textlint_findings(textlint, work, paths, terms)
                row["textlint"] = (len(found), inside_count(found, by_copy, flavour))
            if proselint:
                found = proselint_findings(proselint, paths)
                row["proselint"] = (len(found), inside_count(found, by_copy, flavour))
            rows.append(row)
    print()
    header = ["flavour", "files", "read", "round-trip", "edit+restore"]
    tools = ["kapi", "textlint", "proselint"]
    print(" | ".join(header + [f"{t} findings (inside code)" for t in tools]))
    for row in rows:
        cells = [str(row[key]) for key in header]
        for tool in tools:
            total, inner = row.get(tool, ("-", "-"))
            cells.append(f"{total} ({inner})")
        print(" | ".join(cells))
    for row in rows:
        print(
            f"{row['flavour']}: {row['in containers']} of kapi's findings are in prose inside a"
            " directive, admonition or JSX element (the first block after a JSX line counted)"
        )
    print(f"terms: myst {', '.join(MYST_TERMS)}; mdx {', '.join(MDX_TERMS)}")
    print(f"tools: {TEXTLINT} + {TERMINOLOGY}; {PROSELINT} (built-in checks, no term list)")


def _reads(codec: MystFormat | MdxFormat, path: Path) -> bool:
    try:
        codec.read(path.read_bytes(), path=path.name)
    except FormatError:
        return False
    return True


if __name__ == "__main__":
    main()
