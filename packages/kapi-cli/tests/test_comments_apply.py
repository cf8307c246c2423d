"""``kapi apply`` on code comments: the real executable, real files, the three gates."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("tree_sitter")

KAPI = str(Path(sys.executable).parent / "kapi")

RECIPE = """\
version: v1
name: demo
defaults:
  source_language: en
  voice: dev
collections:
  - name: code
    content:
      - path: src/**/*.py
        comments: {formatter: ruff}
      - path: web/**/*.ts
        comments: {formatter: prettier}
      - path: plain/**/*.py
        comments: true
      - path: docs/*.md
"""

VOICE = """\
name: Dev
id: dev
terms:
  - term: whitelist
    replacement: allowlist
"""

APP = '''\
"""Tools for the loader."""


def load(path):
    # Read the file and
    # return its text.
    return open(path).read()


class Cache:
    """Keep what was read."""

    size = 10  # how many entries to keep
'''


def run(*args: str, cwd: Path, stdin: str | None = None, **env: str):
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in ("KAPI_PROJECT", "KAPI_NO_PROJECT", "KAPI_ACTOR", "CLAUDECODE")
    }
    environment["PYTHONDONTWRITEBYTECODE"] = "1"
    environment.update(env)
    return subprocess.run(
        [KAPI, *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        env=environment,
        check=False,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "kapi.yaml").write_text(RECIPE)
    (tmp_path / "voices").mkdir()
    (tmp_path / "voices" / "dev.yaml").write_text(VOICE)
    for folder in ("src", "web", "plain", "docs"):
        (tmp_path / folder).mkdir()
    (tmp_path / "src" / "app.py").write_text(APP)
    (tmp_path / "plain" / "app.py").write_text(APP)
    (tmp_path / "docs" / "a.md").write_text("# Title\n\nSome words.\n")
    (tmp_path / "web" / "hosts.ts").write_text(
        "/* The hosts we serve. */\nexport const hosts = ['a'];\n"
    )
    return tmp_path


def rev(project: Path, doc: str, key: str) -> str:
    """A comment's revision as a read gives it (the check's comment_sha256)."""
    from kapi.formats.comments import read_comments

    found = read_comments((project / doc).read_bytes(), doc)
    comment = found.get(key)
    assert comment is not None
    return comment.rev


def apply(project: Path, *ops: dict, extra: dict | None = None, **env: str):
    change_set = {"ops": list(ops), **(extra or {})}
    done = run("apply", "--json", "-", cwd=project, stdin=json.dumps(change_set), **env)
    return done, json.loads(done.stdout)


def edit(project: Path, doc: str, key: str, text: str, **fields) -> dict:
    return {
        "op": "set_content",
        "at": {"doc": doc, "block": key},
        "if_match": fields.pop("if_match", None) or rev(project, doc, key),
        "text": text,
        **fields,
    }


