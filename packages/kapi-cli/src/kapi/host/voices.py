"""Voice profiles a person keeps: validate a file, import it into the store, list what exists."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from attrs import frozen

from kapi.core.governance.errors import ConfigWarning, GovernanceError
from kapi.host.errors import EXIT_ERROR, EXIT_USAGE, HostError
from kapi.host.governance import parse_yaml
from kapi.host.yaml import line_of_text

if TYPE_CHECKING:
    from kapi.core.change.ports import Actor
    from kapi.core.governance.voice import VoiceProfile
    from kapi.host.workspace import Workspace

__all__ = [
    "ValidatedVoice",
    "VoiceEntry",
    "VoiceImportRequest",
    "VoiceImported",
    "VoiceValidateRequest",
    "import_voice",
    "list_voices",
    "validate_voice",
]


@frozen
class VoiceValidateRequest:
    """A voice file to load; ``strict`` (``kapi voice validate``) makes an unknown key an error."""

    path: Path
    strict: bool = True


@frozen
class ValidatedVoice:
    """A voice file that loads: its id and name, and what it only warns about."""

    path: str
    id: str
    name: str
    warnings: tuple[ConfigWarning, ...] = ()

    @property
    def label(self) -> str:
        """What a person calls it: its name, else its id."""
        return self.name or self.id


@frozen
class VoiceImportRequest:
    """A voice file to keep in the store under ``id`` (default: the profile's id, else the
    file's stem); ``actor`` None means the one the environment declares."""

    path: Path
    id: str = ""
    actor: Actor | None = None


@frozen
class VoiceImported:
    """The id a recipe binds the imported profile by (``voice: <id>``)."""

    id: str
    name: str
    warnings: tuple[ConfigWarning, ...] = ()


@frozen
class VoiceEntry:
    """A voice a recipe can bind: where it comes from and how to bind it."""

    id: str
    source: str
    bind: str


def validate_voice(
    request: VoiceValidateRequest, workspace: Workspace | None = None
) -> ValidatedVoice:
    """Load a voice file; an error (exit 2) names the file, the line and the key.

    Given the workspace (the command line's), the file is held inside it as
    every file a verb reads is (:func:`kapi.host.inputs.file_in`).
    """
    path = _contained(request.path, workspace)
    profile, warnings, _ = _load(path, str(request.path), strict=request.strict)
    return ValidatedVoice(
        path=str(request.path), id=profile.id, name=profile.name, warnings=warnings
    )


def _contained(path: Path, workspace: Workspace | None) -> Path:
    if workspace is None:
        return path
    from kapi.host.inputs import file_in

    return file_in(workspace, path)


def _load(
    path: Path, shown: str, *, strict: bool
) -> tuple[VoiceProfile, tuple[ConfigWarning, ...], str]:
    """The profile a voice file holds, its warnings and its text; errors name ``shown``."""
    from kapi.core.format import FormatError
    from kapi.core.governance.voice import load_voice_profile
    from kapi.formats.reading import read_regular

    try:
        text = read_regular(path, display=shown).decode("utf-8")
    except FormatError as err:
        raise HostError(f"{shown}: cannot read: {err.message}", exit_code=EXIT_USAGE) from None
    except UnicodeDecodeError as err:
        raise HostError(f"{shown}: cannot read: {err}", exit_code=EXIT_USAGE) from None
    try:
        profile, warnings = load_voice_profile(parse_yaml(text, shown), shown, strict=strict)
    except GovernanceError as err:
        line = line_of_text(text, tuple(getattr(err, "path", ()) or ()))
        where = f"{shown}:{line}" if line else shown
        key = f" {err.key}:" if err.key else ""
        raise HostError(f"{where}:{key} {err.message}", exit_code=EXIT_USAGE) from None
    return profile, warnings, text


def import_voice(request: VoiceImportRequest, workspace: Workspace) -> VoiceImported:
    """Validate a voice file (leniently) and keep it in the project store.

    Only a person decides the voice: any other actor is refused (exit 1), as is
    a workspace with no project.
    """
    from kapi.core.change.ports import ActorKind
    from kapi.host.actor import actor_from_env

    actor = request.actor if request.actor is not None else actor_from_env().actor
    if workspace.project is None or workspace.store is None:
        raise HostError(
            "voice profiles live in a project; run `kapi init` first", exit_code=EXIT_ERROR
        )
    if actor.kind != ActorKind.PERSON:
        raise HostError(
            "a person decides the voice; an agent records what it notices as a suggestion",
            exit_code=EXIT_ERROR,
        )
    from kapi.formats.containment import inside

    path = _contained(request.path, workspace)
    shown = inside(workspace.root.resolve(), path)
    profile, warnings, text = _load(path, str(request.path), strict=False)
    voice_id = request.id or profile.id or path.stem
    workspace.store.put_voice_profile(voice_id, text, shown)
    workspace.store.log_context(
        "import",
        actor,
        {"subject": {"kind": "voice", "id": voice_id}, "evidence": {"path": shown}},
    )
    return VoiceImported(id=voice_id, name=profile.name, warnings=warnings)


def list_voices(workspace: Workspace) -> tuple[VoiceEntry, ...]:
    """Starter packs, profiles in the store, and profiles committed under ``voices/``."""
    from kapi.core.governance.packs import pack_names

    out = [VoiceEntry(id=name, source="pack", bind=f"{{pack: {name}}}") for name in pack_names()]
    if workspace.store is not None:
        out += [
            VoiceEntry(id=v["id"], source="store", bind=v["id"])
            for v in workspace.store.voice_profiles()
        ]
    if workspace.project is not None:
        folder = workspace.project.root / "voices"
        for file in sorted(folder.glob("*.y*ml")) if folder.is_dir() else ():
            out.append(VoiceEntry(id=file.stem, source=f"voices/{file.name}", bind=file.stem))
    return tuple(out)
