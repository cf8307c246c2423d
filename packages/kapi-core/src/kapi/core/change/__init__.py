"""The change contract ``kapi.change/v1``: operations, results, and the change service.

The public surface for other tools::

    from kapi.core.change import decode_change_set, ChangeService, MemoryHome, Actor

Names load on first use, so importing one module of the package stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    # wire
    "decode_change_set": "kapi.core.change.decode",
    "decode_result": "kapi.core.change.decode",
    "decode_read_page": "kapi.core.change.decode",
    "encode_change_set": "kapi.core.change.wire",
    "encode_op": "kapi.core.change.wire",
    "encode_result": "kapi.core.change.wire",
    "encode_read_page": "kapi.core.change.wire",
    "dumps": "kapi.core.change.wire",
    "change_set_schema": "kapi.core.change.schema",
    "result_schema": "kapi.core.change.schema",
    "read_page_schema": "kapi.core.change.schema",
    "op_schema": "kapi.core.change.schema",
    # values
    "ChangeSet": "kapi.core.change.ops",
    "Ref": "kapi.core.change.ops",
    "BlockRef": "kapi.core.change.ops",
    "Edit": "kapi.core.change.ops",
    "Selection": "kapi.core.change.ops",
    "Branch": "kapi.core.change.ops",
    "Position": "kapi.core.change.ops",
    "Range": "kapi.core.change.ops",
    "SetContent": "kapi.core.change.ops",
    "ReplaceText": "kapi.core.change.ops",
    "SetAttribute": "kapi.core.change.ops",
    "Mark": "kapi.core.change.ops",
    "RemoveEdition": "kapi.core.change.ops",
    "Annotate": "kapi.core.change.ops",
    "Unannotate": "kapi.core.change.ops",
    "InsertBlock": "kapi.core.change.ops",
    "DeleteBlock": "kapi.core.change.ops",
    "Native": "kapi.core.change.ops",
    "Decide": "kapi.core.change.ops",
    "Term": "kapi.core.change.ops",
    "Memory": "kapi.core.change.ops",
    "Recipe": "kapi.core.change.ops",
    "Result": "kapi.core.change.result",
    "OpResult": "kapi.core.change.result",
    "DocResult": "kapi.core.change.result",
    "Finding": "kapi.core.change.result",
    "ErrorCode": "kapi.core.change.errors",
    "ErrorInfo": "kapi.core.change.errors",
    "ChangeError": "kapi.core.change.errors",
    "exit_code": "kapi.core.change.errors",
    # the service and its ports
    "ChangeService": "kapi.core.change.service",
    "ChangePolicy": "kapi.core.change.policy",
    "Actor": "kapi.core.change.ports",
    "DocumentHome": "kapi.core.change.ports",
    "Staged": "kapi.core.change.ports",
    "Write": "kapi.core.change.ports",
    "CommitCheck": "kapi.core.change.ports",
    "AssetSink": "kapi.core.change.ports",
    "Recorder": "kapi.core.change.ports",
    "MemoryHome": "kapi.core.change.memory_home",
    "ReadRequest": "kapi.core.change.reading",
    "read_page": "kapi.core.change.reading",
    "describe": "kapi.core.change.reading",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'kapi.core.change' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
