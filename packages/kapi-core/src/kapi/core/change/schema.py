"""JSON Schemas (draft 2020-12) of the change set, the result and the read page.

They are generated from the attrs types and the wire tables in
:mod:`kapi.core.change.wire`; the only hand-kept parts are the tables below of
descriptions, patterns, enums and exactly-one-of choices a type cannot say.
The generated change-set schema only extends the frozen ``kapi.change/v1`` one.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from enum import Enum
from types import NoneType
from typing import Any, Literal, get_args, get_origin, get_type_hints

import attrs

from kapi.core.change.ops import (
    OP_KINDS,
    SCHEMA,
    Anchor,
    Annotate,
    BlockRef,
    Branch,
    ChangeSet,
    Decide,
    DeleteBlock,
    Edit,
    EditionContent,
    Evidence,
    InsertBlock,
    Mark,
    Memory,
    MemorySide,
    Native,
    Origin,
    Position,
    Range,
    Recipe,
    Ref,
    RemoveEdition,
    ReplaceText,
    Selection,
    SetAttribute,
    SetContent,
    Term,
    Unannotate,
)
from kapi.core.change.read import BlockRead, CodeInfo, EditionRead, ReadPage, Structure
from kapi.core.change.result import (
    RESULT_SCHEMA,
    Current,
    DocResult,
    Finding,
    Invalidation,
    OpResult,
    OpStatus,
    Result,
    ResultRef,
    SetStatus,
)
from kapi.core.change.wire_shape import (
    OP_CLASSES,
    OP_MEMBERS,
    PLURAL_FORMS,
    RUN_KEYS,
    RUN_MEMBERS,
    STEP_MEMBERS,
    is_mapping_type,
    is_tuple_type,
    is_union_type,
    required_attrs,
    wire_fields,
)
from kapi.core.model import Constraints, PcClose, PcOpen, Ph, Plural, Select, Sub, Text

__all__ = [
    "DRAFT",
    "change_set_schema",
    "op_schema",
    "read_page_schema",
    "result_schema",
]

DRAFT = "https://json-schema.org/draft/2020-12/schema"

REVISION_PATTERN = "^r:[0-9a-f]{16}$"
IF_MATCH_PATTERN = "^(absent|\\*|r:[0-9a-f]{16})$"
DIGEST_PATTERN = "^sha256:[0-9a-f]{64}$"

_PLURAL_FORM: dict[str, Any] = {
    "description": "a CLDR plural form (zero, one, two, few, many, other) or an exact value =N",
    "anyOf": [{"enum": list(PLURAL_FORMS)}, {"pattern": "^=[0-9]+(\\.[0-9]+)?$"}],
}
_ONE_CONTENT = [{"required": ["text"]}, {"required": ["runs"]}]
_ONE_SELECTOR = [{"required": ["find"]}, {"required": ["start", "end"]}, {"required": ["range"]}]

# ---------------------------------------------------------------------------
# What a type cannot say.

_CLASS_EXTRA: dict[type, dict[str, Any]] = {
    SetContent: {"oneOf": _ONE_CONTENT},
    EditionContent: {"oneOf": _ONE_CONTENT},
    Edit: {"oneOf": _ONE_SELECTOR},
    Selection: {"oneOf": _ONE_SELECTOR},
}

_REVISION_GUARDED = (SetContent, ReplaceText, SetAttribute, Mark, RemoveEdition, Decide)

_FIELD_EXTRA: dict[tuple[type, str], dict[str, Any]] = {
    (ChangeSet, "schema"): {"const": SCHEMA},
    (ChangeSet, "mode"): {"enum": ["apply", "preview"]},
    (ChangeSet, "gate"): {"enum": ["enforce", "report"]},
    **{(cls, "if_match"): {"pattern": IF_MATCH_PATTERN} for cls in _REVISION_GUARDED},
    (SetContent, "basis"): {"pattern": REVISION_PATTERN},
    (Annotate, "if_match"): {"pattern": REVISION_PATTERN},
    (Native, "if_match"): {"pattern": DIGEST_PATTERN},
    (DeleteBlock, "if_match"): {"additionalProperties": {"pattern": REVISION_PATTERN}},
    (ReplaceText, "edits"): {"minItems": 1},
    (Decide, "outcome"): {"enum": ["establish", "reject", "withdraw", "advise"]},
    (Decide, "score"): {"minimum": 0, "maximum": 100},
    (Term, "action"): {"enum": ["upsert", "delete"]},
    (Memory, "action"): {"enum": ["add", "delete"]},
    (Anchor, "kind"): {"enum": ["block", "run", "range", "form"]},
    **{(cls, "data"): {"const": ""} for cls in (Ph, PcOpen, PcClose)},
    (Plural, "forms"): {"propertyNames": {"type": "string", **_PLURAL_FORM}},
    (Branch, "plural"): _PLURAL_FORM,
    (Result, "schema"): {"const": RESULT_SCHEMA},
    (Result, "status"): {"enum": [status.value for status in SetStatus]},
    (OpResult, "op"): {"enum": [*OP_KINDS, "provenance"]},
    (OpResult, "status"): {"enum": [status.value for status in OpStatus]},
    (BlockRead, "ops"): {"items": {"enum": list(OP_KINDS)}},
}

# In a reply, these are written as null when they hold nothing.
_NULLABLE = frozenset({(Result, "record"), (OpResult, "blocked_by")})

# ---------------------------------------------------------------------------
# Descriptions, for the person or agent reading `kapi apply --schema`.

_CLASS_DESCRIPTIONS: dict[type, str] = {
    ChangeSet: "A change set: operations that change content, record review decisions "
    "and edit context assets, applied in order and all or nothing. Each content "
    "operation names the revision its sender read.",
    SetContent: "Give an edition new content, as placeholder text or as runs. "
    'if_match "absent" creates the edition.',
    ReplaceText: "Replace pieces of an edition's text, found by text, by code-point offsets "
    "or by run positions; inline codes and plurals stay as they are.",
    SetAttribute: "Set an attribute of an inline code, such as the href of a link.",
    Mark: "Wrap a span of text in a new paired code of a vocabulary type (fmt:bold, "
    "link:hyperlink).",
    RemoveEdition: "Remove one edition of a block.",
    Annotate: "Attach a stand-off annotation to an edition; one with the same type and id "
    "is replaced.",
    Unannotate: "Remove the annotation with this type and id.",
    InsertBlock: "Add a new block to a document, after or before a block key.",
    DeleteBlock: "Remove a block and all its editions from a document.",
    Native: "Run a format's own operation, guarded by the digest of the document read.",
    Decide: "Record a review decision on the edition revision you read. An agent sends "
    "only advise.",
    Term: "Add, change or delete a term in the project's terms.",
    Memory: "Add or delete a pair in the content memory.",
    Recipe: "Set one allowed field of the project recipe.",
    Ref: "one edition of a block in a document",
    BlockRef: "a whole block of a document",
    ResultRef: "an edition of a block in a document, as the service names it",
    Edit: "one replacement: the text to replace and what replaces it",
    Selection: "the text to wrap",
    Range: "a half-open span between two run positions",
    Position: "a run and a code-point offset inside it",
    Origin: "the tool that produced the content; kept only for a tool sender",
    Anchor: "where in the edition the annotation applies; left out, the whole block",
    EditionContent: "the new block's content in one edition",
    MemorySide: "one side of a memory pair",
    Evidence: "a place the wording was seen",
    Result: "What a change set did: its status, each document it staged and each "
    "operation's outcome.",
    DocResult: "a document the set staged",
    OpResult: "one operation's outcome",
    Finding: "a check finding",
    Current: "what a stale refusal found in place of the revision sent",
    Invalidation: "a derived edition this edit made stale",
    ReadPage: "A page of a document's blocks as a sender sees them before a change: each "
    "block's reference, revision, edit text, codes, structures, other editions, and the "
    "operations it takes.",
    BlockRead: "one block as read",
    EditionRead: "another edition of the block",
    CodeInfo: "an inline code, keyed by its token id",
    Structure: "a plural or select in the edition, with each branch's edit text",
    Text: "text",
    Ph: "a standalone code: a variable, a line break, an image",
    PcOpen: "the opening half of a paired code",
    PcClose: "the closing half of a paired code",
    Sub: "a reference to a sub-block",
    Plural: "content that varies by a number",
    Select: "content that varies by a value",
    Constraints: "what an edit may do with the code",
}

_FIELD_DESCRIPTIONS: dict[tuple[type, str], str] = {
    (ChangeSet, "mode"): "apply (left out) or preview: compute, check and diff, write nothing",
    (ChangeSet, "gate"): "enforce (left out): a failing finding the change introduces refuses "
    "it; report: it lands with its findings",
    (ChangeSet, "require_basis"): "refuse a derived-edition write whose authoritative edition "
    "moved since it was read",
    (ChangeSet, "note"): "one line for history and review",
    (ChangeSet, "evidence"): "where the wording behind the change was seen",
    (ChangeSet, "ops"): "the operations, in order; [] changes nothing. Positions and if_match "
    "name the content as the set began, so several operations on one block all send the "
    "revision that was read",
    (Annotate, "if_match"): "the revision the anchor was read against",
    (Native, "if_match"): "the digest (head) of the document read",
    (DeleteBlock, "if_match"): "the revision read of each edition of the block, by edition key; "
    "at least the document's own edition",
    (CodeInfo, "kind"): "paired, placeholder (a value the program fills in), standalone (any "
    "other lone code: inline code, a line break, an image, a tag) or subblock",
    (CodeInfo, "disp"): "what the code stands for as the file spells it, such as %(name)s or "
    "**…** for a pair; left out where the spelling is markup",
    (CodeInfo, "constraints"): "what the guard lets an edit do with the code: leave it out "
    "(deletable), repeat it (cloneable), move it past another code (reorderable)",
    (Structure, "codes"): "the codes of the branches where a token names another code than "
    "the text around the structure",
    (Native, "name"): "the format's operation, such as docx.append_paragraph",
    (Native, "args"): "the arguments, as the format describes them",
    (SetAttribute, "name"): "the attribute (href, src, alt, title) the format declares writable",
    (SetAttribute, "value"): "the attribute's new value",
    (Mark, "type"): "the vocabulary type of the new code, such as fmt:bold",
    (Annotate, "type"): "the annotation's type, such as note or term",
    (Annotate, "id"): "the annotation's id; left out, one is minted and the result names it",
    (Annotate, "value"): "the annotation's payload: any JSON value",
    (InsertBlock, "editions"): "the new block's content by edition key; must include the "
    "document's own edition",
    (InsertBlock, "name"): "the new block's key, where the format keys its blocks",
    (InsertBlock, "after"): "the key of the block the new one follows",
    (InsertBlock, "before"): "the key of the block the new one precedes",
    (Decide, "outcome"): "establish, reject, withdraw, or advise (a pre-review)",
    (Decide, "score"): "a score from 0 to 100",
    (Decide, "reasons"): "why, in a few words each",
    (Term, "action"): "upsert or delete",
    (Term, "locale"): "the term's language; left out, the project's source language",
    (Term, "status"): "preferred, admitted, deprecated or forbidden",
    (Term, "replacement"): "the wording to use instead of a discouraged term",
    (Term, "replaces"): "a term this one replaces",
    (Term, "do_not_translate"): "true keeps the term as it is in every language; false clears "
    "that; left out leaves it unchanged",
    (Term, "advisory"): "a use of a discouraged term is reported without failing a check",
    (Term, "competitor"): "the term names a competitor",
    (Memory, "action"): "add or delete",
    (Memory, "from_"): "the side the pair translates from",
    (Memory, "to"): "the side the pair translates to",
    (Recipe, "path"): "the recipe field, as a dotted path",
    (Recipe, "value"): "the field's new value",
    (Edit, "text"): "the replacement, in placeholder form when it keeps codes a find named",
    (Origin, "tool"): "the tool that produced the content",
    (Origin, "kind"): "what the tool drew on, such as mt, ai or memory",
    (Origin, "engine"): "the engine or model the tool used",
    (Evidence, "path"): "a project-relative file",
    (Evidence, "block"): "a block key, as a read reports it",
    (Evidence, "quote"): "the text the wording was seen in",
    (Evidence, "url"): "a web page the wording was seen on",
    (MemorySide, "edition"): "the side's edition key",
    (MemorySide, "text"): "the side's text",
    (Anchor, "kind"): "block, run, range (start and end) or form (a plural form or select case)",
    (Anchor, "run_id"): "the id of the code the annotation is on",
    (Anchor, "key"): "the form or case, for a form anchor",
    (OpResult, "at"): "the edition the operation addressed, as the service names it",
    (OpResult, "before"): "the edition's revision before the operation",
    (OpResult, "after"): "the edition's revision after the operation",
    (OpResult, "id"): "the annotation's id, minted when the operation left it out",
    (OpResult, "resolved"): "where each edit, or the mark, landed in the edition as read",
    (OpResult, "current"): "for a stale refusal: the edition's revision now and its edit text",
    (Finding, "at"): "the edition the finding is about",
    (OpResult, "blocked_by"): "for an operation not applied because another was refused: that "
    "operation's index",
    (DocResult, "after"): "the digest written, or null when nothing was written",
    (BlockRead, "role"): "inspect only: the block's role, such as heading or list-item",
    (BlockRead, "level"): "inspect only: the heading level or nesting depth",
    (BlockRead, "projected"): "inspect only: the block rendered in other formats, by format",
}

_NAME_DESCRIPTIONS: dict[str, str] = {
    "at": "the edition the operation changes",
    "doc": "the document, as a read names it",
    "block": "the block key a read reports",
    "edition": "an edition key: a language tag with optional ;tone= and ;channel=, such as fr "
    "or en;channel=short; left out is the document's own edition",
    "if_match": 'the revision you read, "absent" for an edition that must not exist yet, or '
    '"*" to write without a guard (a person only)',
    "basis": "for a derived edition: the revision of the authoritative edition it was made from",
    "text": 'the content, with inline codes as the <x id="…"/> tokens a read shows',
    "runs": "the content as runs; codes carry their type and attributes, never native data",
    "path": 'a plural form or select case, as run index then branch: [1, {"plural": "one"}]',
    "find": 'the text to match, in placeholder form; codes have zero width unless a <x id="…"/> '
    "token names one",
    "occurrence": "which match of find, from 1; left out, find must match once",
    "start": "start offset in code points of the text, codes having zero width",
    "end": "end offset, exclusive",
    "range": "a span between run positions",
    "origin": "how a tool produced the content",
    "code": 'the code\'s id, as the token <x id="…"/> shows it',
    "id": 'the code\'s id, as the token <x id="…"/> shows it',
    "type": "the vocabulary type, such as fmt:bold or code:placeholder",
    "subType": "the format's own name for the code",
    "data": "always empty: the format keeps a code's native form and spells a new code from "
    "its type",
    "equiv": "the code's plain-text equivalent",
    "disp": "what an editor shows for the code",
    "attrs": "attributes such as href, alt or title",
    "noTranslate": "the text is not for translation, such as a command",
    "pivot": "the variable the branches choose by",
    "forms": "the runs of each plural form",
    "cases": "the runs of each case",
    "ref": "the sub-block the reference points at",
    "rev": "the edition's revision",
    "select": "a select case",
}

# ---------------------------------------------------------------------------
# The generator.


def _merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _without_none(t: Any) -> tuple[Any, bool]:
    if is_union_type(t) and NoneType in get_args(t):
        rest = [m for m in get_args(t) if m is not NoneType]
        if len(rest) == 1:
            return rest[0], True
    return t, False


class _Builder:
    """Walks attrs types into JSON Schema; ``reply`` marks the nullability a reply schema has."""

    def __init__(self, *, reply: bool, refs: Mapping[type, str]) -> None:
        self.reply = reply
        self.refs = refs
        self.defs: dict[str, Any] = {}

    def ref(self, name: str, build: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        if name not in self.defs:
            self.defs[name] = {}  # a placeholder while building, for recursive types
            self.defs[name] = build()
        return {"$ref": f"#/$defs/{name}"}

    def type_schema(self, t: Any) -> dict[str, Any]:
        if t is str:
            return {"type": "string"}
        if t is bool:
            return {"type": "boolean"}
        if t is int:
            return {"type": "integer"}
        if t is Any:
            return {}
        if get_origin(t) is Literal:
            return {"type": "string", "const": get_args(t)[0]}
        if isinstance(t, type) and issubclass(t, Enum):
            return {"type": "string", "enum": [member.value for member in t]}
        if is_union_type(t):
            members = frozenset(get_args(t)) - {NoneType}
            if members == OP_MEMBERS:
                return {"oneOf": [self.object_schema(cls) for cls in OP_CLASSES]}
            if members == RUN_MEMBERS:
                return self.ref("run", self.run_definition)
            inner, _ = _without_none(t)
            return self.type_schema(inner)
        if is_tuple_type(t):
            element = get_args(t)[0]
            if is_union_type(element) and frozenset(get_args(element)) == STEP_MEMBERS:
                return self.ref("path", self.path_definition)
            return {"type": "array", "items": self.type_schema(element)}
        if is_mapping_type(t):
            return {"type": "object", "additionalProperties": self.type_schema(get_args(t)[1])}
        if attrs.has(t):
            if t in self.refs:
                return self.ref(self.refs[t], lambda: self.object_schema(t))
            return self.object_schema(t)
        raise TypeError(f"no schema for {t!r}")

    def property_schema(self, cls: type, attr: str, wire: str, t: Any) -> dict[str, Any]:
        inner, optional = _without_none(t)
        schema = dict(self.type_schema(t))
        if "$ref" not in schema:
            schema = _merge(schema, _FIELD_EXTRA.get((cls, attr), {}))
        description = _FIELD_DESCRIPTIONS.get((cls, attr))
        if description is None and not self.reply:
            description = _NAME_DESCRIPTIONS.get(wire)
        if description and "description" not in schema:
            schema["description"] = description
        if self.reply and isinstance(schema.get("type"), str):
            nullable = (
                (cls, attr) in _NULLABLE
                or schema["type"] == "array"
                or (optional and attrs.has(inner))
                or (optional and attr in required_attrs(cls))
            )
            if nullable:
                schema["type"] = ["null", schema["type"]]
        return schema

    def object_schema(self, cls: type) -> dict[str, Any]:
        hints = get_type_hints(cls)
        fields = wire_fields(cls)
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {
                wire: self.property_schema(cls, attr, wire, hints[attr]) for attr, wire in fields
            },
        }
        if cls in _CLASS_DESCRIPTIONS:
            schema["description"] = _CLASS_DESCRIPTIONS[cls]
        required = [wire for attr, wire in fields if attr in required_attrs(cls)]
        if required:
            schema["required"] = required
        schema["additionalProperties"] = False
        schema.update(copy.deepcopy(_CLASS_EXTRA.get(cls, {})))
        return schema

    def run_definition(self) -> dict[str, Any]:
        members = [self.object_schema(Text)]
        for cls, key in RUN_KEYS.items():
            members.append(
                {
                    "type": "object",
                    "properties": {key: self.object_schema(cls)},
                    "required": [key],
                    "additionalProperties": False,
                }
            )
        return {
            "description": "one run of content: text; an inline code named by its id, type and "
            "attributes (never its native data); or a plural or select whose branches are runs",
            "oneOf": members,
        }

    def path_definition(self) -> dict[str, Any]:
        hints = get_type_hints(Branch)
        steps: list[dict[str, Any]] = [{"type": "integer", "minimum": 0}]
        for attr, wire in wire_fields(Branch):
            steps.append(
                {
                    "type": "object",
                    "properties": {wire: self.property_schema(Branch, attr, wire, hints[attr])},
                    "required": [wire],
                    "additionalProperties": False,
                }
            )
        return {
            "type": "array",
            "items": {
                "description": 'a run index, {"plural": form} or {"select": case}',
                "oneOf": steps,
            },
            "description": "a walk into plurals and selects: a run index, then the form or "
            "case, repeated for nesting",
        }


def _document(title: str, body: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    return {
        "$schema": DRAFT,
        "$comment": f"{title}, generated from the attrs types of kapi.core.change; it extends "
        "the schema frozen by the reference implementation.",
        "title": title,
        **body,
        "$defs": dict(sorted(defs.items())),
    }


def _change_builder() -> _Builder:
    return _Builder(reply=False, refs={Ref: "ref", BlockRef: "block"})


def change_set_schema() -> dict[str, Any]:
    """The JSON Schema of a ``kapi.change/v1`` change set."""
    builder = _change_builder()
    body = builder.object_schema(ChangeSet)
    return _document(SCHEMA, body, builder.defs)


def result_schema() -> dict[str, Any]:
    """The JSON Schema of a ``kapi.change-result/v1`` result."""
    builder = _Builder(reply=True, refs={})
    body = builder.object_schema(Result)
    return _document(RESULT_SCHEMA, body, builder.defs)


def read_page_schema() -> dict[str, Any]:
    """The JSON Schema of a ``kapi.change/v1`` read page (with the inspect record's extras)."""
    builder = _Builder(reply=True, refs={})
    body = builder.object_schema(ReadPage)
    return _document(f"{SCHEMA} read", body, builder.defs)


def op_schema(kind: str) -> dict[str, Any]:
    """The JSON Schema of one operation kind (``kapi apply --schema OP``)."""
    cls = OP_KINDS.get(kind)
    if cls is None:
        raise ValueError(f"unknown operation {kind!r}; one of {', '.join(OP_KINDS)}")
    builder = _change_builder()
    body = builder.object_schema(cls)
    return _document(f"{SCHEMA} {kind}", body, builder.defs)
