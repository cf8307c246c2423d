"""What applies where: ``kapi context PATH`` (a brief, or the JSON answer) and ``kapi context search``.

One function answers for a location (:func:`read_context`) and one searches
(:func:`search_context`); the CLI, the MCP resource and ``context_read`` all
call them, and each returns a typed value with ``encoded()`` (the JSON
answer) and ``markdown()`` (the brief). Store, voice and terms failures
become notes, never errors: an agent always gets an answer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from attrs import field, frozen

from kapi.core.context.errors import ContextError
from kapi.core.context.fold import Entry, Fold
from kapi.core.context.record import Evidence
from kapi.core.context.scope import applies_at
from kapi.core.context.settle import Standing
from kapi.host.context_points import SAMPLE_PATH, collection_folders
from kapi.host.context_terms import (
    ContextRule,
    ContextTermHit,
    find_terms,
    merged_rules,
    with_voice,
)
from kapi.host.wire import plain

if TYPE_CHECKING:
    from kapi.core.change.ports import Actor
    from kapi.core.governance.resolve import GovernancePoint
    from kapi.core.governance.terms import Concept
    from kapi.core.governance.voice import VoiceProfile
    from kapi.host.workspace import Workspace

__all__ = [
    "DEFAULT_CONTEXT_TERMS_LIMIT",
    "DEFAULT_SEARCH_LIMIT",
    "ContextAnswer",
    "ContextReadRequest",
    "ContextSearchRequest",
    "ContextSearchResult",
    "read_context",
    "search_context",
    "voice_brief",
]

DEFAULT_CONTEXT_TERMS_LIMIT = 25
DEFAULT_SEARCH_LIMIT = 10
TOP_USES = 3
NOTHING = (
    "Nothing is recorded for this file yet. Write as the surrounding files do, and record "
    "with `kapi context note` (MCP: context_note) what they keep to, even where your own text "
    "does not need it: a name, the spelling variety, a word preferred over a common "
    "alternative, with the file it is seen in. Leave alone a word the files write two ways."
)
INVITATION = (
    "When the files name a thing, spell a word one way, or prefer one word over a common "
    "alternative, record it with `kapi context note` (or `context_note`); leave alone the "
    "words the files write two ways."
)


# --- the answer -----------------------------------------------------------------------


@frozen
class ContextReadRequest:
    """A location (``path``) or a profile by name; ``locale`` narrows the terms."""

    path: str = ""
    profile: str = ""
    locale: str = ""
    explain: bool = False
    actor: Actor | None = None  # who asks: an agent's session is marked present
    comments: bool = False  # what applies to the comments of a source file at ``path``


@frozen
class ContextPoint:
    path: str
    profile: str = ""
    channel: str = ""
    collection: str = ""
    ref: str = ""
    coordinates: Mapping[str, str] = field(factory=dict)
    default: bool = True


@frozen
class ContextVoice:
    name: str
    source: str
    field: str
    guide: str = ""


@frozen
class ContextProvenance:
    """Where the answer was read: the project, the context log's revision (its operation
    count), whether the terms store is behind the log (and why), and the merges read last."""

    project: str
    revision: int
    stale: bool = False
    reason: str = ""
    sync: str = ""

    def sentence(self) -> str:
        said = f"Read from project `{self.project}` at context revision {self.revision}, "
        said += f"content stale: {self.reason}." if self.stale else "content current."
        return said + (f" {self.sync[:1].upper()}{self.sync[1:]}." if self.sync else "")


@frozen
class ContextKeep:
    """Wording held elsewhere in the project but not here: ``keep`` stays as it is here,
    though a kept rule renames it to ``instead`` in ``held_in``."""

    keep: tuple[str, ...]
    instead: str
    held_in: tuple[str, ...] = ()
    locale: str = ""

    def line(self) -> str:
        said = " and ".join(f'"{k}"' for k in self.keep)
        many = len(self.keep) > 1
        where = " and ".join(self.held_in) or "other parts of the project"
        return (
            f"{said} {'are' if many else 'is'} correct here; do not rename "
            f'{"them" if many else "it"} to "{self.instead}". That rename holds only in {where}.'
        )


@frozen
class ContextSuggestion:
    operation: str
    kind: str
    status: str
    contested_by: tuple[str, ...] = ()
    term: str = ""
    forms: tuple[str, ...] = ()
    replacement: str = ""
    advisory: bool = False
    text: str = ""
    note: str = ""
    suggested_by: str = ""
    session: str = ""
    at: str = ""
    evidence: tuple[Evidence, ...] = ()
    standing: Standing = field(factory=Standing)


@frozen
class ContextProfile:
    name: str
    state: str
    valid_from: str = ""
    valid_to: str = ""


@frozen
class ContextAnswer:
    """The answer for a location (spec §1b), with the brief it renders to."""

    point: ContextPoint
    scope: str
    coverage: str
    provenance: ContextProvenance
    voice: ContextVoice | None = None
    voice_brief: tuple[str, ...] = ()
    constraints: tuple[str, ...] = ()
    terms: tuple[ContextTermHit, ...] = ()
    terms_total: int = 0
    rules: tuple[ContextRule, ...] = ()
    rules_total: int = 0
    suggestions: tuple[ContextSuggestion, ...] = ()
    profiles: tuple[ContextProfile, ...] = ()
    attention: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    notice: str = ""
    keep: tuple[ContextKeep, ...] = ()
    profile_name: str = ""
    explain: bool = False

    def encoded(self) -> dict[str, Any]:
        data: dict[str, Any] = plain(self)
        data.pop("profile_name")
        data.pop("explain")
        return data

    def markdown(self) -> str:
        return _brief(self)


# --- resolving a location -------------------------------------------------------------


def read_context(request: ContextReadRequest, workspace: Workspace) -> ContextAnswer:
    """What applies at a path (or for a profile): point, voice, terms, rules, suggestions."""
    from kapi.host.context_project import ProjectContext

    if request.path and request.profile:
        raise ContextError("give a PATH or --profile NAME, not both")
    context = ProjectContext(workspace)
    if request.actor is not None:
        context.touch(request.actor)
    notes: list[str] = []
    attention: list[str] = []
    if request.profile:
        return _profile_answer(context, request, notes)
    path = _location(context, request.path)
    locale = request.locale or workspace.source_language
    governance, point, voice, voice_source = _resolve(
        context, path, locale, notes, attention, comments=request.comments
    )
    coordinates = dict(point.coordinates) if point is not None else {}
    found = _store_terms(context, governance, locale, coordinates, notes)
    terms, terms_total = found.terms, found.total
    merged = with_voice(found.merged, voice, locale)
    rules = merged.rules(DEFAULT_CONTEXT_TERMS_LIMIT)
    folded = _fold(governance, context, locale, notes)
    suggestions = _suggestions(folded, coordinates, merged.said)
    keep: list[ContextKeep] = []
    if found.scoped:  # a kept rule holds only at some points: say what stays as it is here
        concepts = _concepts(governance or context, notes)
        here = _here(governance, concepts, coordinates)
        keep = keep_as_is(context.workspace, governance, concepts, here, locale)
    present = sum(bool(x) for x in (voice is not None, terms, rules))
    coverage = "covered" if present >= 2 else "thin" if present == 1 else "empty"
    if coverage == "empty" and suggestions:
        coverage = "thin"
    if point is not None and point.profile:
        attention.append(
            ("Comments in this file are" if request.comments else "This file is")
            + f" governed by the `{point.profile}` profile"
            + (f" (channel `{point.channel}`)." if point.channel else ".")
        )
    if request.comments:
        voice_name = voice.name or voice.id if voice is not None else ""
        attention.append(
            f"`kapi check --comments` checks this file's comments with the voice {voice_name}."
            if voice_name
            else "`kapi check --comments` checks this file's comments with no voice bound."
        )
    brief = tuple(voice_brief(voice)) if voice is not None else ()
    return ContextAnswer(
        point=_point(path, point),
        scope="project",
        coverage=coverage,
        provenance=provenance(context, folded, locale),
        voice=_voice(voice, voice_source, point),
        voice_brief=brief,
        constraints=tuple(c.statement for c in voice.constraints if c.statement)
        if voice is not None
        else (),
        terms=tuple(terms),
        terms_total=terms_total,
        rules=tuple(rules),
        rules_total=merged.total,
        suggestions=tuple(suggestions),
        profiles=tuple(_profiles(context)),
        attention=tuple(attention),
        notes=tuple(notes),
        keep=tuple(keep),
        explain=request.explain,
    )


def _store_terms(
    context: Any, governance: Any, locale: str, coordinates: dict[str, str], notes: list[str]
) -> Any:
    """The terms store's merged rules and first terms at the point (kept between runs)."""
    from kapi.host.context_terms import StoreTerms, store_terms

    try:
        if governance is None:
            concepts = tuple(context.store.concepts())
            here = _here(None, concepts, coordinates)
            merged = merged_rules(here, None, locale)
            hits, total = find_terms(
                here, locale, datetime.now(UTC), limit=DEFAULT_CONTEXT_TERMS_LIMIT
            )
            return StoreTerms(merged.merged, hits, total, scoped=len(here) != len(concepts))
        return store_terms(
            context.store,
            context.project,
            locale,
            coordinates,
            DEFAULT_CONTEXT_TERMS_LIMIT,
            governance.concepts,
            governance.concepts_at,
        )
    except Exception as err:  # a damaged store is a note: the rest still answers
        notes.append(f"The terms store could not be read: {err}")
        return StoreTerms({}, [], 0, scoped=False)


