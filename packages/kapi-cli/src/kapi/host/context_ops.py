"""Recording and deciding context: ``note``, ``log``, the session summary, ``review`` and ``reset``.

An agent notes what it sees (a fact, a term rule, a person's change) and may
withdraw its own suggestion; a person keeps, drops, chooses, widens and
resets. Every function takes the actor as a value (the CLI resolves it from
the environment, the MCP server stamps it) and returns a typed result with
``encoded()``; nothing here prints. Keeping a word rule writes it to the
terms store through the change service, the applier ``kapi apply`` uses.
"""

from __future__ import annotations

import contextlib
from datetime import datetime
from typing import TYPE_CHECKING, Any

from attrs import field, frozen

from kapi.core.context.errors import ContextError, ContextRefused
from kapi.core.context.fold import Entry, Fold, in_force_outside, rivals_text
from kapi.core.context.policy import decision_refusal, in_force_refusal, person_decides
from kapi.core.context.record import (
    ActorLike,
    Correction,
    Evidence,
    OpKind,
    Record,
    Scope,
    Status,
    Subject,
    TermRule,
)
from kapi.core.context.settle import Standing
from kapi.host.context_project import ProjectContext
from kapi.host.context_write import describe, record_ops
from kapi.host.errors import EXIT_OK
from kapi.host.wire import encode

if TYPE_CHECKING:
    from kapi.core.change.ports import Actor
    from kapi.host.workspace import Workspace

__all__ = [
    "ContextLogLine",
    "ContextLogRequest",
    "ContextLogResult",
    "ContextNoteRequest",
    "ContextRecorded",
    "ContextResetRequest",
    "ContextResetResult",
    "ContextReviewRequest",
    "ContextReviewResult",
    "ContextSessionRequest",
    "ContextSessionSummary",
    "describe",
    "note_context",
    "read_context_log",
    "reset_context",
    "review_context",
    "session_summary",
]

NEXT = (
    "This only advises: it reaches `kapi check` as a suggestion (weight 0) and a person "
    "decides whether it becomes a rule."
)


def _who(actor: ActorLike) -> str:
    name = actor.name or ("you" if actor.kind == "person" else str(actor.kind))
    return f"{name} ({actor.session})" if actor.session else name


def _line(record: Record, entry: Entry | None, folded: Fold) -> str:
    parts = [f"#{record.short}", str(record.kind)]
    if entry is not None:
        parts.append(str(entry.status))
    elif record.id in folded.reset:
        parts.append(str(Status.RESET))
    parts.append(describe(record, entry.rule if entry else None))
    where = [_who(record.actor)]
    if record.evidence and record.evidence[0].path:
        where.append(f"seen in {record.evidence[0].path}")
    line = " ".join(p for p in parts if p) + f" ({', '.join(where)})"
    if entry is not None and entry.contested_by:
        line += f" [contested by {rivals_text(entry.contested_by)}]"
    if entry is not None and entry.standing.text():
        line += " · " + entry.standing.text()
    return line


# --- note -----------------------------------------------------------------------------


@frozen
class ContextNoteRequest:
    """``context_note``: an observation (``text``, or ``term`` + ``instead_of``), a person's
    change (``from_``/``to``, with ``suggest`` the rule it implies), or ``withdraw`` of an id;
    ``path`` or ``quote`` is the evidence a rule or a change needs."""

    actor: Actor
    text: str = ""
    term: str = ""
    instead_of: tuple[str, ...] = ()
    from_: str = ""
    to: str = ""
    suggest: bool = False
    advisory: bool = False
    withdraw: str = ""
    path: str = ""
    unit: str = ""
    quote: str = ""
    note: str = ""


@frozen
class ContextRecorded:
    """What a note recorded: the op, its status now, and what happens next."""

    operation: str
    kind: str
    status: str
    contested_by: tuple[str, ...]
    session: str
    project: str
    recorded: str
    review: str
    next: str

    def encoded(self) -> dict[str, Any]:
        data: dict[str, Any] = encode(self)
        return data


