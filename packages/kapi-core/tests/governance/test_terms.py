"""Terms: the kapi-terms bundle, the rules terms become, CSV and TBX, with round trips."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from attrs import evolve
from hypothesis import given, settings
from hypothesis import strategies as st

from kapi.core.governance.errors import GovernanceError
from kapi.core.governance.tbx import parse_tbx, write_tbx
from kapi.core.governance.terms import (
    TERM_STATUSES,
    Concept,
    Term,
    TermsBundle,
    TermValidity,
    concept_id_for,
    decode_terms_bundle,
    encode_terms_bundle,
    locale_matches,
    rules_from_concepts,
)
from kapi.core.governance.terms_csv import parse_terms_csv, write_terms_csv
from kapi.core.governance.voice import AcceptedTerm, TermRule

SPEC_BUNDLE = {
    "schemaVersion": "1.0",
    "kind": "kapi-terms",
    "concepts": [
        {
            "id": "term:en-GB:berth",
            "source": "terminology",
            "terms": [
                {"text": "berth", "locale": "en-GB", "status": "preferred"},
                {
                    "text": "mooring",
                    "locale": "en-GB",
                    "status": "deprecated",
                    "note": "use: berth",
                },
            ],
        }
    ],
}


def test_the_spec_example_decodes() -> None:
    bundle = decode_terms_bundle(SPEC_BUNDLE, "terms.json")
    assert bundle.concepts[0].terms[1] == Term("mooring", "en-GB", "deprecated", note="use: berth")


def test_encode_writes_the_wire_names_and_leaves_defaults_out() -> None:
    bundle = decode_terms_bundle(SPEC_BUNDLE)
    data = encode_terms_bundle(bundle)
    assert list(data) == ["schemaVersion", "kind", "concepts"]
    assert data["concepts"][0] == {
        "id": "term:en-GB:berth",
        "terms": [
            {"text": "berth", "locale": "en-GB", "status": "preferred"},
            {"text": "mooring", "locale": "en-GB", "status": "deprecated", "note": "use: berth"},
        ],
    }
    assert decode_terms_bundle(json.loads(json.dumps(data))) == bundle


def test_locales_are_canonicalised_and_status_defaults_to_approved() -> None:
    data = {
        "schemaVersion": "1.0",
        "kind": "kapi-terms",
        "concepts": [{"id": "c", "terms": [{"text": "x", "locale": "nb_no"}]}],
    }
    term = decode_terms_bundle(data).concepts[0].terms[0]
    assert (term.locale, term.status) == ("nb-NO", "approved")


def _bundle(*concepts: object) -> dict[str, object]:
    return {"schemaVersion": "1.0", "kind": "kapi-terms", "concepts": list(concepts)}


@pytest.mark.parametrize(
    ("data", "key", "words"),
    [
        ({"schemaVersion": "1.0", "kind": "terms"}, "kind", "kapi-terms"),
        ({"schemaVersion": "2.0", "kind": "kapi-terms"}, "schemaVersion", "not supported"),
        (
            _bundle({"id": "c", "terms": [{"text": 1, "locale": "en"}]}),
            "concepts[0].terms[0].text",
            "expected text",
        ),
        (
            _bundle({"id": "c", "terms": [{"text": "a", "locale": "en", "colour": 1}]}),
            "concepts[0].terms[0].colour",
            "unknown key",
        ),
        (_bundle({"id": "c", "terms": [{"locale": "en"}]}), "concepts[0].terms[0].text", "missing"),
        (
            _bundle({"id": "c", "terms": [{"text": "a", "locale": "en", "status": "banned"}]}),
            "concepts[0].terms[0].status",
            "not one of",
        ),
        (
            _bundle({"id": "c", "terms": [{"text": "a", "locale": "??"}]}),
            "concepts[0].terms[0].locale",
            "language tag",
        ),
        (
            _bundle({"id": "c", "terms": [{"text": " ", "locale": "en"}]}),
            "concepts[0].terms[0].text",
            "needs text",
        ),
        (
            _bundle({"id": "c", "terms": [{"text": "a", "locale": "en", "forms": "a"}]}),
            "concepts[0].terms[0].forms",
            "list",
        ),
        (
            _bundle(
                {
                    "id": "c",
                    "terms": [{"text": "a", "locale": "en", "validity": {"valid_to": "soon"}}],
                }
            ),
            "concepts[0].terms[0].validity.valid_to",
            "not a date",
        ),
        (
            _bundle({"id": "c", "do_not_translate": "yes"}),
            "concepts[0].do_not_translate",
            "true or false",
        ),
        (_bundle({"id": "c", "source": "wiki"}), "concepts[0].source", "not one of"),
        (_bundle({"id": "c"}, {"id": "c"}), "concepts[1].id", "twice"),
        ({"schemaVersion": "1.0", "kind": "kapi-terms", "concepts": {}}, "concepts", "list"),
        (_bundle({"id": "c", "terms": {}}), "concepts[0].terms", "list"),
    ],
)
def test_malformed_bundles_name_the_key(data: dict[str, object], key: str, words: str) -> None:
    with pytest.raises(GovernanceError) as caught:
        decode_terms_bundle(data, "terms.json")
    assert caught.value.key == key
    assert words in caught.value.message
    assert caught.value.source == "terms.json"


def test_concept_id_is_minted_from_locale_and_text() -> None:
    assert concept_id_for("en-GB", "Log In!") == "term:en-GB:log-in"


@pytest.mark.parametrize(
    ("term_locale", "locale", "expected"),
    [
        ("en", "en", True),
        ("en-GB", "en", True),
        ("en", "en-GB", True),
        ("en-GB", "en-US", False),
        ("fr", "en", False),
        ("en", "", True),
    ],
)
def test_locale_matching(term_locale: str, locale: str, expected: bool) -> None:
    assert locale_matches(term_locale, locale) is expected


def test_rules_from_concepts_follow_the_status_table() -> None:
    concept = Concept(
        id="c1",
        terms=(
            Term("sign in", "en", "preferred", forms=("signs in",)),
            Term("log on", "en", "admitted"),
            Term("log in", "en", "forbidden", note="house style"),
            Term("login", "en", "deprecated"),
            Term("SeaCorp Login", "en", "approved", competitor_term=True),
            Term("connexion", "fr", "forbidden"),
            Term("logon", "en", "proposed"),
        ),
        do_not_translate=False,
    )
    rules = rules_from_concepts([concept], "en")
    accepted = (AcceptedTerm("log on"),)
    assert rules == [
        TermRule(
            term="log in",
            replacement="sign in",
            replacement_forms=("signs in",),
            accepted=accepted,
            note="house style",
            advisory=False,
            concept_id="c1",
        ),
        TermRule(
            term="login",
            replacement="sign in",
            replacement_forms=("signs in",),
            accepted=accepted,
            advisory=True,
            concept_id="c1",
        ),
        TermRule(
            term="SeaCorp Login",
            replacement="sign in",
            replacement_forms=("signs in",),
            accepted=accepted,
            advisory=False,
            concept_id="c1",
            competitor=True,
        ),
    ]


def test_a_concept_with_only_a_preferred_term_gives_a_replacement_only_rule() -> None:
    concept = Concept(id="gh", terms=(Term("GitHub", "en", "preferred"),), do_not_translate=True)
    assert rules_from_concepts([concept], "en-US") == [
        TermRule(replacement="GitHub", do_not_translate=True, concept_id="gh")
    ]


def test_terms_outside_their_validity_are_left_out() -> None:
    concept = Concept(
        id="c",
        terms=(
            Term("berth", "en", "preferred"),
            Term(
                "slip",
                "en",
                "forbidden",
                validity=TermValidity(valid_from="2026-06-01", valid_to="2027-01-01"),
            ),
        ),
    )

    def rejected(at: datetime) -> list[str]:
        return [rule.term for rule in rules_from_concepts([concept], "en", at=at) if rule.rejects]

    assert rejected(datetime(2026, 6, 1, tzinfo=UTC)) == ["slip"]  # from: inclusive, midnight UTC
    assert rejected(datetime(2026, 5, 31, 23, 59, tzinfo=UTC)) == []
    assert rejected(datetime(2027, 1, 1, tzinfo=UTC)) == []  # to: exclusive


# --------------------------------------------------------------------------- CSV


def test_csv_reads_rows_grouped_by_concept() -> None:
    text = (
        "concept,locale,text,status,note,forms,competitor,dnt\n"
        "c1,en_GB,berth,preferred,,berths,,\n"
        'c1,en-GB,mooring,forbidden,"use: berth, always",,no,\n'
        ",en,GitHub,preferred,,,,yes\n"
    )
    bundle = parse_terms_csv(text)
    assert [c.id for c in bundle.concepts] == ["c1", "term:en:github"]
    assert bundle.concepts[0].terms[0].forms == ("berths",)
    assert bundle.concepts[0].terms[1].note == "use: berth, always"
    assert bundle.concepts[1].do_not_translate


def test_csv_default_locale_bom_and_semicolons() -> None:
    bundle = parse_terms_csv("\ufeffterm;status\nberth;preferred\n", default_locale="en")
    assert bundle.concepts[0].terms[0] == Term("berth", "en", "preferred")


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("", 1, "empty"),
        ("text,colour\nx,red\n", 1, "unknown column"),
        ("locale,status\nen,preferred\n", 1, "text"),
        ("text,text\nx,y\n", 1, "twice"),
        ("text,locale\nberth,en\n,en\n", 3, "needs text"),
        ("text,locale\nberth,en\nquay\n", 3, "needs a locale"),
        ("text,locale,status\nberth,en,preferred\nquay,en,great\n", 3, "status"),
        ("text,locale\nberth,??\n", 2, "language tag"),
        ('text,locale,note\nberth,en,"two\nlines"\nquay,en,a,b\n', 4, "cells"),
        ("text,locale,competitor\nberth,en,maybe\n", 2, "true or false"),
        ('text,locale\n"berth,en\n', 2, "malformed"),
        ("concept,text,locale,domain\nc,a,en,boats\nc,b,en,cars\n", 3, "differs"),
        ("text,locale,valid_to\nberth,en,tomorrow\n", 2, "not a date"),
    ],
)
def test_malformed_csv_names_the_line(text: str, line: int, words: str) -> None:
    with pytest.raises(GovernanceError) as caught:
        parse_terms_csv(text, source="terms.csv")
    assert caught.value.line == line
    assert words in caught.value.message
    assert str(caught.value).startswith(f"terms.csv:{line}")


# --------------------------------------------------------------------------- TBX

FIXTURES = Path(__file__).parent / "fixtures"
TBX3 = (FIXTURES / "core.tbx").read_text(encoding="utf-8")  # TBX-Core, ISO 30042:2019
TBX2 = (FIXTURES / "basic.tbx").read_text(encoding="utf-8")  # TBX-Basic, martif


def test_tbx3_is_read() -> None:
    bundle = parse_tbx(TBX3)
    concept = bundle.concepts[0]
    assert concept.definition == "Where a boat is kept."
    assert [(t.text, t.locale, t.status) for t in concept.terms] == [
        ("berth", "en", "preferred"),
        ("mooring", "en", "deprecated"),
        ("båtplass", "nb-NO", "approved"),
    ]


def test_tbx2_is_read_with_ntig_and_minted_ids() -> None:
    concept = parse_tbx(TBX2).concepts[0]
    assert concept.id == "term:en:helm"
    assert concept.domain == "sailing"
    assert concept.terms[0].status == "admitted"
    assert (concept.terms[1].part_of_speech, concept.terms[1].note) == ("noun", "on big ships")


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("<martif>\n<text>\n</martif>", 3, "malformed XML"),
        ("<glossary/>", 1, "root element"),
        ('<!DOCTYPE m [<!ENTITY a "b">]>\n<martif/>', 1, "entity"),
        (
            "<martif><text><body>\n<termEntry>\n<langSet><tig><term>x</term></tig></langSet></termEntry></body></text></martif>",
            3,
            "xml:lang",
        ),
        (
            '<martif><text><body>\n<termEntry>\n<langSet xml:lang="en">\n<tig><term> </term></tig></langSet></termEntry></body></text></martif>',
            4,
            "needs text",
        ),
        (
            '<martif><text><body><termEntry>\n<langSet xml:lang="en"><tig><term>x</term>\n<termNote type="administrativeStatus">greatTerm</termNote></tig></langSet></termEntry></body></text></martif>',
            3,
            "status",
        ),
        (
            '<martif><text><body>\n<termEntry id="a"/>\n<termEntry id="a"/></body></text></martif>',
            3,
            "twice",
        ),
        ("", 1, "malformed XML"),
    ],
)
def test_malformed_tbx_names_the_line(text: str, line: int, words: str) -> None:
    with pytest.raises(GovernanceError) as caught:
        parse_tbx(text, source="t.tbx")
    assert caught.value.line == line
    assert words in caught.value.message


# --------------------------------------------------------------------------- round trips

_TEXT = (
    st.text(alphabet="abcxyz éøß中&<>'\",;-", min_size=1, max_size=10).map(str.strip).filter(bool)
)
_LOCALES = st.sampled_from(["en", "en-GB", "fr", "nb-NO", "zh-Hant-TW"])
_DATES = st.sampled_from(["", "2026-01-01", "2027-06-30T12:00:00+00:00"])


@st.composite
def _terms(draw: st.DrawFn) -> Term:
    valid_from, valid_to = draw(_DATES), draw(_DATES)
    return Term(
        text=draw(_TEXT),
        locale=draw(_LOCALES),
        status=draw(st.sampled_from(TERM_STATUSES)),
        part_of_speech=draw(st.sampled_from(["", "noun", "verb"])),
        gender=draw(st.sampled_from(["", "masculine"])),
        note=draw(st.one_of(st.just(""), _TEXT)),
        competitor_term=draw(st.booleans()),
        validity=TermValidity(valid_from, valid_to) if valid_from or valid_to else None,
        forms=tuple(draw(st.lists(_TEXT.filter(lambda t: "|" not in t), max_size=2))),
    )


@st.composite
def _bundles(draw: st.DrawFn) -> TermsBundle:
    concepts = []
    for index in range(draw(st.integers(0, 3))):
        concepts.append(
            Concept(
                id=f"term:en:c{index}",
                terms=tuple(draw(st.lists(_terms(), min_size=1, max_size=4))),
                domain=draw(st.one_of(st.just(""), _TEXT)),
                definition=draw(st.one_of(st.just(""), _TEXT)),
                source=draw(st.sampled_from(["terminology", "brand_vocabulary"])),
                do_not_translate=draw(st.booleans()),
            )
        )
    return TermsBundle(concepts=tuple(concepts))


@given(_bundles())
def test_bundle_json_round_trip(bundle: TermsBundle) -> None:
    data = json.loads(json.dumps(encode_terms_bundle(bundle)))
    assert decode_terms_bundle(data) == bundle


@given(_bundles())
def test_csv_round_trip(bundle: TermsBundle) -> None:
    assert parse_terms_csv(write_terms_csv(bundle)) == bundle


def _grouped(bundle: TermsBundle) -> TermsBundle:
    """TBX groups a concept's terms by language, in order of first appearance."""
    concepts = []
    for concept in bundle.concepts:
        order = list(dict.fromkeys(term.locale for term in concept.terms))
        terms = tuple(sorted(concept.terms, key=lambda t: order.index(t.locale)))
        concepts.append(evolve(concept, terms=terms))
    return evolve(bundle, concepts=tuple(concepts))


