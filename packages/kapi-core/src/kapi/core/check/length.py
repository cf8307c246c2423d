"""``length``: a block longer than ``--max-chars`` characters or ``--max-words`` words fails."""

from __future__ import annotations

from collections.abc import Hashable

from kapi.core.check.analyzers import Analyzer, AnalyzerStatus, CheckUnit, Probe, sample_block
from kapi.core.check.findings import Finding
from kapi.core.model import plain_text

__all__ = ["LengthAnalyzer"]


class LengthAnalyzer(Analyzer):
    id = "length"
    family = "length"

    def plan(self, unit: CheckUnit) -> tuple[AnalyzerStatus, str] | None:
        if not unit.options.max_chars and not unit.options.max_words:
            return AnalyzerStatus.NOT_REQUESTED, "no --max-chars or --max-words"
        return None

    def required(self, unit: CheckUnit) -> bool:
        return bool(unit.options.max_chars or unit.options.max_words) or super().required(unit)

    def canary_key(self, unit: CheckUnit) -> Hashable:
        return (self.id, unit.options.max_chars, unit.options.max_words)

    def run(self, unit: CheckUnit) -> list[Finding]:
        limit_chars, limit_words = unit.options.max_chars, unit.options.max_words
        out: list[Finding] = []
        for block in unit.blocks:
            text = plain_text(block.source)
            if limit_chars and len(text) > limit_chars:
                out.append(
                    self.finding(
                        unit,
                        "length.max-chars-exceeded",
                        f"{len(text)} characters; the limit is {limit_chars}",
                        fails=True,
                        block=block,
                        metadata={"length": len(text), "limit": limit_chars},
                    )
                )
            words = len(text.split())
            if limit_words and words > limit_words:
                out.append(
                    self.finding(
                        unit,
                        "length.max-words-exceeded",
                        f"{words} words; the limit is {limit_words}",
                        fails=True,
                        block=block,
                        metadata={"length": words, "limit": limit_words},
                    )
                )
        return out

    def probes(self, unit: CheckUnit) -> list[Probe]:
        probes: list[Probe] = []
        if unit.options.max_chars:
            sample = "x" * (unit.options.max_chars + 1)
            probes.append(
                Probe(unit.with_blocks([sample_block(sample)]), "length.max-chars-exceeded", sample)
            )
        if unit.options.max_words:
            sample = " ".join(["word"] * (unit.options.max_words + 1))
            probes.append(
                Probe(unit.with_blocks([sample_block(sample)]), "length.max-words-exceeded", sample)
            )
        return probes
