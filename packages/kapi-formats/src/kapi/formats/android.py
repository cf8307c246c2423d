"""Android ``res/values*/strings.xml``: values located with expat, edits spliced into the text.

The XML is never re-serialised. expat checks the file and reports where each
``<string>``, ``<plurals>`` item and ``<string-array>`` item starts and ends;
the writer replaces only the content between the tags of a changed value,
escaped the way Android reads it (``\\'``, ``\\"``, ``\\n``, ``\\@``, XML
entities, whitespace-preserving quotes, CDATA kept when the value had it).

Inline markup becomes paired codes with their exact tags (``<b>``, ``<i>``,
``<u>``, ``<a href>``, other elements as ``code:tag``; HTML tags inside a CDATA
value likewise). An ``<xliff:g>`` element is one ``code:placeholder`` whose
``data`` is the whole element: its content is protected from translation, so
it moves as a unit. ``%1$s``, ``%d``, ``%%`` are ``code:placeholder`` codes
unless the string says ``formatted="false"``.

Blocks: ``<string name>`` is named by its name; ``<plurals name>`` is one block
whose source is a Plural run (pivot ``count``, forms from ``quantity``);
``<string-array name>`` items are ``name[0]``, ``name[1]``...
``translatable="false"`` gives a non-translatable block with role ``config``,
a value that only names another resource (``@string/x``) role ``reference``.
The comment right above an element becomes ``properties["note"]``, its other
attributes (``formatted``, ``product``, ``tools:*``) properties too.
Text is read as Android reads it: whitespace outside quotes collapsed and
trimmed; the writer escapes any space Android would drop as ``\\u0020``.
Plural items added by an edit are written after the last item with its
indentation; dropped ones are removed with their line. An edit to a value
that mixes CDATA with XML text or markup is refused (``cdata-mixed``).

Limits: file size (``Limits.max_bytes``), element depth (``max_depth``) and the
number of values (``max_entries``), refused with ``budget_exceeded``. A DOCTYPE
(and so any entity declaration) is refused as ``invalid``, as is any XML that
expat rejects, named by line and column.
"""

from __future__ import annotations

import re
import xml.parsers.expat
from collections.abc import Mapping, Sequence
from html import escape as html_escape

from attrs import define, evolve, field, frozen

from kapi.core.format import DEFAULT_LIMITS, FormatError, Limits, WriteRefused
from kapi.core.model import Block, Document, PcClose, PcOpen, Ph, Plural, Run, Runs, Text
from kapi.formats.common import canonical_or_error
from kapi.formats.skeleton import Span, TextSkeleton, decode_text, line_column
from kapi.formats.xmlspans import CharOffsets

__all__ = ["AndroidFormat", "decode_value", "encode_text"]

FORMAT = "androidxml"
PIVOT = "count"
_CLDR_ORDER = ("zero", "one", "two", "few", "many", "other")

_PAIRED_TYPES: Mapping[str, str] = {
    "b": "fmt:bold",
    "strong": "fmt:bold",
    "i": "fmt:italic",
    "em": "fmt:italic",
    "u": "fmt:underline",
    "a": "link:hyperlink",
}
_PRINTF = re.compile(r"%(?:\d+\$)?[-#+0,(<]*\d*(?:\.\d+)?(?:[tT][a-zA-Z]|[bBhHsScCdoxXeEfgGaA%n])")
_ENTITY = re.compile(r"&(?:#(\d+)|#x([0-9A-Fa-f]+)|(amp|lt|gt|quot|apos));")
_XML_NAMED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}
_TOKEN = re.compile(
    r"<!--.*?-->|<!\[CDATA\[.*?\]\]>|<\?.*?\?>|</[^\s>]+\s*>|<[^\s/>!?][^\s/>]*"
    r"(?:\s+[^\s=/>]+\s*=\s*(?:\"[^\"]*\"|'[^']*'))*\s*/?>",
    re.S,
)
_HTML_TAG = re.compile(r"</?([A-Za-z][A-Za-z0-9:-]*)(?:\s+[^<>]*?)?\s*/?>", re.S)
_ATTRIBUTE = re.compile(r"([^\s=/>]+)\s*=\s*(?:\"([^\"]*)\"|'([^']*)')")


