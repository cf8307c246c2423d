"""The content model: a document is blocks, a block holds editions, an edition is runs.

Runs are text or inline codes. A code keeps its verbatim native markup in
``data`` so the writer of the same format replays it byte for byte; ``type``
and ``attrs`` are the format-neutral description a different writer would use.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import Any, TypeAlias

from attrs import Factory, evolve, field, fields, frozen

__all__ = [
    "Annotation",
    "Block",
    "Constraints",
    "Document",
    "Edition",
    "EditionStatus",
    "Origin",
    "PcClose",
    "PcOpen",
    "Ph",
    "Plural",
    "Run",
    "Runs",
    "Select",
    "Sub",
    "Text",
    "code_constraints",
    "plain_text",
    "text_block",
]


@frozen
class Constraints:
    """What an edit may do with a code: drop it, repeat it, move it."""

    deletable: bool = True
    cloneable: bool = True
    reorderable: bool = True


@frozen
class Text:
    """Plain text; ``no_translate`` marks text such as a command in a code span."""

    text: str
    no_translate: bool = False


@frozen
class Ph:
    """A standalone inline code: a variable, a line break, an image."""

    id: str
    type: str = ""
    sub_type: str = ""
    data: str = ""
    equiv: str = ""
    disp: str = ""
    attrs: Mapping[str, str] = field(factory=dict)
    constraints: Constraints | None = None


@frozen
class PcOpen:
    """The opening half of a paired code (bold, a link); its close shares the id."""

    id: str
    type: str = ""
    sub_type: str = ""
    data: str = ""
    equiv: str = ""
    disp: str = ""
    attrs: Mapping[str, str] = field(factory=dict)
    constraints: Constraints | None = None


@frozen
class PcClose:
    """The closing half of a paired code."""

    id: str
    type: str = ""
    sub_type: str = ""
    data: str = ""
    equiv: str = ""


@frozen
class Sub:
    """A reference to a sub-block (content of another format embedded here)."""

    id: str
    ref: str = ""
    equiv: str = ""


@frozen
class Plural:
    """Content that varies by a number: CLDR form (``one``, ``other``, ``=0``) to runs."""

    pivot: str
    forms: Mapping[str, tuple[Run, ...]] = field(factory=dict)


@frozen
class Select:
    """Content that varies by a value: case to runs."""

    pivot: str
    cases: Mapping[str, tuple[Run, ...]] = field(factory=dict)


Run: TypeAlias = Text | Ph | PcOpen | PcClose | Sub | Plural | Select
Runs: TypeAlias = tuple[Run, ...]

# Defaults by type family: formatting moves freely; variables and breaks may not
# be dropped or repeated (spec/formats.md §1.3).
_FIXED_FAMILIES = ("code:", "struct:", "entity:")
_FIXED_TYPES = frozenset({"fmt:linebreak", "fmt:break", "fmt:tab", "media:image"})


def code_constraints(run: Ph | PcOpen | PcClose, opener: PcOpen | None = None) -> Constraints:
    """The constraints that hold for a code: its own, its opener's, or its type's default."""
    own = run.constraints if not isinstance(run, PcClose) else None
    if own is not None:
        return own
    if opener is not None and opener.constraints is not None:
        return opener.constraints
    kind = run.type
    if kind.startswith(_FIXED_FAMILIES) or kind in _FIXED_TYPES:
        return Constraints(deletable=False, cloneable=False, reorderable=True)
    if isinstance(run, Ph) and not kind:
        # An untyped standalone code is a variable until a format says otherwise.
        return Constraints(deletable=False, cloneable=False, reorderable=True)
    return Constraints()


def plain_text(runs: Runs) -> str:
    """The text a reader sees: codes by their text equivalent, a plural by its ``other`` form."""
    out: list[str] = []
    for run in runs:
        if isinstance(run, Text):
            out.append(run.text)
        elif isinstance(run, Ph | PcOpen | PcClose | Sub):
            out.append(run.equiv)
        elif isinstance(run, Plural):
            out.append(plain_text(_default_branch(run.forms)))
        else:
            out.append(plain_text(_default_branch(run.cases)))
    return "".join(out)


def _default_branch(branches: Mapping[str, Runs]) -> Runs:
    if "other" in branches:
        return branches["other"]
    for runs in branches.values():
        return runs
    return ()


@frozen
class Origin:
    """Who or what produced an edition's content."""

    kind: str = ""  # human, agent, mt, ai, memory, tool
    tool: str = ""
    engine: str = ""
    reference: str = ""
    at: str = ""


