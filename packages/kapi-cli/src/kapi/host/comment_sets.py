"""Whether a change set edits code comments: told from its ops' documents alone, so an
apply of documents does not import how comments are rewritten
(:mod:`kapi.host.comments_apply`)."""

from __future__ import annotations

from kapi.core.change.errors import ChangeError, ErrorCode
from kapi.core.change.ops import ChangeSet, Op
from kapi.formats.comments.languages import is_source_file

__all__ = ["comment_ops", "names_source_file"]


def names_source_file(op: Op) -> bool:
    """Whether an op's document is a source file kapi reads for its comments."""
    at = getattr(op, "at", None)
    doc = getattr(at, "doc", None)
    if not isinstance(doc, str):
        return False
    return is_source_file(doc)


def comment_ops(change_set: ChangeSet) -> bool:
    """Whether the set edits code comments; raises ``invalid`` when it mixes them with documents."""
    flags = [names_source_file(op) for op in change_set.ops]
    if not any(flags):
        return False
    if not all(flags):
        first = next(i for i, flag in enumerate(flags) if flag)
        other = next(i for i, flag in enumerate(flags) if not flag)
        raise ChangeError.of(
            ErrorCode.INVALID,
            f"ops/{first} edits a code comment and ops/{other} a document: a change set "
            "edits code comments or documents, never both (comments are rewritten through "
            "their language, which must still parse and format); send two sets",
            pointer=f"/ops/{other}",
        )
    return True
