"""``kapi extract`` and ``kapi merge``: a project's translatable blocks out as XLIFF or PO, and back.

The file holds only text and inline codes (``<ph>``, ``<pc>``); kapi's skeleton
stays in kapi. It records the project id and, per unit, the block, the source
revision and the target revision it was extracted at, so a merge lands each
target through the change service with ``if_match`` and ``basis``: a unit whose
source or target moved meanwhile is refused ``stale`` and the rest land. A
unit's length limit (the block's own, or ``--max-chars``) travels as XLIFF 2.0
``slr:sizeRestriction``, XLIFF 1.2 ``maxwidth`` or a PO comment.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from xml.sax.saxutils import escape, quoteattr

from attrs import frozen

from kapi.host.errors import EXIT_USAGE, HostError

if TYPE_CHECKING:
    from kapi.host.translate import Unit
    from kapi.host.workspace import Workspace

__all__ = [
    "ExtractRequest",
    "ExtractResult",
    "MergeRequest",
    "MergeResult",
    "MergedUnit",
    "run_extract",
    "run_merge",
]

XLIFF2 = "urn:oasis:names:tc:xliff:document:2.0"
XLIFF12 = "urn:oasis:names:tc:xliff:document:1.2"
FORMATS = ("xliff20", "xliff12", "po")
MAX_MERGE_BYTES = 64 * 1024 * 1024
MDA = "urn:oasis:names:tc:xliff:metadata:2.0"
SLR = "urn:oasis:names:tc:xliff:sizerestriction:2.0"
PO_RECORD = "kapi "  # ``#. kapi <unit id> <source rev> <target rev>``: a PO entry's record
CATEGORY = "kapi"
_TOKEN = re.compile(r'<x\s+id="([^"]*)"\s*/>')
# In a PO string: kapi's codes as XLIFF 2.0 spells them, and any other tag (not a code).
_PO_TAG = re.compile(r'<ph id="([^"<>]*)"/>|<pc id="([^"<>]*)">|</pc>|</?[A-Za-z][^<>]*>')
_PO_CODE_LIKE = re.compile(r"<ph id=|<pc id=|</pc>")
_STATE = {
    "missing": "initial",
    "draft": "translated",
    "current": "translated",
    "draft-stale": "initial",
    "person-stale": "initial",
}


@frozen
class ExtractRequest:
    """What to hand out: source documents (named from the current folder; all when empty), one language."""

    language: str
    output: str
    docs: tuple[str, ...] = ()
    format: str = "xliff20"  # or xliff12, po
    max_chars: int = 0  # a length limit for every unit (a block's own limit, when lower, wins)


@frozen
class ExtractResult:
    """What was written: the file, its units, and the blocks left out (with why)."""

    file: str
    language: str
    units: int
    left_out: tuple[str, ...] = ()

    def encoded(self) -> dict[str, Any]:
        from kapi.host.wire import encode

        return dict(encode(self))


@frozen
class MergeRequest:
    """The XLIFF file a translator returned."""

    file: str


@frozen
class MergedUnit:
    """One unit's outcome: ``applied``, ``unchanged``, ``skipped`` (a PO entry still fuzzy) or
    ``refused`` (with the service's code)."""

    doc: str
    block: str
    language: str
    status: str
    code: str = ""
    reason: str = ""
    rev: str = ""


@frozen
class MergeResult:
    """The merge: ``applied`` (every target landed), ``partial`` or ``refused``."""

    status: str
    units: tuple[MergedUnit, ...]

    @property
    def exit_code(self) -> int:
        return 0 if self.status == "applied" else 3

    def encoded(self) -> dict[str, Any]:
        from kapi.host.wire import encode

        return dict(encode(self))


def _project(workspace: Workspace, verb: str) -> Any:
    project = workspace.project
    if project is None:
        raise HostError(f"`kapi {verb}` works in a project: run `kapi init` first", exit_code=1)
    if not project.id:
        raise HostError(
            f"{project.recipe_path.name} has no `id`; add one (kapi init mints one) before "
            f"`kapi {verb}`",
            exit_code=EXIT_USAGE,
        )
    return project


def unit_id(doc: str, block: str) -> str:
    """A unit's id: derived from its block identity, so an id changed by hand is noticed."""
    return "u" + hashlib.sha256(f"{doc}\0{block}".encode()).hexdigest()[:16]


# --- extract --------------------------------------------------------------------------------


def run_extract(request: ExtractRequest, workspace: Workspace) -> ExtractResult:
    """Write the XLIFF 2.0 file of ``request`` (inside the project) and say what it holds."""
    from kapi.core.edittext import has_structure
    from kapi.formats.containment import inside
    from kapi.formats.xliff_read import LIMIT
    from kapi.host.inputs import file_in
    from kapi.host.memory import memory_index
    from kapi.host.translate import check_language, classify, languages_for, project_documents

    project = _project(workspace, "extract")
    if request.format not in FORMATS:
        raise HostError(
            f"unknown format {request.format!r}; formats: {', '.join(FORMATS)}",
            exit_code=EXIT_USAGE,
        )
    language = check_language(request.language)
    if language not in project.target_languages:
        raise HostError(
            f"{language} is not a target language of the project "
            f"({', '.join(project.target_languages) or 'none'})",
            exit_code=EXIT_USAGE,
        )
    root = Path(project.root).resolve()
    output = file_in(workspace, request.output)
    shown = inside(root, output)
    sources = list(project.source_files())
    if (
        shown in sources
        or project.could_be_translation(shown)
        or shown == project.recipe_path.name
        or shown.split("/")[0] == ".kapi"
        or output.is_dir()
    ):
        raise HostError(
            f"{shown} is the project's own (content, a translation, the recipe or its state); "
            "name a new file for the hand-off",
            exit_code=EXIT_USAGE,
        )
    index = memory_index(workspace)
    try:
        stamps = index.stamps()
    finally:
        index.close()
    docs = sources
    if request.docs:
        named = [inside(root, file_in(workspace, d)) for d in request.docs]
        unknown = [d for d in named if d not in sources]
        if unknown:
            raise HostError(
                f"{unknown[0]} is not a source document of the project", exit_code=EXIT_USAGE
            )
        docs = named
    if request.max_chars < 0:
        raise HostError("--max-chars is a number of characters, 0 for none", exit_code=EXIT_USAGE)
    files: list[tuple[str, tuple[Unit, ...]]] = []
    notes: dict[tuple[str, str], str] = {}
    limits: dict[tuple[str, str], int] = {}
    left_out: list[str] = []
    count = 0
    for staged in project_documents(workspace, docs):
        if language not in languages_for(workspace, staged.doc):
            left_out.append(f"{staged.doc}: not translated into {language}")
            continue
        units = []
        for unit in classify(staged, [language], stamps):
            if has_structure(unit.source) or (unit.target and has_structure(unit.target)):
                left_out.append(f"{unit.doc} {unit.block}: a plural or select (use kapi apply)")
                continue
            if request.format == "po" and _spells_a_code(unit):
                left_out.append(f"{unit.doc} {unit.block}: its text spells <ph>/<pc> (use XLIFF)")
                continue
            units.append(unit)
        for block in staged.document.blocks:
            key = (staged.doc, block.ref_key)
            if block.properties.get("note"):
                notes[key] = block.properties["note"]
            limit = _limit(block.properties.get(LIMIT), request.max_chars)
            if limit:
                limits[key] = limit
        count += len(units)
        files.append((staged.doc, tuple(units)))
    handout = _Handout(
        project_id=project.id,
        project_name=project.name,
        source=workspace.source_language,
        target=language,
        files=tuple(files),
        notes=notes,
        limits=limits,
    )
    write = {"xliff12": _xliff12, "po": _po}.get(request.format, _xliff)
    text = write(handout)
    temporary = output.with_name(output.name + ".kapi-tmp")
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_bytes(text.encode("utf-8"))
        temporary.replace(output)
    except OSError as err:
        temporary.unlink(missing_ok=True)
        raise HostError(
            f"{shown}: {err.strerror or err}; nothing was written", exit_code=1
        ) from None
    return ExtractResult(file=shown, language=language, units=count, left_out=tuple(left_out))


@frozen
class _Handout:
    """What an extract writes: the project, the languages, and each document's units."""

    project_id: str
    project_name: str
    source: str
    target: str
    files: tuple[tuple[str, tuple[Unit, ...]], ...]
    notes: Mapping[tuple[str, str], str]
    limits: Mapping[tuple[str, str], int]

    def record(self, unit: Unit) -> dict[str, str]:
        """What the file keeps of a unit for the merge."""
        return {
            "block": unit.block,
            "source-rev": unit.source_rev,
            "target-rev": unit.target_rev,
            "state": unit.state,
        }


def _limit(own: str | None, cap: int) -> int:
    """A unit's length limit: the block's own and ``--max-chars``, the lower of those given."""
    given = [n for n in (int(own) if own and own.isdigit() else 0, cap) if n > 0]
    return min(given) if given else 0


def _spells_a_code(unit: Unit) -> bool:
    """Whether a unit's text (not its codes) reads like one of the codes a PO string spells."""
    from kapi.core.edittext import render_edit_text

    return any(
        _PO_CODE_LIKE.search(_TOKEN.sub("", render_edit_text(runs)))
        for runs in (unit.source, unit.target or ())
    )


def _xliff(handout: _Handout) -> str:
    from kapi.core.edittext import render_edit_text

    slr = f' xmlns:slr="{SLR}"' if handout.limits else ""
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<xliff xmlns="{XLIFF2}" xmlns:mda="{MDA}"{slr} version="2.0" '
        f"srcLang={quoteattr(handout.source)} trgLang={quoteattr(handout.target)}>",
    ]
    for number, (doc, units) in enumerate(handout.files, 1):
        lines.append(f'  <file id="f{number}" original={quoteattr(doc)}>')
        lines.append(_metadata("    ", {"project": handout.project_id}))
        if any((doc, unit.block) in handout.limits for unit in units):
            lines.append('    <slr:profiles generalProfile="xliff:codepoints"/>')
        for unit in units:
            limit = handout.limits.get((doc, unit.block))
            size = f' slr:sizeRestriction="{limit}"' if limit else ""
            lines.append(
                f'    <unit id="{unit_id(doc, unit.block)}" name={quoteattr(unit.block)}{size}>'
            )
            lines.append(_metadata("      ", handout.record(unit)))
            note = handout.notes.get((doc, unit.block))
            if note:
                lines.append(f"      <notes><note>{escape(note)}</note></notes>")
            state = _STATE.get(unit.state, "initial")
            lines.append(f'      <segment state="{state}">')
            lines.append(f"        <source>{_inline(render_edit_text(unit.source))}</source>")
            if unit.target:
                lines.append(f"        <target>{_inline(render_edit_text(unit.target))}</target>")
            lines.append("      </segment>")
            lines.append("    </unit>")
        lines.append("  </file>")
    lines.append("</xliff>")
    return "\n".join(lines) + "\n"


