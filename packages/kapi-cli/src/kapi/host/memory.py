"""The project's content memory: search it, import and export it, list it, rebuild it.

Entries are peer variants (locale -> edit text, codes as ``<x id="…"/>``
tokens) in the project store. A search tries the tiers in the
spec's priority order: ``generalized-exact`` (the same sentence with other
numbers, e-mail addresses or URLs, adapted), ``structural-exact`` (the same
text with the same codes), ``exact`` (the same words; 0.99 when the codes
differ), then ``generalized-fuzzy``, ``structural-fuzzy`` and ``fuzzy`` (one
minus the edit distance over the longer length, +0.03 for an entry this
project made, never 1.0). Imports are all or nothing.
"""

from __future__ import annotations

import re
from collections import Counter
from itertools import repeat
from pathlib import Path
from typing import TYPE_CHECKING
from xml.sax.saxutils import escape, quoteattr

from attrs import evolve, frozen

from kapi.core.edittext import TOKEN
from kapi.host.errors import EXIT_ERROR, EXIT_USAGE, HostError

if TYPE_CHECKING:
    from kapi.host.memory_store import MemoryIndex, StoredVariant
    from kapi.host.store_port import StorePort
    from kapi.host.workspace import Workspace

__all__ = [
    "MATCH_TYPES",
    "MAX_RESULTS",
    "MIN_SCORE",
    "MemoryEntryRow",
    "MemoryExport",
    "MemoryImportRequest",
    "MemoryImported",
    "MemoryMatch",
    "MemoryRebuilt",
    "MemorySearch",
    "MemorySearchRequest",
    "export_memory",
    "import_memory",
    "levenshtein",
    "list_memory",
    "memory_index",
    "read_memory_file",
    "rebuild_memory",
    "search_memory",
    "search_memory_file",
]

# The match types in the spec's priority order (a tie in score goes to the earlier).
MATCH_TYPES = (
    "generalized-exact",
    "structural-exact",
    "exact",
    "generalized-fuzzy",
    "structural-fuzzy",
    "fuzzy",
)
MIN_SCORE = 0.7
MAX_RESULTS = 10
NEAR_EXACT = 0.99
SAME_PROJECT_BONUS = 0.03
PROJECT_ORIGIN = "project"


@frozen
class MemorySearchRequest:
    """Text to look up, from one language (the workspace's source language when empty) to
    another; ``min_score`` and ``limit`` as the tiers use."""

    text: str
    source: str
    target: str
    min_score: float = MIN_SCORE
    limit: int = MAX_RESULTS


@frozen
class MemoryMatch:
    """One match: the entry's source and target text, its score and its tier."""

    source: str
    target: str
    score: float
    match_type: str
    entry: str = ""
    ambiguous: bool = False


@frozen
class MemorySearch:
    """What ``kapi memory search --json`` prints."""

    matches: tuple[MemoryMatch, ...]
    total: int


@frozen
class MemoryImportRequest:
    """A memory file (TMX 1.4, PO or XLIFF) to import; its format from ``format`` or its name."""

    path: str
    format: str | None = None


@frozen
class MemoryImported:
    path: str
    format: str
    units: int
    added: int
    skipped: int


@frozen
class MemoryExport:
    text: str
    entries: int


@frozen
class MemoryEntryRow:
    entry: str
    created_at: str
    actor: str
    variants: dict[str, str]


@frozen
class MemoryRebuilt:
    entries: int
    added: int


# On the wire a match is the four fields the reference prints, plus ``ambiguous`` when it is.
def _match_wire(match: MemoryMatch) -> dict[str, object]:
    out: dict[str, object] = {
        "source": match.source,
        "target": match.target,
        "score": round(match.score, 4),
        "match_type": match.match_type,
    }
    if match.ambiguous:
        out["ambiguous"] = True
    return out


def _register_wire() -> None:
    from kapi.host.wire import converter

    converter.register_unstructure_hook(MemoryMatch, _match_wire)


_register_wire()


def memory_index(workspace: Workspace) -> MemoryIndex:
    """The memory index of the workspace's project (the store opened first); HostError outside one."""
    from kapi.host.memory_store import MemoryIndex

    project = workspace.project
    if project is None or workspace.store is None:
        raise HostError(
            "no project here: the content memory lives in a project's store; run `kapi init` "
            "first (or point at a project with -p)",
            exit_code=EXIT_ERROR,
        )
    path = project.state_dir / "project.db"
    index = MemoryIndex(
        path,
        display=path.relative_to(project.root).as_posix(),
        project=project.id or project.name,
    )
    index.catch_up()
    return index


