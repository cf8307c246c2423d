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
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from attrs import frozen

from kapi.host.version import VERSION

if TYPE_CHECKING:
    from kapi.core.governance.terms import Concept
    from kapi.core.governance.voice import VoiceProfile

__all__ = [
    "ContextRule",
    "ContextTermHit",
    "MergedRules",
    "StoreTerms",
    "TopUse",
    "find_terms",
    "merge_rules",
    "merged_rules",
    "store_terms",
    "with_voice",
]

CACHE_FORMAT = 1
KEPT = 8  # cache files kept (one per point, when kept rules narrow concepts)
_PREFIX = "context-terms-"


@frozen
class TopUse:
    document: str
    block_id: str
    locale: str
    snippet: str
    point: str = ""


@frozen
class ContextTermHit:
    concept_id: str
    term: str
    locale: str
    status: str
    definition: str = ""
    domain: str = ""
    replacement: str = ""
    discouraged: bool = False
    valid_from: str = ""
    valid_to: str = ""
    uses: int = 0
    use_blocks: int = 0
    top_uses: tuple[TopUse, ...] = ()


# --- the terms and the rules at a point ------------------------------------------------


@frozen
class ContextRule:
    """A merged rule: say ``say`` (or accept ``also``), not ``not_`` (``not`` on the wire)."""

    say: str
    also: tuple[str, ...] = ()
    not_: tuple[str, ...] = ()
    note: str = ""
    locale: str = ""
    from_: tuple[str, ...] = ()
    advisory: bool = False


def find_terms(
    concepts: Iterable[Concept],
    locale: str,
    at: datetime,
    *,
    limit: int | None = None,
    needle: str = "",
) -> tuple[list[ContextTermHit], int]:
    """The in-window terms (those holding ``needle`` in their text or definition), discouraged
    first, then preferred, then the rest alphabetically: the first ``limit`` and the count."""
    import heapq

    from kapi.core.governance.terms import _preferred, _term_valid

    matches = _locales(locale)
    found: list[tuple[tuple[bool, bool, str], Any, Any, Any]] = []
    for concept in concepts:
        here = [
            t
            for t in concept.terms
            if matches(t.locale) and (t.validity is None or _term_valid(t, at))
        ]
        if not here:
            continue
        preferred = None
        for term in here:
            if (
                needle
                and needle not in term.text.casefold()
                and needle not in concept.definition.casefold()
            ):
                continue
            discouraged = term.competitor_term or term.status in ("deprecated", "forbidden")
            if discouraged and preferred is None:
                preferred = _preferred(here)
            key = (not discouraged, term.status != "preferred", term.text.casefold())
            found.append((key, concept, term, preferred if discouraged else None))
    first = (
        sorted(found, key=lambda item: item[0])
        if limit is None
        else heapq.nsmallest(limit, found, key=lambda item: item[0])
    )
    hits = [
        ContextTermHit(
            concept_id=concept.id,
            term=term.text,
            locale=term.locale,
            status=str(term.status),
            definition=concept.definition,
            domain=concept.domain,
            replacement=preferred.text if preferred is not None else "",
            discouraged=not key[0],
            valid_from=term.validity.valid_from if term.validity else "",
            valid_to=term.validity.valid_to if term.validity else "",
        )
        for key, concept, term, preferred in first
    ]
    return hits, len(found)


def _locales(locale: str) -> Callable[[str], bool]:
    """``locale_matches(_, locale)``, answered once for each locale a store names."""
    from kapi.core.governance.terms import locale_matches

    seen: dict[str, bool] = {}

    def matches(term_locale: str) -> bool:
        found = seen.get(term_locale)
        if found is None:
            found = seen[term_locale] = locale_matches(term_locale, locale)
        return found

    return matches


class MergedRules:
    """The rules in force at a point, merged: ``rules(limit)`` the first ``limit`` (rules that
    forbid a wording first, then by what to say), ``total`` how many, ``said`` every
    (say, avoided) pair, case-folded."""

    def __init__(self, merged: dict[str, list[Any]], locale: str) -> None:
        self.merged = merged
        self.locale = locale
        self.total = len(merged)
        self.said = {
            (say.casefold(), avoided.casefold())
            for say, _, nots, *_ in merged.values()
            for avoided in nots
        }

    def rules(self, limit: int | None = None) -> list[ContextRule]:
        ordered = sorted(
            self.merged.values(), key=lambda e: (e[5], e[0].casefold(), e[2][0].casefold())
        )
        return [
            ContextRule(
                say=say,
                also=tuple(also),
                not_=tuple(nots),
                note=note,
                locale=self.locale,
                from_=tuple(origins),
                advisory=advisory,
            )
            for say, also, nots, note, origins, advisory in ordered[:limit]
        ]


def merged_rules(
    concepts: Sequence[Concept], voice: VoiceProfile | None, locale: str
) -> MergedRules:
    """The rules in force: the terms store, then the voice, keyed on the case-folded ``say``;
    each avoided word once."""
    from kapi.host.context_log import concept_rules

    merged: dict[str, list[Any]] = {}
    seen: set[str] = set()
    merge_rules(merged, seen, concept_rules(concepts, locale, datetime.now(UTC)), "terms")
    if voice is not None:
        merge_rules(merged, seen, voice.term_rules, "voice")
    return MergedRules(merged, locale)


def merge_rules(
    merged: dict[str, list[Any]], seen: set[str], rules: Iterable[Any], origin: str
) -> None:
    """Add the rules that reject a wording to ``merged`` (key -> [say, also, not, note, from,
    advisory]), each avoided word once (``seen`` holds those said already, case-folded)."""
    for rule in rules:
        if not rule.rejects:
            continue
        avoided = []
        for form in (rule.term, *rule.forms):
            folded = form.casefold()
            if form and folded not in seen:
                seen.add(folded)
                avoided.append(form)
        if not avoided:
            continue
        key = rule.replacement.casefold() or "\0" + avoided[0].casefold()
        entry = merged.get(key)
        if entry is None:
            entry = merged[key] = [rule.replacement, [], [], rule.note, [origin], True]
        elif origin not in entry[4]:
            entry[4].append(origin)
        entry[2].extend(avoided)
        also = entry[1]
        for accepted in rule.accepted:
            if accepted.text not in also:
                also.append(accepted.text)
        entry[5] = entry[5] and rule.advisory


def with_voice(store: dict[str, list[Any]], voice: VoiceProfile | None, locale: str) -> MergedRules:
    """The store's merged rules (as :func:`merge_rules` left them), then the voice's."""
    if voice is None:
        return MergedRules(store, locale)
    merged = {
        key: [e[0], list(e[1]), list(e[2]), e[3], list(e[4]), e[5]] for key, e in store.items()
    }
    seen = {form.casefold() for entry in merged.values() for form in entry[2]}
    merge_rules(merged, seen, voice.term_rules, "voice")
    return MergedRules(merged, locale)


# --- kept between runs ---------------------------------------------------------------


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
    from kapi.host.context_log import concept_rules

    now = datetime.now(UTC)
    merged: dict[str, list[Any]] = {}
    merge_rules(merged, set(), concept_rules(concepts, locale, now), "terms")
    hits, total = find_terms(concepts, locale, now, limit=limit)
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
