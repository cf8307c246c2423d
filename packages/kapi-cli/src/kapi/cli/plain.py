"""The calls agents make on every edit, run without click.

``kapi check FILE…`` (file names, ``--json``, ``--no-fail``), ``kapi apply SET`` (``--json``,
``--dry-run``) and ``kapi hook post-edit``, ``stop`` and ``pre-edit`` run once per edit,
where loading click and the command group would cost a small check a tenth of its time.
:func:`plain_verb` recognises them from the arguments and runs the code the click verbs run
once they have read their flags (:mod:`kapi.cli.check_run`, :mod:`kapi.cli.apply_run`,
:func:`run_hook`). Anything else, including any other flag of those verbs, goes through click.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Callable

__all__ = ["APPLY_FLAGS", "CHECK_FLAGS", "HOOKS", "plain_arguments", "plain_verb", "run_hook"]

HOOKS = ("post-edit", "stop", "pre-edit")
# The flags each verb's plain call may carry, and the parameter each sets
CHECK_FLAGS = {"--json": "as_json", "--no-fail": "no_fail"}
APPLY_FLAGS = {"--json": "as_json", "--dry-run": "dry_run"}


def plain_verb(args: list[str]) -> Callable[[], None] | None:
    """``kapi ARGS`` as a call that needs no click, or None when click must read ARGS (or
    when a shell's completion asks click for its words, ``_KAPI_COMPLETE``)."""
    if os.environ.get("_KAPI_COMPLETE"):
        return None
    call = _plain_call(args)
    return None if call is None else _guarded(call)


def _guarded(call: Callable[[], None]) -> Callable[[], None]:
    """``call`` ending as the click group ends a verb: an interrupt (SIGINT, or SIGTERM, which
    :func:`kapi.cli.launch.run` turns into one) says "Aborted." as click does and exits 130;
    a reader that went away (``kapi check … | head``) ends it quietly with exit 1, as click
    does; an error kapi knows is reported with its exit code, never as a traceback."""

    def guarded() -> None:
        from kapi.cli.output import fail, say
        from kapi.host.errors import KapiError

        try:
            call()
        except KeyboardInterrupt:
            say("\nAborted.", err=True)
            sys.exit(130)
        except KapiError as err:
            fail(err)
        except OSError as err:
            if err.errno != errno.EPIPE:
                raise
            sys.exit(1)  # the output left unwritten is dropped at the end, never flushed again

    return guarded


def _plain_call(args: list[str]) -> Callable[[], None] | None:
    verb = args[0] if args else ""
    if verb == "check":
        read = plain_arguments(args[1:], CHECK_FLAGS)
        if read is not None:
            from kapi.cli.check_run import run_plain as check

            files, flags = read
            return lambda: check(tuple(files), **flags)
    elif verb == "apply":
        read = plain_arguments(args[1:], APPLY_FLAGS, most=1)
        if read is not None:
            from kapi.cli.apply_run import run_plain as apply

            paths, flags = read
            return lambda: apply(paths[0] if paths else None, **flags)
    elif len(args) == 2 and verb == "hook" and args[1] in HOOKS:
        name = args[1]
        return lambda: run_hook(name)
    return None


def plain_arguments(
    args: list[str], flags: dict[str, str], most: int | None = None
) -> tuple[list[str], dict[str, bool]] | None:
    """ARGS read as positional arguments (at most ``most``) and the ``flags`` given; None when
    an argument is anything else (another flag, ``-``, ``--``, an empty one): click reads it."""
    positional: list[str] = []
    given = dict.fromkeys(flags.values(), False)
    for arg in args:
        flag = flags.get(arg)
        if flag is not None:
            given[flag] = True
        elif not arg or arg.startswith("-") or (most is not None and len(positional) >= most):
            return None
        else:
            positional.append(arg)
    return positional, given


def run_hook(name: str) -> None:
    """Run the hook ``name`` on the payload on stdin; its verdict goes to stdout as JSON."""
    from kapi.host.hooks import run_hook as hook_verdict

    verdict = hook_verdict(name, sys.stdin)
    if verdict.stdout:
        sys.stdout.write(verdict.stdout + "\n")
    if verdict.warning:
        sys.stderr.write(f"warning: {verdict.warning}\n")
