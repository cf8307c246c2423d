"""``kgrep``: grep over block text, skipping markup, whatever the format."""

from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING

import click

from kapi.cli.toolbox import CONTEXT, one_line, run, say_json, shown_path, stop, toolbox_warn

if TYPE_CHECKING:
    from kapi.host.toolbox import FileMatches

__all__ = ["kgrep", "main"]

_GLOB = re.compile(r"[*?\[{]")


@click.command(context_settings=CONTEXT)
@click.argument("pattern")
@click.argument("files", nargs=-1)
@click.option("-i", "--ignore-case", is_flag=True, help="Match upper and lower case alike.")
@click.option("-v", "--invert-match", is_flag=True, help="Select the blocks that do not match.")
@click.option("-c", "--count", is_flag=True, help="Print how many blocks each file selects.")
@click.option("-n", "--block-number", is_flag=True, help="Prefix each block's number (kcat -n's).")
@click.option(
    "-o", "--only-matching", is_flag=True, help="Print only the matched text, one per line."
)
@click.option("-l", "--files-with-matches", is_flag=True, help="Print only the files that match.")
@click.option("-L", "--files-without-match", is_flag=True, help="Print only the files that do not.")
@click.option("-w", "--word-regexp", is_flag=True, help="Match whole words only.")
@click.option("-F", "--fixed-strings", is_flag=True, help="PATTERN is text, not a regexp.")
@click.option(
    "-r", "--recursive", is_flag=True, help="Search folders (the current one if none named)."
)
@click.option(
    "-H", "--with-filename", is_flag=True, help="Prefix the file's name (default for several)."
)
@click.option("--target", metavar="LANG", help="Search the LANG translation instead.")
@click.option(
    "--format", "format_name", metavar="FORMAT", help="Read as FORMAT (needed for stdin)."
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="One JSON object per selected block: path, ref, n, text, matches (start, end, text).",
)
def kgrep(
    pattern: str,
    files: tuple[str, ...],
    ignore_case: bool,
    invert_match: bool,
    count: bool,
    block_number: bool,
    only_matching: bool,
    files_with_matches: bool,
    files_without_match: bool,
    word_regexp: bool,
    fixed_strings: bool,
    recursive: bool,
    with_filename: bool,
    target: str | None,
    format_name: str | None,
    as_json: bool,
) -> None:
    """Search the text of each block of FILES for PATTERN (a Python regexp), skipping markup.

    A block is grep's line: its text as kcat prints it, a placeholder as written, a
    link by its text. Offsets in --json count characters (code points) of that text.
    FILE may be a glob, a folder (with -r) or - for stdin with --format. With no
    FILE: the project's content, else stdin; with -r and no FILE, the current folder.

    \b
    Exit codes: 0 a block was selected; 1 none was; 2 an error (bad regexp, a file
    that could not be read or lies outside the project).
    """
    from kapi.cli.common import workspace_of
    from kapi.host.errors import HostError
    from kapi.host.toolbox import FileMatches, GrepRequest, compile_pattern, run_grep

    if files_with_matches and files_without_match:
        stop("kgrep", HostError("-l and -L exclude one another", exit_code=2))
    try:
        compile_pattern(pattern, ignore_case=ignore_case, word=word_regexp, fixed=fixed_strings)
    except HostError as err:
        stop("kgrep", err)
    workspace = workspace_of()
    names = (
        with_filename
        or recursive
        or len(files) > 1
        or any(_GLOB.search(f) or _is_folder(f) for f in files)
        or (not files and workspace.project is not None)
    )
    request = GrepRequest(
        pattern=pattern,
        paths=files,
        ignore_case=ignore_case,
        invert=invert_match,
        word=word_regexp,
        fixed=fixed_strings,
        recursive=recursive,
        format_name=format_name,
        target=target,
    )
    failed = selected = listed = 0
    try:
        for item in run_grep(request, workspace, stdin_is_terminal=sys.stdin.isatty()):
            if not isinstance(item, FileMatches):
                toolbox_warn("kgrep", item.message)
                failed += 1
                continue
            path = shown_path(item.path)
            selected += len(item.blocks)
            if files_with_matches or files_without_match:
                if bool(item.blocks) == files_with_matches:
                    listed += 1
                    say_json({"path": item.path}) if as_json else click.echo(_safe(path))
                continue
            if count:
                if as_json:
                    say_json({"path": item.path, "count": len(item.blocks)})
                else:
                    click.echo(
                        _safe(f"{path}:{len(item.blocks)}" if names else str(len(item.blocks)))
                    )
                continue
            _print_blocks(
                item, path, names=names, numbers=block_number, only=only_matching, as_json=as_json
            )
    except HostError as err:
        stop("kgrep", err)
    if failed:
        sys.exit(2)
    if files_without_match:
        sys.exit(0 if listed else 1)
    sys.exit(0 if selected else 1)


def _print_blocks(
    item: FileMatches, path: str, *, names: bool, numbers: bool, only: bool, as_json: bool
) -> None:
    if as_json:
        from kapi.host.wire import encode

        for block in item.blocks:
            say_json({"path": item.path, **encode(block)})
        return
    for block in item.blocks:
        prefix = (f"{path}:" if names else "") + (f"{block.n}:" if numbers else "")
        if only:
            for match in block.matches:
                if match.text:
                    click.echo(_safe(prefix + one_line(match.text)))
        else:
            click.echo(_safe(prefix + one_line(block.text)))


def _is_folder(path: str) -> bool:
    import os

    return path != "-" and os.path.isdir(path)


def _safe(text: str) -> str:
    from kapi.cli.output import printable

    return printable(text)


def main() -> None:
    run("kgrep", kgrep)
