"""Editing ``kapi.yaml`` through the ``recipe`` op: allowlisted fields, comments and layout kept."""

from __future__ import annotations

import io
import os
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["RECIPE_ALLOWLIST", "check_recipe_edit", "edit_recipe"]

# Dotted paths a recipe op may set; a trailing ".*" allows any key below.
RECIPE_ALLOWLIST = (
    "name",
    "defaults.target_languages",
    "defaults.voice",
    "defaults.exclude",
    "defaults.coordinates.*",
    "defaults.memory.fuzzy_threshold",
    "defaults.merge.conflict_policy",
    "profiles.*",
)


def _allowed(path: str) -> bool:
    for entry in RECIPE_ALLOWLIST:
        if entry.endswith(".*") and path.startswith(entry[:-1]) and len(path) > len(entry) - 1:
            return True
        if path == entry:
            return True
    return False


def check_recipe_edit(path: str, value: Any) -> str | None:
    """Why a recipe op is refused, or ``None``."""
    if not path or any(not part for part in path.split(".")):
        return f"{path!r} is not a dotted recipe path"
    if not _allowed(path):
        return (
            f"{path!r} is not a recipe field an op may set (allowed: {', '.join(RECIPE_ALLOWLIST)})"
        )
    if path == "defaults.target_languages":
        from kapi.core.edition import EditionKeyError, canonical_locale

        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return "defaults.target_languages is a list of language tags"
        try:
            [canonical_locale(v) for v in value]
        except EditionKeyError as err:
            return str(err)
    return None


def edit_recipe(recipe: Path, path: str, value: Any) -> None:
    """Set one field, keeping every comment and the layout of the rest of the file."""
    from ruamel.yaml.comments import CommentedMap

    from kapi.host.yaml import round_trip

    yaml = round_trip()
    original = recipe.read_text(encoding="utf-8")
    data = yaml.load(original)
    node = data
    parts = path.split(".")
    for part in parts[:-1]:
        child = node.get(part)
        if child is None:
            child = CommentedMap()
            node[part] = child
        node = child
    node[parts[-1]] = value
    buffer = io.StringIO()
    yaml.dump(data, buffer)
    handle, temporary = tempfile.mkstemp(prefix=".kapi.yaml.", dir=recipe.parent)
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(buffer.getvalue())
    os.replace(temporary, recipe)
