"""The run: every attempt of every mode, scenario and condition, recorded whatever happened.

The results file (``evals/results/<date>.json``) holds the run's settings, the
agent's and kapi's versions, and one record per attempt (failed and erred ones
included) with the model, the integration its condition gave the agent, what
the transcript shows it did, the checks, the outcome and the path of its whole
transcript (``evals/results/<date>/<attempt>.jsonl``). It is rewritten after
every attempt, so a run cut short keeps what it measured.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kapi_evals import SCHEMA
from kapi_evals.agents import HOST_MARKERS, Agent, Launch
from kapi_evals.checks import Checker
from kapi_evals.errors import EvalError
from kapi_evals.process import run_session
from kapi_evals.scenarios import Scenario
from kapi_evals.scoring import MODES, judge, summarize
from kapi_evals.transcript import Transcript
from kapi_evals.workspace import CONDITIONS, Area, Guard, Workspaces, agent_env, link_kapi

__all__ = ["DEFAULT_CONDITIONS", "MODE_CONDITIONS", "Options", "run"]

# Which conditions a mode is measured under, by default and at all.
DEFAULT_CONDITIONS = {
    "skill": ("skill",),
    "completion": ("skill", "mcp", "no-project", "baseline"),
    "mcp": ("mcp",),
}
MODE_CONDITIONS = {
    "skill": ("skill", "no-project"),
    "completion": tuple(CONDITIONS),
    "mcp": ("mcp",),
}
DEFAULT_TURNS = {"skill": 8, "completion": 40, "mcp": 8}


@dataclass
class Options:
    """Everything a run needs besides the scenarios."""

    repo: Path
    agent: Agent
    executable: str
    kapi: Path
    modes: tuple[str, ...]
    conditions: tuple[str, ...] | None
    repeat: int
    rounds: int
    timeout: float
    max_turns: int | None
    model: str | None
    out: Path
    keep: bool
    env: Mapping[str, str]
    cells: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    progress: Callable[[str], None] = field(default=lambda line: None)


def conditions_for(mode: str, chosen: tuple[str, ...] | None) -> tuple[str, ...]:
    """The conditions a mode runs under: those chosen that the mode can measure, or its defaults."""
    if chosen is None:
        return DEFAULT_CONDITIONS[mode]
    return tuple(name for name in chosen if name in MODE_CONDITIONS[mode])


def _cell_conditions(mode: str, scenario: Scenario, options: Options) -> tuple[str, ...]:
    """The conditions one scenario runs under in a mode (``--scenario ID@COND,…`` narrows them)."""
    if scenario.id in options.cells:
        return tuple(c for c in options.cells[scenario.id] if c in MODE_CONDITIONS[mode])
    return conditions_for(mode, options.conditions)


def results_path(out: Path, date: str) -> Path:
    """``<out>/<date>.json``, or ``<date>-2.json`` … when a run of that day is kept already."""
    candidate = out / f"{date}.json"
    number = 1
    while candidate.exists() or candidate.with_suffix("").exists():
        number += 1
        candidate = out / f"{date}-{number}.json"
    return candidate


def run(scenarios: list[Scenario], options: Options) -> tuple[Path, dict[str, Any]]:
    """Runs every attempt and writes the results; returns their file and content."""
    started = dt.datetime.now(dt.UTC)
    options.out.mkdir(parents=True, exist_ok=True)
    path = results_path(options.out, started.date().isoformat())
    transcripts = path.with_suffix("")
    transcripts.mkdir()
    plan = [
        (mode, scenario, condition, number)
        for mode in options.modes
        for scenario in scenarios
        if mode != "completion" or scenario.positive
        for condition in _cell_conditions(mode, scenario, options)
        for number in range(1, options.repeat + 1)
    ]
    results: dict[str, Any] = {
        "schema": SCHEMA,
        "started": _stamp(started),
        "finished": None,
        "agent": {
            "name": options.agent.name,
            "version": options.agent.version(options.executable, options.env),
            "model": options.model,
        },
        "kapi": _kapi_facts(options),
        "host": f"{platform.system()} {platform.machine()}",
        "settings": {
            "modes": list(options.modes),
            "conditions": {
                mode: list(conditions_for(mode, options.conditions)) for mode in options.modes
            },
            "about_conditions": {name: CONDITIONS[name].about for name in CONDITIONS},
            "scenarios": [scenario.id for scenario in scenarios],
            "narrowed": {name: list(conditions) for name, conditions in options.cells.items()},
            "repeat": options.repeat,
            "rounds": options.rounds,
            "timeout_s": options.timeout,
            "max_turns": {mode: options.max_turns or DEFAULT_TURNS[mode] for mode in options.modes},
        },
        "attempts": [],
        "summary": {},
    }
    root = Path(tempfile.mkdtemp(prefix="evals-run-")).resolve()
    try:
        bin_dir = root / "bin"
        link_kapi(options.kapi, bin_dir)
        workspaces = Workspaces(options.repo, root, bin_dir / "kapi", options.agent.kapi_host)
        for index, (mode, scenario, condition, number) in enumerate(plan, 1):
            attempt = _attempt(
                options, workspaces, bin_dir, transcripts, mode, scenario, condition, number
            )
            results["attempts"].append(attempt)
            results["summary"] = summarize(results["attempts"])
            _write(path, results)
            why = f" ({attempt['reason']})" if attempt["reason"] else ""
            options.progress(
                f"[{index}/{len(plan)}] {mode} {scenario.id} {condition} #{number}: "
                f"{attempt['outcome']}{why}"
            )
    finally:
        if options.keep:
            options.progress(f"workspaces kept in {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    results["finished"] = _stamp(dt.datetime.now(dt.UTC))
    _write(path, results)
    return path, results


def _attempt(
    options: Options,
    workspaces: Workspaces,
    bin_dir: Path,
    transcripts: Path,
    mode: str,
    scenario: Scenario,
    condition_name: str,
    number: int,
) -> dict[str, Any]:
    condition = CONDITIONS[condition_name]
    prepared = workspaces.prepared(scenario.copy, condition)
    area = workspaces.attempt(prepared)
    agent = options.agent
    keep = [Path(options.executable).parent]
    drop = (*HOST_MARKERS, *agent.private_env)
    env, shadowed = agent_env(options.env, condition, area, bin_dir, drop, keep)
    name = f"{mode}-{scenario.id}-{condition.name}-{number}"
    transcript_file = transcripts / f"{name}.jsonl"
    stderr_file = transcripts / f"{name}.stderr"
    guard = _guard(options, area, bin_dir)
    checker = Checker(area.work, prepared.baseline, bin_dir, area.home)
    mcp_config = area.work / prepared.integration["mcp"]["config"] if condition.mcp else None
    max_turns = options.max_turns or DEFAULT_TURNS[mode]
    rounds = options.rounds if mode == "completion" else 1
    prompt, resume = scenario.prompt, None
    merged = Transcript()
    breaches: list[str] = []
    checks: list[dict[str, Any]] = []
    status, error, exit_code, seconds, used = "completed", "", None, 0.0, 0
    argv: list[str] = []
    for _ in range(rounds):
        used += 1
        launch = Launch(area.work, prompt, options.model, max_turns, mcp_config, resume)
        argv = agent.argv(options.executable, launch)
        guard.arm()
        session = run_session(
            argv,
            cwd=area.work,
            env=env,
            prompt=prompt,
            timeout=options.timeout,
            transcript=transcript_file,
            stderr=stderr_file,
            hide={str(options.repo.resolve()): "<repo>"},
        )
        breaches += [item for item in guard.breaches() if item not in breaches]
        seconds += session.seconds
        exit_code = session.exit_code
        transcript = agent.read(session.lines, area.work)
        _merge(merged, transcript)
        status, error = _status(session, transcript)
        if status not in ("completed", "agent_failed"):
            checks = []  # a session that did not finish is not judged
            break
        if mode == "completion":
            checks = [result.as_json() for result in checker.run(scenario.checks)]
        if not transcript.session_id:
            break
        if mode != "completion" or all(check["passed"] for check in checks):
            break
        prompt, resume = agent.follow_up(), transcript.session_id
    for path in merged.written:  # a file tool aimed outside, wherever no snapshot looks
        shown = _outside_write(path, area, agent)
        if shown and shown not in breaches:
            breaches.append(shown)
    attempt: dict[str, Any] = {
        "id": name,
        "mode": mode,
        "scenario": scenario.id,
        "kind": scenario.kind,
        "condition": condition.name,
        "repeat": number,
        "integration": {
            **prepared.integration,
            "agent_args": [_relative(arg, area) for arg in argv[1:]],
            "other_kapi_on_path": shadowed,
        },
        "model": {"requested": options.model, "observed": merged.models},
        "agent_version": merged.agent_version,
        "status": status,
        "error": error,
        "exit_code": exit_code,
        "seconds": round(seconds, 1),
        "rounds": used,
        "turns": merged.turns,
        "cost_usd": merged.cost_usd,
        "input_tokens": merged.input_tokens,
        "output_tokens": merged.output_tokens,
        "tools_offered": [
            tool for tool in merged.tools_offered if "kapi" in tool or tool == "Skill"
        ],
        "skills_offered": merged.skills_offered,
        "mcp_servers": merged.mcp_servers,
        "skill_loaded": merged.skill_loaded,
        "kapi_commands": merged.kapi_commands,
        "mcp_tools": merged.mcp_tools,
        "first_mcp_tool": merged.mcp_tools[0] if merged.mcp_tools else None,
        "fired": merged.skill_loaded or bool(merged.kapi_commands),
        "calls": [call.as_json() for call in merged.calls],
        "checks": checks,
        "outside_writes": breaches,
        "transcript": f"{transcripts.name}/{transcript_file.name}",
        "stderr": f"{transcripts.name}/{stderr_file.name}" if _nonempty(stderr_file) else None,
    }
    if not _nonempty(stderr_file):
        stderr_file.unlink(missing_ok=True)
    if mode == "mcp" and scenario.positive:
        attempt["right_first_tool"] = attempt["first_mcp_tool"] in scenario.first_tool
    attempt["outcome"], attempt["reason"] = judge(attempt, scenario.first_tool)
    return attempt


def _guard(options: Options, area: Area, bin_dir: Path) -> Guard:
    agent = options.agent
    home = area.home.name
    tmp = area.tmp.name
    work = area.work.name

    def skip(rel: str) -> bool:
        first, _, rest = rel.partition("/")
        if first in (work, tmp):
            return True
        return first == home and bool(rest) and agent.own_state(rest)

    repo_skip: tuple[str, ...] = ()
    with contextlib.suppress(ValueError):
        repo_skip = (options.out.resolve().relative_to(options.repo.resolve()).as_posix(),)
    repo = options.repo if (options.repo / ".git").exists() else None
    return Guard(
        [(area.root, skip, ""), (bin_dir, lambda rel: False, "kapi executables: ")],
        repo,
        repo_skip,
    )


def _outside_write(path: str, area: Area, agent: Agent) -> str | None:
    """How the guard names a path a file tool wrote outside the workspace, or None when it is
    inside it, in the agent's TMPDIR or among its host's own state in its HOME."""
    written = Path(os.path.normpath(path if os.path.isabs(path) else area.work / path))
    if written.is_relative_to(area.work) or written.is_relative_to(area.tmp):
        return None
    if written.is_relative_to(area.home) and agent.own_state(
        written.relative_to(area.home).as_posix()
    ):
        return None
    if written.is_relative_to(area.root):
        return written.relative_to(area.root).as_posix()
    return written.as_posix()


def _status(session: Any, transcript: Transcript) -> tuple[str, str]:
    if session.launch_error:
        return "launch_failed", session.launch_error
    if session.timed_out:
        return "timeout", "the agent was stopped when its time ran out"
    if transcript.status == "malformed_stream":
        return "malformed_stream", transcript.error
    if not transcript.finished:
        return "crashed", f"the stream ended without a result (exit {session.exit_code})"
    return transcript.status, transcript.error


def _merge(into: Transcript, round_: Transcript) -> None:
    """Adds one round of a session to the attempt's transcript."""
    into.session_id = round_.session_id or into.session_id
    into.agent_version = into.agent_version or round_.agent_version
    into.models += [model for model in round_.models if model not in into.models]
    into.tools_offered = into.tools_offered or round_.tools_offered
    into.skills_offered = into.skills_offered or round_.skills_offered
    into.mcp_servers = into.mcp_servers or round_.mcp_servers
    for call in round_.calls:
        call.order = len(into.calls) + 1
        into.calls.append(call)
    into.written += round_.written
    for name in ("turns", "input_tokens", "output_tokens"):
        value = getattr(round_, name)
        if value is not None:
            setattr(into, name, (getattr(into, name) or 0) + value)
    if round_.cost_usd is not None:
        into.cost_usd = round((into.cost_usd or 0.0) + round_.cost_usd, 6)
    into.final_text = round_.final_text or into.final_text


