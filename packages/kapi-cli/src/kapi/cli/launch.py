"""The ``kapi`` console script: ``kapi --help`` and ``kapi --version`` without loading click.

An agent's first call is often ``kapi --help``. click and the verbs' modules cost several
times the interpreter's own start, so the listing click would print is kept, rendered,
in :mod:`kapi.cli.help_texts` for the terminal widths most people and every pipe have
(``78``: a pipe or an 80-column terminal; ``98``: 100 columns or more) and the plug-in
commands kapi's own distributions add. Any other width or set of plug-ins, and every other
command, goes through click (:func:`kapi.cli.main.main`). A test renders each kept text
again and fails when one has drifted from what click prints.
"""

import os
import sys

__all__ = ["help_width", "main", "quick_answer"]

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
    answer = quick_answer(sys.argv[1:], sys.argv[0])
    if answer is None:
        import kapi.cli.boot  # noqa: F401  (before click: its patterns come from the cache too)
        from kapi.cli.main import main as run

        run()
        return
    try:
        sys.stdout.write(answer)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader has gone (``kapi --help | head``)
        os._exit(0)
    if os.environ.get("KAPI_DUMP_MODULES") == "1":  # for the tests of what each verb imports
        print("kapi-modules: " + " ".join(sorted(sys.modules)), file=sys.stderr)
    sys.stderr.flush()
    os._exit(0)
