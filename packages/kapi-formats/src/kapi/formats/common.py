"""What formats share: text encodings, language tags, block ids, one edition per file, flat
values, reading without GC churn."""

from __future__ import annotations

import codecs
import gc
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

from kapi.core.edition import EditionKeyError, canonical_locale
from kapi.core.format import DEFAULT_LIMITS, FormatError, Limits, WriteRefused
from kapi.core.model import Block, Document, PcClose, PcOpen, Ph, Runs, Text

__all__ = [
    "UNICODE",
    "UTF16",
    "canonical_or_error",
    "decode_text",
    "encode_or_refuse",
    "encoding_label",
    "gc_paused",
    "refuse_targets",
    "runs_text",
    "sniff_unicode",
    "text_encoding",
    "unencodable",
    "unique_id",
]

# ---------------------------------------------------------------------------
# text encodings
#
# Every text codec decodes through ``decode_text``: a BOM decides; else the NUL
# pattern of the first bytes tells UTF-16 and UTF-32 apart from ASCII-compatible
# text, and a format reads those only where its own spec defines that detection
# (JSON, YAML, XML; UTF-16 for .strings); else the format's own encodings.

UTF16 = frozenset({"utf-16-le", "utf-16-be"})
UNICODE = UTF16 | {"utf-32-le", "utf-32-be"}

# UTF-32 first: its little-endian BOM starts with UTF-16's.
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_SNIFF_BYTES = 4096
_UTF8_SEQUENCE = re.compile(rb"[\xc2-\xf4][\x80-\xbf]")
_LABELS = {
    "utf-8": "UTF-8",
    "utf-16-le": "UTF-16LE",
    "utf-16-be": "UTF-16BE",
    "utf-32-le": "UTF-32LE",
    "utf-32-be": "UTF-32BE",
    "iso8859-1": "ISO-8859-1",
    "iso-8859-1": "ISO-8859-1",
    "latin-1": "ISO-8859-1",
    "cp1252": "Windows-1252",
    "ascii": "ASCII",
}


# Codecs Python files under text encodings that are not ways to store a file's text: they
# decode labels (idna, punycode), escapes (unicode-escape) or nothing at all (undefined);
# UTF-7 writes ASCII punctuation back as escapes (and HTML, XML and gettext refuse it).
_NOT_FILE_ENCODINGS = frozenset(
    {"idna", "punycode", "undefined", "unicode-escape", "raw-unicode-escape", "utf-7"}
)


def text_encoding(name: str) -> str | None:
    """The codec name of the file encoding a file declares; None when ``name`` is not one.

    A name Python does not know, a bytes-to-bytes codec (``rot13``, ``hex``,
    ``zlib``) and a codec that is no way to store a file's text (``idna``) are
    all None, so a declaration can never make reading fail with anything but
    :class:`FormatError`.
    """
    try:
        info = codecs.lookup(name)
    except LookupError:
        return None
    if not getattr(info, "_is_text_encoding", True) or info.name in _NOT_FILE_ENCODINGS:
        return None
    return info.name


def encoding_label(encoding: str) -> str:
    """The name people know an encoding by (``utf-16-le`` -> ``UTF-16LE``)."""
    return _LABELS.get(encoding.lower(), encoding.upper())


def sniff_unicode(data: bytes) -> str:
    """The UTF-16 or UTF-32 (``utf-16-le``…) BOM-less text looks like by its first bytes, else ``""``.

    An ASCII character in UTF-16 or UTF-32 leaves NUL bytes at fixed places of
    its code unit; the first character of a text file is nearly always ASCII.
    This is the rule of RFC 4627 section 3, YAML 1.2 section 5.2 and XML
    appendix F, and it reads four bytes.
    """
    first = data[:4]
    if len(first) == 4 and first[0] and first[1:] == b"\x00\x00\x00":
        return "utf-32-le"
    if len(first) == 4 and first[3] and first[:3] == b"\x00\x00\x00":
        return "utf-32-be"
    if len(first) >= 2 and first[0] and not first[1]:
        return "utf-16-le"
    if len(first) >= 2 and first[1] and not first[0]:
        return "utf-16-be"
    return ""


