"""``kapi check``: files, text or a diff through the one check engine, with governance by path.

The files that govern a project (its recipe, voices, terms, ``.kapi/``) are
the rules a check applies, never content it checks.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from attrs import evolve, frozen

from kapi.core.check.engine import Checker, TargetResult, build_report, run_check
from kapi.core.check.findings import Lines
from kapi.core.check.options import CheckOptions
from kapi.core.check.report import Report
from kapi.core.check.target import CheckTarget, ScopeStatus, text_target
from kapi.core.format import FormatError
from kapi.core.governance.errors import GovernanceError
from kapi.core.governance.resolve import ResolvedGovernance
from kapi.core.model import Block, Document
from kapi.host.errors import EXIT_ERROR, EXIT_USAGE, HostError
from kapi.host.governance import Governance, governance_error

if TYPE_CHECKING:
    from kapi.core.check.analyzers import Analyzer
    from kapi.core.format import TextLocator
    from kapi.host.workspace import Workspace

__all__ = [
    "DiffScope",
    "changed_lines",
    "check_diff",
    "check_files",
    "check_text",
    "without_governance",
]


def _version() -> str:
    from kapi.host.version import VERSION

    return VERSION


def _locator(document: Document, lines: Mapping[str, Lines] | None) -> TextLocator | None:
    """What places findings at their line and column, for a text format with span skeletons."""
    if not lines:
        return None
    from kapi.formats.skeleton import text_locator

    return text_locator(document)


def block_lines(document: Document) -> dict[str, Lines] | None:
    """Each block's lines in its file, when its format knows positions."""
    from kapi.formats import registry

    found = registry.load_codec(document.format).block_lines(document)
    if found is None:
        return None
    return {key: Lines(start, end) for key, (start, end) in found.items()}


# A project's translation file checked on its own: its source's path, that source's
# display name, and the language the file is in.
_Pair = tuple[str, str, str]


def _read_target(
    workspace: Workspace,
    path: Path,
    display: str,
    data: bytes | None = None,
    format_name: str | None = None,
    *,
    comments: bool = False,
    pair: _Pair | None = None,
) -> CheckTarget:
    return _read(
        workspace.source_language, path, display, data, format_name, comments=comments, pair=pair
    )


def translation_pairs(workspace: Workspace, paths: Sequence[str]) -> dict[str, _Pair]:
    """Of ``paths``, those that are a translation's own file in the project, each with its pair.

    Such a file is checked as the translation it is: in its language, and against
    its source by the bilingual analyzers (placeholders, QA), as ``--target`` does.
    """
    project = workspace.project
    if project is None:
        return {}
    relative = {path: project.relative(Path(path)) for path in paths if path != "-"}
    found = project.translation_sources([rel for rel in relative.values() if rel is not None])
    out: dict[str, _Pair] = {}
    for path, rel in relative.items():
        if rel is not None and rel in found:
            source, language = found[rel]
            out[path] = (str(project.root / source), source, language)
    return out


def _read(
    source_language: str,
    path: Path,
    display: str,
    data: bytes | None = None,
    format_name: str | None = None,
    *,
    comments: bool = False,
    pair: _Pair | None = None,
) -> CheckTarget:
    """One file read by its format into a check target (plain values in, for worker processes).

    With ``comments``, a source file's comments are read instead (:mod:`kapi.host.comments`).
    With ``pair``, the file is a translation: it is read in its language and its source's
    blocks come with it, unless the file holds its own target side (a PO or XLIFF file).
    """
    if comments:
        from kapi.host.comments import read_comment_target

        return read_comment_target(source_language, path, display, data)
    from kapi.formats import registry
    from kapi.formats.reading import read_document

    started = time.perf_counter()
    try:
        _, document, spec = read_document(
            path if data is None else data,
            display=display,
            locale=pair[2] if pair is not None else source_language,
            format_name=format_name,
        )
    except registry.UnknownFormat as err:
        return CheckTarget(file=display, status=ScopeStatus.NO_READER, reason=str(err))
    except FormatError as err:
        status = ScopeStatus.DELETED if err.code == "not_found" else ScopeStatus.DID_NOT_RUN
        return CheckTarget(file=display, status=status, reason=err.located())
    except OSError as err:
        return CheckTarget(
            file=display, status=ScopeStatus.DID_NOT_RUN, reason=f"{display}: {err.strerror or err}"
        )
    lines = block_lines(document)
    target = CheckTarget(
        file=display,
        format=spec.name,
        blocks=document.blocks,
        locale=document.locale or source_language,
        context_path=display,
        block_lines=lines or {},
        locator=_locator(document, lines),
        target_locale=document.target_locale,
    )
    if pair is not None and not document.target_locale:
        target = _with_source(target, source_language, pair)
    return evolve(target, extraction_ms=(time.perf_counter() - started) * 1000)


