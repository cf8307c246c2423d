"""The context operation record: who recorded what, about which rule or fact, on what evidence.

A record is stored in the log as kind ``context.<kind>`` and never rewritten;
its status, rivals and standing are folded from the log on read
(:mod:`kapi.core.context.fold`).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Protocol

from attrs import field, frozen
from attrs.validators import in_

__all__ = [
    "ACTOR_KINDS",
    "ADVISING",
    "ActorLike",
    "Author",
    "Correction",
    "Evidence",
    "OpKind",
    "Record",
    "Scope",
    "Signal",
    "Status",
    "Subject",
    "TermRule",
]


class OpKind(StrEnum):
    """The kinds of context operation (``check`` is a tool's record of a check run)."""

    OBSERVE = "observe"
    CORRECT = "correct"
    IMPORT = "import"
    EDIT = "edit"
    KEEP = "keep"
    DROP = "drop"
    WITHDRAW = "withdraw"
    WIDEN = "widen"
    RESET = "reset"
    SIGNAL = "signal"
    ESTABLISH = "establish"
    CHECK = "check"


ADVISING = frozenset({OpKind.OBSERVE, OpKind.CORRECT})
"""The kinds that become suggestions."""


class Status(StrEnum):
    """What an operation that states a rule or a fact is, folded from the log."""

    SUGGESTED = "suggested"
    CONTESTED = "contested"
    ESTABLISHED = "established"
    WITHDRAWN = "withdrawn"
    DROPPED = "dropped"
    RESET = "reset"


ACTOR_KINDS = ("person", "agent", "tool")


class ActorLike(Protocol):
    """Who sends an op, as the doors stamp it (the change service's ``Actor`` is one)."""

    @property
    def kind(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def session(self) -> str: ...


@frozen
class Author:
    """Who recorded an op: ``person``, ``agent`` or ``tool``, a name, the agent's session."""

    kind: str = field(validator=in_(ACTOR_KINDS))
    name: str = ""
    session: str = ""

    @classmethod
    def of(cls, actor: ActorLike) -> Author:
        return cls(kind=str(actor.kind), name=actor.name, session=actor.session)


@frozen
class TermRule:
    """A word rule: say ``replacement``, not ``term`` (the first avoided form) or ``forms``."""

    term: str
    forms: tuple[str, ...] = ()
    replacement: str = ""
    advisory: bool = False
    note: str = ""
    case_sensitive: bool = False

    @property
    def avoided(self) -> tuple[str, ...]:
        return (self.term, *self.forms)


@frozen
class MemoryPair:
    source: str
    target: str
    source_locale: str = ""
    target_locale: str = ""


@frozen
class Subject:
    """What an op is about: a term rule, a memory pair, or a fact in prose (``note``)."""

    kind: str  # term | memory | note
    term: TermRule | None = None
    memory: MemoryPair | None = None
    text: str = ""


@frozen
class Correction:
    """A change a person made: ``from_`` became ``to`` (``from`` on the wire)."""

    from_: str
    to: str


@frozen
class Evidence:
    """Where a note was seen: a project-relative ``path``, a ``unit`` in it, a ``quote``."""

    path: str = ""
    unit: str = ""
    quote: str = ""


@frozen
class Scope:
    """Where an op holds: the coordinates of its evidence file (``project`` level)."""

    level: str = "project"
    coordinates: Mapping[str, str] = field(factory=dict)
    all_profiles: bool = False


@frozen
class Signal:
    """Tool evidence about a rule: ``merge`` (a merged change moved text toward it), ``usage``
    (a whole-project check counted its uses) or ``applied`` (an agent's edit wrote it).

    ``preferred`` and ``rejected`` count lines (a merge: preferred added, rejected
    removed) or uses (a usage count); ``within`` is the folder they were counted in.
    """

    source: str = field(validator=in_(("merge", "usage", "applied")))
    commit: str = ""
    pr: str = ""
    merger: str = ""
    preferred: int = 0
    rejected: int = 0
    within: str = ""


@frozen
class Record:
    """One context operation, as appended to the log.

    ``target`` names the op a decision is about; ``before`` is the first op a
    reset sets aside; ``replacement``/``advisory`` are a keep's ``--use`` and
    advisory flag; ``widen_to`` the axis a widen drops (or ``project``).
    ``address`` is a content address: two logs holding it hold one op.
    ``signal`` is a signal's evidence; ``because`` the ops an ``establish`` rests on.
    """

    id: str
    kind: OpKind
    actor: Author
    at: str = ""
    project: str = ""
    subject: Subject | None = None
    correction: Correction | None = None
    suggest: bool = False
    evidence: tuple[Evidence, ...] = ()
    scope: Scope = field(factory=Scope)
    target: str = ""
    before: str = ""
    note: str = ""
    replacement: str = ""
    advisory: bool | None = None
    widen_to: str = ""
    address: str = ""
    because: tuple[str, ...] = ()
    signal: Signal | None = None

    @property
    def short(self) -> str:
        return self.id[:10]

    @property
    def rule(self) -> TermRule | None:
        return self.subject.term if self.subject is not None else None

    @property
    def session_key(self) -> tuple[str, str]:
        """The party that recorded it: two sessions of one agent are two parties."""
        return (self.actor.name, self.actor.session)
