"""The files that govern a project are a person's: agents may not edit them, checks skip them.

The recipe (``kapi.yaml``), the voice profiles under ``voices/``, the terms
bundles, and everything under ``.kapi/``. Every test runs the real ``kapi``
command in a project made in a temporary folder, as an agent or a person.
"""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

KAPI = str(Path(sys.executable).parent / "kapi")
RECIPE = textwrap.dedent(
    """\
    version: v1
    id: prj_governed
    name: shop
    defaults:
      source_language: en
      target_languages: [fr]
      voice: shop-ui
      terms_source: glossary/brand.json
    collections:
      - name: ui
        content:
          - path: 'locales/en.json'
            target: 'locales/{lang}.json'
      - name: everything
        source_only: true
        content:
          - path: '**/*.json'
          - path: '**/*.yaml'
    """
)
VOICE = textwrap.dedent(
    """\
    name: shop-ui
    terms:
      - term: basket
        replacement: cart
    """
)
TERMS = json.dumps(
    {
        "schemaVersion": "1.0",
        "kind": "kapi-terms",
        "concepts": [
            {
                "id": "term:en:basket",
                "source": "terminology",
                "terms": [{"text": "basket", "locale": "en", "status": "forbidden"}],
            }
        ],
    },
    indent=2,
)
_MARKERS = ("KAPI_ACTOR", "CLAUDECODE", "CODEX_SESSION_ID", "KAPI_AGENT_NAME", "KAPI_AGENT_SESSION")


