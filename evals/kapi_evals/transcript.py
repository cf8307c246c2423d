"""What a transcript says the agent did: its tool calls, classified by the door they used.

Every behavioural measure (did it load the skill, did it run a kapi verb, which
kapi MCP tool came first) is read from the agent's own protocol events (tool
calls and their results), never from the wording of its answer. An agent
adapter turns its host's stream into a :class:`Transcript`.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import PurePosixPath

__all__ = ["KAPI_NAMES", "Call", "Transcript", "kapi_commands"]

# The names a kapi executable answers to from a shell.
KAPI_NAMES = ("kapi", "kcat", "kgrep", "ksed", "kdiff", "kapi-mcp")
_SUBCOMMAND = re.compile(r"^[a-z][a-z-]*$")
# Shell punctuation that separates commands on one line.
_SEPARATORS = {";", "&&", "||", "|", "&", "(", ")", "{", "}", "!", "then", "do", "else"}


@dataclass
class Call:
    """One tool call, in the order the transcript holds it."""

    order: int
    surface: (
        str  # "skill" (loading a skill), "cli" (a kapi command), "mcp" (a kapi MCP tool), "host"
    )
    tool: str  # e.g. "Skill", "kapi check", "read_blocks", "Edit"
    detail: str = ""
    id: str = ""
    failed: bool | None = None  # from its result: None when no result came back

    def as_json(self) -> dict[str, object]:
        out: dict[str, object] = {"surface": self.surface, "tool": self.tool}
        if self.detail:
            out["detail"] = self.detail
        if self.failed is not None:
            out["failed"] = self.failed
        return out


@dataclass
class Transcript:
    """Everything the runner reads out of one agent stream."""

    status: str = "incomplete"  # completed, agent_failed, incomplete, malformed_stream
    error: str = ""
    session_id: str = ""
    agent_version: str = ""
    models: list[str] = field(default_factory=list)
    tools_offered: list[str] = field(default_factory=list)
    skills_offered: list[str] = field(default_factory=list)
    mcp_servers: list[dict[str, str]] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    turns: int | None = None
    cost_usd: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    final_text: str = ""
    written: list[str] = field(default_factory=list)  # paths the agent's file tools wrote

    @property
    def finished(self) -> bool:
        """The stream ended with the host's own final message (whatever its verdict)."""
        return self.status in ("completed", "agent_failed")

    @property
    def skill_loaded(self) -> bool:
        return any(call.surface == "skill" for call in self.calls)

    @property
    def kapi_commands(self) -> list[str]:
        return [call.tool for call in self.calls if call.surface == "cli"]

    @property
    def mcp_tools(self) -> list[str]:
        return [call.tool for call in self.calls if call.surface == "mcp"]

    def add(self, surface: str, tool: str, detail: str = "", id: str = "") -> Call:
        call = Call(len(self.calls) + 1, surface, tool, detail, id)
        self.calls.append(call)
        return call

    def result_of(self, id: str, failed: bool) -> None:
        for call in self.calls:
            if call.id and call.id == id:
                call.failed = failed


def kapi_commands(command: str) -> list[str]:
    """The kapi commands a shell command line runs, each as its executable and subcommands.

    ``cd docs && kapi context note --term X`` gives ``["kapi context note"]``;
    ``ksed -i 's/a/b/' f`` gives ``["ksed"]``. A word is read as a subcommand while
    it is a lower-case word (not a path, a flag or free text), at most two deep.
    """
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        words = list(lexer)
    except ValueError:
        words = command.split()
    found = []
    for index, word in enumerate(words):
        name = PurePosixPath(word).name
        if name not in KAPI_NAMES:
            continue
        if index > 0 and words[index - 1] not in _SEPARATORS and not _is_prefix(words[index - 1]):
            continue
        route = [name]
        for follower in words[index + 1 :]:
            if len(route) >= 3 or not _SUBCOMMAND.match(follower) or follower in _SEPARATORS:
                break
            route.append(follower)
        found.append(" ".join(route))
    return found


def _is_prefix(word: str) -> bool:
    """A word a command may follow on its line: an assignment, or a wrapper such as ``env``."""
    return "=" in word or word in ("env", "exec", "time", "command", "sudo", "xargs", "nohup")
