"""Bilingual checks: ``placeholder`` (the same placeholders on both sides) and ``dnt`` (kept verbatim).

They run when a target side exists: a bilingual file's own target edition,
or a ``--target`` file paired block by block. A placeholder is an inline
code of type ``code:placeholder`` (by its text equivalent) or placeholder
text the format left in a text run (``{x}``, ``{{x}}``, ``${x}``, ``%s``,
``%1$s``, ``%@``, ``%(n)s``, ``<0>…</0>``). A do-not-translate term found in
the source must appear verbatim (case-sensitive, whole words) in the target.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable

from kapi.core.check.analyzers import Analyzer, AnalyzerStatus, CheckUnit, Probe
from kapi.core.check.findings import Finding
from kapi.core.check.matcher import contains_phrase
from kapi.core.check.text import PLACEHOLDER_PATTERN, TextView
from kapi.core.model import Block, PcClose, PcOpen, Ph, Plural, Runs, Select, Text, plain_text

__all__ = [
    "BilingualAnalyzer",
    "DntAnalyzer",
    "PlaceholderAnalyzer",
    "bilingual_plan",
    "dnt_terms",
    "placeholders",
    "target_pairs",
]


def placeholders(runs: Runs) -> Counter[str]:
    """The placeholders in a run sequence (plural and select branches included), counted."""
    found: Counter[str] = Counter()
    for run in runs:
        if isinstance(run, Text):
            if not run.no_translate:
                found.update(match.group() for match in PLACEHOLDER_PATTERN.finditer(run.text))
        elif isinstance(run, Ph | PcOpen | PcClose):
            if run.type == "code:placeholder":
                found[run.equiv or run.data or f"#{run.id}"] += 1
        elif isinstance(run, Plural):
            # each form repeats the placeholders; count the union once
            branch = _union(placeholders(form) for form in run.forms.values())
            found.update(branch)
        elif isinstance(run, Select):
            found.update(_union(placeholders(case) for case in run.cases.values()))
    return found


def _union(counters: Iterable[Counter[str]]) -> Counter[str]:
    out: Counter[str] = Counter()
    for counter in counters:
        out |= counter
    return out


def bilingual_plan(unit: CheckUnit) -> tuple[AnalyzerStatus, str] | None:
    if not unit.target_locale:
        return AnalyzerStatus.NOT_REQUESTED, "no target side (--target and --target-lang)"
    if not unit.targets:
        return AnalyzerStatus.DID_NOT_RUN, f"no block has a {unit.target_locale} target to compare"
    return None


def target_pairs(unit: CheckUnit) -> list[tuple[Block, Runs]]:
    """Each checked block that has a target side, with that side's runs."""
    return [
        (block, unit.targets[block.ref_key])
        for block in unit.blocks
        if block.ref_key in unit.targets
    ]


class BilingualAnalyzer(Analyzer):
    """An analyzer that compares each block with its target: it runs, and is required,
    wherever a target side exists."""

    bilingual = True

    def plan(self, unit: CheckUnit) -> tuple[AnalyzerStatus, str] | None:
        return bilingual_plan(unit)

    def required(self, unit: CheckUnit) -> bool:
        return bool(unit.target_locale) or super().required(unit)


class PlaceholderAnalyzer(BilingualAnalyzer):
    id = "placeholder"
    family = "placeholder"

    def run(self, unit: CheckUnit) -> list[Finding]:
        out: list[Finding] = []
        for block, target in target_pairs(unit):
            source_found, target_found = placeholders(block.source), placeholders(target)
            for token, count in sorted((source_found - target_found).items()):
                out.append(
                    self.finding(
                        unit,
                        "placeholder.missing",
                        f"The {unit.target_locale} text lacks the placeholder {token}"
                        + (f" ({count} of them)" if count > 1 else ""),
                        fails=True,
                        block=block,
                        metadata={"placeholder": token, "edition": unit.target_locale},
                    )
                )
            view = TextView(target) if target_found - source_found else None
            for token, count in sorted((target_found - source_found).items()):
                at = view.raw.find(token) if view is not None else -1
                out.append(
                    self.finding(
                        unit,
                        "placeholder.unexpected",
                        f"The {unit.target_locale} text has the placeholder {token}"
                        " that the source does not" + (f" ({count} of them)" if count > 1 else ""),
                        fails=True,
                        block=block,
                        view=view if at >= 0 else None,
                        span=(at, at + len(token)) if at >= 0 else None,
                        metadata={"placeholder": token, "edition": unit.target_locale},
                    )
                )
        return out

    def probes(self, unit: CheckUnit) -> list[Probe]:
        source = "Hello {name}"
        block = Block(id="canary", source=(Text(source),))
        probe_unit = unit.with_blocks([block], {"canary": (Text("Bonjour"),)})
        return [Probe(probe_unit, "placeholder.missing", f"{source} → Bonjour")]


def dnt_terms(unit: CheckUnit) -> tuple[str, ...]:
    """The do-not-translate terms at this point: ``--dnt`` plus the DNT rules of voice and terms."""
    terms: list[str] = list(unit.options.dnt)
    rules = unit.store_rules + unit.governance.term_rules
    if unit.governance.voice is not None:
        rules = rules + unit.governance.voice.term_rules
    for rule in rules:
        if rule.do_not_translate:
            terms.append(rule.replacement or rule.term)
    seen: dict[str, None] = {}
    for term in terms:
        if term.strip():
            seen.setdefault(" ".join(term.split()), None)
    return tuple(seen)


class DntAnalyzer(Analyzer):
    id = "dnt"
    family = "dnt"
    bilingual = True

    def plan(self, unit: CheckUnit) -> tuple[AnalyzerStatus, str] | None:
        planned = bilingual_plan(unit)
        if planned is not None:
            return planned
        if not dnt_terms(unit):
            return AnalyzerStatus.NOT_APPLICABLE, "no do-not-translate terms (--dnt or DNT rules)"
        return None

    def required(self, unit: CheckUnit) -> bool:
        return bool(unit.options.dnt and unit.target_locale) or super().required(unit)

    def canary_key(self, unit: CheckUnit) -> Hashable:
        return (self.id, dnt_terms(unit))

    def run(self, unit: CheckUnit) -> list[Finding]:
        terms = dnt_terms(unit)
        out: list[Finding] = []
        for block, target in target_pairs(unit):
            source_text, target_text = plain_text(block.source), plain_text(target)
            for term in terms:
                if contains_phrase(source_text, term) and not contains_phrase(target_text, term):
                    out.append(
                        self.finding(
                            unit,
                            "dnt.missing",
                            f'"{term}" must stay as it is in the {unit.target_locale} text',
                            fails=True,
                            block=block,
                            suggestion=term,
                            metadata={"term": term, "edition": unit.target_locale},
                        )
                    )
        return out

    def probes(self, unit: CheckUnit) -> list[Probe]:
        terms = dnt_terms(unit)
        if not terms:
            return []
        source = f"Open {terms[0]} now."
        block = Block(id="canary", source=(Text(source),))
        probe_unit = unit.with_blocks([block], {"canary": (Text("Ouvrez maintenant."),)})
        return [Probe(probe_unit, "dnt.missing", f"{source} → Ouvrez maintenant.")]
