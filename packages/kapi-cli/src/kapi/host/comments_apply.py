"""``kapi apply`` on code comments: the comment write path, outside the change service.

A change set whose ops name comment blocks of source files (``set_content``
or ``replace_text``, keyed ``L<line>`` as ``kapi check --comments`` reports
them, guarded by the comment's revision) is applied here. Each new text is
written inside its comment's markers; then three gates hold the whole set
before anything is written: every edited file still parses with no syntax
error, the formatter the project declares agrees, and the new comments pass
the comment check. A set never mixes comments with documents.
"""

from __future__ import annotations

import difflib
import hashlib
import itertools
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from attrs import frozen

from kapi.core.change.errors import ChangeError, ErrorCode, ErrorInfo, GuardSubcode
from kapi.core.change.ops import ChangeSet, Op, ReplaceText, SetContent
from kapi.core.change.result import (
    Current,
    DocResult,
    Finding,
    OpResult,
    OpStatus,
    Result,
    ResultRef,
    SetStatus,
)

if TYPE_CHECKING:
    from kapi.core.change.ports import Actor
    from kapi.formats.comments.model import Comment, CommentFile
    from kapi.host.workspace import Workspace

__all__ = ["apply_comment_set"]

_EDIT_OPS = ("set_content", "replace_text")


@frozen
class _Edit:
    """One op resolved: the comment it names, and the text it asks for."""

    index: int
    op: SetContent | ReplaceText
    comment: Comment
    text: str


@frozen
class _File:
    doc: str
    path: Path
    data: bytes
    found: CommentFile


class _Refused(Exception):
    def __init__(self, index: int, info: ErrorInfo, current: Current | None = None) -> None:
        super().__init__(info.message)
        self.index = index
        self.info = info
        self.current = current


def _refusal(code: ErrorCode, message: str, **fields: object) -> ErrorInfo:
    return ChangeError.of(code, message, **fields).info


def apply_comment_set(change_set: ChangeSet, actor: Actor, workspace: Workspace) -> Result:
    """Apply (or preview) a set of comment edits: every edit lands, or none does."""
    from kapi.core.change.policy import ChangePolicy

    ops = change_set.ops
    refused = ChangePolicy().refusals(change_set, actor.kind)
    if refused:
        return _refused_result(ops, refused)
    try:
        files, edits = _resolve(change_set, actor, workspace)
        written, results, findings = _stage(change_set, actor, workspace, files, edits)
    except _Refused as err:
        return _refused_result(ops, {err.index: err.info}, current={err.index: err.current})
    preview = change_set.preview
    docs: list[DocResult] = []
    for doc, (file, after) in written.items():
        docs.append(
            DocResult(
                doc=doc,
                file=doc,
                written=not preview,
                before=_digest(file.data),
                after=_digest(after),
                findings=findings.get(doc) or None,
                diff=_diff(doc, file.data, after) if preview else None,
            )
        )
    if not preview:
        try:
            _write(written)
        except _Refused as err:
            return _refused_result(ops, {err.index: err.info})
    status = SetStatus.PREVIEWED if preview else SetStatus.APPLIED
    done = OpStatus.PREVIEWED if preview else OpStatus.APPLIED
    out = [
        result if result.status == OpStatus.UNCHANGED else _with_status(result, done)
        for result in results
    ]
    result = Result(status=status, record=None, docs=tuple(docs), ops=tuple(out))
    return result if preview else _recorded(change_set, result, actor, workspace)


def _recorded(change_set: ChangeSet, result: Result, actor: Actor, workspace: Workspace) -> Result:
    """The landed set with its record id in the project store, as a document set is kept.

    A recorder that fails leaves the comments written and the record null.
    """
    from attrs import evolve

    store = workspace.store
    if store is None:
        return result
    from kapi.host.store import StoreRecorder

    try:
        record = StoreRecorder(store).record(change_set, result, actor)
    except Exception:  # the content landed; only its history is missing
        record = None
    return evolve(result, record=record)


def _with_status(result: OpResult, status: OpStatus) -> OpResult:
    from attrs import evolve

    return evolve(result, status=status)


