"""Terminology: concepts and their terms, the ``kapi-terms`` bundle, and the rules terms become.

A concept groups the terms that name one thing, in any language, each with a
status. :func:`rules_from_concepts` turns the terms of one language into the
:class:`~kapi.core.governance.voice.TermRule` list the one matcher checks:
forbidden and competitor terms fail, deprecated terms report, the rest are
uses, not violations.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from enum import StrEnum
from functools import cache
from typing import TYPE_CHECKING, Any

from attrs import evolve, field, frozen

from kapi.core.edition import EditionKeyError, canonical_locale
from kapi.core.governance.errors import GovernanceError
from kapi.core.governance.validity import parse_instant, within
from kapi.core.governance.voice import AcceptedTerm, TermRule

if TYPE_CHECKING:  # cattrs is loaded when a bundle is encoded or decoded, not by a check
    import cattrs

__all__ = [
    "BUNDLE_KIND",
    "BUNDLE_SCHEMA_VERSION",
    "CONCEPT_SOURCES",
    "DEFAULT_STATUS",
    "TERM_STATUSES",
    "Concept",
    "Term",
    "TermStatus",
    "TermValidity",
    "TermsBundle",
    "concept_id_for",
    "decode_terms_bundle",
    "encode_terms_bundle",
    "locale_matches",
    "rules_from_concepts",
]

BUNDLE_SCHEMA_VERSION = "1.0"
BUNDLE_KIND = "kapi-terms"
CONCEPT_SOURCES = ("terminology", "brand_vocabulary")


class TermStatus(StrEnum):
    """A term's standing: forbidden fails, deprecated reports; preferred, approved, admitted are uses."""

    PROPOSED = "proposed"
    APPROVED = "approved"
    PREFERRED = "preferred"
    ADMITTED = "admitted"
    DEPRECATED = "deprecated"
    FORBIDDEN = "forbidden"


TERM_STATUSES = tuple(TermStatus)
DEFAULT_STATUS = TermStatus.APPROVED
# The standings that are uses, not violations, in the order a concept's preferred term is chosen.
_USES = (TermStatus.PREFERRED, TermStatus.APPROVED, TermStatus.ADMITTED)


@frozen
class TermValidity:
    """When a term holds: ``valid_from`` inclusive, ``valid_to`` exclusive (ISO dates or instants)."""

    valid_from: str = ""
    valid_to: str = ""


@frozen
class Term:
    """One wording of a concept in one language, with its standing."""

    text: str
    locale: str
    status: str = DEFAULT_STATUS
    part_of_speech: str = ""
    gender: str = ""
    note: str = ""
    competitor_term: bool = False
    validity: TermValidity | None = None
    forms: tuple[str, ...] = ()


@frozen
class Concept:
    """A thing the project names, with its terms in every language."""

    id: str
    terms: tuple[Term, ...] = ()
    project_id: str = ""
    domain: str = ""
    definition: str = ""
    source: str = "terminology"
    do_not_translate: bool = False
    properties: Mapping[str, str] = field(factory=dict)
    created_at: str = ""
    updated_at: str = ""


@frozen
class TermsBundle:
    """The ``kapi-terms`` exchange file: ``{"schemaVersion": "1.0", "kind": "kapi-terms", ...}``."""

    concepts: tuple[Concept, ...] = ()
    schema_version: str = BUNDLE_SCHEMA_VERSION
    kind: str = BUNDLE_KIND


def concept_id_for(locale: str, text: str) -> str:
    """The id ``apply`` mints for a new concept: ``term:<locale>:<slug>``."""
    slug = re.sub(r"[^\w]+", "-", text.casefold(), flags=re.UNICODE).strip("-_")
    return f"term:{locale}:{slug or 'term'}"


def locale_matches(term_locale: str, locale: str) -> bool:
    """True when a term in ``term_locale`` governs content in ``locale``.

    Equal tags match, and so does a tag with its more specific variants
    (``en`` and ``en-GB``); two different regions (``en-GB``, ``en-US``) do not.
    An empty ``locale`` accepts every term.
    """
    if not locale:
        return True
    a, b = term_locale.lower(), locale.lower()
    return a == b or a.startswith(b + "-") or b.startswith(a + "-")


