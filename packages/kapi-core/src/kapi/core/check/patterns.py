"""``pattern``: ``--forbid`` patterns fail where they match; a ``--require`` pattern no block matches fails."""

from __future__ import annotations

from collections.abc import Hashable

from kapi.core.check.analyzers import Analyzer, AnalyzerStatus, CheckUnit, Probe, sample_block
from kapi.core.check.findings import Finding
from kapi.core.governance.regex import compile_portable, sample_match

__all__ = ["PatternAnalyzer", "missing_probe_text"]

# Texts tried, in order, as a document that a required pattern does not match.
_MISSING_SAMPLES = ("", "-", "kapi canary")


def missing_probe_text(regex: str) -> str | None:
    """A text ``regex`` does not match (for a required-pattern canary), or ``None``."""
    compiled = compile_portable(regex)
    for sample in _MISSING_SAMPLES:
        if compiled.search(sample) is None:
            return sample
    return None


class PatternAnalyzer(Analyzer):
    id = "pattern"
    family = "pattern"

    def plan(self, unit: CheckUnit) -> tuple[AnalyzerStatus, str] | None:
        if not unit.options.forbid and not unit.options.require:
            return AnalyzerStatus.NOT_REQUESTED, "no --forbid or --require"
        return None

    def required(self, unit: CheckUnit) -> bool:
        return bool(unit.options.forbid or unit.options.require) or super().required(unit)

    def canary_key(self, unit: CheckUnit) -> Hashable:
        return (self.id, unit.options.forbid, unit.options.require)

    def run(self, unit: CheckUnit) -> list[Finding]:
        out: list[Finding] = []
        forbid = [(regex, compile_portable(regex)) for regex in unit.options.forbid]
        require = {regex: compile_portable(regex) for regex in unit.options.require}
        seen: set[str] = set()
        for block in unit.blocks:
            for view in unit.views(block):
                for regex, compiled in forbid:
                    for match in compiled.finditer(view.prose):
                        if match.end() == match.start():
                            continue
                        out.append(
                            self.finding(
                                unit,
                                "pattern.forbidden-pattern",
                                f'"{match.group()}" matches the forbidden pattern /{regex}/',
                                fails=True,
                                block=block,
                                view=view,
                                span=match.span(),
                                metadata={"pattern": regex},
                            )
                        )
                for regex, compiled in require.items():
                    if regex not in seen and compiled.search(view.prose):
                        seen.add(regex)
        for regex in unit.options.require:
            if regex not in seen:
                out.append(
                    self.finding(
                        unit,
                        "pattern.pattern-missing",
                        f"No text matches the required pattern /{regex}/",
                        fails=True,
                        metadata={"pattern": regex},
                    )
                )
        return out

    def probes(self, unit: CheckUnit) -> list[Probe]:
        probes: list[Probe] = []
        for regex in unit.options.forbid:
            sample = sample_match(regex)
            if sample is None or not sample.strip():
                probes.append(
                    Probe(
                        None,
                        "pattern.forbidden-pattern",
                        regex,
                        f"no sample text matches /{regex}/",
                    )
                )
                continue
            probes.append(
                Probe(unit.with_blocks([sample_block(sample)]), "pattern.forbidden-pattern", sample)
            )
        for regex in unit.options.require:
            missing = missing_probe_text(regex)
            if missing is None:
                probes.append(
                    Probe(None, "pattern.pattern-missing", regex, f"/{regex}/ matches any text")
                )
                continue
            blocks = [sample_block(missing)] if missing else []
            probes.append(Probe(unit.with_blocks(blocks), "pattern.pattern-missing", missing))
        return probes
