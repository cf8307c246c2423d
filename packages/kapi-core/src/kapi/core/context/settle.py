"""Settling and standing: suggestions that state one rule, the evidence behind them, the outcome.

Suggestions that state the same rule (the same replacement, a shared avoided
form, at points that meet) form a group. The evidence about a group is read
from the log:

* a correction toward the rule (a person's, or an agent recording a person's
  change) and a ``merge`` signal (a person merged text that moved toward it)
  are *person signals*;
* another session's observation, a ``usage`` count and an ``applied`` signal
  add to the standing only;
* a correction away from the rule, a withdrawal, and a later usage count with
  more rejected uses than the one before stand *against* it.

A person signal with nothing against settles a suggestion as established; with
something against it is contested; without one it stays suggested (time
settles nothing). A group of one is not settled by its own source correction,
a ``drop`` discards the evidence recorded before it, a suggestion with no
evidence path is never settled, and settling never widens. Nothing here is
stored: the fold calls :func:`settle` each time the log is read, and the host
records an ``establish`` op (:func:`establish_address`) for what settled.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from attrs import frozen

from kapi.core.context.record import OpKind, Record, Scope, Status, TermRule

__all__ = [
    "Member",
    "RuleKey",
    "Settled",
    "Settlement",
    "Standing",
    "Uses",
    "content_address",
    "establish_address",
    "meet_points",
    "settle",
]


@frozen
class Uses:
    """The latest usage count: ``preferred`` of ``total`` uses, counted ``within`` a folder."""

    preferred: int = 0
    total: int = 0
    within: str = ""


@frozen
class Standing:
    """How much stands behind a rule, as counts: parties that saw it, corrections toward it,
    the merges that moved text toward it, its latest usage count, and what stands against it
    (``against_by`` names those ops)."""

    sessions: int = 0
    corrections: int = 0
    merges: tuple[str, ...] = ()
    uses: Uses | None = None
    against: int = 0
    against_by: tuple[str, ...] = ()

    def text(self) -> str:
        """``seen in 3 sessions · 14 of 15 uses in docs/ · merged in #412 · 2 against``."""
        parts = []
        if self.sessions:
            parts.append(f"seen in {self.sessions} session{'s' * (self.sessions != 1)}")
        if self.corrections:
            parts.append(f"{self.corrections} correction{'s' * (self.corrections != 1)}")
        if self.uses is not None:
            uses = f"{self.uses.preferred} of {self.uses.total} use{'s' * (self.uses.total != 1)}"
            parts.append(uses + (f" in {self.uses.within}" if self.uses.within else ""))
        if self.merges:
            parts.append("merged in " + ", ".join(self.merges))
        if self.against:
            parts.append(f"{self.against} against")
        return " · ".join(parts)


@frozen
class Settlement:
    """A suggestion settling established, and the ops (person signals) it rests on."""

    target: str
    because: tuple[str, ...]


class RuleKey(NamedTuple):
    """A rule as compared: its case-folded replacement and avoided forms (a case variant of
    the replacement is the same word, not an avoided one), and the point where it holds."""

    replacement: str
    forms: frozenset[str]
    point: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, rule: TermRule, coordinates: Mapping[str, str]) -> RuleKey:
        replacement = rule.replacement.casefold()
        forms = frozenset([f.casefold() for f in (rule.term, *rule.forms) if f])
        return cls(
            replacement,
            forms - {replacement},
            tuple(sorted(coordinates.items())) if coordinates else (),
        )


class Member(NamedTuple):
    """An op that states a rule, as the fold has it after people's decisions."""

    record: Record
    status: Status
    words: RuleKey
    decided: str  # where the decision that set its status sorts in the log ("" when none)
    key: str  # where it sorts in the log


class Settled(NamedTuple):
    """What settling makes of the log: standing per op, the ops it settles or contests, and
    the established rules whose rejected uses grew since they were established (drift)."""

    standing: dict[str, Standing]
    established: dict[str, tuple[str, ...]]  # op id -> the person signals it rests on
    contested: dict[str, tuple[str, ...]]  # op id -> what stands against it
    drift: frozenset[str]
    heads: dict[str, str]  # op id -> the oldest op of its group


