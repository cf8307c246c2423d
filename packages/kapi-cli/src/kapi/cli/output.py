"""How the CLI speaks: the result on stdout, everything else on stderr."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

import click

from kapi.host.errors import HostError

__all__ = ["emit_json", "fail", "table", "warn"]


def emit_json(value: Any, *, jsonl: bool = False) -> None:
    if jsonl and isinstance(value, list):
        for item in value:
            click.echo(json.dumps(item, ensure_ascii=False, separators=(",", ":")))
        return
    click.echo(json.dumps(value, ensure_ascii=False, indent=2))


def warn(message: str) -> None:
    click.echo(message, err=True)


def fail(error: HostError, *, as_json: bool = False) -> None:
    """Report an error and exit with its code."""
    if as_json:
        click.echo(json.dumps({"error": error.message, "code": error.code}, ensure_ascii=False))
    else:
        click.echo(f"Error: {error.message}", err=True)
    sys.exit(error.exit_code)


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    cells = [[str(c) for c in row] for row in rows]
    widths = [max([len(h), *(len(r[i]) for r in cells)]) for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    return "\n".join(lines)
