"""The content memory's index and the translation stamps, beside the project store.

Memory entries live in the store's ``tm_entries``/``tm_variants`` (where a
``memory`` op puts them); this subsystem keeps, in the same SQLite file and
under its own migration table, each variant's match keys, a trigram table that
narrows a fuzzy search to a few candidates, and the stamp of every target a
tool wrote (the source revision it was made from and the revision it wrote),
so a stale target and a person's edit can be told apart later.
"""

from __future__ import annotations

import re
import sqlite3
import unicodedata
import uuid
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
)

_SPACES = re.compile(r"\s+")
_FUZZY_CANDIDATES = 24
_RARE_GRAMS = 8
_GRAM_FLUSH = 400_000


def _normal(text: str) -> str:
    return _SPACES.sub(" ", unicodedata.normalize("NFC", text)).strip()


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
ENTITY = re.compile(
    r"(?P<URL>(?:https?|ftp)://[^\s<>\"']+)"
    r"|(?P<EMAIL>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)"
    r"|(?P<NUMBER>(?<![\w])\d+(?:[.,:]\d+)*(?![\w]))"
)


def entities(text: str) -> list[tuple[str, str]]:
    """The entities in edit text outside its code tokens, in order: ``(type, value)``."""
    out: list[tuple[str, str]] = []
    for piece in TOKEN.split(text)[::2]:
        out.extend((m.lastgroup or "", m.group(0)) for m in ENTITY.finditer(piece))
    return out


def generalized_key(text: str) -> str:
    """The ``generalized`` key: the structural key with each entity a typed placeholder."""
    parts = TOKEN.split(text)  # text, token id, text, token id, …
    out: list[str] = []
    for index, piece in enumerate(parts):
        if index % 2:
            out.append(f'<x id="{piece}"/>')
        else:
            out.append(ENTITY.sub(lambda m: "{" + (m.lastgroup or "") + "}", piece))
    return structural_key("".join(out))