def content_address(*parts: object) -> str:
    """``sha256:`` of the parts, each written as text and separated by a unit separator."""
    text = "\x1f".join(str(p) for p in parts)
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def establish_address(target: str, because: Iterable[str]) -> str:
    """An ``establish``'s content address: two logs settled alike hold one op."""
    return content_address(OpKind.ESTABLISH, target, *sorted(because))


def meet_points(a: tuple[tuple[str, str], ...], b: tuple[tuple[str, str], ...]) -> bool:
    """Two points (sorted axis/value pairs) meet when every axis both name has one value."""
    if not a or not b:
        return True
    other = dict(b)
    return all(other.get(axis, value) == value for axis, value in a)


def _point(scope: Scope) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(scope.coordinates.items())) if scope.coordinates else ()


class _Groups:
    """Members joined into groups (union-find), indexed by (replacement, avoided form)."""

    def __init__(self, members: Sequence[Member]) -> None:
        self.members = members
        self.parent = list(range(len(members)))
        # (replacement, form) -> point -> member indexes
        self.index: dict[tuple[str, str], dict[tuple[tuple[str, str], ...], list[int]]] = (
            defaultdict(lambda: defaultdict(list))
        )
        # members stating one rule at one point are one group at once; the index holds
        # the first of them (many sessions state the same rule)
        same: dict[RuleKey, int] = {}
        for i, member in enumerate(members):
            first = same.get(member.words)
            if first is None:
                same[member.words] = i
            else:
                self.parent[i] = first
        for words, i in same.items():
            for form in words.forms:
                self.index[(words.replacement, form)][words.point].append(i)
        for points in self.index.values():
            heads = []
            for indexes in points.values():
                first = indexes[0]
                for other in indexes[1:]:
                    self._union(first, other)
                heads.append((first, members[first].words.point))
            for n, (a, pa) in enumerate(heads):
                for b, pb in heads[n + 1 :]:
                    if meet_points(pa, pb):
                        self._union(a, b)

    def find(self, i: int) -> int:
        parent = self.parent
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def _union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)

    def matching(self, replacement: str, form: str, point: tuple[tuple[str, str], ...]) -> set[int]:
        """The groups whose rule says ``replacement`` instead of ``form``, at points meeting."""
        found = self.index.get((replacement, form))
        if not found:
            return set()
        return {self.find(ix[0]) for p, ix in found.items() if meet_points(p, point)}


def _changes(record: Record) -> list[tuple[str, str]]:
    """What a correction changed, as (from, to) pairs, case-folded: its ``from``/``to``, else
    each avoided form of the rule it states becoming the replacement."""
    if record.correction is not None:
        return [(record.correction.from_.casefold(), record.correction.to.casefold())]
    rule = record.rule
    if rule is None or not rule.term:
        return []
    to = rule.replacement.casefold()
    return [(f.casefold(), to) for f in rule.avoided if f]


