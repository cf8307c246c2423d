"""``kapi apply`` once its flags are read: the change set read, applied and reported, without click.

The verb in :mod:`kapi.cli.work` reads every flag through click and calls :func:`run_apply`.
An agent's usual call (``kapi apply SET`` with perhaps ``--json`` or ``--dry-run``) is read by
:func:`plain_apply` instead and runs the same :func:`run_apply` without click
(:mod:`kapi.cli.plain`). Any other argument goes through click.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, NoReturn

from kapi.cli.output import echo, fail, pretty, say_recipe_warnings, warn
from kapi.host.errors import HostError

if TYPE_CHECKING:
    from kapi.core.change.result import Result
    from kapi.host.workspace import Workspace

__all__ = ["PLAIN_FLAGS", "plain_apply", "print_result", "run_apply"]

# The flags :func:`plain_apply` reads itself, and the parameter each sets
PLAIN_FLAGS = {"--json": "as_json", "--dry-run": "dry_run"}


def plain_apply(args: list[str]) -> Callable[[], None] | None:
    """``kapi apply ARGS`` as a call that needs no click, when ARGS are at most one change
    set's path and the flags of :data:`PLAIN_FLAGS`; None when click must read them."""
    paths: list[str] = []
    flags = dict.fromkeys(PLAIN_FLAGS.values(), False)
    for arg in args:
        flag = PLAIN_FLAGS.get(arg)
        if flag is not None:
            flags[flag] = True
        elif not arg or arg.startswith("-") or paths:
            return None
        else:
            paths.append(arg)
    change_set = paths[0] if paths else None
    return lambda: _run_plain(change_set, as_json=flags["as_json"], dry_run=flags["dry_run"])


def _run_plain(change_set: str | None, *, as_json: bool, dry_run: bool) -> None:
    from kapi.host.workspace import open_workspace

    try:
        workspace = open_workspace()
    except HostError as err:
        fail(err)
    try:
        say_recipe_warnings(workspace)
        run_apply(change_set, workspace, dry_run=dry_run, as_json=as_json, gate=None)
    except KeyboardInterrupt:
        warn("Interrupted.")
        sys.exit(130)
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
    from kapi.host.apply import apply_change_set, read_change_set

    try:
        data = read_change_set(
            change_set,
            stdin=sys.stdin.buffer,
            stdin_is_terminal=sys.stdin.isatty(),
            workspace=workspace,
        )
    except HostError as err:
        fail(err)
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
