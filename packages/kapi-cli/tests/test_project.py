"""Projects: the recipe, discovery, translations joined as editions, the store behind assets."""

import json
import re
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from kapi.host.errors import HostError
from kapi.host.project import ContentItem, discover_project, load_project, target_path
from kapi.host.store import ProjectStore

RECIPE = textwrap.dedent(
    """\
    # the shop's recipe
    version: v1
    id: prj_test
    name: shop
    defaults:
      source_language: en
      target_languages: [fr, de]   # keep this comment
    collections:
      - name: ui
        content:
          - path: 'locales/en.json'
            target: 'locales/{lang}.json'
      - name: docs
        content:
          - path: 'docs/**/*.md'
        source_only: true
    x-team: growth
    """
)
EN = '{\n  "title": "Welcome",\n  "pay": "Pay {{amount}} now"\n}\n'
FR = '{\n  "title": "Bienvenue"\n}\n'


@pytest.fixture
def shop(kapi):
    (kapi.root / "kapi.yaml").write_text(RECIPE)
    (kapi.root / "locales").mkdir()
    (kapi.root / "locales/en.json").write_text(EN)
    (kapi.root / "locales/fr.json").write_text(FR)
    (kapi.root / "docs").mkdir()
    (kapi.root / "docs/guide.md").write_text("# Guide\n\nRead this first.\n")
    return kapi


def test_target_templates():
    assert (
        target_path(
            ContentItem(path="locales/en.json", target="locales/{lang}.json"),
            "locales/en.json",
            "fr",
        )
        == "locales/fr.json"
    )
    assert (
        target_path(ContentItem(path="input/**", target="output/{lang}"), "input/docs/api.md", "fr")
        == "output/fr/docs/api.md"
    )
    assert (
        target_path(ContentItem(path="docs/**/*.md", target="i18n/{lang}/"), "docs/a/b.md", "de")
        == "i18n/de/a/b.md"
    )
    assert (
        target_path(
            ContentItem(path="src/*.txt", target="out/{lang}/{name}.{ext}"), "src/x.txt", "it"
        )
        == "out/it/x.txt"
    )


def test_load_recipe_and_claims(shop):
    project = load_project(shop.root / "kapi.yaml")
    assert project.id == "prj_test" and project.target_languages == ("fr", "de")
    assert project.claim("locales/en.json")[0].name == "ui"
    assert project.claim("docs/guide.md")[0].name == "docs"
    assert project.claim("README.md") is None
    assert project.translation_paths("locales/en.json") == {
        "fr": "locales/fr.json",
        "de": "locales/de.json",
    }
    assert project.source_of("locales/fr.json") == ("locales/en.json", "fr")
    assert list(project.source_files()) == ["docs/guide.md", "locales/en.json"]
    assert project.raw["x-team"] == "growth"  # unknown keys are kept


def test_recipe_errors_name_file_line_and_key(tmp_path):
    recipe = tmp_path / "kapi.yaml"
    recipe.write_text("version: v1\ndefaults:\n  source_language: english!\n")
    with pytest.raises(HostError) as err:
        load_project(recipe)
    assert "kapi.yaml:3" in err.value.message and "defaults.source_language" in err.value.message
    assert err.value.exit_code == 2
    recipe.write_text("version: v2\n")
    with pytest.raises(HostError, match="version must be v1"):
        load_project(recipe)
    recipe.write_text("version: v1\ncollections:\n  - name: x\n    content: [{path: 'a/[b'}]\n")
    with pytest.raises(HostError, match="path"):
        load_project(recipe)
    recipe.write_text("version: v1\ndefaults: {source_langauge: en}\n")
    assert any("did you mean defaults.source_language" in w for w in load_project(recipe).warnings)


def test_a_likely_typo_in_the_recipe_is_said_by_every_verb(shop):
    recipe = shop.root / "kapi.yaml"
    recipe.write_text(RECIPE.replace("defaults:", "defaultz:"))
    for args in (("status",), ("up", "--provider", "pseudo", "--plan"), ("check", "docs/guide.md")):
        result = shop(*args)
        said = re.search(
            r"warning: kapi\.yaml(:5)?: defaultz: unknown key; did you mean defaults\?",
            result.stderr,
        )
        assert said is not None, (args, result.stderr)
        assert str(shop.root) not in result.stderr  # the recipe is named as the project has it
    recipe.write_text(RECIPE)
    assert "warning" not in shop("status").stderr
    recipe.write_text(RECIPE.replace("target_languages: [fr, de]", "target_languages: [fr, en]"))
    said = shop("status").stderr
    assert "warning: kapi.yaml: defaults.target_languages names the source language en" in said


