"""Real catalogues laid out as a project holds them, edited through the CLI.

* Sphinx 8.1.3 sdist (BSD-2-Clause): ``sphinx/locale/sphinx.pot`` and a
  ``<lang>/LC_MESSAGES/sphinx.po`` per language.
* WTForms 3.2.1 sdist (BSD-3-Clause): ``src/wtforms/locale/wtforms.pot`` and
  its ``<lang>/LC_MESSAGES/wtforms.po`` catalogues.
* The XLIFF files of the XLIFF corpus (Weblate's 1.1/1.2, wagtail's 2.0).

Each is laid into a project two ways: the template as source with the target
template ``locale/{lang}/LC_MESSAGES/<domain>.po``, and ``**/*.po`` with
target languages and no template (each catalogue holding its translation).
One change set edits three target units of one catalogue; that file may
change only on the edited msgstr lines, every other file not at all, and
every other edition reads back as it was.
"""

from __future__ import annotations

import difflib
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from kapi.core.edition import EditionKeyError, canonical_locale
from tests.corpus.fetch import Source, unpacked
from tests.corpus.test_xliff_corpus import WAGTAIL, WEBLATE, wagtail_files, weblate_files
from tests.test_edition_matrix import apply, hunks, inspect

pytestmark = pytest.mark.corpus

SPHINX = Source(
    registry="pypi",
    name="sphinx",
    version="8.1.3",
    sha256="43c1911eecb0d3e161ad78611bc905d1ad0e523e4ddc202a58a821773dc4c927",
    filename="sphinx-8.1.3.tar.gz",
    binary=False,
)
WTFORMS = Source(
    registry="pypi",
    name="wtforms",
    version="3.2.1",
    sha256="df3e6b70f3192e92623128123ec8dca3067df9cfadd43d59681e210cfb8d4682",
    filename="wtforms-3.2.1.tar.gz",
    binary=False,
)
CATALOGUES = {
    "sphinx": (SPHINX, "sphinx-8.1.3/sphinx/locale", "sphinx"),
    "wtforms": (WTFORMS, "wtforms-3.2.1/src/wtforms/locale", "wtforms"),
}
WORD = re.compile(r"\b[^\W\d_]{2,}\b")
TOKEN = re.compile(r'<x id="[^"]*"/>')
NEW = "Kapicible"
UNITS_PER_EDIT = 3
# Each change set stages the template with every catalogue the recipe joins:
# a sample of languages and files keeps the tier within its time.
TEMPLATE_LANGUAGES = 6
IN_FILE_SAMPLE = 16


def language_dirs(locale: Path, domain: str) -> list[str]:
    return sorted(p.parent.parent.name for p in locale.glob(f"*/LC_MESSAGES/{domain}.po"))


def canonical_dir(name: str) -> str:
    """The directory's language as a target template can name it, or "" when it cannot.

    ``{lang}`` is the canonical BCP-47 tag: ``fr`` fills ``locale/fr/``, but
    ``pt-BR`` never names gettext's ``locale/pt_BR/``.
    """
    try:
        return name if canonical_locale(name) == name else ""
    except EditionKeyError:
        return ""


