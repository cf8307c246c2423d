"""Word documents: paragraphs as blocks with codes, and edits that change only the edited text."""

from __future__ import annotations

import importlib.util
import io
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kapi.core.format import FormatCodec, WriteRefused
from kapi.core.model import Document, PcClose, PcOpen, Ph, Runs, Text, plain_text
from kapi.formats.office.docx import DocxFormat
from kapi.formats.registry import get, load_codec


def _fixtures():  # type: ignore[no-untyped-def]
    """The shared package builders (tests/office_fixtures.py), loaded by path."""
    found = sys.modules.get("office_fixtures")
    if found is None:
        spec = importlib.util.spec_from_file_location(
            "office_fixtures", Path(__file__).with_name("office_fixtures.py")
        )
        assert spec is not None and spec.loader is not None
        found = importlib.util.module_from_spec(spec)
        sys.modules["office_fixtures"] = found
        spec.loader.exec_module(found)
    return found


fx = _fixtures()
docx, para, run, entries, changed_entries = fx.docx, fx.para, fx.run, fx.entries, fx.changed_entries

CODEC = DocxFormat()
BOLD = "<w:rPr><w:b/></w:rPr>"


def _edit(document: Document, block_id: str, runs: Runs) -> Document:
    assert any(block.id == block_id for block in document.blocks)
    return document.with_blocks(
        tuple(
            block.with_source(runs) if block.id == block_id else block for block in document.blocks
        )
    )


def _body(data: bytes) -> str:
    xml = entries(data)["word/document.xml"].decode("utf-8")
    return xml[xml.index("<w:body>") + 8 : xml.index("<w:sectPr/>")]


def _block(document: Document, block_id: str) -> Runs:
    return next(block.source for block in document.blocks if block.id == block_id)


# -- reading ---------------------------------------------------------------------


def test_registry_loads_the_codec_and_flags_it_editable_not_generative() -> None:
    assert isinstance(load_codec("docx"), DocxFormat)
    assert isinstance(load_codec("docx"), FormatCodec)
    spec = get("docx")
    assert spec.editable and spec.round_trip and not spec.generative


def test_paragraphs_become_blocks_named_by_part_and_position() -> None:
    data = docx(
        para(run("Intro"), '<w:pPr><w:pStyle w:val="Heading1"/></w:pPr>')
        + para("")
        + para(run("Body text"))
        + para(run("German heading"), '<w:pPr><w:pStyle w:val="berschrift2"/></w:pPr>')
        + para(run("Derived heading"), '<w:pPr><w:pStyle w:val="MyHeading"/></w:pPr>')
        + para(run("Bullet"), '<w:pPr><w:pStyle w:val="ListBullet"/></w:pPr>')
        + para(
            run("Nested"),
            '<w:pPr><w:numPr><w:ilvl w:val="2"/><w:numId w:val="4"/></w:numPr></w:pPr>',
        )
        + "<w:tbl><w:tr><w:tc>"
        + para(run("Cell"))
        + "</w:tc></w:tr></w:tbl>"
    )
    document = CODEC.read(data, path="a.docx")
    summary = [(b.id, b.name, b.role, b.level, plain_text(b.source)) for b in document.blocks]
    assert summary == [
        ("word/document.xml#p1", "word/document.xml#p1", "heading", 1, "Intro"),
        ("word/document.xml#p3", "word/document.xml#p3", "", 0, "Body text"),
        ("word/document.xml#p4", "word/document.xml#p4", "heading", 2, "German heading"),
        ("word/document.xml#p5", "word/document.xml#p5", "heading", 1, "Derived heading"),
        ("word/document.xml#p6", "word/document.xml#p6", "list-item", 1, "Bullet"),
        ("word/document.xml#p7", "word/document.xml#p7", "list-item", 3, "Nested"),
        ("word/document.xml#p8", "word/document.xml#p8", "table-cell", 0, "Cell"),
    ]
    assert document.blocks[0].properties == {"part": "word/document.xml", "style": "Heading1"}


def test_locale_comes_from_the_argument_else_the_style_defaults() -> None:
    data = docx(para(run("Hello")))
    assert CODEC.read(data, locale="fr_CA").locale == "fr-CA"
    document = CODEC.read(data)
    assert document.locale == "en-GB"
    assert document.blocks[0].locale == "en-GB"