def note_context(request: ContextNoteRequest, workspace: Workspace) -> ContextRecorded:
    """Record what an agent (or a person) noticed; refuse what lacks evidence or permission."""
    context = ProjectContext(workspace)
    actor = request.actor
    context.touch(actor)
    before = context.fold()
    if request.withdraw:
        if request.text or request.term or request.from_ or request.to:
            raise ContextError("--withdraw takes only the id of the suggestion to take back")
        entry = context.entry(before, request.withdraw)
        person_decides(actor, OpKind.WITHDRAW, target=entry)
        decision_refusal(OpKind.WITHDRAW, entry)
        record = context.log.new(OpKind.WITHDRAW, actor, target=entry.id, note=request.note)
        after = record_ops(context, [record], actor, before)
        return _recorded(context, record, after, actor, status=str(Status.WITHDRAWN))
    kinds = [
        bool(request.text),
        bool(request.term or request.instead_of),
        bool(request.from_ or request.to),
    ]
    if sum(kinds) != 1:
        raise ContextError(
            "say one thing per note: a fact (TEXT), a term rule (--term X --instead-of Y), "
            "or a person's change (--from X --to Y)"
        )
    if request.term and not request.instead_of:
        raise ContextError(f'--term "{request.term}" needs --instead-of: the wording to avoid')
    if request.instead_of and not request.term:
        raise ContextError("--instead-of needs --term: the wording to use instead")
    if bool(request.from_) != bool(request.to):
        raise ContextError("a change needs both --from (the old wording) and --to (the new one)")
    if not (request.path or request.quote):
        raise ContextError(
            "a note needs evidence: the file it was seen in (--seen-in FILE) or a quote "
            "(--quote TEXT); a note holds only where it was seen"
        )
    kind = OpKind.CORRECT if request.from_ else OpKind.OBSERVE
    person_decides(actor, kind)
    path = context.relative(request.path) if request.path else ""
    subject: Subject
    correction = None
    if request.term:
        from kapi.core.context.forms import avoided_forms

        rule = avoided_forms(request.term, request.instead_of, note=request.note)
        if not rule.term:
            raise ContextError(
                f'--instead-of names only "{request.term}" itself: name the wording to avoid'
            )
        subject = Subject(kind="term", term=_advisory(rule, request.advisory))
    elif request.from_:
        correction = Correction(from_=request.from_, to=request.to)
        if request.suggest:
            from kapi.core.context.forms import avoided_forms

            rule = avoided_forms(request.to, [request.from_], note=request.note)
            if not rule.term:
                raise ContextError("--from and --to are the same wording: nothing changed")
            subject = Subject(kind="term", term=_advisory(rule, request.advisory))
        else:
            subject = Subject(kind="note", text=f'"{request.from_}" became "{request.to}"')
    else:
        subject = Subject(kind="note", text=request.text.strip())
    record = context.log.new(
        kind,
        actor,
        subject=subject,
        correction=correction,
        suggest=request.suggest,
        evidence=(Evidence(path=path, unit=request.unit, quote=request.quote),),
        scope=Scope(coordinates=context.coordinates(path)),
        note=request.note,
    )
    after = record_ops(context, [record], actor, before)
    noted = after.entry(record.id)
    return _recorded(context, record, after, actor, status=str(noted.status) if noted else "")


def _advisory(rule: TermRule, advisory: bool) -> TermRule:
    from attrs import evolve

    return evolve(rule, advisory=True) if advisory else rule


def _recorded(
    context: ProjectContext, record: Record, folded: Fold, actor: Actor, *, status: str
) -> ContextRecorded:
    entry = folded.entry(record.id)
    return ContextRecorded(
        operation=record.id,
        kind=str(record.kind),
        status=status,
        contested_by=entry.contested_by if entry else (),
        session=actor.session,
        project=context.log.project,
        recorded=_line(record, entry, folded),
        review=_review_command(actor.session),
        next="Withdrawn: it no longer advises." if record.kind == OpKind.WITHDRAW else NEXT,
    )


def _review_command(session: str) -> str:
    return f"kapi context review --session {session}" if session else "kapi context review"


# --- log ------------------------------------------------------------------------------


@frozen
class ContextLogRequest:
    """Which ops to list: one session (``this`` = the caller's), one status, one actor name."""

    actor: Actor | None = None
    session: str = ""
    status: str = ""
    actor_name: str = ""


