"""``kapi review``: the translations waiting for a person's decision."""

from __future__ import annotations

import click

from kapi.cli.common import workspace_of
from kapi.cli.output import emit_json, fail, table, warn
from kapi.host.errors import KapiError


@click.group()
def review() -> None:
    """The review queue: translations waiting for a person's decision.

    A decision is a `decide` op (`establish`, `reject`, `withdraw`) sent with
    `kapi apply` at the row's ref, with its rev as `if_match`.
    """


@review.command()
@click.option("--language", metavar="L", help="Only this target language.")
@click.option("--collection", metavar="C", help="Only this collection of the recipe.")
@click.option("--json", "as_json", is_flag=True, help="Print the queue as JSON.")
def queue(language: str | None, collection: str | None, as_json: bool) -> None:
    """List the pending translations, each with the ref and rev a decide op takes."""
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
            f"{i.ref.doc}#{i.ref.block}@{i.ref.edition}",
            i.rev,
            i.status + (" (stale)" if i.stale else ""),
            "" if i.score is None else str(i.score),
            i.target,
        )
        for i in result.pending
    ]
    click.echo(table(("REF", "REV", "STATUS", "SCORE", "TARGET"), rows))
    warn(f"{result.total} pending")
