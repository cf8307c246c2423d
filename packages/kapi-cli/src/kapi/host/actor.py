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
    if not session and host and kind == ActorKind.AGENT:
        session = env.get(host[1], "") or _parent_digest()
    note = ""
    if declared == ActorKind.PERSON and host:
        note = f"sent by a person under {host[0]} (KAPI_ACTOR=person)"
    return ResolvedActor(Actor(kind=kind, name=name, session=session), note)


def _parent_digest() -> str:
    return "ppid-" + hashlib.sha256(str(os.getppid()).encode()).hexdigest()[:12]
