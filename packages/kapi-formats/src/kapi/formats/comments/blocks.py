"""A source file's comments as content blocks, and the locator that places findings in the file.

Each comment is a block with role ``comment``: its prose as text runs, its
inline code as ``code`` placeholders (never read as words), and its
``comment_sha256`` and style in the block's properties.
"""

from __future__ import annotations

from bisect import bisect_right

from kapi.core.model import Block, Ph, Run, Text
from kapi.formats.comments.model import Comment, CommentFile

__all__ = ["CommentLocator", "comment_block", "comment_blocks"]


def _runs(comment: Comment) -> tuple[tuple[Run, ...], tuple[int, ...]]:
    """The comment's runs and the text offset each starts at."""
    runs: list[Run] = []
    starts: list[int] = []
    at = 0
    text = comment.text
    for number, (start, end) in enumerate(comment.codes, start=1):
        if start > at:
            starts.append(at)
            runs.append(Text(text[at:start]))
        starts.append(start)
        code = text[start:end]
        runs.append(Ph(id=str(number), type="code", data=code, equiv=code))
        at = end
    if at < len(text) or not runs:
        starts.append(at)
        runs.append(Text(text[at:]))
    return tuple(runs), tuple(starts)


def comment_block(comment: Comment, locale: str = "") -> Block:
    """One comment as a block keyed by its first line (``L12``)."""
    runs, _ = _runs(comment)
    return Block(
        id=comment.key,
        source=runs,
        name=comment.key,
        role="comment",
        locale=locale,
        properties={
            "comment_sha256": comment.sha256,
            "style": comment.style,
            "language": comment.language,
            "doc": "true" if comment.doc else "false",
        },
    )


def comment_blocks(found: CommentFile, locale: str = "") -> tuple[Block, ...]:
    return tuple(comment_block(comment, locale) for comment in found.comments)


class CommentLocator:
    """Places a run position of a comment block at its character in the file (a ``TextLocator``)."""

    def __init__(self, text: str, found: CommentFile) -> None:
        self.text = text
        self._comments = {comment.key: comment for comment in found.comments}
        self._starts = {comment.key: _runs(comment)[1] for comment in found.comments}
        self._lines = [0]
        for index, char in enumerate(text):
            if char == "\n":
                self._lines.append(index + 1)

    def locate(
        self, block: str, edition: str, run: int, offset: int, *, end: bool = False, form: str = ""
    ) -> int | None:
        comment = self._comments.get(block)
        if comment is None or edition or form:
            return None
        starts = self._starts[block]
        if run >= len(starts):
            return comment.file_offset(len(comment.text), end=True)
        return comment.file_offset(starts[run] + offset, end=end)

    def line_column(self, index: int) -> tuple[int, int]:
        line = bisect_right(self._lines, index)
        start = self._lines[line - 1]
        column = len(self.text[start:index].encode("utf-16-le")) // 2
        return line, column + 1

    def excerpt(self, start: int, end: int, context: int = 30) -> str:
        return " ".join(self.text[start:end].split())
