"""`kdiff`, the console script: two versions of a document compared block by block."""

from __future__ import annotations

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

A = (
    '{"title": "Shop", "cart": {"empty": "Your basket is empty", "pay": "Pay now"},'
    ' "old": "Gone soon", "help": "Simply contact us"}\n'
)
B = (
    '{"help": "Contact us", "title": "Shop", "cart": {"pay": "Pay now",'
    ' "empty": "Your cart is empty"}, "new": "Fresh"}\n'
)


def run(tool: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "KAPI_ACTOR": "person",
        "KAPI_NO_PROJECT": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_SYSTEM": os.devnull,
    }
    return subprocess.run(
        [str(BIN / tool), *args],
        cwd=cwd,
        input="",
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        check=False,
    )


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        env={**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull},
    )


def docx(path: Path, runs: list[list[str]]) -> None:
    import docx as python_docx

    document = python_docx.Document()
    for pieces in runs:
        paragraph = document.add_paragraph()
        for piece in pieces:
            paragraph.add_run(piece)
    document.save(str(path))


def test_a_reordered_catalogue_shows_moves_and_the_text_that_changed(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text(A, encoding="utf-8")
    (tmp_path / "b.json").write_text(B, encoding="utf-8")
    done = run("kdiff", "a.json", "b.json", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:2] == ["--- a.json", "+++ b.json"]
    kinds = {line.split()[1]: line.split()[0] for line in lines[2:] if not line.startswith(" ")}
    assert kinds == {"help": "changed", "cart.empty": "changed", "old": "removed", "new": "added"}
    assert "  - Your basket is empty" in lines and "  + Your cart is empty" in lines
    assert "title" not in done.stdout  # the same text at the same key: not a difference
    reordered = tmp_path / "c.json"
    reordered.write_text('{"help": "Simply contact us", "title": "Shop"}', encoding="utf-8")
    (tmp_path / "d.json").write_text('{"title": "Shop", "help": "Simply contact us"}')
    moved = run("kdiff", "c.json", "d.json", cwd=tmp_path)
    assert moved.returncode == 1
    assert [line.split()[0] for line in moved.stdout.splitlines()[2:]] == ["moved"]


def test_the_same_text_is_exit_0(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text(A, encoding="utf-8")
    (tmp_path / "same.json").write_text(A.replace(", ", ",\n  "), encoding="utf-8")
    done = run("kdiff", "a.json", "same.json", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout == ""


def test_json_is_the_change_set_that_turns_a_into_b(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text(A, encoding="utf-8")
    (tmp_path / "b.json").write_text(B, encoding="utf-8")
    done = run("kdiff", "--json", "a.json", "b.json", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    change_set = json.loads(done.stdout)
    assert {op["op"] for op in change_set["ops"]} == {"set_content", "insert_block", "delete_block"}
    (tmp_path / "set.json").write_text(done.stdout, encoding="utf-8")
    applied = run("kapi", "apply", "set.json", cwd=tmp_path)
    assert applied.returncode == 0, applied.stderr
    a_now = json.loads((tmp_path / "a.json").read_text(encoding="utf-8"))
    assert a_now == json.loads(B)  # the same keys and text, in A's order
    after = run("kdiff", "a.json", "b.json", cwd=tmp_path)
    assert all(line.split()[0] == "moved" for line in after.stdout.splitlines()[2:])


def test_a_paragraph_added_to_markdown_is_only_added(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "markdown" / "guide.md", tmp_path / "a.md")
    text = (tmp_path / "a.md").read_text(encoding="utf-8")
    edited = text.replace("# Getting started\n", "# Getting started\n\nA new first paragraph.\n")
    edited = edited.replace("First item", "First entry")
    (tmp_path / "b.md").write_text(edited, encoding="utf-8")
    done = run("kdiff", "a.md", "b.md", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    heads = [line for line in done.stdout.splitlines()[2:] if not line.startswith(" ")]
    assert [h.split()[0] for h in heads] == ["added", "changed"], done.stdout
    assert "  + A new first paragraph." in done.stdout
    assert "  - First item" in done.stdout and "  + First entry" in done.stdout


def test_a_reflowed_docx_shows_only_the_prose_that_changed(tmp_path: Path) -> None:
    docx(tmp_path / "a.docx", [["Revenue grew in every region."], ["The team shipped."]])
    docx(tmp_path / "b.docx", [["Revenue grew ", "in every ", "region."], ["The team shipped."]])
    docx(tmp_path / "c.docx", [["Revenue grew ", "in the north."], ["The team shipped."]])
    same = run("kdiff", "a.docx", "b.docx", cwd=tmp_path)
    assert same.returncode == 0 and same.stdout == "", same.stdout + same.stderr
    changed = run("kdiff", "a.docx", "c.docx", cwd=tmp_path)
    assert changed.returncode == 1
    assert "  - Revenue grew in every region." in changed.stdout
    assert "  + Revenue grew in the north." in changed.stdout
    assert "shipped" not in changed.stdout


def test_one_file_is_compared_with_git_head(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    shutil.copy(FIXTURES / "po" / "basic.po", tmp_path / "docs" / "basic.po")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "docs/basic.po")
    git(tmp_path, "commit", "-q", "-m", "first")
    clean = run("kdiff", "docs/basic.po", cwd=tmp_path)
    assert clean.returncode == 0 and clean.stdout == "", clean.stderr
    edited = run("ksed", "-i", "s/Save the file/Save the document/", "docs/basic.po", cwd=tmp_path)
    assert edited.returncode == 0, edited.stderr
    done = run("kdiff", "basic.po", cwd=tmp_path / "docs")
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines()[:2] == ["--- HEAD:basic.po", "+++ basic.po"]
    assert "  - Save the file" in done.stdout and "  + Save the document" in done.stdout
    long = run(
        "ksed", "-i", "s/seventy-nine columns/eighty columns/", "docs/basic.po", cwd=tmp_path
    )
    assert long.returncode == 0, long.stderr
    marked = run("kdiff", "docs/basic.po", cwd=tmp_path).stdout
    assert "  ~ A long message" in marked and "[-seventy-nine-]{+eighty+} columns" in marked
    from_root = run("kdiff", "docs/basic.po", cwd=tmp_path)
    assert from_root.returncode == 1 and "HEAD:docs/basic.po" in from_root.stdout
    # the change set turns HEAD's text into the working file's: it applies to HEAD's file
    change_set = run("kdiff", "--json", "docs/basic.po", cwd=tmp_path)
    (tmp_path / "set.json").write_text(change_set.stdout, encoding="utf-8")
    git(tmp_path, "checkout", "-q", "--", "docs/basic.po")
    applied = run("kapi", "apply", "set.json", cwd=tmp_path)
    assert applied.returncode == 0, applied.stderr
    assert run("kdiff", "docs/basic.po", cwd=tmp_path).returncode == 1
    assert "Save the document" in run("kcat", "docs/basic.po", cwd=tmp_path).stdout


def test_without_git_head_it_says_what_to_do(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "po" / "basic.po", tmp_path / "basic.po")
    no_repo = run("kdiff", "basic.po", cwd=tmp_path)
    assert no_repo.returncode == 2 and "git" in no_repo.stderr
    git(tmp_path, "init", "-q")
    untracked = run("kdiff", "basic.po", cwd=tmp_path)
    assert untracked.returncode == 2 and "not in git HEAD" in untracked.stderr
    assert "Traceback" not in no_repo.stderr + untracked.stderr


def test_bad_input_is_exit_2(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    outside = tmp_path_factory.mktemp("elsewhere") / "secret.json"
    outside.write_text('{"k": "do not show"}', encoding="utf-8")
    (tmp_path / "a.json").write_text(A, encoding="utf-8")
    (tmp_path / "blob.bin").write_bytes(bytes(range(256)))
    for args in (
        ("a.json", str(outside)),
        ("a.json", "blob.bin"),
        ("a.json", "missing.json"),
        ("--nope", "a.json"),
        (),
    ):
        done = run("kdiff", *args, cwd=tmp_path)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert done.stderr.strip() and "Traceback" not in done.stderr
        assert "do not show" not in done.stdout + done.stderr


def test_help_describes_the_tool(tmp_path: Path) -> None:
    done = run("kdiff", "--help", cwd=tmp_path)
    assert done.returncode == 0 and "git HEAD" in done.stdout and "--json" in done.stdout
