"""Writing the context log: append ops, record what settles, keep the terms store in step.

Every writer of the log (a note, a review, a reset, an import, a signal) goes
through :func:`record_ops`: it appends the ops, records an ``establish`` for
what the evidence now settles, writes what became (or stopped being) a rule to
the terms store, and refreshes the rules files. :func:`describe` says what an
op records, in one phrase, for the log and the review.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from kapi.core.context.fold import Fold
from kapi.core.context.policy import person_decides
from kapi.core.context.record import OpKind, Record, TermRule
from kapi.host.context_project import ProjectContext
from kapi.host.errors import EXIT_ERROR, HostError

if TYPE_CHECKING:
    from kapi.core.change.ports import Actor
    from kapi.host.workspace import Workspace

__all__ = ["SETTLE", "bring_in_step", "describe", "record_ops", "settle_log"]


def record_ops(
    context: ProjectContext, records: Sequence[Record], actor: Actor, before: Fold
) -> Fold:
    """Append ``records``, record what the evidence now settles, write what became (or
    stopped being) a rule to the terms store, and refresh the rules files when the set of
    rules changed."""
    context.log.append(records)
    after = settle_log(context, context.fold())
    changed = _project(context, before, after, actor)
    if changed:
        after = context.fold()
    if changed or _rules_moved(before, after):
        from kapi.host.context_rules import refresh_rules_files

        with contextlib.suppress(Exception):  # the files follow the log; a failure is not fatal
            refresh_rules_files(context.workspace)
    return after


SETTLE = "settle"  # the tool that records what settling established


def settle_log(context: ProjectContext, folded: Fold) -> Fold:
    """Append an ``establish`` (tool ``settle``, content addressed) for each suggestion the
    log's evidence settles; the log folded again when any was appended."""
    if not folded.settling:
        return folded
    from kapi.core.change.ports import Actor, ActorKind
    from kapi.core.context.settle import establish_address

    tool = Actor(kind=ActorKind.TOOL, name=SETTLE)
    person_decides(tool, OpKind.ESTABLISH)
    ops = [
        context.log.new(
            OpKind.ESTABLISH,
            tool,
            target=s.target,
            because=s.because,
            address=establish_address(s.target, s.because),
        )
        for s in folded.settling
    ]
    context.log.append(ops)
    return context.fold()


def _kept(folded: Fold) -> dict[str, tuple[TermRule, dict[str, str]]]:
    """The word rules the context established (kept, chosen, settled), with the concept
    properties that say where each holds."""
    from kapi.core.context.scope import scope_properties

    return {
        e.id: (e.rule, scope_properties(e.scope))
        for e in folded.established
        if e.rule is not None and e.rule.term and e.record.kind in (OpKind.OBSERVE, OpKind.CORRECT)
    }


def _rules_moved(before: Fold, after: Fold) -> bool:
    def key(folded: Fold) -> set[tuple[str, str]]:
        return {(e.id, str(e.status)) for e in folded.entries}

    return key(before) != key(after)


def _project(context: ProjectContext, before: Fold, after: Fold, actor: Actor) -> bool:
    """Make the terms store say what the fold establishes, through the applier ``kapi apply``
    uses: a person's decision as the person's change set; what settling established as the
    ``settle`` tool's writes. Each rule's concept carries where it holds."""
    return _project_kept(context, _kept(before), _kept(after), actor)


def bring_in_step(workspace: Workspace, actor: Actor) -> int:
    """Write what the terms store lacks of the rules the log establishes, and take out the
    rules kapi wrote that the log no longer establishes; how many rules moved."""
    from kapi.core.context.scope import PROP_ORIGIN
    from kapi.host.context import store_behind

    if actor.kind != "person":
        person_decides(actor, OpKind.EDIT)
    context = ProjectContext(workspace)
    folded = context.fold()
    concepts = context.store.concepts()
    locale = workspace.source_language
    if not store_behind(folded, context.store, locale):
        return 0
    new = _kept(folded)
    held = {t.text.casefold() for c in concepts for t in c.terms}
    old = {
        op_id: kept
        for op_id, kept in new.items()
        if all(f.casefold() in held for f in _store_forms(kept[0]))
    }
    for concept in concepts:
        origin = concept.properties.get(PROP_ORIGIN) if concept.properties else None
        entry = folded.entry(origin) if origin else None
        if entry is not None and entry.id not in new and entry.rule is not None:
            old[entry.id] = (entry.rule, {})
    moved = sum(1 for op_id in new if op_id not in old) + sum(
        1 for op_id in old if op_id not in new
    )
    _project_kept(context, old, new, actor)
    return moved