def test_formatted_runs_are_pairs_with_native_markup() -> None:
    data = docx(para(run("Press ") + run("Save", BOLD) + run(" now", "<w:rPr><w:i/></w:rPr>")))
    runs = CODEC.read(data).blocks[0].source
    assert runs == (
        Text("Press "),
        PcOpen(id="1", type="fmt:bold", sub_type="docx:run", data="<w:r><w:rPr><w:b/></w:rPr>"),
        Text("Save"),
        PcClose(id="1", type="fmt:bold", sub_type="docx:run", data="</w:r>"),
        PcOpen(id="2", type="fmt:italic", sub_type="docx:run", data="<w:r><w:rPr><w:i/></w:rPr>"),
        Text(" now"),
        PcClose(id="2", type="fmt:italic", sub_type="docx:run", data="</w:r>"),
    )


def test_runs_split_by_revision_ids_merge_into_one_text() -> None:
    data = docx(
        para(
            run("Hel", '<w:rPr><w:lang w:val="en-US"/></w:rPr>', ' w:rsidR="00A1"')
            + '<w:proofErr w:type="spellStart"/>'
            + run(
                "lo wor",
                '<w:rPr><w:lang w:val="en-US"/></w:rPr>',
                ' w:rsidR="00B2" w:rsidRPr="00C3"',
            )
            + run("ld", '<w:rPr>\n  <w:lang w:val="en-US"/>\n</w:rPr>', ' w:rsidR="00D4"')
        )
    )
    document = CODEC.read(data)
    assert document.blocks[0].source == (Text("Hello world"),)
    # A one-word edit rewrites only the text node that holds the change.
    out = CODEC.write(_edit(document, "word/document.xml#p1", (Text("Hello earth"),)))
    assert "<w:t>Hel</w:t>" in _body(out)
    assert "<w:t>lo earth</w:t>" in _body(out)
    assert "<w:t></w:t>" in _body(out)  # the swallowed node keeps its run, emptied
    assert CODEC.read(out).blocks[0].source == (Text("Hello earth"),)


def test_hyperlink_is_a_link_pair_with_href_and_survives_an_edit() -> None:
    data = docx(
        para(
            run("Visit ")
            + '<w:hyperlink r:id="rIdL" w:history="1">'
            + run("our site", '<w:rPr><w:rStyle w:val="Hyperlink"/></w:rPr>')
            + "</w:hyperlink>"
            + run(" today")
        ),
        rels=[("rIdL", "hyperlink", "https://example.com/a?b=1")],
    )
    document = CODEC.read(data)
    runs = document.blocks[0].source
    assert runs[1] == PcOpen(
        id="1",
        type="link:hyperlink",
        sub_type="docx:hyperlink",
        data='<w:hyperlink r:id="rIdL" w:history="1">',
        attrs={"href": "https://example.com/a?b=1"},
    )
    assert runs[2].type == "fmt:style"  # type: ignore[union-attr]
    edited = (Text("Besuchen Sie "), *runs[1:3], Text("unsere Seite"), *runs[4:6], Text(" heute"))
    out = CODEC.write(_edit(document, "word/document.xml#p1", edited))
    assert CODEC.read(out).blocks[0].source == edited
    assert '<w:hyperlink r:id="rIdL" w:history="1">' in _body(out)


def test_bookmark_anchor_link() -> None:
    data = docx(para('<w:hyperlink w:anchor="intro">' + run("Go") + "</w:hyperlink>"))
    runs = CODEC.read(data).blocks[0].source
    assert isinstance(runs[0], PcOpen) and runs[0].attrs == {"href": "#intro"}


