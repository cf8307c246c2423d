"""Projects: the ``kapi.yaml`` recipe, where it is found, and which files it claims.

A recipe names the source and target languages and the content: collections
of items, each a glob with an optional target template that says where a
file's translations live (``locales/{lang}.json``). A file belongs to the
first item, in recipe order, whose glob matches it. Unknown keys are kept
verbatim; a near miss of a known key is warned as a likely typo. The files
that govern the project (the recipe, its voices and terms, ``.kapi/``) are
never its content.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from attrs import field, frozen

from kapi.core.edition import EditionKeyError, canonical_locale
from kapi.core.governance.glob import GlobError, glob_match, literal_prefix
from kapi.host.errors import EXIT_ERROR, EXIT_USAGE, HostError
from kapi.host.state import STATE_DIR
from kapi.host.yaml import YamlSyntaxError, key_path, line_of, line_of_path, load_yaml

__all__ = [
    "RECIPE_NAME",
    "Collection",
    "ContentItem",
    "Project",
    "RecipeError",
    "RedactionRule",
    "discover_project",
    "is_rules_file",
    "line_of_key",
    "load_project",
    "mint_project_id",
]

RECIPE_NAME = "kapi.yaml"
VOICES_DIR = "voices"
TERMS_NAME = "terms.json"  # the terms bundle beside the recipe when defaults.terms_source is unset
_VOICE_SUFFIXES = (".yaml", ".yml")
_CASELESS = sys.platform in ("darwin", "win32")  # file names there match whatever their case
_RULES_FILES = ("agents.md", "claude.md") if _CASELESS else ("AGENTS.md", "CLAUDE.md")

_TOP_KEYS = (
    "version",
    "id",
    "name",
    "defaults",
    "profiles",
    "collections",
    "formats",
    "tools",
    "locales",
    "flows",
    "plugins",
    "requires",
    "ship_gate",
    "ship_gates",
    "gates",
    "verified_gate",
    "verified_gates",
    "source_gate",
)
_DEFAULT_KEYS = (
    "source_language",
    "target_languages",
    "voice",
    "terms_source",
    "memory_source",
    "coordinates",
    "flow",
    "materialize",
    "source_gate",
    "exclude",
    "merge",
    "memory",
    "comments",
    "translate_after",
    "locale_format",
    "redaction",
)
_COLLECTION_KEYS = (
    "name",
    "path",
    "format",
    "target",
    "content",
    "base",
    "channel",
    "coordinates",
    "source_only",
    "source_language",
    "target_languages",
    "comments",
    "locale_format",
)
_ITEM_KEYS = (
    "path",
    "format",
    "target",
    "base",
    "channel",
    "redaction",
    "comments",
    "locale_format",
)
# How ``{lang}`` is spelled in a target path: the BCP-47 tag (``pt-BR``), or POSIX
# (``pt_BR``, as gettext folders and Java resource bundles name languages).
LOCALE_FORMATS = ("bcp-47", "posix")


class RecipeError(HostError):
    """A recipe that does not load: names the file, the line and the key."""

    def __init__(self, message: str, *, path: Path, line: int | None = None, key: str = "") -> None:
        where = f"{path}" + (f":{line}" if line else "")
        subject = f" {key}:" if key else ""
        super().__init__(f"{where}:{subject} {message}", exit_code=EXIT_USAGE, code="usage")
        self.path = path
        self.line = line
        self.key = key


@frozen
class ContentItem:
    """One content entry: a glob, its format, and where its translations go."""

    path: str
    target: str = ""
    format: str = ""
    base: str = ""
    channel: str = ""
    comments: bool = False
    comments_channel: str = ""
    comments_formatter: str = ""
    locale_format: str = "bcp-47"

    @property
    def effective_base(self) -> str:
        return self.base if self.base else literal_prefix(self.path)


@frozen
class RedactionRule:
    """One of the recipe's redaction rules (``defaults.redaction.rules``): a regular expression
    (a literal ``term`` is one, escaped) whose matches become placeholders of ``category``."""

    category: str
    pattern: str
    ignore_case: bool = False


@frozen
class Collection:
    name: str
    items: tuple[ContentItem, ...]
    channel: str = ""
    source_only: bool = False
    source_language: str = ""
    target_languages: tuple[str, ...] = ()
    coordinates: Mapping[str, str] = field(factory=dict)


@frozen
class Project:
    """A loaded recipe and the folder it governs."""

    root: Path
    recipe_path: Path
    id: str
    name: str
    source_language: str
    target_languages: tuple[str, ...]
    collections: tuple[Collection, ...]
    exclude: tuple[str, ...] = ()
    raw: Mapping[str, Any] = field(factory=dict, eq=False, repr=False)
    warnings: tuple[str, ...] = ()
    redaction_rules: tuple[RedactionRule, ...] = ()
    translate_after: str = "written"  # or "established": a source waits for a person's decision

    @property
    def state_dir(self) -> Path:
        return self.root / STATE_DIR

    def governs(self, file: str) -> str:
        """What ``file`` is when it governs the project rather than holds its content, else ``""``.

        The recipe, the voice profiles under ``voices/``, the terms and memory
        bundles the recipe names (``terms.json`` beside it by default), and
        anything under ``.kapi/``. These are a person's to change. ``file`` is a
        slash path relative to the project root, or an absolute path; a symlink
        counts as the file it points at.
        """
        absolute = Path(os.path.normpath(self.root / file))
        lexical = self._relative_or_none(absolute)
        what = self._governs_relpath(lexical) if lexical is not None else ""
        if what:
            return what
        try:
            real = self._relative_or_none(absolute.resolve())
        except (OSError, RuntimeError):
            return ""
        return self._governs_relpath(real) if real is not None and real != lexical else ""

    def _relative_or_none(self, absolute: Path) -> str | None:
        for root in (self.root, self.root.resolve()):
            try:
                return absolute.relative_to(root).as_posix()
            except ValueError:
                continue
        return None

    def _governs_relpath(self, relpath: str) -> str:
        key = relpath.casefold() if _CASELESS else relpath
        name = self.recipe_path.name.casefold() if _CASELESS else self.recipe_path.name
        if key == name:
            return "the project recipe"
        first, _, rest = key.partition("/")
        if first == STATE_DIR:
            return "kapi's project state"
        if is_rules_file(relpath):
            return "a rules file (kapi writes its section from the context)"
        if first == VOICES_DIR and rest and rest.endswith(_VOICE_SUFFIXES):
            return "a voice profile"
        for declared, what in _declared_bundles(self.raw).items():
            if key == (declared.casefold() if _CASELESS else declared):
                return what
        return ""

    def relative(self, path: Path) -> str | None:
        """The project-relative slash path of ``path``, or None when it is outside."""
        absolute = Path(os.path.normpath(path if path.is_absolute() else Path.cwd() / path))
        try:
            return absolute.relative_to(self.root).as_posix()
        except ValueError:
            return None

    def claim(self, relpath: str) -> tuple[Collection, ContentItem] | None:
        """The first item, in recipe order, whose glob matches ``relpath``.

        A file that governs the project (:meth:`governs`) belongs to no item.
        """
        if any(glob_match(pattern, relpath) for pattern in self.exclude):
            return None
        if self._governs_relpath(relpath):
            return None
        for collection in self.collections:
            for item in collection.items:
                if glob_match(item.path, relpath):
                    return collection, item
        return None

    def languages_of(self, collection: Collection) -> tuple[str, tuple[str, ...]]:
        source = collection.source_language or self.source_language
        if collection.source_only:
            return source, ()
        return source, collection.target_languages or self.target_languages

    def translation_paths(self, relpath: str) -> dict[str, str]:
        """Where each target language's translation of a source file lives (language -> path)."""
        claimed = self.claim(relpath)
        if claimed is None:
            return {}
        collection, item = claimed
        if not item.target:
            return {}
        _, targets = self.languages_of(collection)
        return {lang: target_path(item, relpath, lang) for lang in targets}

    def could_be_translation(self, relpath: str) -> bool:
        """Whether some item's target template could name ``relpath`` (no tree walk)."""
        for collection in self.collections:
            for item in collection.items:
                if item.target and glob_match(_template_glob(item.target), relpath):
                    return True
        return False

    def source_of(self, relpath: str) -> tuple[str, str] | None:
        """For a translation's own file: ``(source path, language)``; None for any other file.

        Only a path some target template could name costs a walk of the tree.
        """
        if not self.could_be_translation(relpath):
            return None
        for source in self.source_files():
            for lang, path in self.translation_paths(source).items():
                if path == relpath:
                    return source, lang
        return None

    def translation_sources(self, relpaths: Sequence[str]) -> dict[str, tuple[str, str]]:
        """Of ``relpaths``, the translations' own files: path -> ``(source path, language)``.

        One walk of the tree, and only when some path could be a translation: a target
        template could name it, and it names a target language (``fr``, ``pt-BR``, ``pt_BR``).
        """
        languages = {lang for c in self.collections for lang in self.languages_of(c)[1]}
        spelled = "|".join(
            re.escape(form)
            for lang in sorted(languages, key=len, reverse=True)
            for form in {lang, lang.replace("-", "_")}
        )
        named = re.compile(rf"(?<![A-Za-z])(?:{spelled})(?![A-Za-z])") if spelled else None
        wanted = {
            path
            for path in relpaths
            if named is not None and named.search(path) and self.could_be_translation(path)
        }
        if not wanted:
            return {}
        found: dict[str, tuple[str, str]] = {}
        for source in self.source_files():
            for lang, path in self.translation_paths(source).items():
                if path in wanted and path not in found:
                    found[path] = (source, lang)
        return found

    def source_files(self) -> Iterator[str]:
        """Every file the recipe claims as source content (translations' own files excluded)."""
        seen: set[str] = set()
        targets: set[str] = set()
        claimed: list[str] = []
        for relpath in _walk(self.root):
            found = self.claim(relpath)
            if found is None:
                continue
            claimed.append(relpath)
        for relpath in claimed:
            targets.update(self.translation_paths(relpath).values())
        for relpath in claimed:
            if relpath not in targets and relpath not in seen:
                seen.add(relpath)
                yield relpath


