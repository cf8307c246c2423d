"""The growing context: operation records, their fold into statuses, derived forms and the policy.

Pure functions over values: the log that stores records and the files and
commands that show them are adapters in :mod:`kapi.host`. Names load on first
use, so reading the fold does not load the wire converter.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "ContextError": "kapi.core.context.errors",
    "ContextRefused": "kapi.core.context.errors",
    "Correction": "kapi.core.context.record",
    "Evidence": "kapi.core.context.record",
    "OpKind": "kapi.core.context.record",
    "Record": "kapi.core.context.record",
    "Scope": "kapi.core.context.record",
    "Signal": "kapi.core.context.record",
    "Status": "kapi.core.context.record",
    "Subject": "kapi.core.context.record",
    "TermRule": "kapi.core.context.record",
    "Entry": "kapi.core.context.fold",
    "Fold": "kapi.core.context.fold",
    "Settlement": "kapi.core.context.settle",
    "Standing": "kapi.core.context.settle",
    "Uses": "kapi.core.context.settle",
    "content_address": "kapi.core.context.settle",
    "establish_address": "kapi.core.context.settle",
    "settle": "kapi.core.context.settle",
    "StoreRule": "kapi.core.context.fold",
    "disagree": "kapi.core.context.fold",
    "fold": "kapi.core.context.fold",
    "in_force_outside": "kapi.core.context.fold",
    "meet": "kapi.core.context.fold",
    "rival_name": "kapi.core.context.fold",
    "rivals_text": "kapi.core.context.fold",
    "avoided_forms": "kapi.core.context.forms",
    "mint_id": "kapi.core.context.ids",
    "resolve_prefix": "kapi.core.context.ids",
    "short": "kapi.core.context.ids",
    "decision_refusal": "kapi.core.context.policy",
    "person_decides": "kapi.core.context.policy",
    "decode_record": "kapi.core.context.wire",
    "encode_record": "kapi.core.context.wire",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
