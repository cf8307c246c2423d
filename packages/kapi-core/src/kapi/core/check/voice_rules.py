"""``voice.rules``: the bound profile's word rules, patterns and constraint patterns.

Rule ids name the voice dimension: word rules are ``voice.vocabulary``,
prohibited and required patterns ``voice.style``, constraint patterns
``voice.compliance``. A rule fails unless it is advisory; a constraint
pattern always fails. ``voice.guidance`` (guidance constraints and semantic
guidance) is recorded ``unsupported`` and ``voice.llm`` ``not_requested``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Hashable, Iterator

from kapi.core.check.analyzers import (
    Analyzer,
    AnalyzerStatus,
    CheckUnit,
    Probe,
    sample_block,
)
from kapi.core.check.findings import Finding
from kapi.core.check.patterns import missing_probe_text
from kapi.core.check.terms_rules import word_findings, word_probe, word_rules
from kapi.core.check.text import TextView
from kapi.core.governance.regex import compile_portable, sample_match
from kapi.core.governance.voice import Constraint, Pattern, VoiceProfile
from kapi.core.model import Block, plain_text

__all__ = ["VoiceGuidanceAnalyzer", "VoiceLlmAnalyzer", "VoiceRulesAnalyzer", "pattern_allowance"]


def pattern_allowance(maximum: int, per_words: int, words: int) -> int:
    """How many matches a rated pattern may have: ceil(max × words / per), never below ``max``."""
    return max(maximum, math.ceil(maximum * words / per_words))


def _texts(unit: CheckUnit, block: Block, scope: str) -> Iterator[tuple[TextView, str]]:
    """The texts of a block a pattern with ``scope`` reads."""
    heading = block.role == "heading"
    for view in unit.views(block):
        if scope == "code":
            yield view, view.code
        elif scope == "" or (scope == "heading") == heading:
            yield view, view.prose


def _excused(not_after: re.Pattern[str] | None, preceding: str) -> bool:
    """True when the text just before a match is what ``not_after`` describes."""
    if not_after is None:
        return False
    end = len(preceding.rstrip())
    return any(match.end() == end for match in not_after.finditer(preceding[:end]))


class VoiceRulesAnalyzer(Analyzer):
    id = "voice.rules"
    family = "voice"

    def _constraints(self, unit: CheckUnit) -> list[Constraint]:
        voice = unit.governance.voice
        if voice is None:
            return []
        point = unit.governance.point
        return [
            constraint
            for constraint in voice.constraints
            if constraint.kind == "prohibited_pattern"
            and constraint.applies(
                locale=unit.locale,
                channel=point.channel if point is not None else "",
                persona=unit.governance.persona,
            )
        ]

    def plan(self, unit: CheckUnit) -> tuple[AnalyzerStatus, str] | None:
        voice = unit.governance.voice
        if voice is None:
            return AnalyzerStatus.NOT_APPLICABLE, "no voice profile is bound"
        if not (
            any(rule.rejects for rule in voice.term_rules)
            or voice.style.prohibited_patterns
            or voice.style.required_patterns
            or self._constraints(unit)
        ):
            if voice.style.comments:
                return AnalyzerStatus.NOT_APPLICABLE, "the profile only limits comments"
            return AnalyzerStatus.DID_NOT_RUN, "the profile has no deterministic rules"
        return None

    def required(self, unit: CheckUnit) -> bool:
        point = unit.governance.point
        return self.id in unit.options.required or (
            point is not None and point.selection == "override"
        )

    def canary_key(self, unit: CheckUnit) -> Hashable:
        point = unit.governance.point
        return (
            self.id,
            id(unit.governance.voice),
            unit.locale,
            point.channel if point is not None else "",
            unit.governance.persona,
        )

    def run(self, unit: CheckUnit) -> list[Finding]:
        voice = unit.governance.voice
        if voice is None:
            return []
        out = word_findings(
            self, unit, word_rules(voice.term_rules, unit.locale), "voice.vocabulary"
        )
        if voice.style.prohibited_patterns:
            words = sum(len(plain_text(block.source).split()) for block in unit.blocks)
            for pattern in voice.style.prohibited_patterns:
                out.extend(self._prohibited(unit, pattern, words))
        for pattern in voice.style.required_patterns:
            out.extend(self._required(unit, pattern))
        for constraint in self._constraints(unit):
            out.extend(self._constraint(unit, constraint))
        return out

    def _prohibited(self, unit: CheckUnit, pattern: Pattern, words: int) -> list[Finding]:
        compiled = compile_portable(pattern.regex)
        not_after = compile_portable(pattern.not_after) if pattern.not_after else None
        found: list[Finding] = []
        for block in unit.blocks:
            for view, text in _texts(unit, block, pattern.scope):
                for match in compiled.finditer(text):
                    if match.end() == match.start() or _excused(not_after, text[: match.start()]):
                        continue
                    shown = " ".join(match.group().split())
                    message = (
                        f'"{shown}": {pattern.description}'
                        if pattern.description
                        else f'"{shown}" matches the prohibited pattern /{pattern.regex}/'
                    )
                    found.append(
                        self.finding(
                            unit,
                            "voice.style",
                            message,
                            fails=not pattern.advisory,
                            block=block,
                            view=view,
                            span=match.span(),
                            metadata={"pattern": pattern.regex},
                        )
                    )
        if pattern.rate is not None:
            allowance = pattern_allowance(pattern.rate.max, pattern.rate.per_words, words)
            if len(found) <= allowance:
                return []
        return found

    def _required(self, unit: CheckUnit, pattern: Pattern) -> list[Finding]:
        compiled = compile_portable(pattern.regex)
        for block in unit.blocks:
            for _view, text in _texts(unit, block, pattern.scope):
                if compiled.search(text):
                    return []
        message = f"No text matches the required pattern /{pattern.regex}/"
        if pattern.description:
            message += f": {pattern.description}"
        return [
            self.finding(
                unit,
                "voice.style",
                message,
                fails=not pattern.advisory,
                metadata={"pattern": pattern.regex, "required": True},
            )
        ]

    def _constraint(self, unit: CheckUnit, constraint: Constraint) -> list[Finding]:
        compiled = compile_portable(constraint.regex)
        out: list[Finding] = []
        for block in unit.blocks:
            for view, text in _texts(unit, block, ""):
                for match in compiled.finditer(text):
                    if match.end() == match.start():
                        continue
                    shown = " ".join(match.group().split())
                    statement = f": {constraint.statement}" if constraint.statement else ""
                    out.append(
                        self.finding(
                            unit,
                            "voice.compliance",
                            f'"{shown}" breaks constraint {constraint.id}{statement}',
                            fails=True,
                            block=block,
                            view=view,
                            span=match.span(),
                            metadata={"constraint": constraint.id, "version": constraint.version},
                        )
                    )
        return out

    def probes(self, unit: CheckUnit) -> list[Probe]:
        voice = unit.governance.voice
        if voice is None:
            return []
        probes: list[Probe] = []
        if any(rule.rejects for rule in voice.term_rules):
            probes.append(word_probe(unit, voice.term_rules, "voice.vocabulary"))
        if voice.style.prohibited_patterns:
            probes.append(self._prohibited_probe(unit, voice))
        if voice.style.required_patterns:
            pattern = voice.style.required_patterns[0]
            missing = missing_probe_text(pattern.regex)
            if missing is None:
                probes.append(
                    Probe(None, "voice.style", pattern.regex, "the pattern matches any text")
                )
            else:
                blocks = [sample_block(missing)] if missing else []
                probes.append(Probe(unit.with_blocks(blocks), "voice.style", missing))
        constraints = self._constraints(unit)
        if constraints:
            sample = sample_match(constraints[0].regex)
            if not sample or not sample.strip():
                probes.append(
                    Probe(
                        None,
                        "voice.compliance",
                        constraints[0].regex,
                        "no sample matches the regex",
                    )
                )
            else:
                probes.append(
                    Probe(unit.with_blocks([sample_block(sample)]), "voice.compliance", sample)
                )
        return probes

    def _prohibited_probe(self, unit: CheckUnit, voice: VoiceProfile) -> Probe:
        patterns = voice.style.prohibited_patterns
        pattern = next((p for p in patterns if not p.advisory and p.rate is None), patterns[0])
        sample = sample_match(pattern.regex)
        if not sample or not sample.strip():
            return Probe(None, "voice.style", pattern.regex, "no sample matches the regex")
        if pattern.rate is not None:
            sample = " ".join([sample] * (pattern.rate.max + 1))
        block = sample_block(
            sample,
            role="heading" if pattern.scope == "heading" else "",
            code=pattern.scope == "code",
        )
        return Probe(unit.with_blocks([block]), "voice.style", sample)


class VoiceGuidanceAnalyzer(Analyzer):
    """Guidance constraints and semantic guidance: recorded, never checked."""

    id = "voice.guidance"
    family = "voice"

    def plan(self, unit: CheckUnit) -> tuple[AnalyzerStatus, str] | None:
        voice = unit.governance.voice
        if voice is None:
            return AnalyzerStatus.NOT_APPLICABLE, "no voice profile is bound"
        guidance = sum(1 for c in voice.constraints if c.kind == "guidance")
        return (
            AnalyzerStatus.UNSUPPORTED,
            f"{guidance} guidance constraint(s) and the profile's tone and style guidance"
            " need a reader or a model; they are not checked deterministically",
        )

    def run(self, unit: CheckUnit) -> list[Finding]:
        return []

    def probes(self, unit: CheckUnit) -> list[Probe]:
        return []


class VoiceLlmAnalyzer(Analyzer):
    """Model review: never run by the deterministic engine."""

    id = "voice.llm"
    family = "voice"

    def plan(self, unit: CheckUnit) -> tuple[AnalyzerStatus, str] | None:
        return AnalyzerStatus.NOT_REQUESTED, "model review was not requested"

    def run(self, unit: CheckUnit) -> list[Finding]:
        return []

    def probes(self, unit: CheckUnit) -> list[Probe]:
        return []