def rules_from_concepts(
    concepts: Iterable[Concept], locale: str, *, at: datetime | None = None
) -> list[TermRule]:
    """The term rules the concepts' terms in ``locale`` make (spec §3.7).

    Each rejected term (``forbidden``, ``deprecated`` or a competitor's) is one
    rule: the concept's preferred term (else its first approved, else admitted)
    is the replacement and the other approved and admitted terms are accepted.
    Forbidden and competitor rules fail; deprecated ones are advisory. A
    concept with no rejected term but a preferred one gives a replacement-only
    rule (it rejects nothing, keeps its ``do_not_translate``, and shields the
    preferred wording from shorter rules). Terms outside their validity at
    ``at`` are left out.
    """
    rules: list[TermRule] = []
    for concept in concepts:
        here = [
            term
            for term in concept.terms
            if locale_matches(term.locale, locale) and _term_valid(term, at)
        ]
        if not here:
            continue
        preferred = _preferred(here)
        accepted = tuple(
            AcceptedTerm(text=term.text, forms=term.forms)
            for term in here
            if term is not preferred and term.status in _USES and not term.competitor_term
        )
        rejected = [
            term
            for term in here
            if term.competitor_term or term.status in (TermStatus.FORBIDDEN, TermStatus.DEPRECATED)
        ]
        for term in rejected:
            fails = term.status == TermStatus.FORBIDDEN or term.competitor_term
            rules.append(
                TermRule(
                    term=term.text,
                    forms=term.forms,
                    replacement=preferred.text if preferred else "",
                    replacement_forms=preferred.forms if preferred else (),
                    accepted=accepted,
                    note=term.note,
                    advisory=not fails,
                    do_not_translate=concept.do_not_translate,
                    concept_id=concept.id,
                    competitor=term.competitor_term,
                )
            )
        if not rejected and preferred is not None:
            rules.append(
                TermRule(
                    replacement=preferred.text,
                    replacement_forms=preferred.forms,
                    accepted=accepted,
                    note=preferred.note,
                    do_not_translate=concept.do_not_translate,
                    concept_id=concept.id,
                )
            )
    return rules


def _preferred(terms: Sequence[Term]) -> Term | None:
    for status in _USES:
        for term in terms:
            if term.status == status and not term.competitor_term:
                return term
    return None


def _term_valid(term: Term, at: datetime | None) -> bool:
    if at is None or term.validity is None:
        return True
    start = parse_instant(term.validity.valid_from) if term.validity.valid_from else None
    end = parse_instant(term.validity.valid_to) if term.validity.valid_to else None
    return within(at, start, end)


# ---------------------------------------------------------------------------
# the bundle on the wire


def _strict_str(value: Any, _type: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected text, found {type(value).__name__}")
    return value


def _strict_bool(value: Any, _type: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"expected true or false, found {type(value).__name__}")
    return value


def _strict_strings(value: Any, _type: Any) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, list | tuple):
        raise TypeError(f"expected a list of text, found {type(value).__name__}")
    for item in value:
        if not isinstance(item, str):
            raise TypeError(f"expected text in the list, found {type(item).__name__}")
    return tuple(value)


@cache
def _converter() -> cattrs.Converter:
    import cattrs
    from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override

    converter = cattrs.Converter(omit_if_default=True, forbid_extra_keys=True)
    converter.register_structure_hook(str, _strict_str)
    converter.register_structure_hook(bool, _strict_bool)
    converter.register_structure_hook_func(lambda kind: kind == tuple[str, ...], _strict_strings)
    converter.register_structure_hook_func(lambda kind: kind == Mapping[str, str], _strict_map)
    converter.register_unstructure_hook_func(
        lambda kind: kind == Mapping[str, str], lambda value: dict(value)
    )
    converter.register_structure_hook(
        TermsBundle,
        make_dict_structure_fn(
            TermsBundle, converter, schema_version=override(rename="schemaVersion")
        ),
    )
    converter.register_unstructure_hook(
        TermsBundle,
        make_dict_unstructure_fn(
            TermsBundle,
            converter,
            _cattrs_omit_if_default=False,
            schema_version=override(rename="schemaVersion"),
        ),
    )
    return converter


def _strict_map(value: Any, _type: Any) -> dict[str, str]:
    if not isinstance(value, Mapping):
        raise TypeError(f"expected a mapping, found {type(value).__name__}")
    return {_strict_str(key, str): _strict_str(item, str) for key, item in value.items()}


_ERROR_AT = re.compile(r"^(?P<message>.*) @ \$(?P<path>.*)$")


def encode_terms_bundle(bundle: TermsBundle) -> dict[str, Any]:
    """The bundle as JSON-ready data; defaults are left out below the top level."""
    data: dict[str, Any] = _converter().unstructure(bundle)
    return {
        "schemaVersion": data["schemaVersion"],
        "kind": data["kind"],
        "concepts": data["concepts"],
    }


def decode_terms_bundle(data: Any, source: str = "") -> TermsBundle:
    """Read a parsed ``kapi-terms`` bundle strictly; refuse with the key path of the fault.

    Unknown keys, wrong types, an unknown status or source, a term with no
    text or no valid locale, and two concepts with one id are refused.
    Locales are canonicalised (``nb_NO`` → ``nb-NO``).
    """
    if not isinstance(data, Mapping):
        raise GovernanceError("a terms bundle must be a JSON object", source)
    if data.get("kind") != BUNDLE_KIND:
        raise GovernanceError(f"kind must be {BUNDLE_KIND!r}", source, "kind")
    version = data.get("schemaVersion")
    if not isinstance(version, str) or version.split(".")[0] != "1":
        raise GovernanceError(
            f"schemaVersion {version!r} is not supported (expected {BUNDLE_SCHEMA_VERSION!r})",
            source,
            "schemaVersion",
        )
    _require_lists(data, source)
    try:
        bundle = _converter().structure(data, TermsBundle)
    except Exception as error:  # cattrs groups every fault it found
        raise _bundle_error(error, source) from None
    return check_bundle(bundle, source)


