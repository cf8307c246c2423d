"""The OOXML container: open a zip package safely, find its parts, and write it back faithfully.

Opening refuses, with a :class:`~kapi.core.format.FormatError`:

* a file that is not a zip: an OLE compound file holding ``EncryptionInfo`` is
  an encrypted (password-protected) document (``unsupported``, reason
  ``encrypted``), any other OLE file a legacy binary ``.doc/.xls/.ppt``
  (``unsupported``, ``legacy-binary``), anything else ``unsupported``
  (``not-zip``); a damaged zip (``PK`` signature, unreadable directory, an
  entry whose local header or data lie outside the file or overlap another's)
  ``invalid``, the entry named;
* a zip bomb (``budget_exceeded``, reason ``zip-bomb``), on what the file
  holds, before anything is inflated: a file over ``Limits.max_bytes``, more
  than ``Limits.max_zip_entries`` directory records (counted in the bytes,
  before ``zipfile`` builds one object per record), entries declaring more
  than ``Limits.max_unpacked_bytes`` in all, an entry over 1 MiB declaring
  more than ``Limits.max_ratio`` times its compressed size;
* an encrypted zip entry, a compression method other than stored or deflate
  (``unsupported``), a duplicate entry name, a missing
  ``[Content_Types].xml`` or ``_rels/.rels``, no main document relationship, a
  relationship to a part the reader needs that is not in the zip (a dangling
  relationship), or a main part of another kind (an ``.xlsx`` named ``.docx``)
  (``invalid`` / ``unsupported``);
* XML that is not well-formed in a part the reader parses (``invalid``, the
  part named in the message, line and column set).

Only the parts a reader parses are inflated, and :meth:`OfficePackage.read`
counts their bytes as zlib hands them out, in chunks, trusting no header: it
stops, ``budget_exceeded``, as soon as a part passes the size its headers
declare, ``Limits.max_part_bytes``, or the ``Limits.max_unpacked_bytes`` left
for the package, or (past its first MiB) expands more than ``Limits.max_ratio``
times the compressed bytes zlib has consumed; a part ending short of its
declared size, a corrupt stream or a CRC mismatch is ``invalid``. So memory
stays within a part's declared size, and a bomb is refused after at most one
chunk past a limit.

The reason is in ``FormatError.capability``. Writing copies every entry the
edit did not touch as it was, without inflating it: same name and order,
local header and compressed bytes verbatim, central directory record (date,
attributes, creator system, extra field, comment) kept, only offsets
updated. An edited part is compressed with its original method and level
flag, and keeps its data descriptor when it had one (so an edit set back
gives the same bytes). An archive this byte-copy cannot represent (zip64, a prefix before the
first entry) is rewritten entry by entry through ``zipfile`` with the same
metadata instead, every entry inflated through the same budgets.
"""

from __future__ import annotations

import io
import posixpath
import struct
import zipfile
import zlib
from collections.abc import Callable, Mapping
from itertools import pairwise
from urllib.parse import unquote

from attrs import frozen

from kapi.core.format import DEFAULT_LIMITS, FormatError, Limits
from kapi.formats.office.xmlsplice import Ancestors, Element, OnElement, parse_part

__all__ = [
    "OfficePackage",
    "Relationship",
    "open_package",
    "write_package",
]

_OLE_SIGNATURE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_MIB = 1024 * 1024
_RATIO_FLOOR = _MIB  # below this, a high ratio is ordinary XML
_IN_CHUNK = 64 * 1024  # compressed bytes handed to zlib at a time
_OUT_CHUNK = 256 * 1024  # the most one zlib call inflates
_CENTRAL_RECORD = b"PK\x01\x02"
_LOCAL = struct.Struct("<IHHHHHIIIHH")  # a local file header
_LOCAL_RECORD = 0x04034B50
_DESCRIPTOR = b"PK\x07\x08"  # the optional signature of a data descriptor
# Everything zipfile raises on a damaged directory: a negative or huge offset
# (ValueError, OverflowError), a short record (struct.error, EOFError), a
# name that is not UTF-8 (UnicodeDecodeError, a ValueError), an unknown zip
# version (NotImplementedError), a bad zip64 field.
_DIRECTORY_ERRORS = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    ValueError,
    OverflowError,
    OSError,
    EOFError,
    IndexError,
    NotImplementedError,
    struct.error,
)
_OFFICE_DOCUMENT = "/officeDocument"