# --- search ---------------------------------------------------------------------------


class Similar:
    """How similar texts are to one text: one minus the edit distance over the longer length.

    The edit distance is bit-parallel (Myers/Hyyrö) over code points, the text's
    bit masks made once for every text it is compared with, and read from the
    last column's vertical deltas (the top row counts up from zero), so the loop
    keeps no running score. Asked only whether a text reaches a floor, it first
    compares character counts (the bag distance, never more than the edit
    distance), then stops the edit distance once it is sure to be too far.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.masks: dict[str, int] = {}
        for position, char in enumerate(text):
            self.masks[char] = self.masks.get(char, 0) | (1 << position)
        counts = Counter(text)
        self.chars, self.char_counts = tuple(counts), tuple(counts.values())

    def distance(self, other: str, cutoff: int | None = None) -> int:
        """The edit distance to ``other``; with ``cutoff``, any number above it once the
        distance is sure to be above it."""
        length = len(self.text)
        if not length:
            return len(other)
        mask = self.masks.get
        full = (1 << length) - 1
        positive, negative = full, 0  # the current column's vertical deltas, +1 and -1
        size = len(other)
        step = max(size, 1) if cutoff is None else _CUTOFF_STEP
        for start in range(0, size, step):
            # No negative numbers: ~x would be x ^ full, bits above the text's masked off.
            for equal in map(mask, other[start : start + step], _ZEROS):
                vertical = equal | negative
                horizontal = (((equal & positive) + positive) ^ positive) | equal
                plus = ((negative | ((horizontal | positive) ^ full)) << 1) | 1
                positive = (((positive & horizontal) << 1) | ((vertical | plus) ^ full)) & full
                negative = plus & vertical
            if cutoff is not None:
                done = min(start + step, size)
                # The last row's value here, less what the characters left could take off.
                if 2 * done - size + positive.bit_count() - negative.bit_count() > cutoff:
                    return cutoff + 1
        return size + positive.bit_count() - negative.bit_count()

    def __call__(self, other: str) -> float:
        longest = max(len(self.text), len(other))
        return 1.0 if longest == 0 else 1.0 - self.distance(other) / longest

    def at_least(self, other: str, floor: float) -> float:
        """The similarity to ``other`` when it is ``floor`` or more; else some number below."""
        longest = max(len(self.text), len(other))
        if longest == 0:
            return 1.0
        # A distance above this gives a similarity below floor (by far more than rounding).
        cutoff = int((1.0 - floor) * longest) + 1
        below = 1.0 - (cutoff + 1) / longest
        # Each edit changes at most one character's count each way, so the distance is at
        # least the longer length less the characters both texts have.
        common = sum(map(min, map(other.count, self.chars), self.char_counts))
        if longest - common > cutoff:
            return below
        return 1.0 - self.distance(other, cutoff) / longest


_CUTOFF_STEP = 8  # characters compared between two looks at the cutoff
_ZEROS = repeat(0)


def levenshtein(a: str, b: str) -> int:
    """Edit distance between two strings of code points."""
    return Similar(a).distance(b)


def similarity(a: str, b: str) -> float:
    return Similar(a)(b)


def adapt_entities(memory_source: str, memory_target: str, text: str) -> str | None:
    """The memory target with the memory source's entities replaced by ``text``'s, in order.

    None when an entity of the memory source is not found in its target, or one
    value would become two different ones: the match cannot be adapted.
    """
    from kapi.host.memory_store import ENTITY, entities

    theirs, ours = entities(memory_source), entities(text)
    if [kind for kind, _ in theirs] != [kind for kind, _ in ours]:
        return None
    mapping: dict[str, str] = {}
    for (_, old), (_, new) in zip(theirs, ours):
        if mapping.setdefault(old, new) != new:
            return None
    pieces = TOKEN.split(memory_target)
    seen: set[str] = set()

    def swap(match: re.Match[str]) -> str:
        value = match.group(0)
        if value in mapping:
            seen.add(value)
            return mapping[value]
        return value

    out = [
        f'<x id="{piece}"/>' if index % 2 else ENTITY.sub(swap, piece)
        for index, piece in enumerate(pieces)
    ]
    return "".join(out) if seen == set(mapping) else None


def search_memory(request: MemorySearchRequest, workspace: Workspace) -> MemorySearch:
    """Matches for ``request.text`` in the project's memory, best first."""
    from kapi.core.edition import EditionKeyError, canonical_locale

    try:
        source = canonical_locale(request.source or workspace.source_language)
        target = canonical_locale(request.target)
    except EditionKeyError as err:
        raise HostError(str(err), exit_code=EXIT_USAGE) from None
    index = memory_index(workspace)
    try:
        matches = find_matches(
            index, _as_edit_text(request.text), source, target, request.min_score,
            wanted=request.limit,
        )  # fmt: skip
    finally:
        index.close()
    return MemorySearch(matches=tuple(matches[: request.limit]), total=len(matches))


