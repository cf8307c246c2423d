"""``kapi store export`` / ``kapi store import``: the context log as one JSONL file.

One record per line, ids preserved, so a team shares context through git
today (and a shared store later). An import reads and checks the whole file
before anything is written, skips the ops the log holds already (by id or
content address), and makes the terms store and the rules files say what
the merged log establishes.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from attrs import frozen

from kapi.core.context.errors import ContextError, ContextRefused
from kapi.core.context.policy import REVIEW_HINT
from kapi.host.wire import encode

if TYPE_CHECKING:
    from kapi.core.change.ports import Actor
    from kapi.host.workspace import Workspace

__all__ = ["StoreExport", "StoreImported", "export_store", "import_store"]

MAX_IMPORT_BYTES = 64 * 1024 * 1024


@frozen
class StoreExport:
    text: str
    operations: int

    def encoded(self) -> dict[str, Any]:
        return {"operations": self.operations}


@frozen
class StoreImported:
    path: str
    operations: int
    added: int
    skipped: int

    def encoded(self) -> dict[str, Any]:
        data: dict[str, Any] = encode(self)
        return data


def export_store(workspace: Workspace) -> StoreExport:
    """Every op of the log, oldest first, one JSON object per line (stable bytes)."""
    from kapi.core.context.wire import encode_record
    from kapi.host.context_project import ProjectContext

    context = ProjectContext(workspace)
    records = context.log.records()
    lines = [
        json.dumps(encode_record(r), ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        for r in records
    ]
    return StoreExport(text="".join(line + "\n" for line in lines), operations=len(records))


def import_store(data: bytes, path: str, workspace: Workspace, actor: Actor) -> StoreImported:
    """Merge the ops of an export into the log: all lines checked first, known ops skipped."""
    from kapi.core.context.wire import decode_record
    from kapi.host.context_project import ProjectContext
    from kapi.host.context_write import record_ops

    if actor.kind != "person":
        raise ContextRefused(
            f"only a person imports context into a project; {REVIEW_HINT} or ask the person to "
            f"run `kapi store import {path}`"
        )
    if len(data) > MAX_IMPORT_BYTES:
        raise ContextError(f"{path}: larger than {MAX_IMPORT_BYTES} bytes; split it")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ContextError(f"{path}: not UTF-8 text (byte {err.start})") from None
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as err:
            raise ContextError(
                f"{path}:{number}: not JSON: {err.msg}; nothing was imported"
            ) from None
        try:  # a \ud800 escape decodes to a lone surrogate, which no UTF-8 store can hold
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise ContextError(
                f"{path}:{number}: a string holds a lone surrogate (\\ud800-\\udfff); "
                "nothing was imported"
            ) from None
        try:
            records.append(decode_record(value))
        except ContextError as err:
            raise ContextError(f"{path}:{number}: {err.message}; nothing was imported") from None
    context = ProjectContext(workspace)
    before = context.fold()
    known = {r.id for r in context.log.records()}
    fresh = [r for r in records if r.id not in known]
    if fresh:
        record_ops(context, fresh, actor, before)
    added = len(context.log.records()) - len(known)
    return StoreImported(
        path=path, operations=len(records), added=added, skipped=len(records) - added
    )
