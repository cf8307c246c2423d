"""`kgrep`, the console script: grep over block text, skipping markup, with grep's exit codes."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO / "packages" / "kapi-formats" / "tests" / "fixtures"


def office_bytes(kind: str) -> bytes:
    spec = importlib.util.spec_from_file_location("office_made", REPO / "tests" / "office_made.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.office_bytes(kind)  # type: ignore[no-any-return]


def run(tool: str, *args: str, cwd: Path, stdin: str = ""):
    env = {
        **os.environ,
        "KAPI_ACTOR": "person",
        "KAPI_NO_PROJECT": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    return subprocess.run(
        [str(BIN / tool), *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        check=False,
    )


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for name in ("po/basic.po", "markdown/guide.md", "xliff/okapi.xlf"):
        shutil.copy(FIXTURES / name, tmp_path / Path(name).name)
    (tmp_path / "report.docx").write_bytes(office_bytes("docx"))
    (tmp_path / "ui.json").write_text(
        '{"greeting": "Hello, {name}!", "cart": {"empty": "Your cart is empty",'
        ' "pay": "Pay for your order"}, "help": "Contact support"}\n',
        encoding="utf-8",
    )
    return tmp_path


def test_grep_in_process_gives_blocks_and_offsets(folder: Path) -> None:
    from kapi.host.toolbox import GrepRequest, grep
    from kapi.host.workspace import open_workspace

    with open_workspace(cwd=folder, environ={"KAPI_NO_PROJECT": "1"}) as workspace:
        result = grep(GrepRequest(pattern="cart", paths=("ui.json", "nope.json")), workspace)
    assert result.exit_code == 2 and result.failures[0].message == "nope.json: no such file"
    (found,) = result.files
    assert [(b.ref.block, b.n, b.matches[0].start) for b in found.blocks] == [("cart.empty", 2, 5)]


def test_a_match_selects_blocks_in_every_format(folder: Path) -> None:
    done = run("kgrep", "north|cart|file", "ui.json", "basic.po", "report.docx", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "ui.json:Your cart is empty",
        "basic.po:Save the file",
        "basic.po:%(count)d files",
        "report.docx:Revenue grew in every region, especially in the north.",
    ]


def test_exit_codes_follow_grep(folder: Path) -> None:
    assert run("kgrep", "cart", "ui.json", cwd=folder).returncode == 0
    none = run("kgrep", "nothing like this", "ui.json", cwd=folder)
    assert none.returncode == 1 and none.stdout == "" and none.stderr == ""
    bad = run("kgrep", "(unclosed", "ui.json", cwd=folder)
    assert bad.returncode == 2 and "bad regexp" in bad.stderr and "Traceback" not in bad.stderr
    # a file that fails makes it 2, though another file matched (and is still printed)
    mixed = run("kgrep", "cart", "ui.json", "missing.json", cwd=folder)
    assert mixed.returncode == 2 and "ui.json:Your cart is empty" in mixed.stdout
    assert "missing.json" in mixed.stderr
    flag = run("kgrep", "--nope", "cart", "ui.json", cwd=folder)
    assert flag.returncode == 2 and "No such option" in flag.stderr


def test_markup_is_skipped(folder: Path) -> None:
    # the link's target, emphasis markers and tokens are not text
    assert run("kgrep", "example.com", "guide.md", cwd=folder).returncode == 1
    assert run("kgrep", "-F", "**", "guide.md", cwd=folder).returncode == 1
    assert run("kgrep", "x id", "guide.md", "basic.po", cwd=folder).returncode == 1
    # across an emphasis: the text reads on
    across = run("kgrep", "reads Markdown and keeps", "guide.md", cwd=folder)
    assert across.returncode == 0, across.stderr
    # a placeholder reads as written
    assert run("kgrep", "-F", "%(name)s!", "basic.po", cwd=folder).returncode == 0


def test_case_invert_count_number_and_words(folder: Path) -> None:
    assert run("kgrep", "CART", "ui.json", cwd=folder).returncode == 1
    assert run("kgrep", "-i", "CART", "ui.json", cwd=folder).stdout == "Your cart is empty\n"
    inverted = run("kgrep", "-v", "cart", "ui.json", cwd=folder)
    assert inverted.stdout.splitlines() == [
        "Hello, {name}!",
        "Pay for your order",
        "Contact support",
    ]
    assert run("kgrep", "-c", "o", "ui.json", cwd=folder).stdout == "4\n"
    counted = run("kgrep", "-c", "cart", "ui.json", "basic.po", cwd=folder)
    assert counted.stdout.splitlines() == ["ui.json:1", "basic.po:0"]
    assert counted.returncode == 0
    numbered = run("kgrep", "-n", "support", "ui.json", cwd=folder)
    assert numbered.stdout == "4:Contact support\n"
    # the number is the block's, as kcat -n numbers one file
    listing = run("kcat", "-n", "ui.json", cwd=folder).stdout.splitlines()
    assert listing[3] == "     4\tContact support"
    assert run("kgrep", "-w", "car", "ui.json", cwd=folder).returncode == 1
    assert run("kgrep", "-w", "cart", "ui.json", cwd=folder).returncode == 0
    assert run("kgrep", "-F", "{name}", "ui.json", cwd=folder).stdout == "Hello, {name}!\n"


def test_only_matching_and_file_lists(folder: Path) -> None:
    only = run("kgrep", "-o", "[A-Z][a-z]+", "ui.json", cwd=folder)
    assert only.stdout.splitlines() == ["Hello", "Your", "Pay", "Contact"]
    listed = run("kgrep", "-l", "cart", "ui.json", "basic.po", "guide.md", cwd=folder)
    assert listed.stdout.splitlines() == ["ui.json"] and listed.returncode == 0
    unlisted = run("kgrep", "-L", "cart", "ui.json", "basic.po", cwd=folder)
    assert unlisted.stdout.splitlines() == ["basic.po"] and unlisted.returncode == 0
    everywhere = run("kgrep", "-L", "e", "ui.json", cwd=folder)
    assert everywhere.stdout == "" and everywhere.returncode == 1


def test_recursion_and_file_names(folder: Path) -> None:
    (folder / "docs" / "deep").mkdir(parents=True)
    shutil.copy(folder / "guide.md", folder / "docs" / "deep" / "guide.md")
    (folder / "docs" / "notes.bin").write_bytes(bytes(range(256)))
    refused = run("kgrep", "Setext", "docs", cwd=folder)
    assert refused.returncode == 2 and "use -r" in refused.stderr
    walked = run("kgrep", "-r", "Setext", "docs", cwd=folder)
    assert walked.returncode == 0, walked.stderr
    assert walked.stdout == "docs/deep/guide.md:Setext heading\n" and walked.stderr == ""
    here = run("kgrep", "-r", "Setext", cwd=folder)  # no folder: the current one
    assert sorted(here.stdout.splitlines()) == [
        "docs/deep/guide.md:Setext heading",
        "guide.md:Setext heading",
    ]
    assert run("kgrep", "-H", "Setext", "guide.md", cwd=folder).stdout.startswith("guide.md:")
    assert run("kgrep", "Setext", "guide.md", cwd=folder).stdout == "Setext heading\n"
    globbed = run("kgrep", "Setext", "**/*.md", cwd=folder)
    assert "docs/deep/guide.md:Setext heading" in globbed.stdout.splitlines()


def test_json_gives_refs_and_character_offsets(folder: Path) -> None:
    done = run("kgrep", "--json", "é|cart", "ui.json", "basic.po", "--target", "fr", cwd=folder)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert records, done.stdout
    for record in records:
        assert record["ref"]["edition"] == "fr"
        for match in record["matches"]:
            assert record["text"][match["start"] : match["end"]] == match["text"]
    # offsets count characters, not bytes: "coupé" has its é at a character offset
    long = next(r for r in records if r["text"].startswith("Un long message"))
    first = long["matches"][0]
    assert first["text"] == "é" and long["text"].index("é") == first["start"]
    plain = run("kgrep", "--json", "cart", "ui.json", cwd=folder)
    record = json.loads(plain.stdout)
    assert record == {
        "path": "ui.json",
        "ref": {"doc": "ui.json", "block": "cart.empty"},
        "n": 2,
        "text": "Your cart is empty",
        "matches": [{"start": 5, "end": 9, "text": "cart"}],
    }


def test_a_file_outside_the_folder_is_never_read(
    folder: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("elsewhere") / "secret.json"
    outside.write_text('{"k": "password hunter2"}', encoding="utf-8")
    done = run("kgrep", "hunter2", str(outside), cwd=folder)
    assert done.returncode == 2 and "outside" in done.stderr
    assert "hunter2" not in done.stdout and "password" not in done.stderr
    (folder / "sub").mkdir()
    (folder / "sub" / "link.json").symlink_to(outside)
    walked = run("kgrep", "-r", "hunter2", "sub", cwd=folder)
    assert walked.returncode == 1 and "hunter2" not in walked.stdout


def test_stdin_needs_a_format(folder: Path) -> None:
    done = run("kgrep", "--format", "json", "two", "-", cwd=folder, stdin='{"a": "one two"}')
    assert done.returncode == 0 and done.stdout == "one two\n"
    unnamed = run("kgrep", "two", "-", cwd=folder, stdin='{"a": "one two"}')
    assert unnamed.returncode == 2 and "--format" in unnamed.stderr


def test_help_lists_the_flags(folder: Path) -> None:
    done = run("kgrep", "--help", cwd=folder)
    assert done.returncode == 0
    for flag in ("-i", "-v", "-c", "-n", "-o", "-l", "-L", "-w", "-F", "-r", "-H", "--json"):
        assert f"{flag}," in done.stdout or f"{flag} " in done.stdout, flag
