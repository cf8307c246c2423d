"""A document home held in memory: the core's own adapter for tests and for embedding.

Documents are kept as :class:`~kapi.core.model.Document` values; their bytes
are a canonical serialisation of the blocks, so digests and diffs work as
they do for files. It can be told to fail a write, to exercise partial
results, and to change a document under a commit, to exercise retries.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping, Sequence

from kapi.core.change.errors import ChangeError, ErrorCode
from kapi.core.change.ports import CommitOutcome, DocChanged, Staged, Write, digest
from kapi.core.edittext import render_edit_text
from kapi.core.format import FormatCapabilities
from kapi.core.model import Document
from kapi.core.revision import canonical_runs_json

__all__ = ["MemoryHome", "serialise"]

_EVERYTHING = FormatCapabilities(
    name="memory",
    structural=True,
    writable_attrs={"link:hyperlink": ("href", "title"), "media:image": ("src", "alt", "title")},
    new_codes=("fmt:bold", "fmt:italic", "link:hyperlink"),
)


def serialise(document: Document) -> bytes:
    """Canonical bytes of a document: one block per line, editions in key order."""
    lines = []
    for block in document.blocks:
        lines.append(f"{block.ref_key}\t{block.locale}\t{canonical_runs_json(block.source)}")
        for key in sorted(block.targets):
            lines.append(f"{block.ref_key}\t{key}\t{canonical_runs_json(block.targets[key].runs)}")
        for annotation in block.annotations:
            lines.append(
                f"{block.ref_key}\t@{annotation.type}:{annotation.id}\t{annotation.edition}"
            )
    return ("\n".join(lines) + "\n").encode("utf-8")


def _readable(document: Document) -> list[str]:
    lines = []
    for block in document.blocks:
        lines.append(f"{block.ref_key}: {render_edit_text(block.source)}\n")
        for key in sorted(block.targets):
            lines.append(f"{block.ref_key} [{key}]: {render_edit_text(block.targets[key].runs)}\n")
    return lines


class MemoryHome:
    """Documents by key, in memory."""

    kind = "workspace"

    def __init__(
        self,
        documents: Mapping[str, Document] | None = None,
        *,
        capabilities: FormatCapabilities = _EVERYTHING,
        editions: frozenset[str] | None = None,
        annotations: bool = True,
    ) -> None:
        self.documents: dict[str, Document] = dict(documents or {})
        self.capabilities = capabilities
        self.editions = editions
        self.annotations = annotations
        self.fail_after: int | None = None  # writes that succeed before an I/O error
        self.before_commit: Callable[[MemoryHome], None] | None = None
        self.commits = 0
        self._pending: dict[str, Document] = {}

    def stage(self, doc: str) -> Staged:
        document = self.documents.get(doc)
        if document is None:
            raise ChangeError.of(ErrorCode.NOT_FOUND, f"no document {doc!r}", field="at/doc")
        return Staged(
            doc=doc,
            document=document,
            head=digest(serialise(document)),
            capabilities=self.capabilities,
            home=self.kind,
            editions=self.editions,
            annotations=self.annotations,
        )

    def render(self, staged: Staged, document: Document) -> tuple[Write, ...]:
        self._pending[staged.doc] = document
        return (Write(staged=staged, data=serialise(document)),)

    def diff(self, write: Write) -> str:
        staged = write.staged
        new = self._pending.get(staged.doc, staged.document)
        return "".join(
            difflib.unified_diff(
                _readable(staged.document), _readable(new), f"a/{staged.doc}", f"b/{staged.doc}"
            )
        )

    def commit(self, writes: Sequence[Write]) -> CommitOutcome:
        if self.before_commit is not None:
            hook, self.before_commit = self.before_commit, None
            hook(self)
        ordered = sorted(writes, key=lambda write: write.staged.doc)
        for write in ordered:
            current = self.documents.get(write.staged.doc)
            if current is None or digest(serialise(current)) != write.staged.head:
                raise DocChanged(write.staged.doc)
        written: dict[str, str | None] = {write.staged.doc: None for write in ordered}
        for count, write in enumerate(ordered):
            if self.fail_after is not None and count >= self.fail_after:
                return CommitOutcome(written=written, error=f"could not write {write.staged.doc}")
            self.documents[write.staged.doc] = self._pending[write.staged.doc]
            written[write.staged.doc] = digest(write.data)
        self.commits += 1
        return CommitOutcome(written=written)