def _utf16_by_nuls(data: bytes, share: float) -> str:
    """UTF-16 that does not open with ASCII, by where its NULs sit in the first 4 KiB.

    The NULs must sit at one parity (over two to one: CJK characters such
    as U+4E00 put some at the other) and in at least ``share`` of the code
    units. A file that decoded as text needs three in four, so a UTF-8 file
    with NUL characters in it is never taken for UTF-16; one that did not
    decode needs one in sixteen, to name the encoding in the refusal.
    """
    if data.find(b"\x00", 0, _SNIFF_BYTES) < 0:
        return ""
    head = data[:_SNIFF_BYTES]
    units = len(head) // 2
    even = head[0::2].count(0)
    odd = head[1::2].count(0)
    if units < 8:
        return ""
    if odd >= units * share and odd > 2 * even:
        return "utf-16-le"
    if even >= units * share and even > 2 * odd:
        return "utf-16-be"
    return ""


def decode_text(
    data: bytes,
    *,
    path: str = "",
    encodings: Iterable[str] = ("utf-8",),
    unmarked: frozenset[str] = frozenset(),
    marked: frozenset[str] = UNICODE,
    hint: str = "",
    limits: Limits = DEFAULT_LIMITS,
) -> tuple[str, str, bytes]:
    """Decode a text file: ``(text, encoding, bom)``.

    A BOM decides the encoding (UTF-8, or one of ``marked``). Without one,
    text that looks like UTF-16 or UTF-32 (:func:`sniff_unicode`) is read in
    that encoding when it is one of ``unmarked`` (the format defines that
    detection), else refused ``unsupported`` (capability ``encoding``) with the
    encoding named. Otherwise the first of ``encodings`` that decodes wins,
    unless what it gave is UTF-16 read as bytes (NULs at every other byte),
    refused the same way. When none decodes, the first is UTF-8 and the bytes
    look like a legacy 8-bit encoding (non-ASCII bytes, none of them UTF-8),
    that is refused the same way too; damaged text is ``invalid`` at its line
    and column. ``hint`` is a format's other way out (``or declare it in
    <meta charset>``).
    """
    if len(data) > limits.max_bytes:
        raise FormatError(
            f"file is {len(data)} bytes; the limit is {limits.max_bytes}",
            path=path,
            code="budget_exceeded",
        )
    if data[:1] in (b"\xef", b"\xff", b"\xfe", b"\x00"):
        for bom, encoding in _BOMS:
            if data.startswith(bom):
                if encoding != "utf-8" and encoding not in marked:
                    raise _encoding_refused(
                        f"is {encoding_label(encoding)} (it starts with that byte-order mark), "
                        "which this format does not allow; save it as UTF-8",
                        path,
                    )
                body = data[len(bom) :]
                try:
                    return body.decode(encoding), encoding, bom
                except UnicodeDecodeError as err:
                    raise _decode_error(body, err, path, encoding) from None
    sniffed = sniff_unicode(data)
    if sniffed and sniffed in unmarked:
        try:
            return data.decode(sniffed), sniffed, b""
        except UnicodeDecodeError as err:
            raise _decode_error(data, err, path, sniffed) from None
    if sniffed:
        raise _unmarked_refused(sniffed, marked, path)
    candidates = list(encodings)
    first_error: UnicodeDecodeError | None = None
    for encoding in candidates:
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError as err:
            first_error = first_error or err
            continue
        wide = _utf16_by_nuls(data, 0.75)
        if wide:
            raise _unmarked_refused(wide, marked, path)
        return text, encoding, b""
    assert first_error is not None
    wide = _utf16_by_nuls(data, 1 / 16)
    if wide:
        raise _unmarked_refused(wide, marked, path)
    if codecs.lookup(candidates[0]).name == "utf-8" and not _UTF8_SEQUENCE.search(data):
        legacy = "Windows-1252" if re.search(rb"[\x80-\x9f]", data) else "ISO-8859-1"
        line, column = _position(data, first_error.start)
        raise _encoding_refused(
            f"is not UTF-8: byte 0x{data[first_error.start]:02x} and the other non-ASCII bytes "
            f"look like {legacy} or another legacy 8-bit encoding; save it as UTF-8{hint}",
            path,
            line=line,
            column=column,
            offset=first_error.start,
        )
    raise _decode_error(data, first_error, path, candidates[0]) from None


def _unmarked_refused(encoding: str, marked: frozenset[str], path: str) -> FormatError:
    label = encoding_label(encoding)
    if encoding in marked:
        return _encoding_refused(
            f"looks like {label} without a byte-order mark; save it as UTF-8 "
            f"(or as {label} with a BOM)",
            path,
        )
    return _encoding_refused(
        f"looks like {label}, which this format does not allow; save it as UTF-8", path
    )


