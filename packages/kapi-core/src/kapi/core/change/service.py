"""The change service: plans a change set by document, applies it in memory, and lands it whole.

Order (spec change-contract §9), one phase each: the policy for every op;
stage every document and apply its ops in memory against the state the set
began with, guards included (staging); the commit check (gate); render every
changed document (rendering); stop for a preview; otherwise write every file
atomically (landing), then land decisions and asset ops (assets), then record
the set. Any refusal before the write leaves every document as it was. Each
phase records what became of an op on that op's record (records).
"""

from __future__ import annotations

from collections.abc import Callable

from attrs import evolve, field, frozen

from kapi.core.change.assets import land_assets
from kapi.core.change.errors import ErrorCode, ErrorInfo
from kapi.core.change.gate import check_commit
from kapi.core.change.landing import commit, commit_refused, landed_ops
from kapi.core.change.ops import ChangeSet
from kapi.core.change.policy import ChangePolicy
from kapi.core.change.ports import (
    Actor,
    AssetSink,
    CommitCheck,
    CommitRefused,
    DocChanged,
    DocumentHome,
    GovernanceFiles,
    Recorder,
)
from kapi.core.change.records import new_records, refused_result
from kapi.core.change.rendering import Rendered, doc_results, render
from kapi.core.change.result import Result, SetStatus
from kapi.core.change.staging import stage

__all__ = ["ChangeService"]


@frozen
class ChangeService:
    """Applies ``kapi.change/v1`` change sets through a document home."""

    home: DocumentHome
    policy: ChangePolicy = field(factory=ChangePolicy)
    commit_check: CommitCheck | None = None
    assets: AssetSink | None = None
    recorder: Recorder | None = None
    clock: Callable[[], str] | None = None
    governance_files: GovernanceFiles | None = None

    def apply(self, change_set: ChangeSet, actor: Actor) -> Result:
        """Apply (or preview) a change set sent by ``actor``."""
        refusals = self.policy.refusals(change_set, actor.kind)
        if refusals:
            records = new_records(change_set)
            for index, info in refusals.items():
                records[index].refuse(info)
            return refused_result(records)
        for attempt in range(2):
            try:
                return self._apply_once(change_set, actor)
            except DocChanged as changed:
                if attempt == 1:
                    return _kept_changing(change_set, changed)
        raise AssertionError("unreachable")

    def _apply_once(self, change_set: ChangeSet, actor: Actor) -> Result:
        staging = stage(
            change_set,
            actor,
            home=self.home,
            policy=self.policy,
            assets=self.assets,
            governance_files=self.governance_files,
            clock=self.clock,
        )
        doc_findings = check_commit(self.commit_check, staging, change_set, actor, self.policy)
        # Render only a set nothing refused; a writer may refuse what its format cannot say.
        rendered = Rendered({}) if staging.refused else render(self.home, staging)
        if staging.refused:
            return refused_result(staging.records, docs=doc_results(staging.plans))

        if change_set.preview:
            docs = doc_results(staging.plans, {}, doc_findings, rendered, preview=self.home)
            ops = tuple(record.previewed() for record in staging.records)
            return Result(status=SetStatus.PREVIEWED, docs=tuple(docs), ops=ops)

        try:
            outcome = commit(self.home, rendered)  # raises DocChanged for a retry
        except CommitRefused as refused:
            return commit_refused(change_set, staging, rendered, refused)
        ops_out = landed_ops(staging, rendered, outcome)
        if outcome.error is None:
            status = land_assets(self.assets, staging.records, actor, ops_out)
        else:
            status = SetStatus.PARTIAL
        docs = doc_results(staging.plans, outcome.written, doc_findings, rendered)
        result = Result(status=status, docs=tuple(docs), ops=tuple(ops_out))
        return self._record(change_set, result, actor)

    def _record(self, change_set: ChangeSet, result: Result, actor: Actor) -> Result:
        """The landed set with its record id (``None`` when the recorder fails: content stays)."""
        if self.recorder is None:
            return result
        try:
            record = self.recorder.record(change_set, result, actor)
        except Exception:  # a failing recorder leaves content written and record null
            record = None
        return evolve(result, record=record)


def _kept_changing(change_set: ChangeSet, changed: DocChanged) -> Result:
    """A document changed under the commit twice running: refused, nothing written."""
    info = ErrorInfo(
        code=ErrorCode.DOC_CHANGED,
        message=f"{changed.doc} kept changing while the set was applied; read it again and resend",
    )
    records = new_records(change_set)
    if records:
        records[0].refuse(info)
    return refused_result(records, info)
