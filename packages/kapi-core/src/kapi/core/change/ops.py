"""The ``kapi.change/v1`` change set and its fourteen operations, as values.

Field names follow the wire (``if_match``, ``do_not_translate``); the few that
cannot be Python names are renamed by the wire converter (``from`` → ``from_``,
``runId`` → ``run_id``). ``None`` means "left out": the decoder refuses an
explicit ``null``, so absence and null never mix.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeAlias

from attrs import field, frozen

from kapi.core.model import Runs

__all__ = [
    "OP_KINDS",
    "Anchor",
    "Annotate",
    "BlockRef",
    "Branch",
    "ChangeSet",
    "Decide",
    "DeleteBlock",
    "Edit",
    "EditionContent",
    "Evidence",
    "InsertBlock",
    "Mark",
    "Memory",
    "MemorySide",
    "Native",
    "Op",
    "Origin",
    "PathStep",
    "Position",
    "Range",
    "Recipe",
    "Ref",
    "RemoveEdition",
    "ReplaceText",
    "Selection",
    "SetAttribute",
    "SetContent",
    "Term",
    "Unannotate",
]

SCHEMA = "kapi.change/v1"


@frozen
class Ref:
    """An edition of a block in a document; ``edition`` left out is the own edition."""

    doc: str
    block: str
    edition: str | None = None


@frozen
class BlockRef:
    """A block of a document (no edition)."""

    doc: str
    block: str


@frozen
class Branch:
    """A path step into a plural form or a select case (exactly one is set)."""

    plural: str | None = None
    select: str | None = None

    @property
    def kind(self) -> str:
        return "plural" if self.plural is not None else "select"

    @property
    def name(self) -> str:
        return self.plural if self.plural is not None else (self.select or "")


PathStep: TypeAlias = int | Branch


@frozen
class Position:
    """A run position: run index and code-point offset inside that run."""

    run: int
    offset: int | None = None


@frozen
class Range:
    """A half-open span between two run positions."""

    start: Position
    end: Position


@frozen
class Edit:
    """One replacement inside an edition: by ``find``, by ``start``/``end``, or by ``range``."""

    text: str
    path: tuple[PathStep, ...] | None = None
    find: str | None = None
    occurrence: int | None = None
    start: int | None = None
    end: int | None = None
    range: Range | None = None


@frozen
class Selection:
    """The text a ``mark`` wraps: an :class:`Edit` without replacement text."""

    path: tuple[PathStep, ...] | None = None
    find: str | None = None
    occurrence: int | None = None
    start: int | None = None
    end: int | None = None
    range: Range | None = None


@frozen
class Origin:
    """How a tool produced content (kept only for tool senders)."""

    tool: str
    kind: str | None = None
    engine: str | None = None


@frozen
class SetContent:
    at: Ref
    if_match: str
    text: str | None = None
    runs: Runs | None = None
    basis: str | None = None
    path: tuple[PathStep, ...] | None = None
    origin: Origin | None = None
    op: Literal["set_content"] = "set_content"


@frozen
class ReplaceText:
    at: Ref
    if_match: str
    edits: tuple[Edit, ...]
    path: tuple[PathStep, ...] | None = None
    origin: Origin | None = None
    op: Literal["replace_text"] = "replace_text"


@frozen
class SetAttribute:
    at: Ref
    if_match: str
    code: str
    name: str
    value: str
    op: Literal["set_attribute"] = "set_attribute"


@frozen
class Mark:
    at: Ref
    if_match: str
    range: Selection
    type: str
    attrs: Mapping[str, str] | None = None
    op: Literal["mark"] = "mark"


@frozen
class RemoveEdition:
    at: Ref
    if_match: str
    op: Literal["remove_edition"] = "remove_edition"


@frozen
class Anchor:
    kind: str
    path: tuple[PathStep, ...] | None = None
    run_id: str | None = None
    start: Position | None = None
    end: Position | None = None
    key: str | None = None


@frozen
class Annotate:
    at: Ref
    type: str
    if_match: str | None = None
    id: str | None = None
    anchor: Anchor | None = None
    value: Any = None
    op: Literal["annotate"] = "annotate"


@frozen
class Unannotate:
    at: Ref
    type: str
    id: str
    op: Literal["unannotate"] = "unannotate"


@frozen
class EditionContent:
    """A new block's content in one edition: ``text`` or ``runs``."""

    text: str | None = None
    runs: Runs | None = None


@frozen
class InsertBlock:
    doc: str
    editions: Mapping[str, EditionContent]
    after: str | None = None
    before: str | None = None
    name: str | None = None
    op: Literal["insert_block"] = "insert_block"


@frozen
class DeleteBlock:
    at: BlockRef
    if_match: Mapping[str, str]
    op: Literal["delete_block"] = "delete_block"


@frozen
class Native:
    doc: str
    if_match: str
    name: str
    args: Any = None
    op: Literal["native"] = "native"


@frozen
class Decide:
    at: Ref
    if_match: str
    outcome: str
    score: int | None = None
    reasons: tuple[str, ...] | None = None
    op: Literal["decide"] = "decide"


@frozen
class Term:
    action: str
    term: str
    locale: str | None = None
    status: str | None = None
    replacement: str | None = None
    replaces: str | None = None
    do_not_translate: bool | None = None
    advisory: bool | None = None
    competitor: bool | None = None
    op: Literal["term"] = "term"


@frozen
class MemorySide:
    edition: str
    text: str


@frozen
class Memory:
    action: str
    from_: MemorySide
    to: MemorySide
    op: Literal["memory"] = "memory"


@frozen
class Recipe:
    path: str
    value: Any = None
    op: Literal["recipe"] = "recipe"


Op: TypeAlias = (
    SetContent
    | ReplaceText
    | SetAttribute
    | Mark
    | RemoveEdition
    | Annotate
    | Unannotate
    | InsertBlock
    | DeleteBlock
    | Native
    | Decide
    | Term
    | Memory
    | Recipe
)

OP_KINDS: dict[str, type[Any]] = {
    "set_content": SetContent,
    "replace_text": ReplaceText,
    "set_attribute": SetAttribute,
    "mark": Mark,
    "remove_edition": RemoveEdition,
    "annotate": Annotate,
    "unannotate": Unannotate,
    "insert_block": InsertBlock,
    "delete_block": DeleteBlock,
    "native": Native,
    "decide": Decide,
    "term": Term,
    "memory": Memory,
    "recipe": Recipe,
}

CONTENT_OPS = frozenset(
    {
        "set_content",
        "replace_text",
        "set_attribute",
        "mark",
        "remove_edition",
        "annotate",
        "unannotate",
        "insert_block",
        "delete_block",
        "native",
    }
)
ASSET_OPS = frozenset({"term", "memory", "recipe"})


@frozen
class Evidence:
    path: str | None = None
    block: str | None = None
    quote: str | None = None
    url: str | None = None


@frozen
class ChangeSet:
    """A change set: operations applied in order, all or nothing."""

    ops: tuple[Op, ...] = field(factory=tuple)
    schema: str | None = None
    mode: str | None = None
    gate: str | None = None
    require_basis: bool | None = None
    note: str | None = None
    evidence: tuple[Evidence, ...] | None = None

    @property
    def preview(self) -> bool:
        return self.mode == "preview"

    @property
    def gate_mode(self) -> str:
        return self.gate or "enforce"
