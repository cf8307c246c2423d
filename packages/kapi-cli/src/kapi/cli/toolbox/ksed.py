"""``ksed``: sed's ``s`` command over block text, landed through the change service."""

from __future__ import annotations

import sys

import click

from kapi.cli.toolbox import CONTEXT, run, stop, toolbox_warn

__all__ = ["ksed", "main"]


@click.command(context_settings=CONTEXT)
@click.argument("arguments", nargs=-1, metavar="[SCRIPT] [FILE]...")
@click.option(
    "-e",
    "--expression",
    "expressions",
    multiple=True,
    metavar="SCRIPT",
    help="A script to run (repeat for more); then every argument is a file.",
)
@click.option(
    "--in-place",
    "in_place",
    default=None,
    metavar="[SUFFIX]",
    help="-i[SUFFIX]: edit the files in place; with SUFFIX (-i.bak) keep each original beside it.",
)
@click.option(
    "--print-ops", is_flag=True, help="Print the kapi.change/v1 change set; apply nothing."
)
@click.option("--dry-run", is_flag=True, help="Check everything and print the diff; write nothing.")
@click.option("--force", is_flag=True, help="Write a binary document (DOCX, …) to a terminal.")
@click.option("--target", metavar="LANG", help="Edit the LANG translation instead.")
@click.option(
    "--format", "format_name", metavar="FORMAT", help="Read as FORMAT (needed for stdin)."
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print the kapi.change-result/v1 result on stdout."
)
def ksed(
    arguments: tuple[str, ...],
    expressions: tuple[str, ...],
    in_place: str | None,
    print_ops: bool,
    dry_run: bool,
    force: bool,
    target: str | None,
    format_name: str | None,
    as_json: bool,
) -> None:
    """Run s/regexp/replacement/flags over the text of each block of FILES.

    The text is kcat's (markup left out); the regexp is Python's (groups with
    (...), +, ?, |). Any delimiter (s|a|b|); flags g (every match), i (ignore
    case), N (the Nth match); \\1…\\9 and & in the replacement; commands separated
    by ; or given with repeated -e.

    The script compiles to a kapi.change/v1 change set of replace_text and
    set_content ops holding the revisions read, and lands through the change
    service as `kapi apply` lands it: guards, governance, all or nothing. An edit
    that would drop a placeholder is refused with the guard's message.

    \b
    Without -i the edited documents go to stdout (the files are left alone).
    Exit codes: 0 done; 2 bad script, flag or file (nothing written);
    3 refused (guard, stale, a failing check; nothing written); 5 unreachable.
    """
    from kapi.cli.common import workspace_of
    from kapi.host.actor import actor_from_env
    from kapi.host.errors import HostError
    from kapi.host.toolbox_sed import SedRequest, change_set_json, run_sed

    modes = [
        name
        for name, on in (
            ("print-ops", print_ops),
            ("dry-run", dry_run),
            ("in-place", in_place is not None),
        )
        if on
    ]
    if len(modes) > 1:
        stop(
            "ksed",
            HostError(
                f"{' and '.join('--' + m if m != 'in-place' else '-i' for m in modes)} exclude one another",
                exit_code=2,
            ),
        )
    scripts, files = (expressions, arguments) if expressions else (arguments[:1], arguments[1:])
    if not scripts:
        stop("ksed", HostError("no script: ksed 's/old/new/' FILE…", exit_code=2))
    request = SedRequest(
        scripts=tuple(scripts),
        paths=tuple(files),
        mode=modes[0] if modes else "stdout",
        backup_suffix=in_place or "",
        target=target,
        format_name=format_name,
    )
    try:
        actor = actor_from_env()
        outcome = run_sed(
            request,
            workspace_of(),
            actor=actor,
            stdin_is_terminal=sys.stdin.isatty(),
            binary_to_terminal=force or not sys.stdout.isatty(),
        )
    except HostError as err:
        stop("ksed", err)
    for notice in outcome.notices:
        toolbox_warn("ksed", f"note: {notice}")
    if request.mode == "print-ops":
        click.echo(change_set_json(outcome.plan.change_set))
        return
    applied = outcome.applied
    assert applied is not None
    from kapi.cli.summary import summarise

    if as_json:
        from kapi.core.change import wire

        click.echo(wire.dumps(wire.encode_result(applied.result), indent=2))
    elif request.mode == "dry-run":
        for doc in applied.result.docs:
            if doc.diff:
                click.echo(doc.diff, nl=False)
    elif request.mode == "stdout" and applied.exit_code == 0:
        out = sys.stdout.buffer
        for _, data in outcome.outputs:
            out.write(data)
        out.flush()
    if request.mode != "stdout" or applied.exit_code != 0:
        toolbox_warn("ksed", summarise(applied.result))
    for op in applied.result.ops:
        hint = outcome.plan.hints.get(op.i)
        if hint and op.error is not None:
            toolbox_warn("ksed", f"op {op.i}: {hint}")
    for backup in outcome.backups:
        toolbox_warn("ksed", f"kept the original as {backup}")
    sys.exit(applied.exit_code)


def in_place_arguments(argv: list[str]) -> list[str]:
    """sed's -i[SUFFIX] (the suffix only attached) as --in-place=SUFFIX, before any --."""
    out: list[str] = []
    for index, argument in enumerate(argv):
        if argument == "--":
            out.extend(argv[index:])
            break
        if argument == "--in-place":
            out.append("--in-place=")
        elif argument.startswith("-i") and not argument.startswith("--"):
            out.append("--in-place=" + argument[2:])
        else:
            out.append(argument)
    return out


def main() -> None:
    run("ksed", ksed, in_place_arguments(sys.argv[1:]))