def _digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _diff(doc: str, before: bytes, after: bytes) -> str:
    old = before.decode("utf-8").splitlines(keepends=True)
    new = after.decode("utf-8").splitlines(keepends=True)
    return "".join(difflib.unified_diff(old, new, f"a/{doc}", f"b/{doc}"))


# --- resolving ops --------------------------------------------------------------------------


def _resolve(
    change_set: ChangeSet, actor: Actor, workspace: Workspace
) -> tuple[dict[str, _File], list[_Edit]]:
    from kapi.core.format import FormatError
    from kapi.formats.comments import CodeExtraMissing, UnsupportedLanguage, read_comments
    from kapi.formats.reading import read_regular

    home = workspace.home()
    files: dict[str, _File] = {}
    edits: list[_Edit] = []
    for index, op in enumerate(change_set.ops):
        if op.op not in _EDIT_OPS:
            raise _Refused(
                index,
                _refusal(
                    ErrorCode.UNSUPPORTED,
                    f"{op.op} does not apply to a code comment; a comment takes set_content "
                    "or replace_text",
                    capability=op.op,
                ),
            )
        assert isinstance(op, SetContent | ReplaceText)
        doc = op.at.doc
        if doc not in files:
            try:
                path = home.path_for(doc)
            except ChangeError as err:
                raise _Refused(index, err.info) from None
            project = workspace.project
            governs = project.governs(str(path)) if project is not None else ""
            if governs:  # a source file under .kapi/ or a rules file: a person's to change
                from kapi.core.change.policy import ChangePolicy

                denied = ChangePolicy().governed_refusal(doc, governs, actor.kind, field="at/doc")
                if denied is not None:
                    raise _Refused(index, denied)
            try:
                data = read_regular(path, display=doc)
                found = read_comments(data, doc)
            except (CodeExtraMissing, UnsupportedLanguage) as err:
                raise _Refused(
                    index, _refusal(ErrorCode.UNSUPPORTED, str(err), capability="comment")
                ) from None
            except FormatError as err:  # missing, not UTF-8, over the size budget
                code = ErrorCode.NOT_FOUND if err.code == "not_found" else ErrorCode.INVALID
                raise _Refused(index, _refusal(code, err.located(), field="at/doc")) from None
            if found.error_lines:
                lines = ", ".join(str(line) for line in found.error_lines)
                raise _Refused(
                    index,
                    _refusal(
                        ErrorCode.UNSUPPORTED,
                        f"{doc} does not parse (syntax errors on line {lines}); kapi edits "
                        "comments only in a file that parses: fix the code first",
                        capability="comment",
                        field="at/doc",
                    ),
                )
            files[doc] = _File(doc, path, data, found)
        found = files[doc].found
        if op.at.edition:
            raise _Refused(
                index,
                _refusal(
                    ErrorCode.UNSUPPORTED,
                    "a code comment has one edition, its own; leave at/edition out",
                    capability="edition",
                    field="at/edition",
                ),
            )
        comment = found.get(op.at.block)
        if comment is None:
            near = _near(op.at.block, found)
            raise _Refused(
                index,
                _refusal(
                    ErrorCode.NOT_FOUND,
                    f"{doc} has no comment {op.at.block!r}"
                    + (f"; near: {', '.join(near)}" if near else "")
                    + " (`kapi check --comments --json` lists them)",
                    field="at/block",
                ),
            )
        if op.if_match != "*" and op.if_match != comment.rev:
            raise _Refused(
                index,
                _refusal(
                    ErrorCode.STALE,
                    f"{doc} {comment.key} moved since it was read: its rev is {comment.rev}",
                    expected=op.if_match,
                    found=comment.rev,
                    field="if_match",
                ),
                Current(rev=comment.rev, text=comment.text),
            )
        if any(edit.comment.key == comment.key and edit.op.at.doc == doc for edit in edits):
            raise _Refused(
                index,
                _refusal(
                    ErrorCode.INVALID,
                    f"{doc} {comment.key} is edited twice in one set; send one op for it",
                    field="at/block",
                ),
            )
        edits.append(_Edit(index, op, comment, _new_text(index, op, comment)))
    return files, edits


