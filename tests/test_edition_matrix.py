"""Every format x where it lives x which editions one change set edits.

A file is read alone (``KAPI_NO_PROJECT``), as a project's source (its
translations joined as editions: from their own files for a monolingual
format, from the file itself for PO and XLIFF), or as a translation's own file
that a target template names. One change set edits the source edition, a
target edition, or both at once. Through the real CLI, the edit must move
only the edited values' bytes, and every other block and edition of every
file involved must read back as it was.
"""

from __future__ import annotations

import difflib
import importlib.util
import json
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from attrs import frozen
from click.testing import CliRunner

from kapi.cli.main import cli
from kapi.core.edition import canonical_locale
from tests.office_made import office_bytes

FIXTURES = Path(__file__).resolve().parents[1] / "packages/kapi-formats/tests/fixtures"
TOKEN = re.compile(r'<x id="[^"]*"/>')
WORD = re.compile(r"\b[^\W\d_]+\b")
SOURCE_WORD = "Kapisource"
TARGET_WORD = "Kapicible"


def run(folder: Path, monkeypatch, *args: str, stdin: str | None = None, project: bool = True):
    monkeypatch.chdir(folder)
    env = {"KAPI_ACTOR": "person", "KAPI_NO_PROJECT": None if project else "1"}
    for name in ("CLAUDECODE", "CODEX_SESSION_ID", "KAPI_AGENT_NAME", "KAPI_AGENT_SESSION"):
        env[name] = None
    return CliRunner().invoke(cli, list(args), input=stdin, env=env, catch_exceptions=False)


def inspect(folder: Path, monkeypatch, path: str, *, project: bool) -> list[dict[str, Any]]:
    result = run(folder, monkeypatch, "inspect", path, project=project)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def apply(
    folder: Path, monkeypatch, ops: list[dict[str, Any]], *, project: bool, expect: str = "applied"
) -> dict:
    result = run(
        folder, monkeypatch, "apply", "--json", "-", stdin=json.dumps({"ops": ops}), project=project
    )
    payload = json.loads(result.stdout)
    assert payload["status"] == expect, result.output
    assert result.exit_code == (0 if expect == "applied" else 3), result.output
    return payload


# --- the formats and how a project lays each out -------------------------------------------


def _latin1(transform: Callable[[list[str]], list[str]]) -> Callable[[bytes], bytes]:
    """A line-wise rewrite of a file's bytes that keeps every byte it does not touch."""

    def rewrite(data: bytes) -> bytes:
        return "".join(transform(data.decode("latin-1").splitlines(keepends=True))).encode(
            "latin-1"
        )

    return rewrite


def _ending(line: str) -> str:
    return line[len(line.rstrip("\r\n")) :]


def _entries(lines: list[str]) -> list[list[str]]:
    entries: list[list[str]] = [[]]
    for line in lines:
        if not line.strip():
            entries[-1].append(line)
            entries.append([])
        else:
            entries[-1].append(line)
    return entries


def _pot_lines(lines: list[str]) -> list[str]:
    """A PO catalogue's template: every msgstr emptied, the header's Language blank."""
    out: list[str] = []
    header_done = False
    for entry in _entries(lines):
        is_header = not header_done and any(line.startswith('msgid ""') for line in entry)
        if any(line.startswith("msgid") for line in entry):
            header_done = True
        skipping = False
        for line in entry:
            if is_header:
                out.append(re.sub(r'"Language: [^\\"]*\\n"', '"Language: \\\\n"', line))
                continue
            if line.startswith("msgstr"):
                keyword = line.split(" ", 1)[0]
                out.append(f'{keyword} ""{_ending(line)}')
                skipping = True
                continue
            if skipping and line.startswith('"'):
                continue
            skipping = False
            out.append(line)
    return out