def _here(
    governance: Any, concepts: tuple[Concept, ...], coordinates: Mapping[str, str]
) -> tuple[Concept, ...]:
    """The concepts that hold at a point (a kept rule's concept holds where it was kept)."""
    if governance is not None:
        return tuple(governance.concepts_at(coordinates))
    if not any(c.properties for c in concepts):
        return concepts
    from kapi.core.context.scope import holds_at

    return tuple(c for c in concepts if holds_at(c.properties, coordinates))


def keep_as_is(
    workspace: Workspace,
    governance: Any,
    concepts: Sequence[Concept],
    here: Sequence[Concept],
    locale: str,
) -> list[ContextKeep]:
    """The wording a kept rule renames elsewhere but that stays as it is at this point (only
    the old wording: never a spelling variant of the new name), with where the rename holds."""
    if len(here) == len(concepts):
        return []
    from kapi.core.context.scope import (
        PROP_COORDINATES,
        applies_at,
        holds_at,
        parse_coordinates,
        spelling_variant,
    )
    from kapi.core.governance.terms import _preferred, locale_matches

    held = {c.id for c in here}
    folders = None
    out = []
    for concept in concepts:
        if concept.id in held or not concept.properties:
            continue
        terms = [t for t in concept.terms if locale_matches(t.locale, locale)]
        preferred = _preferred(terms)
        if preferred is None:
            continue
        keep = tuple(
            t.text
            for t in terms
            if (t.competitor_term or t.status in ("deprecated", "forbidden"))
            and not spelling_variant(t.text, preferred.text)
        )
        if not keep:
            continue
        if folders is None:
            folders = _folder_points(workspace, governance)
        held_in = tuple(f + "/" for f, point in folders if holds_at(concept.properties, point))
        if not held_in:
            scoped = parse_coordinates(concept.properties.get(PROP_COORDINATES, ""))
            if scoped and not applies_at(scoped, {}):
                held_in = ("files at " + ", ".join(f"{a} {v}" for a, v in scoped.items()),)
        out.append(ContextKeep(keep=keep, instead=preferred.text, held_in=held_in, locale=locale))
    out.sort(key=lambda k: (k.instead.casefold(), k.keep))
    return out