def _xliff12(handout: _Handout) -> str:
    from kapi.core.edittext import render_edit_text

    lines = ['<?xml version="1.0" encoding="UTF-8"?>', f'<xliff xmlns="{XLIFF12}" version="1.2">']
    for doc, units in handout.files:
        lines.append(
            f"  <file original={quoteattr(doc)} source-language={quoteattr(handout.source)} "
            f'target-language={quoteattr(handout.target)} datatype="plaintext">'
        )
        lines.append(f"    <header>{_props({'project': handout.project_id})}</header>")
        lines.append("    <body>")
        for unit in units:
            limit = handout.limits.get((doc, unit.block))
            size = f' maxwidth="{limit}" size-unit="char"' if limit else ""
            lines.append(
                f'      <trans-unit id="{unit_id(doc, unit.block)}" '
                f"resname={quoteattr(unit.block)}{size}>"
            )
            lines.append(f"        <source>{_inline(render_edit_text(unit.source), 1)}</source>")
            if unit.target:
                state = (
                    "translated"
                    if _STATE.get(unit.state) == "translated"
                    else "needs-review-translation"
                )
                text = _inline(render_edit_text(unit.target), 1)
                lines.append(f'        <target state="{state}">{text}</target>')
            lines.append(f"        {_props(handout.record(unit))}")
            note = handout.notes.get((doc, unit.block))
            if note:
                lines.append(f"        <note>{escape(note)}</note>")
            lines.append("      </trans-unit>")
        lines.append("    </body>")
        lines.append("  </file>")
    lines.append("</xliff>")
    return "\n".join(lines) + "\n"


