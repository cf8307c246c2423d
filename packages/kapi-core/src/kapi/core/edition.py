"""Edition keys: ``<bcp47>[;tone=<v>][;channel=<v>]``, parsed strictly and written canonically.

Language tags are canonicalised without external data: case by subtag kind
(``zh-hant-tw`` → ``zh-Hant-TW``), ``_`` read as ``-`` (``nb_NO`` → ``nb-NO``),
and the few deprecated language codes CLDR still maps (``iw`` → ``he``).
"""

from __future__ import annotations

import re

from attrs import frozen

from kapi.core.errors import EXIT_USAGE, KapiError

__all__ = ["EditionKey", "EditionKeyError", "canonical_locale", "is_locale"]


class EditionKeyError(KapiError, ValueError):
    """An edition key or language tag that does not parse; the message says why."""

    code = "invalid"
    exit_code = EXIT_USAGE


_LANGUAGE_ALIASES = {"iw": "he", "in": "id", "ji": "yi", "jw": "jv", "mo": "ro", "tl": "fil"}
_ALPHA = re.compile(r"^[A-Za-z]+$")
_ALNUM = re.compile(r"^[A-Za-z0-9]+$")
_DIGITS = re.compile(r"^[0-9]+$")


def canonical_locale(tag: str) -> str:
    """The canonical BCP-47 form of ``tag``; raises :class:`EditionKeyError` if it is not one."""
    if not tag or tag.strip() != tag:
        raise EditionKeyError(f"{tag!r} is not a language tag")
    parts = tag.replace("_", "-").split("-")
    if any(not part or not _ALNUM.match(part) or len(part) > 8 for part in parts):
        raise EditionKeyError(f"{tag!r} is not a language tag")
    out: list[str] = []
    index = 0
    language = parts[0]
    if language.lower() == "x":
        return "-".join(["x", *(p.lower() for p in parts[1:])]) if len(parts) > 1 else _fail(tag)
    if not _ALPHA.match(language) or not (2 <= len(language) <= 3 or 5 <= len(language) <= 8):
        raise EditionKeyError(f"{tag!r} is not a language tag: {language!r} is not a language")
    language = language.lower()
    out.append(_LANGUAGE_ALIASES.get(language, language))
    index = 1
    # up to three extended language subtags
    extlangs = 0
    while (
        index < len(parts)
        and len(parts[index]) == 3
        and _ALPHA.match(parts[index])
        and extlangs < 3
    ):
        out.append(parts[index].lower())
        index += 1
        extlangs += 1
    if index < len(parts) and len(parts[index]) == 4 and _ALPHA.match(parts[index]):
        out.append(parts[index].title())
        index += 1
    if index < len(parts) and (
        (len(parts[index]) == 2 and _ALPHA.match(parts[index]))
        or (len(parts[index]) == 3 and _DIGITS.match(parts[index]))
    ):
        out.append(parts[index].upper())
        index += 1
    seen_variants: set[str] = set()
    while index < len(parts) and (
        5 <= len(parts[index]) <= 8 or (len(parts[index]) == 4 and parts[index][0].isdigit())
    ):
        variant = parts[index].lower()
        if variant in seen_variants:
            raise EditionKeyError(f"{tag!r} repeats the variant {variant!r}")
        seen_variants.add(variant)
        out.append(variant)
        index += 1
    seen_singletons: set[str] = set()
    while index < len(parts):
        singleton = parts[index].lower()
        if len(singleton) != 1:
            raise EditionKeyError(f"{tag!r} is not a language tag: unexpected {parts[index]!r}")
        if singleton == "x":
            rest = parts[index + 1 :]
            if not rest:
                _fail(tag)
            out.extend(["x", *(p.lower() for p in rest)])
            break
        if singleton in seen_singletons:
            raise EditionKeyError(f"{tag!r} repeats the extension {singleton!r}")
        seen_singletons.add(singleton)
        index += 1
        body = []
        while index < len(parts) and len(parts[index]) >= 2:
            body.append(parts[index].lower())
            index += 1
        if not body:
            _fail(tag)
        out.extend([singleton, *body])
    return "-".join(out)


def _fail(tag: str) -> str:
    raise EditionKeyError(f"{tag!r} is not a language tag")


def is_locale(tag: str) -> bool:
    try:
        canonical_locale(tag)
    except EditionKeyError:
        return False
    return True


_DIMENSIONS = ("tone", "channel")


@frozen
class EditionKey:
    """An edition's identity: a language plus optional tone and channel."""

    language: str
    tone: str = ""
    channel: str = ""

    @classmethod
    def parse(cls, text: str) -> EditionKey:
        """Parse edition-key text strictly; the empty key is not an edition key here."""
        if not text:
            raise EditionKeyError("an edition key needs a language")
        head, *dimensions = text.split(";")
        language = canonical_locale(head.strip())
        values: dict[str, str] = {}
        for dimension in dimensions:
            name, sep, value = dimension.partition("=")
            name = name.strip()
            if not sep:
                raise EditionKeyError(f"{text!r}: {dimension!r} is not name=value")
            if name not in _DIMENSIONS:
                raise EditionKeyError(
                    f"{text!r}: unknown dimension {name!r} (only tone and channel)"
                )
            if name in values:
                raise EditionKeyError(f"{text!r}: {name} given twice")
            if not value or "=" in value or ";" in value:
                raise EditionKeyError(f"{text!r}: {name} needs a value without '='")
            values[name] = value
        return cls(language=language, **values)

    @property
    def text(self) -> str:
        """The canonical text form."""
        out = self.language
        if self.tone:
            out += f";tone={self.tone}"
        if self.channel:
            out += f";channel={self.channel}"
        return out

    @property
    def is_plain(self) -> bool:
        """True when only a language is named (no tone or channel)."""
        return not self.tone and not self.channel

    def __str__(self) -> str:
        return self.text