def test_tabs_breaks_symbols_and_footnote_references_are_codes() -> None:
    data = docx(
        para(
            "<w:r><w:t>A</w:t><w:tab/><w:t>B</w:t><w:br/><w:t>C</w:t>"
            '<w:br w:type="page"/><w:sym w:font="Symbol" w:char="F0E0"/><w:noBreakHyphen/></w:r>'
            '<w:r><w:rPr><w:rStyle w:val="FootnoteReference"/></w:rPr><w:footnoteReference w:id="1"/></w:r>'
        )
    )
    runs = CODEC.read(data).blocks[0].source
    kinds = [
        (type(r).__name__, getattr(r, "type", ""), getattr(r, "data", ""), getattr(r, "equiv", ""))
        for r in runs
        if not isinstance(r, Text)
    ]
    assert kinds == [
        ("Ph", "fmt:tab", "<w:tab/>", "\t"),
        ("Ph", "fmt:linebreak", "<w:br/>", "\n"),
        ("Ph", "fmt:break", '<w:br w:type="page"/>', "\n"),
        ("Ph", "entity:char", '<w:sym w:font="Symbol" w:char="F0E0"/>', "\uf0e0"),
        ("Ph", "entity:char", "<w:noBreakHyphen/>", "\u2011"),
        (
            "Ph",
            "code:tag",
            '<w:r><w:rPr><w:rStyle w:val="FootnoteReference"/></w:rPr><w:footnoteReference w:id="1"/></w:r>',
            "",
        ),
    ]
    assert plain_text(runs) == "A\tB\nC\n\uf0e0\u2011"


def test_complex_field_code_is_hidden_and_result_is_editable() -> None:
    field = (
        '<w:r><w:fldChar w:fldCharType="begin"/></w:r>'
        '<w:r><w:instrText xml:space="preserve"> PAGE </w:instrText></w:r>'
        '<w:r><w:fldChar w:fldCharType="separate"/></w:r>'
        + run("7")
        + '<w:r><w:fldChar w:fldCharType="end"/></w:r>'
    )
    data = docx(para(run("Page ") + field + run(" of ten")))
    document = CODEC.read(data)
    runs = document.blocks[0].source
    assert runs[1] == Ph(
        id="1",
        type="code:field",
        sub_type="docx:field",
        data=field[: field.index("<w:r><w:t>")],
        attrs={"instr": " PAGE "},
    )
    assert runs[2] == Text("7")
    assert runs[3] == Ph(
        id="2",
        type="code:field",
        sub_type="docx:field",
        data='<w:r><w:fldChar w:fldCharType="end"/></w:r>',
    )
    out = CODEC.write(
        _edit(document, "word/document.xml#p1", (Text("Seite "), *runs[1:4], Text(" von zehn")))
    )
    assert _body(out) == para(run("Seite ") + field + run(" von zehn"))


def test_field_code_spanning_paragraphs_is_hidden_in_each() -> None:
    data = docx(
        para(
            '<w:r><w:fldChar w:fldCharType="begin"/></w:r>'
            + "<w:r><w:instrText> TOC \\o </w:instrText></w:r>"
        )
        + para(
            '<w:r><w:instrText> more </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>'
            + run("Chapter one")
        )
        + para(run("Chapter two") + '<w:r><w:fldChar w:fldCharType="end"/></w:r>')
    )
    document = CODEC.read(data)
    assert [plain_text(b.source) for b in document.blocks] == ["Chapter one", "Chapter two"]
    assert isinstance(document.blocks[0].source[0], Ph)
    assert document.blocks[0].source[0].attrs == {"instr": " more "}  # type: ignore[union-attr]


def test_simple_field_is_a_pair_around_its_result() -> None:
    data = docx(
        para(
            run("See ")
            + '<w:fldSimple w:instr=" REF intro \\h ">'
            + run("Intro")
            + "</w:fldSimple>"
        )
    )
    runs = CODEC.read(data).blocks[0].source
    assert runs[1] == PcOpen(
        id="1",
        type="code:field",
        sub_type="docx:fldSimple",
        data='<w:fldSimple w:instr=" REF intro \\h ">',
        attrs={"instr": " REF intro \\h "},
    )
    assert runs[2] == Text("Intro")


TRACKED = (
    run("Kept ")
    + '<w:ins w:id="1" w:author="Ann" w:date="2024-01-01T00:00:00Z">'
    + run("added")
    + "</w:ins>"
    + '<w:del w:id="2" w:author="Ann"><w:r><w:delText> removed</w:delText></w:r></w:del>'
    + run(" tail")
)


def test_tracked_changes_read_as_visible_text() -> None:
    document = CODEC.read(docx(para(TRACKED)))
    runs = document.blocks[0].source
    assert plain_text(runs) == "Kept added tail"
    assert runs[1] == PcOpen(
        id="1",
        type="code:tag",
        sub_type="docx:ins",
        data='<w:ins w:id="1" w:author="Ann" w:date="2024-01-01T00:00:00Z">',
    )
    assert isinstance(runs[4], Ph) and runs[4].sub_type == "docx:del"


