"""Code comments in a check: a source file read for its comments, as the check engine's target.

``kapi check --comments`` reads every source file named this way, and a
project reads the files of a ``content[]`` item that declares ``comments``;
the governance then resolves at the comment voice (``comments.channel`` on
the item, then on ``defaults``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from attrs import frozen

from kapi.core.check.findings import Lines
from kapi.core.check.target import CheckTarget, ScopeStatus
from kapi.core.format import FormatError
from kapi.host.errors import EXIT_ERROR, HostError

if TYPE_CHECKING:
    from kapi.host.project import Project
    from kapi.host.workspace import Workspace

__all__ = [
    "CommentSettings",
    "check_reads_comments",
    "comment_refusal",
    "comment_settings",
    "formatter_verdicts",
    "inspect_comments",
    "is_comment_source",
    "read_comment_target",
    "reads_comments",
]


def is_comment_source(path: str) -> bool:
    """Whether a file is source code kapi would read for its comments (by its extension)."""
    from kapi.formats.comments.languages import is_source_file

    return is_source_file(path)


@frozen
class CommentSettings:
    """What a project declares for a file's comments: read them, under which formatter."""

    declared: bool = False
    formatter: str = ""


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def comment_settings(project: Project | None, relpath: str) -> CommentSettings:
    """The item's ``comments`` for a project file (then ``defaults.comments``), else nothing."""
    if project is None:
        return CommentSettings()
    defaults = _mapping(_mapping(project.raw.get("defaults")).get("comments"))
    claimed = project.claim(relpath)
    item = claimed[1] if claimed is not None else None
    declared = bool(item is not None and item.comments)
    formatter = (item.comments_formatter if item is not None else "") or str(
        defaults.get("formatter") or ""
    )
    return CommentSettings(declared=declared, formatter=formatter)


def read_comment_target(
    source_language: str, path: Path, display: str, data: bytes | None = None
) -> CheckTarget:
    """A source file's comments as a check target (``comments`` set, fingerprints by block).

    A file kapi has no grammar for is ``no_reader``; one that cannot be read
    ``did_not_run``. Without the ``kapi-formats[code]`` extra the check cannot
    run at all: :class:`HostError`, exit 1, naming the install command.
    """
    from kapi.formats.comments import CodeExtraMissing, UnsupportedLanguage, read_comments
    from kapi.formats.comments.blocks import CommentLocator, comment_blocks
    from kapi.formats.reading import read_regular

    started = time.perf_counter()
    try:
        raw = data if data is not None else read_regular(path, display=display)
        found = read_comments(raw, display)
    except CodeExtraMissing as err:
        raise HostError(f"{display}: {err}", exit_code=EXIT_ERROR) from None
    except UnsupportedLanguage as err:
        return CheckTarget(file=display, status=ScopeStatus.NO_READER, reason=err.located())
    except FormatError as err:
        status = ScopeStatus.DELETED if err.code == "not_found" else ScopeStatus.DID_NOT_RUN
        return CheckTarget(file=display, status=status, reason=err.located())
    blocks = comment_blocks(found, source_language)
    return CheckTarget(
        file=display,
        format=found.language,
        blocks=blocks,
        locale=source_language,
        context_path=display,
        block_lines={c.key: Lines(c.line, c.end_line) for c in found.comments},
        extraction_ms=(time.perf_counter() - started) * 1000,
        locator=CommentLocator(raw.decode("utf-8"), found),
        comments=True,
        fingerprints={c.key: c.sha256 for c in found.comments},
    )


def reads_comments(workspace: Workspace, path: str, *, asked: bool) -> bool:
    """Whether ``path`` is read for its comments: asked for (``--comments``) or declared."""
    if path == "-":
        return False
    if asked:
        return is_comment_source(path)
    project = workspace.project
    if project is None or not _declares_comments(project):
        return False  # decided before loading the languages: a plain check starts fast
    relative = project.relative(Path(path))
    return (
        relative is not None
        and is_comment_source(path)
        and comment_settings(project, relative).declared
    )


def _declares_comments(project: Project) -> bool:
    return any(item.comments for collection in project.collections for item in collection.items)