def settle(members: Sequence[Member], evidence: Iterable[tuple[str, Record]]) -> Settled:
    """Group ``members``, weigh the ``evidence`` (``(order key, record)``: corrections,
    signals, withdrawals and drops, in log order) and settle what the evidence settles."""
    groups = _Groups(members)
    group_of = {m.record.id: groups.find(i) for i, m in enumerate(members)}
    toward: dict[int, list[tuple[str, Record]]] = defaultdict(list)
    away: dict[int, list[tuple[str, Record]]] = defaultdict(list)
    merges: dict[int, list[tuple[str, Record]]] = defaultdict(list)
    usage: dict[int, list[tuple[str, Record]]] = defaultdict(list)
    applied: dict[int, list[tuple[str, Record]]] = defaultdict(list)
    withdrawn: dict[int, list[tuple[str, Record]]] = defaultdict(list)
    cutoff: dict[int, str] = {}
    for key, record in evidence:
        kind = record.kind
        if kind == OpKind.CORRECT:
            point = _point(record.scope)
            for old, new in _changes(record):
                for g in groups.matching(new, old, point):
                    toward[g].append((key, record))
                for g in groups.matching(old, new, point):
                    away[g].append((key, record))
            continue
        g = group_of.get(record.target, -1)
        if g < 0:
            continue
        if kind == OpKind.DROP:
            cutoff[g] = max(cutoff.get(g, ""), key)
        elif kind == OpKind.WITHDRAW:
            withdrawn[g].append((key, record))
        elif kind == OpKind.SIGNAL and record.signal is not None:
            source = record.signal.source
            if source == "merge":
                merges[g].append((key, record))
            elif source == "usage":
                usage[g].append((key, record))
            elif source == "applied":
                applied[g].append((key, record))
    by_group: dict[int, list[Member]] = defaultdict(list)
    for i, member in enumerate(members):
        by_group[groups.find(i)].append(member)
    standing: dict[str, Standing] = {}
    established: dict[str, tuple[str, ...]] = {}
    contested: dict[str, tuple[str, ...]] = {}
    drift: set[str] = set()
    heads: dict[str, str] = {}
    for g, group in by_group.items():
        since = cutoff.get(g, "")
        corrections = _since(toward.get(g, []), since)
        merged = [
            r
            for r in _since(merges.get(g, []), since)
            if r.signal is not None and (r.signal.preferred or r.signal.rejected)
        ]
        counts = [(k, r) for k, r in usage.get(g, []) if k >= since]
        against_ids = [r.id for r in _since(away.get(g, []), since)]
        against_ids += [r.id for r in _since(withdrawn.get(g, []), since)]
        previous = None
        for _, record in counts:
            assert record.signal is not None
            if previous is not None and record.signal.rejected > previous:
                against_ids.append(record.id)
            previous = record.signal.rejected
        parties = {
            _party(m.record)
            for m in group
            if m.record.kind == OpKind.OBSERVE
            and m.key >= since
            and m.status not in (Status.WITHDRAWN, Status.DROPPED, Status.RESET)
        }
        parties.update(_party(r) for r in _since(applied.get(g, []), since))
        latest = counts[-1][1].signal if counts else None
        uses = (
            Uses(latest.preferred, latest.preferred + latest.rejected, latest.within)
            if latest is not None
            else None
        )
        stand = Standing(
            sessions=len(parties),
            corrections=len(corrections),
            merges=tuple(dict.fromkeys(_merge_label(r) for r in merged)),
            uses=uses,
            against=len(against_ids),
            against_by=tuple(against_ids),
        )
        signals = {r.id for r in corrections} | {r.id for r in merged}
        if len(group) == 1:
            signals.discard(group[0].record.id)  # not settled by its own source correction
        head = group[0].record.id  # members come in log order: the first is the oldest
        for member in group:
            standing[member.record.id] = stand
            heads[member.record.id] = head
            if (
                signals
                and member.status == Status.SUGGESTED
                and not member.decided
                and any(e.path for e in member.record.evidence)
            ):
                if against_ids:
                    contested[member.record.id] = tuple(against_ids)
                else:
                    established[member.record.id] = tuple(sorted(signals))
            elif (
                member.status == Status.ESTABLISHED
                and member.decided
                and counts
                and _drifted(counts, member.decided)
            ):
                drift.add(member.record.id)
    return Settled(standing, established, contested, frozenset(drift), heads)


def _party(record: Record) -> str:
    """Who saw it: the session (an applied edit names its agent's), else the actor."""
    actor = record.actor
    return actor.session or f"{actor.kind}:{actor.name}"


def _since(found: Sequence[tuple[str, Record]], since: str) -> list[Record]:
    """The records at or after ``since`` (a drop discards what came before it), each once."""
    seen: dict[str, Record] = {}
    for key, record in found:
        if key >= since:
            seen.setdefault(record.id, record)
    return list(seen.values())


def _merge_label(record: Record) -> str:
    signal = record.signal
    assert signal is not None
    if signal.pr:
        return "#" + signal.pr.lstrip("#")
    return signal.commit[:7]


def _drifted(counts: Sequence[tuple[str, Record]], decided: str) -> bool:
    """More rejected uses now than at establishment (the last count before it, else the first)."""
    before = [r for k, r in counts if k <= decided]
    baseline = (before[-1] if before else counts[0][1]).signal
    latest = counts[-1][1].signal
    assert baseline is not None and latest is not None
    return latest.rejected > baseline.rejected
