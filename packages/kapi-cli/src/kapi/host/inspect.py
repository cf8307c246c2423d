"""``kapi inspect``: every block of some files as an agent reads it, ready to edit.

In a project a source document carries its translations' own files as
editions, and each record names the own edition by language.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from attrs import frozen

from kapi.core.change.read import BlockRead, PlainRead
from kapi.core.errors import EXIT_OK, EXIT_USAGE
from kapi.host.documents import FileFailure, read_inputs

if TYPE_CHECKING:
    from kapi.host.workspace import Workspace

__all__ = ["InspectRequest", "InspectResult", "InspectStream", "run_inspect"]


@frozen
class InspectRequest:
    """What to read: paths as :func:`kapi.host.inputs.inputs_for` gives them, and a format."""

    paths: tuple[str, ...]
    format_name: str | None = None


@frozen
class InspectResult:
    """One record per non-empty block of every file read, and the files that failed."""

    records: tuple[BlockRead, ...]
    failures: tuple[FileFailure, ...] = ()

    @property
    def exit_code(self) -> int:
        """2 when a file could not be read (the others are still shown)."""
        return EXIT_USAGE if self.failures else EXIT_OK

    def encoded(self) -> list[dict[str, Any]]:
        """The records as ``kapi inspect`` prints them (read records plus role and level)."""
        from kapi.host.wire import encode_read_records

        return encode_read_records(self.records, inspect=True)

    def encoded_json(self) -> str:
        """:meth:`encoded` as compact JSON text (``","``/``":"``), written without the dicts."""
        return "".join(self.encoded_json_chunks())

    def encoded_json_chunks(self) -> Iterator[str]:
        """:meth:`encoded_json` in pieces, for a door that sends them on as they are made."""
        from kapi.host.wire import read_records_json_chunks

        return read_records_json_chunks(self.records, inspect=True)


def run_inspect(request: InspectRequest, workspace: Workspace) -> InspectResult:
    """Read every path through the workspace's home into read records."""
    stream = InspectStream(request, workspace)
    records = tuple(
        record.record() if isinstance(record, PlainRead) else record for record in stream.records()
    )
    return InspectResult(records=records, failures=tuple(stream.failures))


class InspectStream:
    """:func:`run_inspect` made as it is written: each file is read when the records before
    it have been taken, and its records are made one at a time, so a file's records are
    never all held (a catalogue of a million keys is written in pieces).

    Source files' comments are read when the stream is made; the other files' failures
    are in :attr:`failures` once the records have all been taken.
    """

    def __init__(self, request: InspectRequest, workspace: Workspace) -> None:
        from kapi.host.comments import inspect_comments

        self.request = request
        self.workspace = workspace
        self.home = workspace.home()
        self.comments: list[BlockRead]
        self.failures: list[FileFailure]
        self.comments, self.failures, self.paths = inspect_comments(request.paths, workspace)

    @property
    def exit_code(self) -> int:
        """2 when a file could not be read (the others are still shown)."""
        return EXIT_USAGE if self.failures else EXIT_OK

    def records(self) -> Iterator[BlockRead | PlainRead]:
        """Every record: the comments', then each file's non-empty blocks in order."""
        from kapi.core.change.reading import read_blocks
        from kapi.formats.common import gc_paused

        comments, self.comments = self.comments, []
        yield from comments
        own_edition = self.workspace.project is not None
        with gc_paused():
            for item in read_inputs(
                self.paths,
                locale=self.workspace.source_language,
                format_name=self.request.format_name,
                home=self.home,
            ):
                if isinstance(item, FileFailure):
                    self.failures.append(item)
                    continue
                yield from read_blocks(item.document.blocks, item.staged, own_edition=own_edition)

    def encoded_json_chunks(self) -> Iterator[str]:
        """The records as :meth:`InspectResult.encoded_json_chunks` writes them."""
        from kapi.host.wire import read_records_json_chunks

        return read_records_json_chunks(self.records(), inspect=True)
