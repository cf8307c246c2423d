"""A JSON scanner that knows where every token sits, and JSON string escaping in a file's style.

The standard library's ``json`` has no positions; kapi's JSON writer splices
edited values into the original text, so it needs the span of every string
and container. A fast regex-stepping scanner builds the tree; whatever it
declines (an error, a limit) goes to the exact scanner, whose error messages
name the line and column.
"""

from __future__ import annotations

import json
import re
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any, TypeAlias

from attrs import frozen

from kapi.core.format import FormatError, Limits
from kapi.formats.skeleton import line_column

__all__ = [
    "EscapeStyle",
    "JsonArray",
    "JsonContainer",
    "JsonMember",
    "JsonNode",
    "JsonObject",
    "JsonScalar",
    "JsonString",
    "ScanStats",
    "entries",
    "escape_json",
    "scan",
]


# --- the scanner -------------------------------------------------------------------------


class JsonString:
    """A string token: ``start`` at the opening quote, ``end`` past the closing one."""

    __slots__ = ("end", "start", "value")

    def __init__(self, start: int, end: int, value: str) -> None:
        self.start = start
        self.end = end
        self.value = value


class JsonScalar:
    """A number, ``true``, ``false`` or ``null``."""

    __slots__ = ("end", "start")

    def __init__(self, start: int, end: int) -> None:
        self.start = start
        self.end = end


class JsonMember:
    """``"key": value`` inside an object."""

    __slots__ = ("key", "value")

    def __init__(self, key: JsonString, value: JsonNode) -> None:
        self.key = key
        self.value = value

    @property
    def start(self) -> int:
        return self.key.start

    @property
    def end(self) -> int:
        return self.value.end


class JsonArray:
    """``[...]``; ``end`` is past the closing bracket."""

    __slots__ = ("end", "items", "start")

    def __init__(self, start: int) -> None:
        self.start = start
        self.end = start
        self.items: list[JsonNode] = []


class JsonObject:
    """``{...}``; ``end`` is past the closing brace."""

    __slots__ = ("end", "members", "start")

    def __init__(self, start: int) -> None:
        self.start = start
        self.end = start
        self.members: list[JsonMember] = []


JsonNode: TypeAlias = JsonString | JsonScalar | JsonArray | JsonObject
JsonContainer: TypeAlias = JsonArray | JsonObject
Item: TypeAlias = JsonNode | JsonMember


def entries(container: JsonContainer) -> list[Item]:
    if isinstance(container, JsonObject):
        return list(container.members)
    return list(container.items)


# Possessive quantifiers: a string that never closes must fail in linear time.
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]++|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*+"')
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)")


class ScanStats:
    """How the file's strings are escaped, for writing new text the same way."""

    def __init__(self) -> None:
        self.raw_non_ascii = False
        self.escaped_non_ascii = 0
        self.upper_hex = 0
        self.lower_hex = 0
        self.escaped_html = 0
        self.raw_html = False
        self.escaped_slash = 0
        self.raw_slash = False

    def observe(self, raw: str) -> None:
        if not raw.isascii():
            self.raw_non_ascii = True
        if "<" in raw or ">" in raw or "&" in raw:
            self.raw_html = True
        if "\\" not in raw:
            if "/" in raw:
                self.raw_slash = True
            return
        slashes = 0
        for match in _ESCAPE.finditer(raw):
            escape = match.group(1)
            if escape == "/":
                slashes += 1
            elif escape[0] == "u":
                code = int(escape[1:], 16)
                if code >= 0x80:
                    self.escaped_non_ascii += 1
                elif code in (0x3C, 0x3E, 0x26):
                    self.escaped_html += 1
                digits = escape[1:]
                if any(c in "ABCDEF" for c in digits):
                    self.upper_hex += 1
                elif any(c in "abcdef" for c in digits):
                    self.lower_hex += 1
        self.escaped_slash += slashes
        if raw.count("/") > slashes:
            self.raw_slash = True


