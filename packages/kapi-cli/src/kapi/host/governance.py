"""Governance at a path, from the project: the voice and terms that hold where a file sits.

Builds the core's recipe model from ``kapi.yaml``, loads voice profiles (a
starter pack, a profile kept in the store, or ``voices/<id>.yaml`` committed
beside the recipe), reads the store's terms, and answers the check engine's
resolver and the change service's commit check (:mod:`kapi.host.commit_check`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from kapi.core.governance.errors import GovernanceError
from kapi.core.governance.resolve import (
    Channel,
    Collection,
    ContentItem,
    GovernanceProfile,
    GovernanceRecipe,
    ResolvedGovernance,
    VoiceBinding,
    compose_voice,
    resolve_governance,
    validate_recipe,
)
from kapi.core.governance.voice import VoiceProfile
from kapi.host.errors import EXIT_ERROR, HostError
from kapi.host.project import Project, RecipeError, line_of_key

if TYPE_CHECKING:  # the check's types: loaded by those who use them
    from kapi.core.check.target import CheckTarget
    from kapi.host.workspace import Workspace

__all__ = ["Governance", "parse_yaml", "voice_binding"]

_SUGGESTING = ("context.observe", "context.correct")  # the only ops that become suggestions


def parse_yaml(text: str, source: str) -> Any:
    """A governance file's YAML as plain values; a syntax error names ``source`` and the line."""
    from kapi.host.yaml import YamlSyntaxError, load_plain

    try:
        return load_plain(text)
    except YamlSyntaxError as err:
        where = f":{err.line}" if err.line is not None else ""
        raise GovernanceError(f"not valid YAML{where}: {err.problem}", source) from None