def _with_source(target: CheckTarget, source_language: str, pair: _Pair) -> CheckTarget:
    """A translation's target with its source's blocks; as it was when the source cannot be
    read (the source's own check says why)."""
    from kapi.formats import registry
    from kapi.formats.reading import read_document

    path, display, language = pair
    try:
        _, source, _ = read_document(Path(path), display=display, locale=source_language)
    except (registry.UnknownFormat, FormatError, OSError):
        return target
    return evolve(
        target,
        locale=language,
        target_locale=language,
        source_blocks=source.blocks,
        source_locale=source.locale or source_language,
    )


def _display(workspace: Workspace, path: Path) -> str:
    absolute = path if path.is_absolute() else Path.cwd() / path
    try:  # realpath, not resolve: a symlink loop is reported when read, not raised here
        return Path(os.path.realpath(absolute)).relative_to(workspace.root).as_posix()
    except ValueError:
        return str(path)


def _context(workspace: Workspace) -> dict[str, str] | None:
    """``evaluation.context``: the project checked."""
    if workspace.project is None:
        return None
    return {"project": workspace.project.id or workspace.project.name}


def _run(
    workspace: Workspace,
    targets: Sequence[CheckTarget],
    governance: Governance,
    options: CheckOptions,
    label: str,
    formatter_verdicts: Mapping[str, Any] | None = None,
) -> Report:
    try:
        return run_check(
            targets,
            governance.resolver(),
            options,
            label=label,
            context=_context(workspace),
            analyzers=_analyzers(any(target.comments for target in targets), formatter_verdicts),
        )
    except GovernanceError as err:
        raise governance_error(err) from None


def _analyzers(
    comments: bool, formatter_verdicts: Mapping[str, Any] | None = None
) -> tuple[Analyzer, ...] | None:
    """Every analyzer, with ``comments`` when source files' comments are checked, and
    ``formatter`` when their project declares formatters (their verdicts given)."""
    if not comments:
        return None
    from kapi.core.check.comments import CommentsAnalyzer, FormatterAnalyzer
    from kapi.core.check.engine import default_analyzers

    extra: tuple[Analyzer, ...] = (CommentsAnalyzer(),)
    if formatter_verdicts:
        extra += (FormatterAnalyzer(formatter_verdicts),)
    return (*default_analyzers(), *extra)


def _options(options: CheckOptions) -> CheckOptions:
    from datetime import UTC, datetime

    at = options.at or datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    return evolve(options, at=at, tool_version=options.tool_version or _version())


def without_governance(
    workspace: Workspace, paths: Sequence[str]
) -> tuple[list[str], list[tuple[str, str]]]:
    """The paths that are content, and those left out as ``(path, what governs)``.

    A path is as given (relative to the current folder, or absolute); ``-`` stays.
    """
    project = workspace.project
    if project is None:
        return list(paths), []
    kept: list[str] = []
    skipped: list[tuple[str, str]] = []
    for path in paths:
        what = project.governs(str(Path.cwd() / path)) if path != "-" else ""
        if what:
            skipped.append((path, what))
        else:
            kept.append(path)
    return kept, skipped


