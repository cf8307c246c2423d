"""Reading a source file's comments: tree-sitter finds them, this module makes them prose.

A comment node the grammar reports (and, in Python, a string statement that
documents a module, class or function) becomes a :class:`Comment`; adjacent
line comments at one column join into one. What a tool reads, or what is not
prose, is set aside with its reason (:mod:`kapi.formats.comments.notprose`).
"""

from __future__ import annotations

from typing import Any

from attrs import frozen

from kapi.core.format import FormatError
from kapi.formats.comments import notprose
from kapi.formats.comments.languages import LANGUAGES, Language, language_for
from kapi.formats.comments.model import Comment, CommentFile, Shape, Skipped, comment_digest
from kapi.formats.comments.parser import captures, error_lines, parse

__all__ = ["UnsupportedLanguage", "language_of", "read_comments"]

_COMMENT_NODES = frozenset({"comment", "line_comment", "block_comment", "multiline_comment"})


class UnsupportedLanguage(FormatError):
    """A file kapi reads no comments in: names the languages it does read."""

    def __init__(self, path: str) -> None:
        names = ", ".join(language.name for language in LANGUAGES)
        super().__init__(
            f"kapi reads no comments in this file (no grammar for its extension); "
            f"it reads comments in {names}",
            path=path,
            code="unsupported",
            capability="comment",
        )


def language_of(path: str) -> Language:
    """The file's language; :class:`UnsupportedLanguage` when kapi has no grammar for it."""
    language = language_for(path)
    if language is None:
        raise UnsupportedLanguage(path)
    return language


@frozen
class _Line:
    """One line of a comment's content: its text and the file character offset it starts at."""

    text: str
    at: int