class EditionStatus(StrEnum):
    """How far an edition has come: a translation's progress, or the own edition's standing.

    A translation is ``draft``, ``translated``, ``reviewed``, ``signed-off`` or
    ``established``; the own edition (``Block.source_status``) is ``written``
    or ``established``. An edition with none recorded has the empty status.
    """

    DRAFT = "draft"
    TRANSLATED = "translated"
    REVIEWED = "reviewed"
    SIGNED_OFF = "signed-off"
    ESTABLISHED = "established"
    WRITTEN = "written"


@frozen
class Edition:
    """One language (or tone/channel) version of a block's content; ``status`` an EditionStatus."""

    runs: Runs
    status: str = ""
    basis: str = ""
    origin: Origin | None = None


@frozen
class Annotation:
    """A stand-off annotation on one edition of a block."""

    type: str
    id: str
    edition: str = ""
    anchor: Mapping[str, Any] | None = None
    value: Any = None


@frozen
class Block:
    """A unit of content: its own edition (``source``) and any further editions.

    ``id`` is what the reader calls the block, ``name`` the structural key the
    format reports (a JSON key path, a PO msgctxt+msgid), ``key`` a durable key
    from reconciliation. A reference names a block by any of the three.
    ``targets`` maps edition-key text (``fr``, ``en;tone=formal``) to editions
    held in the same document (XLIFF, PO) or joined from their own files.
    """

    id: str
    source: Runs
    name: str = ""
    key: str = ""
    translatable: bool = True
    role: str = ""
    level: int = 0
    locale: str = ""
    targets: Mapping[str, Edition] = field(factory=dict)
    annotations: tuple[Annotation, ...] = ()
    properties: Mapping[str, str] = field(factory=dict)
    source_status: str = ""

    @property
    def ref_key(self) -> str:
        """The key a reference echoes: durable key, else name, else reader id."""
        return self.key or self.name or self.id

    def with_source(self, runs: Runs) -> Block:
        return evolve(self, source=runs)

    def with_target(self, edition_key: str, edition: Edition | None) -> Block:
        targets = dict(self.targets)
        if edition is None:
            targets.pop(edition_key, None)
        else:
            targets[edition_key] = edition
        return evolve(self, targets=targets)


@frozen
class Document:
    """A document as a format read it.

    ``skeleton`` is opaque to everything but the format that made it: whatever
    that format's writer needs to give back the original bytes, changed only
    where a block's content changed. ``locale`` is the language of the
    document's own edition; ``target_locale`` the edition a bilingual file
    (PO, XLIFF) holds, empty for monolingual formats.
    """

    format: str
    blocks: tuple[Block, ...]
    locale: str = ""
    target_locale: str = ""
    skeleton: Any = field(default=None, eq=False, repr=False)

    def with_blocks(self, blocks: tuple[Block, ...]) -> Document:
        return evolve(self, blocks=blocks)


# Blocks made by text_block share one empty mapping for their targets and properties: the
# model is frozen, and nothing changes a block's mappings in place (with_target copies).
_NO_MAPPING: Mapping[str, Any] = {}


def _text_block_maker() -> Callable[[str, Runs, str, str], Block]:
    setters = {item.name: Block.__dict__[item.name].__set__ for item in fields(Block)}
    given = ("id", "source", "name", "locale")
    rest: list[tuple[Callable[[Block, Any], None], Any]] = []
    for item in fields(Block):
        if item.name in given:
            continue
        value = item.default
        if isinstance(value, Factory):  # type: ignore[arg-type]
            assert value.factory is dict, item.name  # type: ignore[union-attr]
            value = _NO_MAPPING
        rest.append((setters[item.name], value))
    set_id, set_source, set_name, set_locale = (setters[name] for name in given)
    new = object.__new__

    def make(block_id: str, runs: Runs, name: str, locale: str) -> Block:
        block: Block = new(Block)
        set_id(block, block_id)
        set_source(block, runs)
        set_name(block, name)
        set_locale(block, locale)
        for setter, value in rest:
            setter(block, value)
        return block

    return make


text_block = _text_block_maker()
text_block.__doc__ = """``Block(id=block_id, source=runs, name=name, locale=locale)`` with no targets
and no properties, made slot by slot instead of through the frozen ``__init__``: a reader
of a large catalogue makes one per value, and this is about twice as fast."""