def _folder_points(workspace: Workspace, governance: Any) -> list[tuple[str, Mapping[str, str]]]:
    if governance is None:
        return []
    from kapi.core.governance.errors import GovernanceError
    from kapi.core.governance.resolve import resolve_governance

    out: list[tuple[str, Mapping[str, str]]] = []
    for folder, sample in collection_folders(workspace):
        try:
            point = resolve_governance(governance.recipe, sample, at=governance.at)
        except GovernanceError:
            continue
        out.append((folder, dict(point.coordinates)))
    return out


def provenance(context: Any, folded: Fold, locale: str) -> ContextProvenance:
    """The log's revision read, whether the terms store is behind it, and the last merges read."""
    reason = store_behind(folded, context.store, locale)
    merges = [
        r.signal
        for r in folded.records
        if r.signal is not None and r.signal.source == "merge" and r.id not in folded.reset
    ]
    sync = ""
    if merges:
        last = merges[-1]
        sync = f"merges read up to {last.commit[:7]}" + (f" (#{last.pr})" if last.pr else "")
    return ContextProvenance(
        project=context.log.project,
        revision=len(folded.records),
        stale=bool(reason),
        reason=reason,
        sync=sync,
    )


def store_behind(folded: Fold, store: Any, locale: str) -> str:
    """Why the terms store does not say what the log establishes ("" when it does): a rule the
    log establishes whose wording the store lacks, or a rule kapi wrote that the log no longer
    establishes."""
    from kapi.core.context.record import OpKind, Status
    from kapi.core.context.scope import PROP_ORIGIN
    from kapi.host.context_log import concept_rules

    kept = [
        e
        for e in folded.established
        if e.rule is not None and e.rule.term and e.record.kind in (OpKind.OBSERVE, OpKind.CORRECT)
    ]
    missing = []
    if kept:
        words = {f for e in kept if e.rule is not None for f in e.rule.avoided}
        rejected = {
            r.term.casefold()
            for r in concept_rules(store.concepts_naming(words), locale)
            if r.rejects
        }
        for entry in kept:
            rule = entry.rule
            assert rule is not None
            said = rule.replacement.casefold()
            if any(f.casefold() not in rejected for f in rule.avoided if f.casefold() != said):
                missing.append(entry.record.short)
    leftover = []
    for concept in store.concepts_with_properties():
        origin = concept.properties.get(PROP_ORIGIN)
        if not origin or not any(t.status in ("deprecated", "forbidden") for t in concept.terms):
            continue
        found = folded.entry(origin)
        if found is not None and found.status != Status.ESTABLISHED:
            leftover.append(origin[:10])
    parts = []
    if missing:
        parts.append(
            f"the terms store lacks the wording of {_ids(missing)}, which the log establishes"
        )
    if leftover:
        parts.append(
            f"the terms store still holds {_ids(leftover)}, which the log no longer establishes"
        )
    if parts:
        parts.append("`kapi context sync --files-only` brings it in step")
    return "; ".join(parts)


