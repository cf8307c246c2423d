"""`kapi extract` and `kapi merge` through the real executable: an XLIFF 2.0 round trip lands a
translator's targets in the original JSON and Markdown byte for byte; a unit whose source moved
is refused `stale` while the others land; a foreign, altered or malformed file is refused whole."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

KAPI = str(Path(sys.executable).with_name("kapi"))

RECIPE = """version: v1
id: prj_interchangetest000000000000
name: interchange
defaults:
  source_language: en
  target_languages: [fr]
collections:
  - name: ui
    content:
      - path: locales/en.json
        target: locales/{lang}.json
  - name: docs
    content:
      - path: docs/guide.md
        target: docs/guide.{lang}.md
"""
SOURCE_JSON = '{\n  "hello": "Hello, {{name}}!",\n  "bye": "Goodbye"\n}\n'
FRENCH_JSON = '{\n  "hello": "Bonjour, {{name}} !",\n  "bye": "Au revoir"\n}\n'
GUIDE = "# Guide\n\nRead the **manual** first.\n"


def run(root, *args):
    environ = {
        k: v for k, v in os.environ.items() if not k.startswith(("KAPI_", "CLAUDE", "CODEX"))
    }
    return subprocess.run(
        [KAPI, *args], cwd=root, capture_output=True, text=True, env=environ, timeout=120
    )


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "project"
    (root / "locales").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "kapi.yaml").write_text(RECIPE, encoding="utf-8")
    (root / "locales/en.json").write_text(SOURCE_JSON, encoding="utf-8")
    (root / "locales/fr.json").write_bytes(FRENCH_JSON.encode())
    (root / "docs/guide.md").write_text(GUIDE, encoding="utf-8")
    return root


def extract(root, name="fr.xlf", *options):
    done = run(root, "extract", "--to", "fr", "-o", name, "--json", *options)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["units"] == 4
    return root / name


def fill(xliff, source, target):
    """Give the unit whose source is ``source`` the target ``target``, as a translator's tool does."""
    text = xliff.read_text(encoding="utf-8")
    pattern = re.compile(
        r"(<source>" + re.escape(source) + r"</source>)(\s*<target>.*?</target>)?", re.S
    )
    text, count = pattern.subn(lambda m: f"{m.group(1)}\n        <target>{target}</target>", text)
    assert count == 1
    xliff.write_text(text, encoding="utf-8")


def merge(root, name="fr.xlf"):
    done = run(root, "merge", name, "--json")
    return done, (json.loads(done.stdout) if done.stdout else None)


def test_the_xliff_holds_units_codes_targets_and_revisions_but_no_native_markup(project):
    text = extract(project).read_text(encoding="utf-8")
    assert 'version="2.0"' in text and 'trgLang="fr"' in text
    assert "prj_interchangetest000000000000" in text
    assert '<source>Hello, <ph id="1"/>!</source>' in text
    assert '<target>Bonjour, <ph id="1"/> !</target>' in text
    assert '<source>Read the <pc id="1">manual</pc> first.</source>' in text
    assert "{{name}}" not in text and "**" not in text  # the skeleton stays in kapi
    assert text.count('type="source-rev"') == 4


def test_a_translators_targets_land_in_json_and_markdown_byte_faithfully(project):
    xliff = extract(project)
    fill(xliff, "Goodbye", "Salut")
    fill(xliff, "Guide", "Guide FR")
    fill(xliff, 'Read the <pc id="1">manual</pc> first.', 'Lisez le <pc id="1">manuel</pc>.')
    done, result = merge(project)
    assert done.returncode == 0, done.stderr
    assert result["status"] == "applied"
    assert (project / "locales/fr.json").read_bytes() == FRENCH_JSON.replace(
        "Au revoir", "Salut"
    ).encode()
    assert (project / "docs/guide.fr.md").read_text(encoding="utf-8") == (
        "# Guide FR\n\nLisez le **manuel**.\n"
    )
    assert (project / "locales/en.json").read_text(encoding="utf-8") == SOURCE_JSON


