"""Statuses folded from the log: replay the ops in id order, settle, then mark disagreements.

Nothing here is stored: a record's status, its rivals (``contested_by``) and
its standing are computed each time the log is read, so ops are never
rewritten. Resets set ops aside first (newest reset first, so a reset inside
a later reset's range does nothing); then people's decisions are replayed;
then settling weighs the evidence about each rule (:mod:`kapi.core.context.settle`);
then rules that disagree at points that meet are contested (spec §3c).
"""

from __future__ import annotations

import gc
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from attrs import evolve, field, frozen

from kapi.core.context.ids import is_op_id
from kapi.core.context.record import OpKind, Record, Scope, Status, TermRule
from kapi.core.context.settle import (
    Member,
    RuleKey,
    Settlement,
    Standing,
    meet_points,
    settle,
)

__all__ = [
    "Entry",
    "Fold",
    "Settlement",
    "Standing",
    "StoreRule",
    "disagree",
    "fold",
    "in_force_outside",
    "meet",
    "order_key",
    "rival_name",
    "rivals_text",
]

_SUBJECT_KINDS = frozenset({OpKind.OBSERVE, OpKind.CORRECT, OpKind.IMPORT, OpKind.EDIT})
_IN_FORCE_AT_ONCE = frozenset({OpKind.IMPORT, OpKind.EDIT})
_EVIDENCE = frozenset({OpKind.CORRECT, OpKind.SIGNAL, OpKind.WITHDRAW, OpKind.DROP})
_MEMBERS = frozenset({OpKind.OBSERVE, OpKind.CORRECT})
# members looked up once (an enum's member is a lookup each time it is named)
_RESET, _ESTABLISHED, _SUGGESTED = Status.RESET, Status.ESTABLISHED, Status.SUGGESTED
_CONTESTED = Status.CONTESTED
_KIND_RESET, _KIND_CORRECT, _KIND_KEEP = OpKind.RESET, OpKind.CORRECT, OpKind.KEEP
_KIND_ESTABLISH, _KIND_DROP, _KIND_WITHDRAW = OpKind.ESTABLISH, OpKind.DROP, OpKind.WITHDRAW


def _first(pair: tuple[str, Record]) -> str:
    return pair[0]


@frozen
class StoreRule:
    """A rule already in force outside the log: the terms store's (``source`` ``terms``,
    ``key`` the concept id) or a voice's (``source`` ``voice``, ``key`` the voice and the
    word it prefers, ``shop-ui/cart``), at the point where it holds. A rule that only
    prefers a wording (no ``term``) takes part too: a suggestion to avoid that wording
    disagrees with it. ``ref`` is how ``contested_by`` names it. A ``local`` rule holds only
    at its point (a voice's, where the voice is bound), so it contests only a rule that holds
    there; any other holds wherever its point meets the rule's."""

    key: str
    rule: TermRule
    coordinates: Mapping[str, str] = field(factory=dict)
    source: str = "terms"
    local: bool = False

    @property
    def ref(self) -> str:
        return f"{self.source}:{self.key}"


_NO_SCOPE = Scope()
_NO_STANDING = Standing()


class Entry(NamedTuple):
    """An op that states a rule or a fact, with what the log makes of it now.

    ``rule`` and ``scope`` are as decided (a keep's ``--use``, a widen);
    ``decided_by`` is the op that last set the status; ``drift`` says an established
    rule's rejected uses grew since it was established.
    """

    record: Record
    status: Status
    rule: TermRule | None = None
    scope: Scope = _NO_SCOPE
    contested_by: tuple[str, ...] = ()
    standing: Standing = _NO_STANDING
    decided_by: str = ""
    drift: bool = False

    @property
    def id(self) -> str:
        return self.record.id

    @property
    def advising(self) -> bool:
        return self.status in (Status.SUGGESTED, Status.CONTESTED)


