"""Every changed document rendered to the bytes of its files, and what a result says of each.

A writer may refuse what its format cannot say; the refusal goes to the op
that made the edit. Only files whose bytes change are written.
"""

from __future__ import annotations

from attrs import frozen

from kapi.core.change.errors import ErrorCode, ErrorInfo
from kapi.core.change.plan import DocPlan
from kapi.core.change.ports import DocumentHome, Write, digest
from kapi.core.change.result import DocResult, Finding
from kapi.core.change.staging import Staging
from kapi.core.format import FormatError, WriteRefused

__all__ = ["Rendered", "doc_results", "render"]


@frozen
class Rendered:
    """Per staged document key, the writes that change one of its files."""

    files: dict[str, list[Write]]

    @property
    def writes(self) -> list[Write]:
        return [write for writes in self.files.values() for write in writes]


def render(home: DocumentHome, staging: Staging) -> Rendered:
    """Render every document the set changed; a writer's refusal is recorded on an op."""
    files: dict[str, list[Write]] = {}
    for doc, plan in staging.plans.items():
        if not plan.changed and not plan.deleted and not plan.inserted:
            continue
        document = plan.staged.document.with_blocks(tuple(plan.blocks))
        try:
            produced = home.render(plan.staged, document)
        except WriteRefused as refused:
            staging.records[_op_for_block(plan, refused.block)].refuse(
                ErrorInfo(
                    code=ErrorCode.UNSUPPORTED,
                    message=refused.message,
                    capability=refused.capability,
                )
            )
            continue
        except FormatError as err:
            staging.records[_op_for_block(plan, "")].refuse(
                ErrorInfo(code=ErrorCode(err.code), message=err.located())
            )
            continue
        files[doc] = [w for w in produced if digest(w.data) != w.head]
    return Rendered(files)


def _op_for_block(plan: DocPlan, block_id: str) -> int:
    """The op that changed ``block_id`` (any block: ``""``), else the plan's first op."""
    for (changed_block, _), index in plan.changed.items():
        if not block_id or changed_block == block_id:
            return index
    return min(plan.changed.values(), default=0)


def doc_results(
    plans: dict[str, DocPlan],
    written: dict[str, str | None] | None = None,
    findings: dict[str, list[Finding]] | None = None,
    rendered: Rendered | None = None,
    preview: DocumentHome | None = None,
) -> list[DocResult]:
    """One entry per staged document, then one per joined translation file it writes.

    With ``preview`` (the home), each entry carries the diff its write would make.
    """
    written = written or {}
    findings = findings or {}
    files = rendered.files if rendered is not None else {}
    out = []
    for doc, plan in plans.items():
        writes = files.get(doc, [])
        own = next((w for w in writes if w.file is None), None)
        after = written.get(doc)
        if preview is not None and own is not None:
            after = digest(own.data)
        out.append(
            DocResult(
                doc=doc,
                home=plan.staged.home,
                file=plan.staged.file,
                written=preview is None and after is not None,
                before=plan.staged.head,
                after=after,
                findings=tuple(findings[doc]) if doc in findings else None,
                diff=(preview.diff(own) if own is not None else "")
                if preview is not None
                else None,
            )
        )
        for write in writes:
            if write.file is None:
                continue
            file_after = digest(write.data) if preview is not None else written.get(write.key)
            out.append(
                DocResult(
                    doc=doc,
                    home=plan.staged.home,
                    file=write.file,
                    edition=write.edition,
                    written=preview is None and file_after is not None,
                    before=write.head,
                    after=file_after,
                    diff=preview.diff(write) if preview is not None else None,
                )
            )
    return out
