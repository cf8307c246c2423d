"""Commands other distributions add to ``kapi`` (entry-point group ``kapi.cli``).

Found by reading the installed distributions' entry points directly, so that
listing them (``kapi --help``) costs a folder listing, not an import of
``importlib.metadata``; a built-in verb never looks.
"""

from __future__ import annotations

from kapi.formats.entrypoints import EntryPoint, entry_points

__all__ = ["COMMAND_GROUP", "EntryPoint", "plugin_commands"]

COMMAND_GROUP = "kapi.cli"


def plugin_commands() -> dict[str, EntryPoint]:
    """Each plug-in command's entry point by its name (the first distribution's wins)."""
    found: dict[str, EntryPoint] = {}
    for entry in entry_points(COMMAND_GROUP):
        found.setdefault(entry.name, entry)
    return found