def _relative(arg: str, area: Area) -> str:
    """A command-line argument with the attempt's own folders named, not this machine's paths."""
    return arg.replace(str(area.work), "<workspace>").replace(str(area.root), "<attempt>")


def _nonempty(path: Path) -> bool:
    return path.exists() and path.stat().st_size > 0


def _kapi_facts(options: Options) -> dict[str, Any]:
    def output(*argv: str, cwd: Path | None = None) -> str:
        try:
            done = subprocess.run(
                list(argv), cwd=cwd, capture_output=True, text=True, timeout=30, check=False
            )
        except (OSError, subprocess.TimeoutExpired):
            return ""
        return done.stdout.strip()

    from kapi.skill import skill_root

    skill = skill_root() / "SKILL.md"
    import hashlib

    return {
        "version": output(str(options.kapi), "--version").rsplit(" ", 1)[-1],
        "commit": output("git", "rev-parse", "--short", "HEAD", cwd=options.repo),
        "skill_sha256": hashlib.sha256(skill.read_bytes()).hexdigest(),
        "python": sys.version.split()[0],
    }


def _stamp(moment: dt.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _write(path: Path, results: dict[str, Any]) -> None:
    temporary = path.with_name(path.name + ".part")
    temporary.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(temporary, path)


def check_modes(modes: tuple[str, ...]) -> None:
    for mode in modes:
        if mode not in MODES:
            raise EvalError(f"unknown mode {mode!r}: the modes are {', '.join(MODES)}")
