"""The context operation log on the project store: records in, records out, folded on read.

The store keeps each op as one row of ``context_ops`` and never rewrites it;
this adapter mints ids (sortable, never before the log's newest), decodes
rows into :class:`~kapi.core.context.record.Record` values (a row written
before records had their present shape is read for what it still says), and
folds them with the terms store's rules in force.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from kapi.core.context.errors import ContextError
from kapi.core.context.fold import Fold, StoreRule, fold
from kapi.core.context.ids import mint_id, resolve_prefix
from kapi.core.context.record import Author, OpKind, Record, TermRule

if TYPE_CHECKING:
    from kapi.core.change.ports import Actor
    from kapi.core.governance.terms import Concept
    from kapi.core.governance.voice import TermRule as CheckRule
    from kapi.host.store_port import StorePort

__all__ = ["ContextLog", "check_rules", "concept_rules", "rule_words", "store_rules"]

_KINDS = {str(k) for k in OpKind}


def _utc_now() -> datetime:
    return datetime.now(UTC)


def _stamp(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _random() -> int:
    return secrets.randbits(80)


class ContextLog:
    """One project's context log over its store (``clock`` and ``random`` injected for tests)."""

    def __init__(
        self,
        store: StorePort,
        project: str = "",
        *,
        clock: Callable[[], datetime] = _utc_now,
        random: Callable[[], int] = _random,
        rows: Sequence[Mapping[str, Any]] | None = None,
    ) -> None:
        self.store = store
        self.project = project
        self._clock = clock
        self._random = random
        self._rows = rows  # the store's rows, when the caller read them already
        self._records: list[Record] | None = None

    def records(self) -> list[Record]:
        """Every op the log holds that can be read as a record, in the order it was stored."""
        if self._records is None:
            rows = self._rows if self._rows is not None else self.store.context_log()
            self._rows = None
            self._records = [r for r in map(_record_of, rows) if r is not None]
        return self._records

    def new(self, kind: OpKind, actor: Actor, **fields: Any) -> Record:
        """A record of ``kind`` with a fresh id later than every id in the log (not yet appended)."""
        newest = max((r.id for r in self.records()), default="")
        moment = self._clock()
        return Record(
            id=mint_id(moment, self._random(), newest),
            kind=kind,
            actor=Author.of(actor),
            at=_stamp(moment),
            project=self.project,
            **fields,
        )

    def append(self, records: Sequence[Record]) -> int:
        """Append ``records`` (a known id or content address is skipped); how many were added."""
        from kapi.core.context.wire import encode_record

        added = self.store.append_context_ops([encode_record(r) for r in records])
        self._records = None
        return added

    def fold(self, established: Sequence[StoreRule] = ()) -> Fold:
        return fold(self.records(), established)

    def resolve(self, prefix: str) -> str:
        """The id a prefix names (``#`` and case ignored); unknown or ambiguous is refused."""
        return resolve_prefix(prefix, (r.id for r in self.records()))


def _record_of(row: Mapping[str, Any]) -> Record | None:
    from kapi.core.context.wire import decode_record

    kind = str(row.get("kind", "")).removeprefix("context.")
    if kind not in _KINDS:
        return None
    written = row.get("subject")
    store_write = isinstance(written, dict) and (
        isinstance(written.get("term"), str) or written.get("kind") == "recipe"
    )
    if not store_write:
        try:
            return decode_record(row, stored=True)
        except ContextError:
            pass
    # a store write, or an op from before records had this shape: keep what still reads
    bare = {k: row[k] for k in ("id", "kind", "actor", "at") if k in row}
    if isinstance(written, dict) and isinstance(written.get("term"), str):
        status = f" {written['status']}" if written.get("status") else ""
        bare["note"] = f'terms store: "{written["term"]}" ({written.get("locale", "")}){status}'
    elif isinstance(written, dict) and isinstance(written.get("path"), str):
        bare["note"] = f"recipe: {written['path']}"
    try:
        return decode_record(bare)
    except ContextError:
        return None