def _po(handout: _Handout) -> str:
    """A gettext PO file: ``msgctxt`` is ``doc:block``, a ``#. kapi`` comment holds the unit's
    id and revisions (tokens without spaces, so a tool that re-wraps comments keeps them).

    Codes are spelled as XLIFF 2.0 spells them (``<ph id="1"/>``, ``<pc id="1">…</pc>``),
    a stale translation is ``fuzzy``, and the header counts the units (a truncated
    file is noticed).
    """
    import time

    from kapi.core.edittext import render_edit_text
    from kapi.formats.po import quote

    units = sum(len(found) for _, found in handout.files)
    header = "".join(
        f"{name}: {value}\n"
        for name, value in (
            ("Project-Id-Version", handout.project_name),
            ("PO-Revision-Date", time.strftime("%Y-%m-%d %H:%M+0000", time.gmtime())),
            ("Last-Translator", ""),
            ("Language-Team", ""),
            ("Language", handout.target),
            ("MIME-Version", "1.0"),
            ("Content-Type", "text/plain; charset=UTF-8"),
            ("Content-Transfer-Encoding", "8bit"),
            ("X-Kapi-Project", handout.project_id),
            ("X-Kapi-Source-Language", handout.source),
            ("X-Kapi-Units", str(units)),
        )
    )

    def field(keyword: str, text: str) -> str:
        return f"{keyword} " + quote(text, prefix=len(keyword) + 1, wrap=True, newline="\n")

    lines = [
        f"# {handout.project_name} in {handout.target}, extracted by kapi.",
        "# Return it to `kapi merge`; keep each entry's msgctxt and its `#. kapi` comment.",
        'msgid ""',
        field("msgstr", header),
        "",
    ]
    for doc, found in handout.files:
        for unit in found:
            note = handout.notes.get((doc, unit.block))
            if note:
                lines.extend(f"#. {line}".rstrip() for line in note.split("\n"))
            limit = handout.limits.get((doc, unit.block))
            if limit:
                lines.append(f"#. At most {limit} characters.")
            ident = unit_id(doc, unit.block)
            lines.append(f"#. {PO_RECORD}{ident} {unit.source_rev} {unit.target_rev}")
            if not any(ch.isspace() for ch in doc):
                lines.append(f"#: {doc}")
            if unit.target and unit.state in ("draft-stale", "person-stale"):
                lines.append("#, fuzzy")
            lines.append(field("msgctxt", f"{doc}:{unit.block}"))
            lines.append(field("msgid", _inline(render_edit_text(unit.source), plain=True)))
            target = _inline(render_edit_text(unit.target), plain=True) if unit.target else ""
            lines.append(field("msgstr", target))
            lines.append("")
    return "\n".join(lines)


