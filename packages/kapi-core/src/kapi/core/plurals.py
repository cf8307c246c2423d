"""The plural categories each language has (CLDR cardinals), and a plural given a language's.

A translation gives a plural the categories of its own language, not its
source's: Japanese has only ``other``, French ``one``, ``many`` (a million)
and ``other``, Russian ``one``, ``few``, ``many`` and ``other``, Arabic all
six. :func:`plural_categories` names them (``None`` for a language not listed,
whose translation keeps its source's categories). :func:`required_categories`
are those a translation must give: every category whole numbers select, less
a ``many`` that only numbers a UI seldom shows take (a million in French),
which older catalogues of those languages lack; a category only fractions
select (``other`` in Russian, ``many`` in Czech) is not required, as a
gettext catalogue counts whole things. :func:`for_language` re-keys each
plural of a source to a language's categories (or to those a catalogue
declares), each new one starting from the source's ``other``.
"""

from __future__ import annotations

from collections.abc import Sequence

from attrs import evolve

from kapi.core.model import Plural, Run, Runs, Select

__all__ = ["CATEGORIES", "for_language", "plural_categories", "required_categories"]

CATEGORIES = ("zero", "one", "two", "few", "many", "other")

_OTHER = ("ja", "zh", "ko", "vi", "th", "id", "ms", "lo", "my", "km", "yue", "jv", "su")
_ONE_OTHER = (
    "en", "de", "nl", "sv", "da", "nb", "nn", "no", "fi", "et", "el", "hu", "tr", "bg", "sq",
    "eu", "gl", "af", "hi", "bn", "fa", "ur", "sw", "ta", "te", "ml", "kn", "mr", "gu", "hy",
    "ka", "az", "kk", "ky", "uz", "mn", "ne", "si", "am",
)  # fmt: skip
_TABLE: dict[str, tuple[str, ...]] = {
    **{lang: ("other",) for lang in _OTHER},
    **{lang: ("one", "other") for lang in _ONE_OTHER},
    **{lang: ("one", "many", "other") for lang in ("fr", "es", "it", "pt", "ca")},
    **{lang: ("one", "few", "many", "other") for lang in ("ru", "uk", "be", "pl", "lt")},
    **{lang: ("one", "few", "other") for lang in ("hr", "sr", "bs", "ro", "mo")},
    **{lang: ("one", "few", "many", "other") for lang in ("cs", "sk")},
    "sl": ("one", "two", "few", "other"),
    "lv": ("zero", "one", "other"),
    "he": ("one", "two", "other"),
    "ar": CATEGORIES,
    "cy": CATEGORIES,
    "ga": ("one", "two", "few", "many", "other"),
    "mt": ("one", "two", "few", "many", "other"),
}
# Categories a translation may leave out (see the module doc).
_OPTIONAL: dict[str, frozenset[str]] = {
    **{lang: frozenset({"other"}) for lang in ("ru", "uk", "be", "pl")},
    **{lang: frozenset({"many"}) for lang in ("fr", "es", "it", "pt", "ca", "cs", "sk", "lt")},
    "mt": frozenset({"two"}),
}


def _base(language: str) -> str:
    return language.replace("_", "-").split("-")[0].lower()


def plural_categories(language: str) -> tuple[str, ...] | None:
    """The CLDR cardinal categories of ``language`` in CLDR order; None when not known here."""
    return _TABLE.get(_base(language))


def required_categories(language: str) -> tuple[str, ...]:
    """The categories a translation into ``language`` must give (``other`` when unknown)."""
    base = _base(language)
    known = _TABLE.get(base, ("other",))
    optional = _OPTIONAL.get(base, frozenset())
    return tuple(category for category in known if category not in optional)


def for_language(runs: Runs, language: str, categories: Sequence[str] | None = None) -> Runs:
    """``runs`` with each plural given ``language``'s categories (nested ones too).

    ``categories`` are those the target's file declares (a gettext catalogue's
    ``Plural-Forms``), else the language's. A category the source has keeps
    its branch, a new one starts from the source's ``other``, and an exact
    form (``=0``) stays; a language not known here keeps the source's
    categories.
    """
    if categories is None:
        categories = plural_categories(language)
    if categories is None or not any(isinstance(run, Plural | Select) for run in runs):
        return runs
    out: list[Run] = []
    for run in runs:
        if isinstance(run, Plural):
            forms = {
                name: for_language(branch, language, categories)
                for name, branch in run.forms.items()
            }
            fallback = forms.get("other") or next(iter(forms.values()), ())
            exact = {name: branch for name, branch in forms.items() if name.startswith("=")}
            named = {category: forms.get(category, fallback) for category in categories}
            out.append(evolve(run, forms={**exact, **named}))
        elif isinstance(run, Select):
            cases = {
                name: for_language(branch, language, categories)
                for name, branch in run.cases.items()
            }
            out.append(evolve(run, cases=cases))
        else:
            out.append(run)
    return tuple(out)
