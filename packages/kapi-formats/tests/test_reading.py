"""Reading a document through the one reader, and where its blocks stand in the file."""

from __future__ import annotations

import pytest

from kapi.core.format import FormatCodec, FormatError
from kapi.formats import registry
from kapi.formats.reading import read_document, read_file

MARKDOWN = b"# Title\n\nOne paragraph\nover two lines.\n\nAnother.\n"


def test_a_path_is_read_by_the_format_its_name_and_bytes_tell(tmp_path):
    path = tmp_path / "guide.md"
    path.write_bytes(MARKDOWN)
    data, document, spec = read_document(path, display="guide.md", locale="en")
    assert (data, spec.name, document.format) == (MARKDOWN, "markdown", "markdown")


def test_bytes_are_read_by_the_format_named_whatever_the_name_says():
    _, document, spec = read_document(b"Hello\n", display="-", locale="en", format_name="plaintext")
    assert spec.name == "plaintext"
    assert [block.ref_key for block in document.blocks] == ["p1"]


def test_a_file_no_format_reads_is_an_unknown_format_or_an_unsupported_refusal(tmp_path):
    path = tmp_path / "image.bin"
    path.write_bytes(b"\x89PNG")
    with pytest.raises(registry.UnknownFormat):
        read_document(path, display="image.bin", locale="en")
    with pytest.raises(registry.UnknownFormat):
        read_document(b"x", display="-", locale="en", format_name="nonesuch")
    with pytest.raises(FormatError) as raised:
        read_file(path, display="image.bin", locale="en")
    assert raised.value.code == "unsupported"
    assert raised.value.located().startswith("image.bin: no format reads files like this")


def test_every_codec_is_the_format_port():
    for spec in registry.all_formats():
        assert isinstance(registry.load_codec(spec), FormatCodec), spec.name


def test_block_lines_give_the_first_and_last_line_of_each_block():
    codec = registry.load_codec("markdown")
    document = codec.read(MARKDOWN, path="guide.md", locale="en")
    assert codec.block_lines(document) == {"s1": (1, 1), "s1/p1": (3, 4), "s1/p2": (6, 6)}


def test_block_lines_are_none_where_a_format_tells_none():
    from tests.office_made import office_bytes

    codec = registry.load_codec("docx")
    document = codec.read(office_bytes("docx"), path="a.docx", locale="en")
    assert codec.block_lines(document) is None  # a zip of XML parts has no lines
    json_codec = registry.load_codec("json")
    catalogue = json_codec.read(b'{"title": "Welcome"}\n', path="en.json", locale="en")
    assert json_codec.block_lines(catalogue) == {"title": (1, 1)}
    markdown = registry.load_codec("markdown")
    assert markdown.block_lines(catalogue) is None  # not a document it read
