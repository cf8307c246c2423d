"""Parsed governance files kept in ``.kapi/cache/governance.json``, keyed by their content.

A cold ``kapi check`` in a project reads ``kapi.yaml`` and the voice profiles it
binds; parsing YAML costs more than checking a page. The plain data each file
parsed to is kept under the SHA-256 of its text, so an unchanged file is not
parsed again and a changed one simply misses. The file is plain JSON with a
header: a format number, kapi's version and the SHA-256 of the entries. A cache
that is truncated, corrupt, of another format or kapi version, edited by hand
(its digest no longer matching) or too large is never trusted: it is ignored
and written afresh. The patterns the term rules and the voice compile to are kept
beside it (:func:`kapi.host.codegen.keep_patterns_in`). A cache that cannot be written (a read-only ``.kapi/``)
only costs the next process the parse, and a project without ``.kapi/`` gets
none (the cache never makes the folder).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kapi.host.version import VERSION

__all__ = ["CACHE_FORMAT", "GovernanceCache", "cache_for", "plain_data"]

CACHE_FORMAT = 1
CACHE_NAME = "governance.json"
MAX_BYTES = 4 * 1024 * 1024  # larger than any honest cache: read no further
MAX_ENTRIES = 32


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _entries_digest(entries: dict[str, Any]) -> str:
    canonical = json.dumps(entries, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


class _NotPlain(Exception):
    """The parsed data holds something JSON would not give back as it was."""


def plain_data(value: Any) -> Any:
    """``value`` as plain JSON values (dicts with string keys, lists, strings, numbers, booleans,
    None), or raise :class:`_NotPlain` when JSON could not give it back the same (a date, an
    integer key, a set); ruamel's scalar subclasses become their plain types."""
    if value is None or value is True or value is False:
        return value
    if isinstance(value, str):
        return str(value)
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        if type(value).__name__ == "ScalarBoolean":  # ruamel's round-trip boolean is an int
            return bool(value)
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _NotPlain
        return float(value)
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise _NotPlain
            out[str(key)] = plain_data(item)
        return out
    if isinstance(value, list):
        return [plain_data(item) for item in value]
    raise _NotPlain


class GovernanceCache:
    """The cache of one project's ``.kapi/`` folder, read once and written when it grew."""

    def __init__(self, state_dir: Path, root: Path) -> None:
        self.path = state_dir / "cache" / CACHE_NAME
        self.root = root
        self._entries: dict[str, Any] | None = None

    def inside(self) -> bool:
        """The cache is used only where it resolves inside the project (no link out of it)."""
        try:
            self.path.parent.resolve().relative_to(self.root.resolve())
        except (OSError, ValueError):
            return False
        return True

    def _load(self) -> dict[str, Any]:
        if self._entries is None:
            self._entries = self._read() if self.inside() else {}
        return self._entries

    def _read(self) -> dict[str, Any]:
        """The entries of a cache file that holds together; anything else is an empty cache."""
        try:
            with open(self.path, "rb") as file:
                data = file.read(MAX_BYTES + 1)
        except OSError:
            return {}
        if len(data) > MAX_BYTES:
            return {}
        try:
            loaded = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            return {}
        if not (
            isinstance(loaded, dict)
            and loaded.get("format") == CACHE_FORMAT
            and loaded.get("kapi") == VERSION
            and isinstance(loaded.get("entries"), dict)
            and isinstance(loaded.get("digest"), str)
        ):
            return {}
        entries: dict[str, Any] = loaded["entries"]
        if len(entries) > MAX_ENTRIES or loaded["digest"] != _entries_digest(entries):
            return {}
        return entries

    def parsed(self, text: str, parse: Callable[[str], Any]) -> Any:
        """What ``parse(text)`` gives, from the cache when ``text`` was parsed before.

        ``parse`` raises as it would without a cache (nothing is kept then); data
        JSON could not hold faithfully is returned as parsed and not kept.
        """
        key = _digest(text)
        entries = self._load()
        if key in entries:
            # A copy: what a caller does with its data never reaches the cache.
            return json.loads(json.dumps(entries[key]))
        value = parse(text)
        try:
            plain = plain_data(value)
        except (_NotPlain, RecursionError):
            return value
        entries[key] = plain
        while len(entries) > MAX_ENTRIES:
            del entries[next(iter(entries))]  # the oldest first
        self._save(entries)
        return value

    def _save(self, entries: dict[str, Any]) -> None:
        """Write the cache whole (a temporary, then a rename); a folder that refuses is left be.

        Only into a ``.kapi/`` the project already has (``kapi init`` or the store made it):
        a cache never creates the project's state folder.
        """
        if not self.inside() or not self.path.parent.parent.is_dir():
            return
        body = {
            "format": CACHE_FORMAT,
            "kapi": VERSION,
            "digest": _entries_digest(entries),
            "entries": entries,
        }
        text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
        temporary = self.path.with_name(f".{CACHE_NAME}.{os.getpid()}.tmp")
        try:
            self.path.parent.mkdir(exist_ok=True)
            with open(temporary, "w", encoding="utf-8") as file:
                file.write(text)
            os.replace(temporary, self.path)
        except OSError:
            with contextlib.suppress(OSError):
                temporary.unlink()


_CACHES: dict[Path, GovernanceCache] = {}


def cache_for(state_dir: Path, root: Path) -> GovernanceCache:
    """The cache of a project's state folder, one per folder in a process."""
    found = _CACHES.get(state_dir)
    if found is None:
        found = _CACHES[state_dir] = GovernanceCache(state_dir, root)
        if found.inside():
            from kapi.host.codegen import keep_patterns_in

            # the term rules' and voice's patterns, compiled, beside the parsed files
            keep_patterns_in(str(found.path.parent))
    return found
