"""Who is sending: the actor stamped on every change, from the environment (spec §10)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping

from kapi.core.change.ports import Actor, ActorKind
from kapi.host.errors import EXIT_USAGE, HostError

__all__ = ["ResolvedActor", "actor_from_env"]

# Environment markers of agent hosts: variable -> (agent name, session variable).
_AGENT_HOSTS = (
    ("CLAUDECODE", "claude-code", "CLAUDE_CODE_SESSION_ID"),
    ("CODEX_SESSION_ID", "codex", "CODEX_SESSION_ID"),
)


class ResolvedActor:
    """The actor, and a note when a person overrides an agent host's marker."""

    def __init__(self, actor: Actor, note: str = "") -> None:
        self.actor = actor
        self.note = note


def actor_from_env(environ: Mapping[str, str] | None = None) -> ResolvedActor:
    """``KAPI_ACTOR`` if set (person|agent), else an agent host's marker means agent, else person."""
    env = os.environ if environ is None else environ
    declared = env.get("KAPI_ACTOR", "")
    host = next(
        ((name, session) for marker, name, session in _AGENT_HOSTS if env.get(marker)), None
    )
    if declared and declared not in (ActorKind.PERSON, ActorKind.AGENT):
        raise HostError(
            f"KAPI_ACTOR={declared!r}: use 'person' or 'agent'", exit_code=EXIT_USAGE, code="usage"
        )
    kind = ActorKind(declared) if declared else ActorKind.AGENT if host else ActorKind.PERSON
    name = env.get("KAPI_AGENT_NAME", "") or (host[0] if host and kind == ActorKind.AGENT else "")
    session = env.get("KAPI_AGENT_SESSION", "")
    if not session and kind == ActorKind.AGENT:  # the host's variable, else its process
        session = (env.get(host[1], "") if host else "") or _parent_digest()
    note = ""
    if declared == ActorKind.PERSON and host:
        note = f"sent by a person under {host[0]} (KAPI_ACTOR=person)"
    return ResolvedActor(Actor(kind=kind, name=name, session=session), note)


_SHELLS = frozenset(
    {"bash", "zsh", "sh", "dash", "fish", "pwsh", "powershell", "ksh", "tcsh", "csh"}
)


def _parent_digest() -> str:
    """The agent host's session: ``s`` + 12 hex digits of sha256("pid:start") of the first
    ancestor that is not a shell (at most 32 steps up), so every command an agent runs in
    one session names the same session; this process's parent where /proc cannot tell."""
    pid = os.getppid()
    for _ in range(32):
        stat = _stat(pid)
        if stat is None:
            break
        name, parent, start = stat
        if name not in _SHELLS or parent <= 1:
            return "s" + hashlib.sha256(f"{pid}:{start}".encode()).hexdigest()[:12]
        pid = parent
    return "s" + hashlib.sha256(f"{os.getppid()}:".encode()).hexdigest()[:12]


def _stat(pid: int) -> tuple[str, int, str] | None:
    """A process's name, parent and start time from /proc (None where there is no /proc)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return None
    name = text[text.find("(") + 1 : text.rfind(")")]
    fields = text[text.rfind(")") + 2 :].split()
    try:
        return name.lstrip("-"), int(fields[1]), fields[19]
    except (IndexError, ValueError):
        return None
