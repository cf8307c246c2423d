"""The wire forms of ``kapi.change/v1``: one cattrs converter per schema family.

The change set, the result and the read page each have their converter, built the first
time one is needed: the usual change set (``set_content`` ops of text, an envelope of
strings) is read and written without one, so ``kapi apply`` of such a set never loads
cattrs. Writing
leaves out what is ``None`` (the few fields a schema requires as ``null`` stay),
renames the fields whose wire names are not Python names, writes runs in their
one-key shapes and never writes a code's native ``data``. The change-set
converter also reads strictly: no coercion, no ``null``, no unknown field; each
fault it finds keeps its place, so the decoder can name it by JSON pointer.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Mapping
from enum import Enum
from typing import TYPE_CHECKING, Any, get_args

import attrs

from kapi.core.change.ops import Branch, ChangeSet, Op, Ref, SetContent
from kapi.core.change.read import ReadPage
from kapi.core.change.result import DocResult, OpResult, OpStatus, Result
from kapi.core.change.wire_shape import (
    NATIVE_ONLY,
    NULL_MESSAGE,
    OP_CLASSES,
    PLURAL_FORMS,
    RENAMES,
    RUN_KEYS,
    STEP_MEMBERS,
    Fault,
    WireFault,
    is_plural_form,
    is_tuple_type,
    is_union_type,
    required_attrs,
    wire_fields,
    wire_name,
)
from kapi.core.model import Constraints

if TYPE_CHECKING:
    from cattrs import Converter

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
# Writing.


def _install_unstructure(conv: Converter) -> None:
    from cattrs.gen import make_dict_unstructure_fn, override

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

        return _plain_set_content_hook(hook) if cls is SetContent else hook

    conv.register_unstructure_hook_factory(is_tuple_type, tuple_factory)
    conv.register_unstructure_hook_factory(attrs.has, class_factory)


def _plain_set_content_hook(
    generated: Callable[[SetContent], dict[str, Any]],
) -> Callable[[SetContent], dict[str, Any]]:
    """The usual op written directly (:func:`_plain_set_content_wire`), any other set_content
    by ``generated``, what the converter made for the class."""

    def hook(op: SetContent) -> dict[str, Any]:
        plain = _plain_set_content_wire(op)
        return plain if plain is not None else generated(op)

    hook.generated = generated  # type: ignore[attr-defined]  # the tests compare the two
    return hook


def _plain_set_content_wire(op: SetContent) -> dict[str, Any] | None:
    """The usual op, a ``set_content`` of text at a ref, written directly in the wire order
    (``op``, ``at``, ``if_match``, ``basis``, ``text``): what the converter writes, without its
    work for each field (a change set may carry thousands). None for any other set_content."""
    if op.text is None or op.runs is not None or op.path is not None or op.origin is not None:
        return None
    at = op.at
    ref = {"doc": at.doc, "block": at.block}
    if at.edition is not None:
        ref["edition"] = at.edition
    out: dict[str, Any] = {"op": "set_content", "at": ref, "if_match": op.if_match}
    if op.basis is not None:
        out["basis"] = op.basis
    out["text"] = op.text
    return out


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
    from cattrs import Converter

    conv = Converter(detailed_validation=True)
    _install_unstructure(conv)
    if strict:
        from kapi.core.change.wire_strict import install_strict_structure

        install_strict_structure(conv)
    else:
        _install_reply_structure(conv)
    return conv


@functools.cache
def _change_set_converter() -> Converter:
    return _converter(strict=True)


@functools.cache
def _result_converter() -> Converter:
    return _converter(strict=False)


@functools.cache
def _read_converter() -> Converter:
    return _converter(strict=False)


# ---------------------------------------------------------------------------
# The public functions.


def encode_change_set(change_set: ChangeSet) -> dict[str, Any]:
    """The wire form of a change set (``ops`` last, each op in ``--print-ops`` order)."""
    plain = _plain_change_set_wire(change_set)
    if plain is not None:
        return plain
    out: dict[str, Any] = _change_set_converter().unstructure(change_set, ChangeSet)
    return out


# The envelope's fields the usual set has, each a string (``require_basis`` a bool).
_PLAIN_ENVELOPE = {"schema": str, "mode": str, "gate": str, "note": str, "require_basis": bool}


def _plain_change_set_wire(change_set: ChangeSet) -> dict[str, Any] | None:
    """The usual set, of plain ``set_content`` ops and no evidence, written directly: what the
    converter writes (fields in wire order, ``None`` left out, ``ops`` last). None otherwise."""
    if change_set.evidence is not None:
        return None
    ops: list[dict[str, Any]] = []
    for op in change_set.ops:
        plain = _plain_set_content_wire(op) if type(op) is SetContent else None
        if plain is None:
            return None
        ops.append(plain)
    out: dict[str, Any] = {}
    for attribute, name in wire_fields(ChangeSet):
        if attribute == "ops":
            out[name] = ops
            continue
        value = getattr(change_set, attribute)
        if value is not None:
            out[name] = value
    return out


def encode_op(op: Op) -> dict[str, Any]:
    """The wire form of one operation: ``op``, ``at``/``doc``, ``if_match``, ``basis``, body."""
    out: dict[str, Any] = _change_set_converter().unstructure(op, type(op))
    return out


def encode_result(result: Result) -> dict[str, Any]:
    """The wire form of a result (``kapi.change-result/v1``)."""
    out: dict[str, Any] = _result_converter().unstructure(result, Result)
    return out


_INSPECT_ONLY = ("role", "level", "projected")


def encode_read_page(page: ReadPage, inspect: bool = False) -> dict[str, Any]:
    """The wire form of a read page; ``inspect`` adds each block's role, level and projection."""
    out: dict[str, Any] = _read_converter().unstructure(page, ReadPage)
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
        return _result_converter().unstructure(obj)
    if attrs.has(type(obj)):
        return _change_set_converter().unstructure(obj)
    if isinstance(obj, Enum):
        return obj.value
    return obj


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def dumps(obj: object, *, indent: int | None = None) -> str:
    """JSON text of a change set, op, result, read page or plain value; no ASCII or HTML escaping.

    A lone surrogate (text read from a file that spells one, ``"\\ud800"``) is
    written as that escape, so the text always encodes as UTF-8.
    """
    text = json.dumps(_encode_any(obj), ensure_ascii=False, indent=indent)
    if text.isascii():
        return text
    return _LONE_SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def structure_change_set(data: Mapping[str, Any]) -> ChangeSet:
    """Build a change set from parsed JSON strictly; raises :class:`WireFault` with every fault."""
    plain = _plain_change_set(data)
    if plain is not None:
        return plain
    change_set: ChangeSet = _structure_checked(_change_set_converter(), data, ChangeSet)
    return change_set


