"""The project's terms: import and export them as files, list them, look a wording up.

Terms live in the project store; a person brings them in from a ``kapi-terms``
JSON bundle, TBX or CSV file (all or nothing: the whole file is read and checked
before anything is written) and can export them again to keep a copy beside the
content. Every verb needs a project.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from attrs import frozen

from kapi.host.errors import EXIT_ERROR, EXIT_USAGE, HostError
from kapi.host.wire import converter

if TYPE_CHECKING:
    from kapi.core.change.ports import Actor
    from kapi.core.governance.terms import Concept, Term, TermsBundle
    from kapi.host.store_port import StorePort
    from kapi.host.workspace import Workspace

__all__ = [
    "FUZZY_THRESHOLD",
    "TERMS_FORMATS",
    "TermHit",
    "TermLookupRequest",
    "TermRow",
    "TermsExport",
    "TermsExportRequest",
    "TermsImportRequest",
    "TermsImported",
    "TermsListRequest",
    "export_terms",
    "import_terms",
    "list_terms",
    "lookup_term",
    "read_terms_file",
    "terms_format_for",
]

TERMS_FORMATS = ("json", "tbx", "csv")
FUZZY_THRESHOLD = 0.75
_EXTENSIONS = {".json": "json", ".tbx": "tbx", ".csv": "csv", ".tsv": "csv"}
_SPACES = re.compile(r"\s+")


@frozen
class TermsImportRequest:
    """A terms file to import; ``data`` stands in for its bytes (``path`` is then only
    its name, ``-`` for stdin). ``actor`` None means the one the environment declares."""

    path: str
    format: str | None = None
    replace: bool = False
    data: bytes | None = None
    actor: Actor | None = None


@frozen
class TermsImported:
    """What an import changed, as ``kapi terms import --json`` prints it."""

    path: str
    format: str
    concepts: int
    terms: int
    added: int
    updated: int
    removed: int
    op: str


@frozen
class TermsExportRequest:
    """Where to export: a file (its format from ``format`` or its extension), or ``-``."""

    path: str = "-"
    format: str | None = None


@frozen
class TermsExport:
    """The exported text; ``written`` is the file it was written to, None for stdout."""

    text: str
    written: str | None = None


@frozen
class TermsListRequest:
    """Which terms to list: those that hold in ``locale`` and have ``status`` (None: all)."""

    locale: str | None = None
    status: str | None = None

    @property
    def filtered(self) -> bool:
        return bool(self.locale or self.status)


@frozen
class TermLookupRequest:
    """A wording to look up, in ``locale`` and its variants (None: every language)."""

    text: str
    locale: str | None = None


@frozen
class TermRow:
    """One stored wording of a concept, with the replacement a check suggests for it."""

    term: str
    locale: str
    status: str
    concept: str
    replacement: str
    note: str
    competitor: bool
    do_not_translate: bool
    forms: tuple[str, ...]
    source: str


@frozen
class TermHit:
    """A term that matches a lookup: how (``tier``), how closely (``score``), and the term."""

    tier: str
    score: float
    row: TermRow


# On the wire a hit is the term's row with its tier and score first.
converter.register_unstructure_hook(
    TermHit,
    lambda hit: {"tier": hit.tier, "score": hit.score, **converter.unstructure(hit.row)},
)


def terms_format_for(path: str, format: str | None = None) -> str:
    """The terms format to use: ``format`` if given, else the one the file's extension names."""
    if format:
        if format not in TERMS_FORMATS:
            raise HostError(
                f"unknown terms format {format!r}; use {', '.join(TERMS_FORMATS)}",
                exit_code=EXIT_USAGE,
            )
        return format
    found = _EXTENSIONS.get(Path(path).suffix.lower()) if path not in ("", "-") else None
    if found is None:
        raise HostError(
            f"{path or 'stdin'}: cannot tell the terms format from the name; "
            f"pass --format {'|'.join(TERMS_FORMATS)}",
            exit_code=EXIT_USAGE,
        )
    return found


