"""What a cold ``kapi`` process imports: each verb only what it uses.

The real ``kapi`` executable runs with ``KAPI_DUMP_MODULES=1``, which makes it
print the names in ``sys.modules`` on stderr as it ends; nothing is timed here.
Plug-in commands and formats come from a distribution made on disk.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from kapi.host.version import VERSION

KAPI_SCRIPT = Path(sys.executable).parent / "kapi"
DUMPED = re.compile(r"^kapi-modules: (.*)$", re.M)

RECIPE = """\
version: v1
id: prj_startupstartupstartupstartu
name: startup
defaults:
  source_language: en
profiles:
  docs:
    channels: [guides]
    voice: x
collections:
  - name: docs
    channel: docs/guides
    source_only: true
    content:
      - path: "**/*.md"
"""
VOICE = """\
name: Startup voice
id: x
terms:
  - term: utilize
    replacement: use
"""


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("KAPI_PROJECT", "KAPI_NO_PROJECT")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["KAPI_DUMP_MODULES"] = "1"
    plugins = extra.pop("PLUGINS", "")
    if plugins:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (plugins, env.get("PYTHONPATH")) if p)
    env.update(extra)
    return env


def _kapi(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    command = [str(KAPI_SCRIPT)] if KAPI_SCRIPT.exists() else [sys.executable, "-m", "kapi.cli"]
    return subprocess.run(
        [*command, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=_env(**env),
        timeout=120,
    )


def _modules(done: subprocess.CompletedProcess[str]) -> set[str]:
    found = DUMPED.search(done.stderr)
    assert found is not None, done.stderr[-2000:]
    return set(found.group(1).split())


def _loaded(modules: set[str], prefix: str) -> list[str]:
    return sorted(m for m in modules if m == prefix or m.startswith(prefix + "."))


def _assert_none(modules: set[str], *prefixes: str) -> None:
    found = {prefix: _loaded(modules, prefix) for prefix in prefixes}
    assert {p: names for p, names in found.items() if names} == {}


CHANGE_SERVICE = tuple(
    f"kapi.core.change.{name}"
    for name in (
        "service",
        "staging",
        "dispatch",
        "gate",
        "rendering",
        "landing",
        "content",
        "plan",
        "wire",
        "decode",
        "schema",
    )
)
HEAVY = ("lxml", "openpyxl", "docx", "pptx", "translate", "xlsxwriter")
OTHER_FORMATS = tuple(
    f"kapi.formats.{name}"
    for name in (
        "json_catalog",
        "jsonscan",
        "po",
        "yaml_catalog",
        "xliff",
        "android",
        "apple",
        "html",
        "properties",
        "stringsdict",
        "plaintext",
        "office",
        "myst",
        "mdx",
    )
)


def test_checking_one_markdown_file_imports_neither_the_change_service_nor_metadata(tmp_path):
    (tmp_path / "one.md").write_text("# Title\n\nWe utilize the cart.\n", encoding="utf-8")
    done = _kapi("check", "one.md", cwd=tmp_path, KAPI_NO_PROJECT="1")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "0 failing" in done.stdout
    modules = _modules(done)
    assert "kapi.formats.markdown" in modules and "markdown_it" in modules  # the run was seen
    _assert_none(
        modules,
        "click",  # file names are read without it (kapi.cli.plain)
        "kapi.cli.main",
        "kapi.core.change",
        "importlib.metadata",
        "cattrs",
        "ruamel",
        "sqlite3",
        "kapi.host.store",
        *HEAVY,
        *OTHER_FORMATS,
    )


def test_checking_in_a_project_reads_its_voice_without_the_change_service(tmp_path):
    (tmp_path / "voices").mkdir()
    (tmp_path / "kapi.yaml").write_text(RECIPE, encoding="utf-8")
    (tmp_path / "voices" / "x.yaml").write_text(VOICE, encoding="utf-8")
    (tmp_path / "one.md").write_text("# Title\n\nWe utilize the cart.\n", encoding="utf-8")
    done = _kapi("check", "one.md", cwd=tmp_path)
    assert done.returncode == 3, done.stderr[-2000:]
    assert 'Use "use" instead of "utilize"' in done.stdout
    modules = _modules(done)
    # The context log's records name their sender with the change contract's Actor, so
    # kapi.core.change.ports may load here; the change service itself never does.
    _assert_none(modules, *CHANGE_SERVICE, "importlib.metadata", "cattrs", *HEAVY, *OTHER_FORMATS)


def test_applying_to_a_json_catalogue_imports_no_other_format_nor_the_comment_writer(tmp_path):
    (tmp_path / "en.json").write_text('{"cart": "Your cart"}\n', encoding="utf-8")
    inspected = _kapi("inspect", "en.json", cwd=tmp_path, KAPI_NO_PROJECT="1")
    assert inspected.returncode == 0, inspected.stderr[-2000:]
    (record,) = json.loads(inspected.stdout)
    ops = [{"op": "set_content", "at": record["ref"], "if_match": record["rev"], "text": "Bag"}]
    (tmp_path / "set.json").write_text(json.dumps({"ops": ops}), encoding="utf-8")
    done = _kapi("apply", "set.json", cwd=tmp_path, KAPI_NO_PROJECT="1")
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads((tmp_path / "en.json").read_text(encoding="utf-8")) == {"cart": "Bag"}
    modules = _modules(done)
    assert "kapi.core.change.service" in modules  # the run was seen
    others = [
        m for m in OTHER_FORMATS if m not in ("kapi.formats.json_catalog", "kapi.formats.jsonscan")
    ]
    _assert_none(
        modules,
        "click",  # a change set's path is read without it (kapi.cli.plain)
        "cattrs",  # the usual set is read without the converter (kapi.core.change.wire)
        "kapi.host.comments_apply",
        "kapi.formats.comments.model",
        "difflib",
        "importlib.metadata",
        "ruamel",
        "markdown_it",
        *HEAVY,
        *others,
    )


def test_applying_the_usual_set_in_a_project_records_it_without_cattrs(tmp_path):
    (tmp_path / "kapi.yaml").write_text(
        RECIPE + '  - name: ui\n    channel: docs/guides\n    content:\n      - path: "*.json"\n',
        encoding="utf-8",
    )
    (tmp_path / "voices").mkdir()
    (tmp_path / "voices" / "x.yaml").write_text(VOICE, encoding="utf-8")
    (tmp_path / "en.json").write_text('{"cart": "Your cart"}\n', encoding="utf-8")
    inspected = _kapi("inspect", "en.json", cwd=tmp_path)
    assert inspected.returncode == 0, inspected.stderr[-2000:]
    (record,) = json.loads(inspected.stdout)
    op = {"op": "set_content", "at": record["ref"], "if_match": record["rev"], "text": "Bag"}
    (tmp_path / "set.json").write_text(json.dumps({"note": "n", "ops": [op]}), encoding="utf-8")
    done = _kapi("apply", "set.json", cwd=tmp_path, KAPI_ACTOR="person")
    assert done.returncode == 0, done.stderr[-2000:]
    _assert_none(_modules(done), "cattrs", "kapi.core.change.wire_strict")
    with sqlite3.connect(tmp_path / ".kapi" / "project.db") as store:
        rows = store.execute("SELECT note, payload FROM change_records").fetchall()
    assert [(note, json.loads(payload)["set"]) for note, payload in rows] == [
        ("n", {"note": "n", "ops": [op]})
    ]


def test_kapi_help_imports_no_verb_machinery(tmp_path):
    done = _kapi("--help", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "inspect" in done.stdout and "check" in done.stdout
    modules = _modules(done)
    _assert_none(
        modules,
        "kapi.core.change",
        "kapi.core.check",
        "kapi.core.governance",
        "kapi.formats.registry",
        "kapi.host.workspace",
        "importlib.metadata",
        "attrs",
        "cattrs",
        "ruamel",
        "markdown_it",
        "sqlite3",
    )


def test_the_version_is_the_distributions(tmp_path):
    from importlib.metadata import version

    assert version("kapi-cli") == VERSION
    done = _kapi("--version", cwd=tmp_path)
    assert done.returncode == 0
    assert done.stdout.strip() == f"kapi, version {VERSION}"
    assert "importlib.metadata" not in _modules(done)


# --- plug-ins: a distribution on disk with a command and a format ---------------------------

PLUGIN = '''\
import click

from kapi.formats.builtin import PLAINTEXT
from kapi.formats.spec import FormatSpec

NOTES = FormatSpec(
    name="notes",
    title="Notes (plain paragraphs)",
    codec=PLAINTEXT.codec,
    extensions=(".notes",),
)


@click.command()
def hello():
    """Say hello from a plug-in."""
    click.echo("hello from the plug-in")
'''


@pytest.fixture
def plugin_path(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    (site / "kapi_hello-1.0.dist-info").mkdir(parents=True)
    (site / "kapi_hello.py").write_text(PLUGIN, encoding="utf-8")
    (site / "kapi_hello-1.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: kapi-hello\nVersion: 1.0\n", encoding="utf-8"
    )
    (site / "kapi_hello-1.0.dist-info" / "entry_points.txt").write_text(
        "[kapi.cli]\nhello = kapi_hello:hello\n\n[kapi.formats]\nnotes = kapi_hello:NOTES\n",
        encoding="utf-8",
    )
    return site


def test_kapi_help_lists_a_plug_in_command_and_kapi_runs_it(tmp_path, plugin_path):
    listed = _kapi("--help", cwd=tmp_path, PLUGINS=str(plugin_path))
    assert listed.returncode == 0, listed.stderr[-2000:]
    assert re.search(r"^\s+hello\s+Say hello from a plug-in\.", listed.stdout, re.M)
    assert "importlib.metadata" not in _modules(listed)
    ran = _kapi("hello", cwd=tmp_path, PLUGINS=str(plugin_path))
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert ran.stdout == "hello from the plug-in\n"


def test_a_plug_in_format_is_found_when_a_file_needs_it(tmp_path, plugin_path):
    (tmp_path / "a.notes").write_text("First note.\n\nSecond note.\n", encoding="utf-8")
    (tmp_path / "one.md").write_text("One paragraph.\n", encoding="utf-8")
    done = _kapi("inspect", "a.notes", cwd=tmp_path, KAPI_NO_PROJECT="1", PLUGINS=str(plugin_path))
    assert done.returncode == 0, done.stderr[-2000:]
    records = json.loads(done.stdout)
    assert [r["text"] for r in records] == ["First note.", "Second note."]
    without = _kapi("inspect", "a.notes", cwd=tmp_path, KAPI_NO_PROJECT="1")
    assert without.returncode == 2
    assert "no format reads files like this" in without.stderr
    # A built-in format's file never looks for plug-ins.
    builtin = _kapi(
        "inspect", "one.md", cwd=tmp_path, KAPI_NO_PROJECT="1", PLUGINS=str(plugin_path)
    )
    assert builtin.returncode == 0, builtin.stderr[-2000:]
    assert "kapi_hello" not in _modules(builtin)


def test_an_unknown_verb_is_a_usage_error(tmp_path):
    done = _kapi("no-such-verb", cwd=tmp_path)
    assert done.returncode == 2
    assert "No such command" in done.stderr


def test_a_plug_in_that_cannot_load_is_left_out_of_help_and_named_when_run(tmp_path, plugin_path):
    broken = plugin_path / "kapi_broken-1.0.dist-info"
    broken.mkdir()
    (broken / "METADATA").write_text("Metadata-Version: 2.1\nName: kapi-broken\nVersion: 1.0\n")
    (broken / "entry_points.txt").write_text("[kapi.cli]\nbroken = kapi_missing.cli:broken\n")
    listed = _kapi("--help", cwd=tmp_path, PLUGINS=str(plugin_path))
    assert listed.returncode == 0, listed.stderr[-2000:]
    assert "hello" in listed.stdout and "broken" not in listed.stdout
    ran = _kapi("broken", cwd=tmp_path, PLUGINS=str(plugin_path))
    assert ran.returncode == 1
    assert "Traceback" not in ran.stderr
    assert "the command 'broken' (kapi_missing.cli:broken) could not be loaded" in ran.stderr
