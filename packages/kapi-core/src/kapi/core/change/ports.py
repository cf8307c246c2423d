"""What the change service needs from outside, named as ports.

A home reads documents and writes them atomically; a commit check finds what
an edit breaks; an asset sink keeps decisions, terms, memory and recipe
changes; a recorder keeps the history; the governance files say which of a
home's files govern the project rather than hold its content. Each has one
real adapter outside the core and an in-memory one beside the core's tests.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

from attrs import frozen

from kapi.core.errors import KapiError, contract_exit_code

if TYPE_CHECKING:  # named in annotations only: who asks for an Actor loads no operations
    from kapi.core.change.ops import ChangeSet, Decide, Memory, Recipe, Term
    from kapi.core.change.result import Finding, Result
    from kapi.core.format import FormatCapabilities
    from kapi.core.model import Document, Runs

__all__ = [
    "Actor",
    "ActorKind",
    "AssetSink",
    "CommitCheck",
    "CommitOutcome",
    "CommitRefused",
    "DocChanged",
    "DocumentHome",
    "EditionCheck",
    "GovernanceFiles",
    "JoinedFile",
    "Recorder",
    "Staged",
    "Write",
    "digest",
]


def digest(data: bytes) -> str:
    """The digest a read reports as ``head`` and a result as ``before``/``after``."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


class ActorKind(StrEnum):
    """What sent a change set; the policy refuses a sender of any other kind everything."""

    PERSON = "person"
    AGENT = "agent"
    TOOL = "tool"


@frozen
class Actor:
    """Who sent a change set: ``person``, ``agent`` or ``tool``, stamped by the transport."""

    kind: ActorKind
    name: str = ""
    session: str = ""


@frozen
class JoinedFile:
    """A translation kept in its own file, joined to its source document as an edition.

    ``head`` is the file's digest as read, ``None`` when it does not exist yet.
    """

    file: str
    edition: str
    head: str | None = None


@frozen
class Staged:
    """A document as its home read it for one change set.

    ``editions`` lists the edition keys (canonical text) this document can hold
    besides its own; ``None`` means any (a workspace home). ``joined`` lists the
    translations' own files whose content the document carries as editions.
    """

    doc: str
    document: Document
    head: str
    capabilities: FormatCapabilities
    home: str = "file"
    file: str | None = None
    editions: frozenset[str] | None = frozenset()
    annotations: bool = False
    joined: tuple[JoinedFile, ...] = ()

    def joined_file(self, file: str) -> JoinedFile | None:
        return next((j for j in self.joined if j.file == file), None)


@frozen
class Write:
    """New bytes for a staged document's own file, or for one of its joined files."""

    staged: Staged
    data: bytes
    file: str | None = None
    edition: str | None = None

    @property
    def key(self) -> str:
        """The file this write lands in, as a document key."""
        return self.file or self.staged.doc

    @property
    def head(self) -> str | None:
        """The digest the file had when staged (``None``: it did not exist)."""
        if self.file is None:
            return self.staged.head
        joined = self.staged.joined_file(self.file)
        return joined.head if joined is not None else None


@frozen
class CommitOutcome:
    """What a commit wrote: per document key, the digest written (``None`` if not)."""

    written: dict[str, str | None]
    error: str | None = None  # files landed, then one failed and could not be restored


class CommitRefused(KapiError):
    """The home could not write the set and every file is as it was (no space, read-only…).

    ``code`` is a change-contract error code; ``file`` the key of the file that
    could not be written; ``message`` names the file and the reason.
    """

    def __init__(self, file: str, code: str, message: str) -> None:
        super().__init__(message)
        self.file = file
        self.code = code
        self.exit_code = contract_exit_code(code)
        self.message = message


class DocChanged(KapiError):
    """A document changed under the commit; its current bytes differ from the staged head."""

    code = "doc_changed"
    exit_code = 3

    def __init__(self, doc: str) -> None:
        super().__init__(f"{doc} changed while the change set was being applied")
        self.doc = doc


class DocumentHome(Protocol):
    """Where documents live: read one, render an edited one, write a set atomically."""

    kind: str

    def stage(self, doc: str) -> Staged:
        """Read ``doc``; raises ChangeError (not_found, invalid, budget_exceeded, unsupported)."""
        ...

    def render(self, staged: Staged, document: Document) -> Sequence[Write]:
        """The files of an edited document (its own, and joined translations' that changed).

        Raises WriteRefused when the format cannot say an edit.
        """
        ...

    def diff(self, write: Write) -> str:
        """A unified diff from the file as staged to the write's bytes."""
        ...

    def commit(self, writes: Sequence[Write]) -> CommitOutcome:
        """Lock, re-verify every head (DocChanged), and write every document atomically."""
        ...


@frozen
class EditionCheck:
    """The commit check's verdict on one changed edition."""

    introduced: tuple[Finding, ...] = ()  # failing findings the edit introduces
    others: tuple[Finding, ...] = ()  # reporting, suggested and pre-existing findings


class CommitCheck(Protocol):
    """Governance at the edited point: which failing findings an edit introduces."""

    def check(
        self, doc: str, block: str, edition: str, before: Runs | None, after: Runs
    ) -> EditionCheck: ...


class GovernanceFiles(Protocol):
    """Which of a home's files govern the project: its recipe, voices, terms and kapi's state."""

    def governs(self, file: str) -> str:
        """What ``file`` (a document key) is when it governs the project, else ``""``.

        The answer names the kind of file for a person, e.g. ``"the project recipe"``.
        """
        ...


class AssetSink(Protocol):
    """Decisions and context assets, landed after content."""

    def validate(self, op: Decide | Term | Memory | Recipe, actor: Actor) -> str | None:
        """A reason to refuse the op before anything is written, or ``None``."""
        ...

    def apply(self, op: Decide | Term | Memory | Recipe, actor: Actor, rev: str | None) -> None: ...


class Recorder(Protocol):
    """Keeps the history of landed change sets; returns the record id."""

    def record(self, change_set: ChangeSet, result: Result, actor: Actor) -> str | None: ...