def test_discovery_order(tmp_path, monkeypatch):
    (tmp_path / "kapi.yaml").write_text("version: v1\n")
    inner = tmp_path / "a" / "b"
    inner.mkdir(parents=True)
    assert discover_project(inner, environ={}) == tmp_path / "kapi.yaml"
    assert discover_project(inner, environ={"KAPI_NO_PROJECT": "1"}) is None
    other = tmp_path / "other"
    other.mkdir()
    (other / "kapi.yaml").write_text("version: v1\n")
    assert discover_project(inner, environ={"KAPI_PROJECT": str(other)}) == other / "kapi.yaml"
    assert (
        discover_project(inner, explicit=str(other), environ={"KAPI_NO_PROJECT": "1"})
        == other / "kapi.yaml"
    )
    assert discover_project(inner, environ={"KAPI_PROJECT": ""}) == tmp_path / "kapi.yaml"


def test_inspect_joins_translations_and_names_the_own_edition(shop):
    records = shop.inspect("locales/en.json")
    title = next(r for r in records if r["ref"]["block"] == "title")
    assert title["ref"]["edition"] == "en"
    assert title["editions"]["fr"]["text"] == "Bienvenue"
    assert "de" not in title["editions"]
    # a translation's own file reads as its source
    assert shop.inspect("locales/fr.json")[0]["ref"]["doc"] == "locales/en.json"
    # with no files, the project's declared content
    result = shop("inspect")
    docs = {r["ref"]["doc"] for r in json.loads(result.stdout)}
    assert docs == {"locales/en.json", "docs/guide.md"}


def test_apply_writes_translations_into_their_own_files(shop):
    records = {r["ref"]["block"]: r for r in shop.inspect("locales/en.json")}
    ops = [
        {
            "op": "set_content",
            "at": {"doc": "locales/fr.json", "block": "title"},
            "if_match": records["title"]["editions"]["fr"]["rev"],
            "text": "Salut",
        },
        {
            "op": "set_content",
            "at": {"doc": "locales/en.json", "block": "pay", "edition": "fr"},
            "if_match": "absent",
            "text": records["pay"]["text"].replace("Pay", "Payer").replace("now", "maintenant"),
        },
    ]
    result = shop("apply", "--json", "-", input=json.dumps({"ops": ops}))
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["ops"][0]["at"] == {"doc": "locales/en.json", "block": "title", "edition": "fr"}
    written = {d.get("file"): d["written"] for d in payload["docs"]}
    assert written == {None: False, "locales/fr.json": True}
    assert (shop.root / "locales/en.json").read_text() == EN
    assert json.loads((shop.root / "locales/fr.json").read_text()) == {
        "title": "Salut",
        "pay": "Payer {{amount}} maintenant",
    }
    assert payload["record"].startswith("chg_")


def test_missing_translation_file_is_refused_clearly(shop):
    result = shop(
        "apply",
        "--json",
        "-",
        input=json.dumps(
            {
                "ops": [
                    {
                        "op": "set_content",
                        "at": {"doc": "locales/en.json", "block": "title", "edition": "de"},
                        "if_match": "absent",
                        "text": "Hallo",
                    }
                ]
            }
        ),
    )
    assert result.exit_code == 3
    error = json.loads(result.stdout)["ops"][0]["error"]
    assert error["code"] == "unsupported" and "locales/de.json does not exist" in error["message"]


def test_an_undeclared_language_has_no_place(shop):
    result = shop(
        "apply",
        "--json",
        "-",
        input=json.dumps(
            {
                "ops": [
                    {
                        "op": "set_content",
                        "at": {"doc": "locales/en.json", "block": "title", "edition": "it"},
                        "if_match": "absent",
                        "text": "Ciao",
                    }
                ]
            }
        ),
    )
    assert json.loads(result.stdout)["ops"][0]["error"]["capability"] == "edition"


def test_person_term_ops_land_in_the_store_and_agents_are_refused(shop):
    term = {
        "op": "term",
        "action": "upsert",
        "term": "cart",
        "status": "preferred",
        "replaces": "basket",
    }
    result = shop("apply", "--json", "-", input=json.dumps({"ops": [term]}))
    assert result.exit_code == 0, result.output
    store = ProjectStore(shop.root / ".kapi/project.db")
    concepts = store.concepts()
    assert [(t.text, t.status) for t in concepts[0].terms] == [
        ("cart", "preferred"),
        ("basket", "deprecated"),
    ]
    assert store.context_log()[0]["kind"] == "context.edit"
    agent = shop(
        "apply", "--json", "-", input=json.dumps({"ops": [term]}), env={"KAPI_ACTOR": "agent"}
    )
    assert json.loads(agent.stdout)["ops"][0]["error"]["code"] == "not_permitted"


def test_recipe_op_keeps_comments_and_refuses_other_fields(shop):
    ops = [{"op": "recipe", "path": "defaults.target_languages", "value": ["fr", "de", "it"]}]
    assert shop("apply", "-", input=json.dumps({"ops": ops})).exit_code == 0
    text = (shop.root / "kapi.yaml").read_text()
    assert "# keep this comment" in text and "# the shop's recipe" in text
    assert load_project(shop.root / "kapi.yaml").target_languages == ("fr", "de", "it")
    bad = shop(
        "apply",
        "--json",
        "-",
        input=json.dumps({"ops": [{"op": "recipe", "path": "id", "value": "x"}]}),
    )
    assert bad.exit_code == 2
    assert json.loads(bad.stdout)["ops"][0]["error"]["code"] == "invalid"


