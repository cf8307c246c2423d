"""The plain-text codec: one block per paragraph, writes that touch only the edited paragraph."""

from __future__ import annotations

from pathlib import Path

import pytest
from attrs import evolve
from hypothesis import given, settings
from hypothesis import strategies as st

from kapi.core.format import FormatError, Limits, WriteRefused
from kapi.core.model import Document, Edition, Ph, Text
from kapi.formats.plaintext import PlainTextFormat
from kapi.formats.registry import load_codec

FIXTURES = Path(__file__).parent / "fixtures" / "text"
CODEC = PlainTextFormat()


def read(name: str) -> tuple[bytes, Document]:
    data = (FIXTURES / name).read_bytes()
    return data, CODEC.read(data, path=name)


def set_text(document: Document, block_id: str, text: str) -> bytes:
    return CODEC.write(
        document.with_blocks(
            tuple(b.with_source((Text(text),)) if b.id == block_id else b for b in document.blocks)
        )
    )


def test_the_registry_loads_this_codec() -> None:
    assert isinstance(load_codec("plaintext"), PlainTextFormat)


def test_paragraphs_are_blocks_and_line_breaks_are_text() -> None:
    _, document = read("notes.txt")
    assert [(b.id, b.name, b.role, b.source) for b in document.blocks] == [
        ("p1", "p1", "paragraph", (Text("Kapi notes"),)),
        ("p2", "p2", "paragraph", (Text("  An indented paragraph\n  over two lines.   "),)),
        ("p3", "p3", "paragraph", (Text("Last paragraph after two blank lines."),)),
    ]
    assert document.locale == "en" and CODEC.read(b"x", locale="pt_BR").blocks[0].locale == "pt-BR"


def test_crlf_and_bom_are_read_as_plain_line_breaks() -> None:
    _, document = read("windows.txt")
    assert [b.source for b in document.blocks] == [
        (Text("First line\nsecond line"),),
        (Text("Änother paragraph"),),
    ]


@pytest.mark.parametrize("name", ["notes.txt", "windows.txt"])
def test_unchanged_documents_write_back_identical(name: str) -> None:
    data, document = read(name)
    assert CODEC.write(document) == data


def test_an_edit_changes_only_that_paragraph() -> None:
    data, document = read("notes.txt")
    out = set_text(document, "p2", "Un paragraphe\nsur deux lignes.")
    assert out == data.replace(
        b"  An indented paragraph\n  over two lines.   ", b"Un paragraphe\nsur deux lignes."
    )


def test_new_line_breaks_follow_the_paragraphs_newlines() -> None:
    _, document = read("windows.txt")
    out = set_text(document, "p1", "Première\nseconde\ntroisième")
    assert out == "\ufeffPremière\r\nseconde\r\ntroisième\r\n\r\nÄnother paragraph".encode()


def test_edits_that_would_split_or_empty_a_paragraph_are_refused() -> None:
    _, document = read("notes.txt")
    for value in ("a\n\nb", "", "a\n   \nb", "\nleading"):
        with pytest.raises(WriteRefused) as refused:
            set_text(document, "p1", value)
        assert refused.value.capability == "paragraph-break"
    with pytest.raises(WriteRefused) as refused:
        CODEC.write(
            document.with_blocks(
                tuple(
                    b.with_source((Ph("1", "code:placeholder", data="{x}"),))
                    for b in document.blocks
                )
            )
        )
    assert refused.value.capability == "run:code:placeholder"
    with pytest.raises(WriteRefused) as refused:
        CODEC.write(
            document.with_blocks(
                tuple(b.with_target("fr", Edition((Text("x"),))) for b in document.blocks)
            )
        )
    assert refused.value.capability == "edition"
    with pytest.raises(WriteRefused):
        CODEC.write(evolve(document, skeleton=None))


def test_bad_input_is_refused_with_its_position() -> None:
    with pytest.raises(FormatError) as failed:
        CODEC.read(b"fine\n\nbad \xe9 latin-1\n", path="notes.txt")
    assert (failed.value.line, failed.value.column, failed.value.code) == (3, 5, "unsupported")
    assert failed.value.capability == "encoding" and "ISO-8859-1" in failed.value.message
    with pytest.raises(FormatError) as failed:
        PlainTextFormat(Limits(max_bytes=3)).read(b"four")
    assert failed.value.code == "budget_exceeded"
    with pytest.raises(FormatError) as failed:
        PlainTextFormat(Limits(max_entries=1)).read(b"a\n\nb\n")
    assert failed.value.code == "budget_exceeded"


_TEXT = st.text(alphabet=st.sampled_from(list("ab \t\n\r\u00e9\u4e2d.")), max_size=60)
_PARAGRAPH = st.lists(
    st.text(alphabet="abc xyz.\u00e9", min_size=1, max_size=12).filter(lambda s: s.strip()),
    min_size=1,
    max_size=4,
).map("\n".join)


@settings(max_examples=300, deadline=None)
@given(_TEXT, st.booleans())
def test_any_text_round_trips(text: str, bom: bool) -> None:
    data = (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")
    assert CODEC.write(CODEC.read(data)) == data


@settings(max_examples=300, deadline=None)
@given(_TEXT, st.data())
def test_any_new_paragraph_reads_back(text: str, data: st.DataObject) -> None:
    document = CODEC.read(text.encode("utf-8"))
    if not document.blocks:
        return
    target = data.draw(st.sampled_from(document.blocks))
    value = data.draw(_PARAGRAPH)
    again = CODEC.read(set_text(document, target.id, value))
    assert [b.id for b in again.blocks] == [b.id for b in document.blocks]
    for before, after in zip(document.blocks, again.blocks):
        assert after.source == ((Text(value),) if before.id == target.id else before.source)
