"""The toolbox: ``kcat``, ``kgrep``, ``ksed`` and ``kdiff``, cat, grep, sed and diff over blocks.

Each is a console script of its own and a thin door into :mod:`kapi.host.toolbox`:
parse flags, call the host, print. What they share is here: how a command
runs (exit codes as grep and sed keep them, 2 for bad input, a closed pipe
ending quietly) and how a block's text is written on one line.
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
from typing import Any, NoReturn

import click

import kapi.cli.boot  # noqa: F401  (first: the generated-code cache)
from kapi.cli.output import printable
from kapi.host.errors import EXIT_USAGE, KapiError, error_payload, exit_code_of

__all__ = ["CONTEXT", "one_line", "run", "say_json", "shown_path", "stop", "toolbox_warn"]

CONTEXT = {"help_option_names": ["--help"], "max_content_width": 100}


_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f]")


def one_line(text: str) -> str:
    """A block's text on one line: line breaks written ``\\n``, other control characters as
    their JSON escape (``\\u001b``), so no file can drive the terminal (``--json`` keeps them).
    """
    if "\n" in text or "\r" in text:
        text = text.replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\r")
    if _CONTROL.search(text):
        text = _CONTROL.sub(lambda found: f"\\u{ord(found.group()):04x}", text)
    return text


def shown_path(path: str) -> str:
    return "(standard input)" if path == "-" else path


def toolbox_warn(tool: str, message: str) -> None:
    click.echo(printable(f"{tool}: {message}"), err=True)


def say_json(value: Any) -> None:
    """One JSON value on one line, with the fields left out that say nothing (``null``)."""
    click.echo(printable(json.dumps(_without_nulls(value), ensure_ascii=False)))


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def stop(tool: str, error: BaseException, *, code: int | None = None) -> NoReturn:
    """Report ``error`` as ``tool: message`` on stderr and exit (2 for bad input, as grep does)."""
    toolbox_warn(tool, str(error_payload(error)["error"]))
    sys.exit(code if code is not None else exit_code_of(error))


def run(tool: str, command: click.Command, argv: list[str] | None = None) -> NoReturn:
    """Run a toolbox command as its console script: usage errors exit 2, a closed pipe quietly.

    SIGINT and SIGTERM end it with 130, as they end kapi; a closed pipe ends it as it
    ends grep, by SIGPIPE.
    """
    import os
    import signal

    signal.signal(signal.SIGTERM, _interrupted)
    if hasattr(signal, "SIGPIPE"):  # a reader that went away (| head) ends the tool, as it ends cat
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    code = 0
    try:
        command.main(args=argv, prog_name=tool, standalone_mode=False)
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        code = 130
    except click.ClickException as err:
        err.show()
        code = EXIT_USAGE if err.exit_code == 2 else err.exit_code
    except click.exceptions.Exit as done:
        code = done.exit_code
    except KapiError as err:
        toolbox_warn(tool, str(error_payload(err)["error"]))
        code = exit_code_of(err)
    except BrokenPipeError:
        _silence_stdout()  # the reader went away (| head): what it read was right
    except KeyboardInterrupt:
        click.echo("Interrupted.", err=True)
        code = 130
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away (| head): that is not an error
        _silence_stdout()
    except (OSError, ValueError):
        pass
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.flush()
    from kapi.host.codegen import save

    save()
    os._exit(code & 0xFF)


def _interrupted(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _silence_stdout() -> None:
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
