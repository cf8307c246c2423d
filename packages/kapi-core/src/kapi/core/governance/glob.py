"""Doublestar globs for recipe paths: ``**`` spans directories, ``{a,b}`` alternates.

Paths are matched as ``/``-separated text relative to the project. ``*``
matches within one segment, ``?`` one character of a segment, ``[…]`` a set
(``[!…]`` or ``[^…]`` negated), ``**`` as a whole segment zero or more
segments (``docs/**`` also matches ``docs`` itself), ``{a,b}`` either
alternative (nested braces allowed), and ``\\`` escapes the next character.
Wildcards match leading dots; choosing which files exist to match (skipping
hidden directories) is the host's walk, not the pattern's.
"""

from __future__ import annotations

import re
from functools import lru_cache

from kapi.core.errors import EXIT_USAGE, KapiError

__all__ = ["GlobError", "glob_match", "glob_regex", "literal_prefix"]

_SPECIAL = frozenset("*?[{\\")


class GlobError(KapiError, ValueError):
    """A glob that does not parse (an unclosed ``[`` or ``{``)."""

    code = "invalid"
    exit_code = EXIT_USAGE


def glob_match(pattern: str, path: str) -> bool:
    """True when ``path`` (``/``-separated, no leading ``./``) matches ``pattern``."""
    return glob_regex(pattern).fullmatch(_normal(path)) is not None


@lru_cache(maxsize=1024)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """The compiled regular expression a glob stands for; raises :class:`GlobError`."""
    return re.compile(_translate(_normal(pattern), pattern), re.DOTALL)


def literal_prefix(pattern: str) -> str:
    """The directory part before the first wildcard: ``docs/api/**/*.md`` → ``docs/api``."""
    out: list[str] = []
    for segment in _normal(pattern).split("/")[:-1]:
        if any(char in _SPECIAL for char in segment):
            break
        out.append(segment)
    return "/".join(out)


def _normal(path: str) -> str:
    while path.startswith("./"):
        path = path[2:]
    return path


def _translate(pattern: str, original: str) -> str:
    out: list[str] = []
    index = 0
    length = len(pattern)
    depth = 0  # open braces
    while index < length:
        char = pattern[index]
        at_segment_start = index == 0 or pattern[index - 1] == "/"
        if char == "*" and pattern.startswith("**", index) and at_segment_start:
            end = index + 2
            if end == length or (depth and pattern[end] in ",}"):
                # trailing '**': everything below, and the directory itself
                if out and out[-1] == "/":
                    out.pop()
                    out.append("(?:/.*)?")
                else:
                    out.append(".*")
                index = end
                continue
            if pattern[end] == "/":
                out.append("(?:[^/]*/)*")
                index = end + 1
                continue
        if char == "*":
            while index < length and pattern[index] == "*":
                index += 1
            out.append("[^/]*")
            continue
        if char == "?":
            out.append("[^/]")
        elif char == "[":
            close = _class_end(pattern, index)
            if close < 0:
                raise GlobError(f"unclosed '[' in {original!r}")
            body = pattern[index + 1 : close]
            negate = body[:1] in ("!", "^")
            if negate:
                body = body[1:]
            body = body.replace("\\", "\\\\").replace("]", "\\]")
            out.append(f"[{'^/' if negate else ''}{body}]" if negate else f"(?!/)[{body}]")
            index = close + 1
            continue
        elif char == "{":
            depth += 1
            out.append("(?:")
        elif char == "," and depth:
            out.append("|")
        elif char == "}" and depth:
            depth -= 1
            out.append(")")
        elif char == "\\":
            index += 1
            if index < length:
                out.append(re.escape(pattern[index]))
        else:
            out.append(re.escape(char) if char != "/" else "/")
        index += 1
    if depth:
        raise GlobError(f"unclosed '{{' in {original!r}")
    return "".join(out)


def _class_end(pattern: str, start: int) -> int:
    index = start + 1
    if index < len(pattern) and pattern[index] in "!^":
        index += 1
    if index < len(pattern) and pattern[index] == "]":
        index += 1
    while index < len(pattern):
        if pattern[index] == "\\":
            index += 2
            continue
        if pattern[index] == "]":
            return index
        index += 1
    return -1
