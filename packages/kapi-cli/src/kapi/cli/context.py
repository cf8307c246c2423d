"""``kapi context``: what applies where, what agents noticed, and what a person decides.

Thin click code over :mod:`kapi.host.context` and :mod:`kapi.host.context_ops`.
``kapi context PATH`` answers for a location; the subcommands record (an
agent's: ``note``, ``log``, ``search``) and decide (a person's: ``review``,
``reset``, ``sync``). The actor comes from the environment (``KAPI_ACTOR``,
an agent host's markers), never from a flag.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, NoReturn

import click

from kapi.cli.common import workspace_of
from kapi.cli.output import emit_json, fail, gc_held, say, warn
from kapi.host.errors import KapiError

if TYPE_CHECKING:
    from kapi.core.change.ports import Actor

__all__ = ["context"]

_READ = "at"


class ContextGroup(click.Group):
    """``kapi context PATH`` reads; ``kapi context <verb>`` runs a verb."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not (args and args[0] in ("-h", "--help")):
            first = next((a for a in args if not a.startswith("-")), None)
            if first not in self.commands:
                args = [_READ, *args]
        return super().parse_args(ctx, args)


def _actor() -> Actor:
    """Who runs this: the environment's actor; a person is named by git (``user.email``)."""
    from kapi.host.actor import actor_from_env

    try:
        actor = actor_from_env().actor
    except KapiError as err:
        fail(err)
    if actor.kind == "person" and not actor.name:
        from attrs import evolve

        actor = evolve(actor, name=_git_person())
    return actor


def _asker() -> Actor | None:
    """Who reads: the environment's actor, unnamed by git (a read records nothing)."""
    from kapi.host.actor import actor_from_env

    try:
        return actor_from_env().actor
    except KapiError as err:
        fail(err)


def _git_person() -> str:
    """git's ``user.email``, else ``user.name``, else "you"."""
    import subprocess

    for key in ("user.email", "user.name"):
        try:
            done = subprocess.run(
                ["git", "config", "--get", key], capture_output=True, text=True, timeout=5
            )
        except (OSError, subprocess.SubprocessError):
            return "you"
        if done.returncode == 0 and done.stdout.strip():
            return done.stdout.strip()
    return "you"


def _fail(err: KapiError, as_json: bool) -> NoReturn:
    fail(err, as_json=as_json)


@click.group(cls=ContextGroup)
def context() -> None:
    """What applies where you write, and the context that grows from the work (agent or person).

    \b
    kapi context PATH            what applies at PATH: voice, rules, terms, suggestions
                                 (agent or person; --json, --explain, --profile NAME)
    kapi context search WORD     terms, approved wording and suggestions (agent or person)
    kapi context note …          record what the files do or a person changed (agent or person)
    kapi context log             the operations, with their status (agent or person)
    kapi context review          keep, drop or choose suggestions (person only)
    kapi context reset           set aside everything recorded since a point (person only)
    kapi context sync            read merged changes, rewrite the rules files (person only)

    An agent's notes only advise: they reach `kapi check` as suggestions that never fail,
    until a person keeps them with `kapi context review`.
    """


@context.command(_READ, hidden=True)
@click.argument("path", required=False, default="")
@click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON.")
@click.option("--explain", is_flag=True, help="Also say how the answer was found.")
@click.option("--profile", default="", metavar="NAME", help="Answer for a profile, not a path.")
@click.option("--locale", default="", help="Narrow the terms to a language.")
@click.option(
    "--comments", is_flag=True, help="What applies to the comments of the source file at PATH."
)
def read(
    path: str, as_json: bool, explain: bool, profile: str, locale: str, comments: bool
) -> None:
    """What applies at PATH (agent or person)."""
    from kapi.host.context import ContextReadRequest, read_context

    try:
        # the log is read and folded whole: thousands of small acyclic objects, which the
        # cycle collector would otherwise walk again and again while they are built
        with gc_held():
            answer = read_context(
                ContextReadRequest(
                    path=path,
                    profile=profile,
                    locale=locale,
                    explain=explain,
                    actor=_asker(),
                    comments=comments,
                ),
                workspace_of(),
            )
    except KapiError as err:
        _fail(err, as_json)
    if as_json:
        emit_json(answer.encoded())
    else:
        say(answer.markdown(), nl=False)