def _props(values: dict[str, str]) -> str:
    props = "".join(f"<prop prop-type={quoteattr(k)}>{escape(v)}</prop>" for k, v in values.items())
    return f"<prop-group name={quoteattr(CATEGORY)}>{props}</prop-group>"


def _metadata(indent: str, values: dict[str, str]) -> str:
    metas = "".join(
        f"{indent}    <mda:meta type={quoteattr(k)}>{escape(v)}</mda:meta>\n"
        for k, v in values.items()
    )
    return (
        f"{indent}<mda:metadata>\n{indent}  <mda:metaGroup category={quoteattr(CATEGORY)}>\n"
        f"{metas}{indent}  </mda:metaGroup>\n{indent}</mda:metadata>"
    )


def _inline(edit_text: str, version: int = 2, *, plain: bool = False) -> str:
    """Edit text as XLIFF content: text escaped, tokens as ``<ph>``/``<pc>`` (1.2: ``<x>``/``<g>``).

    ``plain``: text left as it is, for a PO string.
    """
    standalone, paired = ("ph", "pc") if version == 2 else ("x", "g")
    text = (lambda value: value) if plain else escape
    out: list[str] = []
    at = 0
    for match in _TOKEN.finditer(edit_text):
        out.append(text(edit_text[at : match.start()]))
        token = match.group(1)
        if token.endswith("/"):
            out.append(f"<{standalone} id={quoteattr(token[:-1])}/>")
        elif token.startswith("/"):
            out.append(f"</{paired}>")
        elif token.startswith("sub:"):
            out.append(f"<{standalone} id={quoteattr(token)}/>")
        else:
            out.append(f"<{paired} id={quoteattr(token)}>")
        at = match.end()
    out.append(text(edit_text[at:]))
    return "".join(out)


