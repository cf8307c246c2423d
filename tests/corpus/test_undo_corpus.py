"""Edit, then undo, on real third-party files inside a project: `git diff` is empty after.

Each format's corpus files (a sample spread over the sorted list) are laid into
one project and committed to a real git repository. For each file, one change
set replaces a word in up to three blocks through the real CLI, a second sets
each word back, and the repository must show no difference at all: the writer
spelled the restored text the way the file spelled it (wrapping, escapes,
shared strings). An office package is compared part by part: its ZIP bytes
depend on the compressor that wrote them.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.corpus import test_office_corpus as office
from tests.corpus.fetch import unpacked
from tests.corpus.test_android_corpus import resource_files
from tests.corpus.test_html_corpus import REVEAL, _pages
from tests.corpus.test_json_corpus import AIRFLOW, DOCUSAURUS, HOME_ASSISTANT, ZOD, catalogues
from tests.corpus.test_markdown_corpus import MARKDOWNLINT, _markdownlint_files
from tests.corpus.test_po_corpus import relative, sample
from tests.corpus.test_properties_corpus import viewer_files
from tests.corpus.test_strings_corpus import tables
from tests.corpus.test_xliff_corpus import wagtail_files, weblate_files
from tests.corpus.test_yaml_corpus import files as yaml_files
from tests.test_edition_matrix import apply, git, inspect, run

pytestmark = [
    pytest.mark.corpus,
    pytest.mark.skipif(shutil.which("git") is None, reason="needs git"),
]

PER_FORMAT = 12
BLOCKS_PER_FILE = 3
NEW = "Kapiundo"
TOKEN = re.compile(r"<(?:x|g|/g|bx|ex)\b[^>]*>")
WORD = re.compile(r"\b[^\W\d_]{3,}\b")


def _spread(items: list[Any], cap: int = PER_FORMAT) -> list[Any]:
    step = max(1, len(items) // cap)
    return items[::step][:cap]


def _named(root: Path, paths: list[Path]) -> list[tuple[str, bytes]]:
    return [(p.relative_to(root).as_posix(), p.read_bytes()) for p in paths]


def _markdown() -> list[tuple[str, bytes]]:
    return _spread(_named(unpacked(MARKDOWNLINT) / "package", _markdownlint_files()))


def _html() -> list[tuple[str, bytes]]:
    pages = _pages()
    docutils = [(f"docutils/{p.name}", p.read_bytes()) for p in pages]
    reveal_root = unpacked(REVEAL)
    reveal = _named(reveal_root, sorted(reveal_root.rglob("*.html")))
    return _spread(docutils, PER_FORMAT // 2) + _spread(reveal, PER_FORMAT // 2)


def _json() -> list[tuple[str, bytes]]:
    return [
        *catalogues(AIRFLOW, "airflow/ui/dist/i18n/locales/*/*.json", 3),
        *catalogues(HOME_ASSISTANT, "hass_frontend/static/translations/**/*.json", 3),
        *catalogues(ZOD, "package/locales/*/*.json", 3),
        *catalogues(DOCUSAURUS, "package/locales/*/*.json", 3),
    ]


def _po() -> list[tuple[str, bytes]]:
    return [(relative(p), p.read_bytes()) for p in _spread(sample())]


def _xliff() -> list[tuple[str, bytes]]:
    files = weblate_files("*.xliff") + wagtail_files()
    return [(f"{i:02d}-{p.name}", p.read_bytes()) for i, p in enumerate(_spread(files))]


def _yaml() -> list[tuple[str, bytes]]:
    return [(p.relative_to(root).as_posix(), p.read_bytes()) for root, p in yaml_files()]


def _properties() -> list[tuple[str, bytes]]:
    return _spread(viewer_files())


def _strings() -> list[tuple[str, bytes]]:
    text, _ = tables()
    return _spread(text)


def _android() -> list[tuple[str, bytes]]:
    return [
        (f"{i:02d}/{p.relative_to(root).as_posix()}", p.read_bytes())
        for i, (root, p) in enumerate(_spread(resource_files()))
    ]


def _office(kind: str) -> Callable[[], list[tuple[str, bytes]]]:
    def files() -> list[tuple[str, bytes]]:
        chosen = [p for p in office.corpus(kind) if p.name not in office.NO_PDF]
        return [(f"{i:02d}-{p.name}", p.read_bytes()) for i, p in enumerate(_spread(chosen))]

    return files


FORMATS: dict[str, Callable[[], list[tuple[str, bytes]]]] = {
    "markdown": _markdown,
    "html": _html,
    "json": _json,
    "po": _po,
    "xliff": _xliff,
    "yaml": _yaml,
    "properties": _properties,
    "strings": _strings,
    "android": _android,
    "docx": _office("docx"),
    "xlsx": _office("xlsx"),
    "pptx": _office("pptx"),
}


def _edits(records: list[dict[str, Any]]) -> list[tuple[int, str]]:
    """(record index, word) for up to BLOCKS_PER_FILE blocks whose primary text has a word."""
    chosen = []
    for index, record in enumerate(records):
        if "replace_text" not in record.get("ops", ()) or record.get("structures"):
            continue
        text = TOKEN.sub(lambda m: " " * len(m.group(0)), record.get("text", ""))
        found = WORD.search(text)
        if found is None or record["text"].count(found.group(0)) != 1:
            continue
        chosen.append((index, found.group(0)))
        if len(chosen) == BLOCKS_PER_FILE:
            break
    return chosen


def _op(record: dict[str, Any], find: str, text: str) -> dict[str, Any]:
    return {
        "op": "replace_text",
        "at": record["ref"],
        "if_match": record["rev"],
        "edits": [{"find": find, "text": text}],
    }


def _applied(
    root: Path, monkeypatch, records: list[dict[str, Any]], edits: list[tuple[int, str]]
) -> list[tuple[int, str]]:
    """The edits that landed: an op the format cannot take (``unsupported``) is left out."""
    for _ in range(2):
        ops = [_op(records[i], word, NEW + "abc"[n]) for n, (i, word) in enumerate(edits)]
        stdin = json.dumps({"ops": ops})
        result = run(root, monkeypatch, "apply", "--json", "-", stdin=stdin, project=True)
        payload = json.loads(result.stdout)
        if payload["status"] == "applied":
            return edits
        refused = {
            o["i"] for o in payload["ops"] if (o.get("error") or {}).get("code") == "unsupported"
        }
        assert refused, result.output
        edits = [e for n, e in enumerate(edits) if n not in refused]
        if not edits:
            return []
    raise AssertionError(f"edits still refused: {edits}")


def _lay_out(root: Path, files: list[tuple[str, bytes]]) -> list[str]:
    relpaths = []
    for name, data in files:
        relpath = f"content/{name}"
        (root / relpath).parent.mkdir(parents=True, exist_ok=True)
        (root / relpath).write_bytes(data)
        relpaths.append(relpath)
    items = "".join(f"      - path: '{json.dumps(p)[1:-1]}'\n" for p in relpaths)
    (root / "kapi.yaml").write_text(
        "version: v1\ndefaults:\n  source_language: en\n"
        f"collections:\n  - name: corpus\n    content:\n{items}"
    )
    (root / ".gitignore").write_text(".kapi/\n")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "content as it was")
    return relpaths


OFFICE = {"docx", "xlsx", "pptx"}


def _parts(data: bytes) -> list[tuple[str, object]]:
    """Every part's bytes; a package embedded in a part (a chart's workbook) as its parts."""
    with zipfile.ZipFile(io.BytesIO(data)) as package:
        found: list[tuple[str, object]] = []
        for info in package.infolist():
            content = package.read(info)
            nested = info.filename.endswith((".xlsx", ".docx", ".pptx")) and content[:2] == b"PK"
            found.append((info.filename, _parts(content) if nested else content))
        return found


def _assert_parts_restored(root: Path, relpath: str) -> None:
    """An office package is a ZIP whose compressed bytes depend on the compressor: after an
    undo, every part holds the bytes it held, in the same order, and no part is added (a
    workbook embedded in a chart is such a ZIP too: each of its parts holds its bytes)."""
    committed = subprocess.run(
        ["git", "show", f"HEAD:{relpath}"], cwd=root, capture_output=True, check=True
    ).stdout
    before, after = _parts(committed), _parts((root / relpath).read_bytes())
    assert [n for n, _ in after] == [n for n, _ in before], f"{relpath}: parts changed"
    changed = [n for (n, old), (_, new) in zip(before, after) if old != new]
    assert not changed, f"{relpath}: undo left {changed} different"


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_an_edit_and_its_undo_leave_git_diff_empty(name, tmp_path, monkeypatch):
    relpaths = _lay_out(tmp_path, FORMATS[name]())
    assert relpaths, f"no {name} files in the corpus"
    edited_files = 0
    blocks = 0
    for relpath in relpaths:
        records = inspect(tmp_path, monkeypatch, relpath, project=True)
        edits = _edits(records)
        if not edits:
            continue
        edits = _applied(tmp_path, monkeypatch, records, edits)
        if not edits:
            continue
        assert git(tmp_path, "status", "--porcelain", "--", relpath), f"{relpath}: no change"
        after = inspect(tmp_path, monkeypatch, relpath, project=True)
        assert len(after) == len(records), f"{relpath}: the edit changed the block count"
        apply(
            tmp_path,
            monkeypatch,
            [_op(after[i], NEW + "abc"[n], word) for n, (i, word) in enumerate(edits)],
            project=True,
        )
        if name in OFFICE:
            _assert_parts_restored(tmp_path, relpath)
        elif git(tmp_path, "diff", "--stat", "--", relpath):
            detail = subprocess.run(
                ["git", "diff", "--text", "--", relpath],
                cwd=tmp_path,
                capture_output=True,
                text=True,
                errors="replace",
            ).stdout
            pytest.fail(f"{relpath}: undo left a difference\n{detail[:3000]}")
        edited_files += 1
        blocks += len(edits)
    if name not in OFFICE:
        assert git(tmp_path, "status", "--porcelain") == ""
    # the figure the tier reports: files edited and restored byte for byte, per format
    print(f"undo {name}: {edited_files}/{len(relpaths)} files, {blocks} blocks byte-identical")
    assert edited_files >= min(3, len(relpaths)), f"only {edited_files} {name} files had a word"