@context.command()
@click.argument("word")
@click.option("--locale", default="", help="Narrow the terms to a language.")
@click.option("--limit", default=10, show_default=True, help="At most this many per group.")
@click.option("--json", "as_json", is_flag=True, help="Print the groups as JSON.")
def search(word: str, locale: str, limit: int, as_json: bool) -> None:
    """Find WORD in the terms, approved wording and suggestions (agent or person).

    Each group is ranked on its own: terms (text and definitions), wording already
    approved in content memory, and suggestions not yet established.
    """
    from kapi.host.context import ContextSearchRequest, search_context

    try:
        result = search_context(
            ContextSearchRequest(query=word, locale=locale, limit=limit, actor=_asker()),
            workspace_of(),
        )
    except KapiError as err:
        _fail(err, as_json)
    if as_json:
        emit_json(result.encoded())
    else:
        say(result.text(), nl=False)


@context.command()
@click.argument("text", required=False, default="")
@click.option("--term", default="", help="The wording the files use.")
@click.option(
    "--instead-of", "instead_of", multiple=True, help="A wording they avoid (repeat for several)."
)
@click.option("--from", "from_", default="", help="A person's change: the old wording.")
@click.option("--to", default="", help="A person's change: the new wording.")
@click.option("--suggest", is_flag=True, help="With --from/--to: also suggest the rule it implies.")
@click.option("--advisory", is_flag=True, help="The rule should report, never fail.")
@click.option("--withdraw", default="", metavar="ID", help="Take back your own suggestion.")
@click.option("--seen-in", "seen_in", default="", metavar="FILE", help="The file it was seen in.")
@click.option("--unit", default="", help="The block or key in that file.")
@click.option("--quote", default="", help="The words as written there.")
@click.option("--note", default="", help="Why, in a few words.")
@click.option("--json", "as_json", is_flag=True, help="Print what was recorded as JSON.")
def note(
    text: str,
    term: str,
    instead_of: tuple[str, ...],
    from_: str,
    to: str,
    suggest: bool,
    advisory: bool,
    withdraw: str,
    seen_in: str,
    unit: str,
    quote: str,
    note: str,
    as_json: bool,
) -> None:
    """Record what the files do, or what a person changed (agent or person).

    \b
    kapi context note --term Quickcast --instead-of "Quick cast" --seen-in docs/a.md
    kapi context note "Product names are never translated" --seen-in docs/a.md
    kapi context note --from "log in" --to "sign in" --suggest --seen-in app/en.json
    kapi context note --withdraw 0n79tw5k9s

    A note needs evidence (--seen-in or --quote) and holds only where it was seen.
    It only advises: a person decides what becomes a rule (`kapi context review`).
    An agent may withdraw its own suggestion in the same session.
    """
    from kapi.host.context_ops import ContextNoteRequest, note_context

    request = ContextNoteRequest(
        actor=_actor(),
        text=text,
        term=term,
        instead_of=instead_of,
        from_=from_,
        to=to,
        suggest=suggest,
        advisory=advisory,
        withdraw=withdraw,
        path=seen_in,
        unit=unit,
        quote=quote,
        note=note,
    )
    try:
        recorded = note_context(request, workspace_of())
    except KapiError as err:
        _fail(err, as_json)
    if as_json:
        emit_json(recorded.encoded())
        return
    say(f"recorded {recorded.recorded}")
    say(recorded.next)
    say(f"A person reviews it with `{recorded.review}`.")


@context.command()
@click.option("--session", default="", metavar="ID|this", help="One session (this: yours).")
@click.option(
    "--status",
    type=click.Choice(["suggested", "contested", "established", "withdrawn", "dropped", "reset"]),
    help="Only operations with this status.",
)
@click.option("--actor", "actor_name", default="", help="Only operations by this actor.")
@click.option("--json", "as_json", is_flag=True, help="Print the operations as JSON.")
def log(session: str, status: str | None, actor_name: str, as_json: bool) -> None:
    """List the context operations with their status (agent or person).

    With --session, ends with the session's summary: what it recorded and the
    command a person reviews it with. An agent ends its work with
    `kapi context log --session this`.
    """
    from kapi.host.context_ops import (
        ContextLogRequest,
        ContextSessionRequest,
        read_context_log,
        session_summary,
    )

    actor = _actor()
    workspace = workspace_of()
    try:
        result = read_context_log(
            ContextLogRequest(
                actor=actor, session=session, status=status or "", actor_name=actor_name
            ),
            workspace,
        )
        summary = None
        if session:
            chosen = actor.session if session == "this" else session
            summary = session_summary(ContextSessionRequest(session=chosen, actor=actor), workspace)
    except KapiError as err:
        _fail(err, as_json)
    if as_json:
        data: dict[str, Any] = result.encoded()
        if summary is not None:
            data["summary"] = summary.encoded()
        emit_json(data)
        return
    for line in result.operations:
        say(line.line)
    if not result.operations:
        say("No operation matches." if session or status or actor_name else "The log is empty.")
    if summary is not None:
        say("")
        say(summary.report)


_DECIDE_HELP = "ID…|all"