# --- merge ----------------------------------------------------------------------------------


@frozen
class _Returned:
    doc: str
    block: str
    source_rev: str
    target_rev: str
    text: str | None  # None: the target holds markup that is not a kapi code
    problem: str = ""
    skipped: str = ""  # why the target is not merged (a PO entry still marked fuzzy)


class _Malformed(Exception):
    pass


def run_merge(request: MergeRequest, workspace: Workspace) -> MergeResult:
    """Land the targets of a returned XLIFF or PO file through the change service (see the module)."""
    from kapi.host.inputs import read_in

    project = _project(workspace, "merge")
    data = read_in(workspace, request.file, max_bytes=MAX_MERGE_BYTES)
    sources = set(project.source_files())
    try:
        if _looks_like_xml(data):
            language, returned = _read_returned(data, request.file, project.id, sources)
        else:
            language, returned = _read_po(data, project.id, sources)
    except _Malformed as err:
        raise HostError(
            f"{request.file}: {err}; nothing was merged", exit_code=EXIT_USAGE, code="invalid"
        ) from None
    return _land(workspace, language, returned)


def _looks_like_xml(data: bytes) -> bool:
    """Whether a returned file is XML (XLIFF, in UTF-8 or UTF-16), not PO."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff", b"\x00<", b"<\x00")):
        return True
    return data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] in (b"<", b"")


def _read_returned(
    data: bytes, display: str, project_id: str, sources: set[str]
) -> tuple[str, list[_Returned]]:
    import xml.etree.ElementTree as ET

    from kapi.host.memory import xml_text

    xml = xml_text(data, display)
    if "<!DOCTYPE" in xml or "<!ENTITY" in xml:
        raise _Malformed("a document type declaration is not accepted in XLIFF")
    try:
        root = ET.fromstring(xml)
    except ET.ParseError as err:
        raise _Malformed(f"not well-formed XML ({err})") from None
    dialects = {f"{{{XLIFF2}}}xliff": ("2.0", XLIFF2), f"{{{XLIFF12}}}xliff": ("1.2", XLIFF12)}
    version, namespace = dialects.get(root.tag, ("", ""))
    if not version or root.get("version") != version:
        raise _Malformed(
            "not an XLIFF 2.0 or 1.2 file kapi extracted "
            f"(namespace {root.tag.partition('}')[0].lstrip('{') or 'none'}, "
            f"version {root.get('version') or 'none'})"
        )
    x = f"{{{namespace}}}"
    v12 = version == "1.2"
    languages = (
        {f.get("target-language") or "" for f in root.findall(f"{x}file")}
        if v12
        else {root.get("trgLang") or ""}
    )
    language = languages.pop() if len(languages) == 1 else ""
    if not language:
        raise _Malformed("the file names no one target language")
    returned: list[_Returned] = []
    seen: set[tuple[str, str]] = set()
    for file in root.findall(f"{x}file"):
        doc = file.get("original") or ""
        meta = _props_of(file.find(f"{x}header"), x) if v12 else _meta_of(file)
        if meta.get("project") != project_id:
            raise _Malformed(
                f"the file was extracted from another project ({meta.get('project') or 'none'})"
            )
        if doc not in sources:
            raise _Malformed(f"{doc!r} is not a source document of this project")
        for unit in file.iter(f"{x}trans-unit" if v12 else f"{x}unit"):
            umeta = _props_of(unit, x) if v12 else _meta_of(unit)
            block = umeta.get("block", "")
            name = unit.get("resname" if v12 else "name")
            if unit.get("id") != unit_id(doc, block) or name != block:
                raise _Malformed(f"unit {unit.get('id')!r} does not match the block it names")
            if (doc, block) in seen:
                raise _Malformed(f"unit {unit.get('id')!r} appears twice")
            seen.add((doc, block))
            if "source-rev" not in umeta or "target-rev" not in umeta:
                raise _Malformed(f"unit {unit.get('id')!r} lost its kapi metadata")
            if v12:
                targets = [unit.find(f"{x}target")]
            else:
                targets = [s.find(f"{x}target") for s in unit.findall(f"{x}segment")]
            if not targets or targets[0] is None:
                continue
            try:
                text = _edit_text(targets[0], x, ("x", "g") if v12 else ("ph", "pc"))
                problem = ""
            except ValueError as err:
                text, problem = None, str(err)
            returned.append(
                _Returned(doc, block, umeta["source-rev"], umeta["target-rev"], text, problem)
            )
    if not seen:
        raise _Malformed("it holds no kapi units")
    return language, returned


def _read_po(data: bytes, project_id: str, sources: set[str]) -> tuple[str, list[_Returned]]:
    """The targets of a PO file ``kapi extract --format po`` wrote (see :func:`_po`)."""
    from kapi.core.format import FormatError
    from kapi.core.model import Plural
    from kapi.formats.po import PoFormat, header_fields, render_runs

    try:
        document = PoFormat().read(data)
    except FormatError as err:
        raise _Malformed(f"not a well-formed PO file ({err})") from None
    header = header_fields(document)
    if "x-kapi-project" not in header:
        raise _Malformed("not a PO file kapi extracted (its header has no X-Kapi-Project)")
    if header["x-kapi-project"] != project_id:
        raise _Malformed(
            f"the file was extracted from another project ({header['x-kapi-project'] or 'none'})"
        )
    language = document.target_locale
    if not language or language == "und":
        raise _Malformed("the file names no target language (its header's Language)")
    returned: list[_Returned] = []
    seen: set[tuple[str, str]] = set()
    for block in document.blocks:
        context = block.properties.get("context", "")
        name = repr(context or block.name)
        record = _po_record(block.properties.get("note", ""))
        if record is None:
            raise _Malformed(f"the entry {name} lost its `#. kapi` comment")
        ident, source_rev, target_rev = record
        doc = max((s for s in sources if context.startswith(s + ":")), key=len, default="")
        key = context[len(doc) + 1 :]
        if not doc or ident != unit_id(doc, key):
            raise _Malformed(f"the entry {name} does not match the block its comment names")
        if (doc, key) in seen:
            raise _Malformed(f"the entry {name} appears twice")
        seen.add((doc, key))
        if any(isinstance(run, Plural) for run in block.source):
            raise _Malformed(f"the entry {name} has plural forms; kapi extracted it without")
        edition = block.targets.get(language)
        if edition is None or not edition.runs:
            continue
        if "fuzzy" in block.properties.get("flags", "").replace(",", " ").split():
            returned.append(
                _Returned(doc, key, source_rev, target_rev, None, skipped="still marked fuzzy")
            )
            continue
        try:
            source = render_runs(block.source, block.id)
            text: str | None = _po_edit_text(render_runs(edition.runs, block.id), source)
            problem = ""
        except ValueError as err:
            text, problem = None, str(err)
        returned.append(_Returned(doc, key, source_rev, target_rev, text, problem))
    expected = header.get("x-kapi-units", "")
    if expected.isdigit() and int(expected) != len(seen):
        raise _Malformed(
            f"it holds {len(seen)} of the {expected} entries it was extracted with (truncated?)"
        )
    if not seen:
        raise _Malformed("it holds no kapi units")
    return language, returned


def _po_record(note: str) -> tuple[str, str, str] | None:
    """The unit id, source and target revision of a ``#. kapi`` comment, however it was wrapped."""
    lines = note.split("\n")
    for number, line in enumerate(lines):
        if line.startswith(PO_RECORD + "u"):
            tokens = " ".join(lines[number:]).split()[1:4]
            return (tokens[0], tokens[1], tokens[2]) if len(tokens) == 3 else None
    return None


