"""MyST and MDX corpus: a Sphinx theme's MyST documentation and a Docusaurus site's MDX pages.

Sources (pinned): sphinx-book-theme 1.1.3 sdist from PyPI (BSD-3-Clause; the 38 MyST
pages under ``docs/``) and @typescript-eslint/eslint-plugin 8.18.0 from npm (MIT; its
133 rule pages, ``docs/rules/*.mdx``, written for the typescript-eslint.io Docusaurus site).

Every file round-trips byte for byte, survives the corpus tier's pseudo-translation and
one-word edit, and gives its own bytes back when every block is edited and then set back;
in a project, ``kapi apply`` of a one-word edit (inside a directive, admonition or JSX
element where the page has one) changes one place, and the edit set back gives the file.
``kapi check`` in a project holding them, with forbidden terms that occur in their code,
JSX, front matter and URLs, reports no finding inside those (judged by
``tests/corpus/regions.py``, which reads the files by rules of its own).

One MDX page is refused, as MDX refuses it: prefer-nullish-coalescing.mdx opens a
``:::danger`` admonition on line 203 whose closing ``:::`` is inside a block quote.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kapi.core.format import FormatCodec, FormatError
from kapi.formats.mdx import MdxFormat
from kapi.formats.myst import MystFormat
from tests.corpus.faithful import assert_faithful, map_text, pseudo_text
from tests.corpus.fetch import Source, unpacked
from tests.corpus.regions import code_regions, inside, offset_of

pytestmark = pytest.mark.corpus

BOOK_THEME = Source(
    registry="pypi",
    name="sphinx-book-theme",
    version="1.1.3",
    sha256="1f25483b1846cb3d353a6bc61b3b45b031f4acf845665d7da90e01ae0aef5b4d",
    filename="sphinx_book_theme-1.1.3.tar.gz",
    binary=False,
)
TS_ESLINT = Source(
    registry="npm",
    name="@typescript-eslint/eslint-plugin",
    version="8.18.0",
    sha256="ce2ac4802c80faf6d81ccd84f9b13caaee291c984ae7913491a007bd17708ac1",
    filename="typescript-eslint-eslint-plugin-8.18.0.tgz",
)
REFUSED = {"prefer-nullish-coalescing.mdx": 203}
WORD = re.compile(r"\b[^\W\d_]{2,}\b")
TOKEN = re.compile(r'<x id="[^"]*"/>')
NEW = "Kapisource"

# Words that occur in the corpus's code, JSX, front matter and URLs (and in its prose).
MYST_TERMS = ("theme", "html", "sphinx", "python", "conf", "true", "github", "logo", "https")
MDX_TERMS = ("const", "type", "string", "import", "true", "options", "rule", "https", "value")


def myst_files() -> list[Path]:
    return sorted((unpacked(BOOK_THEME) / "sphinx_book_theme-1.1.3" / "docs").rglob("*.md"))


def mdx_files() -> list[Path]:
    return sorted((unpacked(TS_ESLINT) / "package" / "docs").rglob("*.mdx"))


def restored_after_editing_every_block(codec: FormatCodec, data: bytes, name: str) -> bool:
    """Edit every translatable block, write, re-read, set each back: are the bytes the file's?"""
    document = codec.read(data, path=name)
    edited = document.with_blocks(
        tuple(
            b.with_source(map_text(b.source, pseudo_text)) if b.translatable else b
            for b in document.blocks
        )
    )
    again = codec.read(codec.write(edited), path=name)
    originals = {b.id: b.source for b in document.blocks}
    back = again.with_blocks(tuple(b.with_source(originals[b.id]) for b in again.blocks))
    return codec.write(back) == data


