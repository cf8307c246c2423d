"""The file home: documents are files; a change set's writes land atomically.

Reading is :mod:`kapi.formats.reading`: the format detected, the file read
through its codec. Writing locks the files' folders in a fixed order,
re-checks that every file is still the one staged, then writes each through
a temporary file in the same folder (fsync, then rename over the original,
keeping its permissions). Two ``kapi apply`` runs on the same files cannot
interleave; a run waits a bounded time for a folder another holds, and
removes, under the lock, the temporaries a killed run left there.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from kapi.core.change.errors import ChangeError, ErrorCode
from kapi.core.change.ports import (
    CommitOutcome,
    CommitRefused,
    DocChanged,
    Staged,
    Write,
    digest,
)
from kapi.core.edittext import render_edit_text
from kapi.core.format import DEFAULT_LIMITS, FormatError, Limits
from kapi.core.model import Document
from kapi.formats import registry
from kapi.formats.containment import Outside, inside, resolve_inside
from kapi.formats.reading import os_reason, read_file, read_regular
from kapi.formats.verify import verify_written

try:  # POSIX advisory locks; elsewhere writes are still atomic, just not serialised
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["LOCK_WAIT_SECONDS", "FileHome", "read_file", "read_regular"]

LOCK_WAIT_SECONDS = 5.0
"""How long a commit waits for folders another run holds before it reports the file changed."""

TEMPORARY_SUFFIX = ".kapi-tmp"
# ours are 8 hex digits; earlier builds' (tempfile.mkstemp) are 8 of [a-z0-9_]
_TEMPORARY = re.compile(r"\..+\.[a-z0-9_]{8}" + re.escape(TEMPORARY_SUFFIX))


class FileHome:
    """Documents as files below ``root`` (keys are slash paths relative to it)."""

    kind = "file"

    scope = "the working folder"  # how a refusal names the root

    def __init__(
        self,
        root: Path,
        *,
        locale: str = "en",
        limits: Limits = DEFAULT_LIMITS,
        cwd: Path | None = None,
    ) -> None:
        self.root = root.resolve()
        self.locale = locale
        self.limits = limits
        self.cwd = cwd  # where relative paths given to key_for start; None: the process's
        self._original: dict[str, bytes] = {}

    # --- keys and paths ----------------------------------------------------------------

    def key_for(self, path: Path) -> str:
        """The document key of a path (relative to ``cwd``): a slash path below the root.

        Symlinks are followed, so two spellings of one file give one key.
        Raises :class:`ChangeError` ``invalid`` for a path outside the root.
        """
        base = self.cwd if self.cwd is not None else Path.cwd()
        return inside(self.root, self._contained(os.fspath(path), base, "path"))

    def path_for(self, doc: str) -> Path:
        """The file a document key names; raises ``invalid`` (``at/doc``) for one outside the root."""
        if "!" in doc:
            raise ChangeError.of(
                ErrorCode.UNSUPPORTED,
                f"{doc}: archive members are not documents of the file home yet",
                capability="edition",
                field="at/doc",
            )
        if os.path.isabs(doc):
            raise ChangeError.of(
                ErrorCode.INVALID,
                f"{_shown(doc)}: outside {self.scope}; a document is a path relative to "
                "it, as a read reports it",
                field="at/doc",
            )
        return self._contained(doc, self.root, "at/doc")

    def _contained(self, name: str, base: Path, field: str) -> Path:
        try:
            return resolve_inside(self.root, name, relative_to=base, scope=self.scope)
        except Outside as err:
            raise ChangeError.of(ErrorCode.INVALID, str(err), field=field) from None

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
        import difflib  # a preview's diff only: kept off an apply's start-up

        return "".join(difflib.unified_diff(old_lines, new_lines, f"a/{key}", f"b/{key}"))

    def commit(self, writes: Sequence[Write]) -> CommitOutcome:
        """Write every file or none: temporaries first, then renames, undone if one fails."""
        ordered = sorted(writes, key=lambda write: write.key)
        paths = {write.key: self.path_for(write.key) for write in ordered}
        folders = sorted({str(path.parent) for path in paths.values() if path.parent.exists()})
        with _locked(folders, paths):
            _sweep_temporaries(folders)
            before: dict[str, bytes | None] = {}
            for write in ordered:
                path = paths[write.key]
                current = path.read_bytes() if path.exists() else None
                if (digest(current) if current is not None else None) != write.head:
                    raise DocChanged(write.key)
                before[write.key] = current
                _refuse_read_only(write.key, path)
            temporaries: list[tuple[Write, str]] = []
            try:
                for write in ordered:
                    path = paths[write.key]
                    path.parent.mkdir(parents=True, exist_ok=True)
                    temporaries.append((write, _write_temporary(path, write.data)))
            except OSError as err:
                _discard(temporary for _, temporary in temporaries)
                raise _refusal(write.key, err) from None
            landed: list[Write] = []
            for position, (write, temporary) in enumerate(temporaries):
                try:
                    os.replace(temporary, paths[write.key])
                except OSError as err:
                    _discard(t for _, t in temporaries[position:])
                    unrestored = self._restore(landed, paths, before)
                    if not unrestored:
                        raise _refusal(write.key, err) from None
                    written = {w.key: digest(w.data) for w in landed if w.key in unrestored}
                    return CommitOutcome(
                        written={w.key: written.get(w.key) for w in ordered},
                        error=f"{write.key}: {os_reason(err)}; "
                        f"{', '.join(sorted(unrestored))} could not be restored",
                    )
                landed.append(write)
            for folder in {str(paths[w.key].parent) for w in ordered}:
                _sync_folder(folder)
            for write in ordered:
                self._original[write.key] = write.data
        return CommitOutcome(written={write.key: digest(write.data) for write in ordered})

    def _restore(
        self, landed: Sequence[Write], paths: dict[str, Path], before: dict[str, bytes | None]
    ) -> set[str]:
        """Put back the files already renamed into place; the keys that could not be."""
        failed: set[str] = set()
        for write in landed:
            path, original = paths[write.key], before[write.key]
            try:
                if original is None:
                    path.unlink()
                else:
                    _atomic_write(path, original)
            except OSError:
                failed.add(write.key)
        return failed


_NOT_PERMITTED = {errno.EACCES, errno.EPERM, errno.EROFS}


def _refusal(key: str, err: OSError) -> CommitRefused:
    """A write the file system refused: ``not_permitted`` for permissions, else ``unreachable``."""
    name = errno.errorcode.get(err.errno or 0, "")
    reason = f"{os_reason(err)} ({name})" if name else os_reason(err)
    code = "not_permitted" if err.errno in _NOT_PERMITTED else "unreachable"
    return CommitRefused(
        key, code, f"{key}: could not be written: {reason}; every file is as it was"
    )


def _refuse_read_only(key: str, path: Path) -> None:
    """A file or folder without write permission is a person's choice: refuse, never replace."""
    for target, what in ((path, "file"), (path.parent, "folder")):
        try:
            mode = target.stat().st_mode
        except FileNotFoundError:
            continue
        except OSError as err:
            raise _refusal(key, err) from None
        if not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
            shown = key if what == "file" else (Path(key).parent.as_posix() or ".")
            raise CommitRefused(
                key,
                "not_permitted",
                f"{key}: the {what} {shown} is read-only (mode {stat.S_IMODE(mode):04o}); "
                "make it writable to edit it; every file is as it was",
            )