def _po_lines(lines: list[str]) -> list[str]:
    """A French catalogue made from a template: each msgstr the msgid with ``fr`` before it."""
    out: list[str] = []
    header_done = False
    for entry in _entries(lines):
        is_header = not header_done and any(line.startswith('msgid ""') for line in entry)
        if any(line.startswith("msgid") for line in entry):
            header_done = True
        fields: dict[str, list[str]] = {}
        current = ""
        for line in entry:
            if line.startswith(("msgid ", "msgid_plural ")):
                current = line.split(" ", 1)[0]
                fields[current] = [line.split(" ", 1)[1]]
            elif line.startswith('"') and current:
                fields[current].append(line)
            else:
                current = ""
        for line in entry:
            if is_header:
                line = line.replace('"Language: \\n"', '"Language: fr\\n"')
                line = line.replace("charset=CHARSET", "charset=UTF-8")
                line = line.replace(
                    "nplurals=INTEGER; plural=EXPRESSION;", "nplurals=2; plural=(n > 1);"
                )
                out.append(line)
                continue
            match = re.match(r"msgstr(\[(\d)\])? \"\"", line)
            if match:
                name = "msgid_plural" if match.group(2) == "1" else "msgid"
                keyword = line.split(" ", 1)[0]
                first, *rest = fields[name]
                out.append(f'{keyword} "fr {first[1:]}')
                out.extend(rest)
                continue
            out.append(line)
    return out


pot_from_po = _latin1(_pot_lines)
po_from_pot = _latin1(_po_lines)


def xliff_source_only(data: bytes) -> bytes:
    """An XLIFF file as its source would be: no targets, no target language."""
    text = data.decode("latin-1")
    text = re.sub(r"\s*<target\b[^>]*?(/>|>.*?</target>)", "", text, flags=re.S)
    text = re.sub(r' (target-language|trgLang)="[^"]*"', "", text)
    return text.encode("latin-1")


def xliff_target_language(data: bytes) -> str:
    found = re.search(rb'(?:target-language|trgLang)="([^"]+)"', data)
    return canonical_locale(found.group(1).decode())


def _shared_strings_workbook() -> bytes:
    """A workbook whose first text is a shared string two cells use; the others one cell each."""
    spec = importlib.util.spec_from_file_location(
        "office_fixtures", FIXTURES.parent / "office_fixtures.py"
    )
    assert spec is not None and spec.loader is not None
    builders = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(builders)
    rows = (
        '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>'
        '<row r="2"><c r="A2" t="s"><v>0</v></c><c r="B2"><v>1200</v></c></row>'
        '<row r="3"><c r="A3" t="s"><v>2</v></c><c r="B3"><f>B2*2</f><v>2400</v></c></row>'
    )
    shared = ["<t>North region</t>", "<t>Sales grew in the north</t>", "<t>South region</t>"]
    return builders.xlsx([("Figures", rows)], shared, count=4)


@frozen
class Format:
    """One file of one format and the project layout it takes."""

    id: str
    fixture: str  # a path under the formats' fixtures, or office/<kind>
    source: str  # the source's project path
    template: str = ""  # the target template; empty for a bilingual file holding its target
    kind: str = "monolingual"  # monolingual | bilingual (PO, XLIFF) | template (POT)

    def data(self) -> bytes:
        if self.fixture == "office/xlsx-shared":
            return _shared_strings_workbook()
        if self.fixture.startswith("office/"):
            return office_bytes(self.fixture.split("/")[1])
        return (FIXTURES / self.fixture).read_bytes()

    @property
    def textual(self) -> bool:
        return not self.fixture.startswith("office/")


def mono(fixture: str, source: str = "", template: str = "") -> Format:
    name = Path(fixture).name
    return Format(
        id=fixture,
        fixture=fixture,
        source=source or f"en/{name}",
        template=template or "{lang}/{filename}",
    )


def bilingual(fixture: str) -> Format:
    return Format(id=fixture, fixture=fixture, source=fixture, kind="bilingual")