# --- the file as read -------------------------------------------------------------------


@frozen
class AndroidValue:
    """One value's place: the content between an element's tags, and how it was written."""

    block_id: str
    start: int  # content start (after the start tag)
    end: int  # content end (before the end tag)
    runs: Runs
    form: str = ""  # plural quantity, "" for a string or array item
    element_start: int = 0  # the element's '<'
    element_end: int = 0  # after its end tag
    self_closing: bool = False
    tag: str = "string"
    quoted: bool = False
    cdata: bool = False
    mixed_cdata: bool = False  # CDATA beside XML text or markup: its style cannot be kept


@frozen
class AndroidSkeleton:
    """The decoded file and every value's place, grouped by block."""

    text: TextSkeleton
    values: tuple[AndroidValue, ...]
    plurals: Mapping[str, tuple[int, int]]  # block id -> content span of <plurals>


@define
class _Element:
    name: str
    attrs: dict[str, str]
    start: int
    content_start: int
    self_closing: bool
    children: list[_Element] = field(factory=list)
    end: int = -1  # end tag start
    element_end: int = -1


# --- Android string decoding ------------------------------------------------------------


@define
class _Decoder:
    """Android's reading of a string: escapes, quotes, whitespace collapsing."""

    quoted: bool = False
    chars: list[tuple[str, bool]] = field(factory=list)  # (character, soft whitespace)

    def mark_content(self) -> None:
        """A code with text of its own was passed: a following space is not collapsed."""
        self.chars.append(("", False))

    def feed(self, text: str) -> list[tuple[str, bool]]:
        out: list[tuple[str, bool]] = []
        index = 0
        length = len(text)
        while index < length:
            char = text[index]
            if char == "\\" and index + 1 < length:
                following = text[index + 1]
                if following == "u" and re.fullmatch(
                    r"[0-9A-Fa-f]{4}", text[index + 2 : index + 6]
                ):
                    out.append((chr(int(text[index + 2 : index + 6], 16)), False))
                    index += 6
                    continue
                out.append(({"n": "\n", "t": "\t"}.get(following, following), False))
                index += 2
                continue
            if char == '"':
                self.quoted = not self.quoted
            elif not self.quoted and char in " \t\n\r":
                previous = out[-1] if out else (self.chars[-1] if self.chars else None)
                if previous is None or not previous[1]:
                    out.append((" ", True))
            else:
                out.append((char, False))
            index += 1
        if out:
            self.chars.extend(out)
        return out


def _xml_text(raw: str) -> str:
    def replace(match: re.Match[str]) -> str:
        if match.group(1):
            return chr(int(match.group(1)))
        if match.group(2):
            return chr(int(match.group(2), 16))
        return _XML_NAMED[match.group(3)]

    return _ENTITY.sub(replace, raw)


@frozen
class _Piece:
    kind: str  # "text" or "code"
    chars: tuple[tuple[str, bool], ...] = ()
    code: Run | None = None


def decode_value(raw: str, *, formatted: bool = True) -> Runs:
    """The runs of an Android string value's raw XML content."""
    return _decode(raw, formatted=formatted)[0]


