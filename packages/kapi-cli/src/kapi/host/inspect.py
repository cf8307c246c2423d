"""``kapi inspect``: every block of some files as an agent reads it, ready to edit.

In a project a source document carries its translations' own files as
editions, and each record names the own edition by language.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from attrs import frozen

from kapi.core.change.read import BlockRead
from kapi.core.errors import EXIT_OK, EXIT_USAGE
from kapi.host.documents import FileFailure, read_inputs

if TYPE_CHECKING:
    from kapi.host.workspace import Workspace

__all__ = ["InspectRequest", "InspectResult", "run_inspect"]


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
    from kapi.core.change.reading import read_block
    from kapi.core.model import plain_text
    from kapi.formats.common import gc_paused
    from kapi.host.comments import inspect_comments

    own_edition = workspace.project is not None
    records: list[BlockRead]
    failures: list[FileFailure]
    records, failures, paths = inspect_comments(request.paths, workspace)  # source files
    with gc_paused():
        for item in read_inputs(
            paths,
            locale=workspace.source_language,
            format_name=request.format_name,
            home=workspace.home(),
        ):
            if isinstance(item, FileFailure):
                failures.append(item)
                continue
            for block in item.document.blocks:
                if not block.targets and not plain_text(block.source).strip():
                    continue  # an empty block has nothing to read or edit
                records.append(read_block(block, item.staged, own_edition=own_edition))
    return InspectResult(records=tuple(records), failures=tuple(failures))