FORMATS = [
    mono("json/compact.json", "locales/en.json", "locales/{lang}.json"),
    mono("json/flat_crlf_bom.json", "locales/en.json", "locales/{lang}.json"),
    mono("json/nested.json", "locales/en.json", "locales/{lang}.json"),
    mono("json/ascii_escapes.json", "locales/en.json", "locales/{lang}.json"),
    mono("json/icu.json", "locales/en.json", "locales/{lang}.json"),
    mono("json/app_en.arb", "l10n/app_en.arb", "l10n/app_{lang}.arb"),
    mono("yaml/rails_en.yml", "config/locales/en.yml", "config/locales/{lang}.yml"),
    mono("yaml/plain_crlf.yaml"),
    mono("yaml/bom_de.yml"),
    bilingual("po/basic.po"),
    bilingual("po/crlf_bom.po"),
    bilingual("po/latin1.po"),
    bilingual("po/nowrap.po"),
    bilingual("po/wrapped.po"),
    Format(
        "po/template.pot",
        "po/template.pot",
        "po/messages.pot",
        "po/locale/{lang}/LC_MESSAGES/messages.po",
        kind="template",
    ),
    bilingual("xliff/angular.xlf"),
    bilingual("xliff/crlf-bom.xlf"),
    bilingual("xliff/okapi.xlf"),
    bilingual("xliff/xcode.xliff"),
    bilingual("xliff/segments.xlf"),
    mono("android/strings.xml", "res/values/strings.xml", "res/values-{lang}/strings.xml"),
    mono("android/crlf_bom.xml", "res/values/strings.xml", "res/values-{lang}/strings.xml"),
    mono("strings/Localizable.strings", "en.lproj/Localizable.strings", "{lang}.lproj/{filename}"),
    mono("strings/utf16le_bom.strings", "en.lproj/Localizable.strings", "{lang}.lproj/{filename}"),
    mono("strings/utf16be_bom.strings", "en.lproj/Localizable.strings", "{lang}.lproj/{filename}"),
    mono(
        "strings/utf8_bom_crlf.strings", "en.lproj/Localizable.strings", "{lang}.lproj/{filename}"
    ),
    mono(
        "stringsdict/Localizable.stringsdict",
        "en.lproj/Localizable.stringsdict",
        "{lang}.lproj/{filename}",
    ),
    mono(
        "stringsdict/crlf-spaces.stringsdict",
        "en.lproj/Localizable.stringsdict",
        "{lang}.lproj/{filename}",
    ),
    mono("properties/messages.properties", "messages.properties", "messages_{lang}.properties"),
    mono("properties/crlf.properties", "messages.properties", "messages_{lang}.properties"),
    mono("properties/escapes.properties", "messages.properties", "messages_{lang}.properties"),
    mono("markdown/guide.md", "docs/guide.md", "i18n/{lang}/"),
    mono("markdown/tabs.md", "docs/tabs.md", "i18n/{lang}/"),
    mono("markdown/windows.md", "docs/windows.md", "i18n/{lang}/"),
    mono("myst/guide.md", "docs/guide.md", "i18n/{lang}/"),
    mono("mdx/tabs.mdx", "docs/tabs.mdx", "i18n/{lang}/"),
    mono("html/page.html", "site/page.html", "site/{lang}/{filename}"),
    mono("html/latin1.html", "site/page.html", "site/{lang}/{filename}"),
    mono("html/windows.html", "site/page.html", "site/{lang}/{filename}"),
    mono("text/notes.txt"),
    mono("text/windows.txt"),
    mono("office/docx", "docs/report.docx", "{lang}/{filename}"),
    mono("office/xlsx", "docs/figures.xlsx", "{lang}/{filename}"),
    # one shared string used by two cells, one by a single cell
    mono("office/xlsx-shared", "docs/figures.xlsx", "{lang}/{filename}"),
    mono("office/pptx", "docs/roadmap.pptx", "{lang}/{filename}"),
    mono("office/xlsx-chart", "docs/revenue.xlsx", "{lang}/{filename}"),
    mono("office/pptx-chart", "docs/seasons.pptx", "{lang}/{filename}"),
    mono("office/pptx-series", "docs/sales.pptx", "{lang}/{filename}"),
]
MODES = ("alone", "source", "translation")
EDITS = ("source", "target", "both")


def not_applicable(fmt: Format, mode: str, edit: str) -> str:
    """Why a combination has nothing to test; empty when it applies."""
    if mode == "alone" and fmt.kind in ("monolingual", "template") and edit != "source":
        return "a file read alone holds only its own edition; its translations live elsewhere"
    if mode == "translation" and fmt.kind == "template":
        return "a template is never a translation's own file (its PO catalogues are)"
    return ""


def _cases():
    """Every cell of the matrix that has something to edit (see :func:`not_applicable`)."""
    for fmt in FORMATS:
        for mode in MODES:
            for edit in EDITS:
                if not not_applicable(fmt, mode, edit):
                    yield pytest.param(fmt, mode, edit, id=f"{fmt.id}-{mode}-{edit}")


ALONE_MONOLINGUAL = [
    pytest.param(fmt, id=fmt.id) for fmt in FORMATS if not_applicable(fmt, "alone", "target")
]


# --- laying a case out on disk ----------------------------------------------------------------