def test_every_myst_page_round_trips_and_edit_then_restore_gives_its_bytes() -> None:
    codec = MystFormat()
    files = myst_files()
    assert len(files) == 38
    prose_in_directives = 0
    for path in files:
        data = path.read_bytes()
        assert_faithful(codec, data, path.name)
        assert restored_after_editing_every_block(codec, data, path.name), path.name
        document = codec.read(data, path=path.name)
        prose_in_directives += sum(
            1 for b in document.blocks if b.translatable and "directive" in b.properties
        )
    assert prose_in_directives > 50


def test_every_mdx_page_round_trips_and_edit_then_restore_gives_its_bytes() -> None:
    codec = MdxFormat()
    files = mdx_files()
    assert len(files) == 133
    read = with_jsx = 0
    for path in files:
        data = path.read_bytes()
        if path.name in REFUSED:
            with pytest.raises(FormatError) as caught:
                codec.read(data, path=path.name)
            assert caught.value.line == REFUSED[path.name]
            continue
        assert_faithful(codec, data, path.name)
        assert restored_after_editing_every_block(codec, data, path.name), path.name
        document = codec.read(data, path=path.name)
        with_jsx += any(b.role == "jsx" for b in document.blocks)
        read += 1
    assert read == 132
    assert with_jsx > 100  # most rule pages hold <Tabs> of correct and incorrect code


def _terms(words: tuple[str, ...]) -> dict[str, object]:
    return {
        "schemaVersion": "1.0",
        "kind": "kapi-terms",
        "concepts": [
            {
                "id": f"term:en:{word}",
                "source": "terminology",
                "terms": [{"text": word, "locale": "en", "status": "forbidden"}],
            }
            for word in words
        ],
    }