def _po_edit_text(text: str, source: str) -> str:
    """A PO string as edit text: ``<ph>``/``<pc>`` are codes; ``ValueError`` for any other tag
    the source does not hold as text, or a pair left open."""
    parts: list[str] = []
    open_codes: list[str] = []
    at = 0
    for match in _PO_TAG.finditer(text):
        parts.append(text[at : match.start()])
        at = match.end()
        standalone, paired, tag = match.group(1), match.group(2), match.group(0)
        if standalone is not None:
            code = standalone
            parts.append(f'<x id="{code}"/>' if code.startswith("sub:") else f'<x id="{code}/"/>')
        elif paired is not None:
            open_codes.append(paired)
            parts.append(f'<x id="{paired}"/>')
        elif tag == "</pc>":
            if not open_codes:
                raise ValueError("a </pc> in the target closes no <pc>")
            parts.append(f'<x id="/{open_codes.pop()}"/>')
        elif tag not in source:
            raise ValueError(f"{tag} in the target is not a code of the source")
        else:
            parts.append(tag)  # text the source holds too
    parts.append(text[at:])
    if open_codes:
        raise ValueError(f'<pc id="{open_codes[-1]}"> in the target is not closed')
    return "".join(parts)


def _meta_of(element: Any) -> dict[str, str]:
    group = element.find(f"{{{MDA}}}metadata/{{{MDA}}}metaGroup[@category='{CATEGORY}']")
    if group is None:
        return {}
    return {m.get("type", ""): m.text or "" for m in group.findall(f"{{{MDA}}}meta")}