# Main part content types by package kind (transitional, strict, macro, template).
_KIND_MARKERS: dict[str, tuple[str, ...]] = {
    "docx": ("wordprocessingml", "ms-word"),
    "xlsx": ("spreadsheetml", "ms-excel"),
    "pptx": ("presentationml", "ms-powerpoint"),
}


@frozen
class Relationship:
    """A relationship from a part: ``target`` is a part name, or a URL when ``external``."""

    id: str
    type: str
    target: str
    external: bool = False

    def is_type(self, suffix: str) -> bool:
        """Whether the relationship type ends with ``/suffix`` (transitional or strict URI)."""
        return self.type.endswith("/" + suffix.lstrip("/"))


class OfficePackage:
    """An opened OOXML package: its entries, content types and relationships."""

    def __init__(
        self,
        data: bytes,
        archive: zipfile.ZipFile,
        *,
        path: str,
        limits: Limits,
        spans: Mapping[str, tuple[int, int]],
    ) -> None:
        self.data = data
        self.archive = archive
        self.path = path
        self.limits = limits
        self.infos = archive.infolist()
        self._spans = spans  # entry name -> (start, end) of its compressed bytes
        self._inflated: dict[str, int] = {}  # entry name -> bytes it inflated to
        self._by_name = {info.filename: info for info in self.infos}
        # Part names are case-insensitive; some writers also use backslashes.
        self._by_lower = {
            info.filename.replace("\\", "/").lower(): info.filename for info in self.infos
        }
        self._rels: dict[str, list[Relationship]] = {}
        self.defaults: dict[str, str] = {}
        self.overrides: dict[str, str] = {}
        self.main_part = ""

    # -- parts ---------------------------------------------------------------

    def find(self, name: str) -> str | None:
        """The zip entry name for a part name (part names are case-insensitive)."""
        name = name.lstrip("/")
        if name in self._by_name:
            return name
        return self._by_lower.get(name.lower())

    def read(self, name: str) -> bytes:
        """A part's uncompressed bytes, inflated within the package's budgets."""
        entry = self.find(name)
        if entry is None:
            raise FormatError(f"part {name} is missing", path=self.path, capability="missing-part")
        info = self._by_name[entry]
        inflated_elsewhere = sum(self._inflated.values()) - self._inflated.get(entry, 0)
        content = self._inflate(info, inflated_elsewhere)
        self._inflated[entry] = len(content)
        return content

    def _inflate(self, info: zipfile.ZipInfo, inflated_elsewhere: int) -> bytes:
        name, limits, declared = info.filename, self.limits, info.file_size
        if declared > limits.max_part_bytes:
            raise _bomb(
                f"part {name} declares {_size(declared)} uncompressed; one part may inflate "
                f"to at most {_size(limits.max_part_bytes)} (max_part_bytes)",
                self.path,
            )
        if inflated_elsewhere + declared > limits.max_unpacked_bytes:
            raise _bomb(
                f"part {name} ({_size(declared)}) would take what is inflated from the zip "
                f"past {_size(limits.max_unpacked_bytes)} (max_unpacked_bytes)",
                self.path,
            )
        start, end = self._spans[name]
        stream = memoryview(self.data)[start:end]
        if info.compress_type == zipfile.ZIP_STORED:
            if len(stream) != declared:
                raise _damaged(
                    f"stored part {name} holds {len(stream)} bytes; its zip headers declare "
                    f"{declared}",
                    self.path,
                )
            content = bytes(stream)
        else:
            content = _inflate_deflate(stream, declared, name, self.path, limits)
        if zlib.crc32(content) != info.CRC:
            raise _damaged(f"part {name} fails its CRC check (the zip is damaged)", self.path)
        return content

    def parse(
        self,
        name: str,
        capture: Callable[[str, Ancestors], bool] | frozenset[str],
        on_element: OnElement,
        on_start: Callable[[str, dict[str, str], int], None] | None = None,
        data: bytes | None = None,
    ) -> bytes:
        """Parse a part (see :func:`parse_part`; ``data`` if already read) and return its bytes."""
        if data is None:
            data = self.read(name)
        parse_part(
            data,
            capture=capture,
            on_element=on_element,
            on_start=on_start,
            part=name,
            path=self.path,
            limits=self.limits,
        )
        return data

    def content_type(self, name: str) -> str:
        override = self.overrides.get("/" + name.replace("\\", "/").lstrip("/").lower())
        if override is not None:
            return override
        extension = posixpath.splitext(name)[1].lstrip(".").lower()
        return self.defaults.get(extension, "")

    # -- relationships -------------------------------------------------------

    def relationships(self, source: str) -> list[Relationship]:
        """The relationships of a part ("" for the package), targets resolved to part names."""
        if source in self._rels:
            return self._rels[source]
        folder, base = posixpath.split(source)
        rels_name = posixpath.join(folder, "_rels", base + ".rels") if source else "_rels/.rels"
        found: list[Relationship] = []
        if self.find(rels_name) is not None:

            def collect(element: Element, _ancestors: Ancestors) -> None:
                attrs = element.attrs
                target = attrs.get("Target", "")
                external = attrs.get("TargetMode", "") == "External"
                if not external:
                    target = _resolve(folder, target)
                found.append(
                    Relationship(
                        id=attrs.get("Id", ""),
                        type=attrs.get("Type", ""),
                        target=target,
                        external=external,
                    )
                )

            self.parse(rels_name, frozenset({"rel:Relationship"}), collect)
        self._rels[source] = found
        return found

    def related(self, source: str, suffix: str) -> list[Relationship]:
        return [rel for rel in self.relationships(source) if rel.is_type(suffix)]

    def target(self, source: str, relationship: Relationship) -> str:
        """The part a needed relationship points to; a dangling one is refused."""
        entry = None if relationship.external else self.find(relationship.target)
        if entry is None:
            where = f"part {source}" if source else "the package"
            raise FormatError(
                f"{where} has a dangling relationship {relationship.id} "
                f"to {relationship.target}, which is not in the file",
                path=self.path,
                capability="dangling-relationship",
            )
        return relationship.target

    def targets_by_id(self, source: str) -> dict[str, Relationship]:
        return {rel.id: rel for rel in self.relationships(source)}


