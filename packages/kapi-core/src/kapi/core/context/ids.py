"""Operation ids: 24 lower-case Crockford base32 characters, sortable by time, resolvable by prefix.

The first 8 characters count milliseconds since 2026-01-01 UTC, the other 16
are random; an id never sorts before the log's newest (the clock is bumped a
millisecond). The short form is the first 10 characters; any unique prefix
(``#`` and case ignored) names an operation.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime

from kapi.core.context.errors import ContextError

__all__ = ["ALPHABET", "EPOCH", "ID_LENGTH", "SHORT_LENGTH", "mint_id", "resolve_prefix", "short"]

ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"
EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
ID_LENGTH = 24
SHORT_LENGTH = 10
_TIME_CHARS = 8
_RANDOM_CHARS = 16
_VALUE = {c: i for i, c in enumerate(ALPHABET)}


def _encode(value: int, width: int) -> str:
    out = []
    for _ in range(width):
        out.append(ALPHABET[value & 31])
        value >>= 5
    return "".join(reversed(out))


def _decode(text: str) -> int:
    value = 0
    for char in text:
        value = value * 32 + _VALUE[char]
    return value


_OP_ID = re.compile(f"[{ALPHABET}]{{{ID_LENGTH}}}")


def is_op_id(text: str) -> bool:
    return _OP_ID.fullmatch(text) is not None


def mint_id(at: datetime, random_bits: int, newest: str = "") -> str:
    """The id for an op made at ``at``; later than ``newest`` (bumped 1 ms) when the clock is not."""
    ms = max(int((at - EPOCH).total_seconds() * 1000), 0)
    if newest and is_op_id(newest):
        ms = max(ms, _decode(newest[:_TIME_CHARS]) + 1)
    return _encode(ms, _TIME_CHARS) + _encode(random_bits % (1 << 80), _RANDOM_CHARS)


def short(op_id: str) -> str:
    return op_id[:SHORT_LENGTH]


def resolve_prefix(prefix: str, ids: Iterable[str]) -> str:
    """The one id ``prefix`` names; an unknown or ambiguous prefix is a :class:`ContextError`."""
    wanted = prefix.strip().lstrip("#").lower()
    if not wanted:
        raise ContextError("an operation id is empty: give its first characters, e.g. #0n79tw5k9s")
    matches = sorted({i for i in ids if i.lower().startswith(wanted)})
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise ContextError(
            f"no operation #{wanted} in this project's context; "
            "`kapi context log` lists the operations and their ids",
            code="not_found",
        )
    listed = ", ".join(
        "#" + short(m) if len(wanted) < SHORT_LENGTH else "#" + m for m in matches[:8]
    )
    more = f" and {len(matches) - 8} more" if len(matches) > 8 else ""
    raise ContextError(
        f"#{wanted} names {len(matches)} operations ({listed}{more}); give more characters of the id"
    )
