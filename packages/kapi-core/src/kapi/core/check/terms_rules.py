"""Word rules through the one matcher, and the ``terms`` analyzer (``terms.vocabulary``).

:class:`WordRules` is shared by ``voice.rules``, ``terms`` and ``suggested``:
one matcher per kind of text a rule's ``scope`` names (prose, headings,
inline code), so a rule never matches where its scope says it does not.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Sequence
from functools import lru_cache

from kapi.core.check.analyzers import (
    Analyzer,
    AnalyzerStatus,
    CheckUnit,
    Probe,
    sample_block,
)
from kapi.core.check.findings import Finding
from kapi.core.check.matcher import TermMatch, TermMatcher
from kapi.core.check.text import TextView
from kapi.core.governance.voice import TermRule
from kapi.core.model import Block

__all__ = ["TermsAnalyzer", "WordRules", "word_message", "word_probe", "word_rules"]


class WordRules:
    """A rule list compiled for each scope: prose and headings (code masked), and inline code."""

    def __init__(self, rules: Sequence[TermRule], locale: str) -> None:
        self.rules = tuple(rules)
        self.prose = TermMatcher([r for r in rules if r.scope in ("", "prose")], locale=locale)
        self.heading = TermMatcher([r for r in rules if r.scope in ("", "heading")], locale=locale)
        self.code = TermMatcher([r for r in rules if r.scope == "code"], locale=locale)

    @property
    def rejects_anything(self) -> bool:
        return any(rule.rejects for rule in self.rules)

    def violations(
        self, block: Block, views: Sequence[TextView]
    ) -> Iterator[tuple[TextView, TermMatch]]:
        """Each rejected wording in the block's texts, with the view it was found in."""
        prose = self.heading if block.role == "heading" else self.prose
        for view in views:
            for match in prose.violations(view.prose):
                yield view, match
            if self.code.rules:
                for match in self.code.violations(view.code):
                    yield view, match


@lru_cache(maxsize=256)
def _word_rules(rules: tuple[TermRule, ...], locale: str) -> WordRules:
    return WordRules(rules, locale)


# The rule lists seen last, by identity: hashing a list of rules hashes every rule, which
# costs more than matching one short block (a commit check asks once per edited block).
_SEEN: dict[tuple[int, str], tuple[tuple[TermRule, ...], WordRules]] = {}


def word_rules(rules: tuple[TermRule, ...], locale: str) -> WordRules:
    """Compiled rules, shared across files with the same rules and locale."""
    key = (id(rules), locale)
    seen = _SEEN.get(key)
    if seen is not None and seen[0] is rules:
        return seen[1]
    compiled = _word_rules(rules, locale)
    if len(_SEEN) >= 64:
        _SEEN.clear()
    _SEEN[key] = (rules, compiled)  # holding the list keeps its id from being reused
    return compiled


def word_message(match: TermMatch) -> str:
    """``Use "X" instead of "Y"``, ``Avoid "Y"``, or the competitor form, with the rule's note."""
    rule = match.rule
    text = " ".join(match.text.split())
    suggestion = match.suggestion
    if rule.competitor:
        message = f'"{text}" is a competitor\'s term'
        if suggestion:
            message += f'; use "{suggestion}"'
    elif suggestion:
        message = f'Use "{suggestion}" instead of "{text}"'
    else:
        message = f'Avoid "{text}"'
    if rule.note:
        message += f" ({rule.note})"
    return message


def word_probe(unit: CheckUnit, rules: Sequence[TermRule], expect: str) -> Probe:
    """A canary sample: the first rejected term (a failing rule first), placed where its scope reads."""
    rejecting = [rule for rule in rules if rule.rejects]
    if not rejecting:
        return Probe(None, expect, "", "no rule rejects a term")
    rule = next((r for r in rejecting if not r.advisory), rejecting[0])
    block = sample_block(
        rule.term,
        role="heading" if rule.scope == "heading" else "",
        code=rule.scope == "code",
    )
    return Probe(unit.with_blocks([block]), expect, rule.term)


def word_findings(
    analyzer: Analyzer,
    unit: CheckUnit,
    rules: WordRules,
    rule_id: str,
    *,
    suggested: bool = False,
) -> list[Finding]:
    out: list[Finding] = []
    for block in unit.blocks:
        for view, match in rules.violations(block, unit.views(block)):
            suggestion = match.suggestion
            message = word_message(match)
            if suggested:
                message = f'Suggested rule about "{match.rule.term}", not yet established'
            out.append(
                analyzer.finding(
                    unit,
                    rule_id,
                    message,
                    fails=not suggested and not match.rule.advisory,
                    block=block,
                    view=view,
                    span=(match.start, match.end),
                    suggestion=suggestion,
                    replacement=suggestion or None,
                    suggested=suggested,
                    metadata=_rule_metadata(match.rule),
                )
            )
    return out


def _rule_metadata(rule: TermRule) -> dict[str, object]:
    data: dict[str, object] = {"term": rule.term}
    if rule.replacement:
        data["replacement"] = rule.replacement
    if rule.concept_id:
        data["concept_id"] = rule.concept_id
    if rule.competitor:
        data["competitor"] = True
    if rule.advisory:
        data["advisory"] = True
    return data


class TermsAnalyzer(Analyzer):
    """The bound term store's rules: forbidden and competitor terms fail, deprecated ones report."""

    id = "terms"
    family = "terms"

    def _rules(self, unit: CheckUnit) -> tuple[TermRule, ...]:
        return unit.store_rules + unit.governance.term_rules

    def plan(self, unit: CheckUnit) -> tuple[AnalyzerStatus, str] | None:
        if not unit.governance.terms_bound and not unit.governance.term_rules:
            return AnalyzerStatus.NOT_APPLICABLE, "no terms are bound"
        if not any(rule.rejects for rule in self._rules(unit)):
            return AnalyzerStatus.DID_NOT_RUN, "the bound terms reject nothing in this locale"
        return None

    def canary_key(self, unit: CheckUnit) -> Hashable:
        return (self.id, self._rules(unit), unit.locale)

    def run(self, unit: CheckUnit) -> list[Finding]:
        return word_findings(
            self, unit, word_rules(self._rules(unit), unit.locale), "terms.vocabulary"
        )

    def probes(self, unit: CheckUnit) -> list[Probe]:
        return [word_probe(unit, self._rules(unit), "terms.vocabulary")]
