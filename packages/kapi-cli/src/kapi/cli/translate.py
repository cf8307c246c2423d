"""``kapi translate``, ``kapi up``, ``kapi status``, ``kapi pseudo-translate`` and ``kapi memory``."""

from __future__ import annotations

import sys
from typing import Any

import click

from kapi.cli.common import say_recipe_warnings, workspace_of
from kapi.cli.output import emit_json, fail, say, table, warn
from kapi.host.errors import HostError, KapiError

__all__ = [
    "exec_command",
    "flows",
    "memory",
    "pseudo_translate",
    "run",
    "status",
    "tools",
    "translate",
    "up",
]


def _show(headers: list[str], rows: list[list[str]]) -> None:
    say(table(headers, rows))


def provider_options(function: Any) -> Any:
    for option in reversed(
        [
            click.option(
                "--provider",
                default="",
                help="pseudo, memory, openai, anthropic or deepl (default: the recipe's).",
            ),
            click.option(
                "--model",
                default="",
                help="The model an LLM provider uses (default: the recipe's).",
            ),
            click.option(
                "--batch-size", default=40, show_default=True, help="Segments per request."
            ),
            click.option(
                "--timeout", default=60.0, show_default=True, help="Seconds to wait for a reply."
            ),
            click.option(
                "--retries", default=3, show_default=True, help="Retries on 429, 5xx and timeouts."
            ),
        ]
    ):
        function = option(function)
    return function


def _options(model: str, batch_size: int, timeout: float, retries: int, **pseudo: Any) -> Any:
    from kapi.host.providers.port import ProviderOptions

    return ProviderOptions(
        model=model, batch_size=batch_size, timeout=timeout, retries=retries, **pseudo
    )


def _print_units(result: Any) -> None:
    for unit in result.units:
        if unit.outcome in ("refused", "review"):
            warn(f"{unit.outcome}: {unit.doc} {unit.block} ({unit.language}): {unit.reason}")


@click.command()
@click.argument("file", required=False, default="")
@click.option("--to", "to", required=True, help="The target language (BCP-47).")
@click.option(
    "--text", default=None, help="Translate this text instead of a file; prints the translation."
)
@click.option("--dry-run", is_flag=True, help="Preview: translate, but write nothing.")
@click.option(
    "--json", "as_json", is_flag=True, help="Print the result as JSON (progress events on stderr)."
)
@click.option(
    "--source-lang", default="", help="The language of --text (default: the project's, else en)."
)
@provider_options
def translate(
    file: str,
    to: str,
    text: str | None,
    dry_run: bool,
    as_json: bool,
    source_lang: str,
    provider: str,
    model: str,
    batch_size: int,
    timeout: float,
    retries: int,
) -> None:
    """Translate FILE (or --text) into --to LANG through the change contract."""
    from kapi.host.translate import progress_printer
    from kapi.host.up import TranslateRequest, run_translate
    from kapi.host.wire import encode

    if not file and text is None:
        fail(HostError("name a FILE or pass --text", exit_code=2))
    workspace = workspace_of()
    request = TranslateRequest(
        to=to,
        file=file,
        text=text,
        provider=provider,
        dry_run=dry_run,
        source_lang=source_lang,
        options=_options(model, batch_size, timeout, retries),
    )
    try:
        result = run_translate(request, workspace, progress_printer(as_json))
    except KapiError as err:
        fail(err, as_json=as_json)
    if as_json:
        emit_json(encode(result))
    elif result.text is not None:
        click.echo(result.text)
    else:
        _print_units(result)
        warn(
            f"{result.target_file}: {result.written} translated, {result.leveraged} from memory, "
            f"{result.refused} refused, {result.review} to review"
        )
    sys.exit(result.exit_code)