@frozen
class Fold:
    """The log read: every entry in id order, the ops a reset set aside, and all records.

    ``settling`` lists the suggestions the evidence settles as established that no
    ``establish`` op records yet: the host appends one for each. ``heads`` maps each
    op that states a rule to the oldest op of the rules it is grouped with (signals
    about the group name that one).
    """

    entries: tuple[Entry, ...] = ()
    reset: frozenset[str] = frozenset()
    records: tuple[Record, ...] = ()
    index: Mapping[str, Entry] = field(factory=dict)
    settling: tuple[Settlement, ...] = ()
    heads: Mapping[str, str] = field(factory=dict)

    def group(self, op_id: str) -> list[Entry]:
        """The entries stated with ``op_id``'s rule (itself included), oldest first."""
        head = self.heads.get(op_id)
        if head is None:
            found = self.index.get(op_id)
            return [found] if found is not None else []
        return [e for e in self.entries if self.heads.get(e.id) == head]

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


def in_force_outside(ref: str) -> bool:
    """Whether one of ``contested_by`` is a rule in force outside the log (the terms store's
    or a voice's), not an op: a person changes it where it is written, not by a choice."""
    return ref.partition(":")[0] in ("terms", "voice")


def rival_name(ref: str) -> str:
    """How a person reads one of ``contested_by``: ``#0n79tw5k9s`` for an op, the voice and
    the word its rule says for a voice's rule, the concept for the terms store's."""
    source, _, key = ref.partition(":")
    if source == "voice" and key:
        voice, _, said = key.partition("/")
        return f'the voice {voice} (say "{said}")' if said else f"the voice {voice}"
    if source == "terms" and key:
        return f"the terms store's concept {key}"
    return "#" + ref[:10]


def rivals_text(refs: Iterable[str]) -> str:
    """``contested_by`` as one phrase: ``#0n79tw5k9s, the voice shop-ui (say "cart")``."""
    return ", ".join(rival_name(r) for r in refs)


def order_key(record: Record) -> str:
    """Ids sort by time; an op recorded before ids were sortable sorts by its time stamp."""
    return record.id if is_op_id(record.id) else "~" + record.at + record.id


def meet(a: Mapping[str, str], b: Mapping[str, str]) -> bool:
    """Two points meet when every axis both name has the same value."""
    return all(a[axis] == b[axis] for axis in a.keys() & b.keys())


