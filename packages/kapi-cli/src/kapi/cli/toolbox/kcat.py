"""``kcat``: the text of every block, one per line, whatever the format."""

from __future__ import annotations

import sys

import click

from kapi.cli.toolbox import CONTEXT, one_line, run, say_json, stop, toolbox_warn

__all__ = ["kcat", "main"]


@click.command(context_settings=CONTEXT)
@click.argument("files", nargs=-1)
@click.option(
    "-n", "--number", is_flag=True, help="Number the blocks, across all files, as cat -n."
)
@click.option("--id", "show_id", is_flag=True, help="Start each line with the block's key.")
@click.option(
    "--target", metavar="LANG", help="Print the LANG translation (blocks without one are left out)."
)
@click.option("-r", "--recursive", is_flag=True, help="Read folders, and what is below them.")
@click.option(
    "-f", "--format", "format_name", metavar="FORMAT", help="Read as FORMAT (needed for stdin, -)."
)
@click.option(
    "--json", "as_json", is_flag=True, help="One JSON object per block: path, ref, n, text."
)
def kcat(
    files: tuple[str, ...],
    number: bool,
    show_id: bool,
    target: str | None,
    recursive: bool,
    format_name: str | None,
    as_json: bool,
) -> None:
    """Print the text of each block of FILES, one block per line, whatever the format.

    Markup is left out: a placeholder shows as written, bold as its text. A line
    break inside a block is written \\n (--json keeps it). FILE may be a glob, a
    folder (with -r) or - for stdin with -f. With no FILE: the project's content,
    else stdin.

    \b
    Exit codes: 0 every file read; 2 a file could not be read (the others are printed).
    """
    from kapi.cli.common import workspace_of
    from kapi.host.errors import HostError
    from kapi.host.toolbox import ListedFile, ListRequest, list_blocks

    workspace = workspace_of()
    request = ListRequest(paths=files, recursive=recursive, format_name=format_name, target=target)
    failed = False
    count = 0
    try:
        for item in list_blocks(request, workspace, stdin_is_terminal=sys.stdin.isatty()):
            if not isinstance(item, ListedFile):
                toolbox_warn("kcat", item.message)
                failed = True
                continue
            for block in item.blocks:
                count += 1
                if as_json:
                    from kapi.host.wire import encode

                    say_json({"path": item.path, **encode(block)})
                    continue
                prefix = f"{count:6}\t" if number else ""
                if show_id:
                    prefix += f"{one_line(block.ref.block or '')}\t"
                click.echo(_printable(prefix + one_line(block.text)))
    except HostError as err:
        stop("kcat", err)
    sys.exit(2 if failed else 0)


def _printable(text: str) -> str:
    from kapi.cli.output import printable

    return printable(text)


def main() -> None:
    run("kcat", kcat)
