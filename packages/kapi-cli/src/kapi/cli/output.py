"""How the CLI speaks: the result on stdout, everything else on stderr.

Text read from files may hold a lone surrogate (a JSON ``"\\ud800"``), which
no encoding can write: it is printed as the JSON escape ``\\ud800``, valid
JSON on stdout and readable on stderr.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

import click

from kapi.host.errors import error_payload, exit_code_of

__all__ = ["emit_json", "fail", "printable", "say", "table", "warn"]

_SURROGATE = re.compile("[\ud800-\udfff]")


def printable(text: str) -> str:
    """``text`` with each lone surrogate as its escape ``\\udXXX``; other text as it is.

    Inside a JSON string the escape decodes back to the same code point.
    """
    if text.isascii() or not _SURROGATE.search(text):
        return text
    return _SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def say(text: str, *, nl: bool = True, err: bool = False) -> None:
    """Print ``text`` (stdout, or stderr with ``err``), lone surrogates escaped."""
    click.echo(printable(text), nl=nl, err=err)


def emit_json(value: Any, *, jsonl: bool = False) -> None:
    if jsonl and isinstance(value, list):
        for item in value:
            say(json.dumps(item, ensure_ascii=False, separators=(",", ":")))
        return
    say(json.dumps(value, ensure_ascii=False, indent=2))


def warn(message: str) -> None:
    say(message, err=True)


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
