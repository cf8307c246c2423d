"""The OOXML container: bad packages are refused clearly, and the writer copies what it did not edit."""

from __future__ import annotations

import importlib.util
import io
import struct
import sys
import zipfile
from pathlib import Path

import pytest

from kapi.core.format import FormatError, Limits
from kapi.core.model import Text
from kapi.formats.office.docx import DocxFormat
from kapi.formats.office.package import open_package, write_package
from kapi.formats.office.xlsx import XlsxFormat
from kapi.formats.office.xmlsplice import Splicer
from kapi.formats.registry import load_codec


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
changed_entries, content_types, docx, entries = (
    fx.changed_entries,
    fx.content_types,
    fx.docx,
    fx.entries,
)
para, raw_entries, rels_xml, run, zip_parts = (
    fx.para,
    fx.raw_entries,
    fx.rels_xml,
    fx.run,
    fx.zip_parts,
)


def _refused(
    tmp_path: Path, data: bytes, name: str = "report.docx", codec: object = None
) -> FormatError:
    """Read ``data`` from a file through the codec; the file must be left as it was."""
    target = tmp_path / name
    target.write_bytes(data)
    before = target.stat().st_mtime_ns
    reader = codec or DocxFormat()
    with pytest.raises(FormatError) as caught:
        reader.read(target.read_bytes(), path=str(target))  # type: ignore[attr-defined]
    assert target.read_bytes() == data
    assert target.stat().st_mtime_ns == before
    assert caught.value.path == str(target)
    return caught.value


def test_zip_bomb_by_ratio_is_budget_exceeded(tmp_path: Path) -> None:
    bomb = docx(para(run("Hello")), parts={"word/media/padding.bin": b"\0" * (16 * 1024 * 1024)})
    error = _refused(tmp_path, bomb)
    assert error.code == "budget_exceeded"
    assert error.capability == "zip-bomb"
    assert "word/media/padding.bin" in error.message


def test_zip_bomb_by_total_size_is_budget_exceeded(tmp_path: Path) -> None:
    data = docx(para(run("Hello")), parts={"word/media/a.bin": bytes(range(256)) * 4096})
    error = _refused(tmp_path, data, codec=DocxFormat(Limits(max_unpacked_bytes=512 * 1024)))
    assert error.code == "budget_exceeded"
    assert "expands to more than" in error.message


def test_too_many_entries_is_budget_exceeded(tmp_path: Path) -> None:
    data = docx(para(run("Hello")), parts={f"extra/{n}.xml": "<a/>" for n in range(20)})
    error = _refused(tmp_path, data, codec=DocxFormat(Limits(max_entries=10)))
    assert error.code == "budget_exceeded"


def test_missing_content_types_is_invalid(tmp_path: Path) -> None:
    parts = entries(docx(para(run("Hello"))))
    del parts["[Content_Types].xml"]
    error = _refused(tmp_path, zip_parts(parts))
    assert error.code == "invalid"
    assert error.capability == "missing-part"
    assert "[Content_Types].xml" in error.message


def test_missing_package_relationships_is_invalid(tmp_path: Path) -> None:
    parts = entries(docx(para(run("Hello"))))
    del parts["_rels/.rels"]
    error = _refused(tmp_path, zip_parts(parts))
    assert error.code == "invalid"
    assert "_rels/.rels" in error.message


def test_missing_main_part_is_a_dangling_relationship(tmp_path: Path) -> None:
    parts = entries(docx(para(run("Hello"))))
    del parts["word/document.xml"]
    error = _refused(tmp_path, zip_parts(parts))
    assert error.code == "invalid"
    assert error.capability == "dangling-relationship"
    assert "word/document.xml" in error.message


def test_dangling_relationship_to_a_needed_part_is_invalid(tmp_path: Path) -> None:
    data = docx(para(run("Hello")), rels=[("rIdH", "header", "header1.xml")])
    error = _refused(tmp_path, data)
    assert error.code == "invalid"
    assert error.capability == "dangling-relationship"
    assert "word/header1.xml" in error.message


def test_dangling_relationship_to_an_unneeded_part_is_tolerated() -> None:
    data = docx(para(run("Hello")), rels=[("rIdI", "image", "media/missing.png")])
    document = DocxFormat().read(data)
    assert [block.source for block in document.blocks] == [(Text("Hello"),)]


def test_non_zip_named_docx_is_unsupported(tmp_path: Path) -> None:
    error = _refused(tmp_path, b"Dear team,\nthis is plain text.\n")
    assert error.code == "unsupported"
    assert error.capability == "not-zip"
    assert "not a zip" in error.message


