"""The commit check: governance at every edition the set changed, before anything is written.

Only failing findings an edit introduces count; the policy says whether they
refuse the op that made the edit or are reported on it.
"""

from __future__ import annotations

from kapi.core.change.errors import ErrorCode, ErrorInfo
from kapi.core.change.ops import ChangeSet
from kapi.core.change.plan import edition_runs
from kapi.core.change.policy import ChangePolicy
from kapi.core.change.ports import Actor, CommitCheck
from kapi.core.change.result import Finding
from kapi.core.change.staging import Staging

__all__ = ["check_commit"]


def check_commit(
    check: CommitCheck | None,
    staging: Staging,
    change_set: ChangeSet,
    actor: Actor,
    policy: ChangePolicy,
) -> dict[str, list[Finding]]:
    """The introduced findings per staged document (none without a check), recorded on the ops."""
    if check is None:
        return {}
    refuses = policy.refuses_introduced_findings(change_set, actor.kind)
    by_doc: dict[str, list[Finding]] = {}
    for doc, plan in staging.plans.items():
        findings: list[Finding] = []
        for (block_id, edition), op_index in sorted(plan.changed.items(), key=lambda i: i[1]):
            record = staging.records[op_index]
            if record.refused:
                continue
            block = plan.find(block_id)
            if block is None:  # deleted by the set: no edition is left to check
                continue
            after = edition_runs(block, edition)
            if after is None:
                continue
            original = plan.original.get(block_id)
            before = edition_runs(original, edition) if original else None
            introduced = check.check(doc, block.ref_key, edition, before, after).introduced
            findings.extend(introduced)
            if introduced and refuses:
                record.refuse(
                    ErrorInfo(
                        code=ErrorCode.GATE_FAILED,
                        message=f"the edit introduces {len(introduced)} failing "
                        f"finding(s): {introduced[0].message}",
                    )
                )
            record.report(introduced)
        by_doc[doc] = findings
    return by_doc
