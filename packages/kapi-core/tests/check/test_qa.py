"""Translation QA: each rule on the faults it names, the reorderings it must allow, and
translate-toolkit's pofilter critical tests as the oracle."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kapi.core.check.engine import run_check
from kapi.core.check.options import CheckOptions
from kapi.core.check.qa import CRITICAL, language_plural_forms, qa_issues
from kapi.core.check.target import CheckTarget
from kapi.core.model import Block, Edition, Ph, Plural, Select, Text
from kapi.core.pseudo import PseudoOptions, pseudo_runs


def rules(source: str, target: str, language: str = "fr") -> list[str]:
    found = qa_issues(
        (Text(source),), (Text(target),), source_language="en", target_language=language
    )
    return [issue.rule for issue in found]


@pytest.mark.parametrize(
    ("source", "target", "rule"),
    [
        ("Deleted %d files", "Fichiers supprimés", "qa.printf"),
        ("Deleted %d files in %s", "Dans %s, %d fichiers supprimés", "qa.printf"),
        ("Use %(name)s now", "Utilisez %(nom)s", "qa.printf"),
        ("%5.2f MB", "%5.1f Mo", "qa.printf"),
        ("Hello {name}!", "Bonjour !", "qa.brace"),
        ("Hello {0} and {1}", "Bonjour {0}", "qa.brace"),
        ("Hi {{user}}", "Salut", "qa.brace"),
        ("Path ${HOME}", "Chemin", "qa.variables"),
        ("Back\\slash", "Barre", "qa.escapes"),
        ("One\nTwo", "Un deux", "qa.newlines"),
        ("Line\n", "Ligne", "qa.newlines"),
        ("A\tB", "A B", "qa.tabs"),
        ("<b>Bold</b> text", "Gras texte", "qa.xmltags"),
        ("Click <a href='x'>here</a>", "Cliquez <b>ici</b>", "qa.xmltags"),
        ("Save the file.", "Enregistrer le fichier", "qa.endpunc"),
        (" Padded", "Rembourré", "qa.whitespace"),
        ("Open the settings page", "Open the settings page", "qa.unchanged"),
        ("OK", "Un texte beaucoup trop long pour un bouton", "qa.length"),
        ("Save changes", "   ", "qa.empty"),
    ],
)
def test_each_rule_catches_the_fault_it_names(source: str, target: str, rule: str) -> None:
    assert rule in rules(source, target)


@pytest.mark.parametrize(
    ("source", "target"),
    [
        ("Deleted %d files in %s", "%d fichiers supprimés dans %s"),
        ("%1$s of %2$d", "%2$d de %1$s"),  # numbered conversions may be reordered
        ("%b %d, %Y", "%d %b %Y"),  # a date format is reordered as a language writes dates
        ("%H:%M", "%Hh%M"),
        ("50% off", "50 % de remise"),  # a percent sign is not a conversion
        ("100%% done", "100%% fait"),
        ("Done?", "完成？"),  # full-width and Arabic marks count as the same mark
        ("Done?", "هل تم؟"),
        ("Done.", "完成。"),
        ("Done?", "Έγινε;"),  # Greek writes its question mark as ;
        ("<b>Bold</b>", "<B>Gras</B>"),
        ("Hello {name}", "Bonjour {name}"),
        ("Save", "Save"),  # a one-word string the same in both is often right
    ],
)
def test_what_translators_legitimately_do_is_not_flagged(source: str, target: str) -> None:
    language = {"完成？": "zh", "هل تم؟": "ar", "完成。": "ja", "Έγινε;": "el"}.get(target, "fr")
    assert rules(source, target, language) == []


def test_codes_count_as_the_text_they_stand_for() -> None:
    source = (Text("Signed in with "), Ph("1", "code:placeholder", data="%(provider)s"))
    assert qa_issues(source, (Text("Connecté"),), target_language="fr")[0].rule == "qa.printf"
    kept = (Text("Connecté avec "), Ph("1", "code:placeholder", data="%(provider)s"))
    assert qa_issues(source, kept, target_language="fr") == []


def test_plural_structure_and_the_forms_a_language_needs() -> None:
    source = (Plural("count", {"one": (Text("One file"),), "other": (Text("{count} files"),)}),)
    russian = (
        Plural(
            "count",
            {
                "one": (Text("{count} файл"),),
                "few": (Text("{count} файла"),),
                "other": (Text("{count} файлов"),),
            },
        ),
    )
    found = qa_issues(source, russian, source_language="en", target_language="ru")
    assert [i.rule for i in found] == ["qa.plural"]
    assert "many" in found[0].message
    # ``other`` is Russian for fractions only: a gettext catalogue's three forms suffice
    assert language_plural_forms("ru") == ("one", "few", "many")
    gettext = (
        Plural(
            "count",
            {
                "one": (Text("{count} файл"),),
                "few": (Text("{count} файла"),),
                "many": (Text("{count} файлов"),),
            },
        ),
    )
    assert qa_issues(source, gettext, source_language="en", target_language="ru") == []
    flat = (Text("{count} fichiers"),)
    assert qa_issues(source, flat, target_language="fr")[0].rule == "qa.plural"
    japanese = (Plural("count", {"other": (Text("{count} ファイル"),)}),)
    assert qa_issues(source, japanese, target_language="ja") == []


def test_select_cases_must_match() -> None:
    source = (Select("gender", {"female": (Text("her"),), "other": (Text("their"),)}),)
    target = (Select("gender", {"other": (Text("leur"),)}),)
    assert [i.rule for i in qa_issues(source, target, target_language="fr")] == ["qa.select"]


def test_the_check_runs_qa_on_a_bilingual_target_and_critical_rules_fail() -> None:
    block = Block(
        id="k1",
        source=(Text("Deleted %d files in %s"),),
        targets={"fr": Edition(runs=(Text("Dans %s, %d fichiers supprimés"),))},
    )
    target = CheckTarget(file="app.po", format="po", blocks=(block,), locale="en")
    report = run_check([target], None, CheckOptions(target_locale="fr"))
    assert {f.rule for f in report.findings} == {"qa.printf"}
    assert report.verdict == "failed"
    runs = {run.id: run for run in report.execution.analyzers}  # type: ignore[union-attr]
    assert runs["qa"].canary is not None and runs["qa"].canary.status == "caught"


def test_an_advisory_finding_does_not_fail_the_check() -> None:
    block = Block(
        id="k1",
        source=(Text("Save the file."),),
        targets={"fr": Edition(runs=(Text("Enregistrer"),))},
    )
    target = CheckTarget(file="app.po", format="po", blocks=(block,), locale="en")
    report = run_check([target], None, CheckOptions(target_locale="fr"))
    assert [f.rule for f in report.findings] == ["qa.endpunc"]
    assert report.verdict == "passed"


# --- translate-toolkit's pofilter as the oracle ----------------------------------------------

PAIRS = [
    ("Deleted %d files", "Fichiers supprimés"),
    ("Deleted %d files in %s", "Dans %s, %d fichiers"),
    ("%s of %s", "%s de %s"),
    ("Use %(name)s now", "Utilisez %(nom)s"),
    ("Use %(name)s now", "Utilisez %(name)s"),
    ("%1$s of %2$d", "%2$d de %1$s"),
    ("%1$s of %2$d", "%2$s de %1$d"),
    ("Hello {name}!", "Bonjour !"),
    ("Hello {0} and {1}", "Bonjour {1} et {0}"),
    ("Hello {0} and {1}", "Bonjour {0}"),
    ("Back\\slash", "Barre"),
    ("One\nTwo", "Un deux"),
    ("Line\n", "Ligne"),
    ("A\tB", "A B"),
    ("<b>Bold</b> text", "Gras texte"),
    ("<b>Bold</b> text", "<b>Gras</b> texte"),
    ("Click <a href='x'>here</a>", "Cliquez <b>ici</b>"),
    ("Plain text", "Texte simple"),
    ("%.2f%% done", "%.2f%% fait"),
    ("%d item", "%s élément"),
]


def _pofilter_critical(source: str, target: str) -> set[str]:
    from translate.filters import checks

    checker = checks.StandardChecker()
    failures = set()
    for name in ("printf", "pythonbraceformat", "escapes", "newlines", "tabs", "xmltags"):
        try:
            getattr(checker, name)(source, target)
        except checks.FilterFailure:
            failures.add(name)
    return failures


@pytest.mark.parametrize(("source", "target"), PAIRS)
def test_every_fault_pofilter_flags_is_flagged(source: str, target: str) -> None:
    pytest.importorskip("translate.filters.checks")
    theirs = _pofilter_critical(source, target)
    mine = {r for r in rules(source, target) if r in CRITICAL}
    assert bool(theirs) == bool(mine), (theirs, mine)


# --- pseudo-translation passes QA ---------------------------------------------------------------

PLACEHOLDERS = st.sampled_from(
    ["{name}", "%s", "%1$d", "%(count)d", "{{user}}", "${HOME}", "<b>", "</b>"]
)
WORDS = st.text(
    alphabet=st.characters(whitelist_categories=("Lu", "Ll"), max_codepoint=0x7F),
    min_size=1,
    max_size=8,
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.one_of(WORDS, PLACEHOLDERS), min_size=1, max_size=8),
    st.sampled_from(["accents", "xxx", "bracket", "flipped", "en"]),
)
def test_pseudo_translation_passes_every_critical_rule(parts: list[str], style: str) -> None:
    source = (Text(" ".join(parts)),)
    target = pseudo_runs(source, PseudoOptions(style=style))
    found = qa_issues(source, target, source_language="en", target_language="qps")
    assert [i.rule for i in found if i.fails] == []


def test_a_formats_own_markup_codes_are_not_tags_or_end_marks() -> None:
    from kapi.core.model import PcClose, PcOpen

    source = (Text("First sentence. Second one."),)
    target = (
        PcOpen("1", "code:tag", "xlf:mrk", '<mrk mtype="seg" mid="1">'),
        Text("最初の文。"),
        PcClose("1", "code:tag", "xlf:mrk", "</mrk>"),
        PcOpen("2", "code:tag", "xlf:mrk", '<mrk mtype="seg" mid="2">'),
        Text("二番目の文。"),
        PcClose("2", "code:tag", "xlf:mrk", "</mrk>"),
    )
    assert qa_issues(source, target, source_language="en", target_language="ja") == []
