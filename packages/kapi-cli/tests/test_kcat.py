"""`kcat`, the console script: the text of every block, one per line, whatever the format."""

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

RECIPE = """version: v1
name: shop
defaults:
  source_language: en
  target_languages: [fr]
collections:
  - name: ui
    content:
      - path: locales/en.json
        target: locales/{lang}.json
"""


def office_bytes(kind: str) -> bytes:
    spec = importlib.util.spec_from_file_location("office_made", REPO / "tests" / "office_made.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.office_bytes(kind)  # type: ignore[no-any-return]


def run(tool: str, *args: str, cwd: Path, stdin: str | None = None, project: bool = False):
    env = {**os.environ, "KAPI_ACTOR": "person", "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("KAPI_PROJECT", None)
    if not project:
        env["KAPI_NO_PROJECT"] = "1"
    else:
        env.pop("KAPI_NO_PROJECT", None)
    return subprocess.run(
        [str(BIN / tool), *args],
        cwd=cwd,
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        check=False,
    )


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for name in ("po/basic.po", "markdown/guide.md", "xliff/okapi.xlf", "json/nested.json"):
        shutil.copy(FIXTURES / name, tmp_path / Path(name).name)
    (tmp_path / "report.docx").write_bytes(office_bytes("docx"))
    (tmp_path / "ui.json").write_text(
        '{"greeting": "Hello, {name}!", "cart": {"empty": "Your cart is empty"}}\n',
        encoding="utf-8",
    )
    return tmp_path


def test_each_block_is_one_line_of_text_without_markup(folder: Path) -> None:
    done = run("kcat", "guide.md", cwd=folder)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "Getting started" in lines
    paragraph = next(line for line in lines if line.startswith("Kapi reads"))
    # emphasis markers, link targets and image syntax are markup: only the text is shown
    assert paragraph.startswith("Kapi reads Markdown and keeps every byte. Run kapi check\\nto see")
    assert "the report" in paragraph and "https://example.com" not in paragraph
    assert "**" not in done.stdout and '<x id="' not in done.stdout
    assert "First item" in lines and "Nested one" in lines


def test_json_po_xliff_and_docx_read_alike(folder: Path) -> None:
    done = run("kcat", "ui.json", "basic.po", "report.docx", cwd=folder)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:2] == ["Hello, {name}!", "Your cart is empty"]
    assert "Hello, %(name)s! You have %d% left." in lines  # a placeholder shows as written
    assert lines[-3:] == [
        "Quarterly report",
        "Revenue grew in every region, especially in the north.",
        "The team shipped three releases.",
    ]
    xliff = run("kcat", "okapi.xlf", cwd=folder)
    assert xliff.returncode == 0 and "Acme™ User Guide" in xliff.stdout.splitlines()


def test_numbers_and_keys(folder: Path) -> None:
    done = run("kcat", "-n", "--id", "ui.json", "report.docx", cwd=folder)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "     1\tgreeting\tHello, {name}!"
    assert lines[1] == "     2\tcart.empty\tYour cart is empty"
    assert lines[2].startswith("     3\tword/document.xml#p1\tQuarterly report")


def test_target_prints_a_translation(folder: Path) -> None:
    done = run("kcat", "--target", "fr", "basic.po", cwd=folder)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "Bienvenue"
    assert "Not yet translated" not in done.stdout  # no French: left out
    xliff = run("kcat", "--target", "ja_JP", "okapi.xlf", cwd=folder)  # canonical: ja-JP
    assert xliff.returncode == 0, xliff.stderr
    assert xliff.stdout.strip() and "Acme" in xliff.stdout
    bad = run("kcat", "--target", "not a tag", "basic.po", cwd=folder)
    assert bad.returncode == 2 and "language tag" in bad.stderr and not bad.stdout


def test_json_records_carry_ref_and_number(folder: Path) -> None:
    done = run("kcat", "--json", "--target", "fr", "basic.po", cwd=folder)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert records[0] == {
        "path": "basic.po",
        "ref": {"doc": "basic.po", "block": "Welcome", "edition": "fr"},
        "n": 1,
        "text": "Bienvenue",
    }
    multiline = next(r for r in records if "\n" in r["text"])  # --json keeps line breaks
    assert multiline["text"].startswith("Un long message")


def test_a_translation_file_in_a_project_shows_its_own_language(tmp_path: Path) -> None:
    (tmp_path / "kapi.yaml").write_text(RECIPE, encoding="utf-8")
    (tmp_path / "locales").mkdir()
    (tmp_path / "locales/en.json").write_text('{"hi": "Hello", "bye": "Bye"}\n', encoding="utf-8")
    (tmp_path / "locales/fr.json").write_text('{"hi": "Bonjour"}\n', encoding="utf-8")
    french = run("kcat", "--id", "locales/fr.json", cwd=tmp_path, project=True)
    assert french.returncode == 0, french.stderr
    assert french.stdout.splitlines() == ["hi\tBonjour"]
    english = run("kcat", cwd=tmp_path, project=True)  # no file: the project's content
    assert english.returncode == 0, english.stderr
    assert english.stdout.splitlines() == ["Hello", "Bye"]


def test_folders_need_r_and_then_files_no_format_reads_are_passed_over(folder: Path) -> None:
    (folder / "docs").mkdir()
    shutil.copy(folder / "guide.md", folder / "docs" / "guide.md")
    (folder / "docs" / "blob.bin").write_bytes(bytes(range(256)))
    refused = run("kcat", "docs", "ui.json", cwd=folder)
    assert refused.returncode == 2
    assert "docs: is a folder (use -r)" in refused.stderr
    assert refused.stdout.splitlines() == ["Hello, {name}!", "Your cart is empty"]
    walked = run("kcat", "-r", "docs", cwd=folder)
    assert walked.returncode == 0, walked.stderr
    assert "Getting started" in walked.stdout and walked.stderr == ""
    named = run("kcat", "docs/blob.bin", cwd=folder)
    assert named.returncode == 2 and "blob.bin" in named.stderr and not named.stdout
    assert "Traceback" not in named.stderr


def test_stdin_with_a_format(folder: Path) -> None:
    done = run("kcat", "-f", "json", "-", cwd=folder, stdin='{"a": "From stdin"}')
    assert done.returncode == 0, done.stderr
    assert done.stdout == "From stdin\n"
    unnamed = run("kcat", "-", cwd=folder, stdin='{"a": "x"}')
    assert unnamed.returncode == 2 and "--format" in unnamed.stderr


def test_bad_input_is_a_clear_error(folder: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    outside = tmp_path_factory.mktemp("elsewhere") / "secret.json"
    outside.write_text('{"k": "do not show"}', encoding="utf-8")
    done = run("kcat", str(outside), cwd=folder)
    assert done.returncode == 2 and "outside the current folder" in done.stderr
    assert "do not show" not in done.stdout + done.stderr
    link = folder / "link.json"
    link.symlink_to(outside)
    linked = run("kcat", "link.json", cwd=folder)
    assert linked.returncode == 2 and "do not show" not in linked.stdout + linked.stderr
    flag = run("kcat", "--bogus", "ui.json", cwd=folder)
    assert flag.returncode == 2 and "No such option" in flag.stderr
    missing = run("kcat", "nope.json", cwd=folder)
    assert missing.returncode == 2 and "nope.json" in missing.stderr
    assert all("Traceback" not in d.stderr for d in (done, linked, flag, missing))


def test_help_describes_the_tool(folder: Path) -> None:
    done = run("kcat", "--help", cwd=folder)
    assert (
        done.returncode == 0 and "one block per line" in done.stdout and "--target" in done.stdout
    )


def test_help_loads_no_format_and_no_change_service() -> None:
    """The tools run in shells and hooks: --help stays light."""
    code = (
        "import sys; from click.testing import CliRunner;"
        "from kapi.cli.toolbox.kcat import kcat; from kapi.cli.toolbox.kgrep import kgrep;"
        "from kapi.cli.toolbox.ksed import ksed; from kapi.cli.toolbox.kdiff import kdiff;"
        "codes = [CliRunner().invoke(c, ['--help']).exit_code for c in (kcat, kgrep, ksed, kdiff)];"
        "heavy = ('kapi.core.change.service', 'kapi.formats.registry', 'cattrs', 'markdown_it');"
        "print(codes, ','.join(m for m in heavy if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[0, 0, 0, 0]"


def test_a_reader_that_goes_away_ends_kcat_as_it_ends_cat(tmp_path: Path) -> None:
    big = {f"key{i}": f"Line number {i} of a long catalogue" for i in range(20000)}
    (tmp_path / "big.json").write_text(json.dumps(big), encoding="utf-8")
    env = {**os.environ, "KAPI_NO_PROJECT": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    process = subprocess.Popen(
        [str(BIN / "kcat"), "big.json"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.read(20) == b"Line number 0 of a l"
    process.stdout.close()
    error = process.stderr.read()
    assert process.wait(timeout=60) == -13  # SIGPIPE, as cat and grep end
    assert b"Traceback" not in error and error == b""


def test_control_characters_never_reach_the_terminal_raw(folder: Path) -> None:
    (folder / "evil.json").write_text('{"k": "red \\u001b[31malert\\u001b[0m"}', encoding="utf-8")
    done = run("kcat", "evil.json", cwd=folder)
    assert done.returncode == 0 and "\x1b" not in done.stdout
    assert done.stdout == "red \\u001b[31malert\\u001b[0m\n"
    record = json.loads(run("kcat", "--json", "evil.json", cwd=folder).stdout)
    assert record["text"] == "red \x1b[31malert\x1b[0m"  # --json keeps the text as it is
    keys = run("kcat", "--id", "basic.po", cwd=folder).stdout.splitlines()
    assert "menu\\u0004Open\tOpen" in keys  # a PO context, as kapi inspect's JSON writes it
    assert "\x1b" not in run("kgrep", "alert", "evil.json", cwd=folder).stdout
