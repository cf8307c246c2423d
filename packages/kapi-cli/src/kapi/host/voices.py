"""Voice profiles a person keeps: validate a file, import it into the store, list what exists."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from kapi.core.governance.errors import GovernanceError
from kapi.host.errors import EXIT_ERROR, EXIT_USAGE, HostError
from kapi.host.governance import parse_yaml
from kapi.host.yaml import line_of_text

if TYPE_CHECKING:
    from kapi.core.change.ports import Actor
    from kapi.host.workspace import Workspace

__all__ = ["import_voice", "list_voices", "validate_voice"]


def validate_voice(path: Path, *, strict: bool = True) -> tuple[Any, list[str]]:
    """Load a voice file; errors name the file, the line and the key; returns (profile, warnings)."""
    from kapi.core.governance.voice import load_voice_profile

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise HostError(f"{path}: cannot read: {err}", exit_code=EXIT_USAGE) from None
    try:
        profile, warnings = load_voice_profile(
            parse_yaml(text, str(path)), str(path), strict=strict
        )
    except GovernanceError as err:
        line = line_of_text(text, tuple(getattr(err, "path", ()) or ()))
        where = f"{path}:{line}" if line else str(path)
        key = f" {err.key}:" if err.key else ""
        raise HostError(f"{where}:{key} {err.message}", exit_code=EXIT_USAGE) from None
    return profile, [f"{w.code}: {w.message}" + (f" ({w.key})" if w.key else "") for w in warnings]


def import_voice(
    workspace: Workspace, path: Path, actor: Actor, *, name: str = ""
) -> dict[str, Any]:
    """Validate a voice file and keep it in the project store under ``name`` (default: its id)."""
    from kapi.core.change.ports import ActorKind

    if workspace.project is None or workspace.store is None:
        raise HostError(
            "voice profiles live in a project; run `kapi init` first", exit_code=EXIT_ERROR
        )
    if actor.kind != ActorKind.PERSON:
        raise HostError(
            "a person decides the voice; an agent records what it notices as a suggestion",
            exit_code=EXIT_ERROR,
        )
    profile, warnings = validate_voice(path, strict=False)
    voice_id = name or profile.id or path.stem
    workspace.store.put_voice_profile(voice_id, path.read_text(encoding="utf-8"), str(path))
    workspace.store.log_context(
        "import",
        actor,
        {"subject": {"kind": "voice", "id": voice_id}, "evidence": {"path": str(path)}},
    )
    return {"id": voice_id, "name": profile.name, "warnings": warnings}


def list_voices(workspace: Workspace) -> list[dict[str, str]]:
    """Starter packs, profiles in the store, and profiles committed under ``voices/``."""
    from kapi.core.governance.packs import pack_names

    out = [{"id": name, "source": "pack", "bind": f"{{pack: {name}}}"} for name in pack_names()]
    if workspace.store is not None:
        out += [
            {"id": v["id"], "source": "store", "bind": v["id"]}
            for v in workspace.store.voice_profiles()
        ]
    if workspace.project is not None:
        folder = workspace.project.root / "voices"
        for file in sorted(folder.glob("*.y*ml")) if folder.is_dir() else ():
            out.append({"id": file.stem, "source": f"voices/{file.name}", "bind": file.stem})
    return out
