"""Which voice and terms govern a path: the recipe's point, validity windows, and overrides.

:func:`resolve_governance` answers for one path from the minimal recipe model
here (the host builds it from ``kapi.yaml``): the claiming item's channel,
then its collection's channel, then the project default; an explicit profile
outranks location; a profile outside its validity window is skipped with a
warning. :func:`compose_voice` applies a profile's locale, channel and persona
overrides in that order, tightening only. :class:`ResolvedGovernance` is what
the check engine receives for a target.
"""

from __future__ import annotations

import re
from collections.abc import Collection as CollectionOf
from collections.abc import Mapping
from datetime import datetime

from attrs import evolve, field, frozen

from kapi.core.governance.errors import ConfigWarning, GovernanceError
from kapi.core.governance.glob import GlobError, glob_match
from kapi.core.governance.terms import Concept
from kapi.core.governance.validity import parse_instant, within
from kapi.core.governance.voice import (
    LocaleOverride,
    Pattern,
    PersonaOverride,
    Style,
    TermRule,
    Tone,
    Vocabulary,
    VoiceProfile,
)

__all__ = [
    "Channel",
    "Collection",
    "ContentItem",
    "GovernancePoint",
    "GovernanceProfile",
    "GovernanceRecipe",
    "ResolvedGovernance",
    "VoiceBinding",
    "compose_voice",
    "resolve_governance",
    "validate_recipe",
]

_SLUG = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_RESERVED_AXES = frozenset({"product", "channel"})


@frozen
class VoiceBinding:
    """Where a voice comes from: exactly one of a store profile id or a starter pack."""

    profile: str = ""
    pack: str = ""

    @property
    def source(self) -> str:
        """How warnings name it: ``store:<id>`` or ``pack:<name>``."""
        return f"pack:{self.pack}" if self.pack else f"store:{self.profile}"

    @property
    def name(self) -> str:
        return self.pack or self.profile


@frozen
class Channel:
    id: str
    concept: str = ""


@frozen
class GovernanceProfile:
    """A ``profiles.<slug>`` entry: the product's channels, voice, term store and window."""

    name: str
    channels: tuple[Channel, ...] = ()
    voice: VoiceBinding | None = None
    termstore: str = ""
    concept: str = ""
    valid_from: str = ""
    valid_to: str = ""


@frozen
class ContentItem:
    """A collection's ``content[]`` entry; ``channel`` is qualified (``profile/channel``)."""

    path: str
    channel: str = ""
    comments_channel: str = ""


@frozen
class Collection:
    name: str = ""
    items: tuple[ContentItem, ...] = ()
    base: str = ""
    channel: str = ""
    coordinates: Mapping[str, str] = field(factory=dict)


@frozen
class GovernanceRecipe:
    """The parts of ``kapi.yaml`` governance resolution reads."""

    profiles: Mapping[str, GovernanceProfile] = field(factory=dict)
    collections: tuple[Collection, ...] = ()
    default_voice: VoiceBinding | None = None
    default_coordinates: Mapping[str, str] = field(factory=dict)
    exclude: tuple[str, ...] = ()
    comments_channel: str = ""


@frozen
class GovernancePoint:
    """The answer for a path: the point, the voice binding and where each came from.

    ``voice_field`` says which recipe field supplied the voice (``override``,
    ``profile``, ``profile-store``, ``default``, or empty); ``selection`` is the
    report's ``project``/``override``/``none``; ``termstore`` empty means the
    project's own terms; ``fallback`` is true when no profile governs the path.
    """

    path: str
    collection: str = ""
    profile: str = ""
    channel: str = ""
    voice: VoiceBinding | None = None
    voice_field: str = ""
    selection: str = "none"
    termstore: str = ""
    valid_from: str = ""
    valid_to: str = ""
    fallback: bool = True
    comments: bool = False
    coordinates: Mapping[str, str] = field(factory=dict)
    warnings: tuple[ConfigWarning, ...] = ()


@frozen
class ResolvedGovernance:
    """What the check engine receives for one target: voice, terms and suggestions in force.

    ``concepts`` are the bound store's terms (turned into rules per locale by
    the engine), ``term_rules`` further established rules (workspace rules);
    ``terms_bound`` is true when a term store governs, even an empty one.
    ``suggested_rules`` are pending suggestions (weight 0, never failing).
    """

    voice: VoiceProfile | None = None
    voice_source: str = ""
    point: GovernancePoint | None = None
    concepts: tuple[Concept, ...] = ()
    term_rules: tuple[TermRule, ...] = ()
    terms_bound: bool = False
    suggested_rules: tuple[TermRule, ...] = ()
    persona: str = ""
    context_path: str = ""
    at: datetime | None = None
    warnings: tuple[ConfigWarning, ...] = ()

    @property
    def voice_name(self) -> str:
        if self.voice is None:
            return ""
        return self.voice.name or self.voice.id


