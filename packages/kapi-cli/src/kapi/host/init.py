"""``kapi init``: a recipe proposed from what is in the tree, and the local state folder.

Catalogues named by language (``locales/en.json`` beside ``locales/fr.json``,
``messages.fr.xlf``, ``res/values-fr/strings.xml``, ``fr.lproj/``) become
collections with target templates, a gettext ``.pot`` the source of its
``.po`` files; prose (Markdown, MDX, HTML) becomes source-only collections,
Markdown declared ``format: myst`` where a Sphinx ``conf.py`` sits beside it or above.
Templates, tests, dependencies, build output and vendored folders are left
out, each with its reason, and excluded where a glob would reach them;
kapi's own rules files (``AGENTS.md``, ``CLAUDE.md``) are never content.
The recipe is written once, with a freshly minted project id; only a person
replaces it (``--force``), as only a person edits it, and the replacement
keeps the id (the store and extracted files carry it).
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any

from attrs import evolve, frozen

from kapi.core.change.ports import ActorKind
from kapi.core.edition import EditionKeyError, canonical_locale
from kapi.host.errors import EXIT_USAGE, HostError
from kapi.host.project import RECIPE_NAME, is_rules_file, mint_project_id
from kapi.host.state import STATE_DIR, STATE_IGNORE

__all__ = [
    "CollectionSummary",
    "InitPlan",
    "InitRequest",
    "InitResult",
    "InitSummary",
    "LeftOut",
    "ProposedCollection",
    "ProposedItem",
    "plan_init",
    "run_init",
    "write_init",
]

_SKIP_DIRS = {
    "node_modules": "installed dependencies",
    "bower_components": "installed dependencies",
    "__pycache__": "a cache",  # holds no content: left out without a word
    "venv": "a virtual environment",
    "env": "a virtual environment",
    "build": "build output",
    "dist": "build output",
    "_build": "build output",
    "site": "build output",
    "target": "build output",
    "out": "build output",
    "vendor": "vendored code",
    "vendors": "vendored code",
    "third_party": "vendored code",
    "third-party": "vendored code",
    "external": "vendored code",
    "tests": "tests and their fixtures",
    "test": "tests and their fixtures",
    "spec": "tests and their fixtures",
    "fixtures": "tests and their fixtures",
    "__tests__": "tests and their fixtures",
    "testdata": "tests and their fixtures",
}
_QUIET = "a cache"
_HIDDEN_BUILD = {".next": "build output", ".nuxt": "build output", ".venv": "a virtual environment"}
_PROSE = {"markdown", "mdx", "html"}
_DOC_FOLDERS = {"docs", "doc", "content", "guide", "guides", "manual"}
_TEMPLATE_SUFFIXES = {
    ".j2": "a Jinja template",
    ".jinja": "a Jinja template",
    ".jinja2": "a Jinja template",
    ".liquid": "a Liquid template",
    ".hbs": "a Handlebars template",
    ".handlebars": "a Handlebars template",
    ".mustache": "a Mustache template",
    ".tmpl": "a Go template",
    ".gotmpl": "a Go template",
    ".njk": "a Nunjucks template",
    ".ejs": "an EJS template",
    ".erb": "an ERB template",
}
_TEMPLATE_MARKS = ("{%", "{{")
# a language: en, fr-CA, zh-Hans, pt_BR; Android writes values-fr-rCA, Apple fr.lproj
_TAG = r"[a-z]{2,3}(?:[-_][A-Za-z]{4})?(?:[-_](?:[A-Z]{2}|[0-9]{3}))?"
_ANDROID = re.compile(r"^values-([a-z]{2,3})(?:-r([A-Z]{2}))?$")
_FOLDER = re.compile(rf"^({_TAG})(\.lproj)?$")
_STEM = re.compile(rf"^(?:(.+?)([._-]))?({_TAG})$")


@frozen
class ProposedItem:
    """One content entry of a proposed collection: a path or glob, its target template, and
    how the template spells a language (``posix``: ``pt_BR``)."""

    path: str
    target: str = ""
    locale_format: str = "bcp-47"


@frozen
class ProposedCollection:
    name: str
    path: str
    target: str = ""
    source_only: bool = False
    files: int = 0
    format: str = ""
    items: tuple[ProposedItem, ...] = ()
    locale_format: str = "bcp-47"

    @property
    def content(self) -> tuple[ProposedItem, ...]:
        return self.items or (
            ProposedItem(path=self.path, target=self.target, locale_format=self.locale_format),
        )


@frozen
class LeftOut:
    """A file or folder ``kapi init`` did not take in as content, and why."""

    path: str
    reason: str


@frozen
class InitPlan:
    root: Path
    source_language: str
    target_languages: tuple[str, ...]
    collections: tuple[ProposedCollection, ...]
    project_id: str
    left_out: tuple[LeftOut, ...] = ()
    exclude: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    id_kept: bool = False  # the id is that of the recipe --force replaced

    def recipe_text(self) -> str:
        lines = [
            "# kapi project recipe: which content kapi governs and where translations live.",
            "# kapi --help lists the commands; kapi check checks the content this recipe claims.",
            "version: v1",
            f"id: {self.project_id}",
            f"name: {_quoted(self.root.resolve().name)}",
            "",
            "defaults:",
            f"  source_language: {self.source_language}",
        ]
        if self.target_languages:
            lines.append("  target_languages: [" + ", ".join(self.target_languages) + "]")
        else:
            lines.append("  target_languages: []")
        if self.exclude:
            lines.append("  exclude:")
            lines += [f"    - {_quoted(pattern)}" for pattern in self.exclude]
        lines += ["", "collections:"]
        if not self.collections:
            lines.append("  []  # add collections: - name: docs / path: 'docs/**/*.md'")
        for collection in self.collections:
            lines.append(f"  - name: {collection.name}  # {collection.files} file(s) found")
            lines.append("    content:")
            for item in collection.content:
                lines.append(f"      - path: {_quoted(item.path)}")
                if collection.format == "myst":  # the one format a file's name does not tell
                    lines.append("        format: myst")
                if item.target:
                    lines.append(f"        target: {_quoted(item.target)}")
                if item.target and item.locale_format == "posix":
                    lines.append("        locale_format: posix  # {lang} is written pt_BR")
            if collection.source_only:
                lines.append("    source_only: true")
        return "\n".join(lines) + "\n"


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


@frozen
class _Catalogue:
    relpath: str
    lang: str  # canonical tag
    written: str  # the language as the path writes it
    template: str  # the path with the language replaced by {lang}
    family: str  # catalogues sharing a language folder form one collection
    bare: str = ""  # messages.xlf for messages.fr.xlf: a source named without a language
    format: str = ""


def _walk_tree(root: Path, left_out: list[LeftOut]) -> Iterator[str]:
    for current, dirs, files in os.walk(root):
        here = Path(current).relative_to(root).as_posix()
        kept = []
        for name in sorted(dirs):
            reason = _HIDDEN_BUILD.get(name) or _SKIP_DIRS.get(name.casefold())
            if reason is None and name.startswith("."):
                continue
            if reason is None and (Path(current) / name / "pyvenv.cfg").is_file():
                reason = "a virtual environment"
            if reason == _QUIET:
                continue
            if reason is not None:
                left_out.append(LeftOut(path=_join(here, name) + "/", reason=reason))
                continue
            kept.append(name)
        dirs[:] = kept
        for name in sorted(files):
            if not name.startswith((".", "~$", "._")):
                yield _join(here, name)


def _join(folder: str, name: str) -> str:
    return name if folder in ("", ".") else f"{folder}/{name}"


def _canonical(written: str) -> str | None:
    language = re.split(r"[-_]", written)[0]
    if len(language) == 3 and language not in _THREE_LETTER:
        return None  # src, lib, app: folder names far more often than languages
    try:
        return canonical_locale(written)
    except EditionKeyError:
        return None


_THREE_LETTER = {
    "ast", "ceb", "chr", "ckb", "fil", "fur", "gsw", "haw", "kab", "kok", "mai", "nds", "sah",
    "yue",
}  # fmt: skip


def _catalogue(relpath: str, source: str, fmt: str) -> _Catalogue | None:
    """Where ``relpath`` names its language: in the file name or in a folder."""
    parts = relpath.split("/")
    name = parts[-1]
    suffix = PurePosixPath(name).suffix
    stem = name[: -len(suffix)] if suffix else name
    match = _STEM.match(stem)
    if match:
        named = _canonical(match.group(3))
        if named is not None:
            prefix = (match.group(1) or "") + (match.group(2) or "")
            template = "/".join([*parts[:-1], prefix + "{lang}" + suffix])
            bare = "/".join([*parts[:-1], match.group(1) + suffix]) if match.group(1) else ""
            return _Catalogue(relpath, named, match.group(3), template, template, bare, fmt)
    for index in range(len(parts) - 2, -1, -1):
        segment = parts[index]
        written: str | None = None
        lang: str | None = None
        replaced = ""
        if fmt == "androidxml" and segment == "values":
            written, lang, replaced = source, source, "values-{lang}"
        elif fmt == "androidxml" and (android := _ANDROID.match(segment)):
            written = android.group(1) + ("-r" + android.group(2) if android.group(2) else "")
            lang = _canonical(
                android.group(1) + ("-" + android.group(2) if android.group(2) else "")
            )
            # {lang} fills in fr-CA, never Android's fr-rCA: such a folder is not named by it
            replaced = "values-{lang}"
        elif folder := _FOLDER.match(segment):
            written = folder.group(1)
            lang = _canonical(written)
            replaced = "{lang}" + (folder.group(2) or "")
        if lang is None or written is None:
            continue
        template_parts = list(parts)
        template_parts[index] = replaced
        return _Catalogue(
            relpath,
            lang,
            written,
            "/".join(template_parts),
            "/".join(template_parts[: index + 1]),
            "",
            fmt,
        )
    return None


def _is_template(root: Path, relpath: str) -> bool:
    try:
        with open(root / relpath, encoding="utf-8", errors="replace") as handle:
            head = handle.read(65536)
    except OSError:
        return False
    return any(mark in head for mark in _TEMPLATE_MARKS)


def plan_init(
    root: Path, *, source_language: str = "en", project_id: str | None = None
) -> InitPlan:
    """Propose collections from the files below ``root``, and say what was left out and why.

    ``project_id`` is the id of a recipe being replaced, kept; None mints a new one.
    """
    from kapi.core.governance.glob import glob_match, literal_prefix
    from kapi.formats import registry

    source = canonical_locale(source_language)
    left_out: list[LeftOut] = []
    notes: list[str] = []
    # kapi's own rules files (AGENTS.md, CLAUDE.md, in any folder) govern, never content
    files = [f for f in _walk_tree(root, left_out) if not is_rules_file(f)]
    present = set(files)
    catalogues: dict[str, list[_Catalogue]] = defaultdict(list)  # template -> catalogues
    pots: list[str] = []
    prose: dict[str, list[str]] = defaultdict(list)
    for relpath in files:
        suffix = PurePosixPath(relpath).suffix.lower()
        if suffix in _TEMPLATE_SUFFIXES:
            left_out.append(LeftOut(relpath, _TEMPLATE_SUFFIXES[suffix]))
            continue
        try:
            spec = registry.detect(relpath)
        except registry.UnknownFormat:
            continue
        if suffix == ".pot":
            pots.append(relpath)
            continue
        top = relpath.split("/")[0] if "/" in relpath else ""
        if spec.name in _PROSE or (spec.name == "plaintext" and top.casefold() in _DOC_FOLDERS):
            if spec.name == "html" and _is_template(root, relpath):
                left_out.append(LeftOut(relpath, "a template ({% or {{ in HTML)"))
                continue
            prose[f"{top}/**/*{suffix}" if top else f"*{suffix}"].append(relpath)
            continue
        found = _catalogue(relpath, source, spec.name)
        if found is not None:
            catalogues[found.template].append(found)

    families: dict[str, list[tuple[str, str, list[_Catalogue], str]]] = defaultdict(list)
    used_pots: set[str] = set()
    sources: set[str] = set()
    orphans: list[LeftOut] = []
    targets: set[str] = set()
    for template, group in sorted(catalogues.items()):
        by_lang = {c.lang: c for c in group}
        first = group[0]
        source_path = ""
        if first.format == "po":
            domain = PurePosixPath(template).stem
            folder = template.rsplit("/", 1)[0] if "/" in template else ""
            named = [p for p in pots if PurePosixPath(p).stem == domain]
            beside = [p for p in pots if (p.rsplit("/", 1)[0] if "/" in p else "") == folder]
            found_pots = named or (beside if domain == "{lang}" else [])
            if found_pots:
                source_path = found_pots[0]
                used_pots.add(source_path)
        if not source_path and source in by_lang:
            source_path = by_lang[source].relpath
        if not source_path and first.bare and first.bare in present:
            source_path = first.bare
        translations = [c for c in group if c.lang != source and c.relpath != source_path]
        if not source_path:
            if first.format == "po":  # a .po file is a translation, even alone
                missing = f"no .pot template and no {template.replace('{lang}', source)}"
                orphans += [
                    LeftOut(
                        c.relpath,
                        f"a translation with no source: {missing}; add one and run "
                        "`kapi init --force`, or declare the collection in kapi.yaml",
                    )
                    for c in translations
                ]
            elif len(by_lang) > 1:  # one file named like a language is seldom a translation
                orphans += [
                    LeftOut(c.relpath, f"a translation with no source: a {source} file")
                    for c in translations
                ]
            continue
        sources.add(source_path)
        if (
            first.format == "androidxml"
            and not translations
            and not template.endswith("/strings.xml")
        ):
            continue  # colours and dimensions, not text to translate
        spelling, kept, odd = _spelled(translations)
        left_out += [_misspelled(c, spelling) for c in odd]
        targets.update(c.lang for c in kept)
        families[first.family].append((source_path, template, group, spelling))
    left_out += [out for out in orphans if out.path not in sources]
    for pot in pots:
        if pot not in used_pots:
            stem = PurePosixPath(pot).stem
            families[pot].append((pot, "", [], "bcp-47"))
            notes.append(
                f"{pot}: no translations found; add a target template such as "
                f"locale/{{lang}}/LC_MESSAGES/{stem}.po"
            )

    collections: list[ProposedCollection] = []
    for _, entries in sorted(families.items()):
        name = "ui" if not collections else f"ui-{len(collections) + 1}"
        items = tuple(
            ProposedItem(path=path, target=target, locale_format=spelling)
            for path, target, _, spelling in entries
        )
        count = sum(1 + len([c for c in g if c.relpath != path]) for path, _, g, _ in entries)
        formats = {c.format for _, _, g, _ in entries for c in g} or {"po"}
        collections.append(
            ProposedCollection(
                name=name,
                path=items[0].path,
                target=items[0].target,
                files=count,
                format=sorted(formats)[0],
                items=items,
            )
        )
    for pattern, documents in sorted(prose.items()):
        name = pattern.split("/")[0] if "/" in pattern else "docs"
        name = re.sub(r"[^a-z0-9-]", "-", name.lower()).strip("-") or "docs"
        if any(c.name == name for c in collections):
            name = f"{name}-{PurePosixPath(pattern).suffix.lstrip('.')}"
        path, target, spelling = _translated_docs(
            pattern, documents, source, present, targets, left_out
        )
        collections.append(
            ProposedCollection(
                name=name,
                path=path,
                target=target,
                source_only=not target,
                files=len(documents),
                format=_docs_format(pattern, documents, present),
                locale_format=spelling,
            )
        )

    # what a glob would still reach below a left-out folder, or a left-out file it matches
    exclude: list[str] = []
    globs = [item.path for c in collections for item in c.content]
    for out in left_out:
        if out.path.endswith("/"):
            folder = out.path.rstrip("/")
            reaching = [
                g
                for g in globs
                if "**" in g
                and (not literal_prefix(g) or (folder + "/").startswith(literal_prefix(g) + "/"))
            ]
            if reaching and _reaches(root, folder, reaching):
                exclude.append(folder + "/**")
        elif any(glob_match(g, out.path) for g in globs):
            exclude.append(out.path)
    return InitPlan(
        root=root,
        source_language=source,
        target_languages=tuple(sorted(targets)),
        collections=tuple(collections),
        project_id=project_id or mint_project_id(),
        left_out=tuple(left_out),
        exclude=tuple(exclude),
        notes=tuple(notes),
    )


def _docs_format(pattern: str, documents: list[str], present: set[str]) -> str:
    """``myst`` for the Markdown of a Sphinx project (a ``conf.py`` beside a page or in a
    folder above it), ``markdown`` for other Markdown, ``mdx`` for MDX."""
    if pattern.endswith(".mdx"):
        return "mdx"
    if not pattern.endswith(".md"):
        return ""
    for document in documents:
        parts = PurePosixPath(document).parts[:-1]
        if any("/".join((*parts[:depth], "conf.py")) in present for depth in range(len(parts) + 1)):
            return "myst"
    return "markdown"


def _reaches(root: Path, folder: str, globs: list[str], *, limit: int = 20000) -> bool:
    """Whether a glob matches some file below ``folder`` (a folder too big to look through does)."""
    from kapi.core.governance.glob import glob_match

    seen = 0
    for current, dirs, files in os.walk(root / folder):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        here = Path(current).relative_to(root).as_posix()
        for name in files:
            seen += 1
            if seen > limit or any(glob_match(g, f"{here}/{name}") for g in globs):
                return True
    return False


def _translated_docs(
    pattern: str,
    documents: list[str],
    source: str,
    present: set[str],
    targets: set[str],
    left_out: list[LeftOut],
) -> tuple[str, str, str]:
    """A docs glob, its target template and its ``locale_format``, when its documents have
    translations beside them.

    ``docs/fr/guide.md`` translates ``docs/guide.md`` or ``docs/en/guide.md``;
    ``docs/guide.fr.md`` translates ``docs/guide.md``. A language counts only
    when the document it translates is there too.
    """
    top = pattern.split("/")[0] if "/" in pattern else ""
    if not top:
        return pattern, "", "bcp-47"
    suffix = PurePosixPath(pattern).suffix
    folders: list[_Catalogue] = []
    beside: list[_Catalogue] = []
    under_source = False
    for relpath in documents:
        found = _catalogue(relpath, source, "")
        if found is None or found.lang == source:
            continue
        if found.family == f"{top}/{{lang}}":
            if found.template.replace("{lang}", source) in present:
                under_source = True
            elif found.template.replace("/{lang}", "", 1) not in present:
                continue
            kind = folders
        elif found.template == found.bare.removesuffix(suffix) + ".{lang}" + suffix:
            if found.bare not in present:
                continue
            kind = beside
        else:
            continue
        kind.append(found)
    for kind in (folders, beside):
        spelling, kept, odd = _spelled(kind)
        left_out += [_misspelled(found, spelling) for found in odd]
        if not kept:
            continue
        targets.update(found.lang for found in kept)
        if kind is folders:
            path = f"{top}/{source}/**/*{suffix}" if under_source else pattern
            return path, f"{top}/{{lang}}/{{relpath}}", spelling
        return pattern, f"{top}/{{path}}.{{lang}}{suffix}", spelling
    return pattern, "", "bcp-47"


def _spelled(found: list[_Catalogue]) -> tuple[str, list[_Catalogue], list[_Catalogue]]:
    """How a group of translations spells its languages, and those it names that way and not.

    ``posix`` (``pt_BR``, as gettext folders write it) when more of them are
    written so than as BCP-47 (``pt-BR``); a language with no region or script
    is the same either way.
    """
    posix = sum(1 for c in found if "_" in c.written and c.written == c.lang.replace("-", "_"))
    tagged = sum(1 for c in found if "-" in c.written and c.written == c.lang)
    spelling = "posix" if posix > tagged else "bcp-47"
    kept: list[_Catalogue] = []
    odd: list[_Catalogue] = []
    for c in found:
        spelled = c.lang.replace("-", "_") if spelling == "posix" else c.lang
        (kept if c.written == spelled else odd).append(c)
    return spelling, kept, odd


def _misspelled(found: _Catalogue, spelling: str) -> LeftOut:
    written = found.lang.replace("-", "_") if spelling == "posix" else found.lang
    return LeftOut(
        found.relpath,
        f"{found.written} is not how its neighbours spell {found.lang} ({written}), so "
        "{lang} cannot name it; rename the folder or file, or declare its path by hand",
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
    if ignore.is_file() and ignore.read_bytes() != STATE_IGNORE:
        replaced.append((f"{STATE_DIR}/{ignore.name}", "kapi's project state"))
    for name, what in replaced:
        refusal = ChangePolicy().governed_refusal(name, what, actor_kind)
        if refusal is not None:
            raise HostError(refusal.message, exit_code=refusal.exit_code, code=refusal.code.value)
    recipe.write_text(plan.recipe_text(), encoding="utf-8")
    state.mkdir(exist_ok=True)
    ignore.write_bytes(STATE_IGNORE)
    return [recipe, ignore]


@frozen
class InitRequest:
    """``kapi init``: the folder, the language content is written in, and whether to replace."""

    folder: Path
    source_language: str = "en"
    force: bool = False
    rules_files: bool = True  # write kapi's section of AGENTS.md and CLAUDE.md
    agents: str | None = None  # --agents: a list of hosts, all or none; None detects them


@frozen
class CollectionSummary:
    name: str
    path: str
    target: str
    files: int
    source_only: bool = False
    format: str = ""
    content: tuple[ProposedItem, ...] = ()


@frozen
class InitSummary:
    """What ``kapi init --json`` prints: the recipe written and the collections it proposes."""

    recipe: str
    id: str
    source_language: str
    target_languages: tuple[str, ...]
    collections: tuple[CollectionSummary, ...]
    exclude: tuple[str, ...] = ()
    left_out: tuple[LeftOut, ...] = ()
    notes: tuple[str, ...] = ()
    recipe_written: bool = True  # False: a recipe was there, and kapi init left it as it was
    agents: Any = None  # the AgentWiring: each host file and skill folder, and what was done
    id_kept: bool = False  # True: --force kept the id of the recipe it replaced


@frozen
class InitResult:
    """What ``kapi init`` wrote: the recipe's path and text, and what it proposes."""

    recipe: Path
    ignore: Path
    plan: InitPlan | None  # None when the recipe was there already and kept
    rules_files: tuple[Any, ...] = ()  # each a RulesFileChange
    agents: Any = None  # the AgentWiring
    kept: Any = None  # the loaded Project, when its recipe was kept

    @property
    def recipe_written(self) -> bool:
        return self.plan is not None

    @property
    def summary(self) -> InitSummary:
        plan = self.plan
        if plan is None:
            project = self.kept
            return InitSummary(
                recipe=str(self.recipe),
                id=project.id if project is not None else "",
                source_language=project.source_language if project is not None else "",
                target_languages=project.target_languages if project is not None else (),
                collections=(),
                recipe_written=False,
                agents=self.agents,
            )
        return InitSummary(
            recipe=str(self.recipe),
            id=plan.project_id,
            source_language=plan.source_language,
            target_languages=plan.target_languages,
            collections=tuple(
                CollectionSummary(
                    name=c.name,
                    path=c.path,
                    target=c.target,
                    files=c.files,
                    source_only=c.source_only,
                    format=c.format,
                    content=c.content,
                )
                for c in plan.collections
            ),
            exclude=plan.exclude,
            left_out=plan.left_out,
            notes=plan.notes,
            id_kept=plan.id_kept,
            agents=self.agents,
        )