def _props_of(element: Any, x: str) -> dict[str, str]:
    if element is None:
        return {}
    group = element.find(f"{x}prop-group[@name='{CATEGORY}']")
    if group is None:
        return {}
    return {p.get("prop-type", ""): p.text or "" for p in group.findall(f"{x}prop")}


def _edit_text(target: Any, x: str, names: tuple[str, str] = ("ph", "pc")) -> str:
    """A target's content as edit text; ``ValueError`` for markup that is not a kapi code."""
    parts: list[str] = []

    def text(value: str | None) -> None:
        if value and _TOKEN.search(value):
            raise ValueError("the target's text spells a kapi code token; use <ph>/<pc>")
        parts.append(value or "")

    def walk(element: Any) -> None:
        text(element.text)
        for child in element:
            code = child.get("id") or ""
            if child.tag == f"{x}{names[0]}" and code and len(child) == 0 and not child.text:
                parts.append(
                    f'<x id="{code}"/>' if code.startswith("sub:") else f'<x id="{code}/"/>'
                )
            elif child.tag == f"{x}{names[1]}" and code:
                parts.append(f'<x id="{code}"/>')
                walk(child)
                parts.append(f'<x id="/{code}"/>')
            else:
                name = child.tag.rsplit("}", 1)[-1]
                raise ValueError(f"<{name}> in the target is not a code of the source")
            text(child.tail)

    walk(target)
    return "".join(parts)


