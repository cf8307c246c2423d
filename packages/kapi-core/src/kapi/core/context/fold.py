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
from typing import NamedTuple

from attrs import evolve, field, frozen

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
    ra, rb = a.replacement.casefold(), b.replacement.casefold()
    fa = {f.casefold() for f in a.avoided if f} - {ra}  # a case variant is the same word
    fb = {f.casefold() for f in b.avoided if f} - {rb}
    return bool(fa & fb and ra != rb) or (bool(rb) and rb in fa) or (bool(ra) and ra in fb)


def _set_aside(records: Sequence[Record], keys: Sequence[str]) -> frozenset[str]:
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
    keyed = sorted(((order_key(r), r) for r in records), key=lambda pair: pair[0])
    ordered = [r for _, r in keyed]
    resets = any(r.kind == OpKind.RESET for r in ordered)
    aside = _set_aside(ordered, [k for k, _ in keyed]) if resets else frozenset()
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
    states_now = {
        op_id: _Live(
            st["record"],  # type: ignore[arg-type]
            st["status"],  # type: ignore[arg-type]
            st["rule"],  # type: ignore[arg-type]
            st["scope"],  # type: ignore[arg-type]
        )
        for op_id, st in states.items()
    }
    kept = {op_id: str(st["kept"]) for op_id, st in states.items()}
    rivals = _contest(states_now, kept, established)
    standing = _stand(states_now)
    empty = Standing()
    entries: dict[str, Entry] = {}
    for op_id, live in states_now.items():
        named = rivals.get(op_id)
        entries[op_id] = Entry(
            record=live.record,
            status=Status.CONTESTED if named else live.status,
            rule=live.rule,
            scope=live.scope,
            contested_by=tuple(sorted(named)) if named else (),
            standing=standing.get(op_id, empty),
            decided_by=str(states[op_id]["decided_by"]),
        )
    return Fold(entries=tuple(entries.values()), reset=aside, records=tuple(ordered), index=entries)


class _Live(NamedTuple):
    """An entry's state before rivals and standing are known."""

    record: Record
    status: Status
    rule: TermRule | None
    scope: Scope

    @property
    def id(self) -> str:
        return self.record.id


class _Rule(NamedTuple):
    """A rule as compared: case-folded avoided forms and replacement, and where it holds."""

    forms: frozenset[str]
    replacement: str
    coordinates: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, rule: TermRule, coordinates: Mapping[str, str]) -> _Rule:
        replacement = rule.replacement.casefold()
        forms = [rule.term, *rule.forms]
        return cls(
            frozenset(f.casefold() for f in forms if f) - {replacement},  # case variants: one word
            replacement,
            tuple(sorted(coordinates.items())) if coordinates else (),
        )

    def disagrees(self, other: _Rule) -> bool:
        ra, rb = self.replacement, other.replacement
        return (
            bool(self.forms & other.forms and ra != rb)
            or (bool(rb) and rb in self.forms)
            or (bool(ra) and ra in other.forms)
        )

    def meets(self, other: _Rule) -> bool:
        return meet(dict(self.coordinates), dict(other.coordinates))


def _contest(
    entries: Mapping[str, _Live], kept: Mapping[str, str], store: Sequence[StoreRule]
) -> dict[str, set[str]]:
    """Mark rivals. Entries stating the same rule at the same point are compared once."""
    live = [
        e
        for e in entries.values()
        if e.rule is not None and e.rule.term and e.status in (Status.SUGGESTED, Status.ESTABLISHED)
    ]
    members: dict[_Rule, list[str]] = defaultdict(list)
    for e in live:
        assert e.rule is not None
        members[_Rule.of(e.rule, e.scope.coordinates)].append(e.id)
    in_force = {
        key
        for key, ids in members.items()
        if any(entries[i].status == Status.ESTABLISHED for i in ids)
    }
    forced: dict[str, list[frozenset[str]]] = defaultdict(list)
    for key in in_force:
        forced[key.replacement].append(key.forms)
    for s in store:  # the store's rules no established entry already states
        if not s.rule.term:
            continue
        key = _Rule.of(s.rule, s.coordinates)
        if not any(forms & key.forms for forms in forced.get(key.replacement, ())):
            members[key].append("terms:" + s.key)
    by_form: dict[str, set[_Rule]] = defaultdict(set)
    by_replacement: dict[str, set[_Rule]] = defaultdict(set)
    for key in members:
        for form in key.forms:
            by_form[form].add(key)
        if key.replacement:
            by_replacement[key.replacement].add(key)
    rivals: dict[str, set[str]] = defaultdict(set)
    for key, ids in members.items():
        candidates: set[_Rule] = set(by_form.get(key.replacement, ()))
        for form in key.forms:
            candidates.update(by_form[form])
            candidates.update(by_replacement.get(form, ()))
        candidates.discard(key)
        for other in candidates:
            if not key.disagrees(other) or not key.meets(other):
                continue
            for op_id in ids:
                if op_id.startswith("terms:"):
                    continue
                entry = entries[op_id]
                for other_id in members[other]:
                    other_status = (
                        Status.ESTABLISHED
                        if other_id.startswith("terms:")
                        else entries[other_id].status
                    )
                    if entry.status == Status.SUGGESTED:
                        rivals[op_id].add(other_id)
                    elif other_status == Status.SUGGESTED:
                        reversing = entries[other_id].record
                        if (
                            reversing.kind == OpKind.CORRECT
                            and reversing.actor.kind == "person"
                            and order_key(reversing) > kept.get(op_id, "")
                        ):
                            rivals[op_id].add(other_id)
    return rivals


def _stand(entries: Mapping[str, _Live]) -> dict[str, Standing]:
    """Standing per rule: the parties that saw it, corrections toward it, what stands against."""
    members: dict[_Rule, list[_Live]] = defaultdict(list)
    for e in entries.values():
        if e.rule is not None and e.rule.term and e.status != Status.RESET:
            members[_Rule.of(e.rule, {})].append(e)  # standing counts every point
    by_replacement: dict[str, list[_Rule]] = defaultdict(list)
    corrections_avoiding: dict[str, int] = defaultdict(int)
    for key, group in members.items():
        by_replacement[key.replacement].append(key)
        count = sum(1 for g in group if g.record.kind == OpKind.CORRECT)
        for form in key.forms:
            corrections_avoiding[form] += count
    out: dict[str, Standing] = {}
    for key, group in members.items():
        same = [k for k in by_replacement[key.replacement] if k.forms & key.forms]
        everyone = [g for k in same for g in members[k]]
        standing = Standing(
            sessions=len(
                {g.record.session_key for g in everyone if g.record.kind == OpKind.OBSERVE}
            ),
            corrections=sum(1 for g in everyone if g.record.kind == OpKind.CORRECT),
            against=sum(1 for g in everyone if g.status == Status.WITHDRAWN)
            + corrections_avoiding.get(key.replacement, 0),
        )
        for e in group:
            out[e.id] = standing
    return out
