"""Translations written beside their source, or to a project's target template for one language.

``kapi pseudo-translate`` and ``kapi translate`` outside a project write this
way: each file's target for the language (``locales/en.json`` ->
``locales/qps.json``), through the change service, with no project store.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from attrs import evolve, frozen

from kapi.host.errors import EXIT_GATE, EXIT_USAGE, HostError
from kapi.host.translate import UnitOutcome

if TYPE_CHECKING:
    from kapi.host.workspace import Workspace

__all__ = ["PseudoFile", "PseudoResult", "beside", "translate_beside"]


@frozen
class PseudoFile:
    source: str
    file: str
    written: int


@frozen
class PseudoResult:
    language: str
    files: tuple[PseudoFile, ...]
    refused: tuple[UnitOutcome, ...]
    units: tuple[UnitOutcome, ...] = ()

    @property
    def exit_code(self) -> int:
        return EXIT_GATE if self.refused else 0


def beside(relpath: str, source_lang: str, lang: str) -> str:
    """Where an ad hoc translation goes: ``locales/en.json`` -> ``locales/qps.json``,
    ``locales/en/app.json`` -> ``locales/qps/app.json``, else ``guide.md`` -> ``guide.qps.md``."""
    pure = PurePosixPath(relpath)
    base = source_lang.split("-")[0].lower()
    if pure.stem.lower() in (source_lang.lower(), base):
        return str(pure.with_name(lang + pure.suffix))
    parts = list(pure.parts)
    for index in range(len(parts) - 2, -1, -1):
        if parts[index].lower() in (source_lang.lower(), base):
            parts[index] = lang
            return str(PurePosixPath(*parts))
    return str(pure.with_name(f"{pure.stem}.{lang}{pure.suffix}"))


def translate_beside(
    workspace: Workspace,
    files: Sequence[str],
    language: str,
    provider: Any,
    *,
    dry_run: bool = False,
    overwrite: bool = False,
    note: str = "translated with `kapi translate`",
    batch_size: int = 40,
    output: str = "",
) -> PseudoResult:
    """Translate files into each one's target for ``language`` (a project's template, else beside it).

    ``overwrite`` rewrites every unit (pseudo-translation); otherwise only the
    missing ones are translated, so an existing translation is kept. ``output``
    names the target of the one file named instead: inside the project (or the
    working folder), never the source itself.
    """
    from kapi.host.project import Collection, ContentItem, Project, target_path
    from kapi.host.translate import (
        classify,
        declared_plural_forms,
        translate_units,
        write_units,
    )

    project = workspace.project
    root = workspace.root
    base = workspace.cwd or Path.cwd()
    if files:
        relpaths = []
        for file in files:
            path = (base / file).resolve()
            try:
                relpaths.append(path.relative_to(root.resolve()).as_posix())
            except ValueError:
                raise HostError(
                    f"{file}: outside the working folder", exit_code=EXIT_USAGE
                ) from None
    elif project is not None:
        relpaths = [doc for doc in project.source_files() if project.translation_paths(doc)]
    else:
        raise HostError("name the files to translate", exit_code=EXIT_USAGE)
    source_lang = workspace.source_language
    items = []
    for relpath in relpaths:
        claimed = project.claim(relpath) if project is not None else None
        if output:
            target = _output(workspace, output, relpaths)
        elif claimed is not None and claimed[1].target:
            target = target_path(claimed[1], relpath, language)
        else:
            target = beside(relpath, source_lang, language)
        if overwrite and project is not None:
            _refuse_a_projects_translation(project, relpath, target, language)
        items.append((relpath, target))
    synthetic = Project(
        root=root,
        recipe_path=project.recipe_path if project else root / "kapi.yaml",
        id=project.id if project else "",
        name=project.name if project else "",
        source_language=source_lang,
        target_languages=(language,),
        collections=tuple(
            Collection(name=f"beside-{n}", items=(ContentItem(path=relpath, target=target),))
            for n, (relpath, target) in enumerate(items)
        ),
    )
    space = _NoStore(root, synthetic, cwd=workspace.cwd)
    done: list[PseudoFile] = []
    refused: list[UnitOutcome] = []
    units_out: list[UnitOutcome] = []
    try:
        for relpath, target in items:
            target_file = space.home().path_for(target)
            created = False
            if not target_file.exists():
                if dry_run:
                    done.append(PseudoFile(relpath, target, 0))
                    continue
                target_file.parent.mkdir(parents=True, exist_ok=True)
                target_file.write_bytes(space.home().path_for(relpath).read_bytes())
                created = True
            home = space.home()
            staged = home.stage(relpath)
            units = [
                evolve(u, state="missing")
                for u in classify(staged, [language], {}, declared_plural_forms(home, staged))
                if overwrite or created or u.state == "missing"
            ]
            made, bad = translate_units(
                units,
                provider=provider,
                index=None,
                source_lang=source_lang,
                batch_size=batch_size,
                leverage=False,
            )
            outcomes = write_units(
                space, made, engine=provider.engine, index=None, note=note, dry_run=dry_run
            )
            refused.extend(bad)
            refused.extend(o for o in outcomes if o.outcome == "refused")
            units_out.extend(bad)
            units_out.extend(outcomes)
            written = sum(1 for o in outcomes if o.outcome in ("written", "leveraged"))
            if created and not written:
                target_file.unlink()  # nothing landed: leave no copy of the source behind
            done.append(PseudoFile(relpath, target, written))
    finally:
        space.close()
    return PseudoResult(
        language=language, files=tuple(done), refused=tuple(refused), units=tuple(units_out)
    )


def _refuse_a_projects_translation(project: Any, relpath: str, target: str, language: str) -> None:
    """A rewrite of every unit (pseudo-translation) never lands in a file that holds one of
    the project's own translations: those are a person's, or ``kapi up``'s with their stamps."""
    declared = project.translation_paths(relpath)
    if target not in declared.values():
        return
    owner = next(lang for lang, path in sorted(declared.items()) if path == target)
    raise HostError(
        f"{target}: this is the project's {owner} translation of {relpath}, and "
        "pseudo-translating would replace every translation in it; pseudo-translate into a "
        "language the project does not translate into (--to qps, the default), or run "
        f"`kapi run pseudo-translate --to {owner}`, which fills only the missing ones",
        exit_code=EXIT_USAGE,
    )


def _output(workspace: Workspace, output: str, relpaths: Sequence[str]) -> str:
    """The slash path of the one output a call names, inside the workspace's root."""
    import os

    from kapi.formats.containment import inside
    from kapi.host.inputs import file_in

    if len(relpaths) != 1:
        raise HostError(
            f"an output path is for one file; {len(relpaths)} were named", exit_code=EXIT_USAGE
        )
    target = inside(Path(os.path.realpath(workspace.root)), file_in(workspace, output))
    if target == relpaths[0]:
        raise HostError(
            f"{output}: that is the source file; name another file for the translation",
            exit_code=EXIT_USAGE,
        )
    if target == ".":
        raise HostError(f"{output}: names a folder, not a file", exit_code=EXIT_USAGE)
    return target


def _no_store_workspace() -> type:
    from kapi.host.workspace import Workspace

    class NoStore(Workspace):
        """A workspace over a made-up project: the home joins its targets; no store, no check."""

        @property
        def store(self) -> None:
            return None

        def commit_check(self) -> None:
            return None

    return NoStore


def _NoStore(root: Path, project: Any, *, cwd: Path | None) -> Any:
    return _no_store_workspace()(root, project, cwd=cwd)