@frozen
class ContextLogLine:
    operation: str
    short: str
    kind: str
    status: str
    text: str
    actor: str
    actor_kind: str
    session: str
    at: str
    evidence: tuple[Evidence, ...] = ()
    contested_by: tuple[str, ...] = ()
    standing: Standing | None = None
    line: str = ""


@frozen
class ContextLogResult:
    operations: tuple[ContextLogLine, ...]
    total: int

    def encoded(self) -> dict[str, Any]:
        data: dict[str, Any] = encode(self)
        return data


def read_context_log(request: ContextLogRequest, workspace: Workspace) -> ContextLogResult:
    """The ops of the log, oldest first, filtered; each with its folded status and standing."""
    context = ProjectContext(workspace)
    if request.status and request.status not in {str(s) for s in Status}:
        raise ContextError(
            f"--status {request.status!r}: use one of " + ", ".join(str(s) for s in Status)
        )
    session = request.session
    if session == "this":
        actor = request.actor
        if actor is None or actor.kind != "agent" or not actor.session:
            raise ContextError(
                "--session this names the caller's agent session, and this is not an agent's "
                "session; give a session id (`kapi context log` shows them)",
                code="invalid",
            )
        session = actor.session
        context.touch(actor)
    folded = context.fold()
    lines = []
    for record in folded.records:
        found = folded.entry(record.id)
        status = str(found.status) if found else ("reset" if record.id in folded.reset else "")
        if session and record.actor.session != session:
            continue
        if request.status and status != request.status:
            continue
        if request.actor_name and request.actor_name not in (record.actor.name, record.actor.kind):
            continue
        lines.append(
            ContextLogLine(
                operation=record.id,
                short=record.short,
                kind=str(record.kind),
                status=status,
                text=describe(record, found.rule if found else None),
                actor=record.actor.name,
                actor_kind=str(record.actor.kind),
                session=record.actor.session,
                at=record.at,
                evidence=record.evidence,
                contested_by=found.contested_by if found else (),
                standing=found.standing if found else None,
                line=_line(record, found, folded),
            )
        )
    return ContextLogResult(operations=tuple(lines), total=len(lines))


# --- the session summary --------------------------------------------------------------


@frozen
class ContextSessionRequest:
    session: str = ""
    actor: Actor | None = None


@frozen
class ChosenSession:
    session: str
    rule: str
    last: str


@frozen
class ContextSessionSummary:
    """``context_session_summary``: what a session recorded, and the command a person reviews it with."""

    report: str
    session: str = ""
    project: str = ""
    agent: str = ""
    operations: int = 0
    first: str = ""
    last: str = ""
    observed: int = 0
    corrected: int = 0
    suggested: int = 0
    contested: int = 0
    established: int = 0
    withdrawn: int = 0
    dropped: int = 0
    reset: int = 0
    checked: int = 0
    failing: int = 0
    caught: int = 0
    files: tuple[str, ...] = ()
    review: str = ""
    chosen: ChosenSession | None = None

    def encoded(self) -> dict[str, Any]:
        data: dict[str, Any] = encode(self)
        if not self.session:
            return {"report": self.report}
        if self.chosen is None:
            data.pop("chosen")
        return data