def test_a_unit_whose_source_moved_is_refused_stale_and_the_others_land(project):
    xliff = extract(project)
    fill(xliff, "Goodbye", "Salut")
    fill(xliff, 'Hello, <ph id="1"/>!', 'Salut, <ph id="1"/> !')
    source = project / "locales/en.json"
    source.write_text(SOURCE_JSON.replace("Goodbye", "Bye for now"), encoding="utf-8")
    done, result = merge(project)
    assert done.returncode == 3
    assert result["status"] == "partial"
    outcome = {u["block"]: u for u in result["units"]}
    assert outcome["bye"]["status"] == "refused" and outcome["bye"]["code"] == "stale"
    assert outcome["hello"]["status"] == "applied"
    french = json.loads((project / "locales/fr.json").read_text(encoding="utf-8"))
    assert french == {"hello": "Salut, {{name}} !", "bye": "Au revoir"}


def test_a_dropped_code_or_foreign_markup_is_refused_guard(project):
    xliff = extract(project)
    fill(xliff, 'Hello, <ph id="1"/>!', "Salut !")
    fill(xliff, "Goodbye", "Au <b>revoir</b>")
    done, result = merge(project)
    assert done.returncode == 3
    assert {u["code"] for u in result["units"] if u["status"] == "refused"} == {"guard"}
    assert (project / "locales/fr.json").read_bytes() == FRENCH_JSON.encode()