@settings(max_examples=60)
@given(_bundles())
def test_tbx_round_trip(bundle: TermsBundle) -> None:
    assert parse_tbx(write_tbx(bundle)) == _grouped(bundle)


def test_stored_concepts_are_read_as_the_bundle_converter_reads_them():
    import cattrs

    from kapi.core.governance.terms import _converter, decode_stored_concepts

    concepts = (
        Concept(id="term:en:a", terms=(Term(text="a", locale="en"),)),
        Concept(
            id="term:en:quickcast",
            domain="product",
            definition="The casting app",
            do_not_translate=True,
            properties={"coordinates": "channel=app", "origin": "0abc"},
            terms=(
                Term(text="Quickcast", locale="en", status="preferred", forms=("Quickcasts",)),
                Term(text="Quick cast", locale="en", status="forbidden", note="one word"),
                Term(
                    text="QC",
                    locale="en",
                    status="deprecated",
                    competitor_term=True,
                    validity=TermValidity(valid_to="2030-01-01"),
                ),
            ),
        ),
    )
    rows = encode_terms_bundle(TermsBundle(concepts=concepts))["concepts"]
    assert decode_stored_concepts(rows) == list(concepts)
    assert decode_stored_concepts(rows) == [_converter().structure(r, Concept) for r in rows]
    odd = [{**rows[0], "terms": [{"text": "a", "locale": "en", "status": 3}]}]
    with pytest.raises(cattrs.BaseValidationError):  # not the shape a store writes
        decode_stored_concepts(odd)