def test_text_outside_tracked_changes_can_be_edited() -> None:
    document = CODEC.read(docx(para(TRACKED)))
    runs = document.blocks[0].source
    out = CODEC.write(
        _edit(document, "word/document.xml#p1", (Text("Still "), *runs[1:5], Text(" end")))
    )
    assert _body(out) == para(TRACKED.replace("Kept ", "Still ").replace(" tail", " end"))


def test_editing_inside_an_insertion_is_refused() -> None:
    document = CODEC.read(docx(para(TRACKED)))
    runs = document.blocks[0].source
    with pytest.raises(WriteRefused) as caught:
        CODEC.write(_edit(document, "word/document.xml#p1", (*runs[:2], Text("other"), *runs[3:])))
    assert caught.value.capability == "editable"
    assert "tracked" in caught.value.message


def test_dropping_a_tracked_change_is_refused() -> None:
    document = CODEC.read(docx(para(TRACKED)))
    runs = document.blocks[0].source
    with pytest.raises(WriteRefused) as caught:
        CODEC.write(_edit(document, "word/document.xml#p1", (Text("Kept added"), *runs[5:])))
    assert caught.value.capability == "editable"


TEXT_BOX = (
    '<w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><wp:inline>'
    '<wp:docPr id="1" name="Box" descr="A box"/><a:graphic><a:graphicData><wps:wsp><wps:txbx>'
    "<w:txbxContent><w:p><w:r><w:t>Box text</w:t></w:r></w:p></w:txbxContent>"
    "</wps:txbx></wps:wsp></a:graphicData></a:graphic></wp:inline></w:drawing></mc:Choice>"
    "<mc:Fallback><w:pict><v:shape><v:textbox><w:txbxContent><w:p><w:r><w:t>Box text</w:t>"
    "</w:r></w:p></w:txbxContent></v:textbox></v:shape></w:pict></mc:Fallback>"
    "</mc:AlternateContent></w:r>"
)


def test_text_box_is_one_block_and_an_edit_reaches_both_copies() -> None:
    document = CODEC.read(docx(para(run("Anchor") + TEXT_BOX + run(" after"))))
    assert [(b.id, plain_text(b.source)) for b in document.blocks] == [
        ("word/document.xml#p1", "Anchor after"),
        ("word/document.xml#p2", "Box text"),
    ]
    image = document.blocks[0].source[1]
    assert isinstance(image, Ph) and image.type == "media:image" and image.attrs == {"alt": "A box"}
    out = CODEC.write(_edit(document, "word/document.xml#p2", (Text("Kasten"),)))
    assert _body(out).count("<w:t>Kasten</w:t>") == 2
    assert "Box text" not in _body(out)


def test_text_box_edit_inside_a_rebuilt_paragraph_is_kept() -> None:
    document = CODEC.read(docx(para(run("Anchor") + run("bold", BOLD) + TEXT_BOX)))
    outer = document.blocks[0].source
    changed = _edit(document, "word/document.xml#p1", (Text("Anchor bold"), outer[-1]))
    changed = _edit(changed, "word/document.xml#p2", (Text("Kasten"),))
    out = CODEC.write(changed)
    again = CODEC.read(out)
    assert [plain_text(b.source) for b in again.blocks] == ["Anchor bold", "Kasten"]
    assert _body(out).count("Kasten") == 2


