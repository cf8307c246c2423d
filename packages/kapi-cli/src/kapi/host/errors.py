"""Errors the host reports to a person: a message and the exit code it maps to."""

from __future__ import annotations

__all__ = ["EXIT_DID_NOT_RUN", "EXIT_ERROR", "EXIT_GATE", "EXIT_OK", "EXIT_USAGE", "HostError"]

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_GATE = 3
EXIT_DID_NOT_RUN = 4


class HostError(Exception):
    """A failure a person can act on; ``code`` is the JSON envelope's symbol."""

    def __init__(self, message: str, *, exit_code: int = EXIT_ERROR, code: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.code = code or {
            EXIT_USAGE: "usage",
            EXIT_GATE: "gate",
            EXIT_DID_NOT_RUN: "did_not_run",
        }.get(exit_code, "error")
