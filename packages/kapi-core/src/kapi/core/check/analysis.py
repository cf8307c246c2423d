"""The analyzers on blocks, without canaries or a report: what the change service's commit
check runs on each edited block.

:func:`analyze_blocks` (and :class:`BlockAnalysis`, for many blocks under one governance)
runs every analyzer that would run on the blocks; :func:`introduced_failures` says which
failing findings an edit introduced (change contract §11). The check engine
(:mod:`kapi.core.check.engine`) runs the same analyzers, with their canaries, into the
``kapi.check/v2`` report; this module needs none of the report's classes, so the change
service does not load them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime

from kapi.core.check.analyzers import Analyzer, CheckUnit
from kapi.core.check.bilingual import DntAnalyzer, PlaceholderAnalyzer
from kapi.core.check.findings import Finding, Point
from kapi.core.check.hygiene import HygieneAnalyzer
from kapi.core.check.length import LengthAnalyzer
from kapi.core.check.options import CheckOptions
from kapi.core.check.patterns import PatternAnalyzer
from kapi.core.check.qa import QaAnalyzer
from kapi.core.check.suggested import SuggestedAnalyzer
from kapi.core.check.target import CheckTarget, checked_blocks
from kapi.core.check.terms_rules import TermsAnalyzer
from kapi.core.check.voice_rules import VoiceGuidanceAnalyzer, VoiceLlmAnalyzer, VoiceRulesAnalyzer
from kapi.core.governance.resolve import ResolvedGovernance
from kapi.core.governance.terms import Concept, rules_from_concepts
from kapi.core.governance.voice import TermRule
from kapi.core.model import Block, Runs

__all__ = [
    "BlockAnalysis",
    "StoreRules",
    "analyze_blocks",
    "default_analyzers",
    "introduced_failures",
    "make_unit",
]


def default_analyzers() -> tuple[Analyzer, ...]:
    """Every deterministic analyzer of spec §4.2, in report order."""
    return (
        HygieneAnalyzer(),
        LengthAnalyzer(),
        PatternAnalyzer(),
        VoiceRulesAnalyzer(),
        TermsAnalyzer(),
        SuggestedAnalyzer(),
        VoiceGuidanceAnalyzer(),
        VoiceLlmAnalyzer(),
        PlaceholderAnalyzer(),
        DntAnalyzer(),
        QaAnalyzer(),
    )


class StoreRules:
    """Store terms as rules, once per (concepts, locale, instant) within a run."""

    def __init__(self) -> None:
        self._cache: dict[
            tuple[int, str, datetime | None], tuple[tuple[Concept, ...], tuple[TermRule, ...]]
        ] = {}

    def rules(
        self, concepts: tuple[Concept, ...], locale: str, at: datetime | None
    ) -> tuple[TermRule, ...]:
        if not concepts:
            return ()
        key = (id(concepts), locale, at)
        cached = self._cache.get(key)
        if cached is not None and cached[0] is concepts:
            return cached[1]
        rules = tuple(rules_from_concepts(concepts, locale, at=at))
        if len(self._cache) >= 64:
            self._cache.clear()  # the concepts each entry holds keep their ids from being reused
        self._cache[key] = (concepts, rules)
        return rules


def _targets_of(target: CheckTarget, target_locale: str) -> dict[str, Runs]:
    if not target_locale:
        return {}
    if target.target_blocks is not None:
        return {block.ref_key: block.source for block in target.target_blocks}
    out: dict[str, Runs] = {}
    for block in target.blocks:
        edition = block.targets.get(target_locale)
        if edition is not None:
            out[block.ref_key] = edition.runs
    return out


def make_unit(
    target: CheckTarget,
    blocks: tuple[Block, ...],
    governance: ResolvedGovernance,
    options: CheckOptions,
    store: StoreRules,
) -> CheckUnit:
    locale = target.locale or next((block.locale for block in blocks if block.locale), "")
    target_locale = target.target_locale or options.target_locale
    if target.source_blocks is not None:
        target_locale = ""  # the file is the translation: its own text has no target side
    point = governance.point
    return CheckUnit(
        file=target.file,
        locale=locale,
        blocks=blocks,
        governance=governance,
        options=options,
        target_locale=target_locale,
        targets=_targets_of(target, target_locale),
        store_rules=store.rules(governance.concepts, locale, governance.at),
        point=Point(point.profile, point.channel, point.comments) if point is not None else None,
    )


# The store's rules made for analyze_blocks, which the change service calls for every
# edited block: the same concepts (one tuple per run) give the same rules.

_ANALYZE_RULES = StoreRules()


def analyze_blocks(
    blocks: Sequence[Block],
    governance: ResolvedGovernance | None = None,
    options: CheckOptions | None = None,
    *,
    locale: str = "",
    file: str = "",
    target_locale: str = "",
    analyzers: Sequence[Analyzer] | None = None,
) -> list[Finding]:
    """Findings of every analyzer that would run on ``blocks``; no canaries, no report.

    The change service calls this on the edited document before and after
    the edit, then :func:`introduced_failures`.
    """
    analysis = BlockAnalysis(
        governance,
        options,
        locale=locale,
        file=file,
        target_locale=target_locale,
        analyzers=analyzers,
    )
    return analysis.findings(blocks)


class BlockAnalysis:
    """:func:`analyze_blocks` for one file under one governance, called for many blocks.

    The commit check analyses each edited block on its own, with the same
    governance, options and locale every time: the unit's configuration, and
    which analyzers run on it, are worked out once here. An analyzer's plan
    reads the unit's configuration and target side, never its blocks, so
    without a target side (no blocks' targets to compare) the plan is the same
    for every block; with one, it is made for each.
    """

    def __init__(
        self,
        governance: ResolvedGovernance | None = None,
        options: CheckOptions | None = None,
        *,
        locale: str = "",
        file: str = "",
        target_locale: str = "",
        analyzers: Sequence[Analyzer] | None = None,
    ) -> None:
        self.governance = governance or ResolvedGovernance()
        self.options = options or CheckOptions()
        self.locale = locale
        self.file = file
        self.target_locale = target_locale
        self.analyzers = tuple(analyzers) if analyzers is not None else default_analyzers()
        self._frame: CheckUnit | None = None
        self._running: tuple[Analyzer, ...] | None = None
        if locale:
            frame = self._unit(())
            if not frame.target_locale:
                self._frame = frame
                self._running = tuple(a for a in self.analyzers if a.plan(frame) is None)

    def _unit(self, blocks: tuple[Block, ...]) -> CheckUnit:
        target = CheckTarget(
            file=self.file, blocks=blocks, locale=self.locale, target_locale=self.target_locale
        )
        return make_unit(
            target, checked_blocks(blocks), self.governance, self.options, _ANALYZE_RULES
        )

    def findings(self, blocks: Sequence[Block]) -> list[Finding]:
        """What :func:`analyze_blocks` finds on ``blocks``."""
        frame, running = self._frame, self._running
        if frame is None or running is None:
            unit = self._unit(tuple(blocks))
            running = tuple(a for a in self.analyzers if a.plan(unit) is None)
        else:
            # the frame with these blocks (what ``evolve`` makes, without its field walk)
            unit = CheckUnit(
                file=frame.file,
                locale=frame.locale,
                blocks=checked_blocks(tuple(blocks)),
                governance=frame.governance,
                options=frame.options,
                target_locale=frame.target_locale,
                targets=frame.targets,
                store_rules=frame.store_rules,
                point=frame.point,
            )
        out: list[Finding] = []
        for analyzer in running:
            out.extend(analyzer.run(unit))
        return out


def introduced_failures(
    before_findings: Sequence[Finding], after_findings: Sequence[Finding]
) -> list[Finding]:
    """The failing findings an edit introduced: matched by rule and message, counted.

    A failing finding of the same rule and message that existed before pays
    for one after (first those in the same block); what is left over was
    introduced. Reporting and suggested findings never count.
    """
    remaining: Counter[tuple[str, str]] = Counter()
    remaining_in_block: Counter[tuple[str, str, str]] = Counter()
    for finding in before_findings:
        if finding.fails and not finding.suggested:
            remaining[(finding.rule, finding.message)] += 1
            remaining_in_block[(finding.rule, finding.message, finding.location.block)] += 1
    after = [f for f in after_findings if f.fails and not f.suggested]
    matched: set[int] = set()
    for index, finding in enumerate(after):
        key = (finding.rule, finding.message, finding.location.block)
        if remaining_in_block[key] > 0:
            remaining_in_block[key] -= 1
            remaining[(finding.rule, finding.message)] -= 1
            matched.add(index)
    introduced: list[Finding] = []
    for index, finding in enumerate(after):
        if index in matched:
            continue
        key2 = (finding.rule, finding.message)
        if remaining[key2] > 0:
            remaining[key2] -= 1
            continue
        introduced.append(finding)
    return introduced