def comment_refusal(doc: str, tool: str) -> Any:
    """The MCP refusal of ``read_blocks``/``apply_edits`` on a source file, else ``None``.

    A source file kapi reads for its comments is not a document the change
    service reads or edits: the tool's result is ``unsupported`` with the
    capability ``comment``, in the ``kapi.change-result/v1`` shape, and says how
    to go on (edit the comment in the file, then ``check_file`` on it, which
    checks its comments).
    """
    if not is_comment_source(doc):
        return None
    from kapi.core.change.errors import ChangeError, ErrorCode
    from kapi.core.change.result import Result, SetStatus

    refusal = ChangeError.of(
        ErrorCode.UNSUPPORTED,
        f"{doc} is source code, read for its comments; {tool} does not read or edit "
        "comments: edit the comment in the file, then run check_file on it (it checks the "
        "file's comments)",
        capability="comment",
        field="doc",
    )
    return Result(status=SetStatus.REFUSED, record=None, docs=(), ops=(), error=refusal.info)


def check_reads_comments(path: str) -> bool:
    """Whether ``check_file`` on ``path`` checks its comments (a source file kapi reads)."""
    return path != "-" and is_comment_source(path)


COMMENT_OPS = ("set_content", "replace_text")


def inspect_comments(
    paths: Sequence[str], workspace: Workspace
) -> tuple[list[Any], list[Any], list[str]]:
    """``kapi inspect`` on source files: one ``comment`` record per comment, with its rev.

    Returns the records, the files that failed and the paths left for the
    formats. Only files in a language kapi has a grammar for are taken here;
    the rest (documents, ``-``) are left as they were given.
    """
    from kapi.formats.comments.languages import language_for

    mine = [path for path in paths if path != "-" and language_for(path) is not None]
    if not mine:
        return [], [], list(paths)
    from kapi.core.change.errors import ChangeError
    from kapi.core.change.read import BlockRead
    from kapi.core.change.result import ResultRef
    from kapi.formats.comments import CodeExtraMissing, read_comments
    from kapi.formats.reading import read_regular
    from kapi.host.documents import FileFailure

    home = workspace.home()
    records: list[Any] = []
    failures: list[Any] = []
    for path in mine:
        try:
            key = home.key_for(Path(path))
            found = read_comments(read_regular(home.path_for(key), display=key), key)
        except ChangeError as err:
            failures.append(FileFailure(path, err.info.message, str(err.info.code)))
            continue
        except CodeExtraMissing as err:
            failures.append(FileFailure(path, err.located(), "unsupported"))
            continue
        except FormatError as err:
            failures.append(FileFailure(path, err.located(), err.code))
            continue
        ops = () if found.error_lines else COMMENT_OPS  # a file that does not parse takes no edit
        records.extend(
            BlockRead(
                ref=ResultRef(doc=key, block=comment.key),
                rev=comment.rev,
                text=comment.text,
                ops=ops,
                role="comment",
            )
            for comment in found.comments
        )
    return records, failures, [path for path in paths if path not in mine]


def formatter_verdicts(workspace: Workspace, files: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """What each source file's declared formatter says of it (``display -> verdict``).

    ``files`` are ``(path, display)`` pairs of files read for their comments;
    only those whose item (or ``defaults.comments``) declares a formatter are
    run, and each formatter's canary with them.
    """
    project = workspace.project
    if project is None or not files:
        return {}
    by_formatter: dict[str, list[tuple[str, Path]]] = {}
    for path, display in files:
        relative = project.relative(Path(path))
        formatter = comment_settings(project, relative).formatter if relative else ""
        if formatter:
            by_formatter.setdefault(formatter, []).append((display, Path(path)))
    if not by_formatter:
        return {}
    from kapi.core.check.comments import FormatterVerdictValue
    from kapi.host.formatters import check_files

    out: dict[str, Any] = {}
    for formatter, named in by_formatter.items():
        for display, verdict in check_files(formatter, named, cwd=workspace.root).items():
            out[display] = FormatterVerdictValue(formatter, verdict.status, verdict.reason)
    return out