def disagree(a: TermRule, b: TermRule) -> bool:
    """A shared avoided form with different replacements, or one avoids the other's replacement.

    A rule that names no replacement (only "avoid this") names none to differ from.
    """
    ra, rb = a.replacement.casefold(), b.replacement.casefold()
    fa = {f.casefold() for f in a.avoided if f} - {ra}  # a case variant is the same word
    fb = {f.casefold() for f in b.avoided if f} - {rb}
    return (
        bool(fa & fb and ra and rb and ra != rb)
        or (bool(rb) and rb in fa)
        or (bool(ra) and ra in fb)
    )


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
    """The statuses of every op that states a rule or fact, with rivals and standing.

    The cycle collector is held while the log is replayed: the fold builds tens of
    thousands of small acyclic objects, which it would otherwise walk again and again.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _fold(records, established)
    finally:
        if enabled:
            gc.enable()


def _fold(records: Iterable[Record], established: Sequence[StoreRule]) -> Fold:
    keyed = sorted([(order_key(r), r) for r in records], key=_first)
    ordered = [r for _, r in keyed]
    resets = any(r.kind == _KIND_RESET for r in ordered)
    aside = _set_aside(ordered, [k for k, _ in keyed]) if resets else frozenset()
    states: dict[str, _State] = {}
    evidence: list[tuple[str, Record]] = []
    for key, record in keyed:
        kind = record.kind
        if kind in _SUBJECT_KINDS:
            if record.subject is None:
                continue
            status = _ESTABLISHED if kind in _IN_FORCE_AT_ONCE else _SUGGESTED
            if aside and record.id in aside:
                status = _RESET
            states[record.id] = _State(record, key, status, record.rule, record.scope)
            if kind == _KIND_CORRECT and status != _RESET:
                evidence.append((key, record))
            continue
        if aside and record.id in aside:
            continue
        if kind in _EVIDENCE:
            evidence.append((key, record))
        state = states.get(record.target)
        if state is None or state.status == _RESET:
            continue
        if kind in (_KIND_KEEP, _KIND_ESTABLISH):
            rule = state.rule
            if rule is not None:
                if record.replacement:
                    rule = evolve(rule, replacement=record.replacement)
                if record.advisory is not None:
                    rule = evolve(rule, advisory=record.advisory)
                state.rule = rule
            state.status, state.kept = _ESTABLISHED, key
        elif kind == _KIND_DROP:
            state.status = Status.DROPPED
        elif kind == _KIND_WITHDRAW:
            if state.status == _ESTABLISHED:
                continue  # withdrawn too late (two logs merged): a rule stays until dropped
            state.status = Status.WITHDRAWN
        elif kind == OpKind.WIDEN:
            state.scope = _widened(state.scope, record.widen_to or "project")
            continue
        else:
            continue
        state.decided_by, state.decided = record.id, key
    members = []
    words: dict[tuple[object, ...], RuleKey] = {}  # many ops state one rule: compared once
    for st in states.values():
        rule = st.rule
        if rule is not None and rule.term and st.status != _RESET:
            coordinates = st.scope.coordinates
            said = (rule.replacement, rule.term, rule.forms, *coordinates.items())
            found = words.get(said)
            if found is None:
                found = words[said] = RuleKey.of(rule, coordinates)
            st.words = found
            if st.record.kind in _MEMBERS:
                members.append(Member(st.record, st.status, st.words, st.decided, st.key))
    settled = settle(members, evidence)
    for op_id in settled.established:
        states[op_id].status = Status.ESTABLISHED
    for op_id in settled.contested:
        states[op_id].status = Status.CONTESTED
    rivals = _contest(states, established, frozenset(settled.established))
    empty = Standing()
    standing, drift, against_all = settled.standing, settled.drift, settled.contested
    entries: dict[str, Entry] = {}
    settling: list[Settlement] = []
    for op_id, st in states.items():
        named = rivals.get(op_id)
        against = against_all.get(op_id)
        status = st.status
        contested_by: tuple[str, ...] = ()
        if named or against:
            status = _CONTESTED
            rivals_named = sorted(named or ())
            contested_by = (
                *rivals_named,
                *(a for a in against or () if a not in rivals_named),
            )
        elif op_id in settled.established:
            settling.append(Settlement(op_id, settled.established[op_id]))
        entries[op_id] = Entry(
            st.record,
            status,
            st.rule,
            st.scope,
            contested_by,
            standing.get(op_id, empty),
            st.decided_by,
            op_id in drift,
        )
    return Fold(
        entries=tuple(entries.values()),
        reset=aside,
        records=tuple(ordered),
        index=entries,
        settling=tuple(settling),
        heads=settled.heads,
    )


class _State:
    """An entry's state while the log is replayed."""

    __slots__ = (
        "decided",
        "decided_by",
        "kept",
        "key",
        "record",
        "rule",
        "scope",
        "status",
        "words",
    )

    def __init__(
        self, record: Record, key: str, status: Status, rule: TermRule | None, scope: Scope
    ) -> None:
        self.record = record
        self.key = key
        self.status = status
        self.rule = rule
        self.scope = scope
        self.decided_by = ""
        self.decided = ""
        self.kept = key if status == Status.ESTABLISHED else ""
        self.words: RuleKey | None = None

    @property
    def id(self) -> str:
        return self.record.id


