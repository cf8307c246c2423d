"""Loading voice profiles: strict and lenient, errors naming the key, the vocabulary mapping."""

from __future__ import annotations

import pytest

from kapi.core.governance.errors import GovernanceError
from kapi.core.governance.voice import (
    DEFAULT_MIN_SCORE,
    TermRule,
    Vocabulary,
    load_voice_profile,
    vocabulary_rules,
)

FULL = {
    "name": "northsea",
    "id": "northsea-1",
    "description": "Plain words for sailors.",
    "min_score": 70,
    "tone": {
        "personality": ["calm", "plain"],
        "formality": "neutral",
        "emotion": "warm",
        "humor": "light",
        "guidelines": "Say what to do first.",
    },
    "style": {
        "active_voice": True,
        "sentence_length": "short",
        "person_pov": "second",
        "contractions": "sometimes",
        "prohibited_patterns": [
            {"regex": r"\bsimply\b", "description": "no simply"},
            {"regex": "!", "advisory": True, "rate": {"max": 2}, "scope": "prose"},
            r"\bvery\b",
        ],
        "required_patterns": [{"regex": "Berth", "not_after": "no "}],
        "comments": {"max_words": 30, "fails": False},
    },
    "vocabulary": {
        "preferred_terms": [{"term": "utilize", "replacement": "use"}, "GitHub"],
        "forbidden_terms": ["mooring", {"term": "dock", "replacement": "berth"}],
        "competitor_terms": [{"term": "SeaCorp"}],
        "abbreviations": {"ETA": "estimated time of arrival"},
    },
    "terms": [
        {
            "term": "e-mail",
            "forms": ["e-mails"],
            "replacement": "email",
            "accepted": ["mail", {"text": "message", "forms": ["messages"]}],
            "note": "one word",
            "case_sensitive": False,
            "scope": "prose",
            "do_not_translate": False,
            "concept_id": "c1",
        }
    ],
    "examples": [{"before": "Simply go", "after": "Go", "category": "style"}],
    "constraints": [
        {
            "id": "legal-1",
            "version": 2,
            "kind": "prohibited_pattern",
            "regex": "(?i)guarantee",
            "statement": "No guarantees.",
            "scope": {"locale": "en_GB"},
            "exceptions": [{"scope": {"channel": "legal"}, "reason": "counsel wrote it"}],
        },
        {"id": "g-1", "kind": "guidance", "statement": "Be kind."},
    ],
    "locales": {
        "nb_NO": {"formality": "formal", "vocabulary_overrides": {"forbidden_terms": ["okei"]}}
    },
    "channels": {"app": {"tone": {"formality": "casual"}}},
    "personas": {"captain": {"preferred_terms": ["helm"], "avoided_terms": ["wheel"]}},
}


def test_a_full_profile_loads_strictly_without_warnings() -> None:
    profile, warnings = load_voice_profile(FULL, "voice.yaml", strict=True)
    assert warnings == ()
    assert profile.name == "northsea"
    assert profile.min_score == 70
    assert profile.tone.guidelines == ("Say what to do first.",)
    assert profile.style.prohibited_patterns[1].rate is not None
    assert profile.style.prohibited_patterns[1].rate.per_words == 1000
    assert profile.style.prohibited_patterns[2].regex == r"\bvery\b"
    assert profile.terms[0].accepted[1].forms == ("messages",)
    assert profile.constraints[0].version == "2"
    assert profile.constraints[0].scope.locale == "en-GB"
    assert list(profile.locales) == ["nb-NO"]
    assert profile.personas["captain"].avoided_terms == (TermRule(term="wheel"),)


def test_defaults_for_an_empty_profile() -> None:
    profile, warnings = load_voice_profile({}, "x")
    assert warnings == ()
    assert profile.min_score == DEFAULT_MIN_SCORE
    assert not profile.has_deterministic_rules


