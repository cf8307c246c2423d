"""``hygiene``: each rule's hit and miss, and its canary."""

from __future__ import annotations

import pytest

from kapi.core.check.analyzers import CheckUnit, run_canary
from kapi.core.check.hygiene import HygieneAnalyzer
from kapi.core.model import Block, PcClose, PcOpen, Ph, Text


def findings(*blocks: Block) -> list[tuple[str, str]]:
    unit = CheckUnit(file="a.md", locale="en", blocks=blocks)
    return [(f.rule, f.message) for f in HygieneAnalyzer().run(unit)]


def block(text: str, block_id: str = "p1") -> Block:
    return Block(id=block_id, source=(Text(text),))


def test_clean_text_has_no_findings() -> None:
    assert findings(block("A clean sentence. Another one.")) == []


def test_an_empty_block_fails() -> None:
    unit = CheckUnit(file="a.md", locale="en", blocks=(block("  "),))
    (finding,) = HygieneAnalyzer().run(unit)
    assert (finding.rule, finding.fails, finding.location.block) == ("hygiene.empty", True, "p1")


def test_a_block_holding_only_an_image_is_not_empty() -> None:
    assert findings(Block(id="p1", source=(Ph(id="1", type="media:image"),))) == []


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("  Indented", "hygiene.leading-whitespace"),
        ("Trailing ", "hygiene.trailing-whitespace"),
        ("Two  spaces", "hygiene.double-spaces"),
        ("The the cat", "hygiene.doubled-word"),
        ("Bell\x07 rings", "hygiene.control-char"),
    ],
)
def test_each_reporting_rule_hits(text: str, rule: str) -> None:
    unit = CheckUnit(file="a.md", locale="en", blocks=(block(text),))
    found = HygieneAnalyzer().run(unit)
    assert [f.rule for f in found] == [rule]
    assert not found[0].fails


@pytest.mark.parametrize(
    "text",
    [
        "Line one\nline two",
        "Tab\tinside",
        "the theory",
        "Number 10 10",
        "Sentence one. Sentence two.",
    ],
)
def test_near_misses_do_not_hit(text: str) -> None:
    assert findings(block(text)) == []


def test_doubled_word_is_case_insensitive_and_anchored() -> None:
    unit = CheckUnit(file="a.md", locale="en", blocks=(block("See The the cat"),))
    (finding,) = HygieneAnalyzer().run(unit)
    assert finding.message == 'The word "The" is doubled'
    assert (finding.location.anchor.start.offset, finding.location.anchor.end.offset) == (4, 11)  # type: ignore[union-attr]
    assert finding.replacement == "The"


def test_code_spans_are_not_checked() -> None:
    runs = (
        Text("Run "),
        PcOpen(id="1", type="fmt:code", data="`"),
        Text("x  =  x x"),
        PcClose(id="1", type="fmt:code", data="`"),
        Text(" now."),
    )
    assert findings(Block(id="p1", source=runs)) == []


def test_canary_is_a_doubled_word_sentence_and_is_caught() -> None:
    canary = run_canary(HygieneAnalyzer(), CheckUnit(file="a.md", locale="en", blocks=()))
    assert (canary.status, canary.probes) == ("caught", 1)
    assert "has has" in canary.input