_ID = re.compile(r"prj_[A-Za-z0-9]+")
_ID_LINE = re.compile(r"""^id:[ \t]*(["']?)(prj_[A-Za-z0-9]+)\1[ \t]*(?:#.*)?$""", re.MULTILINE)


def _held_id(recipe: Path) -> str | None:
    """The ``id:`` of the recipe ``--force`` replaces, as written (None when it has none).

    Read from the recipe's YAML, or, when that does not parse, from its ``id:`` line.
    """
    from kapi.host.yaml import YamlSyntaxError, load_plain

    try:
        text = recipe.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    try:
        data = load_plain(text)
    except YamlSyntaxError:
        line = _ID_LINE.search(text)
        return line.group(2) if line else None
    if not isinstance(data, dict) or data.get("id") is None:
        return None
    held = data["id"]
    return held if isinstance(held, str) else repr(held)


def _valid_id(held: str) -> bool:
    return _ID.fullmatch(held) is not None


def _id_note(held: str | None, project_id: str) -> str:
    if held == project_id:
        return (
            f"kept the project id {project_id} from the {RECIPE_NAME} replaced "
            "(the store and extracted files carry it)"
        )
    if held is None or not held.strip():
        return f"the {RECIPE_NAME} replaced had no project id; minted {project_id}"
    return (
        f"the {RECIPE_NAME} replaced had id {held!r}, not a kapi project id (prj_ then "
        f"letters and digits); minted {project_id}"
    )


