"""The Claude Code plugin and the portable skill folder, built as copies of the one skill tree.

``python -m kapi.skill bundle --plugin DIR --skill DIR`` writes the plugin
(``.claude-plugin/plugin.json``, ``hooks/hooks.json``, ``skills/kapi/``) and
the portable skill (``kapi/SKILL.md`` with ``references/``). The copy is
byte for byte; nothing is generated into the skill's text.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from kapi.skill import NAME, VERSION, skill_files

__all__ = ["HOOKS", "MATCHER", "bundle_plugin", "bundle_skill", "plugin_manifest"]

MATCHER = "Edit|Write|MultiEdit"
HOOKS = {
    "hooks": {
        "PreToolUse": [
            {"matcher": MATCHER, "hooks": [{"type": "command", "command": "kapi hook pre-edit"}]}
        ],
        "PostToolUse": [
            {"matcher": MATCHER, "hooks": [{"type": "command", "command": "kapi hook post-edit"}]}
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "kapi hook stop"}]}],
    }
}
DESCRIPTION = (
    "kapi for Claude Code: the skill that teaches the four habits (follow the rules files, "
    "record what the files do and what the person corrects, check before reporting done) "
    "and three hooks: a check after every edit, the ship gates before stopping, and no "
    "hand-edits of generated translations. Needs the kapi command on PATH."
)


def plugin_manifest() -> dict[str, object]:
    """``.claude-plugin/plugin.json``."""
    return {
        "name": NAME,
        "version": VERSION,
        "description": DESCRIPTION,
        "author": {"name": "kapi maintainers"},
        "license": "Apache-2.0",
        "keywords": ["kapi", "writing", "voice", "terminology", "localization", "i18n", "hooks"],
    }


def _write(path: Path, body: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(body)


def _json(data: object) -> bytes:
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _copy_skill(folder: Path) -> list[Path]:
    """The skill's files into ``folder`` (emptied first, so a retired file does not linger)."""
    if folder.exists():
        shutil.rmtree(folder)
    written = []
    for relpath, body in skill_files().items():
        target = folder / relpath
        _write(target, body)
        written.append(target)
    return written


def bundle_plugin(plugin_dir: Path) -> list[Path]:
    """The Claude Code plugin directory; returns the files written."""
    manifest = plugin_dir / ".claude-plugin" / "plugin.json"
    hooks = plugin_dir / "hooks" / "hooks.json"
    _write(manifest, _json(plugin_manifest()))
    _write(hooks, _json(HOOKS))
    return [manifest, hooks, *_copy_skill(plugin_dir / "skills" / NAME)]


def bundle_skill(skill_dir: Path) -> list[Path]:
    """The portable skill: ``DIR/kapi/SKILL.md`` and ``references/``; returns the files written."""
    return _copy_skill(skill_dir / NAME)