def _decode(raw: str, *, formatted: bool) -> tuple[Runs, bool]:
    """Runs of a raw value, and whether it mixes CDATA with XML markup or text."""
    decoder = _Decoder()
    pieces: list[_Piece] = []
    cdata_seen = xml_seen = False
    open_stack: list[tuple[str, str]] = []
    counter = 0
    position = 0
    tokens = list(_TOKEN.finditer(raw))
    # Pair start and end tags first, so a lone tag becomes a standalone code.
    closes = _pair_tags([(m.start(), m.group(0)) for m in tokens])
    for match in tokens:
        if match.start() < position:
            continue  # inside an <xliff:g> already taken whole
        if match.start() > position:
            text = raw[position : match.start()]
            xml_seen = xml_seen or bool(text.strip())
            pieces.append(_Piece("text", tuple(decoder.feed(_xml_text(text)))))
        token = match.group(0)
        position = match.end()
        if token.startswith("<![CDATA["):
            cdata_seen = True
            counter = _decode_cdata(token[9:-3], decoder, pieces, counter)
            continue
        if token.startswith(("<!--", "<?")):
            counter += 1
            sub_type = "xml:comment" if token.startswith("<!--") else "xml:pi"
            pieces.append(_Piece("code", code=Ph(str(counter), "code:tag", sub_type, token)))
            continue
        xml_seen = True
        name = _tag_name(token)
        if token.startswith("</"):
            ident, opened = open_stack.pop()
            pieces.append(_closing(ident, opened, token, "android"))
            continue
        end = closes.get(match.start())
        counter += 1
        if name == "xliff:g" and end is not None:
            # Protected content: the element, its content and its end tag are one code.
            whole_end = raw.index(">", end) + 1
            attrs = _attributes(token)
            code = Ph(
                str(counter),
                "code:placeholder",
                "xliff:g",
                raw[match.start() : whole_end],
                equiv=_plain(_xml_text(raw[position:end])),
                disp=attrs.get("example", ""),
            )
            pieces.append(_Piece("code", code=code))
            decoder.mark_content()
            position = whole_end
        elif end is None:
            pieces.append(_standalone(counter, name, token, "android"))
        else:
            open_stack.append((str(counter), name))
            pieces.append(_opening(counter, name, token, "android"))
    if position < len(raw):
        text = raw[position:]
        xml_seen = xml_seen or bool(text.strip())
        pieces.append(_Piece("text", tuple(decoder.feed(_xml_text(text)))))
    return _runs(pieces, formatted), cdata_seen and xml_seen


def _plain(text: str) -> str:
    return "".join(char for char, _ in _Decoder().feed(text))


def _decode_cdata(content: str, decoder: _Decoder, pieces: list[_Piece], counter: int) -> int:
    """CDATA text is literal XML-wise; HTML tags in it (for Html.fromHtml) become codes."""
    tags = list(_HTML_TAG.finditer(content))
    closes = _pair_tags([(m.start(), m.group(0)) for m in tags])
    stack: list[tuple[str, str]] = []
    position = 0
    for match in tags:
        if match.start() > position:
            pieces.append(_Piece("text", tuple(decoder.feed(content[position : match.start()]))))
        token = match.group(0)
        name = match.group(1).lower()
        position = match.end()
        if token.startswith("</") and stack and stack[-1][1] == name:
            ident, _ = stack.pop()
            pieces.append(_closing(ident, name, token, "html"))
            continue
        counter += 1
        if token.startswith("</") or match.start() not in closes:
            pieces.append(_standalone(counter, name, token, "html"))
        else:
            stack.append((str(counter), name))
            pieces.append(_opening(counter, name, token, "html"))
    if position < len(content):
        pieces.append(_Piece("text", tuple(decoder.feed(content[position:]))))
    return counter


def _standalone(counter: int, name: str, token: str, prefix: str) -> _Piece:
    kind, equiv = ("fmt:linebreak", "\n") if name.lower() == "br" else ("code:tag", "")
    return _Piece("code", code=Ph(str(counter), kind, f"{prefix}:{name}", token, equiv=equiv))


def _opening(counter: int, name: str, token: str, prefix: str) -> _Piece:
    attrs = _attributes(token)
    neutral = {"href": attrs["href"]} if name.lower() == "a" and "href" in attrs else {}
    code = PcOpen(str(counter), _code_type(name), f"{prefix}:{name}", token, attrs=neutral)
    return _Piece("code", code=code)


def _closing(ident: str, name: str, token: str, prefix: str) -> _Piece:
    return _Piece("code", code=PcClose(ident, _code_type(name), f"{prefix}:{name}", token))


