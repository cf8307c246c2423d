"""The voice profile: tone, style, word rules, patterns and constraints, loaded from parsed YAML.

The loader takes data a host already parsed (a mapping of plain values) and
either refuses it with a :class:`GovernanceError` naming the key path, or
returns the profile with the warnings a lenient load collects. ``strict=True``
is ``voice validate``: an unknown key is refused instead of warned about.
Style enums are closed everywhere; tone values are open (an unfamiliar one
warns); constraint keys are strict even in a lenient load.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from attrs import evolve, field, frozen

from kapi.core.edition import EditionKeyError, canonical_locale
from kapi.core.governance.errors import ConfigWarning, GovernanceError, KeyPath, render_key
from kapi.core.governance.regex import PatternError, compile_portable

__all__ = [
    "DEFAULT_MIN_SCORE",
    "AcceptedTerm",
    "ChannelOverride",
    "Constraint",
    "ConstraintException",
    "ConstraintScope",
    "Example",
    "LocaleOverride",
    "Pattern",
    "PersonaOverride",
    "Rate",
    "Style",
    "TermRule",
    "Tone",
    "Vocabulary",
    "VoiceProfile",
    "load_voice_profile",
    "vocabulary_rules",
]

DEFAULT_MIN_SCORE = 80

TONE_VALUES: Mapping[str, frozenset[str]] = {
    "formality": frozenset({"casual", "neutral", "formal", "technical"}),
    "emotion": frozenset({"warm", "neutral", "authoritative"}),
    "humor": frozenset({"none", "light", "frequent"}),
}
STYLE_VALUES: Mapping[str, frozenset[str]] = {
    "sentence_length": frozenset({"short", "medium", "varied"}),
    "person_pov": frozenset({"first_plural", "second", "third"}),
    "contractions": frozenset({"always", "sometimes", "never"}),
}
SCOPES = frozenset({"", "prose", "code", "heading"})
EXAMPLE_CATEGORIES = frozenset({"tone", "style", "vocabulary"})
CONSTRAINT_KINDS = frozenset({"prohibited_pattern", "guidance"})
_SLUG = "^[a-z0-9][a-z0-9-]*$"


@frozen
class Rate:
    """How often a pattern may match before it reports: ``max`` per ``per_words`` words."""

    max: int
    per_words: int = 1000


@frozen
class Pattern:
    """A regular expression the text must not match (or must match, when required)."""

    regex: str
    description: str = ""
    advisory: bool = False
    rate: Rate | None = None
    scope: str = ""  # prose | code | heading | "" (everywhere)
    not_after: str = ""  # a regex on the text just before a match that excuses it


@frozen
class AcceptedTerm:
    """A wording accepted beside the preferred one."""

    text: str
    forms: tuple[str, ...] = ()


@frozen
class TermRule:
    """A word rule: reject ``term`` (and its forms), prefer ``replacement``.

    A rule with no ``term`` is a preferred form that rejects nothing. With
    ``case_sensitive`` unset the matcher decides case as spec §3.5 says.
    """

    term: str = ""
    forms: tuple[str, ...] = ()
    replacement: str = ""
    replacement_forms: tuple[str, ...] = ()
    accepted: tuple[AcceptedTerm, ...] = ()
    note: str = ""
    advisory: bool = False
    case_sensitive: bool | None = None
    scope: str = ""
    do_not_translate: bool = False
    concept_id: str = ""
    competitor: bool = False

    @property
    def rejects(self) -> bool:
        return bool(self.term)


@frozen
class Tone:
    personality: tuple[str, ...] = ()
    formality: str = ""
    emotion: str = ""
    humor: str = ""
    guidelines: tuple[str, ...] = ()


@frozen
class Style:
    active_voice: bool | None = None
    sentence_length: str = ""
    person_pov: str = ""
    contractions: str = ""
    prohibited_patterns: tuple[Pattern, ...] = ()
    required_patterns: tuple[Pattern, ...] = ()
    comments: Mapping[str, Any] = field(factory=dict)


@frozen
class Vocabulary:
    """The older home of word rules; :func:`vocabulary_rules` maps it onto ``terms:``."""

    preferred_terms: tuple[TermRule, ...] = ()
    forbidden_terms: tuple[TermRule, ...] = ()
    competitor_terms: tuple[TermRule, ...] = ()
    abbreviations: Mapping[str, str] = field(factory=dict)

    @property
    def is_empty(self) -> bool:
        return not (
            self.preferred_terms
            or self.forbidden_terms
            or self.competitor_terms
            or self.abbreviations
        )


@frozen
class Example:
    before: str = ""
    after: str = ""
    explanation: str = ""
    category: str = ""


@frozen
class ConstraintScope:
    """Where a constraint holds; an empty axis holds everywhere."""

    locale: str = ""
    channel: str = ""
    persona: str = ""

    def covers(self, *, locale: str = "", channel: str = "", persona: str = "") -> bool:
        return (
            (not self.locale or _locale_within(locale, self.locale))
            and (not self.channel or self.channel == channel)
            and (not self.persona or self.persona == persona)
        )


@frozen
class ConstraintException:
    scope: ConstraintScope = ConstraintScope()
    reason: str = ""
    approved_by: str = ""
    approval_ref: str = ""


@frozen
class Constraint:
    """A rule stated once: a ``prohibited_pattern`` is checked, ``guidance`` only reported."""

    id: str
    kind: str = "guidance"
    statement: str = ""
    regex: str = ""
    version: str = ""
    source: str = ""
    scope: ConstraintScope = ConstraintScope()
    exceptions: tuple[ConstraintException, ...] = ()

    def applies(self, *, locale: str = "", channel: str = "", persona: str = "") -> bool:
        """True when the constraint holds at this point and no exception covers it."""
        if not self.scope.covers(locale=locale, channel=channel, persona=persona):
            return False
        return not any(
            exception.scope.covers(locale=locale, channel=channel, persona=persona)
            for exception in self.exceptions
        )


@frozen
class LocaleOverride:
    formality: str = ""
    humor: str = ""
    person_pov: str = ""
    cultural_notes: tuple[str, ...] = ()
    vocabulary_overrides: Vocabulary | None = None


@frozen
class ChannelOverride:
    tone: Tone | None = None
    style: Style | None = None
    vocabulary: Vocabulary | None = None


@frozen
class PersonaOverride:
    tone: Tone | None = None
    style: Style | None = None
    preferred_terms: tuple[TermRule, ...] = ()
    avoided_terms: tuple[TermRule, ...] = ()


@frozen
class VoiceProfile:
    """A voice: how content should sound and which words and patterns it must avoid."""

    name: str = ""
    id: str = ""
    description: str = ""
    min_score: int = DEFAULT_MIN_SCORE
    tone: Tone = Tone()
    style: Style = Style()
    vocabulary: Vocabulary = Vocabulary()
    terms: tuple[TermRule, ...] = ()
    examples: tuple[Example, ...] = ()
    constraints: tuple[Constraint, ...] = ()
    locales: Mapping[str, LocaleOverride] = field(factory=dict)
    channels: Mapping[str, ChannelOverride] = field(factory=dict)
    personas: Mapping[str, PersonaOverride] = field(factory=dict)

    @property
    def term_rules(self) -> tuple[TermRule, ...]:
        """Every word rule in force: ``terms:`` first, then the mapped ``vocabulary:``."""
        return self.terms + vocabulary_rules(self.vocabulary)

    @property
    def has_deterministic_rules(self) -> bool:
        """True when ``voice.rules`` has something to check (word rules or patterns)."""
        return bool(
            any(rule.rejects for rule in self.term_rules)
            or self.style.prohibited_patterns
            or self.style.required_patterns
            or any(c.kind == "prohibited_pattern" for c in self.constraints)
        )

    def with_changes(self, **changes: Any) -> VoiceProfile:
        return evolve(self, **changes)


def vocabulary_rules(vocabulary: Vocabulary) -> tuple[TermRule, ...]:
    """Map ``vocabulary:`` lists onto term rules (the table of spec §3.5)."""
    out: list[TermRule] = list(vocabulary.forbidden_terms)
    out.extend(evolve(rule, competitor=True) for rule in vocabulary.competitor_terms)
    for rule in vocabulary.preferred_terms:
        if rule.term and rule.replacement and rule.replacement != rule.term:
            out.append(evolve(rule, advisory=True))
        else:
            preferred = rule.replacement or rule.term
            out.append(evolve(rule, term="", forms=(), replacement=preferred))
    return tuple(out)


def _locale_within(locale: str, scope: str) -> bool:
    """``en-GB`` lies within the scope ``en``; an empty locale lies nowhere in particular."""
    if not locale:
        return False
    locale, scope = locale.lower(), scope.lower()
    return locale == scope or locale.startswith(scope + "-")


# ---------------------------------------------------------------------------
# loading


_PROFILE_KEYS = frozenset(
    {
        "name",
        "id",
        "description",
        "min_score",
        "tone",
        "style",
        "vocabulary",
        "terms",
        "examples",
        "constraints",
        "locales",
        "channels",
        "personas",
    }
)
_TONE_KEYS = frozenset({"personality", "formality", "emotion", "humor", "guidelines"})
_STYLE_KEYS = frozenset(
    {
        "active_voice",
        "sentence_length",
        "person_pov",
        "contractions",
        "prohibited_patterns",
        "required_patterns",
        "comments",
    }
)
_PATTERN_KEYS = frozenset(
    {"regex", "description", "advisory", "rate", "scope", "not_after", "severity"}
)
_RATE_KEYS = frozenset({"max", "per_words"})
_TERM_KEYS = frozenset(
    {
        "term",
        "forms",
        "replacement",
        "replacement_forms",
        "accepted",
        "note",
        "advisory",
        "case_sensitive",
        "scope",
        "do_not_translate",
        "concept_id",
        "competitor",
        "severity",
    }
)
_ACCEPTED_KEYS = frozenset({"text", "forms"})
_VOCABULARY_KEYS = frozenset(
    {"preferred_terms", "forbidden_terms", "competitor_terms", "abbreviations"}
)
_EXAMPLE_KEYS = frozenset({"before", "after", "explanation", "category"})
_CONSTRAINT_KEYS = frozenset(
    {"id", "version", "source", "statement", "kind", "regex", "scope", "exceptions"}
)
_SCOPE_KEYS = frozenset({"locale", "channel", "persona"})
_EXCEPTION_KEYS = frozenset({"scope", "reason", "approved_by", "approval_ref"})
_LOCALE_KEYS = frozenset(
    {"formality", "humor", "person_pov", "cultural_notes", "vocabulary_overrides"}
)
_CHANNEL_KEYS = frozenset({"tone", "style", "vocabulary"})
_PERSONA_KEYS = frozenset({"tone", "style", "preferred_terms", "avoided_terms"})
_SEVERITIES = frozenset({"neutral", "minor", "major", "critical"})


def load_voice_profile(
    data: Mapping[str, Any] | Any, source: str, *, strict: bool = False
) -> tuple[VoiceProfile, tuple[ConfigWarning, ...]]:
    """Build a profile from parsed YAML; refuse with :class:`GovernanceError` naming the key.

    ``source`` is echoed in errors and warnings (``pack:<name>``,
    ``store:<name>`` or a path). With ``strict`` (``voice validate``) an
    unknown key is an error; otherwise it is a ``voice.unknown_key`` warning.
    """
    reader = _Reader(source, strict)
    profile = reader.profile(data)
    return profile, tuple(reader.warnings)


class _Reader:
    def __init__(self, source: str, strict: bool) -> None:
        self.source = source
        self.strict = strict
        self.warnings: list[ConfigWarning] = []

    # -- primitives --------------------------------------------------------

    def fail(self, path: KeyPath, message: str) -> GovernanceError:
        return GovernanceError(message, self.source, path=path)

    def warn(self, code: str, path: KeyPath, message: str) -> None:
        self.warnings.append(ConfigWarning(code, message, self.source, render_key(path)))

    def mapping(self, value: Any, path: KeyPath, what: str = "a mapping") -> Mapping[str, Any]:
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise self.fail(path, f"expected {what}, found {_kind(value)}")
        for key in value:
            if not isinstance(key, str):
                raise self.fail((*path, str(key)), f"keys must be text, found {_kind(key)}")
        return value

    def keys(
        self,
        data: Mapping[str, Any],
        path: KeyPath,
        allowed: frozenset[str],
        *,
        always_strict: bool = False,
    ) -> None:
        for key in data:
            if key in allowed:
                continue
            near = _near_miss(key, allowed)
            hint = f"; did you mean {near!r}?" if near else ""
            if self.strict or always_strict:
                raise self.fail((*path, key), f"unknown key {key!r}{hint}")
            self.warn("voice.unknown_key", (*path, key), f"unknown key {key!r} ignored{hint}")

    def string(self, data: Mapping[str, Any], key: str, path: KeyPath) -> str:
        value = data.get(key)
        if value is None:
            return ""
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise self.fail((*path, key), f"expected text, found {_kind(value)}")
        return str(value)

    def text(self, data: Mapping[str, Any], key: str, path: KeyPath) -> str:
        value = data.get(key)
        if value is None:
            return ""
        if not isinstance(value, str):
            raise self.fail((*path, key), f"expected text, found {_kind(value)}")
        return value

    def strings(self, data: Mapping[str, Any], key: str, path: KeyPath) -> tuple[str, ...]:
        value = data.get(key)
        if value is None:
            return ()
        if isinstance(value, str):
            return (value,)
        items = self.sequence(value, (*path, key))
        out: list[str] = []
        for index, item in enumerate(items):
            if not isinstance(item, str):
                raise self.fail((*path, key, index), f"expected text, found {_kind(item)}")
            out.append(item)
        return tuple(out)

    def sequence(self, value: Any, path: KeyPath) -> Sequence[Any]:
        if value is None:
            return ()
        if isinstance(value, str | bytes) or not isinstance(value, Sequence):
            raise self.fail(path, f"expected a list, found {_kind(value)}")
        return value

    def boolean(self, data: Mapping[str, Any], key: str, path: KeyPath) -> bool | None:
        value = data.get(key)
        if value is None:
            return None
        if not isinstance(value, bool):
            raise self.fail((*path, key), f"expected true or false, found {_kind(value)}")
        return value

    def integer(
        self, data: Mapping[str, Any], key: str, path: KeyPath, *, minimum: int
    ) -> int | None:
        value = data.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail((*path, key), f"expected a whole number, found {_kind(value)}")
        if value < minimum:
            raise self.fail((*path, key), f"must be at least {minimum}, found {value}")
        return value

    def closed(
        self, data: Mapping[str, Any], key: str, path: KeyPath, values: frozenset[str]
    ) -> str:
        value = self.text(data, key, path)
        if value and value not in values:
            raise self.fail(
                (*path, key), f"{value!r} is not one of {', '.join(sorted(v for v in values if v))}"
            )
        return value

    def open_value(
        self, data: Mapping[str, Any], key: str, path: KeyPath, values: frozenset[str]
    ) -> str:
        value = self.text(data, key, path)
        if value and value not in values:
            self.warn(
                "voice.unfamiliar_value",
                (*path, key),
                f"unfamiliar {key} {value!r} (known: {', '.join(sorted(values))})",
            )
        return value

    def regex(self, data: Mapping[str, Any], key: str, path: KeyPath, *, required: bool) -> str:
        value = self.text(data, key, path)
        if not value:
            if required:
                raise self.fail((*path, key), "a pattern needs a regex")
            return ""
        try:
            compile_portable(value)
        except PatternError as error:
            raise self.fail((*path, key), str(error)) from None
        return value

    # -- the schema ----------------------------------------------------------

    def profile(self, data: Any) -> VoiceProfile:
        root = self.mapping(data, (), "a voice profile (a mapping)")
        self.keys(root, (), _PROFILE_KEYS)
        min_score = self.integer(root, "min_score", (), minimum=0)
        if min_score is not None and min_score > 100:
            raise self.fail(("min_score",), f"must be at most 100, found {min_score}")
        return VoiceProfile(
            name=self.string(root, "name", ()),
            id=self.string(root, "id", ()),
            description=self.text(root, "description", ()),
            min_score=DEFAULT_MIN_SCORE if min_score is None else min_score,
            tone=self.tone(root.get("tone"), ("tone",)) or Tone(),
            style=self.style(root.get("style"), ("style",)) or Style(),
            vocabulary=self.vocabulary(root.get("vocabulary"), ("vocabulary",)) or Vocabulary(),
            terms=self.term_rules(root.get("terms"), ("terms",)),
            examples=self.examples(root.get("examples"), ("examples",)),
            constraints=self.constraints(root.get("constraints"), ("constraints",)),
            locales=self.locales(root.get("locales"), ("locales",)),
            channels=self.channels(root.get("channels"), ("channels",)),
            personas=self.personas(root.get("personas"), ("personas",)),
        )

    def tone(self, value: Any, path: KeyPath) -> Tone | None:
        if value is None:
            return None
        data = self.mapping(value, path)
        self.keys(data, path, _TONE_KEYS)
        return Tone(
            personality=self.strings(data, "personality", path),
            formality=self.open_value(data, "formality", path, TONE_VALUES["formality"]),
            emotion=self.open_value(data, "emotion", path, TONE_VALUES["emotion"]),
            humor=self.open_value(data, "humor", path, TONE_VALUES["humor"]),
            guidelines=self.strings(data, "guidelines", path),
        )

    def style(self, value: Any, path: KeyPath) -> Style | None:
        if value is None:
            return None
        data = self.mapping(value, path)
        self.keys(data, path, _STYLE_KEYS)
        return Style(
            active_voice=self.boolean(data, "active_voice", path),
            sentence_length=self.closed(
                data, "sentence_length", path, STYLE_VALUES["sentence_length"]
            ),
            person_pov=self.closed(data, "person_pov", path, STYLE_VALUES["person_pov"]),
            contractions=self.closed(data, "contractions", path, STYLE_VALUES["contractions"]),
            prohibited_patterns=self.patterns(
                data.get("prohibited_patterns"), (*path, "prohibited_patterns")
            ),
            required_patterns=self.patterns(
                data.get("required_patterns"), (*path, "required_patterns")
            ),
            comments=dict(self.mapping(data.get("comments"), (*path, "comments"))),
        )

    def patterns(self, value: Any, path: KeyPath) -> tuple[Pattern, ...]:
        out: list[Pattern] = []
        for index, item in enumerate(self.sequence(value, path)):
            where = (*path, index)
            if isinstance(item, str):
                item = {"regex": item}
            data = self.mapping(item, where, "a pattern (a mapping or a regex)")
            self.keys(data, where, _PATTERN_KEYS)
            rate = self.rate(data.get("rate"), (*where, "rate"))
            not_after = self.regex(data, "not_after", where, required=False)
            out.append(
                Pattern(
                    regex=self.regex(data, "regex", where, required=True),
                    description=self.text(data, "description", where),
                    advisory=self.advisory(data, where),
                    rate=rate,
                    scope=self.closed(data, "scope", where, SCOPES),
                    not_after=not_after,
                )
            )
        return tuple(out)

    def rate(self, value: Any, path: KeyPath) -> Rate | None:
        if value is None:
            return None
        data = self.mapping(value, path)
        self.keys(data, path, _RATE_KEYS)
        maximum = self.integer(data, "max", path, minimum=0)
        if maximum is None:
            raise self.fail((*path, "max"), "a rate needs max")
        per_words = self.integer(data, "per_words", path, minimum=1)
        return Rate(max=maximum, per_words=per_words or 1000)

    def advisory(self, data: Mapping[str, Any], path: KeyPath) -> bool:
        """``advisory``, or the legacy ``severity`` (anything but ``critical`` is advisory)."""
        advisory = self.boolean(data, "advisory", path)
        severity = self.text(data, "severity", path)
        if severity and severity not in _SEVERITIES:
            raise self.fail(
                (*path, "severity"), f"{severity!r} is not one of {', '.join(sorted(_SEVERITIES))}"
            )
        if advisory is not None:
            return advisory
        return bool(severity) and severity != "critical"

    def term_rules(self, value: Any, path: KeyPath) -> tuple[TermRule, ...]:
        out: list[TermRule] = []
        for index, item in enumerate(self.sequence(value, path)):
            out.append(self.term_rule(item, (*path, index)))
        return tuple(out)

    def term_rule(self, value: Any, path: KeyPath) -> TermRule:
        if isinstance(value, str):
            value = {"term": value}
        data = self.mapping(value, path, "a term rule (a mapping or a word)")
        self.keys(data, path, _TERM_KEYS)
        term = self.text(data, "term", path).strip()
        replacement = self.text(data, "replacement", path).strip()
        if not term and not replacement:
            raise self.fail(path, "a term rule needs a term or a replacement")
        accepted: list[AcceptedTerm] = []
        for index, item in enumerate(self.sequence(data.get("accepted"), (*path, "accepted"))):
            where = (*path, "accepted", index)
            if isinstance(item, str):
                item = {"text": item}
            entry = self.mapping(item, where)
            self.keys(entry, where, _ACCEPTED_KEYS)
            text = self.text(entry, "text", where).strip()
            if not text:
                raise self.fail((*where, "text"), "an accepted wording needs text")
            accepted.append(AcceptedTerm(text=text, forms=self.strings(entry, "forms", where)))
        return TermRule(
            term=term,
            forms=self.strings(data, "forms", path),
            replacement=replacement,
            replacement_forms=self.strings(data, "replacement_forms", path),
            accepted=tuple(accepted),
            note=self.text(data, "note", path),
            advisory=self.advisory(data, path),
            case_sensitive=self.boolean(data, "case_sensitive", path),
            scope=self.closed(data, "scope", path, SCOPES),
            do_not_translate=bool(self.boolean(data, "do_not_translate", path)),
            concept_id=self.string(data, "concept_id", path),
            competitor=bool(self.boolean(data, "competitor", path)),
        )

    def vocabulary(self, value: Any, path: KeyPath) -> Vocabulary | None:
        if value is None:
            return None
        data = self.mapping(value, path)
        self.keys(data, path, _VOCABULARY_KEYS)
        abbreviations = self.mapping(data.get("abbreviations"), (*path, "abbreviations"))
        for key, expansion in abbreviations.items():
            if not isinstance(expansion, str):
                raise self.fail(
                    (*path, "abbreviations", key), f"expected text, found {_kind(expansion)}"
                )
        return Vocabulary(
            preferred_terms=self.term_rules(
                data.get("preferred_terms"), (*path, "preferred_terms")
            ),
            forbidden_terms=self.term_rules(
                data.get("forbidden_terms"), (*path, "forbidden_terms")
            ),
            competitor_terms=self.term_rules(
                data.get("competitor_terms"), (*path, "competitor_terms")
            ),
            abbreviations=dict(abbreviations),
        )

    def examples(self, value: Any, path: KeyPath) -> tuple[Example, ...]:
        out: list[Example] = []
        for index, item in enumerate(self.sequence(value, path)):
            where = (*path, index)
            data = self.mapping(item, where)
            self.keys(data, where, _EXAMPLE_KEYS)
            out.append(
                Example(
                    before=self.text(data, "before", where),
                    after=self.text(data, "after", where),
                    explanation=self.text(data, "explanation", where),
                    category=self.closed(data, "category", where, EXAMPLE_CATEGORIES),
                )
            )
        return tuple(out)

    def constraints(self, value: Any, path: KeyPath) -> tuple[Constraint, ...]:
        out: list[Constraint] = []
        seen: set[str] = set()
        for index, item in enumerate(self.sequence(value, path)):
            where = (*path, index)
            data = self.mapping(item, where)
            self.keys(data, where, _CONSTRAINT_KEYS, always_strict=True)
            identifier = self.string(data, "id", where)
            if not identifier:
                raise self.fail((*where, "id"), "a constraint needs an id")
            if identifier in seen:
                raise self.fail((*where, "id"), f"constraint id {identifier!r} is declared twice")
            seen.add(identifier)
            kind = self.closed(data, "kind", where, CONSTRAINT_KINDS) or "guidance"
            regex = self.regex(data, "regex", where, required=kind == "prohibited_pattern")
            exceptions: list[ConstraintException] = []
            for number, entry in enumerate(
                self.sequence(data.get("exceptions"), (*where, "exceptions"))
            ):
                at = (*where, "exceptions", number)
                exception = self.mapping(entry, at)
                self.keys(exception, at, _EXCEPTION_KEYS, always_strict=True)
                exceptions.append(
                    ConstraintException(
                        scope=self.scope(exception.get("scope"), (*at, "scope")),
                        reason=self.text(exception, "reason", at),
                        approved_by=self.text(exception, "approved_by", at),
                        approval_ref=self.string(exception, "approval_ref", at),
                    )
                )
            out.append(
                Constraint(
                    id=identifier,
                    kind=kind,
                    statement=self.text(data, "statement", where),
                    regex=regex,
                    version=self.string(data, "version", where),
                    source=self.text(data, "source", where),
                    scope=self.scope(data.get("scope"), (*where, "scope")),
                    exceptions=tuple(exceptions),
                )
            )
        return tuple(out)

    def scope(self, value: Any, path: KeyPath) -> ConstraintScope:
        data = self.mapping(value, path)
        self.keys(data, path, _SCOPE_KEYS, always_strict=True)
        locale = self.text(data, "locale", path)
        if locale:
            locale = self.locale_key(locale, (*path, "locale"))
        return ConstraintScope(
            locale=locale,
            channel=self.text(data, "channel", path),
            persona=self.text(data, "persona", path),
        )

    def locale_key(self, tag: str, path: KeyPath) -> str:
        try:
            return canonical_locale(tag)
        except EditionKeyError as error:
            raise self.fail(path, str(error)) from None

    def locales(self, value: Any, path: KeyPath) -> dict[str, LocaleOverride]:
        data = self.mapping(value, path)
        out: dict[str, LocaleOverride] = {}
        for tag, entry in data.items():
            where = (*path, tag)
            locale = self.locale_key(tag, where)
            if locale in out:
                raise self.fail(where, f"locale {locale!r} is declared twice")
            body = self.mapping(entry, where)
            self.keys(body, where, _LOCALE_KEYS)
            out[locale] = LocaleOverride(
                formality=self.open_value(body, "formality", where, TONE_VALUES["formality"]),
                humor=self.open_value(body, "humor", where, TONE_VALUES["humor"]),
                person_pov=self.closed(body, "person_pov", where, STYLE_VALUES["person_pov"]),
                cultural_notes=self.strings(body, "cultural_notes", where),
                vocabulary_overrides=self.vocabulary(
                    body.get("vocabulary_overrides"), (*where, "vocabulary_overrides")
                ),
            )
        return out

    def channels(self, value: Any, path: KeyPath) -> dict[str, ChannelOverride]:
        data = self.mapping(value, path)
        out: dict[str, ChannelOverride] = {}
        for slug, entry in data.items():
            where = (*path, slug)
            _check_slug(self, slug, where)
            body = self.mapping(entry, where)
            self.keys(body, where, _CHANNEL_KEYS)
            out[slug] = ChannelOverride(
                tone=self.tone(body.get("tone"), (*where, "tone")),
                style=self.style(body.get("style"), (*where, "style")),
                vocabulary=self.vocabulary(body.get("vocabulary"), (*where, "vocabulary")),
            )
        return out

    def personas(self, value: Any, path: KeyPath) -> dict[str, PersonaOverride]:
        data = self.mapping(value, path)
        out: dict[str, PersonaOverride] = {}
        for name, entry in data.items():
            where = (*path, name)
            body = self.mapping(entry, where)
            self.keys(body, where, _PERSONA_KEYS)
            out[name] = PersonaOverride(
                tone=self.tone(body.get("tone"), (*where, "tone")),
                style=self.style(body.get("style"), (*where, "style")),
                preferred_terms=self.term_rules(
                    body.get("preferred_terms"), (*where, "preferred_terms")
                ),
                avoided_terms=self.term_rules(body.get("avoided_terms"), (*where, "avoided_terms")),
            )
        return out


def _check_slug(reader: _Reader, slug: str, path: KeyPath) -> None:
    if not re.match(_SLUG, slug):
        raise reader.fail(path, f"{slug!r} is not a slug (lowercase letters, digits and '-')")


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, Sequence):
        return "a list"
    return type(value).__name__


def _near_miss(key: str, allowed: frozenset[str]) -> str:
    """A known key one small edit away from ``key`` (a likely typo), else ``""``."""
    from difflib import get_close_matches  # only on a typo: keep it off the start-up path

    found = get_close_matches(key, sorted(allowed), n=1, cutoff=0.8)
    return found[0] if found else ""