@context.command()
@click.option(
    "--keep", multiple=True, metavar=_DECIDE_HELP, help="Keep a suggestion (or all of --session)."
)
@click.option("--drop", multiple=True, metavar="ID", help="Set aside a suggestion or a rule.")
@click.option(
    "--choose", multiple=True, metavar="ID", help="Keep one of contested rules, drop its rivals."
)
@click.option("--session", default="", metavar="ID", help="Only this session's suggestions.")
@click.option(
    "--use", default="", metavar="WORDING", help="Keep the rule with this wording instead."
)
@click.option(
    "--advisory/--binding", "advisory", default=None, help="Keep the rule as reporting only."
)
@click.option(
    "--widen-to", "widen_to", default="", metavar="AXIS|project", help="Widen a rule in force."
)
@click.option("--note", default="", help="Why, in a few words.")
@click.option("--peek", is_flag=True, help="Print the digest and ask nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the digest and decisions as JSON.")
def review(
    keep: tuple[str, ...],
    drop: tuple[str, ...],
    choose: tuple[str, ...],
    session: str,
    use: str,
    advisory: bool | None,
    widen_to: str,
    note: str,
    peek: bool,
    as_json: bool,
) -> None:
    """Decide what becomes a rule: keep, drop or choose suggestions (person only).

    In a terminal with no decision flags, walks each suggestion and asks. With
    --keep, --drop, --choose or --widen-to it asks nothing; --peek only prints the
    digest. A kept word rule is written to the terms store and binds in `kapi check`;
    the rules files in AGENTS.md / CLAUDE.md are refreshed. Agents are refused.
    """
    from kapi.host.context_ops import ContextReviewRequest, review_context

    request = ContextReviewRequest(
        actor=_actor(),
        keep=keep,
        drop=drop,
        choose=choose,
        session=session,
        use=use,
        advisory=advisory,
        widen_to=widen_to,
        note=note,
    )
    workspace = workspace_of()
    interactive = not (request.decides or peek or as_json) and sys.stdin.isatty()
    if interactive:
        _walk(request, workspace)
        return
    if not request.decides and not peek and not as_json:
        from kapi.core.change.ports import ActorKind

        if request.actor.kind != ActorKind.PERSON:
            peek = True
    try:
        result = review_context(request, workspace)
    except KapiError as err:
        _fail(err, as_json)
    if as_json:
        emit_json(result.encoded())
        return
    for decision in result.decisions:
        say(f"{decision.kind} #{decision.target[:10]}: {decision.text}")
    for skipped in result.skipped:
        warn(f"skipped #{skipped.operation[:10]}: {skipped.reason}")
    _print_digest(result.digest)


def _print_digest(digest: Any) -> None:
    empty = True
    from kapi.core.context.fold import rivals_text

    for title, items in (
        ("Conflicts", digest.conflicts),
        ("Established", digest.established),
        ("Suggested", digest.suggested),
        ("Drift", digest.drift),
    ):
        if not items:
            continue
        empty = False
        say(f"{title}:")
        for item in items:
            line = f"  #{item.short} {item.text} (noticed by {item.noticed_by}"
            line += f", seen in {item.seen_in})" if item.seen_in else ")"
            if item.contested_by:
                line += f" [contested by {rivals_text(item.contested_by)}]"
            if item.standing.text():
                line += f" · {item.standing.text()}"
            say(line)
    if empty:
        say("Nothing to review.")


def _walk(request: Any, workspace: Any) -> None:
    from attrs import evolve

    from kapi.host.context_ops import review_context

    try:
        digest = review_context(request, workspace).digest
    except KapiError as err:
        _fail(err, False)
    items = [*digest.conflicts, *digest.suggested]
    if not items:
        say("Nothing to review.")
        return
    from kapi.core.context.fold import in_force_outside, rivals_text

    choices: tuple[str, ...]
    for item in items:
        say(f"#{item.short} {item.text} (noticed by {item.noticed_by})")
        if item.contested_by and all(map(in_force_outside, item.contested_by)):
            say(f"  contested by {rivals_text(item.contested_by)}, a rule in force that stays")
            choices, hint = ("d", "s", "q"), "[d]rop, [s]kip, [q]uit"
        elif item.contested_by:
            say(f"  contested by {rivals_text(item.contested_by)}")
            choices, hint = ("c", "d", "s", "q"), "[c]hoose this one, [d]rop, [s]kip, [q]uit"
        else:
            choices, hint = ("k", "d", "s", "q"), "[k]eep, [d]rop, [s]kip, [q]uit"
        answer = click.prompt(f"  {hint}", type=click.Choice(choices), show_choices=False)
        if answer == "q":
            break
        if answer == "s":
            continue
        field = {"k": "keep", "d": "drop", "c": "choose"}[answer]
        try:
            done = review_context(evolve(request, **{field: (item.operation,)}), workspace)
        except KapiError as err:
            warn(f"Error: {err}")
            continue
        for decision in done.decisions:
            say(f"  {decision.kind} #{decision.target[:10]}")


