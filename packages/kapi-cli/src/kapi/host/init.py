"""``kapi init``: a recipe proposed from what is in the tree, and the local state folder.

Catalogues named by language (``locales/en.json`` beside ``locales/fr.json``,
``po/de.po``, ``res/values-fr/strings.xml``) become one collection with a
target template; prose (Markdown, HTML, text) becomes a ``docs`` collection.
The recipe is written once, with a freshly minted project id; only a person
replaces it (``--force``), as only a person edits it.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from attrs import frozen

from kapi.core.change.ports import ActorKind
from kapi.core.edition import EditionKeyError, canonical_locale
from kapi.host.errors import EXIT_USAGE, HostError
from kapi.host.project import RECIPE_NAME, STATE_DIR, mint_project_id

__all__ = [
    "CollectionSummary",
    "InitPlan",
    "InitRequest",
    "InitResult",
    "InitSummary",
    "ProposedCollection",
    "plan_init",
    "run_init",
    "write_init",
]

_SKIP_DIRS = {"node_modules", "__pycache__", "venv", "dist", "build", "target", "vendor"}
_PROSE = {"markdown", "html", "plaintext"}
_LANGUAGE_SEGMENT = re.compile(r"^(?:values-)?([a-z]{2,3}(?:[-_](?:r)?[A-Za-z0-9]{2,4})?)$")


@frozen
class ProposedCollection:
    name: str
    path: str
    target: str = ""
    source_only: bool = False
    files: int = 0


@frozen
class InitPlan:
    root: Path
    source_language: str
    target_languages: tuple[str, ...]
    collections: tuple[ProposedCollection, ...]
    project_id: str

    def recipe_text(self) -> str:
        lines = [
            "# kapi project recipe: which content kapi governs and where translations live.",
            "# Reference: kapi help project",
            "version: v1",
            f"id: {self.project_id}",
            f"name: {self.root.name}",
            "",
            "defaults:",
            f"  source_language: {self.source_language}",
        ]
        if self.target_languages:
            lines.append("  target_languages: [" + ", ".join(self.target_languages) + "]")
        else:
            lines.append("  target_languages: []")
        lines += ["", "collections:"]
        if not self.collections:
            lines.append("  []  # add collections: - name: docs / path: 'docs/**/*.md'")
        for collection in self.collections:
            lines.append(f"  - name: {collection.name}  # {collection.files} file(s) found")
            lines.append("    content:")
            lines.append(f"      - path: '{collection.path}'")
            if collection.target:
                lines.append(f"        target: '{collection.target}'")
            if collection.source_only:
                lines.append("    source_only: true")
        return "\n".join(lines) + "\n"


def _files(root: Path) -> Iterator[str]:
    for current, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
        for name in sorted(files):
            if not name.startswith((".", "~$", "._")):
                yield (Path(current) / name).relative_to(root).as_posix()


def _locale_of(segment: str) -> str | None:
    match = _LANGUAGE_SEGMENT.match(segment)
    if not match:
        return None
    tag = match.group(1).replace("-r", "-").replace("_r", "-")
    try:
        return canonical_locale(tag)
    except EditionKeyError:
        return None


def plan_init(root: Path, *, source_language: str = "en") -> InitPlan:
    """Propose collections from the files below ``root``."""
    from kapi.formats import registry

    source = canonical_locale(source_language)
    catalogues: dict[str, dict[str, str]] = defaultdict(dict)  # template -> lang -> path
    prose: dict[str, int] = defaultdict(int)
    for relpath in _files(root):
        try:
            spec = registry.detect(relpath)
        except registry.UnknownFormat:
            continue
        if spec.name in _PROSE:
            top = relpath.split("/")[0] if "/" in relpath else ""
            ext = PurePosixPath(relpath).suffix
            pattern = f"{top}/**/*{ext}" if top else f"*{ext}"
            prose[pattern] += 1
            continue
        parts = list(PurePosixPath(relpath).parts)
        stem = PurePosixPath(parts[-1]).stem
        # the language is the file's stem (en.json) or a folder (values-fr/, locales/fr/)
        candidates = [(len(parts) - 1, stem)] + [(i, p) for i, p in enumerate(parts[:-1])]
        for index, segment in candidates:
            lang = _locale_of(segment)
            if lang is None:
                continue
            template_parts = list(parts)
            if index == len(parts) - 1:
                template_parts[-1] = "{lang}" + PurePosixPath(parts[-1]).suffix
            else:
                template_parts[index] = segment.replace(segment.removeprefix("values-"), "{lang}")
            catalogues["/".join(template_parts)][lang] = relpath
            break
    collections: list[ProposedCollection] = []
    targets: set[str] = set()
    for template, by_lang in sorted(catalogues.items()):
        if source not in by_lang:
            continue
        others = sorted(lang for lang in by_lang if lang != source)
        targets.update(others)
        name = "ui" if not collections else f"ui-{len(collections) + 1}"
        collections.append(
            ProposedCollection(name=name, path=by_lang[source], target=template, files=len(by_lang))
        )
    for pattern, count in sorted(prose.items()):
        name = pattern.split("/")[0] if "/" in pattern else "docs"
        name = re.sub(r"[^a-z0-9-]", "-", name.lower()).strip("-") or "docs"
        if any(c.name == name for c in collections):
            name = f"{name}-{PurePosixPath(pattern).suffix.lstrip('.')}"
        collections.append(
            ProposedCollection(name=name, path=pattern, source_only=True, files=count)
        )
    return InitPlan(
        root=root,
        source_language=source,
        target_languages=tuple(sorted(targets)),
        collections=tuple(collections),
        project_id=mint_project_id(),
    )


def write_init(
    plan: InitPlan, *, force: bool = False, actor_kind: ActorKind = ActorKind.PERSON
) -> list[Path]:
    """Write ``kapi.yaml`` and ``.kapi/.gitignore``; refuses to overwrite a recipe unless forced.

    The recipe and ``.kapi/`` govern the project: a sender the change policy
    does not let change them (an agent) may start a project, never replace one.
    """
    from kapi.core.change.policy import ChangePolicy

    recipe = plan.root / RECIPE_NAME
    state = plan.root / STATE_DIR
    ignore = state / ".gitignore"
    if recipe.exists() and not force:
        raise HostError(
            f"{recipe} exists already; edit it, or run with --force to replace it",
            exit_code=EXIT_USAGE,
        )
    replaced: list[tuple[str, str]] = []
    if recipe.exists():
        replaced.append((RECIPE_NAME, "the project recipe"))
    if ignore.is_file() and ignore.read_bytes() != _IGNORE:
        replaced.append((f"{STATE_DIR}/{ignore.name}", "kapi's project state"))
    for name, what in replaced:
        refusal = ChangePolicy().governed_refusal(name, what, actor_kind)
        if refusal is not None:
            raise HostError(refusal.message, exit_code=refusal.exit_code, code=refusal.code.value)
    recipe.write_text(plan.recipe_text(), encoding="utf-8")
    state.mkdir(exist_ok=True)
    ignore.write_bytes(_IGNORE)
    return [recipe, ignore]


_IGNORE = b"*\n"  # the local state stays out of version control


@frozen
class InitRequest:
    """``kapi init``: the folder, the language content is written in, and whether to replace."""

    folder: Path
    source_language: str = "en"
    force: bool = False


@frozen
class CollectionSummary:
    name: str
    path: str
    target: str
    files: int


@frozen
class InitSummary:
    """What ``kapi init --json`` prints: the recipe written and the collections it proposes."""

    recipe: str
    id: str
    source_language: str
    target_languages: tuple[str, ...]
    collections: tuple[CollectionSummary, ...]


@frozen
class InitResult:
    """What ``kapi init`` wrote: the recipe's path and text, and what it proposes."""

    recipe: Path
    ignore: Path
    plan: InitPlan

    @property
    def summary(self) -> InitSummary:
        plan = self.plan
        return InitSummary(
            recipe=str(self.recipe),
            id=plan.project_id,
            source_language=plan.source_language,
            target_languages=plan.target_languages,
            collections=tuple(
                CollectionSummary(name=c.name, path=c.path, target=c.target, files=c.files)
                for c in plan.collections
            ),
        )


def run_init(request: InitRequest, *, actor_kind: ActorKind = ActorKind.PERSON) -> InitResult:
    """Propose a recipe for the folder and write it (refusals are HostErrors)."""
    plan = plan_init(request.folder.resolve(), source_language=request.source_language)
    recipe, ignore = write_init(plan, force=request.force, actor_kind=actor_kind)
    return InitResult(recipe=recipe, ignore=ignore, plan=plan)
