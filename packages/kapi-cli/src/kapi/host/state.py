"""The project's local state folder, ``.kapi/``, and the ignore file that keeps it out of git.

Everything in ``.kapi/`` is local to one checkout (the store, the vault,
caches), so the folder holds a ``.gitignore`` of one line, ``*``. Whatever
creates the folder (``kapi init``, the store a first ``kapi status`` opens,
the vault) writes that file with it. An ignore file already there is never
replaced. A folder that was there already gets one only when it holds nothing
but kapi's local state (a store made before kapi wrote the file with it); one
holding anything else (the voices and terms an older kapi kept in git there)
is left as its owner keeps it.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

__all__ = ["STATE_DIR", "STATE_IGNORE", "make_state_dir", "write_state_ignore"]

STATE_DIR = ".kapi"
STATE_IGNORE = b"*\n"  # the local state stays out of version control
# what kapi keeps in .kapi/ that is local to one checkout, never committed
_LOCAL = frozenset(
    {
        "project.db",
        "project.db-wal",
        "project.db-shm",
        "project.db-journal",
        "cache",
        "vault.json",
        "vault.json.tmp",
    }
)


def make_state_dir(folder: Path) -> bool:
    """Create ``folder`` (and its parents) with its ignore file; True when this call created it.

    A folder there already gets the ignore file only when it has none and holds
    nothing but kapi's local state. Raises OSError as ``mkdir`` does.
    """
    if folder.is_dir():
        if not (folder / ".gitignore").exists() and _only_local(folder):
            with contextlib.suppress(OSError):  # a read-only folder: the store says so itself
                write_state_ignore(folder)
        return False
    folder.parent.mkdir(parents=True, exist_ok=True)
    try:
        folder.mkdir()
    except FileExistsError:
        if folder.is_dir():
            return False  # another process made it first, and writes the ignore file itself
        raise
    write_state_ignore(folder)
    return True


def write_state_ignore(folder: Path) -> bool:
    """Write ``folder/.gitignore`` unless a file of that name is there; True when written."""
    try:
        descriptor = os.open(folder / ".gitignore", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return False
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(STATE_IGNORE)
    return True


def _only_local(folder: Path) -> bool:
    try:
        return all(name in _LOCAL for name in os.listdir(folder))
    except OSError:
        return False