def _resolve(folder: str, target: str) -> str:
    target = unquote(target)
    if target.startswith("/"):
        joined = target.lstrip("/")
    else:
        joined = posixpath.join(folder, target)
    normal = posixpath.normpath(joined)
    return "" if normal == "." else normal.lstrip("/")


def _inflate_deflate(
    stream: memoryview, declared: int, name: str, path: str, limits: Limits
) -> bytes:
    """Inflate ``stream`` in chunks, counting output against ``declared`` and the ratio."""
    inflater = zlib.decompressobj(-zlib.MAX_WBITS)
    pieces: list[bytes] = []
    size = 0
    fed = 0
    pending: bytes | memoryview = b""
    while not inflater.eof:
        if not pending:
            if fed >= len(stream):
                raise _damaged(
                    f"part {name} ends after {size} of the {declared} bytes its zip headers "
                    "declare (the compressed data is cut short)",
                    path,
                )
            pending = stream[fed : fed + _IN_CHUNK]
            fed += len(pending)
        try:
            # At most one byte past the declared size: enough to know the header lies.
            piece = inflater.decompress(pending, min(_OUT_CHUNK, declared - size + 1))
        except zlib.error as err:
            raise _damaged(f"part {name} cannot be inflated: {err}", path) from None
        pending = inflater.unconsumed_tail
        size += len(piece)
        if size > declared:
            raise _bomb(
                f"part {name} inflates past the {_size(declared)} its zip headers declare; "
                "kapi stopped there (a zip bomb?)",
                path,
            )
        consumed = fed - len(pending)
        if size > _RATIO_FLOOR and size > limits.max_ratio * consumed:
            raise _bomb(
                f"part {name} expands more than {limits.max_ratio} times (max_ratio): "
                f"{_size(size)} from {consumed:,} compressed bytes (a zip bomb?)",
                path,
            )
        pieces.append(piece)
    if size != declared:
        raise _damaged(
            f"part {name} inflates to {size} bytes; its zip headers declare {declared}", path
        )
    return b"".join(pieces)