def encode_or_refuse(text: str, encoding: str, *, block: str = "") -> bytes:
    """``text`` in ``encoding``; a character it cannot hold is refused (capability ``encoding``)."""
    try:
        return text.encode(encoding)
    except UnicodeEncodeError as err:
        raise unencodable(text[err.start], encoding, block=block) from None


def unencodable(char: str, encoding: str, *, block: str = "") -> WriteRefused:
    """The refusal for a character the file's encoding (or any encoding) cannot hold."""
    where = f"block {block!r}: " if block else ""
    code = f"U+{ord(char):04X}"
    if 0xD800 <= ord(char) <= 0xDFFF:
        message = (
            f"{where}the text holds {code}, half of a surrogate pair without its other half, "
            f"which {encoding_label(encoding)} cannot encode; send the whole character"
        )
    else:
        message = f"{where}{code} cannot be written in {encoding_label(encoding)}"
    return WriteRefused(message, capability="encoding", block=block)


def _encoding_refused(
    message: str,
    path: str,
    *,
    line: int | None = None,
    column: int | None = None,
    offset: int | None = None,
) -> FormatError:
    return FormatError(
        message,
        path=path,
        line=line,
        column=column,
        offset=offset,
        code="unsupported",
        capability="encoding",
    )


def _position(data: bytes, offset: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, offset) + 1
    column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return line, column


def _decode_error(data: bytes, err: UnicodeDecodeError, path: str, encoding: str) -> FormatError:
    line, column = _position(data, err.start)
    return FormatError(
        f"not valid {encoding_label(encoding)}: byte 0x{data[err.start]:02x} at byte {err.start}",
        path=path,
        line=line,
        column=column,
        offset=err.start,
    )


# ---------------------------------------------------------------------------
# language tags, ids, editions


def canonical_or_error(tag: str, path: str) -> str:
    """The canonical form of a language tag a file states; a bad tag is a FormatError."""
    if not tag:
        return ""
    try:
        return canonical_locale(tag)
    except EditionKeyError:
        raise FormatError(f"{tag!r} is not a language tag", path=path) from None


def refuse_targets(document: Document, kind: str, home: str) -> None:
    """A file that holds one language cannot write another edition (``kind``: "a YAML file")."""
    for block in document.blocks:
        for key in block.targets:
            raise WriteRefused(
                f"block {block.id!r}: {kind} holds one language; write the {key!r} edition "
                f"to {home}",
                capability="edition",
                block=block.id,
            )


def runs_text(
    block: Block,
    runs: Runs,
    synthesize: Callable[[Block, Ph | PcOpen | PcClose], str],
    *,
    value: str,
    hint: str = "",
) -> str:
    """The text of a flat value: text as it is, each code as read or as ``synthesize`` writes it.

    A run a flat value has no place for (a plural) is refused, ``value`` naming
    what cannot hold it ("a YAML value") and ``hint`` what to do instead.
    """
    out: list[str] = []
    for run in runs:
        if isinstance(run, Text):
            out.append(run.text)
        elif isinstance(run, Ph | PcOpen | PcClose):
            out.append(run.data or synthesize(block, run))
        else:
            raise WriteRefused(
                f"block {block.id!r}: {value} cannot hold a {type(run).__name__}{hint}",
                capability=f"synthesize:{type(run).__name__.lower()}",
                block=block.id,
            )
    return "".join(out)


def unique_id(name: str, ids: set[str]) -> str:
    """``name``, or ``name#2``, ``name#3``… when taken; records the id chosen."""
    candidate = name
    number = 1
    while candidate in ids:
        number += 1
        candidate = f"{name}#{number}"
    ids.add(candidate)
    return candidate


@contextmanager
def gc_paused() -> Iterator[None]:
    """Hold the cycle collector while a reader builds many small acyclic objects.

    Without the pause the collector walks the growing heap again and again,
    which took most of a large read's time; the objects a read builds hold no
    cycles, so nothing is lost. When the outermost pause ends, what exists is
    frozen (``gc.freeze``) before the collector resumes, so it is not walked
    once more in one long pass: frozen objects are still freed when no longer
    referenced, only never scanned for cycles.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.freeze()
            gc.enable()
