"""The one error the evaluations raise for what a person must fix."""

from __future__ import annotations

__all__ = ["EXIT_FAILED", "EXIT_USAGE", "EvalError"]

EXIT_USAGE = 2  # bad input, no agent, no credentials: nothing was run
EXIT_FAILED = 1  # the run could not be carried out


class EvalError(Exception):
    """A message a person can act on, and the exit code the command ends with."""

    def __init__(self, message: str, exit_code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.exit_code = exit_code
