"""The analyzer contract: what one analyzer is given, what it returns, and how its canary runs.

Every analyzer that runs is also given a known-bad sample through the same
configured checker (its canary). A canary that is missed turns the analyzer
``invalid`` and the verdict ``did_not_run``; a canary that cannot be built is
``impossible``, which also keeps the verdict from passing on that analyzer.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable, Mapping, Sequence
from enum import StrEnum
from typing import ClassVar

from attrs import evolve, field, frozen

from kapi.core.check.findings import Finding, Location, Point
from kapi.core.check.options import CheckOptions
from kapi.core.check.text import Anchor, TextView, block_views
from kapi.core.governance.resolve import ResolvedGovernance
from kapi.core.governance.voice import TermRule
from kapi.core.model import Block, Runs, Text

__all__ = [
    "CANARY_FILE",
    "RAN",
    "Analyzer",
    "AnalyzerStatus",
    "Canary",
    "CanaryStatus",
    "CheckUnit",
    "Probe",
    "run_canary",
    "sample_block",
]

CANARY_FILE = "<canary>"


class AnalyzerStatus(StrEnum):
    """An analyzer's status on one file (spec §4.3); only the first two and ``invalid`` ran."""

    PASSED = "passed"
    FINDINGS = "findings"
    NOT_REQUESTED = "not_requested"
    UNSUPPORTED = "unsupported"
    NOT_APPLICABLE = "not_applicable"
    ABSTAINED = "abstained"
    ERROR = "error"
    STALE = "stale"
    INVALID = "invalid"
    DID_NOT_RUN = "did_not_run"


RAN = frozenset({AnalyzerStatus.PASSED, AnalyzerStatus.FINDINGS, AnalyzerStatus.INVALID})


class CanaryStatus(StrEnum):
    """What became of an analyzer's known-bad sample."""

    CAUGHT = "caught"
    MISSED = "missed"
    IMPOSSIBLE = "impossible"


@frozen
class Canary:
    """The outcome of an analyzer's known-bad sample: caught, missed, or no sample to give."""

    status: CanaryStatus
    probes: int = 1
    missed: str = ""
    input: str = ""
    reason: str = ""


@frozen
class CheckUnit:
    """One target as the analyzers see it: checked blocks, governance, options, target side.

    ``targets`` maps a block's reference key to its target-side runs (from a
    bilingual file or a ``--target`` file); ``store_rules`` are the bound
    store's terms as rules for this locale; ``scope`` the block keys a diff
    touched (``None``: all).
    """

    file: str
    locale: str
    blocks: tuple[Block, ...]
    governance: ResolvedGovernance = field(factory=ResolvedGovernance)
    options: CheckOptions = field(factory=CheckOptions)
    target_locale: str = ""
    targets: Mapping[str, Runs] = field(factory=dict)
    store_rules: tuple[TermRule, ...] = ()
    point: Point | None = None
    view_cache: dict[int, tuple[Block, tuple[TextView, ...]]] = field(
        factory=dict, init=False, eq=False, repr=False
    )

    def views(self, block: Block) -> tuple[TextView, ...]:
        """The block's text views, built once per unit whichever analyzer asks first."""
        cached = self.view_cache.get(id(block))
        if cached is not None and cached[0] is block:
            return cached[1]
        views = tuple(block_views(block.source))
        self.view_cache[id(block)] = (block, views)
        return views

    def with_blocks(
        self, blocks: Sequence[Block], targets: Mapping[str, Runs] | None = None
    ) -> CheckUnit:
        """The same configuration over other blocks: how a canary probe is built."""
        return evolve(
            self,
            file=CANARY_FILE,
            blocks=tuple(blocks),
            targets=dict(targets) if targets is not None else {},
        )


@frozen
class Probe:
    """One canary sample: the unit to run, the rule a catch must produce, and what was fed."""

    unit: CheckUnit | None
    expect: str
    input: str
    reason: str = ""


def sample_block(
    text: str, *, role: str = "", code: bool = False, block_id: str = "canary"
) -> Block:
    """A one-run block for a canary: prose, a heading, or text inside an inline code span."""
    return Block(id=block_id, source=(Text(text, no_translate=code),), role=role)


class Analyzer(ABC):
    """One analyzer: decides whether it runs, runs, and builds its canary probes."""

    id: ClassVar[str]
    family: ClassVar[str]
    # Compares each block with its target side: when the file checked is itself a
    # translation, it sees the source's blocks paired with this file's text.
    bilingual: ClassVar[bool] = False

    def plan(self, unit: CheckUnit) -> tuple[AnalyzerStatus, str] | None:
        """``None`` when the analyzer runs on ``unit``; else its status and the reason."""
        return None

    def required(self, unit: CheckUnit) -> bool:
        return self.id in unit.options.required

    @abstractmethod
    def run(self, unit: CheckUnit) -> list[Finding]:
        """The findings on ``unit``; deterministic, no I/O."""

    @abstractmethod
    def probes(self, unit: CheckUnit) -> list[Probe]:
        """Known-bad samples through the configuration ``unit`` carries."""

    def canary_key(self, unit: CheckUnit) -> Hashable:
        """What the canary depends on: units with equal keys share one canary run."""
        return self.id

    # -- helpers for subclasses --------------------------------------------

    def finding(
        self,
        unit: CheckUnit,
        rule: str,
        message: str,
        *,
        fails: bool,
        block: Block | None = None,
        view: TextView | None = None,
        span: tuple[int, int] | None = None,
        suggestion: str = "",
        replacement: str | None = None,
        suggested: bool = False,
        metadata: Mapping[str, object] | None = None,
    ) -> Finding:
        anchor: Anchor | None = None
        snippet = ""
        if view is not None and span is not None:
            anchor = view.anchor(*span)
            snippet = view.snippet(*span)
        return Finding(
            rule=rule,
            check=self.family,
            fails=fails,
            message=message,
            location=Location(
                file=unit.file,
                block=block.ref_key if block is not None else "",
                anchor=anchor,
                snippet=snippet,
            ),
            suggestion=suggestion,
            replacement=replacement,
            point=unit.point,
            metadata=dict(metadata or {}),
            suggested=suggested,
            analyzer=self.id,
        )


def run_canary(analyzer: Analyzer, unit: CheckUnit) -> Canary:
    """Run every probe; caught only when each produced the rule it expects."""
    probes = analyzer.probes(unit)
    if not probes:
        return Canary(
            status=CanaryStatus.IMPOSSIBLE,
            probes=0,
            reason="no known-bad sample for this configuration",
        )
    inputs: list[str] = []
    for probe in probes:
        inputs.append(probe.input)
        if probe.unit is None:
            return Canary(
                status=CanaryStatus.IMPOSSIBLE,
                probes=len(probes),
                input=probe.input,
                reason=probe.reason or "no sample could be built",
            )
        found = analyzer.run(probe.unit)
        if not any(f.rule == probe.expect or f.rule.startswith(probe.expect + ".") for f in found):
            return Canary(
                status=CanaryStatus.MISSED,
                probes=len(probes),
                missed=probe.input,
                input=probe.input,
                reason=f"expected {probe.expect}",
            )
    return Canary(status=CanaryStatus.CAUGHT, probes=len(probes), input=" | ".join(inputs))