def test_a_comment_edit_lands_inside_its_markers_and_the_file_still_parses(project: Path):
    before = (project / "src" / "app.py").read_text()
    done, result = apply(
        project, edit(project, "src/app.py", "L5", "Read the file; give back its text.")
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert result["status"] == "applied"
    after = (project / "src" / "app.py").read_text()
    assert after == before.replace(
        "    # Read the file and\n    # return its text.\n",
        "    # Read the file; give back its text.\n",
    )
    assert result["ops"][0]["after"] == rev(project, "src/app.py", "L5")
    assert result["record"].startswith("chg_")  # kept in the project store like any set
    # ruff agrees, the file compiles
    compile(after, "app.py", "exec")


def test_a_docstring_and_a_trailing_comment_are_edited_in_one_set(project: Path):
    done, result = apply(
        project,
        edit(project, "src/app.py", "L11", "Keep what was read, by path."),
        edit(project, "src/app.py", "L13", "entries kept at most"),
    )
    assert done.returncode == 0, done.stdout
    assert [op["status"] for op in result["ops"]] == ["applied", "applied"]
    text = (project / "src" / "app.py").read_text()
    assert '    """Keep what was read, by path."""\n' in text
    assert "    size = 10  # entries kept at most\n" in text


def test_replace_text_finds_inside_the_comment(project: Path):
    op = {
        "op": "replace_text",
        "at": {"doc": "src/app.py", "block": "L5"},
        "if_match": rev(project, "src/app.py", "L5"),
        "edits": [{"find": "return", "text": "give back"}],
    }
    done, _ = apply(project, op)
    assert done.returncode == 0, done.stdout
    # re-wrapped to the comment's width (40 columns at the least)
    assert (
        "    # Read the file and give back its\n    # text.\n"
        in (project / "src" / "app.py").read_text()
    )


def test_a_stale_revision_is_refused_with_the_current_one(project: Path):
    done, result = apply(
        project, edit(project, "src/app.py", "L5", "New words.", if_match="r:0000000000000000")
    )
    assert done.returncode == 3
    op = result["ops"][0]
    assert op["error"]["code"] == "stale"
    assert op["current"]["rev"] == rev(project, "src/app.py", "L5")
    assert op["current"]["text"] == "Read the file and\nreturn its text."
    assert (project / "src" / "app.py").read_text() == APP


def test_comments_and_documents_never_mix(project: Path):
    done, result = apply(
        project,
        edit(project, "src/app.py", "L5", "New words."),
        {
            "op": "set_content",
            "at": {"doc": "docs/a.md", "block": "p1"},
            "if_match": "*",
            "text": "Other words.",
        },
    )
    assert done.returncode == 2
    assert result["error"]["code"] == "invalid"
    assert "code comments or documents, never both" in result["error"]["message"]
    assert (project / "src" / "app.py").read_text() == APP


def test_text_that_closes_a_docstring_early_is_refused_and_nothing_is_written(project: Path):
    done, result = apply(
        project,
        edit(project, "src/app.py", "L5", "A fine edit."),
        edit(project, "src/app.py", "L11", 'Ends """ early'),
    )
    assert done.returncode == 3
    assert result["ops"][1]["error"]["code"] == "guard"
    assert result["ops"][0]["status"] == "not_applied"
    assert (project / "src" / "app.py").read_text() == APP


def test_text_that_closes_a_block_comment_early_is_refused(project: Path):
    done, result = apply(project, edit(project, "web/hosts.ts", "L1", "The hosts */ we serve."))
    assert done.returncode == 3
    assert result["ops"][0]["error"]["code"] == "guard"
    assert "*/" in result["ops"][0]["error"]["message"]


def test_a_formatter_declared_but_not_installed_did_not_run_and_nothing_lands(project: Path):
    done, result = apply(
        project,
        edit(project, "web/hosts.ts", "L1", "The hosts this site serves."),
        PATH="/nonexistent",
    )
    assert done.returncode == 3, done.stdout
    error = result["ops"][0]["error"]
    assert error["code"] == "gate_failed"
    assert "formatter.prettier did_not_run" in error["message"]
    assert "not installed" in error["message"]
    assert "The hosts we serve." in (project / "web" / "hosts.ts").read_text()


def test_a_formatter_that_disagrees_refuses_the_set(project: Path):
    (project / "src" / "app.py").write_text(APP.replace("size = 10", "size=10"))
    done, result = apply(project, edit(project, "src/app.py", "L5", "Read it."))
    assert done.returncode == 3, done.stdout
    assert "formatter.ruff" in result["ops"][0]["error"]["message"]
    assert "# Read the file and" in (project / "src" / "app.py").read_text()


def test_the_new_comment_must_pass_the_comment_check(project: Path):
    done, result = apply(project, edit(project, "plain/app.py", "L5", "Read the whitelist."))
    assert done.returncode == 3
    error = result["ops"][0]["error"]
    assert error["code"] == "gate_failed" and "voice.vocabulary" in error["message"]
    assert (project / "plain" / "app.py").read_text() == APP
    # a person may land it over the finding
    done, result = apply(
        project,
        edit(project, "plain/app.py", "L5", "Read the whitelist."),
        extra={"gate": "report"},
    )
    assert done.returncode == 0, done.stdout
    assert "# Read the whitelist." in (project / "plain" / "app.py").read_text()


def test_an_edit_that_would_turn_the_comment_into_a_pragma_is_refused(project: Path):
    done, result = apply(project, edit(project, "plain/app.py", "L5", "type: ignore"))
    assert done.returncode == 3
    assert result["ops"][0]["error"]["code"] == "guard"
    assert (project / "plain" / "app.py").read_text() == APP


def test_a_file_that_does_not_parse_takes_no_comment_edit(project: Path):
    broken = "# Explains the value.\nx = (1,\n"
    (project / "plain" / "broken.py").write_text(broken)
    done, result = apply(project, edit(project, "plain/broken.py", "L1", "Says what x is."))
    assert done.returncode == 3
    error = result["ops"][0]["error"]
    assert error["code"] == "unsupported" and "does not parse" in error["message"]
    assert (project / "plain" / "broken.py").read_text() == broken


def test_an_unknown_comment_names_the_near_ones(project: Path):
    done, result = apply(
        project,
        {
            "op": "set_content",
            "at": {"doc": "src/app.py", "block": "L6"},
            "if_match": "*",
            "text": "x",
        },
    )
    assert done.returncode == 3
    assert result["ops"][0]["error"]["code"] == "not_found"
    assert "L5" in result["ops"][0]["error"]["message"]


def test_an_agent_may_not_write_a_comment_blind(project: Path):
    op = edit(project, "src/app.py", "L5", "New words.", if_match="*")
    done, result = apply(project, op, KAPI_ACTOR="agent")
    assert done.returncode == 3
    assert result["ops"][0]["error"]["code"] == "not_permitted"
    assert (project / "src" / "app.py").read_text() == APP


def test_a_path_outside_the_project_is_refused(project: Path, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside") / "x.py"
    outside.write_text("# A comment.\n")
    op = {
        "op": "set_content",
        "at": {"doc": str(outside), "block": "L1"},
        "if_match": "*",
        "text": "New.",
    }
    done, result = apply(project, op)
    assert done.returncode in (2, 3)
    assert result["ops"][0]["error"]["code"] == "invalid"
    assert outside.read_text() == "# A comment.\n"


def test_a_dry_run_prints_the_diff_and_writes_nothing(project: Path):
    change_set = {"ops": [edit(project, "src/app.py", "L5", "Read it all.")]}
    done = run("apply", "--dry-run", "-", cwd=project, stdin=json.dumps(change_set))
    assert done.returncode == 0, done.stderr
    assert "+    # Read it all." in done.stdout
    assert (project / "src" / "app.py").read_text() == APP


def test_inspect_gives_each_comment_its_rev_and_the_rev_edits_it(project: Path):
    done = run("inspect", "src/app.py", cwd=project)
    assert done.returncode == 0, done.stderr
    records = json.loads(done.stdout)
    assert [(r["ref"]["block"], r["role"]) for r in records] == [
        ("L1", "comment"),
        ("L5", "comment"),
        ("L11", "comment"),
        ("L13", "comment"),
    ]
    record = records[1]
    assert record["text"] == "Read the file and\nreturn its text."
    assert record["ops"] == ["set_content", "replace_text"]
    op = {
        "op": "set_content",
        "at": record["ref"],
        "if_match": record["rev"],
        "text": "Read the file; give back its text.",
    }
    done, result = apply(project, op)
    assert done.returncode == 0 and result["status"] == "applied"


def test_inspect_of_a_file_that_does_not_parse_offers_no_edit(project: Path):
    (project / "plain" / "broken.py").write_text("# Explains the value.\nx = (1,\n")
    records = json.loads(run("inspect", "plain/broken.py", cwd=project).stdout)
    assert [(r["text"], r["ops"]) for r in records] == [("Explains the value.", [])]


def test_an_agent_may_not_edit_a_comment_in_kapis_own_state(project: Path):
    (project / ".kapi").mkdir(exist_ok=True)
    (project / ".kapi" / "hook.py").write_text("# Runs before each check.\n")
    op = edit(project, ".kapi/hook.py", "L1", "Runs after each check.")
    done, result = apply(project, op, KAPI_ACTOR="agent")
    assert done.returncode == 3
    assert result["ops"][0]["error"]["code"] == "not_permitted"
    assert (project / ".kapi" / "hook.py").read_text() == "# Runs before each check.\n"


def test_the_same_words_are_unchanged_but_a_new_paragraph_is_an_edit(project: Path):
    done, result = apply(
        project, edit(project, "src/app.py", "L5", "Read the file and return its text.")
    )
    assert done.returncode == 0 and result["ops"][0]["status"] == "unchanged"
    assert (project / "src" / "app.py").read_text() == APP
    done, result = apply(
        project, edit(project, "src/app.py", "L5", "Read the file.\n\nReturn its text.")
    )
    assert done.returncode == 0 and result["ops"][0]["status"] == "applied"
    assert (
        "    # Read the file.\n    #\n    # Return its text.\n"
        in (project / "src" / "app.py").read_text()
    )


def test_a_missing_file_and_a_file_that_is_not_utf8_are_refused(project: Path):
    op = {
        "op": "set_content",
        "at": {"doc": "src/gone.py", "block": "L1"},
        "if_match": "*",
        "text": "New.",
    }
    done, result = apply(project, op)
    assert done.returncode == 3 and result["ops"][0]["error"]["code"] == "not_found"
    (project / "src" / "latin.py").write_bytes(b"# caf\xe9 notes\nx = 1\n")
    op["at"]["doc"] = "src/latin.py"
    done, result = apply(project, op)
    assert done.returncode == 2 and result["ops"][0]["error"]["code"] == "invalid"
    assert "UTF-8" in result["ops"][0]["error"]["message"]
    assert (project / "src" / "latin.py").read_bytes() == b"# caf\xe9 notes\nx = 1\n"
