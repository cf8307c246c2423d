"""Error codes of the change contract, their exit codes, and the error a refusal carries."""

from __future__ import annotations

from enum import StrEnum

from attrs import frozen

from kapi.core.change.ops import PathStep
from kapi.core.errors import KapiError

__all__ = [
    "EXIT_CODES",
    "Candidate",
    "ChangeError",
    "ErrorCode",
    "ErrorInfo",
    "GuardSubcode",
    "Searched",
    "SpanPos",
    "TextSpan",
    "exit_code",
]


class ErrorCode(StrEnum):
    INVALID = "invalid"
    NOT_FOUND = "not_found"
    AMBIGUOUS = "ambiguous"
    STALE = "stale"
    DOC_CHANGED = "doc_changed"
    GUARD = "guard"
    GATE_FAILED = "gate_failed"
    UNSUPPORTED = "unsupported"
    NOT_PERMITTED = "not_permitted"
    BUDGET_EXCEEDED = "budget_exceeded"
    UNREACHABLE = "unreachable"


class GuardSubcode(StrEnum):
    CODES_CHANGED = "codes_changed"
    STRUCTURE_LOST = "structure_lost"
    BAD_POSITION = "bad_position"
    OVERLAP = "overlap"


EXIT_CODES: dict[ErrorCode, int] = {
    ErrorCode.INVALID: 2,
    ErrorCode.NOT_FOUND: 3,
    ErrorCode.AMBIGUOUS: 3,
    ErrorCode.STALE: 3,
    ErrorCode.DOC_CHANGED: 3,
    ErrorCode.GUARD: 3,
    ErrorCode.GATE_FAILED: 3,
    ErrorCode.UNSUPPORTED: 3,
    ErrorCode.NOT_PERMITTED: 3,
    ErrorCode.BUDGET_EXCEEDED: 3,
    ErrorCode.UNREACHABLE: 5,
}

HTTP_STATUS: dict[ErrorCode, int] = {
    ErrorCode.INVALID: 400,
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.AMBIGUOUS: 409,
    ErrorCode.STALE: 409,
    ErrorCode.DOC_CHANGED: 409,
    ErrorCode.GUARD: 422,
    ErrorCode.GATE_FAILED: 422,
    ErrorCode.UNSUPPORTED: 422,
    ErrorCode.NOT_PERMITTED: 403,
    ErrorCode.BUDGET_EXCEEDED: 413,
    ErrorCode.UNREACHABLE: 503,
}


def exit_code(code: ErrorCode | str) -> int:
    """The process exit code for a refusal with this code."""
    return EXIT_CODES[ErrorCode(code)]


@frozen
class SpanPos:
    """An echoed position: both fields always present."""

    run: int
    offset: int


@frozen
class TextSpan:
    """An echoed span (``resolved``, a candidate's ``at``, a finding's ``range``)."""

    start: SpanPos
    end: SpanPos
    path: tuple[PathStep, ...] | None = None


@frozen
class Candidate:
    """A near match offered with a refusal: a block key, or a find's occurrence."""

    key: str | None = None
    rev: str | None = None
    text: str | None = None
    occurrence: int | None = None
    at: TextSpan | None = None


@frozen
class Searched:
    """What a ``find`` that matched nothing searched."""

    text: str
    path: tuple[PathStep, ...] | None = None


@frozen
class ErrorInfo:
    """The ``error`` object of a result: what was refused, where, and what to do."""

    code: ErrorCode
    message: str
    subcode: GuardSubcode | None = None
    field: str | None = None
    pointer: str | None = None
    candidates: tuple[Candidate, ...] | None = None
    searched: Searched | None = None
    expected: str | None = None
    found: str | None = None
    capability: str | None = None

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.code]


class ChangeError(KapiError):
    """A refusal raised inside the change service or the decoder; carries its :class:`ErrorInfo`."""

    code: ErrorCode

    def __init__(self, info: ErrorInfo, *, current: object = None) -> None:
        super().__init__(info.message)
        self.info = info
        self.current = current
        self.code = info.code
        self.exit_code = info.exit_code

    @classmethod
    def of(
        cls,
        code: ErrorCode,
        message: str,
        **fields: object,
    ) -> ChangeError:
        current = fields.pop("current", None)
        return cls(ErrorInfo(code=code, message=message, **fields), current=current)  # type: ignore[arg-type]
