"""The project store: one SQLite file in ``.kapi/`` holding what is not a file.

Terms, content memory, the context operation log, review decisions, change
records and agent presence. WAL mode, foreign keys, a busy timeout so several
processes can read and write at once, and versioned migrations recorded in
``schema_migrations``, applied inside one write transaction so two first runs
never create the same table twice. Files stay the truth for content; terms a
person edits can be exported to a bundle and imported again.
"""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kapi.core.edition import EditionKey, EditionKeyError
from kapi.core.governance.terms import TERM_STATUSES, Concept, TermStatus, concept_id_for
from kapi.core.governance.terms import Term as StoreTerm
from kapi.host.errors import EXIT_ERROR, EXIT_GATE, HostError
from kapi.host.state import STATE_DIR, make_state_dir

if TYPE_CHECKING:  # the change service's values: a check reads terms without loading them
    from kapi.core.change.ops import ChangeSet, Decide, Memory, Recipe, Term
    from kapi.core.change.ports import Actor
    from kapi.core.change.result import Result
    from kapi.host.store_port import StorePort

__all__ = ["AGENT_SESSION_RETENTION", "BUSY_WAIT_SECONDS", "MIGRATIONS", "ProjectStore", "now"]

AGENT_SESSION_RETENTION = timedelta(days=7)

_SQL_CHUNK = 500  # values bound in one IN (...): well under SQLite's limit

BUSY_WAIT_SECONDS = 5.0
"""How long a run waits for another process's hold on the store before it stops (exit 3)."""

MIGRATIONS: tuple[tuple[int, str, str], ...] = (
    (
        1,
        "terms, memory, context log, decisions, records, presence",
        """
        CREATE TABLE tb_concepts (
            id TEXT PRIMARY KEY,
            payload TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        CREATE TABLE tb_terms (
            concept_id TEXT NOT NULL REFERENCES tb_concepts(id) ON DELETE CASCADE,
            text TEXT NOT NULL,
            text_lower TEXT NOT NULL,
            locale TEXT NOT NULL,
            status TEXT NOT NULL
        );
        CREATE INDEX tb_terms_text ON tb_terms(text_lower);
        CREATE TABLE tm_entries (
            id TEXT PRIMARY KEY,
            created_at TEXT NOT NULL,
            actor TEXT NOT NULL
        );
        CREATE TABLE tm_variants (
            entry_id TEXT NOT NULL REFERENCES tm_entries(id) ON DELETE CASCADE,
            locale TEXT NOT NULL,
            text TEXT NOT NULL,
            PRIMARY KEY (entry_id, locale)
        );
        CREATE INDEX tm_variants_text ON tm_variants(locale, text);
        CREATE TABLE context_ops (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,
            kind TEXT NOT NULL,
            actor_kind TEXT NOT NULL,
            actor_name TEXT NOT NULL,
            session TEXT NOT NULL,
            payload TEXT NOT NULL,
            at TEXT NOT NULL
        );
        CREATE TABLE decisions (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            doc TEXT NOT NULL,
            block TEXT NOT NULL,
            edition TEXT NOT NULL,
            rev TEXT NOT NULL,
            outcome TEXT NOT NULL,
            score INTEGER,
            reasons TEXT NOT NULL,
            actor_kind TEXT NOT NULL,
            actor_name TEXT NOT NULL,
            session TEXT NOT NULL,
            at TEXT NOT NULL
        );
        CREATE INDEX decisions_key ON decisions(doc, block, edition);
        CREATE TABLE change_records (
            id TEXT PRIMARY KEY,
            note TEXT NOT NULL,
            status TEXT NOT NULL,
            actor_kind TEXT NOT NULL,
            actor_name TEXT NOT NULL,
            session TEXT NOT NULL,
            payload TEXT NOT NULL,
            at TEXT NOT NULL
        );
        CREATE TABLE agent_sessions (
            id TEXT NOT NULL,
            project TEXT NOT NULL,
            agent TEXT NOT NULL,
            started_at TEXT NOT NULL,
            last_seen TEXT NOT NULL,
            PRIMARY KEY (id, project)
        );
        CREATE INDEX agent_sessions_seen ON agent_sessions(last_seen);
        """,
    ),
    (
        2,
        "voice profiles a person imported",
        """
        CREATE TABLE voice_profiles (
            id TEXT PRIMARY KEY,
            yaml TEXT NOT NULL,
            source TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        """,
    ),
    (
        3,
        "context operations carry a content address; two logs holding it hold one op",
        """
        ALTER TABLE context_ops ADD COLUMN address TEXT NOT NULL DEFAULT '';
        CREATE INDEX context_ops_address ON context_ops(address);
        """,
    ),
)


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _random_id(digits: int) -> str:
    return uuid.uuid4().hex[:digits]


