"""Pseudo-translation: text that looks translated, so layouts and encodings can be tried early.

Only the letters of translatable text change; inline codes, placeholders left
in text (``{name}``, ``%1$s``, ``%(count)d``), character references and URLs
are kept as they are, and plural and select branches are each rewritten. The
styles follow podebug's: ``accents`` (the default: ``Ŝéţţîñĝš``), ``xxx``
(``xxxSettingsxxx``), ``bracket`` (``[Settings]``), ``flipped`` (upside-down
letters), ``blank`` (every letter a block), ``en`` (text unchanged, markers
only). ``expansion`` pads each string by that fraction of its letters, as
translations into longer languages grow; ``brackets`` marks where each
string starts and ends, so a truncated or concatenated string shows.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from attrs import evolve, field, frozen

from kapi.core.check.text import PLACEHOLDER_PATTERN, URL_PATTERN
from kapi.core.model import PcClose, PcOpen, Ph, Plural, Run, Runs, Select, Sub, Text

__all__ = ["STYLES", "PseudoOptions", "pseudo_runs", "pseudo_text"]

STYLES = ("accents", "xxx", "bracket", "flipped", "blank", "en")

_ACCENTED = str.maketrans(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "åƀçđéƒĝĥîĵķļɱñöþǫŕšţûṽŵẋýžÅƁÇĐÉƑĜĤÎĴĶĻṀÑÖÞǪŔŠŢÛṼŴẊÝŽ",
)
_FLIPPED = str.maketrans(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "ɐqɔpǝɟƃɥıɾʞlɯuodbɹsʇnʌʍxʎz∀ᗺƆᗡƎℲ⅁HIſꓘ˥WNOԀΌᴚS⊥∩ΛMX⅄Z",
)
_BLANK = str.maketrans(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "▯" * 52,
)
# Kept as written: the placeholders and URLs the checks know, character references, tags.
_KEEP = re.compile(
    "|".join(
        (
            PLACEHOLDER_PATTERN.pattern,
            URL_PATTERN.pattern,
            r"&(?:[A-Za-z][A-Za-z0-9]*|#[0-9]+|#[xX][0-9A-Fa-f]+);",
            r"</?[A-Za-z0-9]+[^<>]*>",
        )
    )
)
_PAD = "~"


def _in_styles(_instance: object, _attribute: object, value: str) -> None:
    if value not in STYLES:
        raise ValueError(f"unknown pseudo-translation style {value!r}; one of {', '.join(STYLES)}")


def _fraction(_instance: object, _attribute: object, value: float) -> None:
    if not 0 <= value <= 10:
        raise ValueError(
            f"expansion must be between 0 and 10 (a fraction: 0.3 is 30%), not {value}"
        )


@frozen
class PseudoOptions:
    """How text is pseudo-translated: the style, the padding, the start and end markers."""

    style: str = field(default="accents", validator=_in_styles)
    expansion: float = field(default=0.3, validator=_fraction)
    brackets: bool = True


def _letters(style: str) -> Callable[[str], str]:
    table = {"accents": _ACCENTED, "flipped": _FLIPPED, "blank": _BLANK}.get(style)
    if table is None:
        return lambda text: text
    return lambda text: text.translate(table)


def _rewrite(text: str, change: Callable[[str], str]) -> str:
    """``text`` with ``change`` applied outside the spans kept as written."""
    out: list[str] = []
    cursor = 0
    for match in _KEEP.finditer(text):
        out.append(change(text[cursor : match.start()]))
        out.append(match.group(0))
        cursor = match.end()
    out.append(change(text[cursor:]))
    return "".join(out)


def _letter_count(runs: Runs) -> int:
    count = 0
    for run in runs:
        if isinstance(run, Text) and not run.no_translate:
            count += sum(1 for char in _KEEP.sub("", run.text) if char.isalpha())
    return count


def _markers(options: PseudoOptions) -> tuple[str, str]:
    if options.style == "xxx":
        return "xxx", "xxx"
    if options.style == "bracket" or options.brackets:
        return "[", "]"
    return "", ""


def _branch(runs: Runs, options: PseudoOptions) -> Runs:
    """One whole string: letters changed, padded, and marked at both ends."""
    change = _letters(options.style)
    out: list[Run] = []
    for run in runs:
        if isinstance(run, Text) and not run.no_translate:
            out.append(evolve(run, text=_rewrite(run.text, change)))
        elif isinstance(run, Plural):
            out.append(evolve(run, forms={k: _branch(v, options) for k, v in run.forms.items()}))
        elif isinstance(run, Select):
            out.append(evolve(run, cases={k: _branch(v, options) for k, v in run.cases.items()}))
        else:
            out.append(run)
    letters = _letter_count(runs)
    if letters == 0:
        return tuple(out)  # nothing to translate: no markers around codes alone
    pad = _PAD * math.ceil(letters * options.expansion) if options.expansion else ""
    opening, closing = _markers(options)
    ending = (" " + pad if pad else "") + closing
    return (Text(opening), *out, Text(ending)) if opening or ending else tuple(out)


def _merged(runs: Runs) -> Runs:
    """Adjacent text runs of the same kind joined, empty ones dropped."""
    out: list[Run] = []
    for run in runs:
        if isinstance(run, Text):
            if not run.text:
                continue
            last = out[-1] if out else None
            if isinstance(last, Text) and last.no_translate == run.no_translate:
                out[-1] = evolve(last, text=last.text + run.text)
                continue
        out.append(run)
    return tuple(out)


def pseudo_runs(runs: Runs, options: PseudoOptions | None = None) -> Runs:
    """``runs`` pseudo-translated; every code, placeholder and branch pivot kept as it was.

    A string that is one plural or select is marked inside each branch (each
    branch is a whole string a reader sees); other strings are marked at their
    two ends.
    """
    chosen = options or PseudoOptions()
    wholly_branched = bool(runs) and all(
        isinstance(run, Plural | Select)
        or (isinstance(run, Text) and not run.text.strip())
        or isinstance(run, Ph | PcOpen | PcClose | Sub)
        for run in runs
    )
    if wholly_branched and any(isinstance(run, Plural | Select) for run in runs):
        bare = PseudoOptions(style=chosen.style, expansion=0.0, brackets=False)
        out: list[Run] = []
        for run in runs:
            if isinstance(run, Plural):
                forms = {k: _merged(_branch(v, chosen)) for k, v in run.forms.items()}
                out.append(evolve(run, forms=forms))
            elif isinstance(run, Select):
                cases = {k: _merged(_branch(v, chosen)) for k, v in run.cases.items()}
                out.append(evolve(run, cases=cases))
            else:
                out.extend(_branch((run,), bare))
        return _merged(tuple(out))
    return _merged(_branch(runs, chosen))


def pseudo_text(text: str, options: PseudoOptions | None = None) -> str:
    """Plain text pseudo-translated (placeholders and references in it kept)."""
    runs = pseudo_runs((Text(text),), options)
    return "".join(run.text for run in runs if isinstance(run, Text))