def _ids(shorts: Sequence[str], shown: int = 5) -> str:
    named = " ".join("#" + s for s in shorts[:shown])
    return named + (f" and {len(shorts) - shown} more" if len(shorts) > shown else "")


def _location(context: Any, path: str) -> str:
    """A project-relative location: relative to where you are when inside, else to the root."""
    from pathlib import Path

    if not path:
        return SAMPLE_PATH
    project = context.project
    base = context.workspace.cwd or Path.cwd()
    given = Path(path)
    candidate = given if given.is_absolute() else base / given
    relative = project.relative(candidate)
    if relative is None and not given.is_absolute():
        candidate = project.root / given
        relative = project.relative(candidate)
    if relative is not None and not _stays_inside(project.root, candidate):
        relative = None  # a symbolic link on the way leads out
    if relative is None or relative.startswith("../"):
        raise ContextError(
            f"{path}: not inside this project; ask about a file in it", code="invalid"
        )
    return relative or SAMPLE_PATH


def _stays_inside(root: Any, path: Any) -> bool:
    import os

    from kapi.formats.containment import is_inside

    return is_inside(os.path.realpath(root), path)


def _resolve(
    context: Any,
    path: str,
    locale: str,
    notes: list[str],
    attention: list[str],
    *,
    comments: bool = False,
) -> tuple[Any, GovernancePoint | None, VoiceProfile | None, str]:
    """The run's governance (None when the recipe's does not load), the point and its voice."""
    from kapi.core.governance.errors import GovernanceError
    from kapi.host.governance import Governance

    try:
        governance = Governance(context.workspace)
    except Exception as err:  # the recipe's governance does not load: say so, answer anyway
        attention.append(f"The project's governance did not load: {err}")
        return None, None, None, ""
    try:
        resolved = governance.resolve(path, locale, comments=comments, suggested=False, terms=False)
    except GovernanceError as err:
        attention.append(f"A binding failed to load: {err.source}: {err.message}")
        from kapi.core.governance.resolve import resolve_governance

        try:
            point = resolve_governance(governance.recipe, path, at=governance.at)
        except GovernanceError:
            point = None
        return governance, point, None, ""
    for warning in resolved.warnings:
        notes.append(str(getattr(warning, "message", warning)))
    return governance, resolved.point, resolved.voice, resolved.voice_source


def _concepts(source: Any, notes: list[str]) -> tuple[Concept, ...]:
    """The terms store's concepts, from the run's governance (loaded once) or the store."""
    try:
        if hasattr(source, "concepts"):
            return tuple(source.concepts())
        return tuple(source.store.concepts())
    except Exception as err:  # a damaged store is a note: the rest still answers
        notes.append(f"The terms store could not be read: {err}")
        return ()


