"""The wire forms of ``kapi.change/v1``: one cattrs converter per schema family.

The change set, the result and the read page each have their converter. Writing
leaves out what is ``None`` (the few fields a schema requires as ``null`` stay),
renames the fields whose wire names are not Python names, writes runs in their
one-key shapes and never writes a code's native ``data``. The change-set
converter also reads strictly: no coercion, no ``null``, no unknown field; each
fault it finds keeps its place, so the decoder can name it by JSON pointer.
"""

from __future__ import annotations

import functools
import json
import operator
import re
from collections.abc import Callable, Mapping
from enum import Enum
from types import NoneType, UnionType
from typing import Any, TypeAlias, Union, get_args, get_origin

import attrs
from cattrs import Converter
from cattrs.errors import (
    ClassValidationError,
    ForbiddenExtraKeysError,
    IterableValidationError,
)
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override

from kapi.core.change.ops import (
    OP_KINDS,
    Anchor,
    BlockRef,
    Branch,
    ChangeSet,
    Edit,
    EditionContent,
    Evidence,
    Memory,
    MemorySide,
    Native,
    Op,
    Origin,
    Position,
    Range,
    Recipe,
    Ref,
    Selection,
)
from kapi.core.change.read import ReadPage
from kapi.core.change.result import DocResult, Invalidation, OpResult, OpStatus, Result
from kapi.core.model import Constraints, PcClose, PcOpen, Ph, Plural, Run, Select, Sub, Text

__all__ = [
    "NULL_MESSAGE",
    "PLURAL_FORMS",
    "RUN_KEYS",
    "Fault",
    "WireFault",
    "dumps",
    "encode_change_set",
    "encode_op",
    "encode_read_page",
    "encode_result",
    "is_plural_form",
    "required_attrs",
    "structure_change_set",
    "structure_op",
    "structure_read_page",
    "structure_result",
    "wire_fields",
    "wire_name",
]

# ---------------------------------------------------------------------------
# What the wire calls things, what it requires, in what order it writes them.

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
# Faults: what strict structuring reports, each with its place.

PathKey: TypeAlias = str | int
Fault: TypeAlias = tuple[tuple[PathKey, ...], str]


class WireFault(Exception):
    """Values that do not fit the wire: each fault a path (relative to the value) and a message."""

    def __init__(self, faults: list[Fault]) -> None:
        super().__init__(faults[0][1] if faults else "fault")
        self.faults = faults

    @classmethod
    def at(cls, message: str, *path: PathKey) -> WireFault:
        return cls([(tuple(path), message)])


_NOUNS: dict[type, str] = {
    ChangeSet: "a change set",
    Ref: "a reference",
    BlockRef: "a block reference",
    Edit: "an edit",
    Selection: "a selection",
    Range: "a range",
    Position: "a position",
    Origin: "origin",
    Anchor: "an anchor",
    EditionContent: "an edition's content",
    MemorySide: "a memory side",
    Evidence: "evidence",
    Branch: "a path step",
    Text: "a text run",
    Constraints: "constraints",
    **{cls: key for cls, key in RUN_KEYS.items()},
}


def _noun(cls: type) -> str:
    if cls in OP_CLASSES:
        return str(attrs.fields_dict(cls)["op"].default)
    return _NOUNS.get(cls, cls.__name__)


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "a number"
    if isinstance(value, float):
        return "a number with a fraction or an exponent"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _expected(value: object, what: str) -> WireFault:
    if value is None:
        return WireFault.at(NULL_MESSAGE)
    return WireFault.at(f"must be {what}, not {_json_kind(value)}")


def _prefixed(key: PathKey, faults: list[Fault]) -> list[Fault]:
    return [((key, *path), message) for path, message in faults]


