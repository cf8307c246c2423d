"""The evaluations end to end, offline: ``scripts/evals.py run`` driving the replaying agent.

The agent on PATH is ``fake_claude.py``: it replays recorded Claude Code
sessions and carries out their tool calls for real in each workspace (kapi
commands, file edits, calls on the kapi MCP server), so what is scored here is
what the files, kapi's records and the streams show.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from evals_harness import MODEL, REPO, SECRET, Run, fake_agent_env, run_evals

from kapi_evals.cli import main
from kapi_evals.process import run_session


def test_every_attempt_is_recorded_with_its_model_and_integration(study: Run) -> None:
    results = study.results
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}\.json", study.results_file.name)
    assert results["schema"] == "kapi.evals/v1"
    assert results["agent"] == {
        "name": "claude",
        "version": "2.1.117 (Claude Code)",
        "model": MODEL,
    }
    assert len(results["attempts"]) == 14  # 6 triggering, 8 completion: failed ones included
    for attempt in results["attempts"]:
        assert attempt["model"]["requested"] == MODEL
        assert attempt["integration"]["condition"] == attempt["condition"]
        transcript = study.out / attempt["transcript"]
        assert transcript.parent.name == study.results_file.stem
        assert transcript.read_text(encoding="utf-8").strip()
        if attempt["status"] == "completed":
            assert attempt["model"]["observed"] == [MODEL]
            assert attempt["turns"] >= 1 and attempt["cost_usd"] > 0
    written = [path.read_text(encoding="utf-8") for path in study.out.rglob("*.*")]
    assert not [text for text in written if SECRET in text]


def test_the_conditions_give_the_agent_what_they_say(study: Run) -> None:
    skill = study.attempt("completion", "xliff-edit-string", "skill")["integration"]
    mcp = study.attempt("completion", "xliff-edit-string", "mcp")["integration"]
    bare = study.attempt("completion", "xliff-edit-string", "baseline")["integration"]
    free = study.attempt("completion", "record-term-correction", "no-project")["integration"]
    assert skill["skill"]["path"] == ".claude/skills/kapi/SKILL.md" and skill["mcp"] is None
    assert (
        "--mcp-config" not in skill["agent_args"] and "--strict-mcp-config" in skill["agent_args"]
    )
    assert mcp["skill"] is None
    assert mcp["mcp"]["kapi"]["args"][:3] == ["mcp", "--project", "kapi.yaml"]
    assert "<workspace>/.mcp.json" in mcp["agent_args"]
    assert free["kapi_no_project"] is True and free["skill"] is not None
    assert bare == {**bare, "skill": None, "mcp": None, "kapi_on_path": False, "rules_files": []}
    assert "AGENTS.md" in skill["rules_files"]
    # What the replaying agent found for itself: no kapi on the baseline's PATH, the MCP
    # server's tools in the MCP condition's init message, and discovery off without a project.
    baseline = study.attempt("completion", "xliff-edit-string", "baseline")
    assert "no kapi here" in study.transcript(baseline)
    assert (
        "mcp__kapi__read_blocks"
        in study.attempt("completion", "xliff-edit-string", "mcp")["tools_offered"]
    )
    unbound = study.attempt("completion", "record-term-correction", "no-project")
    assert "no project here" in study.transcript(unbound)


def test_triggering_is_scored_by_precision_and_recall(study: Run) -> None:
    summary = study.results["summary"]["skill"]
    assert summary["skill"] == {
        "attempts": 5,
        "errors": 1,  # the crash
        "true_positives": 1,  # the XLIFF edit loaded the skill and ran kapi
        "false_negatives": 1,  # the .docx: the agent gave up without kapi
        "false_positives": 1,  # the failing unit test: it loaded the skill anyway
        "true_negatives": 1,  # the refactoring
        "precision": 0.5,
        "recall": 0.5,
        "skill_loaded": 2,
        "ran_kapi": 1,
    }
    assert summary["no-project"]["true_positives"] == 1
    xliff = study.attempt("skill", "xliff-edit-string", "skill")
    assert xliff["skill_loaded"] and xliff["kapi_commands"] == ["ksed", "kapi check"]
    assert xliff["outcome"] == "pass"
    wrong = study.attempt("skill", "fix-failing-test", "skill")
    assert (wrong["outcome"], wrong["reason"]) == (
        "fail",
        "reached for kapi on a task that is not kapi's",
    )


def test_completion_is_decided_by_the_artifacts(study: Run) -> None:
    for condition in ("skill", "mcp", "baseline"):
        attempt = study.attempt("completion", "xliff-edit-string", condition)
        assert attempt["outcome"] == "pass", attempt
        assert [check["passed"] for check in attempt["checks"]] == [True] * 4
    gave_up = study.attempt("completion", "docx-fix-wording", "skill")
    assert gave_up["outcome"] == "fail" and gave_up["rounds"] == 2 and gave_up["turns"] == 2
    failing = [check["check"] for check in gave_up["checks"] if not check["passed"]]
    assert failing[0] == "changed docs/returns-policy.docx"
    unbound = study.attempt("completion", "record-term-correction", "no-project")
    assert unbound["kapi_commands"] == ["kapi context note"]
    assert [c["check"] for c in unbound["checks"] if not c["passed"]] == [
        "context log has correct/observe by an agent saying 'Profile'"
    ]
    assert study.results["summary"]["completion"] == {
        "skill": {
            "attempts": 3,
            "passed": 1,
            "errors": 1,
            "success_rate": 0.333,
            "median_turns": 4,
            "cost_usd": 0.0854,
        },
        "mcp": {
            "attempts": 3,
            "passed": 1,
            "errors": 1,
            "success_rate": 0.333,
            "median_turns": 4,
            "cost_usd": 0.126,
        },
        "baseline": {
            "attempts": 1,
            "passed": 1,
            "errors": 0,
            "success_rate": 1.0,
            "median_turns": 4,
            "cost_usd": 0.0433,
        },
        "no-project": {
            "attempts": 1,
            "passed": 0,
            "errors": 0,
            "success_rate": 0.0,
            "median_turns": None,
            "cost_usd": 0.06,
        },
    }


def test_a_crash_and_an_invalid_stream_are_errors_kept_with_their_transcripts(study: Run) -> None:
    crash = study.attempt("completion", "docs-in-voice", "skill")
    assert crash["status"] == "crashed" and crash["outcome"] == "error"
    assert crash["exit_code"] == 1 and crash["checks"] == []
    assert "TypeError" in (study.out / crash["stderr"]).read_text(encoding="utf-8")
    invalid = study.attempt("completion", "docs-in-voice", "mcp")
    assert invalid["status"] == "malformed_stream"
    assert invalid["error"].startswith("line 2 is not JSON: Error: Request timed out")
    assert "Request timed out" in study.transcript(invalid)


def test_a_write_outside_the_workspace_fails_the_attempt(study: Run) -> None:
    leaked = study.attempt("completion", "record-term-correction", "mcp")
    assert all(check["passed"] for check in leaked["checks"])  # the task itself was done
    assert leaked["outside_writes"] == ["outside/notes.txt"]
    assert (leaked["outcome"], leaked["reason"]) == (
        "fail",
        "wrote outside its workspace: outside/notes.txt",
    )
    assert leaked["mcp_tools"][0] == "context_note"


def test_the_report_has_tables_per_mode_and_condition_and_links_every_transcript(
    study: Run,
) -> None:
    page = study.report.read_text(encoding="utf-8")
    assert "### Triggering (`skill`)" in page and "### Completion (`completion`)" in page
    assert "| no-project | 1 | 0 | 0% | 0 | – | 0.06 |" in page
    links = re.findall(r"\]\(([^)]+\.jsonl)\)", page)
    assert {Path(link).name for link in links} == {
        Path(attempt["transcript"]).name for attempt in study.results["attempts"]
    }
    assert all((study.report.parent / link).is_file() for link in links)
    tables = study.stdout.split("\nresults: ")[0].strip()
    assert tables and tables in page  # the command line prints the page's summary


def test_mcp_mode_scores_the_first_kapi_tool(tool_choice: Run) -> None:
    right = tool_choice.attempt("mcp", "xliff-edit-string", "mcp")
    wrong = tool_choice.attempt("mcp", "docx-fix-wording", "mcp")
    none = tool_choice.attempt("mcp", "refactor-function", "mcp")
    assert right["mcp_tools"] == ["read_blocks", "apply_edits", "check_file"]
    assert right["outcome"] == "pass" and right["right_first_tool"] is True
    assert wrong["reason"] == "first kapi tool was check_file, not read_blocks or describe_format"
    assert none["outcome"] == "pass" and none["first_mcp_tool"] is None
    assert tool_choice.results["summary"]["mcp"]["mcp"] == {
        "attempts": 3,
        "errors": 0,
        "positives": 2,
        "right_first": 1,
        "right_first_rate": 0.5,
        "negatives": 1,
        "kapi_called": 0,
    }
    assert "| mcp | 3 | 0 | 1/2 | 50% | 0/1 |" in tool_choice.report.read_text(encoding="utf-8")


def test_an_agent_that_hangs_is_stopped_at_its_timeout(tmp_path: Path) -> None:
    run = run_evals(
        tmp_path,
        *("--mode", "skill", "--repeat", "1", "--timeout", "2", "--no-report"),
        *("--scenario", "record-term-correction@skill"),
    )
    assert run.code == 0, run.stderr
    (attempt,) = run.results["attempts"]
    assert attempt["status"] == "timeout" and attempt["outcome"] == "error"
    assert 2 <= attempt["seconds"] < 30
    assert json.loads(run.transcript(attempt).splitlines()[0])["subtype"] == "init"
    assert not run.report.exists()


def test_without_the_agent_cli_the_run_says_so_in_one_line_and_exits_2(tmp_path: Path) -> None:
    env = fake_agent_env(tmp_path)
    env["PATH"] = os.pathsep.join(
        folder for folder in env["PATH"].split(os.pathsep) if not (Path(folder) / "claude").exists()
    )
    run = run_evals(tmp_path, env=env)
    assert run.code == 2 and run.stdout == ""
    assert run.stderr.count("\n") == 1
    assert run.stderr.startswith("kapi-evals: no agent to drive: the claude CLI is not on PATH")
    assert not run.out.exists()


def test_without_credentials_the_run_says_so_in_one_line_and_exits_2(tmp_path: Path) -> None:
    env = fake_agent_env(tmp_path)
    del env["ANTHROPIC_API_KEY"]
    run = run_evals(tmp_path, env=env)
    assert run.code == 2 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and "ANTHROPIC_API_KEY" in run.stderr
    assert not run.out.exists()


def test_the_report_is_written_again_from_the_results_file_alone(
    study: Run, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = study.report.parent / "again.md"
    assert main(["report", str(study.results_file), "--write", str(page)]) == 0
    assert page.read_text(encoding="utf-8") == study.report.read_text(encoding="utf-8")
    assert capsys.readouterr().out.startswith("### Triggering")
    assert main(["report", str(study.results_file), "--write", str(page), "--check"]) == 0
    page.write_text(page.read_text(encoding="utf-8").replace("| pass |", "| fail |"), "utf-8")
    assert main(["report", str(study.results_file), "--write", str(page), "--check"]) == 1
    assert "does not show the results of" in capsys.readouterr().err


def test_a_session_is_recorded_with_secrets_and_the_checkout_hidden(tmp_path: Path) -> None:
    transcript, stderr = tmp_path / "t.jsonl", tmp_path / "t.stderr"
    env = {"PATH": os.environ["PATH"], "ANTHROPIC_API_KEY": SECRET, "HERE": str(REPO)}
    session = run_session(
        ["sh", "-c", 'echo "$ANTHROPIC_API_KEY $HERE/x"; echo "$ANTHROPIC_API_KEY" >&2; cat'],
        cwd=tmp_path,
        env=env,
        prompt="the prompt\n",
        timeout=30,
        transcript=transcript,
        stderr=stderr,
        hide={str(REPO): "<repo>"},
    )
    assert session.exit_code == 0 and not session.timed_out
    assert session.lines == [f"{SECRET} {REPO}/x\n", "the prompt\n"]  # read as it came
    assert transcript.read_text(encoding="utf-8") == "[REDACTED] <repo>/x\nthe prompt\n"
    assert stderr.read_text(encoding="utf-8") == "[REDACTED]\n"
