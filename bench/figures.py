"""The figures a bench script reports, as records the suite (``bench/run.py``) gathers.

A script prints its table as before and, beside each row, calls :func:`record` with the
figure's median and, when it has one, the anchor measured in the same run (the tool or
library kapi is compared with). ``--json FILE`` (added by :func:`add_json_option`) makes the
script write what it recorded to FILE when it ends: a list of ``{name, median_ms, anchor,
anchor_ms, ratio}``, ``ratio`` being ``median_ms / anchor_ms`` (lower is better for kapi).
A figure counted rather than timed (:func:`record_count`: instructions) has ``count`` and
``anchor_count`` instead of the times, and ``ratio`` their quotient. An outcome
(:func:`record_outcome`: torn files after kills, codes the guard judges otherwise than the
read) has a ``value``, its ``unit`` and, when the outcome is a promise, the value it ``must``
have; it is never compared with a baseline, and a broken promise fails the suite.
"""

from __future__ import annotations

import argparse
import atexit
import json
from pathlib import Path
from typing import Any

__all__ = [
    "add_json_option",
    "record",
    "record_count",
    "record_outcome",
    "records",
    "write",
    "written_on_exit",
]

_RECORDS: list[dict[str, Any]] = []


def record(
    name: str,
    seconds: float,
    anchor: str | None = None,
    anchor_seconds: float | None = None,
) -> None:
    """Keep one figure: ``name`` took ``seconds`` (a median), beside ``anchor`` if given."""
    median_ms = round(seconds * 1000, 3)
    entry: dict[str, Any] = {"name": name, "median_ms": median_ms, "anchor": None}
    entry["anchor_ms"] = None
    entry["ratio"] = None
    if anchor is not None and anchor_seconds:
        entry["anchor"] = anchor
        entry["anchor_ms"] = round(anchor_seconds * 1000, 3)
        entry["ratio"] = round(seconds / anchor_seconds, 4)
    _RECORDS.append(entry)


def record_count(name: str, count: int, anchor: str, anchor_count: int) -> None:
    """Keep one counted figure: ``name`` took ``count`` instructions, beside ``anchor``'s."""
    _RECORDS.append(
        {
            "name": name,
            "median_ms": None,
            "count": count,
            "anchor": anchor,
            "anchor_ms": None,
            "anchor_count": anchor_count,
            "ratio": round(count / anchor_count, 4) if anchor_count else None,
        }
    )


def record_outcome(name: str, value: int, unit: str, must: int | None = None) -> None:
    """Keep one outcome: ``value`` ``unit`` (``must`` is the value kapi promises, if any)."""
    _RECORDS.append(
        {
            "name": name,
            "median_ms": None,
            "value": value,
            "unit": unit,
            "must": must,
            "anchor": None,
            "anchor_ms": None,
            "ratio": None,
        }
    )


def records() -> list[dict[str, Any]]:
    """What was recorded so far, in order."""
    return list(_RECORDS)


def write(path: Path | str) -> None:
    """Write the records to ``path`` as a JSON list."""
    Path(path).write_text(json.dumps(_RECORDS, indent=1) + "\n", encoding="utf-8")


def add_json_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--json FILE``; call :func:`written_on_exit` with the parsed value."""
    parser.add_argument(
        "--json",
        metavar="FILE",
        type=Path,
        default=None,
        help="also write the figures as JSON records to FILE (for bench/run.py)",
    )


def written_on_exit(path: Path | None) -> None:
    """Write the records to ``path`` when the script ends (nothing when ``path`` is None)."""
    if path is not None:
        atexit.register(write, path)