def collect_faults(exc: BaseException) -> list[Fault]:
    """The faults inside an exception raised while structuring, with their places."""
    if isinstance(exc, WireFault):
        return exc.faults
    if isinstance(exc, ClassValidationError):
        cls = exc.cl
        out: list[Fault] = []
        with_notes, without = exc.group_exceptions()
        for sub, note in with_notes:
            name = wire_name(cls, note.name)
            if type(sub) is KeyError:
                out.append(((), f'missing required field "{name}"'))
            else:
                out.extend(_prefixed(name, collect_faults(sub)))
        for sub in without:
            if isinstance(sub, ForbiddenExtraKeysError):
                out.extend(_unknown_fields(cls, sub.extra_fields))
            else:
                out.extend(collect_faults(sub))
        return out
    if isinstance(exc, IterableValidationError):
        out = []
        iter_notes, rest = exc.group_exceptions()
        for sub, iter_note in iter_notes:
            out.extend(_prefixed(iter_note.index, collect_faults(sub)))
        for sub in rest:
            out.extend(collect_faults(sub))
        return out
    return [((), f"cannot read this value ({exc})")]


def _unknown_fields(cls: type, keys: set[str]) -> list[Fault]:
    if cls is BlockRef and "edition" in keys:
        return [(("edition",), "delete_block addresses a whole block; leave out the edition")]
    taken = ", ".join(name for _, name in wire_fields(cls))
    return [((key,), f'unknown field "{key}"; {_noun(cls)} takes {taken}') for key in sorted(keys)]


# ---------------------------------------------------------------------------
# Type predicates shared by the converters.


def is_union_type(t: Any) -> bool:
    return get_origin(t) in (Union, UnionType)


def is_tuple_type(t: Any) -> bool:
    args = get_args(t)
    return get_origin(t) is tuple and len(args) == 2 and args[1] is Ellipsis


def is_mapping_type(t: Any) -> bool:
    return get_origin(t) in (Mapping, dict)


def _union_of(members: list[Any]) -> Any:
    return functools.reduce(operator.or_, members)


OP_MEMBERS = frozenset(get_args(Op))
RUN_MEMBERS = frozenset(get_args(Run))
STEP_MEMBERS = frozenset({int, Branch})
_RUN_CLASSES: dict[str, type] = {"text": Text, **{key: cls for cls, key in RUN_KEYS.items()}}


# ---------------------------------------------------------------------------
# Writing.


def _install_unstructure(conv: Converter) -> None:
    def tuple_factory(t: Any) -> Callable[[Any], Any]:
        element = get_args(t)[0]
        hook = conv.get_unstructure_hook(element)
        return lambda seq: [hook(item) for item in seq]

    def class_factory(cls: type) -> Callable[[Any], Any]:
        # Everything is left out when it equals its default, except what the
        # schema requires and a code's constraints (written whole when set).
        # Overrides are passed only where needed: cattrs takes them as keyword
        # arguments, and a field named ``attrs`` cannot be one.
        required = required_attrs(cls)
        overrides: dict[str, Any] = {}
        for field in attrs.fields(cls):
            rename = RENAMES.get((cls, field.name))
            if (cls, field.name) in NATIVE_ONLY:
                overrides[field.name] = override(omit=True)
            elif field.name in required or cls is Constraints:
                overrides[field.name] = override(rename=rename, omit_if_default=False)
            elif rename is not None:
                overrides[field.name] = override(rename=rename)
        generated: Callable[[Any], dict[str, Any]] = make_dict_unstructure_fn(
            cls, conv, _cattrs_omit_if_default=True, **overrides
        )
        order = [name for attr, name in wire_fields(cls) if (cls, attr) not in NATIVE_ONLY]
        key = RUN_KEYS.get(cls)

        def hook(obj: Any) -> dict[str, Any]:
            raw = generated(obj)
            if cls is OpResult and obj.status != OpStatus.NOT_APPLIED:
                raw.pop("blocked_by", None)  # only an op another one blocked names it
            ordered = {name: raw[name] for name in order if name in raw}
            return {key: ordered} if key else ordered

        return hook

    conv.register_unstructure_hook_factory(is_tuple_type, tuple_factory)
    conv.register_unstructure_hook_factory(attrs.has, class_factory)


# ---------------------------------------------------------------------------
# Reading strictly (the change set).