def run_init(request: InitRequest, *, actor_kind: ActorKind = ActorKind.PERSON) -> InitResult:
    """Propose a recipe for the folder and write it, then wire the agent hosts and write the
    rules files; where a recipe exists (and no ``force``), keep it and do only the rest.

    Every refusal (a HostError) comes before anything is written.
    """
    from kapi.host.agents import detect_hosts, parse_agents, plan_wiring

    root = request.folder.resolve()
    hosts, _ = parse_agents(request.agents)
    recipe_path = root / RECIPE_NAME
    kept = None
    plan: InitPlan | None = None
    if recipe_path.exists() and not request.force:
        from kapi.host.project import load_project

        kept = load_project(recipe_path)
        translation = bool(kept.target_languages)
    else:
        held = _held_id(recipe_path) if recipe_path.exists() else None
        plan = plan_init(
            root,
            source_language=request.source_language,
            project_id=held if held is not None and _valid_id(held) else None,
        )
        if recipe_path.exists():
            plan = evolve(
                plan,
                notes=(_id_note(held, plan.project_id), *plan.notes),
                id_kept=plan.project_id == held,
            )
        translation = bool(plan.target_languages)
    if request.rules_files:
        from kapi.host.context_rules import check_rules_files

        check_rules_files(root)  # a broken section is refused before anything is written
    wiring, writes = plan_wiring(
        root,
        detect_hosts(root) if hosts is None else hosts,
        recipe=RECIPE_NAME,
        translation=translation,
    )
    if plan is not None:
        recipe, ignore = write_init(plan, force=request.force, actor_kind=actor_kind)
    else:
        from kapi.host.state import write_state_ignore

        recipe, ignore = recipe_path, root / STATE_DIR / ".gitignore"
        ignore.parent.mkdir(exist_ok=True)
        write_state_ignore(ignore.parent)  # an ignore file already there is kept
    from kapi.host.agents import apply_wiring

    apply_wiring(writes)
    rules: tuple[Any, ...] = ()
    if request.rules_files:
        from kapi.host.context_rules import write_rules_files
        from kapi.host.workspace import open_workspace

        with open_workspace(project=str(recipe), cwd=root) as workspace:
            rules = write_rules_files(workspace).files
    return InitResult(
        recipe=recipe, ignore=ignore, plan=plan, rules_files=rules, agents=wiring, kept=kept
    )
