"""Byte-exact XML reading and splicing for OOXML parts, on the standard library's expat.

The scanner streams a part and builds small element trees only for the
elements a format asks for (a ``w:p``, an ``si``, a ``p:sp``); every element
records the byte offsets of its start tag, its content and its end tag in the
original bytes. A :class:`Splicer` then replaces byte ranges (the content of a
``w:t`` node, a paragraph's inline content) and copies everything else as it
was, so an untouched part, or the untouched rest of an edited one, keeps its
exact bytes. Names are canonical ``prefix:local`` strings (``w:p``) whatever
prefix the file uses; transitional and strict OOXML namespaces map to the same
prefix. A DOCTYPE or entity declaration is refused (OOXML has none; it is how
entity bombs arrive).
"""

from __future__ import annotations

import re
import xml.parsers.expat as expat
from collections.abc import Callable, Iterable

from kapi.core.format import FormatError, Limits

__all__ = [
    "Element",
    "Splicer",
    "escape_text",
    "parse_part",
    "xml_encoding",
]

# Namespace URI -> canonical prefix (transitional and strict spellings).
NAMESPACES: dict[str, str] = {
    "http://schemas.openxmlformats.org/wordprocessingml/2006/main": "w",
    "http://purl.oclc.org/ooxml/wordprocessingml/main": "w",
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships": "r",
    "http://purl.oclc.org/ooxml/officeDocument/relationships": "r",
    "http://schemas.openxmlformats.org/drawingml/2006/main": "a",
    "http://schemas.openxmlformats.org/drawingml/2006/chart": "c",
    "http://purl.oclc.org/ooxml/drawingml/chart": "c",
    "http://purl.oclc.org/ooxml/drawingml/main": "a",
    "http://schemas.openxmlformats.org/presentationml/2006/main": "p",
    "http://purl.oclc.org/ooxml/presentationml/main": "p",
    "http://schemas.openxmlformats.org/spreadsheetml/2006/main": "x",
    "http://purl.oclc.org/ooxml/spreadsheetml/main": "x",
    "http://schemas.openxmlformats.org/markup-compatibility/2006": "mc",
    "http://schemas.openxmlformats.org/officeDocument/2006/math": "m",
    "http://purl.oclc.org/ooxml/officeDocument/math": "m",
    "http://schemas.openxmlformats.org/package/2006/relationships": "rel",
    "http://schemas.openxmlformats.org/package/2006/content-types": "ct",
    "http://www.w3.org/XML/1998/namespace": "xml",
    "urn:schemas-microsoft-com:vml": "v",
    "http://schemas.microsoft.com/office/word/2010/wordprocessingShape": "wps",
}

_SEPARATOR = "\x01"
_START_TAG = re.compile(rb"<[^\s/>]+(?:\s+[^\s=/>]+\s*=\s*(?:\"[^\"]*\"|'[^']*'))*\s*(/?)>")


class Element:
    """One element of a captured subtree, with its byte offsets in the part.

    ``start`` is the ``<`` of the start tag, ``end_start`` the ``<`` of the end
    tag (for a self-closing element: ``end``), ``end`` the byte after the
    element. ``text`` is the character data directly inside the element.
    """

    __slots__ = ("_start_end", "attrs", "children", "end", "end_start", "name", "start", "text")

    def __init__(self, name: str, attrs: dict[str, str], start: int) -> None:
        self.name = name
        self.attrs = attrs
        self.start = start
        self.end_start = start
        self.end = start
        self._start_end = -1
        self.children: list[Element] = []
        self.text = ""

    @property
    def self_closing(self) -> bool:
        return self.end_start == self.end

    def start_end(self, data: bytes) -> int:
        """The byte after the start tag's ``>``."""
        if self._start_end < 0:
            match = _START_TAG.match(data, self.start)
            self._start_end = match.end() if match else data.index(b">", self.start) + 1
        return self._start_end

    def raw_name(self, data: bytes) -> bytes:
        """The tag name as the file spells it (with its own prefix)."""
        stop = self.start + 1
        while data[stop : stop + 1] not in (b" ", b"/", b">", b"\t", b"\n", b"\r", b""):
            stop += 1
        return data[self.start + 1 : stop]

    def first(self, name: str) -> Element | None:
        for child in self.children:
            if child.name == name:
                return child
        return None

    def iter(self, name: str | None = None) -> Iterable[Element]:
        """This element and all its descendants in document order."""
        stack = [self]
        while stack:
            element = stack.pop()
            if name is None or element.name == name:
                yield element
            stack.extend(reversed(element.children))

    def all_text(self, name: str) -> str:
        """The text of every ``name`` descendant, in order."""
        return "".join(element.text for element in self.iter(name))

    def __repr__(self) -> str:
        return f"<Element {self.name} {self.start}:{self.end}>"


