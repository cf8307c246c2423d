"""kapi's Agent Skill as package data: ``SKILL.md``, its references, and the topics ``kapi help`` serves.

One source tree (``data/kapi/``) feeds everything: the ``SKILL.md`` ``kapi init``
writes into a project, the topics ``kapi help`` prints, and the plugin bundle
(:mod:`kapi.skill.bundle`). It imports nothing of kapi.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "NAME",
    "VERSION",
    "Topic",
    "installed_files",
    "is_retired",
    "read_topic",
    "skill_files",
    "skill_root",
    "topics",
]

NAME = "kapi"
VERSION = "0.1.0"  # kept equal to the kapi-skill distribution's version by a test
_DATA = Path(__file__).parent / "data"
_REFERENCES = "references"
_NESTED = "i18n"
# [text](x.md), [text](../x.md), [text](i18n/x.md), [text](x.md#anchor)
_LINK = re.compile(r"\[([^\]]+)\]\((?:\.\./|\./)?((?:i18n/)?[a-z0-9-]+)\.(?:md|yaml)(?:#[^)]*)?\)")


@dataclass(frozen=True)
class Topic:
    """One reference ``kapi help`` serves: its name, its title (first ``# `` heading), its file."""

    name: str
    title: str
    path: str  # relative to the skill folder, slash-separated


def skill_root() -> Path:
    """The skill folder: ``SKILL.md`` and ``references/``."""
    return _DATA / NAME


def skill_files() -> dict[str, bytes]:
    """Every file of the skill, by its slash path inside the skill folder, in path order."""
    root = skill_root()
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def installed_files() -> dict[str, bytes]:
    """What ``kapi init`` writes into a host's skill folder: ``SKILL.md`` alone.

    The references are served by ``kapi help``, which always matches the
    binary the agent runs; a plugin install carries them as files.
    """
    return {"SKILL.md": (skill_root() / "SKILL.md").read_bytes()}


def _topic_name(relpath: str) -> str:
    """``references/check.md`` -> ``check``; ``references/i18n/react.md`` -> ``i18n-react``."""
    inner = relpath.removeprefix(_REFERENCES + "/")
    stem = inner.rsplit(".", 1)[0]
    return stem.replace("/", "-")


def _title(relpath: str, text: str) -> str:
    for line in text.splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    if relpath.endswith(".yaml"):
        for line in text.splitlines():
            if line.startswith("#"):
                return line.lstrip("# ").strip().rstrip(".")
    return _topic_name(relpath)


def topics() -> list[Topic]:
    """The topics, sorted by name."""
    found = []
    for relpath, body in skill_files().items():
        if not relpath.startswith(_REFERENCES + "/") or not relpath.endswith((".md", ".yaml")):
            continue
        found.append(Topic(_topic_name(relpath), _title(relpath, body.decode("utf-8")), relpath))
    return sorted(found, key=lambda topic: topic.name)


def read_topic(name: str) -> str | None:
    """A topic's text, each link to another reference rewritten as the ``kapi help`` command
    that serves it; None when there is no such topic."""
    wanted = name.strip().lower().removesuffix(".md")
    for topic in topics():
        if topic.name == wanted:
            text = (skill_root() / topic.path).read_text(encoding="utf-8")
            return rewrite_links(text, topic.path)
    return None


def rewrite_links(text: str, relpath: str) -> str:
    """``[the toolbox](toolbox.md)`` -> `` `kapi help toolbox` ``; ``[React](i18n/react.md)`` ->
    ``React (`kapi help i18n-react`)``.

    A link is resolved from the folder of ``relpath`` (``android.md`` inside
    ``i18n/`` is ``i18n-android``; ``../edit.md`` there is ``edit``).
    """
    nested = relpath.startswith(f"{_REFERENCES}/{_NESTED}/")

    def command(match: re.Match[str]) -> str:
        label, target = match.group(1), match.group(2)
        raw = match.group(0)
        if nested and "../" not in raw and not target.startswith(_NESTED + "/"):
            target = f"{_NESTED}/{target}"
        name = target.replace("/", "-")
        if name == _NESTED + "-frameworks":
            name = "i18n-frameworks"
        if label.strip("` ").lower() in (name, target.rsplit("/", 1)[-1], f"the {name}"):
            return f"`kapi help {name}`"
        return f"{label} (`kapi help {name}`)"

    return _LINK.sub(command, text)


def _retired_digests() -> frozenset[str]:
    path = _DATA / "retired.sha256"
    lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
    return frozenset(
        line.split()[0].lower() for line in lines if line.strip() and not line.startswith("#")
    )


def is_retired(body: bytes) -> bool:
    """Whether a file found in a skill folder is one an earlier kapi copied there, by content:
    equal to a file this skill ships, or a digest in ``retired.sha256``."""
    if any(body == shipped for shipped in skill_files().values()):
        return True
    return hashlib.sha256(body).hexdigest() in _retired_digests()
