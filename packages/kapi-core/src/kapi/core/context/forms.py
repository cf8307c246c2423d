"""The avoided forms of a term rule, derived without a model (``--term T --instead-of F…``).

The spellings a reader would write for ``T`` the project does not use: the
forms named, then ``T``'s spaced, hyphenated and closed spellings when ``T``
is capitalised or closed, and the every-part-capitalised spelling when it is
capitalised. A lower-case spaced phrase (``sign in``) gets no variants.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kapi.core.context.record import TermRule

__all__ = ["avoided_forms", "split_parts"]

_SEPARATORS = re.compile(r"[ \-_]+")
_CASE_CHANGE = re.compile(r"(?<=[a-z])(?=[A-Z])")


def split_parts(text: str) -> list[str]:
    """``text`` cut at spaces, ``-``, ``_`` and lower-to-upper case changes."""
    parts: list[str] = []
    for chunk in _SEPARATORS.split(text.strip()):
        parts.extend(p for p in _CASE_CHANGE.split(chunk) if p)
    return parts


def _closed(text: str) -> bool:
    return _SEPARATORS.search(text) is None


def _split_like(term: str, forms: Sequence[str]) -> list[str]:
    """A closed ``term`` cut where a form spelling the same letters is cut (``Quick cast``)."""
    letters = term.casefold()
    for form in forms:
        parts = split_parts(form)
        if len(parts) >= 2 and "".join(parts).casefold() == letters:
            out, start = [], 0
            for part in parts:
                out.append(term[start : start + len(part)])
                start += len(part)
            return out
    return [term]


def avoided_forms(term: str, instead_of: Sequence[str], *, note: str = "") -> TermRule:
    """The rule ``say term, not …``: the first avoided form is ``term``, the rest ``forms``."""
    replacement = term.strip()
    named = [f.strip() for f in instead_of if f.strip()]
    parts = split_parts(replacement)
    if len(parts) < 2 and _closed(replacement):
        parts = _split_like(replacement, named)
    capitalised = replacement[:1].isupper()
    found = list(named)
    if len(parts) >= 2 and (capitalised or _closed(replacement)):
        found += [" ".join(parts), "-".join(parts), "".join(parts)]
        if capitalised:
            found.append("".join(p[:1].upper() + p[1:] for p in parts))
    avoided: list[str] = []
    for form in found:
        if form != replacement and form not in avoided:
            avoided.append(form)
    if not avoided:
        return TermRule(term="", replacement=replacement, note=note)
    folded = replacement.casefold()
    return TermRule(
        term=avoided[0],
        forms=tuple(avoided[1:]),
        replacement=replacement,
        note=note,
        case_sensitive=any(f.casefold() == folded for f in avoided),
    )
