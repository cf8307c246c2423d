"""The context's refusals: an unknown or ambiguous id, a note without evidence, a decision not allowed."""

from __future__ import annotations

from kapi.core.errors import KapiError, contract_exit_code

__all__ = ["ContextError", "ContextRefused"]


class ContextError(KapiError):
    """Input the context cannot take: ``code`` is ``invalid`` (exit 2) or ``not_found`` (exit 3)."""

    def __init__(self, message: str, *, code: str = "invalid") -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.exit_code = contract_exit_code(code)


class ContextRefused(ContextError):
    """The policy refuses this sender this operation (code ``not_permitted``, exit 3)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, code="not_permitted")