@click.command()
@click.option("--plan", is_flag=True, help="Say what would be translated; change nothing.")
@click.option("--dry-run", is_flag=True, help="Translate and preview; write nothing.")
@click.option("--to", "languages", multiple=True, help="Only these target languages.")
@click.option("--no-memory", is_flag=True, help="Do not leverage the content memory.")
@click.option(
    "--json", "as_json", is_flag=True, help="Print the result as JSON (progress events on stderr)."
)
@click.option("--quiet", is_flag=True, help="No progress.")
@provider_options
def up(
    plan: bool,
    dry_run: bool,
    languages: tuple[str, ...],
    no_memory: bool,
    as_json: bool,
    quiet: bool,
    provider: str,
    model: str,
    batch_size: int,
    timeout: float,
    retries: int,
) -> None:
    """Converge the project: translate what is missing or stale in every target language."""
    from kapi.host.translate import check_language, progress_printer
    from kapi.host.up import UpRequest, run_up
    from kapi.host.wire import encode

    workspace = workspace_of()
    try:
        request = UpRequest(
            provider=provider,
            plan=plan,
            dry_run=dry_run,
            leverage=not no_memory,
            languages=tuple(check_language(lang) for lang in languages),
            options=_options(model, batch_size, timeout, retries),
        )
        result = run_up(request, workspace, progress_printer(as_json, quiet))
    except KapiError as err:
        fail(err, as_json=as_json)
    if as_json:
        emit_json(encode(result))
        sys.exit(result.exit_code)
    rows = [
        [p.language, str(p.missing), str(p.stale), str(p.review), str(p.current), str(p.waiting)]
        for p in result.languages
    ]
    _show(["language", "missing", "stale", "review", "current", "waiting"], rows)
    for unit in result.review:
        warn(f"review: {unit.doc} {unit.block} ({unit.language}): {unit.reason}")
    _print_units(result)
    if not plan:
        warn(
            f"{'previewed' if dry_run else 'up'}: {result.written} translated, "
            f"{result.leveraged} from memory, {result.refused} refused, {len(result.review)} to review"
        )
    sys.exit(result.exit_code)


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the coverage as JSON.")
def status(as_json: bool) -> None:
    """Coverage per target language and collection (always exits 0)."""
    from kapi.host.up import project_status
    from kapi.host.wire import encode
    from kapi.host.workspace import open_workspace

    project = (click.get_current_context().find_root().obj or {}).get("project")
    try:  # status always exits 0: a recipe that does not load is said, not failed on
        with open_workspace(project=project) as workspace:
            say_recipe_warnings(workspace)
            result = project_status(workspace)
    except KapiError as err:
        warn(f"Error: {err}")
        sys.exit(0)
    for notice in result.notices:
        warn(notice)
    if as_json:
        emit_json(encode(result))
        sys.exit(0)
    fields = ["total", "translated", "missing", "stale", "draft", "established"]
    rows = [[s.language, "*", *(str(getattr(s, f)) for f in fields)] for s in result.languages]
    rows += [
        [s.language, s.collection, *(str(getattr(s, f)) for f in fields)]
        for s in result.collections
    ]
    _show(["language", "collection", *fields], rows)
    sys.exit(0)


@click.command("pseudo-translate")
@click.argument("files", nargs=-1)
@click.option("--to", "to", default="qps", show_default=True, help="The pseudo language's tag.")
@click.option(
    "--style",
    default="accents",
    show_default=True,
    help="accents, xxx, bracket, flipped, blank or en.",
)
@click.option(
    "--expansion", default=30, show_default=True, help="Lengthen each string by this percentage."
)
@click.option("--no-brackets", is_flag=True, help="No [ ] markers around each string.")
@click.option("--dry-run", is_flag=True, help="Preview; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def pseudo_translate(
    files: tuple[str, ...],
    to: str,
    style: str,
    expansion: int,
    no_brackets: bool,
    dry_run: bool,
    as_json: bool,
) -> None:
    """Pseudo-translate FILES (in a project: into each target's file; else beside the source)."""
    from kapi.host.flows import PseudoRequest, run_pseudo
    from kapi.host.wire import encode

    workspace = workspace_of()
    try:
        result = run_pseudo(
            PseudoRequest(
                files=files,
                to=to,
                style=style,
                expansion=expansion / 100,
                brackets=not no_brackets,
                dry_run=dry_run,
            ),
            workspace,
        )
    except KapiError as err:
        fail(err, as_json=as_json)
    if as_json:
        emit_json(encode(result))
    else:
        for target in result.files:
            warn(f"{'previewed' if dry_run else 'wrote'} {target.file}: {target.written} strings")
        for unit in result.refused:
            warn(f"refused: {unit.doc} {unit.block}: {unit.reason}")
    sys.exit(result.exit_code)


