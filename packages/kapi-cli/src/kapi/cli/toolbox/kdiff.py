"""``kdiff``: two versions of a document compared block by block."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from kapi.cli.toolbox import CONTEXT, one_line, run, stop, toolbox_warn

if TYPE_CHECKING:
    from kapi.host.toolbox_diff import DiffResult

__all__ = ["kdiff", "main"]


@click.command(context_settings=CONTEXT)
@click.argument("file_a")
@click.argument("file_b", required=False)
@click.option("--format", "format_name", metavar="FORMAT", help="Read both as FORMAT.")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the kapi.change/v1 change set that turns A's text into B's.",
)
def kdiff(file_a: str, file_b: str | None, format_name: str | None, as_json: bool) -> None:
    """Compare FILE_A with FILE_B block by block: added, removed, changed and moved blocks.

    Blocks pair by key and text, so a reordered catalogue shows moves and a
    reflowed DOCX shows only the prose that changed. With one FILE, compare it
    with its text at git HEAD (git runs in the file's folder). The change set of
    --json edits FILE_A's blocks (with one FILE: the file as HEAD holds it).

    \b
    Exit codes: 0 the same text; 1 they differ; 2 trouble (a file that cannot be
    read, lies outside the project, or is not in git HEAD).
    """
    from kapi.cli.common import workspace_of
    from kapi.host.errors import HostError
    from kapi.host.toolbox_diff import DiffRequest, run_diff

    try:
        result = run_diff(
            DiffRequest(file_a=file_a, file_b=file_b, format_name=format_name), workspace_of()
        )
    except HostError as err:
        stop("kdiff", err)
    if as_json:
        from kapi.host.toolbox_sed import change_set_json

        click.echo(change_set_json(result.change_set))
    else:
        _print(result)
    for note in result.left_out:
        toolbox_warn("kdiff", f"note: {note}")
    sys.exit(result.exit_code)


_LONG = 60  # past this many characters, a changed block also shows the words that changed


def _print(result: DiffResult) -> None:
    from kapi.cli.output import printable
    from kapi.host.toolbox_diff import word_diff

    if not result.changes:
        return
    click.echo(printable(f"--- {result.a}\n+++ {result.b}"))
    for change in result.changes:
        head = f"{change.kind} {one_line(change.key)}"
        if change.kind == "moved" or change.moved:
            head += f" (block {change.n_a} → {change.n_b})"
        click.echo(printable(head))
        if change.kind in ("changed", "removed"):
            click.echo(printable(f"  - {one_line(change.before or '')}"))
        if change.kind in ("changed", "added"):
            click.echo(printable(f"  + {one_line(change.after or '')}"))
        before, after = change.before or "", change.after or ""
        if change.kind == "changed" and min(len(before), len(after)) > _LONG:
            click.echo(printable(f"  ~ {one_line(word_diff(before, after))}"))


def main() -> None:
    run("kdiff", kdiff)
