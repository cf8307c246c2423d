"""``suggested``: pending suggestions reach the check as rules that report and never fail (weight 0)."""

from __future__ import annotations

from collections.abc import Hashable

from kapi.core.check.analyzers import Analyzer, AnalyzerStatus, CheckUnit, Probe
from kapi.core.check.findings import Finding
from kapi.core.check.terms_rules import word_findings, word_probe, word_rules

__all__ = ["SuggestedAnalyzer"]


class SuggestedAnalyzer(Analyzer):
    id = "suggested"
    family = "suggested"

    def plan(self, unit: CheckUnit) -> tuple[AnalyzerStatus, str] | None:
        if not any(rule.rejects for rule in unit.governance.suggested_rules):
            return AnalyzerStatus.NOT_APPLICABLE, "no pending suggestions"
        return None

    def canary_key(self, unit: CheckUnit) -> Hashable:
        return (self.id, unit.governance.suggested_rules, unit.locale)

    def run(self, unit: CheckUnit) -> list[Finding]:
        rules = word_rules(unit.governance.suggested_rules, unit.locale)
        return word_findings(self, unit, rules, "suggested.vocabulary", suggested=True)

    def probes(self, unit: CheckUnit) -> list[Probe]:
        return [word_probe(unit, unit.governance.suggested_rules, "suggested.vocabulary")]
