"""Portable patterns: Python re limited to what RE2 accepts; samples for canaries."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kapi.core.governance.regex import PatternError, compile_portable, sample_match


@pytest.mark.parametrize(
    "pattern",
    [
        r"\bsimply\b",
        r"(?i)\b(simply|just)\b",
        r"(?i:foo)bar",
        r"(?P<word>\w+)",
        r"[A-Z]{2,1000}",
        r"a{3}",
        r"x*?y+?",
        r"[^\s]+",
        r"\$\{[a-z]+\}",
        r"(?ms)^a.b$",
        r"\x41",
        r"a{b",
    ],
)
def test_portable_patterns_compile(pattern: str) -> None:
    assert isinstance(compile_portable(pattern), re.Pattern)


@pytest.mark.parametrize(
    ("pattern", "words"),
    [
        (r"(?=x)", "lookahead"),
        (r"(?!x)", "lookahead"),
        (r"(?<=x)y", "lookbehind"),
        (r"(?<!x)y", "lookbehind"),
        (r"(a)\1", "backreferences"),
        (r"(?P<a>x)(?P=a)", "backreferences"),
        (r"(?>abc)", "atomic"),
        (r"a++", "possessive"),
        (r"a{2}+", "possessive"),
        (r"(a)?(?(1)b|c)", "conditional"),
        (r"a(?#note)", "comments"),
        (r"(?x)a b", "flag"),
        (r"(?a)\w", "flag"),
        (r"abc\Z", r"\Z"),
        (r"\u00e9", "escapes"),
        (r"x{,3}", "{,n}"),
        (r"x{1001}", "1000"),
        (r"[[:alpha:]]", "POSIX"),
        (r"\p{L}", "bad escape"),
        (r"(a", "missing"),
        (r"a)", "unbalanced"),
        (r"*a", "nothing to repeat"),
        ("", "non-empty"),
    ],
)
def test_non_portable_patterns_are_refused(pattern: str, words: str) -> None:
    with pytest.raises(PatternError) as caught:
        compile_portable(pattern)
    assert words in str(caught.value)


@pytest.mark.parametrize(
    "pattern",
    [
        r"\bsimply\b",
        r"(?i)\b(simply|just|easily)\b",
        r"[A-Z]{4,}",
        r"!{2,}",
        r"\d+ ?%",
        r"[^a-z ]+x",
        r"(?i:foo)bar",
    ],
)
def test_sample_match_builds_text_the_pattern_matches(pattern: str) -> None:
    sample = sample_match(pattern)
    assert sample is not None
    assert re.search(pattern, sample)


def test_sample_match_gives_up_honestly() -> None:
    assert sample_match(r"\bx\b\Bx") is None
    assert sample_match(r"(?=x)") is None


_ATOMS = st.sampled_from(
    ["a", "b", r"\d", r"\w", "[xyz]", "[^a]", ".", r"\s", "(?:ab|cd)", "(e|f)"]
)
_QUANTIFIERS = st.sampled_from(["", "*", "+", "?", "{2}", "{1,3}", "*?"])


@given(st.lists(st.tuples(_ATOMS, _QUANTIFIERS), min_size=1, max_size=6))
def test_sample_match_property(parts: list[tuple[str, str]]) -> None:
    pattern = "".join(atom + quantifier for atom, quantifier in parts)
    sample = sample_match(pattern)
    assert sample is not None
    assert re.search(pattern, sample)
