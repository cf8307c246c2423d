"""File arguments as kapi reads them: globs it expands itself, folders, and ``-`` for stdin."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from kapi.host.errors import EXIT_USAGE, HostError

__all__ = ["expand_inputs"]

_GLOB_CHARS = re.compile(r"[*?\[{]")


def _hidden(part: str) -> bool:
    return part.startswith(".") and part not in (".", "..")


def _skipped_file(name: str) -> bool:
    return name.startswith(("~$", "._"))


def _walk(folder: Path) -> list[Path]:
    found: list[Path] = []
    for current, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not _hidden(d))
        for name in sorted(files):
            if not _hidden(name) and not _skipped_file(name):
                path = Path(current) / name
                if path.is_file():
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


def _glob(pattern: str) -> list[Path]:
    out: list[Path] = []
    for expanded in _braces(pattern):
        base = Path("/") if expanded.startswith("/") else Path(".")
        relative = expanded.lstrip("/") if expanded.startswith("/") else expanded
        named_dots = any(_hidden(part) for part in Path(relative).parts)
        for path in sorted(base.glob(relative)):
            if not path.is_file():
                continue
            parts = path.parts
            if not named_dots and any(_hidden(p) for p in parts):
                continue
            out.append(path)
    return out


def expand_inputs(arguments: Iterable[str]) -> list[str]:
    """Paths (and ``-``) in argument order, without duplicates; a pattern matching nothing is an error."""
    seen: set[str] = set()
    out: list[str] = []
    for argument in arguments:
        if argument == "-":
            candidates = ["-"]
        elif _GLOB_CHARS.search(argument):
            paths = _glob(argument)
            if not paths:
                raise HostError(f"{argument}: no file matches", exit_code=EXIT_USAGE)
            candidates = [str(p) for p in paths]
        elif Path(argument).is_dir():
            candidates = [str(p) for p in _walk(Path(argument))]
        else:
            candidates = [argument]
        for candidate in candidates:
            if candidate not in seen:
                seen.add(candidate)
                out.append(candidate)
    return out