def decode_stored_concepts(rows: Sequence[Any]) -> list[Concept]:
    """Concepts as a store wrote them (checked when they were written): structured only.

    Rows of the shape the store writes are built directly; any other goes through the
    bundle's converter, and a row that does not structure raises there
    (:func:`decode_terms_bundle` then names its fault).
    """
    from kapi.core.stored import Unusual

    try:
        return [_stored_concept(row) for row in rows]
    except Unusual:
        converter = _converter()
        return [converter.structure(row, Concept) for row in rows]


def _stored_readers() -> tuple[Any, Any]:
    from kapi.core.stored import built, flag, pairs, text, texts

    term = built(
        Term,
        {
            **dict.fromkeys(("text", "locale", "status", "part_of_speech", "gender", "note"), text),
            "competitor_term": flag,
            "forms": texts,
            "validity": built(TermValidity, {"valid_from": text, "valid_to": text}),
        },
        required=("text", "locale"),
    )
    concept = built(
        Concept,
        {
            **dict.fromkeys(
                ("id", "project_id", "domain", "definition", "source", "created_at"), text
            ),
            "updated_at": text,
            "terms": lambda value: tuple([term(t) for t in _list(value)]),
            "do_not_translate": flag,
            "properties": pairs,
        },
        required=("id",),
    )
    return concept, term


def _list(value: Any) -> list[Any]:
    from kapi.core.stored import Unusual

    if type(value) is not list:
        raise Unusual
    return value


def _stored_concept(row: Any) -> Concept:
    concept: Concept = _STORED()[0](row)
    return concept


_STORED = cache(_stored_readers)


def _require_lists(data: Mapping[str, Any], source: str) -> None:
    """Refuse an object where a list belongs (cattrs would iterate a mapping's keys)."""
    concepts = data.get("concepts", [])
    if not isinstance(concepts, list):
        raise GovernanceError("concepts must be a list", source, "concepts")
    for index, concept in enumerate(concepts):
        if isinstance(concept, Mapping):
            for name in ("terms",):
                if name in concept and not isinstance(concept[name], list):
                    raise GovernanceError(
                        f"{name} must be a list", source, f"concepts[{index}].{name}"
                    )


def check_bundle(bundle: TermsBundle, source: str = "") -> TermsBundle:
    """Validate values the types cannot (statuses, locales, ids) and canonicalise locales."""
    concepts: list[Concept] = []
    seen: set[str] = set()
    for index, concept in enumerate(bundle.concepts):
        where = f"concepts[{index}]"
        if not concept.id:
            raise GovernanceError("a concept needs an id", source, f"{where}.id")
        if concept.id in seen:
            raise GovernanceError(f"concept id {concept.id!r} appears twice", source, f"{where}.id")
        seen.add(concept.id)
        if concept.source not in CONCEPT_SOURCES:
            raise GovernanceError(
                f"source {concept.source!r} is not one of {', '.join(CONCEPT_SOURCES)}",
                source,
                f"{where}.source",
            )
        terms: list[Term] = []
        for number, term in enumerate(concept.terms):
            at = f"{where}.terms[{number}]"
            if not term.text.strip():
                raise GovernanceError("a term needs text", source, f"{at}.text")
            if term.status not in TERM_STATUSES:
                raise GovernanceError(
                    f"status {term.status!r} is not one of {', '.join(TERM_STATUSES)}",
                    source,
                    f"{at}.status",
                )
            try:
                locale = canonical_locale(term.locale)
            except EditionKeyError as error:
                raise GovernanceError(str(error), source, f"{at}.locale") from None
            if term.validity is not None:
                for name in ("valid_from", "valid_to"):
                    value = getattr(term.validity, name)
                    if value:
                        try:
                            parse_instant(value)
                        except ValueError as error:
                            raise GovernanceError(
                                str(error), source, f"{at}.validity.{name}"
                            ) from None
            terms.append(evolve(term, locale=locale))
        concepts.append(evolve(concept, terms=tuple(terms)))
    return evolve(bundle, concepts=tuple(concepts))


def _bundle_error(error: Exception, source: str) -> GovernanceError:
    import cattrs

    messages = (
        cattrs.transform_error(error, path="$", format_exception=_describe)
        if isinstance(error, cattrs.BaseValidationError)
        else [str(error)]
    )
    first = messages[0] if messages else str(error)
    match = _ERROR_AT.match(first)
    if match is None:
        return GovernanceError(first, source)
    message = match.group("message")
    key = match.group("path").lstrip(".").replace("schema_version", "schemaVersion")
    extra = re.match(r"^unknown key (\S+)", message)
    if extra is not None:
        key = f"{key}.{extra.group(1)}" if key else extra.group(1)
    return GovernanceError(message, source, key)


def _describe(error: BaseException, _type: Any) -> str:
    import cattrs

    if isinstance(error, cattrs.ForbiddenExtraKeysError):
        return f"unknown key {sorted(error.extra_fields)[0]}"
    if isinstance(error, KeyError):
        return "a required key is missing"
    if isinstance(error, TypeError | ValueError) and str(error):
        return str(error)
    return f"invalid value ({type(error).__name__})"