def _as_edit_text(text: str) -> str:
    """A query as edit text: placeholders written as a catalogue writes them (``{{amount}}``,
    ``{name}``) become codes, as memory holds them; edit text with codes is taken as it is."""
    if "<x" in text or "<g" in text or "{" not in text:
        return text
    from kapi.core.edittext import render_edit_text
    from kapi.formats.icu import parse_placeholders

    return render_edit_text(parse_placeholders(text))


def find_matches(
    index: MemoryIndex,
    text: str,
    source: str,
    target: str,
    min_score: float = MIN_SCORE,
    *,
    wanted: int = MAX_RESULTS,
) -> list[MemoryMatch]:
    """Every match at or above ``min_score``, sorted by score, tier and entry.

    The exact tiers are tried in the spec's priority order, each entry taking
    the first tier it matches: ``generalized-exact`` (only for a text holding
    entities: numbers, e-mail addresses, URLs; the target comes back with the
    text's own), ``structural-exact``, ``exact``. A fuzzy candidate is scored
    on the generalized key (a text with entities), the structural key (a text
    with codes) and the plain key; its best score names its tier, a tie going
    to the earlier one.
    """
    from kapi.host.memory_store import all_keys

    plain, structural, general = all_keys(text)
    has_codes = structural != plain
    has_entities = general != structural
    found: dict[str, MemoryMatch] = {}

    def add(variant: StoredVariant, score: float, tier: str, translated: str | None) -> None:
        if translated is None or variant.entry in found:
            return
        found[variant.entry] = MemoryMatch(
            source=variant.text,
            target=translated,
            score=score,
            match_type=tier,
            entry=variant.entry,
        )

    def adapted(variant: StoredVariant, translated: str | None) -> str | None:
        return adapt_entities(variant.text, translated, text) if translated is not None else None

    if has_entities:  # the same sentence, whatever its numbers, addresses and URLs
        for variant in index.exact(source, "generalized", general):
            translated = index.variants(variant.entry).get(target)
            add(variant, 1.0, "generalized-exact", adapted(variant, translated))
    for variant in index.exact(source, "structural", structural):
        add(variant, 1.0, "structural-exact", index.variants(variant.entry).get(target))
    for variant in index.exact(source, "plain", plain):
        score = 1.0 if variant.structural == structural else NEAR_EXACT
        add(variant, score, "exact", index.variants(variant.entry).get(target))
    perfect = [m for m in found.values() if m.score >= 1.0]
    if len({m.target for m in perfect}) > 1:  # no point to prefer one approval: all are doubtful
        for match in perfect:
            found[match.entry] = evolve(match, score=NEAR_EXACT, ambiguous=True)
    if min_score < 1.0:
        to_plain, to_structural, to_general = Similar(plain), Similar(structural), Similar(general)
        for variant in index.fuzzy_candidates(source, target, plain, min_score, wanted):
            if variant.entry in found:
                continue
            # Each score exact where it reaches min_score (below it, only known to be below).
            scored = [(to_plain.at_least(variant.plain, min_score), 2, "fuzzy")]
            if has_codes:
                scored.append(
                    (to_structural.at_least(variant.structural, min_score), 1, "structural-fuzzy")
                )
            if has_entities:
                scored.append(
                    (to_general.at_least(variant.generalized, min_score), 0, "generalized-fuzzy")
                )
            score, _, tier = max(scored, key=lambda item: (item[0], -item[1]))
            if score < min_score:
                continue
            score = min(score, NEAR_EXACT)  # a fuzzy tier never gives 1.0
            if variant.project == index.project:
                score = min(score + SAME_PROJECT_BONUS, NEAR_EXACT)
            answer = variant.target
            if tier == "generalized-fuzzy":  # the text's own entities where they map
                answer = adapted(variant, variant.target) or variant.target
            add(variant, score, tier, answer)
    return sorted(
        (m for m in found.values() if m.score >= min_score),
        key=lambda m: (-m.score, MATCH_TYPES.index(m.match_type), m.entry),
    )


