"""What the terms store says at a point, as the context answer shows it, kept between runs.

The answer shows the store's rules merged (the first 25 and how many) and its
first terms; working that out reads every concept, which costs more than the
rest of the answer. So the result is kept in ``.kapi/cache/`` under a digest of
everything the store holds, the locale and (when a kept rule narrows a concept
to some points) the point: an unchanged store is not read again, a changed one
simply misses. Each file is one JSON header line (format, kapi's version, the
key and the SHA-256 of the body) and the body; a file whose header or body does
not match is never trusted. Terms with validity windows depend on the hour of
the answer, so a store holding any is not kept.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kapi.host.version import VERSION

if TYPE_CHECKING:
    from kapi.core.governance.terms import Concept
    from kapi.host.context import ContextTermHit

__all__ = ["StoreTerms", "store_terms"]

CACHE_FORMAT = 1
KEPT = 8  # cache files kept (one per point, when kept rules narrow concepts)
_PREFIX = "context-terms-"


class StoreTerms:
    """The store's rules merged (``merged``: key -> [say, also, not, note, from, advisory])
    and its first terms at a point, with the count; ``scoped`` says some concept holds
    only at some points."""

    def __init__(
        self,
        merged: dict[str, list[Any]],
        terms: Sequence[ContextTermHit],
        total: int,
        *,
        scoped: bool,
    ) -> None:
        self.merged = merged
        self.terms = list(terms)
        self.total = total
        self.scoped = scoped

    def plain(self) -> dict[str, Any]:
        from kapi.host.wire import plain

        return {
            "merged": self.merged,
            "terms": [plain(t) for t in self.terms],
            "total": self.total,
            "scoped": self.scoped,
        }

    @classmethod
    def of(cls, data: Any) -> StoreTerms | None:
        from kapi.host.context import ContextTermHit

        try:
            return cls(
                dict(data["merged"]),
                [ContextTermHit(**hit) for hit in data["terms"]],
                int(data["total"]),
                scoped=bool(data["scoped"]),
            )
        except (KeyError, TypeError, ValueError):
            return None


def store_terms(
    store: Any,
    project: Any,
    locale: str,
    coordinates: dict[str, str],
    limit: int,
    concepts: Callable[[], Sequence[Concept]],
    concepts_at: Callable[[dict[str, str]], Sequence[Concept]],
) -> StoreTerms:
    """The store's merged rules and first ``limit`` terms at a point, from the cache when the
    store has not changed since; on a miss they are worked out from ``concepts()`` (all) and
    ``concepts_at(coordinates)`` (those holding at the point)."""
    from kapi.core.context.scope import coordinates_text

    cache = _Cache(project.state_dir, project.root)
    base = f"{store.terms_digest()}\x1f{locale}"
    here = f"{base}\x1f{coordinates_text(coordinates)}"
    found = cache.get(base)
    if found is not None and found.scoped:  # the point decides what holds: keyed by it too
        found = cache.get(here)
    if found is not None:
        return found
    everything = concepts()
    scoped = _scoped(everything)
    made = _made(concepts_at(coordinates) if scoped else everything, locale, limit, scoped=scoped)
    if _windowed(everything):
        return made  # the answer moves with the clock: not kept
    if scoped:
        cache.put(base, StoreTerms({}, [], 0, scoped=True))
        cache.put(here, made)
    else:
        cache.put(base, made)
    return made


def _scoped(concepts: Sequence[Concept]) -> bool:
    from kapi.core.context.scope import PROP_COORDINATES, PROP_PROFILE

    return any(
        c.properties and (PROP_COORDINATES in c.properties or PROP_PROFILE in c.properties)
        for c in concepts
    )


def _windowed(concepts: Sequence[Concept]) -> bool:
    return any(t.validity is not None for c in concepts for t in c.terms)


def _made(concepts: Sequence[Concept], locale: str, limit: int, *, scoped: bool) -> StoreTerms:
    from datetime import UTC, datetime

    from kapi.host.context import _terms, merge_rules
    from kapi.host.context_log import concept_rules

    now = datetime.now(UTC)
    merged: dict[str, list[Any]] = {}
    merge_rules(merged, set(), concept_rules(concepts, locale, now), "terms")
    hits, total = _terms(concepts, locale, now, limit=limit)
    return StoreTerms(merged, hits, total, scoped=scoped)


class _Cache:
    """The context-terms files of one project's ``.kapi/cache/`` (none without ``.kapi/``)."""

    def __init__(self, state_dir: Path | None, root: Path | None) -> None:
        self.folder = state_dir / "cache" if state_dir is not None else None
        self.root = root

    def _usable(self) -> bool:
        if self.folder is None or self.root is None or not self.folder.parent.is_dir():
            return False
        try:
            self.folder.parent.resolve().relative_to(self.root.resolve())
        except (OSError, ValueError):
            return False
        return True

    def _path(self, key: str) -> Path:
        assert self.folder is not None
        name = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:24]
        return self.folder / f"{_PREFIX}{name}.json"

    def get(self, key: str) -> StoreTerms | None:
        if not self._usable():
            return None
        try:
            data = self._path(key).read_bytes()
        except OSError:
            return None
        head, _, body = data.partition(b"\n")
        try:
            header = json.loads(head)
        except ValueError:
            return None
        if not (
            isinstance(header, dict)
            and header.get("format") == CACHE_FORMAT
            and header.get("kapi") == VERSION
            and header.get("key") == key
            and header.get("sha256") == hashlib.sha256(body).hexdigest()
        ):
            return None
        try:
            return StoreTerms.of(json.loads(body))
        except ValueError:
            return None

    def put(self, key: str, found: StoreTerms) -> None:
        """Write one file whole (a temporary, then a rename) and keep the newest few; a folder
        that refuses is left be."""
        if not self._usable():
            return
        assert self.folder is not None
        body = json.dumps(found.plain(), ensure_ascii=False, separators=(",", ":")).encode()
        header = {
            "format": CACHE_FORMAT,
            "kapi": VERSION,
            "key": key,
            "sha256": hashlib.sha256(body).hexdigest(),
        }
        path = self._path(key)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            self.folder.mkdir(exist_ok=True)
            temporary.write_bytes(json.dumps(header).encode() + b"\n" + body)
            os.replace(temporary, path)
            kept = sorted(
                self.folder.glob(f"{_PREFIX}*.json"), key=lambda p: p.stat().st_mtime, reverse=True
            )
            for old in kept[KEPT:]:
                old.unlink()
        except OSError:
            with contextlib.suppress(OSError):
                temporary.unlink()
