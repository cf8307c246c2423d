"""The text an analyzer reads from a block's runs, with what must never be checked masked out.

A :class:`TextView` is one run sequence (the block's top level, or one branch
of a plural or select) flattened to a string in which every inline code is a
single mask character (a code is both a token and a boundary) and, in the
prose view, inline code spans, placeholders and URLs are masked too. Offsets
map back to run-anchored positions, so a finding points at runs, not at a
rendering.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator

from attrs import frozen

from kapi.core.model import PcClose, PcOpen, Ph, Plural, Run, Runs, Select, Sub, Text

__all__ = [
    "MASK",
    "PLACEHOLDER_PATTERN",
    "Anchor",
    "PathStep",
    "Position",
    "TextView",
    "block_views",
    "mask_spans",
]

MASK = "\ufffc"
CODE_TYPES = frozenset({"fmt:code"})

# Placeholders the checks know (spec §4.2): {x}, {{x}}, ${x}, %s, %1$s, %@, %(n)s, <0>…</0>.
PLACEHOLDER_PATTERN = re.compile(
    r"\{\{[^{}\n]+\}\}"
    r"|\$\{[^{}\n]+\}"
    r"|\{[A-Za-z0-9_.$-]+(?:,[^{}\n]*)?\}"
    r"|%(?:\d+\$)?[-+0#]*\d*(?:\.\d+)?(?:[sdifuxXeEgGcpo@]|ll[du]|l[du])"
    r"|%\([A-Za-z0-9_]+\)[-+0#]*\d*(?:\.\d+)?[sdifuxXeEgGr]"
    r"|</?[0-9]+/?>"
)
URL_PATTERN = re.compile(
    r"(?:\b(?:https?|ftp)://|\bwww\.|\bmailto:)[^\s<>\"'`]+"
    r"|\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
)
_URL_TRAIL = ".,;:!?)]}'\""
_SPACES = re.compile(r"\s+")

PathStep = int | tuple[str, str]


@frozen
class Position:
    """A run position: run index and code-point offset inside that run."""

    run: int
    offset: int


@frozen
class Anchor:
    """A half-open run-anchored range; ``path`` leads into plural/select branches.

    A path step is a run index or ``("plural", form)``/``("select", case)``;
    the path alternates the two, as the change contract's path does.
    """

    start: Position
    end: Position
    path: tuple[PathStep, ...] = ()


class TextView:
    """One run sequence as text: ``raw`` (codes masked), ``prose`` (code, placeholders, URLs masked
    too) and ``code`` (only inline code text visible)."""

    def __init__(self, runs: Runs, path: tuple[PathStep, ...] = ()) -> None:
        self.path = path
        self.run_count = len(runs)
        raw: list[str] = []
        prose: list[str] = []
        # one entry per run: (view offset, run index, length as text or -1 for a code)
        self._starts: list[int] = []
        self._spans: list[tuple[int, int]] = []
        self._code_spans: list[tuple[int, int]] = []
        # by view offset, placeholders that stand for text (inline code, an entity)
        self._shown: dict[int, str] = {}
        open_code: set[str] = set()
        offset = 0
        for index, run in enumerate(runs):
            self._starts.append(offset)
            if isinstance(run, Text):
                raw.append(run.text)
                if run.no_translate or open_code:
                    prose.append(MASK * len(run.text))
                    self._code_spans.append((offset, offset + len(run.text)))
                else:
                    prose.append(run.text)
                self._spans.append((index, len(run.text)))
                offset += len(run.text)
                continue
            if isinstance(run, Ph) and run.equiv:
                self._shown[offset] = run.equiv
            if isinstance(run, PcOpen) and run.type in CODE_TYPES:
                open_code.add(run.id)
            elif isinstance(run, PcClose):
                open_code.discard(run.id)
            raw.append(MASK)
            prose.append(MASK)
            self._spans.append((index, -1))
            offset += 1
        self.raw = "".join(raw)
        text = "".join(prose)
        spans = mask_spans(text)
        if spans:
            chars = list(text)
            for start, end in spans:
                chars[start:end] = MASK * (end - start)
            text = "".join(chars)
        self.prose = text
        self._code: str | None = None

    @property
    def code(self) -> str:
        """Only the text inside inline code spans; everything else masked (newlines kept)."""
        if self._code is None:
            chars = [MASK if char != "\n" else "\n" for char in self.raw]
            for start, end in self._code_spans:
                chars[start:end] = self.raw[start:end]
            self._code = "".join(chars)
        return self._code

    def _locate(self, offset: int) -> tuple[int, int, int]:
        """The run entry holding view ``offset``: (entry, run index, offset inside the run)."""
        entry = bisect_right(self._starts, offset) - 1
        run, _length = self._spans[entry]
        return entry, run, offset - self._starts[entry]

    def position(self, offset: int, *, end: bool = False) -> Position:
        """The run position of a view offset; an end at a text run's end is ``{run: next, offset: 0}``."""
        if not self._spans or (not end and offset >= len(self.raw)):
            return Position(self.run_count if self._spans else 0, 0)
        if not end:
            _entry, run, inner = self._locate(offset)
            return Position(run, inner)
        if offset <= 0:
            return Position(self._spans[0][0], 0)
        entry, run, inner = self._locate(offset - 1)
        length = self._spans[entry][1]
        inner += 1
        if length >= 0 and inner < length:
            return Position(run, inner)
        if run + 1 < self.run_count:
            return Position(run + 1, 0)
        return Position(run, inner if length >= 0 else 0)

    def anchor(self, start: int, end: int) -> Anchor:
        return Anchor(self.position(start), self.position(end, end=True), self.path)

    def snippet(self, start: int, end: int, context: int = 30) -> str:
        """The matched text with a little context, whitespace collapsed; a placeholder that
        stands for text (inline code, an entity) shows it, other codes are left out."""
        left = max(0, start - context)
        right = min(len(self.raw), end + context)
        text = self.raw[left:right]
        if self._shown:
            shown = self._shown
            text = "".join(
                shown.get(left + index, "") if char == MASK else char
                for index, char in enumerate(text)
            )
        text = text.replace(MASK, "")
        text = _SPACES.sub(" ", text).strip()
        return ("…" if left > 0 else "") + text + ("…" if right < len(self.raw) else "")


def mask_spans(text: str) -> list[tuple[int, int]]:
    """Spans of placeholders and URLs in ``text``: never checked for words or patterns."""
    spans: list[tuple[int, int]] = []
    for match in PLACEHOLDER_PATTERN.finditer(text):
        spans.append(match.span())
    for match in URL_PATTERN.finditer(text):
        start, end = match.span()
        while end > start and text[end - 1] in _URL_TRAIL:
            end -= 1
        spans.append((start, end))
    return spans


def block_views(runs: Runs, path: tuple[PathStep, ...] = ()) -> Iterator[TextView]:
    """The views of a run sequence: its own text first, then each plural form and select case."""
    yield TextView(runs, path)
    for index, run in enumerate(runs):
        yield from _branches(run, index, path)


def _branches(run: Run, index: int, path: tuple[PathStep, ...]) -> Iterator[TextView]:
    if isinstance(run, Plural):
        for form, branch in run.forms.items():
            yield from block_views(branch, (*path, index, ("plural", form)))
    elif isinstance(run, Select):
        for case, branch in run.cases.items():
            yield from block_views(branch, (*path, index, ("select", case)))
    elif isinstance(run, Ph | Sub):
        return