def check_files(
    workspace: Workspace,
    paths: Sequence[str],
    options: CheckOptions,
    governance: Governance,
    *,
    format_name: str | None = None,
    target: str | None = None,
    target_lang: str | None = None,
    on_governance: Callable[[str, str], None] | None = None,
    comments: bool = False,
) -> Report:
    """Check files (or ``-`` for stdin with ``format_name``).

    A file that governs the project is left out; ``on_governance`` hears of
    each, with what it is. A source file is read for its comments when
    ``comments`` asks for it or its ``content[]`` item declares ``comments``.

    Many files are read by their formats and analysed in several processes at
    once (this one and workers, in chunks); this process resolves governance,
    merges the results in the order given and builds the report, which is the
    one a single process gives. ``KAPI_CHECK_WORKERS`` sets how many processes
    check: ``0`` or ``1`` checks everything in this process; ``N`` uses N
    processes (this one and N-1 workers, never more than one per file); unset
    or empty means automatic: one process per CPU this process may use, from
    64 files, when there is more than one CPU. Workers start by ``fork`` where
    that is safe (not on macOS, and only while this process runs one thread),
    else by ``spawn``, where each worker imports kapi first, so automatic mode
    then waits for 512 files. When no worker can start (a sandbox without
    semaphores) or one dies, this process checks what is left. Any other value
    is a usage error (exit 2).
    """
    paths, skipped = without_governance(workspace, paths)
    if on_governance is not None:
        for path, what in skipped:
            on_governance(path, what)
    jobs: list[tuple[str, str]] = []  # (path, display) of each file a worker may check
    for path in paths:
        if path == "-":
            if not format_name:
                raise HostError(
                    "checking stdin needs --format (see `kapi formats`)", exit_code=EXIT_USAGE
                )
        else:
            jobs.append((path, _display(workspace, Path(path))))
    from kapi.host.comments import reads_comments

    as_comments = {path for path, _ in jobs if reads_comments(workspace, path, asked=comments)}
    verdicts = None
    if as_comments:
        from kapi.host.comments import formatter_verdicts

        verdicts = formatter_verdicts(workspace, [job for job in jobs if job[0] in as_comments])
    pairs = translation_pairs(workspace, [path for path, _ in jobs]) if target is None else {}
    processes = _processes(len(jobs))
    if target is not None and (len(paths) != 1 or not target_lang):
        raise HostError(
            "--target checks one source file against one translation; give --target-lang",
            exit_code=EXIT_USAGE,
        )
    label = paths[0] if len(paths) == 1 else f"{len(paths)} files"
    if processes > 1:
        return _check_parallel(
            workspace,
            paths,
            jobs,
            _options(options),
            governance,
            format_name,
            processes,
            label,
            comment_paths=frozenset(as_comments),
            formatter_verdicts=verdicts,
            pairs=pairs,
        )
    displays = iter(jobs)
    targets: list[CheckTarget] = []
    for path in paths:
        if path == "-":
            targets.append(
                _read_target(workspace, Path("-"), "-", sys.stdin.buffer.read(), format_name)
            )
        else:
            _, display = next(displays)
            targets.append(
                _read_target(
                    workspace,
                    Path(path),
                    display,
                    format_name=format_name,
                    comments=path in as_comments,
                    pair=pairs.get(path),
                )
            )
    if target is not None and target_lang:
        from kapi.host.inputs import file_in

        translated = _read_target(
            workspace, file_in(workspace, target), _display(workspace, Path(target))
        )
        if translated.status != ScopeStatus.CHECKED:
            raise HostError(f"--target {target}: {translated.reason}", exit_code=EXIT_ERROR)
        targets[0] = evolve(targets[0], target_blocks=translated.blocks, target_locale=target_lang)
        options = evolve(options, target_locale=target_lang)
    return _run(workspace, targets, governance, _options(options), label, verdicts)


# --- checking many files in worker processes --------------------------------------------

WORKERS_ENV = "KAPI_CHECK_WORKERS"
# Automatic parallel checking starts at this many files: below it, starting the pool costs
# about what it saves. A spawned worker imports kapi first, so it waits for more files.
_AUTO_MIN_FILES = 64
_AUTO_MIN_FILES_SPAWN = 512
# Small chunks, several per process, so the processes finish together.
_CHUNKS_PER_PROCESS = 24
_CHUNK_MIN = 8
_CHUNK_MAX = 64


