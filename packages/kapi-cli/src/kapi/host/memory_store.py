"""The content memory's index and the translation stamps, beside the project store.

Memory entries live in the store's ``tm_entries``/``tm_variants`` (where a
``memory`` op puts them); this subsystem keeps, in the same SQLite file and
under its own migration table, each variant's match keys, an FTS5 trigram
index of them (kept in step by triggers) with each trigram's count, which
narrow a fuzzy search to a few candidates, and the stamp of every target a
tool wrote (the source revision it was made from and the revision it wrote),
so a stale target and a person's edit can be told apart later. Where SQLite
has no FTS5 trigram tokenizer, a fuzzy search reads the keys of a length a
match could have instead.
"""

from __future__ import annotations

import os
import re
import sqlite3
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from attrs import frozen

from kapi.core.edittext import TOKEN
from kapi.host.errors import EXIT_ERROR, EXIT_GATE, HostError

__all__ = [
    "MemoryIndex",
    "Stamp",
    "StoredVariant",
    "memory_keys",
    "plain_key",
    "structural_key",
    "trigrams",
]

MIGRATIONS: tuple[tuple[int, str, str], ...] = (
    (
        1,
        "memory match keys, trigram prefilter, translation stamps",
        """
        CREATE TABLE tm_keys (
            id INTEGER PRIMARY KEY,
            entry_id TEXT NOT NULL REFERENCES tm_entries(id) ON DELETE CASCADE,
            locale TEXT NOT NULL,
            text TEXT NOT NULL,
            plain TEXT NOT NULL,
            structural TEXT NOT NULL,
            length INTEGER NOT NULL,
            UNIQUE (entry_id, locale)
        );
        CREATE INDEX tm_keys_plain ON tm_keys(locale, plain);
        CREATE INDEX tm_keys_structural ON tm_keys(locale, structural);
        CREATE TABLE tm_grams (
            gram TEXT NOT NULL,
            locale TEXT NOT NULL,
            key_id INTEGER NOT NULL,
            PRIMARY KEY (gram, locale, key_id)
        ) WITHOUT ROWID;
        CREATE TABLE tm_gram_counts (
            gram TEXT NOT NULL,
            locale TEXT NOT NULL,
            count INTEGER NOT NULL,
            PRIMARY KEY (gram, locale)
        ) WITHOUT ROWID;
        CREATE TABLE tm_origins (
            entry_id TEXT PRIMARY KEY REFERENCES tm_entries(id) ON DELETE CASCADE,
            origin TEXT NOT NULL,
            project TEXT NOT NULL
        );
        CREATE TABLE translation_stamps (
            doc TEXT NOT NULL,
            block TEXT NOT NULL,
            edition TEXT NOT NULL,
            basis TEXT NOT NULL,
            rev TEXT NOT NULL,
            kind TEXT NOT NULL,
            tool TEXT NOT NULL,
            at TEXT NOT NULL,
            PRIMARY KEY (doc, block, edition)
        )
        """,
    ),
    (
        2,
        "memory generalized keys: entities (numbers, e-mail addresses, URLs) as typed placeholders",
        """
        ALTER TABLE tm_keys ADD COLUMN generalized TEXT NOT NULL DEFAULT '';
        CREATE INDEX tm_keys_generalized ON tm_keys(locale, generalized)
        """,
    ),
    (
        3,
        "memory trigrams in an FTS5 index (built by SQLite), counted per trigram",
        """
        DROP TABLE tm_grams;
        DROP TABLE tm_gram_counts;
        CREATE TABLE tm_gram_counts (
            gram TEXT PRIMARY KEY,
            count INTEGER NOT NULL
        ) WITHOUT ROWID
        """,
    ),
)

