"""A translation's plurals take its language's categories, and pseudo-translation's pass QA."""

from __future__ import annotations

import pytest

from kapi.core.check.qa import qa_issues
from kapi.core.model import Ph, Plural, Text
from kapi.core.plurals import for_language, plural_categories, required_categories
from kapi.core.pseudo import pseudo_runs

SOURCE = (
    Text("You have "),
    Plural(
        "count",
        {
            "=0": (Text("no files"),),
            "one": (Ph("1", "code:placeholder", equiv="{count}"), Text(" file")),
            "other": (Ph("1", "code:placeholder", equiv="{count}"), Text(" files")),
        },
    ),
)


@pytest.mark.parametrize(
    ("language", "categories"),
    [
        ("ja", ("other",)),
        ("fr", ("one", "many", "other")),
        ("fr-CA", ("one", "many", "other")),
        ("ar", ("zero", "one", "two", "few", "many", "other")),
        ("ru", ("one", "few", "many", "other")),
        ("pt_BR", ("one", "many", "other")),
    ],
)
def test_a_target_gets_its_languages_categories_and_pseudo_output_passes_qa(
    language: str, categories: tuple[str, ...]
) -> None:
    assert plural_categories(language) == categories
    shaped = for_language(SOURCE, language)
    plural = shaped[1]
    assert isinstance(plural, Plural)
    assert list(plural.forms) == ["=0", *categories]
    assert plural.forms["=0"] == (Text("no files"),)
    for category in categories:  # a category the source lacks starts from its other
        expected = "one" if category == "one" else "other"
        assert plural.forms[category] == SOURCE[1].forms[expected]  # type: ignore[union-attr]
    translated = pseudo_runs(shaped)
    issues = qa_issues(SOURCE, translated, source_language="en", target_language=language)
    assert [issue.rule for issue in issues if issue.fails] == []
    # the source's categories are not enough where the language has others
    copied = qa_issues(SOURCE, pseudo_runs(SOURCE), source_language="en", target_language=language)
    assert any(issue.rule == "qa.plural" for issue in copied) == (language in ("ar", "ru"))


def test_declared_categories_win_and_unknown_languages_keep_the_sources() -> None:
    gettext = for_language(SOURCE, "ru", ("one", "few", "many"))[1]
    assert isinstance(gettext, Plural) and list(gettext.forms) == ["=0", "one", "few", "many"]
    assert for_language(SOURCE, "qps") == SOURCE
    assert for_language((Text("plain"),), "ar") == (Text("plain"),)
    assert required_categories("fr") == ("one", "other")
    assert required_categories("ru") == ("one", "few", "many")
    assert required_categories("xx") == ("other",)
