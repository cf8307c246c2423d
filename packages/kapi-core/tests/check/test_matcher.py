"""The one term matcher: whole words, dotted names, case rules, inflections, overlaps."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from kapi.core.check.matcher import (
    INFLECTIONS,
    TermMatcher,
    contains_phrase,
    is_case_sensitive,
)
from kapi.core.governance.voice import AcceptedTerm, TermRule


def hits(rules: list[TermRule], text: str, locale: str = "en") -> list[str]:
    return [match.text for match in TermMatcher(rules, locale=locale).violations(text)]


def test_config_never_matches_inside_a_longer_word() -> None:
    rules = [TermRule(term="config", replacement="settings")]
    assert hits(rules, "configuration, reconfigure, configurable, preconfig, config_file") == []
    assert hits(rules, "Open the config.") == ["config"]
    assert hits(rules, "Two configs") == ["configs"]


def test_underscore_joins_words_and_a_hyphen_does_not() -> None:
    rules = [TermRule(term="config")]
    assert hits(rules, "config_value my_config") == []
    assert hits(rules, "config-file") == ["config"]


def test_dotted_names_match_as_written_and_shield_their_parts() -> None:
    assert hits([TermRule(term="Node.js", case_sensitive=True)], "Use Node.js, not node.js.") == [
        "Node.js"
    ]
    assert hits([TermRule(term="node")], "Install Node.js first") == []
    assert hits([TermRule(term="js")], "Install Node.js first") == []
    assert hits([TermRule(term="config")], "edit app.config or config.yaml") == []
    assert hits([TermRule(term="node")], "Restart the node. Then stop.") == ["node"]


def test_capitals_inside_a_brand_name_match_as_written() -> None:
    rules = [TermRule(term="Github", replacement="GitHub")]
    assert is_case_sensitive(rules[0])
    assert hits(rules, "GitHub and Github and github") == ["Github"]


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        (TermRule(term="utilize", replacement="use"), False),
        (TermRule(term="mac os", replacement="macOS"), True),
        (TermRule(term="kapi", replacement="Kapi"), True),
        (TermRule(term="E-mail", replacement="e-mail"), True),
        (TermRule(term="Foo"), False),
        (TermRule(term="foo", replacement="Bar", case_sensitive=False), False),
        (TermRule(term="foo", case_sensitive=True), True),
    ],
)
def test_case_rules(rule: TermRule, expected: bool) -> None:
    assert is_case_sensitive(rule) is expected


def test_ignore_case_when_nothing_says_otherwise() -> None:
    assert hits([TermRule(term="utilize", replacement="use")], "UTILIZE Utilize utilize") == [
        "UTILIZE",
        "Utilize",
        "utilize",
    ]


def test_several_casings_of_one_word_resolve_deterministically() -> None:
    rules = [TermRule(term="colour"), TermRule(term="Colour", note="second")]
    found = TermMatcher(rules, locale="en").violations("colour Colour COLOUR")
    # the rule spelled exactly like the text wins; otherwise the first declared
    assert [(m.text, m.rule_index) for m in found] == [("colour", 0), ("Colour", 1), ("COLOUR", 0)]
    reversed_found = TermMatcher(list(reversed(rules)), locale="en").violations(
        "colour Colour COLOUR"
    )
    assert [(m.text, m.rule.term) for m in reversed_found] == [
        ("colour", "colour"),
        ("Colour", "Colour"),
        ("COLOUR", "Colour"),
    ]


def test_several_casings_with_a_brand_replacement() -> None:
    rules = [
        TermRule(term="Javascript", replacement="JavaScript"),
        TermRule(term="javascript", replacement="JavaScript"),
        TermRule(term="JAVASCRIPT", replacement="JavaScript"),
    ]
    found = TermMatcher(rules, locale="en").violations(
        "JavaScript javascript Javascript JAVASCRIPT jAvascript"
    )
    assert [(m.text, m.rule_index) for m in found] == [
        ("javascript", 1),
        ("Javascript", 0),
        ("JAVASCRIPT", 2),
    ]


def test_multi_word_terms_match_across_whitespace_runs_not_codes() -> None:
    rules = [TermRule(term="log in", replacement="sign in")]
    assert hits(rules, "Please log   in\nnow") == ["log   in"]
    assert hits(rules, "log\ufffcin") == []


def test_longer_overlapping_term_wins() -> None:
    rules = [TermRule(term="data"), TermRule(term="big data lake")]
    found = TermMatcher(rules, locale="en").violations("a big data lake and data")
    assert [(m.text, m.rule_index) for m in found] == [("big data lake", 1), ("data", 0)]


def test_longer_wins_across_terms_with_different_boundary_rules() -> None:
    # "C++" needs no boundary after it, "C" and "C++ Builder" do; ".NET" none before it
    rules = [TermRule(term="C"), TermRule(term="C++"), TermRule(term="C++ Builder")]
    rules += [TermRule(term="NET"), TermRule(term=".NET"), TermRule(term="ASP.NET")]
    text = "Use C++ Builder, C++ or C with ASP.NET, .NET or NET."
    expected = ["C++ Builder", "C++", "C", "ASP.NET", ".NET", "NET"]
    assert hits(rules, text) == expected
    assert hits(rules[::-1], text) == expected


def test_a_preferred_wording_shields_a_shorter_term_inside_it() -> None:
    rules = [TermRule(term="cloud"), TermRule(replacement="Cloud Run")]
    assert hits(rules, "Deploy to Cloud Run, not the cloud") == ["cloud"]


def test_the_replacement_and_accepted_forms_are_not_violations() -> None:
    rule = TermRule(term="e-mail", replacement="email", accepted=(AcceptedTerm("mail"),))
    matcher = TermMatcher([rule], locale="en")
    found = matcher.find("Send an email or mail, not an e-mail.")
    assert [(m.text, m.allowed) for m in found] == [
        ("email", True),
        ("mail", True),
        ("e-mail", False),
    ]


@pytest.mark.parametrize(
    ("text", "expected", "suggestion"),
    [
        ("utilizes", ["utilizes"], "uses"),
        ("utilized", ["utilized"], "used"),
        ("utilizing", ["utilizing"], "using"),
        ("Utilize", ["Utilize"], "Use"),
        ("utilizer", [], ""),
    ],
)
def test_english_inflections_when_the_rule_has_no_forms(
    text: str, expected: list[str], suggestion: str
) -> None:
    rules = [TermRule(term="utilize", replacement="use")]
    found = TermMatcher(rules, locale="en-GB").violations(text)
    assert [m.text for m in found] == expected
    if found:
        assert found[0].suggestion == suggestion


def test_suffixes_s_es_ed_ing_d() -> None:
    rules = [TermRule(term="box")]
    assert hits(rules, "box boxes boxed boxing") == ["box", "boxes", "boxed", "boxing"]
    assert hits([TermRule(term="configure")], "configured configures") == [
        "configured",
        "configures",
    ]


def test_declared_forms_replace_the_inflection_rule() -> None:
    rules = [TermRule(term="mouse", forms=("mice",))]
    assert hits(rules, "mouse mice mouses") == ["mouse", "mice"]


def test_no_inflections_outside_english() -> None:
    assert hits([TermRule(term="Fenster")], "Fenster Fensters", locale="de") == ["Fenster"]


def test_scripts_without_spaces_have_no_boundary_rule() -> None:
    assert hits([TermRule(term="サーバ", replacement="サーバー")], "このサーバで", locale="ja") == [
        "サーバ"
    ]


def test_combining_marks_are_part_of_the_word() -> None:
    assert hits([TermRule(term="cafe")], "cafe\u0301 cafe") == ["cafe"]
    found = TermMatcher([TermRule(term="cafe")], locale="en").violations("cafe\u0301 cafe")
    assert found[0].start == 6


def test_unicode_word_boundaries() -> None:
    assert hits([TermRule(term="bok")], "bokhylle, bok, ærbok") == ["bok"]


def test_contains_phrase_is_whole_word_and_case_sensitive() -> None:
    assert contains_phrase("Ouvrez Kapi Cloud", "Kapi Cloud")
    assert not contains_phrase("Ouvrez kapi cloud", "Kapi Cloud")
    assert not contains_phrase("Ouvrez KapiCloud", "Kapi")


_TERM = st.text(alphabet="abcdefghij", min_size=2, max_size=8)
_WORD = st.text(alphabet="abcdefghij", min_size=1, max_size=4)
_OTHER = st.lists(
    st.text(alphabet="klmnopqrstuvwxyz", min_size=1, max_size=6), min_size=1, max_size=4
).map(" ".join)


@given(_TERM, _WORD, st.sampled_from(["en", "fr"]))
def test_a_term_after_word_characters_never_matches(term: str, prefix: str, locale: str) -> None:
    word = prefix + term
    # "ed" + "ed" is also "ed" inflected: the whole word is a form of the term, not a longer word
    assume(not any(word == term + suffix for suffix in INFLECTIONS))
    assert hits([TermRule(term=term)], f"x {word} y", locale) == []


@given(_TERM, _WORD.filter(lambda s: s not in INFLECTIONS))
def test_a_term_before_word_characters_never_matches(term: str, suffix: str) -> None:
    # "abc" + "ing" would be an inflection; anything else glued on is a longer word
    text = f"x {term}{suffix} y"
    assert hits([TermRule(term=term)], text, "fr") == []
    if not (term.endswith("e") and suffix.startswith("ing")):
        assert [t for t in hits([TermRule(term=term)], text, "en") if t != term + suffix] == []


@given(_TERM, _OTHER, _OTHER, st.booleans())
def test_matching_is_invariant_to_unrelated_text_around(
    term: str, before: str, after: str, multi: bool
) -> None:
    rules = [TermRule(term=term), TermRule(term=f"{term} {term[::-1]}" if multi else term.upper())]
    core = f"{term}, {term} {term[::-1]}. {term.upper()}"
    matcher = TermMatcher(rules, locale="en")
    plain = [(m.text, m.rule_index, m.start) for m in matcher.find(core)]
    shift = len(before) + 1
    wrapped = [
        (m.text, m.rule_index, m.start - shift) for m in matcher.find(f"{before} {core} {after}")
    ]
    assert wrapped == plain