class ProjectStore:
    """The SQLite store of one project (``.kapi/project.db``).

    ``clock`` gives the time stamps it writes and ``mint`` the ids (``mint(n)``:
    ``n`` hex digits); both are injected so tests and other stores agree.
    ``display`` names the file in errors (the path relative to the project);
    every failure to open, create or write it is a :class:`HostError`, never a
    traceback: exit 3 (code ``busy``) when another process held it for longer
    than :data:`BUSY_WAIT_SECONDS`, exit 1 for anything else (a full disk, an
    unwritable ``.kapi/``, a damaged file).
    """

    def __init__(
        self,
        path: Path,
        *,
        project: str = "",
        source_language: str = "en",
        display: str | None = None,
        clock: Callable[[], str] = now,
        mint: Callable[[int], str] | None = None,
    ) -> None:
        self.path = path
        self._clock = clock
        self._mint = mint or _random_id
        self.project = project
        self.source_language = source_language
        self.display = display or str(path)
        try:
            if path.parent.name == STATE_DIR:
                make_state_dir(path.parent)  # with its .gitignore, when this store creates it
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            folder = Path(self.display).parent.as_posix()
            reason = (
                f"{folder} is a file, not a folder; move it away"
                if path.parent.exists() and not path.parent.is_dir()
                else f"{err.strerror or err}; {_hint(self.display)}"
            )
            raise HostError(
                f"{self.display}: the project store cannot be created: {reason}",
                exit_code=EXIT_ERROR,
            ) from None
        self._db = self._open()

    def close(self) -> None:
        self._db.close()

    # --- schema ---------------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        """Connect, switch to WAL and migrate, retrying while another process holds the file."""
        deadline = time.monotonic() + BUSY_WAIT_SECONDS
        pause = 0.01
        while True:
            left = max(deadline - time.monotonic(), 0.05)
            db: sqlite3.Connection | None = None
            try:
                db = sqlite3.connect(
                    self.path, timeout=left, isolation_level=None, check_same_thread=False
                )
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA foreign_keys=ON")
                _migrate(db)
                db.execute(f"PRAGMA busy_timeout={int(BUSY_WAIT_SECONDS * 1000)}")
                return db
            except sqlite3.Error as err:
                if db is not None:
                    db.close()
                if not _busy(err):
                    raise self._failure("opened", err) from None
                if time.monotonic() >= deadline:
                    raise self._busy_error() from None
            # jittered backoff: two waiting runs should not retry in step
            import random

            time.sleep(pause * (0.5 + random.random()))
            pause = min(pause * 2, 0.2)

    def _failure(self, doing: str, err: sqlite3.Error) -> HostError:
        reason = str(err)
        if getattr(err, "sqlite_errorcode", 0) & 0xFF in _DISK_ERRORS:
            reason = f"{reason}; {_hint(self.display)}"
        return HostError(
            f"{self.display}: the project store cannot be {doing}: {reason}",
            exit_code=EXIT_ERROR,
        )

    def _busy_error(self) -> HostError:
        return HostError(
            f"{self.display}: the project store is busy: another kapi run held it for more "
            f"than {BUSY_WAIT_SECONDS:g} seconds; run the command again",
            exit_code=EXIT_GATE,
            code="busy",
        )

    def schema_version(self) -> int:
        row = self._db.execute("SELECT MAX(version) FROM schema_migrations").fetchone()
        return int(row[0] or 0)

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (taken at once, so readers never deadlock on an upgrade)."""
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as err:
            raise self._busy_error() if _busy(err) else self._failure("written", err) from None
        try:
            yield self._db
        except BaseException as err:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            if isinstance(err, sqlite3.Error):
                raise self._busy_error() if _busy(err) else self._failure("written", err) from None
            raise
        try:
            self._db.execute("COMMIT")
        except sqlite3.Error as err:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise self._busy_error() if _busy(err) else self._failure("written", err) from None

    # --- terms ----------------------------------------------------------------------

    def concepts(self) -> list[Concept]:
        # one JSON text for every row: the parser runs once instead of once a concept
        joined = self._db.execute(
            "SELECT '[' || group_concat(payload, ',') || ']' "
            "FROM (SELECT payload FROM tb_concepts ORDER BY id)"
        ).fetchone()[0]
        return self._decoded(json.loads(joined) if joined else [])

    def _decoded(self, rows: list[Any]) -> list[Concept]:
        if not rows:
            return []
        from kapi.core.governance.terms import decode_stored_concepts, decode_terms_bundle

        try:  # rows were checked when they were written; check again only to name a fault
            return decode_stored_concepts(rows)
        except Exception:
            pass
        bundle = decode_terms_bundle(
            {"schemaVersion": "1.0", "kind": "kapi-terms", "concepts": rows}, "store"
        )
        return list(bundle.concepts)

    def _concepts_by_id(self, ids: Sequence[str]) -> list[Concept]:
        rows: list[Any] = []
        wanted = sorted(set(ids))
        for at in range(0, len(wanted), _SQL_CHUNK):
            chunk = wanted[at : at + _SQL_CHUNK]
            marks = ",".join("?" * len(chunk))
            rows += [
                json.loads(r[0])
                for r in self._db.execute(
                    f"SELECT payload FROM tb_concepts WHERE id IN ({marks}) ORDER BY id", chunk
                )
            ]
        rows.sort(key=lambda row: str(row.get("id", "")) if isinstance(row, dict) else "")
        return self._decoded(rows)

    def concepts_naming(self, texts: Iterable[str]) -> list[Concept]:
        """The concepts with a term spelled as one of ``texts`` (case ignored), by id."""
        lowered = sorted({t.lower() for t in texts if t})
        ids: set[str] = set()
        for at in range(0, len(lowered), _SQL_CHUNK):
            chunk = lowered[at : at + _SQL_CHUNK]
            marks = ",".join("?" * len(chunk))
            ids.update(
                r[0]
                for r in self._db.execute(
                    f"SELECT DISTINCT concept_id FROM tb_terms WHERE text_lower IN ({marks})",
                    chunk,
                )
            )
        return self._concepts_by_id(sorted(ids))

    def concepts_with_properties(self) -> list[Concept]:
        """The concepts that carry properties (a kept rule's scope and origin among them)."""
        ids = [
            r[0]
            for r in self._db.execute(
                "SELECT id FROM tb_concepts WHERE payload LIKE '%\"properties\"%'"
            )
        ]
        return [c for c in self._concepts_by_id(ids) if c.properties]

    def terms_digest(self) -> str:
        """A digest of everything the terms store holds: equal digests, equal terms."""
        import hashlib

        joined = self._db.execute(
            "SELECT group_concat(id || char(31) || payload, char(30)) "
            "FROM (SELECT id, payload FROM tb_concepts ORDER BY id)"
        ).fetchone()[0]
        return hashlib.sha256((joined or "").encode("utf-8", "surrogatepass")).hexdigest()

    def put_concepts(self, concepts: Sequence[Concept]) -> None:
        from kapi.core.governance.terms import TermsBundle, encode_terms_bundle

        encoded = encode_terms_bundle(TermsBundle(concepts=tuple(concepts)))["concepts"]
        with self._transaction() as db:
            for concept, payload in zip(concepts, encoded):
                db.execute("DELETE FROM tb_concepts WHERE id = ?", (concept.id,))
                db.execute(
                    "INSERT INTO tb_concepts VALUES (?, ?, ?)",
                    (concept.id, json.dumps(payload, ensure_ascii=False), self._clock()),
                )
                for term in concept.terms:
                    db.execute(
                        "INSERT INTO tb_terms VALUES (?, ?, ?, ?, ?)",
                        (concept.id, term.text, term.text.lower(), term.locale, term.status),
                    )

    def delete_concepts(self, ids: Sequence[str]) -> int:
        with self._transaction() as db:
            return sum(
                db.execute("DELETE FROM tb_concepts WHERE id = ?", (i,)).rowcount for i in ids
            )

    def lookup_terms(self, text: str) -> list[Concept]:
        return self.concepts_naming([text])

    def upsert_term(self, op: Term, actor: Actor) -> None:
        """A ``term`` op: the concept named by locale and term, created or updated."""
        from attrs import evolve

        locale = op.locale or self.source_language
        existing = self.lookup_terms(op.term)
        concept = next(
            (c for c in existing if any(t.locale == locale and t.text == op.term for t in c.terms)),
            None,
        )
        if op.action == "delete":
            if concept is None:
                raise LookupError(f"no term {op.term!r} ({locale}) in the store")
            terms = tuple(
                t for t in concept.terms if not (t.text == op.term and t.locale == locale)
            )
            if terms:
                self.put_concepts([evolve(concept, terms=terms, updated_at=self._clock())])
            else:
                self.delete_concepts([concept.id])
            return
        if concept is None:
            concept = Concept(
                id=concept_id_for(locale, op.term), source="terminology", created_at=self._clock()
            )
        kept: list[StoreTerm] = [
            t for t in concept.terms if not (t.text == op.term and t.locale == locale)
        ]
        previous = next(
            (t for t in concept.terms if t.text == op.term and t.locale == locale), None
        )
        status = op.status or (previous.status if previous else TermStatus.PREFERRED)
        kept.insert(
            0,
            StoreTerm(
                text=op.term,
                locale=locale,
                status=status,
                competitor_term=bool(op.competitor)
                if op.competitor is not None
                else bool(previous and previous.competitor_term),
                note=previous.note if previous else "",
            ),
        )
        if op.replacement:
            kept = [t for t in kept if t.text != op.replacement]
            kept.append(StoreTerm(text=op.replacement, locale=locale, status=TermStatus.PREFERRED))
        if op.replaces:
            kept = [t for t in kept if t.text != op.replaces]
            kept.append(
                StoreTerm(
                    text=op.replaces,
                    locale=locale,
                    status=TermStatus.DEPRECATED,
                    note=f"use: {op.term}",
                )
            )
        properties = dict(concept.properties)
        if op.advisory is not None:
            properties["advisory"] = "true" if op.advisory else "false"
        concept = evolve(
            concept,
            terms=tuple(kept),
            do_not_translate=concept.do_not_translate
            if op.do_not_translate is None
            else op.do_not_translate,
            properties=properties,
            updated_at=self._clock(),
        )
        self.put_concepts([concept])
        self.log_context(
            "edit",
            actor,
            {"subject": {"kind": "term", "term": op.term, "locale": locale, "status": status}},
        )

    # --- voice profiles -------------------------------------------------------------

    def voice_profile(self, name: str) -> str | None:
        row = self._db.execute("SELECT yaml FROM voice_profiles WHERE id = ?", (name,)).fetchone()
        return None if row is None else str(row[0])

    def put_voice_profile(self, name: str, text: str, source: str) -> None:
        with self._transaction() as db:
            db.execute(
                "INSERT INTO voice_profiles VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET "
                "yaml = excluded.yaml, source = excluded.source, updated_at = excluded.updated_at",
                (name, text, source, self._clock()),
            )

    def voice_profiles(self) -> list[dict[str, str]]:
        rows = self._db.execute("SELECT id, source, updated_at FROM voice_profiles ORDER BY id")
        return [{"id": r[0], "source": r[1], "updated_at": r[2]} for r in rows]

    # --- memory ---------------------------------------------------------------------

    def memory_add(self, source: tuple[str, str], target: tuple[str, str], actor: Actor) -> str:
        entry = self._mint(12)
        with self._transaction() as db:
            db.execute(
                "INSERT INTO tm_entries VALUES (?, ?, ?)",
                (entry, self._clock(), f"{actor.kind}/{actor.name}"),
            )
            for locale, text in (source, target):
                db.execute("INSERT INTO tm_variants VALUES (?, ?, ?)", (entry, locale, text))
        return entry

    def memory_delete(self, source: tuple[str, str], target: tuple[str, str]) -> int:
        with self._transaction() as db:
            rows = db.execute(
                "SELECT a.entry_id FROM tm_variants a JOIN tm_variants b ON a.entry_id = b.entry_id "
                "WHERE a.locale = ? AND a.text = ? AND b.locale = ? AND b.text = ?",
                (*source, *target),
            ).fetchall()
            for (entry,) in rows:
                db.execute("DELETE FROM tm_entries WHERE id = ?", (entry,))
        return len(rows)

    def memory_search(self, text: str, limit: int = 10) -> list[tuple[str, str, str]]:
        """Memory variants holding ``text`` (case ignored): ``(entry, locale, text)``, shortest first."""
        pattern = "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        rows = self._db.execute(
            "SELECT entry_id, locale, text FROM tm_variants WHERE text LIKE ? ESCAPE '\\' "
            "ORDER BY length(text), text LIMIT ?",
            (pattern, limit),
        )
        return [(r[0], r[1], r[2]) for r in rows]

    def memory_lookup(self, locale: str, text: str, target_locale: str) -> list[str]:
        rows = self._db.execute(
            "SELECT b.text FROM tm_variants a JOIN tm_variants b ON a.entry_id = b.entry_id "
            "WHERE a.locale = ? AND a.text = ? AND b.locale = ? ORDER BY b.text",
            (locale, text, target_locale),
        )
        return [r[0] for r in rows]

    # --- context log, decisions, records, presence ----------------------------------

    def log_context(self, kind: str, actor: Actor, payload: dict[str, Any]) -> str:
        op_id = "op_" + self._mint(16)
        with self._transaction() as db:
            db.execute(
                "INSERT INTO context_ops (id, kind, actor_kind, actor_name, session, payload, at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    op_id,
                    f"context.{kind}",
                    actor.kind,
                    actor.name,
                    actor.session,
                    json.dumps(payload, ensure_ascii=False),
                    self._clock(),
                ),
            )
        return op_id

    def context_log(self) -> list[dict[str, Any]]:
        # one JSON text for every payload (the parser runs once, not once an op), read in
        # one snapshot with the rows it belongs to
        own = not self._db.in_transaction
        if own:
            self._db.execute("BEGIN")
        try:
            rows = self._db.execute(
                "SELECT id, kind, actor_kind, actor_name, session, at FROM context_ops ORDER BY seq"
            ).fetchall()
            joined = self._db.execute(
                "SELECT '[' || group_concat(payload, ',') || ']' "
                "FROM (SELECT payload FROM context_ops ORDER BY seq)"
            ).fetchone()[0]
        finally:
            if own:
                self._db.execute("COMMIT")
        payloads = json.loads(joined) if joined else []
        return [
            {
                "id": r[0],
                "kind": r[1],
                "actor": {"kind": r[2], "name": r[3], "session": r[4]},
                **payload,
                "at": r[5],
            }
            for r, payload in zip(rows, payloads, strict=True)
        ]

    def append_context_ops(self, ops: Sequence[dict[str, Any]]) -> int:
        """Append encoded context records the log does not hold (by id or content address).

        The log is append-only: a known op is skipped, never rewritten. Returns
        how many were added.
        """
        added = 0
        with self._transaction() as db:
            for op in ops:
                address = str(op.get("address", ""))
                known = db.execute(
                    "SELECT 1 FROM context_ops WHERE id = ? OR (? != '' AND address = ?)",
                    (op["id"], address, address),
                ).fetchone()
                if known is not None:
                    continue
                actor = op.get("actor") or {}
                payload = {k: v for k, v in op.items() if k not in ("id", "kind", "actor", "at")}
                db.execute(
                    "INSERT INTO context_ops (id, kind, actor_kind, actor_name, session, payload, "
                    "at, address) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        op["id"],
                        "context." + str(op["kind"]).removeprefix("context."),
                        str(actor.get("kind", "")),
                        str(actor.get("name", "")),
                        str(actor.get("session", "")),
                        json.dumps(payload, ensure_ascii=False),
                        str(op.get("at") or self._clock()),
                        address,
                    ),
                )
                added += 1
        return added

    def record_decision(self, op: Decide, actor: Actor, rev: str) -> None:
        with self._transaction() as db:
            db.execute(
                "INSERT INTO decisions (doc, block, edition, rev, outcome, score, reasons, actor_kind, "
                "actor_name, session, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    op.at.doc,
                    op.at.block,
                    op.at.edition or "",
                    rev,
                    op.outcome,
                    op.score,
                    json.dumps(list(op.reasons or ())),
                    actor.kind,
                    actor.name,
                    actor.session,
                    self._clock(),
                ),
            )

    def decisions(self, doc: str, block: str, edition: str = "") -> list[dict[str, Any]]:
        rows = self._db.execute(
            "SELECT rev, outcome, score, reasons, actor_kind, actor_name, at FROM decisions "
            "WHERE doc = ? AND block = ? AND edition = ? ORDER BY seq",
            (doc, block, edition),
        )
        return [
            {
                "rev": r[0],
                "outcome": r[1],
                "score": r[2],
                "reasons": json.loads(r[3]),
                "actor": {"kind": r[4], "name": r[5]},
                "at": r[6],
            }
            for r in rows
        ]

    def record_change(
        self, change_set: ChangeSet, result: Result, actor: Actor, payload: dict[str, Any]
    ) -> str:
        record = "chg_" + self._mint(16)
        with self._transaction() as db:
            db.execute(
                "INSERT INTO change_records VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    record,
                    change_set.note or "",
                    result.status,
                    actor.kind,
                    actor.name,
                    actor.session,
                    json.dumps(payload, ensure_ascii=False),
                    self._clock(),
                ),
            )
        return record

    def change_records(self) -> list[dict[str, Any]]:
        rows = self._db.execute(
            "SELECT id, note, status, actor_kind, payload FROM change_records ORDER BY at, id"
        )
        return [
            {"id": r[0], "note": r[1], "status": r[2], "actor": r[3], "payload": json.loads(r[4])}
            for r in rows
        ]

    def touch_session(self, session: str, agent: str, at: datetime | None = None) -> None:
        """Record an agent session as present; prune sessions unseen for seven days."""
        moment = at or datetime.now(UTC)
        stamp = moment.isoformat(timespec="seconds")
        cutoff = (moment - AGENT_SESSION_RETENTION).isoformat(timespec="seconds")
        with self._transaction() as db:
            db.execute(
                "INSERT INTO agent_sessions VALUES (?, ?, ?, ?, ?) ON CONFLICT(id, project) DO UPDATE SET "
                "last_seen = excluded.last_seen, agent = CASE WHEN excluded.agent != '' THEN excluded.agent ELSE agent END",
                (session, self.project, agent, stamp, stamp),
            )
            db.execute("DELETE FROM agent_sessions WHERE last_seen < ?", (cutoff,))

    def sessions(self) -> list[dict[str, str]]:
        rows = self._db.execute(
            "SELECT id, agent, started_at, last_seen FROM agent_sessions WHERE project = ? ORDER BY last_seen DESC",
            (self.project,),
        )
        return [{"id": r[0], "agent": r[1], "started_at": r[2], "last_seen": r[3]} for r in rows]


