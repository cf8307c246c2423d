"""Reading a document: the bytes of a regular file within the size budget, then its format.

Every door that reads a document reads it here: a file by its path (a folder,
FIFO, socket or device refused before anything blocks), or bytes already in
hand (stdin, a git blob), by the format named or the one detected.
"""

from __future__ import annotations

import os
from pathlib import Path

from kapi.core.format import DEFAULT_LIMITS, FormatError, Limits
from kapi.core.model import Document
from kapi.formats import registry
from kapi.formats.containment import file_kind
from kapi.formats.spec import FormatSpec

__all__ = ["os_reason", "read_document", "read_file", "read_regular"]


def read_document(
    source: Path | bytes,
    *,
    display: str,
    locale: str,
    format_name: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> tuple[bytes, Document, FormatSpec]:
    """Read a file (a path) or bytes into a document: ``(bytes, document, format)``.

    The format is ``format_name`` when given, else detected from ``display``
    and the first bytes. Raises :class:`~kapi.formats.registry.UnknownFormat`
    when no format has that name or none reads the file, and FormatError when
    the file or its content cannot be read.
    """
    spec = registry.get(format_name) if format_name else None
    data = (
        source
        if isinstance(source, bytes)
        else read_regular(source, display=display, limits=limits)
    )
    if spec is None:
        spec = registry.detect(display, data[:4096])
    document = registry.load_codec(spec).read(data, path=display, locale=locale)
    return data, document, spec


def read_file(
    path: Path, *, display: str, locale: str, limits: Limits = DEFAULT_LIMITS
) -> tuple[bytes, Document, FormatSpec]:
    """Read one file into a document: ``(bytes, document, format)``; raises FormatError.

    A file no format reads is refused ``unsupported``.
    """
    try:
        return read_document(path, display=display, locale=locale, limits=limits)
    except registry.UnknownFormat as err:
        raise FormatError(str(err).split(": ", 1)[-1], path=display, code="unsupported") from None


def read_regular(path: Path, *, display: str, limits: Limits = DEFAULT_LIMITS) -> bytes:
    """The bytes of a regular file, at most ``limits.max_bytes`` of them; raises FormatError.

    A folder, FIFO, socket or device is refused from its ``stat`` alone; the
    file is then opened without blocking and checked again, so nothing that
    can hang or stream forever is ever read.
    """
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise FormatError("no such file", path=display, code="not_found") from None
    except (OSError, ValueError) as err:
        raise FormatError(f"cannot read: {os_reason(err)}", path=display) from None
    _refuse_special(info.st_mode, display)
    if info.st_size > limits.max_bytes:
        raise FormatError(
            f"file is {info.st_size} bytes; the limit is {limits.max_bytes}",
            path=display,
            code="budget_exceeded",
        )
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        handle = os.open(path, flags | getattr(os, "O_CLOEXEC", 0))
    except OSError as err:
        raise FormatError(f"cannot read: {os_reason(err)}", path=display) from None
    try:
        _refuse_special(os.fstat(handle).st_mode, display)
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = os.read(handle, 1 << 20)
            if not chunk:
                break
            total += len(chunk)
            if total > limits.max_bytes:
                raise FormatError(
                    f"file is over {limits.max_bytes} bytes, the limit",
                    path=display,
                    code="budget_exceeded",
                )
            chunks.append(chunk)
    except OSError as err:
        raise FormatError(f"cannot read: {os_reason(err)}", path=display) from None
    finally:
        os.close(handle)
    return b"".join(chunks)


def os_reason(err: BaseException) -> str:
    """What went wrong, as a person reads it: an OS error's own words, else the error's text."""
    if isinstance(err, OSError) and err.strerror:
        return err.strerror
    return str(err)


def _refuse_special(mode: int, display: str) -> None:
    kind = file_kind(mode)
    if kind is not None:
        raise FormatError(f"is {kind}, not a file kapi can read", path=display)