def trigrams(plain: str) -> set[str]:
    """The distinct trigrams of a plain key, case folded, padded so short texts have some."""
    folded = f" {plain.casefold()} "
    return {folded[i : i + 3] for i in range(max(len(folded) - 2, 1))}


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
    ) -> int:
        """Add entries (each a list of ``(locale, edit text)`` variants) in one transaction.

        An entry whose variants the memory already holds, same texts in the same
        locales, is not added again. ``replace_origin`` first removes every
        entry of that origin (a rebuild). Returns how many were added.
        """
        added = 0
        counts: dict[tuple[str, str], int] = {}
        grams: list[tuple[str, str, int]] = []
        with self._transaction() as db:
            if replace_origin is not None:
                db.execute(
                    "DELETE FROM tm_entries WHERE id IN (SELECT entry_id FROM tm_origins WHERE origin = ?)",
                    (replace_origin,),
                )
                self._recount(db)
            held = {  # the first variants the memory holds: most new entries need no look-up
                (locale, text)
                for locale, text in db.execute("SELECT locale, text FROM tm_variants")
            }
            for variants in entries:
                if len(variants) < 2:
                    continue
                if variants[0] in held and self._holds(db, variants):
                    continue
                held.update(variants)
                entry = uuid.uuid4().hex[:12]
                db.execute("INSERT INTO tm_entries VALUES (?, ?, ?)", (entry, at, actor))
                db.execute("INSERT INTO tm_origins VALUES (?, ?, ?)", (entry, origin, self.project))
                for locale, text in variants:
                    db.execute(
                        "INSERT OR REPLACE INTO tm_variants VALUES (?, ?, ?)", (entry, locale, text)
                    )
                    self._index(db, entry, locale, text, counts, grams)
                added += 1
            self._flush_grams(db, grams)
            self._count(db, counts)
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

    def _index(
        self,
        db: sqlite3.Connection,
        entry: str,
        locale: str,
        text: str,
        counts: dict[tuple[str, str], int],
        grams_out: list[tuple[str, str, int]],
    ) -> None:
        """Keys of one variant; its trigram rows go to ``grams_out``, their counts to ``counts``."""
        plain, structural = memory_keys(text)
        cursor = db.execute(
            "INSERT OR REPLACE INTO tm_keys "
            "(entry_id, locale, text, plain, structural, length, generalized) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (entry, locale, text, plain, structural, len(plain), generalized_key(text)),
        )
        key_id = int(cursor.lastrowid or 0)
        for gram in trigrams(plain):
            grams_out.append((gram, locale, key_id))
            counts[(gram, locale)] = counts.get((gram, locale), 0) + 1
        if len(grams_out) >= _GRAM_FLUSH:
            self._flush_grams(db, grams_out)

    @staticmethod
    def _flush_grams(db: sqlite3.Connection, rows: list[tuple[str, str, int]]) -> None:
        """Write trigram rows in key order, so the index grows in runs rather than at random."""
        rows.sort()
        db.executemany("INSERT OR IGNORE INTO tm_grams VALUES (?, ?, ?)", rows)
        rows.clear()

    @staticmethod
    def _count(db: sqlite3.Connection, counts: dict[tuple[str, str], int]) -> None:
        db.executemany(
            "INSERT INTO tm_gram_counts VALUES (?, ?, ?) "
            "ON CONFLICT(gram, locale) DO UPDATE SET count = count + excluded.count",
            [(gram, locale, count) for (gram, locale), count in counts.items()],
        )

    def _recount(self, db: sqlite3.Connection) -> None:
        """Drop the index rows of removed entries and count the trigrams again."""
        db.execute("DELETE FROM tm_grams WHERE key_id NOT IN (SELECT id FROM tm_keys)")
        db.execute("DELETE FROM tm_gram_counts")
        db.execute(
            "INSERT INTO tm_gram_counts SELECT gram, locale, count(*) FROM tm_grams GROUP BY gram, locale"
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
            if stale:
                db.execute("DELETE FROM tm_keys WHERE entry_id NOT IN (SELECT id FROM tm_entries)")
                self._recount(db)
            counts: dict[tuple[str, str], int] = {}
            grams: list[tuple[str, str, int]] = []
            for entry, locale, text in rows:
                self._index(db, entry, locale, text, counts, grams)
            self._flush_grams(db, grams)
            self._count(db, counts)

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

        Only variants whose length a match at ``min_score`` could have are read;
        each comes with its entry's ``target`` text and the project that made it.
        """
        grams = sorted(trigrams(plain))
        if not grams:
            return []
        marks = ",".join("?" * len(grams))
        counts = self._db.execute(
            f"SELECT gram, count FROM tm_gram_counts WHERE locale = ? AND gram IN ({marks})",
            (locale, *grams),
        ).fetchall()
        rare = [gram for gram, _ in sorted(counts, key=lambda row: (row[1], row[0]))[:_RARE_GRAMS]]
        if not rare:
            return []
        low = int(len(plain) * min_score)
        high = int(len(plain) / min_score) + 1 if min_score > 0 else 1 << 30
        marks = ",".join("?" * len(rare))
        # Entries sharing two of the rarest trigrams first; one is enough only when none share two.
        for least in (2, 1) if len(rare) > 2 else (1,):
            rows = self._db.execute(
                f"SELECT k.entry_id, k.locale, k.text, k.plain, k.structural, t.text, "
                f"coalesce(o.project, ?) FROM "
                f"(SELECT g.key_id AS key_id, g.shared AS shared FROM "
                f"(SELECT key_id, count(*) AS shared FROM tm_grams WHERE locale = ? "
                f"AND gram IN ({marks}) GROUP BY key_id HAVING count(*) >= ?) g "
                f"JOIN tm_keys n ON n.id = g.key_id WHERE n.length BETWEEN ? AND ? "
                f"ORDER BY g.shared DESC, g.key_id LIMIT ?) c "
                f"JOIN tm_keys k ON k.id = c.key_id "
                f"JOIN tm_variants t ON t.entry_id = k.entry_id AND t.locale = ? "
                f"LEFT JOIN tm_origins o ON o.entry_id = k.entry_id "
                f"ORDER BY c.shared DESC, k.id",
                (
                    self.project,
                    locale,
                    *rare,
                    least,
                    low,
                    high,
                    max(_FUZZY_CANDIDATES, 4 * wanted),
                    target,
                ),
            ).fetchall()
            if rows:
                break
        return [StoredVariant(*row) for row in rows]

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
