"""``voice.rules``: word rules, patterns (scope, rate, not_after), required patterns, constraints."""

from __future__ import annotations

from typing import Any

import pytest

from kapi.core.check.analyzers import AnalyzerStatus, CheckUnit, run_canary
from kapi.core.check.voice_rules import (
    VoiceGuidanceAnalyzer,
    VoiceLlmAnalyzer,
    VoiceRulesAnalyzer,
    pattern_allowance,
)
from kapi.core.governance.resolve import GovernancePoint, ResolvedGovernance
from kapi.core.governance.voice import load_voice_profile
from kapi.core.model import Block, PcClose, PcOpen, Text


def unit(
    profile: dict[str, Any] | None, *blocks: Block, channel: str = "", selection: str = "project"
) -> CheckUnit:
    voice = (
        load_voice_profile(profile, "voice.yaml", strict=True)[0] if profile is not None else None
    )
    governance = ResolvedGovernance(
        voice=voice, point=GovernancePoint(path="a.md", channel=channel, selection=selection)
    )
    return CheckUnit(file="a.md", locale="en", blocks=blocks, governance=governance)


def p(text: str, block_id: str = "p1", role: str = "") -> Block:
    return Block(id=block_id, source=(Text(text),), role=role)


def rules(u: CheckUnit) -> list[tuple[str, str, bool]]:
    return [(f.rule, f.message, f.fails) for f in VoiceRulesAnalyzer().run(u)]


def test_word_rules_fail_unless_advisory() -> None:
    profile = {
        "vocabulary": {
            "forbidden_terms": [{"term": "mooring", "replacement": "berth"}],
            "preferred_terms": [{"term": "utilize", "replacement": "use"}],
            "competitor_terms": ["SeaCorp"],
        }
    }
    assert rules(unit(profile, p("Utilize the mooring, unlike SeaCorp."))) == [
        ("voice.vocabulary", 'Use "Use" instead of "Utilize"', False),
        ("voice.vocabulary", 'Use "berth" instead of "mooring"', True),
        ("voice.vocabulary", '"SeaCorp" is a competitor\'s term', True),
    ]
    assert rules(unit(profile, p("Use the berth."))) == []


def test_a_forbidden_term_without_replacement_still_flags() -> None:
    assert rules(
        unit({"terms": [{"term": "obviously", "note": "condescending"}]}, p("Obviously."))
    ) == [("voice.vocabulary", 'Avoid "Obviously" (condescending)', True)]


def test_prohibited_patterns_by_scope() -> None:
    profile = {
        "style": {
            "prohibited_patterns": [
                {"regex": "!", "scope": "prose"},
                {"regex": r"\?", "scope": "heading"},
                {"regex": "sudo", "scope": "code"},
                {"regex": "TODO"},
            ]
        }
    }
    heading = p("Why? Now!", "h1", role="heading")
    body = Block(
        id="p1",
        source=(
            Text("Run it! Why? TODO "),
            PcOpen(id="1", type="fmt:code"),
            Text("sudo rm"),
            PcClose(id="1", type="fmt:code"),
        ),
    )
    found = [
        (f.location.block, f.location.snippet)
        for f in VoiceRulesAnalyzer().run(unit(profile, heading, body))
    ]
    assert ("h1", "Why? Now!") in found  # heading-scoped ? in a heading
    assert sum(1 for block, _ in found if block == "h1") == 1  # prose-scoped ! not in headings
    assert sum(1 for block, _ in found if block == "p1") == 3  # !, sudo (code), TODO


def test_rate_allows_up_to_the_allowance_then_reports_every_match() -> None:
    profile = {
        "style": {"prohibited_patterns": [{"regex": "!", "rate": {"max": 2, "per_words": 1000}}]}
    }
    assert rules(unit(profile, p("One! Two!"))) == []
    assert len(rules(unit(profile, p("One! Two! Three!")))) == 3
    assert pattern_allowance(2, 1000, 10) == 2
    assert pattern_allowance(2, 100, 250) == 5


def test_not_after_excuses_a_match_preceded_by_it() -> None:
    profile = {
        "style": {"prohibited_patterns": [{"regex": r"\bclick\b", "not_after": r"(?i)right-"}]}
    }
    assert rules(unit(profile, p("Right-click the file."))) == []
    assert len(rules(unit(profile, p("Now click the file.")))) == 1


