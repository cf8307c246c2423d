"""``kapi store``: move the project's context log as one JSONL file (export, import).

Thin click code over :mod:`kapi.host.context_store`.
"""

from __future__ import annotations

import sys

import click

from kapi.cli.common import workspace_of
from kapi.cli.output import emit_json, fail, say
from kapi.host.errors import KapiError

__all__ = ["store"]


@click.group()
def store() -> None:
    """The project store's context log, as a file a team shares through git (person).

    `kapi store export` writes every context operation as one JSON line (ids kept);
    `kapi store import` merges such a file into this project's log, skipping what
    the log already holds, and refreshes the rules files.
    """


@store.command("export")
@click.argument("file", required=False, default="-")
def export(file: str) -> None:
    """Write the context log to FILE (default: stdout) as JSONL (agent or person)."""
    from kapi.host.context_store import export_store
    from kapi.host.inputs import file_in

    workspace = workspace_of()
    try:
        target = file_in(workspace, file) if file != "-" else None
        exported = export_store(workspace)
    except KapiError as err:
        fail(err)
    if target is None:
        sys.stdout.write(exported.text)
        return
    try:
        target.write_text(exported.text, encoding="utf-8")
    except OSError as err:
        from kapi.host.errors import HostError

        fail(HostError(f"{file}: cannot be written: {err.strerror or err}"))
    say(f"exported {exported.operations} operation(s) to {file}", err=True)


@store.command("import")
@click.argument("file")
@click.option("--json", "as_json", is_flag=True, help="Print what was imported as JSON.")
def import_(file: str, as_json: bool) -> None:
    """Merge the operations in FILE (JSONL, - for stdin) into the log (person only).

    Every line is checked before anything is written; operations the log holds
    already (same id or content address) are skipped.
    """
    from kapi.host.actor import actor_from_env
    from kapi.host.context_store import import_store
    from kapi.host.inputs import read_in

    try:
        actor = actor_from_env().actor
        workspace = workspace_of()
        data = sys.stdin.buffer.read() if file == "-" else read_in(workspace, file)
        done = import_store(data, file, workspace, actor)
    except KapiError as err:
        fail(err, as_json=as_json)
    if as_json:
        emit_json(done.encoded())
        return
    say(f"imported {done.added} operation(s) from {file}; {done.skipped} already held")