def session_summary(request: ContextSessionRequest, workspace: Workspace) -> ContextSessionSummary:
    """The counts of one session (else the latest check's session, else the last to record)."""
    context = ProjectContext(workspace)
    folded = context.fold()
    session, chosen = request.session, None
    if request.actor is not None:
        context.touch(request.actor)
    if not session:
        sessions = [r for r in folded.records if r.actor.session]
        if not sessions:
            return ContextSessionSummary(report="No session has recorded anything in this project.")
        checks = [r for r in sessions if r.kind == OpKind.CHECK]
        pick = (checks or sessions)[-1]
        session = pick.actor.session
        rule = "the session of the latest check run" if checks else "the session that recorded last"
        last = [r for r in sessions if r.actor.session == session][-1].at
        chosen = ChosenSession(session=session, rule=rule, last=last)
    records = [r for r in folded.records if r.actor.session == session]
    if not records:
        raise ContextError(
            f"no operation of session {session!r} in this project's context; "
            "`kapi context log` shows the sessions",
            code="not_found",
        )
    counts = {str(s): 0 for s in Status}
    for record in records:
        entry = folded.entry(record.id)
        if entry is not None:
            counts[str(entry.status)] += 1
    observed = sum(1 for r in records if r.kind == OpKind.OBSERVE)
    corrected = sum(1 for r in records if r.kind == OpKind.CORRECT)
    advising = counts["suggested"] + counts["contested"]
    if observed + corrected:
        report = (
            f"This session recorded {observed} observation{'s' * (observed != 1)} and "
            f"{corrected} correction{'s' * (corrected != 1)}; {advising} "
            f"{'advise' if advising != 1 else 'advises'} as suggestions. They only advise: "
            f"a person decides with `{_review_command(session)}`."
        )
    else:
        report = "This session recorded no observations or corrections."
    from kapi.host.hooks import hook_outcomes

    hooks = hook_outcomes(records)
    if hooks.checked:
        report += (
            f" The hooks checked {hooks.checked} time{'s' * (hooks.checked != 1)}: "
            f"{hooks.failing} failing, {hooks.caught} caught and fixed."
        )
    return ContextSessionSummary(
        report=report,
        session=session,
        project=context.log.project,
        agent=records[0].actor.name,
        operations=len(records),
        first=records[0].at,
        last=records[-1].at,
        observed=observed,
        corrected=corrected,
        suggested=counts["suggested"],
        contested=counts["contested"],
        established=counts["established"],
        withdrawn=counts["withdrawn"],
        dropped=counts["dropped"],
        reset=counts["reset"],
        checked=hooks.checked,
        failing=hooks.failing,
        caught=hooks.caught,
        files=hooks.files,
        review=_review_command(session),
        chosen=chosen,
    )


# --- review ---------------------------------------------------------------------------


@frozen
class ContextReviewRequest:
    """A person's review round: ``choose`` first, then ``drop``, then ``keep`` (ids or ``all``
    with ``session``); ``use`` replaces a kept rule's wording, ``widen_to`` widens in-force
    rules; nothing to decide means only the digest (``--peek``)."""

    actor: Actor
    keep: tuple[str, ...] = ()
    drop: tuple[str, ...] = ()
    choose: tuple[str, ...] = ()
    session: str = ""
    use: str = ""
    advisory: bool | None = None
    widen_to: str = ""
    note: str = ""

    @property
    def decides(self) -> bool:
        return bool(self.keep or self.drop or self.choose or self.widen_to)


@frozen
class DigestItem:
    operation: str
    short: str
    kind: str
    status: str
    text: str
    noticed_by: str
    seen_in: str
    standing: Standing
    contested_by: tuple[str, ...] = ()
    droppable: bool = True
    widenable: bool = False


@frozen
class ContextDigest:
    conflicts: tuple[DigestItem, ...] = ()
    established: tuple[DigestItem, ...] = ()
    suggested: tuple[DigestItem, ...] = ()
    drift: tuple[DigestItem, ...] = ()


@frozen
class Decision:
    operation: str
    kind: str
    target: str
    text: str


@frozen
class Skipped:
    operation: str
    reason: str


@frozen
class ContextReviewResult:
    digest: ContextDigest
    decisions: tuple[Decision, ...] = ()
    skipped: tuple[Skipped, ...] = ()
    rules_files: tuple[Any, ...] = field(factory=tuple)

    @property
    def exit_code(self) -> int:
        return EXIT_OK

    def encoded(self) -> dict[str, Any]:
        data: dict[str, Any] = encode(self)
        return data


def digest(folded: Fold, session: str = "") -> ContextDigest:
    """What a person reviews: conflicts, rules in force, suggestions (one session's, if named)."""

    def item(entry: Entry) -> DigestItem:
        record = entry.record
        return DigestItem(
            operation=record.id,
            short=record.short,
            kind=str(record.kind),
            status=str(entry.status),
            text=describe(record, entry.rule),
            noticed_by=_who(record.actor),
            seen_in=record.evidence[0].path if record.evidence else "",
            standing=entry.standing,
            contested_by=entry.contested_by,
            widenable=entry.status == Status.ESTABLISHED and bool(entry.scope.coordinates),
        )

    def wanted(entry: Entry) -> bool:
        return not session or entry.record.actor.session == session

    entries = [e for e in folded.entries if wanted(e)]
    return ContextDigest(
        conflicts=tuple(item(e) for e in entries if e.status == Status.CONTESTED),
        established=tuple(
            item(e)
            for e in entries
            if e.status == Status.ESTABLISHED and e.record.kind in (OpKind.OBSERVE, OpKind.CORRECT)
        ),
        suggested=tuple(item(e) for e in entries if e.status == Status.SUGGESTED),
        drift=tuple(item(e) for e in entries if e.drift),
    )


