"""The wire form of host results: one cattrs converter for every door.

A host function returns an ``attrs`` value; the CLI prints ``encode(value)``
as JSON and the MCP server returns the same dict, so the two doors cannot
drift. Field names are the JSON names; tuples become lists.

Read records (``kapi inspect``, a read page) are many and alike, so
:func:`encode_read_records` writes them without going through a converter per
record: each class's fields are planned once from the change contract's wire
shape (names, order, required fields, defaults left out), and a test holds the
result equal to the contract converter's on every format's fixtures.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from enum import Enum
from functools import cache
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    import cattrs

    from kapi.core.change.read import BlockRead, PlainRead

    converter: cattrs.Converter

__all__ = [
    "converter",
    "encode",
    "encode_read_records",
    "plain",
    "read_records_json",
    "read_records_json_chunks",
]


@cache
def _converter() -> cattrs.Converter:
    import cattrs

    made = cattrs.Converter()
    made.register_unstructure_hook(tuple, lambda value: [made.unstructure(v) for v in value])
    return made


def __getattr__(name: str) -> Any:
    if name == "converter":  # built on first use: a check or an inspect never needs it
        return _converter()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def encode(value: Any) -> Any:
    """``value`` (an attrs result, or a sequence of them) as JSON-ready dicts and lists."""
    return _converter().unstructure(value)


def plain(value: Any) -> Any:
    """What :func:`encode` gives for a value of plain attrs classes, without building the
    converter: every field, a name ending in ``_`` written without it (``not_`` as ``not``),
    tuples and lists as lists, mappings as dicts, enums as their values. For a reader's
    answer, where loading the converter would cost more than the answer."""
    kind = value.__class__
    if kind is str or kind is int or kind is bool or kind is float or value is None:
        return value
    if kind is tuple or kind is list:
        return [item if item.__class__ is str else plain(item) for item in value]
    names = _PLAIN_FIELDS.get(kind)
    if names is None and attrs.has(kind):
        names = _PLAIN_FIELDS[kind] = tuple(
            (field.name, field.name.removesuffix("_") or field.name) for field in attrs.fields(kind)
        )
    if names is not None:
        return {wire: plain(getattr(value, name)) for name, wire in names}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Mapping):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, tuple | list):
        return [plain(item) for item in value]
    return value


_PLAIN_FIELDS: dict[type, tuple[tuple[str, str], ...]] = {}


# --- read records ---------------------------------------------------------------------------

_INSPECT_ONLY = ("role", "level", "projected")

# (attribute, wire name, always written, default, how the default is had)
_Field = tuple[str, str, bool, Any, int]
_PLAIN, _FACTORY, _FACTORY_OF_SELF = 0, 1, 2


@cache
def _plan(cls: type) -> tuple[tuple[_Field, ...], str | None]:
    """How ``cls`` is written: its fields in wire order, and the key a run is wrapped in."""
    from kapi.core.change.wire_shape import NATIVE_ONLY, RUN_KEYS, required_attrs, wire_fields
    from kapi.core.model import Constraints

    required = required_attrs(cls)
    by_name = {field.name: field for field in attrs.fields(cls)}
    planned: list[_Field] = []
    for name, wire in wire_fields(cls):
        if (cls, name) in NATIVE_ONLY:
            continue
        default = by_name[name].default
        always = name in required or cls is Constraints
        if isinstance(default, attrs.Factory):  # type: ignore[arg-type]
            how = _FACTORY_OF_SELF if default.takes_self else _FACTORY
            planned.append((name, wire, always, default.factory, how))
        else:
            planned.append((name, wire, always, default, _PLAIN))
    return tuple(planned), RUN_KEYS.get(cls)


def _value(value: Any) -> Any:
    kind = value.__class__
    if kind is str or kind is int or kind is bool or kind is float or value is None:
        return value
    encoder = _ENCODERS.get(kind)
    if encoder is not None:
        return encoder(value)
    if kind is tuple or kind is list:
        return [item if item.__class__ is str else _value(item) for item in value]
    if attrs.has(kind):
        return _encoder(kind)(value)
    if isinstance(value, tuple | list):
        return [_value(item) for item in value]
    if isinstance(value, Mapping):
        return {
            key if key.__class__ is str else _value(key): item
            if item.__class__ is str
            else _value(item)
            for key, item in value.items()
        }
    if isinstance(value, Enum):
        return value.value
    return value


_ENCODERS: dict[type, Callable[[Any], dict[str, Any]]] = {}


def _encoder(cls: type) -> Callable[[Any], dict[str, Any]]:
    """A function writing one ``cls`` value, made once from its plan (as cattrs makes its own)."""
    found = _ENCODERS.get(cls)
    if found is not None:
        return found
    fields, key = _plan(cls)
    namespace: dict[str, Any] = {"V": _value}
    lines = ["def encode(obj):", "    out = {}"]
    for index, (name, wire, always, default, how) in enumerate(fields):
        namespace[f"d{index}"] = default
        value = "v if v.__class__ is str else V(v)"
        lines.append(f"    v = obj.{name}")
        if always:
            lines.append(f"    out[{wire!r}] = {value}")
        elif how == _PLAIN:
            test = "v is not None" if default is None else f"v != d{index}"
            lines.append(f"    if {test}: out[{wire!r}] = {value}")
        else:
            made = f"d{index}()" if how == _FACTORY else f"d{index}(obj)"
            lines.append(f"    if v != {made}: out[{wire!r}] = {value}")
    lines.append(f"    return {{{key!r}: out}}" if key else "    return out")
    exec(compile("\n".join(lines), f"<kapi read encoder {cls.__qualname__}>", "exec"), namespace)
    encoder: Callable[[Any], dict[str, Any]] = namespace["encode"]
    _ENCODERS[cls] = encoder
    return encoder


def encode_read_records(
    records: Iterable[BlockRead | PlainRead], *, inspect: bool = True
) -> list[dict[str, Any]]:
    """Read records as a read page's ``blocks`` carry them (``inspect``: with role and level).

    Equal to ``encode_read_page(page, inspect=inspect)["blocks"]`` of the change
    contract's converter, record for record.
    """
    from kapi.core.change.read import PlainRead

    out: list[dict[str, Any]] = []
    append = out.append
    for record in records:
        if isinstance(record, PlainRead):
            record = record.record()
        data = _encoder(record.__class__)(record)
        if not inspect:
            for name in _INSPECT_ONLY:
                data.pop(name, None)
        else:
            if not data.get("role"):
                data.pop("role", None)
            if not data.get("level"):
                data.pop("level", None)
        append(data)
    return out


# --- read records straight to JSON text -------------------------------------------------------

_string = json.encoder.encode_basestring  # the C encoder's, as json.dumps(ensure_ascii=False)


def _json_value(value: Any) -> str:
    kind = value.__class__
    if kind is str:
        return _string(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if kind is int:
        return int.__repr__(value)
    encoder = _TEXT_ENCODERS.get(kind)
    if encoder is not None:
        return encoder(value)
    if kind is tuple:
        last = _LAST_STRINGS[0]
        if value is last[0]:  # the same ops tuple, record after record
            return last[1]
        text = "[" + ",".join([_json_value(item) for item in value]) + "]"
        if all(item.__class__ is str for item in value):
            _LAST_STRINGS[0] = (value, text)
        return text
    if kind is list:
        return "[" + ",".join([_json_value(item) for item in value]) + "]"
    if attrs.has(kind):
        return _text_encoder(kind)(value)
    if isinstance(value, Mapping) and all(name.__class__ is str for name in value):
        return "{" + ",".join([_string(k) + ":" + _json_value(v) for k, v in value.items()]) + "}"
    return json.dumps(_value(value), ensure_ascii=False, separators=(",", ":"))


_TEXT_ENCODERS: dict[type, Callable[[Any], str]] = {}
# The last tuple of strings written and its text (it is held here, so no other tuple can
# take its identity); read records made together share one ops tuple.
_LAST_STRINGS: list[tuple[tuple[str, ...] | None, str]] = [(None, "")]


def _text_encoder(
    cls: type, drop: frozenset[str] = frozenset(), falsy: frozenset[str] = frozenset()
) -> Callable[[Any], str]:
    """A function writing one ``cls`` value as compact JSON text, made once from its plan.

    ``drop`` names wire fields never written, ``falsy`` those left out when falsy
    (the inspect record's role and level).
    """
    plain = not drop and not falsy
    if plain:
        found = _TEXT_ENCODERS.get(cls)
        if found is not None:
            return found
    fields, key = _plan(cls)
    namespace: dict[str, Any] = {"J": _json_value, "S": _string}
    written = [index for index, field in enumerate(fields) if field[1] not in drop]
    first = written[0] if written else -1
    # When the first field is always written, the text is joined as it goes (each later
    # field after a comma); otherwise the pieces are gathered and joined at the end.
    joined = first >= 0 and fields[first][2] and fields[first][1] not in falsy
    lines = ["def encode(obj):"] if joined else ["def encode(obj):", "    out = []"]
    for index, (name, wire, always, default, how) in enumerate(fields):
        if wire in drop:
            continue
        namespace[f"d{index}"] = default
        label = _string(wire) + ":"
        value = "S(v) if v.__class__ is str else J(v)"
        lines.append(f"    v = obj.{name}")
        if joined:
            if index == first:
                lines.append(f"    out = {'{' + label!r} + ({value})")
                continue
            label = "," + label
        if wire in falsy:
            test = "v"
        elif always:
            test = ""
        elif how == _PLAIN:
            test = "v is not None" if default is None else f"v != d{index}"
        else:
            test = f"v != d{index}()" if how == _FACTORY else f"v != d{index}(obj)"
        if joined:
            append = f"out += {label!r} + ({value})"
        else:
            append = f"out.append({label!r} + ({value}))"
        lines.append(f"    if {test}: {append}" if test else f"    {append}")
    body = 'out + "}"' if joined else '"{" + ",".join(out) + "}"'
    lines.append(
        f"    return {'{' + _string(key) + ':'!r} + {body} + '}}'" if key else f"    return {body}"
    )
    exec(
        compile("\n".join(lines), f"<kapi read text encoder {cls.__qualname__}>", "exec"), namespace
    )
    encoder: Callable[[Any], str] = namespace["encode"]
    if plain:
        _TEXT_ENCODERS[cls] = encoder
    return encoder


def _plain_read_text(record: PlainRead, inspect: bool) -> str:
    """A :class:`PlainRead` as its :class:`BlockRead` is written (a test holds the two equal):
    ref, rev, text and ops, then for inspect a role and a level that are set."""
    doc, block, edition, rev, text, ops, role, level = record
    out = '{"ref":{"doc":' + _string(doc) + ',"block":' + _string(block)
    if edition is not None:
        out += ',"edition":' + _string(edition)
    out += '},"rev":' + _string(rev) + ',"text":' + _string(text) + ',"ops":' + _json_value(ops)
    if inspect:
        if role:
            out += ',"role":' + _string(role)
        if level:
            out += ',"level":' + _json_value(level)
    return out + "}"


def read_records_json(records: Iterable[BlockRead | PlainRead], *, inspect: bool = True) -> str:
    """The records as compact JSON text: ``json.dumps(encode_read_records(records))`` with
    ``separators=(",", ":")`` and ``ensure_ascii=False``, character for character, without
    building the dicts first."""
    return "".join(read_records_json_chunks(records, inspect=inspect))


def read_records_json_chunks(
    records: Iterable[BlockRead | PlainRead], *, inspect: bool = True, size: int = 4096
) -> Iterator[str]:
    """:func:`read_records_json` in pieces of ``size`` records, so a writer can send each
    piece on while the next is made (a million records never make one string)."""
    from kapi.core.change.read import BlockRead, PlainRead

    if inspect:
        top = _text_encoder(BlockRead, falsy=frozenset({"role", "level"}))
    else:
        top = _text_encoder(BlockRead, drop=frozenset(_INSPECT_ONLY))
    parts: list[str] = []
    opened = False
    for record in records:
        kind = record.__class__
        if kind is PlainRead:
            parts.append(_plain_read_text(record, inspect))  # type: ignore[arg-type]
        elif kind is not BlockRead:  # not a read record: the general way
            parts.append(
                json.dumps(
                    encode_read_records([record], inspect=inspect)[0],
                    ensure_ascii=False,
                    separators=(",", ":"),
                )
            )
        else:
            parts.append(top(record))
        if len(parts) >= size:
            yield ("," if opened else "[") + ",".join(parts)
            opened = True
            parts = []
    yield ("," if opened else "[") + ",".join(parts) + "]" if parts or not opened else "]"