def check_project(
    tmp_path: Path, files: list[Path], flavour: str, words: tuple[str, ...]
) -> tuple[dict[str, str], list[dict[str, object]]]:
    """Copy the files into a project, import the terms, run ``kapi check --json``."""
    docs = tmp_path / "docs"
    texts: dict[str, str] = {}
    for index, path in enumerate(files):
        name = f"docs/{index:03d}-{path.name}"
        (docs).mkdir(exist_ok=True)
        shutil.copyfile(path, tmp_path / name)
        texts[name] = path.read_text("utf-8")
    pattern = "docs/*.md" if flavour == "myst" else "docs/*.mdx"
    (tmp_path / "kapi.yaml").write_text(
        "version: v1\nname: corpus\ndefaults:\n  source_language: en\n"
        "collections:\n  - name: docs\n    source_only: true\n    content:\n"
        f"      - path: {pattern}\n        format: {flavour}\n"
    )
    (tmp_path / "terms.json").write_text(json.dumps(_terms(words)))
    env = {k: v for k, v in os.environ.items() if k not in ("KAPI_NO_PROJECT", "KAPI_PROJECT")}
    env["KAPI_ACTOR"] = "person"
    kapi = str(Path(sys.executable).with_name("kapi"))
    imported = subprocess.run(
        [kapi, "terms", "import", "terms.json"], cwd=tmp_path, env=env, capture_output=True
    )
    assert imported.returncode == 0, imported.stderr
    done = subprocess.run(
        [kapi, "check", "--json", "--no-fail"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr
    return texts, json.loads(done.stdout)["findings"]


def findings_inside_code(
    texts: dict[str, str], findings: list[dict[str, object]], flavour: str
) -> list[str]:
    regions = {name: code_regions(text, flavour) for name, text in texts.items()}
    out = []
    for finding in findings:
        location = finding["location"]
        assert isinstance(location, dict)
        if not location.get("start"):
            continue
        name = str(location["file"])
        text = texts[name]
        start = offset_of(text, location["start"]["line"], location["start"]["column"])
        end = offset_of(text, location["end"]["line"], location["end"]["column"])
        if inside(regions[name], start, end):
            out.append(f"{name}:{location['start']['line']}: {text[start:end]!r}")
    return out


def test_kapi_check_reports_no_term_inside_code_front_matter_or_urls_of_myst(tmp_path) -> None:
    texts, findings = check_project(tmp_path, myst_files(), "myst", MYST_TERMS)
    assert len(findings) > 100  # the terms are in the prose too
    assert findings_inside_code(texts, findings, "myst") == []


def test_kapi_check_reports_no_term_inside_code_jsx_or_front_matter_of_mdx(tmp_path) -> None:
    files = [path for path in mdx_files() if path.name not in REFUSED]
    texts, findings = check_project(tmp_path, files, "mdx", MDX_TERMS)
    assert len(findings) > 100
    assert findings_inside_code(texts, findings, "mdx") == []


def test_the_regions_see_code_where_the_words_are() -> None:
    """The judge is not blind: the terms occur inside its code regions many times."""
    for files, flavour, words in (
        (myst_files(), "myst", MYST_TERMS),
        (mdx_files(), "mdx", MDX_TERMS),
    ):
        hits = 0
        for path in files:
            text = path.read_text("utf-8")
            regions = code_regions(text, flavour)
            lower = text.lower()
            for word in words:
                start = lower.find(word)
                while start >= 0:
                    hits += inside(regions, start, start + len(word))
                    start = lower.find(word, start + 1)
        assert hits > 200, flavour


def _lay_out(root: Path, files: list[Path], flavour: str) -> list[str]:
    names = []
    for index, path in enumerate(files):
        name = f"docs/{index:03d}-{path.name}"
        (root / "docs").mkdir(exist_ok=True)
        shutil.copyfile(path, root / name)
        names.append(name)
    pattern = "docs/*.md" if flavour == "myst" else "docs/*.mdx"
    (root / "kapi.yaml").write_text(
        "version: v1\nname: corpus\ndefaults:\n  source_language: en\n"
        "collections:\n  - name: docs\n    source_only: true\n    content:\n"
        f"      - path: {pattern}\n        format: {flavour}\n"
    )
    return names


def _inside_first(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Blocks just inside a directive, an admonition or a JSX element first, then the others."""
    inner = [
        record
        for before, record in itertools.pairwise(records)
        if before.get("role") in ("directive", "jsx", "title")
    ]
    return inner + [r for r in records if r not in inner]


@pytest.mark.parametrize("flavour", ["myst", "mdx"])
def test_edit_then_restore_through_kapi_apply_in_a_project_gives_every_file_back(
    flavour: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.test_edition_matrix import apply, hunks, inspect

    files = myst_files() if flavour == "myst" else mdx_files()
    files = [path for path in files if path.name not in REFUSED]
    names = _lay_out(tmp_path, files, flavour)
    restored = edited = 0
    for name in names:
        original = (tmp_path / name).read_bytes()
        records = inspect(tmp_path, monkeypatch, name, project=True)
        for record in _inside_first(records):
            if "replace_text" not in record["ops"]:
                continue
            text = TOKEN.sub(" ", record["text"])
            word = WORD.search(text)
            if word is None:
                continue
            at = {"doc": name, "block": record["ref"]["block"]}
            change = {"find": word.group(0), "text": NEW, "occurrence": 1}
            op = {"op": "replace_text", "at": at, "if_match": record["rev"], "edits": [change]}
            apply(tmp_path, monkeypatch, [op], project=True)
            changed = (tmp_path / name).read_bytes()
            assert len(hunks(original, changed)) == 1, name
            edited += 1
            again = next(
                r
                for r in inspect(tmp_path, monkeypatch, name, project=True)
                if r["ref"]["block"] == record["ref"]["block"]
            )
            back = {"find": NEW, "text": word.group(0), "occurrence": 1}
            op = {"op": "replace_text", "at": at, "if_match": again["rev"], "edits": [back]}
            apply(tmp_path, monkeypatch, [op], project=True)
            restored += (tmp_path / name).read_bytes() == original
            break
    assert edited >= 0.9 * len(names)  # a few pages hold nothing but a toctree and code
    assert restored == edited