# ---------------------------------------------------------------------------
# validation


def validate_recipe(recipe: GovernanceRecipe, source: str = "kapi.yaml") -> None:
    """Refuse what spec §2.5 refuses, naming the key: slugs, channels, dates, globs, axes."""
    for slug, profile in recipe.profiles.items():
        where = f"profiles.{slug}"
        if not _SLUG.match(slug):
            raise GovernanceError(f"profile name {slug!r} is not a slug", source, where)
        seen: set[str] = set()
        for index, channel in enumerate(profile.channels):
            if not _SLUG.match(channel.id):
                raise GovernanceError(
                    f"channel {channel.id!r} is not a slug", source, f"{where}.channels[{index}]"
                )
            if channel.id in seen:
                raise GovernanceError(
                    f"channel {channel.id!r} is declared twice",
                    source,
                    f"{where}.channels[{index}]",
                )
            seen.add(channel.id)
        if profile.voice is not None and bool(profile.voice.profile) == bool(profile.voice.pack):
            raise GovernanceError(
                "a voice binding names exactly one source", source, f"{where}.voice"
            )
        for name in ("valid_from", "valid_to"):
            value = getattr(profile, name)
            if value:
                try:
                    parse_instant(value)
                except ValueError as error:
                    raise GovernanceError(str(error), source, f"{where}.{name}") from None
    voice = recipe.default_voice
    if voice is not None and bool(voice.profile) == bool(voice.pack):
        raise GovernanceError("a voice binding names exactly one source", source, "defaults.voice")
    for axis in recipe.default_coordinates:
        if axis in _RESERVED_AXES:
            raise GovernanceError(
                f"coordinates may not name {axis!r}", source, f"defaults.coordinates.{axis}"
            )
    if recipe.comments_channel:
        _check_channel(recipe, recipe.comments_channel, source, "defaults.comments.channel")
    for c_index, collection in enumerate(recipe.collections):
        where = f"collections[{c_index}]"
        for axis in collection.coordinates:
            if axis in _RESERVED_AXES:
                raise GovernanceError(
                    f"coordinates may not name {axis!r}", source, f"{where}.coordinates.{axis}"
                )
        if collection.channel:
            _check_channel(recipe, collection.channel, source, f"{where}.channel")
        for i_index, item in enumerate(collection.items):
            at = f"{where}.content[{i_index}]"
            try:
                glob_match(_join(collection.base, item.path), "")
            except GlobError as error:
                raise GovernanceError(str(error), source, f"{at}.path") from None
            if item.channel:
                _check_channel(recipe, item.channel, source, f"{at}.channel")
            if item.comments_channel:
                _check_channel(recipe, item.comments_channel, source, f"{at}.comments.channel")
    for index, pattern in enumerate(recipe.exclude):
        try:
            glob_match(pattern, "")
        except GlobError as error:
            raise GovernanceError(str(error), source, f"defaults.exclude[{index}]") from None


def _valid_forms(recipe: GovernanceRecipe) -> list[str]:
    return [
        f"{slug}/{channel.id}"
        for slug, profile in recipe.profiles.items()
        for channel in profile.channels
    ]


def _check_channel(recipe: GovernanceRecipe, qualified: str, source: str, key: str) -> None:
    slug, sep, channel = qualified.partition("/")
    profile = recipe.profiles.get(slug)
    if not sep or profile is None or channel not in {c.id for c in profile.channels}:
        forms = ", ".join(_valid_forms(recipe)) or "none declared"
        raise GovernanceError(
            f"channel {qualified!r} must be a declared profile/channel (valid: {forms})",
            source,
            key,
        )


# ---------------------------------------------------------------------------
# resolution


def _join(base: str, path: str) -> str:
    if not base:
        return path
    return base.rstrip("/") + "/" + path.lstrip("/")


def _window(profile: GovernanceProfile, at: datetime) -> str:
    """Empty when ``profile`` holds at ``at``; else why it is skipped."""
    start = parse_instant(profile.valid_from) if profile.valid_from else None
    end = parse_instant(profile.valid_to) if profile.valid_to else None
    if within(at, start, end):
        return ""
    if end is not None and at >= end:
        return f"expired {profile.valid_to}"
    return f"is not valid until {profile.valid_from}"


