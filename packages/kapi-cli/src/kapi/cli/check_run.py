"""``kapi check`` once its flags are read: the run and its report, without click.

The verb in :mod:`kapi.cli.check` reads every flag through click and calls :func:`report`.
The call a hook or a pre-commit makes after each edit (file names, perhaps ``--json`` or
``--no-fail``, nothing else) is read by :mod:`kapi.cli.plain` instead and runs the same
:func:`report` without click (:func:`run_plain`). Any other argument (another flag,
``-``, ``--``, ``--help``) goes through click.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, NoReturn

from kapi.cli.output import echo, emit_json, fail, say, say_recipe_warnings, warn
from kapi.host.errors import KapiError

if TYPE_CHECKING:
    from kapi.host.check import CheckRequest
    from kapi.host.workspace import Workspace

__all__ = ["report", "run_plain"]


def run_plain(files: tuple[str, ...], *, as_json: bool, no_fail: bool) -> None:
    """``kapi check FILES`` with only ``--json`` and ``--no-fail``, in the project found here."""
    from kapi.host.check import CheckRequest
    from kapi.host.workspace import open_workspace

    try:
        request = CheckRequest(files=files, stdin_is_terminal=sys.stdin.isatty(), no_fail=no_fail)
        workspace = open_workspace()
    except KapiError as err:
        fail(err)
    try:
        say_recipe_warnings(workspace)
        report(request, workspace, as_json=as_json)
    finally:
        workspace.close()  # as click closes it: when the verb ends, its report printed


def report(
    request: CheckRequest, workspace: Workspace, *, as_json: bool, comments: bool = False
) -> NoReturn:
    """Run the check ``request`` asks for in ``workspace``, print its report (text, or the
    ``kapi.check/v2`` JSON with ``as_json``) and exit with the check's code."""
    from kapi.core.check.report import encode_report, render_text
    from kapi.host.check import run_check

    try:
        outcome = run_check(request, workspace)
    except KapiError as err:
        fail(err, as_json=as_json)
    for skipped in outcome.skipped:
        warn(skipped.message)
    if comments and outcome.report.scope is not None:
        from kapi.host.comments import is_comment_source

        for scoped in outcome.report.scope.files:
            if scoped.status == "no_reader" and is_comment_source(scoped.path):
                warn(scoped.reason)  # source code in a language kapi has no grammar for
    if outcome.ship is not None:
        if as_json:
            from kapi.host.wire import encode

            emit_json(encode(outcome.ship))
        else:
            for gate in outcome.ship.gates:
                reason = f"  ({gate.reason})" if gate.reason else ""
                echo(
                    f"{gate.gate:<12} {'pass' if gate.passed else 'FAIL'}  {len(gate.findings)} finding(s){reason}"
                )
    elif as_json:
        emit_json(encode_report(outcome.report))
    else:
        say(render_text(outcome.report))
    sys.exit(outcome.exit_code)
