"""Artifact checks: success decided from the workspace's files and kapi's own records.

Nothing here reads the transcript. Files are compared with the workspace as it
started (SHA-256 of every file but ``.git/`` and ``.kapi/``); text is read the
way kapi reads it (``kcat``, so a ``.docx`` or an XLIFF target is text); the
gate is ``kapi check``; a recorded suggestion is found in
``kapi context log --json``. kapi runs as a person with discovery on, whatever
the agent's condition was: every condition is judged by the same gate.
"""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kapi_evals.scenarios import (
    Changed,
    Check,
    CommandCheck,
    ContextLogCheck,
    KapiCheck,
    TextCheck,
    UnchangedExcept,
)
from kapi_evals.workspace import file_digests, kapi_env

__all__ = ["CheckResult", "Checker"]

_TIMEOUT = 180


@dataclass(frozen=True)
class CheckResult:
    """One check's verdict, with what it saw when it failed."""

    check: str
    passed: bool
    detail: str = ""

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"check": self.check, "passed": self.passed}
        if self.detail:
            out["detail"] = self.detail
        return out


class Checker:
    """Runs a scenario's checks in one workspace."""

    def __init__(self, work: Path, baseline: dict[str, str], bin_dir: Path, home: Path) -> None:
        self.work = work
        self.baseline = baseline
        self.bin_dir = bin_dir
        self.home = home
        self._now: dict[str, str] | None = None

    @property
    def now(self) -> dict[str, str]:
        """The workspace's files as :meth:`run` found them."""
        assert self._now is not None
        return self._now

    def run(self, checks: tuple[Check, ...]) -> list[CheckResult]:
        """Every check's verdict, in order; the ones that run kapi or a command run side by side."""
        self._now = file_digests(self.work)
        with ThreadPoolExecutor(max_workers=4) as pool:
            return list(pool.map(self._one, checks))

    def _one(self, check: Check) -> CheckResult:
        if isinstance(check, Changed):
            return self._changed(check)
        if isinstance(check, UnchangedExcept):
            return self._unchanged_except(check)
        if isinstance(check, TextCheck):
            return self._text(check)
        if isinstance(check, KapiCheck):
            done = self._kapi("kapi", "check", *check.paths)
            return CheckResult(check.describe(), done.returncode == 0, _tail(done))
        if isinstance(check, ContextLogCheck):
            return self._context_log(check)
        return self._command(check)

    def _changed(self, check: Changed) -> CheckResult:
        problems = []
        for path in check.paths:
            if path not in self.now:
                problems.append(f"{path} is missing")
            elif self.now[path] == self.baseline.get(path):
                problems.append(f"{path} is as it was")
        return CheckResult(check.describe(), not problems, "; ".join(problems))

    def _unchanged_except(self, check: UnchangedExcept) -> CheckResult:
        touched = []
        for path, digest in sorted(self.baseline.items()):
            if path in check.paths:
                continue
            if path not in self.now:
                touched.append(f"{path} deleted")
            elif self.now[path] != digest:
                touched.append(f"{path} changed")
        created = sorted(set(self.now) - set(self.baseline) - set(check.paths))
        detail = "; ".join(touched)
        if created:
            detail = "; ".join([*touched, "new: " + ", ".join(created[:10])])
        return CheckResult(check.describe(), not touched, detail)

    def _text(self, check: TextCheck) -> CheckResult:
        path = self.work / check.file
        if check.read == "raw":
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as err:
                return CheckResult(check.describe(), False, f"cannot read {check.file}: {err}")
        else:
            target = ["--target", check.target] if check.target else []
            done = self._kapi("kcat", *target, check.file)
            if done.returncode != 0:
                return CheckResult(check.describe(), False, f"kcat cannot read it: {_tail(done)}")
            text = done.stdout
        problems = [f"no {want!r}" for want in check.contains if want not in text]
        problems += [f"still {unwanted!r}" for unwanted in check.lacks if unwanted in text]
        return CheckResult(check.describe(), not problems, "; ".join(problems))

    def _context_log(self, check: ContextLogCheck) -> CheckResult:
        done = self._kapi("kapi", "context", "log", "--json")
        if done.returncode != 0:
            return CheckResult(check.describe(), False, f"kapi context log failed: {_tail(done)}")
        try:
            operations = json.loads(done.stdout).get("operations", [])
        except (ValueError, AttributeError):
            return CheckResult(check.describe(), False, "kapi context log gave no JSON")
        for operation in operations:
            if check.kinds and operation.get("kind") not in check.kinds:
                continue
            if check.actor and operation.get("actor_kind") != check.actor:
                continue
            if (
                check.contains
                and check.contains.casefold() not in str(operation.get("text", "")).casefold()
            ):
                continue
            paths = [item.get("path") for item in operation.get("evidence") or []]
            if check.seen_in and check.seen_in not in paths:
                continue
            return CheckResult(check.describe(), True)
        lines = [str(operation.get("line", "")) for operation in operations][:5]
        seen = "; ".join(lines) if lines else "the log is empty"
        return CheckResult(check.describe(), False, seen)

    def _command(self, check: CommandCheck) -> CheckResult:
        argv = [sys.executable if check.run[0] == "python" else check.run[0], *check.run[1:]]
        try:
            done = subprocess.run(
                argv,
                cwd=self.work / check.cwd,
                env={**kapi_env(), "HOME": str(self.home), "PYTHONDONTWRITEBYTECODE": "1"},
                capture_output=True,
                text=True,
                timeout=_TIMEOUT,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as err:
            return CheckResult(check.describe(), False, str(err))
        return CheckResult(check.describe(), done.returncode == check.exit, _tail(done))

    def _kapi(self, name: str, *args: str) -> subprocess.CompletedProcess[str]:
        try:
            return subprocess.run(
                [str(self.bin_dir / name), *args],
                cwd=self.work,
                env=kapi_env(),
                capture_output=True,
                text=True,
                timeout=_TIMEOUT,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as err:
            return subprocess.CompletedProcess([name, *args], 1, "", str(err))


def _tail(done: subprocess.CompletedProcess[str]) -> str:
    """The last lines a command printed, short enough for a report cell."""
    text = (done.stdout.strip() + "\n" + done.stderr.strip()).strip()
    lines = text.splitlines()[-6:]
    return " / ".join(line.strip() for line in lines if line.strip())[:500]