@frozen
class Layout:
    """The files of one case: where they are, which is the source, which the target edition."""

    root: Path
    project: bool
    source: str  # the document edits address the source through
    source_language: str
    target_language: str
    translation: str = ""  # a translation's own file, when the target lives in one
    bilingual_source: bool = False  # the source file itself holds the target edition

    @property
    def bilingual_translation(self) -> bool:
        """The translation's own file holds the source text again (PO, XLIFF)."""
        return self.translation.endswith((".po", ".xlf", ".xliff"))

    @property
    def files(self) -> list[str]:
        return [self.source, self.translation] if self.translation else [self.source]


def recipe(content: str, source_language: str, target_language: str, template: str = "") -> str:
    lines = [
        "version: v1",
        "defaults:",
        f"  source_language: {source_language}",
        f"  target_languages: [{target_language}]",
        "collections:",
        "  - name: content",
        "    content:",
        f"      - path: '{content}'",
    ]
    if template:
        lines.append(f"        target: '{template}'")
    return "\n".join(lines) + "\n"


def pseudo_translate(root: Path, relpath: str, monkeypatch, prefix: str = "fr") -> None:
    """Rewrite every plain block of a file (outside any project) with ``prefix`` before it."""
    ops = []
    for record in inspect(root, monkeypatch, relpath, project=False):
        if "set_content" not in record["ops"] or record.get("structures"):
            continue
        ops.append(
            {
                "op": "set_content",
                "at": record["ref"],
                "if_match": record["rev"],
                "text": f"{prefix} {record['text']}",
            }
        )
    if ops:
        apply(root, monkeypatch, ops, project=False)


def source_language_of(data: bytes) -> str:
    found = re.search(rb'(?:source-language|srcLang)="([^"]+)"', data)
    return canonical_locale(found.group(1).decode()) if found else "en"


def po_language(data: bytes) -> str:
    found = re.search(rb'"Language: ([^\\"]+)\\n"', data)
    return canonical_locale(found.group(1).decode()) if found else ""


def lay_out(fmt: Format, mode: str, root: Path, monkeypatch) -> Layout:
    data = fmt.data()
    xliff = fmt.id.startswith("xliff/")

    def put(relpath: str, content: bytes) -> None:
        (root / relpath).parent.mkdir(parents=True, exist_ok=True)
        (root / relpath).write_bytes(content)

    if mode == "alone":
        put(fmt.source, data)
        target = ""
        if fmt.kind == "bilingual":
            target = xliff_target_language(data) if xliff else po_language(data)
        return Layout(root, False, fmt.source, source_language_of(data), target)
    if fmt.kind == "monolingual":
        translation = fmt.template.replace("{lang}", "fr")
        if translation.endswith("/"):
            translation += Path(fmt.source).name
        if translation.endswith("{filename}"):
            translation = translation.replace("{filename}", Path(fmt.source).name)
        put(fmt.source, data)
        put(translation, data)
        # the other role's file differs from the fixture, so that no edition reads as another
        pseudo_translate(root, translation if mode == "source" else fmt.source, monkeypatch)
        (root / "kapi.yaml").write_text(recipe(fmt.source, "en", "fr", fmt.template))
        return Layout(root, True, fmt.source, "en", "fr", translation)
    if fmt.kind == "template":
        translation = fmt.template.replace("{lang}", "fr")
        put(fmt.source, data)
        put(translation, po_from_pot(data))
        (root / "kapi.yaml").write_text(recipe(fmt.source, "en", "fr", fmt.template))
        return Layout(root, True, fmt.source, "en", "fr", translation)
    # bilingual
    source_language = source_language_of(data)
    target = xliff_target_language(data) if xliff else po_language(data)
    if mode == "source":  # the file holds its target: a glob claims it, no template
        put(fmt.source, data)
        glob = "**/*" + Path(fmt.source).suffix
        (root / "kapi.yaml").write_text(recipe(glob, source_language, target))
        return Layout(root, True, fmt.source, source_language, target, bilingual_source=True)
    if xliff:
        source, template = "xliff/messages.xlf", "xliff/messages.{lang}.xlf"
        put(source, xliff_source_only(data))
    else:
        source, template = "po/messages.pot", "po/locale/{lang}/LC_MESSAGES/messages.po"
        put(source, pot_from_po(data))
    translation = template.replace("{lang}", target)
    put(translation, data)
    (root / "kapi.yaml").write_text(recipe(source, source_language, target, template))
    return Layout(root, True, source, source_language, target, translation)


