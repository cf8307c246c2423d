"""The verbs on files and the project: ``inspect``, ``apply``, ``stats``, ``formats``, ``init``.

Each parses its flags, calls one :mod:`kapi.host` function (imported inside the verb) and
prints; :data:`kapi.cli.main.LAZY_VERBS` loads this module when one of them is run.
"""

from __future__ import annotations

import sys

import click

from kapi.cli.common import (
    format_option,
    locale_of,
    project_inputs,
    source_lang_option,
    workspace_of,
)
from kapi.cli.output import emit_json, emit_json_text, fail, gc_held, pretty, table, warn
from kapi.host.errors import HostError


@click.command()
@click.argument("files", nargs=-1)
@click.option("--jsonl", is_flag=True, help="One record per line instead of a JSON array.")
@source_lang_option
@format_option
def inspect(files: tuple[str, ...], jsonl: bool, source_lang: str, format_name: str | None) -> None:
    """Show every block of FILES as an agent reads it: ref, rev, edit text, codes, ops.

    Send a `rev` back as `if_match` in a change set (`kapi apply`) to edit the block.
    """
    from kapi.host.inspect import InspectRequest, InspectResult, InspectStream, run_inspect

    workspace = workspace_of(source_lang)
    try:
        request = InspectRequest(
            paths=tuple(project_inputs(files, workspace)), format_name=format_name
        )
        result: InspectResult | InspectStream
        if jsonl or pretty():
            result = run_inspect(request, workspace)
        else:  # compact: written as the files are read, never all held
            result = InspectStream(request, workspace)
    except HostError as err:
        fail(err)
    with gc_held():
        if isinstance(result, InspectStream):
            emit_json_text(result.encoded_json_chunks())
        else:
            emit_json(result.encoded(), jsonl=jsonl)
    for failure in result.failures:
        warn(f"Error: {failure.message}")
    sys.exit(result.exit_code)


@click.command()
@click.argument("change_set", required=False, default=None)
@click.option(
    "--dry-run", is_flag=True, help="Preview: check everything and print diffs, write nothing."
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print the kapi.change-result/v1 result on stdout."
)
@click.option("--gate", type=click.Choice(["enforce", "report"]), help="Override the set's gate.")
@click.option(
    "--print-ops", is_flag=True, help="Print the decoded change set and exit (nothing applied)."
)
@click.option(
    "--schema",
    "schema",
    is_flag=False,
    flag_value="",
    default=None,
    metavar="[OP]",
    help="Print the JSON Schema of a change set (or of one OP) and exit.",
)
@source_lang_option
def apply(
    change_set: str | None,
    dry_run: bool,
    as_json: bool,
    gate: str | None,
    print_ops: bool,
    schema: str | None,
    source_lang: str,
) -> None:
    """Apply a kapi.change/v1 CHANGE_SET (a file, or - / stdin): all of it, or nothing.

    \b
    Exit codes: 0 applied or previewed; 2 undecodable or invalid;
    3 refused (stale, not_found, guard, …) or partial; 5 unreachable.
    """
    from kapi.cli.apply_run import print_result, read_set, run_apply

    if schema is not None:
        from kapi.host.apply import change_set_schema

        try:
            emit_json(change_set_schema(schema or None))
        except HostError as err:
            fail(err)
        return
    workspace = workspace_of(source_lang)
    if print_ops:
        from kapi.core.change import wire
        from kapi.core.change.errors import ChangeError
        from kapi.host.apply import decode_input, error_result

        try:
            decoded = decode_input(read_set(change_set, workspace))
        except ChangeError as err:
            print_result(error_result(err), as_json=True, dry_run=False)
            sys.exit(err.exit_code)
        emit_json(wire.encode_change_set(decoded))
        return
    run_apply(change_set, workspace, dry_run=dry_run, as_json=as_json, gate=gate)


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the formats as JSON.")
def formats(as_json: bool) -> None:
    """List the formats kapi reads and writes, and what a change set may do to each."""
    from kapi.host.formats import list_formats
    from kapi.host.wire import encode

    specs = list_formats()
    if as_json:
        emit_json(encode(specs))
        return
    yes = {True: "yes", False: "-"}
    rows = [
        (
            s.name,
            " ".join(s.extensions),
            yes[s.editable],
            yes[s.round_trip],
            yes[s.generative],
            s.editions,
            s.title,
        )
        for s in specs
    ]
    click.echo(
        table(
            ("FORMAT", "EXTENSIONS", "EDIT", "ROUND-TRIP", "GENERATIVE", "EDITIONS", "DESCRIPTION"),
            rows,
        )
    )


