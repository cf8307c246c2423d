"""XML with positions: a light element tree over the original text, for span-splicing writers.

expat checks that the file is well formed and says where each element starts;
the tree keeps, for every element, the character offsets of its start tag, its
content and its end tag in the decoded text. A writer replaces one element's
content (or one attribute value) and copies every other character verbatim, so
the declaration's quotes, namespaces, comments and whitespace survive.

Limits: the file size (``Limits.max_bytes``) and the element depth
(``Limits.max_depth``) give ``budget_exceeded``; entity declarations and
undeclared entities are refused (``unsupported``): nothing is ever expanded
beyond the five predefined entities and character references.
"""

from __future__ import annotations

import re
import xml.parsers.expat
from collections.abc import Callable, Iterator

from kapi.core.format import DEFAULT_LIMITS, FormatError, Limits, WriteRefused
from kapi.formats.common import UNICODE, decode_text, text_encoding
from kapi.formats.skeleton import Edit, apply_edits, line_column

__all__ = [
    "XML_NS",
    "CharOffsets",
    "Edit",
    "Node",
    "apply_edits",
    "decode_gap",
    "decode_xml",
    "escape_attribute",
    "escape_text",
    "gap_tokens",
    "newline_of",
    "parse_xml",
    "render_text",
    "rewrite_element",
    "start_tag_with",
]

XML_NS = "http://www.w3.org/XML/1998/namespace"