# --- choosing the edits ---------------------------------------------------------------------


@frozen
class Edit:
    block: str
    edition: str  # "" for the source edition, else the target language
    word: str
    new: str
    op: dict[str, Any]
    status: str = ""  # the edited edition's status as read ("" for the source)


def views(record: dict[str, Any], layout: Layout) -> dict[str, dict[str, Any]]:
    """Every edition a record shows, keyed "" for the source and the target language else."""
    primary = record["ref"].get("edition", "")
    out = {}
    own = {k: record[k] for k in ("rev", "text", "structures", "codes") if k in record}
    for key, edition in {primary: own, **(record.get("editions") or {})}.items():
        out["" if key in ("", layout.source_language) else key] = edition
    return out


def editable(edition: dict[str, Any]) -> tuple[str, list | None] | None:
    """The text an edit can change in an edition, and the plural branch it lives in."""
    text, path = edition["text"], None
    if edition.get("structures"):
        first = edition["structures"][0]
        form, text = next(iter(first["branches"].items()))
        path = [*first["path"], {first["kind"]: form}]
    return (text, path) if WORD.search(TOKEN.sub(" ", text)) else None


def make_edit(
    record: dict[str, Any], edition_key: str, layout: Layout, via_translation: bool
) -> Edit | None:
    if "replace_text" not in record["ops"]:
        return None
    edition = views(record, layout).get(edition_key)
    if edition is None:
        return None
    found = editable(edition)
    if found is None:
        return None
    text, path = found
    word = WORD.search(TOKEN.sub(lambda m: " " * len(m.group(0)), text)).group(0)
    new = TARGET_WORD if edition_key else SOURCE_WORD
    edit: dict[str, Any] = {"find": word, "text": new}
    if text.count(word) > 1:
        edit["occurrence"] = 1
    at = {"doc": layout.source, "block": record["ref"]["block"]}
    if edition_key and via_translation:
        at["doc"] = layout.translation
    elif edition_key:
        at["edition"] = edition_key
    op: dict[str, Any] = {"op": "replace_text", "at": at, "if_match": edition["rev"]}
    op["edits"] = [edit]
    if path:
        op["path"] = path
    status = edition.get("status", "") if edition_key else ""
    return Edit(record["ref"]["block"], edition_key, word, new, op, status)


def choose(
    records: list[dict[str, Any]], layout: Layout, edit: str, mode: str, *, settled: bool = False
) -> list[Edit]:
    """The edits of one case: each on its own block where the file has enough of them.

    ``settled`` keeps to editions already translated: a person's edit marks a
    new or fuzzy edition translated, which editing the text back does not undo.
    """
    via_translation = mode == "translation"
    target = layout.target_language
    wanted = {"source": [""], "target": [target], "both": ["", target]}[edit]
    chosen: list[Edit] = []
    for key in wanted:
        taken = {e.block for e in chosen}
        options = [make_edit(r, key, layout, via_translation) for r in records]
        options = [o for o in options if o is not None]
        if settled and (
            layout.bilingual_source or layout.bilingual_translation or not layout.project
        ):
            # the file itself records the status (XLIFF state=, PO #, fuzzy)
            options = [o for o in options if o.status in ("", "translated", "established")]
        assert options, f"no block with an editable {key or 'source'} edition"
        fresh = [o for o in options if o.block not in taken]
        chosen.append((fresh or options)[0])
    return chosen


# --- what must hold afterwards --------------------------------------------------------------


def hunks(old: bytes, new: bytes, gap: int = 12) -> list[tuple[int, int]]:
    """The changed regions between two byte strings: (bytes removed, bytes added), merged."""
    # The bytes both share at the start and at the end are equal whatever the matcher says;
    # comparing only what lies between keeps the comparison of a large file quick.
    head = 0
    limit = min(len(old), len(new))
    while head < limit and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < limit - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    old, new = old[head : len(old) - tail], new[head : len(new) - tail]
    out: list[list[int]] = []
    last_end = None
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(
        None, old, new, autojunk=False
    ).get_opcodes():
        if tag == "equal":
            continue
        if out and last_end is not None and i1 - last_end <= gap:
            out[-1][0] += i2 - i1 + (i1 - last_end)
            out[-1][1] += j2 - j1 + (i1 - last_end)
        else:
            out.append([i2 - i1, j2 - j1])
        last_end = i2
    return [(a, b) for a, b in out]