def test_headers_footers_notes_and_comments_are_blocks() -> None:
    story = fx.story_xml
    data = docx(
        para(run("Body")),
        rels=[
            ("rIdH", "header", "header1.xml"),
            ("rIdF", "footer", "footer1.xml"),
            ("rIdN", "footnotes", "footnotes.xml"),
            ("rIdE", "endnotes", "endnotes.xml"),
            ("rIdC", "comments", "comments.xml"),
        ],
        parts={
            "word/header1.xml": story("hdr", para(run("Head"))),
            "word/footer1.xml": story("ftr", para(run("Foot"))),
            "word/footnotes.xml": story(
                "footnotes",
                '<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>'
                '<w:footnote w:id="1">' + para(run("A note")) + "</w:footnote>",
            ),
            "word/endnotes.xml": story(
                "endnotes", '<w:endnote w:id="1">' + para(run("An endnote")) + "</w:endnote>"
            ),
            "word/comments.xml": story(
                "comments",
                '<w:comment w:id="0" w:author="Ann">' + para(run("A comment")) + "</w:comment>",
            ),
        },
    )
    document = CODEC.read(data)
    assert [(b.id, plain_text(b.source)) for b in document.blocks] == [
        ("word/document.xml#p1", "Body"),
        ("word/header1.xml#p1", "Head"),
        ("word/footer1.xml#p1", "Foot"),
        ("word/footnotes.xml#p2", "A note"),
        ("word/endnotes.xml#p1", "An endnote"),
        ("word/comments.xml#p1", "A comment"),
    ]
    assert document.blocks[-1].properties["author"] == "Ann"
    out = CODEC.write(_edit(document, "word/footnotes.xml#p2", (Text("Une note"),)))
    assert changed_entries(data, out) == ["word/footnotes.xml"]


def test_bookmarks_at_the_edges_stay_out_of_the_text() -> None:
    data = docx(
        para(
            '<w:bookmarkStart w:id="0" w:name="_Toc1"/>'
            + run("Title")
            + '<w:bookmarkEnd w:id="0"/>'
        )
    )
    document = CODEC.read(data)
    assert document.blocks[0].source == (Text("Title"),)
    out = CODEC.write(_edit(document, "word/document.xml#p1", (Text("Titre"),)))
    assert _body(out) == para(
        '<w:bookmarkStart w:id="0" w:name="_Toc1"/>' + run("Titre") + '<w:bookmarkEnd w:id="0"/>'
    )


# -- writing ---------------------------------------------------------------------


def test_no_op_write_is_byte_identical() -> None:
    data = docx(para(TRACKED) + para(run("Anchor") + TEXT_BOX))
    assert CODEC.write(CODEC.read(data)) == data


def test_one_word_edit_changes_one_text_node() -> None:
    data = docx(
        para(run("Press ") + run("Save", BOLD) + run(" to keep your work")) + para(run("Other"))
    )
    document = CODEC.read(data)
    runs = document.blocks[0].source
    out = CODEC.write(
        _edit(document, "word/document.xml#p1", (*runs[:-1], Text(" to keep all work")))
    )
    assert _body(out) == _body(data).replace(" to keep your work", " to keep all work")
    assert changed_entries(data, out) == ["word/document.xml"]


def test_edge_whitespace_adds_xml_space_preserve() -> None:
    data = docx(para(run("Plain")))
    document = CODEC.read(data)
    out = CODEC.write(_edit(document, "word/document.xml#p1", (Text(" padded "),)))
    assert _body(out) == para('<w:r><w:t xml:space="preserve"> padded </w:t></w:r>')


def test_awkward_characters_are_escaped_and_round_trip() -> None:
    document = CODEC.read(docx(para(run("Plain"))))
    text = "a < b & c > \"d\" 'e' ]]> \u00e9\U0001f600"
    out = CODEC.write(_edit(document, "word/document.xml#p1", (Text(text),)))
    assert CODEC.read(out).blocks[0].source == (Text(text),)
    assert "a &lt; b &amp; c &gt; \"d\" 'e' ]]&gt;" in _body(out)


def test_tab_and_newline_in_text_become_elements() -> None:
    document = CODEC.read(docx(para(run("Plain"))))
    out = CODEC.write(_edit(document, "word/document.xml#p1", (Text("a\tb\nc"),)))
    assert _body(out) == para(
        '<w:r><w:t>a</w:t><w:tab/><w:t xml:space="preserve">b</w:t><w:br/>'
        '<w:t xml:space="preserve">c</w:t></w:r>'
    )
    assert plain_text(CODEC.read(out).blocks[0].source) == "a\tb\nc"


def test_control_characters_are_refused() -> None:
    document = CODEC.read(docx(para(run("Plain"))))
    with pytest.raises(WriteRefused) as caught:
        CODEC.write(_edit(document, "word/document.xml#p1", (Text("bell\x07"),)))
    assert caught.value.capability == "characters"


