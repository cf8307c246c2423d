"""Running one agent session: its stream kept line by line, its time bounded, its secrets kept out.

The agent runs in a process group of its own, so a timeout ends it and
everything it started (an MCP server, a shell it left running). Every line of
its stdout is written to the transcript as it arrives, and the value of any
variable of its environment that names a key, a token, a secret or a password
is replaced by ``[REDACTED]`` in the transcript and in its stderr.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Session", "run_session", "secrets_of"]

_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD", re.IGNORECASE)


@dataclass
class Session:
    """How one agent process went."""

    lines: list[str] = field(default_factory=list)
    exit_code: int | None = None
    timed_out: bool = False
    launch_error: str = ""
    seconds: float = 0.0


def secrets_of(env: Mapping[str, str]) -> list[str]:
    """The values a transcript must never hold: those of credential-like variables."""
    return sorted(
        {value for key, value in env.items() if _SECRET_NAME.search(key) and len(value) >= 8},
        key=len,
        reverse=True,
    )


def _redact(text: str, swaps: list[tuple[str, str]]) -> str:
    for found, shown in swaps:
        text = text.replace(found, shown)
    return text


def run_session(
    argv: list[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    prompt: str,
    timeout: float,
    transcript: Path,
    stderr: Path,
    hide: Mapping[str, str] | None = None,
) -> Session:
    """Runs the agent once, appending its stream to ``transcript`` and its stderr to ``stderr``.

    The session keeps the lines as they came; the files get them redacted. ``hide`` maps further text (this checkout's path) to what the records show instead.
    """
    secrets = secrets_of(env)
    swaps = [(secret, "[REDACTED]") for secret in secrets] + sorted(
        (hide or {}).items(), key=lambda item: len(item[0]), reverse=True
    )
    session = Session()
    started = time.monotonic()
    with transcript.open("a", encoding="utf-8") as out, stderr.open("ab") as err:
        try:
            process = subprocess.Popen(
                argv,
                cwd=cwd,
                env=dict(env),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                start_new_session=True,
            )
        except OSError as error:
            session.launch_error = str(error)
            return session

        def pump() -> None:
            assert process.stdout is not None
            for raw in process.stdout:
                line = raw.decode("utf-8", "replace")
                shown = _redact(line, swaps)
                out.write(shown if shown.endswith("\n") else shown + "\n")
                out.flush()
                session.lines.append(line)

        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        assert process.stdin is not None
        try:
            process.stdin.write(prompt.encode("utf-8"))
            process.stdin.close()
        except OSError:
            pass
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            session.timed_out = True
            _end_group(process, signal.SIGTERM)
            try:
                process.wait(timeout=3)
            except subprocess.TimeoutExpired:
                _end_group(process, signal.SIGKILL)
                process.wait()
        _end_group(process, signal.SIGKILL)  # what the agent left running in its group
        reader.join(timeout=5)
        session.exit_code = process.returncode
    session.seconds = time.monotonic() - started
    if swaps and stderr.stat().st_size:
        stderr.write_text(
            _redact(stderr.read_text(encoding="utf-8", errors="replace"), swaps),
            encoding="utf-8",
        )
    return session


def _end_group(process: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)