def _fold(governance: Any, context: Any, locale: str, notes: list[str]) -> Fold:
    try:
        if governance is not None and locale == context.workspace.source_language:
            folded: Fold = governance.context_fold()[0] or Fold()
        else:
            folded = context.log.fold(context.in_force(locale, governance))
        return folded
    except Exception as err:
        notes.append(f"The context log could not be read: {err}")
        return Fold()


def _point(path: str, point: GovernancePoint | None) -> ContextPoint:
    if point is None:
        return ContextPoint(path=path)
    ref = f"{point.profile}/{point.channel}" if point.profile else ""
    return ContextPoint(
        path=path,
        profile=point.profile,
        channel=point.channel,
        collection=point.collection,
        ref=ref,
        coordinates=dict(point.coordinates),
        default=point.fallback,
    )


def _voice(
    voice: VoiceProfile | None, source: str, point: GovernancePoint | None
) -> ContextVoice | None:
    if voice is None:
        return None
    return ContextVoice(
        name=voice.name or voice.id,
        source=source,
        field=point.voice_field if point is not None else "",
        guide=voice.description,
    )


def voice_brief(voice: VoiceProfile) -> list[str]:
    """The voice in a few lines: name, description, the tone and style fields that are set,
    patterns, examples and constraints."""
    lines = [
        f"Voice: {voice.name or voice.id}" + (f". {voice.description}" if voice.description else "")
    ]
    tone = voice.tone
    if tone.personality:
        lines.append("Personality: " + ", ".join(tone.personality) + ".")
    for label, value in (
        ("Formality", tone.formality),
        ("Emotion", tone.emotion),
        ("Humour", tone.humor),
    ):
        if value:
            lines.append(f"{label}: {value}.")
    lines.extend(f"- {g}" for g in tone.guidelines)
    style = voice.style
    if style.active_voice is not None:
        lines.append(
            "Prefer the active voice." if style.active_voice else "The passive voice is fine."
        )
    for label, value in (
        ("Sentences", style.sentence_length),
        ("Point of view", style.person_pov),
        ("Contractions", style.contractions),
    ):
        if value:
            lines.append(f"{label}: {value}.")
    for pattern in style.prohibited_patterns:
        if pattern.description:
            lines.append(f"Avoid: {_sentence(pattern.description)}")
    for example in voice.examples:
        if example.before and example.after:
            lines.append(f'Write "{example.after}", not "{example.before}".')
    for constraint in voice.constraints:
        if constraint.statement:
            lines.append(f"- {constraint.statement}")
    return lines


def _sentence(text: str) -> str:
    """``text`` as a sentence: a full stop added unless it ends with one (or ``!`` or ``?``)."""
    text = text.rstrip()
    return text if text.endswith((".", "!", "?", "…")) else text + "."


def _suggestions(
    folded: Fold, coordinates: Mapping[str, str], said: set[tuple[str, str]]
) -> list[ContextSuggestion]:
    out = []
    for entry in folded.advising:
        if not applies_at(entry.scope.coordinates, coordinates):
            continue
        rule = entry.rule
        if (
            rule is not None
            and rule.term
            and all((rule.replacement.casefold(), f.casefold()) in said for f in rule.avoided)
        ):
            continue
        out.append(_suggestion(entry))
    return out


def _suggestion(entry: Entry) -> ContextSuggestion:
    record = entry.record
    rule = entry.rule
    return ContextSuggestion(
        operation=record.id,
        kind="term" if rule is not None and rule.term else "note",
        status=str(entry.status),
        contested_by=entry.contested_by,
        term=rule.term if rule else "",
        forms=rule.forms if rule else (),
        replacement=rule.replacement if rule else "",
        advisory=rule.advisory if rule else False,
        text=record.subject.text if record.subject is not None else "",
        note=record.note,
        suggested_by=record.actor.name or str(record.actor.kind),
        session=record.actor.session,
        at=record.at,
        evidence=record.evidence,
        standing=entry.standing,
    )


