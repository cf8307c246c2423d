"""XLIFF 1.2 and XLIFF 2.x: bilingual files read into blocks and written back by splicing.

Every unit is one block (``name`` = the unit id; ``block.id`` = ``tu1``,
``tu2``… in document order). The source language (``source-language`` /
``srcLang``) is the document's and the blocks' locale; the target language
(``target-language`` / ``trgLang``, canonical BCP-47) is ``target_locale`` and
keys the target edition. A file whose ``<file>`` elements name different
languages is refused (``unsupported``). Without a declared target language the
``<target>`` elements are kept as they are and not read, and no target can be
written. When two ``<file>`` elements hold the same unit id, the name is
``<file original or id>\\u0004<unit id>``.

XLIFF 1.2: ``<trans-unit>`` (also inside ``<group>``; ``translate="no"``, own
or inherited, gives ``translatable=False``), its ``<source>`` and ``<target>``
(``<alt-trans>`` is ignored). ``resname``, ``restype``, ``approved``, the raw
``state``, the file's ``original`` and the ``<note>`` texts go to properties.
Status: ``translated``/``final``/``signed-off`` or ``approved="yes"`` ->
``translated``; ``new``/``needs-*`` -> ``draft``. A segmented unit
(``<seg-source>`` with ``<mrk mtype="seg">``) is read from ``<source>`` as one
block; its target keeps the segment markers as paired codes, and a source edit
of such a unit is refused because ``<seg-source>`` would go stale.

XLIFF 2.x: one block per ``<unit>``; its runs are the ``<segment>`` and
``<ignorable>`` contents in order (a segment boundary is a boundary between
runs: adjacent text runs are not merged across it). The target concatenates
the segments' targets, an ignorable without target standing for its source.
Segment ``state`` (the least advanced) gives the status: ``initial`` ->
``draft``, else ``translated``. An edit of a unit with several parts is
written back segment by segment: when the new runs have the shape of the old
ones (or, for a new target, of the source) run i goes where run i was; else
when the changed stretch (after the common start and end) lies in one part, only
that part changes; else the write is refused (``WriteRefused``, capability
``edition``) asking to keep the segment boundaries.

Inline codes (``data`` = the exact markup; ``sub_type`` = ``xlf:<element>``):
1.2 ``g``/``mrk`` paired; ``x``, ``ph``, ``it`` standalone; ``bx``/``ex`` and
``bpt``/``ept`` paired through ``rid`` (else ``id``), each half's data the
whole element with its native text. 2.x ``pc``/``mrk`` paired, ``sc``/``ec``
and ``sm``/``em`` paired through ``startRef``, ``ph``/``cp`` standalone.
Halves without partner become standalone codes. Comments and processing
instructions inside content are standalone codes (``code:tag``). Text inside
``mrk mtype="protected"`` / ``translate="no"`` is ``no_translate``.

Writing: only changed content is re-rendered; unchanged text at the start and
end of an edited text keeps its raw form (character references, CDATA). New
text escapes ``& < >``, writes newlines in the file's style, ``\\r`` as
``&#13;``; characters XML cannot hold are refused. A new code is synthesised
for bold/italic/underline (``<g ctype>`` / ``<pc subType>``) and line breaks,
anything else is refused (``synthesize:<type>``). A missing target is inserted
after ``</source>`` (or ``</seg-source>``) with the whitespace the unit uses
between its children, with ``xml:lang`` when other targets carry it and
``state`` when the file uses it. A changed status rewrites ``state`` (1.2: on
``<target>``; 2.x: on each ``<segment>``) where the file uses ``state``.
A removed edition cuts each ``<target>`` of the unit out with the whitespace
before it (the reverse of adding one); 1.2 drops the unit's ``approved="yes"``
with it, 2.x sets a segment's ``state`` to ``initial`` and drops ``subState``.

Limits (besides those of :mod:`kapi.formats.xmlspans`): at most
``Limits.max_entries`` units (``budget_exceeded``).
"""

from __future__ import annotations

from kapi.core.edition import EditionKeyError, canonical_locale
from kapi.core.format import DEFAULT_LIMITS, Limits, WriteRefused
from kapi.core.model import Document
from kapi.formats.skeleton import TextSkeleton
from kapi.formats.xliff_read import Reader, XliffSkeleton
from kapi.formats.xliff_write import unit_edits
from kapi.formats.xmlspans import Edit, decode_xml, newline_of, parse_xml

__all__ = ["Xliff1Format", "Xliff2Format"]


def _read(data: bytes, path: str, locale: str, version: int, limits: Limits) -> Document:
    text, encoding, bom = decode_xml(data, path=path, limits=limits)
    root = parse_xml(text, path=path, limits=limits)
    own = "en"
    if locale:
        try:
            own = canonical_locale(locale)
        except EditionKeyError:
            own = locale
    reader = Reader(text, path, own, version, limits)
    reader.read_root(root)
    blocks = reader.finish_names()
    skeleton = XliffSkeleton(
        text=TextSkeleton(text=text, encoding=encoding, bom=bom),
        version=version,
        units=tuple(reader.units),
        target_key=reader.target_lang,
        target_lang=reader.target_lang_raw,
        newline=newline_of(text),
        lang_on_targets=reader.lang_on_targets,
        state_used=reader.state_used,
    )
    return Document(
        format="xliff" if version == 1 else "xliff2",
        blocks=tuple(blocks),
        locale=reader.source_lang or own,
        target_locale=reader.target_lang,
        skeleton=skeleton,
    )


def _write(document: Document, version: int) -> bytes:
    skeleton = document.skeleton
    if not isinstance(skeleton, XliffSkeleton) or skeleton.version != version:
        raise WriteRefused(
            "this document was not read from an XLIFF file of this version; "
            "kapi writes XLIFF only back over the file it read",
            capability="generative",
        )
    units = {unit.block_id: unit for unit in skeleton.units}
    edits: list[Edit] = []
    for block in document.blocks:
        unit = units.get(block.id)
        if unit is None:
            raise WriteRefused(
                f"block {block.id} is not in the XLIFF file; new units cannot be added",
                capability="structure",
                block=block.id,
            )
        edits.extend(unit_edits(skeleton, unit, block))
    return skeleton.text.splice(edits)


class _XliffFormat:
    """What the two XLIFF codecs share: all but the version they read and write."""

    name = ""
    version = 0

    def __init__(self, limits: Limits = DEFAULT_LIMITS) -> None:
        self.limits = limits

    def read(self, data: bytes, *, path: str = "", locale: str = "") -> Document:
        return _read(data, path, locale, self.version, self.limits)

    def write(self, document: Document) -> bytes:
        return _write(document, self.version)

    def block_lines(self, document: Document) -> dict[str, tuple[int, int]] | None:
        skeleton = document.skeleton
        if not isinstance(skeleton, XliffSkeleton):
            return None
        return skeleton.located().block_lines(document)


class Xliff1Format(_XliffFormat):
    """XLIFF 1.2 (1.0 and 1.1 too): ``<trans-unit>`` blocks, spliced back into the file."""

    name = "xliff"
    version = 1


class Xliff2Format(_XliffFormat):
    """XLIFF 2.0/2.1/2.2: one block per ``<unit>``, segments kept, spliced back into the file."""

    name = "xliff2"
    version = 2