@pytest.mark.parametrize(
    ("data", "key"),
    [
        ({"style": {"foo": 1}}, "style.foo"),
        ({"tone": {"formalty": "formal"}}, "tone.formalty"),
        (
            {"vocabulary": {"forbidden_terms": [{"term": "x", "colour": "red"}]}},
            "vocabulary.forbidden_terms[0].colour",
        ),
        (
            {"style": {"prohibited_patterns": [{"regex": "x", "sevrity": "minor"}]}},
            "style.prohibited_patterns[0].sevrity",
        ),
        ({"extra": True}, "extra"),
    ],
)
def test_strict_refuses_an_unknown_key_naming_its_path(data: dict[str, object], key: str) -> None:
    with pytest.raises(GovernanceError) as caught:
        load_voice_profile(data, "voice.yaml", strict=True)
    assert caught.value.key == key
    assert caught.value.source == "voice.yaml"
    assert key in str(caught.value)


def test_lenient_warns_an_unknown_key_and_keeps_going() -> None:
    profile, warnings = load_voice_profile(
        {"name": "x", "tone": {"formalty": "formal"}, "mood": "sunny"}, "store:x"
    )
    assert profile.name == "x"
    assert [(w.code, w.key, w.source) for w in warnings] == [
        ("voice.unknown_key", "mood", "store:x"),
        ("voice.unknown_key", "tone.formalty", "store:x"),
    ]
    assert "did you mean 'formality'" in warnings[1].message


def test_an_unfamiliar_tone_value_warns_and_is_kept() -> None:
    profile, warnings = load_voice_profile({"tone": {"formality": "pirate"}}, "p", strict=True)
    assert profile.tone.formality == "pirate"
    assert [(w.code, w.key) for w in warnings] == [("voice.unfamiliar_value", "tone.formality")]


@pytest.mark.parametrize(
    ("data", "key"),
    [
        ({"style": {"contractions": "often"}}, "style.contractions"),
        ({"style": {"person_pov": "first"}}, "style.person_pov"),
        ({"style": {"sentence_length": "long"}}, "style.sentence_length"),
        ({"examples": [{"category": "grammar"}]}, "examples[0].category"),
        (
            {"style": {"prohibited_patterns": [{"regex": "x", "scope": "body"}]}},
            "style.prohibited_patterns[0].scope",
        ),
    ],
)
def test_closed_enums_are_errors_even_when_lenient(data: dict[str, object], key: str) -> None:
    with pytest.raises(GovernanceError) as caught:
        load_voice_profile(data, "v")
    assert caught.value.key == key


def test_constraint_keys_are_strict_even_when_lenient() -> None:
    with pytest.raises(GovernanceError) as caught:
        load_voice_profile({"constraints": [{"id": "a", "severity": "major"}]}, "v")
    assert caught.value.key == "constraints[0].severity"
    with pytest.raises(GovernanceError) as caught:
        load_voice_profile({"constraints": [{"id": "a", "scope": {"region": "eu"}}]}, "v")
    assert caught.value.key == "constraints[0].scope.region"


