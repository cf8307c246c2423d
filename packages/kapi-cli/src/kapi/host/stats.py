"""``kapi stats``: blocks, words and characters of translatable content, per file and in total."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from attrs import frozen

from kapi.core.errors import EXIT_OK, EXIT_USAGE
from kapi.host.documents import FileFailure, read_inputs

if TYPE_CHECKING:
    from kapi.core.model import Document
    from kapi.host.workspace import Workspace

__all__ = [
    "FileCount",
    "StatsCounts",
    "StatsRequest",
    "StatsResult",
    "StatsTotal",
    "block_texts",
    "count_words",
    "run_stats",
]

_WORD = re.compile(r"\w+(?:[-'’]\w+)*")


@frozen
class StatsRequest:
    """What to count: paths as :func:`kapi.host.inputs.inputs_for` gives them, and a format."""

    paths: tuple[str, ...]
    format_name: str | None = None


@frozen
class FileCount:
    path: str
    format: str
    blocks: int
    words: int
    characters: int


@frozen
class StatsTotal:
    files: int
    blocks: int
    words: int
    characters: int


@frozen
class StatsCounts:
    """The counts as ``kapi stats --json`` prints them."""

    files: tuple[FileCount, ...]
    total: StatsTotal


@frozen
class StatsResult:
    counts: StatsCounts
    failures: tuple[FileFailure, ...] = ()

    @property
    def exit_code(self) -> int:
        """2 when a file could not be read (the others are still counted)."""
        return EXIT_USAGE if self.failures else EXIT_OK


def count_words(text: str) -> int:
    return len(_WORD.findall(text))


def block_texts(document: Document) -> list[str]:
    """What a document says: the text of each translatable block that is not blank (no keys,
    no markup), as ``kapi stats`` counts it."""
    from kapi.core.model import plain_text

    texts = (plain_text(block.source) for block in document.blocks if block.translatable)
    return [text for text in texts if text.strip()]


def run_stats(request: StatsRequest, workspace: Workspace) -> StatsResult:
    """Count every translatable, non-empty block of each file."""
    files: list[FileCount] = []
    failures: list[FileFailure] = []
    for item in read_inputs(
        request.paths,
        locale=workspace.source_language,
        format_name=request.format_name,
        home=workspace.home(),
    ):
        if isinstance(item, FileFailure):
            failures.append(item)
            continue
        texts = block_texts(item.document)
        files.append(
            FileCount(
                path=item.path,
                format=item.format,
                blocks=len(texts),
                words=sum(count_words(t) for t in texts),
                characters=sum(len(t) for t in texts),
            )
        )
    total = StatsTotal(
        files=len(files),
        blocks=sum(f.blocks for f in files),
        words=sum(f.words for f in files),
        characters=sum(f.characters for f in files),
    )
    return StatsResult(
        counts=StatsCounts(files=tuple(files), total=total), failures=tuple(failures)
    )