def test_agent_decide_advise_is_recorded(shop):
    records = {r["ref"]["block"]: r for r in shop.inspect("locales/en.json")}
    op = {
        "op": "decide",
        "at": {"doc": "locales/en.json", "block": "title", "edition": "fr"},
        "if_match": records["title"]["editions"]["fr"]["rev"],
        "outcome": "advise",
        "score": 90,
        "reasons": ["fluent"],
    }
    result = shop(
        "apply",
        "--json",
        "-",
        input=json.dumps({"ops": [op]}),
        env={"KAPI_ACTOR": "agent", "KAPI_AGENT_NAME": "claude", "KAPI_AGENT_SESSION": "s1"},
    )
    assert result.exit_code == 0, result.output
    store = ProjectStore(shop.root / ".kapi/project.db", project="prj_test")
    decisions = store.decisions("locales/en.json", "title", "fr")
    assert decisions[0]["outcome"] == "advise" and decisions[0]["score"] == 90
    assert store.sessions()[0]["id"] == "s1"


def test_store_is_wal_with_migrations_and_foreign_keys(tmp_path):
    store = ProjectStore(tmp_path / ".kapi/project.db")
    assert store.schema_version() == 3
    db = sqlite3.connect(tmp_path / ".kapi/project.db")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    again = ProjectStore(tmp_path / ".kapi/project.db")  # re-opening migrates nothing twice
    assert again.schema_version() == 3
    assert db.execute("SELECT COUNT(*) FROM schema_migrations").fetchone()[0] == 3


def test_store_takes_concurrent_writers_from_several_processes(tmp_path):
    path = tmp_path / ".kapi/project.db"
    ProjectStore(path)
    code = textwrap.dedent(
        f"""
        from pathlib import Path
        from kapi.core.change.ports import Actor
        from kapi.host.store import ProjectStore
        store = ProjectStore(Path({str(path)!r}))
        for n in range(50):
            store.memory_add(("en", f"hello {{n}}"), ("fr", f"bonjour {{n}}"), Actor("person"))
        """
    )
    procs = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(4)]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    db = sqlite3.connect(path)
    assert db.execute("SELECT COUNT(*) FROM tm_entries").fetchone()[0] == 200


def test_init_proposes_collections_and_keeps_an_existing_recipe(kapi):
    (kapi.root / "locales").mkdir()
    (kapi.root / "locales/en.json").write_text(EN)
    (kapi.root / "locales/fr.json").write_text(FR)
    (kapi.root / "docs").mkdir()
    (kapi.root / "docs/a.md").write_text("# A\n")
    result = kapi("init", "--json")
    assert result.exit_code == 0, result.output
    made = json.loads(result.stdout)
    assert made["target_languages"] == ["fr"] and made["id"].startswith("prj_")
    assert [c["name"] for c in made["collections"]] == ["ui", "docs"]
    assert (kapi.root / ".kapi/.gitignore").read_text() == "*\n"
    project = load_project(kapi.root / "kapi.yaml")
    assert project.translation_paths("locales/en.json") == {"fr": "locales/fr.json"}
    recipe = (kapi.root / "kapi.yaml").read_bytes()
    again = kapi("init", "--json")
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["recipe_written"] is False
    assert (kapi.root / "kapi.yaml").read_bytes() == recipe


@pytest.mark.parametrize(
    ("snippet", "line", "key"),
    [
        ("gates:\n  strict: {reviewd: 100}\n", 3, "gates.strict.reviewd"),
        ("gates:\n  strict: {reviewed: 140}\n", 3, "gates.strict.reviewed"),
        ("ship_gate: missing\n", 2, "ship_gate"),
        ("ship_gates:\n  - when: {locales: [fr]}\n", 3, "ship_gates[0]"),
    ],
)
def test_malformed_gates_name_line_and_key(tmp_path, snippet, line, key):
    recipe = tmp_path / "kapi.yaml"
    recipe.write_text("version: v1\n" + snippet)
    with pytest.raises(HostError) as err:
        load_project(recipe)
    assert f"kapi.yaml:{line}: {key}:" in err.value.message
    assert err.value.exit_code == 2


def test_a_bad_channel_binding_names_its_line_when_checked(shop):
    text = (
        (shop.root / "kapi.yaml")
        .read_text()
        .replace("  - name: docs\n", "  - name: docs\n    channel: nowhere/else\n")
    )
    (shop.root / "kapi.yaml").write_text(text)
    result = shop("check", "docs/guide.md")
    assert result.exit_code == 2
    assert "kapi.yaml:14: collections[1].channel:" in result.stderr


def test_a_path_no_template_could_name_is_never_searched_for(shop, monkeypatch):
    project = load_project(shop.root / "kapi.yaml")
    assert project.could_be_translation("locales/fr.json")
    assert not project.could_be_translation("docs/guide.md")

    def no_walk(*args, **kwargs):
        raise AssertionError("walked the tree")

    monkeypatch.setattr(type(project), "source_files", no_walk)
    assert project.source_of("docs/guide.md") is None
