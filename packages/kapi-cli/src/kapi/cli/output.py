"""How the CLI speaks: the result on stdout, everything else on stderr.

JSON is written by the standard library's C encoder on one line when stdout is
not a terminal (a pipe, a file, an agent reading it), and indented for a person
at a terminal or with ``kapi --pretty``. Text read from files may hold a lone
surrogate (a JSON ``"\\ud800"``), which no encoding can write: it is printed as
the JSON escape ``\\ud800``, valid JSON on stdout and readable on stderr.

Everything is written as ``click.echo`` writes it, by :func:`echo`, which does not need
click loaded: ``kapi check FILE…`` runs without it (:mod:`kapi.cli.check_run`).
"""

from __future__ import annotations

import gc
import json
import os
import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NoReturn

from kapi.host.errors import error_payload, exit_code_of

if TYPE_CHECKING:
    from kapi.host.workspace import Workspace

__all__ = [
    "echo",
    "emit_json",
    "emit_json_text",
    "fail",
    "gc_held",
    "json_text",
    "pretty",
    "printable",
    "say",
    "say_recipe_warnings",
    "set_pretty",
    "table",
    "warn",
]

_pretty: bool | None = None  # set by --pretty; None: indent when stdout is a terminal

_SURROGATE = re.compile("[\ud800-\udfff]")
# The terminal codes ``click.echo`` takes out of text written anywhere but a terminal
_ANSI = re.compile(r"\033\[[0-?]*[ -/]*[@-~]")


def echo(message: str | bytes, *, nl: bool = True, err: bool = False) -> None:
    """Write ``message`` and a newline to stdout (stderr with ``err``) as ``click.echo`` does.

    Bytes go to the stream's binary buffer; text written anywhere but a terminal loses its
    terminal codes; the stream is flushed. Where click would do more than that (the Windows
    console, a stream that is not UTF-8) the message goes through click itself.
    """
    stream = sys.stderr if err else sys.stdout
    if stream is None:  # no stream attached (pythonw)
        return
    if os.name == "nt" or not _is_utf8(stream):
        import click

        click.echo(message, nl=nl, err=err)
        return
    if isinstance(message, bytes):
        binary = getattr(stream, "buffer", None)
        if binary is not None:
            stream.flush()
            binary.write(message + b"\n" if nl else message)
            binary.flush()
            return
        message = message.decode("utf-8", "replace")
    if nl:
        message += "\n"
    if message and "\033" in message and not _isatty(stream):
        message = _ANSI.sub("", message)
    if message:
        stream.write(message)
    stream.flush()


def _is_utf8(stream: Any) -> bool:
    encoding = getattr(stream, "encoding", None)
    return (
        isinstance(encoding, str) and encoding.replace("-", "").replace("_", "").lower() == "utf8"
    )


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except Exception:  # click's own rule: a stream that cannot say is no terminal
        return False


def printable(text: str) -> str:
    """``text`` with each lone surrogate as its escape ``\\udXXX``; other text as it is.

    Inside a JSON string the escape decodes back to the same code point.
    """
    if text.isascii() or not _SURROGATE.search(text):
        return text
    return _SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def say(text: str, *, nl: bool = True, err: bool = False) -> None:
    """Print ``text`` (stdout, or stderr with ``err``), lone surrogates escaped."""
    echo(printable(text), nl=nl, err=err)


def set_pretty(value: bool) -> None:
    """Indent JSON output (``--pretty``) whatever stdout is."""
    global _pretty
    _pretty = value


def pretty() -> bool:
    """Whether JSON output is indented: ``--pretty``, or stdout is a terminal."""
    if _pretty is not None:
        return _pretty
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def json_text(value: Any) -> str:
    """``value`` as JSON text: indented when :func:`pretty`, else compact (the C encoder)."""
    if pretty():
        return json.dumps(value, ensure_ascii=False, indent=2)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@contextmanager
def gc_held() -> Iterator[None]:
    """No cycle collection while a large result is encoded and printed (acyclic dicts, lists)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def emit_json(value: Any, *, jsonl: bool = False) -> None:
    """Print ``value`` as JSON on stdout (``jsonl``: a list as one item a line), UTF-8."""
    if jsonl and isinstance(value, list):
        if value:
            _say_utf8(
                "\n".join(
                    json.dumps(item, ensure_ascii=False, separators=(",", ":")) for item in value
                )
            )
        return
    _say_utf8(json_text(value))


def emit_json_text(pieces: Iterable[str]) -> None:
    """Print JSON text made elsewhere, piece by piece as it is made, and a newline on stdout."""
    for piece in pieces:
        _say_utf8(piece, nl=False)
    echo(b"")


def _say_utf8(text: str, *, nl: bool = True) -> None:
    """``text`` and a newline as UTF-8 bytes on stdout, lone surrogates escaped.

    Bytes go to the binary stream as they are, where text would be searched for
    terminal codes, in a text of many megabytes (JSON holds none: it escapes every
    control character).
    """
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate, read from a file that spells one
        data = printable(text).encode("utf-8")
    echo(data, nl=nl)


def warn(message: str) -> None:
    say(message, err=True)


def say_recipe_warnings(workspace: Workspace) -> None:
    """Each likely typo in the project's kapi.yaml, on stderr (a key kapi does not read)."""
    if workspace.project is not None:
        for warning in workspace.project.warnings:
            warn(f"warning: {warning}")


def fail(error: BaseException, *, as_json: bool = False) -> NoReturn:
    """Report an error (any :class:`~kapi.core.errors.KapiError`) and exit with its code."""
    payload = error_payload(error)
    if as_json:
        say(json.dumps(payload, ensure_ascii=False))
    else:
        say(f"Error: {payload['error']}", err=True)
    sys.exit(exit_code_of(error))


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    cells = [[str(c) for c in row] for row in rows]
    widths = [max([len(h), *(len(r[i]) for r in cells)]) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    return "\n".join(lines)