def _size(count: int) -> str:
    if count and count % _MIB == 0:
        return f"{count // _MIB} MiB"
    if count and count % 1024 == 0:
        return f"{count // 1024} KiB"
    return f"{count:,} bytes"


def _bomb(message: str, path: str) -> FormatError:
    return FormatError(message, path=path, code="budget_exceeded", capability="zip-bomb")


def _damaged(message: str, path: str) -> FormatError:
    return FormatError(message, path=path, capability="damaged")


def open_package(
    data: bytes, *, path: str = "", kind: str, limits: Limits = DEFAULT_LIMITS
) -> OfficePackage:
    """Open an OOXML package of ``kind`` (``docx``, ``xlsx``, ``pptx``) with every check above."""
    if len(data) > limits.max_bytes:
        raise FormatError(
            f"file is {len(data)} bytes; the limit is {limits.max_bytes}",
            path=path,
            code="budget_exceeded",
            capability="size",
        )
    if data.startswith(_OLE_SIGNATURE):
        if "EncryptionInfo".encode("utf-16-le") in data:
            raise FormatError(
                "the document is encrypted (password-protected); save an unprotected copy "
                "to edit it",
                path=path,
                code="unsupported",
                capability="encrypted",
            )
        raise FormatError(
            "this is a legacy binary Office file (.doc/.xls/.ppt), not Office Open XML; "
            "save it in the OOXML format first",
            path=path,
            code="unsupported",
            capability="legacy-binary",
        )
    # Every directory record zipfile reads starts with this signature, so counting
    # it bounds the entries before zipfile builds an object for each.
    records = data.count(_CENTRAL_RECORD)
    if records > limits.max_zip_entries:
        raise _bomb(
            f"the zip holds {records:,} directory records; the limit is "
            f"{limits.max_zip_entries:,} entries (max_zip_entries)",
            path,
        )
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except _DIRECTORY_ERRORS as err:
        if data.startswith(b"PK"):
            raise _damaged(f"the zip container is damaged or truncated: {err}", path) from None
        raise FormatError(
            f"not an Office Open XML file: it is not a zip container (starts {data[:8]!r})",
            path=path,
            code="unsupported",
            capability="not-zip",
        ) from None
    spans = _check_entries(archive, data, path, limits)
    package = OfficePackage(data, archive, path=path, limits=limits, spans=spans)
    _read_content_types(package)
    _find_main_part(package, kind)
    return package