def _profiles(context: Any) -> list[ContextProfile]:
    from kapi.core.governance.validity import parse_instant

    now = datetime.now(UTC)
    out = []
    for name, body in sorted((context.project.raw.get("profiles") or {}).items()):
        body = body or {}
        start, end = str(body.get("valid_from") or ""), str(body.get("valid_to") or "")
        if not (start or end):
            continue
        try:
            state = (
                "upcoming"
                if start and now < parse_instant(start)
                else "expired"
                if end and now >= parse_instant(end)
                else "active"
            )
        except ValueError:
            continue
        out.append(ContextProfile(name=str(name), state=state, valid_from=start, valid_to=end))
    return out


def _profile_answer(context: Any, request: ContextReadRequest, notes: list[str]) -> ContextAnswer:
    """A profile by name: declared profiles as declared, then the store's voices, then packs."""
    from kapi.core.governance.errors import GovernanceError
    from kapi.core.governance.packs import pack_names
    from kapi.core.governance.resolve import VoiceBinding, compose_voice
    from kapi.host.governance import Governance

    name = request.profile.strip()
    if not name:
        raise ContextError("--profile needs a name: a declared profile, a stored voice or a pack")
    governance = Governance(context.workspace)
    attention: list[str] = []
    if name in governance.recipe.profiles:
        point, voice, source = _resolve_profile(governance, name, attention)
        scope = "project"
    else:
        if context.store.voice_profile(name) is not None:
            binding = VoiceBinding(profile=name)
        elif name in pack_names():
            binding = VoiceBinding(pack=name)
        else:
            declared = ", ".join(sorted(governance.recipe.profiles)) or "none declared"
            raise ContextError(
                f"no profile, stored voice or pack named {name!r}: profiles: {declared}; "
                f"packs: {', '.join(pack_names())}",
                code="not_found",
            )
        try:
            profile, _ = governance.load_voice(binding)
            voice, _ = compose_voice(
                profile, locale="", channel="", persona="", source=binding.source
            )
        except GovernanceError as err:
            raise ContextError(f"{err.source}: {err.message}") from None
        point, source, scope = None, binding.source, "profile"
        notes.append(f"{name} is a voice, not a declared profile: no terms or windows apply.")
    concepts = _concepts(context, notes) if scope == "project" else ()
    locale = request.locale or context.workspace.source_language
    merged = merged_rules(concepts, voice, locale)
    rules = merged.rules(DEFAULT_CONTEXT_TERMS_LIMIT)
    terms, terms_total = find_terms(
        concepts, locale, datetime.now(UTC), limit=DEFAULT_CONTEXT_TERMS_LIMIT
    )
    present = sum(bool(x) for x in (voice is not None, terms, rules))
    return ContextAnswer(
        point=_point(SAMPLE_PATH, point),
        scope=scope,
        coverage="covered" if present >= 2 else "thin" if present == 1 else "empty",
        provenance=provenance(context, _fold(None, context, locale, notes), locale),
        voice=_voice(voice, source, point),
        voice_brief=tuple(voice_brief(voice)) if voice is not None else (),
        terms=tuple(terms),
        terms_total=terms_total,
        rules=tuple(rules),
        rules_total=merged.total,
        attention=tuple(attention),
        notes=tuple(notes),
        profile_name=name,
        explain=request.explain,
    )


def _resolve_profile(governance: Any, name: str, attention: list[str]) -> tuple[Any, Any, str]:
    """A declared profile's point and voice, as the run's governance resolves it by name."""
    from kapi.core.governance.errors import GovernanceError
    from kapi.host.governance import Governance

    try:
        resolved = Governance(governance.workspace, profile=name).resolve(SAMPLE_PATH)
    except GovernanceError as err:
        attention.append(f"A binding failed to load: {err.source}: {err.message}")
        return None, None, ""
    return resolved.point, resolved.voice, resolved.voice_source


# --- the brief ------------------------------------------------------------------------


def rule_line(rule: ContextRule) -> str:
    """``- Say "X", not "a" or "b" (also "c"): note``, or ``- Avoid "x"``."""
    avoided = " or ".join(f'"{n}"' for n in rule.not_)
    if not rule.say:
        line = f"- Avoid {avoided}"
    else:
        line = f'- Say "{rule.say}", not {avoided}'
    if rule.also:
        line += " (also " + ", ".join(f'"{a}"' for a in rule.also) + ")"
    if rule.note and rule.note != f"use: {rule.say}":
        line += f": {rule.note}"
    return line


