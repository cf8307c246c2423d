"""The points of a project the context compares rules at: the default point, each folder a
collection reads (with a sample path there), and the voices' word rules bound at them.

Shared by the answer at a path (:mod:`kapi.host.context`), the rules files and the fold
(the voices' rules are rules in force a suggestion may disagree with); it imports only the
core, so any of them may load it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from kapi.core.context.fold import StoreRule
from kapi.core.context.record import Record
from kapi.host.context_log import log_rule, rule_words, store_rules

if TYPE_CHECKING:
    from kapi.host.workspace import Workspace

__all__ = ["SAMPLE_PATH", "collection_folders", "rules_in_force", "voice_rules"]

SAMPLE_PATH = "AGENTS.md"  # the default point's sample: the rules files are no content


def collection_folders(workspace: Workspace) -> list[tuple[str, str]]:
    """The folders the collections read, each with a sample path a collection claims there:
    the part of each content glob before its first wildcard."""
    project = workspace.project
    if project is None:
        return []
    out: dict[str, str] = {}
    for collection in project.collections:
        for item in collection.items:
            parts = item.path.split("/")
            folder: list[str] = []
            for part in parts[:-1]:
                if any(c in part for c in "*?[{"):
                    break
                folder.append(part)
            if folder:
                out.setdefault("/".join(folder), _sample(item.path))
    return sorted(out.items())


def _sample(pattern: str) -> str:
    """A path the glob ``pattern`` matches: ``docs/**/*.md`` gives ``docs/AGENTS.md``."""
    import re

    name = pattern.replace("**/", "")
    name = re.sub(r"\{([^,}]*)[^}]*\}", r"\1", name)
    name = re.sub(r"\[[^\]]*\]", "x", name).replace("?", "x")
    head, _, last = name.rpartition("/")
    if "*" in last:
        last = last.replace("*", "AGENTS", 1).replace("*", "")
    return (head.replace("*", "x") + "/" if head else "") + last


def rules_in_force(
    store: Any, records: Sequence[Record], locale: str, governance: Callable[[], Any]
) -> list[StoreRule]:
    """The rules in force that name a wording the log's rules name, as the fold compares
    them: the terms store's (in ``locale``), then the voices' (``governance()`` is asked
    only when the log names a wording; None: no voices)."""
    words = rule_words(records)
    rules = store_rules(store.concepts_naming(words), locale)
    if words:
        loaded = governance()
        if loaded is not None:
            rules.extend(voice_rules(loaded, records, words))
    return rules


def voice_rules(governance: Any, records: Sequence[Record], words: set[str]) -> list[StoreRule]:
    """The voices' word rules in force that name one of ``words``, each at the point its voice
    is bound there: the default point, every folder a collection reads and every point the
    log's rules were seen at (a suggestion against one of them is contested). A voice that
    does not load is left out: the check and the brief say why."""
    from kapi.core.governance.errors import GovernanceError
    from kapi.core.governance.resolve import compose_voice, resolve_governance

    if not words:
        return []
    folded_words = {w.casefold() for w in words if w}
    paths = [SAMPLE_PATH, *(sample for _, sample in collection_folders(governance.workspace))]
    seen_at: set[tuple[tuple[str, str], ...]] = set()
    for record in records:  # one path for each point the log's rules were seen at
        if record.rule is None or not record.rule.term:
            continue
        where = tuple(sorted(record.scope.coordinates.items()))
        if where not in seen_at:
            seen_at.add(where)
            if record.evidence and record.evidence[0].path:
                paths.append(record.evidence[0].path)
    locale = governance.workspace.source_language
    out: dict[tuple[str, tuple[tuple[str, str], ...]], StoreRule] = {}
    composed: dict[tuple[Any, str], Any] = {}
    for path in paths:
        try:
            point = resolve_governance(governance.recipe, path, at=governance.at)
            binding = point.voice
            if binding is None or not any(
                all(point.coordinates.get(axis) == value for axis, value in where)
                for where in seen_at
            ):
                continue  # no voice, or none of the log's rules holds here: none to contest
            voice = composed.get((binding, point.channel))
            if voice is None:
                profile, _ = governance.load_voice(binding)
                voice, _ = compose_voice(
                    profile, locale=locale, channel=point.channel, source=binding.source
                )
                composed[(binding, point.channel)] = voice
        except GovernanceError:
            continue
        name = voice.id or binding.profile or binding.pack
        where = tuple(sorted(point.coordinates.items()))
        for rule in voice.term_rules:
            said = rule.replacement or rule.term
            if not said or not (
                rule.replacement.casefold() in folded_words
                or any(f.casefold() in folded_words for f in (rule.term, *rule.forms) if f)
            ):
                continue
            key = f"{name}/{said}"
            out.setdefault(
                (key, where),
                StoreRule(
                    key=key,
                    rule=log_rule(rule),
                    coordinates=dict(point.coordinates),
                    source="voice",
                    local=True,
                ),
            )
    return list(out.values())
