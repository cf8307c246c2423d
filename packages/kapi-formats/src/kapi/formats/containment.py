"""Containment: every path kapi reads or writes resolves inside its working root.

The root is the project's folder, or the current folder without a project. A
name that leads anywhere else (``..``, an absolute path, a symlink pointing
out, a NUL byte) is refused before anything is opened, and the refusal never
says where an outside link leads.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from kapi.core.errors import EXIT_USAGE, KapiError

__all__ = ["Outside", "file_kind", "inside", "is_inside", "resolve_inside"]


class Outside(KapiError, ValueError):
    """A name that does not resolve inside the root; the message is safe to show."""

    code = "invalid"
    exit_code = EXIT_USAGE


def _real(path: str) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):  # a loop or an unreadable link resolves nowhere
        return path


def is_inside(root: Path | str, path: Path | str) -> bool:
    """Whether ``path`` (symlinks followed) is ``root`` or below it; ``root`` must be real."""
    return _below(os.fspath(root), _real(os.fspath(path)))


def _below(base: str, path: str) -> bool:
    return path == base or path.startswith(base.rstrip(os.sep) + os.sep)


def resolve_inside(
    root: Path, name: str | Path, *, relative_to: Path | None = None, scope: str = "the project"
) -> Path:
    """The real path ``name`` names below ``root`` (a real path); raises :class:`Outside`.

    A relative name is taken from ``relative_to`` (default: the root). An
    absolute name is accepted only when it lies inside the root. ``scope`` is
    how the message names the root ("the project", "the current folder").
    """
    text = os.fspath(name)
    if "\x00" in text:
        raise Outside(f"{text!r}: a path cannot hold a NUL byte")
    if not text:
        raise Outside("an empty path names no file")
    base = relative_to if relative_to is not None else root
    joined = text if os.path.isabs(text) else os.path.join(base, text)
    real = _real(joined)
    if not _below(os.fspath(root), real):
        shown = text if len(text) <= 200 else text[:200] + "…"
        if _below(os.fspath(root), os.path.normpath(joined)):
            raise Outside(f"{shown}: leads outside {scope} through a symbolic link")
        raise Outside(f"{shown}: outside {scope}")
    return Path(real)


def inside(root: Path, path: Path) -> str:
    """The slash key of a real path below ``root``."""
    relative = os.path.relpath(path, root)
    return "." if relative == "." else Path(relative).as_posix()


_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def file_kind(mode: int) -> str | None:
    """What a non-regular file is (``"a FIFO (named pipe)"``…); None for a regular file."""
    for test, kind in _KINDS:
        if test(mode):
            return kind
    return None if stat.S_ISREG(mode) else "not a regular file"
