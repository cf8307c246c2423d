"""Writing new prose into a comment: inside its markers, at its indentation and width.

A paragraph of plain sentences is re-wrapped to the comment's width; a
paragraph holding a list, a tag, code or indented lines keeps its lines as
given. Text that would end the comment early (``*/`` in a block comment,
the closing quotes in a docstring, a line-continuing backslash in a C line
comment) is refused before anything is written.
"""

from __future__ import annotations

import re
import textwrap

from kapi.core.errors import KapiError
from kapi.formats.comments.model import Comment

__all__ = ["CommentRewriteRefused", "render_comment", "rewrite_comment"]

_STRUCTURED = re.compile(r"^\s*(?:[-*+•]\s|\d+[.)]\s|@\w|>>>|\.\.\.|:\w+|```|~~~|\||#)")
_MIN_WIDTH = 40
_SINGLE_LINE_WIDTH = 80


class CommentRewriteRefused(KapiError):
    """New comment text kapi will not write: it would end the comment early or cannot be laid out.

    ``code`` is ``guard`` (the text would break out of the comment) or
    ``invalid`` (the comment cannot hold it, such as several lines in a
    comment that trails code).
    """

    def __init__(self, message: str, *, code: str = "guard") -> None:
        super().__init__(message)
        self.code = code
        from kapi.core.errors import contract_exit_code

        self.exit_code = contract_exit_code(code)


def _closes_early(comment: Comment, text: str) -> str:
    shape = comment.shape
    if comment.style == "block":
        if shape.close == "=end":
            if any(line.startswith("=end") for line in text.split("\n")):
                return "a line starting =end would end the comment early"
        elif shape.close in text:
            return f"{shape.close!r} inside the text would end the block comment early"
    elif comment.style == "docstring":
        quote = shape.close
        if quote in text or text.endswith(quote[0]):
            return f"{quote!r} inside the text would end the docstring early"
        if text.endswith("\\"):
            return "a backslash at the end would escape the docstring's closing quotes"
    elif (
        comment.style == "line"
        and shape.open.startswith("//")
        and any(line.endswith("\\") for line in text.split("\n"))
    ):
        return "a line ending in a backslash would continue the comment onto the code below"
    if "\r" in text:
        return "a carriage return inside the text would split the comment's lines"
    return ""


def _width(comment: Comment) -> int:
    width = comment.shape.width
    if comment.line == comment.end_line:
        width = max(width, _SINGLE_LINE_WIDTH)
    return max(width, _MIN_WIDTH)


def _wrap(text: str, width: int) -> list[str]:
    """The text's lines: plain paragraphs re-wrapped to ``width``, others kept as written."""
    out: list[str] = []
    paragraphs = re.split(r"\n[ \t]*\n", text.strip("\n"))
    for index, paragraph in enumerate(paragraphs):
        if index:
            out.append("")
        lines = paragraph.split("\n")
        if any(_STRUCTURED.match(line) or line[:1].isspace() for line in lines):
            out.extend(line.rstrip() for line in lines)
            continue
        joined = " ".join(line.strip() for line in lines)
        out.extend(
            textwrap.wrap(
                joined, width=max(width, 10), break_long_words=False, break_on_hyphens=False
            )
            or [""]
        )
    return out


def render_comment(comment: Comment, text: str) -> str:
    """The comment as it would be written with ``text`` as its prose, markers included.

    Raises :class:`CommentRewriteRefused` for text that would end it early.
    """
    reason = _closes_early(comment, text)
    if reason:
        raise CommentRewriteRefused(f"{comment.key}: {reason}; nothing was written")
    if not text.strip():
        raise CommentRewriteRefused(
            f"{comment.key}: a comment's new text is empty; delete the comment in the file instead",
            code="invalid",
        )
    shape = comment.shape
    indent = shape.indent
    space = " " if shape.space else ""
    if comment.style == "line":
        room = _width(comment) - len(indent) - len(shape.open) - len(space)
        lines = _wrap(text, room)
        if shape.trailing and len(lines) > 1:
            raise CommentRewriteRefused(
                f"{comment.key}: a comment after code on its line takes one line; shorten the text",
                code="invalid",
            )
        written = [shape.open + (space + line if line else "") for line in lines]
        return ("\n" + indent).join(written)
    if comment.style == "block":
        room = _width(comment) - len(indent) - max(len(shape.inner), len(shape.open) + 1)
        lines = _wrap(text, room)
        single = comment.line == comment.end_line
        if single and len(lines) == 1 and shape.first_inline and shape.last_inline:
            return f"{shape.open}{space}{lines[0]}{space or ' '}{shape.close}"
        out = [shape.open + (space + lines[0] if shape.first_inline else "")]
        body = lines[1:] if shape.first_inline else lines
        inner = shape.inner if not single else (" * " if shape.open.startswith("/*") else "")
        for line in body:
            out.append(indent + (inner + line if line else inner.rstrip()))
        if shape.last_inline and not single:
            out[-1] += " " + shape.close
        else:
            star = inner.find("*")
            lead = inner[:star] if star >= 0 else ""
            out.append(indent + lead + shape.close)
        return "\n".join(out)
    # a docstring
    room = _width(comment) - len(indent)
    lines = _wrap(text, room - len(shape.open))
    single = comment.line == comment.end_line
    if single and len(lines) == 1:
        return f"{shape.open}{lines[0]}{shape.close}"
    out = [shape.open + (lines[0] if shape.first_inline else "")]
    for line in lines[1:] if shape.first_inline else lines:
        out.append(indent + line if line else "")
    if shape.last_inline and not single:
        out[-1] += shape.close
    else:
        out.append(indent + shape.close)
    return "\n".join(out)


def rewrite_comment(data: bytes, comment: Comment, text: str) -> bytes:
    """``data`` with the comment's bytes replaced by :func:`render_comment`; nothing else moves."""
    rendered = render_comment(comment, text)
    line_start = data.rfind(b"\n", 0, comment.start) + 1
    line_end = data.find(b"\n", comment.end)
    around = data[line_start : line_end + 1 if line_end >= 0 else len(data)]
    if b"\r\n" in around or (b"\n" not in around and b"\r\n" in data):
        rendered = rendered.replace("\n", "\r\n")  # the file's own line endings
    return data[: comment.start] + rendered.encode("utf-8") + data[comment.end :]