def test_required_patterns_are_file_findings() -> None:
    profile = {"style": {"required_patterns": [{"regex": "©", "description": "copyright line"}]}}
    (finding,) = VoiceRulesAnalyzer().run(unit(profile, p("Text")))
    assert (finding.rule, finding.location.block, finding.fails) == ("voice.style", "", True)
    assert finding.message.endswith("copyright line")
    assert rules(unit(profile, p("© kapi"))) == []


def test_constraints_apply_at_their_point_and_always_fail() -> None:
    profile = {
        "constraints": [
            {
                "id": "legal-1",
                "kind": "prohibited_pattern",
                "regex": "(?i)guarantee",
                "statement": "No guarantees.",
                "scope": {"locale": "en"},
                "exceptions": [{"scope": {"channel": "legal"}}],
            }
        ]
    }
    assert rules(unit(profile, p("We guarantee it."))) == [
        ("voice.compliance", '"guarantee" breaks constraint legal-1: No guarantees.', True)
    ]
    assert rules(unit(profile, p("We guarantee it."), channel="legal")) == []


def test_statuses_when_nothing_is_deterministic() -> None:
    assert VoiceRulesAnalyzer().plan(unit(None, p("x"))) == (
        AnalyzerStatus.NOT_APPLICABLE,
        "no voice profile is bound",
    )
    assert VoiceRulesAnalyzer().plan(unit({"tone": {"formality": "formal"}}, p("x"))) == (
        AnalyzerStatus.DID_NOT_RUN,
        "the profile has no deterministic rules",
    )
    assert (
        VoiceRulesAnalyzer().plan(unit({"style": {"comments": {"max_words": 9}}}, p("x")))[0]
        == AnalyzerStatus.NOT_APPLICABLE
    )  # type: ignore[index]
    guidance = unit({"constraints": [{"id": "g", "kind": "guidance"}]}, p("x"))
    assert VoiceRulesAnalyzer().plan(guidance)[0] == AnalyzerStatus.DID_NOT_RUN  # type: ignore[index]
    assert VoiceGuidanceAnalyzer().plan(guidance)[0] == AnalyzerStatus.UNSUPPORTED  # type: ignore[index]
    assert "1 guidance constraint" in VoiceGuidanceAnalyzer().plan(guidance)[1]  # type: ignore[index]
    assert VoiceLlmAnalyzer().plan(guidance)[0] == AnalyzerStatus.NOT_REQUESTED  # type: ignore[index]


def test_an_explicit_voice_makes_voice_rules_required() -> None:
    assert VoiceRulesAnalyzer().required(unit({}, p("x"), selection="override"))
    assert not VoiceRulesAnalyzer().required(unit({}, p("x")))


@pytest.mark.parametrize(
    "profile",
    [
        {"terms": [{"term": "mooring", "advisory": True}, {"term": "dock"}]},
        {"style": {"prohibited_patterns": [{"regex": r"\b(simply|just)\b"}]}},
        {"style": {"prohibited_patterns": [{"regex": "!", "rate": {"max": 3}}]}},
        {"style": {"prohibited_patterns": [{"regex": "sudo", "scope": "code"}]}},
        {"style": {"prohibited_patterns": [{"regex": r"\?", "scope": "heading"}]}},
        {"style": {"required_patterns": ["©"]}},
        {"constraints": [{"id": "c", "kind": "prohibited_pattern", "regex": "guarantee"}]},
        {
            "terms": [{"term": "cfg", "scope": "code"}],
            "style": {"prohibited_patterns": ["TODO"], "required_patterns": ["©"]},
        },
    ],
)
def test_canary_is_caught(profile: dict[str, Any]) -> None:
    canary = run_canary(VoiceRulesAnalyzer(), unit(profile, p("x")))
    assert canary.status == "caught", canary


def test_canary_missed_when_the_checker_cannot_catch_its_own_rule() -> None:
    # "colour" is forbidden, yet another rule accepts it: no text can ever be caught
    profile = {"terms": [{"term": "colour"}, {"replacement": "colour"}]}
    canary = run_canary(VoiceRulesAnalyzer(), unit(profile, p("x")))
    assert (canary.status, canary.missed) == ("missed", "colour")
