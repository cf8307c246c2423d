"""Terms as CSV: one row per term, grouped into concepts by the ``concept`` column.

The header names the columns (any order, case-insensitive):

``concept`` (alias ``concept_id``, ``id``), ``locale`` (``lang``, ``language``),
``text`` (``term``; required), ``status``, ``forms`` (``|``-separated), ``note``,
``part_of_speech`` (``pos``), ``gender``, ``competitor``, ``do_not_translate``
(``dnt``), ``valid_from``, ``valid_to``, and the concept's ``domain``,
``definition`` and ``source``. A row with no concept gets the id ``apply``
mints (``term:<locale>:<slug>``). Concept fields must agree across a concept's
rows. ``properties``, ``project_id`` and the timestamps have no column.
The delimiter is a comma, or a tab or semicolon when the header uses one.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator

from kapi.core.edition import EditionKeyError, canonical_locale
from kapi.core.governance.errors import GovernanceError
from kapi.core.governance.terms import (
    CONCEPT_SOURCES,
    DEFAULT_STATUS,
    TERM_STATUSES,
    Concept,
    Term,
    TermsBundle,
    TermValidity,
    concept_id_for,
)
from kapi.core.governance.validity import parse_instant

__all__ = ["CSV_COLUMNS", "parse_terms_csv", "write_terms_csv"]

CSV_COLUMNS = (
    "concept",
    "locale",
    "text",
    "status",
    "forms",
    "note",
    "part_of_speech",
    "gender",
    "competitor",
    "do_not_translate",
    "valid_from",
    "valid_to",
    "domain",
    "definition",
    "source",
)
_ALIASES = {
    "concept_id": "concept",
    "id": "concept",
    "lang": "locale",
    "language": "locale",
    "term": "text",
    "pos": "part_of_speech",
    "dnt": "do_not_translate",
    "competitor_term": "competitor",
}
_TRUE = frozenset({"true", "yes", "1", "y", "x"})
_FALSE = frozenset({"false", "no", "0", "n", ""})


def parse_terms_csv(text: str, *, default_locale: str = "", source: str = "") -> TermsBundle:
    """Read terms CSV into a bundle; refuse with the line number and column of the fault."""
    text = text.removeprefix("\ufeff")
    first_line = text.split("\n", 1)[0]
    delimiter = ","
    if "," not in first_line:
        delimiter = "\t" if "\t" in first_line else ";" if ";" in first_line else ","
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    rows = _rows(reader, source)
    try:
        line, header = next(rows)
    except StopIteration:
        raise GovernanceError("the CSV is empty; it needs a header row", source, line=1) from None
    columns = _columns(header, line, source)
    concepts: dict[str, _Draft] = {}
    for line, row in rows:
        if not any(cell.strip() for cell in row):
            continue
        if len(row) > len(columns):
            raise GovernanceError(
                f"{len(row)} cells but the header names {len(columns)} columns", source, line=line
            )
        cells = {name: (row[i].strip() if i < len(row) else "") for i, name in enumerate(columns)}
        term_text = cells.get("text", "")
        if not term_text:
            raise GovernanceError("a row needs text", source, "text", line=line)
        locale_text = cells.get("locale", "") or default_locale
        if not locale_text:
            raise GovernanceError(
                "a row needs a locale (add a locale column or give a default)",
                source,
                "locale",
                line=line,
            )
        try:
            locale = canonical_locale(locale_text)
        except EditionKeyError as error:
            raise GovernanceError(str(error), source, "locale", line=line) from None
        status = cells.get("status", "").lower() or DEFAULT_STATUS
        if status not in TERM_STATUSES:
            raise GovernanceError(
                f"status {status!r} is not one of {', '.join(TERM_STATUSES)}",
                source,
                "status",
                line=line,
            )
        validity = None
        if cells.get("valid_from") or cells.get("valid_to"):
            for name in ("valid_from", "valid_to"):
                if cells.get(name):
                    try:
                        parse_instant(cells[name])
                    except ValueError as error:
                        raise GovernanceError(str(error), source, name, line=line) from None
            validity = TermValidity(cells.get("valid_from", ""), cells.get("valid_to", ""))
        term = Term(
            text=term_text,
            locale=locale,
            status=status,
            part_of_speech=cells.get("part_of_speech", ""),
            gender=cells.get("gender", ""),
            note=cells.get("note", ""),
            competitor_term=_flag(cells.get("competitor", ""), "competitor", line, source),
            validity=validity,
            forms=tuple(form.strip() for form in cells.get("forms", "").split("|") if form.strip()),
        )
        concept_id = cells.get("concept", "") or concept_id_for(locale, term_text)
        fields = {
            "domain": cells.get("domain", ""),
            "definition": cells.get("definition", ""),
            "source": cells.get("source", ""),
            "do_not_translate": "true"
            if _flag(cells.get("do_not_translate", ""), "do_not_translate", line, source)
            else "",
        }
        if fields["source"] and fields["source"] not in CONCEPT_SOURCES:
            raise GovernanceError(
                f"source {fields['source']!r} is not one of {', '.join(CONCEPT_SOURCES)}",
                source,
                "source",
                line=line,
            )
        draft = concepts.setdefault(concept_id, _Draft(concept_id, line))
        draft.add(term, fields, line, source)
    return TermsBundle(concepts=tuple(draft.build() for draft in concepts.values()))


class _Draft:
    def __init__(self, concept_id: str, line: int) -> None:
        self.concept_id = concept_id
        self.line = line
        self.terms: list[Term] = []
        self.fields: dict[str, tuple[str, int]] = {}

    def add(self, term: Term, fields: dict[str, str], line: int, source: str) -> None:
        self.terms.append(term)
        for name, value in fields.items():
            if not value:
                continue
            known = self.fields.get(name)
            if known is None:
                self.fields[name] = (value, line)
            elif known[0] != value:
                raise GovernanceError(
                    f"concept {self.concept_id!r}: {name} {value!r} differs from"
                    f" {known[0]!r} on line {known[1]}",
                    source,
                    name,
                    line=line,
                )

    def build(self) -> Concept:
        def value(name: str) -> str:
            return self.fields.get(name, ("", 0))[0]

        return Concept(
            id=self.concept_id,
            terms=tuple(self.terms),
            domain=value("domain"),
            definition=value("definition"),
            source=value("source") or "terminology",
            do_not_translate=value("do_not_translate") == "true",
        )


def _rows(reader: Iterator[list[str]], source: str) -> Iterator[tuple[int, list[str]]]:
    """Rows with the line each starts on (a quoted cell may span lines)."""
    line_num = getattr(reader, "line_num", 0)
    start = 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            raise GovernanceError(
                f"malformed CSV: {error}", source, line=getattr(reader, "line_num", start)
            ) from None
        yield start, row
        line_num = getattr(reader, "line_num", line_num)
        start = line_num + 1


def _columns(header: list[str], line: int, source: str) -> list[str]:
    columns: list[str] = []
    for cell in header:
        name = cell.strip().lower().replace(" ", "_").replace("-", "_")
        name = _ALIASES.get(name, name)
        if name not in CSV_COLUMNS:
            raise GovernanceError(
                f"unknown column {cell.strip()!r} (columns: {', '.join(CSV_COLUMNS)})",
                source,
                cell.strip(),
                line=line,
            )
        if name in columns:
            raise GovernanceError(f"column {name!r} appears twice", source, name, line=line)
        columns.append(name)
    if "text" not in columns:
        raise GovernanceError("the header needs a text (or term) column", source, line=line)
    return columns


def _flag(value: str, column: str, line: int, source: str) -> bool:
    lowered = value.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise GovernanceError(f"{value!r} is not true or false", source, column, line=line)


def write_terms_csv(bundle: TermsBundle) -> str:
    """The bundle as CSV with every column of :data:`CSV_COLUMNS`; concepts without terms are left out."""
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for concept in bundle.concepts:
        for term in concept.terms:
            validity = term.validity or TermValidity()
            writer.writerow(
                [
                    concept.id,
                    term.locale,
                    term.text,
                    term.status,
                    "|".join(term.forms),
                    term.note,
                    term.part_of_speech,
                    term.gender,
                    "true" if term.competitor_term else "",
                    "true" if concept.do_not_translate else "",
                    validity.valid_from,
                    validity.valid_to,
                    concept.domain,
                    concept.definition,
                    concept.source,
                ]
            )
    return out.getvalue()