def resolve_governance(
    recipe: GovernanceRecipe,
    path: str,
    *,
    at: datetime,
    profile: str = "",
    channel: str = "",
    voice: VoiceBinding | None = None,
    comments: bool = False,
    store_profiles: CollectionOf[str] = (),
) -> GovernancePoint:
    """Resolve the governance point of ``path`` (project-relative, ``/``-separated).

    ``profile`` is an explicit profile (an undeclared name is a
    :class:`GovernanceError`), ``channel`` the ``--channel`` flag (a slug or
    ``profile/channel``), ``voice`` an explicit voice override (terms still
    come from the resolved point). ``store_profiles`` are the voice profiles the
    store holds: a profile with no ``voice:`` resolves to the store profile
    named after its key when there is one, else to ``defaults.voice``. ``at``
    is the run's fixed instant for validity windows.
    """
    warnings: list[ConfigWarning] = []
    collection, item = _claim(recipe, path)
    candidates: list[tuple[str, str]] = []
    if profile:
        if profile not in recipe.profiles:
            declared = ", ".join(sorted(recipe.profiles)) or "none"
            raise GovernanceError(
                f"profile {profile!r} is not declared (profiles: {declared})", "", "profile"
            )
        candidates.append(("explicit", profile + "/"))
    if comments:
        if item is not None and item.comments_channel:
            candidates.append(("item-comments", item.comments_channel))
        if recipe.comments_channel:
            candidates.append(("default-comments", recipe.comments_channel))
    if item is not None and item.channel:
        candidates.append(("item", item.channel))
    if collection is not None and collection.channel:
        candidates.append(("collection", collection.channel))

    chosen: GovernanceProfile | None = None
    chosen_channel = ""
    chosen_by = ""
    skipped: list[str] = []
    for by, qualified in candidates:
        slug, _, channel_id = qualified.partition("/")
        candidate = recipe.profiles.get(slug)
        if candidate is None:
            continue
        reason = _window(candidate, at)
        if reason:
            skipped.append(f'profile "{slug}" {reason}')
            continue
        chosen, chosen_channel, chosen_by = candidate, channel_id, by
        break

    binding: VoiceBinding | None
    if chosen is not None:
        if chosen.voice is not None:
            binding, voice_field = chosen.voice, "profile"
        elif chosen.name in store_profiles:
            binding, voice_field = VoiceBinding(profile=chosen.name), "profile-store"
        else:
            binding = recipe.default_voice
            voice_field = "default" if binding is not None else ""
    else:
        binding = recipe.default_voice
        voice_field = "default" if binding is not None else ""

    selection = "project" if binding is not None else "none"
    if voice is not None:
        binding, voice_field, selection = voice, "override", "override"
    elif chosen_by == "explicit":
        selection = "override" if binding is not None else "none"

    if skipped:
        governing = (
            f'profile "{chosen.name}"'
            if chosen is not None
            else (f"the project default voice ({binding.source})" if binding else "no voice")
        )
        for text in skipped:
            warnings.append(
                ConfigWarning(
                    "governance.profile_skipped",
                    f"governance: {text}; governing with {governing}",
                    "kapi.yaml",
                    "profiles",
                )
            )

    product = chosen.name if chosen is not None else ""
    if channel:
        head, sep, tail = channel.partition("/")
        if sep:
            product, chosen_channel = head, tail
        else:
            chosen_channel = channel
    coordinates = dict(recipe.default_coordinates)
    for axis, value in (("product", product), ("channel", chosen_channel)):
        if value:
            coordinates[axis] = value
    if collection is not None:
        coordinates.update({axis: value for axis, value in collection.coordinates.items() if value})
    return GovernancePoint(
        path=path,
        collection=collection.name if collection is not None else "",
        profile=product,
        channel=chosen_channel,
        voice=binding,
        voice_field=voice_field,
        selection=selection,
        termstore=chosen.termstore if chosen is not None else "",
        valid_from=chosen.valid_from if chosen is not None else "",
        valid_to=chosen.valid_to if chosen is not None else "",
        fallback=chosen is None,
        comments=comments,
        coordinates=coordinates,
        warnings=tuple(warnings),
    )


def _claim(recipe: GovernanceRecipe, path: str) -> tuple[Collection | None, ContentItem | None]:
    """The first item, in recipe order, whose glob matches; ``defaults.exclude`` filters first."""
    if any(glob_match(pattern, path) for pattern in recipe.exclude):
        return None, None
    for collection in recipe.collections:
        for item in collection.items:
            if glob_match(_join(collection.base, item.path), path):
                return collection, item
    return None, None


# ---------------------------------------------------------------------------
# composing a profile with its overrides


