"""The shape of ``kapi.change/v1`` on the wire, shared by the converters and the schema: what
each field is called, which fields are required, the order they are written in, the unions."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from types import UnionType
from typing import Any, TypeAlias, Union, get_args, get_origin

import attrs

from kapi.core.change.ops import OP_KINDS, Anchor, Branch, ChangeSet, Memory, Native, Op, Recipe
from kapi.core.change.result import Invalidation, Result
from kapi.core.errors import EXIT_USAGE, KapiError
from kapi.core.model import PcClose, PcOpen, Ph, Plural, Run, Select, Sub, Text

__all__ = [
    "NATIVE_ONLY",
    "NULL_MESSAGE",
    "OP_CLASSES",
    "OP_MEMBERS",
    "PLURAL_FORMS",
    "RENAMES",
    "RUN_KEYS",
    "RUN_MEMBERS",
    "STEP_MEMBERS",
    "Fault",
    "PathKey",
    "WireFault",
    "is_mapping_type",
    "is_plural_form",
    "is_tuple_type",
    "is_union_type",
    "required_attrs",
    "wire_fields",
    "wire_name",
]

PathKey: TypeAlias = str | int
Fault: TypeAlias = tuple[tuple[PathKey, ...], str]


class WireFault(KapiError):
    """Values that do not fit the wire: each fault a path (relative to the value) and a message."""

    code = "invalid"
    exit_code = EXIT_USAGE

    def __init__(self, faults: list[Fault]) -> None:
        super().__init__(faults[0][1] if faults else "fault")
        self.faults = faults

    @classmethod
    def at(cls, message: str, *path: PathKey) -> WireFault:
        return cls([(tuple(path), message)])


RENAMES: dict[tuple[type, str], str] = {
    (Memory, "from_"): "from",
    (Anchor, "run_id"): "runId",
    (Text, "no_translate"): "noTranslate",
    (Ph, "sub_type"): "subType",
    (PcOpen, "sub_type"): "subType",
    (PcClose, "sub_type"): "subType",
}

RUN_KEYS: dict[type, str] = {
    Ph: "ph",
    PcOpen: "pcOpen",
    PcClose: "pcClose",
    Sub: "sub",
    Plural: "plural",
    Select: "select",
}

# A code's native form stays with the format: read from the wire only as "".
NATIVE_ONLY = frozenset({(Ph, "data"), (PcOpen, "data"), (PcClose, "data")})

OP_CLASSES: tuple[type, ...] = tuple(OP_KINDS.values())

# Fields that have a Python default but that the schema requires all the same.
_REQUIRED_EXTRA: dict[type, frozenset[str]] = {
    **{cls: frozenset({"op"}) for cls in OP_CLASSES},
    Native: frozenset({"op", "args"}),
    Recipe: frozenset({"op", "value"}),
    ChangeSet: frozenset({"ops"}),
    Plural: frozenset({"forms"}),
    Select: frozenset({"cases"}),
    Result: frozenset({"schema", "status", "record", "docs", "ops"}),
    Invalidation: frozenset({"reason"}),
}

_OP_LEADING = ("op", "at", "doc", "if_match", "basis")

PLURAL_FORMS = ("zero", "one", "two", "few", "many", "other")
_EXPLICIT_PLURAL = re.compile(r"^=[0-9]+(\.[0-9]+)?$")

NULL_MESSAGE = "null is not a value here; leave the field out"


def is_plural_form(name: str) -> bool:
    """A CLDR plural category or an explicit value selector such as ``=0``."""
    return name in PLURAL_FORMS or _EXPLICIT_PLURAL.fullmatch(name) is not None


def wire_name(cls: type, attr: str) -> str:
    """The name ``cls.attr`` has on the wire."""
    return RENAMES.get((cls, attr), attr)


@functools.cache
def required_attrs(cls: type) -> frozenset[str]:
    """The attributes of ``cls`` the wire requires (no default, or listed as required)."""
    own = {a.name for a in attrs.fields(cls) if a.default is attrs.NOTHING}
    return frozenset(own | _REQUIRED_EXTRA.get(cls, frozenset()))


@functools.cache
def wire_fields(cls: type) -> tuple[tuple[str, str], ...]:
    """``(attribute, wire name)`` pairs of ``cls`` in the order the wire writes them.

    An operation writes ``op``, its address, ``if_match`` and ``basis`` first, then
    its body in class order; a change set writes ``ops`` last, a result ``schema`` first.
    """
    names = [a.name for a in attrs.fields(cls)]
    first: list[str] = []
    last: list[str] = []
    if cls in OP_CLASSES:
        first = [name for name in _OP_LEADING if name in names]
    elif cls is ChangeSet:
        last = ["ops"]
    elif cls is Result:
        first = ["schema"]
    middle = [name for name in names if name not in first and name not in last]
    return tuple((name, wire_name(cls, name)) for name in (*first, *middle, *last))


# ---------------------------------------------------------------------------
# Type predicates shared by the converters.


def is_union_type(t: Any) -> bool:
    return get_origin(t) in (Union, UnionType)


def is_tuple_type(t: Any) -> bool:
    args = get_args(t)
    return get_origin(t) is tuple and len(args) == 2 and args[1] is Ellipsis


def is_mapping_type(t: Any) -> bool:
    return get_origin(t) in (Mapping, dict)


OP_MEMBERS = frozenset(get_args(Op))
RUN_MEMBERS = frozenset(get_args(Run))
STEP_MEMBERS = frozenset({int, Branch})