# --- import ---------------------------------------------------------------------------

_MEMORY_FORMATS = {".tmx": "tmx", ".po": "po", ".pot": "po", ".xlf": "xliff", ".xliff": "xliff"}
_DOCTYPE_ENTITY = re.compile(r"<!ENTITY", re.IGNORECASE)


def xml_text(data: bytes, display: str) -> str:
    """An XML file's text, decoded as XML says (BOM, UTF-16 by its NULs, the declaration).

    Checks for declarations run on this text, never on the bytes (where UTF-16
    hides them), and the parser is handed the text, so the declared encoding
    cannot make it fail. Undecodable bytes are a usage error (exit 2).
    """
    from kapi.core.format import FormatError
    from kapi.formats.xmlspans import decode_xml

    try:
        return decode_xml(data, path=display)[0]
    except FormatError as err:
        raise HostError(err.located(), exit_code=EXIT_USAGE) from None


def import_memory(request: MemoryImportRequest, workspace: Workspace) -> MemoryImported:
    """Read a memory file whole, check it, then add its units (nothing when any unit is refused)."""
    from kapi.core.change.ports import ActorKind
    from kapi.host.actor import actor_from_env
    from kapi.host.store import now

    actor = actor_from_env().actor
    if actor.kind == ActorKind.AGENT:
        raise HostError(
            "memory is a person's decision: a person imports it with `kapi memory import`; "
            "an agent records what it noticed for a person to review (`kapi context note`)",
            exit_code=3,
            code="not_permitted",
        )
    kind, units = read_memory_file(workspace, request.path, request.format or "")
    index = memory_index(workspace)
    try:
        added = index.add_entries(
            units,
            actor=f"{actor.kind}/{actor.name}",
            origin=f"import:{Path(request.path).name}",
            at=now(),
            made_here=False,
        )
    finally:
        index.close()
    return MemoryImported(
        path=request.path, format=kind, units=len(units), added=added, skipped=len(units) - added
    )


def read_memory_file(
    workspace: Workspace, path: str, format: str = "", *, doing: str = "nothing was imported"
) -> tuple[str, list[list[tuple[str, str]]]]:
    """The format and units (variant lists) of a memory file (TMX, PO or XLIFF) inside the
    workspace, read whole without touching the project's store; a usage error when the
    format cannot be told, the file does not load or lies outside the project."""
    kind = format or _MEMORY_FORMATS.get(Path(path).suffix.lower())
    if kind not in ("tmx", "po", "xliff"):
        raise HostError(
            f"{path}: cannot tell the memory format from the name; pass --format tmx|po|xliff",
            exit_code=EXIT_USAGE,
        )
    from kapi.host.inputs import read_in

    data = read_in(workspace, path)
    if kind == "tmx":
        return kind, read_tmx(data, path)
    return kind, _read_bilingual(data, path, kind, workspace, doing=doing)


def search_memory_file(
    workspace: Workspace, path: str, text: str, limit: int = 10
) -> list[tuple[str, str, str]]:
    """The variants of a memory file holding ``text`` (case ignored), as the project's store
    answers: ``(entry, locale, text)``, shortest first, the entry ``<path>#<unit number>``."""
    _, units = read_memory_file(workspace, path, doing="nothing was searched")
    needle = text.casefold()
    found = [
        (f"{path}#{number}", locale, variant)
        for number, unit in enumerate(units, 1)
        for locale, variant in unit
        if needle in variant.casefold()
    ]
    found.sort(key=lambda row: (len(row[2]), row[2]))
    return found[:limit]


