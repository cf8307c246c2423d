"""Positions inside an edition: runs seen as cells, one per character and one per code.

Offsets count Unicode code points of the own text; inline codes and whole
plurals/selects have zero width. Working on cells lets an edit replace text
while every code keeps its place, and lets a position name "before this
code" exactly (a run position ``{run, offset}``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from kapi.core.change.errors import SpanPos
from kapi.core.edittext import code_token, entity_char, merge_text
from kapi.core.model import PcClose, PcOpen, Plural, Run, Runs, Select, Text

__all__ = ["Cell", "cells_of", "run_position", "runs_of", "search_text", "text_cell_indexes"]


class Cell(NamedTuple):
    """A character (``char``) or a zero-width code or structure (``run``)."""

    char: str = ""
    run: Run | None = None
    no_translate: bool = False

    @property
    def is_char(self) -> bool:
        return self.run is None


def cells_of(runs: Runs) -> list[Cell]:
    cells: list[Cell] = []
    for run in runs:
        if isinstance(run, Text):
            flag = run.no_translate
            cells.extend([Cell(c, None, flag) for c in run.text])
        else:
            cells.append(Cell(run=run))
    return cells


def runs_of(cells: Sequence[Cell]) -> Runs:
    out: list[Run] = []
    buffer: list[str] = []
    flag = False
    for cell in cells:
        if cell.run is None:
            if buffer and cell.no_translate != flag:
                out.append(Text("".join(buffer), flag))
                buffer = []
            flag = cell.no_translate
            buffer.append(cell.char)
        else:
            if buffer:
                out.append(Text("".join(buffer), flag))
                buffer = []
            out.append(cell.run)
    if buffer:
        out.append(Text("".join(buffer), flag))
    return merge_text(out)


def text_cell_indexes(cells: Sequence[Cell]) -> list[int]:
    """Cell index of each own-text character, in order."""
    return [i for i, cell in enumerate(cells) if cell.run is None]


def run_position(runs: Runs, cell_index: int) -> SpanPos:
    """The run position of a cell boundary; the end of a text run reads as the next run's start."""
    position = 0
    for index, run in enumerate(runs):
        width = len(run.text) if isinstance(run, Text) else 1
        if cell_index < position + width:
            return SpanPos(run=index, offset=cell_index - position if isinstance(run, Text) else 0)
        position += width
    return SpanPos(run=len(runs), offset=0)


def cell_of_position(runs: Runs, run: int, offset: int) -> int | None:
    """The cell index a run position names, or ``None`` when it is outside the runs."""
    if run < 0 or offset < 0 or run > len(runs):
        return None
    position = 0
    for index, item in enumerate(runs):
        width = len(item.text) if isinstance(item, Text) else 1
        if index == run:
            if isinstance(item, Text):
                return position + offset if offset <= width else None
            return position if offset == 0 else None
        position += width
    return position if offset == 0 else None


def search_text(cells: Sequence[Cell], with_tokens: bool) -> tuple[str, list[int]]:
    """The text a ``find`` searches and each cell's start offset in it.

    Codes are zero-width unless ``with_tokens``, when each shows as its token;
    a code standing for one character reference always shows as the character.
    """
    pieces: list[str] = []
    starts: list[int] = []
    offset = 0
    for cell in cells:
        starts.append(offset)
        if cell.run is None:
            piece = cell.char
        elif isinstance(cell.run, Plural | Select):
            piece = ""
        else:
            char = entity_char(cell.run)
            if char is not None:
                piece = char
            elif with_tokens:
                piece = f'<x id="{code_token(cell.run)}"/>'
            else:
                piece = ""
        pieces.append(piece)
        offset += len(piece)
    starts.append(offset)
    return "".join(pieces), starts


def is_pair_half(run: Run | None) -> bool:
    return isinstance(run, PcOpen | PcClose)
