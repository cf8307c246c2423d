"""Portable patterns: Python ``re`` limited to what RE2 (the reference's engine) also accepts.

A profile's patterns are written once and read by both implementations, so a
pattern is refused here when RE2 would refuse it, even if Python could run it:
lookahead and lookbehind, backreferences (``\\1``, ``(?P=name)``), atomic groups
and possessive quantifiers, conditionals, ``(?#…)`` comments, the flags other
than ``i``, ``m``, ``s``, ``\\Z``, ``\\u``/``\\U``/``\\N{…}`` escapes, ``{,n}``
and counts above 1000, and nested POSIX-looking sets (``[[:alpha:]]``).
RE2 syntax Python lacks (``\\p{L}``, ``\\x{41}``, ``\\z``, ``(?U)``) is refused by
Python itself and reported the same way.

Known differences that remain: Python's ``\\w``, ``\\d``, ``\\s`` and ``\\b`` are
Unicode-aware, RE2's are ASCII-only; so a Unicode word matches ``\\w+`` here and
not in the reference. The module also builds a sample text a pattern matches,
for the canaries of the pattern analyzers.
"""

from __future__ import annotations

import re
from functools import lru_cache

from attrs import frozen

from kapi.core.errors import EXIT_USAGE, KapiError

__all__ = ["PatternError", "compile_portable", "sample_match"]

MAX_REPEAT = 1000
_ALLOWED_FLAGS = frozenset("ims")
_CLASS_ESCAPES = {"d": "0", "w": "a", "s": " ", "D": "a", "W": "!", "S": "a"}
_ZERO_WIDTH_ESCAPES = frozenset("AbB")
_CANDIDATES = (
    "aA0 !x-._bcdefghijklmnopqrstuvwyz123456789BCDEFGHIJKLMNOPQRSTUVWXYZ,;:?'\"()#@&%*+/=<>"
)


class PatternError(KapiError, ValueError):
    """A pattern that is not portable or does not compile; the message says which construct."""

    code = "invalid"
    exit_code = EXIT_USAGE


@frozen
class _Lit:
    text: str


@frozen
class _Class:
    source: str


@frozen
class _Empty:
    """A zero-width assertion (``^``, ``$``, ``\\b``, …): nothing to emit."""


@frozen
class _Group:
    alternatives: tuple[tuple[_Node, ...], ...]


@frozen
class _Repeat:
    node: _Node
    minimum: int


_Node = _Lit | _Class | _Empty | _Group | _Repeat


