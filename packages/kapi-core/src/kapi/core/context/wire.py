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
from kapi.core.stored import Unusual, built, count, flag, maybe, pairs, text, texts

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
    except (Unusual, ValueError, TypeError, AttributeError, KeyError):
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


_term_rule = built(
    TermRule,
    {
        "term": text,
        "forms": texts,
        "replacement": text,
        "advisory": flag,
        "note": text,
        "case_sensitive": flag,
    },
)
_memory = built(
    MemoryPair,
    {"source": text, "target": text, "source_locale": text, "target_locale": text},
)
_subject = built(
    Subject,
    {
        "kind": text,
        "term": maybe(_term_rule),
        "memory": maybe(_memory),
        "text": text,
    },
)
_evidence = built(Evidence, {"path": text, "unit": text, "quote": text})
_scope = built(Scope, {"level": text, "coordinates": pairs, "all_profiles": flag})

_signal = built(
    Signal,
    {
        "source": text,
        "commit": text,
        "pr": text,
        "merger": text,
        "preferred": count,
        "rejected": count,
        "within": text,
    },
)
_author = built(Author, {"kind": text, "name": text, "session": text})


def _correction(value: Any) -> Correction:
    if type(value) is not dict or not value.keys() <= {"from", "to"}:
        raise Unusual
    return Correction(from_=text(value["from"]), to=text(value["to"]))


def _evidences(value: Any) -> tuple[Evidence, ...]:
    if type(value) is not list:
        raise Unusual
    return tuple([_evidence(v) for v in value])


_RECORD: dict[str, Callable[[Any], Any]] = {
    "id": text,
    "kind": lambda v: OpKind(text(v).removeprefix("context.")),
    "actor": _author,
    "at": text,
    "project": text,
    "subject": maybe(_subject),
    "correction": maybe(_correction),
    "suggest": flag,
    "evidence": _evidences,
    "scope": _scope,
    "target": text,
    "before": text,
    "note": text,
    "replacement": text,
    "advisory": maybe(flag),
    "widen_to": text,
    "address": text,
    "because": texts,
    "signal": maybe(_signal),
}
_record = built(Record, _RECORD)


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