def _store(workspace: Workspace) -> StorePort:
    store = workspace.store
    if store is None:
        raise HostError(
            "no project here: terms live in a project's store; run `kapi init` first "
            "(or point at a project with -p)",
            exit_code=EXIT_ERROR,
        )
    return store


# --- import -------------------------------------------------------------------------


def import_terms(request: TermsImportRequest, workspace: Workspace) -> TermsImported:
    """Read a terms file into the project store and return what changed.

    A concept in the file replaces the stored concept with the same id; with
    ``replace`` the stored concepts the file does not name are removed too.
    Only a person imports terms: an agent is refused.
    """
    from attrs import evolve

    from kapi.core.change.ports import ActorKind
    from kapi.host.actor import actor_from_env
    from kapi.host.store import now

    path, data = request.path, request.data
    store = _store(workspace)
    who = request.actor if request.actor is not None else actor_from_env().actor
    if who.kind == ActorKind.AGENT:
        raise HostError(
            "terms are a person's decision: a person imports them with `kapi terms import`; "
            "ask the person you work for to run it",
            exit_code=EXIT_ERROR,
        )
    kind = terms_format_for(path, request.format)
    shown = "stdin" if path in ("", "-") else path
    if data is None:
        from kapi.host.inputs import read_in

        data = read_in(workspace, path)
    bundle = _parse(data, kind, shown)

    existing = {concept.id: concept for concept in store.concepts()}
    stamp = now()
    concepts = [
        evolve(
            concept,
            created_at=concept.created_at
            or (existing[concept.id].created_at if concept.id in existing else "")
            or stamp,
            updated_at=concept.updated_at or stamp,
        )
        for concept in bundle.concepts
    ]
    incoming = {concept.id for concept in concepts}
    removed = sorted(set(existing) - incoming) if request.replace else []
    # New terms land before old ones leave, so a failure never leaves the store emptier.
    store.put_concepts(concepts)
    if removed:
        store.delete_concepts(removed)
    evidence_path = _evidence_path(workspace, path)
    op = store.log_context(
        "import",
        who,
        {
            "subject": {"kind": "terms", "format": kind},
            "evidence": {"path": evidence_path, "sha256": hashlib.sha256(data).hexdigest()},
            "count": len(concepts),
        },
    )
    return TermsImported(
        path=evidence_path,
        format=kind,
        concepts=len(concepts),
        terms=sum(len(concept.terms) for concept in concepts),
        added=sum(1 for i in incoming if i not in existing),
        updated=sum(1 for i in incoming if i in existing),
        removed=len(removed),
        op=op,
    )


def read_terms_file(workspace: Workspace, path: str) -> tuple[Concept, ...]:
    """The concepts of a terms file (JSON bundle, TBX or CSV) inside the workspace, read
    without touching the project's store; a usage error naming the file when it does not
    load, or when it lies outside the project (or the working folder)."""
    from kapi.host.inputs import read_in

    kind = terms_format_for(path)
    return tuple(_parse(read_in(workspace, path), kind, path, doing="nothing searched").concepts)


def _evidence_path(workspace: Workspace, path: str) -> str:
    if path in ("", "-"):
        return "-"
    from kapi.formats.containment import inside
    from kapi.host.inputs import file_in

    return inside(Path(os.path.realpath(workspace.root)), file_in(workspace, path))


def _parse(data: bytes, kind: str, source: str, *, doing: str = "nothing imported") -> TermsBundle:
    """The whole file as a bundle, or a usage error naming the file, line and key."""
    from kapi.core.governance.errors import GovernanceError

    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise HostError(
            f"{source}:{line}: not UTF-8 text (byte {error.start}); {doing}",
            exit_code=EXIT_USAGE,
        ) from None
    try:
        if kind == "json":
            return _parse_bundle(text, source)
        if kind == "tbx":
            from kapi.core.governance.tbx import parse_tbx

            return parse_tbx(text, source=source)
        from kapi.core.governance.terms_csv import parse_terms_csv

        return parse_terms_csv(text, source=source)
    except GovernanceError as error:
        raise HostError(_describe(error, source, doing), exit_code=EXIT_USAGE) from None