def files_of(edit: Edit, layout: Layout) -> set[str]:
    """The files an edit writes: a source edit also reaches a bilingual translation's copy."""
    if layout.bilingual_source or not layout.translation:
        return {layout.source}
    if edit.edition:
        return {layout.translation}
    return {layout.source, layout.translation} if layout.bilingual_translation else {layout.source}


def assert_bytes_confined(
    layout: Layout, before: dict[str, bytes], edits: list[Edit], textual: bool
) -> None:
    for relpath in layout.files:
        old, new = before[relpath], (layout.root / relpath).read_bytes()
        mine = [e for e in edits if relpath in files_of(e, layout)]
        if not mine:
            assert new == old, f"{relpath} changed, though no edit was in it"
            continue
        assert new != old, f"{relpath}: the edit did not reach the file"
        if not textual:
            continue
        # a bilingual file may also record the edition's new status (state=, #, fuzzy)
        bilingual = relpath.endswith((".po", ".pot", ".xlf", ".xliff"))
        slack = 48 if bilingual else 12
        changed = hunks(old, new)
        assert len(changed) <= len(mine) * (2 if bilingual else 1), (relpath, changed)
        longest = max(len(e.word.encode("utf-16")) + len(e.new.encode("utf-16")) for e in mine)
        for removed, added in changed:
            assert max(removed, added) <= longest + slack, (relpath, changed)


def assert_records_kept(
    old_records: list[dict], new_records: list[dict], edits: list[Edit], layout: Layout, where: str
) -> None:
    assert len(new_records) == len(old_records), where
    by_block: dict[str, list[Edit]] = {}
    for edit in edits:
        by_block.setdefault(edit.block, []).append(edit)
    for old, new in zip(old_records, new_records):
        mine = by_block.get(old["ref"]["block"], [])
        if not mine:
            assert new == old, (where, old["ref"])
            continue
        old_views, new_views = views(old, layout), views(new, layout)
        assert old_views.keys() == new_views.keys(), (where, old["ref"], new_views.keys())
        edited = {e.edition: e for e in mine}
        for key, old_view in old_views.items():
            new_view = new_views[key]
            if key in edited:
                shown = json.dumps(new_view, ensure_ascii=False)
                assert edited[key].new in shown, (where, old["ref"], key, new_view)
                continue
            kept = {k: old_view.get(k) for k in ("rev", "text", "structures")}
            assert kept == {k: new_view.get(k) for k in kept}, (where, old["ref"], key)
        # a gettext entry is named by its msgid: editing the source renames the block
        if "" in edited and new["ref"]["block"] != old["ref"]["block"]:
            renamed = old["ref"]["block"].replace(edited[""].word, edited[""].new, 1)
            assert new["ref"]["block"] == renamed, (where, old["ref"], new["ref"])


def read_all(layout: Layout, monkeypatch) -> dict[str, list[dict]]:
    return {
        relpath: inspect(layout.root, monkeypatch, relpath, project=layout.project)
        for relpath in layout.files
    }


@pytest.mark.parametrize(("fmt", "mode", "edit"), list(_cases()))
def test_an_edit_moves_only_the_edited_values(fmt, mode, edit, tmp_path, monkeypatch):
    layout = lay_out(fmt, mode, tmp_path, monkeypatch)
    before = {relpath: (tmp_path / relpath).read_bytes() for relpath in layout.files}
    records = read_all(layout, monkeypatch)
    edits = choose(records[layout.source], layout, edit, mode)
    apply(tmp_path, monkeypatch, [e.op for e in edits], project=layout.project)
    assert_bytes_confined(layout, before, edits, fmt.textual)
    after = read_all(layout, monkeypatch)
    for relpath in layout.files:
        assert_records_kept(records[relpath], after[relpath], edits, layout, relpath)


