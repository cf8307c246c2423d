"""Values a store wrote, read back into attrs values without a converter.

A store writes its values through a converter and reads them many times (a
terms store of thousands of concepts, a context log of thousands of
operations, on every answer). Reading them back the same way costs more than
the answer, so a store's own rows are built directly from small tables of
readers; each reader checks the JSON type it takes and raises :class:`Unusual`
on anything else, and the caller then reads the row through its converter,
which names any fault.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kapi.core.errors import KapiError

__all__ = ["Unusual", "built", "count", "flag", "maybe", "pairs", "text", "texts"]

Read = Callable[[Any], Any]


class Unusual(KapiError):
    """A row of another shape than the store writes (the reader's caller reads it another
    way, so it never reaches a door)."""

    code = "invalid"


def text(value: Any) -> str:
    if type(value) is not str:
        raise Unusual
    return value


def flag(value: Any) -> bool:
    if type(value) is not bool:
        raise Unusual
    return value


def count(value: Any) -> int:
    if type(value) is not int:
        raise Unusual
    return value


def texts(value: Any) -> tuple[str, ...]:
    if type(value) is not list or any(type(v) is not str for v in value):
        raise Unusual
    return tuple(value)


def pairs(value: Any) -> dict[str, str]:
    if type(value) is not dict or any(
        type(k) is not str or type(v) is not str for k, v in value.items()
    ):
        raise Unusual
    return value


def maybe(read: Read) -> Read:
    """``read``, taking ``null`` as None."""
    return lambda value: None if value is None else read(value)


def built(cls: type, reads: Mapping[str, Read], required: tuple[str, ...] = ()) -> Read:
    """A reader of a JSON object into ``cls``: each key read by its reader; an unknown key,
    or a missing one of ``required``, is :class:`Unusual`."""

    def build(value: Any) -> Any:
        if type(value) is not dict:
            raise Unusual
        fields = {}
        for key, item in value.items():
            read = reads.get(key)
            if read is None:
                raise Unusual
            fields[key] = read(item)
        for key in required:
            if key not in fields:
                raise Unusual
        return cls(**fields)

    return build