class _Parser:
    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.index = 0

    def fail(self, message: str) -> PatternError:
        return PatternError(f"{message} (at position {self.index} of {self.pattern!r})")

    def peek(self, ahead: int = 0) -> str:
        position = self.index + ahead
        return self.pattern[position] if position < len(self.pattern) else ""

    def parse(self) -> _Group:
        group = self.alternation()
        if self.index < len(self.pattern):
            raise self.fail("unbalanced ')'")
        return group

    def alternation(self) -> _Group:
        alternatives = [self.sequence()]
        while self.peek() == "|":
            self.index += 1
            alternatives.append(self.sequence())
        return _Group(tuple(alternatives))

    def sequence(self) -> tuple[_Node, ...]:
        nodes: list[_Node] = []
        while self.index < len(self.pattern) and self.peek() not in "|)":
            atom = self.atom()
            nodes.append(self.quantified(atom))
        return tuple(nodes)

    def quantified(self, atom: _Node) -> _Node:
        char = self.peek()
        minimum: int | None = None
        if char in ("*", "+", "?") and char:
            minimum = 1 if char == "+" else 0
            self.index += 1
        elif char == "{":
            match = re.compile(r"\{(\d*)(,?)(\d*)\}").match(self.pattern, self.index)
            if match is None:
                return atom  # a literal brace, as in both engines
            low, _comma, high = match.groups()
            if not low:
                raise self.fail("'{,n}' is not portable (RE2 reads it as text); write '{0,n}'")
            if int(low) > MAX_REPEAT or (high and int(high) > MAX_REPEAT):
                raise self.fail(f"a repeat count above {MAX_REPEAT} is refused by RE2")
            if high and int(high) < int(low):
                raise self.fail("a repeat whose maximum is below its minimum")
            minimum = int(low)
            self.index = match.end()
        if minimum is None:
            return atom
        if self.peek() == "+":
            raise self.fail("possessive quantifiers are not portable (RE2 refuses them)")
        if self.peek() == "?":
            self.index += 1
        return _Repeat(atom, minimum)

    def atom(self) -> _Node:
        char = self.peek()
        if char == "(":
            return self.group()
        if char == "[":
            return self.char_class()
        if char == "\\":
            return self.escape()
        if char in "^$":
            self.index += 1
            return _Empty()
        if char in "*+?":
            raise self.fail("nothing to repeat")
        self.index += 1
        if char == ".":
            return _Class(".")
        return _Lit(char)

    def group(self) -> _Node:
        start = self.index
        self.index += 1
        if self.peek() == "?":
            rest = self.pattern[self.index + 1 :]
            if rest.startswith(("=", "!", "<=", "<!")):
                raise self.fail("lookahead and lookbehind are not portable (RE2 refuses them)")
            if rest.startswith(">"):
                raise self.fail("atomic groups are not portable (RE2 refuses them)")
            if rest.startswith("("):
                raise self.fail("conditional groups are not portable (RE2 refuses them)")
            if rest.startswith("P="):
                raise self.fail("backreferences are not portable (RE2 refuses them)")
            if rest.startswith("#"):
                raise self.fail("(?#...) comments are not portable (RE2 refuses them)")
            if rest.startswith(("P<", "<")):
                close = self.pattern.find(">", self.index)
                if close < 0:
                    raise self.fail("unterminated group name")
                self.index = close + 1
            elif rest.startswith(":"):
                self.index += 2
            else:
                match = re.compile(r"\?([A-Za-z]*)(?:-([A-Za-z]*))?([:)])").match(
                    self.pattern, self.index
                )
                if match is None:
                    raise self.fail("unknown group construct")
                flags = (match.group(1) or "") + (match.group(2) or "")
                unknown = sorted(set(flags) - _ALLOWED_FLAGS)
                if unknown:
                    raise self.fail(
                        f"the flag(s) {''.join(unknown)!r} are not portable; use only i, m and s"
                    )
                self.index = match.end()
                if match.group(3) == ")":
                    return _Empty()
        group = self.alternation()
        if self.peek() != ")":
            self.index = start
            raise self.fail("missing ')'")
        self.index += 1
        return group

    def char_class(self) -> _Node:
        start = self.index
        self.index += 1
        if self.peek() == "^":
            self.index += 1
        if self.peek() == "]":
            self.index += 1
        while self.index < len(self.pattern) and self.peek() != "]":
            if self.peek() == "[" and self.peek(1) in ":=.":
                raise self.fail(
                    "POSIX classes inside a set ('[[:alpha:]]') read differently in Python;"
                    " write the range"
                )
            if self.peek() == "\\":
                self.class_escape()
            else:
                self.index += 1
        if self.peek() != "]":
            self.index = start
            raise self.fail("unterminated character set")
        self.index += 1
        return _Class(self.pattern[start : self.index])

    def class_escape(self) -> None:
        self.check_escape(self.peek(1))
        self.index += 2

    def check_escape(self, char: str) -> None:
        if not char:
            raise self.fail("a pattern may not end with a backslash")
        if char.isdigit():
            raise self.fail(
                "backreferences and octal escapes are not portable; write the character"
            )
        if char == "Z":
            raise self.fail("\\Z is not portable; use '$' (RE2 spells it \\z)")
        if char in "uUN":
            raise self.fail(f"\\{char} escapes are not portable; write the character itself")

    def escape(self) -> _Node:
        char = self.peek(1)
        self.check_escape(char)
        self.index += 2
        if char in _ZERO_WIDTH_ESCAPES:
            return _Empty()
        if char in _CLASS_ESCAPES:
            return _Lit(_CLASS_ESCAPES[char])
        if char == "x":
            digits = self.pattern[self.index : self.index + 2]
            self.index += 2
            try:
                return _Lit(chr(int(digits, 16)))
            except ValueError:
                return _Lit("")
        controls = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "a": "\a"}
        return _Lit(controls.get(char, char))


@lru_cache(maxsize=512)
def compile_portable(pattern: str, *, ignore_case: bool = False) -> re.Pattern[str]:
    """Compile ``pattern`` after refusing what RE2 would refuse; raises :class:`PatternError`."""
    if not isinstance(pattern, str) or not pattern:
        raise PatternError("a pattern must be a non-empty string")
    _Parser(pattern).parse()
    try:
        return re.compile(pattern, re.IGNORECASE if ignore_case else 0)
    except re.error as error:
        raise PatternError(f"{error.msg} (at position {error.pos} of {pattern!r})") from None


def sample_match(pattern: str) -> str | None:
    """A short text that ``pattern`` matches, or ``None`` when none is found by construction."""
    try:
        compiled = compile_portable(pattern)
        tree = _Parser(pattern).parse()
    except PatternError:
        return None
    for choice in range(4):
        text = _emit(tree, choice)
        if compiled.search(text):
            return text
    return None


def _emit(node: _Node, choice: int) -> str:
    if isinstance(node, _Lit):
        return node.text
    if isinstance(node, _Empty):
        return ""
    if isinstance(node, _Class):
        return _class_member(node.source, choice)
    if isinstance(node, _Repeat):
        return _emit(node.node, choice) * max(node.minimum, 1 if choice % 2 else node.minimum)
    for alternative in node.alternatives:
        return "".join(_emit(child, choice) for child in alternative)
    return ""


def _class_member(source: str, choice: int) -> str:
    compiled = re.compile(source)
    members = [candidate for candidate in _CANDIDATES if compiled.fullmatch(candidate)]
    if not members:
        return ""
    return members[min(choice, len(members) - 1)]