def _check_entries(
    archive: zipfile.ZipFile, data: bytes, path: str, limits: Limits
) -> dict[str, tuple[int, int]]:
    """Check every entry's declarations and headers; where each one's compressed bytes lie."""
    spans: dict[str, tuple[int, int]] = {}
    placed: list[tuple[int, int, str]] = []  # local header offset, end of data, name
    misplaced: list[tuple[int, str, str]] = []  # local header offset, name, what is wrong
    declared_total = 0
    for info in archive.infolist():
        name = info.filename
        if name in spans:
            raise _damaged(f"the zip holds two entries named {name}", path)
        if info.flag_bits & 0x1:
            raise _encrypted(name, path)
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise FormatError(
                f"zip entry {name} uses compression method {info.compress_type}; Office Open "
                "XML allows only stored and deflate",
                path=path,
                code="unsupported",
                capability="compression",
            )
        declared_total += info.file_size
        if declared_total > limits.max_unpacked_bytes:
            raise _bomb(
                f"the zip's entries declare more than {_size(limits.max_unpacked_bytes)} "
                "uncompressed in all (max_unpacked_bytes; a zip bomb?)",
                path,
            )
        if info.file_size > _RATIO_FLOOR and info.file_size > limits.max_ratio * max(
            info.compress_size, 1
        ):
            ratio = info.file_size // max(info.compress_size, 1)
            raise _bomb(
                f"zip entry {name} declares it expands {ratio} times; the limit is "
                f"{limits.max_ratio} (max_ratio; a zip bomb?)",
                path,
            )
        located = _locate(data, info, archive.start_dir, path)
        if isinstance(located, str):
            misplaced.append((info.header_offset, name, located))
            continue
        spans[name] = located
        placed.append((info.header_offset, located[1], name))
    if misplaced:
        # Bytes cut out of (or added to) an entry shift everything after it, which the
        # directory's own position gives away; so the entries before the damage are the
        # ones no longer where the directory says, and the last of them holds it.
        _, name, reason = max(misplaced)
        raise _damaged(
            f"zip entry {name} is damaged: {reason} (bytes missing or added in it or before it)",
            path,
        )
    # Entries sharing compressed bytes are how the smallest bombs multiply one stream.
    placed.sort()
    for (_, end, first), (offset, _, second) in pairwise(placed):
        if offset < end:
            raise _damaged(f"zip entries {first} and {second} overlap", path)
    return spans


def _locate(
    data: bytes, info: zipfile.ZipInfo, directory_at: int, path: str
) -> tuple[int, int] | str:
    """Where an entry's compressed bytes start and end, or what is wrong with its local header."""
    name, offset = info.filename, info.header_offset
    if offset < 0 or offset + _LOCAL.size > directory_at:
        return f"its local header would be at byte {offset}, outside the entries"
    fields = _LOCAL.unpack_from(data, offset)
    signature, flags, name_len, extra_len = fields[0], fields[2], fields[9], fields[10]
    if signature != _LOCAL_RECORD:
        return f"there is no local header at byte {offset}, where the directory puts it"
    raw_name = data[offset + _LOCAL.size : offset + _LOCAL.size + name_len]
    local_name = raw_name.decode("utf-8" if info.flag_bits & 0x800 else "cp437", "replace")
    if local_name != info.orig_filename:
        return f"the local header at byte {offset} is named {local_name!r}"
    if flags & 0x41:
        raise _encrypted(name, path)
    start = offset + _LOCAL.size + name_len + extra_len
    end = start + info.compress_size
    if end > directory_at:
        return (
            f"its {info.compress_size:,} compressed bytes would end at byte {end:,}, past the "
            f"entries, which end at byte {directory_at:,}"
        )
    return start, end


def _encrypted(name: str, path: str) -> FormatError:
    return FormatError(
        f"zip entry {name} is encrypted", path=path, code="unsupported", capability="encrypted"
    )


def _read_content_types(package: OfficePackage) -> None:
    if package.find("[Content_Types].xml") is None:
        raise FormatError(
            "part [Content_Types].xml is missing; this is not a valid OOXML package",
            path=package.path,
            capability="missing-part",
        )

    def collect(element: Element, _ancestors: Ancestors) -> None:
        if element.name == "ct:Default":
            extension = element.attrs.get("Extension", "").lower()
            package.defaults[extension] = element.attrs.get("ContentType", "")
        else:
            part = "/" + element.attrs.get("PartName", "").lstrip("/").lower()
            package.overrides[part] = element.attrs.get("ContentType", "")

    package.parse("[Content_Types].xml", frozenset({"ct:Default", "ct:Override"}), collect)


