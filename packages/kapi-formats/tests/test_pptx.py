"""PowerPoint decks: shape paragraphs keyed by slide and shape, edited in place."""

from __future__ import annotations

import importlib.util
import io
import shutil
import subprocess
import sys
from pathlib import Path
from xml.sax.saxutils import escape

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kapi.core.format import WriteRefused
from kapi.core.model import Document, PcClose, PcOpen, Ph, Runs, Text, plain_text
from kapi.formats.office.pptx import PptxFormat
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
CODEC = PptxFormat()

TITLE = (
    '<a:p><a:r><a:rPr lang="en-US" dirty="0"/><a:t>Quarterly </a:t></a:r>'
    '<a:r><a:rPr lang="en-US" err="1"/><a:t>review</a:t></a:r></a:p>'
)
BODY = (
    '<a:p><a:pPr lvl="0"/><a:r><a:rPr lang="en-US"/><a:t>Sales </a:t></a:r>'
    '<a:r><a:rPr lang="en-US" b="1"/><a:t>rose</a:t></a:r>'
    '<a:br><a:rPr lang="en-US"/></a:br>'
    '<a:r><a:rPr lang="en-US"/><a:t>Slide </a:t></a:r>'
    '<a:fld id="{5C1E}" type="slidenum"><a:rPr lang="en-US"/><a:t>1</a:t></a:fld>'
    '<a:endParaRPr lang="en-US"/></a:p>'
    '<a:p><a:r><a:rPr lang="en-US"/><a:t>Read the </a:t></a:r>'
    '<a:r><a:rPr lang="en-US"><a:hlinkClick r:id="rIdH"/></a:rPr><a:t>report</a:t></a:r></a:p>'
    '<a:p><a:endParaRPr lang="en-US"/></a:p>'
    '<a:p><a:r><a:rPr lang="en-US"/><a:t>Last &amp; final</a:t></a:r></a:p>'
)
TABLE = (
    '<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="4" name="Table"/><p:cNvGraphicFramePr/><p:nvPr/>'
    '</p:nvGraphicFramePr><p:xfrm/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table">'
    '<a:tbl><a:tr h="1"><a:tc><a:txBody><a:bodyPr/><a:p><a:r><a:rPr lang="en-US"/><a:t>Region</a:t></a:r></a:p>'
    '</a:txBody></a:tc><a:tc><a:txBody><a:bodyPr/><a:p><a:r><a:rPr lang="en-US"/><a:t>Total</a:t></a:r></a:p>'
    "</a:txBody></a:tc></a:tr></a:tbl></a:graphicData></a:graphic></p:graphicFrame>"
)
NOTES = fx.shape(2, '<a:p><a:r><a:rPr lang="en-US"/><a:t>Speaker note</a:t></a:r></a:p>', "body")


def _deck() -> bytes:
    return fx.pptx(
        [
            fx.shape(2, TITLE, "title") + fx.shape(3, BODY) + TABLE,
            fx.shape(2, "<a:p><a:r><a:t>Second</a:t></a:r></a:p>"),
        ],
        notes={1: NOTES},
        slide_rels={1: [("rIdH", "hyperlink", "https://example.com/report")]},
    )


def _edit(document: Document, changes: dict[str, Runs]) -> Document:
    return document.with_blocks(
        tuple(
            block.with_source(changes[block.id]) if block.id in changes else block
            for block in document.blocks
        )
    )


def _slide(data: bytes, number: int = 1) -> str:
    return fx.entries(data)[f"ppt/slides/slide{number}.xml"].decode("utf-8")


def test_registry_flags() -> None:
    assert isinstance(load_codec("pptx"), PptxFormat)
    spec = get("pptx")
    assert spec.editable and spec.round_trip and not spec.generative