def suggestion_line(s: ContextSuggestion) -> str:
    if s.kind == "term":
        avoided = ", ".join(f'"{f}"' for f in (s.term, *s.forms))
        where = s.evidence[0].path if s.evidence and s.evidence[0].path else ""
        who = s.suggested_by + (f", seen in {where}" if where else "")
        line = f"- {s.replacement}, not {avoided}" + (f": {s.note}" if s.note else "") + f" ({who})"
        if s.standing.text():
            line += f" · {s.standing.text()}"
    else:
        line = f"- {s.text}"
    if s.contested_by:
        from kapi.core.context.fold import rivals_text

        line += f" [contested by {rivals_text(s.contested_by)}]"
    return line


def _brief(answer: ContextAnswer) -> str:
    lines: list[str] = []
    if answer.profile_name:
        lines.append(f"# Writing for the {answer.profile_name} profile")
    else:
        lines.append(f"# Writing {answer.point.path}")
    lines.append("")
    if answer.attention:
        lines.extend(answer.attention)
        lines.append("")
    if answer.voice_brief:
        lines.extend(answer.voice_brief)
        lines.append("")
    if answer.rules:
        lines.append("Say this, not that:")
        lines.extend(rule_line(r) for r in answer.rules)
        if answer.rules_total > len(answer.rules):
            lines.append(
                f"Showing {len(answer.rules)} of {answer.rules_total}. context_search (or "
                "`kapi context search <word>`) finds one by name."
            )
        lines.append("")
    if answer.keep:
        lines.append("Keep as it is:")
        lines.extend(f"- {k.line()}" for k in answer.keep)
        lines.append("")
    if answer.suggestions:
        lines.append("Suggested, not yet established:")
        lines.extend(suggestion_line(s) for s in answer.suggestions)
        lines.append("")
    if not (answer.voice_brief or answer.rules or answer.suggestions or answer.terms):
        lines.append(NOTHING)
    elif answer.scope != "profile":
        lines.append(INVITATION)
    if answer.explain:
        lines.extend(["", "## How this was answered", ""])
        point = answer.point
        where = (
            f"profile `{point.profile}`, channel `{point.channel}`"
            if point.profile
            else "the default point"
        )
        lines.append(
            f"- Point: {point.path} sits at {where}"
            + (f", collection `{point.collection}`" if point.collection else "")
            + "."
        )
        if answer.voice is not None:
            lines.append(
                f"- Voice: {answer.voice.name} from {answer.voice.source}, bound by `{answer.voice.field or 'default'}`."
            )
        else:
            lines.append("- Voice: none is bound here.")
        lines.append(f"- Scope: {answer.scope}.")
        lines.append(f"- {answer.provenance.sentence()}")
        if answer.profiles:
            lines.append("- Governance windows:")
            lines.extend(
                f"  - {p.name}: {p.state} ({p.valid_from or '…'} to {p.valid_to or '…'})"
                for p in answer.profiles
            )
        if answer.notes:
            lines.append("- Notes:")
            lines.extend(f"  - {n}" for n in answer.notes)
    return "\n".join(lines).rstrip() + "\n"


# --- search ---------------------------------------------------------------------------


@frozen
class ContextSearchRequest:
    """A search; ``terms`` / ``memory`` name a terms file (JSON, TBX, CSV) / a memory file
    (TMX, PO, XLIFF) inside the project searched instead of the project's own store."""

    query: str
    locale: str = ""
    limit: int = DEFAULT_SEARCH_LIMIT
    actor: Actor | None = None  # who asks: an agent's session is marked present
    terms: str = ""
    memory: str = ""


@frozen
class Precedent:
    entry_id: str
    text: str
    locale: str
    note: str = ""
    discouraged: tuple[str, ...] = ()


