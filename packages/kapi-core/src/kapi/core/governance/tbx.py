"""Terms as TBX: read TBX-Basic v2 (``<martif>``) and TBX v3 (``<tbx>``), write TBX-Basic v2.

Statuses map onto ``administrativeStatus`` (``preferredTerm-admn-sts`` …,
``normativeAuthorization`` in older files); what TBX has no value for is kept
in kapi's own data categories, named ``kapi:…`` so other tools skip them:
``kapi:status`` (proposed, forbidden), ``kapi:competitor``, ``kapi:form``,
``kapi:validFrom``/``kapi:validTo`` on a term and ``kapi:doNotTranslate``,
``kapi:source`` on a concept. A term with no status is ``approved``.
``properties``, ``project_id`` and timestamps are not written.

The reader uses expat (standard library) so a fault names its line; it
refuses entity declarations (no entity expansion attacks) and never fetches
an external DTD.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from xml.parsers import expat

from attrs import define, field

from kapi.core.edition import EditionKeyError, canonical_locale
from kapi.core.governance.errors import GovernanceError
from kapi.core.governance.terms import (
    DEFAULT_STATUS,
    Concept,
    Term,
    TermsBundle,
    TermStatus,
    TermValidity,
    concept_id_for,
)
from kapi.core.governance.validity import parse_instant

__all__ = ["parse_tbx", "write_tbx"]

_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
_ADMIN_STATUS = {
    "preferredterm-admn-sts": TermStatus.PREFERRED,
    "standardizedterm-admn-sts": TermStatus.PREFERRED,
    "admittedterm-admn-sts": TermStatus.ADMITTED,
    "legalterm-admn-sts": TermStatus.ADMITTED,
    "regulatedterm-admn-sts": TermStatus.ADMITTED,
    "deprecatedterm-admn-sts": TermStatus.DEPRECATED,
    "supersededterm-admn-sts": TermStatus.DEPRECATED,
    "preferredterm": TermStatus.PREFERRED,
    "admittedterm": TermStatus.ADMITTED,
    "deprecatedterm": TermStatus.DEPRECATED,
    "supersededterm": TermStatus.DEPRECATED,
    "legalterm": TermStatus.ADMITTED,
    **{status.value: status for status in TermStatus},
}
_WRITE_STATUS: dict[str, str] = {
    TermStatus.PREFERRED: "preferredTerm-admn-sts",
    TermStatus.ADMITTED: "admittedTerm-admn-sts",
    TermStatus.DEPRECATED: "deprecatedTerm-admn-sts",
    TermStatus.FORBIDDEN: "deprecatedTerm-admn-sts",
}
_TERM_HOLDERS = frozenset({"tig", "ntig", "termSec"})
_LANG_HOLDERS = frozenset({"langSet", "langSec"})
_CONCEPTS = frozenset({"termEntry", "conceptEntry"})


@define
class _Node:
    tag: str
    attrs: dict[str, str]
    line: int
    children: list[_Node] = field(factory=list)
    text: str = ""

    def all_text(self) -> str:
        return self.text + "".join(child.all_text() for child in self.children)

    def walk(self) -> list[_Node]:
        out = [self]
        for child in self.children:
            out.extend(child.walk())
        return out


def _local(name: str) -> str:
    return name.rsplit(" ", 1)[-1].rsplit(":", 1)[-1] if " " in name else name


def _parse_tree(text: str, source: str) -> _Node:
    parser = expat.ParserCreate(namespace_separator=" ")
    root = _Node("", {}, 0)
    stack = [root]

    def start(name: str, attributes: dict[str, str]) -> None:
        attrs = {}
        for key, value in attributes.items():
            attrs["lang" if key.endswith(" lang") or key == "xml:lang" else _local(key)] = value
        node = _Node(_local(name), attrs, parser.CurrentLineNumber)
        stack[-1].children.append(node)
        stack.append(node)

    def end(_name: str) -> None:
        stack.pop()

    def data(chunk: str) -> None:
        node = stack[-1]
        if node.children:
            # mixed content: keep text order by a synthetic text child
            node.children.append(_Node("#text", {}, parser.CurrentLineNumber, text=chunk))
        else:
            node.text += chunk

    def refuse_entity(*_args: object) -> None:
        raise GovernanceError(
            "entity declarations are refused in TBX", source, line=parser.CurrentLineNumber
        )

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = data
    parser.EntityDeclHandler = refuse_entity
    try:
        parser.Parse(text.removeprefix("\ufeff"), True)
    except expat.ExpatError as error:
        raise GovernanceError(
            f"malformed XML: {expat.ErrorString(error.code)}",
            source,
            line=error.lineno,
        ) from None
    if not root.children:
        raise GovernanceError("no root element", source, line=1)
    return root.children[0]


def parse_tbx(text: str, *, source: str = "") -> TermsBundle:
    """Read TBX into a bundle; refuse malformed XML or bad values with the line number."""
    root = _parse_tree(text, source)
    if root.tag not in ("martif", "tbx"):
        raise GovernanceError(
            f"the root element is <{root.tag}>, not <martif> (TBX v2) or <tbx> (TBX v3)",
            source,
            line=root.line,
        )
    concepts: list[Concept] = []
    seen: set[str] = set()
    for node in root.walk():
        if node.tag in _CONCEPTS:
            concept = _concept(node, source)
            if concept.id in seen:
                raise GovernanceError(
                    f"concept id {concept.id!r} appears twice", source, "id", line=node.line
                )
            seen.add(concept.id)
            concepts.append(concept)
    return TermsBundle(concepts=tuple(concepts))


def _concept(node: _Node, source: str) -> Concept:
    domain = definition = ""
    concept_source = "terminology"
    do_not_translate = False
    terms: list[Term] = []
    for child in node.children:
        kind = child.attrs.get("type", "")
        if child.tag in ("descrip", "admin"):
            value = child.all_text().strip()
            if kind == "definition":
                definition = value
            elif kind == "subjectField":
                domain = value
            elif kind == "kapi:doNotTranslate":
                do_not_translate = value.lower() == "true"
            elif kind == "kapi:source":
                concept_source = value
        elif child.tag == "descripGrp":
            for inner in child.children:
                if inner.tag == "descrip" and inner.attrs.get("type") == "definition":
                    definition = inner.all_text().strip()
        elif child.tag in _LANG_HOLDERS:
            terms.extend(_lang_terms(child, source))
    if concept_source not in ("terminology", "brand_vocabulary"):
        raise GovernanceError(
            f"kapi:source {concept_source!r} is not terminology or brand_vocabulary",
            source,
            "kapi:source",
            line=node.line,
        )
    identifier = node.attrs.get("id", "")
    if not identifier:
        first = terms[0] if terms else None
        identifier = concept_id_for(first.locale, first.text) if first else f"line-{node.line}"
    return Concept(
        id=identifier,
        terms=tuple(terms),
        domain=domain,
        definition=definition,
        source=concept_source,
        do_not_translate=do_not_translate,
    )


def _lang_terms(node: _Node, source: str) -> list[Term]:
    tag = node.attrs.get("lang", "")
    if not tag:
        raise GovernanceError(f"<{node.tag}> needs xml:lang", source, "xml:lang", line=node.line)
    try:
        locale = canonical_locale(tag)
    except EditionKeyError as error:
        raise GovernanceError(str(error), source, "xml:lang", line=node.line) from None
    return [_term(holder, locale, source) for holder in node.walk() if holder.tag in _TERM_HOLDERS]


def _term(holder: _Node, locale: str, source: str) -> Term:
    text = ""
    status: TermStatus | None = None
    kapi_status: TermStatus | None = None
    part_of_speech = gender = note = ""
    competitor = False
    forms: list[str] = []
    valid_from = valid_to = ""
    for node in holder.walk()[1:]:
        kind = node.attrs.get("type", "")
        value = node.all_text().strip()
        if node.tag == "term":
            text = value
        elif node.tag == "note":
            note = value
        elif node.tag in ("termNote", "descrip", "admin"):
            if kind in ("administrativeStatus", "normativeAuthorization"):
                status = _status(value, source, node.line)
            elif kind == "kapi:status":
                kapi_status = _status(value, source, node.line)
            elif kind == "partOfSpeech":
                part_of_speech = value
            elif kind == "grammaticalGender":
                gender = value
            elif kind == "kapi:competitor":
                competitor = value.lower() == "true"
            elif kind == "kapi:form":
                forms.append(value)
            elif kind in ("kapi:validFrom", "kapi:validTo"):
                try:
                    parse_instant(value)
                except ValueError as error:
                    raise GovernanceError(str(error), source, kind, line=node.line) from None
                if kind == "kapi:validFrom":
                    valid_from = value
                else:
                    valid_to = value
    if not text:
        raise GovernanceError("a term needs text", source, "term", line=holder.line)
    validity = TermValidity(valid_from, valid_to) if valid_from or valid_to else None
    return Term(
        text=text,
        locale=locale,
        status=kapi_status or status or DEFAULT_STATUS,
        part_of_speech=part_of_speech,
        gender=gender,
        note=note,
        competitor_term=competitor,
        validity=validity,
        forms=tuple(forms),
    )


def _status(value: str, source: str, line: int) -> TermStatus:
    status = _ADMIN_STATUS.get(value.strip().lower())
    if status is None:
        raise GovernanceError(f"unknown term status {value!r}", source, "termNote", line=line)
    return status


def write_tbx(bundle: TermsBundle, *, source_language: str = "") -> str:
    """The bundle as TBX-Basic v2; terms are grouped by language in order of first appearance."""
    root = ET.Element("martif", {"type": "TBX-Basic"})
    language = source_language or _first_locale(bundle)
    if language:
        root.set(_XML_LANG, language)
    header = ET.SubElement(root, "martifHeader")
    description = ET.SubElement(ET.SubElement(header, "fileDesc"), "sourceDesc")
    ET.SubElement(description, "p").text = "Exported by kapi"
    body = ET.SubElement(ET.SubElement(root, "text"), "body")
    for concept in bundle.concepts:
        entry = ET.SubElement(body, "termEntry", {"id": concept.id})
        if concept.domain:
            _sub(entry, "descrip", "subjectField", concept.domain)
        if concept.definition:
            _sub(entry, "descrip", "definition", concept.definition)
        if concept.source != "terminology":
            _sub(entry, "descrip", "kapi:source", concept.source)
        if concept.do_not_translate:
            _sub(entry, "descrip", "kapi:doNotTranslate", "true")
        sets: dict[str, ET.Element] = {}
        for term in concept.terms:
            lang_set = sets.get(term.locale)
            if lang_set is None:
                lang_set = ET.SubElement(entry, "langSet", {_XML_LANG: term.locale})
                sets[term.locale] = lang_set
            tig = ET.SubElement(lang_set, "tig")
            ET.SubElement(tig, "term").text = term.text
            if term.status in _WRITE_STATUS:
                _sub(tig, "termNote", "administrativeStatus", _WRITE_STATUS[term.status])
            if term.status in (TermStatus.PROPOSED, TermStatus.FORBIDDEN):
                _sub(tig, "termNote", "kapi:status", term.status)
            if term.part_of_speech:
                _sub(tig, "termNote", "partOfSpeech", term.part_of_speech)
            if term.gender:
                _sub(tig, "termNote", "grammaticalGender", term.gender)
            if term.competitor_term:
                _sub(tig, "termNote", "kapi:competitor", "true")
            for form in term.forms:
                _sub(tig, "termNote", "kapi:form", form)
            if term.validity is not None:
                if term.validity.valid_from:
                    _sub(tig, "termNote", "kapi:validFrom", term.validity.valid_from)
                if term.validity.valid_to:
                    _sub(tig, "termNote", "kapi:validTo", term.validity.valid_to)
            if term.note:
                ET.SubElement(tig, "note").text = term.note
    ET.indent(root, space="  ")
    xml = ET.tostring(root, encoding="unicode")
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<!DOCTYPE martif SYSTEM "TBXBasiccoreStructV02.dtd">\n' + xml + "\n"
    )


def _sub(parent: ET.Element, tag: str, kind: str, text: str) -> None:
    ET.SubElement(parent, tag, {"type": kind}).text = text


def _first_locale(bundle: TermsBundle) -> str:
    for concept in bundle.concepts:
        for term in concept.terms:
            return term.locale
    return ""
