"""``kapi check`` on code comments: the real executable on real source files in a project."""

from __future__ import annotations

import hashlib
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
  comments: {channel: code/comments}
profiles:
  code:
    channels: [comments, docs]
    voice: dev
collections:
  - name: code
    channel: code/docs
    content:
      - path: src/**/*.py
        comments: true
      - path: web/**/*.ts
        comments: {channel: code/docs}
"""

VOICE = """\
name: Dev comments
id: dev
style:
  comments:
    max_words: 30
    first_person: false
    todo_owner: true
terms:
  - term: whitelist
    replacement: allowlist
"""

APP = '''\
"""Load the whitelist from disk."""

import os  # noqa: F401  whitelist

WHITELIST = "whitelist"  # the whitelist name, kept in a string


def load(path):
    # We read the file here. TODO: handle errors.
    # TODO(ana): cache the result.
    whitelist = open(path).read()  # type: ignore
    # whitelist = load_whitelist(path)
    return whitelist
'''

TS = """\
// The whitelist of hosts.
export const whitelist = ["a"]; // eslint-disable-line whitelist
"""


def run(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in ("KAPI_PROJECT", "KAPI_NO_PROJECT", "KAPI_ACTOR", "CLAUDECODE")
    }
    environment["PYTHONDONTWRITEBYTECODE"] = "1"
    environment.update(env or {})
    return subprocess.run(
        [KAPI, *args], cwd=cwd, capture_output=True, text=True, env=environment, check=False
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "kapi.yaml").write_text(RECIPE)
    (tmp_path / "voices").mkdir()
    (tmp_path / "voices" / "dev.yaml").write_text(VOICE)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text(APP)
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "hosts.ts").write_text(TS)
    return tmp_path


def test_declared_sources_are_checked_in_their_comments_only(project: Path):
    done = run("check", "--json", cwd=project)
    assert done.returncode == 3, done.stderr
    report = json.loads(done.stdout)
    found = [
        (f["location"]["file"], f["rule"], f["location"]["start"]["line"])
        for f in report["findings"]
    ]
    assert sorted(found) == sorted(
        [
            ("src/app.py", "voice.vocabulary", 1),
            ("src/app.py", "voice.vocabulary", 5),
            ("src/app.py", "comment.first-person", 9),
            ("src/app.py", "comment.todo-owner", 9),
            ("web/hosts.ts", "voice.vocabulary", 1),
        ]
    )
    # nothing from code, strings, pragmas or commented-out code (lines 3, 5's code, 11, 12)
    data = (project / "src" / "app.py").read_bytes()
    for finding in report["findings"]:
        location = finding["location"]
        assert location["comment_sha256"]
        assert location["snippet"] in ("whitelist", "We", "TODO")
        if location["file"] == "src/app.py" and location["block"] == "L5":
            start = data.index(b"# the whitelist")
            end = data.index(b"string") + len(b"string")
            assert location["comment_sha256"] == hashlib.sha256(data[start:end]).hexdigest()
            assert location["start"] == {"line": 5, "column": 32}


def test_the_comment_voice_resolves_at_comments_channel(project: Path):
    report = json.loads(run("check", "--json", cwd=project).stdout)
    points = {c["file"]: c["point"] for c in report["execution"]["contexts"]}
    assert points["src/app.py"] == {"profile": "code", "channel": "comments", "comments": True}
    # the item's own comments.channel comes before defaults.comments.channel
    assert points["web/hosts.ts"] == {"profile": "code", "channel": "docs", "comments": True}
    analyzers = {
        (run_["file"], run_["id"]): run_["status"] for run_ in report["execution"]["analyzers"]
    }
    assert analyzers[("src/app.py", "comments")] == "findings"


def test_comments_flag_reads_a_source_file_outside_a_project(tmp_path: Path):
    (tmp_path / "b.ts").write_text(
        '// This has has a doubled word.\nconst a = "the the";\n/* the the */ let b = 1;\n'
    )
    done = run("check", "--comments", "--json", "b.ts", cwd=tmp_path, env={"KAPI_NO_PROJECT": "1"})
    report = json.loads(done.stdout)
    assert [(f["rule"], f["location"]["start"]) for f in report["findings"]] == [
        ("hygiene.doubled-word", {"line": 1, "column": 9}),
        ("hygiene.doubled-word", {"line": 3, "column": 4}),
    ]
    assert done.returncode == 0  # doubled words report, they do not fail


def test_a_language_without_a_grammar_says_so(tmp_path: Path):
    (tmp_path / "a.lua").write_text("-- a comment\n")
    done = run("check", "--comments", "a.lua", cwd=tmp_path, env={"KAPI_NO_PROJECT": "1"})
    assert done.returncode == 4
    assert "reads no comments in this file" in done.stderr
    assert "Traceback" not in done.stderr


def test_without_the_extra_the_check_does_not_run_and_names_the_install(tmp_path: Path):
    blocker = tmp_path / "blocker" / "tree_sitter"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('not installed')\n")
    (tmp_path / "a.py").write_text("# A comment.\n")
    done = run(
        "check",
        "--comments",
        "a.py",
        cwd=tmp_path,
        env={"KAPI_NO_PROJECT": "1", "PYTHONPATH": str(tmp_path / "blocker")},
    )
    assert done.returncode == 1, done.stderr
    assert "pip install 'kapi-formats[code]'" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_file_that_does_not_parse_is_still_checked_where_it_recovers(tmp_path: Path):
    (tmp_path / "a.py").write_text("# This has has a doubled word.\nx = (1,\n")
    done = run("check", "--comments", "--json", "a.py", cwd=tmp_path, env={"KAPI_NO_PROJECT": "1"})
    report = json.loads(done.stdout)
    assert [f["rule"] for f in report["findings"]] == ["hygiene.doubled-word"]


def test_a_recipe_with_a_bad_comments_key_names_it(project: Path):
    recipe = project / "kapi.yaml"
    recipe.write_text(RECIPE.replace("comments: true", "comments: {formater: ruff}"))
    done = run("check", cwd=project)
    assert done.returncode == 2
    assert "comments" in done.stderr and "formater" in done.stderr


def test_checking_a_document_loads_no_parser(project: Path):
    (project / "docs.md").write_text("# Title\n\nThe whitelist of hosts.\n")
    done = run("check", "docs.md", cwd=project, env={"KAPI_DUMP_MODULES": "1"})
    assert done.returncode in (0, 3, 4), done.stderr
    import re

    found = re.search(r"^kapi-modules: (.*)$", done.stderr, re.M)
    assert found is not None, done.stderr[-2000:]
    modules = set(found.group(1).split())
    assert "kapi.formats.markdown" in modules
    loaded = {
        name for name in modules if name.startswith(("tree_sitter", "kapi.formats.comments."))
    }
    assert loaded <= {"kapi.formats.comments.languages"}  # the extension table, no parser


def test_a_diff_scoped_check_reads_only_the_comments_a_change_touched(tmp_path: Path):
    def git(*args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.email=a@b.c", "-c", "user.name=n", *args],
            cwd=tmp_path,
            check=True,
            capture_output=True,
        )

    source = tmp_path / "a.py"
    source.write_text("# This has has a doubled word.\nx = 1\n\n# Another comment here.\ny = 2\n")
    git("init", "-q")
    git("add", "a.py")
    git("commit", "-qm", "start")
    source.write_text(
        "# This has has a doubled word.\nx = 1\n\n# Another comment comment here.\ny = 2\n"
    )
    done = run(
        "check",
        "--comments",
        "--diff-against",
        "HEAD",
        "--json",
        cwd=tmp_path,
        env={"KAPI_NO_PROJECT": "1"},
    )
    report = json.loads(done.stdout)
    assert [(f["rule"], f["location"]["block"]) for f in report["findings"]] == [
        ("hygiene.doubled-word", "L4")
    ]


def test_the_projects_terms_hold_in_comments_and_not_in_code(project: Path):
    terms = {
        "schemaVersion": "1.0",
        "kind": "kapi-terms",
        "concepts": [
            {
                "id": "term:en:dashboard",
                "source": "terminology",
                "terms": [
                    {"text": "dashboard", "locale": "en", "status": "preferred"},
                    {"text": "control panel", "locale": "en", "status": "deprecated"},
                ],
            }
        ],
    }
    (project / "terms.json").write_text(json.dumps(terms))
    done = run("terms", "import", "terms.json", cwd=project)
    assert done.returncode == 0, done.stderr
    (project / "src" / "panel.py").write_text(
        'PANEL = "control panel"  # opens the control panel\n\ncontrol_panel = 1\n'
    )
    report = json.loads(run("check", "--json", "src/panel.py", cwd=project).stdout)
    found = [(f["rule"], f["location"]["start"]) for f in report["findings"]]
    assert found == [("terms.vocabulary", {"line": 1, "column": 38})]


def test_many_source_files_checked_in_several_processes_give_the_serial_report(tmp_path: Path):
    for index in range(80):
        folder = tmp_path / "src" / f"part{index % 4}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{index}.py").write_text(
            f'"""Module {index} has has a doubled word."""\n\nVALUE = {index}  # the the value\n'
        )
        (folder / f"mod{index}.ts").write_text(f"// Part {index} of of the tree.\nlet a = 1;\n")

    def report(workers: str) -> dict:
        done = run(
            "check",
            "--comments",
            "--json",
            "src",
            cwd=tmp_path,
            env={"KAPI_NO_PROJECT": "1", "KAPI_CHECK_WORKERS": workers},
        )
        data = json.loads(done.stdout)
        return {
            "findings": [
                (f["location"]["file"], f["rule"], f["location"]["start"]) for f in data["findings"]
            ],
            "scope": data["scope"]["files"],
            "analyzers": sorted(
                (a["file"], a["id"], a["status"]) for a in data["execution"]["analyzers"]
            ),
            "verdict": data["verdict"],
        }

    serial = report("1")
    assert len(serial["findings"]) == 240
    assert ("src/part0/mod0.py", "comments", "not_requested") in serial["analyzers"]
    assert report("2") == serial


FORMATTED_RECIPE = """\
version: v1
name: demo
defaults:
  source_language: en
