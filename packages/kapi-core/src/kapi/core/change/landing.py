"""The set's writes committed, and what each op's result says once they have landed.

A write the file system refuses (every file as it was) refuses the set with
the op whose document writes that file. A commit that fails part way (files
landed, one could not be restored) leaves the ops of the unwritten documents,
the decisions and the asset ops not applied.
"""

from __future__ import annotations

from kapi.core.change.errors import ErrorCode, ErrorInfo
from kapi.core.change.ops import ASSET_OPS, ChangeSet, Decide, Op
from kapi.core.change.plan import DocPlan
from kapi.core.change.ports import CommitOutcome, CommitRefused, DocumentHome
from kapi.core.change.records import new_records, refused_result
from kapi.core.change.rendering import Rendered, doc_results
from kapi.core.change.result import OpResult, OpStatus, Result
from kapi.core.change.staging import Staging

__all__ = ["commit", "commit_refused", "landed_ops"]


def commit(home: DocumentHome, rendered: Rendered) -> CommitOutcome:
    """Write every changed file; raises DocChanged (retry) or CommitRefused (nothing written)."""
    writes = rendered.writes
    if not writes:
        return CommitOutcome(written={})
    return home.commit(writes)


def commit_refused(
    change_set: ChangeSet, staging: Staging, rendered: Rendered, refused: CommitRefused
) -> Result:
    """The set refused by the op whose document writes the file the file system refused.

    Only that op is refused: what the other phases recorded on the ops is not reported.
    """
    records = new_records(change_set)
    index = _op_for_file(staging, rendered, refused.file)
    records[index].refuse(ErrorInfo(code=ErrorCode(refused.code), message=refused.message))
    return refused_result(records, docs=doc_results(staging.plans))


def landed_ops(staging: Staging, rendered: Rendered, outcome: CommitOutcome) -> list[OpResult]:
    """Each op's result after the commit, with the findings reported on it."""
    written = outcome.written
    unwritten = {
        doc
        for doc, files in rendered.files.items()
        if any(written.get(w.key) is None for w in files)
    }
    ops: list[OpResult] = []
    for record in staging.records:
        landed = record.applied()
        op = record.op
        if outcome.error is not None and (
            op.op in ASSET_OPS or isinstance(op, Decide) or _op_doc(op, staging.plans) in unwritten
        ):
            landed = OpResult(i=record.index, op=op.op, status=OpStatus.NOT_APPLIED, at=landed.at)
        ops.append(record.with_findings(landed))
    return ops


def _op_for_file(staging: Staging, rendered: Rendered, file: str) -> int:
    """The first op whose document writes ``file`` (0 when none names it)."""
    docs = {doc for doc, files in rendered.files.items() if any(w.key == file for w in files)}
    for record in staging.records:
        if _op_doc(record.op, staging.plans) in docs:
            return record.index
    return 0


def _op_doc(op: Op, plans: dict[str, DocPlan]) -> str | None:
    """The key of the staged document an op names (as its sender wrote it when none)."""
    doc = getattr(op, "doc", None) or getattr(getattr(op, "at", None), "doc", None)
    for key, plan in plans.items():
        if doc in (key, plan.staged.file) or (doc and plan.staged.joined_file(doc)):
            return key
    return doc
