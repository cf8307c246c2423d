"""``kapi extract`` and ``kapi merge``: hand a project's content to a translator's tool (XLIFF, PO)."""

from __future__ import annotations

import sys

import click

from kapi.cli.common import workspace_of
from kapi.cli.output import emit_json, fail, warn
from kapi.host.errors import KapiError


@click.command()
@click.argument("files", nargs=-1)
@click.option("--to", "language", required=True, metavar="LANG", help="The target language.")
@click.option("-o", "--output", required=True, metavar="FILE", help="The file to write.")
@click.option(
    "--format",
    "format_name",
    type=click.Choice(["xliff20", "xliff12", "po"]),
    default="xliff20",
    show_default=True,
    help="The interchange format.",
)
@click.option(
    "--max-chars",
    type=click.IntRange(min=0),
    default=0,
    metavar="N",
    help="A length limit for every unit (a block's own lower limit wins).",
)
@click.option("--json", "as_json", is_flag=True, help="Print what was written as JSON.")
def extract(
    files: tuple[str, ...],
    language: str,
    output: str,
    format_name: str,
    max_chars: int,
    as_json: bool,
) -> None:
    """Write the translatable blocks of FILES (default: the project's) as XLIFF or PO for LANG.

    One unit per block, inline codes as <ph>/<pc>, existing translations as targets
    with their state, length limits where a unit has one; the project id and each
    unit's revisions are recorded so `kapi merge` can tell what moved meanwhile.
    """
    from kapi.host.interchange import ExtractRequest, run_extract

    workspace = workspace_of()
    try:
        result = run_extract(
            ExtractRequest(
                language=language,
                output=output,
                docs=files,
                format=format_name,
                max_chars=max_chars,
            ),
            workspace,
        )
    except KapiError as err:
        fail(err, as_json=as_json)
    if as_json:
        emit_json(result.encoded())
    for note in result.left_out:
        warn(f"left out {note}")
    warn(f"wrote {result.file}: {result.units} unit(s) in {result.language}")


@click.command()
@click.argument("file")
@click.option("--json", "as_json", is_flag=True, help="Print each unit's outcome as JSON.")
def merge(file: str, as_json: bool) -> None:
    """Land the targets of a returned XLIFF or PO FILE in the project's files.

    \b
    Exit codes: 0 every target landed; 3 some refused (stale, guard): the rest landed;
    2 a file that is not well-formed or from another project (nothing merged).
    """
    from kapi.host.interchange import MergeRequest, run_merge

    workspace = workspace_of()
    try:
        result = run_merge(MergeRequest(file=file), workspace)
    except KapiError as err:
        fail(err, as_json=as_json)
    if as_json:
        emit_json(result.encoded())
    for unit in result.units:
        if unit.status == "refused":
            warn(f"refused {unit.doc} {unit.block} ({unit.code}): {unit.reason}")
        elif unit.status == "skipped":
            warn(f"skipped {unit.doc} {unit.block}: {unit.reason}")
    landed = sum(u.status == "applied" for u in result.units)
    warn(f"{result.status}: {landed} of {len(result.units)} target(s) landed")
    sys.exit(result.exit_code)