def _pair_tags(tags: Sequence[tuple[int, str]]) -> dict[int, int]:
    """Start-tag offset -> offset of its matching end tag."""
    stack: list[tuple[str, int]] = []
    pairs: dict[int, int] = {}
    for offset, token in tags:
        if token.startswith(("<!", "<?")) or token.endswith("/>"):
            continue
        name = _tag_name(token).lower()
        if token.startswith("</"):
            for depth in range(len(stack) - 1, -1, -1):
                if stack[depth][0] == name:
                    pairs[stack[depth][1]] = offset
                    del stack[depth:]
                    break
        else:
            stack.append((name, offset))
    return pairs


def _tag_name(token: str) -> str:
    match = re.match(r"</?\s*([^\s/>]+)", token)
    return match.group(1) if match else ""


def _attributes(token: str) -> dict[str, str]:
    return {
        m.group(1): _xml_text(m.group(2) if m.group(2) is not None else m.group(3))
        for m in _ATTRIBUTE.finditer(token)
    }


def _code_type(name: str) -> str:
    return _PAIRED_TYPES.get(name.lower(), "code:tag")


def _runs(pieces: list[_Piece], formatted: bool) -> Runs:
    # Android trims the whitespace it collapsed at both ends of the whole string;
    # codes without text of their own (tags, comments) do not stop the trim.
    for order in (range(len(pieces)), range(len(pieces) - 1, -1, -1)):
        for index in order:
            piece = pieces[index]
            if piece.kind != "text":
                if _has_content(piece.code):
                    break
                continue
            chars = list(piece.chars)
            if order.step > 0:
                while chars and chars[0][1]:
                    chars.pop(0)
            else:
                while chars and chars[-1][1]:
                    chars.pop()
            pieces[index] = _Piece("text", tuple(chars))
            if chars:
                break
    runs: list[Run] = []
    for piece in pieces:
        if piece.kind == "code":
            assert piece.code is not None
            runs.append(piece.code)
            continue
        text = "".join(char for char, _ in piece.chars)
        if not text:
            continue
        if not formatted:
            runs.append(Text(text))
            continue
        cursor = 0
        for match in _PRINTF.finditer(text):
            if match.start() > cursor:
                runs.append(Text(text[cursor : match.start()]))
            data = match.group(0)
            runs.append(
                Ph(
                    "",
                    "code:placeholder",
                    f"printf:{data[-1]}",
                    data,
                    equiv="%" if data == "%%" else data,
                )
            )
            cursor = match.end()
        if cursor < len(text):
            runs.append(Text(text[cursor:]))
    merged: list[Run] = []
    for run in runs:
        if isinstance(run, Text) and merged and isinstance(merged[-1], Text):
            merged[-1] = Text(merged[-1].text + run.text)
        else:
            merged.append(run)
    return _number(merged)


def _has_content(code: Run | None) -> bool:
    """Does a code stand for text (a placeholder, a break), rather than markup?"""
    return isinstance(code, Ph) and code.type != "code:tag"


def _number(runs: list[Run]) -> Runs:
    """Code ids 1, 2, ... in order; a pair keeps one id."""
    out: list[Run] = []
    mapping: dict[str, str] = {}
    count = 0
    for run in runs:
        if isinstance(run, Ph | PcOpen):
            count += 1
            mapping[run.id] = str(count)
            out.append(evolve(run, id=str(count)))
        elif isinstance(run, PcClose):
            out.append(evolve(run, id=mapping.get(run.id, run.id)))
        else:
            out.append(run)
    return tuple(out)


# --- Android string encoding ------------------------------------------------------------