def _discard(temporaries: Iterable[str]) -> None:
    for temporary in temporaries:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def _shown(text: str) -> str:
    return text if len(text) <= 200 else text[:200] + "…"


def _block_lines(document: Document) -> list[str]:
    lines = []
    for block in document.blocks:
        lines.append(f"{block.ref_key}: {render_edit_text(block.source)}\n")
        for key in sorted(block.targets):
            lines.append(f"{block.ref_key} [{key}]: {render_edit_text(block.targets[key].runs)}\n")
    return lines


@contextlib.contextmanager
def _locked(folders: Sequence[str], paths: Mapping[str, Path]) -> Iterator[None]:
    """Hold an exclusive lock on each folder, taken in sorted order (no deadlock).

    A folder another run holds is waited for, LOCK_WAIT_SECONDS for all of them
    together; then :class:`DocChanged` names a document in it, so the service
    reads again and tries once more before it refuses with ``doc_changed``. A
    lock never blocks forever, and a killed holder's lock goes with its process.
    """
    handles: list[int] = []
    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    try:
        for folder in folders:
            if fcntl is None:
                break
            doc = next((k for k, p in paths.items() if str(p.parent) == folder), folder)
            try:
                handle = os.open(folder, os.O_RDONLY)
            except OSError as err:
                raise _refusal(doc, err) from None
            handles.append(handle)
            if not _flock_until(handle, deadline):
                raise DocChanged(doc)
        yield
    finally:
        for handle in reversed(handles):
            if fcntl is not None:
                with contextlib.suppress(OSError):
                    fcntl.flock(handle, fcntl.LOCK_UN)
            os.close(handle)


def _flock_until(handle: int, deadline: float) -> bool:
    """Take an exclusive lock, polling until ``deadline``; whether it was taken."""
    pause = 0.002
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            pass
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        # jittered, growing pauses: waiting runs neither spin nor retry in step
        import random  # only a run that waits for another needs it

        time.sleep(min(pause * (0.5 + random.random()), left))
        pause = min(pause * 2, 0.05)


def _sweep_temporaries(folders: Sequence[str]) -> None:
    """Remove the temporaries killed runs left in ``folders``, which this run holds locked.

    A run makes its temporaries only while it holds their folder's lock, so
    under that lock every temporary there is a dead run's. Without locks
    (no ``fcntl``) a temporary may be a live run's, and is left alone.
    """
    if fcntl is None:
        return
    for folder in folders:
        try:
            with os.scandir(folder) as entries:
                names = [e.name for e in entries if e.name.endswith(TEMPORARY_SUFFIX)]
        except OSError:
            continue
        for name in names:
            if _TEMPORARY.fullmatch(name):
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(folder, name))


def _create_temporary(path: Path) -> tuple[int, str]:
    """A new file ``.<name>.<8 hex>.kapi-tmp`` beside ``path``, open for writing (mode 0600)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    while True:
        name = f".{path.name[:200]}.{os.urandom(4).hex()}{TEMPORARY_SUFFIX}"
        temporary = os.path.join(path.parent, name)
        try:
            return os.open(temporary, flags, 0o600), temporary
        except FileExistsError:
            continue


def _write_temporary(path: Path, data: bytes) -> str:
    """``data`` in a synced temporary file beside ``path``, with ``path``'s permissions."""
    mode = None
    with contextlib.suppress(FileNotFoundError):
        mode = stat.S_IMODE(path.stat().st_mode)
    handle, temporary = _create_temporary(path)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    return temporary


def _atomic_write(path: Path, data: bytes) -> None:
    temporary = _write_temporary(path, data)
    try:
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _sync_folder(str(path.parent))


def _sync_folder(folder: str) -> None:
    with contextlib.suppress(OSError):
        handle = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)