def _find_main_part(package: OfficePackage, kind: str) -> None:
    if package.find("_rels/.rels") is None:
        raise FormatError(
            "part _rels/.rels is missing; this is not a valid OOXML package",
            path=package.path,
            capability="missing-part",
        )
    mains = [rel for rel in package.relationships("") if rel.is_type(_OFFICE_DOCUMENT)]
    if not mains:
        raise FormatError(
            "_rels/.rels names no main document part (officeDocument relationship)",
            path=package.path,
            capability="missing-part",
        )
    entry = package.target("", mains[0])
    content_type = package.content_type(entry)
    markers = _KIND_MARKERS[kind]
    if content_type and not any(marker in content_type for marker in markers):
        raise FormatError(
            f"the main part {entry} is {content_type}, not a {kind} document",
            path=package.path,
            code="unsupported",
            capability="wrong-kind",
        )
    package.main_part = entry


# -- writing -------------------------------------------------------------------

_CENTRAL_FIXED = 46
_EOCD = b"PK\x05\x06"
_ZIP64_LOCATOR = b"PK\x06\x07"
_DEFLATE_LEVELS = {0: 6, 1: 9, 2: 1, 3: 1}


class _NeedsZipfile(Exception):
    """The byte-copy writer cannot represent this archive."""


def write_package(package: OfficePackage, replacements: Mapping[str, bytes]) -> bytes:
    """The package with ``replacements`` (entry name -> new uncompressed bytes) applied."""
    changed: dict[str, bytes] = {}
    for name, content in replacements.items():
        entry = package.find(name)
        if entry is not None and content != package.read(name):
            changed[entry] = content
    if not changed:
        return package.data
    try:
        return _copy_write(package, changed)
    except _NeedsZipfile:
        return _zipfile_write(package, changed)