_CANONICAL: dict[str, str] = {}


def _canonical(name: str) -> str:
    found = _CANONICAL.get(name)
    if found is not None:
        return found
    uri, sep, local = name.rpartition(_SEPARATOR)
    if not sep:
        found = name
    else:
        prefix = NAMESPACES.get(uri)
        found = f"{prefix}:{local}" if prefix else "{" + uri + "}" + local
    if len(_CANONICAL) < 10_000:
        _CANONICAL[name] = found
    return found


# A captured subtree is handed over with the names and attributes of its ancestors.
Ancestors = tuple[tuple[str, dict[str, str]], ...]
OnElement = Callable[[Element, Ancestors], None]


def xml_encoding(data: bytes) -> str:
    """The encoding a part declares or implies: utf-8 unless a BOM or declaration says otherwise."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")) or data[:2] in (b"<\x00", b"\x00<"):
        return "utf-16"
    head = data[:200]
    match = re.match(rb"(?:\xef\xbb\xbf)?<\?xml[^>]*encoding\s*=\s*[\"']([^\"']+)", head)
    return match.group(1).decode("ascii", "replace").lower() if match else "utf-8"


def parse_part(
    data: bytes,
    *,
    capture: Callable[[str, Ancestors], bool] | frozenset[str],
    on_element: OnElement,
    part: str,
    path: str,
    limits: Limits,
    on_start: Callable[[str, dict[str, str], int], None] | None = None,
) -> None:
    """Stream ``data``; each outermost element ``capture`` selects is built and handed over.

    ``on_start`` sees every start tag outside captured subtrees (name, attrs, offset),
    for readers that only need a few attributes of the skeleton around the content.
    """
    parser = expat.ParserCreate(namespace_separator=_SEPARATOR)
    parser.buffer_text = True
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    ancestors: list[tuple[str, dict[str, str]]] = []
    building: list[Element] = []
    element_has_content: list[bool] = []
    names = capture if isinstance(capture, frozenset) else None
    wants = capture if not isinstance(capture, frozenset) else None

    def refuse_dtd(*_args: object) -> None:
        raise FormatError(
            f"part {part} has a DOCTYPE or entity declaration, which OOXML never uses",
            path=path,
            line=parser.CurrentLineNumber,
            column=parser.CurrentColumnNumber + 1,
        )

    def start(name: str, attrs: dict[str, str]) -> None:
        name = _canonical(name)
        if attrs:
            attrs = {_canonical(key): value for key, value in attrs.items()}
        index = parser.CurrentByteIndex
        if len(ancestors) + len(building) >= limits.max_depth:
            raise FormatError(
                f"part {part} nests elements deeper than {limits.max_depth}",
                path=path,
                line=parser.CurrentLineNumber,
                column=parser.CurrentColumnNumber + 1,
                code="budget_exceeded",
            )
        if building:
            element = Element(name, attrs, index)
            building[-1].children.append(element)
            element_has_content[-1] = True
            building.append(element)
            element_has_content.append(False)
        elif (name in names) if names is not None else _call(wants, name, ancestors):
            building.append(Element(name, attrs, index))
            element_has_content.append(False)
        else:
            ancestors.append((name, attrs))
            if on_start is not None:
                on_start(name, attrs, index)

    def end(_name: str) -> None:
        if not building:
            ancestors.pop()
            return
        element = building.pop()
        had_content = element_has_content.pop()
        index = parser.CurrentByteIndex
        if not had_content and data[index - 2 : index] == b"/>":
            element.end_start = element.end = element._start_end = index
        else:
            element.end_start = index
            element.end = data.index(b">", index) + 1
        if not building:
            on_element(element, tuple(ancestors))

    def characters(text: str) -> None:
        if building:
            element = building[-1]
            element.text += text
            element_has_content[-1] = True

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = characters
    parser.StartDoctypeDeclHandler = refuse_dtd
    parser.EntityDeclHandler = refuse_dtd
    try:
        parser.Parse(data, True)
    except expat.ExpatError as err:
        raise FormatError(
            f"part {part} is not well-formed XML: {expat.errors.messages[err.code]}",
            path=path,
            line=err.lineno,
            column=err.offset + 1,
        ) from None
    except RecursionError:
        raise FormatError(
            f"part {part} nests too deeply", path=path, code="budget_exceeded"
        ) from None
    except (LookupError, ValueError) as err:
        if not isinstance(err, (LookupError, UnicodeError)) and "encoding" not in str(err):
            raise
        # the declaration names an encoding expat cannot use (unknown, multi-byte, not text)
        raise FormatError(
            f"part {part} declares an encoding kapi cannot read ({err}); OOXML parts are UTF-8 "
            "or UTF-16",
            path=path,
            line=1,
            code="unsupported",
            capability="encoding",
        ) from None


def _call(
    wants: Callable[[str, Ancestors], bool] | None,
    name: str,
    ancestors: list[tuple[str, dict[str, str]]],
) -> bool:
    return wants is not None and wants(name, tuple(ancestors))


def escape_text(text: str) -> str:
    """Escape character data for element content (``&``, ``<``, ``>``)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# A replacement's bytes, or a function that renders them given a way to render
