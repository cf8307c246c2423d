"""Validity windows: ``valid_from`` inclusive, ``valid_to`` exclusive, a bare date at midnight UTC."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

__all__ = ["parse_instant", "within"]

_BARE_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def parse_instant(text: str | date | datetime) -> datetime:
    """An aware UTC instant from an ISO date or date-time; raises ``ValueError`` if it does not parse.

    A bare date is midnight UTC; a date-time without an offset is read as UTC.
    Parsed YAML may already hold a ``date`` or ``datetime``; both are accepted.
    """
    if isinstance(text, datetime):
        value = text
    elif isinstance(text, date):
        value = datetime(text.year, text.month, text.day, tzinfo=UTC)
    else:
        stripped = text.strip()
        try:
            if _BARE_DATE.match(stripped):
                day = date.fromisoformat(stripped)
                value = datetime(day.year, day.month, day.day, tzinfo=UTC)
            else:
                value = datetime.fromisoformat(stripped)
        except ValueError:
            raise ValueError(f"{text!r} is not a date (YYYY-MM-DD) or an ISO date-time") from None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def within(at: datetime, start: datetime | None, end: datetime | None) -> bool:
    """True when ``start <= at < end`` (a missing bound is open)."""
    if at.tzinfo is None:
        at = at.replace(tzinfo=UTC)
    if start is not None and at < start:
        return False
    return end is None or at < end