def _plain_change_set(data: Mapping[str, Any]) -> ChangeSet | None:
    """The usual set's envelope, its fields strings (``require_basis`` a bool) and its ops
    plain ``set_content`` ops, built directly: the very set the converter builds from it.
    None for any other shape, which the converter reads."""
    if type(data) is not dict:
        return None
    fields: dict[str, Any] = {}
    for key, value in data.items():
        if key == "ops":
            continue
        kind = _PLAIN_ENVELOPE.get(key)
        if kind is None or type(value) is not kind:
            return None
        fields[key] = value
    ops = data.get("ops")
    if type(ops) is not list:  # missing too: the converter names the fault
        return None
    plain_ops: list[Op] = []
    for value in ops:
        op = _plain_set_content(value)
        if op is None:
            return None
        plain_ops.append(op)
    return ChangeSet(ops=tuple(plain_ops), **fields)


def structure_op(data: Any) -> Op:
    """Build one operation from parsed JSON strictly; raises :class:`WireFault` with every fault."""
    plain = _plain_set_content(data)
    if plain is not None:
        return plain
    op: Op = _structure_checked(_change_set_converter(), data, Op)
    return op


_PLAIN_SET_CONTENT = frozenset({"op", "at", "if_match", "text", "basis"})
_PLAIN_REF = frozenset({"doc", "block", "edition"})


def _plain_set_content(data: Any) -> SetContent | None:
    """The usual op, a ``set_content`` of text at a ref with every field a string, built
    directly: the very op the converter builds from it, without a hook for each field (a
    change set may carry thousands). None for any other shape, which the converter reads."""
    if (
        type(data) is not dict
        or data.get("op") != "set_content"
        or not data.keys() <= _PLAIN_SET_CONTENT
    ):
        return None
    at, if_match, text = data.get("at"), data.get("if_match"), data.get("text")
    if type(at) is not dict or not at.keys() <= _PLAIN_REF:
        return None
    doc, block, edition = at.get("doc"), at.get("block"), at.get("edition")
    basis = data.get("basis")
    if not (type(if_match) is type(text) is type(doc) is type(block) is str):
        return None
    if ("edition" in at and type(edition) is not str) or (
        "basis" in data and type(basis) is not str
    ):
        return None
    return SetContent(
        at=Ref(doc=doc, block=block, edition=edition), if_match=if_match, text=text, basis=basis
    )


def _structure_checked(conv: Converter, data: Any, cls: Any) -> Any:
    try:
        return conv.structure(data, cls)
    except WireFault:
        raise
    except Exception as exc:
        from kapi.core.change.wire_strict import collect_faults

        raise WireFault(collect_faults(exc)) from None


def structure_result(data: Any) -> Result:
    """Build a result from its parsed wire form (our own output; lenient)."""
    result: Result = _structure_checked(_result_converter(), data, Result)
    return result


def structure_read_page(data: Any) -> ReadPage:
    """Build a read page from its parsed wire form (our own output; lenient)."""
    page: ReadPage = _structure_checked(_read_converter(), data, ReadPage)
    return page