class _Scanner:
    def __init__(self, text: str, path: str, limits: Limits) -> None:
        self.text = text
        self.path = path
        self.limits = limits
        self.pos = 0
        self.entries = 0
        self.stats = ScanStats()

    def fail(self, message: str, at: int | None = None, code: str = "invalid") -> FormatError:
        index = self.pos if at is None else at
        line, column = line_column(self.text, index)
        return FormatError(
            message, path=self.path, line=line, column=column, offset=index, code=code
        )

    def skip(self) -> None:
        match = _WHITESPACE.match(self.text, self.pos)
        assert match is not None
        self.pos = match.end()

    def document(self) -> JsonNode:
        self.skip()
        if self.pos >= len(self.text):
            raise self.fail("the file holds no JSON value")
        value = self.value(1)
        self.skip()
        if self.pos < len(self.text):
            raise self.fail(f"unexpected {self.text[self.pos]!r} after the JSON value")
        return value

    def count(self) -> None:
        self.entries += 1
        if self.entries > self.limits.max_entries:
            raise self.fail(f"more than {self.limits.max_entries} entries", code="budget_exceeded")

    def value(self, depth: int) -> JsonNode:
        char = self.text[self.pos] if self.pos < len(self.text) else ""
        if char == '"':
            return self.string()
        if char == "{":
            return self.object(depth)
        if char == "[":
            return self.array(depth)
        start = self.pos
        for literal in ("true", "false", "null"):
            if self.text.startswith(literal, start):
                self.pos += len(literal)
                return JsonScalar(start, self.pos)
        number = _NUMBER.match(self.text, start)
        if number is not None:
            self.pos = number.end()
            return JsonScalar(start, self.pos)
        if not char:
            raise self.fail("the file ends where a value should be")
        raise self.fail(f"unexpected {char!r} where a value should be")

    def enter(self, depth: int) -> None:
        if depth > self.limits.max_depth:
            raise self.fail(
                f"objects and arrays nest deeper than {self.limits.max_depth}",
                code="budget_exceeded",
            )

    def object(self, depth: int) -> JsonObject:
        self.enter(depth)
        node = JsonObject(self.pos)
        self.pos += 1
        self.skip()
        if self.peek() == "}":
            self.pos += 1
            node.end = self.pos
            return node
        while True:
            if self.peek() != '"':
                if self.peek() == "}" and node.members:
                    raise self.fail("trailing comma before '}'")
                raise self.expected("a member name in double quotes")
            key = self.string()
            self.skip()
            if self.peek() != ":":
                raise self.expected("':' after the member name")
            self.pos += 1
            self.skip()
            self.count()
            node.members.append(JsonMember(key, self.value(depth + 1)))
            self.skip()
            char = self.peek()
            if char == ",":
                self.pos += 1
                self.skip()
                continue
            if char == "}":
                self.pos += 1
                node.end = self.pos
                return node
            raise self.expected("',' or '}'")

    def array(self, depth: int) -> JsonArray:
        self.enter(depth)
        node = JsonArray(self.pos)
        self.pos += 1
        self.skip()
        if self.peek() == "]":
            self.pos += 1
            node.end = self.pos
            return node
        while True:
            if self.peek() == "]" and node.items:
                raise self.fail("trailing comma before ']'")
            self.count()
            node.items.append(self.value(depth + 1))
            self.skip()
            char = self.peek()
            if char == ",":
                self.pos += 1
                self.skip()
                continue
            if char == "]":
                self.pos += 1
                node.end = self.pos
                return node
            raise self.expected("',' or ']'")

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expected(self, what: str) -> FormatError:
        char = self.peek()
        found = repr(char) if char else "the end of the file"
        return self.fail(f"expected {what}, found {found}")

    def string(self) -> JsonString:
        start = self.pos
        match = _STRING.match(self.text, start)
        if match is None:
            raise self.string_error(start)
        self.pos = match.end()
        raw = self.text[start + 1 : self.pos - 1]
        self.stats.observe(raw)
        if "\\" in raw:
            value = json.loads(match.group())
        else:
            value = raw
        return JsonString(start, self.pos, value)

    def string_error(self, start: int) -> FormatError:
        text = self.text
        index = start + 1
        while index < len(text):
            char = text[index]
            if char == '"':
                break
            if char == "\\":
                escape = text[index + 1 : index + 2]
                if escape == "u":
                    if not re.fullmatch(r"[0-9a-fA-F]{4}", text[index + 2 : index + 6]):
                        return self.fail("\\u must be followed by four hex digits", index)
                    index += 6
                    continue
                if escape not in ('"', "\\", "/", "b", "f", "n", "r", "t"):
                    return self.fail(f"invalid escape \\{escape} in a string", index)
                index += 2
                continue
            if ord(char) < 0x20:
                return self.fail(f"control character U+{ord(char):04X} in a string", index)
            index += 1
        return self.fail("unterminated string", start)


# The fast path: one regex splits the text into steps, each a separator (whitespace
# with at most one comma) and then either a member name with its colon (and its value
# when that is a string: the common catalogue entry, read in one step) or one token.
# A loop builds the same tree without recursion. It accepts only valid JSON within
# the limits; on anything else the scanner above re-reads the text to name the error.
_STRING_TOKEN = r'"(?:[^"\\\x00-\x1f]++|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*+"'
_STEPS = re.compile(
    r"([ \t\n\r]*+,?[ \t\n\r]*+)"
    rf"(?:({_STRING_TOKEN})([ \t\n\r]*+:[ \t\n\r]*+)({_STRING_TOKEN})?"
    rf"|({_STRING_TOKEN}"
    r"|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?"
    r"|true|false|null|[^ \t\n\r]))"
)
_SCALAR_START = frozenset("-0123456789tfn")
# What the loop expects next.
_VALUE, _ITEM_OR_CLOSE, _KEY_OR_CLOSE, _AFTER, _END = range(5)


class _Fallback(Exception):
    """The fast path met something it does not accept; the scanner will say what."""


