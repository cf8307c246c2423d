"""``kapi hook post-edit|stop|pre-edit``: recorded Claude Code payloads through the real processes.

Every hook exits 0; the verdict is only in the JSON on stdout; a guard that
could not run says so (stdout ``systemMessage`` and the same warning on
stderr), and a hook run by hand with nothing piped in prints nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

KAPI = str(Path(sys.executable).parent / "kapi")

RECIPE = """\
version: v1
id: prj_hooktestproject0000000000000
name: hooks
defaults:
  source_language: en
  target_languages: [fr]
profiles:
  docs:
    channels: [guides]
    voice: house
collections:
  - name: ui
    content:
      - path: locales/en.json
        target: locales/{lang}.json
  - name: docs
    channel: docs/guides
    source_only: true
    content:
      - path: docs/**/*.md
"""

VOICE = """\
name: House voice
id: house
style:
  prohibited_patterns:
    - regex: '(?i)\\bsimply\\b'
      description: Do not call a step easy.
"""


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KAPI_", "CLAUDE"))}
    env.pop("CODEX_SESSION_ID", None)
    return env


def _hook(name: str, payload: object | None = None, *, raw: bytes | None = None, stdin=None):
    data = (
        raw if raw is not None else (json.dumps(payload).encode() if payload is not None else None)
    )
    return subprocess.run(
        [KAPI, "hook", name],
        input=data,
        stdin=stdin,
        capture_output=True,
        env=_env(),
        timeout=60,
        check=False,
    )


def _kapi(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [KAPI, *args], cwd=root, capture_output=True, text=True, env=_env(), timeout=60, check=False
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    (root / "docs").mkdir(parents=True)
    (root / "locales").mkdir()
    (root / "voices").mkdir()
    (root / "kapi.yaml").write_text(RECIPE, encoding="utf-8")
    (root / "voices/house.yaml").write_text(VOICE, encoding="utf-8")
    (root / "docs/guide.md").write_text("# Guide\n\nOpen the settings page.\n", encoding="utf-8")
    (root / "locales/en.json").write_text('{"save": "Save"}\n', encoding="utf-8")
    (root / "locales/fr.json").write_text('{"save": "Enregistrer"}\n', encoding="utf-8")
    return root


def post_tool_use(root: Path, file_path: str, *, session: str = "s-hooks-1") -> dict:
    """A PostToolUse payload as Claude Code sends it after a Write."""
    return {
        "session_id": session,
        "transcript_path": str(root / ".claude/transcript.jsonl"),
        "cwd": str(root),
        "permission_mode": "default",
        "hook_event_name": "PostToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": file_path, "content": "…"},
        "tool_response": {"filePath": file_path, "success": True},
    }


def pre_tool_use(root: Path, file_path: str, tool: str = "Edit") -> dict:
    return {
        "session_id": "s-hooks-1",
        "transcript_path": str(root / ".claude/transcript.jsonl"),
        "cwd": str(root),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": {"file_path": file_path, "old_string": "Save", "new_string": "Sauver"},
    }


def stop(root: Path, *, active: bool = False, session: str = "s-hooks-1") -> dict:
    return {
        "session_id": session,
        "transcript_path": str(root / ".claude/transcript.jsonl"),
        "cwd": str(root),
        "permission_mode": "default",
        "hook_event_name": "Stop",
        "stop_hook_active": active,
    }


def _verdict(done: subprocess.CompletedProcess[bytes]) -> dict:
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _silent(done: subprocess.CompletedProcess[bytes]) -> None:
    assert done.returncode == 0
    assert done.stdout == b""
    assert done.stderr == b""


# --- post-edit --------------------------------------------------------------------------


def test_post_edit_blocks_on_a_failing_finding_in_the_file_written(project):
    guide = project / "docs/guide.md"
    guide.write_text("# Guide\n\nSimply open the settings page.\n", encoding="utf-8")
    done = _hook("post-edit", post_tool_use(project, str(guide)))
    verdict = _verdict(done)
    assert verdict["decision"] == "block"
    assert "docs/guide.md:3" in verdict["reason"]
    assert "Do not call a step easy" in verdict["reason"]
    assert "kapi check docs/guide.md" in verdict["reason"]
    assert done.stderr == b""


def test_post_edit_says_nothing_when_the_file_passes(project):
    _silent(_hook("post-edit", post_tool_use(project, str(project / "docs/guide.md"))))


def test_post_edit_takes_a_path_relative_to_cwd(project):
    (project / "docs/guide.md").write_text("Simply do it.\n", encoding="utf-8")
    verdict = _verdict(_hook("post-edit", post_tool_use(project, "docs/guide.md")))
    assert verdict["decision"] == "block"


def test_post_edit_has_nothing_to_report_for_what_is_not_content(project):
    (project / "tool.py").write_text("print('simply')\n", encoding="utf-8")
    _silent(_hook("post-edit", post_tool_use(project, str(project / "tool.py"))))
    _silent(_hook("post-edit", post_tool_use(project, str(project / "kapi.yaml"))))
    payload = post_tool_use(project, "")
    del payload["tool_input"]["file_path"]
    _silent(_hook("post-edit", payload))


def test_post_edit_outside_any_project_reports_nothing(tmp_path):
    loose = tmp_path / "loose"
    loose.mkdir()
    (loose / "notes.md").write_text("Simply do it.\n", encoding="utf-8")
    _silent(_hook("post-edit", post_tool_use(loose, str(loose / "notes.md"))))


def test_post_edit_on_a_file_outside_the_project_reports_nothing(project, tmp_path):
    elsewhere = tmp_path / "elsewhere.md"
    elsewhere.write_text("Simply do it.\n", encoding="utf-8")
    _silent(_hook("post-edit", post_tool_use(project, str(elsewhere))))


# --- fail open --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"", "the payload on stdin was empty"),
        (b"  \n", "the payload on stdin was empty"),
        (b'{"cwd": "/tmp", "tool_input": ', "not JSON"),
        (b"[1, 2]", "not a JSON object"),
        (b'{"hook_event_name": "PostToolUse"}', "names no cwd"),
    ],
)
@pytest.mark.parametrize("name", ["post-edit", "stop", "pre-edit"])
def test_a_payload_that_cannot_be_read_fails_open_and_says_so(name, raw, reason):
    done = _hook(name, raw=raw)
    assert done.returncode == 0
    message = json.loads(done.stdout)
    assert list(message) == ["systemMessage"]
    text = message["systemMessage"]
    assert f"kapi hook {name}" in text
    assert "the guard never ran" in text
    assert reason in text
    assert done.stderr.decode() == f"warning: {text}\n"


def test_a_cwd_that_does_not_exist_fails_open(project):
    payload = post_tool_use(project, str(project / "docs/guide.md"))
    payload["cwd"] = str(project / "no-such-folder")
    text = _verdict(_hook("post-edit", payload))["systemMessage"]
    assert "cannot be entered" in text
    assert "the guard never ran" in text


def test_a_recipe_that_does_not_load_fails_open(project):
    (project / "kapi.yaml").write_text("version: v1\ncollections: 7\n", encoding="utf-8")
    done = _hook("stop", stop(project))
    text = _verdict(done)["systemMessage"]
    assert "kapi hook stop: the guard never ran" in text
    assert b"warning: kapi hook stop" in done.stderr
    assert b"Traceback" not in done.stderr


@pytest.mark.parametrize("name", ["post-edit", "stop", "pre-edit"])
def test_a_hook_run_by_hand_with_nothing_piped_in_prints_nothing(name):
    with open(os.devnull, "rb") as null:  # a character device, like a terminal
        _silent(_hook(name, stdin=null))


# --- stop -------------------------------------------------------------------------------


def test_stop_passes_when_the_bound_gates_pass(project):
    _silent(_hook("stop", stop(project)))


def test_stop_blocks_with_the_failing_findings_and_the_command(project):
    (project / "docs/guide.md").write_text("# Guide\n\nSimply open it.\n", encoding="utf-8")
    verdict = _verdict(_hook("stop", stop(project)))
    assert verdict["decision"] == "block"
    reason = verdict["reason"]
    assert reason.startswith("kapi check --ship: 1 of 1 gates failed (voice).")
    assert "ERROR [voice] docs/guide.md: " in reason
    assert "kapi check --ship" in reason.splitlines()[-1]


def test_stop_lists_at_most_25_findings(project):
    paragraphs = "\n\n".join(f"Simply open page {n}." for n in range(30))
    (project / "docs/guide.md").write_text(paragraphs + "\n", encoding="utf-8")
    reason = _verdict(_hook("stop", stop(project)))["reason"]
    listed = [line for line in reason.splitlines() if line.startswith("ERROR ")]
    assert len(listed) == 25
    assert "… and 5 more" in reason


def test_stop_honours_stop_hook_active(project):
    (project / "docs/guide.md").write_text("Simply open it.\n", encoding="utf-8")
    _silent(_hook("stop", stop(project, active=True)))


def test_stop_outside_a_project_reports_nothing(tmp_path):
    _silent(_hook("stop", stop(tmp_path)))


# --- pre-edit ---------------------------------------------------------------------------


def test_pre_edit_denies_a_hand_edit_of_a_generated_translation(project):
    done = _hook("pre-edit", pre_tool_use(project, str(project / "locales/fr.json")))
    output = _verdict(done)["hookSpecificOutput"]
    assert output["hookEventName"] == "PreToolUse"
    assert output["permissionDecision"] == "deny"
    reason = output["permissionDecisionReason"]
    assert "locales/fr.json is the fr translation of locales/en.json" in reason
    assert "kapi translate locales/en.json --to fr" in reason
    assert "kapi apply" in reason and "kapi check" in reason
    assert done.stderr == b""


def test_pre_edit_allows_the_source_and_other_files(project):
    _silent(_hook("pre-edit", pre_tool_use(project, str(project / "locales/en.json"))))
    _silent(_hook("pre-edit", pre_tool_use(project, str(project / "docs/guide.md"), "Write")))


def test_pre_edit_sees_through_a_symlink_to_a_translation(project):
    link = project / "fr-strings.json"
    link.symlink_to(project / "locales/fr.json")
    output = _verdict(_hook("pre-edit", pre_tool_use(project, str(link))))["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"


# --- what the session summary reports ---------------------------------------------------


def test_hook_outcomes_reach_the_session_summary(project):
    guide = project / "docs/guide.md"
    guide.write_text("Simply open it.\n", encoding="utf-8")
    assert _verdict(_hook("post-edit", post_tool_use(project, str(guide), session="s-sum")))
    guide.write_text("Open it.\n", encoding="utf-8")
    _silent(_hook("post-edit", post_tool_use(project, str(guide), session="s-sum")))
    _silent(_hook("stop", stop(project, session="s-sum")))
    done = _kapi(project, "context", "log", "--session", "s-sum", "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)["summary"]
    assert summary["checked"] == 3
    assert summary["failing"] == 1
    assert summary["caught"] == 1
    assert summary["files"] == ["docs/guide.md"]
    assert "The hooks checked 3 times: 1 failing, 1 caught and fixed." in summary["report"]


def test_a_payload_without_a_session_records_nothing(project):
    payload = post_tool_use(project, str(project / "docs/guide.md"))
    del payload["session_id"]
    _silent(_hook("post-edit", payload))
    done = _kapi(project, "context", "log", "--json")
    assert json.loads(done.stdout)["operations"] == []


def _modules(done: subprocess.CompletedProcess) -> set[str]:
    err = done.stderr.decode() if isinstance(done.stderr, bytes) else done.stderr
    line = next(x for x in err.splitlines() if x.startswith("kapi-modules: "))
    return set(line.removeprefix("kapi-modules: ").split())


def test_post_edit_loads_what_kapi_check_loads_and_the_context_log(project):
    """The hook runs after every edit: it stays as light as the check it runs."""
    guide = project / "docs/guide.md"
    env = {**_env(), "KAPI_DUMP_MODULES": "1"}
    check = subprocess.run(
        [KAPI, "check", str(guide)], cwd=project, capture_output=True, env=env, timeout=60
    )
    hook = subprocess.run(
        [KAPI, "hook", "post-edit"],
        input=json.dumps(post_tool_use(project, str(guide))).encode(),
        capture_output=True,
        env=env,
        timeout=60,
    )
    extra = _modules(hook) - _modules(check)
    kapi_extra = {m for m in extra if m.startswith("kapi.")}
    assert kapi_extra <= {
        "kapi.cli.hook",  # each verb loads its own command module, `kapi check` kapi.cli.check
        "kapi.host.hooks",
        "kapi.core.context",
        "kapi.core.context.errors",
        "kapi.core.context.ids",
    }
    assert not any(m.startswith("cattrs") for m in extra)  # the row is written without a converter
    assert "kapi.core.change.service" not in _modules(hook)
    assert "kapi.core.change.ports" not in _modules(hook)


def test_the_row_a_hook_records_is_the_context_records_wire_form():
    from datetime import UTC, datetime

    from kapi.core.context.record import Author, Evidence, OpKind, Record, Subject
    from kapi.core.context.wire import decode_record, encode_record
    from kapi.host.hooks import check_row

    moment = datetime(2026, 12, 1, 23, 0, 0, 123000, tzinfo=UTC)
    row = check_row("prj_x", "s-1", "post-edit", False, ["docs/a.md"], moment=moment, random_bits=7)
    record = Record(
        id=row["id"],
        kind=OpKind.CHECK,
        actor=Author(kind="tool", name="kapi-hook", session="s-1"),
        at="2026-12-01T23:00:00.123Z",
        project="prj_x",
        subject=Subject(kind="note", text="post-edit failing"),
        evidence=(Evidence(path="docs/a.md"),),
    )
    assert decode_record(row) == record
    assert encode_record(record) == row
    passed = check_row("prj_x", "s-1", "stop", True, [], moment=moment, random_bits=7)
    assert encode_record(decode_record(passed)) == passed
