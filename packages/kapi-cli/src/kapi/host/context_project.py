"""The workspace's context: its project, store and log, and what every context verb asks of them.

Shared by the read verbs (:mod:`kapi.host.context`) and the recording ones
(:mod:`kapi.host.context_ops`); it writes nothing itself.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from kapi.core.context.errors import ContextError
from kapi.core.context.fold import Entry, Fold
from kapi.host.context_log import ContextLog
from kapi.host.context_points import rules_in_force
from kapi.host.errors import EXIT_ERROR, HostError

if TYPE_CHECKING:
    from kapi.core.change.ports import Actor
    from kapi.host.workspace import Workspace

__all__ = ["ProjectContext"]


class ProjectContext:
    """The context log of the workspace's project, with what a verb needs around it."""

    def __init__(self, workspace: Workspace) -> None:
        project, store = workspace.project, workspace.store
        if project is None or store is None:
            raise HostError(
                "no project here: the context lives in a project's store; run `kapi init` first "
                "(or point at a project with -p)",
                exit_code=EXIT_ERROR,
            )
        self.workspace = workspace
        self.project = project
        self.store = store
        self.log = ContextLog(store, project.id or project.name)
        self._governance: Any = None

    def in_force(self, locale: str | None = None, governance: Any = None) -> list[Any]:
        """The rules in force that name a wording the log's rules name: the terms store's
        (in ``locale``, default the source language), then the voices' (from ``governance``,
        default the project's; a recipe whose governance does not load has none)."""
        return rules_in_force(
            self.store,
            self.log.records(),
            locale or self.workspace.source_language,
            lambda: governance or self.governance(),
        )

    def governance(self) -> Any:
        """The project's governance, loaded once (None when the recipe's does not load)."""
        if self._governance is None:
            from kapi.host.governance import Governance

            try:
                self._governance = Governance(self.workspace)
            except HostError:
                self._governance = False
        return self._governance or None

    def fold(self) -> Fold:
        return self.log.fold(self.in_force())

    def relative(self, path: str) -> str:
        """A path as the project names it; outside the project or missing is refused."""
        from pathlib import Path

        base = self.workspace.cwd or Path.cwd()
        candidate = Path(path) if Path(path).is_absolute() else base / path
        relative = self.project.relative(candidate)
        if relative is None:
            relative = self.project.relative(self.project.root / path)
            if relative is None or Path(path).is_absolute():
                raise ContextError(
                    f"{path}: not inside this project; name a file in it (relative to the "
                    "project's folder or to where you are)"
                )
            candidate = self.project.root / relative
        if not candidate.is_file():
            raise ContextError(f"{relative}: no such file in this project; name the file you read")
        return relative

    def coordinates(self, path: str) -> dict[str, str]:
        """The coordinates of the point a path sits at (the default point without a path)."""
        from kapi.core.governance.errors import GovernanceError
        from kapi.core.governance.resolve import resolve_governance
        from kapi.host.governance import Governance

        try:
            governance = Governance(self.workspace)
            point = resolve_governance(governance.recipe, path or "AGENTS.md", at=governance.at)
        except (GovernanceError, HostError):
            return {}
        return dict(point.coordinates)

    def touch(self, actor: Actor) -> None:
        """Presence: an agent's session is seen now (best effort, never blocking)."""
        if actor.kind == "agent" and actor.session:
            with contextlib.suppress(Exception):
                self.store.touch_session(actor.session, actor.name)

    def entry(self, folded: Fold, prefix: str) -> Entry:
        op_id = self.log.resolve(prefix)
        entry = folded.entry(op_id)
        if entry is None:
            raise ContextError(
                f"#{op_id[:10]} is a decision, not a suggestion or a rule; "
                "`kapi context log` shows what it decided"
            )
        return entry