_LAST_RULES: list[tuple[object, str, datetime | None, list[Any]]] = []


def concept_rules(
    concepts: Sequence[Concept], locale: str, at: datetime | None = None
) -> list[CheckRule]:
    """``rules_from_concepts``, computed once for the concepts a run loaded (the same tuple);
    with ``at``, only the terms whose validity window holds then."""
    from kapi.core.governance.terms import rules_from_concepts

    for seen, seen_locale, seen_at, rules in _LAST_RULES:
        if seen is concepts and seen_locale == locale and seen_at == at:
            return rules
    rules = rules_from_concepts(concepts, locale, at=at)
    # the newest two only (all concepts, and those at one point): nothing accumulates
    _LAST_RULES[:] = [(concepts, locale, at, rules), *_LAST_RULES[:1]]
    return rules


def rule_words(records: Sequence[Record]) -> set[str]:
    """Every wording the log's rules name: the store's rules that name none of them cannot
    disagree with any (``ProjectStore.concepts_naming`` finds the others)."""
    words: set[str] = set()
    for record in records:
        rule = record.rule
        if rule is not None and rule.term:
            words.add(rule.replacement)
            words.update(rule.avoided)
    return words


def log_rule(rule: CheckRule) -> TermRule:
    """A governance word rule (a voice's or the terms store's) as the context log states one."""
    return TermRule(
        term=rule.term,
        forms=rule.forms,
        replacement=rule.replacement,
        advisory=rule.advisory,
        note=rule.note,
    )


def store_rules(concepts: Sequence[Concept], locale: str) -> list[StoreRule]:
    """The terms store's rules, as the fold compares them (each at the point its concept
    holds, when a kept rule's scope narrows it): those that reject a wording, and those that
    only prefer one, unless kapi wrote that concept from the log (what is left of a rule
    taken out of force: the log's op speaks for it)."""
    from kapi.core.context.scope import PROP_COORDINATES, PROP_ORIGIN, parse_coordinates

    rules = concept_rules(concepts, locale)

    scoped = {
        c.id: parse_coordinates(c.properties[PROP_COORDINATES])
        for c in concepts
        if c.properties and c.properties.get(PROP_COORDINATES)
    }
    written = {c.id for c in concepts if c.properties and c.properties.get(PROP_ORIGIN)}
    return [
        StoreRule(
            key=rule.concept_id,
            rule=log_rule(rule),
            coordinates=scoped.get(rule.concept_id, {}),
        )
        for rule in rules
        if rule.rejects or (rule.replacement and rule.concept_id not in written)
    ]


def check_rules(
    folded: Fold, coordinates: Mapping[str, str], in_force: Sequence[StoreRule] = ()
) -> tuple[CheckRule, ...]:
    """The suggested and contested word rules at a point, as the check's weight-0 rules.

    A suggestion that only restates a rule in force (``in_force``) is left out:
    the rule already reports it.
    """
    from kapi.core.context.scope import applies_at
    from kapi.core.governance.voice import TermRule as CheckRule

    said = {
        (s.rule.replacement.casefold(), f.casefold())
        for s in in_force
        if applies_at(s.coordinates, coordinates)
        for f in s.rule.avoided
    }
    out: list[CheckRule] = []
    for entry in folded.advising:
        rule = entry.rule
        if rule is None or not rule.term or not applies_at(entry.scope.coordinates, coordinates):
            continue
        if all((rule.replacement.casefold(), f.casefold()) in said for f in rule.avoided):
            continue
        out.append(
            CheckRule(
                term=rule.term,
                forms=rule.forms,
                replacement=rule.replacement,
                note=rule.note,
                advisory=True,
                case_sensitive=True if rule.case_sensitive else None,
                concept_id="context:" + entry.record.short,
            )
        )
    return tuple(out)