@click.command()
@click.argument("files", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print the counts as JSON.")
@source_lang_option
@format_option
def stats(files: tuple[str, ...], as_json: bool, source_lang: str, format_name: str | None) -> None:
    """Count blocks, words and characters of translatable content in FILES."""
    from kapi.host.stats import StatsRequest, run_stats
    from kapi.host.wire import encode

    workspace = workspace_of(source_lang)
    try:
        request = StatsRequest(
            paths=tuple(project_inputs(files, workspace)), format_name=format_name
        )
        result = run_stats(request, workspace)
    except HostError as err:
        fail(err, as_json=as_json)
    counts = result.counts
    if as_json:
        emit_json(encode(counts))
    else:
        rows = [(f.path, f.format, f.blocks, f.words, f.characters) for f in counts.files]
        total = counts.total
        rows.append(("total", "", total.blocks, total.words, total.characters))
        click.echo(table(("FILE", "FORMAT", "BLOCKS", "WORDS", "CHARACTERS"), rows))
    for failure in result.failures:
        warn(f"Error: {failure.message}")
    sys.exit(result.exit_code)


@click.command()
@click.option(
    "--source-lang", default="en", show_default=True, help="The language content is written in."
)
@click.option(
    "--force",
    is_flag=True,
    help="Replace an existing kapi.yaml, keeping its project id (a person's; agents are refused).",
)
@click.option("--json", "as_json", is_flag=True, help="Print what was written as JSON.")
@click.option(
    "--no-rules-files",
    "no_rules_files",
    is_flag=True,
    help="Do not write kapi's section of AGENTS.md and CLAUDE.md.",
)
@click.option(
    "--agents",
    metavar="LIST|all|none",
    default=None,
    help="Agent hosts to wire: claude-code, cursor, vscode, codex, agents (comma-separated), "
    "all or none (default: Claude Code, and each host whose folder is here).",
)
@click.argument("folder", required=False, default=".")
def init(
    source_lang: str,
    force: bool,
    as_json: bool,
    no_rules_files: bool,
    agents: str | None,
    folder: str,
) -> None:
    """Create kapi.yaml for FOLDER from the catalogues and documents found in it.

    Catalogues named by language (locales/en.json beside locales/fr.json, gettext
    .pot/.po, XLIFF, Android values*/, iOS *.lproj, Rails config/locales) become
    collections with target templates; Markdown and HTML become docs collections.
    Templates (Jinja, Liquid, Handlebars, Go), tests, dependencies, build output and
    vendored folders are left out; what was found and left out goes to stderr.
    kapi's own rules files (AGENTS.md, CLAUDE.md) are never content. Also writes
    .kapi/.gitignore, so the local store stays out of version control.

    Wires the agent hosts: the MCP entry `kapi mcp --project kapi.yaml` in .mcp.json,
    .cursor/mcp.json, .vscode/mcp.json or .codex/config.toml, and the kapi skill in
    .claude/skills/kapi/ and .agents/skills/kapi/; an entry someone else wrote is kept.
    Where kapi.yaml exists already (and no --force), it is kept as it is and only the
    wiring and the rules files are written. A second run changes nothing.
    """
    from pathlib import Path

    from kapi.host.actor import actor_from_env
    from kapi.host.init import InitRequest, run_init

    try:
        request = InitRequest(
            folder=Path(folder),
            source_language=locale_of(source_lang),
            force=force,
            rules_files=not no_rules_files,
            agents=agents,
        )
        result = run_init(request, actor_kind=actor_from_env().actor.kind)
    except HostError as err:
        fail(err, as_json=as_json)
    if as_json:
        from kapi.host.wire import encode

        emit_json(encode(result.summary))
        return
    plan = result.plan
    if plan is None:
        warn(f"kept {result.recipe} as it is (--force replaces it)")
    else:
        click.echo(plan.recipe_text(), nl=False)
        for collection in plan.collections:
            warn(f"found {collection.name}: {collection.files} file(s), {collection.path}")
        for out in plan.left_out:
            warn(f"left out {out.path}: {out.reason}")
        for note in plan.notes:
            warn(note)
        warn(f"wrote {result.recipe} and {result.ignore}")
    for change in result.rules_files:
        warn(f"{change.outcome} {change.path} (kapi's section of the rules files)")
    wiring = result.agents
    for wired in wiring.files if wiring is not None else ():
        warn(f"{wired.action} {wired.path} ({wired.host}: {wired.detail})")
        for name in wired.removed:
            warn(f"  removed {wired.path}/{name} (an earlier kapi's copy)")
        for name in wired.kept:
            warn(f"  kept {wired.path}/{name} (not kapi's)")
    for note in wiring.notes if wiring is not None else ():
        warn(note)
    if plan is not None and not plan.collections:
        warn("no catalogues or documents found; add collections to kapi.yaml")
