"""The change service end to end over the in-memory home: every op kind and refusal code."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from service_fakes import BannedWordCheck, MemoryAssets, MemoryRecorder

from kapi.core.change.errors import ErrorCode
from kapi.core.change.memory_home import MemoryHome, serialise
from kapi.core.change.ops import (
    Anchor,
    Annotate,
    BlockRef,
    Branch,
    ChangeSet,
    Decide,
    DeleteBlock,
    Edit,
    EditionContent,
    InsertBlock,
    Mark,
    Memory,
    MemorySide,
    Native,
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
from kapi.core.change.plan import edition_rev
from kapi.core.change.ports import Actor
from kapi.core.change.service import ChangeService
from kapi.core.format import FormatCapabilities
from kapi.core.model import (
    Block,
    Constraints,
    Document,
    Edition,
    PcClose,
    PcOpen,
    Ph,
    Plural,
    Text,
)

PERSON = Actor("person")
AGENT = Actor("agent", name="claude-code", session="s1")
TOOL = Actor("tool", name="pseudo")


def make_doc() -> Document:
    return Document(
        format="memory",
        locale="en",
        blocks=(
            Block(
                id="b1",
                name="greeting",
                locale="en",
                source=(
                    Text("Hello "),
                    PcOpen(id="1", type="fmt:bold", data="<b>"),
                    Text("world"),
                    PcClose(id="1", type="fmt:bold", data="</b>"),
                    Text("!"),
                ),
                targets={
                    "fr": Edition(
                        runs=(
                            Text("Bonjour "),
                            PcOpen(id="1", type="fmt:bold", data="<b>"),
                            Text("monde"),
                            PcClose(id="1", type="fmt:bold", data="</b>"),
                        ),
                        status="translated",
                    )
                },
            ),
            Block(
                id="b2",
                name="files",
                locale="en",
                source=(
                    Text("You have "),
                    Plural(
                        pivot="n",
                        forms={
                            "one": (Text("one file"),),
                            "other": (
                                Ph(id="1", type="code:placeholder", data="{n}", equiv="{n}"),
                                Text(" files"),
                            ),
                        },
                    ),
                ),
            ),
            Block(
                id="b3",
                name="link",
                locale="en",
                source=(
                    Text("Read "),
                    PcOpen(
                        id="1", type="link:hyperlink", data='<a href="/a">', attrs={"href": "/a"}
                    ),
                    Text("the docs"),
                    PcClose(id="1", type="link:hyperlink", data="</a>"),
                    Text(" or ask "),
                    Ph(id="2", type="code:placeholder", data="{name}", equiv="{name}"),
                    Text(" or ask again"),
                ),
            ),
            Block(
                id="b4",
                name="code",
                locale="en",
                source=(Text("print(1)"),),
                translatable=False,
                role="code",
            ),
        ),
    )


@pytest.fixture
def home() -> MemoryHome:
    return MemoryHome({"ui.json": make_doc(), "other.json": make_doc()})


def service(home, **kwargs) -> ChangeService:
    return ChangeService(home, **kwargs)


def rev(home, key, edition="", doc="ui.json"):
    block = next(b for b in home.documents[doc].blocks if b.name == key)
    return edition_rev(block, edition)


def block(home, key, doc="ui.json"):
    return next(b for b in home.documents[doc].blocks if b.name == key)


def apply(home, *ops, actor=PERSON, **kwargs):
    set_kwargs = {k: kwargs.pop(k) for k in ("mode", "gate", "require_basis") if k in kwargs}
    return service(home, **kwargs).apply(ChangeSet(ops=tuple(ops), **set_kwargs), actor)


# --- set_content ---------------------------------------------------------------------------


def test_set_content_with_text_keeps_codes(home):
    result = apply(
        home,
        SetContent(
            at=Ref("ui.json", "greeting"),
            if_match=rev(home, "greeting"),
            text='Hi <x id="1"/>all<x id="/1"/>!',
        ),
    )
    assert result.status == "applied"
    op = result.ops[0]
    assert op.status == "applied" and op.before != op.after
    assert op.after == rev(home, "greeting")
    source = block(home, "greeting").source
    assert source[1].data == "<b>" and source[2] == Text("all")
    # an authoritative edit invalidates derived editions
    assert [i.edition for i in op.invalidates] == ["fr"]
    assert result.docs[0].written and result.docs[0].before != result.docs[0].after


def test_set_content_with_runs_payload_takes_native_data(home):
    runs = (Text("Hey "), PcOpen(id="1"), Text("you"), PcClose(id="1"))
    result = apply(
        home, SetContent(at=Ref("ui.json", "greeting"), if_match=rev(home, "greeting"), runs=runs)
    )
    assert result.status == "applied"
    assert block(home, "greeting").source[1].data == "<b>"


def test_payload_code_may_not_retype_an_existing_code(home):
    runs = (PcOpen(id="1", type="fmt:italic"), Text("x"), PcClose(id="1"))
    result = apply(
        home, SetContent(at=Ref("ui.json", "greeting"), if_match=rev(home, "greeting"), runs=runs)
    )
    assert result.ops[0].error.code == ErrorCode.UNSUPPORTED
    assert result.ops[0].error.capability == "set_attribute"


def test_new_payload_code_needs_a_format_that_can_spell_it(home):
    runs = (Text("a"), Ph(id="9", type="media:image"))
    result = apply(
        home, SetContent(at=Ref("ui.json", "greeting"), if_match=rev(home, "greeting"), runs=runs)
    )
    assert result.ops[0].error.capability == "synthesize:media:image"


def test_unchanged_when_content_is_equal(home):
    text = 'Hello <x id="1"/>world<x id="/1"/>!'
    before = serialise(home.documents["ui.json"])
    result = apply(
        home, SetContent(at=Ref("ui.json", "greeting"), if_match=rev(home, "greeting"), text=text)
    )
    assert result.status == "applied"
    assert result.ops[0].status == "unchanged" and result.ops[0].before == result.ops[0].after
    assert not result.docs[0].written and result.docs[0].after is None
    assert serialise(home.documents["ui.json"]) == before


def test_absent_creates_an_edition_and_refuses_when_it_exists(home):
    result = apply(
        home,
        SetContent(
            at=Ref("ui.json", "greeting", "de"),
            if_match="absent",
            text='Hallo <x id="1"/>Welt<x id="/1"/>!',
        ),
    )
    assert result.status == "applied"
    op = result.ops[0]
    assert op.before == "absent" and op.at.edition == "de" and op.basis == rev(home, "greeting")
    edition = block(home, "greeting").targets["de"]
    assert edition.status == "translated" and edition.origin.kind == "human"
    again = apply(
        home, SetContent(at=Ref("ui.json", "greeting", "de"), if_match="absent", text="x")
    )
    assert again.ops[0].error.code == ErrorCode.STALE
    assert again.ops[0].current.rev == rev(home, "greeting", "de")
    assert again.ops[0].current.text.startswith("Hallo")


def test_stale_rev_refuses_with_current_rev_and_text(home):
    old = rev(home, "greeting")
    apply(
        home,
        SetContent(at=Ref("ui.json", "greeting"), if_match=old, text='Hi <x id="1"/>x<x id="/1"/>'),
    )
    result = apply(home, SetContent(at=Ref("ui.json", "greeting"), if_match=old, text="y"))
    assert result.status == "refused"
    op = result.ops[0]
    assert op.error.code == ErrorCode.STALE and op.error.field == "if_match"
    assert op.current.rev == rev(home, "greeting")
    assert op.current.text == 'Hi <x id="1"/>x<x id="/1"/>'
    assert result.exit_code == 3


def test_real_rev_for_missing_edition_is_stale_with_absent(home):
    result = apply(
        home,
        SetContent(at=Ref("ui.json", "greeting", "it"), if_match="r:0000000000000000", text="x"),
    )
    assert result.ops[0].error.code == ErrorCode.STALE
    assert result.ops[0].current.rev == "absent" and result.ops[0].current.text is None


def test_blind_write_on_missing_edition_is_not_found(home):
    result = apply(home, SetContent(at=Ref("ui.json", "greeting", "it"), if_match="*", text="x"))
    assert result.ops[0].error.code == ErrorCode.NOT_FOUND


def test_flat_text_over_plural_is_structure_lost(home):
    result = apply(
        home,
        SetContent(at=Ref("ui.json", "files"), if_match=rev(home, "files"), text="You have files"),
    )
    assert result.ops[0].error.code == ErrorCode.GUARD
    assert result.ops[0].error.subcode == "structure_lost"


def test_set_content_path_replaces_one_branch_and_creates_missing(home):
    r = rev(home, "files")
    result = apply(
        home,
        SetContent(
            at=Ref("ui.json", "files"),
            if_match=r,
            path=(1, Branch(plural="one")),
            text="a single file",
        ),
        SetContent(
            at=Ref("ui.json", "files"),
            if_match=r,
            path=(1, Branch(plural="few")),
            text='<x id="1/"/> files (few)',
        ),
    )
    assert result.status == "applied", result
    forms = block(home, "files").source[1].forms
    assert forms["one"] == (Text("a single file"),)
    assert forms["few"][0].data == "{n}"


def test_path_on_missing_edition_is_not_found(home):
    result = apply(
        home,
        SetContent(
            at=Ref("ui.json", "files", "de"),
            if_match="absent",
            path=(1, Branch(plural="one")),
            text="x",
        ),
    )
    assert result.ops[0].error.code == ErrorCode.NOT_FOUND


def test_path_to_a_run_that_is_not_a_plural_is_not_found(home):
    result = apply(
        home,
        SetContent(
            at=Ref("ui.json", "files"),
            if_match=rev(home, "files"),
            path=(0, Branch(plural="one")),
            text="x",
        ),
    )
    assert result.ops[0].error.code == ErrorCode.NOT_FOUND
    assert result.ops[0].error.field == "path/0"


def test_basis_on_authoritative_is_invalid(home):
    result = apply(
        home,
        SetContent(
            at=Ref("ui.json", "greeting"),
            if_match=rev(home, "greeting"),
            text="x",
            basis="r:0000000000000000",
        ),
    )
    assert result.ops[0].error.code == ErrorCode.INVALID and result.ops[0].error.field == "basis"
    assert result.exit_code == 2


def test_require_basis_refuses_a_moved_authoritative(home):
    op = SetContent(
        at=Ref("ui.json", "greeting", "fr"),
        if_match=rev(home, "greeting", "fr"),
        text="Salut",
        basis="r:0000000000000000",
    )
    assert (
        apply(home, op).status == "applied"
    )  # without require_basis a basis is recorded, not checked
    op2 = SetContent(
        at=Ref("ui.json", "greeting", "fr"),
        if_match=rev(home, "greeting", "fr"),
        text="Coucou",
        basis="r:0000000000000000",
    )
    result = apply(home, op2, require_basis=True)
    assert result.ops[0].error.code == ErrorCode.STALE and result.ops[0].error.field == "basis"


def test_non_translatable_block_is_unsupported_editable(home):
    result = apply(
        home, SetContent(at=Ref("ui.json", "code"), if_match=rev(home, "code"), text="x")
    )
    assert (
        result.ops[0].error.code == ErrorCode.UNSUPPORTED
        and result.ops[0].error.capability == "editable"
    )


# --- addressing ---------------------------------------------------------------------------


def test_missing_block_lists_near_keys(home):
    result = apply(home, SetContent(at=Ref("ui.json", "greting"), if_match="*", text="x"))
    error = result.ops[0].error
    assert error.code == ErrorCode.NOT_FOUND and error.field == "at/block"
    assert error.candidates[0].key == "greeting"


def test_ambiguous_block_key(home):
    doc = home.documents["ui.json"]
    twin = Block(id="b9", name="greeting", locale="en", source=(Text("x"),))
    home.documents["ui.json"] = doc.with_blocks((*doc.blocks, twin))
    result = apply(home, SetContent(at=Ref("ui.json", "greeting"), if_match="*", text="x"))
    assert result.ops[0].error.code == ErrorCode.AMBIGUOUS


def test_block_named_by_reader_id(home):
    result = apply(home, SetContent(at=Ref("ui.json", "b4"), if_match=rev(home, "code"), text="x"))
    assert result.ops[0].error.capability == "editable"  # found by id, refused for its role


def test_missing_document_is_not_found(home):
    result = apply(home, SetContent(at=Ref("nope.json", "x"), if_match="*", text="x"))
    assert result.ops[0].error.code == ErrorCode.NOT_FOUND


def test_source_language_names_the_own_edition(home):
    result = apply(
        home,
        SetContent(
            at=Ref("ui.json", "greeting", "en"),
            if_match=rev(home, "greeting"),
            text='Yo <x id="1"/>x<x id="/1"/>',
        ),
    )
    assert result.status == "applied"
    assert result.ops[0].at.edition is None


def test_edition_without_a_place_is_unsupported():
    home = MemoryHome({"ui.json": make_doc()}, editions=frozenset({"fr"}))
    result = apply(
        home, SetContent(at=Ref("ui.json", "greeting", "de"), if_match="absent", text="x")
    )
    assert (
        result.ops[0].error.code == ErrorCode.UNSUPPORTED
        and result.ops[0].error.capability == "edition"
    )


def test_bad_edition_key_is_invalid(home):
    result = apply(
        home, SetContent(at=Ref("ui.json", "greeting", "fr;mood=x"), if_match="absent", text="x")
    )
    assert (
        result.ops[0].error.code == ErrorCode.INVALID and result.ops[0].error.field == "at/edition"
    )


# --- replace_text ---------------------------------------------------------------------------


def test_replace_text_by_find_keeps_codes(home):
    result = apply(
        home,
        ReplaceText(
            at=Ref("ui.json", "greeting"),
            if_match=rev(home, "greeting"),
            edits=(Edit(find="world", text="there"),),
        ),
    )
    assert result.status == "applied"
    src = block(home, "greeting").source
    assert src[2] == Text("there") and src[1].data == "<b>"
    span = result.ops[0].resolved[0]
    assert (span.start.run, span.start.offset, span.end.run, span.end.offset) == (2, 0, 3, 0)


def test_find_not_found_says_what_it_searched(home):
    result = apply(
        home,
        ReplaceText(
            at=Ref("ui.json", "greeting"),
            if_match=rev(home, "greeting"),
            edits=(Edit(find="planet", text="x"),),
        ),
    )
    error = result.ops[0].error
    assert error.code == ErrorCode.NOT_FOUND and error.field == "edits/0/find"
    assert error.searched.text == 'Hello <x id="1"/>world<x id="/1"/>!'


def test_find_ambiguous_lists_occurrences_and_occurrence_picks(home):
    r = rev(home, "link")
    result = apply(
        home,
        ReplaceText(at=Ref("ui.json", "link"), if_match=r, edits=(Edit(find="ask", text="x"),)),
    )
    error = result.ops[0].error
    assert error.code == ErrorCode.AMBIGUOUS
    assert [c.occurrence for c in error.candidates] == [1, 2]
    result = apply(
        home,
        ReplaceText(
            at=Ref("ui.json", "link"),
            if_match=r,
            edits=(Edit(find="ask", occurrence=2, text="beg"),),
        ),
    )
    assert result.status == "applied"
    assert block(home, "link").source[-1] == Text(" or beg again")
    too_high = apply(
        home,
        ReplaceText(
            at=Ref("ui.json", "link"),
            if_match=rev(home, "link"),
            edits=(Edit(find="or", occurrence=3, text="x"),),
        ),
    )
    assert too_high.ops[0].error.code == ErrorCode.NOT_FOUND
    assert too_high.ops[0].error.field == "edits/0/occurrence"


def test_find_across_a_code_keeps_the_code_at_the_edge(home):
    # "the docs or ask" spans the link's close; a crossing span is refused
    result = apply(
        home,
        ReplaceText(
            at=Ref("ui.json", "link"),
            if_match=rev(home, "link"),
            edits=(Edit(find="docs or", text="x"),),
        ),
    )
    assert result.ops[0].error.subcode == "bad_position"
    # a span holding a non-deletable placeholder keeps it after the new text
    # (placeholders are zero-width: the text reads " or ask  or ask again")
    result = apply(
        home,
        ReplaceText(
            at=Ref("ui.json", "link"),
            if_match=rev(home, "link"),
            edits=(Edit(find="ask  or", text="ask or"),),
        ),
    )
    assert result.status == "applied", result.ops[0].error
    src = block(home, "link").source
    assert src[-3:] == (
        Text(" or ask or"),
        Ph(id="2", type="code:placeholder", data="{name}", equiv="{name}"),
        Text(" ask again"),
    )


def test_find_with_tokens_replaces_codes_named(home):
    r = rev(home, "greeting")
    result = apply(
        home,
        ReplaceText(
            at=Ref("ui.json", "greeting"),
            if_match=r,
            edits=(Edit(find='<x id="1"/>world<x id="/1"/>', text="world"),),
        ),
    )
    assert result.status == "applied", result.ops[0].error
    assert block(home, "greeting").source == (Text("Hello world!"),)


def test_positions_name_the_content_as_read(home):
    r = rev(home, "link")
    # "Read the docs or ask {name} or ask again": offsets count text only
    result = apply(
        home,
        ReplaceText(
            at=Ref("ui.json", "link"), if_match=r, edits=(Edit(start=0, end=4, text="See"),)
        ),
        ReplaceText(
            at=Ref("ui.json", "link"), if_match=r, edits=(Edit(start=9, end=13, text="guide"),)
        ),
    )
    assert result.status == "applied", [o.error for o in result.ops]
    assert block(home, "link").source[0] == Text("See ")
    assert block(home, "link").source[2] == Text("the guide")


def test_position_inside_text_an_earlier_op_changed_is_overlap(home):
    r = rev(home, "link")
    result = apply(
        home,
        ReplaceText(
            at=Ref("ui.json", "link"), if_match=r, edits=(Edit(start=0, end=4, text="See"),)
        ),
        ReplaceText(at=Ref("ui.json", "link"), if_match=r, edits=(Edit(start=2, end=6, text="x"),)),
    )
    assert result.ops[1].error.subcode == "overlap"
    assert result.ops[0].status == "not_applied" and result.ops[0].blocked_by == 1


def test_overlapping_edits_in_one_op(home):
    result = apply(
        home,
        ReplaceText(
            at=Ref("ui.json", "link"),
            if_match=rev(home, "link"),
            edits=(Edit(start=0, end=4, text="a"), Edit(start=2, end=6, text="b")),
        ),
    )
    assert result.ops[0].error.subcode == "overlap"


def test_out_of_range_offsets_are_bad_position(home):
    result = apply(
        home,
        ReplaceText(
            at=Ref("ui.json", "greeting"),
            if_match=rev(home, "greeting"),
            edits=(Edit(start=3, end=99, text="x"),),
        ),
    )
    assert result.ops[0].error.subcode == "bad_position"


def test_range_by_run_positions(home):
    rng = Range(start=Position(run=2, offset=0), end=Position(run=2, offset=5))
    result = apply(
        home,
        ReplaceText(
            at=Ref("ui.json", "greeting"),
            if_match=rev(home, "greeting"),
            edits=(Edit(range=rng, text="earth"),),
        ),
    )
    assert result.status == "applied"
    assert block(home, "greeting").source[2] == Text("earth")
    bad = Range(start=Position(run=9), end=Position(run=9))
    result = apply(
        home,
        ReplaceText(
            at=Ref("ui.json", "greeting"),
            if_match=rev(home, "greeting"),
            edits=(Edit(range=bad, text="x"),),
        ),
    )
    assert result.ops[0].error.subcode == "bad_position"


def test_replace_text_inside_a_plural_branch(home):
    result = apply(
        home,
        ReplaceText(
            at=Ref("ui.json", "files"),
            if_match=rev(home, "files"),
            path=(1, Branch(plural="other")),
            edits=(Edit(find="files", text="documents"),),
        ),
    )
    assert result.status == "applied", result.ops[0].error
    assert block(home, "files").source[1].forms["other"][1] == Text(" documents")


def test_dropping_a_non_deletable_code_is_codes_changed(home):
    result = apply(
        home,
        SetContent(
            at=Ref("ui.json", "link"),
            if_match=rev(home, "link"),
            text='Read <x id="1"/>docs<x id="/1"/>',
        ),
    )
    assert result.ops[0].error.subcode == "codes_changed"
    assert result.ops[0].error.expected == '<x id="2/"/>'


def test_repeating_a_non_cloneable_code_is_codes_changed(home):
    text = 'Read <x id="1"/>docs<x id="/1"/> <x id="2/"/> <x id="2/"/>'
    result = apply(
        home, SetContent(at=Ref("ui.json", "link"), if_match=rev(home, "link"), text=text)
    )
    assert result.ops[0].error.subcode == "codes_changed"


def test_unbalanced_pair_is_codes_changed(home):
    result = apply(
        home,
        SetContent(
            at=Ref("ui.json", "greeting"), if_match=rev(home, "greeting"), text='Hi <x id="1"/>x'
        ),
    )
    assert result.ops[0].error.subcode == "codes_changed"


def test_unknown_token_is_codes_changed(home):
    result = apply(
        home,
        SetContent(
            at=Ref("ui.json", "greeting"), if_match=rev(home, "greeting"), text='Hi <x id="5/"/>'
        ),
    )
    assert result.ops[0].error.subcode == "codes_changed"
    assert result.ops[0].error.field == "text"


def test_reordering_a_fixed_code_is_codes_changed():
    fixed = Constraints(deletable=False, cloneable=False, reorderable=False)
    doc = Document(
        format="m",
        locale="en",
        blocks=(
            Block(
                id="b",
                name="b",
                locale="en",
                source=(
                    Ph(id="1", data="%1$s", constraints=fixed),
                    Text(" and "),
                    Ph(id="2", data="%2$s", constraints=fixed),
                ),
            ),
        ),
    )
    home = MemoryHome({"d": doc})
    result = apply(
        home,
        SetContent(
            at=Ref("d", "b"),
            if_match=edition_rev(doc.blocks[0], ""),
            text='<x id="2/"/> and <x id="1/"/>',
        ),
    )
    assert result.ops[0].error.subcode == "codes_changed"


# --- set_attribute, mark ----------------------------------------------------------------------


def test_set_attribute_changes_every_occurrence_and_only_writable_ones(home):
    result = apply(
        home,
        SetAttribute(
            at=Ref("ui.json", "link"), if_match=rev(home, "link"), code="1", name="href", value="/b"
        ),
    )
    assert result.status == "applied"
    assert block(home, "link").source[1].attrs["href"] == "/b"
    result = apply(
        home,
        SetAttribute(
            at=Ref("ui.json", "link"),
            if_match=rev(home, "link"),
            code="1",
            name="onclick",
            value="x",
        ),
    )
    assert result.ops[0].error.capability == "set_attribute"
    result = apply(
        home,
        SetAttribute(
            at=Ref("ui.json", "link"), if_match=rev(home, "link"), code="7", name="href", value="x"
        ),
    )
    assert result.ops[0].error.code == ErrorCode.NOT_FOUND


def test_mark_wraps_text_in_a_new_code(home):
    result = apply(
        home,
        Mark(
            at=Ref("ui.json", "link"),
            if_match=rev(home, "link"),
            range=Selection(find="again"),
            type="fmt:bold",
        ),
    )
    assert result.status == "applied", result.ops[0].error
    src = block(home, "link").source
    opener = next(r for r in src if isinstance(r, PcOpen) and r.type == "fmt:bold")
    assert opener.id == "3"
    result = apply(
        home,
        Mark(
            at=Ref("ui.json", "link"),
            if_match=rev(home, "link"),
            range=Selection(find="Read"),
            type="media:video",
        ),
    )
    assert result.ops[0].error.capability == "synthesize:media:video"


def test_mark_needs_text(home):
    result = apply(
        home,
        Mark(
            at=Ref("ui.json", "link"),
            if_match=rev(home, "link"),
            range=Selection(start=2, end=2),
            type="fmt:bold",
        ),
    )
    assert result.ops[0].error.code == ErrorCode.INVALID


# --- editions, annotations, blocks ------------------------------------------------------------


def test_remove_edition(home):
    r = rev(home, "greeting", "fr")
    result = apply(home, RemoveEdition(at=Ref("ui.json", "greeting", "fr"), if_match=r))
    assert result.status == "applied" and result.ops[0].after == "absent"
    assert "fr" not in block(home, "greeting").targets
    again = apply(home, RemoveEdition(at=Ref("ui.json", "greeting", "fr"), if_match="*"))
    assert again.ops[0].status == "unchanged"
    own = apply(home, RemoveEdition(at=Ref("ui.json", "greeting"), if_match=rev(home, "greeting")))
    assert own.ops[0].error.code == ErrorCode.INVALID


def test_annotate_mints_an_id_and_unannotate_removes_it(home):
    result = apply(home, Annotate(at=Ref("ui.json", "greeting"), type="note", value={"text": "hi"}))
    assert result.ops[0].id == "note-1"
    result = apply(home, Annotate(at=Ref("ui.json", "greeting"), type="note", value="again"))
    assert result.ops[0].id == "note-2"
    assert (
        apply(home, Unannotate(at=Ref("ui.json", "greeting"), type="note", id="note-1")).status
        == "applied"
    )
    missing = apply(home, Unannotate(at=Ref("ui.json", "greeting"), type="note", id="note-1"))
    assert missing.ops[0].error.code == ErrorCode.NOT_FOUND
    bad = apply(
        home,
        Annotate(
            at=Ref("ui.json", "greeting"),
            type="t",
            anchor=Anchor(kind="range", start=Position(run=40), end=Position(run=41)),
        ),
    )
    assert bad.ops[0].error.subcode == "bad_position"


def test_annotations_need_a_home_that_keeps_them():
    home = MemoryHome({"ui.json": make_doc()}, annotations=False)
    result = apply(home, Annotate(at=Ref("ui.json", "greeting"), type="note"))
    assert result.ops[0].error.capability == "annotate"


def test_insert_and_delete_block(home):
    result = apply(
        home,
        InsertBlock(
            doc="ui.json",
            name="farewell",
            after="greeting",
            editions={"en": EditionContent(text="Bye"), "fr": EditionContent(text="Salut")},
        ),
    )
    assert result.status == "applied", result.ops[0].error
    names = [b.name for b in home.documents["ui.json"].blocks]
    assert names[:2] == ["greeting", "farewell"]
    assert block(home, "farewell").targets["fr"].runs == (Text("Salut"),)
    dup = apply(
        home, InsertBlock(doc="ui.json", name="farewell", editions={"en": EditionContent(text="x")})
    )
    assert dup.ops[0].error.code == ErrorCode.STALE and dup.ops[0].current.text == "Bye"
    no_own = apply(
        home, InsertBlock(doc="ui.json", name="n", editions={"fr": EditionContent(text="x")})
    )
    assert no_own.ops[0].error.code == ErrorCode.INVALID
    deleted = apply(
        home,
        DeleteBlock(
            at=BlockRef("ui.json", "farewell"),
            if_match={"en": rev(home, "farewell"), "fr": rev(home, "farewell", "fr")},
        ),
    )
    assert deleted.status == "applied"
    assert "farewell" not in [b.name for b in home.documents["ui.json"].blocks]


def test_op_on_a_block_the_set_inserts_is_invalid(home):
    result = apply(
        home,
        InsertBlock(doc="ui.json", name="fresh", editions={"en": EditionContent(text="x")}),
        SetContent(at=Ref("ui.json", "fresh"), if_match="*", text="y"),
    )
    assert result.ops[1].error.code == ErrorCode.INVALID


def test_delete_block_must_name_own_rev_and_checks_each(home):
    result = apply(
        home,
        DeleteBlock(
            at=BlockRef("ui.json", "greeting"), if_match={"fr": rev(home, "greeting", "fr")}
        ),
    )
    assert result.ops[0].error.code == ErrorCode.INVALID
    result = apply(
        home,
        DeleteBlock(
            at=BlockRef("ui.json", "greeting"),
            if_match={"en": rev(home, "greeting"), "fr": "r:0000000000000000"},
        ),
    )
    assert (
        result.ops[0].error.code == ErrorCode.STALE and result.ops[0].error.field == "if_match/fr"
    )


def test_structural_ops_need_a_structural_format():
    home = MemoryHome({"ui.json": make_doc()}, capabilities=FormatCapabilities(name="md"))
    result = apply(home, InsertBlock(doc="ui.json", editions={"en": EditionContent(text="x")}))
    assert result.ops[0].error.capability == "insert_block"


def test_native_is_unsupported(home):
    result = apply(
        home, Native(doc="ui.json", if_match="sha256:" + "0" * 64, name="docx.x", args={})
    )
    assert (
        result.ops[0].error.code == ErrorCode.UNSUPPORTED
        and result.ops[0].error.capability == "native"
    )


# --- decisions and assets -------------------------------------------------------------------


def test_decide_and_assets_land_after_content_in_set_order(home):
    assets = MemoryAssets()
    r = rev(home, "greeting", "fr")
    result = apply(
        home,
        Term(action="upsert", term="kapi", status="preferred"),
        Decide(at=Ref("ui.json", "greeting", "fr"), if_match=r, outcome="establish"),
        SetContent(
            at=Ref("ui.json", "greeting", "fr"),
            if_match=r,
            text='Salut <x id="1"/>monde<x id="/1"/>',
        ),
        Memory(action="add", from_=MemorySide("en", "Hello"), to=MemorySide("fr", "Bonjour")),
        Recipe(path="defaults.target_languages", value=["fr"]),
        assets=assets,
    )
    assert result.status == "applied"
    assert [kind for kind, _, _ in assets.landed] == ["decide", "term", "memory", "recipe"]
    assert assets.landed[0][2] == r  # bound to the rev read


def test_asset_ops_without_a_store_are_unsupported(home):
    result = apply(home, Term(action="upsert", term="kapi"))
    assert result.ops[0].error.code == ErrorCode.UNSUPPORTED


def test_store_failure_after_content_is_partial(home):
    assets = MemoryAssets()
    assets.fail = True
    result = apply(
        home,
        SetContent(
            at=Ref("ui.json", "greeting"),
            if_match=rev(home, "greeting"),
            text='A<x id="1"/>b<x id="/1"/>',
        ),
        Term(action="upsert", term="x"),
        assets=assets,
    )
    assert result.status == "partial"
    assert result.ops[0].status == "applied" and result.ops[1].status == "refused"
    assert result.ops[1].error.code == ErrorCode.UNREACHABLE
    assert result.exit_code == 3


def test_advise_needs_a_score(home):
    result = apply(
        home,
        Decide(
            at=Ref("ui.json", "greeting", "fr"),
            if_match=rev(home, "greeting", "fr"),
            outcome="advise",
        ),
        actor=AGENT,
        assets=MemoryAssets(),
    )
    assert result.ops[0].error.code == ErrorCode.INVALID


# --- policy ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("op", "field"),
    [
        (Term(action="upsert", term="x"), None),
        (Memory(action="add", from_=MemorySide("en", "a"), to=MemorySide("fr", "b")), None),
        (Recipe(path="name", value="x"), None),
        (
            Decide(
                at=Ref("ui.json", "greeting", "fr"),
                if_match="r:0000000000000000",
                outcome="establish",
            ),
            "outcome",
        ),
        (SetContent(at=Ref("ui.json", "greeting"), if_match="*", text="x"), "if_match"),
        (DeleteBlock(at=BlockRef("ui.json", "greeting"), if_match={"en": "*"}), "if_match"),
    ],
)
def test_agent_policy(home, op, field):
    result = apply(home, op, actor=AGENT, assets=MemoryAssets())
    assert result.ops[0].error.code == ErrorCode.NOT_PERMITTED
    assert result.ops[0].error.field == field


def test_agent_may_not_send_gate_report_refusing_every_op(home):
    ops = [
        SetContent(
            at=Ref("ui.json", "greeting"),
            if_match=rev(home, "greeting"),
            text='x<x id="1"/>y<x id="/1"/>',
        )
    ] * 2
    result = apply(home, *ops, actor=AGENT, gate="report")
    assert [o.error.field for o in result.ops] == ["gate", "gate"]
    assert all(o.error.code == ErrorCode.NOT_PERMITTED for o in result.ops)


def test_unknown_sender_may_send_nothing(home):
    result = apply(
        home,
        SetContent(at=Ref("ui.json", "greeting"), if_match=rev(home, "greeting"), text="x"),
        actor=Actor(""),
    )
    assert result.ops[0].error.code == ErrorCode.NOT_PERMITTED


def test_agent_and_tool_edits_set_status_and_origin(home):
    r = rev(home, "greeting", "fr")
    apply(
        home,
        SetContent(
            at=Ref("ui.json", "greeting", "fr"), if_match=r, text='Allo <x id="1"/>x<x id="/1"/>'
        ),
        actor=AGENT,
    )
    edition = block(home, "greeting").targets["fr"]
    assert (
        edition.status == "translated"
        and edition.origin.kind == "agent"
        and edition.origin.engine == "claude-code"
    )
    apply(
        home,
        SetContent(
            at=Ref("ui.json", "greeting", "it"),
            if_match="absent",
            text='Ciao <x id="1"/>x<x id="/1"/>',
        ),
        actor=TOOL,
    )
    assert block(home, "greeting").targets["it"].status == "draft"


def test_tool_guard_violations_become_findings(home):
    result = apply(
        home,
        SetContent(at=Ref("ui.json", "link"), if_match=rev(home, "link"), text="no codes"),
        actor=TOOL,
    )
    assert result.status == "applied"
    assert result.ops[0].findings[0].rule == "guard.codes_changed"


# --- atomicity, preview, governance ---------------------------------------------------------


def test_refusal_on_second_document_leaves_both_unchanged(home):
    before = {k: serialise(v) for k, v in home.documents.items()}
    result = apply(
        home,
        SetContent(
            at=Ref("ui.json", "greeting"),
            if_match=rev(home, "greeting"),
            text='Hi <x id="1"/>x<x id="/1"/>',
        ),
        SetContent(at=Ref("other.json", "greeting"), if_match="r:0000000000000000", text="x"),
    )
    assert result.status == "refused"
    assert result.ops[0].status == "not_applied" and result.ops[0].blocked_by == 1
    assert {k: serialise(v) for k, v in home.documents.items()} == before
    assert home.commits == 0


def test_preview_writes_nothing_and_returns_a_diff(home):
    before = serialise(home.documents["ui.json"])
    result = apply(
        home,
        ReplaceText(
            at=Ref("ui.json", "greeting"),
            if_match=rev(home, "greeting"),
            edits=(Edit(find="world", text="there"),),
        ),
        mode="preview",
    )
    assert result.status == "previewed" and result.ops[0].status == "previewed"
    assert (
        "-greeting: Hello" in result.docs[0].diff
        and '+greeting: Hello <x id="1"/>there' in result.docs[0].diff
    )
    assert serialise(home.documents["ui.json"]) == before
    assert result.exit_code == 0


def test_gate_refuses_only_introduced_failures(home):
    check = BannedWordCheck()
    r = rev(home, "greeting")
    result = apply(
        home,
        SetContent(
            at=Ref("ui.json", "greeting"), if_match=r, text='Simply <x id="1"/>hello<x id="/1"/>'
        ),
        commit_check=check,
    )
    assert result.ops[0].error.code == ErrorCode.GATE_FAILED
    assert result.ops[0].findings[0].message == "avoid 'simply'"
    assert result.exit_code == 3
    # gate report (a person) lands it with the finding
    result = apply(
        home,
        SetContent(
            at=Ref("ui.json", "greeting"), if_match=r, text='Simply <x id="1"/>hello<x id="/1"/>'
        ),
        commit_check=check,
        gate="report",
    )
    assert result.status == "applied"
    assert result.ops[0].findings[0].rule == "voice.vocabulary"
    assert result.docs[0].findings[0].fails
    # a pre-existing failure lands with a clean doc findings list
    r = rev(home, "greeting")
    result = apply(
        home,
        SetContent(
            at=Ref("ui.json", "greeting"), if_match=r, text='Simply <x id="1"/>hi<x id="/1"/>'
        ),
        commit_check=check,
    )
    assert result.status == "applied"
    assert result.docs[0].findings == ()


def test_io_error_mid_commit_is_partial(home):
    home.fail_after = 1
    result = apply(
        home,
        SetContent(
            at=Ref("other.json", "greeting"),
            if_match=rev(home, "greeting", doc="other.json"),
            text='A<x id="1"/>b<x id="/1"/>',
        ),
        SetContent(
            at=Ref("ui.json", "greeting"),
            if_match=rev(home, "greeting"),
            text='C<x id="1"/>d<x id="/1"/>',
        ),
    )
    assert result.status == "partial"
    written = {d.doc: d.written for d in result.docs}
    assert written == {"other.json": True, "ui.json": False}
    assert result.ops[0].status == "applied" and result.ops[1].status == "not_applied"


def test_a_concurrent_change_is_retried_once(home):
    def sneak(h: MemoryHome) -> None:
        doc = h.documents["other.json"]
        h.documents["other.json"] = doc.with_blocks(doc.blocks[:-1])

    home.before_commit = sneak
    result = apply(
        home,
        SetContent(
            at=Ref("other.json", "greeting"),
            if_match=rev(home, "greeting", doc="other.json"),
            text='A<x id="1"/>b<x id="/1"/>',
        ),
    )
    assert result.status == "applied"
    assert len(home.documents["other.json"].blocks) == 3  # the sneaked change survives


def test_doc_changed_when_retry_cannot_settle(home):
    class Restless(MemoryHome):
        def commit(self, writes):
            doc = self.documents["ui.json"]
            self.documents["ui.json"] = doc.with_blocks(doc.blocks[::-1])
            return super().commit(writes)

    restless = Restless({"ui.json": make_doc()})
    result = apply(
        restless,
        SetContent(
            at=Ref("ui.json", "greeting"),
            if_match=edition_rev(make_doc().blocks[0], ""),
            text='A<x id="1"/>b<x id="/1"/>',
        ),
    )
    assert result.status == "refused" and result.error.code == ErrorCode.DOC_CHANGED


def test_recorder_gets_the_record_id(home):
    recorder = MemoryRecorder()
    result = apply(
        home,
        SetContent(
            at=Ref("ui.json", "greeting"),
            if_match=rev(home, "greeting"),
            text='A<x id="1"/>b<x id="/1"/>',
        ),
        recorder=recorder,
    )
    assert result.record == "rec-1"


def test_empty_set_is_applied(home):
    result = apply(home)
    assert result.status == "applied" and result.ops == ()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(range(8)), min_size=1, max_size=5), st.integers(0, 4))
def test_refused_set_leaves_every_document_unchanged(choices, bad_at):
    home = MemoryHome({"ui.json": make_doc(), "other.json": make_doc()})
    before = {k: serialise(v) for k, v in home.documents.items()}
    r = {d: {n: rev(home, n, doc=d) for n in ("greeting", "link")} for d in home.documents}
    candidates = [
        SetContent(
            at=Ref("ui.json", "greeting"),
            if_match=r["ui.json"]["greeting"],
            text='Hi <x id="1"/>x<x id="/1"/>',
        ),
        ReplaceText(
            at=Ref("other.json", "link"),
            if_match=r["other.json"]["link"],
            edits=(Edit(find="docs", text="guide"),),
        ),
        SetContent(at=Ref("other.json", "greeting", "de"), if_match="absent", text="Hallo"),
        RemoveEdition(at=Ref("ui.json", "greeting", "fr"), if_match="*"),
        InsertBlock(doc="ui.json", name="new", editions={"en": EditionContent(text="x")}),
        SetAttribute(
            at=Ref("ui.json", "link"),
            if_match=r["ui.json"]["link"],
            code="1",
            name="href",
            value="/z",
        ),
        Mark(
            at=Ref("other.json", "link"),
            if_match=r["other.json"]["link"],
            range=Selection(find="Read"),
            type="fmt:italic",
        ),
        Annotate(at=Ref("ui.json", "link"), type="note"),
    ]
    ops = [candidates[c] for c in choices]
    ops.insert(
        min(bad_at, len(ops)),
        SetContent(at=Ref("ui.json", "greeting"), if_match="r:ffffffffffffffff", text="x"),
    )
    result = ChangeService(home).apply(ChangeSet(ops=tuple(ops)), PERSON)
    assert result.status == "refused"
    assert {k: serialise(v) for k, v in home.documents.items()} == before