@context.command()
@click.option(
    "--before", required=True, metavar="SESSION|DATE|ID", help="The first op to set aside."
)
@click.option("--dry-run", is_flag=True, help="Only list what would be set aside.")
@click.option("--json", "as_json", is_flag=True, help="Print what was set aside as JSON.")
def reset(before: str, dry_run: bool, as_json: bool) -> None:
    """Set aside everything the context recorded from a point on (person only).

    --before takes a session id, a date or instant (2026-03-01, 2026-03-01T12:00:00Z)
    or an op id; `--before <reset id>` undoes that reset. Content edits and review
    decisions on content are untouched; rules that were kept since then leave the
    terms store.
    """
    from kapi.host.context_ops import ContextResetRequest, reset_context

    try:
        result = reset_context(
            ContextResetRequest(actor=_actor(), before=before, dry_run=dry_run), workspace_of()
        )
    except KapiError as err:
        _fail(err, as_json)
    if as_json:
        emit_json(result.encoded())
        return
    verb = "would set aside" if dry_run else "set aside"
    say(f"{verb} {len(result.set_aside)} operation(s):")
    for line in result.set_aside:
        say(f"  {line.line}")


@context.command()
@click.option(
    "--merged",
    default="",
    metavar="RANGE",
    help="Read the merges of a git range (e.g. main~5..main) as signals.",
)
@click.option(
    "--files-only",
    is_flag=True,
    help="Only bring the terms store and the rules files in step with the log.",
)
@click.option("--json", "as_json", is_flag=True, help="Print what changed as JSON.")
def sync(merged: str, files_only: bool, as_json: bool) -> None:
    """Read merged changes into the context, and rewrite the rules files (person only).

    --merged RANGE reads the merges of a git range (first parent, so a merged pull
    request is one change; run it in CI after a merge): for each rule the context
    states, the lines a merge added with the preferred wording and removed with an
    avoided one become a merge signal, which settles a suggestion as a person's
    signal would. Reading a range twice records nothing new. --files-only rewrites
    kapi's section of AGENTS.md and CLAUDE.md (only the text between
    `<!-- kapi:rules` and `<!-- /kapi:rules -->` is kapi's), after writing to the
    terms store any rule the log establishes that it lacks.

    A team backend (`context.backend` in kapi.yaml) is not available yet: move the
    log through git with `kapi store export` / `kapi store import`.
    """
    from kapi.core.context.errors import ContextRefused
    from kapi.core.context.policy import REVIEW_HINT
    from kapi.host.errors import EXIT_USAGE, HostError

    actor = _actor()
    if actor.kind != "person":
        _fail(
            ContextRefused(
                f"only a person syncs the context (or CI, as the person's tool); {REVIEW_HINT}"
            ),
            as_json,
        )
    if merged and files_only:
        _fail(
            HostError("--merged and --files-only exclude one another", exit_code=EXIT_USAGE),
            as_json,
        )
    if merged:
        from kapi.host.context_signals import ContextSyncRequest, sync_merged

        try:
            done = sync_merged(ContextSyncRequest(actor=actor, merged=merged), workspace_of())
        except KapiError as err:
            _fail(err, as_json)
        if as_json:
            emit_json(done.encoded())
            return
        say(f"read {done.commits} merged commit(s); {len(done.signals)} signal(s) recorded")
        for line in done.signals:
            say(f"  #{line.operation[:10]} {line.text}")
        for op_id in done.settled:
            say(f"settled #{op_id[:10]}: established by the merges")
        return
    if not files_only:
        _fail(
            HostError(
                "no context backend is set (context.backend in kapi.yaml): "
                "`kapi context sync --merged RANGE` reads merged changes, `--files-only` "
                "rewrites the rules files, and `kapi store export` / `kapi store import` "
                "move the log through git",
                exit_code=EXIT_USAGE,
            ),
            as_json,
        )
    from kapi.host.context_rules import write_rules_files
    from kapi.host.context_write import bring_in_step

    workspace = workspace_of()
    try:
        moved = bring_in_step(workspace, actor)
        result = write_rules_files(workspace)
    except KapiError as err:
        _fail(err, as_json)
    if moved and not as_json:
        say(f"brought {moved} rule(s) of the terms store in step with the log")
    if as_json:
        emit_json(result.encoded())
        return
    for change in result.files:
        say(f"{change.outcome} {change.path}")