def test_paragraphs_are_keyed_by_slide_shape_and_position() -> None:
    document = CODEC.read(_deck(), path="deck.pptx")
    summary = [(b.id, b.role, b.level, plain_text(b.source)) for b in document.blocks]
    assert summary == [
        ("slide1/shape2/p1", "heading", 1, "Quarterly review"),
        ("slide1/shape3/p1", "", 0, "Sales rose\nSlide 1"),
        ("slide1/shape3/p2", "", 0, "Read the report"),
        ("slide1/shape3/p4", "", 0, "Last & final"),
        ("slide1/shape4/r1c1/p1", "table-cell", 0, "Region"),
        ("slide1/shape4/r1c2/p1", "table-cell", 0, "Total"),
        ("slide1/notes/shape2/p1", "", 0, "Speaker note"),
        ("slide2/shape2/p1", "", 0, "Second"),
        ("slideMaster1/shape2/p1", "heading", 1, "Click to edit Master title style"),
        ("slideLayout1/shape3/p1", "", 0, "Layout prompt"),
    ]
    assert document.blocks[0].properties == {"part": "ppt/slides/slide1.xml", "slide": "1"}


def test_runs_breaks_fields_and_links_are_codes() -> None:
    document = CODEC.read(_deck())
    body = document.blocks[1].source
    assert body == (
        Text("Sales "),
        PcOpen(
            id="1", type="fmt:bold", sub_type="pptx:run", data='<a:r><a:rPr lang="en-US" b="1"/>'
        ),
        Text("rose"),
        PcClose(id="1", type="fmt:bold", sub_type="pptx:run", data="</a:r>"),
        Ph(
            id="2",
            type="fmt:linebreak",
            sub_type="pptx:br",
            data='<a:br><a:rPr lang="en-US"/></a:br>',
            equiv="\n",
        ),
        Text("Slide "),
        Ph(
            id="3",
            type="code:field",
            sub_type="pptx:fld",
            data='<a:fld id="{5C1E}" type="slidenum"><a:rPr lang="en-US"/><a:t>1</a:t></a:fld>',
            equiv="1",
            attrs={"field": "slidenum"},
        ),
    )
    link = document.blocks[2].source[1]
    assert isinstance(link, PcOpen)
    assert (link.type, link.attrs) == ("link:hyperlink", {"href": "https://example.com/report"})


def test_no_op_write_is_byte_identical() -> None:
    data = _deck()
    assert CODEC.write(CODEC.read(data)) == data


def test_one_word_edit_changes_one_text_node() -> None:
    data = _deck()
    document = CODEC.read(data)
    runs = document.blocks[1].source
    out = CODEC.write(_edit(document, {"slide1/shape3/p1": (Text("Revenue "), *runs[1:])}))
    assert _slide(out) == _slide(data).replace("<a:t>Sales </a:t>", "<a:t>Revenue </a:t>")
    assert fx.changed_entries(data, out) == ["ppt/slides/slide1.xml"]


def test_spell_check_split_runs_merge_and_edit_spreads_minimally() -> None:
    data = _deck()
    document = CODEC.read(data)
    assert document.blocks[0].source == (Text("Quarterly review"),)
    out = CODEC.write(_edit(document, {"slide1/shape2/p1": (Text("Quarterly results"),)}))
    assert _slide(out) == _slide(data).replace("<a:t>review</a:t>", "<a:t>results</a:t>")


def test_newline_becomes_a_line_break_between_runs() -> None:
    document = CODEC.read(_deck())
    out = CODEC.write(_edit(document, {"slide1/shape3/p4": (Text("Last\nfinal <x>"),)}))
    assert (
        '<a:r><a:rPr lang="en-US"/><a:t>Last</a:t></a:r><a:br/><a:r><a:rPr lang="en-US"/>'
        "<a:t>final &lt;x&gt;</a:t></a:r>"
    ) in _slide(out)
    again = {b.id: b.source for b in CODEC.read(out).blocks}
    assert plain_text(again["slide1/shape3/p4"]) == "Last\nfinal <x>"


def test_notes_table_and_layout_edits_touch_their_own_parts() -> None:
    data = _deck()
    document = CODEC.read(data)
    out = CODEC.write(
        _edit(
            document,
            {
                "slide1/notes/shape2/p1": (Text("Notiz"),),
                "slideLayout1/shape3/p1": (Text("Vorlage"),),
            },
        )
    )
    assert fx.changed_entries(data, out) == [
        "ppt/notesSlides/notesSlide1.xml",
        "ppt/slideLayouts/slideLayout1.xml",
    ]