def encode_text(
    runs: Sequence[Run], *, quoted: bool = False, cdata: bool = False, block: str = ""
) -> str:
    """Runs as the raw content of an Android string element."""
    flat: list[tuple[str, bool, int]] = []  # (text, is native markup, characters it stands for)
    for run in runs:
        if isinstance(run, Text):
            flat.append((run.text, False, len(run.text)))
        elif isinstance(run, Ph | PcOpen | PcClose):
            flat.append((run.data or _synthesize(run, block), True, 1 if _has_content(run) else 0))
        elif isinstance(run, Plural):
            raise WriteRefused("this string has no plural forms", capability="plural", block=block)
        else:
            raise WriteRefused(
                f"an Android string cannot hold a {type(run).__name__} run",
                capability=f"synthesize:{type(run).__name__.lower()}",
                block=block,
            )
    # A space Android would trim (at either end) or collapse (after a space) is escaped.
    total = sum(weight for _, _, weight in flat)
    out: list[str] = []
    seen = 0
    previous_space = False
    for text, literal, weight in flat:
        if literal:
            out.append(text)
            seen += weight
            if weight:
                previous_space = False
            continue
        for char in text:
            first = seen == 0
            last = seen == total - 1
            seen += 1
            out.append(
                _escape_char(
                    char,
                    quoted=quoted,
                    cdata=cdata,
                    first=first,
                    last=last,
                    after_space=previous_space,
                )
            )
            previous_space = char == " " and out[-1] == " "
    body = "".join(out)
    if quoted:
        body = f'"{body}"'
    if cdata:
        body = "<![CDATA[" + body.replace("]]>", "]]]]><![CDATA[>") + "]]>"
    return body


def _escape_char(
    char: str, *, quoted: bool, cdata: bool, first: bool, last: bool, after_space: bool
) -> str:
    if char == "\\":
        return "\\\\"
    if char == '"':
        return '\\"'
    if char == "'":
        return "'" if quoted else "\\'"
    if char == "\n":
        return "\\n"
    if char == "\t":
        return "\\t"
    if not cdata and char in "&<>":
        return {"&": "&amp;", "<": "&lt;", ">": "&gt;"}[char]
    if first and char in "@?":
        return "\\" + char
    if char == " " and not quoted and (first or last or after_space):
        return "\\u0020"
    if ord(char) < 0x20 or char in "\x7f\u2028\u2029" or 0xD800 <= ord(char) <= 0xDFFF:
        return f"\\u{ord(char):04x}"
    return char


def _synthesize(run: Ph | PcOpen | PcClose, block: str) -> str:
    tag = {"fmt:bold": "b", "fmt:italic": "i", "fmt:underline": "u", "link:hyperlink": "a"}.get(
        run.type
    )
    if isinstance(run, PcOpen) and tag:
        if tag == "a":
            href = run.attrs.get("href", "")
            return f'<a href="{html_escape(href, quote=True)}">'
        return f"<{tag}>"
    if isinstance(run, PcClose) and tag:
        return f"</{tag}>"
    if isinstance(run, Ph):
        if run.type == "code:placeholder" and run.equiv:
            return run.equiv
        if run.type == "fmt:linebreak":
            return "\\n"
    raise WriteRefused(
        f"an Android string cannot hold a new {run.type or 'untyped'} code",
        capability=f"synthesize:{run.type}",
        block=block,
    )


# --- reading ----------------------------------------------------------------------------


class _Scanner:
    """expat over the file: the element tree of values with their character offsets."""

    def __init__(self, text: str, path: str, limits: Limits) -> None:
        self.text = text
        self.path = path
        self.limits = limits
        self.body = text.encode("utf-8")
        self.char_index = CharOffsets(text)
        self.root: _Element | None = None
        self.comments: list[tuple[int, int]] = []

    def fail(self, message: str, index: int, code: str = "invalid") -> FormatError:
        line, column = line_column(self.text, index)
        return FormatError(message, path=self.path, line=line, column=column, code=code)

    def scan(self) -> _Element:
        # the body is the decoded text in UTF-8, whatever the declaration says
        parser = xml.parsers.expat.ParserCreate("UTF-8")
        stack: list[_Element] = []

        def start(name: str, attrs: dict[str, str]) -> None:
            index = self.char_index(parser.CurrentByteIndex)
            if len(stack) >= self.limits.max_depth:
                raise self.fail(
                    f"elements nest deeper than {self.limits.max_depth}", index, "budget_exceeded"
                )
            close = _tag_end(self.text, index)
            element = _Element(
                name=name,
                attrs=dict(attrs),
                start=index,
                content_start=close,
                self_closing=self.text[close - 2 : close] == "/>",
            )
            if stack:
                stack[-1].children.append(element)
            elif self.root is None:
                self.root = element
            stack.append(element)

        def end(name: str) -> None:
            element = stack.pop()
            index = self.char_index(parser.CurrentByteIndex)
            if element.self_closing:
                element.end = element.content_start
                element.element_end = element.content_start
            else:
                element.end = index
                element.element_end = self.text.index(">", index) + 1

        def comment(data: str) -> None:
            index = self.char_index(parser.CurrentByteIndex)
            self.comments.append((index, self.text.index("-->", index + 4) + 3))

        def doctype(*_: object) -> None:
            index = max(self.text.find("<!DOCTYPE"), 0)
            raise self.fail("a DOCTYPE is not allowed in a resource file", index)

        parser.StartElementHandler = start
        parser.EndElementHandler = end
        parser.CommentHandler = comment
        parser.StartDoctypeDeclHandler = doctype
        try:
            parser.Parse(self.body, True)
        except xml.parsers.expat.ExpatError as err:
            index = self.char_index(min(parser.ErrorByteIndex, len(self.body)))
            raise self.fail(
                f"not well-formed XML: {xml.parsers.expat.ErrorString(err.code)}", index
            ) from None
        assert self.root is not None
        return self.root