def test_empty_self_closing_text_node_takes_new_text() -> None:
    data = docx(para(run("A") + "<w:r>" + BOLD + "<w:t/></w:r>"))
    document = CODEC.read(data)
    runs = document.blocks[0].source
    assert runs[1:] == (
        PcOpen(id="1", type="fmt:bold", sub_type="docx:run", data="<w:r><w:rPr><w:b/></w:rPr>"),
        PcClose(id="1", type="fmt:bold", sub_type="docx:run", data="</w:r>"),
    )
    out = CODEC.write(
        _edit(document, "word/document.xml#p1", (runs[0], runs[1], Text(" B "), runs[2]))
    )
    assert _body(out) == para(
        run("A") + "<w:r>" + BOLD + '<w:t xml:space="preserve"> B </w:t></w:r>'
    )


def test_text_added_between_two_codes_gets_a_base_run() -> None:
    data = docx(para(run("Plain") + run("bold", BOLD) + run("italic", "<w:rPr><w:i/></w:rPr>")))
    document = CODEC.read(data)
    runs = document.blocks[0].source
    out = CODEC.write(
        _edit(document, "word/document.xml#p1", (*runs[:4], Text(" and "), *runs[4:]))
    )
    assert _body(out) == para(
        run("Plain") + run("bold", BOLD) + run(" and ") + run("italic", "<w:rPr><w:i/></w:rPr>")
    )


def test_dropping_a_formatting_pair_rebuilds_the_runs() -> None:
    data = docx(para(run("Press ") + run("Save", BOLD) + run(" now")))
    document = CODEC.read(data)
    out = CODEC.write(_edit(document, "word/document.xml#p1", (Text("Press Save now"),)))
    assert _body(out) == para(run("Press Save now"))


def test_moving_and_cloning_pairs_rebuilds_with_their_markup() -> None:
    data = docx(para(run("Press ") + run("Save", BOLD) + run(" now")))
    document = CODEC.read(data)
    runs = document.blocks[0].source
    opening, closing = runs[1], runs[3]
    assert isinstance(opening, PcOpen) and isinstance(closing, PcClose)
    edited = (
        opening,
        Text("Speichern"),
        closing,
        Text(" und "),
        PcOpen(id="9", type=opening.type, sub_type=opening.sub_type, data=opening.data),
        Text("jetzt"),
        PcClose(id="9", type=closing.type, sub_type=closing.sub_type, data=closing.data),
    )
    out = CODEC.write(_edit(document, "word/document.xml#p1", edited))
    assert _body(out) == para(run("Speichern", BOLD) + run(" und ") + run("jetzt", BOLD))
    assert plain_text(CODEC.read(out).blocks[0].source) == "Speichern und jetzt"


def test_new_line_break_without_markup_is_synthesized_and_bold_is_refused() -> None:
    document = CODEC.read(docx(para(run("One two"))))
    out = CODEC.write(
        _edit(
            document,
            "word/document.xml#p1",
            (Text("One"), Ph(id="1", type="fmt:linebreak"), Text("two")),
        )
    )
    assert _body(out) == para("<w:r><w:t>One</w:t><w:br/><w:t>two</w:t></w:r>")
    with pytest.raises(WriteRefused) as caught:
        CODEC.write(
            _edit(
                document,
                "word/document.xml#p1",
                (PcOpen(id="1", type="fmt:bold"), Text("One"), PcClose(id="1", type="fmt:bold")),
            )
        )
    assert caught.value.capability == "synthesize:fmt:bold"


def test_unbalanced_codes_are_refused() -> None:
    data = docx(para(run("Visit ") + '<w:hyperlink w:anchor="x">' + run("here") + "</w:hyperlink>"))
    document = CODEC.read(data)
    runs = document.blocks[0].source
    with pytest.raises(WriteRefused) as caught:
        CODEC.write(_edit(document, "word/document.xml#p1", (runs[0], runs[1], runs[2])))
    assert caught.value.capability == "codes"


def test_other_editions_are_refused() -> None:
    from kapi.core.model import Edition

    document = CODEC.read(docx(para(run("Hello"))))
    block = document.blocks[0].with_target("fr", Edition(runs=(Text("Bonjour"),)))
    with pytest.raises(WriteRefused) as caught:
        CODEC.write(document.with_blocks((block,)))
    assert caught.value.capability == "edition"


