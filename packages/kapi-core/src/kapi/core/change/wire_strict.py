"""Strict reading of a change set: no coercion, no ``null``, no unknown field; every fault
is collected with its place, so the decoder can name it by JSON pointer."""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from types import NoneType
from typing import Any, get_args

import attrs
from cattrs import Converter
from cattrs.errors import ClassValidationError, ForbiddenExtraKeysError, IterableValidationError
from cattrs.gen import make_dict_structure_fn, override

from kapi.core.change.ops import (
    OP_KINDS,
    Anchor,
    BlockRef,
    Branch,
    ChangeSet,
    Edit,
    EditionContent,
    Evidence,
    MemorySide,
    Origin,
    Position,
    Range,
    Ref,
    Selection,
)
from kapi.core.change.wire_shape import (
    NULL_MESSAGE,
    OP_CLASSES,
    OP_MEMBERS,
    RUN_KEYS,
    RUN_MEMBERS,
    STEP_MEMBERS,
    Fault,
    PathKey,
    WireFault,
    is_mapping_type,
    is_plural_form,
    is_tuple_type,
    is_union_type,
    required_attrs,
    wire_fields,
    wire_name,
)
from kapi.core.model import Constraints, PcClose, PcOpen, Ph, Plural, Text

__all__ = ["Fault", "PathKey", "WireFault", "collect_faults", "install_strict_structure"]

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


def _union_of(members: list[Any]) -> Any:
    return functools.reduce(operator.or_, members)


_RUN_CLASSES: dict[str, type] = {"text": Text, **{key: cls for cls, key in RUN_KEYS.items()}}


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


def install_strict_structure(conv: Converter) -> None:
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
    if "op" not in value:
        raise WireFault.at(f'missing required field "op"; one of {", ".join(OP_KINDS)}')
    kind = value["op"]
    if not isinstance(kind, str):
        raise WireFault([(("op",), _expected(kind, "a string naming the operation").faults[0][1])])
    cls = OP_KINDS.get(kind)
    if cls is None:
        raise WireFault.at(f'unknown operation "{kind}"; one of {", ".join(OP_KINDS)}', "op")
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
