"""``kapi mcp`` (and the ``kapi-mcp`` script): serve kapi's tools over stdio."""

from __future__ import annotations

import sys
from pathlib import Path

import click

__all__ = ["main", "mcp"]


@click.command(name="mcp")
@click.option(
    "--tools",
    "tool_sets",
    multiple=True,
    metavar="SETS",
    help="Tool sets to serve, comma-separated: writing (default), content, translation, "
    "review, all.",
)
@click.option(
    "--all-tools", is_flag=True, help="Also serve the listing and first-generation tools."
)
@click.option("--all-flows", is_flag=True, help="Also serve run_flow and list_flows.")
@click.option("--all", "everything", is_flag=True, help="Every set, --all-tools and --all-flows.")
@click.option(
    "-p",
    "--project",
    metavar="PATH",
    help="The project to serve: its kapi.yaml, its root, or any path inside it.",
)
def mcp(
    tool_sets: tuple[str, ...],
    all_tools: bool,
    all_flows: bool,
    everything: bool,
    project: str | None,
) -> None:
    """Serve kapi's tools to an agent host over MCP (stdio).

    \b
    The default writing set: context_read, context_search, context_note,
    context_session_summary, check_file, read_blocks, apply_edits, describe_format,
    and the context:// resources. Every write is recorded as the calling agent's.
    An agent may record suggestions and edit content; what becomes a rule is a
    person's to decide (kapi context review).
    """
    from kapi.mcp.server import ServerOptions, serve
    from kapi.mcp.sets import UnknownToolSet, parse_sets

    try:
        sets = parse_sets(("all",) if everything else tool_sets)
    except UnknownToolSet as err:
        raise click.UsageError(str(err)) from None
    if project is not None:
        from kapi.core.errors import KapiError
        from kapi.host.workspace import open_workspace

        try:
            open_workspace(project=project).close()
        except KapiError as err:
            raise click.UsageError(f"project {project!r}: {err}") from None
    options = ServerOptions(
        sets=sets,
        all_tools=all_tools or everything,
        all_flows=all_flows or everything,
        project=str(Path(project).resolve()) if project else None,
        cwd=Path.cwd(),
    )
    serve(options)


def main() -> None:
    from kapi.host.codegen import install

    install()  # before the server's classes are defined (``kapi mcp`` has it from kapi's start)
    mcp(prog_name="kapi-mcp")
    sys.exit(0)