def read_tmx(data: bytes, display: str) -> list[list[tuple[str, str]]]:
    """A TMX 1.4 file's units as variant lists; inline ``ph``/``bpt``/``ept``/``it`` as code tokens.

    Refused whole (HostError, exit 2) when the XML is malformed, declares
    entities, names a language that is not BCP-47, or holds an unbalanced or
    unknown inline code; the message names the unit.
    """
    import xml.etree.ElementTree as ElementTree

    from kapi.core.edition import EditionKeyError, canonical_locale

    text = xml_text(data, display)
    if _DOCTYPE_ENTITY.search(text):
        raise HostError(f"{display}: a TMX file may not declare entities", exit_code=EXIT_USAGE)
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError as err:
        raise HostError(f"{display}: not well-formed XML: {err}", exit_code=EXIT_USAGE) from None
    if root.tag != "tmx":
        raise HostError(
            f"{display}: not a TMX file (the root is <{root.tag}>)", exit_code=EXIT_USAGE
        )
    lang_attr = "{http://www.w3.org/XML/1998/namespace}lang"
    units: list[list[tuple[str, str]]] = []
    for number, unit in enumerate(root.iter("tu"), start=1):
        variants: list[tuple[str, str]] = []
        for tuv in unit.findall("tuv"):
            raw = tuv.get(lang_attr) or tuv.get("lang") or ""
            try:
                locale = canonical_locale(raw)
            except EditionKeyError:
                raise HostError(
                    f"{display}: unit {number}: {raw!r} is not a BCP-47 language tag; "
                    "nothing was imported",
                    exit_code=EXIT_USAGE,
                ) from None
            seg = tuv.find("seg")
            if seg is None:
                continue
            try:
                variants.append((locale, _segment_text(seg)))
            except ValueError as err:
                raise HostError(
                    f"{display}: unit {number} ({locale}): {err}; nothing was imported",
                    exit_code=EXIT_USAGE,
                ) from None
        if len({locale for locale, _ in variants}) >= 2:
            units.append(variants)
    return units


def _segment_text(seg: object) -> str:
    """A TMX ``<seg>`` as edit text; raises ValueError for a broken or unknown inline code."""
    from xml.etree.ElementTree import Element

    assert isinstance(seg, Element)
    out: list[str] = [seg.text or ""]
    open_pairs: list[str] = []
    seen: set[str] = set()
    for count, child in enumerate(seg, start=1):
        if child.tag in ("ph", "it"):
            out.append(f'<x id="{child.get("x") or count}/"/>')
        elif child.tag == "bpt":
            pair = child.get("i")
            if not pair or pair in seen:
                raise ValueError(f'<bpt> needs a unique i attribute (i="{pair or ""}")')
            seen.add(pair)
            open_pairs.append(pair)
            out.append(f'<x id="{pair}"/>')
        elif child.tag == "ept":
            pair = child.get("i")
            if pair not in open_pairs:
                raise ValueError(f'<ept i="{pair or ""}"> closes no open <bpt>')
            open_pairs.remove(pair)
            out.append(f'<x id="/{pair}"/>')
        elif child.tag == "hi":
            out.append("".join(child.itertext()))
        else:
            raise ValueError(f"<{child.tag}> is not a TMX inline element")
        out.append(child.tail or "")
    if open_pairs:
        raise ValueError(f'<bpt i="{open_pairs[0]}"> is never closed by an <ept>')
    return "".join(out)


def _read_bilingual(
    data: bytes,
    display: str,
    kind: str,
    workspace: Workspace,
    *,
    doing: str = "nothing was imported",
) -> list[list[tuple[str, str]]]:
    from kapi.core.edittext import render_edit_text
    from kapi.core.format import FormatError
    from kapi.formats.reading import read_document

    try:
        _, document, _ = read_document(
            data, display=display, locale=workspace.source_language, format_name=kind
        )
    except FormatError as err:
        raise HostError(f"{err.located()}; {doing}", exit_code=EXIT_USAGE) from None
    source = document.locale or workspace.source_language
    units: list[list[tuple[str, str]]] = []
    for block in document.blocks:
        for edition_key, edition in block.targets.items():
            text = render_edit_text(edition.runs)
            if text.strip() and edition.runs:
                units.append(
                    [(block.locale or source, render_edit_text(block.source)), (edition_key, text)]
                )
    return units


# --- export, list ---------------------------------------------------------------------