def _copy_write(package: OfficePackage, changed: Mapping[str, bytes]) -> bytes:
    data = package.data
    archive = package.archive
    infos = package.infos
    start_dir: int = archive.start_dir
    eocd_at = data.rfind(_EOCD)
    if eocd_at < 0 or data[eocd_at - 20 : eocd_at - 16] == _ZIP64_LOCATOR:
        raise _NeedsZipfile
    (cd_size, cd_offset) = struct.unpack("<II", data[eocd_at + 12 : eocd_at + 20])
    if cd_offset != start_dir or cd_offset + cd_size != eocd_at:
        raise _NeedsZipfile  # data before the first entry, or something after the directory
    by_offset = sorted(infos, key=lambda info: info.header_offset)
    if by_offset and by_offset[0].header_offset != 0:
        raise _NeedsZipfile

    # The raw central directory records, in directory order.
    records: list[bytearray] = []
    cursor = start_dir
    for _info in infos:
        if data[cursor : cursor + 4] != b"PK\x01\x02":
            raise _NeedsZipfile
        name_len, extra_len, comment_len = struct.unpack("<HHH", data[cursor + 28 : cursor + 34])
        length = _CENTRAL_FIXED + name_len + extra_len + comment_len
        records.append(bytearray(data[cursor : cursor + length]))
        cursor += length

    out = io.BytesIO()
    new_offsets: dict[int, int] = {}
    new_fields: dict[int, tuple[int, int, int, int]] = {}
    ends = [info.header_offset for info in by_offset[1:]] + [start_dir]
    for info, chunk_end in zip(by_offset, ends):
        key = id(info)
        new_offsets[key] = out.tell()
        content = changed.get(info.filename)
        if content is None:
            out.write(data[info.header_offset : chunk_end])
            continue
        header = data[info.header_offset : info.header_offset + _LOCAL.size]
        (
            signature,
            version,
            flags,
            method,
            mtime,
            mdate,
            _crc,
            _csize,
            _usize,
            name_len,
            extra_len,
        ) = _LOCAL.unpack(header)
        if signature != 0x04034B50:
            raise _NeedsZipfile
        name_and_extra = data[
            info.header_offset + _LOCAL.size : info.header_offset
            + _LOCAL.size
            + name_len
            + extra_len
        ]
        if _has_zip64_extra(name_and_extra[name_len:]):
            raise _NeedsZipfile
        if method == zipfile.ZIP_STORED:
            compressed = content
        elif method == zipfile.ZIP_DEFLATED:
            compressor = zlib.compressobj(_DEFLATE_LEVELS[(flags >> 1) & 0x3], zlib.DEFLATED, -15)
            compressed = compressor.compress(content) + compressor.flush()
        else:
            raise _NeedsZipfile
        crc = zlib.crc32(content) & 0xFFFFFFFF
        if len(content) >= 0xFFFFFFFF or len(compressed) >= 0xFFFFFFFF:
            raise _NeedsZipfile
        sizes = (crc, len(compressed), len(content))
        descriptor = b""
        header_sizes = sizes
        if flags & 0x0008:
            # The entry's sizes follow its data, as the file had them: keep that shape
            # (and the header's zeros) so an edit set back gives the same bytes.
            data_end = package._spans[info.filename][1]
            signed = data[data_end : data_end + 4] == _DESCRIPTOR
            descriptor = (_DESCRIPTOR if signed else b"") + struct.pack("<III", *sizes)
            if (_crc, _csize, _usize) == (0, 0, 0):
                header_sizes = (0, 0, 0)
        out.write(
            _LOCAL.pack(
                signature,
                version,
                flags,
                method,
                mtime,
                mdate,
                *header_sizes,
                name_len,
                extra_len,
            )
        )
        out.write(name_and_extra)
        out.write(compressed)
        out.write(descriptor)
        new_fields[key] = (flags, crc, len(compressed), len(content))

    directory_at = out.tell()
    for info, record in zip(infos, records):
        offset = new_offsets[id(info)]
        if offset >= 0xFFFFFFFF or struct.unpack("<I", record[42:46])[0] == 0xFFFFFFFF:
            raise _NeedsZipfile
        struct.pack_into("<I", record, 42, offset)
        fields = new_fields.get(id(info))
        if fields is not None:
            name_len, extra_len = struct.unpack("<HH", record[28:32])
            if _has_zip64_extra(
                bytes(record[_CENTRAL_FIXED + name_len : _CENTRAL_FIXED + name_len + extra_len])
            ):
                raise _NeedsZipfile
            _flags, crc, compressed_size, size = fields
            struct.pack_into("<III", record, 16, crc, compressed_size, size)
        out.write(record)
    directory_size = out.tell() - directory_at
    eocd = bytearray(data[eocd_at:])
    struct.pack_into("<II", eocd, 12, directory_size, directory_at)
    out.write(eocd)
    return out.getvalue()


def _has_zip64_extra(extra: bytes) -> bool:
    index = 0
    while index + 4 <= len(extra):
        header_id, size = struct.unpack("<HH", extra[index : index + 4])
        if header_id == 0x0001:
            return True
        index += 4 + size
    return False


def _zipfile_write(package: OfficePackage, changed: Mapping[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", allowZip64=True) as target:
        target.comment = package.archive.comment
        for info in package.infos:
            copy = zipfile.ZipInfo(info.filename, date_time=info.date_time)
            copy.compress_type = info.compress_type
            copy.external_attr = info.external_attr
            copy.internal_attr = info.internal_attr
            copy.create_system = info.create_system
            copy.create_version = info.create_version
            copy.extract_version = info.extract_version
            copy.comment = info.comment
            copy.extra = _without_zip64(info.extra)
            content = changed.get(info.filename)
            if content is None:
                content = package.read(info.filename)
            target.writestr(copy, content)
    return out.getvalue()


def _without_zip64(extra: bytes) -> bytes:
    kept: list[bytes] = []
    index = 0
    while index + 4 <= len(extra):
        header_id, size = struct.unpack("<HH", extra[index : index + 4])
        if header_id != 0x0001:
            kept.append(extra[index : index + 4 + size])
        index += 4 + size
    return b"".join(kept)
