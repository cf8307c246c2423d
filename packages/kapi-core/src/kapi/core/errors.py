"""The root of every error kapi reports: a code, a message a person can act on, an exit code.

Each layer raises its own kind (a change refusal, a format that cannot read a
file, a voice profile that does not load, a host failure); all of them are
:class:`KapiError`, so a door maps any of them to its exit code or its error
result in one place.
"""

from __future__ import annotations

__all__ = [
    "EXIT_DID_NOT_RUN",
    "EXIT_ERROR",
    "EXIT_OK",
    "EXIT_REFUSED",
    "EXIT_UNREACHABLE",
    "EXIT_USAGE",
    "KapiError",
    "contract_exit_code",
]

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_REFUSED = 3
EXIT_DID_NOT_RUN = 4
EXIT_UNREACHABLE = 5


def contract_exit_code(code: str) -> int:
    """The exit code of a ``kapi.change/v1`` error code: 2 invalid, 5 unreachable, else 3."""
    if code == "invalid":
        return EXIT_USAGE
    if code == "unreachable":
        return EXIT_UNREACHABLE
    return EXIT_REFUSED


class KapiError(Exception):
    """An error kapi reports to whoever called it.

    ``code`` is a short symbol (a change-contract code such as ``invalid``, or
    ``usage``, ``error``…), ``str(error)`` the message, and ``exit_code`` what a
    command line exits with. Subclasses that carry a contract code take its
    exit code from :func:`contract_exit_code` unless they say otherwise.
    """

    code: str = "error"
    exit_code: int = EXIT_ERROR