def _fast_tree(text: str, limits: Limits) -> JsonNode:
    max_depth = limits.max_depth
    max_entries = limits.max_entries
    entries = 0
    pos = 0
    root: JsonNode | None = None
    stack: list[JsonContainer] = []
    top: Any = None  # the open container
    in_object = False
    key: JsonString | None = None
    state = _VALUE
    for lead, name, colon, string, token in _STEPS.findall(text):
        comma = "," in lead
        start = pos + len(lead)
        if name:
            # A member name comes after "{", or after a value and a comma, in an object.
            expected = not comma if state == _KEY_OR_CLOSE else state == _AFTER and comma
            if not in_object or not expected:
                raise _Fallback
            pos = start + len(name)
            key = JsonString(
                start, pos, name[1:-1] if "\\" not in name else scanstring(text, start + 1)[0]
            )
            pos += len(colon)
            if string:
                start = pos
                pos += len(string)
                value = string[1:-1] if "\\" not in string else scanstring(text, start + 1)[0]
                entries += 1
                if entries > max_entries:
                    raise _Fallback
                top.members.append(JsonMember(key, JsonString(start, pos, value)))
                state = _AFTER
            else:
                state = _VALUE
            continue
        pos = start + len(token)
        first = token[0]
        if state == _AFTER:
            if comma:
                if in_object:
                    raise _Fallback
                state = _VALUE  # the next array item
            elif first != ("}" if in_object else "]"):
                raise _Fallback
        elif comma or state == _END or (state == _KEY_OR_CLOSE and first != "}"):
            raise _Fallback
        if state == _VALUE or (state == _ITEM_OR_CLOSE and first != "]"):
            node: JsonNode
            if first == '"':
                if len(token) == 1:
                    raise _Fallback
                value = token[1:-1] if "\\" not in token else scanstring(text, start + 1)[0]
                node = JsonString(start, pos, value)
            elif first == "{":
                node = JsonObject(start)
            elif first == "[":
                node = JsonArray(start)
            elif first in _SCALAR_START and (len(token) > 1 or first.isdigit()):
                node = JsonScalar(start, pos)
            else:
                raise _Fallback
            if top is None:
                root = node
            else:
                entries += 1
                if entries > max_entries:
                    raise _Fallback
                if in_object:
                    top.members.append(JsonMember(key, node))  # type: ignore[arg-type]
                else:
                    top.items.append(node)
            if first == "{" or first == "[":
                stack.append(node)  # type: ignore[arg-type]
                if len(stack) > max_depth:
                    raise _Fallback
                top = node
                in_object = first == "{"
                state = _KEY_OR_CLOSE if in_object else _ITEM_OR_CLOSE
            else:
                state = _END if top is None else _AFTER
            continue
        # The open container closes.
        top.end = pos
        stack.pop()
        if stack:
            top = stack[-1]
            in_object = isinstance(top, JsonObject)
            state = _AFTER
        else:
            top = None
            state = _END
    if state != _END or root is None:
        raise _Fallback
    return root


def scan(text: str, path: str, limits: Limits) -> tuple[JsonNode, ScanStats]:
    """The tree of a JSON text and how its strings are escaped; FormatError if it is not JSON."""
    try:
        root = _fast_tree(text, limits)
    except _Fallback:
        scanner = _Scanner(text, path, limits)
        return scanner.document(), scanner.stats
    # Outside strings valid JSON has only ASCII punctuation, literals and numbers, so
    # the whole text shows the same escapes and raw characters as its strings together.
    stats = ScanStats()
    stats.observe(text)
    return root, stats


# --- escaping ----------------------------------------------------------------------------


@frozen
class EscapeStyle:
    """How the file writes characters inside strings."""

    ascii: bool = False
    upper_hex: bool = False
    html: bool = False
    slash: bool = False


_SHORT_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "/": "\\/",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\b": "\\b",
    "\f": "\\f",
}


def _escape_pattern(style: EscapeStyle, slash: bool) -> re.Pattern[str]:
    parts = ['"\\\\\\x00-\\x1f\\ud800-\\udfff']
    if slash:
        parts.append("/")
    if style.html:
        parts.append("<>&")
    if style.ascii:
        parts.append("\\x80-\\U0010ffff")
    return re.compile("[" + "".join(parts) + "]")


def escape_json(text: str, style: EscapeStyle, slash: bool) -> str:
    """``text`` as the inside of a JSON string literal in the file's style."""
    pattern = _escape_pattern(style, slash)
    hex_format = "\\u{:04X}" if style.upper_hex else "\\u{:04x}"

    def replace(match: re.Match[str]) -> str:
        char = match.group()
        short = _SHORT_ESCAPES.get(char)
        if short is not None:
            return short
        code = ord(char)
        if code > 0xFFFF:
            code -= 0x10000
            return hex_format.format(0xD800 + (code >> 10)) + hex_format.format(
                0xDC00 + (code & 0x3FF)
            )
        return hex_format.format(code)

    return pattern.sub(replace, text)