def _project_kept(
    context: ProjectContext,
    old: dict[str, tuple[TermRule, dict[str, str]]],
    new: dict[str, tuple[TermRule, dict[str, str]]],
    actor: Actor,
) -> bool:
    from kapi.core.change.ops import Term

    gone = [rule for op_id, (rule, _) in old.items() if op_id not in new or new[op_id][0] != rule]
    come = [(op_id, rule) for op_id, (rule, _) in new.items() if old.get(op_id, (None,))[0] != rule]
    placed = [
        (op_id, rule, where)
        for op_id, (rule, where) in new.items()
        if op_id not in old or old[op_id] != (rule, where)
    ]
    if not gone and not come and not placed:
        return False
    locale = context.workspace.source_language
    ops: list[Term] = []
    for rule in gone:
        for form in _store_forms(rule):
            if any(
                any(t.text == form and t.locale == locale for t in c.terms)
                for c in context.store.lookup_terms(form)
            ):
                ops.append(Term(action="delete", term=form, locale=locale))
    for _, rule in come:
        # one concept: the preferred wording, each avoided form beside it (forbidden, or
        # deprecated when the rule only advises)
        status = "deprecated" if rule.advisory else "forbidden"
        ops.append(Term(action="upsert", term=rule.replacement, locale=locale, status="preferred"))
        for form in reversed(_store_forms(rule)):  # each lands first: the first ends first
            ops.append(Term(action="upsert", term=rule.replacement, locale=locale, replaces=form))
            ops.append(Term(action="upsert", term=form, locale=locale, status=status))
    if ops:
        _apply_terms(context, ops, [op_id for op_id, _ in come], actor)
    for op_id, rule, where in placed:
        _place(context, rule, where, op_id, locale)
    return True


def _apply_terms(context: ProjectContext, ops: list[Any], ids: list[str], actor: Actor) -> None:
    from kapi.core.change.ops import ChangeSet
    from kapi.core.change.ports import Actor as ChangeActor
    from kapi.core.change.ports import ActorKind

    if actor.kind != ActorKind.PERSON:  # settling, not a person's change set
        from kapi.host.store import StoreAssets

        tool = ChangeActor(kind=ActorKind.TOOL, name=SETTLE)
        assets = StoreAssets(context.store, context.project.recipe_path)
        for op in ops:
            try:
                assets.apply(op, tool, None)
            except (LookupError, ValueError) as err:
                raise HostError(
                    f"the terms store refused the rule: {err}", exit_code=EXIT_ERROR
                ) from None
        return
    named = ", ".join("#" + op_id[:10] for op_id in ids) or "a rule set aside"
    change_set = ChangeSet(ops=tuple(ops), note=f"kapi context: {named}")
    result = context.workspace.change_service(actor).apply(change_set, actor)
    if result.exit_code != 0:
        reason = result.error.message if result.error is not None else str(result.status)
        for op in result.ops:
            if op.error is not None:
                reason = op.error.message
                break
        raise HostError(f"the terms store refused the rule: {reason}", exit_code=EXIT_ERROR)


def _place(
    context: ProjectContext, rule: TermRule, where: dict[str, str], op_id: str, locale: str
) -> None:
    """Write where a rule holds (and the op it came from) on the concept holding its wording,
    when that concept holds only this rule's wording."""
    from attrs import evolve

    from kapi.core.context.scope import PROP_COORDINATES, PROP_ORIGIN, PROP_PROFILE

    words = {rule.replacement.casefold(), *(f.casefold() for f in rule.avoided)}
    for concept in context.store.lookup_terms(rule.replacement):
        if not any(t.text == rule.replacement and t.locale == locale for t in concept.terms):
            continue
        if any(t.text.casefold() not in words for t in concept.terms):
            return  # a concept a person wrote holds more than this rule: it keeps its reach
        properties = {
            k: v
            for k, v in concept.properties.items()
            if k not in (PROP_PROFILE, PROP_COORDINATES, PROP_ORIGIN)
        }
        properties.update(where)
        properties[PROP_ORIGIN] = op_id
        if properties != dict(concept.properties):
            context.store.put_concepts([evolve(concept, properties=properties)])
        return


def _store_forms(rule: TermRule) -> list[str]:
    """The avoided forms a store concept holds: case-only variants fold together there."""
    seen = {rule.replacement.casefold()}
    out = []
    for form in rule.avoided:
        if form and form.casefold() not in seen:
            seen.add(form.casefold())
            out.append(form)
    return out


def describe(record: Record, rule: TermRule | None = None) -> str:
    """What an op says, in one phrase: a rule, a fact, a change, or the decision it made."""
    rule = rule or record.rule
    signal = record.signal
    if signal is not None:
        about = f"#{record.target[:10]}"
        if signal.source == "merge":
            where = f"#{signal.pr}" if signal.pr else signal.commit[:7]
            return (
                f"{about} merged in {where}: {signal.preferred} line(s) added with the preferred "
                f"wording, {signal.rejected} removed with an avoided one"
            )
        if signal.source == "usage":
            total = signal.preferred + signal.rejected
            within = f" in {signal.within}" if signal.within else ""
            return f"{about} counted: {signal.preferred} of {total} use(s) preferred{within}"
        return f"{about} written by an edit {signal.preferred} time(s)"
    if record.kind == OpKind.ESTABLISH:
        because = " ".join("#" + b[:10] for b in record.because)
        return f"#{record.target[:10]} settled" + (f" on {because}" if because else "")
    if rule is not None and rule.term:
        avoided = ", ".join(f'"{f}"' for f in rule.avoided)
        return f'say "{rule.replacement}", not {avoided}'
    if record.correction is not None:
        return f'"{record.correction.from_}" became "{record.correction.to}"'
    if record.subject is not None and record.subject.text:
        return record.subject.text
    if record.target:
        return f"#{record.target[:10]}"
    if record.before:
        return f"everything from #{record.before[:10]}"
    return record.note