collections:
  - name: code
    content:
      - path: src/**/*.py
        comments: {formatter: ruff}
      - path: web/**/*.ts
        comments: {formatter: prettier}
"""


def test_the_declared_formatter_must_agree_with_a_checked_file(tmp_path: Path):
    (tmp_path / "kapi.yaml").write_text(FORMATTED_RECIPE)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "tidy.py").write_text("# A tidy note.\nx = 1\n")
    (tmp_path / "src" / "ugly.py").write_text("# An untidy note.\nx=1\n")
    done = run("check", "--json", "src", cwd=tmp_path)
    assert done.returncode == 3, done.stderr
    report = json.loads(done.stdout)
    assert [(f["rule"], f["location"]["file"], f["fails"]) for f in report["findings"]] == [
        ("formatter.ruff", "src/ugly.py", True)
    ]
    runs = {(r["file"], r["id"]): r for r in report["execution"]["analyzers"]}
    assert runs[("src/tidy.py", "formatter")]["status"] == "passed"
    assert runs[("src/ugly.py", "formatter")]["canary"]["status"] == "caught"


def test_a_declared_formatter_that_is_not_installed_did_not_run(tmp_path: Path):
    (tmp_path / "kapi.yaml").write_text(FORMATTED_RECIPE)
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "a.ts").write_text("// A note.\nlet a = 1;\n")
    done = run("check", "--json", "web", cwd=tmp_path, env={"PATH": "/nonexistent"})
    assert done.returncode == 4, done.stderr
    report = json.loads(done.stdout)
    assert report["verdict"] == "did_not_run"
    (formatter,) = [r for r in report["execution"]["analyzers"] if r["id"] == "formatter"]
    assert formatter["status"] == "did_not_run" and formatter["required"]
    assert "prettier is declared but not installed" in formatter["reason"]


def test_kapi_context_comments_states_the_voice_that_holds_for_the_comments(project: Path):
    (project / ".kapi").mkdir(exist_ok=True)
    plain = json.loads(run("context", "src/app.py", "--json", cwd=project).stdout)
    done = run("context", "src/app.py", "--comments", "--json", cwd=project)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert plain["point"]["channel"] == "docs"  # the file's collection channel
    assert answer["point"]["channel"] == "comments"  # defaults.comments.channel
    assert any("Dev comments" in line and "--comments" in line for line in answer["attention"])
    brief = run("context", "src/app.py", "--comments", cwd=project).stdout
    assert "Comments in this file are governed by the `code` profile" in brief
