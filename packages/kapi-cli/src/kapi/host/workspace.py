"""The composition root: where we are, which project governs it, and the services built for it.

Every door (CLI verb, MCP tool, hook) opens a :class:`Workspace` and asks it
for what it needs; nothing else constructs adapters. A workspace owns what it
opens: use it as a context manager (or call :meth:`Workspace.close`) and the
store's connection is released, so a long-lived server holds one per project.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from kapi.host.project import Project, discover_project, load_project

if TYPE_CHECKING:  # the change service and the file home are loaded by the verbs that use them
    from kapi.core.change.ports import Actor, CommitCheck
    from kapi.core.change.service import ChangeService
    from kapi.formats.home import FileHome
    from kapi.host.store_port import StorePort

__all__ = ["Workspace", "open_workspace"]

STORE_NAME = "project.db"


class Workspace:
    """The working folder and, when one governs it, the project and its store."""

    def __init__(
        self,
        root: Path,
        project: Project | None,
        *,
        source_language: str | None = None,
        cwd: Path | None = None,
    ) -> None:
        self.root = root
        self.project = project
        self.cwd = cwd  # where relative paths are taken from; None: this process's folder
        self._source_language = source_language
        self._store: StorePort | None = None

    def __enter__(self) -> Workspace:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Release the store's connection (a later use opens it again)."""
        store, self._store = self._store, None
        if store is not None:
            store.close()

    @property
    def source_language(self) -> str:
        if self._source_language:
            return self._source_language
        return self.project.source_language if self.project is not None else "en"

    @property
    def store(self) -> StorePort | None:
        """The project's store, opened (created, migrated) on first use; raises HostError."""
        if self.project is None:
            return None
        if self._store is None:
            from kapi.host.store import ProjectStore

            path = self.project.state_dir / STORE_NAME
            self._store = ProjectStore(
                path,
                project=self.project.id or self.project.name,
                source_language=self.project.source_language,
                display=path.relative_to(self.project.root).as_posix(),
            )
        return self._store

    def home(self) -> FileHome:
        from kapi.formats.home import FileHome

        if self.project is not None:
            from kapi.host.project_home import ProjectHome

            return ProjectHome(self.project, cwd=self.cwd)
        return FileHome(self.root, locale=self.source_language, cwd=self.cwd)

    def commit_check(self) -> CommitCheck | None:
        if self.project is None:
            return None
        try:
            from kapi.host.commit_check import ProjectCommitCheck
        except ImportError:
            return None

        check: CommitCheck = ProjectCommitCheck(self)
        return check

    def change_service(self, actor: Actor) -> ChangeService:
        from kapi.core.change.ports import ActorKind
        from kapi.core.change.service import ChangeService
        from kapi.host.store import StoreAssets, StoreRecorder

        store = self.store
        if store is not None and actor.kind == ActorKind.AGENT and actor.session:
            with contextlib.suppress(Exception):  # presence is best effort, never blocking
                store.touch_session(actor.session, actor.name)
        return ChangeService(
            self.home(),
            commit_check=self.commit_check(),
            assets=StoreAssets(store, self.project.recipe_path)
            if store is not None and self.project
            else None,
            recorder=StoreRecorder(store) if store is not None else None,
            governance_files=self.project,  # the recipe, voices, terms and .kapi/ are a person's
        )


def open_workspace(
    *,
    project: str | None = None,
    cwd: Path | None = None,
    environ: Mapping[str, str] | None = None,
    source_language: str | None = None,
) -> Workspace:
    """Find the project that governs ``cwd`` (``-p``, KAPI_NO_PROJECT, KAPI_PROJECT, walk up).

    Relative paths the workspace is given are taken from ``cwd`` (default: this
    process's folder), so a server can serve a project it does not run in.
    """
    here = (cwd or Path.cwd()).resolve()
    at = here if cwd is not None else None
    recipe = discover_project(here, explicit=project, environ=environ)
    if recipe is None:
        return Workspace(here, None, source_language=source_language, cwd=at)
    loaded = load_project(recipe)
    return Workspace(loaded.root, loaded, source_language=source_language, cwd=at)