# The trigram index of the keys' plain text (over tm_keys itself, rowid = the key's id,
# filled in bulk as keys are written), and the trigger that takes a key out of it when the
# key goes, with its entry, by any connection.
_TRIGRAM_INDEX = (
    "CREATE VIRTUAL TABLE tm_trigrams USING fts5(plain, tokenize='trigram', detail='none', "
    "content='tm_keys', content_rowid='id', columnsize=0)",
    "CREATE TRIGGER tm_keys_trigrams_out AFTER DELETE ON tm_keys BEGIN "
    "INSERT INTO tm_trigrams(tm_trigrams, rowid, plain) VALUES ('delete', old.id, old.plain); END",
)
_FUZZY_CANDIDATES = 24
_RARE_GRAMS = 8  # trigrams a fuzzy search looks up at least, the rarest first
_POSTINGS = 12_000  # and more of them while the keys they name stay under this many
_RECOUNT = 5_000  # more new keys than this: count every trigram again from the index
_FLUSH = 20_000  # entries written per batch of rows
# Indexes a large import makes again at the end (as their own SQL says), rather than
# keeping them up row by row.
_BULK_INDEXES = ("tm_keys_plain", "tm_keys_structural", "tm_keys_generalized", "tm_variants_text")
_CHUNKS = (64, 128, 256, 512)  # candidate keys read per statement: a few, more if need be


def _normal(text: str) -> str:
    """NFC, each run of whitespace one space, none at the ends."""
    return " ".join((text if text.isascii() else unicodedata.normalize("NFC", text)).split())


def plain_key(text: str) -> str:
    """The ``plain`` key of edit text: codes dropped, NFC, whitespace folded."""
    return _normal(TOKEN.sub("", text))


def structural_key(text: str) -> str:
    """The ``structural`` key: each code a numbered placeholder in order of appearance."""
    numbers: dict[str, int] = {}

    def number(match: re.Match[str]) -> str:
        token = match.group(1)
        bare = token if token.endswith("/") else token.lstrip("/")
        shape = "/{}" if token.startswith("/") else "{}/" if token.endswith("/") else "{}"
        if bare not in numbers:
            numbers[bare] = len(numbers) + 1
        return "{" + shape.format(numbers[bare]) + "}"

    return _normal(TOKEN.sub(number, text))


def memory_keys(text: str) -> tuple[str, str]:
    return plain_key(text), structural_key(text)


# Entities a generalized key types: URLs and e-mail addresses before the numbers inside them.
_NUMBER_PATTERN = r"(?P<NUMBER>(?<![\w])\d+(?:[.,:]\d+)*(?![\w]))"
ENTITY = re.compile(
    r"(?P<URL>(?:https?|ftp)://[^\s<>\"']+)"
    r"|(?P<EMAIL>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)|" + _NUMBER_PATTERN
)
_NUMBER = re.compile(_NUMBER_PATTERN)  # what ENTITY finds in text with no @ and no ://


def entities(text: str) -> list[tuple[str, str]]:
    """The entities in edit text outside its code tokens, in order: ``(type, value)``."""
    out: list[tuple[str, str]] = []
    for piece in TOKEN.split(text)[::2]:
        out.extend((m.lastgroup or "", m.group(0)) for m in ENTITY.finditer(piece))
    return out


def _entities_of(text: str) -> re.Pattern[str]:
    """ENTITY, or only its number part where no address can be (the same matches, faster)."""
    return ENTITY if "@" in text or "://" in text else _NUMBER


def _typed(match: re.Match[str]) -> str:
    return "{" + (match.lastgroup or "") + "}"


def generalized_key(text: str) -> str:
    """The ``generalized`` key: the structural key with each entity a typed placeholder."""
    parts = TOKEN.split(text)  # text, token id, text, token id, …
    out: list[str] = []
    for index, piece in enumerate(parts):
        if index % 2:
            out.append(f'<x id="{piece}"/>')
        else:
            out.append(_entities_of(piece).sub(_typed, piece))
    return structural_key("".join(out))


def all_keys(text: str) -> tuple[str, str, str]:
    """The ``plain``, ``structural`` and ``generalized`` keys of edit text at once."""
    if "<x" not in text:  # no code: the plain key is the structural one
        plain = _normal(text)
        general = _entities_of(text).sub(_typed, text)
        return plain, plain, plain if general == text else _normal(general)
    return plain_key(text), structural_key(text), generalized_key(text)