def _parse_bundle(text: str, source: str) -> TermsBundle:
    from kapi.core.governance.errors import GovernanceError
    from kapi.core.governance.terms import decode_terms_bundle

    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise GovernanceError(
            f"not JSON: {error.msg} (column {error.colno})", source, line=error.lineno
        ) from None
    except RecursionError:
        raise GovernanceError("not a terms bundle: nested too deeply", source) from None
    try:
        return decode_terms_bundle(data, source)
    except GovernanceError as error:
        if error.line is None:
            error.line = _json_line(text, error.key)
        raise


def _describe(error: Any, source: str, doing: str = "nothing imported") -> str:
    where = source + (f":{error.line}" if error.line else "")
    key = f" {error.key}:" if error.key else ""
    return f"{where}:{key} {error.message}; {doing}"


def _json_line(text: str, key: str) -> int | None:
    """The line of the value at ``key`` (``concepts[0].terms[1].status``), or of its nearest parent."""
    try:
        lines = _json_key_lines(text)
    except (ValueError, IndexError, RecursionError):
        return None
    while key:
        if key in lines:
            return lines[key]
        parent = re.sub(r"(\[\d+\]|\.?[^.\[]+)$", "", key)
        # a name no step matches (one ending in "." or "["): its last character goes
        key = parent if parent != key else key[:-1]
    return lines.get("")


def _json_key_lines(text: str) -> dict[str, int]:
    """Where each key path of a (valid) JSON text starts: path -> line number."""
    from bisect import bisect_right

    starts = [0] + [match.end() for match in re.finditer("\n", text)]
    decoder = json.JSONDecoder()
    space = re.compile(r"[ \t\n\r]*")
    lines: dict[str, int] = {}

    def skip(index: int) -> int:
        match = space.match(text, index)
        return match.end() if match else index

    def value(index: int, path: str) -> int:
        index = skip(index)
        lines.setdefault(path, bisect_right(starts, index))
        opener = text[index]
        if opener not in "{[":
            return int(decoder.raw_decode(text, index)[1])
        closer = "}" if opener == "{" else "]"
        index = skip(index + 1)
        if text[index] == closer:
            return index + 1
        number = 0
        while True:
            index = skip(index)
            if opener == "{":
                name, after = decoder.raw_decode(text, index)
                member = f"{path}.{name}" if path else name
                lines[member] = bisect_right(starts, index)
                index = value(skip(after) + 1, member)
            else:
                index = value(index, f"{path}[{number}]")
                number += 1
            index = skip(index)
            if text[index] == ",":
                index += 1
                continue
            return index + 1

    value(0, "")
    return lines


# --- export -------------------------------------------------------------------------


def export_terms(request: TermsExportRequest, workspace: Workspace) -> TermsExport:
    """The store's terms as a file's text; written to ``path`` unless it is empty or ``-``.

    The format is ``format``, else the one ``path``'s extension names, else the
    ``kapi-terms`` JSON bundle.
    """
    from kapi.core.governance.terms import TermsBundle

    path, format = request.path, request.format
    store = _store(workspace)
    to_file = path not in ("", "-")
    kind = terms_format_for(path, format) if (format or to_file) else "json"
    bundle = TermsBundle(concepts=tuple(store.concepts()))
    if kind == "json":
        from kapi.core.governance.terms import encode_terms_bundle

        text = json.dumps(encode_terms_bundle(bundle), ensure_ascii=False, indent=2) + "\n"
    elif kind == "tbx":
        from kapi.core.governance.tbx import write_tbx

        text = write_tbx(bundle, source_language=workspace.source_language)
    else:
        from kapi.core.governance.terms_csv import write_terms_csv

        text = write_terms_csv(bundle)
    if not to_file:
        return TermsExport(text=text)
    from kapi.host.inputs import file_in

    _write_atomically(file_in(workspace, path), text)
    return TermsExport(text=text, written=path)


def _write_atomically(path: Path, text: str) -> None:
    target = path.resolve()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
                out.write(text)
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError as error:
        raise HostError(f"{path}: {error.strerror or error}", exit_code=EXIT_ERROR) from None