def review_context(request: ContextReviewRequest, workspace: Workspace) -> ContextReviewResult:
    """Apply a person's decisions (all checked before any is recorded), or show the digest."""
    context = ProjectContext(workspace)
    actor = request.actor
    before = context.fold()
    if not request.decides:
        if request.use or request.advisory is not None:
            raise ContextError("--use and --advisory go with --keep or --choose: name what to keep")
        return ContextReviewResult(digest=digest(before, request.session))
    if request.widen_to:
        person_decides(actor, OpKind.WIDEN, widening=True)
    if request.drop:
        person_decides(actor, OpKind.DROP)
    if request.keep or request.choose:
        person_decides(actor, OpKind.KEEP)
    if request.widen_to == "workspace":
        raise ContextError(
            "--widen-to workspace needs a store shared by the projects of a workspace, which "
            "this project does not have; widen to `project` or to an axis"
        )
    if "all" in request.keep and not request.session:
        raise ContextError("--keep all needs --session ID: the session whose suggestions to keep")
    # resolve every id before recording anything
    chosen = [context.entry(before, p) for p in request.choose]
    dropped = [context.entry(before, p) for p in request.drop]
    kept: list[Entry] = []
    skipped: list[Skipped] = []
    for prefix in request.keep:
        if prefix == "all":
            for entry in before.advising:
                if entry.record.actor.session != request.session:
                    continue
                if entry.status == Status.CONTESTED:
                    rivals = rivals_text(entry.contested_by)
                    stays = any(map(in_force_outside, entry.contested_by))
                    skipped.append(
                        Skipped(
                            entry.id,
                            f"contested by {rivals}, "
                            + (
                                "a rule in force that stays: drop it, or change that rule first"
                                if stays
                                else "choose one with --choose"
                            ),
                        )
                    )
                else:
                    kept.append(entry)
        else:
            kept.append(context.entry(before, prefix))
    if (request.use or request.advisory is not None) and len(kept) + len(chosen) != 1:
        raise ContextError("--use and --advisory apply to one rule: keep or choose one id")
    records: list[Record] = []
    decisions: list[Decision] = []
    rivals_dropped: set[str] = set()
    for entry in chosen:
        decision_refusal(OpKind.DROP, entry)
        outside = [r for r in entry.contested_by if in_force_outside(r)]
        if outside:
            raise ContextRefused(in_force_refusal(entry, outside[0]))
        for rival_id in entry.contested_by:
            rival_entry = before.entry(rival_id)
            assert rival_entry is not None  # a rival outside the log was refused above
            if rival_id not in rivals_dropped:
                rivals_dropped.add(rival_id)
                records.append(context.log.new(OpKind.DROP, actor, target=rival_id))
                decisions.append(
                    Decision(records[-1].id, "drop", rival_id, describe(rival_entry.record))
                )
    for entry in dropped:
        decision_refusal(OpKind.DROP, entry)
        if entry.id not in rivals_dropped:
            records.append(context.log.new(OpKind.DROP, actor, target=entry.id, note=request.note))
            decisions.append(Decision(records[-1].id, "drop", entry.id, describe(entry.record)))
    for entry in [*chosen, *kept]:
        if entry in chosen:
            if entry.status == Status.ESTABLISHED:
                continue
        else:
            decision_refusal(OpKind.KEEP, entry)
        if request.widen_to and entry.rule is None:
            raise ContextError(f"#{entry.record.short} is a fact, not a rule: nothing to widen")
        records.append(
            context.log.new(
                OpKind.KEEP,
                actor,
                target=entry.id,
                replacement=request.use,
                advisory=request.advisory,
                note=request.note,
            )
        )
        decisions.append(Decision(records[-1].id, "keep", entry.id, describe(entry.record)))
    if request.widen_to:
        targets = [*kept, *chosen] or [
            e
            for e in before.established
            if e.rule is not None and e.rule.term and _widens(e, request.widen_to)
        ]
        if not targets:
            raise ContextError(
                f"no rule in force holds only at some {request.widen_to!r}: nothing to widen; "
                "`kapi context review --peek` lists the rules in force"
            )
        for entry in targets:
            if not _widens(entry, request.widen_to):
                held = ", ".join(f"{a}={v}" for a, v in sorted(entry.scope.coordinates.items()))
                raise ContextError(
                    f"#{entry.record.short} holds "
                    + (f"at {held}" if held else "across the project")
                    + f": --widen-to {request.widen_to} changes nothing; widen one of its axes "
                    "or to `project`"
                )
            records.append(
                context.log.new(OpKind.WIDEN, actor, target=entry.id, widen_to=request.widen_to)
            )
            decisions.append(Decision(records[-1].id, "widen", entry.id, describe(entry.record)))
    after = record_ops(context, records, actor, before) if records else before
    return ContextReviewResult(
        digest=digest(after, request.session),
        decisions=tuple(decisions),
        skipped=tuple(skipped),
    )


