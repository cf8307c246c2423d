"""The context record on the wire: one cattrs converter, ``from`` for ``Correction.from_``.

Defaults are left out, so a line of the log or of an export holds only what
the op says. :func:`decode_record` refuses a record it cannot read with a
:class:`~kapi.core.context.errors.ContextError` naming the field.
"""

from __future__ import annotations

from typing import Any

import cattrs
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override

from kapi.core.context.errors import ContextError
from kapi.core.context.record import Correction, OpKind, Record

__all__ = ["decode_record", "encode_record"]


def _converter() -> cattrs.Converter:
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


_CONVERTER = _converter()


def encode_record(record: Record) -> dict[str, Any]:
    """The record as a JSON object (``id``, ``kind``, ``actor`` always present)."""
    data: dict[str, Any] = _CONVERTER.unstructure(record)
    data["id"], data["kind"] = record.id, str(record.kind)
    data["actor"] = {
        "kind": record.actor.kind,
        "name": record.actor.name,
        "session": record.actor.session,
    }
    return data


def decode_record(data: Any) -> Record:
    """A record from its JSON object; ``kind`` may carry the log's ``context.`` prefix."""
    if not isinstance(data, dict):
        raise ContextError("a context operation is a JSON object")
    body = dict(data)
    kind = str(body.get("kind", ""))
    body["kind"] = kind.removeprefix("context.")
    try:
        return _CONVERTER.structure(body, Record)
    except (cattrs.BaseValidationError, KeyError, ValueError, TypeError) as err:
        raise ContextError(
            f"context operation {body.get('id', '?')!r} cannot be read: {_reason(err)}"
        ) from None


def _reason(err: BaseException) -> str:
    if isinstance(err, cattrs.BaseValidationError):
        messages = cattrs.transform_error(err)
        return "; ".join(messages) or str(err)
    return str(err) or type(err).__name__