_START_TAG = re.compile(
    r"<[^\s/>]+(?:\s+[^\s=/>]+\s*=\s*(?:\"[^\"]*\"|'[^']*'))*\s*/?>",
)
_QNAME = re.compile(r"</?([^\s/>]+)")
_DECLARED_ENCODING = re.compile(rb"""^<\?xml[^>]*?\sencoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")
_PREDEFINED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}
_TOKEN = re.compile(
    r"&(#[0-9]+|#x[0-9a-fA-F]+|[^;&<\s]+);|<!\[CDATA\[(.*?)\]\]>|\r\n?|[^&<\r]",
    re.S,
)
# Characters XML 1.0 cannot hold at all, even as a character reference.
_NOT_XML_CHAR = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


class Node:
    """An element, a comment or a processing instruction, with where it sits in the text."""

    __slots__ = (
        "attrs",
        "children",
        "content_end",
        "content_start",
        "empty",
        "end",
        "kind",
        "local",
        "ns",
        "parent",
        "start",
    )

    def __init__(self, kind: str, ns: str, local: str, attrs: dict[str, str], start: int) -> None:
        self.kind = kind  # "element", "comment" or "pi"
        self.ns = ns
        self.local = local
        # unprefixed attributes by local name; namespaced ones as "{uri}local"
        self.attrs = attrs
        self.start = start
        self.content_start = start
        self.content_end = start
        self.end = start
        self.empty = False
        self.children: list[Node] = []
        self.parent: Node | None = None

    def elements(self, local: str | None = None) -> Iterator[Node]:
        """Child elements, optionally only those with one local name."""
        for child in self.children:
            if child.kind == "element" and (local is None or child.local == local):
                yield child

    def first(self, local: str) -> Node | None:
        return next(self.elements(local), None)

    def items(self) -> Iterator[tuple[int, int] | Node]:
        """The content in order: text gaps as ``(start, end)`` and child nodes."""
        cursor = self.content_start
        for child in self.children:
            if child.start > cursor:
                yield (cursor, child.start)
            yield child
            cursor = child.end
        if self.content_end > cursor:
            yield (cursor, self.content_end)

    def qname(self, text: str) -> str:
        """The element's name as the file spells it (with its prefix)."""
        found = _QNAME.match(text, self.start)
        return found.group(1) if found else self.local

    def __repr__(self) -> str:
        return f"<Node {self.kind} {self.local} {self.start}:{self.end}>"


def decode_xml(
    data: bytes,
    *,
    path: str = "",
    limits: Limits = DEFAULT_LIMITS,
    hint: str = " or declare its encoding in the XML declaration",
) -> tuple[str, str, bytes]:
    """Decode an XML file: ``(text, encoding, bom)``, found as XML's appendix F says.

    A BOM, else UTF-16 or UTF-32 by the NUL pattern of the first bytes, else
    the declaration's ``encoding``, else UTF-8.
    """
    encoding = "utf-8"
    declared = _DECLARED_ENCODING.match(data[:400])
    if declared:
        name = declared.group(1).decode("ascii")
        known = text_encoding(name)
        if known is None:
            raise FormatError(
                f"the declared encoding {name!r} is not a text encoding kapi reads",
                path=path,
                line=1,
                column=declared.start(1) + 1,
                code="unsupported",
                capability="encoding",
            )
        encoding = known
        if encoding.startswith("utf-16") or encoding.startswith("utf-32"):
            # declared as UTF-16 but written without a BOM in an ASCII-compatible way
            encoding = "utf-8"
    return decode_text(
        data, path=path, encodings=(encoding,), unmarked=UNICODE, hint=hint, limits=limits
    )


class CharOffsets:
    """Turns expat's byte offsets (into the UTF-8 form of the text) into character offsets.

    An offset inside a character (expat reports one for some errors) counts as
    that character's start.
    """

    def __init__(self, text: str) -> None:
        self.ascii = text.isascii()
        self.encoded = b"" if self.ascii else text.encode("utf-8", "surrogatepass")
        self.byte = 0
        self.char = 0

    def __call__(self, byte_index: int) -> int:
        if self.ascii:
            return byte_index
        while 0 < byte_index < len(self.encoded) and self.encoded[byte_index] & 0xC0 == 0x80:
            byte_index -= 1  # a continuation byte: back to the start of its character
        if byte_index < self.byte:
            self.byte = self.char = 0
        self.char += len(self.encoded[self.byte : byte_index].decode("utf-8", "surrogatepass"))
        self.byte = byte_index
        return self.char


def _split_name(name: str) -> tuple[str, str]:
    uri, _, local = name.rpartition(" ")
    return uri, local


def parse_xml(text: str, *, path: str = "", limits: Limits = DEFAULT_LIMITS) -> Node:
    """The root element of ``text``, every element located; malformed XML raises FormatError."""
    parser = xml.parsers.expat.ParserCreate(namespace_separator=" ")
    offsets = CharOffsets(text)
    stack: list[Node] = []
    root: list[Node] = []

    def fail(message: str, index: int, code: str = "invalid") -> FormatError:
        line, column = line_column(text, index)
        return FormatError(message, path=path, line=line, column=column, offset=index, code=code)

    def start(name: str, attributes: dict[str, str]) -> None:
        index = offsets(parser.CurrentByteIndex)
        if len(stack) >= limits.max_depth:
            raise fail(f"elements nest deeper than {limits.max_depth}", index, "budget_exceeded")
        uri, local = _split_name(name)
        attrs: dict[str, str] = {}
        for key, value in attributes.items():
            attr_uri, attr_local = _split_name(key)
            attrs[f"{{{attr_uri}}}{attr_local}" if attr_uri else attr_local] = value
        node = Node("element", uri, local, attrs, index)
        tag = _START_TAG.match(text, index)
        if tag is None:  # expat accepted it, so this does not happen with well-formed input
            raise fail("cannot find the end of this start tag", index)
        node.content_start = node.content_end = node.end = tag.end()
        node.empty = tag.group().endswith("/>")
        if stack:
            node.parent = stack[-1]
            stack[-1].children.append(node)
        else:
            root.append(node)
        stack.append(node)

    def end(name: str) -> None:
        node = stack.pop()
        if node.empty:
            return
        index = offsets(parser.CurrentByteIndex)
        node.content_end = index
        node.end = text.index(">", index) + 1

    def comment(data: str) -> None:
        if not stack:
            return
        index = offsets(parser.CurrentByteIndex)
        node = Node("comment", "", "", {}, index)
        node.end = text.index("-->", index + 4) + 3
        node.parent = stack[-1]
        stack[-1].children.append(node)

    def instruction(target: str, data: str) -> None:
        if not stack:
            return
        index = offsets(parser.CurrentByteIndex)
        node = Node("pi", "", target, {}, index)
        node.end = text.index("?>", index + 2) + 2
        node.parent = stack[-1]
        stack[-1].children.append(node)

    def entity_declaration(name: str, *args: object) -> None:
        raise fail(
            f"the file declares the entity {name!r}; entity declarations are not supported",
            offsets(parser.CurrentByteIndex),
            "unsupported",
        )

    def skipped_entity(name: str, is_parameter: bool) -> None:
        raise fail(
            f"the entity &{name}; is not defined in the file",
            offsets(parser.CurrentByteIndex),
            "unsupported",
        )

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CommentHandler = comment
    parser.ProcessingInstructionHandler = instruction
    parser.EntityDeclHandler = entity_declaration
    parser.SkippedEntityHandler = skipped_entity
    try:
        parser.Parse(text, True)
    except xml.parsers.expat.ExpatError as err:
        index = offsets(max(parser.ErrorByteIndex, 0))
        message = xml.parsers.expat.errors.messages.get(err.code, str(err))
        raise fail(f"not well-formed XML: {message}", min(index, len(text))) from None
    if not root:
        raise fail("no root element", 0)
    return root[0]


def gap_tokens(raw: str) -> list[tuple[str, str]]:
    """A raw text gap as ``(decoded, raw)`` pieces: one per character, reference or CDATA section."""
    out: list[tuple[str, str]] = []
    for match in _TOKEN.finditer(raw):
        piece = match.group()
        reference = match.group(1)
        if reference is not None:
            out.append((_reference(reference), piece))
        elif match.group(2) is not None:
            out.append((match.group(2).replace("\r\n", "\n").replace("\r", "\n"), piece))
        elif piece[0] == "\r":
            out.append(("\n", piece))
        else:
            out.append((piece, piece))
    return out


def decode_gap(raw: str) -> str:
    """The character data of a raw text gap (references resolved, newlines normalised)."""
    if "&" not in raw and "\r" not in raw and "<" not in raw:
        return raw
    return _SPECIAL.sub(_decode_special, raw)


_SPECIAL = re.compile(r"&(#[0-9]+|#x[0-9a-fA-F]+|[^;&<\s]+);|<!\[CDATA\[(.*?)\]\]>|\r\n?", re.S)


def _decode_special(match: re.Match[str]) -> str:
    if match.group(1) is not None:
        return _reference(match.group(1))
    if match.group(2) is not None:
        return match.group(2).replace("\r\n", "\n").replace("\r", "\n")
    return "\n"


def _reference(name: str) -> str:
    if name.startswith("#x"):
        return chr(int(name[2:], 16))
    if name.startswith("#"):
        return chr(int(name[1:]))
    return _PREDEFINED.get(name, f"&{name};")


def newline_of(text: str) -> str:
    """The newline the file uses: CRLF when it has any, else LF."""
    return "\r\n" if "\r\n" in text else "\n"


def escape_text(
    value: str, *, encoding: str = "utf-8", newline: str = "\n", block: str = ""
) -> str:
    """``value`` as XML character data: ``& < >`` escaped, newlines in the file's style.

    A character the encoding cannot hold becomes a character reference; one
    XML cannot hold at all is refused.
    """
    bad = _NOT_XML_CHAR.search(value)
    if bad is not None:
        raise WriteRefused(
            f"U+{ord(bad.group()):04X} cannot be written in XML",
            capability="characters",
            block=block,
        )
    out = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    out = out.replace("\r", "&#13;")
    if newline != "\n":
        out = out.replace("\n", newline)
    if not encoding.startswith("utf") and not out.isascii():
        out = "".join(_encodable(char, encoding) for char in out)
    return out


def _encodable(char: str, encoding: str) -> str:
    if char.isascii():
        return char
    try:
        char.encode(encoding)
    except UnicodeEncodeError:
        return f"&#{ord(char)};"
    return char


def escape_attribute(value: str, quote: str = '"') -> str:
    """``value`` inside an attribute quoted with ``quote``."""
    out = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    out = out.replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")
    return out.replace(quote, "&quot;" if quote == '"' else "&apos;")


def render_text(new: str, old_raw: str | None, escape: Callable[[str], str]) -> str:
    """``new`` as raw XML text, reusing the raw form of the unchanged start and end of ``old_raw``.

    So a character reference or a CDATA section the file wrote survives an edit
    elsewhere in the same text.
    """
    if old_raw is None:
        return escape(new)
    tokens = gap_tokens(old_raw)
    head: list[str] = []
    index = 0
    cut = 0
    while cut < len(tokens):
        decoded, raw = tokens[cut]
        if decoded and new.startswith(decoded, index):
            head.append(raw)
            index += len(decoded)
            cut += 1
        else:
            break
    tail: list[str] = []
    end = len(new)
    last = len(tokens)
    while last > cut:
        decoded, raw = tokens[last - 1]
        if decoded and end - len(decoded) >= index and new.endswith(decoded, index, end):
            tail.append(raw)
            end -= len(decoded)
            last -= 1
        else:
            break
    return "".join(head) + escape(new[index:end]) + "".join(reversed(tail))


_ATTRIBUTE = r"(\s)({name})(\s*=\s*)([\"'])(.*?)\4"


def start_tag_with(
    text: str, node: Node, changes: dict[str, str], *, open_only: bool = False
) -> str:
    """The node's start tag as written, with attributes set (kept in place, or appended).

    ``open_only`` turns an empty-element tag ``<a/>`` into a start tag ``<a>``.
    """
    tag = text[node.start : node.content_start]
    for name, value in changes.items():
        pattern = re.compile(_ATTRIBUTE.format(name=re.escape(name)), re.S)
        found = pattern.search(tag)
        if found is not None:
            quote = found.group(4)
            tag = tag[: found.start(5)] + escape_attribute(value, quote) + tag[found.end(5) :]
            continue
        quote_found = re.search(r"=\s*([\"'])", tag)
        quote = quote_found.group(1) if quote_found else '"'
        close = len(tag) - (2 if tag.endswith("/>") else 1)
        while close > 0 and tag[close - 1].isspace():
            close -= 1
        addition = f" {name}={quote}{escape_attribute(value, quote)}{quote}"
        tag = tag[:close] + addition + tag[close:]
    if open_only and tag.endswith("/>"):
        tag = tag[:-2].rstrip() + ">"
    return tag


def rewrite_element(
    text: str,
    node: Node,
    *,
    content: str | None = None,
    attributes: dict[str, str] | None = None,
) -> list[Edit]:
    """Edits that give ``node`` new content and/or attribute values, touching nothing else."""
    edits: list[Edit] = []
    changes = attributes or {}
    if node.empty and content:
        tag = start_tag_with(text, node, changes, open_only=True)
        edits.append((node.start, node.end, f"{tag}{content}</{node.qname(text)}>"))
        return edits
    if changes:
        edits.append((node.start, node.content_start, start_tag_with(text, node, changes)))
    if content is not None and not node.empty:
        edits.append((node.content_start, node.content_end, content))
    return edits
