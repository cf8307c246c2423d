"""A source file's comments as kapi reads them: prose with its markers kept out, and its place."""

from __future__ import annotations

import hashlib
from bisect import bisect_right

from attrs import frozen

__all__ = ["Comment", "CommentFile", "Shape", "Skipped", "comment_digest", "comment_rev"]


def comment_digest(raw: bytes) -> str:
    """``comment_sha256``: the SHA-256 of the comment's bytes in the file, markers included."""
    return hashlib.sha256(raw).hexdigest()


def comment_rev(digest: str) -> str:
    """A comment's revision: ``r:`` and the first 16 hex digits of its ``comment_sha256``."""
    return "r:" + digest[:16]


@frozen
class Shape:
    """How a comment is written, so a rewrite writes new text the same way.

    ``open`` is the line marker (``#``, ``//``, ``///``), the block opener
    (``/**``) or the docstring's opening quote with its prefix; ``close`` the
    block's or docstring's closer (empty for line comments). ``inner`` is what
    follows the indentation on a block comment's middle lines (`` * ``).
    ``first_inline``/``last_inline`` say the text starts on the opening line and
    ends on the closing one; ``trailing`` that code stands before it on its
    line; ``width`` the widest line in columns.
    """

    open: str
    close: str = ""
    inner: str = ""
    indent: str = ""
    first_inline: bool = True
    last_inline: bool = True
    trailing: bool = False
    width: int = 0
    space: bool = True


@frozen
class Comment:
    """One comment (or run of adjacent line comments): a prose block of a source file.

    ``start``/``end`` are its half-open byte span (first marker to last byte);
    ``line``/``end_line`` 1-based; ``column`` the 1-based column of its first
    marker. ``text`` is the prose with markers and the comment's own
    indentation removed, lines joined by ``\\n``; ``segments`` map text offsets
    to character offsets in the file (``(text_start, file_start, length)``, one
    per line); ``codes`` are text spans that are code (inline code, doctests,
    tags), never read as prose. ``sha256`` is its ``comment_sha256``.
    """

    key: str
    language: str
    style: str
    start: int
    end: int
    line: int
    end_line: int
    column: int
    text: str
    segments: tuple[tuple[int, int, int], ...]
    codes: tuple[tuple[int, int], ...]
    sha256: str
    shape: Shape
    doc: bool = False

    @property
    def rev(self) -> str:
        return comment_rev(self.sha256)

    def file_offset(self, offset: int, *, end: bool = False) -> int:
        """The character offset in the file of a text offset (``end``: an exclusive end)."""
        starts = [segment[0] for segment in self.segments]
        index = max(0, bisect_right(starts, offset - (1 if end and offset > 0 else 0)) - 1)
        text_start, file_start, length = self.segments[index]
        return file_start + min(max(offset - text_start, 0), length)


@frozen
class Skipped:
    """A comment (or one line of one) read and set aside as not prose, and why."""

    line: int
    reason: str
    text: str = ""


@frozen
class CommentFile:
    """Every comment a source file holds: the prose blocks, and what was set aside.

    ``error_lines`` are where the parser met syntax errors: comments are still
    read where it recovered, but a file with errors takes no comment edit.
    """

    path: str
    language: str
    comments: tuple[Comment, ...]
    skipped: tuple[Skipped, ...] = ()
    error_lines: tuple[int, ...] = ()

    def get(self, key: str) -> Comment | None:
        return next((comment for comment in self.comments if comment.key == key), None)