def _cpus() -> int:
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        try:
            return len(affinity(0)) or 1
        except OSError:
            pass
    return os.cpu_count() or 1


def _fork_is_safe() -> bool:
    """``fork`` copies one thread: safe while this process has no other (and never on macOS)."""
    import multiprocessing
    import threading

    return (
        "fork" in multiprocessing.get_all_start_methods()
        and sys.platform != "darwin"
        and threading.active_count() == 1
    )


def _processes(files: int) -> int:
    """How many processes check ``files`` files: 1 means this process checks them all."""
    raw = os.environ.get(WORKERS_ENV, "").strip()
    if raw:
        try:
            wanted = int(raw)
        except ValueError:
            wanted = -1
        if wanted < 0:
            raise HostError(
                f"{WORKERS_ENV}={raw!r}: give a number of processes (0 or 1 checks in this "
                "process; unset for automatic)",
                exit_code=EXIT_USAGE,
            )
        return max(1, min(wanted, files))
    if files < _AUTO_MIN_FILES:
        return 1  # decided before importing multiprocessing: a check of a few files starts fast
    cpus = _cpus()
    if cpus < 2 or (files < _AUTO_MIN_FILES_SPAWN and not _fork_is_safe()):
        return 1
    return min(cpus, files)


# A file's part of the work: (path, display, the governance resolved at its point, or None
# when resolving failed here; then the file comes back read and is resolved again here;
# whether the file is read for its comments; its source, when it is a translation).
_Job = tuple[str, str, ResolvedGovernance | None, bool, _Pair | None]
# What a worker gives back for a file: its result, or the target itself when it must be
# resolved here (a file that declares another locale, or governance that did not resolve).
_Done = TargetResult | CheckTarget

_WORKER: Checker | None = None  # each worker process's checker, made by _start_worker


def _start_worker(
    options: CheckOptions,
    comments: bool = False,
    formatter_verdicts: Mapping[str, Any] | None = None,
) -> None:
    """A worker's checker (its own canary cache); Ctrl-C is left to the parent, which
    cancels what is left and exits 130."""
    import signal

    global _WORKER
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _WORKER = Checker(options, analyzers=_analyzers(comments, formatter_verdicts))


def _check_in_worker(
    source_language: str, format_name: str | None, jobs: Sequence[_Job]
) -> list[_Done]:
    assert _WORKER is not None, "the pool's initializer makes the checker"
    return _check_chunk(_WORKER, source_language, format_name, jobs)


def _check_chunk(
    checker: Checker, source_language: str, format_name: str | None, jobs: Sequence[_Job]
) -> list[_Done]:
    """Read and analyse each file under the governance resolved for it in the parent.

    The parent resolved each file at the project's source language, as
    :meth:`Governance.resolver` resolves a target by its file and locale; a
    file that declares another locale goes back to be resolved there.
    """
    done: list[_Done] = []
    for path, display, governance, comments, pair in jobs:
        target = _read(
            source_language,
            Path(path),
            display,
            format_name=format_name,
            comments=comments,
            pair=pair,
        )
        if target.status != ScopeStatus.CHECKED:
            done.append(checker.check(target))  # nothing to resolve: only its scope entry
        elif governance is not None and target.locale == source_language:
            done.append(checker.analyse(target, governance))
        else:
            done.append(target)
    return done


