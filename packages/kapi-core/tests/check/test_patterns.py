"""``pattern``: --forbid and --require, masked code, and canaries (caught and impossible)."""

from __future__ import annotations

import pytest

from kapi.core.check.analyzers import AnalyzerStatus, CheckUnit, run_canary
from kapi.core.check.options import CheckOptions
from kapi.core.check.patterns import PatternAnalyzer
from kapi.core.governance.errors import GovernanceError
from kapi.core.model import Block, PcClose, PcOpen, Text


def unit(*texts: str, forbid: tuple[str, ...] = (), require: tuple[str, ...] = ()) -> CheckUnit:
    blocks = tuple(Block(id=f"p{i}", source=(Text(t),)) for i, t in enumerate(texts, start=1))
    return CheckUnit(
        file="a.md",
        locale="en",
        blocks=blocks,
        options=CheckOptions(forbid=forbid, require=require),
    )


def test_not_requested_without_patterns() -> None:
    assert PatternAnalyzer().plan(unit("x"))[0] == AnalyzerStatus.NOT_REQUESTED  # type: ignore[index]


def test_forbid_hits_every_match_and_misses_clean_text() -> None:
    found = PatternAnalyzer().run(unit("TODO: one", "fine", "and TODO two", forbid=(r"\bTODO\b",)))
    assert [(f.rule, f.location.block, f.fails) for f in found] == [
        ("pattern.forbidden-pattern", "p1", True),
        ("pattern.forbidden-pattern", "p3", True),
    ]
    assert PatternAnalyzer().run(unit("all done", forbid=(r"\bTODO\b",))) == []


def test_forbid_never_matches_inside_code_spans_or_urls() -> None:
    runs = (
        Text("See "),
        PcOpen(id="1", type="fmt:code"),
        Text("TODO"),
        PcClose(id="1", type="fmt:code"),
        Text(" https://x.io/TODO"),
    )
    u = CheckUnit(
        file="a.md",
        locale="en",
        blocks=(Block(id="p1", source=runs),),
        options=CheckOptions(forbid=("TODO",)),
    )
    assert PatternAnalyzer().run(u) == []


def test_require_is_a_file_finding_when_no_block_matches() -> None:
    (finding,) = PatternAnalyzer().run(unit("a", "b", require=(r"©",)))
    assert (finding.rule, finding.location.block, finding.fails) == (
        "pattern.pattern-missing",
        "",
        True,
    )
    assert PatternAnalyzer().run(unit("a", "© 2026", require=(r"©",))) == []


def test_canaries_are_caught() -> None:
    canary = run_canary(
        PatternAnalyzer(), unit("x", forbid=(r"\bTODO\b", r"[A-Z]{4,}"), require=("©",))
    )
    assert (canary.status, canary.probes) == ("caught", 3)


def test_a_require_pattern_that_matches_anything_has_no_canary() -> None:
    canary = run_canary(PatternAnalyzer(), unit("x", require=("x*",)))
    assert canary.status == "impossible"
    assert "matches any text" in canary.reason


def test_bad_patterns_are_refused_naming_the_flag() -> None:
    with pytest.raises(GovernanceError) as caught:
        CheckOptions(forbid=("ok", "(?<=x)y")).validate()
    assert caught.value.key == "forbid[1]"