def trigrams(plain: str) -> set[str]:
    """The distinct trigrams of a plain key, lower-cased as the FTS5 trigram tokenizer folds."""
    folded = plain.lower()
    return {folded[i : i + 3] for i in range(len(folded) - 2)}


def _phrase(gram: str) -> str:
    """A trigram as an FTS5 query string."""
    return '"' + gram.replace('"', '""') + '"'


@frozen
class StoredVariant:
    """One variant of a memory entry as the index holds it."""

    entry: str
    locale: str
    text: str
    plain: str
    structural: str
    target: str = ""
    project: str = ""
    generalized: str = ""


@frozen
class Stamp:
    """What a tool wrote at a target: the source revision it was made from, the revision written."""

    doc: str
    block: str
    edition: str
    basis: str
    rev: str
    kind: str
    tool: str
    at: str


class MemoryIndex:
    """Match keys, trigrams and stamps in ``.kapi/project.db`` (its own migrations).

    Open it after the project store (which creates the memory tables); it keeps
    its own connection, so one write here never waits on a verb's other work.
    """

    def __init__(self, path: Path, *, display: str, project: str = "") -> None:
        self.path = path
        self.display = display
        self.project = project
        try:
            self._db = sqlite3.connect(path, timeout=5.0, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._migrate()
            self.fts = self._trigram_index()
        except sqlite3.Error as err:
            raise self._failure(err) from None

    def close(self) -> None:
        self._db.close()

    def _failure(self, err: sqlite3.Error) -> HostError:
        text = str(err).lower()
        if "locked" in text or "busy" in text:
            return HostError(
                f"{self.display}: the project store is busy; run the command again",
                exit_code=EXIT_GATE,
                code="busy",
            )
        return HostError(
            f"{self.display}: the content memory cannot be used: {err}", exit_code=EXIT_ERROR
        )

    def _migrate(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS memory_migrations "
                "(version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TEXT NOT NULL)"
            )
            applied = {r[0] for r in self._db.execute("SELECT version FROM memory_migrations")}
            for version, description, script in MIGRATIONS:
                if version in applied:
                    continue
                for statement in script.split(";"):
                    if statement.strip():
                        self._db.execute(statement)
                self._db.execute(
                    "INSERT INTO memory_migrations VALUES (?, ?, datetime('now'))",
                    (version, description),
                )
            self._db.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise

    def _trigram_index(self) -> bool:
        """Whether the FTS5 trigram index is there (made, and filled from the keys, when not)."""
        db = self._db
        if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'tm_trigrams'").fetchone():
            return True
        db.execute("BEGIN IMMEDIATE")
        try:
            for statement in _TRIGRAM_INDEX:
                db.execute(statement)
            db.execute("INSERT INTO tm_trigrams(tm_trigrams) VALUES ('rebuild')")
            _recount(db)
            db.execute("COMMIT")
        except sqlite3.OperationalError as err:
            db.execute("ROLLBACK")
            if "fts5" in str(err) or "tokenizer" in str(err):
                return False  # this SQLite has no FTS5 trigrams: fuzzy search reads by length
            raise
        return True

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as err:
            raise self._failure(err) from None
        try:
            yield self._db
        except BaseException as err:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            if isinstance(err, sqlite3.Error):
                raise self._failure(err) from None
            raise
        try:
            self._db.execute("COMMIT")
        except sqlite3.Error as err:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise self._failure(err) from None

    # --- entries ------------------------------------------------------------------------

    def add_entries(
        self,
        entries: Iterable[Sequence[tuple[str, str]]],
        *,
        actor: str,
        origin: str,
        at: str,
        replace_origin: str | None = None,
        made_here: bool = True,
    ) -> int:
        """Add entries (each a list of ``(locale, edit text)`` variants) in one transaction.

        An entry whose variants the memory already holds, same texts in the same
        locales, is not added again. ``replace_origin`` first removes every
        entry of that origin (a rebuild). ``made_here`` says this project made
        them (a fuzzy match of one gets the same-project bonus); an imported
        file's entries were made elsewhere. Rows are written in batches; SQLite
        builds the trigram index, and a large import counts the trigrams from it
        once at the end. Returns how many were added.
        """
        added = 0
        with self._transaction() as db:
            if replace_origin is not None:
                db.execute(
                    "DELETE FROM tm_entries WHERE id IN (SELECT entry_id FROM tm_origins WHERE origin = ?)",
                    (replace_origin,),
                )
            held = {  # the variants the memory holds: most new entries need no look-up
                (locale, text)
                for locale, text in db.execute("SELECT locale, text FROM tm_variants")
            }
            fresh: dict[tuple[str, str], list[dict[str, str]]] = {}  # this import's, by variant
            batch = _Rows(int(db.execute("SELECT coalesce(max(id), 0) FROM tm_keys").fetchone()[0]))
            held_keys = int(db.execute("SELECT count(*) FROM tm_keys").fetchone()[0])
            ids = _EntryIds(db)
            project = self.project if made_here else ""
            rebuilt: list[str] = []
            for variants in entries:
                unique = dict(variants)  # one text per locale: the last given
                if len(unique) < 2:
                    continue
                pairs = list(unique.items())
                first = pairs[0]
                if any(all(e.get(k) == v for k, v in pairs) for e in fresh.get(first, ())) or (
                    first in held and self._holds(db, pairs)
                ):
                    continue
                for pair in pairs:
                    fresh.setdefault(pair, []).append(unique)
                batch.add(ids.next(), at, actor, origin, project, pairs)
                added += 1
                if len(batch.entries) >= _FLUSH:
                    if not rebuilt and held_keys <= 2 * len(batch.key_rows):
                        rebuilt = _drop_indexes(db)  # a large import into a small memory
                    batch.write(db, fts=self.fts)
            batch.write(db, fts=self.fts)
            for statement in rebuilt:
                db.execute(statement)
            if replace_origin is not None or batch.keys > _RECOUNT:
                self._recount(db)
            else:
                self._count(db, batch.plains)
        return added

    def _holds(self, db: sqlite3.Connection, variants: Sequence[tuple[str, str]]) -> bool:
        (first_locale, first_text), *rest = variants
        rows = db.execute(
            "SELECT entry_id FROM tm_variants WHERE locale = ? AND text = ?",
            (first_locale, first_text),
        ).fetchall()
        for (entry,) in rows:
            held = dict(
                db.execute("SELECT locale, text FROM tm_variants WHERE entry_id = ?", (entry,))
            )
            if all(held.get(locale) == text for locale, text in rest):
                return True
        return False

    def _recount(self, db: sqlite3.Connection) -> None:
        if self.fts:
            _recount(db)

    def _count(self, db: sqlite3.Connection, plains: Iterable[str]) -> None:
        """Add the trigrams of a few new keys to the counts."""
        if not self.fts:
            return
        counts: dict[str, int] = {}
        for plain in plains:
            for gram in trigrams(plain):
                counts[gram] = counts.get(gram, 0) + 1
        db.executemany(
            "INSERT INTO tm_gram_counts VALUES (?, ?) "
            "ON CONFLICT(gram) DO UPDATE SET count = count + excluded.count",
            counts.items(),
        )

    def catch_up(self) -> None:
        """Index the variants a ``memory`` op (or an older kapi) stored without keys."""
        rows = self._db.execute(
            "SELECT v.entry_id, v.locale, v.text FROM tm_variants v LEFT JOIN tm_keys k "
            "ON k.entry_id = v.entry_id AND k.locale = v.locale WHERE k.id IS NULL"
        ).fetchall()
        stale = self._db.execute(
            "SELECT count(*) FROM tm_keys k LEFT JOIN tm_entries e ON e.id = k.entry_id "
            "WHERE e.id IS NULL"
        ).fetchone()[0]
        ungeneralized = self._db.execute(
            "SELECT id, text FROM tm_keys WHERE generalized = '' AND text != ''"
        ).fetchall()
        if ungeneralized:  # keys made before the generalized key existed
            with self._transaction() as db:
                db.executemany(
                    "UPDATE tm_keys SET generalized = ? WHERE id = ?",
                    [(generalized_key(text), key_id) for key_id, text in ungeneralized],
                )
        if not rows and not stale:
            return
        with self._transaction() as db:
            if stale:  # entries removed by a connection that did not cascade
                db.execute("DELETE FROM tm_keys WHERE entry_id NOT IN (SELECT id FROM tm_entries)")
            batch = _Rows(int(db.execute("SELECT coalesce(max(id), 0) FROM tm_keys").fetchone()[0]))
            for entry, locale, text in rows:
                batch.key(entry, locale, text)
            batch.write(db, fts=self.fts)
            if stale or batch.keys > _RECOUNT:
                self._recount(db)
            else:
                self._count(db, batch.plains)

    def exact(self, locale: str, column: str, key: str) -> list[StoredVariant]:
        assert column in ("plain", "structural", "generalized")
        rows = self._db.execute(
            f"SELECT entry_id, locale, text, plain, structural FROM tm_keys "
            f"WHERE locale = ? AND {column} = ? ORDER BY entry_id",
            (locale, key),
        ).fetchall()
        return [StoredVariant(*row) for row in rows]

    def fuzzy_candidates(
        self, locale: str, target: str, plain: str, min_score: float, wanted: int = 10
    ) -> list[StoredVariant]:
        """Variants with a ``target`` variant sharing the query's rarest trigrams, most shared first.

        The query's rarest trigrams (eight, and more while the keys they name
        stay few) are looked up in the index; keys
        sharing two of them (one, when none share two) in ``locale``, of a
        length a match at ``min_score`` could have, are read, most shared
        first (then by key). Each trigram's keys come back as one string, counted
        at once, and the candidates are read a few at a time. Each comes with its entry's ``target`` text and the project that
        made it. Without the index, or for a text too short for trigrams, the
        keys nearest in length are read instead.
        """
        low = int(len(plain) * min_score)
        high = int(len(plain) / min_score) + 1 if min_score > 0 else 1 << 30
        limit = max(_FUZZY_CANDIDATES, 4 * wanted)
        grams = sorted(trigrams(plain))
        if not self.fts or not grams:
            return self._by_length(locale, target, len(plain), low, high, limit)
        marks = ",".join("?" * len(grams))
        counts = self._db.execute(
            f"SELECT gram, count FROM tm_gram_counts WHERE gram IN ({marks})", grams
        ).fetchall()
        rare: list[str] = []  # the rarest trigrams, more of them while their postings are few
        postings = 0
        for gram, count in sorted(counts, key=lambda row: (row[1], row[0])):
            if len(rare) >= _RARE_GRAMS and postings + count > _POSTINGS:
                break
            rare.append(gram)
            postings += count
        # Each trigram's keys as one string of ids (no row per key crosses into Python), all
        # counted at once: how many of the rarest trigrams each key shares.
        lists = [self._db.execute(_POSTINGS_OF, (_phrase(gram),)).fetchone()[0] for gram in rare]
        ids = ",".join(filter(None, lists))
        shared = Counter(ids.split(",")) if ids else Counter[str]()
        # Keys sharing two of the rarest trigrams first; one is enough only when none share two.
        for least in (2, 1) if len(rare) > 2 else (1,):
            ranked = sorted((-n, int(key)) for key, n in shared.items() if n >= least)
            found = self._candidates([key for _, key in ranked], locale, target, low, high, limit)
            if found:
                return found
        return []

    def _candidates(
        self, ranked: list[int], locale: str, target: str, low: int, high: int, limit: int
    ) -> list[StoredVariant]:
        """The first ``limit`` of ``ranked`` keys in ``locale`` of a length from ``low`` to
        ``high`` whose entry has a ``target`` variant, in ``ranked``'s order; read a few at a
        time (one prepared statement), as most of the first keys qualify."""
        found: list[StoredVariant] = []
        size = next((s for s in _CHUNKS if s >= limit + limit // 2), _CHUNKS[-1])
        at = 0
        while at < len(ranked) and len(found) < limit:
            chunk = ranked[at : at + size]
            at += size
            padded = (*chunk, *(None,) * (size - len(chunk)))  # NULL matches no key
            rows = {
                row[0]: row
                for row in self._db.execute(
                    _CANDIDATE_CHUNK[size], (self.project, target, *padded, locale, low, high)
                )
            }
            for key in chunk:
                row = rows.get(key)
                if row is not None:
                    found.append(StoredVariant(*row[1:]))
                    if len(found) >= limit:
                        break
            size = min(2 * size, _CHUNKS[-1])
        return found

    def _by_length(
        self, locale: str, target: str, length: int, low: int, high: int, limit: int
    ) -> list[StoredVariant]:
        rows = self._db.execute(
            f"{_CANDIDATE} WHERE k.locale = ? AND k.length BETWEEN ? AND ? "
            "ORDER BY abs(k.length - ?), k.id LIMIT ?",
            (self.project, target, locale, low, high, length, limit),
        )
        return [StoredVariant(*row[1:]) for row in rows]

    def holds_pair(self, source: str, target: str) -> bool:
        """Whether any entry has a variant in both locales (else a search cannot match)."""
        row = self._db.execute(
            "SELECT 1 FROM tm_keys a JOIN tm_variants b ON b.entry_id = a.entry_id "
            "AND b.locale = ? WHERE a.locale = ? LIMIT 1",
            (target, source),
        ).fetchone()
        return row is not None

    def variants(self, entry: str) -> dict[str, str]:
        return dict(
            self._db.execute("SELECT locale, text FROM tm_variants WHERE entry_id = ?", (entry,))
        )

    def origin_project(self, entry: str) -> str:
        row = self._db.execute(
            "SELECT project FROM tm_origins WHERE entry_id = ?", (entry,)
        ).fetchone()
        return self.project if row is None else str(row[0])

    def entries(self, limit: int | None = None) -> list[tuple[str, str, str, dict[str, str]]]:
        """``(entry, created_at, actor, {locale: text})``, oldest first."""
        query = "SELECT id, created_at, actor FROM tm_entries ORDER BY created_at, id"
        if limit is not None:
            query += f" LIMIT {int(limit)}"
        return [(e, at, who, self.variants(e)) for e, at, who in self._db.execute(query).fetchall()]

    def count(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM tm_entries").fetchone()[0])

    # --- stamps -------------------------------------------------------------------------

    def put_stamps(self, stamps: Iterable[Stamp]) -> None:
        with self._transaction() as db:
            db.executemany(
                "INSERT OR REPLACE INTO translation_stamps VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(s.doc, s.block, s.edition, s.basis, s.rev, s.kind, s.tool, s.at) for s in stamps],
            )

    def stamps(self, doc: str | None = None) -> dict[tuple[str, str, str], Stamp]:
        query = "SELECT doc, block, edition, basis, rev, kind, tool, at FROM translation_stamps"
        rows = (
            self._db.execute(query + " WHERE doc = ?", (doc,))
            if doc is not None
            else self._db.execute(query)
        )
        return {(r[0], r[1], r[2]): Stamp(*r) for r in rows}


# A candidate key with its entry's target text and the project that made it (the keys
# read first: CROSS JOIN keeps SQLite from starting at every variant of the target locale).
_CANDIDATE = (
    "SELECT k.id, k.entry_id, k.locale, k.text, k.plain, k.structural, t.text, "
    "coalesce(o.project, ?), k.generalized FROM tm_keys k "
    "CROSS JOIN tm_variants t ON t.entry_id = k.entry_id AND t.locale = ? "
    "LEFT JOIN tm_origins o ON o.entry_id = k.entry_id"
)


_CANDIDATE_CHUNK = {
    size: f"{_CANDIDATE} WHERE k.id IN ({','.join('?' * size)}) "
    "AND +k.locale = ? AND +k.length BETWEEN ? AND ?"
    for size in _CHUNKS
}
# The keys holding one trigram, as a comma-separated string of their ids.
_POSTINGS_OF = "SELECT group_concat(rowid) FROM tm_trigrams WHERE tm_trigrams MATCH ?"


def _drop_indexes(db: sqlite3.Connection) -> list[str]:
    """Drop the indexes a large import makes again; the statements that make them."""
    marks = ",".join("?" * len(_BULK_INDEXES))
    made = [
        sql
        for (sql,) in db.execute(
            f"SELECT sql FROM sqlite_master WHERE type = 'index' AND name IN ({marks}) "
            "AND sql IS NOT NULL",
            _BULK_INDEXES,
        )
    ]
    for name in _BULK_INDEXES:
        db.execute(f"DROP INDEX IF EXISTS {name}")
    return made


def _recount(db: sqlite3.Connection) -> None:
    """Count every trigram again from the index (after a large import or a removal)."""
    db.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.tm_trigram_terms "
        "USING fts5vocab(main, tm_trigrams, 'row')"
    )
    db.execute("DELETE FROM tm_gram_counts")
    db.execute("INSERT INTO tm_gram_counts SELECT term, doc FROM temp.tm_trigram_terms")


class _EntryIds:
    """Entry ids for one import: a prefix no entry has, then a count, so rows go in in order."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.prefix = ""
        self.count = 1 << 20

    def next(self) -> str:
        if self.count >= 1 << 20:
            self.prefix, self.count = self._free_prefix(), 0
        self.count += 1
        return f"{self.prefix}{self.count - 1:05x}"

    def _free_prefix(self) -> str:
        while True:
            prefix = os.urandom(4).hex()[:7]
            taken = self.db.execute(
                "SELECT 1 FROM tm_entries WHERE id >= ? AND id <= ? LIMIT 1",
                (prefix, prefix + "fffff"),
            ).fetchone()
            if taken is None:
                return prefix


class _Rows:
    """Rows of new entries and keys, written in batches (key ids given here, in order)."""

    def __init__(self, last_key: int) -> None:
        self.next_key = last_key + 1
        self.entries: list[tuple[str, str, str]] = []
        self.origins: list[tuple[str, str, str]] = []
        self.variants: list[tuple[str, str, str]] = []
        self.key_rows: list[tuple[int, str, str, str, str, str, int, str]] = []
        self.plains: list[str] = []
        self.keys = 0

    def add(
        self,
        entry: str,
        at: str,
        actor: str,
        origin: str,
        project: str,
        variants: Sequence[tuple[str, str]],
    ) -> None:
        self.entries.append((entry, at, actor))
        self.origins.append((entry, origin, project))
        for locale, text in variants:
            self.variants.append((entry, locale, text))
            self.key(entry, locale, text)

    def key(self, entry: str, locale: str, text: str) -> None:
        plain, structural, general = all_keys(text)
        self.key_rows.append(
            (self.next_key, entry, locale, text, plain, structural, len(plain), general)
        )
        self.next_key += 1
        self.keys += 1
        if self.keys <= _RECOUNT:
            self.plains.append(plain)

    def write(self, db: sqlite3.Connection, *, fts: bool) -> None:
        db.executemany("INSERT INTO tm_entries VALUES (?, ?, ?)", self.entries)
        db.executemany("INSERT INTO tm_origins VALUES (?, ?, ?)", self.origins)
        db.executemany("INSERT INTO tm_variants VALUES (?, ?, ?)", self.variants)
        db.executemany(
            "INSERT INTO tm_keys (id, entry_id, locale, text, plain, structural, length, "
            "generalized) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            self.key_rows,
        )
        if fts and self.key_rows:  # one statement: FTS5 builds its index far faster in bulk
            db.execute(
                "INSERT INTO tm_trigrams(rowid, plain) SELECT id, plain FROM tm_keys "
                "WHERE id BETWEEN ? AND ?",
                (self.key_rows[0][0], self.key_rows[-1][0]),
            )
        for rows in (self.entries, self.origins, self.variants, self.key_rows):
            rows.clear()
