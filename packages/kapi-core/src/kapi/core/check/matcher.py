"""The one term matcher every gate uses (spec §3.7).

Matching is whole-word in the Unicode sense: a letter, digit, mark or ``_``
next to a match means the match is inside a longer word, and so does a ``.``
followed (or preceded) by a word character, so ``Node.js`` is one token and
``node`` never matches inside it. Scripts written without spaces (Han, kana,
Thai, …) get no boundary rule. A multi-word term matches across any run of
whitespace, never across an inline code (a code is masked to a boundary
character before text reaches the matcher). Where matches overlap, the longer
wins; a rule's preferred wording (replacement, accepted forms) competes too,
so a preferred ``Cloud Run`` shields ``cloud`` inside it. An English source
also matches the suffixes -s, -es, -ed, -ing and -d when a rule declares no
forms. Case follows the rule: ``case_sensitive`` when set; otherwise a
replacement with a capital letter, or a term and replacement that differ only
by case, match case-sensitively, and everything else ignores case. When one
span matches several rules (several casings of one word), the match whose
text equals the rule's spelling exactly wins, then a preferred wording, then
the rule declared first: the outcome never depends on dictionary order.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from attrs import frozen

from kapi.core.governance.voice import TermRule

__all__ = [
    "INFLECTIONS",
    "TermMatch",
    "TermMatcher",
    "contains_phrase",
    "is_case_sensitive",
    "is_english",
]

INFLECTIONS = ("es", "ed", "ing", "s", "d")
_IDENTIFIED_MAX = 4096  # spellings remembered per matcher
_SUFFIX = "(?:es|ed|ing|s|d)?"
_WHITESPACE = re.compile(r"\s+")
# A word character: what \w holds plus the combining marks \w leaves out (accents
# written as separate code points, Indic vowel signs), so "cafe\u0301" is one word.
_WORD = (
    r"[\w\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0670"
    r"\u06d6-\u06ed\u0900-\u0963\u0966-\u0dff\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff"
    r"\ufe20-\ufe2f]"
)
_WORD_CHAR = re.compile(_WORD)
_TOKEN = re.compile(_WORD + "+")
# Scripts written without spaces between words: no boundary rule applies.
_UNSPACED = (
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x2E80, 0x2FDF),  # CJK radicals
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x3100, 0x312F),  # Bopomofo
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified
    (0xF900, 0xFAFF),  # CJK compatibility
    (0x20000, 0x2FA1F),  # CJK extensions
)


def is_english(locale: str) -> bool:
    """True for an English (or unstated) source locale: the one inflection rule applies."""
    return not locale or locale.lower() == "en" or locale.lower().startswith("en-")


def is_case_sensitive(rule: TermRule) -> bool:
    """Whether a rule matches case-sensitively (spec §3.5)."""
    if rule.case_sensitive is not None:
        return rule.case_sensitive
    if rule.replacement and any(char.isupper() for char in rule.replacement):
        return True
    return bool(
        rule.term
        and rule.replacement
        and rule.term != rule.replacement
        and rule.term.casefold() == rule.replacement.casefold()
    )


def _is_word_char(char: str) -> bool:
    return _WORD_CHAR.match(char) is not None


def _is_unspaced(char: str) -> bool:
    code = ord(char)
    if code < _UNSPACED[0][0]:  # Latin, Greek, Cyrillic…: the common case, decided at once
        return False
    return any(low <= code <= high for low, high in _UNSPACED)


def _normal(text: str) -> str:
    return _WHITESPACE.sub(" ", text.strip())


@frozen
class TermMatch:
    """One match: which rule, where in the text, and whether it is a preferred wording."""

    rule: TermRule
    rule_index: int
    start: int
    end: int
    text: str
    suffix: str = ""
    allowed: bool = False

    @property
    def suggestion(self) -> str:
        """The replacement fitted to the match: its inflection and its initial capital."""
        replacement = self.rule.replacement
        if not replacement or self.allowed:
            return ""
        suffix = self.suffix.lower()
        if suffix and " " not in replacement:
            replacement = _inflect(replacement, suffix)
        elif suffix:
            replacement = replacement + suffix
        # a capital the text added (a sentence start) carries over; a capital the term has does not
        if (
            not is_case_sensitive(self.rule)
            and self.text[:1].isupper()
            and not self.rule.term[:1].isupper()
            and replacement[:1].islower()
        ):
            replacement = replacement[:1].upper() + replacement[1:]
        return replacement


def _inflect(word: str, suffix: str) -> str:
    if suffix in ("s", "es"):
        return word + ("es" if word.endswith(("s", "x", "z", "ch", "sh")) else "s")
    if suffix in ("d", "ed"):
        return word + ("d" if word.endswith("e") else "ed")
    if suffix == "ing" and word.endswith("e") and not word.endswith("ee"):
        return word[:-1] + "ing"
    return word + suffix


@frozen
class _Phrase:
    text: str
    key: str
    rule_index: int
    allowed: bool
    case_sensitive: bool
    inflect: bool


class TermMatcher:
    """Find the rules' terms (and their preferred wordings) in masked text."""

    def __init__(self, rules: Sequence[TermRule], *, locale: str = "") -> None:
        self.rules = tuple(rules)
        english = is_english(locale)
        self._phrases: list[_Phrase] = []
        self._by_key: dict[str, list[_Phrase]] = {}
        for index, rule in enumerate(self.rules):
            sensitive = is_case_sensitive(rule)
            wordings: list[tuple[str, bool, bool]] = []
            if rule.term:
                inflect_rejects = english and not rule.forms
                wordings.append((rule.term, False, inflect_rejects))
                wordings.extend((form, False, False) for form in rule.forms)
            if rule.replacement:
                wordings.append((rule.replacement, True, english and not rule.replacement_forms))
                wordings.extend((form, True, False) for form in rule.replacement_forms)
            for accepted in rule.accepted:
                wordings.append((accepted.text, True, english and not accepted.forms))
                wordings.extend((form, True, False) for form in accepted.forms)
            for text, allowed, inflect in wordings:
                text = _normal(text)
                if not text:
                    continue
                inflect = inflect and text[-1].isalpha() and not _is_unspaced(text[-1])
                phrase = _Phrase(text, text.casefold(), index, allowed, sensitive, inflect)
                self._phrases.append(phrase)
                self._by_key.setdefault(phrase.key, []).append(phrase)
        # Matches start only at a word's first character, so the regexes run only where a word
        # could begin a phrase; a phrase starting with punctuation or an unspaced script cannot
        # be indexed that way, and then every position is searched.
        self._heads: set[str] = set()
        self._search_everywhere = False
        for phrase in self._phrases:
            head = _TOKEN.match(phrase.text)
            if head is None or head.start() != 0 or _is_unspaced(phrase.text[0]):
                self._search_everywhere = True
            else:
                self._heads.add(head.group().casefold())
        # every spelling a text word may have and still begin a phrase (heads and their inflections)
        self._starts: frozenset[str] = frozenset(
            {*self._heads}
            | {head + suffix for head in self._heads for suffix in INFLECTIONS}
            | {head[:-1] + "ing" for head in self._heads if head.endswith("e")}
        )
        self._sensitive = self._compile([p for p in self._phrases if p.case_sensitive], 0)
        self._insensitive = self._compile(
            [p for p in self._phrases if not p.case_sensitive], re.IGNORECASE
        )
        self._compiled_all = tuple(c for c in (self._sensitive, self._insensitive) if c is not None)
        # a check meets the same few spellings in every file: each is identified once
        self._identified: dict[str, tuple[_Phrase, str] | None] = {}

    @property
    def rejects_anything(self) -> bool:
        return any(not phrase.allowed for phrase in self._phrases)

    @staticmethod
    def _compile(phrases: list[_Phrase], flags: int) -> re.Pattern[str] | None:
        if not phrases:
            return None
        unique: dict[tuple[str, bool], None] = {}
        for phrase in sorted(phrases, key=lambda p: (-len(p.text), p.text)):
            unique[(phrase.text, phrase.inflect)] = None
        # Longest first, as the alternation tries them. Consecutive phrases with the same
        # boundary checks share one group, so the large word class appears a few times, not
        # four times per phrase; ``L(?:a|b)R`` tries ``LaR`` then ``LbR`` like ``LaR|LbR``.
        groups: list[tuple[tuple[bool, bool], list[str]]] = []
        for text, inflect in unique:
            kind = _boundaries(text, inflect)
            if groups and groups[-1][0] == kind:
                groups[-1][1].append(_phrase_body(text, inflect))
            else:
                groups.append((kind, [_phrase_body(text, inflect)]))
        pattern = "|".join(_bounded("|".join(bodies), *kind) for kind, bodies in groups)
        return _compiled(pattern, flags)

    def find(self, text: str) -> list[TermMatch]:
        """Every winning match in ``text``, preferred wordings included, in text order."""
        if not self._phrases or not text:
            return []
        found: dict[tuple[int, int], TermMatch] = {}
        compiled_all = self._compiled_all
        if self._search_everywhere:
            for compiled in compiled_all:
                position = 0
                while position <= len(text):
                    match = compiled.search(text, position)
                    if match is None:
                        break
                    self._record(match, found)
                    position = match.start() + 1
        else:
            starts = self._starts
            for token in _TOKEN.finditer(text):
                if token.group().casefold() not in starts:
                    continue
                for compiled in compiled_all:
                    match = compiled.match(text, token.start())
                    if match is not None:
                        self._record(match, found)
        if len(found) < 2:
            return list(found.values())
        ordered = sorted(found.values(), key=lambda m: (-(m.end - m.start), m.start))
        taken: list[TermMatch] = []
        for candidate in ordered:
            if all(candidate.end <= other.start or candidate.start >= other.end for other in taken):
                taken.append(candidate)
        return sorted(taken, key=lambda m: m.start)

    def _record(self, match: re.Match[str], found: dict[tuple[int, int], TermMatch]) -> None:
        span = match.span()
        if span in found:
            return
        matched = match.group()
        try:
            chosen = self._identified[matched]
        except KeyError:
            if len(self._identified) >= _IDENTIFIED_MAX:
                self._identified.clear()
            chosen = self._identified[matched] = self._identify(matched)
        if chosen is None:
            return
        phrase, suffix = chosen
        found[span] = TermMatch(
            rule=self.rules[phrase.rule_index],
            rule_index=phrase.rule_index,
            start=span[0],
            end=span[1],
            text=matched,
            suffix=suffix,
            allowed=phrase.allowed,
        )

    def violations(self, text: str) -> list[TermMatch]:
        """The matches of rejected terms: what a check reports."""
        return [match for match in self.find(text) if not match.allowed]

    def _identify(self, matched: str) -> tuple[_Phrase, str] | None:
        """The best rule wording for a matched span (exact spelling, preferred, first declared)."""
        core = _normal(matched)
        options: list[tuple[_Phrase, str]] = []
        for suffix in ("", *INFLECTIONS):
            if suffix and not core.casefold().endswith(suffix):
                continue
            stem = core[: len(core) - len(suffix)] if suffix else core
            stems = [stem]
            if suffix == "ing":
                stems.append(stem + ("E" if stem[-1:].isupper() else "e"))
            for candidate in stems:
                for phrase in self._by_key.get(candidate.casefold(), ()):
                    if suffix and not phrase.inflect:
                        continue
                    if candidate != stem and not _drops_e(phrase.text):
                        continue
                    if phrase.case_sensitive and candidate != phrase.text:
                        continue
                    options.append((phrase, core[len(stem) :]))
            if options:
                break
        if not options:
            return None
        return min(
            options,
            key=lambda option: (
                core[: len(core) - len(option[1])] != option[0].text,
                not option[0].allowed,
                option[0].rule_index,
            ),
        )