@pytest.mark.parametrize("fmt", ALONE_MONOLINGUAL)
def test_a_file_read_alone_refuses_an_edition_it_has_no_place_for(fmt, tmp_path, monkeypatch):
    """The cells a monolingual file alone cannot fill: a target edition is refused, not invented."""
    layout = lay_out(fmt, "alone", tmp_path, monkeypatch)
    before = (tmp_path / layout.source).read_bytes()
    records = read_all(layout, monkeypatch)[layout.source]
    editable = [r for r in records if "set_content" in r["ops"]]
    record = next((r for r in editable if not r.get("structures")), editable[0])
    assert all(not r.get("editions") for r in records)
    op = {
        "op": "set_content",
        "at": {**record["ref"], "edition": "ja"},
        "if_match": "absent",
        "text": "ja text",
    }
    result = apply(tmp_path, monkeypatch, [op], project=False, expect="refused")
    error = result["ops"][0]["error"]
    assert (error["code"], error.get("capability")) == ("unsupported", "edition"), error
    assert (tmp_path / layout.source).read_bytes() == before


# --- undo: the reverse edit gives the file back, byte for byte -------------------------------


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=kapi", "-c", "user.email=kapi@example.invalid", *args],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


UNDO = [
    (fmt, mode)
    for fmt in FORMATS
    for mode in MODES
    if not not_applicable(fmt, mode, "both") or mode == "alone"
]
# Xcode's targets carry no state= and read as new: a person's edit of one marks it translated,
# which setting the text back does not undo, so only its source is edited and set back
SOURCE_ONLY_UNDO = {"xliff/xcode.xliff"}


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize(("fmt", "mode"), [pytest.param(f, m, id=f"{f.id}-{m}") for f, m in UNDO])
def test_the_reverse_edit_leaves_git_diff_empty(fmt, mode, tmp_path, monkeypatch):
    layout = lay_out(fmt, mode, tmp_path, monkeypatch)
    edit = "source" if not_applicable(fmt, mode, "both") or fmt.id in SOURCE_ONLY_UNDO else "both"
    (tmp_path / ".gitignore").write_text(".kapi/\n")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-q", "-m", "content as it was")
    records = read_all(layout, monkeypatch)
    edits = choose(records[layout.source], layout, edit, mode, settled=True)
    apply(tmp_path, monkeypatch, [e.op for e in edits], project=layout.project)
    assert git(tmp_path, "status", "--porcelain"), "the edit changed nothing"
    edited = read_all(layout, monkeypatch)[layout.source]
    reverse = []
    # a source edit can rename its block (a PO entry's msgid is its key); the change set's
    # other ops on that block then name it as the edit left it
    renamed = {e.block: e.block.replace(e.word, e.new, 1) for e in edits if not e.edition}
    for edit_made in edits:
        block = renamed.get(edit_made.block, edit_made.block)
        record = next(r for r in edited if r["ref"]["block"] in (block, edit_made.block))
        view = views(record, layout)[edit_made.edition]
        op = json.loads(json.dumps(edit_made.op))
        op["at"]["block"] = record["ref"]["block"]
        op["if_match"] = view["rev"]
        op["edits"] = [{"find": edit_made.new, "text": edit_made.word}]
        reverse.append(op)
    apply(tmp_path, monkeypatch, reverse, project=layout.project)
    diff = git(tmp_path, "diff")
    assert not diff, diff
    assert git(tmp_path, "status", "--porcelain") == ""


# --- a bilingual file's target editions read the same inside a project ----------------------


BILINGUAL = [f for f in FORMATS if f.kind == "bilingual"]


@pytest.mark.parametrize("fmt", [pytest.param(f, id=f.id) for f in BILINGUAL])
def test_a_bilingual_file_shows_the_same_editions_inside_a_project(fmt, tmp_path, monkeypatch):
    alone_root, project_root = tmp_path / "alone", tmp_path / "project"
    alone_root.mkdir()
    project_root.mkdir()
    alone = lay_out(fmt, "alone", alone_root, monkeypatch)
    inside = lay_out(fmt, "source", project_root, monkeypatch)
    outside = inspect(alone_root, monkeypatch, alone.source, project=False)
    within = inspect(project_root, monkeypatch, inside.source, project=True)
    assert [r.get("editions") for r in within] == [r.get("editions") for r in outside]
    assert any(r.get("editions") for r in outside)
    # a translation's own file that a template names joins its source with the same editions
    (tmp_path / "translated").mkdir()
    translated = lay_out(fmt, "translation", tmp_path / "translated", monkeypatch)
    for relpath in translated.files:
        joined = inspect(translated.root, monkeypatch, relpath, project=True)
        assert [r.get("editions") for r in joined] == [r.get("editions") for r in outside]