def _declared_bundles(raw: Mapping[str, Any]) -> dict[str, str]:
    """The terms and memory bundles a recipe names, as normalised relative paths."""
    defaults = raw.get("defaults") if isinstance(raw, Mapping) else None
    defaults = defaults if isinstance(defaults, Mapping) else {}
    out = {TERMS_NAME: "the project's terms bundle"}
    for key, what in (
        ("terms_source", "the project's terms bundle"),
        ("memory_source", "the project's memory bundle"),
    ):
        value = defaults.get(key)
        if isinstance(value, str) and value.strip():
            path = os.path.normpath(value.strip()).replace(os.sep, "/")
            if not path.startswith("../") and not os.path.isabs(path):
                out[path] = what
    return out


def _walk(root: Path) -> Iterator[str]:
    """Every file below the root, as slash paths; links that lead outside it are left out."""
    from kapi.formats.containment import is_inside

    real_root = os.path.realpath(root)
    for current, dirs, files in os.walk(root):
        dirs[:] = sorted(
            d for d in dirs if not d.startswith(".") and d not in ("node_modules", "__pycache__")
        )
        for name in sorted(files):
            if name.startswith(".") or name.startswith(("~$", "._")):
                continue
            path = os.path.join(current, name)
            if os.path.islink(path) and not is_inside(real_root, path):
                continue
            yield (Path(current) / name).relative_to(root).as_posix()