def _tag_end(text: str, start: int) -> int:
    """The index after the '>' that closes the start tag at ``start``."""
    quote = ""
    index = start + 1
    while True:
        char = text[index]
        if quote:
            if char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == ">":
            return index + 1
        index += 1


def _is_quoted(raw: str) -> bool:
    stripped = raw.strip()
    if len(stripped) < 2 or not stripped.startswith('"') or not stripped.endswith('"'):
        return False
    # the closing quote must not be escaped
    backslashes = len(stripped[:-1]) - len(stripped[:-1].rstrip("\\"))
    return backslashes % 2 == 0 and '"' not in _unescaped_quotes(stripped[1:-1])


def _unescaped_quotes(raw: str) -> str:
    return re.sub(r"\\.", "", raw)


def _is_cdata(raw: str) -> bool:
    stripped = raw.strip()
    return (
        stripped.startswith("<![CDATA[")
        and stripped.endswith("]]>")
        and stripped.count("<![CDATA[") == 1
    )


class AndroidFormat:
    """Android string resources: ``<string>``, ``<plurals>`` and ``<string-array>``."""

    name = FORMAT

    def __init__(self, limits: Limits = DEFAULT_LIMITS) -> None:
        self.limits = limits

    def read(self, data: bytes, *, path: str = "", locale: str = "") -> Document:
        # aapt reads UTF-8 only: any other encoding, marked or not, is refused
        text, encoding, bom = decode_text(data, path=path, marked=frozenset(), limits=self.limits)
        scanner = _Scanner(text, path, self.limits)
        root = scanner.scan()
        if root.name != "resources":
            raise scanner.fail(f"the root element is <{root.name}>, not <resources>", root.start)
        document_locale = canonical_or_error(locale or "en", path)

        blocks: list[Block] = []
        values: list[AndroidValue] = []
        plurals: dict[str, tuple[int, int]] = {}
        comment_ends = {end: start for start, end in scanner.comments}

        def note_for(element: _Element) -> dict[str, str]:
            # The comment right above an element describes it (Android's convention).
            before = text[: element.start].rstrip()
            start = comment_ends.get(len(before))
            if start is None:
                return {}
            return {"note": text[start + 4 : len(before) - 3].strip()}

        def value(element: _Element, block_id: str, form: str, formatted: bool) -> AndroidValue:
            raw = text[element.content_start : element.end]
            try:
                runs, mixed = _decode(raw, formatted=formatted)
            except (IndexError, ValueError, KeyError) as err:
                raise scanner.fail(
                    f"cannot read the value of <{element.name}>: {err}", element.content_start
                ) from None
            return AndroidValue(
                block_id=block_id,
                start=element.content_start,
                end=element.end,
                runs=runs,
                form=form,
                element_start=element.start,
                element_end=element.element_end,
                self_closing=element.self_closing,
                tag=element.name,
                quoted=_is_quoted(raw),
                cdata=_is_cdata(raw),
                mixed_cdata=mixed,
            )

        def add(block: Block) -> None:
            blocks.append(block)
            if len(blocks) > self.limits.max_entries:
                raise FormatError(
                    f"more than {self.limits.max_entries} values", path=path, code="budget_exceeded"
                )

        for element in root.children:
            name = element.attrs.get("name", "")
            translatable = element.attrs.get("translatable", "true").lower() != "false"
            formatted = element.attrs.get("formatted", "true").lower() != "false"
            properties = note_for(element)
            properties.update(
                {
                    key: item
                    for key, item in element.attrs.items()
                    if key not in ("name", "translatable")
                }
            )
            if element.name == "string":
                block_id = f"tu{len(blocks) + 1}"
                found = value(element, block_id, "", formatted)
                values.append(found)
                role = "" if translatable else "config"
                if translatable and _is_reference(text[found.start : found.end]):
                    translatable, role = False, "reference"
                add(
                    Block(
                        id=block_id,
                        source=found.runs,
                        name=name,
                        translatable=translatable,
                        role=role,
                        locale=document_locale,
                        properties=properties,
                    )
                )
            elif element.name == "plurals":
                block_id = f"tu{len(blocks) + 1}"
                forms: dict[str, Runs] = {}
                for item in element.children:
                    quantity = item.attrs.get("quantity", "")
                    if item.name != "item" or not quantity:
                        continue
                    if quantity in forms:
                        raise scanner.fail(
                            f"<plurals name={name!r}> repeats quantity {quantity!r}", item.start
                        )
                    found = value(item, block_id, quantity, formatted)
                    values.append(found)
                    forms[quantity] = found.runs
                plurals[block_id] = (element.content_start, element.end)
                add(
                    Block(
                        id=block_id,
                        source=(Plural(pivot=PIVOT, forms=forms),),
                        name=name,
                        translatable=translatable,
                        role="" if translatable else "config",
                        locale=document_locale,
                        properties=properties,
                    )
                )
            elif element.name == "string-array":
                items = [item for item in element.children if item.name == "item"]
                for index, item in enumerate(items):
                    block_id = f"tu{len(blocks) + 1}"
                    found = value(item, block_id, "", formatted)
                    values.append(found)
                    item_translatable = translatable and not _is_reference(
                        text[found.start : found.end]
                    )
                    role = (
                        "" if item_translatable else ("config" if not translatable else "reference")
                    )
                    add(
                        Block(
                            id=block_id,
                            source=found.runs,
                            name=f"{name}[{index}]",
                            translatable=item_translatable,
                            role=role,
                            locale=document_locale,
                            properties=properties,
                        )
                    )

        spans = tuple(
            Span(v.block_id, v.start, v.end, v.runs, kind=v.form or "value") for v in values
        )
        skeleton = AndroidSkeleton(
            text=TextSkeleton(text=text, encoding=encoding, bom=bom, spans=spans),
            values=tuple(values),
            plurals=plurals,
        )
        return Document(
            format=FORMAT, blocks=tuple(blocks), locale=document_locale, skeleton=skeleton
        )

    # --- writing ------------------------------------------------------------------------

    def write(self, document: Document) -> bytes:
        skeleton = document.skeleton
        if not isinstance(skeleton, AndroidSkeleton):
            raise WriteRefused(
                "this document was not read from an Android resource file", capability="generative"
            )
        text = skeleton.text.text
        by_id = {block.id: block for block in document.blocks}
        grouped: dict[str, list[AndroidValue]] = {}
        for found in skeleton.values:
            grouped.setdefault(found.block_id, []).append(found)
        edits: list[tuple[int, int, str]] = []
        for block_id, found_values in grouped.items():
            block = by_id.get(block_id)
            if block is None:
                continue
            if block.targets:
                key = next(iter(block.targets))
                raise WriteRefused(
                    f"an Android resource file holds one language; {key!r} belongs in its own values-* file",
                    capability="edition",
                    block=block.id,
                )
            if block_id in skeleton.plurals:
                edits.extend(self._plural_edits(block, found_values, skeleton))
            elif block.source != found_values[0].runs:
                edits.append(_value_edit(found_values[0], block.source, block.id, text))
        return skeleton.text.splice(edits)

    def block_lines(self, document: Document) -> dict[str, tuple[int, int]] | None:
        skeleton = document.skeleton
        if not isinstance(skeleton, AndroidSkeleton):
            return None
        return skeleton.text.block_lines(document)

    def _plural_edits(
        self, block: Block, found_values: list[AndroidValue], skeleton: AndroidSkeleton
    ) -> list[tuple[int, int, str]]:
        old_forms = {found.form: found for found in found_values}
        if len(block.source) != 1 or not isinstance(block.source[0], Plural):
            raise WriteRefused(
                "a <plurals> resource needs one Plural run", capability="plural", block=block.id
            )
        forms = block.source[0].forms
        # a quantity the file already spells is kept as it is; a new one must be Android's
        unknown = [form for form in forms if form not in _CLDR_ORDER and form not in old_forms]
        if unknown:
            raise WriteRefused(
                f"Android quantities are {', '.join(_CLDR_ORDER)}, not {unknown[0]!r}",
                capability="plural",
                block=block.id,
            )
        text = skeleton.text.text
        edits: list[tuple[int, int, str]] = []
        for form, found in old_forms.items():
            if form not in forms:
                edits.append(_removal(text, found))
            elif forms[form] != found.runs:
                edits.append(_value_edit(found, forms[form], block.id, text))
        added = [form for form in _CLDR_ORDER if form in forms and form not in old_forms]
        if not added:
            return edits
        if not found_values:
            raise WriteRefused(
                "an empty <plurals> element has no item to model new ones on",
                capability="plural",
                block=block.id,
            )
        # New items go after the last one, on their own lines, indented like it.
        last = max(found_values, key=lambda found: found.element_end)
        line_start = text.rfind("\n", 0, last.element_start) + 1
        indent = text[line_start : last.element_start]
        newline = "\r\n" if text[max(0, line_start - 2) : line_start] == "\r\n" else "\n"
        prefix = newline + indent if not indent.strip() else ""
        insert = "".join(
            f'{prefix}<item quantity="{form}">'
            + encode_text(forms[form], cdata=last.cdata, block=block.id)
            + "</item>"
            for form in added
        )
        edits.append((last.element_end, last.element_end, insert))
        return edits