def _near(key: str, found: CommentFile) -> list[str]:
    match = re.fullmatch(r"L(\d+)", key)
    keys = [comment.key for comment in found.comments]
    if match is None:
        return keys[:3]
    line = int(match.group(1))
    return sorted(keys, key=lambda k: abs(int(re.sub(r"\D.*", "", k[1:]) or 0) - line))[:3]


def _new_text(index: int, op: SetContent | ReplaceText, comment: Comment) -> str:
    if isinstance(op, SetContent):
        if op.text is None or op.runs is not None or op.path:
            raise _Refused(
                index,
                _refusal(
                    ErrorCode.UNSUPPORTED,
                    "a code comment takes set_content with text (no runs, no path)",
                    capability="set_content",
                    field="text",
                ),
            )
        return op.text
    text = comment.text
    spans: list[tuple[int, int, str]] = []
    for number, edit in enumerate(op.edits):
        if edit.range is not None or edit.path:
            raise _Refused(
                index,
                _refusal(
                    ErrorCode.UNSUPPORTED,
                    "an edit of a code comment names its text by find or by start and end",
                    capability="replace_text",
                    pointer=f"/ops/{index}/edits/{number}",
                ),
            )
        if edit.find is not None:
            hits = [m.start() for m in re.finditer(re.escape(edit.find), text)] if edit.find else []
            occurrence = edit.occurrence
            if not hits or (occurrence is not None and not 1 <= occurrence <= len(hits)):
                raise _Refused(
                    index,
                    _refusal(
                        ErrorCode.NOT_FOUND,
                        f"{edit.find!r} is not in {comment.key}"
                        + (f" {occurrence} times" if hits else ""),
                        pointer=f"/ops/{index}/edits/{number}/find",
                    ),
                    Current(rev=comment.rev, text=text),
                )
            if occurrence is None and len(hits) > 1:
                raise _Refused(
                    index,
                    _refusal(
                        ErrorCode.AMBIGUOUS,
                        f"{edit.find!r} occurs {len(hits)} times in {comment.key}; give occurrence",
                        pointer=f"/ops/{index}/edits/{number}/find",
                    ),
                )
            start = hits[(occurrence or 1) - 1]
            spans.append((start, start + len(edit.find), edit.text))
        else:
            start = edit.start if edit.start is not None else 0
            end = edit.end if edit.end is not None else start
            if not 0 <= start <= end <= len(text):
                raise _Refused(
                    index,
                    ChangeError.of(
                        ErrorCode.GUARD,
                        f"start {start} and end {end} lie outside {comment.key}'s "
                        f"{len(text)} characters",
                        subcode=GuardSubcode.BAD_POSITION,
                    ).info,
                )
            spans.append((start, end, edit.text))
    spans.sort()
    for (_, end, _), (start, _, _) in itertools.pairwise(spans):
        if start < end:
            raise _Refused(
                index,
                ChangeError.of(
                    ErrorCode.GUARD, "two edits overlap", subcode=GuardSubcode.OVERLAP
                ).info,
            )
    for start, end, new in reversed(spans):
        text = text[:start] + new + text[end:]
    return text


# --- staging and the gates ------------------------------------------------------------------


def _stage(
    change_set: ChangeSet,
    actor: Actor,
    workspace: Workspace,
    files: dict[str, _File],
    edits: list[_Edit],
) -> tuple[dict[str, tuple[_File, bytes]], list[OpResult], dict[str, tuple[Finding, ...]]]:
    from kapi.formats.comments.rewrite import CommentRewriteRefused, rewrite_comment

    written: dict[str, tuple[_File, bytes]] = {}
    results: dict[int, OpResult] = {}
    findings: dict[str, tuple[Finding, ...]] = {}
    for doc, file in files.items():
        mine = sorted(
            (edit for edit in edits if edit.op.at.doc == doc),
            key=lambda edit: edit.comment.start,
            reverse=True,
        )
        data = file.data
        changed: list[_Edit] = []
        for edit in mine:
            if _same(edit.text, edit.comment.text):
                results[edit.index] = _op_result(edit, OpStatus.UNCHANGED, edit.comment.rev)
                continue
            try:
                data = rewrite_comment(data, edit.comment, edit.text)
            except CommentRewriteRefused as err:
                code = ErrorCode.GUARD if err.code == "guard" else ErrorCode.INVALID
                raise _Refused(edit.index, _refusal(code, str(err), field="text")) from None
            changed.append(edit)
        if not changed:
            continue
        after_comments = _parse_gate(doc, data, changed, file)
        _formatter_gate(workspace, doc, data, changed[0].index)
        findings[doc] = _comment_gate(change_set, actor, workspace, doc, changed, after_comments)
        for edit in changed:
            new = after_comments[edit.index]
            results[edit.index] = _op_result(edit, OpStatus.APPLIED, new.rev, after_key=new.key)
        written[doc] = (file, data)
    return written, [results[i] for i in sorted(results)], findings


