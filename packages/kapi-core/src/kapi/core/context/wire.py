"""The context record on the wire: one cattrs converter, ``from`` for ``Correction.from_``.

Defaults are left out, so a line of the log or of an export holds only what
the op says. :func:`decode_record` reads a record of the shape the log writes
directly (the whole log is read for every answer) and any other through the
converter, which refuses one it cannot read with a
:class:`~kapi.core.context.errors.ContextError` naming the field.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any

from kapi.core.context.errors import ContextError
from kapi.core.context.record import (
    Author,
    Correction,
    Evidence,
    MemoryPair,
    OpKind,
    Record,
    Scope,
    Signal,
    Subject,
    TermRule,
)

if TYPE_CHECKING:  # the converter is built on first use: reading the log does not need it
    import cattrs

__all__ = ["decode_record", "encode_record"]


@cache
def _converter() -> cattrs.Converter:
    import cattrs
    from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override

    converter = cattrs.Converter(omit_if_default=True, forbid_extra_keys=False)
    converter.register_unstructure_hook(
        Correction,
        make_dict_unstructure_fn(Correction, converter, from_=override(rename="from")),
    )
    converter.register_structure_hook(
        Correction,
        make_dict_structure_fn(Correction, converter, from_=override(rename="from")),
    )
    converter.register_unstructure_hook(OpKind, str)
    converter.register_unstructure_hook(
        tuple, lambda value: [converter.unstructure(v) for v in value]
    )
    return converter


def encode_record(record: Record) -> dict[str, Any]:
    """The record as a JSON object (``id``, ``kind``, ``actor`` always present)."""
    data: dict[str, Any] = _converter().unstructure(record)
    data["id"], data["kind"] = record.id, str(record.kind)
    data["actor"] = {
        "kind": record.actor.kind,
        "name": record.actor.name,
        "session": record.actor.session,
    }
    return data


def decode_record(data: Any, *, stored: bool = False) -> Record:
    """A record from its JSON object; ``kind`` may carry the log's ``context.`` prefix.

    ``stored`` says the object is one the log wrote itself (from :func:`encode_record`):
    it is built as it stands, without checking each value again.
    """
    if not isinstance(data, dict):
        raise ContextError("a context operation is a JSON object")
    try:  # the shape the log writes, built directly (a log is read whole on every answer)
        record: Record = _stored(data) if stored else _record(data)
        return record
    except (_Unusual, ValueError, TypeError, AttributeError, KeyError):
        pass
    import cattrs

    body = dict(data)
    kind = str(body.get("kind", ""))
    body["kind"] = kind.removeprefix("context.")
    converter = _converter()
    try:
        return converter.structure(body, Record)
    except (cattrs.BaseValidationError, KeyError, ValueError, TypeError) as err:
        raise ContextError(
            f"context operation {body.get('id', '?')!r} cannot be read: {_reason(err)}"
        ) from None


def _reason(err: BaseException) -> str:
    import cattrs

    if isinstance(err, cattrs.BaseValidationError):
        messages = cattrs.transform_error(err)
        return "; ".join(messages) or str(err)
    return str(err) or type(err).__name__


# --- the log's own shape, read without the converter ------------------------------------


class _Unusual(Exception):
    """A record of another shape than the log writes: the converter reads it (or says why not)."""


def _text(value: Any) -> str:
    if type(value) is not str:
        raise _Unusual
    return value


def _flag(value: Any) -> bool:
    if type(value) is not bool:
        raise _Unusual
    return value


def _count(value: Any) -> int:
    if type(value) is not int:
        raise _Unusual
    return value


def _texts(value: Any) -> tuple[str, ...]:
    if type(value) is not list or any(type(v) is not str for v in value):
        raise _Unusual
    return tuple(value)


def _pairs(value: Any) -> dict[str, str]:
    if type(value) is not dict or any(type(v) is not str for v in value.values()):
        raise _Unusual
    return value


def _maybe_flag(value: Any) -> bool | None:
    return None if value is None else _flag(value)


def _object(cls: type, reads: dict[str, Callable[[Any], Any]]) -> Callable[[Any], Any]:
    def build(value: Any) -> Any:
        if type(value) is not dict:
            raise _Unusual
        fields = {}
        for key, item in value.items():
            read = reads.get(key)
            if read is None:
                raise _Unusual
            fields[key] = read(item)
        return cls(**fields)

    return build


_term_rule = _object(
    TermRule,
    {
        "term": _text,
        "forms": _texts,
        "replacement": _text,
        "advisory": _flag,
        "note": _text,
        "case_sensitive": _flag,
    },
)
_memory = _object(
    MemoryPair,
    {"source": _text, "target": _text, "source_locale": _text, "target_locale": _text},
)
_subject = _object(
    Subject,
    {
        "kind": _text,
        "term": lambda v: None if v is None else _term_rule(v),
        "memory": lambda v: None if v is None else _memory(v),
        "text": _text,
    },
)
_evidence = _object(Evidence, {"path": _text, "unit": _text, "quote": _text})
_scope = _object(Scope, {"level": _text, "coordinates": _pairs, "all_profiles": _flag})

_signal = _object(
    Signal,
    {
        "source": _text,
        "commit": _text,
        "pr": _text,
        "merger": _text,
        "preferred": _count,
        "rejected": _count,
        "within": _text,
    },
)
_author = _object(Author, {"kind": _text, "name": _text, "session": _text})


def _correction(value: Any) -> Correction:
    if type(value) is not dict or not value.keys() <= {"from", "to"}:
        raise _Unusual
    return Correction(from_=_text(value["from"]), to=_text(value["to"]))


def _evidences(value: Any) -> tuple[Evidence, ...]:
    if type(value) is not list:
        raise _Unusual
    return tuple([_evidence(v) for v in value])


_RECORD: dict[str, Callable[[Any], Any]] = {
    "id": _text,
    "kind": lambda v: OpKind(_text(v).removeprefix("context.")),
    "actor": _author,
    "at": _text,
    "project": _text,
    "subject": lambda v: None if v is None else _subject(v),
    "correction": lambda v: None if v is None else _correction(v),
    "suggest": _flag,
    "evidence": _evidences,
    "scope": _scope,
    "target": _text,
    "before": _text,
    "note": _text,
    "replacement": _text,
    "advisory": _maybe_flag,
    "widen_to": _text,
    "address": _text,
    "because": _texts,
    "signal": lambda v: None if v is None else _signal(v),
}
_record = _object(Record, _RECORD)


_AUTHORS: dict[tuple[str, str, str], Author] = {}


def _author_of(value: dict[str, str]) -> Author:
    """One value per sender: a log names the same few sessions again and again."""
    key = (value["kind"], value.get("name", ""), value.get("session", ""))
    found = _AUTHORS.get(key)
    if found is None:
        if len(_AUTHORS) > 4096:
            _AUTHORS.clear()
        found = _AUTHORS[key] = Author(*key)
    return found


def _stored(value: dict[str, Any]) -> Record:
    """A record the log wrote, built as it stands (a wrong type raises and the converter,
    which checks, reads it instead)."""
    fields = dict(value)
    fields["kind"] = OpKind(fields["kind"].removeprefix("context."))
    fields["actor"] = _author_of(fields["actor"])
    subject = fields.get("subject")
    if subject is not None:
        term = subject.get("term")
        memory = subject.get("memory")
        fields["subject"] = Subject(
            kind=subject["kind"],
            term=None
            if term is None
            else TermRule(**{**term, "forms": tuple(term.get("forms", ()))}),
            memory=None if memory is None else MemoryPair(**memory),
            text=subject.get("text", ""),
        )
    correction = fields.get("correction")
    if correction is not None:
        fields["correction"] = Correction(from_=correction["from"], to=correction["to"])
    evidence = fields.get("evidence")
    if evidence is not None:
        fields["evidence"] = tuple([Evidence(**e) for e in evidence])
    scope = fields.get("scope")
    if scope is not None:
        fields["scope"] = Scope(**scope)
    signal = fields.get("signal")
    if signal is not None:
        fields["signal"] = Signal(**signal)
    because = fields.get("because")
    if because is not None:
        fields["because"] = tuple(because)
    return Record(**fields)
