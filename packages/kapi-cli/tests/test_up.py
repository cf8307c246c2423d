"""`kapi up`, `kapi status` and `kapi translate` on a copy of the example shop: end to end with the
pseudo provider and a local OpenAI-compatible server; a person's edit survives; a stale target is
reported; plan and dry run write nothing; an interrupted run resumes without redoing its work."""

import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from provider_fakes import KEY, FakeAPI, translated

KAPI = str(Path(sys.executable).with_name("kapi"))
SHOP = Path(__file__).resolve().parents[3] / "examples" / "shop"


def run(root, *args, env=None):
    environ = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("KAPI_", "CLAUDE", "CODEX", "OPENAI", "ANTHROPIC", "DEEPL"))
    }
    environ.update(env or {})
    return subprocess.run(
        [KAPI, *args], cwd=root, capture_output=True, text=True, env=environ, timeout=120
    )


@pytest.fixture
def shop(tmp_path):
    root = tmp_path / "shop"
    shutil.copytree(SHOP, root)
    return root


def catalogue(root, language):
    return json.loads((root / "locales" / f"{language}.json").read_text(encoding="utf-8"))


def status(root):
    done = run(root, "status", "--json")
    assert done.returncode == 0, done.stderr
    return {row["language"]: row for row in json.loads(done.stdout)["languages"]}