def _same(new: str, old: str) -> bool:
    """Equal prose: the same words in the same paragraphs, however the lines are wrapped."""
    return _paragraphs(new) == _paragraphs(old)


def _paragraphs(text: str) -> list[str]:
    return [" ".join(part.split()) for part in re.split(r"\n[ \t]*\n", text.strip())]


def _op_result(edit: _Edit, status: OpStatus, after: str, *, after_key: str = "") -> OpResult:
    return OpResult(
        i=edit.index,
        op=edit.op.op,
        status=status,
        at=ResultRef(doc=edit.op.at.doc, block=after_key or edit.comment.key),
        before=edit.comment.rev,
        after=after,
    )


def _parse_gate(doc: str, data: bytes, changed: list[_Edit], file: _File) -> dict[int, Comment]:
    """The edited file must parse, and read back each new comment where it was written."""
    from kapi.formats.comments import read_comments

    found = read_comments(data, doc)
    first = min(edit.index for edit in changed)
    if found.error_lines:
        lines = ", ".join(str(line) for line in found.error_lines)
        raise _Refused(
            first,
            _refusal(
                ErrorCode.GUARD,
                f"{doc} would no longer parse (syntax errors on line {lines}); nothing was written",
                field="text",
            ),
        )
    by_start = {comment.start: comment for comment in found.comments}
    out: dict[int, Comment] = {}
    shift = 0
    for edit in sorted(changed, key=lambda e: e.comment.start):
        start = edit.comment.start + shift
        comment = by_start.get(start)
        if comment is None or not _same(comment.text, edit.text):
            raise _Refused(
                edit.index,
                _refusal(
                    ErrorCode.GUARD,
                    f"{doc} {edit.comment.key}: the new text would not read back as this "
                    "comment's prose (it would become code, a pragma, or another comment); "
                    "nothing was written",
                    field="text",
                ),
            )
        shift += (comment.end - comment.start) - (edit.comment.end - edit.comment.start)
        out[edit.index] = comment
    return out


def _formatter_gate(workspace: Workspace, doc: str, data: bytes, index: int) -> None:
    """The declared formatter must agree with the edited file; declared but absent does not pass."""
    from kapi.host.comments import comment_settings
    from kapi.host.formatters import run_formatter

    project = workspace.project
    settings = comment_settings(project, doc) if project is not None else None
    if settings is None or not settings.formatter:
        return
    verdict = run_formatter(settings.formatter, data, doc, cwd=workspace.root)
    if verdict.status == "passed":
        return
    rule = f"formatter.{settings.formatter}"
    if verdict.status == "did_not_run":
        message = f"{rule} did_not_run: {verdict.reason}; nothing was written"
    else:
        message = (
            f"{rule}: {settings.formatter} does not agree with {doc} after the edit "
            f"({verdict.reason}); nothing was written"
        )
    raise _Refused(index, _refusal(ErrorCode.GATE_FAILED, message, field="text"))


