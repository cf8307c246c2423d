"""The formatters a project may declare for its source files, run on bytes before they land.

``ruff`` (``ruff format --check``), ``prettier`` (its output compared with the
input, as ``prettier --check`` does) and ``gofmt`` (``gofmt -l``). A formatter
that is declared but not installed is ``did_not_run`` with the reason, never
a pass.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from attrs import frozen

__all__ = ["FORMATTERS", "FormatterVerdict", "run_formatter"]

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