@click.group()
def memory() -> None:
    """The project's content memory: import, export, list, search, rebuild."""


@memory.command("import")
@click.argument("file")
@click.option(
    "--format", "format_name", default=None, help="tmx, po or xliff (default: from the name)."
)
@click.option("--json", "as_json", is_flag=True)
def memory_import(file: str, format_name: str | None, as_json: bool) -> None:
    """Import a TMX 1.4, PO or XLIFF file (all or nothing)."""
    from kapi.host.memory import MemoryImportRequest, import_memory
    from kapi.host.wire import encode

    try:
        result = import_memory(MemoryImportRequest(path=file, format=format_name), workspace_of())
    except KapiError as err:
        fail(err, as_json=as_json)
    if as_json:
        emit_json(encode(result))
    else:
        warn(f"{file}: {result.units} units, {result.added} added, {result.skipped} already held")


@memory.command("export")
@click.option("--format", "format_name", default="tmx", show_default=True)
@click.option("-o", "--output", default="-", help="The file to write (default: stdout).")
def memory_export(format_name: str, output: str) -> None:
    """Export the memory as TMX 1.4."""
    from kapi.host.memory import export_memory

    workspace = workspace_of()
    try:
        result = export_memory(workspace, format=format_name)
        if output == "-":
            sys.stdout.write(result.text)
            return
        from kapi.host.inputs import file_in

        path = file_in(workspace, output)
        path.write_text(result.text, encoding="utf-8")
    except KapiError as err:
        fail(err)
    warn(f"wrote {output}: {result.entries} entries")


@memory.command("list")
@click.option("--limit", type=int, default=None)
@click.option("--json", "as_json", is_flag=True)
def memory_list(limit: int | None, as_json: bool) -> None:
    """List the memory's entries."""
    from kapi.host.memory import list_memory
    from kapi.host.wire import encode

    try:
        rows = list_memory(workspace_of(), limit=limit)
    except KapiError as err:
        fail(err, as_json=as_json)
    if as_json:
        emit_json(encode(rows))
        return
    _show(
        ["entry", "variants"],
        [[r.entry, " | ".join(f"{k}: {v}" for k, v in sorted(r.variants.items()))] for r in rows],
    )


@memory.command("search")
@click.argument("text")
@click.option(
    "--from", "source", default="", help="The language of TEXT (default: the source language)."
)
@click.option("--to", "target", required=True, help="The language wanted.")
@click.option("--min-score", default=0.7, show_default=True)
@click.option("--limit", default=10, show_default=True)
@click.option("--json", "as_json", is_flag=True)
def memory_search(
    text: str, source: str, target: str, min_score: float, limit: int, as_json: bool
) -> None:
    """Matches for TEXT: generalized, structural and plain, exact then fuzzy, best first."""
    from kapi.host.memory import MemorySearchRequest, search_memory
    from kapi.host.wire import encode

    try:
        result = search_memory(
            MemorySearchRequest(
                text=text, source=source, target=target, min_score=min_score, limit=limit
            ),
            workspace_of(),
        )
    except KapiError as err:
        fail(err, as_json=as_json)
    if as_json:
        emit_json(encode(result))
        return
    if not result.matches:
        warn(f"no match for {text!r} scores {min_score} or more")
        return
    _show(
        ["score", "type", "source", "target"],
        [[f"{m.score:.2f}", m.match_type, m.source, m.target] for m in result.matches],
    )