def _land(workspace: Workspace, language: str, returned: list[_Returned]) -> MergeResult:
    from kapi.core.change.ops import ChangeSet, Ref, SetContent
    from kapi.host.actor import actor_from_env
    from kapi.host.apply import apply_decoded

    actor = actor_from_env()
    units: dict[tuple[str, str], MergedUnit] = {}
    todo = []
    for item in returned:
        if item.skipped:
            units[(item.doc, item.block)] = MergedUnit(
                item.doc, item.block, language, "skipped", reason=item.skipped
            )
        elif item.text is None:
            units[(item.doc, item.block)] = MergedUnit(
                item.doc, item.block, language, "refused", code="guard", reason=item.problem
            )
        else:
            todo.append(item)
    todo = _started(workspace, language, _changed(workspace, language, todo, units))
    while todo:
        ops = tuple(
            SetContent(
                at=Ref(doc=item.doc, block=item.block, edition=language),
                if_match=item.target_rev,
                text=item.text,
                basis=item.source_rev,
            )
            for item in todo
        )
        change_set = ChangeSet(ops=ops, require_basis=True, note="merged with `kapi merge`")
        result = apply_decoded(change_set, actor=actor, workspace=workspace).result
        refused = []
        for item, op in zip(todo, result.ops or ()):
            if op.error is not None:
                refused.append(item)
                units[(item.doc, item.block)] = MergedUnit(
                    item.doc,
                    item.block,
                    language,
                    "refused",
                    code=str(op.error.code),
                    reason=op.error.message,
                )
            elif op.status in ("applied", "unchanged"):
                units[(item.doc, item.block)] = MergedUnit(
                    item.doc, item.block, language, str(op.status), rev=op.after or ""
                )
        if not result.ops and result.error is not None:
            for item in todo:
                units[(item.doc, item.block)] = MergedUnit(
                    item.doc,
                    item.block,
                    language,
                    "refused",
                    code=str(result.error.code),
                    reason=result.error.message,
                )
            break
        if not refused or str(result.status) in ("applied", "partial"):
            break
        todo = [item for item in todo if item not in refused]
    outcome = tuple(units[(r.doc, r.block)] for r in returned if (r.doc, r.block) in units)
    refusals = sum(u.status == "refused" for u in outcome)
    landed = sum(u.status in ("applied", "unchanged") for u in outcome)
    status = "applied" if not refusals else ("partial" if landed else "refused")
    return MergeResult(status=status, units=outcome)


def _started(workspace: Workspace, language: str, todo: list[_Returned]) -> list[_Returned]:
    """Start each target file that does not exist yet as a copy of its source, as ``kapi up`` does.

    A unit extracted with no target then names the copy's revision, which the
    copy has only while nobody has written it since.
    """
    from attrs import evolve

    from kapi.host.memory import memory_index
    from kapi.host.up import _CannotStart, _seed_missing_file

    docs = sorted({item.doc for item in todo if item.target_rev == "absent"})
    if not docs:
        return todo
    home = workspace.home()
    revs: dict[tuple[str, str], str] = {}
    index = memory_index(workspace)
    try:
        for doc in docs:
            try:
                if not _seed_missing_file(workspace, home.stage(doc), language, index):
                    continue
            except _CannotStart:
                continue  # the service refuses its units with the way on
            from kapi.core.revision import revision

            for block in workspace.home().stage(doc).document.blocks:
                edition = block.targets.get(language)
                if edition is not None:
                    revs[(doc, block.ref_key)] = revision(language, edition.runs)
    finally:
        index.close()
    return [
        evolve(item, target_rev=revs[(item.doc, item.block)])
        if item.target_rev == "absent" and (item.doc, item.block) in revs
        else item
        for item in todo
    ]


def _changed(
    workspace: Workspace,
    language: str,
    todo: list[_Returned],
    units: dict[tuple[str, str], MergedUnit],
) -> list[_Returned]:
    """The returned targets that differ from the file's; the others are ``unchanged`` as they are.

    A translation handed back as it was is no edit, even when its source moved meanwhile.
    """
    from kapi.core.edittext import render_edit_text
    from kapi.core.revision import revision

    home = workspace.home()
    current: dict[tuple[str, str], tuple[str, str]] = {}
    for doc in sorted({item.doc for item in todo}):
        for block in home.stage(doc).document.blocks:
            edition = block.targets.get(language)
            if edition is not None and edition.runs:
                current[(doc, block.ref_key)] = (
                    render_edit_text(edition.runs),
                    revision(language, edition.runs),
                )
    changed = []
    for item in todo:
        held = current.get((item.doc, item.block))
        if held is not None and held[0] == item.text:
            units[(item.doc, item.block)] = MergedUnit(
                item.doc, item.block, language, "unchanged", rev=held[1]
            )
        else:
            changed.append(item)
    return changed
