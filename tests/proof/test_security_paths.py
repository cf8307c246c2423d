"""No verb reads or writes outside the project: every file argument is held to containment.

A copy of the example shop beside a folder ``outside/`` whose files are valid
inputs for each verb, each holding a secret. Every verb that takes a file is
given each file three ways: climbing out (``../outside/F``), absolute, and
through a symbolic link in the project that points out (``linked/F``). Each
must be refused with exit 2 before anything is read: the secret appears in no
output, and nothing outside changes or appears. The MCP door is held to the
same rule in ``test_security_doors.py``; documents named in change sets in
``packages/kapi-cli/tests/test_containment.py``.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from kapi.cli.main import cli
from kapi.cli.toolbox.kcat import kcat
from kapi.cli.toolbox.kdiff import kdiff
from kapi.cli.toolbox.kgrep import kgrep
from kapi.cli.toolbox.ksed import in_place_arguments, ksed

ROOT = Path(__file__).resolve().parents[2]
SECRET = "SECRET-8c1f2e-outside"
CHANGE_SET = {
    "ops": [
        {
            "op": "set_content",
            "at": {"doc": "locales/en.json", "block": "cart.title"},
            "if_match": "*",
            "text": SECRET,
        }
    ]
}
# One valid input of each kind a verb reads, each holding the secret.
OUTSIDE_FILES = {
    "secret.json": json.dumps({"title": SECRET, "body": f"{SECRET} body"}),
    "secret.md": f"# {SECRET}\n\nA paragraph with {SECRET}.\n",
    "secret.txt": f"{SECRET}\n",
    "secret.xml": f"<a>{SECRET}</a>",
    "terms.json": json.dumps(
        {
            "schemaVersion": "1.0",
            "kind": "kapi-terms",
            "concepts": [{"id": "c1", "terms": [{"locale": "en", "text": SECRET}]}],
        }
    ),
    "voice.yaml": f"id: {SECRET}\nname: {SECRET}\nstyle:\n  sentence_length: {SECRET}\n",
    "memory.tmx": (
        '<tmx version="1.4"><header srclang="en"/><body><tu>'
        f'<tuv xml:lang="en"><seg>{SECRET}</seg></tuv><tuv xml:lang="fr"><seg>{SECRET}</seg></tuv>'
        "</tu></body></tmx>"
    ),
    "context.jsonl": json.dumps({"id": SECRET, "kind": SECRET}) + "\n",
    "change.diff": (
        "--- a/docs/getting-started.md\n+++ b/docs/getting-started.md\n@@ -1 +1 @@\n"
        f"-# Getting started\n+# {SECRET}\n"
    ),
    "set.json": json.dumps(CHANGE_SET),
    "returned.xlf": (
        '<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" '
        f'trgLang="fr"><file id="f" original="locales/en.json"><unit id="u"><segment>'
        f"<source>{SECRET}</source><target>{SECRET}</target></segment></unit></file></xliff>"
    ),
}
READS = [
    pytest.param(("inspect", "{f}"), "secret.json", id="inspect"),
    pytest.param(("stats", "{f}"), "secret.md", id="stats"),
    pytest.param(("check", "{f}"), "secret.md", id="check"),
    pytest.param(
        ("check", "locales/en.json", "--target", "{f}", "--target-lang", "fr"),
        "secret.json",
        id="check-target",
    ),
    pytest.param(("check", "--diff-file", "{f}"), "change.diff", id="check-diff-file"),
    pytest.param(("apply", "{f}"), "set.json", id="apply-set-file"),
    pytest.param(("terms", "import", "{f}"), "terms.json", id="terms-import"),
    pytest.param(("voice", "validate", "{f}"), "voice.yaml", id="voice-validate"),
    pytest.param(("voice", "import", "{f}"), "voice.yaml", id="voice-import"),
    pytest.param(("memory", "import", "{f}"), "memory.tmx", id="memory-import"),
    pytest.param(("store", "import", "{f}"), "context.jsonl", id="store-import"),
    pytest.param(("merge", "{f}"), "returned.xlf", id="merge"),
    pytest.param(
        ("extract", "{f}", "--to", "fr", "-o", "out.xlf"), "secret.json", id="extract-doc"
    ),
    pytest.param(("exec", "word-count", "{f}"), "secret.txt", id="exec-file"),
    pytest.param(("exec", "xml-validation", "{f}"), "secret.xml", id="exec-xml"),
    pytest.param(
        ("translate", "{f}", "--to", "fr", "--provider", "pseudo"), "secret.json", id="translate"
    ),
    pytest.param(("pseudo-translate", "{f}", "--to", "qps"), "secret.json", id="pseudo-translate"),
    pytest.param(("run", "pseudo-translate", "{f}", "--to", "fr"), "secret.json", id="run-flow"),
    pytest.param(("context", "{f}"), "secret.md", id="context"),
    pytest.param((kcat, "{f}"), "secret.md", id="kcat"),
    pytest.param((kgrep, "SECRET", "{f}"), "secret.md", id="kgrep"),
    pytest.param((kdiff, "{f}", "docs/getting-started.md"), "secret.md", id="kdiff"),
    pytest.param((ksed, "-i", "s/SECRET/x/", "{f}"), "secret.md", id="ksed-i"),
]
WRITES = [
    pytest.param(("terms", "export", "{f}"), "new-terms.json", id="terms-export"),
    pytest.param(("memory", "export", "-o", "{f}"), "new-memory.tmx", id="memory-export"),
    pytest.param(("store", "export", "{f}"), "new-context.jsonl", id="store-export"),
    pytest.param(("extract", "--to", "fr", "-o", "{f}"), "new.xlf", id="extract-output"),
]
SPELLINGS = ["climbing", "absolute", "linked"]


@pytest.fixture
def place(shop, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    for name, text in OUTSIDE_FILES.items():
        (outside / name).write_text(text, encoding="utf-8")
    (shop / "linked").symlink_to(outside, target_is_directory=True)
    return shop, outside


def spelled(spelling: str, name: str, outside: Path) -> str:
    return {
        "climbing": f"../outside/{name}",
        "absolute": str(outside / name),
        "linked": f"linked/{name}",
    }[spelling]


def snapshot(folder: Path) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir() if p.is_file()
    }


def invoke(command, arguments):
    if isinstance(command, str):
        return CliRunner().invoke(cli, [command, *arguments], catch_exceptions=False)
    if command is ksed:
        arguments = in_place_arguments(list(arguments))  # as the ksed script reads -i
    return CliRunner().invoke(command, list(arguments), catch_exceptions=False)


def refused(place, argv, name, spelling):
    outside = place[1]
    before = snapshot(outside)
    path = spelled(spelling, name, outside)
    command, *rest = argv
    result = invoke(command, [path if a == "{f}" else a for a in rest])
    shown = result.stdout + result.stderr
    label = command if isinstance(command, str) else command.name
    assert result.exit_code == 2, f"{label} {path}: exit {result.exit_code}: {shown}"
    assert SECRET not in shown, f"{label} {path} showed the outside file: {shown}"
    assert "outside" in shown or "not inside" in shown, shown  # the refusal says why
    assert snapshot(outside) == before, f"{label} {path} changed the folder outside"
    return result


@pytest.mark.parametrize("spelling", SPELLINGS)
@pytest.mark.parametrize(("argv", "name"), READS)
def test_a_file_outside_is_refused_before_it_is_read(place, argv, name, spelling):
    refused(place, argv, name, spelling)


@pytest.mark.parametrize("spelling", SPELLINGS)
@pytest.mark.parametrize(("argv", "name"), WRITES)
def test_a_file_outside_is_never_written(place, argv, name, spelling):
    refused(place, argv, name, spelling)
    assert not (place[1] / name).exists()


def test_the_same_files_inside_are_read(place):
    """The refusals are about where a file is, not what it holds."""
    shop, outside = place
    for name in ("terms.json", "voice.yaml", "memory.tmx", "change.diff"):
        shutil.copy(outside / name, shop / name)
    imported = invoke("terms", ["import", "terms.json"])
    assert imported.exit_code == 0, imported.output
    voice = invoke("voice", ["validate", "voice.yaml"])
    assert voice.exit_code == 2 and "sentence_length" in voice.stderr  # read, and judged
    memory = invoke("memory", ["import", "memory.tmx"])
    assert memory.exit_code == 0, memory.output
    checked = invoke("check", ["--diff-file", "change.diff"])
    assert checked.exit_code in (0, 3, 4) and "outside" not in checked.output, checked.output
