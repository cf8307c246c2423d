"""A stand-in for Claude Code's ``claude`` CLI that replays recorded stream-json sessions.

The tests put it on PATH as ``claude``. It takes the flags the runner passes,
refusing others as the real CLI does, reads the prompt on stdin, and picks a
recording from the plan ``FAKE_CLAUDE_PLAN`` names by the prompt and by the
condition it finds itself in (a kapi MCP server in ``--mcp-config``: ``mcp``;
the kapi skill in the workspace: ``skill``, or ``no-project`` with
``KAPI_NO_PROJECT=1``; neither: ``baseline``). It then replays the recording in
its working directory and carries out every tool call for real: ``Bash`` runs
the command (with ``CLAUDECODE=1``, as Claude Code's shell has it), ``Write``,
``Edit``, ``MultiEdit`` and ``Read`` touch the files, ``Skill`` loads a skill
only when the workspace holds it, and ``mcp__kapi__*`` tools are called over
stdio on the server the MCP configuration names, started at the first call (a
server whose command is not on PATH is "failed" in the init message, whose
tool list is otherwise the recording's). The results it prints are what
happened, not what was recorded; paths under the recording's working
directory are moved to its own.

A plan entry may end the session badly: ``crash_after`` (after that many lines
of the recording, die with a traceback, exit 1) or ``hang_after`` (after that
many lines, hang). A recording line that is not JSON is printed as it is. Sessions
continue with ``--resume``: the next recording of the entry is replayed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

VERSION = "2.1.117"
VALUED = {
    "--output-format",
    "--input-format",
    "--max-turns",
    "--permission-mode",
    "--mcp-config",
    "--allowedTools",
    "--model",
    "--resume",
    "--append-system-prompt",
}
FLAGS = {"-p", "--print", "--verbose", "--strict-mcp-config", "--version"}
ALWAYS_ALLOWED = {"Read", "Glob", "Grep", "LS", "Skill", "TodoWrite"}
EDIT_TOOLS = {"Write", "Edit", "MultiEdit", "NotebookEdit"}


def fail(message: str) -> None:
    print(message, file=sys.stderr)
    raise SystemExit(1)


def parse(argv: list[str]) -> dict[str, Any]:
    options: dict[str, Any] = {"flags": set(), "prompt": None}
    index = 0
    while index < len(argv):
        arg = argv[index]
        if arg in FLAGS:
            options["flags"].add(arg)
        elif arg in VALUED:
            if index + 1 >= len(argv):
                fail(f"error: option '{arg} <value>' argument missing")
            options[arg] = argv[index + 1]
            index += 1
        elif arg.startswith("-"):
            fail(f"error: unknown option '{arg}'")
        else:
            options["prompt"] = arg
        index += 1
    return options


def emit(event: Any) -> None:
    line = (
        event
        if isinstance(event, str)
        else json.dumps(event, ensure_ascii=False, separators=(",", ":"))
    )
    sys.stdout.write(line.rstrip("\n") + "\n")
    sys.stdout.flush()


class McpServer:
    """The kapi MCP server, spoken to over stdio as an MCP client speaks to it."""

    def __init__(self, spec: dict[str, Any], cwd: Path) -> None:
        command = shutil.which(spec["command"]) or spec["command"]
        self.process = subprocess.Popen(
            [command, *spec.get("args", [])],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.next_id = 0
        self.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "claude-code", "version": VERSION},
            },
        )
        self.notify("notifications/initialized")
        self.tools = [tool["name"] for tool in self.request("tools/list", {})["tools"]]

    def notify(self, method: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"jsonrpc": "2.0", "method": method}) + "\n")
        self.process.stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()
        for line in self.process.stdout:
            answer = json.loads(line)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(answer["error"].get("message", "MCP error"))
                return answer["result"]
        raise RuntimeError("the MCP server closed its output")

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


class Replay:
    def __init__(self, options: dict[str, Any], cwd: Path) -> None:
        self.options = options
        self.cwd = cwd
        self.recorded_cwd = ""
        allowed = options.get("--allowedTools", "")
        self.allowed = {name.strip() for name in allowed.replace(" ", ",").split(",") if name}
        self.server: McpServer | None = None
        self.server_spec: dict[str, Any] | None = None
        self.mcp_status: list[dict[str, str]] = []
        config = options.get("--mcp-config")
        if config:
            servers = json.loads(Path(config).read_text(encoding="utf-8")).get("mcpServers", {})
            for name, spec in servers.items():
                found = name == "kapi" and shutil.which(spec.get("command", "")) is not None
                self.mcp_status.append({"name": name, "status": "connected" if found else "failed"})
                if found:
                    self.server_spec = spec

    def mcp(self) -> McpServer:
        """The kapi server, started at its first call (the recording lists its tools)."""
        if self.server is None:
            assert self.server_spec is not None
            self.server = McpServer(self.server_spec, self.cwd)
        return self.server

    def condition(self) -> str:
        if self.server_spec is not None:
            return "mcp"
        if (self.cwd / ".claude/skills/kapi/SKILL.md").is_file():
            return "no-project" if os.environ.get("KAPI_NO_PROJECT") == "1" else "skill"
        return "baseline"

    def moved(self, value: Any) -> Any:
        if isinstance(value, str) and self.recorded_cwd:
            return value.replace(self.recorded_cwd, str(self.cwd))
        if isinstance(value, list):
            return [self.moved(item) for item in value]
        if isinstance(value, dict):
            return {key: self.moved(item) for key, item in value.items()}
        return value

    def path(self, given: str) -> Path:
        path = Path(given)
        return path if path.is_absolute() else self.cwd / path

    def tool(self, name: str, args: dict[str, Any]) -> tuple[Any, bool]:
        """Carries out one tool call; its result content and whether it failed."""
        if name.startswith("mcp__"):
            server = name.split("__")[1]
            if self.server_spec is None or server != "kapi":
                return f"Error: No such tool available: {name}", True
            if name not in self.allowed and f"mcp__{server}" not in self.allowed:
                return (
                    f"Claude requested permissions to use {name}, but you haven't granted it yet.",
                    True,
                )
            result = self.mcp().request(
                "tools/call", {"name": name.removeprefix("mcp__kapi__"), "arguments": args}
            )
            return result.get("content", []), bool(result.get("isError"))
        needs_grant = name not in ALWAYS_ALLOWED and not (
            name in EDIT_TOOLS and self.options.get("--permission-mode") == "acceptEdits"
        )
        if needs_grant and name not in self.allowed:
            return (
                f"Claude requested permissions to use {name}, but you haven't granted it yet.",
                True,
            )
        if name == "Bash":
            env = {**os.environ, "CLAUDECODE": "1", "CLAUDE_CODE_ENTRYPOINT": "sdk-cli"}
            done = subprocess.run(
                ["bash", "-c", args["command"]],
                cwd=self.cwd,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            output = (done.stdout + done.stderr).rstrip("\n")
            if done.returncode:
                return f"Exit code {done.returncode}\n{output}", True
            return output, False
        if name == "Skill":
            skill = args.get("skill") or args.get("command", "")
            if (self.cwd / ".claude/skills" / skill / "SKILL.md").is_file():
                return f"Launching skill: {skill}", False
            return f"<tool_use_error>Unknown skill: {skill}</tool_use_error>", True
        if name == "Read":
            target = self.path(args["file_path"])
            if not target.is_file():
                return "<tool_use_error>File does not exist.</tool_use_error>", True
            lines = target.read_text(encoding="utf-8", errors="replace").splitlines()
            return "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(lines, 1)), False
        if name == "Write":
            target = self.path(args["file_path"])
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(args["content"], encoding="utf-8")
            return f"File created successfully at: {target}", False
        if name in ("Edit", "MultiEdit"):
            target = self.path(args["file_path"])
            if not target.is_file():
                return "<tool_use_error>File does not exist.</tool_use_error>", True
            text = target.read_text(encoding="utf-8")
            edits = args["edits"] if name == "MultiEdit" else [args]
            for edit in edits:
                if edit["old_string"] not in text:
                    return (
                        "<tool_use_error>String to replace not found in file.</tool_use_error>",
                        True,
                    )
                count = -1 if edit.get("replace_all") else 1
                text = text.replace(edit["old_string"], edit["new_string"], count)
            target.write_text(text, encoding="utf-8")
            return f"The file {target} has been updated.", False
        return f"<tool_use_error>Error: No such tool available: {name}</tool_use_error>", True

    def run(self, recording: Path, session: str, entry: dict[str, Any]) -> int:
        started = time.monotonic()
        lines = recording.read_text(encoding="utf-8").splitlines()
        printed = 0
        for raw in lines:
            if "crash_after" in entry and printed >= entry["crash_after"]:
                print("Traceback (most recent call last):", file=sys.stderr)
                print('  File "cli.js", line 1', file=sys.stderr)
                print("TypeError: Cannot read properties of undefined", file=sys.stderr)
                return 1
            if "hang_after" in entry and printed >= entry["hang_after"]:
                time.sleep(3600)
            try:
                event = json.loads(raw)
            except ValueError:
                emit(raw)
                printed += 1
                continue
            printed += 1
            kind = event.get("type")
            if "session_id" in event:
                event["session_id"] = session
            if kind == "system" and event.get("subtype") == "init":
                self.recorded_cwd = event.get("cwd", "")
                event["cwd"] = str(self.cwd)
                if self.options.get("--model"):
                    event["model"] = self.options["--model"]
                tools = event.get("tools", [])
                builtin = [tool for tool in tools if not tool.startswith("mcp__")]
                served = [tool for tool in tools if tool.startswith("mcp__kapi__")]
                event["tools"] = builtin + (served if self.server_spec is not None else [])
                event["mcp_servers"] = self.mcp_status
                skills = self.cwd / ".claude/skills"
                event["skills"] = sorted(
                    item.name for item in skills.glob("*") if (item / "SKILL.md").is_file()
                )
                emit(event)
            elif kind == "assistant":
                message = event["message"]
                if self.options.get("--model"):
                    message["model"] = self.options["--model"]
                results = []
                for part in message.get("content", []):
                    if part.get("type") != "tool_use":
                        continue
                    part["input"] = self.moved(part.get("input", {}))
                    content, failed = self.tool(part["name"], part["input"])
                    results.append(
                        {
                            "type": "user",
                            "message": {
                                "role": "user",
                                "content": [
                                    {
                                        "tool_use_id": part["id"],
                                        "type": "tool_result",
                                        "content": content,
                                        "is_error": failed,
                                    }
                                ],
                            },
                            "parent_tool_use_id": None,
                            "session_id": session,
                            "uuid": str(uuid.uuid4()),
                        }
                    )
                emit(event)
                for result in results:
                    emit(result)
            elif kind == "user":
                continue  # the results printed are the ones carried out above
            elif kind == "result":
                event["duration_ms"] = int((time.monotonic() - started) * 1000)
                emit(event)
            else:
                emit(event)
        return entry.get("exit", 0)


def main() -> int:
    options = parse(sys.argv[1:])
    if "--version" in options["flags"]:
        print(f"{VERSION} (Claude Code)")
        return 0
    if not options["flags"] & {"-p", "--print"}:
        fail("the fake claude runs only in print mode (-p)")
    if options.get("--output-format") != "stream-json":
        fail("the fake claude prints only stream-json")
    if "--verbose" not in options["flags"]:
        fail("Error: When using --print, --output-format=stream-json requires --verbose")
    prompt = options["prompt"] if options["prompt"] is not None else sys.stdin.read()
    cwd = Path.cwd()
    plan_path = Path(os.environ["FAKE_CLAUDE_PLAN"])
    plan = json.loads(plan_path.read_text(encoding="utf-8"))
    state_dir = Path(os.environ["HOME"]) / ".claude" / "fake-sessions"
    state_dir.mkdir(parents=True, exist_ok=True)
    replay = Replay(options, cwd)
    try:
        if options.get("--resume"):
            session = options["--resume"]
            state = json.loads((state_dir / f"{session}.json").read_text(encoding="utf-8"))
            index, round_ = state["entry"], state["round"] + 1
        else:
            session, round_ = str(uuid.uuid4()), 0
            condition = replay.condition()
            matching = [
                number
                for number, entry in enumerate(plan["sessions"])
                if entry["prompt"] in prompt and condition in entry.get("conditions", [condition])
            ]
            if not matching:
                fail(f"fake claude: no recording for this prompt under the {condition} condition")
            index = matching[0]
        entry = plan["sessions"][index]
        (state_dir / f"{session}.json").write_text(
            json.dumps({"entry": index, "round": round_}), encoding="utf-8"
        )
        recordings = entry["replay"]
        recording = recordings[min(round_, len(recordings) - 1)]
        folder = Path(plan.get("recordings", plan_path.parent))
        return replay.run(folder / recording, session, entry)
    finally:
        if replay.server is not None:
            replay.server.close()


if __name__ == "__main__":
    raise SystemExit(main())