@memory.command("rebuild")
@click.option("--json", "as_json", is_flag=True)
def memory_rebuild(as_json: bool) -> None:
    """Make the project's part of memory again from its committed translations."""
    from kapi.host.memory import rebuild_memory
    from kapi.host.wire import encode

    try:
        result = rebuild_memory(workspace_of())
    except KapiError as err:
        fail(err, as_json=as_json)
    if as_json:
        emit_json(encode(result))
    else:
        warn(
            f"memory rebuilt: {result.added} from the project's translations, {result.entries} in all"
        )


@click.command()
@click.option(
    "--json", "as_json", is_flag=True, help="Print the tools with their option schemas as JSON."
)
def tools(as_json: bool) -> None:
    """The tools flows are made of."""
    from kapi.host.tools import TOOLS
    from kapi.host.wire import encode

    if as_json:
        emit_json(encode(list(TOOLS)))
        return
    _show(
        ["tool", "runs on", "description"],
        [[t.name, ",".join(t.runs_on), t.description] for t in TOOLS],
    )


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the flows and their steps as JSON.")
def flows(as_json: bool) -> None:
    """The flows: built in, and those kapi.yaml declares under flows:."""
    from kapi.host.flows import list_flows
    from kapi.host.wire import encode

    try:
        found = list_flows(workspace_of())
    except KapiError as err:
        fail(err, as_json=as_json)
    if as_json:
        emit_json(encode(found))
        return
    _show(
        ["flow", "steps", "from", "description"],
        [[f.name, " > ".join(s.tool for s in f.steps), f.source, f.description] for f in found],
    )


@click.command()
@click.argument("flow")
@click.argument("files", nargs=-1)
@click.option(
    "--to", "languages", multiple=True, help="The target languages (default: all declared)."
)
@click.option("--dry-run", is_flag=True)
@click.option("--json", "as_json", is_flag=True)
@provider_options
def run(
    flow: str,
    files: tuple[str, ...],
    languages: tuple[str, ...],
    dry_run: bool,
    as_json: bool,
    provider: str,
    model: str,
    batch_size: int,
    timeout: float,
    retries: int,
) -> None:
    """Run FLOW over the project's content (or FILES)."""
    from kapi.host.flows import RunRequest, run_flow
    from kapi.host.wire import encode

    try:
        result = run_flow(
            RunRequest(
                flow=flow,
                to=languages,
                files=files,
                provider=provider,
                dry_run=dry_run,
                options=_options(model, batch_size, timeout, retries),
            ),
            workspace_of(),
        )
    except KapiError as err:
        fail(err, as_json=as_json)
    if as_json:
        emit_json(encode(result))
    else:
        _print_units(result)
        for issue in result.qa:
            warn(
                f"qa: {issue['doc']} {issue['block']} ({issue['language']}): {issue['rule']}: {issue['message']}"
            )
        warn(
            f"{flow}: {result.written} translated, {result.leveraged} from memory, "
            f"{result.refused} refused, {result.review} to review, {len(result.qa)} QA issues"
        )
    sys.exit(result.exit_code)


@click.command("exec")
@click.argument("tool")
@click.argument("files", nargs=-1)
@click.option("--text", default=None, help="Run the tool on this text.")
@click.option(
    "--option", "options", multiple=True, help="A tool option, key=value (see `kapi tools --json`)."
)
@click.option("--to", "to", default="", help="The target language, for tools that translate.")
@click.option(
    "-p",
    "--progress",
    is_flag=True,
    hidden=True,
    help="Progress (under exec, -p means --progress).",
)
def exec_command(
    tool: str,
    files: tuple[str, ...],
    text: str | None,
    options: tuple[str, ...],
    to: str,
    progress: bool,
) -> None:
    """Run one TOOL on --text or FILES and print what it found (JSON)."""
    from kapi.host.tools import exec_tool
    from kapi.host.wire import encode

    parsed: dict[str, str] = {}
    for option in options:
        key, sep, value = option.partition("=")
        if not sep or not key:
            fail(HostError(f"--option {option!r}: write key=value", exit_code=2))
        parsed[key] = value
    try:
        result = exec_tool(
            tool, workspace_of(), text=text, files=files, options=parsed, to=to, commands=True
        )
    except KapiError as err:
        fail(err)
    emit_json(encode(result))
    sys.exit(result.exit_code)