def export_memory(workspace: Workspace, *, format: str = "tmx") -> MemoryExport:
    """The whole memory as TMX 1.4 (codes as ``ph``/``bpt``/``ept``)."""
    if format != "tmx":
        raise HostError(f"unknown memory export format {format!r}; use tmx", exit_code=EXIT_USAGE)
    index = memory_index(workspace)
    try:
        entries = index.entries()
    finally:
        index.close()
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<tmx version="1.4">',
        f'  <header creationtool="kapi" creationtoolversion="1" segtype="sentence" '
        f'o-tmf="kapi" adminlang="en" srclang={quoteattr(workspace.source_language)} datatype="plaintext"/>',
        "  <body>",
    ]
    for entry, created, _, variants in entries:
        lines.append(
            f"    <tu tuid={quoteattr(entry)} creationdate={quoteattr(_tmx_date(created))}>"
        )
        for locale, text in sorted(variants.items()):
            lines.append(
                f"      <tuv xml:lang={quoteattr(locale)}><seg>{_tmx_seg(text)}</seg></tuv>"
            )
        lines.append("    </tu>")
    lines += ["  </body>", "</tmx>", ""]
    return MemoryExport(text="\n".join(lines), entries=len(entries))


def _tmx_date(stamp: str) -> str:
    digits = re.sub(r"[^0-9T]", "", stamp)[:15]
    return digits + "Z" if len(digits) == 15 else "19700101T000000Z"


def _tmx_seg(text: str) -> str:
    out: list[str] = []
    position = 0
    for match in TOKEN.finditer(text):
        out.append(escape(text[position : match.start()]))
        token = match.group(1)
        if token.endswith("/"):
            out.append(f"<ph x={quoteattr(token[:-1])}/>")
        elif token.startswith("/"):
            out.append(f"<ept i={quoteattr(token[1:])}/>")
        else:
            out.append(f"<bpt i={quoteattr(token)}/>")
        position = match.end()
    out.append(escape(text[position:]))
    return "".join(out)


def list_memory(workspace: Workspace, *, limit: int | None = None) -> list[MemoryEntryRow]:
    index = memory_index(workspace)
    try:
        return [MemoryEntryRow(e, at, who, v) for e, at, who, v in index.entries(limit)]
    finally:
        index.close()


# --- rebuild --------------------------------------------------------------------------


def committed_pairs(workspace: Workspace) -> list[list[tuple[str, str]]]:
    """Source/target pairs of the project's translations a person made or established.

    A target a tool wrote and no person touched since (its stamp still holds)
    is a draft and does not feed memory; a pair whose codes differ is left out.
    """
    from kapi.core.edittext import render_edit_text
    from kapi.core.revision import revision

    index = memory_index(workspace)
    try:
        stamps = index.stamps()
    finally:
        index.close()
    store = workspace.store
    pairs: list[list[tuple[str, str]]] = []
    project = workspace.project
    home = workspace.home()
    for staged in (home.stage(doc) for doc in (project.source_files() if project else ())):
        document = staged.document
        source_locale = document.locale or workspace.source_language
        for block in document.blocks:
            if not block.translatable:
                continue
            source_text = render_edit_text(block.source)
            for key, edition in sorted(block.targets.items()):
                text = render_edit_text(edition.runs)
                if not text.strip():
                    continue
                stamp = stamps.get((staged.doc, block.ref_key, key))
                rev = revision(key, edition.runs)
                drafted = stamp is not None and stamp.kind == "tool" and stamp.rev == rev
                if drafted and not _established(store, staged.doc, block.ref_key, key, rev):
                    continue
                if sorted(TOKEN.findall(source_text)) != sorted(TOKEN.findall(text)):
                    continue
                pairs.append([(source_locale, source_text), (key, text)])
    return pairs


def _established(store: StorePort | None, doc: str, block: str, edition: str, rev: str) -> bool:
    """Whether a person established this target at this revision."""
    if store is None:
        return False
    return any(
        d["outcome"] == "establish" and d["rev"] == rev and d["actor"]["kind"] == "person"
        for d in store.decisions(doc, block, edition)
    )


def rebuild_memory(workspace: Workspace) -> MemoryRebuilt:
    """Make the project-made part of memory again from the committed translations."""
    from kapi.host.store import now

    pairs = committed_pairs(workspace)
    index = memory_index(workspace)
    try:
        added = index.add_entries(
            pairs, actor="tool/kapi", origin=PROJECT_ORIGIN, at=now(), replace_origin=PROJECT_ORIGIN
        )
        total = index.count()
    finally:
        index.close()
    return MemoryRebuilt(entries=total, added=added)