@frozen
class ContextSearchResult:
    """Separate ranked groups: terms, approved wording in memory, suggestions, profiles."""

    query: str
    scope: str
    coverage: str
    provenance: ContextProvenance
    terms: tuple[ContextTermHit, ...] = ()
    precedent: tuple[Precedent, ...] = ()
    suggestions: tuple[ContextSuggestion, ...] = ()
    profiles: tuple[ContextProfile, ...] = ()
    notice: str = ""
    attention: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def encoded(self) -> dict[str, Any]:
        data: dict[str, Any] = plain(self)
        return data

    def text(self) -> str:
        lines: list[str] = []
        for hit in self.terms:
            state = "discouraged" if hit.discouraged else "ok"
            line = f"{hit.term}  {state}"
            if hit.replacement:
                line += f', say "{hit.replacement}"'
            line += f" ({hit.locale}, {hit.status})"
            if hit.valid_to:
                line += f" until {hit.valid_to}"
            if hit.domain:
                line += f" [{hit.domain}]"
            lines.append(line)
            if hit.definition:
                lines.append(f"  {hit.definition}")
            lines.append(
                f"  used {hit.uses} time(s) in {hit.use_blocks} block(s), as of the last extraction"
            )
        if self.precedent:
            lines.append("Already approved wording:")
            for p in self.precedent:
                flag = f" (holds retired {', '.join(p.discouraged)})" if p.discouraged else ""
                lines.append(f"- [{p.locale}] {p.text}{flag}")
        if self.suggestions:
            lines.append("Suggested, not yet established:")
            lines.extend(suggestion_line(s) for s in self.suggestions)
        if self.profiles:
            lines.append("Governing profiles:")
            lines.extend(f"- {p.name}: {p.state}" for p in self.profiles)
        if not lines:
            lines.append(f"Nothing in this project's context matches {self.query!r}.")
        lines.extend(self.notes)
        return "\n".join(lines) + "\n"


def search_context(request: ContextSearchRequest, workspace: Workspace) -> ContextSearchResult:
    """Search the terms (text and definitions), approved wording, and pending suggestions."""
    from kapi.host.context_project import ProjectContext

    query = request.query.strip()
    if not query:
        raise ContextError("search needs a word: `kapi context search WORD`")
    if request.limit < 1:
        raise ContextError("--limit is at least 1")
    notes: list[str] = []
    standalone_terms: tuple[Concept, ...] | None = None
    if request.terms:  # read before anything else, so a bad file refuses the search whole
        from kapi.host.terms import read_terms_file

        standalone_terms = read_terms_file(workspace, request.terms)
        notes.append(f"Terms come from {request.terms}, not the project's store.")
    standalone_memory: list[tuple[str, str, str]] | None = None
    if request.memory:
        from kapi.host.memory import search_memory_file

        standalone_memory = search_memory_file(workspace, request.memory, query, request.limit)
        notes.append(f"Approved wording comes from {request.memory}, not the project's store.")
    context = ProjectContext(workspace)
    if request.actor is not None:
        context.touch(request.actor)
    needle = query.casefold()
    concepts = standalone_terms if standalone_terms is not None else _concepts(context, notes)
    locale = request.locale
    hits, _ = find_terms(concepts, locale, datetime.now(UTC), needle=needle)
    hits.sort(
        key=lambda h: (
            h.term.casefold() != needle,
            not h.term.casefold().startswith(needle),
            h.term.casefold(),
        )
    )
    retired = {
        h.term.casefold() for h in find_terms(concepts, "", datetime.now(UTC))[0] if h.discouraged
    }
    precedent = []
    memory = (
        standalone_memory
        if standalone_memory is not None
        else context.store.memory_search(query, request.limit)
    )
    for entry_id, entry_locale, text in memory:
        folded_text = text.casefold()
        precedent.append(
            Precedent(
                entry_id=entry_id,
                text=text,
                locale=entry_locale,
                discouraged=tuple(sorted(r for r in retired if r in folded_text)),
            )
        )
    folded = _fold(None, context, locale or workspace.source_language, notes)
    suggestions = [_suggestion(e) for e in folded.advising if needle in _haystack(e)]
    found = bool(hits) + bool(precedent)
    coverage = "covered" if found >= 2 else "thin" if found or suggestions else "empty"
    if coverage == "empty":
        notes.append("Nothing recorded matches; a person adds terms with `kapi terms import`.")
    return ContextSearchResult(
        query=query,
        scope="project",
        coverage=coverage,
        provenance=provenance(context, folded, locale or workspace.source_language),
        terms=tuple(hits[: request.limit]),
        precedent=tuple(precedent[: request.limit]),
        suggestions=tuple(suggestions[: request.limit]),
        profiles=tuple(p for p in _profiles(context) if needle in p.name.casefold()),
        notes=tuple(notes),
    )


def _haystack(entry: Entry) -> str:
    record = entry.record
    parts = [record.note]
    if entry.rule is not None:
        parts += [entry.rule.replacement, *entry.rule.avoided, entry.rule.note]
    if record.subject is not None:
        parts.append(record.subject.text)
    if record.correction is not None:
        parts += [record.correction.from_, record.correction.to]
    return "\n".join(parts).casefold()