def _migrate(db: sqlite3.Connection) -> None:
    """Apply the migrations not yet recorded, all inside one write transaction.

    The applied versions are read again once the write lock is held: a process
    that created the store a moment earlier is seen, and nothing runs twice.
    """
    if _applied(db) >= {version for version, _, _ in MIGRATIONS}:
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations "
            "(version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TEXT NOT NULL)"
        )
        applied = _applied(db)
        for version, description, script in MIGRATIONS:
            if version in applied:
                continue
            for statement in script.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute(
                "INSERT INTO schema_migrations VALUES (?, ?, ?)", (version, description, now())
            )
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


def _applied(db: sqlite3.Connection) -> set[int]:
    known = db.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
    ).fetchone()
    if known is None:
        return set()
    return {row[0] for row in db.execute("SELECT version FROM schema_migrations")}


def _busy(err: sqlite3.Error) -> bool:
    """Whether SQLite gave up waiting for another connection (locked or busy)."""
    code = getattr(err, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    text = str(err).lower()
    return "locked" in text or "busy" in text


# SQLITE_PERM, SQLITE_READONLY, SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN
_DISK_ERRORS = frozenset({3, 8, 10, 13, 14})


def _hint(display: str) -> str:
    return f"check that {Path(display).parent.as_posix()}/ can be written and the disk has room"


def _edition(value: str) -> str:
    try:
        return EditionKey.parse(value).text
    except EditionKeyError as err:
        raise ValueError(str(err)) from None


class StoreAssets:
    """The change service's asset sink: decisions, terms, memory and recipe edits, after content."""

    def __init__(self, store: StorePort, recipe_path: Path | None) -> None:
        self.store = store
        self.recipe_path = recipe_path

    def validate(self, op: Decide | Term | Memory | Recipe, actor: Actor) -> str | None:
        from kapi.core.change.ops import Recipe, Term

        if isinstance(op, Term) and op.status and op.status not in TERM_STATUSES:
            return f"status {op.status!r} is not preferred, admitted, deprecated or forbidden"
        if isinstance(op, Recipe):
            from kapi.host.recipe_edit import check_recipe_edit

            if self.recipe_path is None:
                return "recipe ops need a project (kapi init)"
            return check_recipe_edit(op.path, op.value)
        return None

    def apply(self, op: Decide | Term | Memory | Recipe, actor: Actor, rev: str | None) -> None:
        from kapi.core.change.ops import Decide, Memory, Term

        if isinstance(op, Decide):
            self.store.record_decision(op, actor, rev or op.if_match)
        elif isinstance(op, Term):
            self.store.upsert_term(op, actor)
        elif isinstance(op, Memory):
            source = (_edition(op.from_.edition), op.from_.text)
            target = (_edition(op.to.edition), op.to.text)
            if op.action == "add":
                self.store.memory_add(source, target, actor)
            else:
                self.store.memory_delete(source, target)
        else:
            from kapi.host.recipe_edit import edit_recipe

            assert self.recipe_path is not None
            edit_recipe(self.recipe_path, op.path, op.value)
            self.store.log_context("edit", actor, {"subject": {"kind": "recipe", "path": op.path}})


class StoreRecorder:
    """Keeps each landed change set in ``change_records``."""

    def __init__(self, store: StorePort) -> None:
        self.store = store

    def record(self, change_set: ChangeSet, result: Result, actor: Actor) -> str | None:
        from kapi.core.change.wire import encode_change_set

        return self.store.record_change(
            change_set, result, actor, {"set": encode_change_set(change_set)}
        )