class Project:
    """A project in a folder, driven through the kapi command as an agent or a person."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def run(self, *args: str, actor: str = "person", input: str | None = None):
        env = {k: v for k, v in os.environ.items() if k not in _MARKERS}
        env.update({"KAPI_ACTOR": actor, "KAPI_CHECK_WORKERS": "1", "HOME": str(self.root)})
        env.pop("KAPI_PROJECT", None)
        env.pop("KAPI_NO_PROJECT", None)
        return subprocess.run(
            [KAPI, *args], cwd=self.root, input=input, capture_output=True, text=True, env=env
        )

    def block(self, doc: str, key: str) -> dict:
        done = self.run("inspect", doc)
        assert done.returncode == 0, done.stderr
        return next(r for r in json.loads(done.stdout) if r["ref"]["block"] == key)

    def apply(self, *ops: dict, actor: str):
        done = self.run("apply", "--json", "-", actor=actor, input=json.dumps({"ops": list(ops)}))
        return done.returncode, json.loads(done.stdout)

    def set_content(self, doc: str, key: str, text: str) -> dict:
        record = self.block(doc, key)
        return {"op": "set_content", "at": record["ref"], "if_match": record["rev"], "text": text}

    def bytes(self, relpath: str) -> bytes:
        return (self.root / relpath).read_bytes()


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", *args],
        cwd=root,
        check=True,
        capture_output=True,
        env={
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@e",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@e",
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(root),
        },
    )


@pytest.fixture
def shop(tmp_path):
    (tmp_path / "kapi.yaml").write_text(RECIPE)
    (tmp_path / "voices").mkdir()
    (tmp_path / "voices/shop-ui.yaml").write_text(VOICE)
    (tmp_path / "glossary").mkdir()
    (tmp_path / "glossary/brand.json").write_text(TERMS)
    (tmp_path / "terms.json").write_text(TERMS)
    (tmp_path / "locales").mkdir()
    (tmp_path / "locales/en.json").write_text('{\n  "buy": "Buy now",\n  "help": "Ask us"\n}\n')
    (tmp_path / "locales/fr.json").write_text('{\n  "buy": "Acheter"\n}\n')
    return Project(tmp_path)


def refusal(payload: dict, index: int = 0) -> dict:
    assert payload["status"] == "refused", payload
    return payload["ops"][index]["error"]


def test_an_agent_cannot_rewrite_a_voice_to_land_a_gated_edit(shop):
    gated = shop.set_content("locales/en.json", "buy", "Add to basket")
    code, payload = shop.apply(gated, actor="agent")
    assert code == 3 and refusal(payload)["code"] == "gate_failed"

    voice = shop.bytes("voices/shop-ui.yaml")
    rewrite = shop.set_content("voices/shop-ui.yaml", "terms[0].term", "zz-matches-nothing")
    code, payload = shop.apply(rewrite, actor="agent")
    error = refusal(payload)
    assert code == 3 and error["code"] == "not_permitted"
    assert "voices/shop-ui.yaml" in error["message"] and "suggestion" in error["message"]
    assert "ask the person" in error["message"]

    # sent together, the whole set is refused: a clean content edit is blocked by the voice edit
    clean = shop.set_content("locales/en.json", "help", "Ask us today")
    code, payload = shop.apply(rewrite, clean, actor="agent")
    assert code == 3 and refusal(payload)["code"] == "not_permitted"
    assert payload["ops"][1]["status"] == "not_applied" and payload["ops"][1]["blocked_by"] == 0

    # no other op changes the voice either
    record = shop.block("voices/shop-ui.yaml", "terms[0].term")
    others = [
        {
            "op": "replace_text",
            "at": record["ref"],
            "if_match": record["rev"],
            "edits": [{"find": "basket", "text": "zz"}],
        },
        {
            "op": "delete_block",
            "at": {"doc": "voices/shop-ui.yaml", "block": "terms[0].term"},
            "if_match": {"en": record["rev"]},
        },
    ]
    for op in others:
        code, payload = shop.apply(op, actor="agent")
        assert code == 3 and refusal(payload)["code"] == "not_permitted", op
    preview = shop.run(
        "apply", "--dry-run", "--json", "-", actor="agent", input=json.dumps({"ops": [rewrite]})
    )
    assert (
        preview.returncode == 3 and refusal(json.loads(preview.stdout))["code"] == "not_permitted"
    )
    assert shop.bytes("voices/shop-ui.yaml") == voice

    code, payload = shop.apply(
        shop.set_content("locales/en.json", "buy", "Add to basket"), actor="agent"
    )
    assert code == 3 and refusal(payload)["code"] == "gate_failed"
    assert "basket" not in shop.bytes("locales/en.json").decode()


def test_a_person_may_change_a_voice(shop):
    code, payload = shop.apply(
        shop.set_content("voices/shop-ui.yaml", "terms[0].replacement", "trolley"), actor="person"
    )
    assert code == 0, payload
    assert "replacement: trolley" in shop.bytes("voices/shop-ui.yaml").decode()


def test_set_content_on_the_recipe_is_refused_for_an_agent_and_lands_for_a_person(shop):
    recipe = shop.bytes("kapi.yaml")
    rename = shop.set_content("kapi.yaml", "name", "another-shop")
    code, payload = shop.apply(rename, actor="agent")
    error = refusal(payload)
    assert code == 3 and error["code"] == "not_permitted" and "kapi.yaml" in error["message"]
    assert error["field"] == "at/doc"
    assert shop.bytes("kapi.yaml") == recipe

    # as the recipe op is: the same wording, the same code
    recipe_op = {"op": "recipe", "path": "name", "value": "another-shop"}
    code, payload = shop.apply(recipe_op, actor="agent")
    assert code == 3 and refusal(payload)["code"] == "not_permitted"

    code, payload = shop.apply(rename, actor="person")
    assert code == 0, payload
    assert "name: another-shop" in shop.bytes("kapi.yaml").decode()


def test_init_force_is_refused_for_an_agent_and_replaces_for_a_person(shop):
    recipe = shop.bytes("kapi.yaml")
    agent = shop.run("init", "--force", actor="agent")
    assert agent.returncode == 3
    assert "kapi.yaml" in agent.stderr and "ask the person" in agent.stderr
    assert shop.bytes("kapi.yaml") == recipe
    as_json = shop.run("init", "--force", "--json", actor="agent")
    assert as_json.returncode == 3 and json.loads(as_json.stdout)["code"] == "not_permitted"
    assert shop.bytes("kapi.yaml") == recipe

    person = shop.run("init", "--force", actor="person")
    assert person.returncode == 0, person.stderr
    assert shop.bytes("kapi.yaml") != recipe
    assert "\nid: prj_governed\n" in shop.bytes("kapi.yaml").decode()  # the id is kept


def test_an_agent_may_start_a_project_where_there_is_none(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/guide.md").write_text("# Guide\n\nRead this.\n")
    done = Project(tmp_path).run("init", actor="agent")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "kapi.yaml").is_file()


@pytest.mark.parametrize("terms_file", ["glossary/brand.json", "terms.json"])
def test_terms_files_are_a_persons(shop, terms_file):
    before = shop.bytes(terms_file)
    record = shop.block(terms_file, "concepts[0].terms[0].text")
    op = {"op": "set_content", "at": record["ref"], "if_match": record["rev"], "text": "cart"}
    code, payload = shop.apply(op, actor="agent")
    error = refusal(payload)
    assert code == 3 and error["code"] == "not_permitted"
    assert terms_file in error["message"] and "terms" in error["message"]
    assert shop.bytes(terms_file) == before

    code, payload = shop.apply(op, actor="person")
    assert code == 0, payload
    assert '"cart"' in shop.bytes(terms_file).decode()


def test_files_under_dot_kapi_are_a_persons(shop):
    state = shop.root / ".kapi"
    state.mkdir()
    (state / "voice.yaml").write_text(VOICE)
    (state / "filters.local.json").write_text('{\n  "note": "keep"\n}\n')

    for doc, key in (("voice.yaml", "terms[0].term"), ("filters.local.json", "note")):
        before = (state / doc).read_bytes()
        op = shop.set_content(f".kapi/{doc}", key, "changed")
        code, payload = shop.apply(op, actor="agent")
        assert code == 3 and refusal(payload)["code"] == "not_permitted", payload
        assert f".kapi/{doc}" in refusal(payload)["message"]
        assert (state / doc).read_bytes() == before
        code, payload = shop.apply(op, actor="person")
        assert code == 0, payload

    # the store a person's edits opened: a file no format reads is refused for what it is
    assert (state / "project.db").is_file()
    insert = {
        "op": "insert_block",
        "doc": ".kapi/project.db",
        "name": "x",
        "editions": {"en": {"text": "y"}},
    }
    code, payload = shop.apply(insert, actor="agent")
    assert code == 3 and refusal(payload)["code"] == "not_permitted"
    assert refusal(payload)["field"] == "doc"


def test_governance_is_never_checked_as_content(shop):
    # each file holds "basket", which its own rules forbid
    root = shop.root
    git(root, "init", "-q")
    git(root, "add", "locales", "kapi.yaml")
    git(root, "commit", "-qm", "start")
    (root / "locales/en.json").write_text('{\n  "buy": "Buy now",\n  "help": "Ask us today"\n}\n')
    (root / ".kapi").mkdir()
    (root / ".kapi/terms.json").write_text(TERMS)

    diff = shop.run("check", "--json", "--diff-against", "HEAD")
    assert diff.returncode == 0, diff.stdout + diff.stderr
    files = {f["path"] for f in json.loads(diff.stdout)["scope"]["files"]}
    assert files == {"locales/en.json"}

    git(root, "add", "voices", "terms.json", "glossary", "locales")
    staged = shop.run("check", "--json", "--staged")
    assert staged.returncode == 0, staged.stdout + staged.stderr
    assert {f["path"] for f in json.loads(staged.stdout)["scope"]["files"]} == {"locales/en.json"}

    # the project's content, folders and globs leave them out without a word
    for args in ((), (".",), ("voices", "locales"), ("**/*.json",)):
        done = shop.run("check", "--json", *args)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        checked = {f["path"] for f in json.loads(done.stdout)["scope"]["files"]}
        assert checked <= {"locales/en.json", "locales/fr.json"}, args
        assert "governance" not in done.stderr

    # named outright, each is skipped with a word on stderr; the exit is the content's
    named = ("kapi.yaml", "voices/shop-ui.yaml", "terms.json", "glossary/brand.json")
    done = shop.run("check", *named, "locales/en.json")
    assert done.returncode == 0, done.stdout + done.stderr
    for name in named:
        assert f"{name}: skipped as governance" in done.stderr
    assert "locales/en.json" not in done.stderr


def test_a_failing_content_file_still_fails_beside_skipped_governance(shop):
    (shop.root / "locales/en.json").write_text('{\n  "buy": "Add to basket"\n}\n')
    done = shop.run("check", "kapi.yaml", "locales/en.json")
    assert done.returncode == 3
    assert "kapi.yaml: skipped as governance" in done.stderr