# any original range with the replacements nested inside it applied.
RangeRenderer = Callable[[int, int], bytes]
Producer = bytes | Callable[[RangeRenderer], bytes]


class Splicer:
    """Replacements of byte ranges in one part; everything else is copied verbatim.

    Replacements may nest (a text box's paragraph inside a paragraph that is
    rebuilt): a producer that renders an original range asks for it through
    the renderer it is given, which applies the replacements inside that range.
    Two replacements that partly overlap are a bug in the caller.
    """

    def __init__(self, data: bytes) -> None:
        self.data = data
        self._edits: list[tuple[int, int, int, Producer]] = []

    def replace(self, start: int, end: int, producer: Producer) -> None:
        self._edits.append((start, end, len(self._edits), producer))

    def insert(self, at: int, producer: Producer) -> None:
        self.replace(at, at, producer)

    def __bool__(self) -> bool:
        return bool(self._edits)

    def render(self) -> bytes:
        # By start; at one start, insertions first, then the outermost range.
        edits = sorted(
            self._edits, key=lambda edit: (edit[0], edit[1] != edit[0], -edit[1], edit[2])
        )
        return self._render(0, len(self.data), edits)

    def _render(self, start: int, end: int, edits: list[tuple[int, int, int, Producer]]) -> bytes:
        out: list[bytes] = []
        cursor = start
        index = 0
        while index < len(edits):
            edit_start, edit_end, _order, producer = edits[index]
            index += 1
            if edit_start < cursor:
                raise ValueError(f"overlapping replacements at byte {edit_start}")
            nested: list[tuple[int, int, int, Producer]] = []
            if edit_end > edit_start:
                while (
                    index < len(edits)
                    and edits[index][0] < edit_end
                    and edits[index][1] <= edit_end
                ):
                    nested.append(edits[index])
                    index += 1
            out.append(self.data[cursor:edit_start])
            if isinstance(producer, bytes):
                out.append(producer)
            else:
                out.append(producer(self._range_renderer(nested)))
            cursor = edit_end
        out.append(self.data[cursor:end])
        return b"".join(out)

    def _range_renderer(self, nested: list[tuple[int, int, int, Producer]]) -> RangeRenderer:
        def render_range(start: int, end: int) -> bytes:
            inside = [edit for edit in nested if start <= edit[0] and edit[1] <= end]
            return self._render(start, end, inside)

        return render_range
