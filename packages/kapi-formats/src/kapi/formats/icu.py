"""ICU MessageFormat text to runs and back, plus the placeholder dialect of plain catalogues.

:func:`parse` reads ICU MessageFormat: a simple argument (``{name}``,
``{n, number, ::percent}``) becomes a placeholder code whose ``data`` is the
exact source slice; ``{n, plural, ...}`` / ``{n, selectordinal, ...}`` become a
:class:`~kapi.core.model.Plural` and ``{g, select, ...}`` a
:class:`~kapi.core.model.Select`, each branch numbering its own codes; ``#`` in
a plural branch is a code. Apostrophes quote as ICU's default
(``DOUBLE_OPTIONAL``): ``''`` is one apostrophe, ``'`` starts quoted text only
before ``{``, ``}`` or, in a plural branch, ``#``; an unmatched ``}`` at the top
level is text. :func:`render` writes runs back as ICU, reusing the spelling of
each plural/select header and the spacing between its branches from the
:class:`StructureLayout` list the parse returned, so an edited branch changes
only that branch's text (``selectordinal`` and ``offset:`` survive this way;
a structure with no matching layout is written as ``{n, plural, ...}`` /
``{g, select, ...}``). Literal text is quoted as little as ICU needs.

:func:`parse_placeholders` / :func:`render_placeholders` are the dialect of
catalogues that are not ICU (i18next, vue-i18n, plain JSON): ``{{x}}`` and
``$t(key)`` (i18next) and ``{name}`` are codes, everything else is literal text
with no quoting at all.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from attrs import field, frozen

from kapi.core.errors import EXIT_REFUSED, EXIT_USAGE, KapiError
from kapi.core.model import PcClose, PcOpen, Ph, Plural, Run, Runs, Select, Sub, Text

__all__ = [
    "IcuMessage",
    "IcuRenderError",
    "IcuSyntaxError",
    "StructureLayout",
    "has_complex_argument",
    "parse",
    "parse_placeholders",
    "render",
    "render_placeholders",
]

PLACEHOLDER = "code:placeholder"
ARGUMENT = "icu:argument"
POUND = "icu:pound"
I18NEXT_INTERPOLATION = "i18next:interpolation"
I18NEXT_NESTING = "i18next:nesting"

# ICU argument names exclude Pattern_Syntax; real catalogues also use ``.``, ``-`` and ``$``.
_NAME = re.compile(r"[^\s!-#%-,/:-@\[-\^`{-~]+")
_KEYWORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_SELECTOR = re.compile(r"=[-+]?[0-9]+(?:\.[0-9]+)?|[^\s{}]+")
_OFFSET = re.compile(r"offset:\s*[0-9]+")
_WHITESPACE = re.compile(r"\s*")
_COMPLEX = re.compile(r"\{\s*[^\s{},]+\s*,\s*(?:plural|selectordinal|select)\s*,")
_STRUCTURES = ("plural", "selectordinal", "select")


class IcuSyntaxError(KapiError, ValueError):
    """Text that is not ICU MessageFormat; ``offset`` is where the parser stopped."""

    code = "invalid"
    exit_code = EXIT_USAGE

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(f"{message} (at character {offset + 1})")
        self.message = message
        self.offset = offset


class IcuRenderError(KapiError, ValueError):
    """Runs that ICU text cannot hold; ``capability`` names what is missing."""

    code = "unsupported"
    exit_code = EXIT_REFUSED

    def __init__(self, message: str, capability: str) -> None:
        super().__init__(message)
        self.message = message
        self.capability = capability


@frozen
class StructureLayout:
    """How one plural/select was spelled: header, spacing around each selector, tail.

    ``head`` runs from ``{`` to the first selector (``{n, plural, offset:1 ``);
    ``before`` maps a selector to the whitespace in front of it, ``after`` to
    the whitespace between it and its ``{``; ``tail`` is the whitespace before
    the closing ``}``.
    """

    kind: str
    pivot: str
    head: str
    before: Mapping[str, str] = field(factory=dict)
    after: Mapping[str, str] = field(factory=dict)
    tail: str = ""


@frozen
class IcuMessage:
    """A parsed message: its runs and the layout of its structures in document order."""

    runs: Runs
    layouts: tuple[StructureLayout, ...] = ()


def has_complex_argument(text: str) -> bool:
    """Whether ``text`` looks like it holds an ICU plural, selectordinal or select."""
    return _COMPLEX.search(text) is not None


def parse(text: str, *, max_depth: int = 50) -> IcuMessage:
    """Parse ICU MessageFormat ``text``; raises :class:`IcuSyntaxError`."""
    parser = _Parser(text, max_depth)
    runs = parser.message(depth=0, plural=False, nested=False)
    return IcuMessage(runs=runs, layouts=tuple(parser.layouts))


class _Parser:
    def __init__(self, text: str, max_depth: int) -> None:
        self.text = text
        self.pos = 0
        self.max_depth = max_depth
        self.layouts: list[StructureLayout] = []

    def fail(self, message: str, offset: int | None = None) -> IcuSyntaxError:
        return IcuSyntaxError(message, self.pos if offset is None else offset)

    def skip_whitespace(self) -> str:
        match = _WHITESPACE.match(self.text, self.pos)
        assert match is not None
        self.pos = match.end()
        return match.group()

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def message(self, depth: int, plural: bool, nested: bool) -> Runs:
        text = self.text
        length = len(text)
        runs: list[Run] = []
        buffer: list[str] = []
        counter = 0

        def flush() -> None:
            if buffer:
                runs.append(Text("".join(buffer)))
                buffer.clear()

        while self.pos < length:
            char = text[self.pos]
            if char == "'":
                following = text[self.pos + 1] if self.pos + 1 < length else ""
                if following == "'":
                    buffer.append("'")
                    self.pos += 2
                elif following in ("{", "}") or (following == "#" and plural):
                    self.quoted(buffer, nested)
                else:
                    buffer.append("'")
                    self.pos += 1
            elif char == "{":
                flush()
                run = self.argument(depth, str(counter + 1))
                if isinstance(run, Ph):
                    counter += 1
                runs.append(run)
            elif char == "}":
                if nested:
                    break
                buffer.append("}")
                self.pos += 1
            elif char == "#" and plural:
                flush()
                counter += 1
                runs.append(Ph(str(counter), PLACEHOLDER, POUND, "#", "#"))
                self.pos += 1
            else:
                buffer.append(char)
                self.pos += 1
        flush()
        return tuple(runs)

    def quoted(self, buffer: list[str], nested: bool) -> None:
        start = self.pos
        self.pos += 1
        text = self.text
        while True:
            if self.pos >= len(text):
                if nested:
                    raise self.fail("quoted text is not closed", start)
                return  # ICU: an open quote at the top level runs to the end
            char = text[self.pos]
            if char == "'":
                if self.pos + 1 < len(text) and text[self.pos + 1] == "'":
                    buffer.append("'")
                    self.pos += 2
                    continue
                self.pos += 1
                return
            buffer.append(char)
            self.pos += 1

    def argument(self, depth: int, code_id: str) -> Run:
        start = self.pos
        self.pos += 1
        self.skip_whitespace()
        name = _NAME.match(self.text, self.pos)
        if name is None:
            raise self.fail("expected an argument name after '{'")
        self.pos = name.end()
        self.skip_whitespace()
        char = self.peek()
        if char == "}":
            self.pos += 1
            return self.placeholder(code_id, start)
        if char != ",":
            raise self.fail("expected ',' or '}' in an argument")
        self.pos += 1
        self.skip_whitespace()
        keyword = _KEYWORD.match(self.text, self.pos)
        if keyword is None:
            raise self.fail("expected an argument type after ','")
        self.pos = keyword.end()
        self.skip_whitespace()
        if keyword.group() in _STRUCTURES:
            if self.peek() != ",":
                raise self.fail(f"expected ',' after {keyword.group()!r}")
            self.pos += 1
            return self.structure(start, name.group(), keyword.group(), depth)
        char = self.peek()
        if char == ",":
            self.pos += 1
            self.style()
        elif char != "}":
            raise self.fail("expected ',' or '}' after the argument type")
        self.pos += 1
        return self.placeholder(code_id, start)

    def placeholder(self, code_id: str, start: int) -> Ph:
        data = self.text[start : self.pos]
        return Ph(code_id, PLACEHOLDER, ARGUMENT, data, data)

    def style(self) -> None:
        """Skip an argument style up to (not past) its closing brace: nested braces, quotes."""
        text = self.text
        level = 0
        while self.pos < len(text):
            char = text[self.pos]
            if char == "'":
                closing = text.find("'", self.pos + 1)
                if closing < 0:
                    break
                self.pos = closing + 1
                continue
            if char == "{":
                level += 1
            elif char == "}":
                if level == 0:
                    return
                level -= 1
            self.pos += 1
        raise self.fail("the argument is not closed")

    def structure(self, start: int, pivot: str, kind: str, depth: int) -> Run:
        if depth >= self.max_depth:
            raise self.fail(f"plurals and selects nest deeper than {self.max_depth}")
        self.skip_whitespace()
        if kind != "select":
            offset = _OFFSET.match(self.text, self.pos)
            if offset is not None:
                self.pos = offset.end()
                self.skip_whitespace()
        head = self.text[start : self.pos]
        slot = len(self.layouts)
        self.layouts.append(StructureLayout(kind, pivot, head))
        branches: dict[str, Runs] = {}
        before: dict[str, str] = {}
        after: dict[str, str] = {}
        plural = kind != "select"
        gap = ""
        while True:
            if self.pos >= len(self.text):
                raise self.fail(f"the {kind} is not closed", start)
            if self.peek() == "}":
                self.pos += 1
                break
            selector = _SELECTOR.match(self.text, self.pos)
            if selector is None:
                raise self.fail(f"expected a {kind} selector")
            self.pos = selector.end()
            key = selector.group()
            mid = self.skip_whitespace()
            if self.peek() != "{":
                raise self.fail(f"expected '{{' after the selector {key!r}")
            self.pos += 1
            runs = self.message(depth + 1, plural, nested=True)
            if self.peek() != "}":
                raise self.fail(f"the {key!r} branch is not closed")
            self.pos += 1
            if key in branches:
                raise self.fail(f"the selector {key!r} appears twice")
            branches[key] = runs
            before[key] = gap
            after[key] = mid
            gap = self.skip_whitespace()
        if not branches:
            raise self.fail(f"the {kind} has no branches", start)
        self.layouts[slot] = StructureLayout(kind, pivot, head, before, after, gap)
        if plural:
            return Plural(pivot=pivot, forms=branches)
        return Select(pivot=pivot, cases=branches)


def render(runs: Runs, *, layouts: Sequence[StructureLayout] = ()) -> str:
    """ICU text for ``runs``; raises :class:`IcuRenderError` for what ICU cannot hold."""
    return _Renderer(layouts).message(runs, plural=False, nested=False)


class _Renderer:
    def __init__(self, layouts: Sequence[StructureLayout]) -> None:
        self.layouts = layouts
        self.index = 0

    def message(self, runs: Runs, plural: bool, nested: bool) -> str:
        # Pieces are ("text", literal) or ("raw", syntax); literals are quoted with
        # the neighbouring characters in view, so an apostrophe never opens a quote.
        pieces: list[tuple[str, str]] = []
        for run in runs:
            if isinstance(run, Text):
                if run.text:
                    pieces.append(("text", run.text))
            elif isinstance(run, Plural | Select):
                pieces.append(("raw", self.structure(run)))
            elif isinstance(run, Sub):
                raise IcuRenderError("ICU text cannot hold a sub-document reference", "sub")
            else:
                pieces.append(("raw", _code_data(run)))
        out: list[str] = []
        for index, (kind, value) in enumerate(pieces):
            if kind == "raw":
                out.append(value)
                continue
            following = pieces[index + 1][1][:1] if index + 1 < len(pieces) else ""
            if not following and nested:
                following = "}"
            preceding = out[-1][-1:] if out else ""
            out.append(_quote(value, plural, following, preceding))
        return "".join(out)

    def structure(self, run: Plural | Select) -> str:
        slot = self.index
        self.index += 1
        plural = isinstance(run, Plural)
        branches = run.forms if isinstance(run, Plural) else run.cases
        layout = self.layouts[slot] if slot < len(self.layouts) else None
        if layout is not None and (
            layout.pivot != run.pivot or (layout.kind == "select") == plural
        ):
            layout = None
        if not _NAME.fullmatch(run.pivot):
            raise IcuRenderError(f"{run.pivot!r} is not an ICU argument name", "plural")
        if not branches:
            raise IcuRenderError(f"the plural/select on {run.pivot!r} has no branches", "plural")
        if layout is None:
            head = f"{{{run.pivot}, {'plural' if plural else 'select'}, "
            before: Mapping[str, str] = {}
            after: Mapping[str, str] = {}
            tail = ""
        else:
            head, before, after, tail = layout.head, layout.before, layout.after, layout.tail
        default_before = next(iter(list(before.values())[1:]), " ")
        default_after = next(iter(after.values()), " ")
        parts = [head]
        for position, (selector, branch) in enumerate(branches.items()):
            if not _SELECTOR.fullmatch(selector) or selector.startswith("{"):
                raise IcuRenderError(f"{selector!r} is not an ICU selector", "plural")
            if position:
                parts.append(before.get(selector, default_before))
            parts.append(selector)
            parts.append(after.get(selector, default_after))
            parts.append("{")
            parts.append(self.message(branch, plural, nested=True))
            parts.append("}")
        parts.append(tail)
        parts.append("}")
        return "".join(parts)


def _quote(text: str, plural: bool, following: str, preceding: str) -> str:
    """Literal text as ICU: one quoted stretch from the first to the last syntax character."""
    specials = "{}#" if plural else "{}"
    positions = [index for index, char in enumerate(text) if char in specials]
    if not positions:
        return _apostrophes(text, specials, following, preceding)
    first, last = positions[0], positions[-1] + 1
    middle = text[first:last].replace("'", "''")
    return (
        _apostrophes(text[:first], specials, "'", preceding)
        + "'"
        + middle
        + "'"
        + _apostrophes(text[last:], specials, following, "'")
    )


def _apostrophes(text: str, specials: str, following: str, preceding: str) -> str:
    if "'" not in text:
        return text
    out: list[str] = []
    for index, char in enumerate(text):
        if char != "'":
            out.append(char)
            continue
        after = text[index + 1] if index + 1 < len(text) else following
        before = out[-1][-1:] if out else preceding
        # A lone apostrophe is literal unless it could open a quote or close one.
        if after == "'" or (after and after in specials) or before == "'":
            out.append("''")
        else:
            out.append("'")
    return "".join(out)


def _code_data(run: Ph | PcOpen | PcClose) -> str:
    if run.data:
        return run.data
    if isinstance(run, Ph) and run.type.startswith("code:") and run.equiv:
        return run.equiv
    raise IcuRenderError(
        f"a new {run.type or 'code'} has no native text to write",
        f"synthesize:{run.type}",
    )


# --- the placeholder dialect of non-ICU catalogues ---------------------------------------

_PLACEHOLDER = re.compile(
    r"\{\{[^{}]*\}\}"  # i18next interpolation: {{name}}, {{- html}}, {{n, number}}
    r"|\$t\("  # i18next nesting: $t(key), $t(key, {"count": 2}); closed by hand
    r"|\{\s*[\w$.-]+\s*(?:,\s*\w+\s*(?:,[^{}]*)?)?\}"  # {name}, {0}, {n, number}
)


def parse_placeholders(text: str) -> Runs:
    """Runs of a non-ICU value: ``{{x}}``, ``$t(key)`` and ``{name}`` as codes, the rest text."""
    runs: list[Run] = []
    cursor = 0
    counter = 0
    search_from = 0
    while True:
        match = _PLACEHOLDER.search(text, search_from)
        if match is None:
            break
        start = match.start()
        if match.group() == "$t(":
            end = _closing_parenthesis(text, match.end())
            if end < 0:
                search_from = match.end()
                continue
            sub_type = I18NEXT_NESTING
        else:
            end = match.end()
            sub_type = I18NEXT_INTERPOLATION if match.group().startswith("{{") else ARGUMENT
        if start > cursor:
            runs.append(Text(text[cursor:start]))
        counter += 1
        data = text[start:end]
        runs.append(Ph(str(counter), PLACEHOLDER, sub_type, data, data))
        cursor = search_from = end
    if cursor < len(text):
        runs.append(Text(text[cursor:]))
    return tuple(runs)


def _closing_parenthesis(text: str, index: int) -> int:
    level = 1
    quote = ""
    while index < len(text):
        char = text[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "(":
            level += 1
        elif char == ")":
            level -= 1
            if level == 0:
                return index + 1
        index += 1
    return -1


def render_placeholders(runs: Runs) -> str:
    """Text of a non-ICU value: text verbatim, codes by their data."""
    out: list[str] = []
    for run in runs:
        if isinstance(run, Text):
            out.append(run.text)
        elif isinstance(run, Plural | Select):
            raise IcuRenderError("a plain value cannot hold a plural or select", "plural")
        elif isinstance(run, Sub):
            raise IcuRenderError("a plain value cannot hold a sub-document reference", "sub")
        else:
            out.append(_code_data(run))
    return "".join(out)