def _drops_e(text: str) -> bool:
    return text.endswith("e") and not text.endswith("ee") and len(text) > 2


_LEFT = rf"(?<!{_WORD})(?<!{_WORD}\.)"
_RIGHT = rf"(?!{_WORD})(?!\.{_WORD})"


def _boundaries(text: str, inflect: bool) -> tuple[bool, bool]:
    """Whether a phrase needs a word boundary before it and after it."""
    first, last = text[0], text[-1]
    left = _is_word_char(first) and not _is_unspaced(first)
    right = (inflect or _is_word_char(last)) and not _is_unspaced(last)
    return left, right


def _phrase_body(text: str, inflect: bool) -> str:
    body = r"\s+".join(re.escape(word) for word in text.split(" "))
    if inflect and _drops_e(text):
        # "utilize" → "utilizing": -ing replaces a final silent e
        return body[:-1] + "(?:e" + _SUFFIX + "|ing)"
    if inflect:
        return body + _SUFFIX
    return body


def _bounded(body: str, left: bool, right: bool) -> str:
    return f"(?:{_LEFT if left else ''}(?:{body}){_RIGHT if right else ''})"


def _phrase_regex(text: str, inflect: bool) -> str:
    return _bounded(_phrase_body(text, inflect), *_boundaries(text, inflect))


@lru_cache(maxsize=128)
def _compiled(pattern: str, flags: int) -> re.Pattern[str]:
    """Compiled once per process: a check compiles the same rule set for every file and canary."""
    return re.compile(pattern, flags)


def contains_phrase(text: str, phrase: str, *, case_sensitive: bool = True) -> bool:
    """Whether ``text`` holds ``phrase`` as whole words (the target side of a bilingual check)."""
    phrase = _normal(phrase)
    if not phrase:
        return True
    compiled = _compiled(_phrase_regex(phrase, False), 0 if case_sensitive else re.IGNORECASE)
    return compiled.search(text) is not None