def test_python_docx_reads_the_edited_file() -> None:
    docx_lib = pytest.importorskip("docx")
    made = docx_lib.Document()
    made.add_heading("Quarterly report", 1)
    paragraph = made.add_paragraph("Sales rose ")
    paragraph.add_run("sharply").bold = True
    paragraph.add_run(" this quarter.")
    buffer = io.BytesIO()
    made.save(buffer)
    data = buffer.getvalue()
    document = CODEC.read(data)
    runs = document.blocks[1].source
    out = CODEC.write(
        _edit(
            document,
            document.blocks[1].id,
            (Text("Les ventes ont "), *runs[1:4], Text(" augmenté.")),
        )
    )
    reread = docx_lib.Document(io.BytesIO(out))
    assert reread.paragraphs[1].text == "Les ventes ont sharply augmenté."
    assert reread.paragraphs[1].runs[1].bold is True
    assert changed_entries(data, out) == ["word/document.xml"]


@pytest.mark.skipif(
    shutil.which("soffice") is None, reason="LibreOffice (soffice) is not installed"
)
def test_libreoffice_converts_the_edited_file_to_pdf(tmp_path: Path) -> None:
    data = docx(
        para(run("Press ") + run("Save", BOLD) + run(" now"))
        + para(TRACKED)
        + para(run("Anchor") + TEXT_BOX)
    )
    document = CODEC.read(data)
    runs = document.blocks[0].source
    edited = _edit(
        document, "word/document.xml#p1", (Text("Drücken Sie "), *runs[1:4], Text(" jetzt"))
    )
    edited = _edit(edited, "word/document.xml#p3", (Text("Kasten"),))
    source = tmp_path / "edited.docx"
    source.write_bytes(CODEC.write(edited))
    _convert_to_pdf(source, tmp_path)


def _convert_to_pdf(source: Path, folder: Path) -> None:
    profile = folder / "profile"
    result = subprocess.run(
        [
            "soffice",
            f"-env:UserInstallation=file://{profile}",
            "--headless",
            "--convert-to",
            "pdf",
            "--outdir",
            str(folder),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    pdf = source.with_suffix(".pdf")
    assert result.returncode == 0, result.stderr
    assert pdf.exists() and pdf.read_bytes().startswith(b"%PDF"), result.stdout + result.stderr


# -- properties --------------------------------------------------------------------

_WORDS = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\ufffe\uffff"),
    min_size=1,
    max_size=12,
)
_RUN = st.tuples(_WORDS, st.sampled_from(["", BOLD, "<w:rPr><w:i/></w:rPr>"]))


def _paragraph_xml(runs: list[tuple[str, str]]) -> str:
    from xml.sax.saxutils import escape

    return para(
        "".join(
            f'<w:r>{props}<w:t xml:space="preserve">{escape(text)}</w:t></w:r>'
            for text, props in runs
        )
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(_RUN, min_size=1, max_size=4), min_size=1, max_size=4))
def test_generated_documents_round_trip_unchanged(paragraphs: list[list[tuple[str, str]]]) -> None:
    data = docx("".join(_paragraph_xml(runs) for runs in paragraphs))
    assert CODEC.write(CODEC.read(data)) == data


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_RUN, min_size=1, max_size=4), st.data())
def test_a_random_text_edit_reads_back(runs: list[tuple[str, str]], data: st.DataObject) -> None:
    source = docx(_paragraph_xml(runs))
    document = CODEC.read(source)
    if not document.blocks:
        return
    block = document.blocks[0]
    texts = [index for index, item in enumerate(block.source) if isinstance(item, Text)]
    index = data.draw(st.sampled_from(texts))
    new_text = data.draw(
        _WORDS.filter(lambda text: "\t" not in text and "\n" not in text and "\r" not in text)
    )
    edited = (*block.source[:index], Text(new_text), *block.source[index + 1 :])
    out = CODEC.write(_edit(document, block.id, edited))
    again = CODEC.read(out)
    assert plain_text(again.blocks[0].source) == plain_text(edited)
    if any(not props for _text, props in runs):
        # Plain runs are the base whatever the lengths, so the codes come back as written.
        assert [r for r in again.blocks[0].source if not isinstance(r, Text)] == [
            r for r in edited if not isinstance(r, Text)
        ]