@pytest.mark.parametrize(
    "spoil",
    [
        pytest.param(
            lambda t: t.replace("prj_interchangetest000000000000", "prj_other"), id="other-project"
        ),
        pytest.param(lambda t: t[: len(t) // 2], id="truncated"),
        pytest.param(
            lambda t: re.sub(r'<unit id="u[0-9a-f]', '<unit id="ux', t, count=1), id="changed-id"
        ),
        pytest.param(
            lambda t: t.replace(
                "</file>", t[t.index("    <unit") : t.index("</unit>") + 8] + "</file>", 1
            ),
            id="duplicated-unit",
        ),
        pytest.param(
            lambda t: t.replace("document:2.0", "document:1.2").replace(
                'version="2.0"', 'version="1.2"'
            ),
            id="xliff-1.2",
        ),
        pytest.param(
            lambda t: t.replace('original="locales/en.json"', 'original="../x.json"'), id="outside"
        ),
        pytest.param(lambda t: t.replace("document:2.0", "document:1.2"), id="xliff-1.2-as-2.0"),
    ],
)
def test_a_bad_file_is_refused_whole(project, spoil):
    xliff = extract(project)
    fill(xliff, "Goodbye", "Salut")
    xliff.write_text(spoil(xliff.read_text(encoding="utf-8")), encoding="utf-8")
    done, _ = merge(project)
    assert done.returncode == 2, done.stderr
    error = json.loads(done.stdout)
    assert error["code"] == "invalid" and "nothing was merged" in error["error"]
    assert "Traceback" not in done.stderr
    assert (project / "locales/fr.json").read_bytes() == FRENCH_JSON.encode()


def test_extract_writes_nothing_outside_the_project(project):
    done = run(project, "extract", "--to", "fr", "-o", "../outside.xlf")
    assert done.returncode == 2 and "outside" in done.stderr
    assert not (project.parent / "outside.xlf").exists()


def test_extract_of_named_files_holds_only_their_units(project):
    done = run(project, "extract", "docs/guide.md", "--to", "fr", "-o", "guide.xlf", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["units"] == 2
    assert "locales/en.json" not in (project / "guide.xlf").read_text(encoding="utf-8")
    refused = run(project, "extract", "locales/fr.json", "--to", "fr", "-o", "x.xlf")
    assert refused.returncode == 2 and "not a source document" in refused.stderr


def test_an_xliff_12_round_trip_lands_like_20(project):
    xliff = extract(project, "fr12.xlf", "--format", "xliff12")
    text = xliff.read_text(encoding="utf-8")
    assert 'version="1.2"' in text and 'target-language="fr"' in text
    assert '<source>Read the <g id="1">manual</g> first.</source>' in text
    assert '<source>Hello, <x id="1"/>!</source>' in text
    text = text.replace(
        '<source>Goodbye</source>\n        <target state="translated">Au revoir</target>',
        '<source>Goodbye</source>\n        <target state="translated">Salut</target>',
    ).replace(
        '<source>Read the <g id="1">manual</g> first.</source>',
        '<source>Read the <g id="1">manual</g> first.</source><target>Lisez le <g id="1">manuel</g>.</target>',
    )
    xliff.write_text(text, encoding="utf-8")
    done, result = merge(project, "fr12.xlf")
    assert done.returncode == 0, done.stdout + done.stderr
    assert result["status"] == "applied"
    assert json.loads((project / "locales/fr.json").read_text(encoding="utf-8"))["bye"] == "Salut"
    assert "Lisez le **manuel**." in (project / "docs/guide.fr.md").read_text(encoding="utf-8")


def test_a_translation_handed_back_as_it_was_is_unchanged_even_when_its_source_moved(project):
    xliff = extract(project)
    fill(xliff, "Goodbye", "Salut")
    (project / "locales/en.json").write_text(SOURCE_JSON.replace("Hello", "Hi"), encoding="utf-8")
    done, result = merge(project)
    assert done.returncode == 0, done.stdout + done.stderr
    outcome = {u["block"]: u["status"] for u in result["units"]}
    assert outcome == {"hello": "unchanged", "bye": "applied"}


def one_file_project(tmp_path, path, target, text):
    """A project of one source file ``path`` whose translations live at ``target``."""
    root = tmp_path / "app"
    (root / path).parent.mkdir(parents=True)
    (root / "kapi.yaml").write_text(
        RECIPE.split("collections:")[0]
        + f"collections:\n  - name: app\n    content:\n      - path: {path}\n"
        f"        target: {target}\n",
        encoding="utf-8",
    )
    (root / path).write_text(text, encoding="utf-8")
    return root


ANDROID = """<?xml version="1.0" encoding="utf-8"?>
<resources>
    <!-- Shown on the checkout button & more -->
    <string name="pay">Pay now</string>
</resources>
"""


def test_a_blocks_note_travels_with_its_unit_and_a_new_android_file_is_started(tmp_path):
    root = one_file_project(
        tmp_path, "res/values/strings.xml", "res/values-{lang}/strings.xml", ANDROID
    )
    done = run(root, "extract", "--to", "fr", "-o", "app.xlf")
    assert done.returncode == 0, done.stderr
    xliff = root / "app.xlf"
    assert "<notes><note>Shown on the checkout button &amp; more</note></notes>" in xliff.read_text(
        encoding="utf-8"
    )
    fill(xliff, "Pay now", "Payer")
    done, result = merge(root, "app.xlf")
    assert done.returncode == 0, done.stdout + done.stderr
    assert result["status"] == "applied"
    french = (root / "res/values-fr/strings.xml").read_text(encoding="utf-8")
    assert french == ANDROID.replace("Pay now", "Payer")


@pytest.mark.parametrize("name", ["locales/en.json", "locales/fr.json", "kapi.yaml", ".kapi/x.xlf"])
def test_extract_never_writes_over_the_projects_own_files(project, name):
    before = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
    done = run(project, "extract", "--to", "fr", "-o", name)
    assert done.returncode == 2 and "name a new file" in done.stderr
    assert {p: p.read_bytes() for p in project.rglob("*") if p.is_file()} == before


# --- PO -------------------------------------------------------------------------------------


def extract_po(root, name="fr.po", *options):
    done = run(root, "extract", "--to", "fr", "-o", name, "--format", "po", "--json", *options)
    assert done.returncode == 0, done.stderr
    return root / name


def po_fill(path, targets, *, fuzzy=()):
    """Fill entries as a translator's tool does: polib reads the file, sets msgstr and writes
    the whole file again in its own layout (comments re-wrapped, flags cleared)."""
    import polib

    catalog = polib.pofile(str(path))
    for entry in catalog:
        if entry.msgid in targets:
            entry.msgstr = targets[entry.msgid]
            entry.flags = ["fuzzy"] if entry.msgid in fuzzy else []
    catalog.save(str(path))


def test_a_po_round_trip_through_a_translators_tool_lands_byte_faithfully(project):
    po = extract_po(project)
    text = po.read_text(encoding="utf-8")
    assert "X-Kapi-Project: prj_interchangetest000000000000" in text
    assert 'msgctxt "locales/en.json:hello"' in text
    assert 'msgid "Hello, <ph id=\\"1\\"/>!"' in text
    assert 'msgstr "Bonjour, <ph id=\\"1\\"/> !"' in text
    assert 'msgid "Read the <pc id=\\"1\\">manual</pc> first."' in text
    assert "{{name}}" not in text and "**" not in text  # the skeleton stays in kapi
    po_fill(
        po,
        {
            "Goodbye": "Salut",
            "Guide": "Guide FR",
            'Read the <pc id="1">manual</pc> first.': 'Lisez le <pc id="1">manuel</pc>.',
        },
    )
    done, result = merge(project, "fr.po")
    assert done.returncode == 0, done.stdout + done.stderr
    assert {u["block"]: u["status"] for u in result["units"]} == {
        "hello": "unchanged",
        "bye": "applied",
        "s1": "applied",
        "s1/p1": "applied",
    }
    assert (project / "locales/fr.json").read_bytes() == FRENCH_JSON.replace(
        "Au revoir", "Salut"
    ).encode()
    assert (project / "docs/guide.fr.md").read_text(encoding="utf-8") == (
        "# Guide FR\n\nLisez le **manuel**.\n"
    )


def test_po_marks_a_stale_translation_fuzzy_skips_a_fuzzy_entry_and_refuses_a_moved_one(project):
    done = run(project, "up", "--provider", "pseudo", "--json")  # kapi now knows each target
    assert done.returncode == 0, done.stdout + done.stderr
    source = project / "locales/en.json"
    source.write_text(SOURCE_JSON.replace("Goodbye", "Bye for now"), encoding="utf-8")
    po = extract_po(project)
    entry = po.read_text(encoding="utf-8").split('msgctxt "locales/en.json:bye"')[0]
    assert entry.rstrip().endswith("#, fuzzy")  # its source moved since it was written
    po_fill(po, {"Bye for now": "À plus", "Guide": "Guide FR"}, fuzzy=("Guide",))
    po_fill(po, {'Hello, <ph id="1"/>!': 'Salut, <ph id="1"/> !'})
    source.write_text(source.read_text(encoding="utf-8").replace("Hello", "Hi"), encoding="utf-8")
    done, result = merge(project, "fr.po")
    assert done.returncode == 3, done.stdout + done.stderr
    outcome = {u["block"]: (u["status"], u["code"]) for u in result["units"]}
    assert outcome["bye"] == ("applied", "")
    assert outcome["s1"] == ("skipped", "")  # still marked fuzzy: gettext does not use it
    assert outcome["hello"] == ("refused", "stale")
    assert result["status"] == "partial"
    assert json.loads((project / "locales/fr.json").read_text(encoding="utf-8"))["bye"] == "À plus"
    assert not (project / "docs/guide.fr.md").read_text(encoding="utf-8").startswith("# Guide FR")


def test_a_po_target_with_markup_that_is_not_a_code_is_refused_guard(project):
    po = extract_po(project)
    po_fill(po, {"Goodbye": "Au <b>revoir</b>", 'Hello, <ph id="1"/>!': "Salut !"})
    done, result = merge(project, "fr.po")
    assert done.returncode == 3
    refused = {u["block"]: u for u in result["units"] if u["status"] == "refused"}
    assert {b: u["code"] for b, u in refused.items()} == {"bye": "guard", "hello": "guard"}
    assert "<b> in the target is not a code" in refused["bye"]["reason"]
    assert (project / "locales/fr.json").read_bytes() == FRENCH_JSON.encode()


def _last_entry_dropped(text):
    return text[: text.rindex("\n#. kapi")] + "\n"


@pytest.mark.parametrize(
    "spoil",
    [
        pytest.param(
            lambda t: t.replace("prj_interchangetest000000000000", "prj_other"), id="other-project"
        ),
        pytest.param(lambda t: t[: t.rindex("msgstr") + 12], id="truncated-in-a-string"),
        pytest.param(_last_entry_dropped, id="truncated-at-an-entry"),
        pytest.param(
            lambda t: t.replace('msgctxt "locales/en.json:bye"', 'msgctxt "locales/en.json:by"'),
            id="changed-id",
        ),
        pytest.param(
            lambda t: t + t[t.index("#. kapi", t.index("locales/en.json:bye") - 200) :],
            id="duplicated-entry",
        ),
        pytest.param(lambda t: re.sub(r"#\. kapi .*\n", "", t, count=1), id="lost-record"),
        pytest.param(lambda t: t.replace("X-Kapi-Project", "X-Project"), id="not-kapis"),
    ],
)
def test_a_bad_po_file_is_refused_whole(project, spoil):
    po = extract_po(project)
    po_fill(po, {"Goodbye": "Salut"})
    po.write_text(spoil(po.read_text(encoding="utf-8")), encoding="utf-8")
    done, _ = merge(project, "fr.po")
    assert done.returncode == 2, done.stdout + done.stderr
    error = json.loads(done.stdout)
    assert error["code"] == "invalid" and "nothing was merged" in error["error"]
    assert "Traceback" not in done.stderr
    assert (project / "locales/fr.json").read_bytes() == FRENCH_JSON.encode()


# --- length limits --------------------------------------------------------------------------


def test_length_limits_travel_in_each_interchange_format(project):
    xliff2 = extract(project, "fr.xlf", "--max-chars", "40").read_text(encoding="utf-8")
    assert '<slr:profiles generalProfile="xliff:codepoints"/>' in xliff2
    assert xliff2.count('slr:sizeRestriction="40"') == 4
    xliff12 = extract(project, "fr12.xlf", "--format", "xliff12", "--max-chars", "40")
    assert xliff12.read_text(encoding="utf-8").count('maxwidth="40" size-unit="char"') == 4
    po = extract_po(project, "fr.po", "--max-chars", "40").read_text(encoding="utf-8")
    assert po.count("#. At most 40 characters.") == 4
    assert "slr:" not in extract(project, "plain.xlf").read_text(encoding="utf-8")


XLIFF_SOURCE = """<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:1.2" version="1.2">
  <file original="app" source-language="en" datatype="plaintext">
    <body>
      <trans-unit id="pay" maxwidth="12" size-unit="char"><source>Pay now</source></trans-unit>
      <trans-unit id="cancel"><source>Cancel the order</source></trans-unit>
    </body>
  </file>
</xliff>
"""


def test_a_blocks_own_length_limit_reaches_the_extract_and_the_lower_limit_wins(tmp_path):
    root = one_file_project(tmp_path, "l10n/app.en.xlf", "l10n/app.{lang}.xlf", XLIFF_SOURCE)
    text = extract_po(root, "fr.po", "--max-chars", "30").read_text(encoding="utf-8")
    pay, cancel = text.split('msgctxt "l10n/app.en.xlf:pay"')
    assert "#. At most 12 characters." in pay and "At most 30" not in pay  # the header holds a date
    assert "#. At most 30 characters." in cancel
    done = run(root, "extract", "--to", "fr", "-o", "fr.xlf")  # no cap: only the block's own
    assert done.returncode == 0, done.stderr
    xliff = (root / "fr.xlf").read_text(encoding="utf-8")
    assert xliff.count("slr:sizeRestriction") == 1 and 'slr:sizeRestriction="12"' in xliff


# --- office documents -----------------------------------------------------------------------

OFFICE_RECIPE = RECIPE.split("collections:")[0] + (
    "collections:\n  - name: office\n    content:\n      - path: docs/*.*\n"
    "        target: docs/fr/{filename}\n"
)


def parts(path):
    import zipfile

    with zipfile.ZipFile(path) as package:
        return {name: package.read(name) for name in package.namelist()}


@pytest.mark.parametrize(
    ("kind", "name"), [("docx", "report.docx"), ("xlsx", "book.xlsx"), ("pptx", "deck.pptx")]
)
def test_merged_targets_land_in_an_office_document_changing_only_their_text(tmp_path, kind, name):
    from tests.office_made import office_bytes

    root = tmp_path / "office"
    (root / "docs").mkdir(parents=True)
    (root / "kapi.yaml").write_text(OFFICE_RECIPE, encoding="utf-8")
    (root / "docs" / name).write_bytes(office_bytes(kind))
    done = run(root, "extract", "--to", "fr", "-o", "fr.xlf", "--json")
    assert done.returncode == 0, done.stderr
    units = json.loads(done.stdout)["units"]
    xliff = root / "fr.xlf"
    xliff.write_text(  # a translator marks every unit: "FR " before its first word
        re.sub(
            r"<source>(.*?)</source>",
            lambda m: f"<source>{m.group(1)}</source><target>FR {m.group(1)}</target>",
            xliff.read_text(encoding="utf-8"),
        ),
        encoding="utf-8",
    )
    done, result = merge(root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert result["status"] == "applied" and len(result["units"]) == units
    source, french = parts(root / "docs" / name), parts(root / "docs/fr" / name)
    assert list(french) == list(source)
    changed = [part for part in source if source[part] != french[part]]
    for part in changed:  # each differs only by the text a unit inserted where its text starts
        assert french[part].replace(b">FR ", b">") == source[part], part
    assert sum(french[part].count(b">FR ") for part in changed) == units

    # A second hand-off changes one unit of the existing translation, and only that.
    first = result["units"][0]
    done = run(root, "extract", "--to", "fr", "-o", "again.xlf")
    assert done.returncode == 0, done.stderr
    again = root / "again.xlf"
    text = again.read_text(encoding="utf-8")
    unit = text[text.index(f'name="{first["block"]}"') :]
    old = re.search(r"<target>FR (.*?)</target>", unit).group(1)
    again.write_text(
        text.replace(f"<target>FR {old}</target>", "<target>Traduit</target>", 1), encoding="utf-8"
    )
    before = parts(root / "docs/fr" / name)
    done, result = merge(root, "again.xlf")
    assert done.returncode == 0, done.stdout + done.stderr
    assert [u["status"] for u in result["units"]].count("applied") == 1
    after = parts(root / "docs/fr" / name)
    touched = [part for part in before if before[part] != after[part]]
    assert len(touched) == 1
    assert after[touched[0]] == before[touched[0]].replace(f">FR {old}<".encode(), b">Traduit<", 1)


def test_a_docx_translation_keeps_its_bold_run_bold(tmp_path):
    import docx

    from tests.office_made import office_bytes

    root = tmp_path / "office"
    (root / "docs").mkdir(parents=True)
    (root / "kapi.yaml").write_text(OFFICE_RECIPE, encoding="utf-8")
    (root / "docs/report.docx").write_bytes(office_bytes("docx"))
    xliff = root / "fr.xlf"
    assert run(root, "extract", "--to", "fr", "-o", "fr.xlf").returncode == 0
    fill(
        xliff,
        'Revenue grew in every region, <pc id="1">especially in the north</pc>.',
        'Le chiffre a augmenté partout, <pc id="1">surtout au nord</pc>.',
    )
    done, _ = merge(root)
    assert done.returncode == 0, done.stdout + done.stderr
    paragraph = docx.Document(str(root / "docs/fr/report.docx")).paragraphs[1]
    assert [(r.text, bool(r.bold)) for r in paragraph.runs] == [
        ("Le chiffre a augmenté partout, ", False),
        ("surtout au nord", True),
        (".", False),
    ]


def test_po_leaves_out_a_block_whose_text_reads_like_a_code(project):
    (project / "locales/en.json").write_text(
        SOURCE_JSON.replace("Goodbye", "Close the </pc> tag"), encoding="utf-8"
    )
    done = run(project, "extract", "--to", "fr", "-o", "fr.po", "--format", "po", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["units"] == 3
    assert "locales/en.json bye: its text spells <ph>/<pc> (use XLIFF)" in result["left_out"]
    assert "Close the" not in (project / "fr.po").read_text(encoding="utf-8")