def test_truncated_zip_is_invalid(tmp_path: Path) -> None:
    data = docx(para(run("Hello")))
    error = _refused(tmp_path, data[: len(data) // 2])
    assert error.code == "invalid"
    assert error.capability == "damaged"


def _ole(stream_name: str) -> bytes:
    header = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 504
    directory = stream_name.encode("utf-16-le").ljust(64, b"\0") + b"\0" * 64
    return header + directory + b"\0" * 1024


def test_encrypted_document_is_unsupported(tmp_path: Path) -> None:
    error = _refused(tmp_path, _ole("EncryptionInfo") + _ole("EncryptedPackage"))
    assert error.code == "unsupported"
    assert error.capability == "encrypted"
    assert "encrypted" in error.message


def test_legacy_binary_document_is_unsupported(tmp_path: Path) -> None:
    error = _refused(tmp_path, _ole("WordDocument"), name="old.docx")
    assert error.code == "unsupported"
    assert error.capability == "legacy-binary"


def test_encrypted_zip_entry_is_unsupported(tmp_path: Path) -> None:
    data = bytearray(docx(para(run("Hello"))))
    # Set the "encrypted" flag of word/document.xml in its central directory record.
    end = bytes(data).rfind(b"PK\x05\x06")
    cursor = struct.unpack("<I", data[end + 16 : end + 20])[0]
    while data[cursor : cursor + 4] == b"PK\x01\x02":
        name_len, extra_len, comment_len = struct.unpack("<HHH", data[cursor + 28 : cursor + 34])
        if data[cursor + 46 : cursor + 46 + name_len] == b"word/document.xml":
            data[cursor + 8] |= 0x01
        cursor += 46 + name_len + extra_len + comment_len
    error = _refused(tmp_path, bytes(data))
    assert error.code == "unsupported"
    assert error.capability == "encrypted"


def test_invalid_xml_in_a_part_names_part_line_and_column(tmp_path: Path) -> None:
    parts = entries(docx(para(run("Hello"))))
    parts["word/document.xml"] = parts["word/document.xml"].replace(b"<w:t>Hello", b"<w:t>Hel<lo")
    error = _refused(tmp_path, zip_parts(parts))
    assert error.code == "invalid"
    assert "word/document.xml" in error.message
    assert error.line == 2
    assert error.column is not None and error.column > 1


def test_doctype_in_a_part_is_refused(tmp_path: Path) -> None:
    parts = entries(docx(para(run("Hello"))))
    parts["word/document.xml"] = parts["word/document.xml"].replace(
        b"\r\n<w:document", b'\r\n<!DOCTYPE d [<!ENTITY a "aaaa">]><w:document', 1
    )
    error = _refused(tmp_path, zip_parts(parts))
    assert error.code == "invalid"
    assert "DOCTYPE" in error.message


def test_workbook_named_docx_is_unsupported(tmp_path: Path) -> None:
    workbook = load_codec("xlsx")
    assert isinstance(workbook, XlsxFormat)
    error = _refused(tmp_path, fx.xlsx([("Sheet1", "")]))
    assert error.code == "unsupported"
    assert error.capability == "wrong-kind"


def test_too_deep_xml_is_budget_exceeded(tmp_path: Path) -> None:
    deep = "<w:sdt><w:sdtContent>" * 120 + para(run("x")) + "</w:sdtContent></w:sdt>" * 120
    error = _refused(tmp_path, docx(deep))
    assert error.code == "budget_exceeded"


# -- the writer ------------------------------------------------------------------


def _metadata_rich_package() -> bytes:
    """Entries with different methods, dates, attributes, extras and comments."""
    base = entries(docx(para(run("Hello world"))))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.comment = b"archive comment"
        for number, (name, content) in enumerate(base.items()):
            info = zipfile.ZipInfo(name, date_time=(2020 + number, 1 + number, 2, 3, 4, 6))
            info.compress_type = zipfile.ZIP_STORED if number % 2 else zipfile.ZIP_DEFLATED
            info.external_attr = (0o640 + number) << 16
            info.create_system = number % 2
            info.comment = f"entry {number}".encode()
            info.extra = struct.pack("<HH", 0xCAFE, 4) + struct.pack("<I", number)
            archive.writestr(info, content, compresslevel=9 if number % 3 == 0 else None)
    return out.getvalue()


def _edit_first_word(data: bytes, word: str) -> bytes:
    codec = DocxFormat()
    document = codec.read(data)
    block = document.blocks[0]
    return codec.write(document.with_blocks((block.with_source((Text(word + " world"),)),)))


def test_untouched_entries_are_copied_byte_for_byte() -> None:
    data = _metadata_rich_package()
    out = _edit_first_word(data, "Goodbye")
    before, after = raw_entries(data), raw_entries(out)
    assert list(before) == list(after)
    for name in before:
        if name == "word/document.xml":
            assert before[name][0] == after[name][0]  # same metadata, new bytes
            assert before[name][1] != after[name][1]
        else:
            assert before[name] == after[name], name
    assert changed_entries(data, out) == ["word/document.xml"]
    with zipfile.ZipFile(io.BytesIO(out)) as archive:
        assert archive.testzip() is None
        assert archive.comment == b"archive comment"
        assert b"Goodbye world" in archive.read("word/document.xml")


def test_edited_entry_keeps_its_compression_method() -> None:
    data = docx(para(run("Hello world")))
    stored = zip_parts(entries(data), stored=frozenset({"word/document.xml"}))
    out = _edit_first_word(stored, "Hi")
    with zipfile.ZipFile(io.BytesIO(out)) as archive:
        assert archive.getinfo("word/document.xml").compress_type == zipfile.ZIP_STORED
        assert archive.testzip() is None


def test_no_op_write_returns_the_same_bytes() -> None:
    data = _metadata_rich_package()
    codec = DocxFormat()
    assert codec.write(codec.read(data)) == data


def test_entries_with_data_descriptors_are_rewritten_cleanly() -> None:
    # A zip written to a stream that cannot seek carries data descriptors.
    class Unseekable(io.RawIOBase):
        def __init__(self) -> None:
            self.buffer = bytearray()

        def writable(self) -> bool:
            return True

        def write(self, chunk: bytes) -> int:  # type: ignore[override]
            self.buffer += chunk
            return len(chunk)

    stream = Unseekable()
    with zipfile.ZipFile(stream, "w", zipfile.ZIP_DEFLATED) as archive:  # type: ignore[arg-type]
        for name, content in entries(docx(para(run("Hello world")))).items():
            archive.writestr(name, content)
    data = bytes(stream.buffer)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert any(info.flag_bits & 0x08 for info in archive.infolist())
    out = _edit_first_word(data, "Bye")
    assert changed_entries(data, out) == ["word/document.xml"]
    with zipfile.ZipFile(io.BytesIO(out)) as archive:
        assert archive.testzip() is None


def test_zip64_archive_falls_back_to_a_faithful_rewrite() -> None:
    out_buffer = io.BytesIO()
    with zipfile.ZipFile(out_buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in entries(docx(para(run("Hello world")))).items():
            with archive.open(name, "w", force_zip64=True) as handle:
                handle.write(content)
    data = out_buffer.getvalue()
    out = _edit_first_word(data, "Zip64")
    assert changed_entries(data, out) == ["word/document.xml"]
    with zipfile.ZipFile(io.BytesIO(data)) as old, zipfile.ZipFile(io.BytesIO(out)) as new:
        assert new.testzip() is None
        for before, after in zip(old.infolist(), new.infolist()):
            assert (
                before.filename,
                before.date_time,
                before.compress_type,
                before.external_attr,
            ) == (
                after.filename,
                after.date_time,
                after.compress_type,
                after.external_attr,
            )


def test_write_package_ignores_replacements_equal_to_the_original() -> None:
    data = docx(para(run("Hello")))
    package = open_package(data, kind="docx")
    assert write_package(package, {"word/document.xml": package.read("word/document.xml")}) == data


def test_part_names_are_found_case_insensitively() -> None:
    parts = entries(docx(para(run("Hello"))))
    parts["_rels/.rels"] = rels_xml([("rId1", "officeDocument", "Word/Document.xml")]).encode()
    parts["[Content_Types].xml"] = content_types(
        {
            "word/document.xml": "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
        }
    ).encode()
    document = DocxFormat().read(zip_parts(parts))
    assert document.blocks[0].source == (Text("Hello"),)


def test_splicer_applies_nested_replacements_inside_a_rebuilt_range() -> None:
    splicer = Splicer(b"<a><b>old</b><c>keep</c></a>")
    splicer.replace(6, 9, b"new")  # the text of <b>

    def rebuild(render_range):  # type: ignore[no-untyped-def]
        return b"<c>keep</c>" + render_range(3, 13)

    splicer.replace(3, 24, rebuild)
    assert splicer.render() == b"<a><c>keep</c><b>new</b></a>"
