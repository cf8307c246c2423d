"""``length``: max characters and words per block, and its canary."""

from __future__ import annotations

from kapi.core.check.analyzers import AnalyzerStatus, CheckUnit, run_canary
from kapi.core.check.length import LengthAnalyzer
from kapi.core.check.options import CheckOptions
from kapi.core.model import Block, Ph, Text


def unit(text: str, **options: int) -> CheckUnit:
    blocks = (Block(id="p1", source=(Text(text), Ph(id="1", equiv="{n}"))),)
    return CheckUnit(file="a.json", locale="en", blocks=blocks, options=CheckOptions(**options))


def test_not_requested_without_limits() -> None:
    assert LengthAnalyzer().plan(unit("x")) == (
        AnalyzerStatus.NOT_REQUESTED,
        "no --max-chars or --max-words",
    )
    assert not LengthAnalyzer().required(unit("x"))


def test_max_chars_counts_the_plain_text_with_code_equivalents() -> None:
    assert LengthAnalyzer().run(unit("12345", max_chars=8)) == []
    (finding,) = LengthAnalyzer().run(unit("1234567", max_chars=8))
    assert (finding.rule, finding.fails, finding.message) == (
        "length.max-chars-exceeded",
        True,
        "10 characters; the limit is 8",
    )
    assert LengthAnalyzer().required(unit("x", max_chars=8))


def test_max_words() -> None:
    assert LengthAnalyzer().run(unit("one two ", max_words=3)) == []
    (finding,) = LengthAnalyzer().run(unit("one two three ", max_words=3))
    assert finding.rule == "length.max-words-exceeded"


def test_canary_probes_each_limit() -> None:
    canary = run_canary(LengthAnalyzer(), unit("x", max_chars=5, max_words=2))
    assert (canary.status, canary.probes) == ("caught", 2)
