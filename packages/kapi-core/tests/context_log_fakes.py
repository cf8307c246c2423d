"""An in-memory context log for the core's tests: records appended one millisecond apart."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from kapi.core.context.fold import Entry, fold
from kapi.core.context.forms import avoided_forms
from kapi.core.context.ids import mint_id
from kapi.core.context.record import (
    Author,
    Correction,
    Evidence,
    OpKind,
    Record,
    Scope,
    Signal,
    Status,
    Subject,
)

AGENT_A = Author("agent", "claude-code", "s-one")
AGENT_B = Author("agent", "claude-code", "s-two")
AGENT_C = Author("agent", "codex", "s-three")
PERSON = Author("person", "ana@example.com")
TOOL = Author("tool", "check")
_SIGNALLERS = {"merge": Author("tool", "sync"), "usage": Author("tool", "check")}


class MemoryLog:
    """Records appended with ids minted one millisecond apart, and what their fold says."""

    def __init__(self) -> None:
        self.records: list[Record] = []
        self.clock = datetime(2026, 3, 1, tzinfo=UTC)

    def add(self, kind: OpKind, actor: object, **fields: object) -> Record:
        self.clock += timedelta(milliseconds=1)
        newest = self.records[-1].id if self.records else ""
        record = Record(
            id=mint_id(self.clock, len(self.records) * 7919, newest),
            kind=kind,
            actor=actor,  # type: ignore[arg-type]
            **fields,  # type: ignore[arg-type]
        )
        self.records.append(record)
        return record

    def rule(
        self, actor: object, say: str, *avoid: str, path: str = "docs/a.md", coordinates=None
    ) -> Record:
        """An observation of a term rule, seen in ``path`` (none: only quoted)."""
        return self.add(
            OpKind.OBSERVE,
            actor,
            subject=Subject(kind="term", term=avoided_forms(say, avoid)),
            evidence=(Evidence(path=path) if path else Evidence(quote=say),),
            scope=Scope(coordinates=coordinates or {}),
        )

    def change(self, actor: object, old: str, new: str, *, suggest: bool = False) -> Record:
        """A person's change recorded, with the rule it implies when ``suggest``."""
        subject = (
            Subject(kind="term", term=avoided_forms(new, [old]))
            if suggest
            else Subject(kind="note", text=f'"{old}" became "{new}"')
        )
        return self.add(
            OpKind.CORRECT,
            actor,
            correction=Correction(from_=old, to=new),
            suggest=suggest,
            subject=subject,
            evidence=(Evidence(path="docs/b.md"),),
        )

    def signal(self, target: Record, source: str, **counts: object) -> Record:
        actor = _SIGNALLERS.get(source, Author("tool", "apply", "s-one"))
        return self.add(
            OpKind.SIGNAL,
            actor,
            target=target.id,
            signal=Signal(source=source, **counts),  # type: ignore[arg-type]
        )

    def entry(self, record: Record) -> Entry:
        found = fold(self.records).entry(record.id)
        assert found is not None
        return found

    def status(self, record: Record, **kw: object) -> Status:
        found = fold(self.records, **kw).entry(record.id)  # type: ignore[arg-type]
        assert found is not None
        return found.status