def _template_glob(template: str) -> str:
    """A target template as a glob: every token matches anything, a mirrored folder anything below."""
    glob = re.sub(r"\{[a-z]+\}", "*", template.replace("*", "{name}"))
    last = template.rstrip("/").split("/")[-1] if template else ""
    names_file = any(token in last for token in _FILE_TOKENS) or "." in last.replace("{lang}", "")
    if not template or template.endswith("/") or not names_file:
        glob = glob.rstrip("/") + ("/**" if glob else "**")
    return (
        glob.replace("*/", "**/")
        if "{relpath}" in template or "{path}" in template or "{dir}" in template
        else glob
    )


_FILE_TOKENS = ("{relpath}", "{path}", "{filename}", "{name}", "{basename}", "{ext}")


def target_path(item: ContentItem, relpath: str, lang: str) -> str:
    """Fill an item's target template for one source file and language."""
    base = item.effective_base.strip("/")
    inner = relpath[len(base) + 1 :] if base and relpath.startswith(base + "/") else relpath
    pure = PurePosixPath(inner)
    name = pure.name
    stem = name[: -len(pure.suffix)] if pure.suffix else name
    directory = str(pure.parent) if str(pure.parent) != "." else ""
    template = item.target
    if template == "*":
        template = "{name}"
    last = template.rstrip("/").split("/")[-1] if template else ""
    names_file = any(token in last for token in _FILE_TOKENS) or "." in last.replace("{lang}", "")
    if not template or template.endswith("/") or not names_file:
        template = template.rstrip("/") + ("/" if template else "") + "{relpath}"
    values = {
        "lang": lang.replace("-", "_") if item.locale_format == "posix" else lang,
        "relpath": inner,
        "path": str(PurePosixPath(directory) / stem) if directory else stem,
        "dir": directory,
        "filename": name,
        "name": stem,
        "basename": stem,
        "ext": pure.suffix.lstrip("."),
    }
    out = template
    for token, value in values.items():
        out = out.replace("{" + token + "}", value)
    return str(PurePosixPath(out)).lstrip("/") if out else out


