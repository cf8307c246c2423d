"""``kapi check``, ``kapi apply`` and ``kapi hook`` run without click, and do what click's verbs do.

Each case runs the real ``kapi`` executable (which takes the plain way for these arguments)
and the same arguments through the click group (``kapi.cli.main.run_click``), and holds the two
to the same stdout, stderr and exit code. ``KAPI_DUMP_MODULES=1`` shows which way each took.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from kapi.cli.plain import plain_verb

KAPI = str(Path(sys.executable).parent / "kapi")
DUMPED = re.compile(r"^kapi-modules: (.*)\n", re.M)
THROUGH_CLICK = (
    "import sys; import kapi.cli.boot; from kapi.cli.launch import run; "
    "from kapi.cli.main import run_click; sys.argv[0] = 'kapi'; run(run_click)"
)

RECIPE = """\
version: v1
id: prj_plainplainplainplainplainpla
name: plain
defaults:
  source_language: en
colections: []
profiles:
  docs:
    channels: [guides]
    voice: house
collections:
  - name: docs
    channel: docs/guides
    source_only: true
    content:
      - path: "docs/**/*.md"
"""
VOICE = """\
name: House voice
id: house
terms:
  - term: utilize
    replacement: use
"""


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("KAPI_PROJECT", "KAPI_NO_PROJECT")}
    env.update(KAPI_DUMP_MODULES="1", KAPI_ACTOR="person", NO_COLOR="1")
    return env


def _both(
    args: list[str], cwd: Path, stdin: str = "", before: Callable[[], None] = lambda: None
) -> tuple[subprocess.CompletedProcess[str], subprocess.CompletedProcess[str]]:
    """The plain run and the click run of ``kapi ARGS`` (each after ``before``), each with the
    modules it loaded."""
    runs = []
    for command in ([KAPI, *args], [sys.executable, "-c", THROUGH_CLICK, *args]):
        before()
        runs.append(
            subprocess.run(
                command,
                cwd=cwd,
                input=stdin,
                capture_output=True,
                text=True,
                env=_env(),
                timeout=120,
            )
        )
    return runs[0], runs[1]


def _modules(done: subprocess.CompletedProcess[str]) -> set[str]:
    found = DUMPED.search(done.stderr)
    assert found is not None, done.stderr[-2000:]
    return set(found.group(1).split())


# How long each part took, when the report was made, and the id of the change set's record
# differ from run to run
TIMED = re.compile(r'("[a-z_]+_ms":)[0-9.e+-]+|("at":)"[0-9T:Z-]+"')
RECORD = re.compile(r"chg_[0-9a-f]{16}")


def _said(done: subprocess.CompletedProcess[str]) -> tuple[int, str, str]:
    out = RECORD.sub("chg_", TIMED.sub(r"\1\2 0", done.stdout))
    return done.returncode, out, RECORD.sub("chg_", DUMPED.sub("", done.stderr))


def _assert_alike(
    args: list[str], cwd: Path, stdin: str = "", before: Callable[[], None] = lambda: None
) -> tuple[int, str, str]:
    plain, through_click = _both(args, cwd, stdin, before)
    assert "click" not in _modules(plain), "the plain run loaded click"
    assert "click" in _modules(through_click)
    assert _said(plain) == _said(through_click)
    return _said(plain)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "voices").mkdir()
    (tmp_path / "docs").mkdir()
    (tmp_path / "kapi.yaml").write_text(RECIPE, encoding="utf-8")
    (tmp_path / "voices/house.yaml").write_text(VOICE, encoding="utf-8")
    (tmp_path / "docs/guide.md").write_text(
        "# Guide\n\nWe utilize the cart.\n\nPay at the till.\n", encoding="utf-8"
    )
    (tmp_path / "docs/clean.md").write_text("# Clean\n\nWe use the cart.\n", encoding="utf-8")
    return tmp_path


def test_a_finding_in_a_project_is_reported_alike_and_fails_with_3(project):
    code, out, err = _assert_alike(["check", "docs/guide.md"], project)
    assert code == 3
    assert 'Use "use" instead of "utilize"' in out
    assert "colections" in err  # the recipe's likely typo is warned about on both ways


@pytest.mark.parametrize(
    "args",
    [
        ["check", "docs/guide.md", "--json"],
        ["check", "--json", "docs/guide.md", "docs/clean.md"],
        ["check", "docs/guide.md", "--no-fail"],
        ["check", "docs"],
        ["check", "docs/*.md", "--json", "--no-fail"],
        ["check"],  # the project's declared content
        ["check", "docs/missing.md"],
        ["check", "../elsewhere.md"],
    ],
)
def test_each_plain_call_says_what_the_click_verb_says(project, args):
    code, out, _ = _assert_alike(args, project)
    if "--json" in args and code in (0, 3):
        assert json.loads(out)["schema"] == "kapi.check/v2"


def test_outside_a_project_too(tmp_path):
    (tmp_path / "one.md").write_text("# One\n\nA plain page.\n", encoding="utf-8")
    code, out, _ = _assert_alike(["check", "one.md"], tmp_path)
    assert code == 0 and "0 failing" in out


def test_text_that_no_encoding_writes_and_terminal_codes_come_out_alike(tmp_path):
    # A lone surrogate (spelled as JSON can) and a terminal colour code in the checked text
    catalogue = {"a": "Hello \ud800 there", "b": "Red \u001b[31mtext\u001b[0m here"}
    (tmp_path / "en.json").write_text(json.dumps(catalogue), encoding="utf-8")
    for args in (["check", "en.json"], ["check", "en.json", "--json"]):
        _assert_alike(args, tmp_path)


def test_a_bad_recipe_is_refused_alike(tmp_path):
    (tmp_path / "kapi.yaml").write_text("version: v1\nprofiles: [unclosed\n", encoding="utf-8")
    (tmp_path / "one.md").write_text("# One\n", encoding="utf-8")
    code, _, err = _assert_alike(["check", "one.md"], tmp_path)
    assert code != 0 and "kapi.yaml" in err


def test_the_post_edit_hook_says_what_the_click_verb_says(project):
    payload = {
        "session_id": "s-plain",
        "cwd": str(project),
        "hook_event_name": "PostToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": str(project / "docs/guide.md"), "content": "…"},
    }
    plain, through_click = _both(["hook", "post-edit"], project, json.dumps(payload))
    assert "click" not in _modules(plain) and "click" in _modules(through_click)
    assert plain.returncode == through_click.returncode == 0
    assert json.loads(plain.stdout) == json.loads(through_click.stdout)
    assert "utilize" in plain.stdout


def test_a_malformed_hook_payload_is_answered_alike(project):
    _assert_alike(["hook", "pre-edit"], project, "{not json")


CATALOGUE = '{\n  "cart": "Your cart",\n  "pay": "Pay now"\n}\n'


@pytest.fixture
def catalogue(project: Path) -> Path:
    (project / "en.json").write_text(CATALOGUE, encoding="utf-8")
    done = subprocess.run(
        [KAPI, "inspect", "en.json"], cwd=project, capture_output=True, text=True, env=_env()
    )
    rev = {record["ref"]["block"]: record["rev"] for record in json.loads(done.stdout)}
    ops = [
        {
            "op": "set_content",
            "at": {"doc": "en.json", "block": "cart"},
            "if_match": rev["cart"],
            "text": "We utilize the bag",
        },
        {
            "op": "set_content",
            "at": {"doc": "en.json", "block": "pay"},
            "if_match": rev["pay"],
            "text": "Pay",
        },
    ]
    (project / "set.json").write_text(json.dumps({"ops": ops}), encoding="utf-8")
    stale = [{**ops[1], "if_match": "r:0000000000000000"}]
    (project / "stale.json").write_text(json.dumps({"ops": stale}), encoding="utf-8")
    (project / "bad.json").write_text('{"ops": [{"op": "set_content"}]', encoding="utf-8")
    return project


@pytest.mark.parametrize(
    "args",
    [
        ["apply", "set.json"],
        ["apply", "set.json", "--json"],
        ["apply", "--dry-run", "set.json"],
        ["apply", "stale.json", "--json"],
        ["apply", "bad.json"],
        ["apply", "missing.json"],
        ["apply", "../outside.json"],
    ],
)
def test_each_plain_apply_says_and_writes_what_the_click_verb_does(catalogue, args):
    written: list[str] = []

    def restore() -> None:
        if (catalogue / "en.json").read_text(encoding="utf-8") != CATALOGUE:
            written.append((catalogue / "en.json").read_text(encoding="utf-8"))
        (catalogue / "en.json").write_text(CATALOGUE, encoding="utf-8")

    code, out, _ = _assert_alike(args, catalogue, before=restore)
    restore()
    assert len(set(written)) <= 1  # both ways wrote the same bytes, or neither wrote
    if args[1:] == ["set.json"]:
        assert code == 0 and written == [written[0]] * 2
        assert json.loads(written[0]) == {"cart": "We utilize the bag", "pay": "Pay"}
    if "--json" in args:
        assert json.loads(out)["schema"] == "kapi.change-result/v1"


def test_a_change_set_on_stdin_is_applied_alike(catalogue):
    text = (catalogue / "set.json").read_text(encoding="utf-8")

    def restore() -> None:
        (catalogue / "en.json").write_text(CATALOGUE, encoding="utf-8")

    code, _, err = _assert_alike(["apply"], catalogue, text, before=restore)
    assert code == 0 and "2 applied" in err


@pytest.mark.parametrize(
    "args",
    [
        ["apply", "set.json", "other.json"],  # two sets: click says why not
        ["apply", "--print-ops", "set.json"],
        ["apply", "--gate", "report", "set.json"],
        ["apply", "-"],
        ["check", "--voice", "house", "docs/guide.md"],  # any other flag: click reads it
        ["check", "-"],
        ["check", "--", "docs/guide.md"],
        ["check", ""],
        ["check", "--help"],
        ["check", "-h"],
        ["hook"],
        ["hook", "post-edit", "extra"],
        ["hook", "--help"],
        ["inspect", "docs/guide.md"],
        ["--pretty", "check", "docs/guide.md"],
    ],
)
def test_every_other_call_goes_through_click(args):
    assert plain_verb(args) is None


def test_the_plain_calls(project):
    assert plain_verb(["check"]) is not None
    assert plain_verb(["check", "a.md", "--json", "b.md", "--no-fail"]) is not None
    assert plain_verb(["hook", "stop"]) is not None
    assert plain_verb(["apply"]) is not None
    assert plain_verb(["apply", "--json", "set.json", "--dry-run"]) is not None


def test_a_usage_error_still_comes_from_click(project):
    done = subprocess.run(
        [KAPI, "check", "--no-such-flag", "docs/guide.md"],
        cwd=project,
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
    )
    assert done.returncode == 2
    assert "No such option '--no-such-flag'" in done.stderr


def test_a_terminated_plain_call_ends_as_the_click_verb_does(project):
    """SIGTERM while the hook waits for its payload: "Aborted.", exit 130, both ways."""
    import signal
    import time

    ended = []
    for command in (
        [KAPI, "hook", "post-edit"],
        [sys.executable, "-c", THROUGH_CLICK, "hook", "post-edit"],
    ):
        process = subprocess.Popen(
            command,
            cwd=project,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(),
        )
        time.sleep(3)  # past the start, into the read of stdin
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=60)
        ended.append((process.returncode, out, DUMPED.sub("", err)))
    assert ended[0] == ended[1] == (130, "", "\nAborted.\n")


@pytest.mark.parametrize("args", [["check", "docs/guide.md", "--json"], ["apply", "set.json"]])
def test_a_reader_gone_before_the_output_ends_the_call_quietly_both_ways(catalogue, args):
    """``kapi … | head``: the reader has gone; no traceback, exit 1, as click ends it."""
    ended = []
    for command in ([KAPI, *args], [sys.executable, "-c", THROUGH_CLICK, *args]):
        (catalogue / "en.json").write_text(CATALOGUE, encoding="utf-8")
        reader, writer = os.pipe()
        os.close(reader)  # gone before kapi writes a byte
        try:
            done = subprocess.run(
                command,
                cwd=catalogue,
                stdin=subprocess.DEVNULL,
                stdout=writer,
                stderr=subprocess.PIPE,
                text=True,
                env=_env(),
                timeout=120,
            )
        finally:
            os.close(writer)
        ended.append((done.returncode, RECORD.sub("chg_", DUMPED.sub("", done.stderr))))
    assert ended[0] == ended[1]
    assert "Traceback" not in ended[0][1]
    if args[0] == "check":
        assert ended[0][0] == 1  # stderr holds only the recipe's typo warning


def test_a_shells_completion_is_answered_by_click(project):
    env = {**_env(), "_KAPI_COMPLETE": "bash_source"}
    done = subprocess.run(
        [KAPI, "check", "docs/guide.md"], cwd=project, capture_output=True, text=True, env=env
    )
    assert done.returncode == 0 and "_kapi_completion()" in done.stdout