def compose_voice(
    profile: VoiceProfile,
    *,
    locale: str = "",
    channel: str = "",
    persona: str = "",
    source: str = "",
) -> tuple[VoiceProfile, tuple[ConfigWarning, ...]]:
    """Apply the locale, then channel, then persona overrides (spec §3.4), tightening only.

    Tone and style in an override replace the resolved ones (a base pattern
    lost that way warns ``voice.override_drops_pattern``); forbidden and
    competitor terms extend the lists; a preferred term an earlier rule already
    governs is dropped with ``voice.preferred_term_dropped``; constraints
    survive every override.
    """
    warnings: list[ConfigWarning] = []
    composed = profile
    override = _locale_override(profile, locale)
    if override is not None:
        key, entry = override
        tone = composed.tone
        if entry.formality:
            tone = evolve(tone, formality=entry.formality)
        if entry.humor:
            tone = evolve(tone, humor=entry.humor)
        style = composed.style
        if entry.person_pov:
            style = evolve(style, person_pov=entry.person_pov)
        composed = evolve(composed, tone=tone, style=style)
        if entry.vocabulary_overrides is not None:
            composed = _tighten(
                composed,
                entry.vocabulary_overrides,
                f"locales.{key}.vocabulary_overrides",
                source,
                warnings,
            )
    channel_entry = profile.channels.get(channel) if channel else None
    if channel_entry is not None:
        composed = _replace(
            composed,
            channel_entry.tone,
            channel_entry.style,
            f"channels.{channel}",
            source,
            warnings,
        )
        if channel_entry.vocabulary is not None:
            composed = _tighten(
                composed,
                channel_entry.vocabulary,
                f"channels.{channel}.vocabulary",
                source,
                warnings,
            )
    persona_entry: PersonaOverride | None = profile.personas.get(persona) if persona else None
    if persona_entry is not None:
        where = f"personas.{persona}"
        composed = _replace(
            composed, persona_entry.tone, persona_entry.style, where, source, warnings
        )
        composed = _tighten(
            composed,
            Vocabulary(
                preferred_terms=persona_entry.preferred_terms,
                forbidden_terms=persona_entry.avoided_terms,
            ),
            where,
            source,
            warnings,
        )
    return composed, tuple(warnings)


def _locale_override(profile: VoiceProfile, locale: str) -> tuple[str, LocaleOverride] | None:
    if not locale or not profile.locales:
        return None
    lowered = locale.lower()
    for key, entry in profile.locales.items():
        if key.lower() == lowered:
            return key, entry
    language = lowered.split("-")[0]
    for key, entry in profile.locales.items():
        if key.lower() == language:
            return key, entry
    return None


def _replace(
    profile: VoiceProfile,
    tone: Tone | None,
    style: Style | None,
    where: str,
    source: str,
    warnings: list[ConfigWarning],
) -> VoiceProfile:
    if tone is not None:
        profile = evolve(profile, tone=tone)
    if style is not None:
        kept = {pattern.regex for pattern in style.prohibited_patterns + style.required_patterns}
        lost: list[Pattern] = [
            pattern
            for pattern in profile.style.prohibited_patterns + profile.style.required_patterns
            if pattern.regex not in kept
        ]
        for pattern in lost:
            warnings.append(
                ConfigWarning(
                    "voice.override_drops_pattern",
                    f"{where} replaces style and drops the pattern {pattern.regex!r}",
                    source,
                    f"{where}.style",
                )
            )
        profile = evolve(profile, style=style)
    return profile


def _tighten(
    profile: VoiceProfile,
    override: Vocabulary,
    where: str,
    source: str,
    warnings: list[ConfigWarning],
) -> VoiceProfile:
    base = profile.vocabulary
    earlier = profile.term_rules
    rejected = {
        word.casefold() for rule in earlier if rule.rejects for word in (rule.term, *rule.forms)
    }
    known = {rule.term.casefold() for rule in earlier if rule.rejects}
    preferred: list[TermRule] = list(base.preferred_terms)
    for rule in override.preferred_terms:
        words = {word.casefold() for word in (rule.term, rule.replacement) if word}
        if words & rejected or (rule.term and rule.term.casefold() in known):
            warnings.append(
                ConfigWarning(
                    "voice.preferred_term_dropped",
                    f"{where} prefers {(rule.replacement or rule.term)!r}, which an earlier rule"
                    " already governs; the override cannot loosen it",
                    source,
                    f"{where}.preferred_terms",
                )
            )
            continue
        preferred.append(rule)
    vocabulary = Vocabulary(
        preferred_terms=tuple(preferred),
        forbidden_terms=_extend(base.forbidden_terms, override.forbidden_terms),
        competitor_terms=_extend(base.competitor_terms, override.competitor_terms),
        abbreviations={**override.abbreviations, **base.abbreviations},
    )
    return evolve(profile, vocabulary=vocabulary)


def _extend(base: tuple[TermRule, ...], more: tuple[TermRule, ...]) -> tuple[TermRule, ...]:
    seen = {rule.term.casefold() for rule in base}
    return base + tuple(rule for rule in more if rule.term.casefold() not in seen)