def _comment_gate(
    change_set: ChangeSet,
    actor: Actor,
    workspace: Workspace,
    doc: str,
    changed: Sequence[_Edit],
    after: dict[int, Comment],
) -> tuple[Finding, ...]:
    """The new comments must pass the comment check: no failing finding the edit introduced."""
    from kapi.core.change.policy import ChangePolicy
    from kapi.core.check.analysis import analyze_blocks, default_analyzers, introduced_failures
    from kapi.core.check.comments import CommentsAnalyzer
    from kapi.core.governance.errors import GovernanceError
    from kapi.formats.comments.blocks import comment_block
    from kapi.host.governance import Governance

    locale = workspace.source_language
    try:
        governance = Governance(workspace).resolve(doc, locale, comments=True)
    except GovernanceError:
        return ()  # context that does not resolve is reported by `kapi check`
    analyzers = (*default_analyzers(), CommentsAnalyzer())
    out: list[Finding] = []
    for edit in changed:
        before_findings = analyze_blocks(
            [comment_block(edit.comment, locale)],
            governance,
            locale=locale,
            file=doc,
            analyzers=analyzers,
        )
        new = after[edit.index]
        after_findings = analyze_blocks(
            [comment_block(new, locale)], governance, locale=locale, file=doc, analyzers=analyzers
        )
        introduced = introduced_failures(before_findings, after_findings)
        ref = ResultRef(doc=doc, block=new.key)
        out.extend(
            Finding(rule=f.rule, message=f.message, fails=f.fails, at=ref) for f in after_findings
        )
        if introduced and ChangePolicy().refuses_introduced_findings(change_set, actor.kind):
            listed = "; ".join(f"{f.rule}: {f.message}" for f in introduced)
            raise _Refused(
                edit.index,
                _refusal(
                    ErrorCode.GATE_FAILED,
                    f"{doc} {edit.comment.key}: the new comment fails the comment check "
                    f"({listed}); nothing was written",
                    field="text",
                ),
            )
    return tuple(out)


# --- writing --------------------------------------------------------------------------------


def _write(written: dict[str, tuple[_File, bytes]]) -> None:
    """Every file or none: each read again (changed meanwhile: refused), temporaries, renames.

    A rename that fails puts back the files already renamed.
    """
    temporaries: list[tuple[Path, _File]] = []
    renamed: list[_File] = []
    try:
        for doc, (file, data) in sorted(written.items()):
            if file.path.read_bytes() != file.data:
                raise _Refused(
                    0,
                    _refusal(
                        ErrorCode.DOC_CHANGED,
                        f"{doc} changed while its comment edits were applied; read it again "
                        "and send the edits again; nothing was written",
                        field="at/doc",
                    ),
                )
            temporary = file.path.with_name(f".{file.path.name}.kapi-{os.getpid()}.tmp")
            with open(temporary, "wb") as handle:
                handle.write(data)
            os.chmod(temporary, file.path.stat().st_mode & 0o7777)
            temporaries.append((temporary, file))
        for temporary, file in temporaries:
            os.replace(temporary, file.path)
            renamed.append(file)
    except OSError as err:
        for file in renamed:
            file.path.write_bytes(file.data)
        for temporary, _ in temporaries:
            if temporary.exists():
                temporary.unlink()
        raise _Refused(
            0,
            _refusal(
                ErrorCode.UNREACHABLE,
                f"the file system refused the write ({err.strerror or err}); nothing was written",
            ),
        ) from None
    finally:
        for temporary, _ in temporaries:
            if temporary.exists():
                temporary.unlink()


def _refused_result(
    ops: Sequence[Op],
    refused: dict[int, ErrorInfo],
    *,
    current: dict[int, Current | None] | None = None,
) -> Result:
    first = min(refused)
    results: list[OpResult] = []
    for index, op in enumerate(ops):
        at = getattr(op, "at", None)
        ref = (
            ResultRef(doc=at.doc, block=getattr(at, "block", None))
            if at is not None and hasattr(at, "doc")
            else None
        )
        if index in refused:
            results.append(
                OpResult(
                    i=index,
                    op=op.op,
                    status=OpStatus.REFUSED,
                    at=ref,
                    error=refused[index],
                    current=(current or {}).get(index),
                )
            )
        else:
            results.append(
                OpResult(i=index, op=op.op, status=OpStatus.NOT_APPLIED, at=ref, blocked_by=first)
            )
    return Result(status=SetStatus.REFUSED, record=None, docs=(), ops=tuple(results))