def test_the_shop_is_translated_end_to_end_with_the_pseudo_provider(shop):
    (shop / "locales/de.json").unlink()  # a new language: its file starts from the source
    done = run(shop, "up", "--provider", "pseudo", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["refused"] == 0 and result["written"] == 7
    german = catalogue(shop, "de")
    assert german["checkout"]["pay"].count("{{amount}}") == 1
    assert german["checkout"]["items_one"].count("{{count}}") == 1
    assert all(value != "Home" for value in german["nav"].values())
    french = catalogue(shop, "fr")
    assert french["nav"]["home"] == "Accueil"  # a person's translation is left as it is
    assert french["checkout"]["help"].startswith("[")
    events = [json.loads(line) for line in done.stderr.splitlines() if line.startswith("{")]
    assert (
        events and events[-1]["event"] == "progress" and events[-1]["done"] == events[-1]["total"]
    )
    # The writes were the tool's, each target stamped with its source revision.
    db = sqlite3.connect(shop / ".kapi/project.db")
    actors = {row[0] for row in db.execute("SELECT actor_kind FROM change_records")}
    assert actors == {"tool"}
    bases = {
        row[0] for row in db.execute("SELECT basis FROM translation_stamps WHERE kind = 'tool'")
    }
    assert bases and all(basis.startswith("r:") for basis in bases)
    db.close()
    after = status(shop)
    assert after["de"]["missing"] == 0 and after["de"]["draft"] == 7 - 1
    again = run(shop, "up", "--provider", "pseudo", "--json")
    assert json.loads(again.stdout)["written"] == 0  # nothing left to do


def test_the_shipped_shop_adds_the_plural_german_lacks_as_i18next_keys(shop):
    before = (shop / "locales/de.json").read_text(encoding="utf-8")
    done = run(shop, "up", "--provider", "pseudo", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["refused"] == 0
    assert [u for u in result["units"] if u["outcome"] != "written"] == []
    assert ("checkout.items", "de") in [(u["block"], u["language"]) for u in result["units"]]
    after = (shop / "locales/de.json").read_text(encoding="utf-8")
    # The plural is written the source's way, beside what the file held, which is kept.
    german = json.loads(after)["checkout"]
    assert german["items_one"].count("{{count}}") == german["items_other"].count("{{count}}") == 1
    assert "items" not in german and german["title"] == "Kasse"
    assert after.startswith(before.split('"Kasse"')[0] + '"Kasse",\n    "items_one": "[')
    assert "Traceback" not in done.stderr
    inspected = json.loads(run(shop, "inspect", "locales/de.json").stdout)
    assert "checkout.items" in json.dumps(inspected)
    again = run(shop, "up", "--provider", "pseudo", "--json")
    assert again.returncode == 0 and json.loads(again.stdout)["written"] == 0


def test_a_japanese_translation_lacking_the_plural_gets_its_keys(shop):
    project = shop / "kapi.yaml"
    text = project.read_text(encoding="utf-8")
    project.write_text(text.replace("[fr, de]", "[fr, de, ja]"), encoding="utf-8")
    (shop / "locales/ja.json").write_text(
        '{\n  "nav": {\n    "home": "ホーム"\n  }\n}\n', encoding="utf-8"
    )
    done = run(shop, "up", "--provider", "pseudo", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["refused"] == 0
    japanese = catalogue(shop, "ja")
    assert japanese["nav"]["home"] == "ホーム"
    assert japanese["checkout"]["items_other"].count("{{count}}") == 1
    assert "items" not in japanese["checkout"]
    assert "items_one" not in japanese["checkout"]  # Japanese has no category but other


def test_the_shop_is_translated_with_an_openai_compatible_server(shop):
    (shop / "locales/de.json").unlink()
    api = FakeAPI("openai")
    try:
        done = run(shop, "up", "--provider", "openai", "--json", env=api.env)
    finally:
        api.close()
    assert done.returncode == 0, done.stderr
    assert catalogue(shop, "de")["checkout"]["pay"] == translated("Pay {{amount}} now", "de")
    french = catalogue(shop, "fr")["checkout"]["help"]
    assert french == translated("Simply contact support if anything goes wrong.", "fr")
    assert ("de", 'Pay <x id="1/"/> now') in api.segments
    assert KEY not in done.stdout + done.stderr


def test_a_persons_edit_survives_and_a_stale_target_is_reported(shop):
    (shop / "locales/de.json").unlink()
    assert run(shop, "up", "--provider", "pseudo").returncode == 0
    # A person rewrites the French draft by hand.
    fr = shop / "locales/fr.json"
    text = fr.read_text(encoding="utf-8")
    drafted = catalogue(shop, "fr")["checkout"]["help"]
    fr.write_text(text.replace(drafted, "Contactez le support en cas de souci."), encoding="utf-8")
    second = run(shop, "up", "--provider", "pseudo", "--json")
    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout)["written"] == 0
    assert catalogue(shop, "fr")["checkout"]["help"] == "Contactez le support en cas de souci."

    # The source moves: the person's French is reported, the German draft is made again.
    en = shop / "locales/en.json"
    en.write_text(
        en.read_text().replace("Simply contact support", "Contact support"), encoding="utf-8"
    )
    old_german = catalogue(shop, "de")["checkout"]["help"]
    plan = run(shop, "up", "--plan", "--json")
    planned = {p["language"]: p for p in json.loads(plan.stdout)["languages"]}
    assert planned["fr"]["review"] == 1 and planned["de"]["stale"] == 1
    assert status(shop)["fr"]["stale"] == 1
    third = run(shop, "up", "--provider", "pseudo", "--json")
    result = json.loads(third.stdout)
    assert [(u["block"], u["language"]) for u in result["review"]] == [("checkout.help", "fr")]
    assert catalogue(shop, "fr")["checkout"]["help"] == "Contactez le support en cas de souci."
    new_german = catalogue(shop, "de")["checkout"]["help"]
    assert new_german != old_german and "Çöñţåçţ" in new_german
    assert "review" in run(shop, "up", "--provider", "pseudo").stderr
    # The person revises the French: their edit is the review, and it is current again.
    fr.write_text(
        fr.read_text(encoding="utf-8").replace("en cas de souci", "si besoin"), encoding="utf-8"
    )
    assert status(shop)["fr"]["stale"] == 0
    assert run(shop, "up", "--provider", "pseudo", "--json").returncode == 0
    assert json.loads(run(shop, "up", "--plan", "--json").stdout)["review"] == []


def test_a_source_edited_through_kapi_apply_makes_its_targets_stale(shop):
    run(shop, "up", "--provider", "pseudo")
    read = json.loads(run(shop, "inspect", "locales/en.json").stdout)
    title = next(r for r in read if r["ref"]["block"] == "checkout.title")
    change = {
        "ops": [
            {
                "op": "set_content",
                "at": {"doc": "locales/en.json", "block": "checkout.title"},
                "if_match": title["rev"],
                "text": "Check out",
            }
        ]
    }
    done = subprocess.run(
        [KAPI, "apply", "-"],
        cwd=shop,
        input=json.dumps(change),
        capture_output=True,
        text=True,
        env={**os.environ, "KAPI_ACTOR": "person"},
    )
    assert done.returncode == 0, done.stderr
    assert status(shop)["fr"]["stale"] == 1  # Paiement was a person's: it waits for review


def test_plan_and_dry_run_write_nothing(shop):
    before = {p: p.read_bytes() for p in (shop / "locales").iterdir()}
    plan = run(shop, "up", "--plan", "--json")
    assert plan.returncode == 0, plan.stderr
    planned = {p["language"]: p for p in json.loads(plan.stdout)["languages"]}
    assert planned["de"]["missing"] == 3 and planned["fr"]["missing"] == 1
    dry = run(shop, "up", "--provider", "pseudo", "--dry-run", "--json")
    assert dry.returncode in (0, 3), dry.stderr
    assert json.loads(dry.stdout)["dry_run"] is True
    assert {p: p.read_bytes() for p in (shop / "locales").iterdir()} == before
    (shop / "locales/de.json").unlink()
    unborn = run(shop, "up", "--provider", "pseudo", "--dry-run", "--json")
    assert unborn.returncode == 0, unborn.stderr
    german = [u for u in json.loads(unborn.stdout)["units"] if u["language"] == "de"]
    assert len(german) == 6 and all(u["outcome"] == "written" for u in german)
    assert not (shop / "locales/de.json").exists()  # previewed, not started


def test_an_interrupted_up_resumes_without_redoing_finished_work(shop):
    (shop / "locales/de.json").unlink()
    failing = FakeAPI("openai", fail_for="fr")
    try:
        first = run(shop, "up", "--provider", "openai", "--retries", "0", env=failing.env)
    finally:
        failing.close()
    assert first.returncode == 5
    assert "503" in first.stderr and KEY not in first.stderr
    assert catalogue(shop, "de")["checkout"]["pay"] == translated(
        "Pay {{amount}} now", "de"
    )  # kept
    working = FakeAPI("openai")
    try:
        second = run(shop, "up", "--provider", "openai", "--json", env=working.env)
    finally:
        working.close()
    assert second.returncode == 0, second.stderr
    assert {language for language, _ in working.segments} == {"fr"}  # German was not sent again
    assert catalogue(shop, "fr")["checkout"]["help"].startswith("FR: ")


def test_translate_one_file_and_bad_languages(shop):
    done = run(shop, "translate", "locales/en.json", "--to", "fr", "--provider", "pseudo", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["target_file"] == "locales/fr.json"
    bad = run(shop, "translate", "locales/en.json", "--to", "not_a tag!", "--provider", "pseudo")
    assert bad.returncode == 2 and "--to" in bad.stderr
    undeclared = run(shop, "translate", "locales/en.json", "--to", "ja", "--provider", "pseudo")
    assert undeclared.returncode == 2 and "target_languages" in undeclared.stderr
    missing = run(shop, "translate", "locales/nosuch.json", "--to", "fr", "--provider", "pseudo")
    assert missing.returncode == 2 and "locales/nosuch.json: no such file" in missing.stderr
    docs = run(shop, "translate", "docs/getting-started.md", "--to", "fr", "--provider", "pseudo")
    assert docs.returncode == 2, docs.stderr
    assert "collection 'docs' is source_only" in docs.stderr
    assert "target_languages" not in docs.stderr  # fr is declared: that is not the reason
    unknown = run(shop, "up", "--provider", "babelfish")
    assert unknown.returncode == 2 and "unknown provider" in unknown.stderr
    assert "Traceback" not in bad.stderr + undeclared.stderr + unknown.stderr


def test_up_and_run_refuse_a_language_the_project_does_not_translate_into(shop):
    before = {path: path.read_bytes() for path in (shop / "locales").iterdir()}
    for args in (
        ("up", "--to", "es", "--provider", "pseudo"),
        ("up", "--to", "fr", "--to", "es", "--provider", "pseudo"),
        ("run", "translate", "--to", "es", "--provider", "pseudo"),
        ("run", "pseudo-translate", "locales/en.json", "--to", "qps"),
        ("run", "qa", "--to", "es"),
    ):
        done = run(shop, *args)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert "not a target language" in done.stderr and "declared: de, fr" in done.stderr
        assert "target_languages in kapi.yaml" in done.stderr and "Traceback" not in done.stderr
    assert {path: path.read_bytes() for path in (shop / "locales").iterdir()} == before
    assert run(shop, "up", "--to", "fr", "--provider", "pseudo").returncode == 0


def test_status_shape_and_exit_code(shop, tmp_path):
    rows = status(shop)
    assert set(rows) == {"fr", "de"}
    assert rows["de"] == {
        "language": "de",
        "total": 6,
        "translated": 3,
        "missing": 3,
        "stale": 0,
        "draft": 0,
        "established": 0,
        "collection": "",
    }
    collections = json.loads(run(shop, "status", "--json").stdout)["collections"]
    assert {(c["language"], c["collection"]) for c in collections} == {("de", "ui"), ("fr", "ui")}
    outside = run(tmp_path, "status", env={"KAPI_NO_PROJECT": "1"})
    assert outside.returncode == 0 and "kapi init" in outside.stderr
    (shop / "kapi.yaml").write_text("version: v9\n")
    broken = run(shop, "status")
    assert broken.returncode == 0


def test_a_persons_translations_feed_memory_as_kapi_up_finds_them(shop):
    assert run(shop, "up", "--provider", "pseudo", "--quiet").returncode in (0, 3)
    found = run(shop, "memory", "search", "Your cart", "--from", "en", "--to", "fr", "--json")
    assert json.loads(found.stdout)["matches"][0]["target"] == "Votre panier"
    drafted = run(
        shop,
        "memory",
        "search",
        "Simply contact support if anything goes wrong.",
        "--from",
        "en",
        "--to",
        "fr",
        "--json",
    )
    assert json.loads(drafted.stdout)["matches"] == []  # a tool's draft does not


def test_a_signal_mid_run_keeps_what_landed_and_the_next_run_finishes(shop):
    (shop / "locales/de.json").unlink()
    slow = FakeAPI("openai", slow_for="fr")
    environ = {
        k: v for k, v in os.environ.items() if not k.startswith(("KAPI_", "OPENAI", "CLAUDE"))
    }
    process = subprocess.Popen(
        [KAPI, "up", "--provider", "openai", "--retries", "0", "--quiet"],
        cwd=shop,
        env={**environ, **slow.env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # German lands first; French waits on the server
            german = shop / "locales/de.json"
            if german.exists() and "DE: " in german.read_text(encoding="utf-8"):
                break
            time.sleep(0.1)
        french_before = (shop / "locales/fr.json").read_bytes()
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    finally:
        slow.close()
    assert process.returncode == 130, err
    assert "Traceback" not in err
    assert (shop / "locales/fr.json").read_bytes() == french_before  # nothing half-written
    assert catalogue(shop, "de")["checkout"]["pay"] == translated("Pay {{amount}} now", "de")
    working = FakeAPI("openai")
    try:
        done = run(shop, "up", "--provider", "openai", "--json", env=working.env)
    finally:
        working.close()
    assert done.returncode == 0, done.stderr
    assert {language for language, _ in working.segments} == {"fr"}
    assert catalogue(shop, "fr")["checkout"]["help"].startswith("FR: ")


POT = """msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"

msgid "Sign in"
msgstr ""

msgid "Hello %s, welcome back"
msgstr ""
"""


def test_a_gettext_project_fills_empty_msgstrs_and_names_a_missing_catalogue(tmp_path):
    root = tmp_path / "po"
    (root / "locales/fr").mkdir(parents=True)
    (root / "locales/messages.pot").write_text(POT, encoding="utf-8")
    french = POT.replace('"Content-Type', '"Language: fr\\n"\n"Content-Type').replace(
        'msgid "Sign in"\nmsgstr ""', 'msgid "Sign in"\nmsgstr "Se connecter"'
    )
    (root / "locales/fr/messages.po").write_text(french, encoding="utf-8")
    (root / "kapi.yaml").write_text(
        "version: v1\nname: po\ndefaults:\n  source_language: en\n  target_languages: [fr, de]\n"
        "collections:\n  - name: app\n    content:\n      - path: locales/messages.pot\n"
        "        target: locales/{lang}/messages.po\n"
    )
    template = (root / "locales/messages.pot").read_bytes()
    done = run(root, "up", "--provider", "pseudo", "--json")
    assert done.returncode == 3, done.stderr
    result = json.loads(done.stdout)
    refused = [u for u in result["units"] if u["outcome"] == "refused"]
    assert {u["language"] for u in refused} == {"de"}
    assert "msginit" in refused[0]["reason"]
    assert not (root / "locales/de").exists()
    po = (root / "locales/fr/messages.po").read_text(encoding="utf-8")
    assert 'msgstr "Se connecter"' in po  # a person's msgstr is kept
    assert "%s" in po.split("welcome back")[1] and 'msgstr "[' in po
    assert (root / "locales/messages.pot").read_bytes() == template


FRENCH_PO = """msgid ""
msgstr ""
"Language: fr\\n"
"Content-Type: text/plain; charset=UTF-8\\n"
"Plural-Forms: nplurals=2; plural=(n > 1);\\n"

#: app.py:1
msgid "Sign in"
msgstr "Se connecter"

#: app.py:2
#, python-format
msgid "Hello %s, welcome back"
msgstr "Bonjour %s, bon retour"
"""


@pytest.fixture
def gettext(tmp_path):
    """A project `kapi init` made of po/messages.pot and a French catalogue a person translated."""
    root = tmp_path / "gettext"
    (root / "po").mkdir(parents=True)
    header = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
    (root / "po/messages.pot").write_text(
        header + '\n#: app.py:1\nmsgid "Sign in"\nmsgstr ""\n\n#: app.py:2\n#, python-format\n'
        'msgid "Hello %s, welcome back"\nmsgstr ""\n'
    )  # fmt: skip
    (root / "po/fr.po").write_text(FRENCH_PO, encoding="utf-8")
    made = run(root, "init", "--agents", "none", "--no-rules-files")
    assert made.returncode == 0, made.stderr
    assert "po/{lang}.po" in (root / "kapi.yaml").read_text()
    return root


def msgfmt_check(path):
    """gettext's own verdict on a catalogue, where gettext is installed."""
    if shutil.which("msgfmt") is None:
        return
    checked = subprocess.run(
        ["msgfmt", "--check", "-o", os.devnull, str(path)], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stderr


def test_an_entry_the_template_gains_lands_in_the_catalogue_and_nothing_else_changes(gettext):
    pot = gettext / "po/messages.pot"
    pot.write_text(
        pot.read_text().replace(
            '#: app.py:2\n', '#: app.py:5\nmsgid "Open"\nmsgstr ""\n\n#: app.py:2\n'
        ) + '\n#: app.py:9\nmsgid "Close"\nmsgstr ""\n'
    )  # fmt: skip
    done = run(gettext, "up", "--provider", "pseudo", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["written"] == 2
    po = (gettext / "po/fr.po").read_text(encoding="utf-8")
    opened = re.search(r'\n#: app.py:5\n#, fuzzy\nmsgid "Open"\nmsgstr "\[.+\]"\n\n', po)
    closed = re.search(r'\n#: app.py:9\n#, fuzzy\nmsgid "Close"\nmsgstr "\[.+\]"\n$', po)
    assert opened and closed, po
    # the two entries are all that changed; a person's translations are as they were
    assert po.replace(opened.group(0), "\n").replace(closed.group(0), "") == FRENCH_PO
    msgfmt_check(gettext / "po/fr.po")
    again = run(gettext, "up", "--provider", "pseudo", "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["written"] == 0
    assert (gettext / "po/fr.po").read_text(encoding="utf-8") == po
    assert status(gettext)["fr"]["missing"] == 0


def test_a_changed_msgid_gets_its_own_entry_and_the_old_one_stays(gettext):
    pot = gettext / "po/messages.pot"
    pot.write_text(pot.read_text().replace('msgid "Sign in"', 'msgid "Sign in with a passkey"'))
    done = run(gettext, "up", "--provider", "pseudo")
    assert done.returncode == 0, done.stderr
    po = (gettext / "po/fr.po").read_text(encoding="utf-8")
    # in the template's order: before the entry that follows it there
    added = re.search(r'#: app.py:1\n#, fuzzy\nmsgid "Sign in with a passkey"\n'
                      r'msgstr "\[.+\]"\n\n(?=#: app.py:2\n)', po)  # fmt: skip
    assert added, po
    assert po.replace(added.group(0), "") == FRENCH_PO  # the old entry is left as it was
    msgfmt_check(gettext / "po/fr.po")
    assert run(gettext, "up", "--provider", "pseudo").returncode == 0
    assert (gettext / "po/fr.po").read_text(encoding="utf-8") == po


def test_an_entry_the_catalogue_holds_as_obsolete_is_refused_not_defined_twice(gettext):
    catalogue = gettext / "po/fr.po"
    catalogue.write_text(FRENCH_PO + '\n#~ msgid "Quit"\n#~ msgstr "Quitter"\n', encoding="utf-8")
    before = catalogue.read_bytes()
    pot = gettext / "po/messages.pot"
    pot.write_text(pot.read_text() + '\nmsgid "Quit"\nmsgstr ""\n')
    done = run(gettext, "up", "--provider", "pseudo", "--json")
    assert done.returncode == 3, done.stderr
    refused = [u for u in json.loads(done.stdout)["units"] if u["outcome"] == "refused"]
    assert [u["block"] for u in refused] == ["Quit"]
    assert "obsolete" in refused[0]["reason"] and "msgmerge" in refused[0]["reason"]
    assert catalogue.read_bytes() == before


def test_a_plural_entry_the_template_gains_takes_the_catalogues_forms(gettext):
    pot = gettext / "po/messages.pot"
    pot.write_text(
        pot.read_text() + '\n#: app.py:7\n#, python-format\nmsgid "%d file"\n'
        'msgid_plural "%d files"\nmsgstr[0] ""\nmsgstr[1] ""\n'
    )  # fmt: skip
    done = run(gettext, "up", "--provider", "pseudo", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["refused"] == 0
    po = (gettext / "po/fr.po").read_text(encoding="utf-8")
    added = re.search(
        r'\n\n#: app.py:7\n#, fuzzy, python-format\nmsgid "%d file"\nmsgid_plural "%d files"\n'
        r'msgstr\[0\] "\[%d .+\]"\nmsgstr\[1\] "\[%d .+\]"\n$',
        po,
    )
    assert added, po
    assert "msgstr[2]" not in po  # French catalogues have two forms (nplurals=2)
    assert po.replace(added.group(0), "\n") == FRENCH_PO
    msgfmt_check(gettext / "po/fr.po")
    checked = run(gettext, "check", "po/fr.po", "--json")
    assert checked.returncode == 0, checked.stdout


def test_a_remote_provider_lands_every_few_batches(shop):
    (shop / "locales/de.json").unlink()
    api = FakeAPI("openai")
    try:
        done = run(
            shop,
            "up",
            "--provider",
            "openai",
            "--to",
            "de",
            "--batch-size",
            "1",
            "--json",
            env=api.env,
        )
    finally:
        api.close()
    assert done.returncode == 0, done.stderr
    db = sqlite3.connect(shop / ".kapi/project.db")
    sets = db.execute("SELECT count(*) FROM change_records WHERE actor_kind = 'tool'").fetchone()[0]
    db.close()
    assert sets == 2  # six units, batches of one, landing five units at a time: 5, then 1
    assert catalogue(shop, "de")["checkout"]["items_other"] == translated(
        "{{count}} items in your cart", "de"
    )


PLURAL_RULES = {  # the Plural-Forms a gettext catalogue of each language declares
    "fr": (2, "(n > 1)"),
    "ru": (3, "(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2)"),
    "ja": (1, "0"),
    "ar": (6, "(n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 : n%100>=11 ? 4 : 5)"),
}


def test_each_language_gets_its_own_plural_categories(tmp_path):
    """ICU, i18next and gettext targets in Japanese, French, Arabic and Russian, pseudo-translated:
    CLDR's categories where the file takes any, a catalogue's own where it declares them, and
    each target file then passes `kapi check` (QA against its source)."""
    root = tmp_path / "plurals"
    for folder in ("icu", "i18n", *(f"po/{lang}" for lang in PLURAL_RULES)):
        (root / folder).mkdir(parents=True)
    (root / "kapi.yaml").write_text(
        "version: v1\nname: plurals\ndefaults:\n  source_language: en\n"
        "  target_languages: [fr, ru, ja, ar]\ncollections:\n  - name: ui\n    content:\n"
        "      - path: icu/en.json\n        target: icu/{lang}.json\n"
        "      - path: i18n/en.json\n        target: i18n/{lang}.json\n"
        "      - path: po/messages.pot\n        target: po/{lang}/messages.po\n"
    )
    (root / "icu/en.json").write_text(
        '{"left": "{count, plural, =0 {No files left} one {# file left} other {# files left}}"}\n'
    )
    (root / "i18n/en.json").write_text(
        '{"items_one": "{{count}} item", "items_other": "{{count}} items"}\n'
    )
    entry = 'msgid "%d file left"\nmsgid_plural "%d files left"\n'
    (root / "po/messages.pot").write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        + entry + 'msgstr[0] ""\nmsgstr[1] ""\n'
    )  # fmt: skip
    for lang, (count, rule) in PLURAL_RULES.items():
        (root / f"po/{lang}/messages.po").write_text(
            f'msgid ""\nmsgstr ""\n"Language: {lang}\\n"\n'
            f'"Content-Type: text/plain; charset=UTF-8\\n"\n'
            f'"Plural-Forms: nplurals={count}; plural={rule};\\n"\n\n'
            + entry + "".join(f'msgstr[{i}] ""\n' for i in range(count))
        )  # fmt: skip
    done = run(root, "up", "--provider", "pseudo", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["refused"] == 0
    cldr = {
        "fr": ["one", "many", "other"],
        "ru": ["one", "few", "many", "other"],
        "ja": ["other"],
        "ar": ["zero", "one", "two", "few", "many", "other"],
    }
    for lang, categories in cldr.items():
        icu = json.loads((root / f"icu/{lang}.json").read_text(encoding="utf-8"))["left"]
        assert re.findall(r"(=0|zero|one|two|few|many|other) \{", icu) == ["=0", *categories]
        i18n = json.loads((root / f"i18n/{lang}.json").read_text(encoding="utf-8"))
        assert sorted(i18n) == sorted(f"items_{c}" for c in categories)
        po = (root / f"po/{lang}/messages.po").read_text(encoding="utf-8")
        filled = re.findall(r'msgstr\[\d\] "\[%d .+\]"', po)
        assert len(filled) == PLURAL_RULES[lang][0] and 'msgstr[0] ""' not in po
    targets = [f"{folder}/{lang}.json" for folder in ("icu", "i18n") for lang in cldr]
    targets += [f"po/{lang}/messages.po" for lang in cldr]
    checked = run(root, "check", *targets, "--json")
    report = json.loads(checked.stdout)
    assert checked.returncode == 0, [f["message"] for f in report["findings"]]
    ran = [a for a in report["execution"]["analyzers"] if a["id"] == "qa"]
    assert len(ran) == len(targets) and {a["status"] for a in ran} == {"passed"}


def test_a_target_template_spells_languages_the_posix_way(tmp_path):
    """`locale_format: posix` names pt-BR's folder pt_BR: kapi up finds the translation there,
    writes a new language's file there, status counts it, check pairs it with its source."""
    root = tmp_path / "posix"
    (root / "locales/en").mkdir(parents=True)
    (root / "locales/pt_BR").mkdir()
    (root / "locales/en/app.json").write_text('{"title": "Your files", "save": "Save {name}"}')
    (root / "locales/pt_BR/app.json").write_text('{"title": "Seus arquivos"}')
    recipe = (
        "version: v1\nname: posix\ndefaults:\n  source_language: en\n"
        "  target_languages: [pt-BR, zh-Hant]\ncollections:\n  - name: ui\n"
        "    locale_format: posix\n    content:\n      - path: locales/en/app.json\n"
        "        target: locales/{lang}/app.json\n"
    )
    (root / "kapi.yaml").write_text(recipe)
    done = run(root, "up", "--provider", "pseudo", "--json")
    assert done.returncode == 0, done.stderr
    portuguese = json.loads((root / "locales/pt_BR/app.json").read_text(encoding="utf-8"))
    assert portuguese["title"] == "Seus arquivos"  # a person's, found where pt_BR lives
    assert portuguese["save"].count("{name}") == 1
    assert (root / "locales/zh_Hant/app.json").is_file()
    assert not (root / "locales/pt-BR").exists() and not (root / "locales/zh-Hant").exists()
    assert status(root)["pt-BR"]["missing"] == 0
    (root / "locales/pt_BR/app.json").write_text('{"title": "Seus arquivos", "save": "Salvar"}')
    checked = json.loads(run(root, "check", "locales/pt_BR/app.json", "--json").stdout)
    assert [f["rule"] for f in checked["findings"] if f["fails"]] == ["placeholder.missing"]
    (root / "kapi.yaml").write_text(recipe.replace("locale_format: posix", "locale_format: java"))
    bad = run(root, "status")
    assert "kapi.yaml:8" in bad.stderr and "locale_format" in bad.stderr