@pytest.mark.parametrize(
    ("data", "key", "words"),
    [
        ({"name": ["x"]}, "name", "expected text"),
        ({"min_score": "high"}, "min_score", "whole number"),
        ({"min_score": 101}, "min_score", "at most 100"),
        ({"style": {"active_voice": "yes"}}, "style.active_voice", "true or false"),
        ({"terms": {"term": "x"}}, "terms", "expected a list"),
        ({"terms": [{"note": "nothing"}]}, "terms[0]", "a term or a replacement"),
        (
            {"style": {"prohibited_patterns": [{"description": "no regex"}]}},
            "style.prohibited_patterns[0].regex",
            "needs a regex",
        ),
        (
            {"style": {"prohibited_patterns": [{"regex": "(?=x)"}]}},
            "style.prohibited_patterns[0].regex",
            "lookahead",
        ),
        (
            {"style": {"prohibited_patterns": [{"regex": "(a"}]}},
            "style.prohibited_patterns[0].regex",
            "missing",
        ),
        (
            {"style": {"prohibited_patterns": [{"regex": "x", "rate": {"per_words": 10}}]}},
            "style.prohibited_patterns[0].rate.max",
            "needs max",
        ),
        ({"constraints": [{"kind": "guidance"}]}, "constraints[0].id", "needs an id"),
        (
            {"constraints": [{"id": "a", "kind": "prohibited_pattern"}]},
            "constraints[0].regex",
            "needs a regex",
        ),
        ({"constraints": [{"id": "a"}, {"id": "a"}]}, "constraints[1].id", "twice"),
        ({"locales": {"not a tag!": {}}}, "locales.not a tag!", "language tag"),
        ({"channels": {"App": {}}}, "channels.App", "slug"),
        (
            {"vocabulary": {"abbreviations": {"ETA": 3}}},
            "vocabulary.abbreviations.ETA",
            "expected text",
        ),
        ({"terms": [{"term": "x", "severity": "huge"}]}, "terms[0].severity", "not one of"),
        ([1, 2], "", "voice profile"),
    ],
)
def test_malformed_values_name_the_key(data: object, key: str, words: str) -> None:
    with pytest.raises(GovernanceError) as caught:
        load_voice_profile(data, "voice.yaml")
    assert caught.value.key == key
    assert words in caught.value.message


def test_error_path_steps_let_a_host_find_the_line() -> None:
    with pytest.raises(GovernanceError) as caught:
        load_voice_profile(
            {"style": {"prohibited_patterns": [{"regex": "x"}, {"regex": "a\\1"}]}}, "v"
        )
    assert caught.value.path == ("style", "prohibited_patterns", 1, "regex")


def test_legacy_severity_non_critical_is_advisory() -> None:
    profile, _ = load_voice_profile(
        {
            "terms": [
                {"term": "a", "severity": "minor"},
                {"term": "b", "severity": "major"},
                {"term": "c", "severity": "critical"},
                {"term": "d", "severity": "minor", "advisory": False},
            ],
            "style": {
                "prohibited_patterns": [
                    {"regex": "x", "severity": "critical"},
                    {"regex": "y", "severity": "minor"},
                ]
            },
        },
        "v",
        strict=True,
    )
    assert [rule.advisory for rule in profile.terms] == [True, True, False, False]
    assert [p.advisory for p in profile.style.prohibited_patterns] == [False, True]


def test_vocabulary_maps_onto_term_rules_as_the_table_says() -> None:
    vocabulary = Vocabulary(
        forbidden_terms=(TermRule(term="mooring"),),
        competitor_terms=(TermRule(term="SeaCorp"),),
        preferred_terms=(
            TermRule(term="utilize", replacement="use"),
            TermRule(term="GitHub"),
            TermRule(term="email", replacement="email"),
        ),
    )
    rules = vocabulary_rules(vocabulary)
    assert rules[0] == TermRule(term="mooring")
    assert rules[1] == TermRule(term="SeaCorp", competitor=True)
    assert rules[2] == TermRule(term="utilize", replacement="use", advisory=True)
    assert rules[3] == TermRule(replacement="GitHub")  # a preferred form: rejects nothing
    assert rules[4] == TermRule(replacement="email")
    assert not rules[3].rejects


def test_term_rules_put_terms_first_then_vocabulary() -> None:
    profile, _ = load_voice_profile(FULL, "v")
    terms = [rule.term or rule.replacement for rule in profile.term_rules]
    assert terms == ["e-mail", "mooring", "dock", "SeaCorp", "utilize", "GitHub"]
    assert profile.has_deterministic_rules


def test_constraint_applies_by_scope_and_exception() -> None:
    profile, _ = load_voice_profile(FULL, "v")
    legal = profile.constraints[0]
    assert legal.applies(locale="en-GB")
    assert not legal.applies(locale="en-US")
    assert not legal.applies(locale="en-GB", channel="legal")