class _Source:
    """The file's text with byte-to-character offsets (identity for ASCII)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        try:
            self.text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise FormatError(
                f"not UTF-8 (byte {err.start}); kapi reads comments in UTF-8 source files",
                offset=err.start,
            ) from None
        self.ascii = len(self.text) == len(data)
        self.line_starts = [0]
        find = self.text.find
        at = find("\n")
        while at >= 0:
            self.line_starts.append(at + 1)
            at = find("\n", at + 1)
        self._byte_lines: list[int] | None = None

    def char(self, byte: int) -> int:
        if self.ascii:
            return byte
        if self._byte_lines is None:  # each line's first byte, once, for a file that is not ASCII
            self._byte_lines = [0]
            find = self.data.find
            at = find(b"\n")
            while at >= 0:
                self._byte_lines.append(at + 1)
                at = find(b"\n", at + 1)
        from bisect import bisect_right

        line = bisect_right(self._byte_lines, byte) - 1
        start = self._byte_lines[line]
        return self.line_starts[line] + len(self.data[start:byte].decode("utf-8", "ignore"))

    def byte(self, char: int) -> int:
        if self.ascii:
            return char
        line = self.line_of(char) - 1
        start = self.line_starts[line]
        self.char(0)
        assert self._byte_lines is not None
        return self._byte_lines[line] + len(self.text[start:char].encode("utf-8"))

    def line_of(self, char: int) -> int:
        from bisect import bisect_right

        return bisect_right(self.line_starts, char)

    def line_start(self, char: int) -> int:
        return self.line_starts[self.line_of(char) - 1]

    def before_on_line(self, char: int) -> str:
        return self.text[self.line_start(char) : char]


def read_comments(data: bytes, path: str, language: Language | None = None) -> CommentFile:
    """Every comment of a source file, read by its language's grammar.

    Raises :class:`UnsupportedLanguage` for a file without a grammar,
    :class:`~kapi.formats.comments.parser.CodeExtraMissing` without the
    ``kapi-formats[code]`` extra, and :class:`FormatError` for a file that is
    not UTF-8. A file with syntax errors is still read where the parser
    recovered; its ``error_lines`` say where it did not.
    """
    language = language or language_of(path)
    source = _Source(data)
    tree = parse(language, data, path=path)
    reader = _Reader(language, source, path)
    comments, skipped = reader.read(tree)
    return CommentFile(
        path=path,
        language=language.name,
        comments=tuple(comments),
        skipped=tuple(skipped),
        error_lines=error_lines(tree),
    )


@frozen
class _Node:
    start: int  # characters
    end: int
    kind: str  # "comment" or "docstring"
    raw: Any = None


class _Reader:
    def __init__(self, language: Language, source: _Source, path: str) -> None:
        self.language = language
        self.source = source
        self.path = path
        self.skipped: list[Skipped] = []
        self.keys: dict[str, int] = {}

    # --- finding nodes ---------------------------------------------------------------------

    def nodes(self, tree: Any) -> tuple[list[_Node], int]:
        """Comment and docstring nodes in file order, and where the first code starts."""
        found: list[_Node] = []
        caught = captures(self.language, tree)
        spans: list[tuple[int, int]] = []
        for node in sorted(caught.get("comment", ()), key=lambda n: (n.start_byte, -n.end_byte)):
            if spans and node.start_byte < spans[-1][1]:
                continue  # a node inside a comment (a doc marker) is part of it
            spans.append((node.start_byte, node.end_byte))
            found.append(_Node(self.source.char(node.start_byte), self._end(node), "comment"))
        for owner in caught.get("owner", ()):
            doc = _docstring(owner)
            if doc is not None:
                found.append(
                    _Node(
                        self.source.char(doc.start_byte),
                        self.source.char(doc.end_byte),
                        "docstring",
                        doc,
                    )
                )
        first_code = len(self.source.text)
        for child in tree.root_node.named_children:
            if child.type not in _COMMENT_NODES:
                first_code = self.source.char(child.start_byte)
                break
        found.sort(key=lambda n: n.start)
        return found, first_code

    def _end(self, node: Any) -> int:
        end = self.source.char(node.end_byte)
        text = self.source.text
        while end > 0 and text[end - 1] in "\r\n":
            end -= 1
        return end

    # --- turning nodes into comments -----------------------------------------------------

    def read(self, tree: Any) -> tuple[list[Comment], list[Skipped]]:
        nodes, first_code = self.nodes(tree)
        comments: list[Comment] = []
        group: list[tuple[_Node, str, str]] = []  # (node, marker, content); decorations kept

        def flush() -> None:
            if group:
                comment = self.line_group(group, first_code)
                if comment is not None:
                    comments.append(comment)
                group.clear()

        for node in nodes:
            text = self.source.text[node.start : node.end]
            if node.kind == "docstring":
                flush()
                comment = self.docstring(node)
                if comment is not None:
                    comments.append(comment)
                continue
            marker = next((m for m in self.language.line_markers if text.startswith(m)), "")
            block = next(
                (pair for pair in self.language.block_markers if text.startswith(pair[0])), None
            )
            if block is not None and (not marker or len(block[0]) >= len(marker)):
                flush()
                comment = self.block(node, block, first_code)
                if comment is not None:
                    comments.append(comment)
                continue
            if not marker:
                continue  # a comment node the language writes otherwise (not prose we rewrite)
            line = self.source.line_of(node.start)
            if node.start == 0 and text.startswith("#!"):
                flush()
                self.skipped.append(Skipped(line, "shebang", text))
                continue
            content = text[len(marker) :]
            reason = notprose.line_reason(content, marker)
            if reason and reason != "decoration":
                flush()
                self.skipped.append(Skipped(line, reason, text))
                continue
            trailing = bool(self.source.before_on_line(node.start).strip())
            joins = False
            if group:
                previous, previous_marker, _ = group[-1]
                joins = (
                    not trailing
                    and self.source.line_of(previous.start) == line - 1
                    and self._column(previous.start) == self._column(node.start)
                    and previous_marker == marker
                    and not bool(self.source.before_on_line(previous.start).strip())
                )
                if not joins:
                    flush()
            if reason and (not group or not joins):
                # a rule of punctuation opens nothing: set aside unless a run it continues
                self.skipped.append(Skipped(line, reason, text))
                continue
            group.append((node, marker, content))
            if trailing:
                flush()
        flush()
        return comments, self.skipped

    def _column(self, char: int) -> int:
        return char - self.source.line_start(char)

    def line_group(self, group: list[tuple[_Node, str, str]], first_code: int) -> Comment | None:
        while group and notprose.line_reason(group[-1][2], group[-1][1]) == "decoration":
            node, _, _ = group.pop()  # a closing rule is decoration, not the comment's text
            text = self.source.text[node.start : node.end]
            self.skipped.append(Skipped(self.source.line_of(node.start), "decoration", text))
        if not group:
            return None
        first = group[0][0]
        marker = group[0][1]
        lines = [_Line(content, node.start + len(m)) for node, m, content in group]
        spaced = all(line.text.startswith(" ") or not line.text.strip() for line in lines)
        trailing = bool(self.source.before_on_line(first.start).strip())
        shape = Shape(
            open=marker,
            indent=_indent(self.source.before_on_line(first.start)),
            trailing=trailing,
            width=self._width(first.start, group[-1][0].end),
            space=spaced,
        )
        return self.make(
            lines,
            first.start,
            group[-1][0].end,
            "line",
            shape,
            first_code,
            doc=marker in ("///", "//!"),
        )

    def block(self, node: _Node, pair: tuple[str, str], first_code: int) -> Comment | None:
        opener, closer = pair
        text = self.source.text[node.start : node.end]
        line_number = self.source.line_of(node.start)
        if not text.endswith(closer) or len(text) < len(opener) + len(closer):
            self.skipped.append(Skipped(line_number, "unterminated", text))
            return None
        inner_text = text[len(opener) : len(text) - len(closer)]
        base = node.start + len(opener)
        raw_lines: list[_Line] = []
        at = base
        for piece in inner_text.split("\n"):
            raw_lines.append(_Line(piece, at))
            at += len(piece) + 1
        first_inline = bool(raw_lines[0].text.strip())
        last_inline = len(raw_lines) == 1 or bool(raw_lines[-1].text.strip())
        middle = raw_lines[1:]
        if middle and not last_inline:
            middle = middle[:-1]
        stars = bool(middle) and all(
            line.text.lstrip().startswith("*") for line in middle if line.text.strip()
        )
        inner = ""
        cleaned: list[_Line] = [raw_lines[0]]
        for raw_line in raw_lines[1:]:
            stripped = raw_line.text.lstrip(" \t")
            lead = len(raw_line.text) - len(stripped)
            if stars and stripped.startswith("*"):
                if not inner and stripped.strip() != "*":
                    inner = raw_line.text[: lead + 1] + (" " if stripped[1:2] == " " else "")
                lead += 1
            cleaned.append(_Line(raw_line.text[lead:], raw_line.at + lead))
        if not inner and stars:
            inner = " * "
        first_text = cleaned[0].text.strip()
        reason = notprose.block_reason(first_text, text)
        if reason:
            self.skipped.append(Skipped(line_number, reason, text))
            return None
        shape = Shape(
            open=opener,
            close=closer,
            inner=inner,
            indent=_indent(self.source.before_on_line(node.start)),
            first_inline=first_inline,
            last_inline=last_inline,
            trailing=bool(self.source.before_on_line(node.start).strip()),
            width=self._width(node.start, node.end),
            space=not first_inline or raw_lines[0].text.startswith(" "),
        )
        return self.make(
            cleaned,
            node.start,
            node.end,
            "block",
            shape,
            first_code,
            doc=opener in ("/**", "/*!"),
        )

    def docstring(self, node: _Node) -> Comment | None:
        raw = node.raw
        start_node = raw.children[0] if raw.children else None
        if start_node is None or start_node.type != "string_start":
            return None
        opener = start_node.text.decode("utf-8")
        prefix = opener.rstrip("'\"")
        if any(char in prefix.lower() for char in "fb"):
            return None  # an f-string or bytes is an expression, not documentation
        closer = opener[len(prefix) :]
        text = self.source.text[node.start : node.end]
        if not text.endswith(closer):
            return None
        inner_text = text[len(opener) : len(text) - len(closer)]
        base = node.start + len(opener)
        lines: list[_Line] = []
        position = base
        for piece in inner_text.split("\n"):
            lines.append(_Line(piece, position))
            position += len(piece) + 1
        first_inline = bool(lines[0].text.strip())
        last_inline = len(lines) == 1 or bool(lines[-1].text.strip())
        shape = Shape(
            open=opener,
            close=closer,
            indent=_indent(self.source.before_on_line(node.start)),
            first_inline=first_inline,
            last_inline=last_inline,
            width=self._width(node.start, node.end),
            space=False,
        )
        return self.make(lines, node.start, node.end, "docstring", shape, 0, doc=True)

    def _width(self, start: int, end: int) -> int:
        text = self.source.text
        line_start = self.source.line_start(start)
        line_end = text.find("\n", end)
        line_end = len(text) if line_end < 0 else line_end
        return max(len(line) for line in text[line_start:line_end].split("\n"))

    def make(
        self,
        lines: list[_Line],
        start: int,
        end: int,
        style: str,
        shape: Shape,
        first_code: int,
        *,
        doc: bool,
    ) -> Comment | None:
        line_number = self.source.line_of(start)
        lines = _dedent(lines, first_is_separate=style != "line")
        while lines and not lines[0].text.strip():
            lines.pop(0)
        while lines and not lines[-1].text.strip():
            lines.pop()
        parts: list[str] = []
        segments: list[tuple[int, int, int]] = []
        offset = 0
        for index, line in enumerate(lines):
            content = line.text.rstrip()
            if not content.strip():
                content = ""
            if index:
                parts.append("\n")
                offset += 1
            segments.append((offset, line.at, len(content)))
            parts.append(content)
            offset += len(content)
        text = "".join(parts)
        raw = self.source.text[start:end]
        if not any(char.isalnum() for char in text):
            self.skipped.append(Skipped(line_number, "empty", raw))
            return None
        if notprose.is_license(text, opening=start < first_code):
            self.skipped.append(Skipped(line_number, "license", raw))
            return None
        if style != "docstring" and not doc and notprose.is_code(text, self.language):
            self.skipped.append(Skipped(line_number, "code", raw))
            return None
        key = f"L{line_number}"
        count = self.keys.get(key, 0) + 1
        self.keys[key] = count
        if count > 1:
            key = f"{key}.{count}"
        byte_start = self.source.byte(start)
        byte_end = byte_start + len(raw.encode("utf-8"))
        return Comment(
            key=key,
            language=self.language.name,
            style=style,
            start=byte_start,
            end=byte_end,
            line=line_number,
            end_line=self.source.line_of(end),
            column=start - self.source.line_start(start) + 1,
            text=text,
            segments=tuple(segments),
            codes=notprose.code_spans(text),
            sha256=comment_digest(raw.encode("utf-8")),
            shape=shape,
            doc=doc,
        )


def _indent(before: str) -> str:
    """The whitespace of a comment's column: the line's own when only whitespace precedes it."""
    if before.strip():
        return ""
    return before


def _dedent(lines: list[_Line], *, first_is_separate: bool) -> list[_Line]:
    """Remove the common indentation (the first line of a block or docstring aside)."""
    body = lines[1:] if first_is_separate else lines
    widths = [len(line.text) - len(line.text.lstrip(" \t")) for line in body if line.text.strip()]
    common = min(widths) if widths else 0
    out: list[_Line] = []
    for index, line in enumerate(lines):
        if first_is_separate and index == 0:
            lead = len(line.text) - len(line.text.lstrip(" \t"))
        else:
            lead = min(common, len(line.text) - len(line.text.lstrip(" \t")))
        out.append(_Line(line.text[lead:], line.at + lead))
    return out


def _docstring(owner: Any) -> Any:
    """The string statement that documents a module, class or function, if it has one."""
    if owner.type == "decorated_definition":
        return None  # its definition child is visited on its own
    body = owner if owner.type == "module" else owner.child_by_field_name("body")
    if body is None:
        return None
    for child in body.children:
        if child.type == "comment":
            continue
        if child.type == "expression_statement" and child.named_child_count == 1:
            string = child.named_children[0]
            if string.type == "string":
                return string
        return None
    return None
