"""``kapi review``: the editions waiting for a person's decision, listed or walked in a terminal."""

from __future__ import annotations

import sys
from typing import Any

import click

from kapi.cli.common import workspace_of
from kapi.cli.output import emit_json, fail, table, warn
from kapi.host.errors import EXIT_USAGE, HostError, KapiError

_NOT_A_TERMINAL = (
    "`kapi review` walks the queue in a terminal; here list it with `kapi review queue --json` "
    "and send decide ops with `kapi apply`"
)


@click.group(invoke_without_command=True)
@click.option("--language", metavar="L", help="Only this language.")
@click.option("--collection", metavar="C", help="Only this collection of the recipe.")
@click.pass_context
def review(ctx: click.Context, language: str | None, collection: str | None) -> None:
    """Walk the review queue in a terminal: establish, reject, edit or skip each edition.

    For each pending translation (and each source, when the recipe has
    translation wait for established sources) it shows the source, the target,
    the blocks around it, the content memory's best match, the findings on it
    and an agent's advice. A decision is a `decide` op sent as you (a person);
    `kapi review queue` lists the same editions for a script or an agent.
    """
    if ctx.invoked_subcommand is not None:
        return
    if not sys.stdin.isatty():
        fail(HostError(_NOT_A_TERMINAL, exit_code=EXIT_USAGE), as_json=False)
    from kapi.host.review import review_queue

    workspace = workspace_of()
    try:
        result = review_queue(workspace, language=language, collection=collection)
    except KapiError as err:
        fail(err, as_json=False)
    if not result.pending:
        click.echo("Nothing to review.")
        return
    for number, item in enumerate(result.pending, 1):
        if not _walk_one(workspace, item, f"[{number}/{result.total}]"):
            break


def _walk_one(workspace: Any, item: Any, counter: str) -> bool:
    """Show one edition and act on the answer; False when the person quits."""
    from kapi.host.review import decide_on, edit_under_review, review_block

    ref, rev = item.ref, item.rev
    while True:
        try:
            shown = review_block(workspace, ref.doc, ref.block, ref.edition)
        except KapiError as err:
            warn(f"{ref.doc} {ref.block}: {err}")
            return True
        _show(shown, counter)
        answer = click.prompt(
            "  [e]stablish, [r]eject, e[d]it, [s]kip, [q]uit",
            type=click.Choice(("e", "r", "d", "s", "q")),
            show_choices=False,
        )
        if answer == "q":
            return False
        if answer == "s":
            return True
        rev = shown.item.rev
        if answer == "d":
            current = shown.item.source if shown.item.is_source else shown.item.target
            text = click.prompt("  new text", default=current, show_default=False)
            done = edit_under_review(workspace, ref, rev, text)
            if done.status != "applied":
                warn(f"  refused ({done.code}): {done.reason}")
            continue  # show it again, as it now reads
        reason = ""
        if answer == "r":
            reason = click.prompt("  why (optional)", default="", show_default=False)
        outcome = "establish" if answer == "e" else "reject"
        done = decide_on(workspace, ref, rev, outcome, (reason,) if reason else ())
        if done.status == "applied":
            click.echo(f"  {outcome}ed" if outcome == "reject" else "  established")
        else:
            warn(f"  refused ({done.code}): {done.reason}")
        return True


def _show(shown: Any, counter: str) -> None:
    item = shown.item
    where = f"{item.ref.doc} {item.ref.block}" + (
        " (source)" if item.is_source else f" → {item.ref.edition}"
    )
    state = item.status + (", stale: its source moved" if item.stale else "")
    click.echo("")
    click.echo(f"{counter} {where}  [{state}]")
    for near in shown.neighbours:
        if near.position == "before":
            click.echo(f"    … {near.target or near.source}")
    click.echo(f"  source: {item.source}")
    if not item.is_source:
        click.echo(f"  target: {item.target}")
    for near in shown.neighbours:
        if near.position == "after":
            click.echo(f"    … {near.target or near.source}")
    memory = shown.memory
    if memory is not None:
        click.echo(f"  memory: {round(memory.score * 100)}% {memory.source} → {memory.target}")
    for finding in shown.findings:
        level = "fails" if finding.fails else "note"
        at = f' "{finding.excerpt}"' if finding.excerpt else ""
        click.echo(f"  {level} {finding.rule} ({finding.on}){at}: {finding.message}")
    if item.score is not None:
        why = f": {'; '.join(item.reasons)}" if item.reasons else ""
        click.echo(f"  advice: {item.score}/100{why}")


@review.command()
@click.option("--language", metavar="L", help="Only this language.")
@click.option("--collection", metavar="C", help="Only this collection of the recipe.")
@click.option("--json", "as_json", is_flag=True, help="Print the queue as JSON.")
def queue(language: str | None, collection: str | None, as_json: bool) -> None:
    """List the pending editions, each with the ref and rev a decide op takes."""
    from kapi.host.review import review_queue

    workspace = workspace_of()
    try:
        result = review_queue(workspace, language=language, collection=collection)
    except KapiError as err:
        fail(err, as_json=as_json)
    if as_json:
        emit_json(result.encoded())
        return
    rows = [
        (
            f"{i.ref.doc}#{i.ref.block}" + (f"@{i.ref.edition}" if i.ref.edition else ""),
            i.rev,
            i.status + (" (stale)" if i.stale else ""),
            "" if i.score is None else str(i.score),
            i.source if i.is_source else i.target,
        )
        for i in result.pending
    ]
    click.echo(table(("REF", "REV", "STATUS", "SCORE", "TEXT"), rows))
    warn(f"{result.total} pending")
