"""Errors the host reports to a person, and the one mapping of any error to what a door shows.

Every error kapi raises is a :class:`~kapi.core.errors.KapiError`; the CLI
exits with :func:`exit_code_of` and prints :func:`error_payload` (``--json``),
and the MCP server turns the same payload into an error result.
"""

from __future__ import annotations

from typing import Any

from kapi.core.errors import (
    EXIT_DID_NOT_RUN,
    EXIT_ERROR,
    EXIT_OK,
    EXIT_UNREACHABLE,
    EXIT_USAGE,
    KapiError,
)
from kapi.core.errors import EXIT_REFUSED as EXIT_GATE

__all__ = [
    "EXIT_DID_NOT_RUN",
    "EXIT_ERROR",
    "EXIT_GATE",
    "EXIT_OK",
    "EXIT_UNREACHABLE",
    "EXIT_USAGE",
    "HostError",
    "KapiError",
    "error_payload",
    "exit_code_of",
]


def exit_code_of(error: BaseException) -> int:
    """The exit code a command line ends with for ``error`` (1 for anything unforeseen)."""
    return error.exit_code if isinstance(error, KapiError) else EXIT_ERROR


def error_payload(error: BaseException) -> dict[str, Any]:
    """``{"error": message, "code": symbol}``: the error as ``--json`` and MCP report it."""
    if isinstance(error, HostError):
        return {"error": error.message, "code": error.code}
    if isinstance(error, KapiError):
        return {"error": str(error), "code": str(error.code)}
    return {"error": str(error) or type(error).__name__, "code": "error"}


class HostError(KapiError):
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