def is_rules_file(relpath: str) -> bool:
    """Whether ``relpath`` names a rules file (``AGENTS.md``, ``CLAUDE.md``) in any folder:
    kapi writes its section there from the context, so it is never content."""
    name = relpath.rpartition("/")[2]
    return (name.casefold() if _CASELESS else name) in _RULES_FILES


def mint_project_id() -> str:
    """``prj_`` + lowercase base32 of 128 random bits (minted once, never derived)."""
    import base64
    import secrets

    return "prj_" + base64.b32encode(secrets.token_bytes(16)).decode().rstrip("=").lower()


def discover_project(
    start: Path | None = None,
    *,
    explicit: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> Path | None:
    """The recipe that governs ``start``: ``-p``, else KAPI_NO_PROJECT, KAPI_PROJECT, upward walk."""
    env = os.environ if environ is None else environ
    if explicit:
        return _recipe_at(Path(explicit), explicit=True)
    if env.get("KAPI_NO_PROJECT"):
        return None
    if env.get("KAPI_PROJECT"):
        return _recipe_at(Path(env["KAPI_PROJECT"]), explicit=True)
    current = (start or Path.cwd()).resolve()
    for folder in (current, *current.parents):
        candidate = folder / RECIPE_NAME
        if candidate.is_file():
            return candidate
    return None


def _recipe_at(path: Path, *, explicit: bool) -> Path:
    path = path.resolve()
    if path.is_file():
        return path
    for folder in (path, *path.parents):
        candidate = folder / RECIPE_NAME
        if candidate.is_file():
            return candidate
    raise HostError(f"{path}: no {RECIPE_NAME} here or above", exit_code=EXIT_ERROR)


def _recipe_data(recipe_path: Path, text: str) -> Any:
    """The recipe's YAML: parsed with its lines, or its plain data from the governance cache."""
    from kapi.host.governance_cache import cache_for

    root = recipe_path.parent.resolve()
    return cache_for(root / STATE_DIR, root).parsed(text, load_yaml)


def load_project(recipe_path: Path) -> Project:
    """Parse and validate a recipe; errors name the file, line and key."""
    try:
        text = recipe_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise RecipeError(f"cannot read: {err}", path=recipe_path) from None
    try:
        data = _recipe_data(recipe_path, text)
    except YamlSyntaxError as err:
        raise RecipeError(str(err), path=recipe_path, line=err.line) from None
    try:
        project = _project_of(recipe_path, data)
    except RecipeError as err:
        if err.line is not None:
            raise
    else:
        if not project.warnings or hasattr(data, "lc"):
            return project
    # The data came from the governance cache, which keeps no lines: read the text again
    # so the error, or each warning, names its line.
    return _project_of(recipe_path, load_yaml(text))


def _project_of(recipe_path: Path, data: Any) -> Project:
    if not isinstance(data, Mapping):
        raise RecipeError("a recipe is a mapping of keys", path=recipe_path)
    warnings: list[str] = []
    _typos(data, _TOP_KEYS, "", recipe_path, warnings)
    if data.get("version") != "v1":
        raise RecipeError(
            "version must be v1", path=recipe_path, line=line_of(data, "version"), key="version"
        )
    defaults = data.get("defaults") or {}
    if not isinstance(defaults, Mapping):
        raise RecipeError(
            "defaults must be a mapping",
            path=recipe_path,
            line=line_of(data, "defaults"),
            key="defaults",
        )
    _typos(defaults, _DEFAULT_KEYS, "defaults.", recipe_path, warnings)
    source = _locale(
        defaults.get("source_language") or "en",
        recipe_path,
        line_of(defaults, "source_language"),
        "defaults.source_language",
    )
    targets = tuple(
        _locale(t, recipe_path, line_of(defaults, "target_languages"), "defaults.target_languages")
        for t in _list(defaults.get("target_languages"), recipe_path, defaults, "target_languages")
    )
    spelling = _locale_format(defaults, "bcp-47", recipe_path, "defaults")
    collections = tuple(
        _collection(c, i, recipe_path, warnings, spelling)
        for i, c in enumerate(_list(data.get("collections"), recipe_path, data, "collections"))
    )
    exclude = tuple(
        str(p) for p in _list(defaults.get("exclude"), recipe_path, defaults, "exclude")
    )
    _check_gates(data, recipe_path)
    _check_profiles(data, recipe_path)
    _coordinates(defaults, recipe_path, "defaults")
    translate_after = defaults.get("translate_after", "written")
    if translate_after not in ("written", "established"):
        raise RecipeError(
            f"translate_after is written or established (got {translate_after!r})",
            path=recipe_path,
            line=line_of(defaults, "translate_after"),
            key="defaults.translate_after",
        )
    project_id = str(data.get("id") or "")
    if project_id and not project_id.startswith("prj_"):
        warnings.append(
            f"{recipe_path.name}: id {project_id!r} does not look minted by kapi (prj_…)"
        )
    if source in targets:
        warnings.append(
            f"{recipe_path.name}: defaults.target_languages names the source language "
            f"{source}: its text is the source, never a translation of it"
        )
    root = recipe_path.parent.resolve()
    return Project(
        root=root,
        recipe_path=recipe_path.resolve(),
        id=project_id,
        name=str(data.get("name") or root.name),
        source_language=source,
        target_languages=targets,
        collections=collections,
        exclude=exclude,
        raw=data,
        warnings=tuple(warnings),
        redaction_rules=_redaction(defaults, recipe_path, warnings),
        translate_after=str(translate_after),
    )


_REDACTION_KEYS = ("rules",)
_RULE_KEYS = ("pattern", "term", "category", "flags")
_RULE_FLAGS = ("ignorecase", "wholeword")
_CATEGORY = re.compile(r"[a-z][a-z0-9_]{0,31}")


def _redaction(
    defaults: Mapping[str, Any], path: Path, warnings: list[str]
) -> tuple[RedactionRule, ...]:
    """``defaults.redaction.rules``: each a ``pattern`` or a ``term``, a ``category``, ``flags``."""
    node = defaults.get("redaction")
    if node is None:
        return ()
    key = "defaults.redaction"
    if not isinstance(node, Mapping):
        raise RecipeError(
            "redaction is a mapping with rules",
            path=path,
            line=line_of(defaults, "redaction"),
            key=key,
        )
    _typos(node, _REDACTION_KEYS, f"{key}.", path, warnings)
    return _redaction_rules(node, path, key)


def redaction_rules_file(data: bytes, path: Path) -> tuple[RedactionRule, ...]:
    """The rules of a redaction rules file: YAML holding ``rules``, each as in a recipe's
    ``defaults.redaction.rules`` (a ``pattern`` or a ``term``, a ``category``, ``flags``).

    Refused whole (:class:`RecipeError`, naming the file, line and key) when it is not
    YAML, holds another key, or a rule is not one a recipe takes.
    """
    from kapi.host.yaml import YamlSyntaxError, load_yaml

    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise RecipeError(f"not UTF-8 text (byte {error.start})", path=path) from None
    try:
        node = load_yaml(text)
    except YamlSyntaxError as error:
        raise RecipeError(str(error), path=path, line=error.line) from None
    if not isinstance(node, Mapping) or "rules" not in node:
        raise RecipeError(
            "a redaction rules file is a mapping with rules (each a pattern or a term, "
            "with a category)",
            path=path,
        )
    unknown = [str(name) for name in node if name not in _REDACTION_KEYS]
    if unknown:
        raise RecipeError(
            f"unknown key {unknown[0]!r} (a rules file takes {', '.join(_REDACTION_KEYS)})",
            path=path,
            line=line_of(node, unknown[0]),
            key=unknown[0],
        )
    return _redaction_rules(node, path, "")


def _redaction_rules(node: Mapping[str, Any], path: Path, key: str) -> tuple[RedactionRule, ...]:
    """The ``rules`` under ``node`` (``key`` is where ``node`` sits, ``""`` at the top)."""
    prefix = f"{key}." if key else ""
    if isinstance(node.get("rules"), str):
        raise RecipeError(
            "list the rules here (each a pattern or a term, with a category)",
            path=path,
            line=line_of(node, "rules"),
            key=f"{prefix}rules",
        )
    rules = []
    for index, rule in enumerate(_list(node.get("rules"), path, node, "rules")):
        where = f"{prefix}rules[{index}]"
        line = line_of(node["rules"], index)
        if not isinstance(rule, Mapping):
            raise RecipeError(
                "a rule is a mapping with pattern or term, and category",
                path=path,
                line=line,
                key=where,
            )
        unknown = [str(name) for name in rule if name not in _RULE_KEYS]
        if unknown:
            raise RecipeError(
                f"unknown key {unknown[0]!r} (a rule takes {', '.join(_RULE_KEYS)})",
                path=path,
                line=line_of(rule, unknown[0]) or line,
                key=f"{where}.{unknown[0]}",
            )
        given = [name for name in ("pattern", "term") if name in rule]
        if len(given) != 1 or not isinstance(rule[given[0]], str) or not rule[given[0]]:
            raise RecipeError(
                "a rule has one of pattern (a regular expression) or term (a literal text)",
                path=path,
                line=line,
                key=where,
            )
        category = rule.get("category", "custom")
        if not isinstance(category, str) or not _CATEGORY.fullmatch(category):
            raise RecipeError(
                f"category is a lowercase name such as sku or person (got {category!r})",
                path=path,
                line=line_of(rule, "category") or line,
                key=f"{where}.category",
            )
        flags = rule.get("flags") or []
        if isinstance(flags, str):
            flags = [flags]
        bad = (
            [str(flag) for flag in flags if flag not in _RULE_FLAGS]
            if isinstance(flags, Sequence)
            else [repr(flags)]
        )
        if bad:
            raise RecipeError(
                f"flags are {' and '.join(_RULE_FLAGS)} (got {bad[0]})",
                path=path,
                line=line_of(rule, "flags") or line,
                key=f"{where}.flags",
            )
        text = rule[given[0]]
        pattern = text if given[0] == "pattern" else re.escape(text)
        if "wholeword" in flags:
            pattern = rf"(?<!\w)(?:{pattern})(?!\w)"
        ignore_case = "ignorecase" in flags
        try:
            compiled = re.compile(pattern, re.IGNORECASE if ignore_case else 0)
        except re.error as err:
            raise RecipeError(
                f"not a regular expression: {err.msg}"
                + (f" at position {err.pos}" if err.pos is not None else ""),
                path=path,
                line=line_of(rule, given[0]) or line,
                key=f"{where}.{given[0]}",
            ) from None
        if compiled.fullmatch(""):
            raise RecipeError(
                "matches empty text; a rule must match at least one character",
                path=path,
                line=line_of(rule, given[0]) or line,
                key=f"{where}.{given[0]}",
            )
        rules.append(RedactionRule(category=category, pattern=pattern, ignore_case=ignore_case))
    return tuple(rules)


def line_of_key(raw: Any, key: str) -> int | None:
    """The line of a dotted key path (``collections[0].channel``) in the loaded recipe."""
    return line_of_path(raw, key_path(key))


_STATES = frozenset(
    {
        "draft",
        "translated",
        "reviewed",
        "signed-off",
        "established",
        "authored",
        "checked",
        "approved",
        "written",
    }
)


def _check_gates(data: Mapping[str, Any], path: Path) -> None:
    """``gates``, ``ship_gate`` and ``ship_gates``: a state maps to a percentage or {pct, by}."""
    named = data.get("gates") or {}
    if not isinstance(named, Mapping):
        raise RecipeError(
            "gates is a mapping of names to gates",
            path=path,
            line=line_of(data, "gates"),
            key="gates",
        )
    for name, gate in named.items():
        _check_gate(gate, path, named, name, f"gates.{name}", named)
    if "ship_gate" in data:
        _check_gate(data["ship_gate"], path, data, "ship_gate", "ship_gate", named)
    rules = data.get("ship_gates") or []
    if not isinstance(rules, Sequence) or isinstance(rules, str):
        raise RecipeError(
            "ship_gates is a list of {when, gate}",
            path=path,
            line=line_of(data, "ship_gates"),
            key="ship_gates",
        )
    for index, rule in enumerate(rules):
        key = f"ship_gates[{index}]"
        if not isinstance(rule, Mapping) or "gate" not in rule:
            raise RecipeError(
                "each rule needs gate (and optionally when)",
                path=path,
                line=line_of(rules, index),
                key=key,
            )
        _check_gate(rule["gate"], path, rule, "gate", f"{key}.gate", named)


def _check_gate(
    gate: Any, path: Path, parent: Any, name: Any, key: str, named: Mapping[str, Any]
) -> None:
    if isinstance(gate, str):
        if gate not in named:
            raise RecipeError(
                f"no gate named {gate!r} under gates:",
                path=path,
                line=line_of(parent, name),
                key=key,
            )
        return
    if not isinstance(gate, Mapping):
        raise RecipeError(
            "a gate maps states to a percentage or {pct, by}",
            path=path,
            line=line_of(parent, name),
            key=key,
        )
    for state, rule in gate.items():
        where = f"{key}.{state}"
        if state not in _STATES:
            raise RecipeError(
                f"unknown state {state!r}; states: {', '.join(sorted(_STATES))}",
                path=path,
                line=line_of(gate, state),
                key=where,
            )
        pct = rule.get("pct") if isinstance(rule, Mapping) else rule
        if isinstance(pct, bool) or not isinstance(pct, int | float) or not 0 <= pct <= 100:
            raise RecipeError(
                "a gate's percentage is a number from 0 to 100",
                path=path,
                line=line_of(gate, state),
                key=where,
            )
        if isinstance(rule, Mapping) and rule.get("by", "human") not in ("human", "any"):
            raise RecipeError(
                "by is human or any", path=path, line=line_of(gate, state), key=f"{where}.by"
            )


def _check_profiles(data: Mapping[str, Any], path: Path) -> None:
    """``profiles``: each name maps to a mapping, whose ``channels`` is a list."""
    profiles = data.get("profiles") or {}
    if not isinstance(profiles, Mapping):
        raise RecipeError(
            "profiles is a mapping of names to profiles",
            path=path,
            line=line_of(data, "profiles"),
            key="profiles",
        )
    for name, body in profiles.items():
        key = f"profiles.{name}"
        if body and not isinstance(body, Mapping):
            raise RecipeError(
                "a profile is a mapping (channels, voice)",
                path=path,
                line=line_of(profiles, name),
                key=key,
            )
        channels = (body or {}).get("channels")
        if channels and (isinstance(channels, str) or not isinstance(channels, Sequence)):
            raise RecipeError(
                "must be a list", path=path, line=line_of(body, "channels"), key=f"{key}.channels"
            )


def _coordinates(node: Mapping[str, Any], path: Path, key: str) -> dict[str, str]:
    """A node's ``coordinates``: a mapping of axes to values."""
    value = node.get("coordinates") or {}
    if not isinstance(value, Mapping):
        raise RecipeError(
            "coordinates is a mapping of axes to values",
            path=path,
            line=line_of(node, "coordinates"),
            key=f"{key}.coordinates",
        )
    return {str(k): str(v) for k, v in value.items()}


def _typos(
    node: Mapping[str, Any], known: Sequence[str], prefix: str, path: Path, warnings: list[str]
) -> None:
    for key in node:
        if key in known or not isinstance(key, str):
            continue
        import difflib

        near = difflib.get_close_matches(key, known, n=1, cutoff=0.75)
        if near:
            line = line_of(node, key)
            where = f"{path.name}:{line}" if line is not None else path.name
            warnings.append(
                f"{where}: {prefix}{key}: unknown key; did you mean {prefix}{near[0]}? "
                "(kept as written, and not read)"
            )


def _list(value: Any, path: Path, parent: Any, key: str) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise RecipeError("must be a list", path=path, line=line_of(parent, key), key=key)
    return list(value)


def _locale(value: Any, path: Path, line: int | None, key: str) -> str:
    try:
        return canonical_locale(str(value))
    except EditionKeyError as err:
        raise RecipeError(str(err), path=path, line=line, key=key) from None


def _locale_format(node: Mapping[str, Any], inherited: str, path: Path, key: str) -> str:
    """A node's ``locale_format``, else the one it inherits; anything else names its line."""
    value = node.get("locale_format")
    if value is None:
        return inherited
    if value not in LOCALE_FORMATS:
        raise RecipeError(
            f"locale_format is one of {', '.join(LOCALE_FORMATS)} (got {value!r}): how "
            "{lang} is spelled in a target path, pt-BR or pt_BR",
            path=path,
            line=line_of(node, "locale_format"),
            key=f"{key}.locale_format",
        )
    return str(value)


def _collection(
    node: Any, index: int, path: Path, warnings: list[str], spelling: str = "bcp-47"
) -> Collection:
    key = f"collections[{index}]"
    if not isinstance(node, Mapping):
        raise RecipeError("a collection is a mapping", path=path, key=key)
    _typos(node, _COLLECTION_KEYS, f"{key}.", path, warnings)
    spelling = _locale_format(node, spelling, path, key)
    base = str(node.get("base") or "")
    channel = str(node.get("channel") or "")
    if channel and "/" not in channel:
        raise RecipeError(
            f"channel must be qualified as profile/channel (got {channel!r})",
            path=path,
            line=line_of(node, "channel"),
            key=f"{key}.channel",
        )
    raw_items = node.get("content")
    items: list[ContentItem] = []
    if raw_items is None:
        if "path" not in node:
            raise RecipeError(
                "a collection needs path or content", path=path, line=line_of(node), key=key
            )
        items.append(_item(node, key, path, base, warnings, bare=True, spelling=spelling))
    else:
        for item_index, raw in enumerate(_list(raw_items, path, node, "content")):
            items.append(
                _item(
                    raw,
                    f"{key}.content[{item_index}]",
                    path,
                    base,
                    warnings,
                    bare=False,
                    spelling=spelling,
                )
            )
    source_only = bool(node.get("source_only", False))
    if source_only and any(item.target for item in items):
        raise RecipeError(
            "source_only and a target cannot go together", path=path, line=line_of(node), key=key
        )
    languages = node.get("target_languages")
    return Collection(
        name=str(node.get("name") or f"collection-{index + 1}"),
        items=tuple(items),
        channel=channel,
        source_only=source_only,
        source_language=_locale(
            node["source_language"],
            path,
            line_of(node, "source_language"),
            f"{key}.source_language",
        )
        if node.get("source_language")
        else "",
        target_languages=tuple(
            _locale(t, path, line_of(node, "target_languages"), f"{key}.target_languages")
            for t in languages
        )
        if languages
        else (),
        coordinates=_coordinates(node, path, key),
    )


def _stays_inside(node: Mapping[str, Any], name: str, path: Path, key: str) -> None:
    """A content glob, target template or base names files inside the project, never above it."""
    value = node.get(name)
    if not isinstance(value, str) or not value:
        return
    parts = value.replace("\\", "/").split("/")
    if value.startswith(("/", "~")) or ".." in parts or (len(value) > 1 and value[1] == ":"):
        raise RecipeError(
            f"{value!r} leads outside the project; name paths relative to the folder of "
            "kapi.yaml, without `..`",
            path=path,
            line=line_of(node, name),
            key=f"{key}.{name}",
        )


def _item(
    node: Any,
    key: str,
    path: Path,
    base: str,
    warnings: list[str],
    *,
    bare: bool,
    spelling: str = "bcp-47",
) -> ContentItem:
    if isinstance(node, str):
        node = {"path": node}
    if not isinstance(node, Mapping):
        raise RecipeError("a content item is a mapping with path", path=path, key=key)
    if not bare:
        _typos(node, _ITEM_KEYS, f"{key}.", path, warnings)
    pattern = node.get("path")
    if not pattern or not isinstance(pattern, str):
        raise RecipeError(
            "path (a glob) is required", path=path, line=line_of(node), key=f"{key}.path"
        )
    try:
        glob_match(pattern, "")
    except GlobError as err:
        raise RecipeError(
            str(err), path=path, line=line_of(node, "path"), key=f"{key}.path"
        ) from None
    format_value = node.get("format") or ""
    if isinstance(format_value, Mapping):
        format_value = format_value.get("name") or ""
    for name in ("path", "target", "base"):
        _stays_inside(node, name, path, key)

    def join(part: str) -> str:
        return f"{base.rstrip('/')}/{part}" if base and part else part

    item_base = str(node.get("base") or "")
    target = str(node.get("target") or "") if not bare or node.get("target") else ""
    return ContentItem(
        path=join(pattern),
        target=join(target) if target and target != "*" else target,
        format=str(format_value),
        base=join(item_base) if item_base else (base.rstrip("/") if base else ""),
        channel=str(node.get("channel") or "") if not bare else "",
        locale_format=spelling if bare else _locale_format(node, spelling, path, key),
        **_comments(node.get("comments"), path, line_of(node, "comments"), f"{key}.comments"),
    )


_FORMATTERS = ("ruff", "prettier", "gofmt")


def _comments(value: Any, path: Path, line: int | None, key: str) -> dict[str, Any]:
    """An item's ``comments``: ``true``, or ``{channel, formatter}`` (read them, so governed)."""
    if value is None or value is False:
        return {}
    if value is True:
        return {"comments": True}
    if not isinstance(value, Mapping):
        raise RecipeError(
            "comments is true or a mapping with channel and formatter",
            path=path,
            line=line,
            key=key,
        )
    unknown = sorted(str(name) for name in value if name not in ("channel", "formatter"))
    if unknown:
        raise RecipeError(
            f"unknown key {unknown[0]!r} (comments takes channel and formatter)",
            path=path,
            line=line,
            key=key,
        )
    channel = str(value.get("channel") or "")
    if channel and "/" not in channel:
        raise RecipeError(
            f"channel must be qualified as profile/channel (got {channel!r})",
            path=path,
            line=line,
            key=f"{key}.channel",
        )
    formatter = str(value.get("formatter") or "")
    if formatter and formatter not in _FORMATTERS:
        raise RecipeError(
            f"formatter {formatter!r} is not one kapi runs ({', '.join(_FORMATTERS)})",
            path=path,
            line=line,
            key=f"{key}.formatter",
        )
    return {"comments": True, "comments_channel": channel, "comments_formatter": formatter}
