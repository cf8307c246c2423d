"""Hypothesis strategies for the kapi.change/v1 values: valid change sets of every op kind,
results and read pages. Shared by the core's wire tests and the root conformance suite, which
load it by path (pytest's importlib mode keeps test folders off sys.path)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from kapi.core.change.errors import (
    Candidate,
    ErrorCode,
    ErrorInfo,
    GuardSubcode,
    Searched,
    SpanPos,
    TextSpan,
)
from kapi.core.change.ops import (
    OP_KINDS,
    SCHEMA,
    Anchor,
    Annotate,
    BlockRef,
    Branch,
    ChangeSet,
    Decide,
    DeleteBlock,
    Edit,
    EditionContent,
    Evidence,
    InsertBlock,
    Mark,
    Memory,
    MemorySide,
    Native,
    Origin,
    Position,
    Range,
    Recipe,
    Ref,
    RemoveEdition,
    ReplaceText,
    Selection,
    SetAttribute,
    SetContent,
    Term,
    Unannotate,
)
from kapi.core.change.read import BlockRead, CodeInfo, EditionRead, ReadPage, Structure
from kapi.core.change.result import (
    Current,
    DocResult,
    Finding,
    Invalidation,
    OpResult,
    OpStatus,
    Result,
    ResultRef,
    SetStatus,
)
from kapi.core.model import Constraints, PcClose, PcOpen, Ph, Plural, Select, Sub, Text


def optional(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.none() | strategy


# --- scalars -----------------------------------------------------------------

texts = st.text(max_size=16)
names = st.text(min_size=1, max_size=10)
# A document path holds no NUL byte and no lone surrogate (the decoder refuses both).
doc_names = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    min_size=1,
    max_size=10,
)
ids = st.sampled_from(["1", "2", "3", "10", "a"])
revisions = st.from_regex(r"r:[0-9a-f]{16}", fullmatch=True)
digests = st.from_regex(r"sha256:[0-9a-f]{64}", fullmatch=True)
languages = st.sampled_from(["en", "fr", "de", "pt-BR", "zh-Hant-TW", "nb-NO", "sr-Latn", "es-419"])
edition_keys = st.builds(
    lambda language, tone, channel: (
        language + (f";tone={tone}" if tone else "") + (f";channel={channel}" if channel else "")
    ),
    languages,
    st.sampled_from(["", "formal", "casual"]),
    st.sampled_from(["", "short", "web"]),
)
plural_forms = st.sampled_from(["zero", "one", "two", "few", "many", "other", "=0", "=1", "=2.5"])
code_types = st.sampled_from(
    ["", "fmt:bold", "fmt:linebreak", "code:placeholder", "link:hyperlink"]
)
sub_types = st.sampled_from(["", "html:b", "icu:argument", "xlf:g"])

json_values = st.recursive(
    st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)

# --- runs and paths ------------------------------------------------------------

constraints = st.builds(Constraints, st.booleans(), st.booleans(), st.booleans())
attributes = st.dictionaries(st.sampled_from(["href", "src", "alt", "title"]), texts, max_size=2)
_code = {
    "id": ids,
    "type": code_types,
    "sub_type": sub_types,
    "equiv": texts,
    "disp": texts,
    "attrs": attributes,
    "constraints": optional(constraints),
}
leaf_runs = st.one_of(
    st.builds(Text, texts, st.booleans()),
    st.builds(Ph, **_code),
    st.builds(PcOpen, **_code),
    st.builds(PcClose, id=ids, type=code_types, sub_type=sub_types, equiv=texts),
    st.builds(Sub, id=ids, ref=texts, equiv=texts),
)
runs = st.recursive(
    st.lists(leaf_runs, max_size=4).map(tuple),
    lambda branch: st.lists(
        st.one_of(
            leaf_runs,
            st.builds(Plural, pivot=names, forms=st.dictionaries(plural_forms, branch, max_size=3)),
            st.builds(Select, pivot=names, cases=st.dictionaries(names, branch, max_size=3)),
        ),
        max_size=4,
    ).map(tuple),
    max_leaves=10,
)
branches = st.builds(Branch, plural=plural_forms) | st.builds(Branch, select=names)
paths = st.lists(st.integers(0, 20) | branches, max_size=4).map(tuple)

# --- references, selections ----------------------------------------------------

refs = st.builds(Ref, doc=doc_names, block=names, edition=st.none() | st.just("") | edition_keys)
block_refs = st.builds(BlockRef, doc=doc_names, block=names)
positions = st.builds(Position, run=st.integers(0, 20), offset=optional(st.integers(0, 50)))


@st.composite
def ranges(draw: st.DrawFn, *, empty: bool = True) -> Range:
    first, second = draw(positions), draw(positions)
    low, high = sorted([first, second], key=lambda p: (p.run, p.offset or 0))
    if not empty and (low.run, low.offset or 0) == (high.run, high.offset or 0):
        high = Position(run=high.run + 1, offset=high.offset)
    return Range(start=low, end=high)


@st.composite
def selectors(draw: st.DrawFn, *, empty: bool = True) -> dict[str, Any]:
    """Exactly one of find (with or without occurrence), start and end, or range."""
    kind = draw(st.sampled_from(["find", "offsets", "range"]))
    if kind == "find":
        return {"find": draw(names), "occurrence": draw(optional(st.integers(1, 9)))}
    if kind == "offsets":
        start = draw(st.integers(0, 100))
        end = draw(st.integers(start if empty else start + 1, 200))
        return {"start": start, "end": end}
    return {"range": draw(ranges(empty=empty))}


@st.composite
def edits(draw: st.DrawFn) -> Edit:
    return Edit(text=draw(texts), path=draw(optional(paths)), **draw(selectors()))


@st.composite
def selections(draw: st.DrawFn) -> Selection:
    return Selection(path=draw(optional(paths)), **draw(selectors(empty=False)))


@st.composite
def contents(draw: st.DrawFn) -> dict[str, Any]:
    if draw(st.booleans()):
        return {"text": draw(texts)}
    return {"runs": draw(runs)}


origins = st.builds(Origin, tool=names, kind=optional(texts), engine=optional(texts))
guards = revisions | st.just("*")

# --- the fourteen operations ---------------------------------------------------


@st.composite
def set_contents(draw: st.DrawFn) -> SetContent:
    return SetContent(
        at=draw(refs),
        if_match=draw(guards | st.just("absent")),
        basis=draw(optional(revisions)),
        path=draw(optional(paths)),
        origin=draw(optional(origins)),
        **draw(contents()),
    )


replace_texts = st.builds(
    ReplaceText,
    at=refs,
    if_match=guards,
    edits=st.lists(edits(), min_size=1, max_size=3).map(tuple),
    path=optional(paths),
    origin=optional(origins),
)
set_attributes = st.builds(
    SetAttribute, at=refs, if_match=guards, code=ids, name=names, value=texts
)
marks = st.builds(
    Mark,
    at=refs,
    if_match=guards,
    range=selections(),
    type=st.sampled_from(["fmt:bold", "link:hyperlink"]),
    attrs=optional(attributes),
)
remove_editions = st.builds(RemoveEdition, at=refs, if_match=guards)
anchors = st.builds(
    Anchor,
    kind=st.sampled_from(["block", "run", "range", "form"]),
    path=optional(paths),
    run_id=optional(ids),
    start=optional(positions),
    end=optional(positions),
    key=optional(texts),
)
annotates = st.builds(
    Annotate,
    at=refs,
    type=names,
    if_match=optional(revisions),
    id=optional(texts),
    anchor=optional(anchors),
    value=optional(json_values),
)
unannotates = st.builds(Unannotate, at=refs, type=names, id=names)


@st.composite
def insert_blocks(draw: st.DrawFn) -> InsertBlock:
    editions = draw(
        st.dictionaries(
            edition_keys, contents().map(lambda c: EditionContent(**c)), min_size=1, max_size=3
        )
    )
    place = draw(st.sampled_from(["after", "before", None]))
    key = draw(names)
    return InsertBlock(
        doc=draw(doc_names),
        editions=editions,
        name=draw(optional(names)),
        after=key if place == "after" else None,
        before=key if place == "before" else None,
    )


delete_blocks = st.builds(
    DeleteBlock,
    at=block_refs,
    if_match=st.dictionaries(edition_keys, revisions, min_size=1, max_size=3),
)
natives = st.builds(Native, doc=doc_names, if_match=digests, name=names, args=json_values)
decides = st.builds(
    Decide,
    at=refs,
    if_match=guards,
    outcome=st.sampled_from(["establish", "reject", "withdraw", "advise"]),
    score=optional(st.integers(0, 100)),
    reasons=optional(st.lists(texts, max_size=3).map(tuple)),
)
terms = st.builds(
    Term,
    action=st.sampled_from(["upsert", "delete"]),
    term=names,
    locale=optional(languages),
    status=optional(st.sampled_from(["preferred", "admitted", "deprecated", "forbidden"])),
    replacement=optional(texts),
    replaces=optional(texts),
    do_not_translate=optional(st.booleans()),
    advisory=optional(st.booleans()),
    competitor=optional(st.booleans()),
)
memory_sides = st.builds(MemorySide, edition=edition_keys, text=texts)
memories = st.builds(
    Memory, action=st.sampled_from(["add", "delete"]), from_=memory_sides, to=memory_sides
)
recipes = st.builds(Recipe, path=names, value=json_values)

OPS_BY_KIND: dict[str, st.SearchStrategy[Any]] = {
    "set_content": set_contents(),
    "replace_text": replace_texts,
    "set_attribute": set_attributes,
    "mark": marks,
    "remove_edition": remove_editions,
    "annotate": annotates,
    "unannotate": unannotates,
    "insert_block": insert_blocks(),
    "delete_block": delete_blocks,
    "native": natives,
    "decide": decides,
    "term": terms,
    "memory": memories,
    "recipe": recipes,
}
assert set(OPS_BY_KIND) == set(OP_KINDS)

ops = st.one_of(*OPS_BY_KIND.values())
evidence = st.builds(
    Evidence,
    path=optional(texts),
    block=optional(texts),
    quote=optional(texts),
    url=optional(texts),
)
change_sets = st.builds(
    ChangeSet,
    ops=st.lists(ops, max_size=5).map(tuple),
    schema=optional(st.just(SCHEMA)),
    mode=optional(st.sampled_from(["apply", "preview"])),
    gate=optional(st.sampled_from(["enforce", "report"])),
    require_basis=optional(st.booleans()),
    note=optional(texts),
    evidence=optional(st.lists(evidence, max_size=2).map(tuple)),
)

# --- results -------------------------------------------------------------------

result_refs = st.builds(ResultRef, doc=names, block=optional(names), edition=optional(edition_keys))
span_positions = st.builds(SpanPos, run=st.integers(0, 20), offset=st.integers(0, 50))
spans = st.builds(TextSpan, start=span_positions, end=span_positions, path=optional(paths))
findings = st.builds(
    Finding,
    rule=st.sampled_from(["terms.vocabulary", "guard.codes_changed", "hygiene.spaces"]),
    message=texts,
    fails=st.booleans(),
    suggested=optional(st.booleans()),
    at=optional(result_refs),
    range=optional(spans),
    replacement=optional(texts),
)
candidates = st.builds(
    Candidate,
    key=optional(names),
    rev=optional(revisions),
    text=optional(texts),
    occurrence=optional(st.integers(1, 9)),
    at=optional(spans),
)
error_infos = st.builds(
    ErrorInfo,
    code=st.sampled_from(list(ErrorCode)),
    message=names,
    subcode=optional(st.sampled_from(list(GuardSubcode))),
    field=optional(st.sampled_from(["if_match", "basis", "at/block", "edits/1/find", "cursor"])),
    pointer=optional(st.sampled_from(["", "/ops/0", "/ops/2/edits/0/find"])),
    candidates=optional(st.lists(candidates, max_size=3).map(tuple)),
    searched=optional(st.builds(Searched, text=texts, path=optional(paths))),
    expected=optional(texts),
    found=optional(texts),
    capability=optional(
        st.sampled_from(["edition", "editable", "set_attribute", "synthesize:fmt:bold"])
    ),
)
op_statuses = st.sampled_from(
    [
        OpStatus.APPLIED,
        OpStatus.UNCHANGED,
        OpStatus.REFUSED,
        OpStatus.NOT_APPLIED,
        OpStatus.PREVIEWED,
    ]
)


@st.composite
def op_results(draw: st.DrawFn) -> OpResult:
    status = draw(op_statuses)
    blocked = draw(optional(st.integers(0, 20))) if status == OpStatus.NOT_APPLIED else None
    return OpResult(
        i=draw(st.integers(0, 20)),
        op=draw(st.sampled_from([*OP_KINDS, "provenance"])),
        status=status,
        at=draw(optional(result_refs)),
        before=draw(optional(revisions)),
        after=draw(optional(revisions)),
        basis=draw(optional(revisions)),
        id=draw(optional(texts)),
        resolved=draw(optional(st.lists(spans, max_size=2).map(tuple))),
        invalidates=draw(
            optional(st.lists(st.builds(Invalidation, edition=edition_keys), max_size=2).map(tuple))
        ),
        findings=draw(optional(st.lists(findings, max_size=2).map(tuple))),
        error=draw(optional(error_infos)),
        current=draw(
            optional(st.builds(Current, rev=revisions | st.just("absent"), text=optional(texts)))
        ),
        blocked_by=blocked,
    )


doc_results = st.builds(
    DocResult,
    doc=names,
    written=st.booleans(),
    after=optional(digests),
    home=optional(st.sampled_from(["file", "workspace", "stream:1"])),
    file=optional(names),
    edition=optional(edition_keys),
    before=optional(digests),
    findings=optional(st.lists(findings, max_size=2).map(tuple)),
    diff=optional(texts),
)
results = st.builds(
    Result,
    status=st.sampled_from(
        [SetStatus.APPLIED, SetStatus.REFUSED, SetStatus.PREVIEWED, SetStatus.PARTIAL]
    ),
    record=optional(names),
    docs=st.lists(doc_results, max_size=2).map(tuple),
    ops=st.lists(op_results(), max_size=3).map(tuple),
    error=optional(error_infos),
)

# --- read pages ------------------------------------------------------------------

code_infos = st.builds(
    CodeInfo,
    kind=st.sampled_from(["paired", "placeholder", "subblock"]),
    type=optional(code_types),
    attrs=optional(attributes),
    equiv=optional(texts),
    disp=optional(texts),
    writable=optional(st.lists(st.sampled_from(["href", "title"]), max_size=2).map(tuple)),
)
code_maps = st.dictionaries(st.sampled_from(["1", "1/", "2", "sub:1"]), code_infos, max_size=3)
structures = st.builds(
    Structure,
    path=paths,
    kind=st.sampled_from(["plural", "select"]),
    branches=st.dictionaries(names, texts, max_size=3),
    pivot=optional(names),
)
edition_reads = st.builds(
    EditionRead,
    rev=revisions | st.just("absent"),
    text=texts,
    status=st.sampled_from(
        ["draft", "translated", "established", "written", "new", "untranslated"]
    ),
    stale=st.booleans(),
    codes=optional(code_maps),
    structures=optional(st.lists(structures, max_size=2).map(tuple)),
    basis=optional(revisions),
)
block_reads = st.builds(
    BlockRead,
    ref=result_refs,
    rev=revisions,
    text=texts,
    ops=st.lists(st.sampled_from(list(OP_KINDS)), max_size=4, unique=True).map(tuple),
    codes=optional(code_maps),
    structures=optional(st.lists(structures, max_size=2).map(tuple)),
    editions=optional(st.dictionaries(edition_keys, edition_reads, max_size=2)),
    role=optional(st.sampled_from(["heading", "list-item", "table-cell", "code"])),
    level=optional(st.integers(1, 6)),
    projected=optional(st.dictionaries(st.sampled_from(["md", "html"]), texts, max_size=2)),
)
read_pages = st.builds(
    ReadPage,
    doc=names,
    home=st.sampled_from(["file", "workspace"]),
    format=st.sampled_from(["json", "po", "md"]),
    head=digests,
    blocks=st.lists(block_reads, max_size=3).map(tuple),
    next=optional(names),
)
