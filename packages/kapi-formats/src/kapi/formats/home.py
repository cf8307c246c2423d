"""The file home: documents are files; a change set's writes land atomically.

Reading detects the format and reads through its codec. Writing locks the
files' folders in a fixed order, re-checks that every file is still the one
staged, then writes each through a temporary file in the same folder
(fsync, then rename over the original, keeping its permissions). Two
``kapi apply`` runs on the same files cannot interleave.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import stat
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from kapi.core.change.errors import ChangeError, ErrorCode
from kapi.core.change.ports import CommitOutcome, DocChanged, Staged, Write, digest
from kapi.core.edittext import render_edit_text
from kapi.core.format import DEFAULT_LIMITS, FormatError, Limits
from kapi.core.model import Document
from kapi.formats import registry
from kapi.formats.verify import verify_written

try:  # POSIX advisory locks; elsewhere writes are still atomic, just not serialised
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["FileHome", "read_file"]


def read_file(
    path: Path, *, display: str, locale: str, limits: Limits = DEFAULT_LIMITS
) -> tuple[bytes, Document, registry.FormatSpec]:
    """Read one file into a document: ``(bytes, document, format)``; raises FormatError."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise FormatError("no such file", path=display, code="not_found") from None
    except OSError as err:
        raise FormatError(f"cannot read: {err.strerror}", path=display) from None
    if size > limits.max_bytes:
        raise FormatError(
            f"file is {size} bytes; the limit is {limits.max_bytes}",
            path=display,
            code="budget_exceeded",
        )
    try:
        data = path.read_bytes()
    except IsADirectoryError:
        raise FormatError("is a folder, not a file", path=display) from None
    except OSError as err:
        raise FormatError(f"cannot read: {err.strerror}", path=display) from None
    try:
        spec = registry.detect(display, data[:4096])
    except registry.UnknownFormat as err:
        raise FormatError(str(err).split(": ", 1)[-1], path=display, code="unsupported") from None
    codec = registry.load_codec(spec)
    document = codec.read(data, path=display, locale=locale)
    return data, document, spec


class FileHome:
    """Documents as files below ``root`` (keys are slash paths relative to it)."""

    kind = "file"

    def __init__(self, root: Path, *, locale: str = "en", limits: Limits = DEFAULT_LIMITS) -> None:
        self.root = root.resolve()
        self.locale = locale
        self.limits = limits
        self._original: dict[str, bytes] = {}

    # --- keys and paths ----------------------------------------------------------------

    def key_for(self, path: Path) -> str:
        """The document key of a path: relative to the root, else absolute."""
        absolute = path if path.is_absolute() else (Path.cwd() / path)
        absolute = Path(os.path.normpath(absolute))
        try:
            return absolute.relative_to(self.root).as_posix()
        except ValueError:
            return absolute.as_posix()

    def path_for(self, doc: str) -> Path:
        if "!" in doc:
            raise ChangeError.of(
                ErrorCode.UNSUPPORTED,
                f"{doc}: archive members are not documents of the file home yet",
                capability="edition",
                field="at/doc",
            )
        path = Path(doc)
        return path if path.is_absolute() else self.root / path

    # --- the DocumentHome port ---------------------------------------------------------

    def stage(self, doc: str) -> Staged:
        path = self.path_for(doc)
        key = self.key_for(path)
        try:
            data, document, spec = read_file(
                path, display=key, locale=self.locale, limits=self.limits
            )
        except FormatError as err:
            code = ErrorCode.NOT_FOUND if err.code == "not_found" else ErrorCode(err.code)
            raise ChangeError.of(
                code,
                err.located(),
                field="at/doc" if code == ErrorCode.NOT_FOUND else None,
                capability=err.capability or None,
            ) from None
        self._original[key] = data
        caps = spec.capabilities
        editions: frozenset[str] = frozenset()
        if caps.interchange and document.target_locale:
            editions = frozenset({document.target_locale})
        return Staged(
            doc=key,
            document=document,
            head=digest(data),
            capabilities=caps,
            home=self.kind,
            editions=editions,
        )

    def render(self, staged: Staged, document: Document) -> Sequence[Write]:
        """The edited file's bytes, read back first: a write the format cannot say is refused."""
        return (Write(staged=staged, data=self.write_checked(staged, document, staged.doc)),)

    def write_checked(self, staged: Staged, document: Document, path: str) -> bytes:
        codec = registry.load_codec(staged.capabilities.name)
        data = codec.write(document)
        verify_written(codec, document, data, path=path, locale=document.locale or self.locale)
        return data

    def diff(self, write: Write) -> str:
        staged, data = write.staged, write.data
        key = write.key
        before = self._original.get(key)
        if before is None:
            path = self.path_for(key)
            before = path.read_bytes() if path.exists() else b""
        try:
            old_lines = before.decode("utf-8").splitlines(keepends=True)
            new_lines = data.decode("utf-8").splitlines(keepends=True)
        except UnicodeDecodeError:
            old_lines = _block_lines(staged.document)
            codec = registry.load_codec(staged.capabilities.name)
            new_lines = _block_lines(codec.read(data, path=staged.doc, locale=self.locale))
        return "".join(difflib.unified_diff(old_lines, new_lines, f"a/{key}", f"b/{key}"))

    def commit(self, writes: Sequence[Write]) -> CommitOutcome:
        ordered = sorted(writes, key=lambda write: write.key)
        paths = {write.key: self.path_for(write.key) for write in ordered}
        folders = sorted({str(path.parent) for path in paths.values() if path.parent.exists()})
        with _locked(folders):
            for write in ordered:
                path = paths[write.key]
                current = digest(path.read_bytes()) if path.exists() else None
                if current != write.head:
                    raise DocChanged(write.key)
            written: dict[str, str | None] = {write.key: None for write in ordered}
            for write in ordered:
                try:
                    paths[write.key].parent.mkdir(parents=True, exist_ok=True)
                    _atomic_write(paths[write.key], write.data)
                except OSError as err:
                    return CommitOutcome(
                        written=written, error=f"{write.key}: {err.strerror or err}"
                    )
                written[write.key] = digest(write.data)
                self._original[write.key] = write.data
        return CommitOutcome(written=written)


def _block_lines(document: Document) -> list[str]:
    lines = []
    for block in document.blocks:
        lines.append(f"{block.ref_key}: {render_edit_text(block.source)}\n")
        for key in sorted(block.targets):
            lines.append(f"{block.ref_key} [{key}]: {render_edit_text(block.targets[key].runs)}\n")
    return lines


@contextlib.contextmanager
def _locked(folders: Sequence[str]) -> Iterator[None]:
    """Hold an exclusive lock on each folder, taken in sorted order (no deadlock)."""
    handles: list[int] = []
    try:
        for folder in folders:
            if fcntl is None:
                break
            handle = os.open(folder, os.O_RDONLY)
            handles.append(handle)
            fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        for handle in reversed(handles):
            if fcntl is not None:
                fcntl.flock(handle, fcntl.LOCK_UN)
            os.close(handle)


def _atomic_write(path: Path, data: bytes) -> None:
    mode = None
    with contextlib.suppress(FileNotFoundError):
        mode = stat.S_IMODE(path.stat().st_mode)
    handle, temporary = tempfile.mkstemp(
        prefix=f".{path.name}.", suffix=".kapi-tmp", dir=path.parent
    )
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    with contextlib.suppress(OSError):
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
