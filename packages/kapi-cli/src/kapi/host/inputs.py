"""File arguments as kapi reads them: globs it expands itself, folders, and ``-`` for stdin."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from kapi.formats.containment import Outside, is_inside, resolve_inside
from kapi.host.errors import EXIT_USAGE, HostError

if TYPE_CHECKING:
    from kapi.host.workspace import Workspace

__all__ = ["expand_inputs", "file_in", "inputs_for", "read_in"]

_GLOB_CHARS = re.compile(r"[*?\[{]")


def _hidden(part: str) -> bool:
    return part.startswith(".") and part not in (".", "..")


def _skipped_file(name: str) -> bool:
    return name.startswith(("~$", "._"))


def _walk(folder: Path, root: str) -> list[Path]:
    found: list[Path] = []
    for current, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not _hidden(d))
        for name in sorted(files):
            if not _hidden(name) and not _skipped_file(name):
                path = Path(current) / name
                if path.is_file() and is_inside(root, path):
                    found.append(path)
    return found


def _braces(pattern: str) -> list[str]:
    match = re.search(r"\{([^{}]*)\}", pattern)
    if not match:
        return [pattern]
    out: list[str] = []
    for option in match.group(1).split(","):
        out.extend(_braces(pattern[: match.start()] + option + pattern[match.end() :]))
    return out


def _glob(pattern: str, root: str, scope: str, cwd: Path) -> list[Path]:
    out: list[Path] = []
    for expanded in _braces(pattern):
        static = _GLOB_CHARS.split(expanded, maxsplit=1)[0]
        base_text = static.rsplit("/", 1)[0] if "/" in static else "."
        if not is_inside(root, os.path.join(cwd, base_text or "/")):
            raise HostError(f"{pattern}: outside {scope}", exit_code=EXIT_USAGE)
        if ".." in Path(expanded).parts:
            raise HostError(
                f"{pattern}: a pattern may not climb with `..`; name the folder it starts in",
                exit_code=EXIT_USAGE,
            )
        base = Path("/") if expanded.startswith("/") else cwd
        relative = expanded.lstrip("/") if expanded.startswith("/") else expanded
        named_dots = any(_hidden(part) for part in Path(relative).parts)
        for path in sorted(base.glob(relative)):
            if not path.is_file() or not is_inside(root, path):
                continue
            parts = path.relative_to(base).parts
            if not named_dots and any(_hidden(p) for p in parts):
                continue
            out.append(path)
    return out


def expand_inputs(
    arguments: Iterable[str],
    *,
    root: Path | None = None,
    scope: str = "the current folder",
    cwd: Path | None = None,
) -> list[str]:
    """Paths (and ``-``) in argument order, without duplicates; a pattern matching nothing is an error.

    Relative arguments are taken from ``cwd`` (default: this process's folder;
    the paths returned are then relative too). Every path resolves (symlinks
    followed) inside ``root`` (default: the current folder): a named file outside
    it is a usage error before anything is read, and a pattern or folder never
    yields a file outside it.
    """
    here = cwd if cwd is not None else Path(".")
    real_root = os.path.realpath(root if root is not None else Path.cwd())
    seen: set[str] = set()
    out: list[str] = []
    for argument in arguments:
        if argument == "-":
            candidates = ["-"]
        elif "\x00" in argument:
            raise HostError(f"{argument!r}: a path cannot hold a NUL byte", exit_code=EXIT_USAGE)
        elif _GLOB_CHARS.search(argument):
            paths = _glob(argument, real_root, scope, here)
            if not paths:
                raise HostError(f"{argument}: no file matches", exit_code=EXIT_USAGE)
            candidates = [str(p) for p in paths]
        else:
            try:
                resolve_inside(Path(real_root), argument, relative_to=here, scope=scope)
            except Outside as err:
                raise HostError(str(err), exit_code=EXIT_USAGE) from None
            named = here / argument
            if named.is_dir():
                candidates = [str(p) for p in _walk(named, real_root)]
            else:
                candidates = [str(named) if cwd is not None else argument]
        for candidate in candidates:
            if candidate not in seen:
                seen.add(candidate)
                out.append(candidate)
    return out


def file_in(workspace: Workspace, name: str | os.PathLike[str]) -> Path:
    """The file a verb's FILE argument names: taken from the workspace's folder, inside its root.

    The one rule every file a verb reads or writes beside its documents is held
    to (a terms, voice, memory, diff or log file, an output): a name that leads
    outside the project (or the current folder without one) through ``..``, an
    absolute path or a symbolic link is a usage error (exit 2) before anything
    is opened, and the message never says where an outside link leads.
    """
    scope = "the project" if workspace.project is not None else "the current folder"
    base = workspace.cwd if workspace.cwd is not None else Path.cwd()
    root = Path(os.path.realpath(workspace.root))
    try:
        return resolve_inside(root, os.fspath(name), relative_to=base, scope=scope)
    except Outside as err:
        raise HostError(
            f"{err}: kapi reads and writes files only inside {scope}",
            exit_code=EXIT_USAGE,
        ) from None


def read_in(workspace: Workspace, name: str | os.PathLike[str], *, max_bytes: int = 0) -> bytes:
    """The bytes of the regular file ``name`` names inside the workspace (see :func:`file_in`).

    A folder, FIFO, socket or device is refused without blocking, as is a file
    over ``max_bytes`` (default: the document limit); every refusal is a usage
    error (exit 2) naming the file as it was given.
    """
    from kapi.core.format import DEFAULT_LIMITS, FormatError, Limits
    from kapi.formats.reading import read_regular

    path = file_in(workspace, name)
    limits = Limits(max_bytes=max_bytes) if max_bytes else DEFAULT_LIMITS
    try:
        return read_regular(path, display=os.fspath(name), limits=limits)
    except FormatError as err:
        code = err.code if err.code in ("not_found", "budget_exceeded") else "usage"
        raise HostError(err.located(), exit_code=EXIT_USAGE, code=code) from None


def inputs_for(files: Iterable[str], workspace: Workspace, *, stdin_is_terminal: bool) -> list[str]:
    """What a verb reads: the files named, else the project's declared content, else stdin.

    Stdin (``-``) counts only when something is piped in; at a terminal with
    nothing named and no project there is nothing to read, a usage error.
    """
    named = tuple(files)
    if not named and workspace.project is not None:
        return [str(workspace.project.root / p) for p in workspace.project.source_files()]
    if not named:
        if stdin_is_terminal:
            raise HostError(
                "no input: name files, or pipe content with --format", exit_code=EXIT_USAGE
            )
        return ["-"]
    scope = "the project" if workspace.project is not None else "the current folder"
    return expand_inputs(named, root=workspace.root, scope=scope, cwd=workspace.cwd)