def _disagree(a: RuleKey, b: RuleKey) -> bool:
    ra, rb = a.replacement, b.replacement
    return (
        bool(a.forms & b.forms and ra and rb and ra != rb)
        or (bool(rb) and rb in a.forms)
        or (bool(ra) and ra in b.forms)
    )


def _holds(rule: tuple[tuple[str, str], ...], point: tuple[tuple[str, str], ...]) -> bool:
    """Whether a rule seen at ``rule`` holds at ``point``: the point names every axis it does."""
    at = dict(point)
    return all(at.get(axis) == value for axis, value in rule)


def _contest(
    entries: Mapping[str, _State], store: Sequence[StoreRule], settled: frozenset[str]
) -> dict[str, set[str]]:
    """Mark rivals. Entries stating the same rule at the same point are compared once.

    A suggestion (or a rule just settled) is contested by every rule it disagrees
    with at a point that meets; a rule in force only by a person's correction that
    reverses it after it was kept, or by a voice's rule where that voice is bound (the
    voice's rule stays: two rules that say opposite things never both bind). The rules
    in force outside the log take part only where they share a wording with an entry.
    """
    live = [
        e
        for e in entries.values()
        if e.rule is not None
        and e.rule.term
        and e.status in (Status.SUGGESTED, Status.ESTABLISHED, Status.CONTESTED)
    ]
    members: dict[RuleKey, list[str]] = defaultdict(list)
    for e in live:
        assert e.words is not None
        members[e.words].append(e.id)
    in_force = {
        key
        for key, ids in members.items()
        if any(entries[i].status == Status.ESTABLISHED for i in ids)
    }
    forced: dict[str, list[frozenset[str]]] = defaultdict(list)
    for key in in_force:
        forced[key.replacement].append(key.forms)
    words = {form for key in members for form in key.forms} | {
        key.replacement for key in members if key.replacement
    }
    local: set[str] = set()
    for s in store:  # the rules in force that share a wording and no entry in force states
        rule = s.rule
        if not (rule.term or rule.replacement) or not (
            rule.replacement.casefold() in words
            or any(f.casefold() in words for f in rule.avoided if f)
        ):
            continue
        key = RuleKey.of(rule, s.coordinates)
        if not any(forms & key.forms for forms in forced.get(key.replacement, ())):
            members[key].append(s.ref)
            if s.local:
                local.add(s.ref)
    by_form: dict[str, set[RuleKey]] = defaultdict(set)
    by_replacement: dict[str, set[RuleKey]] = defaultdict(set)
    for key in members:
        for form in key.forms:
            by_form[form].add(key)
        if key.replacement:
            by_replacement[key.replacement].add(key)
    rivals: dict[str, set[str]] = defaultdict(set)
    for key, ids in members.items():
        candidates: set[RuleKey] = set(by_form.get(key.replacement, ()))
        for form in key.forms:
            candidates.update(by_form[form])
            candidates.update(by_replacement.get(form, ()))
        candidates.discard(key)
        for other in candidates:
            if not _disagree(key, other) or not meet_points(key.point, other.point):
                continue
            for op_id in ids:
                if op_id not in entries:  # a rule in force outside the log
                    continue
                entry = entries[op_id]
                advising = entry.status != Status.ESTABLISHED or op_id in settled
                for other_id in members[other]:
                    if other_id in local and not _holds(key.point, other.point):
                        continue  # the rule in force holds only at its own point
                    if advising:
                        rivals[op_id].add(other_id)
                        continue
                    if other_id not in entries:
                        if other_id in local:  # kept against a voice's rule, which stays
                            rivals[op_id].add(other_id)
                        continue
                    reversing = entries[other_id]
                    if (
                        reversing.status != Status.ESTABLISHED
                        and reversing.record.kind == OpKind.CORRECT
                        and reversing.record.actor.kind == "person"
                        and reversing.key > entry.kept
                    ):
                        rivals[op_id].add(other_id)
    return rivals