# --- list and lookup ----------------------------------------------------------------


def list_terms(request: TermsListRequest, workspace: Workspace) -> tuple[TermRow, ...]:
    """Every stored term (in ``locale`` and its variants, with ``status``), sorted by wording."""
    from kapi.core.governance.terms import TERM_STATUSES, locale_matches

    locale, status = request.locale, request.status
    store = _store(workspace)
    wanted_locale = _canonical(locale) if locale else ""
    if status and status not in TERM_STATUSES:
        raise HostError(
            f"status {status!r} is not one of {', '.join(TERM_STATUSES)}", exit_code=EXIT_USAGE
        )
    rows = [
        _row(concept, term)
        for concept in store.concepts()
        for term in concept.terms
        if locale_matches(term.locale, wanted_locale) and (not status or term.status == status)
    ]
    return tuple(sorted(rows, key=lambda row: (row.term.casefold(), row.locale, row.concept)))


def lookup_term(request: TermLookupRequest, workspace: Workspace) -> tuple[TermHit, ...]:
    """Stored terms that match ``text``: exact, then normalised (case, spaces), then fuzzy.

    Each hit names its ``tier`` and a ``score`` (1.0 for exact and normalised,
    the Levenshtein ratio for fuzzy hits, at least :data:`FUZZY_THRESHOLD`).
    """
    from kapi.core.governance.terms import locale_matches

    text, locale = request.text, request.locale
    store = _store(workspace)
    wanted_locale = _canonical(locale) if locale else ""
    query = _normalise(text)
    if not query:
        raise HostError("nothing to look up: give a word or phrase", exit_code=EXIT_USAGE)
    hits: list[tuple[int, float, TermHit]] = []
    for concept in store.concepts():
        for term in concept.terms:
            if not locale_matches(term.locale, wanted_locale):
                continue
            normal = _normalise(term.text)
            if term.text == text:
                tier, rank, score = "exact", 0, 1.0
            elif normal == query:
                tier, rank, score = "normalized", 1, 1.0
            else:
                score = _ratio(query, normal)
                if score < FUZZY_THRESHOLD:
                    continue
                tier, rank = "fuzzy", 2
            hit = TermHit(tier=tier, score=round(score, 3), row=_row(concept, term))
            hits.append((rank, score, hit))
    hits.sort(
        key=lambda found: (found[0], -found[1], found[2].row.term.casefold(), found[2].row.locale)
    )
    return tuple(hit for _, _, hit in hits)


def _row(concept: Concept, term: Term) -> TermRow:
    from kapi.core.governance.terms import TermStatus, rules_from_concepts

    replacement = ""
    if term.competitor_term or term.status in (TermStatus.DEPRECATED, TermStatus.FORBIDDEN):
        rule = next(
            (r for r in rules_from_concepts([concept], term.locale) if r.term == term.text), None
        )
        replacement = rule.replacement if rule is not None else ""
    return TermRow(
        term=term.text,
        locale=term.locale,
        status=str(term.status),
        concept=concept.id,
        replacement=replacement,
        note=term.note,
        competitor=term.competitor_term,
        do_not_translate=concept.do_not_translate,
        forms=tuple(term.forms),
        source=str(concept.source),
    )


def _canonical(locale: str) -> str:
    from kapi.core.edition import EditionKeyError, canonical_locale

    try:
        return canonical_locale(locale)
    except EditionKeyError as error:
        raise HostError(str(error), exit_code=EXIT_USAGE) from None


def _normalise(text: str) -> str:
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", text)).strip().casefold()


def _ratio(a: str, b: str) -> float:
    """Levenshtein similarity: 1 - distance / length of the longer text."""
    longest = max(len(a), len(b))
    if not longest:
        return 1.0
    if abs(len(a) - len(b)) > longest * (1 - FUZZY_THRESHOLD):
        return 0.0  # too different in length to reach the threshold
    return 1 - _distance(a, b) / longest


def _distance(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, left in enumerate(a, 1):
        current = [i]
        for j, right in enumerate(b, 1):
            current.append(
                min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (left != right))
            )
        previous = current
    return previous[-1]
