import pytest

from kapi.core.edition import EditionKey, EditionKeyError, canonical_locale


@pytest.mark.parametrize(
    ("tag", "canonical"),
    [
        ("en", "en"),
        ("EN-us", "en-US"),
        ("nb_NO", "nb-NO"),
        ("zh-hant-tw", "zh-Hant-TW"),
        ("sr-latn-rs", "sr-Latn-RS"),
        ("es-419", "es-419"),
        ("de-DE-1996", "de-DE-1996"),
        ("iw", "he"),
        ("en-x-Pirate", "en-x-pirate"),
        ("zh-yue-HK", "zh-yue-HK"),
        ("en-u-ca-Gregory", "en-u-ca-gregory"),
    ],
)
def test_canonical_locale(tag, canonical):
    assert canonical_locale(tag) == canonical


@pytest.mark.parametrize(
    "tag", ["", " en", "e", "en--US", "en-US-", "1234", "en_US!", "en-a", "toolongtag9"]
)
def test_bad_locales_are_refused(tag):
    with pytest.raises(EditionKeyError):
        canonical_locale(tag)


def test_edition_key_round_trip_is_canonical():
    key = EditionKey.parse("fr_ca;channel=short;tone=formal")
    assert key.text == "fr-CA;tone=formal;channel=short"
    assert EditionKey.parse(key.text) == key
    assert not key.is_plain
    assert EditionKey.parse("fr").is_plain


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("fr;mood=x", "unknown dimension"),
        ("fr;tone=a;tone=b", "twice"),
        ("fr;tone=", "needs a value"),
        ("fr;tone=a=b", "needs a value"),
        ("fr;tone", "name=value"),
        ("", "needs a language"),
        ("xx-!!", "not a language tag"),
    ],
)
def test_edition_key_errors_say_why(text, fragment):
    with pytest.raises(EditionKeyError, match=fragment):
        EditionKey.parse(text)
