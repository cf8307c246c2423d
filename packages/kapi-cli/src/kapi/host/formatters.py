"""The formatters a project may declare for its source files, run on bytes before they land.

``ruff`` (``ruff format --check``), ``prettier`` (its output compared with the
input, as ``prettier --check`` does) and ``gofmt`` (``gofmt -l``). A formatter
that is declared but not installed is ``did_not_run`` with the reason, never
a pass.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from attrs import frozen

__all__ = ["CANARY_SAMPLES", "FORMATTERS", "FormatterVerdict", "check_files", "run_formatter"]

FORMATTERS = ("ruff", "prettier", "gofmt")
_TIMEOUT = 120


@frozen
class FormatterVerdict:
    """``passed``, ``failed`` (the formatter would change the file) or ``did_not_run``."""

    status: str
    reason: str = ""


def _find(name: str, cwd: Path) -> str | None:
    local = cwd / "node_modules" / ".bin" / name
    if local.is_file():
        return str(local)
    beside = Path(sys.executable).parent / name  # a tool installed in kapi's own environment
    if beside.is_file():
        return str(beside)
    return shutil.which(name)


def _command(name: str, program: str, doc: str) -> list[str]:
    if name == "ruff":
        return [program, "format", "--check", "--stdin-filename", doc, "-"]
    if name == "prettier":
        return [program, "--stdin-filepath", doc]
    return [program, "-l"]


def run_formatter(name: str, data: bytes, doc: str, *, cwd: Path) -> FormatterVerdict:
    """Whether the formatter ``name`` leaves ``data`` (the file ``doc`` would hold) as it is."""
    if name not in FORMATTERS:
        return FormatterVerdict("did_not_run", f"{name!r} is not a formatter kapi runs")
    program = _find(name, cwd)
    if program is None:
        return FormatterVerdict(
            "did_not_run", f"{name} is declared for {doc} but not installed (not on PATH)"
        )
    try:
        done = subprocess.run(
            _command(name, program, doc),
            input=data,
            cwd=cwd,
            capture_output=True,
            timeout=_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        return FormatterVerdict("did_not_run", f"{name} could not run: {err}")
    errors = done.stderr.decode("utf-8", "replace").strip().splitlines()
    detail = errors[-1] if errors else ""
    if name == "ruff":
        if done.returncode == 0:
            return FormatterVerdict("passed")
        if done.returncode == 1:
            return FormatterVerdict("failed", "ruff format would reformat it")
        return FormatterVerdict("did_not_run", f"ruff format failed: {detail}")
    if name == "prettier":
        if done.returncode != 0:
            return FormatterVerdict("did_not_run", f"prettier failed: {detail}")
        if done.stdout == data:
            return FormatterVerdict("passed")
        return FormatterVerdict("failed", "prettier would reformat it")
    if done.returncode != 0:
        return FormatterVerdict("did_not_run", f"gofmt failed: {detail}")
    if done.stdout.strip():
        return FormatterVerdict("failed", "gofmt -l lists it")
    return FormatterVerdict("passed")


# A sample each formatter must flag: it is the formatter's canary in a check.
CANARY_SAMPLES = {
    "ruff": ("canary.py", b"x=( 1 )\n"),
    "prettier": ("canary.ts", b"let   a=1\n"),
    "gofmt": ("canary.go", b"package a\nfunc  f( ) {}\n"),
}


def _listed(name: str, program: str, displays: list[str]) -> list[str]:
    if name == "ruff":
        return [program, "format", "--check", *displays]
    if name == "prettier":
        return [program, "--list-different", *displays]
    return [program, "-l", *displays]


_ARROW = re.compile(r"^\s*-->\s*(.+?):\d+:\d+\s*$")


def _listed_files(output: str) -> tuple[set[str], dict[str, str]]:
    """The files a formatter's listing names to reformat, and those it could not read (why).

    Reads ``prettier --list-different`` and ``gofmt -l`` (one path a line), ``ruff format
    --check`` as it writes old (``Would reformat: path``) and new (a titled block, then
    ``--> path:line:col``), and the errors of each (``[error] path: …``, ``path:l:c: …``).
    """
    reformat: set[str] = set()
    unreadable: dict[str, str] = {}
    title = ""
    for raw in output.splitlines():
        line = raw.strip()
        if not line:
            continue
        arrow = _ARROW.match(raw)
        if arrow is not None:
            if title.startswith("unformatted"):
                reformat.add(arrow.group(1))
            else:
                unreadable.setdefault(arrow.group(1), title)
            continue
        if line.startswith("Would reformat: "):
            reformat.add(line.removeprefix("Would reformat: "))
        elif line.startswith("[error] "):
            path, _, why = line.removeprefix("[error] ").partition(": ")
            unreadable.setdefault(path, why)
        elif line.startswith("error: Failed to parse "):
            path = line.removeprefix("error: Failed to parse ").split(":")[0]
            unreadable.setdefault(path, line)
        elif re.match(r"^[\w./-]+:\d+:\d+: ", line):
            unreadable.setdefault(line.split(":")[0], line)
        elif ":" in line and not line.startswith(("|", "-", "+")) and " " in line:
            title = line
        elif " " not in line:
            reformat.add(line)  # a path alone: prettier --list-different, gofmt -l
    return reformat, unreadable


def check_files(name: str, files: Sequence[tuple[str, Path]], *, cwd: Path) -> dict[str, Any]:
    """Each file's verdict under formatter ``name`` (``display -> FormatterVerdict``), in one
    run of the formatter, and its canary's (a sample it must flag) under ``<canary:name>``.

    ``display`` is the file's path relative to ``cwd``, as the formatter is given it.
    """
    verdicts: dict[str, Any] = {}
    canary_name, canary_data = CANARY_SAMPLES.get(name, ("canary", b""))
    canary = run_formatter(name, canary_data, canary_name, cwd=cwd)
    verdicts[f"<canary:{name}>"] = canary
    displays = [display for display, _ in files]
    if canary.status == "did_not_run":
        reason = canary.reason.replace(f" for {canary_name}", "")
        verdicts.update({display: FormatterVerdict("did_not_run", reason) for display in displays})
        return verdicts
    if not displays:
        return verdicts
    program = _find(name, cwd)
    assert program is not None  # the canary ran
    try:
        done = subprocess.run(
            _listed(name, program, displays),
            cwd=cwd,
            capture_output=True,
            timeout=_TIMEOUT * 5,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        reason = f"{name} could not run: {err}"
        verdicts.update({display: FormatterVerdict("did_not_run", reason) for display in displays})
        return verdicts
    reformat, unreadable = _listed_files(
        done.stdout.decode("utf-8", "replace") + "\n" + done.stderr.decode("utf-8", "replace")
    )
    for display in displays:
        if display in unreadable:
            verdicts[display] = FormatterVerdict(
                "did_not_run", f"{name} could not read it: {unreadable[display]}"
            )
        elif display in reformat:
            verdicts[display] = FormatterVerdict("failed", f"{name} would reformat it")
        else:
            verdicts[display] = FormatterVerdict("passed")
    return verdicts
