"""The calls agents make on every edit, run without click.

``kapi check FILE…`` (file names, ``--json``, ``--no-fail``), ``kapi apply SET`` (``--json``,
``--dry-run``) and ``kapi hook post-edit``, ``stop`` and ``pre-edit`` run once per edit,
where loading click and the command group would cost a small check a tenth of its time.
:func:`plain_verb` recognises them from the arguments and runs the code the click verbs run
once they have read their flags (:mod:`kapi.cli.check_run`, :mod:`kapi.cli.apply_run`,
:func:`run_hook`). Anything else, including any other flag of those verbs, goes through click.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

__all__ = ["HOOKS", "plain_verb", "run_hook"]

HOOKS = ("post-edit", "stop", "pre-edit")


def plain_verb(args: list[str]) -> Callable[[], None] | None:
    """``kapi ARGS`` as a call that needs no click, or None when click must read ARGS."""
    if args[:1] == ["check"]:
        from kapi.cli.check_run import plain_check

        return plain_check(args[1:])
    if args[:1] == ["apply"]:
        from kapi.cli.apply_run import plain_apply

        return plain_apply(args[1:])
    if len(args) == 2 and args[0] == "hook" and args[1] in HOOKS:
        name = args[1]
        return lambda: run_hook(name)
    return None


def run_hook(name: str) -> None:
    """Run the hook ``name`` on the payload on stdin; its verdict goes to stdout as JSON."""
    from kapi.host.hooks import run_hook as hook_verdict

    verdict = hook_verdict(name, sys.stdin)
    if verdict.stdout:
        sys.stdout.write(verdict.stdout + "\n")
    if verdict.warning:
        sys.stderr.write(f"warning: {verdict.warning}\n")
