"""Wiring a project for the agent hosts that work in it: their MCP entry and the kapi skill.

Five properties hold for every file written. Project scope only: every path
is under the project root (a host folder that resolves outside it is
refused). A command and nothing else: ``kapi mcp --project kapi.yaml`` (with
``--tools writing,translation`` when the recipe declares target languages),
no shell, no environment values, no credential; Codex's ``env_vars`` only
names variables. The recipe is named relative to the root. An entry someone
else wrote is left byte for byte. The skill folder holds what this kapi ships:
``SKILL.md`` is refreshed, a file an earlier kapi copied there is recognised by
its content and removed, anything else stays and is named. Every host file is
read and judged before any is written, so an invalid one refuses the whole run.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from attrs import field, frozen

from kapi.host.errors import EXIT_USAGE, HostError

__all__ = [
    "CODEX_NOTE",
    "ENV_VARS",
    "HOSTS",
    "AgentWiring",
    "WiredFile",
    "apply_wiring",
    "detect_hosts",
    "mcp_entry",
    "parse_agents",
    "plan_wiring",
    "wire_agents",
]

HOSTS = ("claude-code", "cursor", "vscode", "codex", "agents")
_DETECTED_BY = {"cursor": ".cursor", "vscode": ".vscode", "codex": ".codex", "agents": ".agents"}
_JSON_FILES = {
    "claude-code": (".mcp.json", "mcpServers"),
    "cursor": (".cursor/mcp.json", "mcpServers"),
    "vscode": (".vscode/mcp.json", "servers"),
}
_CODEX_FILE = ".codex/config.toml"
_SKILL_DIRS = {"claude-code": ".claude/skills", "agents": ".agents/skills"}
_SERVER = "kapi"
_TOOLS_FLAG = "--tools"
TRANSLATION_TOOLS = "writing,translation"
# The variables kapi reads from its environment that change what a server does; Codex starts
# a server with a fixed environment and forwards only the variables an entry names.
ENV_VARS = ("KAPI_AGENT_NAME", "KAPI_AGENT_SESSION", "KAPI_CHECK_WORKERS")
CODEX_NOTE = "Codex reads .codex/config.toml once the person trusts this repository."


@frozen
class WiredFile:
    """One file (MCP) or skill folder (skill) the wiring touched, and what happened to it."""

    kind: str  # mcp | skill
    host: str
    path: str  # project-relative, slash-separated
    action: str  # created | updated | unchanged | kept
    detail: str = ""
    removed: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()


@frozen
class AgentWiring:
    """What ``kapi init`` wired: the hosts, each file, and notes for the person."""

    hosts: tuple[str, ...] = ()
    files: tuple[WiredFile, ...] = ()
    notes: tuple[str, ...] = ()


@frozen
class _Write:
    path: Path
    body: bytes | None  # None: leave the file as it is
    remove: tuple[Path, ...] = field(factory=tuple)


def parse_agents(spec: str | None) -> tuple[tuple[str, ...] | None, bool]:
    """The hosts ``--agents`` names (in the fixed order); ``(None, False)`` asks for detection."""
    text = (spec or "").strip()
    if not text:
        return None, False
    if text.lower() == "none":
        return (), True
    if text.lower() == "all":
        return HOSTS, True
    named = set()
    for part in text.split(","):
        name = part.strip().lower()
        if not name:
            continue
        if name not in HOSTS:
            raise HostError(
                f"--agents: unknown agent host {name!r}; kapi wires {', '.join(HOSTS)}, "
                "or all for every one of them, or none",
                exit_code=EXIT_USAGE,
            )
        named.add(name)
    return tuple(h for h in HOSTS if h in named), True


def detect_hosts(root: Path) -> tuple[str, ...]:
    """Claude Code always; each other host where the project already keeps its folder."""
    found = [host for host, folder in _DETECTED_BY.items() if (root / folder).is_dir()]
    return ("claude-code", *found)


def mcp_entry(recipe: str, *, translation: bool) -> dict[str, Any]:
    """The entry kapi writes: ``kapi mcp --project <recipe>``, tool sets when it translates."""
    args = ["mcp", "--project", recipe]
    if translation:
        args += [_TOOLS_FLAG, TRANSLATION_TOOLS]
    return {"type": "stdio", "command": "kapi", "args": args}


def _describe(entry: dict[str, Any]) -> str:
    return " ".join([entry["command"], *entry["args"]])


def _is_kapis(held: Any, recipe: str) -> bool:
    """Whether ``held`` is an entry as kapi writes it for ``recipe``, whatever its tool sets."""
    if not isinstance(held, dict) or not set(held) <= {"type", "command", "args"}:
        return False
    if held.get("command") != "kapi" or held.get("type", "stdio") not in ("", "stdio"):
        return False
    args = held.get("args")
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        return False
    base = ["mcp", "--project", recipe]
    rest = args[len(base) :]
    return args[: len(base)] == base and (
        not rest or (len(rest) == 2 and rest[0] == _TOOLS_FLAG and bool(rest[1]))
    )


def _inside(root: Path, relpath: str) -> Path:
    """``root/relpath``, refused when it (or a folder above it) resolves outside the project."""
    path = root / relpath
    real_root = root.resolve()
    probe = path
    while not probe.exists() and probe != root:
        probe = probe.parent
    try:
        probe.resolve().relative_to(real_root)
    except ValueError:
        raise HostError(
            f"{relpath}: resolves outside the project ({probe.resolve()}); kapi writes agent "
            "wiring only inside the project, so it was left alone",
            exit_code=EXIT_USAGE,
        ) from None
    return path


def _read(path: Path, relpath: str) -> bytes | None:
    if not path.exists():
        return None
    if not path.is_file():
        raise HostError(f"{relpath} is not a file; it was left alone", exit_code=EXIT_USAGE)
    try:
        return path.read_bytes()
    except OSError as err:
        raise HostError(
            f"{relpath} could not be read: {err.strerror}", exit_code=EXIT_USAGE
        ) from None


def _json_body(data: Any) -> bytes:
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _plan_json(
    root: Path, host: str, relpath: str, key: str, entry: dict[str, Any]
) -> tuple[WiredFile, _Write]:
    path = _inside(root, relpath)
    raw = _read(path, relpath)
    detail = _describe(entry)
    if raw is None:
        body = _json_body({key: {_SERVER: entry}})
        return WiredFile("mcp", host, relpath, "created", detail), _Write(path, body)
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as err:
        raise HostError(
            f"{relpath} holds JSON kapi could not read ({err}); it was left alone: fix it, "
            "or leave this host out with --agents",
            exit_code=EXIT_USAGE,
        ) from None
    if not isinstance(doc, dict):
        raise HostError(f"{relpath} is not a JSON object; it was left alone", exit_code=EXIT_USAGE)
    servers = doc.get(key, {})
    if not isinstance(servers, dict):
        raise HostError(
            f"{relpath}: {key} is not an object; the file was left alone", exit_code=EXIT_USAGE
        )
    if _SERVER in servers:
        held = servers[_SERVER]
        if not _is_kapis(held, entry["args"][2]):
            kept = WiredFile("mcp", host, relpath, "kept", "already names a server called kapi")
            return kept, _Write(path, None)
        if held.get("args") == entry["args"] and held.get("type", "") == entry["type"]:
            return WiredFile("mcp", host, relpath, "unchanged", detail), _Write(path, None)
    servers = {**servers, _SERVER: entry}
    doc = {**doc, key: servers}  # the key keeps its place; a new one goes last
    return WiredFile("mcp", host, relpath, "updated", detail), _Write(path, _json_body(doc))


def _toml_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a TOML basic string is a JSON string here


def _codex_block(command: str, args: Sequence[str], env_vars: Sequence[str] | None) -> str:
    lines = [
        f"[mcp_servers.{_SERVER}]",
        f"command = {_toml_string(command)}",
        "args = [" + ", ".join(_toml_string(a) for a in args) + "]",
    ]
    if env_vars is not None:
        lines.append("env_vars = [" + ", ".join(_toml_string(v) for v in env_vars) + "]")
    return "\n".join(lines) + "\n"


def _plan_codex(root: Path, entry: dict[str, Any]) -> tuple[WiredFile, _Write]:
    import tomllib

    relpath = _CODEX_FILE
    path = _inside(root, relpath)
    raw = _read(path, relpath)
    detail = _describe(entry)
    block = _codex_block(entry["command"], entry["args"], ENV_VARS)
    if raw is None:
        return WiredFile("mcp", "codex", relpath, "created", detail), _Write(path, block.encode())
    try:
        text = raw.decode("utf-8")
        doc = tomllib.loads(text)
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        raise HostError(
            f"{relpath} holds TOML kapi could not read ({err}); it was left alone: fix it, "
            "or leave this host out with --agents",
            exit_code=EXIT_USAGE,
        ) from None
    servers = doc.get("mcp_servers")
    if isinstance(servers, dict) and _SERVER in servers:
        held = servers[_SERVER]
        shaped = (
            isinstance(held, dict)
            and set(held) <= {"command", "args", "env_vars"}
            and {"command", "args"} <= set(held)
            and isinstance(held.get("env_vars", []), list)
            and all(isinstance(v, str) for v in held.get("env_vars", []))
        )
        as_entry = {"command": held.get("command"), "args": held.get("args")} if shaped else None
        old = (
            _codex_block(held["command"], held["args"], held.get("env_vars"))
            if shaped and _is_kapis(as_entry, entry["args"][2])
            else None
        )
        if old is None or old not in text:
            kept = WiredFile("mcp", "codex", relpath, "kept", "already names a server called kapi")
            return kept, _Write(path, None)
        if old == block:
            return WiredFile("mcp", "codex", relpath, "unchanged", detail), _Write(path, None)
        body = text.replace(old, block, 1).encode("utf-8")
        return WiredFile("mcp", "codex", relpath, "updated", detail), _Write(path, body)
    held_text = text
    if held_text and not held_text.endswith("\n"):
        held_text += "\n"
    if held_text:
        held_text += "\n"
    body = (held_text + block).encode("utf-8")
    return WiredFile("mcp", "codex", relpath, "updated", detail), _Write(path, body)


def _plan_skill(root: Path, host: str) -> tuple[WiredFile, _Write]:
    import kapi.skill as skill

    relpath = f"{_SKILL_DIRS[host]}/{skill.NAME}"
    folder = _inside(root, relpath)
    shipped = skill.installed_files()
    created = updated = 0
    body = None
    for name, content in shipped.items():
        target = _inside(root, f"{relpath}/{name}")
        held = _read(target, f"{relpath}/{name}")
        if held is None:
            created += 1
        elif held != content:
            updated += 1
        if held != content:
            body = content
    removed: list[str] = []
    kept: list[str] = []
    remove: list[Path] = []
    if folder.is_dir():
        for current, dirs, files in os.walk(folder):
            dirs.sort()
            for name in sorted(files):
                path = Path(current) / name
                inner = path.relative_to(folder).as_posix()
                if inner in shipped:
                    continue
                if not path.is_symlink() and skill.is_retired(path.read_bytes()):
                    removed.append(inner)
                    remove.append(path)
                else:
                    kept.append(inner)
    action = "created" if created else "updated" if updated or removed else "unchanged"
    count = len(shipped)
    detail = "1 file" if count == 1 else f"{count} files"
    wired = WiredFile("skill", host, relpath, action, detail, tuple(removed), tuple(kept))
    return wired, _Write(folder / "SKILL.md", body, tuple(remove))


def plan_wiring(
    root: Path, hosts: Sequence[str], *, recipe: str, translation: bool
) -> tuple[AgentWiring, list[_Write]]:
    """Read and judge every host file (refusing an invalid one) before anything is written."""
    entry = mcp_entry(os.path.basename(recipe), translation=translation)
    files: list[WiredFile] = []
    writes: list[_Write] = []
    for host in HOSTS:
        if host not in hosts:
            continue
        planned = []
        if host in _JSON_FILES:
            relpath, key = _JSON_FILES[host]
            planned.append(_plan_json(root, host, relpath, key, entry))
        if host == "codex":
            planned.append(_plan_codex(root, entry))
        if host in _SKILL_DIRS:
            planned.append(_plan_skill(root, host))
        for wired, write in planned:
            files.append(wired)
            writes.append(write)
    notes = (CODEX_NOTE,) if "codex" in hosts else ()
    return AgentWiring(
        hosts=tuple(h for h in HOSTS if h in hosts), files=tuple(files), notes=notes
    ), writes


def apply_wiring(writes: Sequence[_Write]) -> None:
    """Write what :func:`plan_wiring` planned (files through a temporary, then a rename)."""
    try:
        _apply(writes)
    except OSError as err:
        raise HostError(f"the agent wiring could not be written: {err}") from None


def _apply(writes: Sequence[_Write]) -> None:
    for write in writes:
        if write.body is not None:
            write.path.parent.mkdir(parents=True, exist_ok=True)
            temporary = write.path.with_name(write.path.name + ".kapi-tmp")
            temporary.write_bytes(write.body)
            os.replace(temporary, write.path)
        for path in write.remove:
            path.unlink(missing_ok=True)
        folder = write.path.parent
        if write.remove:  # folders the sweep emptied, deepest first
            for current, _, _ in sorted(os.walk(folder), key=lambda w: -len(w[0])):
                if Path(current) != folder and not any(Path(current).iterdir()):
                    Path(current).rmdir()


def wire_agents(root: Path, hosts: Sequence[str], *, recipe: str, translation: bool) -> AgentWiring:
    """Write the wiring for ``hosts`` under ``root``; idempotent (a second run changes no byte)."""
    wiring, writes = plan_wiring(root, hosts, recipe=recipe, translation=translation)
    apply_wiring(writes)
    return wiring
