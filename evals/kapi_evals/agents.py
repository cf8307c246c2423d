"""Agent adapters: how to find, start and read one agent CLI. Claude Code is the first.

An adapter is a small class: the executable it runs, the host name
``kapi init --agents`` wires, the command line for one attempt, the check that
credentials reach it, what it keeps in its own HOME, and the reader that turns
its output stream into a :class:`~kapi_evals.transcript.Transcript`. Add an
agent by writing one and naming it in :data:`AGENTS`.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from kapi_evals.transcript import Transcript, kapi_commands

__all__ = ["AGENTS", "Agent", "ClaudeCode", "Launch"]

# Variables an agent host sets for the commands it runs. When the runner itself
# runs inside such a host they must not reach the agent under test.
HOST_MARKERS = (
    "CLAUDECODE",
    "CLAUDE_CODE_ENTRYPOINT",
    "CLAUDE_CODE_SSE_PORT",
    "CLAUDE_CODE_SESSION_ID",
    "CODEX_SESSION_ID",
)


@dataclass(frozen=True)
class Launch:
    """One agent session to start: where, what to say, and under which limits."""

    workspace: Path
    prompt: str
    model: str | None
    max_turns: int
    mcp_config: Path | None  # the kapi MCP server's configuration, in the MCP condition
    resume: str | None = None  # the session a follow-up round continues


class Agent:
    """What the runner needs of an agent CLI."""

    name: ClassVar[str]
    executable: ClassVar[str]
    kapi_host: ClassVar[str]  # the host `kapi init --agents` wires for it
    # Variables that would point the agent at the person's own configuration (their skills,
    # MCP servers, plugins) past the attempt's HOME: never passed on.
    private_env: ClassVar[tuple[str, ...]] = ()

    def locate(self, env: Mapping[str, str]) -> str | None:
        return shutil.which(self.executable, path=env.get("PATH", ""))

    def missing_credentials(self, env: Mapping[str, str]) -> str | None:
        """A one-line reason the agent cannot reach its model here, or None."""
        raise NotImplementedError

    def version(self, executable: str, env: Mapping[str, str]) -> str:
        try:
            done = subprocess.run(
                [executable, "--version"],
                env=dict(env),
                capture_output=True,
                text=True,
                timeout=30,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return ""
        return done.stdout.strip().splitlines()[0] if done.stdout.strip() else ""

    def argv(self, executable: str, launch: Launch) -> list[str]:
        raise NotImplementedError

    def own_state(self, rel: str) -> bool:
        """Whether a path under the agent's HOME is the host's own bookkeeping."""
        raise NotImplementedError

    def follow_up(self) -> str:
        """What the person says when the work is not done yet (completion mode's next round)."""
        return "The task is not finished yet. Please complete it."

    def read(self, lines: Iterable[str], workspace: Path) -> Transcript:
        raise NotImplementedError


class ClaudeCode(Agent):
    """Claude Code in print mode: ``claude -p --output-format stream-json --verbose``."""

    name = "claude"
    executable = "claude"
    kapi_host = "claude-code"
    private_env = ("CLAUDE_CONFIG_DIR",)
    TOOLS = ("Bash", "Read", "Edit", "Write", "MultiEdit", "Glob", "Grep", "Skill")
    CREDENTIALS = (
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "CLAUDE_CODE_OAUTH_TOKEN",
        "CLAUDE_CODE_USE_BEDROCK",
        "CLAUDE_CODE_USE_VERTEX",
    )

    def missing_credentials(self, env: Mapping[str, str]) -> str | None:
        if any(env.get(name) for name in self.CREDENTIALS):
            return None
        return (
            "claude has no credentials here: set ANTHROPIC_API_KEY, or CLAUDE_CODE_OAUTH_TOKEN "
            "from `claude setup-token` (each attempt runs with a HOME of its own, so a sign-in "
            "kept in your home is not used)"
        )

    def argv(self, executable: str, launch: Launch) -> list[str]:
        tools = list(self.TOOLS)
        argv = [executable, "-p", "--output-format", "stream-json", "--verbose"]
        argv += ["--max-turns", str(launch.max_turns), "--permission-mode", "acceptEdits"]
        argv += ["--strict-mcp-config"]
        if launch.mcp_config is not None:
            argv += ["--mcp-config", str(launch.mcp_config)]
            tools.append("mcp__kapi")
        argv += ["--allowedTools", ",".join(tools)]
        if launch.model:
            argv += ["--model", launch.model]
        if launch.resume:
            argv += ["--resume", launch.resume]
        return argv

    def own_state(self, rel: str) -> bool:
        parts = rel.split("/")
        if parts[0].startswith(".claude"):
            return True
        if parts[0] in (".cache", ".config") and len(parts) > 1:
            return parts[1].startswith("claude")
        return parts[0] == ".local" and len(parts) > 2 and parts[2].startswith("claude")

    def read(self, lines: Iterable[str], workspace: Path) -> Transcript:
        transcript = Transcript()
        models: list[str] = []
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                event = json.loads(line)
            except ValueError:
                _malformed(transcript, f"line {number} is not JSON: {line.strip()[:80]}")
                continue
            if not isinstance(event, dict) or not isinstance(event.get("type"), str):
                _malformed(transcript, f"line {number} is not a stream-json message (no type)")
                continue
            kind = event["type"]
            if kind == "system" and event.get("subtype") == "init":
                transcript.session_id = _text(event, "session_id")
                transcript.agent_version = _text(event, "claude_code_version")
                _model(models, _text(event, "model"))
                transcript.tools_offered = _names(event.get("tools"))
                transcript.skills_offered = _names(event.get("skills"))
                transcript.mcp_servers = [
                    {"name": _text(server, "name"), "status": _text(server, "status")}
                    for server in event.get("mcp_servers") or []
                    if isinstance(server, dict)
                ]
            elif kind == "assistant":
                message = event.get("message")
                if not isinstance(message, dict):
                    _malformed(transcript, f"line {number}: an assistant message without message")
                    continue
                _model(models, _text(message, "model"))
                for part in _parts(message):
                    if part.get("type") == "tool_use":
                        self._call(transcript, part, workspace)
            elif kind == "user":
                message = event.get("message")
                for part in _parts(message if isinstance(message, dict) else {}):
                    if part.get("type") == "tool_result":
                        transcript.result_of(
                            _text(part, "tool_use_id"), bool(part.get("is_error", False))
                        )
            elif kind == "result":
                if transcript.status != "malformed_stream":
                    ok = event.get("subtype") == "success" and not event.get("is_error", False)
                    transcript.status = "completed" if ok else "agent_failed"
                    if not ok:
                        transcript.error = _text(event, "subtype") or "the agent reported an error"
                transcript.turns = _int(event.get("num_turns"))
                cost = event.get("total_cost_usd")
                transcript.cost_usd = float(cost) if isinstance(cost, int | float) else None
                given = event.get("usage")
                usage: dict[str, Any] = given if isinstance(given, dict) else {}
                transcript.input_tokens = _sum(
                    usage,
                    "input_tokens",
                    "cache_read_input_tokens",
                    "cache_creation_input_tokens",
                )
                transcript.output_tokens = _sum(usage, "output_tokens")
                transcript.final_text = _text(event, "result")
        transcript.models = models
        return transcript

    def _call(self, transcript: Transcript, part: dict[str, Any], workspace: Path) -> None:
        name = _text(part, "name")
        tool_id = _text(part, "id")
        given = part.get("input")
        args: dict[str, Any] = given if isinstance(given, dict) else {}
        if name == "Skill":
            skill = (_text(args, "skill") or _text(args, "command")).lstrip("/")
            surface = "skill" if skill == "kapi" or skill.endswith(":kapi") else "host"
            transcript.add(surface, "Skill", skill, tool_id)
        elif name == "Read" and _is_kapi_skill(_text(args, "file_path")):
            transcript.add("skill", "Read", _text(args, "file_path"), tool_id)
        elif name == "Bash":
            command = _text(args, "command")
            routes = kapi_commands(command)
            for route in routes:
                transcript.add("cli", route, command[:300], tool_id)
            if not routes:
                transcript.add("host", "Bash", command[:300], tool_id)
        elif name.startswith("mcp__kapi__"):
            transcript.add("mcp", name.removeprefix("mcp__kapi__"), "", tool_id)
        elif name == "ReadMcpResourceTool" and (
            _text(args, "server") == "kapi" or _text(args, "uri").startswith("context://")
        ):
            transcript.add("mcp", "context_read", "resource " + _text(args, "uri"), tool_id)
        else:
            path = _text(args, "file_path") or _text(args, "notebook_path") or _text(args, "path")
            transcript.add("host", name, path, tool_id)
            if name in ("Write", "Edit", "MultiEdit", "NotebookEdit") and path:
                transcript.written.append(path)


def _malformed(transcript: Transcript, error: str) -> None:
    if transcript.status != "malformed_stream":
        transcript.status = "malformed_stream"
        transcript.error = error


def _is_kapi_skill(path: str) -> bool:
    slashed = path.replace("\\", "/")
    return slashed.endswith("skills/kapi/SKILL.md")


def _parts(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [part for part in content if isinstance(part, dict)]


def _text(mapping: Any, key: str) -> str:
    value = mapping.get(key) if isinstance(mapping, dict) else None
    return value if isinstance(value, str) else ""


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _sum(mapping: dict[str, Any], *keys: str) -> int | None:
    values = [_int(mapping.get(key)) for key in keys]
    found = [value for value in values if value is not None]
    return sum(found) if found else None


def _names(value: Any) -> list[str]:
    if not isinstance(value, list):
        return []
    names = []
    for item in value:
        if isinstance(item, str):
            names.append(item)
        elif isinstance(item, dict) and isinstance(item.get("name"), str):
            names.append(item["name"])
    return names


def _model(models: list[str], model: str) -> None:
    if model and model != "<synthetic>" and model not in models:
        models.append(model)


AGENTS: dict[str, type[Agent]] = {ClaudeCode.name: ClaudeCode}