def _removal(text: str, found: AndroidValue) -> tuple[int, int, str]:
    """Remove an element, and its line when it stands alone on one."""
    line_start = text.rfind("\n", 0, found.element_start) + 1
    if line_start == 0 or text[line_start : found.element_start].strip():
        return found.element_start, found.element_end, ""
    newline = 2 if text[line_start - 2 : line_start] == "\r\n" else 1
    return line_start - newline, found.element_end, ""


def _value_edit(found: AndroidValue, runs: Runs, block: str, text: str) -> tuple[int, int, str]:
    if found.mixed_cdata:
        raise WriteRefused(
            "this value mixes CDATA with XML markup; edit the file by hand",
            capability="cdata-mixed",
            block=block,
        )
    body = encode_text(runs, quoted=found.quoted, cdata=found.cdata, block=block)
    if found.self_closing:
        # <string name="x"/> becomes <string name="x">value</string>
        return found.start - 2, found.start, f">{body}</{found.tag}>"
    raw = text[found.start : found.end]
    if found.quoted or found.cdata:
        # keep the layout around "..." or <![CDATA[...]]> (Android drops that whitespace)
        lead = raw[: len(raw) - len(raw.lstrip())]
        trail = raw[len(raw.rstrip()) :]
        body = lead + body + trail
    return found.start, found.end, body


_REFERENCE = re.compile(r"\s*[@?][\w.:+/-]+\s*")


def _is_reference(raw: str) -> bool:
    """A value that names another resource (``@string/app_name``, ``?attr/x``), not text."""
    return _REFERENCE.fullmatch(raw) is not None
