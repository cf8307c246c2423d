"""The set staged: each document an op names read once, and every op applied to it in memory.

Ops are planned by document (a translation's own file joins its source
document's plan); asset ops are set aside, validated only. A document that
governs the project is refused to a sender the policy keeps from it, both
as named (before any format reads it) and as staged (every file it writes).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from attrs import evolve, frozen

from kapi.core.change.assets import need_store, validate_asset
from kapi.core.change.dispatch import apply_op
from kapi.core.change.errors import ChangeError, ErrorInfo
from kapi.core.change.ops import ChangeSet, Decide, InsertBlock, Memory, Native, Op, Recipe, Term
from kapi.core.change.plan import DocPlan
from kapi.core.change.policy import ChangePolicy
from kapi.core.change.ports import Actor, AssetSink, DocumentHome, GovernanceFiles
from kapi.core.change.records import OpRecord, new_records
from kapi.core.change.result import Current
from kapi.core.change.step import OpStep

__all__ = ["Staging", "stage"]


@frozen
class Staging:
    """The documents staged by a set, by document key, and one record per op."""

    plans: dict[str, DocPlan]
    records: list[OpRecord]

    @property
    def refused(self) -> bool:
        return any(record.refused for record in self.records)


def stage(
    change_set: ChangeSet,
    actor: Actor,
    *,
    home: DocumentHome,
    policy: ChangePolicy,
    assets: AssetSink | None,
    governance_files: GovernanceFiles | None,
    clock: Callable[[], str] | None,
) -> Staging:
    """Stage every document the set names and apply each op in memory, recording each outcome."""
    plans: dict[str, DocPlan] = {}
    records = new_records(change_set)
    governed = _GovernedFiles(governance_files, policy, actor)
    for record in records:
        op = record.op
        try:
            if isinstance(op, Term | Memory | Recipe):
                validate_asset(assets, op, actor)
                continue
            if isinstance(op, Decide):
                need_store(assets, op)
            governed.check(op, [_named_doc(op)])
            plan = _plan_for(home, op, plans)
            staged = plan.staged
            governed.check(op, [staged.doc, *(joined.file for joined in staged.joined)])
            step = OpStep(record, plan, change_set, actor, policy, clock)
            record.outcome = apply_op(step, op)
        except ChangeError as err:
            current = err.current if isinstance(err.current, Current) else None
            record.refuse(_pointed(err.info, record.index), current)
    return Staging(plans, records)


def _plan_for(home: DocumentHome, op: Op, plans: dict[str, DocPlan]) -> DocPlan:
    """The plan of the document ``op`` names, staging the document on first use."""
    doc = _named_doc(op)
    for plan in plans.values():
        if doc in (plan.staged.doc, plan.staged.file) or plan.staged.joined_file(doc):
            return plan
    staged = home.stage(doc)
    existing = plans.get(staged.doc)
    if existing is not None:
        return existing
    plan = DocPlan(staged)
    plans[staged.doc] = plan
    return plan


class _GovernedFiles:
    """Which files govern the project (asked once per file), and who may change them."""

    def __init__(
        self, governance_files: GovernanceFiles | None, policy: ChangePolicy, actor: Actor
    ) -> None:
        self._files = governance_files
        self._policy = policy
        self._actor = actor
        self._known: dict[str, str] = {}  # file -> what it is, when it governs the project

    def check(self, op: Op, files: Sequence[str]) -> None:
        """Refuse an op that would change a file that governs the project, if the sender may not.

        ``files`` are the document the op names (before the home reads it, so a
        file no format reads is refused for what it is) or, once staged, every
        file the document writes: its own and its joined translations'.
        """
        if self._files is None or isinstance(op, Decide):  # advice changes no file
            return
        for file in files:
            if file not in self._known:
                self._known[file] = self._files.governs(file)
            what = self._known[file]
            if not what:
                continue
            field = "doc" if isinstance(op, InsertBlock | Native) else "at/doc"
            refusal = self._policy.governed_refusal(file, what, self._actor.kind, field=field)
            if refusal is not None:
                raise ChangeError(refusal)


def _named_doc(op: Op) -> str:
    """The document a content op (or a decision) names, as its sender wrote it."""
    assert not isinstance(op, Term | Memory | Recipe)
    return op.doc if isinstance(op, InsertBlock | Native) else op.at.doc


def _pointed(info: ErrorInfo, index: int) -> ErrorInfo:
    """A refusal of the document an op names points at it (``/ops/N/at/doc``)."""
    if info.pointer is None and info.field in ("at/doc", "doc"):
        return evolve(info, pointer=f"/ops/{index}/{info.field}")
    return info