def voice_binding(value: Any, key: str) -> VoiceBinding | None:
    """``voice: <id>``, ``{profile: <id>}`` or ``{pack: <name>}`` (``pack:<name>`` on the
    command line)."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        if value.startswith("pack:"):  # --voice pack:<name>, a starter pack by name
            return VoiceBinding(pack=value.removeprefix("pack:"))
        return VoiceBinding(profile=value)
    if isinstance(value, Mapping):
        known = {k: v for k, v in value.items() if k in ("profile", "pack")}
        if len(known) != 1 or len(value) != 1:
            raise GovernanceError(
                "a voice binding names exactly one of profile or pack", "kapi.yaml", key
            )
        name, target = next(iter(known.items()))
        return VoiceBinding(**{name: str(target)})
    raise GovernanceError(
        "a voice binding is <id>, {profile: <id>} or {pack: <name>}", "kapi.yaml", key
    )


def recipe_model(raw: Mapping[str, Any], collections: Sequence[Any]) -> GovernanceRecipe:
    """The governance parts of a loaded recipe."""
    profiles: dict[str, GovernanceProfile] = {}
    for slug, body in (raw.get("profiles") or {}).items():
        body = body or {}
        channels = []
        for entry in body.get("channels") or ():
            if isinstance(entry, Mapping):
                channels.append(
                    Channel(id=str(entry.get("id", "")), concept=str(entry.get("concept", "")))
                )
            else:
                channels.append(Channel(id=str(entry)))
        profiles[str(slug)] = GovernanceProfile(
            name=str(slug),
            channels=tuple(channels),
            voice=voice_binding(body.get("voice"), f"profiles.{slug}.voice"),
            termstore=str(body.get("termstore") or ""),
            concept=str(body.get("concept") or ""),
            valid_from=str(body.get("valid_from") or ""),
            valid_to=str(body.get("valid_to") or ""),
        )
    defaults = raw.get("defaults") or {}
    return GovernanceRecipe(
        profiles=profiles,
        collections=tuple(
            Collection(
                name=c.name,
                items=tuple(
                    ContentItem(path=i.path, channel=i.channel, comments_channel=i.comments_channel)
                    for i in c.items
                ),
                channel=c.channel,
                coordinates=dict(c.coordinates),
            )
            for c in collections
        ),
        default_voice=voice_binding(defaults.get("voice"), "defaults.voice"),
        default_coordinates={
            str(k): str(v) for k, v in (defaults.get("coordinates") or {}).items()
        },
        exclude=tuple(str(p) for p in defaults.get("exclude") or ()),
        comments_channel=_comments_channel(defaults.get("comments")),
    )


def _comments_channel(value: Any) -> str:
    """``defaults.comments.channel``: the voice comments take where no item names one."""
    if isinstance(value, Mapping):
        return str(value.get("channel") or "")
    return ""


class Governance:
    """Resolves voice and terms per path for one run (cached per binding and per path)."""

    def __init__(
        self,
        workspace: Workspace,
        *,
        profile: str = "",
        channel: str = "",
        voice: str = "",
        at: datetime | None = None,
    ) -> None:
        self.workspace = workspace
        self.profile = profile
        self.channel = channel
        self.voice_override = voice_binding(voice, "--voice") if voice else None
        self.at = at or datetime.now(UTC)
        project = workspace.project
        self.recipe = GovernanceRecipe()
        if project is not None:
            try:
                self.recipe = recipe_model(project.raw, project.collections)
                validate_recipe(self.recipe, str(project.recipe_path))
            except GovernanceError as err:
                raise recipe_error(project, err) from None
        self._voices: dict[VoiceBinding, tuple[VoiceProfile, tuple[Any, ...]]] = {}
        self._concepts: tuple[Any, ...] | None = None
        self._concepts_at: dict[tuple[tuple[str, str], ...], tuple[Any, ...]] = {}
        self._scoped: bool | None = None  # whether any concept says where it holds
        self._suggestions: Any = None  # the context log folded once per run

    # --- sources ------------------------------------------------------------------------

    def concepts(self) -> tuple[Any, ...]:
        if self._concepts is None:
            store = self.workspace.store
            self._concepts = tuple(store.concepts()) if store is not None else ()
        return self._concepts

    def concepts_at(self, coordinates: Mapping[str, str]) -> tuple[Any, ...]:
        """The concepts that hold at a point: a rule a person kept where it was seen carries
        that scope on its concept (the same tuple for every point when none is scoped)."""
        concepts = self.concepts()
        if self._scoped is None:
            self._scoped = any(c.properties for c in concepts)
        if not self._scoped:
            return concepts
        key = tuple(sorted(coordinates.items()))
        found = self._concepts_at.get(key)
        if found is None:
            from kapi.core.context.scope import holds_at

            found = tuple(c for c in concepts if holds_at(c.properties, coordinates))
            self._concepts_at[key] = found
        return found

    def context_fold(self) -> tuple[Any, Any]:
        """The context log folded once per run, with the rules in force it was folded against
        (the terms store's and the voices': a :class:`~kapi.core.context.fold.Fold` and its
        ``StoreRule`` list)."""
        if self._suggestions is None:
            store = self.workspace.store
            assert store is not None
            rows = store.context_log()
            if not any(row.get("kind") in _SUGGESTING for row in rows):
                self._suggestions = (None, [])  # nothing suggested: the context code stays unloaded
            else:
                from kapi.host.context_log import ContextLog
                from kapi.host.context_points import rules_in_force

                log = ContextLog(store, rows=rows)
                in_force = rules_in_force(
                    store, log.records(), self.workspace.source_language, lambda: self
                )
                self._suggestions = (log.fold(in_force), in_force)
        return self._suggestions  # type: ignore[no-any-return]

    def suggested_at(self, coordinates: Mapping[str, str]) -> tuple[Any, ...]:
        """The context's suggested and contested word rules at a point (weight 0 in a check)."""
        if self.workspace.store is None:
            return ()
        folded, in_force = self.context_fold()
        if folded is None:
            return ()
        from kapi.host.context_log import check_rules

        return check_rules(folded, coordinates, in_force)

    def load_voice(self, binding: VoiceBinding) -> tuple[VoiceProfile, tuple[Any, ...]]:
        cached = self._voices.get(binding)
        if cached is not None:
            return cached
        from kapi.core.governance.voice import load_voice_profile

        if binding.pack:
            from kapi.core.governance.packs import pack_text

            text, source = pack_text(binding.pack), binding.source
        else:
            text, source = self._profile_text(binding.profile)
        try:
            loaded = load_voice_profile(self._parsed(text, source), source)
        except GovernanceError as err:
            if err.line is None and err.path:
                from kapi.host.yaml import line_of_text

                err.line = line_of_text(text, tuple(err.path))
            raise
        self._voices[binding] = loaded
        return loaded

    def _parsed(self, text: str, source: str) -> Any:
        """A voice profile's YAML as plain data, from the project's governance cache if it can."""
        project = self.workspace.project
        if project is None:
            return parse_yaml(text, source)
        from kapi.host.governance_cache import cache_for

        cache = cache_for(project.state_dir, project.root)
        return cache.parsed(text, lambda data: parse_yaml(data, source))

    def _profile_text(self, name: str) -> tuple[str, str]:
        store = self.workspace.store
        if store is not None:
            text = store.voice_profile(name)
            if text is not None:
                return text, f"store:{name}"
        project = self.workspace.project
        if project is not None:
            for candidate in (
                project.root / "voices" / f"{name}.yaml",
                project.root / "voices" / f"{name}.yml",
            ):
                if candidate.is_file():
                    return candidate.read_text(encoding="utf-8"), str(
                        candidate.relative_to(project.root)
                    )
        raise GovernanceError(
            f"no voice profile {name!r}: import one (`kapi voice import FILE --id {name}`) "
            f"or commit voices/{name}.yaml",
            f"store:{name}",
        )

    # --- resolution ---------------------------------------------------------------------

    def resolve(
        self,
        path: str,
        locale: str = "",
        *,
        comments: bool = False,
        suggested: bool = True,
        terms: bool = True,
    ) -> ResolvedGovernance:
        """The governance at a project-relative path (``comments``: at its comment voice);
        ``suggested=False`` and ``terms=False`` leave out the context's suggestions and the
        store's concepts (a reader that works them out its own way)."""
        point = resolve_governance(
            self.recipe,
            path,
            at=self.at,
            profile=self.profile,
            channel=self.channel,
            voice=self.voice_override,
            comments=comments,
        )
        voice = None
        source = ""
        warnings: list[Any] = []
        binding = point.voice
        if binding is not None:
            profile, loaded_warnings = self.load_voice(binding)
            warnings.extend(loaded_warnings)
            voice, composed_warnings = compose_voice(
                profile, locale=locale, channel=point.channel, persona="", source=binding.source
            )
            warnings.extend(composed_warnings)
            source = binding.source
        concepts = self.concepts_at(point.coordinates) if terms else ()
        return ResolvedGovernance(
            voice=voice,
            voice_source=source,
            point=point,
            concepts=concepts,
            terms_bound=self.workspace.store is not None and bool(concepts),
            at=self.at,
            warnings=tuple(warnings),
            context_path=path,
            suggested_rules=self.suggested_at(point.coordinates) if suggested else (),
        )

    def resolver(self) -> Callable[[CheckTarget], ResolvedGovernance]:
        """The check engine's ``governance_resolver``."""

        def resolve(target: CheckTarget) -> ResolvedGovernance:
            return self.resolve(
                self._relative(target.file), target.locale, comments=target.comments
            )

        return resolve

    def _relative(self, file: str) -> str:
        project = self.workspace.project
        if project is None:
            return file
        from pathlib import Path

        relative = project.relative(Path(file))
        return relative if relative is not None else file


def recipe_error(project: Project, err: GovernanceError) -> RecipeError:
    """A recipe's governance mistake as a recipe error: the file, the line and the key (exit 2)."""
    line = line_of_key(project.raw, err.key)
    if line is None and err.key:  # the recipe came from the governance cache: no lines kept
        from kapi.host.yaml import key_path, line_of_text

        try:
            line = line_of_text(project.recipe_path.read_text(encoding="utf-8"), key_path(err.key))
        except (OSError, UnicodeDecodeError):
            line = None
    return RecipeError(err.message, path=project.recipe_path, line=line, key=err.key)


def governance_error(err: GovernanceError) -> HostError:
    """Governance that does not resolve: where (source, line, key) and why; exit 1."""
    where = err.source + (f":{err.line}" if err.line else "") + (f" {err.key}" if err.key else "")
    return HostError(f"{where}: {err.message}", exit_code=EXIT_ERROR)
