"""``kapi apply`` once its flags are read: the change set read, applied and reported, without click.

The verb in :mod:`kapi.cli.work` reads every flag through click and calls :func:`run_apply`.
An agent's usual call (``kapi apply SET`` with perhaps ``--json`` or ``--dry-run``) is read by
:mod:`kapi.cli.plain` instead and runs the same :func:`run_apply` without click
(:func:`run_plain`). Any other argument goes through click.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, NoReturn

from kapi.cli.output import echo, fail, pretty, say_recipe_warnings, warn
from kapi.host.errors import HostError

if TYPE_CHECKING:
    from kapi.core.change.result import Result
    from kapi.host.workspace import Workspace

__all__ = ["print_result", "read_set", "run_apply", "run_plain"]


def run_plain(change_set: str | None, *, as_json: bool, dry_run: bool) -> None:
    """``kapi apply [SET]`` with only ``--json`` and ``--dry-run``, in the project found here."""
    from kapi.host.workspace import open_workspace

    try:
        workspace = open_workspace()
    except HostError as err:
        fail(err)
    try:
        say_recipe_warnings(workspace)
        run_apply(change_set, workspace, dry_run=dry_run, as_json=as_json, gate=None)
    finally:
        workspace.close()  # as click closes it: when the verb ends, its result printed


def run_apply(
    change_set: str | None,
    workspace: Workspace,
    *,
    dry_run: bool,
    as_json: bool,
    gate: str | None,
) -> NoReturn:
    """Read the change set (a path, ``-`` or stdin), apply it in ``workspace`` (all of it or
    nothing; only a preview with ``dry_run``), print the result and exit with its code."""
    from kapi.host.actor import actor_from_env
    from kapi.host.apply import apply_change_set

    data = read_set(change_set, workspace)
    try:
        actor = actor_from_env()
    except HostError as err:
        fail(err, as_json=as_json)
    try:
        outcome = apply_change_set(
            data, actor=actor, workspace=workspace, dry_run=dry_run, gate=gate
        )
    except HostError as err:  # e.g. the project store cannot be opened, or is busy
        fail(err, as_json=as_json)
    for notice in outcome.notices:
        warn(f"note: {notice}")
    print_result(outcome.result, as_json=as_json, dry_run=dry_run)
    sys.exit(outcome.exit_code)


def read_set(change_set: str | None, workspace: Workspace) -> bytes:
    """The change set's bytes: the file ``change_set`` names inside the project, or stdin
    (``-``, or none given); a path that cannot be read ends the verb with its error."""
    from kapi.host.apply import read_change_set

    try:
        return read_change_set(
            change_set,
            stdin=sys.stdin.buffer,
            stdin_is_terminal=sys.stdin.isatty(),
            workspace=workspace,
        )
    except HostError as err:
        fail(err)


def print_result(result: Result, *, as_json: bool, dry_run: bool) -> None:
    """The result: its JSON on stdout with ``as_json``, a dry run's diffs, and a summary on stderr."""
    from kapi.cli.summary import summarise
    from kapi.core.change import wire

    if as_json:
        echo(wire.dumps(wire.encode_result(result), indent=2 if pretty() else None))
    elif dry_run:
        for doc in result.docs:
            if doc.diff:
                echo(doc.diff, nl=False)
    warn(summarise(result))
