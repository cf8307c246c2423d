"""``kapi terms``: bring the project's terms in from a file, send them out, list and look them up.

Thin click code over :mod:`kapi.host.terms`; the host module and the governance
code it uses are imported inside each verb so ``kapi --help`` stays fast.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from kapi.cli.common import workspace_of
from kapi.cli.output import emit_json, fail, table, warn
from kapi.host.errors import KapiError

if TYPE_CHECKING:
    from kapi.host.terms import TermRow

__all__ = ["terms"]

_FORMATS = click.Choice(["json", "tbx", "csv"])


@click.group()
def terms() -> None:
    """The project's terms: the words to use, the words to avoid, and what stays untranslated.

    Terms live in the project store (.kapi/project.db). Import them from a
    JSON terms bundle, a TBX file or a CSV sheet, look a word up while you
    write, and export them to keep a reviewed copy under version control.
    `kapi check` reports a forbidden or competitor term as a failure and a
    deprecated one as a note, with the preferred term as the fix.

    \b
    Statuses: preferred, approved, admitted (uses), deprecated (reported),
    forbidden (fails), proposed (not yet decided).
    """


@terms.command("import")
@click.argument("file")
@click.option(
    "--format",
    "format_name",
    type=_FORMATS,
    help="The file's format (default: from its extension: .json, .tbx, .csv).",
)
@click.option(
    "--replace",
    is_flag=True,
    help="Also remove stored concepts the file does not name (the file becomes the whole list).",
)
@click.option("--json", "as_json", is_flag=True, help="Print what was imported as JSON.")
def import_(file: str, format_name: str | None, replace: bool, as_json: bool) -> None:
    """Read the terms in FILE into the project (a kapi-terms bundle, TBX or CSV; - for stdin).

    A concept in FILE replaces the stored concept with the same id; others stay
    unless --replace. The file is checked whole first: if any line is wrong,
    nothing is imported and the error names the line and key. Terms are a
    person's decision, so an agent cannot import them.

    \b
    CSV columns: concept, locale, text (required), status, forms (a|b), note,
    part_of_speech, gender, competitor, do_not_translate, valid_from, valid_to,
    domain, definition, source.
    """
    from kapi.host.terms import TermsImportRequest, import_terms
    from kapi.host.wire import encode

    data = sys.stdin.buffer.read() if file == "-" else None
    request = TermsImportRequest(path=file, format=format_name, replace=replace, data=data)
    try:
        done = import_terms(request, workspace_of())
    except KapiError as err:
        fail(err, as_json=as_json)
    if as_json:
        emit_json(encode(done))
        return
    removed = f", {done.removed} removed" if done.removed else ""
    warn(
        f"imported {_count(done.concepts, 'concept')} ({_count(done.terms, 'term')}) from "
        f"{done.path}: {done.added} new, {done.updated} replaced{removed}"
    )


@terms.command("export")
@click.argument("file", required=False, default="-")
@click.option(
    "--format",
    "format_name",
    type=_FORMATS,
    help="The format to write (default: from FILE's extension; a kapi-terms JSON bundle on stdout).",
)
def export(file: str, format_name: str | None) -> None:
    """Write the project's terms to FILE, or to stdout when FILE is - or left out.

    Export to a file under version control to review term changes in a diff;
    `kapi terms import` reads any of the three formats back.
    """
    from kapi.host.terms import TermsExportRequest, export_terms

    try:
        exported = export_terms(TermsExportRequest(path=file, format=format_name), workspace_of())
    except KapiError as err:
        fail(err)
    if exported.written is None:
        click.echo(exported.text, nl=False)
    else:
        warn(f"wrote {exported.written}")


@terms.command("list")
@click.option(
    "--locale",
    help="Only terms that hold in this language (en also shows en-GB terms; en-GB also shows en terms).",
)
@click.option(
    "--status",
    type=click.Choice(["proposed", "approved", "preferred", "admitted", "deprecated", "forbidden"]),
    help="Only terms with this status.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the terms as a JSON array.")
def list_(locale: str | None, status: str | None, as_json: bool) -> None:
    """List the project's terms, one row per wording, sorted alphabetically."""
    from kapi.host.terms import TermsListRequest, list_terms
    from kapi.host.wire import encode

    request = TermsListRequest(locale=locale, status=status)
    try:
        rows = list_terms(request, workspace_of())
    except KapiError as err:
        fail(err, as_json=as_json)
    if as_json:
        emit_json(encode(rows))
        return
    if not rows:
        warn(
            "no terms"
            + (" match" if request.filtered else " yet: add some with `kapi terms import FILE`")
        )
        return
    click.echo(_table(rows))


@terms.command("lookup")
@click.argument("text")
@click.option(
    "--locale",
    help="Only terms that hold in this language (en also shows en-GB terms; en-GB also shows en terms).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the matches as a JSON array.")
def lookup(text: str, locale: str | None, as_json: bool) -> None:
    """Find what the project says about TEXT: the term itself, and terms spelled like it.

    Matches come in three tiers: exact, normalized (ignoring case and extra
    spaces) and fuzzy (similar spelling, at least 75% alike).
    """
    from kapi.host.terms import TermLookupRequest, lookup_term
    from kapi.host.wire import encode

    try:
        hits = lookup_term(TermLookupRequest(text=text, locale=locale), workspace_of())
    except KapiError as err:
        fail(err, as_json=as_json)
    if as_json:
        emit_json(encode(hits))
        return
    if not hits:
        warn(f"no term matches {text!r}")
        return
    click.echo(_table([hit.row for hit in hits], tiers=[hit.tier for hit in hits]))


_HEADERS = ("TERM", "LOCALE", "STATUS", "CONCEPT", "REPLACEMENT/NOTE")


def _table(rows: Sequence[TermRow], *, tiers: Sequence[str] = ()) -> str:
    cells = [(row.term, row.locale, _status(row), row.concept, _advice(row)) for row in rows]
    if tiers:
        return table(("MATCH", *_HEADERS), [(tier, *cell) for tier, cell in zip(tiers, cells)])
    return table(_HEADERS, cells)


def _status(row: TermRow) -> str:
    marks = [row.status]
    if row.competitor:
        marks.append("competitor")
    if row.do_not_translate:
        marks.append("do not translate")
    return ", ".join(marks)


def _advice(row: TermRow) -> str:
    parts = []
    if row.replacement:
        parts.append(f"use: {row.replacement}")
    if row.note and row.note not in parts:
        parts.append(row.note)
    return "; ".join(parts)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")
