"""The OOXML container: bad packages are refused clearly, and the writer copies what it did not edit."""

from __future__ import annotations

import importlib.util
import io
import json
import os
import random
import struct
import subprocess
import sys
import zipfile
import zlib
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
RawEntry, raw_package, raw_zip, understated = (
    fx.RawEntry,
    fx.raw_package,
    fx.raw_zip,
    fx.understated,
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


# -- zip bombs -------------------------------------------------------------------

MIB = 1024 * 1024
HELLO = para(run("Hello"))
HEAD = fx.document_xml(HELLO).encode()


def raw_docx(body: str, *replace: RawEntry) -> list[RawEntry]:
    return raw_package(docx(body), *replace)


def _lying_document(filler_mib: int) -> RawEntry:
    """word/document.xml declaring just its XML, then inflating spaces (XML allows them)."""
    return understated("word/document.xml", HEAD, filler_mib)


def _ratio_bomb() -> RawEntry:
    """word/document.xml declaring 32 MiB from 1 MiB (32 times, under every declared
    limit) whose deflate stream is 32 KiB of that MiB: the rest is padding."""
    stream = fx.deflate_repeated(HEAD, b" " * MIB, 32)
    crc = zlib.crc32(HEAD)
    for _ in range(32):
        crc = zlib.crc32(b" " * MIB, crc)
    padded = stream + bytes(MIB - len(stream))
    return RawEntry("word/document.xml", padded, size=len(HEAD) + 32 * MIB, crc=crc)


def _many_entries(records: int) -> bytes:
    """A docx whose central directory repeats its records to ``records`` or a few more."""
    items = raw_docx(HELLO)
    return raw_zip(items, directory_copies=-(-records // len(items)))


def test_headers_understating_a_part_are_refused_at_the_declared_size(tmp_path: Path) -> None:
    error = _refused(tmp_path, raw_zip(raw_docx(HELLO, _lying_document(filler_mib=1024))))
    assert error.code == "budget_exceeded"
    assert error.capability == "zip-bomb"
    assert f"part word/document.xml inflates past the {len(HEAD)} bytes its zip headers" in (
        error.message
    )


def test_declared_sizes_are_never_needed_to_stop_a_bomb() -> None:
    # A part inflates exactly what it declares, so reading it costs no more than that.
    package = open_package(raw_zip(raw_docx(HELLO, _lying_document(filler_mib=64))), kind="docx")
    with pytest.raises(FormatError, match="inflates past"):
        package.read("word/document.xml")
    honest = open_package(raw_zip(raw_docx(HELLO)), kind="docx")
    assert honest.read("word/document.xml") == HEAD


def test_ratio_is_checked_on_inflated_bytes_against_the_stream_consumed(tmp_path: Path) -> None:
    error = _refused(tmp_path, raw_zip(raw_docx(HELLO, _ratio_bomb())))
    assert error.code == "budget_exceeded"
    assert error.capability == "zip-bomb"
    assert "part word/document.xml expands more than 200 times (max_ratio)" in error.message


def _mostly_zeros(random_bytes: int) -> tuple[bytes, RawEntry]:
    """4 MiB of random bytes then zeros as word/media/blob.bin; its headers declare
    twice its compressed size, so only the bytes zlib consumes tell the real ratio."""
    content = random.Random(7).randbytes(random_bytes) + bytes(4 * MIB - random_bytes)
    stream = fx.deflate(content)
    entry = RawEntry(
        "word/media/blob.bin",
        stream + bytes(len(stream)),
        size=len(content),
        crc=zlib.crc32(content),
    )
    return content, entry


@pytest.mark.parametrize("random_bytes", [18_000, 15_000], ids=["under-200x", "over-200x"])
def test_a_part_just_under_the_ratio_is_read_and_just_over_is_refused(random_bytes: int) -> None:
    content, entry = _mostly_zeros(random_bytes)
    ratio = len(content) / len(fx.deflate(content))
    package = open_package(raw_zip(raw_docx(HELLO, entry)), kind="docx")
    if ratio < 200:
        assert ratio > 180
        assert package.read("word/media/blob.bin") == content
    else:
        assert ratio < 220
        with pytest.raises(FormatError, match=r"blob.bin expands more than 200 times") as caught:
            package.read("word/media/blob.bin")
        assert caught.value.code == "budget_exceeded"


def test_a_bomb_declared_as_one_is_refused_before_inflating(tmp_path: Path) -> None:
    bomb = docx(HELLO, parts={"word/media/padding.bin": b"\0" * (16 * MIB)})
    error = _refused(tmp_path, bomb)
    assert error.code == "budget_exceeded"
    assert error.capability == "zip-bomb"
    assert "zip entry word/media/padding.bin declares it expands" in error.message
    assert "max_ratio" in error.message


def test_declared_total_over_the_limit_is_budget_exceeded(tmp_path: Path) -> None:
    data = docx(HELLO, parts={"word/media/a.bin": bytes(range(256)) * 4096})
    error = _refused(tmp_path, data, codec=DocxFormat(Limits(max_unpacked_bytes=512 * 1024)))
    assert error.code == "budget_exceeded"
    assert "declare more than 512 KiB uncompressed in all (max_unpacked_bytes" in error.message


def test_a_part_over_the_part_limit_is_refused_before_inflating(tmp_path: Path) -> None:
    body = "".join(para(run(f"Paragraph {n} of the report.")) for n in range(3000))
    error = _refused(tmp_path, docx(body), codec=DocxFormat(Limits(max_part_bytes=64 * 1024)))
    assert error.code == "budget_exceeded"
    assert "part word/document.xml declares" in error.message
    assert "at most 64 KiB (max_part_bytes)" in error.message


def test_entries_are_counted_before_zipfile_reads_the_directory(tmp_path: Path) -> None:
    error = _refused(tmp_path, _many_entries(70_000))
    assert error.code == "budget_exceeded"
    assert "the limit is 65,535 entries (max_zip_entries)" in error.message


def test_the_entry_limit_counts_every_entry(tmp_path: Path) -> None:
    data = docx(HELLO, parts={f"extra/{n}.xml": "<a/>" for n in range(20)})
    assert len(DocxFormat(Limits(max_zip_entries=25)).read(data).blocks) == 1
    error = _refused(tmp_path, data, codec=DocxFormat(Limits(max_zip_entries=24)))
    assert error.code == "budget_exceeded"


def test_a_part_kapi_never_reads_is_copied_without_inflating() -> None:
    # A bomb in an entry no reader parses is not inflated: it is copied as it was.
    media = RawEntry("word/media/big.bin", _lying_document(1024).stream, size=10, crc=0)
    data = raw_zip(raw_docx(HELLO, media))
    out = _edit_first_word(data, "Goodbye")
    assert raw_entries(out)["word/media/big.bin"] == raw_entries(data)["word/media/big.bin"]


def test_a_rewrite_through_zipfile_inflates_within_the_same_budgets() -> None:
    # Bytes before the first entry send the writer through zipfile, which inflates all.
    media = RawEntry("word/media/big.bin", _lying_document(1024).stream, size=10, crc=0)
    data = b"prefix" + raw_zip(raw_docx(HELLO, media))
    with pytest.raises(FormatError, match=r"word/media/big\.bin inflates past") as caught:
        _edit_first_word(data, "Goodbye")
    assert caught.value.code == "budget_exceeded"
    assert _edit_first_word(b"prefix" + raw_zip(raw_docx(HELLO)), "Goodbye")


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


def _record(data: bytes | bytearray, name: str) -> int:
    """Where the central directory record of entry ``name`` starts."""
    cursor = struct.unpack("<I", data[-6:-2])[0]  # the directory offset (no archive comment)
    while data[cursor : cursor + 4] == b"PK\x01\x02":
        name_len, extra_len, comment_len = struct.unpack("<HHH", data[cursor + 28 : cursor + 34])
        if data[cursor + 46 : cursor + 46 + name_len] == name.encode():
            return cursor
        cursor += 46 + name_len + extra_len + comment_len
    raise AssertionError(f"no entry {name}")


def _patched(data: bytes, name: str, at: int, layout: str, value: int) -> bytes:
    """``data`` with one field of entry ``name``'s directory record set to ``value``."""
    patched = bytearray(data)
    struct.pack_into(layout, patched, _record(patched, name) + at, value)
    return bytes(patched)


def test_encrypted_zip_entry_is_unsupported(tmp_path: Path) -> None:
    data = docx(HELLO)
    flags = struct.unpack("<H", data[_record(data, "word/document.xml") + 8 :][:2])[0]
    error = _refused(tmp_path, _patched(data, "word/document.xml", 8, "<H", flags | 0x1))
    assert error.code == "unsupported"
    assert error.capability == "encrypted"


# -- damaged zips -----------------------------------------------------------------


def _compressed_span(data: bytes, name: str) -> tuple[int, int]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        info = archive.getinfo(name)
    name_len, extra_len = struct.unpack(
        "<HH", data[info.header_offset + 26 : info.header_offset + 30]
    )
    start = info.header_offset + 30 + name_len + extra_len
    return start, start + info.compress_size


@pytest.mark.parametrize("name", ["[Content_Types].xml", "word/document.xml", "word/styles.xml"])
def test_bytes_cut_out_of_an_entry_name_that_entry(tmp_path: Path, name: str) -> None:
    data = docx(HELLO)
    start, end = _compressed_span(data, name)
    middle = (start + end) // 2
    error = _refused(tmp_path, data[:middle] + data[middle + 5 :])
    assert (error.code, error.capability) == ("invalid", "damaged")
    assert f"zip entry {name} is damaged" in error.message
    assert "bytes missing or added" in error.message


def test_bytes_added_inside_an_entry_name_that_entry(tmp_path: Path) -> None:
    data = docx(HELLO)
    start, _ = _compressed_span(data, "word/document.xml")
    error = _refused(tmp_path, data[:start] + b"extra" + data[start:])
    assert "zip entry word/document.xml is damaged" in error.message


def test_a_crc_mismatch_is_invalid(tmp_path: Path) -> None:
    error = _refused(tmp_path, _patched(docx(HELLO), "word/document.xml", 16, "<I", 1234))
    assert (error.code, error.capability) == ("invalid", "damaged")
    assert "part word/document.xml fails its CRC check" in error.message


def test_a_corrupt_deflate_stream_is_invalid(tmp_path: Path) -> None:
    data = bytearray(docx(HELLO))
    start, _ = _compressed_span(bytes(data), "word/document.xml")
    data[start : start + 8] = b"\xff" * 8
    error = _refused(tmp_path, bytes(data))
    assert (error.code, error.capability) == ("invalid", "damaged")
    assert "part word/document.xml" in error.message


def test_a_stream_shorter_than_its_declared_size_is_invalid(tmp_path: Path) -> None:
    stream = fx.deflate(HEAD)
    cut = RawEntry("word/document.xml", stream, len(HEAD), zlib.crc32(HEAD), compressed_size=10)
    error = _refused(tmp_path, raw_zip(raw_docx(HELLO, cut)))
    assert (error.code, error.capability) == ("invalid", "damaged")
    assert f"part word/document.xml ends after 0 of the {len(HEAD)} bytes" in error.message


def test_a_negative_directory_offset_is_invalid(tmp_path: Path) -> None:
    data = bytearray(docx(HELLO))
    struct.pack_into("<I", data, len(data) - 6, len(data))  # the directory "after" the end
    error = _refused(tmp_path, bytes(data))
    assert (error.code, error.capability) == ("invalid", "damaged")


def test_an_entry_offset_outside_the_file_is_invalid(tmp_path: Path) -> None:
    error = _refused(tmp_path, _patched(docx(HELLO), "word/styles.xml", 42, "<I", 0xFFFFFFF0))
    assert (error.code, error.capability) == ("invalid", "damaged")
    assert "zip entry word/styles.xml is damaged" in error.message


def test_a_garbage_central_directory_is_invalid(tmp_path: Path) -> None:
    data = docx(HELLO)
    directory = struct.unpack("<I", data[-6:-2])[0]
    garbage = random.Random(3).randbytes(len(data) - 22 - directory)
    error = _refused(tmp_path, data[:directory] + garbage + data[-22:])
    assert (error.code, error.capability) == ("invalid", "damaged")


def test_a_local_header_of_another_name_is_invalid(tmp_path: Path) -> None:
    data = docx(HELLO)
    other = _patched(
        data,
        "word/styles.xml",
        42,
        "<I",
        struct.unpack("<I", data[_record(data, "word/document.xml") + 42 :][:4])[0],
    )
    error = _refused(tmp_path, other)
    assert "zip entry word/styles.xml is damaged" in error.message
    assert "named 'word/document.xml'" in error.message


def test_overlapping_entries_are_invalid(tmp_path: Path) -> None:
    stream = fx.deflate(HEAD)
    longer = RawEntry(
        "word/document.xml", stream, len(HEAD), zlib.crc32(HEAD), compressed_size=len(stream) + 40
    )
    items = raw_docx(HELLO, longer)
    items.sort(key=lambda item: item.name != "word/document.xml")  # first, so others follow it
    error = _refused(tmp_path, raw_zip(items))
    assert (error.code, error.capability) == ("invalid", "damaged")
    assert "overlap" in error.message


def test_a_compression_method_ooxml_does_not_allow_is_unsupported(tmp_path: Path) -> None:
    bzip2 = RawEntry("word/document.xml", b"BZh9", len(HEAD), zlib.crc32(HEAD), method=12)
    error = _refused(tmp_path, raw_zip(raw_docx(HELLO, bzip2)))
    assert (error.code, error.capability) == ("unsupported", "compression")
    assert "word/document.xml" in error.message


def test_a_zip_version_zipfile_lacks_is_invalid(tmp_path: Path) -> None:
    error = _refused(tmp_path, _patched(docx(HELLO), "word/styles.xml", 6, "<B", 90))
    assert (error.code, error.capability) == ("invalid", "damaged")


def _damage(data: bytes, rng: random.Random) -> tuple[str, bytes]:
    where = rng.randrange(len(data))
    kind = rng.choice(["cut", "add", "flip", "truncate"])
    if kind == "cut":
        return f"cut at {where}", data[:where] + data[where + rng.randint(1, 64) :]
    if kind == "add":
        return f"add at {where}", data[:where] + rng.randbytes(rng.randint(1, 64)) + data[where:]
    if kind == "flip":
        damaged = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            damaged[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        return f"flip near {where}", bytes(damaged)
    return f"truncate at {where}", data[:where]


def test_damage_anywhere_is_refused_or_read_never_raised_raw() -> None:
    rng = random.Random(11)
    original = _metadata_rich_package()
    codec = DocxFormat()
    for _ in range(600):
        how, data = _damage(original, rng)
        try:
            document = codec.read(data)
            if document.blocks:
                block = document.blocks[0]
                codec.write(document.with_blocks((block.with_source((Text("Edited"),)),)))
        except FormatError as err:
            assert err.code in {"invalid", "unsupported", "budget_exceeded"}, how
        except Exception as err:  # any other exception is the bug this looks for
            pytest.fail(f"{how}: {type(err).__name__}: {err}")


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
        assert all(info.flag_bits & 0x08 for info in archive.infolist())
    # the edited entry kept its descriptor, so setting the word back gives the file's bytes
    assert _edit_first_word(out, "Hello") == data


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


# -- through the command line ------------------------------------------------------

KAPI = Path(sys.executable).with_name("kapi")
# A child's peak resident size starts from its parent's at fork, so kapi is started
# from a fresh, small interpreter, which reports the peak of kapi alone.
LAUNCHER = """
import os, sys
pid = os.posix_spawn(sys.argv[2], sys.argv[2:], os.environ)
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as figures:
    figures.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def _kapi(folder: Path, *args: str) -> tuple[int, str, str, float]:
    """Run ``kapi`` in ``folder``: exit code, stdout, stderr and its peak resident MiB."""
    figures = folder / "peak.txt"
    result = subprocess.run(
        [sys.executable, "-c", LAUNCHER, str(figures), str(KAPI), *args],
        cwd=folder,
        capture_output=True,
        text=True,
        env={**os.environ, "KAPI_NO_PROJECT": "1", "KAPI_ACTOR": "person"},
        check=False,
    )
    return result.returncode, result.stdout, result.stderr, int(figures.read_text()) / 1024


def _office_bomb(case: str) -> tuple[str, bytes, str]:
    """A bomb the command line is given: file name, bytes, and what the refusal says."""
    if case == "docx-understated":
        return (
            "report.docx",
            raw_zip(raw_docx(HELLO, _lying_document(1024))),
            (f"part word/document.xml inflates past the {len(HEAD)} bytes"),
        )
    if case == "xlsx-understated":
        book = fx.xlsx(
            [("Sheet1", '<row r="1"><c r="A1" t="inlineStr"><is><t>Hello</t></is></c></row>')]
        )
        sheet = "xl/worksheets/sheet1.xml"
        lying = understated(sheet, fx.entries(book)[sheet], 1024)
        return "book.xlsx", raw_zip(raw_package(book, lying)), f"part {sheet} inflates past"
    if case == "pptx-understated":
        deck = fx.pptx([fx.shape(2, para_a("Hello"))])
        slide = "ppt/slides/slide1.xml"
        lying = understated(slide, fx.entries(deck)[slide], 1024)
        return "deck.pptx", raw_zip(raw_package(deck, lying)), f"part {slide} inflates past"
    if case == "docx-ratio":
        return (
            "report.docx",
            raw_zip(raw_docx(HELLO, _ratio_bomb())),
            ("part word/document.xml expands more than 200 times (max_ratio)"),
        )
    return "report.docx", _many_entries(70_000), "65,535 entries (max_zip_entries)"


def para_a(text: str) -> str:
    return f"<a:p><a:r><a:t>{text}</a:t></a:r></a:p>"


@pytest.mark.parametrize(
    "case",
    ["docx-understated", "xlsx-understated", "pptx-understated", "docx-ratio", "docx-entries"],
)
def test_kapi_inspect_and_apply_refuse_a_bomb_in_bounded_memory(tmp_path: Path, case: str) -> None:
    name, data, refusal = _office_bomb(case)
    (tmp_path / name).write_bytes(data)
    code, stdout, stderr, peak_mib = _kapi(tmp_path, "inspect", name)
    assert code == 2, stderr
    assert refusal in stderr
    assert "Traceback" not in stderr
    assert stdout.strip() in {"", "[]"}
    assert peak_mib < 200  # the understated bombs inflate to a GiB

    change = {
        "ops": [
            {
                "op": "replace_text",
                "at": {"doc": name, "block": "word/document.xml#p1"},
                "if_match": "r:0000000000000000",
                "edits": [{"find": "Hello", "text": "Bye"}],
            }
        ]
    }
    (tmp_path / "change.json").write_text(json.dumps(change))
    code, stdout, stderr, peak_mib = _kapi(tmp_path, "apply", "--json", "change.json")
    assert code == 3, stderr
    result = json.loads(stdout)
    assert result["status"] == "refused"
    error = result["ops"][0]["error"]
    assert error["code"] == "budget_exceeded"
    assert refusal in error["message"]
    assert "Traceback" not in stderr
    assert peak_mib < 200
    assert (tmp_path / name).read_bytes() == data