def lay_out(root: Path, name: str, *, template: bool) -> tuple[str, list[str]]:
    """A project holding one package's catalogues; the source and the catalogues' paths."""
    source, folder, domain = CATALOGUES[name]
    locale = unpacked(source) / folder
    shutil.copyfile(locale / f"{domain}.pot", _made(root / f"locale/{domain}.pot"))
    catalogues = []
    for language in language_dirs(locale, domain):
        relpath = f"locale/{language}/LC_MESSAGES/{domain}.po"
        shutil.copyfile(locale / relpath.removeprefix("locale/"), _made(root / relpath))
        catalogues.append(relpath)
    if template:
        languages = [lang for lang in language_dirs(locale, domain) if canonical_dir(lang)]
        languages = languages[:: max(1, len(languages) // TEMPLATE_LANGUAGES)][:TEMPLATE_LANGUAGES]
        item = (
            f"      - path: 'locale/{domain}.pot'\n"
            f"        target: 'locale/{{lang}}/LC_MESSAGES/{domain}.po'\n"
        )
    else:
        languages = ["fr", "de"]
        item = "      - path: 'locale/**/*.po'\n"
    (root / "kapi.yaml").write_text(
        "version: v1\ndefaults:\n  source_language: en\n"
        f"  target_languages: [{', '.join(languages)}]\n"
        f"collections:\n  - name: {name}\n    content:\n{item}"
    )
    if template:
        return f"locale/{domain}.pot", [
            f"locale/{lang}/LC_MESSAGES/{domain}.po" for lang in languages
        ]
    step = max(1, len(catalogues) // IN_FILE_SAMPLE)
    return f"locale/{domain}.pot", catalogues[::step][:IN_FILE_SAMPLE]


def _made(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def target_edits(
    records: list[dict[str, Any]], edition: str, doc: str, count: int, *, any_status: bool = False
) -> list[tuple[str, dict[str, Any]]]:
    """Up to ``count`` edits of plain units of one edition: (block, op).

    Translated ones only, unless ``any_status``: a person's edit of a fuzzy
    entry would also lift its flag, a line outside the msgstr.
    """
    edits = []
    for record in records:
        held = (record.get("editions") or {}).get(edition)
        if held is None or held.get("structures"):
            continue
        if not any_status and held["status"] != "translated":
            continue
        match = WORD.search(TOKEN.sub(lambda m: " " * len(m.group(0)), held["text"]))
        if match is None or "replace_text" not in record["ops"]:
            continue
        edit: dict[str, Any] = {"find": match.group(0), "text": NEW}
        if held["text"].count(match.group(0)) > 1:
            edit["occurrence"] = 1
        at = {"doc": doc, "block": record["ref"]["block"]}
        if record["ref"].get("edition") != edition:
            at["edition"] = edition
        op = {"op": "replace_text", "at": at, "if_match": held["rev"], "edits": [edit]}
        edits.append((record["ref"]["block"], op))
        if len(edits) == count:
            break
    return edits


def msgstr_lines_only(old: bytes, new: bytes) -> int:
    """How many regions changed; each must lie inside msgstr fields."""
    before = old.decode("utf-8").splitlines()
    after = new.decode("utf-8").splitlines()
    regions = 0
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, before, after).get_opcodes():
        if tag == "equal":
            continue
        regions += 1
        changed = before[i1:i2] + after[j1:j2]
        assert all(line.startswith(("msgstr", '"')) for line in changed), changed
        keyword = next(
            (line for line in reversed(before[: i1 + 1]) if not line.startswith('"')), ""
        )
        assert keyword.startswith("msgstr"), (keyword, changed)
    return regions


def language_of(data: bytes) -> str:
    found = re.search(rb'"Language: ([^\\"]+)\\n"', data)
    if not found:
        return ""
    try:
        return canonical_locale(found.group(1).decode())
    except EditionKeyError:
        return ""


@pytest.mark.parametrize("name", sorted(CATALOGUES))
@pytest.mark.parametrize("template", [True, False], ids=["template", "in-file"])
def test_three_target_units_change_and_nothing_else(name, template, tmp_path, monkeypatch):
    source, catalogues = lay_out(tmp_path, name, template=template)
    files = [source, *sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.po"))]
    original = {f: (tmp_path / f).read_bytes() for f in files}
    edited_files = units = edits_made = 0
    for catalogue in catalogues:
        data = (tmp_path / catalogue).read_bytes()
        language = language_of(data) if not template else catalogue.split("/")[1]
        if not language:
            continue
        doc = source if template else catalogue
        records = inspect(tmp_path, monkeypatch, doc, project=True)
        units += len(records)
        edits = target_edits(records, language, doc, UNITS_PER_EDIT)
        if not edits:
            continue
        current = {f: (tmp_path / f).read_bytes() for f in files}
        apply(tmp_path, monkeypatch, [op for _, op in edits], project=True)
        for relpath in files:
            now = (tmp_path / relpath).read_bytes()
            if relpath == catalogue:
                assert msgstr_lines_only(current[relpath], now) == len(edits), relpath
            else:
                assert now == current[relpath], f"{relpath} changed; only {catalogue} was edited"
        again = inspect(tmp_path, monkeypatch, doc, project=True)
        assert len(again) == len(records)
        touched = {block for block, _ in edits}
        for old, new in zip(records, again):
            if old["ref"]["block"] not in touched:
                assert new == old, (catalogue, old["ref"])
                continue
            assert NEW in new["editions"][language]["text"]
            others = {k: v for k, v in old.get("editions", {}).items() if k != language}
            assert others == {k: v for k, v in new["editions"].items() if k != language}
            assert (new["rev"], new["text"]) == (old["rev"], old["text"])
        edited_files += 1
        edits_made += len(edits)
    # nearly every catalogue sampled has three translated units to edit
    assert edited_files >= len(catalogues) - 3, (edited_files, len(catalogues))
    assert edits_made >= edited_files * 2
    assert any((tmp_path / f).read_bytes() != original[f] for f in files)
    print(
        f"{name} ({'template' if template else 'in-file'}): {edited_files} files, "
        f"{units} units read, {edits_made} edits"
    )


def xliff_language(data: bytes) -> str:
    found = re.search(rb'(?:target-language|trgLang)="([^"]+)"', data)
    return canonical_locale(found.group(1).decode()) if found else ""


def test_xliff_files_in_a_project_change_only_the_edited_targets(tmp_path, monkeypatch):
    sources = [(p, unpacked(WEBLATE)) for p in weblate_files("*.xliff")] + [
        (p, unpacked(WAGTAIL)) for p in wagtail_files()
    ]
    files = []
    for path, root in sources:
        relpath = "xliff/" + path.relative_to(root).as_posix()
        shutil.copyfile(path, _made(tmp_path / relpath))
        files.append(relpath)
    languages = sorted({xliff_language(p.read_bytes()) for p, _ in sources} - {""})
    (tmp_path / "kapi.yaml").write_text(
        "version: v1\ndefaults:\n  source_language: en\n"
        f"  target_languages: [{', '.join(languages)}]\n"
        "collections:\n  - name: xliff\n    content:\n      - path: 'xliff/**/*.xliff'\n"
    )
    edited_files = edits_made = 0
    for relpath in files:
        language = xliff_language((tmp_path / relpath).read_bytes())
        records = inspect(tmp_path, monkeypatch, relpath, project=True)
        edits = (
            target_edits(records, language, relpath, UNITS_PER_EDIT, any_status=True)
            if language
            else []
        )
        if not edits:
            continue
        current = {f: (tmp_path / f).read_bytes() for f in files}
        apply(tmp_path, monkeypatch, [op for _, op in edits], project=True)
        for other in files:
            now = (tmp_path / other).read_bytes()
            if other != relpath:
                assert now == current[other], f"{other} changed; only {relpath} was edited"
                continue
            # the edited text, and the unit's state= where the file records one
            changed = hunks(current[other], now)
            assert len(changed) <= 2 * len(edits), (relpath, changed)
            assert all(max(a, b) <= 96 for a, b in changed), (relpath, changed)
        again = inspect(tmp_path, monkeypatch, relpath, project=True)
        touched = {block for block, _ in edits}
        for old, new in zip(records, again, strict=True):
            if old["ref"]["block"] not in touched:
                assert new == old, (relpath, old["ref"])
            else:
                assert NEW in new["editions"][language]["text"]
                assert (new["rev"], new["text"]) == (old["rev"], old["text"])
        edited_files += 1
        edits_made += len(edits)
    assert edited_files >= 2, (
        edited_files
    )  # wagtail's translated exports; Weblate's hold no targets
    print(f"xliff: {len(files)} files, {edited_files} edited, {edits_made} edits")
