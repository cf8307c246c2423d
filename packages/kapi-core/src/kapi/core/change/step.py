"""One op being applied in memory: its record, its document, and the set and sender it came with."""

from __future__ import annotations

from collections.abc import Callable

from attrs import frozen

from kapi.core.change.ops import ChangeSet
from kapi.core.change.plan import DocPlan
from kapi.core.change.policy import ChangePolicy
from kapi.core.change.ports import Actor
from kapi.core.change.records import OpRecord

__all__ = ["OpStep"]


@frozen
class OpStep:
    """What applying one op needs besides the op: findings reported on it go to ``record``."""

    record: OpRecord
    plan: DocPlan
    change_set: ChangeSet
    actor: Actor
    policy: ChangePolicy
    clock: Callable[[], str] | None = None

    @property
    def index(self) -> int:
        return self.record.index

    def stamp(self) -> str:
        """The time an edition is written, ``""`` without a clock."""
        return self.clock() if self.clock is not None else ""
