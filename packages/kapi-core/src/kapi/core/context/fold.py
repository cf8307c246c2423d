"""Statuses folded from the log: replay the ops in id order, then mark disagreements.

Nothing here is stored: a record's status, its rivals (``contested_by``) and
its standing are computed each time the log is read, so ops are never
rewritten. Resets set ops aside first (newest reset first, so a reset inside
a later reset's range does nothing); then people's decisions are replayed;
then rules that disagree at points that meet are contested (spec §3c).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

from attrs import evolve, field, frozen

from kapi.core.change.ports import ActorKind
from kapi.core.context.ids import is_op_id
from kapi.core.context.record import OpKind, Record, Scope, Status, TermRule

__all__ = ["Entry", "Fold", "Standing", "StoreRule", "disagree", "fold", "meet", "order_key"]

_SUBJECT_KINDS = frozenset({OpKind.OBSERVE, OpKind.CORRECT, OpKind.IMPORT, OpKind.EDIT})
_IN_FORCE_AT_ONCE = frozenset({OpKind.IMPORT, OpKind.EDIT})


@frozen
class Standing:
    """How much stands behind a suggestion: parties that saw it, corrections toward it, against."""

    sessions: int = 0
    corrections: int = 0
    against: int = 0

    def text(self) -> str:
        parts = []
        if self.sessions:
            parts.append(f"seen in {self.sessions} session{'s' if self.sessions != 1 else ''}")
        if self.corrections:
            plural = "s" if self.corrections != 1 else ""
            parts.append(f"{self.corrections} correction{plural}")
        if self.against:
            parts.append(f"{self.against} against")
        return " · ".join(parts)


@frozen
class StoreRule:
    """A rule already in force from the terms store (``key`` names it, e.g. the concept id)."""

    key: str
    rule: TermRule
    coordinates: Mapping[str, str] = field(factory=dict)


@frozen
class Entry:
    """An op that states a rule or a fact, with what the log makes of it now.

    ``rule`` and ``scope`` are as decided (a keep's ``--use``, a widen);
    ``decided_by`` is the op that last set the status.
    """

    record: Record
    status: Status
    rule: TermRule | None = None
    scope: Scope = field(factory=Scope)
    contested_by: tuple[str, ...] = ()
    standing: Standing = field(factory=Standing)
    decided_by: str = ""

    @property
    def id(self) -> str:
        return self.record.id

    @property
    def advising(self) -> bool:
        return self.status in (Status.SUGGESTED, Status.CONTESTED)


@frozen
class Fold:
    """The log read: every entry in id order, the ops a reset set aside, and all records."""

    entries: tuple[Entry, ...] = ()
    reset: frozenset[str] = frozenset()
    records: tuple[Record, ...] = ()
    index: Mapping[str, Entry] = field(factory=dict)

    def entry(self, op_id: str) -> Entry | None:
        return self.index.get(op_id)

    def with_status(self, *statuses: Status) -> list[Entry]:
        return [e for e in self.entries if e.status in statuses]

    @property
    def advising(self) -> list[Entry]:
        return self.with_status(Status.SUGGESTED, Status.CONTESTED)

    @property
    def established(self) -> list[Entry]:
        return self.with_status(Status.ESTABLISHED)


def order_key(record: Record) -> str:
    """Ids sort by time; an op recorded before ids were sortable sorts by its time stamp."""
    return record.id if is_op_id(record.id) else "~" + record.at + record.id


def meet(a: Mapping[str, str], b: Mapping[str, str]) -> bool:
    """Two points meet when every axis both name has the same value."""
    return all(a[axis] == b[axis] for axis in a.keys() & b.keys())


def disagree(a: TermRule, b: TermRule) -> bool:
    """A shared avoided form with different replacements, or one avoids the other's replacement."""
    fa = {f.casefold() for f in a.avoided if f}
    fb = {f.casefold() for f in b.avoided if f}
    ra, rb = a.replacement.casefold(), b.replacement.casefold()
    return bool(fa & fb and ra != rb) or (bool(rb) and rb in fa) or (bool(ra) and ra in fb)


def _same(a: TermRule, b: TermRule) -> bool:
    fa = {f.casefold() for f in a.avoided if f}
    return a.replacement.casefold() == b.replacement.casefold() and any(
        f.casefold() in fa for f in b.avoided if f
    )


def _set_aside(records: Sequence[Record]) -> frozenset[str]:
    keys = [order_key(r) for r in records]
    at = {r.id: k for r, k in zip(records, keys)}
    aside: set[str] = set()
    for index in range(len(records) - 1, -1, -1):
        record = records[index]
        if record.kind != OpKind.RESET or record.id in aside:
            continue
        start = at.get(record.before, record.before)
        end = keys[index]
        aside.update(r.id for r, k in zip(records, keys) if start <= k < end)
    return frozenset(aside)


def _widened(scope: Scope, to: str) -> Scope:
    if to == "project":
        return Scope(level="project", coordinates={}, all_profiles=True)
    coordinates = {k: v for k, v in scope.coordinates.items() if k != to}
    return evolve(
        scope, coordinates=coordinates, all_profiles=scope.all_profiles or to == "product"
    )


def fold(records: Iterable[Record], established: Sequence[StoreRule] = ()) -> Fold:
    """The statuses of every op that states a rule or fact, with rivals and standing."""
    ordered = sorted(records, key=order_key)
    aside = _set_aside(ordered)
    states: dict[str, dict[str, object]] = {}
    for record in ordered:
        if record.kind in _SUBJECT_KINDS:
            if record.subject is None:
                continue
            status = Status.ESTABLISHED if record.kind in _IN_FORCE_AT_ONCE else Status.SUGGESTED
            states[record.id] = {
                "record": record,
                "status": Status.RESET if record.id in aside else status,
                "rule": record.rule,
                "scope": record.scope,
                "decided_by": "",
                "kept": record.id if status == Status.ESTABLISHED else "",
            }
            continue
        if record.id in aside:
            continue
        state = states.get(record.target)
        if state is None or state["status"] == Status.RESET:
            continue
        if record.kind in (OpKind.KEEP, OpKind.ESTABLISH):
            rule = state["rule"]
            if isinstance(rule, TermRule):
                if record.replacement:
                    rule = evolve(rule, replacement=record.replacement)
                if record.advisory is not None:
                    rule = evolve(rule, advisory=record.advisory)
                state["rule"] = rule
            state["status"], state["kept"] = Status.ESTABLISHED, record.id
        elif record.kind == OpKind.DROP:
            state["status"] = Status.DROPPED
        elif record.kind == OpKind.WITHDRAW:
            state["status"] = Status.WITHDRAWN
        elif record.kind == OpKind.WIDEN:
            scope = state["scope"]
            assert isinstance(scope, Scope)
            state["scope"] = _widened(scope, record.widen_to or "project")
            continue
        else:
            continue
        state["decided_by"] = record.id
    entries = {
        op_id: Entry(
            record=s["record"],  # type: ignore[arg-type]
            status=s["status"],  # type: ignore[arg-type]
            rule=s["rule"],  # type: ignore[arg-type]
            scope=s["scope"],  # type: ignore[arg-type]
            decided_by=str(s["decided_by"]),
        )
        for op_id, s in states.items()
    }
    kept = {op_id: str(s["kept"]) for op_id, s in states.items()}
    _contest(entries, kept, established)
    _stand(entries)
    return Fold(entries=tuple(entries.values()), reset=aside, records=tuple(ordered), index=entries)


def _contest(
    entries: dict[str, Entry], kept: Mapping[str, str], store: Sequence[StoreRule]
) -> None:
    live = [
        e
        for e in entries.values()
        if e.rule is not None and e.rule.term and e.status in (Status.SUGGESTED, Status.ESTABLISHED)
    ]
    in_force = [e for e in live if e.status == Status.ESTABLISHED]
    # rules in the store that no established entry already states
    outside = [
        s
        for s in store
        if s.rule.term and not any(_same(s.rule, e.rule) for e in in_force if e.rule is not None)
    ]
    by_form: dict[str, list[str]] = defaultdict(list)
    by_replacement: dict[str, list[str]] = defaultdict(list)
    rules: dict[str, tuple[TermRule, Mapping[str, str], Status]] = {}
    for e in live:
        assert e.rule is not None
        rules[e.id] = (e.rule, e.scope.coordinates, e.status)
    for s in outside:
        rules["terms:" + s.key] = (s.rule, s.coordinates, Status.ESTABLISHED)
    for key, (rule, _, _) in rules.items():
        for form in {f.casefold() for f in rule.avoided if f}:
            by_form[form].append(key)
        if rule.replacement:
            by_replacement[rule.replacement.casefold()].append(key)
    rivals: dict[str, set[str]] = defaultdict(set)
    for e in live:
        rule, coordinates, status = rules[e.id]
        candidates: set[str] = set()
        for form in {f.casefold() for f in rule.avoided if f}:
            candidates.update(by_form.get(form, ()))
            candidates.update(by_replacement.get(form, ()))
        candidates.update(by_form.get(rule.replacement.casefold(), ()))
        candidates.discard(e.id)
        for other in candidates:
            other_rule, other_coordinates, other_status = rules[other]
            if not disagree(rule, other_rule) or not meet(coordinates, other_coordinates):
                continue
            if status == Status.SUGGESTED:
                rivals[e.id].add(other)
            elif other_status == Status.SUGGESTED:
                reversing = entries[other].record
                if (
                    reversing.kind == OpKind.CORRECT
                    and reversing.actor.kind == ActorKind.PERSON
                    and order_key(reversing) > kept.get(e.id, "")
                ):
                    rivals[e.id].add(other)
    for op_id, named in rivals.items():
        entries[op_id] = evolve(
            entries[op_id], status=Status.CONTESTED, contested_by=tuple(sorted(named))
        )


def _stand(entries: dict[str, Entry]) -> None:
    counted = [
        e
        for e in entries.values()
        if e.rule is not None and e.rule.term and e.status != Status.RESET
    ]
    by_replacement: dict[str, list[Entry]] = defaultdict(list)
    avoiding: dict[str, list[Entry]] = defaultdict(list)
    for e in counted:
        assert e.rule is not None
        by_replacement[e.rule.replacement.casefold()].append(e)
        for form in {f.casefold() for f in e.rule.avoided if f}:
            avoiding[form].append(e)
    for e in counted:
        assert e.rule is not None
        group = [
            g
            for g in by_replacement[e.rule.replacement.casefold()]
            if g.rule and _same(e.rule, g.rule)
        ]
        sessions = {g.record.session_key for g in group if g.record.kind == OpKind.OBSERVE}
        corrections = sum(1 for g in group if g.record.kind == OpKind.CORRECT)
        against = sum(1 for g in group if g.status == Status.WITHDRAWN)
        against += sum(
            1
            for a in avoiding.get(e.rule.replacement.casefold(), ())
            if a.record.kind == OpKind.CORRECT
        )
        entries[e.id] = evolve(
            entries[e.id],
            standing=Standing(sessions=len(sessions), corrections=corrections, against=against),
        )