def _structure_str(value: Any, _: Any) -> str:
    if isinstance(value, str):
        return value
    raise _expected(value, "a string")


def _structure_int(value: Any, _: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise _expected(value, "an integer")


def _structure_bool(value: Any, _: Any) -> bool:
    if isinstance(value, bool):
        return value
    raise _expected(value, "true or false")


def _structure_any(value: Any, _: Any) -> Any:
    faults = list(_nulls(value, ()))
    if faults:
        raise WireFault(faults)
    return value


def _nulls(value: Any, path: tuple[PathKey, ...]) -> list[Fault]:
    if value is None:
        return [(path, NULL_MESSAGE)]
    out: list[Fault] = []
    if isinstance(value, dict):
        for key, item in value.items():
            out.extend(_nulls(item, (*path, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out.extend(_nulls(item, (*path, index)))
    return out


def _install_strict_structure(conv: Converter) -> None:
    conv.register_structure_hook(str, _structure_str)
    conv.register_structure_hook(int, _structure_int)
    conv.register_structure_hook(bool, _structure_bool)
    conv.register_structure_hook(Any, _structure_any)

    def tuple_factory(t: Any) -> Callable[[Any, Any], Any]:
        element = get_args(t)[0]

        def hook(value: Any, _: Any) -> tuple[Any, ...]:
            if not isinstance(value, list):
                raise _expected(value, "an array")
            handler = conv.get_structure_hook(element)
            out: list[Any] = []
            faults: list[Fault] = []
            for index, item in enumerate(value):
                try:
                    out.append(handler(item, element))
                except Exception as exc:
                    faults.extend(_prefixed(index, collect_faults(exc)))
            if faults:
                raise WireFault(faults)
            return tuple(out)

        return hook

    def mapping_factory(t: Any) -> Callable[[Any, Any], Any]:
        element = get_args(t)[1]

        def hook(value: Any, _: Any) -> dict[str, Any]:
            if not isinstance(value, dict):
                raise _expected(value, "an object")
            handler = conv.get_structure_hook(element)
            out: dict[str, Any] = {}
            faults: list[Fault] = []
            for key, item in value.items():
                try:
                    out[key] = handler(item, element)
                except Exception as exc:
                    faults.extend(_prefixed(key, collect_faults(exc)))
            if faults:
                raise WireFault(faults)
            return out

        return hook

    def union_factory(t: Any) -> Callable[[Any, Any], Any]:
        members = get_args(t)
        if NoneType in members:
            inner = _union_of([m for m in members if m is not NoneType])

            def optional(value: Any, _: Any) -> Any:
                if value is None:
                    raise WireFault.at(NULL_MESSAGE)
                return conv.get_structure_hook(inner)(value, inner)

            return optional
        kinds = frozenset(members)
        if kinds == OP_MEMBERS:
            return functools.partial(_structure_op, conv)
        if kinds == RUN_MEMBERS:
            return functools.partial(_structure_run, conv)
        if kinds == STEP_MEMBERS:
            return functools.partial(_structure_step, conv)
        raise TypeError(f"no wire form for the union {t}")

    def class_factory(cls: type) -> Callable[[Any, Any], Any]:
        renames: dict[str, Any] = {
            attr: override(rename=name) for attr, name in wire_fields(cls) if attr != name
        }
        generated: Callable[[Any, Any], Any] = make_dict_structure_fn(
            cls,
            conv,
            _cattrs_forbid_extra_keys=True,
            _cattrs_detailed_validation=True,
            **renames,
        )
        defaults = {a.name for a in attrs.fields(cls) if a.default is not attrs.NOTHING}
        must_have = [wire_name(cls, attr) for attr in required_attrs(cls) & defaults]
        check = _CLASS_CHECKS.get(cls)

        def hook(value: Any, _: Any) -> Any:
            if not isinstance(value, dict):
                raise _expected(value, "an object")
            faults: list[Fault] = [
                ((), f'missing required field "{name}"') for name in must_have if name not in value
            ]
            try:
                obj = generated(value, cls)
            except Exception as exc:
                faults.extend(collect_faults(exc))
            if faults:
                raise WireFault(faults)
            if check is not None:
                faults = check(obj)
                if faults:
                    raise WireFault(faults)
            return obj

        return hook

    conv.register_structure_hook_factory(is_tuple_type, tuple_factory)
    conv.register_structure_hook_factory(is_mapping_type, mapping_factory)
    conv.register_structure_hook_factory(is_union_type, union_factory)
    conv.register_structure_hook_factory(attrs.has, class_factory)


def _structure_op(conv: Converter, value: Any, _: Any) -> Any:
    if not isinstance(value, dict):
        raise _expected(value, "an operation object")
    kinds = ", ".join(OP_KINDS)
    if "op" not in value:
        raise WireFault.at(f'missing required field "op"; one of {kinds}')
    kind = value["op"]
    if not isinstance(kind, str):
        raise WireFault([(("op",), _expected(kind, "a string naming the operation").faults[0][1])])
    cls = OP_KINDS.get(kind)
    if cls is None:
        raise WireFault.at(f'unknown operation "{kind}"; one of {kinds}', "op")
    return conv.get_structure_hook(cls)(value, cls)


def _structure_run(conv: Converter, value: Any, _: Any) -> Any:
    if not isinstance(value, dict):
        raise _expected(value, "a run object")
    kinds = [key for key in value if key in _RUN_CLASSES]
    faults: list[Fault] = []
    for key in value:
        if key not in _RUN_CLASSES and key != "noTranslate":
            faults.append(
                (
                    (key,),
                    f'unknown run field "{key}"; a run is one of text, ph, pcOpen, pcClose, sub, plural, select',
                )
            )
    if "noTranslate" in value and "text" not in value:
        faults.append((("noTranslate",), "goes with a text run"))
    if len(kinds) != 1 and not faults:
        faults.append(
            (
                (),
                "a run has exactly one of text, ph, pcOpen, pcClose, sub, plural, select; "
                f"this one has {len(kinds)}",
            )
        )
    if faults:
        raise WireFault(faults)
    cls = _RUN_CLASSES[kinds[0]]
    hook = conv.get_structure_hook(cls)
    if cls is Text:
        return hook(value, cls)
    try:
        return hook(value[kinds[0]], cls)
    except Exception as exc:
        raise WireFault(_prefixed(kinds[0], collect_faults(exc))) from None


def _structure_step(conv: Converter, value: Any, _: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            raise WireFault.at("a run index counts from 0")
        return value
    if isinstance(value, dict):
        return conv.get_structure_hook(Branch)(value, Branch)
    if value is None:
        raise WireFault.at(NULL_MESSAGE)
    raise WireFault.at(
        "a path step is a run index or an object naming a plural form or a select case"
    )


def _check_code(obj: Ph | PcOpen | PcClose) -> list[Fault]:
    if obj.data:
        return [
            (
                ("data",),
                "a run in a change set carries no data: name the code by its id "
                "and the writer keeps its native form",
            )
        ]
    return []


def _check_plural(obj: Plural) -> list[Fault]:
    return [
        (("forms", name), f'plural form "{name}"; one of zero, one, two, few, many, other, or =N')
        for name in obj.forms
        if not is_plural_form(name)
    ]


def _check_branch(obj: Branch) -> list[Fault]:
    if (obj.plural is None) == (obj.select is None):
        return [((), "a path step names exactly one of plural and select")]
    if obj.plural is not None and not is_plural_form(obj.plural):
        return [
            (
                ("plural",),
                f'plural form "{obj.plural}"; one of zero, one, two, few, many, other, or =N',
            )
        ]
    if obj.select == "":
        return [(("select",), "names no select case")]
    return []


_CLASS_CHECKS: dict[type, Callable[[Any], list[Fault]]] = {
    Ph: _check_code,
    PcOpen: _check_code,
    PcClose: _check_code,
    Plural: _check_plural,
    Branch: _check_branch,
}


# ---------------------------------------------------------------------------
# Reading our own replies (trusted, so lenient).


def _install_reply_structure(conv: Converter) -> None:
    def step(value: Any, _: Any) -> Any:
        if isinstance(value, dict):
            return conv.structure(value, Branch)
        return int(value)

    conv.register_structure_hook_func(
        lambda t: is_union_type(t) and frozenset(get_args(t)) == STEP_MEMBERS, step
    )


def _converter(*, strict: bool) -> Converter:
    conv = Converter(detailed_validation=True)
    _install_unstructure(conv)
    if strict:
        _install_strict_structure(conv)
    else:
        _install_reply_structure(conv)
    return conv


_CHANGE_SET = _converter(strict=True)
_RESULT = _converter(strict=False)
_READ = _converter(strict=False)


# ---------------------------------------------------------------------------
# The public functions.


def encode_change_set(change_set: ChangeSet) -> dict[str, Any]:
    """The wire form of a change set (``ops`` last, each op in ``--print-ops`` order)."""
    out: dict[str, Any] = _CHANGE_SET.unstructure(change_set, ChangeSet)
    return out


def encode_op(op: Op) -> dict[str, Any]:
    """The wire form of one operation: ``op``, ``at``/``doc``, ``if_match``, ``basis``, body."""
    out: dict[str, Any] = _CHANGE_SET.unstructure(op, type(op))
    return out


def encode_result(result: Result) -> dict[str, Any]:
    """The wire form of a result (``kapi.change-result/v1``)."""
    out: dict[str, Any] = _RESULT.unstructure(result, Result)
    return out


_INSPECT_ONLY = ("role", "level", "projected")


def encode_read_page(page: ReadPage, inspect: bool = False) -> dict[str, Any]:
    """The wire form of a read page; ``inspect`` adds each block's role, level and projection."""
    out: dict[str, Any] = _READ.unstructure(page, ReadPage)
    for block in out["blocks"]:
        if not inspect:
            for name in _INSPECT_ONLY:
                block.pop(name, None)
            continue
        if not block.get("role"):
            block.pop("role", None)
        if not block.get("level"):
            block.pop("level", None)
    return out


def _encode_any(obj: object) -> Any:
    if isinstance(obj, ChangeSet):
        return encode_change_set(obj)
    if isinstance(obj, Result):
        return encode_result(obj)
    if isinstance(obj, ReadPage):
        return encode_read_page(obj)
    if isinstance(obj, OP_CLASSES):
        return encode_op(obj)  # type: ignore[arg-type]
    if isinstance(obj, OpResult | DocResult):
        return _RESULT.unstructure(obj)
    if attrs.has(type(obj)):
        return _CHANGE_SET.unstructure(obj)
    if isinstance(obj, Enum):
        return obj.value
    return obj


def dumps(obj: object, *, indent: int | None = None) -> str:
    """JSON text of a change set, op, result, read page or plain value; no ASCII or HTML escaping."""
    return json.dumps(_encode_any(obj), ensure_ascii=False, indent=indent)


def structure_change_set(data: Mapping[str, Any]) -> ChangeSet:
    """Build a change set from parsed JSON strictly; raises :class:`WireFault` with every fault."""
    change_set: ChangeSet = _structure_checked(_CHANGE_SET, data, ChangeSet)
    return change_set


def structure_op(data: Any) -> Op:
    """Build one operation from parsed JSON strictly; raises :class:`WireFault` with every fault."""
    op: Op = _structure_checked(_CHANGE_SET, data, Op)
    return op


def _structure_checked(conv: Converter, data: Any, cls: Any) -> Any:
    try:
        return conv.structure(data, cls)
    except WireFault:
        raise
    except Exception as exc:
        raise WireFault(collect_faults(exc)) from None


def structure_result(data: Any) -> Result:
    """Build a result from its parsed wire form (our own output; lenient)."""
    result: Result = _structure_checked(_RESULT, data, Result)
    return result


def structure_read_page(data: Any) -> ReadPage:
    """Build a read page from its parsed wire form (our own output; lenient)."""
    page: ReadPage = _structure_checked(_READ, data, ReadPage)
    return page