def _widens(entry: Entry, to: str) -> bool:
    """Whether widening ``entry`` to an axis (or ``project``) changes where it holds."""
    coordinates = entry.scope.coordinates
    return bool(coordinates) if to == "project" else to in coordinates


# --- reset ----------------------------------------------------------------------------


@frozen
class ContextResetRequest:
    """Rewind the context to before ``before`` (a session, a date, an instant or an op id)."""

    actor: Actor
    before: str
    dry_run: bool = False


@frozen
class ContextResetResult:
    operation: str
    before: str
    set_aside: tuple[ContextLogLine, ...]
    dry_run: bool = False

    def encoded(self) -> dict[str, Any]:
        data: dict[str, Any] = encode(self)
        return data


def reset_context(request: ContextResetRequest, workspace: Workspace) -> ContextResetResult:
    """Set aside every context op from ``before`` on; ``--before <reset-id>`` undoes a reset."""
    context = ProjectContext(workspace)
    person_decides(request.actor, OpKind.RESET)
    folded = context.fold()
    start = _reset_start(context, folded, request.before)
    from kapi.core.context.fold import order_key

    first = next(r for r in folded.records if r.id == start)
    lines = tuple(
        ContextLogLine(
            operation=r.id,
            short=r.short,
            kind=str(r.kind),
            status=str(folded.entry(r.id).status) if folded.entry(r.id) else "",  # type: ignore[union-attr]
            text=describe(r),
            actor=r.actor.name,
            actor_kind=str(r.actor.kind),
            session=r.actor.session,
            at=r.at,
            line=_line(r, folded.entry(r.id), folded),
        )
        for r in folded.records
        if order_key(r) >= order_key(first) and r.id not in folded.reset
    )
    if request.dry_run:
        return ContextResetResult(operation="", before=start, set_aside=lines, dry_run=True)
    record = context.log.new(OpKind.RESET, request.actor, before=start)
    record_ops(context, [record], request.actor, folded)
    return ContextResetResult(operation=record.id, before=start, set_aside=lines)


def _reset_start(context: ProjectContext, folded: Fold, before: str) -> str:
    """The first op a reset sets aside: an op id prefix, a session's first op, or a time."""
    if not before.strip():
        raise ContextError("--before needs a session id, a date, an instant or an op id")
    sessions = [r for r in folded.records if r.actor.session == before]
    if sessions:
        return sessions[0].id
    with contextlib.suppress(ContextError):
        return context.log.resolve(before)
    moment = _instant(before)
    if moment is None:
        return context.log.resolve(before)  # refuses: names what is unknown
    later = [r for r in folded.records if r.at and _instant(r.at) and _instant(r.at) >= moment]  # type: ignore[operator]
    if not later:
        raise ContextError(
            f"nothing was recorded since {before}: nothing to reset", code="not_found"
        )
    return later[0].id


def _instant(text: str) -> datetime | None:
    from datetime import UTC

    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
