"""The ``kapi`` console script: the calls made most, without loading click.

An agent's first call is often ``kapi --help``. click and the verbs' modules cost several
times the interpreter's own start, so the listing click would print is kept, rendered,
in :mod:`kapi.cli.help_texts` for the terminal widths most people and every pipe have
(``78``: a pipe or an 80-column terminal; ``98``: 100 columns or more) and the plug-in
commands kapi's own distributions add. A test renders each kept text again and fails when
one has drifted from what click prints.

``kapi check FILE…``, ``kapi apply SET`` and the hooks, which run after each edit an agent
makes, are run without click too (:mod:`kapi.cli.plain`). Any other width or set of plug-ins, any other
argument, and every other command, goes through click (:func:`kapi.cli.main.run_click`).
"""

import os
import sys

TYPE_CHECKING = False  # typing is not imported at run time: ``kapi --help`` needs none of it
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import NoReturn

__all__ = ["end", "help_width", "main", "quick_answer", "run"]

MAX_CONTENT_WIDTH = 100  # the group's ``max_content_width``


def help_width(environ: "dict[str, str] | os._Environ[str]", stdout_fd: "int | None") -> int:
    """The width click gives the help text: the terminal's columns as ``shutil`` finds them
    (``COLUMNS``, then the terminal, then 80), at most 100, less 2, at least 50."""
    try:
        columns = int(environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0 and stdout_fd is not None:
        try:
            columns = os.get_terminal_size(stdout_fd).columns
        except (OSError, ValueError):
            columns = 0
    return max(min(columns or 80, MAX_CONTENT_WIDTH) - 2, 50)


def _stdout_fd() -> "int | None":
    try:
        return sys.__stdout__.fileno() if sys.__stdout__ is not None else None
    except (AttributeError, ValueError, OSError):
        return None


def quick_answer(args: "list[str]", program: str) -> "str | None":
    """What ``kapi ARGS`` prints when it can be answered without click, or None."""
    if os.path.basename(program) != "kapi" or len(args) != 1:
        return None
    if args[0] == "--version":
        from kapi.host.version import VERSION

        return f"kapi, version {VERSION}\n"
    if args[0] not in ("--help", "-h"):
        return None
    from kapi.cli.help_texts import TEXTS
    from kapi.host.plugins import plugin_commands

    plugins = tuple(sorted((name, entry.value) for name, entry in plugin_commands().items()))
    key = (help_width(os.environ, _stdout_fd()), plugins)
    return TEXTS.get(key)


def main() -> None:
    args = sys.argv[1:]
    answer = quick_answer(args, sys.argv[0])
    if answer is None:
        import kapi.cli.boot  # noqa: F401  (before click: its patterns come from the cache too)
        from kapi.cli.plain import plain_verb

        verb = plain_verb(args)
        if verb is not None:
            run(verb)
        from kapi.cli.main import run_click

        run(run_click)
    try:
        sys.stdout.write(answer)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader has gone (``kapi --help | head``)
        os._exit(0)
    if os.environ.get("KAPI_DUMP_MODULES") == "1":  # for the tests of what each verb imports
        print("kapi-modules: " + " ".join(sorted(sys.modules)), file=sys.stderr)
    sys.stderr.flush()
    os._exit(0)


def run(verb: "Callable[[], object]") -> "NoReturn":
    """Run a verb to its end: SIGTERM ends it as SIGINT does (exit 130, the verb's own
    clean-up done); then :func:`end` with the code it exits with."""
    import signal

    signal.signal(signal.SIGTERM, _interrupted)
    try:
        verb()
    except SystemExit as done:
        end(done.code)
    end(0)


def _interrupted(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def end(code: object) -> "NoReturn":
    """Flush stdout and stderr, then end the process with ``code`` (as ``sys.exit`` reads it).

    Once a verb has finished (its workspace closed), the process ends at once: tearing
    down the interpreter frees every object one by one, which costs more than a small
    check. A traceback (a bug) still takes the normal way out.
    """
    import contextlib

    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:
        print(code, file=sys.stderr)
        status = 1
    if os.environ.get("KAPI_DUMP_MODULES") == "1":  # for the tests of what each verb imports
        print("kapi-modules: " + " ".join(sorted(sys.modules)), file=sys.stderr)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError, AttributeError):  # a closed pipe, or none
            stream.flush()
    from kapi.host.codegen import save

    save()
    os._exit(status & 0xFF)
