"""Pseudo-translation: letters change, codes and placeholders do not, each string is marked."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kapi.core.model import PcClose, PcOpen, Ph, Plural, Text, plain_text
from kapi.core.pseudo import STYLES, PseudoOptions, pseudo_runs, pseudo_text


def test_the_default_accents_letters_pads_and_marks_both_ends() -> None:
    assert pseudo_text("Save changes") == "[Šåṽé çĥåñĝéš ~~~~]"


@pytest.mark.parametrize(
    ("style", "expected"),
    [
        ("xxx", "xxxSavexxx"),
        ("bracket", "[Save]"),
        ("flipped", "[Sɐʌǝ]"),
        ("blank", "[▯▯▯▯]"),
        ("en", "[Save]"),
    ],
)
def test_podebug_styles(style: str, expected: str) -> None:
    assert pseudo_text("Save", PseudoOptions(style=style, expansion=0)) == expected


def test_placeholders_references_and_urls_in_text_are_kept() -> None:
    text = "Hi {name}, %1$s and %(count)d at https://kapi.example &amp; {{user}}"
    out = pseudo_text(text, PseudoOptions(expansion=0))
    for kept in ("{name}", "%1$s", "%(count)d", "https://kapi.example", "&amp;", "{{user}}"):
        assert kept in out


def test_codes_and_untranslatable_text_are_untouched() -> None:
    runs = (
        Text("Run "),
        PcOpen("1", "fmt:code", data="`"),
        Text("kapi check", no_translate=True),
        PcClose("1", "fmt:code", data="`"),
        Text(" now"),
        Ph("2", "code:placeholder", data="{n}"),
    )
    out = pseudo_runs(runs, PseudoOptions(expansion=0))
    assert [r for r in out if not isinstance(r, Text) or r.no_translate] == [
        r for r in runs if not isinstance(r, Text) or r.no_translate
    ]
    assert plain_text(out).startswith("[Ŕûñ ")


def test_each_plural_form_is_a_whole_string() -> None:
    runs = (Plural("count", {"one": (Text("One file"),), "other": (Text("{count} files"),)}),)
    [plural] = pseudo_runs(runs, PseudoOptions(expansion=0))
    assert isinstance(plural, Plural) and plural.pivot == "count"
    assert plain_text(plural.forms["one"]) == "[Öñé ƒîļé]"
    assert plain_text(plural.forms["other"]) == "[{count} ƒîļéš]"


def test_a_string_of_codes_alone_is_left_as_it_is() -> None:
    runs = (Ph("1", "code:placeholder", data="{n}"),)
    assert pseudo_runs(runs) == runs


def test_bad_options_are_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match="accents"):
        PseudoOptions(style="klingon")
    with pytest.raises(ValueError, match="fraction"):
        PseudoOptions(expansion=30)


@given(st.text(max_size=40), st.sampled_from(STYLES))
def test_letters_count_and_markers_hold_for_any_text(text: str, style: str) -> None:
    out = pseudo_text(text, PseudoOptions(style=style, expansion=0.5))
    letters = sum(1 for c in text if c.isalpha())
    if style == "xxx" and letters and any(c.isascii() and c.isalpha() for c in text):
        assert out.startswith("xxx") and out.endswith("xxx")
    if not text:
        assert out == ""