def _check_parallel(
    workspace: Workspace,
    paths: Sequence[str],
    files: Sequence[tuple[str, str]],
    options: CheckOptions,
    governance: Governance,
    format_name: str | None,
    processes: int,
    label: str,
    *,
    comment_paths: frozenset[str] = frozenset(),
    formatter_verdicts: Mapping[str, Any] | None = None,
    pairs: Mapping[str, _Pair] | None = None,
) -> Report:
    """The report, with files read and analysed by this process and ``processes - 1`` workers.

    This process resolves each file's governance (voices and the store are read
    only here) and sends it with the file. Chunks are queued for the pool in
    order while this process takes them from the back, so both finish together
    whatever the machine's other load. A chunk a broken pool did not return is
    checked here. The results are merged in the order given.
    """
    import contextlib
    import functools
    import multiprocessing
    from concurrent.futures import Future, ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    source_language = workspace.source_language
    resolver = governance.resolver()
    try:
        checker = Checker(options, analyzers=_analyzers(bool(comment_paths), formatter_verdicts))
    except GovernanceError as err:
        raise governance_error(err) from None
    started = time.perf_counter()
    resolving_ms: list[float] = []  # each file's, in the order given

    def job(path: str, display: str) -> _Job:
        before = time.perf_counter()
        comments = path in comment_paths
        try:
            resolved: ResolvedGovernance | None = resolver(
                CheckTarget(file=display, locale=source_language, comments=comments)
            )
        except GovernanceError:
            resolved = None  # raised again if the file has content, where one process would
        resolving_ms.append((time.perf_counter() - before) * 1000)
        return path, display, resolved, comments, (pairs or {}).get(path)

    # The first file is checked here before the pool starts, so its format's reader and the
    # analyzers' compiled rules are made once and forked workers inherit them.
    first = _check_chunk(checker, source_language, format_name, [job(*files[0])])
    rest = files[1:]
    size = min(_CHUNK_MAX, max(_CHUNK_MIN, len(rest) // (processes * _CHUNKS_PER_PROCESS)))
    method = "fork" if _fork_is_safe() else "spawn"
    try:
        pool = ProcessPoolExecutor(
            max_workers=max(1, processes - 1),
            mp_context=multiprocessing.get_context(method),
            initializer=_start_worker,
            initargs=(checker.options, bool(comment_paths), formatter_verdicts),
        )
    except (OSError, ValueError, NotImplementedError, ImportError):
        pool = None  # no semaphores or processes here (a sandbox): check in this process
    here = functools.partial(_check_chunk, checker, source_language, format_name)
    remote = functools.partial(_check_in_worker, source_language, format_name)
    chunks: list[list[_Job]] = []
    futures: list[Future[list[_Done]]] = []
    try:
        for at in range(0, len(rest), size):
            chunks.append([job(path, display) for path, display in rest[at : at + size]])
            if pool is not None and len(futures) == len(chunks) - 1:
                # A pool that broke takes no more: the chunks without a future are checked here.
                with contextlib.suppress(BrokenProcessPool, OSError, RuntimeError):
                    futures.append(pool.submit(remote, chunks[-1]))
        results: list[list[_Done] | None] = [None] * len(chunks)
        for index in reversed(range(len(chunks))):
            if index < len(futures) and not futures[index].cancel():
                break  # the pool has reached this chunk, and so every one before it
            results[index] = here(chunks[index])
        for index, future in enumerate(futures):
            if results[index] is None:
                try:
                    results[index] = future.result()
                except (BrokenProcessPool, OSError):
                    results[index] = here(chunks[index])  # a worker died (killed, out of memory)
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    done = first + [item for chunk in results if chunk is not None for item in chunk]
    # Reading and analysing times become each file's share of the elapsed time, so the
    # report's times stay elapsed times rather than sums over processes.
    wall = (time.perf_counter() - started) * 1000 - sum(resolving_ms)
    spent = sum(
        item.extraction_ms + (item.analyzers_ms if isinstance(item, TargetResult) else 0.0)
        for item in done
    )
    scale = wall / spent if spent > 0 and wall > 0 else 1.0
    merged: list[TargetResult] = []
    pending = iter(zip(done, resolving_ms, strict=True))
    try:
        for path in paths:
            if path == "-":
                read = _read(source_language, Path("-"), "-", sys.stdin.buffer.read(), format_name)
                merged.append(checker.check(read, resolver))
                continue
            item, resolving = next(pending)
            if isinstance(item, CheckTarget):
                item = checker.check(
                    evolve(item, extraction_ms=item.extraction_ms * scale), resolver
                )
                resolving += item.context_ms
            else:
                item = evolve(
                    item,
                    extraction_ms=item.extraction_ms * scale,
                    analyzers_ms=item.analyzers_ms * scale,
                )
            merged.append(evolve(item, context_ms=resolving))
    except GovernanceError as err:
        raise governance_error(err) from None
    extraction = sum(item.extraction_ms for item in merged)
    return build_report(
        merged,
        checker.options,
        started=started + extraction / 1000,  # the report adds the extraction time back
        analyzers=checker.analyzers,
        label=label,
        context=_context(workspace),
    )


def check_text(
    workspace: Workspace,
    text: str,
    options: CheckOptions,
    governance: Governance,
    *,
    path: str = "",
    format_name: str | None = None,
) -> Report:
    """Check a draft: plain paragraphs, or read by a format when one is named."""
    if format_name:
        target = _read_target(
            workspace, Path(path or "-"), path or "-", text.encode("utf-8"), format_name
        )
    else:
        target = text_target(
            text, locale=workspace.source_language, context_path=path, file=path or "<text>"
        )
    return _run(workspace, [target], governance, _options(options), path or "<text>")


# --- diffs ------------------------------------------------------------------------------


@frozen
class DiffScope:
    """What a diff touched: per file, the changed line numbers of the new side."""

    files: Mapping[str, frozenset[int]]
    deleted: frozenset[str] = frozenset()
    whole: frozenset[str] = frozenset()  # new files: every line counts


def changed_lines(diff: str) -> DiffScope:
    """Parse a unified diff (``git diff`` output or a patch file)."""
    files: dict[str, set[int]] = {}
    deleted: set[str] = set()
    whole: set[str] = set()
    current: str | None = None
    old_name = ""
    new_line = 0
    for raw in diff.splitlines():
        if raw.startswith(("--- ", "+++ ")) and "\x00" in raw:  # no file's name holds one
            raise HostError(f"diff: a file name holding a NUL byte {raw!r}", exit_code=EXIT_USAGE)
        if raw.startswith("--- "):
            old_name = raw[4:].split("\t")[0]
            continue
        if raw.startswith("+++ "):
            name = raw[4:].split("\t")[0]
            if name == "/dev/null":
                gone = old_name[2:] if old_name.startswith("a/") else old_name
                deleted.add(gone)
                current = None
                continue
            current = name[2:] if name.startswith("b/") else name
            files.setdefault(current, set())
            if old_name == "/dev/null":
                whole.add(current)
            continue
        if raw.startswith("@@"):
            try:
                new = raw.split("+", 1)[1].split(" ", 1)[0]
            except IndexError:
                raise HostError(
                    f"diff: malformed hunk header {raw!r}", exit_code=EXIT_USAGE
                ) from None
            start, _, count = new.partition(",")
            if not start.isdigit() or (count and not count.isdigit()):
                raise HostError(f"diff: malformed hunk header {raw!r}", exit_code=EXIT_USAGE)
            try:  # isdigit() also passes digits int() cannot read ("²") and numbers too long
                new_line = int(start)
            except ValueError:
                raise HostError(
                    f"diff: malformed hunk header {raw!r}", exit_code=EXIT_USAGE
                ) from None
            if current is not None and count == "0":
                # a pure deletion: the neighbours of the cut count as touched
                files[current].update({max(1, new_line), new_line + 1})
            continue
        if current is None:
            continue
        if raw.startswith("+"):
            files[current].add(new_line)
            new_line += 1
        elif raw.startswith(" "):
            new_line += 1
    return DiffScope(
        files={k: frozenset(v) for k, v in files.items()},
        deleted=frozenset(deleted),
        whole=frozenset(whole),
    )


def _git(workspace: Workspace, *args: str) -> str:
    import subprocess  # only a diff-scoped check runs git

    try:
        done = subprocess.run(
            ["git", *args], cwd=workspace.root, capture_output=True, text=True, check=False
        )
    except FileNotFoundError:
        raise HostError(
            "git is not installed; --diff-against and --staged need it", exit_code=EXIT_ERROR
        ) from None
    if done.returncode != 0:
        raise HostError(
            f"git {' '.join(args)}: {done.stderr.strip() or 'failed'}", exit_code=EXIT_ERROR
        )
    return done.stdout


def check_diff(
    workspace: Workspace,
    options: CheckOptions,
    governance: Governance,
    *,
    against: str | None = None,
    diff_text: str | None = None,
    staged: bool = False,
    comments: bool = False,
) -> Report:
    """Check what a diff changed: each changed line widens to its whole block.

    With ``comments``, a changed source file's comments are read and each
    changed line widens to its whole comment.
    """
    from kapi.host.comments import reads_comments

    description = ""
    if diff_text is not None:
        scope = changed_lines(diff_text)
        description = "diff file"
    elif staged:
        if _git(workspace, "diff", "--name-only", "--diff-filter=U").strip():
            raise HostError(
                "the index has merge conflicts; resolve them first", exit_code=EXIT_USAGE
            )
        scope = changed_lines(
            _git(workspace, "diff", "--cached", "--unified=0", "--no-color", "--no-ext-diff")
        )
        description = "staged"
    else:
        assert against is not None
        scope = changed_lines(
            _git(workspace, "diff", "--unified=0", "--no-color", "--no-ext-diff", against, "--")
        )
        untracked = _git(workspace, "ls-files", "--others", "--exclude-standard").split("\n")
        files = dict(scope.files)
        for name in filter(None, untracked):
            files.setdefault(name, frozenset())
        scope = DiffScope(
            files=files,
            deleted=scope.deleted,
            whole=scope.whole | frozenset(filter(None, untracked)),
        )
        description = f"against {against}"
    project = workspace.project
    if project is not None:  # a diff to the recipe, a voice or terms changes rules, not content
        scope = DiffScope(
            files={k: v for k, v in scope.files.items() if not project.governs(k)},
            deleted=frozenset(name for name in scope.deleted if not project.governs(name)),
            whole=scope.whole,
        )
    targets: list[CheckTarget] = []
    pairs = translation_pairs(workspace, [str(workspace.root / name) for name in scope.files])
    for name in sorted(scope.deleted):
        targets.append(
            CheckTarget(file=name, status=ScopeStatus.DELETED, reason="deleted by the diff")
        )
    for name, lines in sorted(scope.files.items()):
        path = workspace.root / name
        data = None
        if staged:
            data = _git_bytes(workspace, f":{name}")
        target = _read_target(
            workspace,
            path,
            name,
            data,
            comments=reads_comments(workspace, str(path), asked=comments),
            pair=pairs.get(str(path)),
        )
        if target.status == ScopeStatus.NO_READER:
            targets.append(
                evolve(target, status=ScopeStatus.OUT_OF_SCOPE, reason="no format reads this file")
            )
            continue
        if target.status != ScopeStatus.CHECKED:
            targets.append(target)
            continue
        if name in scope.whole or not target.block_lines:
            targets.append(
                evolve(
                    target, scope_blocks=None if name in scope.whole else _all_keys(target.blocks)
                )
            )
            continue
        touched = frozenset(
            key
            for key, span in target.block_lines.items()
            if any(span.start <= n <= span.end for n in lines)
        )
        if not touched:
            targets.append(evolve(target, status=ScopeStatus.UNTOUCHED, reason="no block changed"))
            continue
        targets.append(evolve(target, scope_blocks=touched))
    return _run(
        workspace, targets, governance, _options(evolve(options, diff=description)), description
    )


def _all_keys(blocks: Sequence[Block]) -> frozenset[str]:
    return frozenset(block.ref_key for block in blocks)


def _git_bytes(workspace: Workspace, spec: str) -> bytes:
    import subprocess

    done = subprocess.run(
        ["git", "show", spec], cwd=workspace.root, capture_output=True, check=False
    )
    if done.returncode != 0:
        raise HostError(
            f"git show {spec}: {done.stderr.decode(errors='replace').strip()}", exit_code=EXIT_ERROR
        )
    return done.stdout