def test_dropping_the_bold_pair_rebuilds_the_paragraph() -> None:
    document = CODEC.read(_deck())
    runs = document.blocks[1].source
    out = CODEC.write(_edit(document, {"slide1/shape3/p1": (Text("Sales rose"), *runs[4:])}))
    assert (
        '<a:p><a:pPr lvl="0"/><a:r><a:rPr lang="en-US"/><a:t>Sales rose</a:t></a:r>'
        '<a:br><a:rPr lang="en-US"/></a:br><a:r><a:rPr lang="en-US"/><a:t>Slide </a:t></a:r>'
        '<a:fld id="{5C1E}" type="slidenum"><a:rPr lang="en-US"/><a:t>1</a:t></a:fld>'
        '<a:endParaRPr lang="en-US"/></a:p>'
    ) in _slide(out)


def test_control_characters_are_refused() -> None:
    document = CODEC.read(_deck())
    with pytest.raises(WriteRefused) as caught:
        CODEC.write(_edit(document, {"slide2/shape2/p1": (Text("\x01"),)}))
    assert caught.value.capability == "characters"


def test_python_pptx_reads_the_edited_deck() -> None:
    pptx_lib = pytest.importorskip("pptx")
    made = pptx_lib.Presentation()
    slide = made.slides.add_slide(made.slide_layouts[1])
    slide.shapes.title.text = "Plan"
    frame = slide.placeholders[1].text_frame
    frame.text = "First point"
    run = frame.add_paragraph().add_run()
    run.text = "Bold point"
    run.font.bold = True
    buffer = io.BytesIO()
    made.save(buffer)
    data = buffer.getvalue()
    document = CODEC.read(data)
    slide_blocks = [b for b in document.blocks if b.id.startswith("slide1/")]
    assert [plain_text(b.source) for b in slide_blocks] == ["Plan", "First point", "Bold point"]
    out = CODEC.write(_edit(document, {slide_blocks[1].id: (Text("Erster Punkt"),)}))
    reread = pptx_lib.Presentation(io.BytesIO(out))
    assert reread.slides[0].placeholders[1].text_frame.paragraphs[0].text == "Erster Punkt"
    assert fx.changed_entries(data, out) == ["ppt/slides/slide1.xml"]


@pytest.mark.skipif(
    shutil.which("soffice") is None, reason="LibreOffice (soffice) is not installed"
)
def test_libreoffice_converts_the_edited_deck_to_pdf(tmp_path: Path) -> None:
    pptx_lib = pytest.importorskip("pptx")
    made = pptx_lib.Presentation()
    slide = made.slides.add_slide(made.slide_layouts[1])
    slide.shapes.title.text = "Plan"
    slide.placeholders[1].text_frame.text = "First point"
    buffer = io.BytesIO()
    made.save(buffer)
    document = CODEC.read(buffer.getvalue())
    source = tmp_path / "edited.pptx"
    source.write_bytes(CODEC.write(_edit(document, {"slide1/shape2/p1": (Text("Planung"),)})))
    result = subprocess.run(
        [
            "soffice",
            f"-env:UserInstallation=file://{tmp_path / 'profile'}",
            "--headless",
            "--convert-to",
            "pdf",
            "--outdir",
            str(tmp_path),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, result.stderr
    assert source.with_suffix(".pdf").read_bytes().startswith(b"%PDF")


_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\ufffe\uffff"),
    min_size=1,
    max_size=15,
).filter(lambda text: text.strip() != "")


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_TEXT, min_size=1, max_size=5), st.data())
def test_generated_decks_round_trip_and_take_edits(texts: list[str], data: st.DataObject) -> None:
    paragraphs = "".join(
        f'<a:p><a:r><a:rPr lang="en-US"/><a:t>{escape(text)}</a:t></a:r></a:p>' for text in texts
    )
    deck = fx.pptx([fx.shape(5, paragraphs)])
    document = CODEC.read(deck)
    slide_blocks = [b for b in document.blocks if b.id.startswith("slide1/")]
    assert [plain_text(b.source) for b in slide_blocks] == texts
    assert CODEC.write(document) == deck
    target = data.draw(st.sampled_from([b.id for b in slide_blocks]))
    new_text = data.draw(_TEXT)
    out = CODEC.write(_edit(document, {target: (Text(new_text),)}))
    again = {b.id: plain_text(b.source) for b in CODEC.read(out).blocks}
    assert again[target] == new_text
