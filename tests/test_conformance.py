"""Conformance with the reference: what kapi writes validates against neokapi's frozen schemas,
and kapi's generated schemas only extend them.

The frozen schemas are copied into ``tests/conformance/neokapi-change-v1`` (their origin and
licence are in its ``NOTICE.md``).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from jsonschema import Draft202012Validator

from kapi.core.change.decode import decode_change_set
from kapi.core.change.errors import (
    Candidate,
    ChangeError,
    ErrorCode,
    ErrorInfo,
    GuardSubcode,
    Searched,
    SpanPos,
    TextSpan,
)
from kapi.core.change.ops import (
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
from kapi.core.change.schema import change_set_schema, read_page_schema, result_schema
from kapi.core.change.wire import encode_change_set, encode_read_page, encode_result
from kapi.core.model import Constraints, PcClose, PcOpen, Ph, Plural, Select, Sub, Text

ROOT = Path(__file__).resolve().parents[1]
FROZEN = ROOT / "tests" / "conformance" / "neokapi-change-v1"


def _frozen(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((FROZEN / f"{name}.v1.frozen.json").read_text())
    return loaded


def _load_strategies() -> Any:
    name = "kapi_change_strategies"
    if name not in sys.modules:
        path = ROOT / "packages" / "kapi-core" / "tests" / "change_strategies.py"
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


S = _load_strategies()
FROZEN_CHANGE_SET = Draft202012Validator(_frozen("schema"))
FROZEN_RESULT = Draft202012Validator(_frozen("result"))
FROZEN_READ = Draft202012Validator(_frozen("read"))
MANY = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

REV = "r:0123456789abcdef"
REV2 = "r:fedcba9876543210"
DIGEST = "sha256:" + "ab" * 32
AT = Ref(doc="app/en.json", block="home.title")
AT_FR = Ref(doc="app/en.json", block="home.title", edition="fr")
RESULT_AT = ResultRef(doc="app/en.json", block="home.title", edition="fr")


# --- hand-written examples: every op kind, every status, every error code ------------------

RUNS = (
    Text("Delete "),
    PcOpen(id="1", type="fmt:bold", sub_type="html:b"),
    Text("all", no_translate=True),
    PcClose(id="1", type="fmt:bold"),
    Ph(id="2", type="code:placeholder", equiv="{count}", constraints=Constraints(deletable=False)),
    Sub(id="3", ref="b7", equiv="note"),
    Plural(pivot="count", forms={"one": (Text("file"),), "=0": (), "other": (Text("files"),)}),
    Select(pivot="gender", cases={"female": (Text("her"),), "other": (Text("their"),)}),
)

EXAMPLE_OPS = (
    SetContent(
        at=AT_FR,
        if_match=REV,
        runs=RUNS,
        basis=REV2,
        origin=Origin(tool="kapi-mt", kind="mt", engine="m1"),
    ),
    SetContent(at=AT_FR, if_match="absent", text='Supprimer <x id="1"/>tout<x id="/1"/>'),
    SetContent(at=AT_FR, if_match="*", text="fichier", path=(6, Branch(plural="one"))),
    ReplaceText(
        at=AT,
        if_match=REV,
        edits=(
            Edit(text="Remove", find="Delete"),
            Edit(text="x", find="l", occurrence=2),
            Edit(text="y", start=0, end=3),
            Edit(text="z", range=Range(Position(0, 1), Position(2))),
            Edit(text="files", find="files", path=(6, Branch(plural="other"))),
        ),
        path=(7, Branch(select="female")),
    ),
    SetAttribute(at=AT, if_match=REV, code="1", name="href", value="https://example.com"),
    Mark(
        at=AT,
        if_match=REV,
        range=Selection(find="all"),
        type="link:hyperlink",
        attrs={"href": "/all"},
    ),
    Mark(at=AT, if_match=REV, range=Selection(start=0, end=6), type="fmt:bold"),
    RemoveEdition(at=AT_FR, if_match=REV),
    Annotate(
        at=AT,
        type="note",
        if_match=REV,
        id="n1",
        anchor=Anchor(
            kind="range", path=(6, Branch(plural="one")), start=Position(0), end=Position(0, 3)
        ),
        value={"text": "check the plural", "by": ["reviewer"]},
    ),
    Annotate(at=AT, type="entity", anchor=Anchor(kind="run", run_id="2")),
    Unannotate(at=AT, type="note", id="n1"),
    InsertBlock(
        doc="app/en.json",
        editions={"en": EditionContent(text="New"), "fr": EditionContent(runs=(Text("Nouveau"),))},
        after="home.title",
        name="home.subtitle",
    ),
    InsertBlock(doc="app/en.json", editions={"en": EditionContent(text="First")}, before="a"),
    DeleteBlock(at=BlockRef(doc="app/en.json", block="old"), if_match={"en": REV, "fr": REV2}),
    Native(doc="report.docx", if_match=DIGEST, name="docx.append_paragraph", args={"text": "x"}),
    Decide(at=AT_FR, if_match=REV, outcome="advise", score=85, reasons=("fluent", "terms ok")),
    Decide(at=AT_FR, if_match=REV, outcome="establish"),
    Term(
        action="upsert",
        term="kapi",
        locale="en",
        status="preferred",
        replacement="kapi",
        replaces="Kapi",
        do_not_translate=True,
        advisory=False,
        competitor=False,
    ),
    Term(action="delete", term="widget"),
    Memory(action="add", from_=MemorySide("en", "Save"), to=MemorySide("fr", "Enregistrer")),
    Memory(
        action="delete", from_=MemorySide("en", "Open"), to=MemorySide("de;tone=formal", "Öffnen")
    ),
    Recipe(path="voice.tone", value="warm"),
    Recipe(path="check.limits", value={"max_length": 80, "strict": True, "tags": ["ui"]}),
)

EXAMPLE_SETS = (
    ChangeSet(ops=EXAMPLE_OPS),
    ChangeSet(
        ops=EXAMPLE_OPS[:3],
        schema="kapi.change/v1",
        mode="preview",
        gate="report",
        require_basis=True,
        note="applied with `kapi apply`",
        evidence=(Evidence(path="docs/style.md", quote="Delete all"), Evidence(url="https://x")),
    ),
    ChangeSet(),
)


def _error(code: ErrorCode, **fields: Any) -> ErrorInfo:
    return ErrorInfo(code=code, message=f"refused: {code.value}", **fields)


SPAN = TextSpan(start=SpanPos(0, 1), end=SpanPos(2, 0), path=(6, Branch(plural="one")))
ERRORS = (
    _error(ErrorCode.INVALID, pointer="/ops/2/edits/0/find"),
    _error(
        ErrorCode.NOT_FOUND,
        field="at/block",
        candidates=(Candidate(key="home.titel"), Candidate(key="home.tile")),
    ),
    _error(
        ErrorCode.NOT_FOUND,
        field="edits/0/find",
        searched=Searched(text="Dlete", path=(6, Branch(plural="other"))),
    ),
    _error(
        ErrorCode.AMBIGUOUS,
        field="edits/0/find",
        candidates=(
            Candidate(occurrence=1, text="…all files…", at=SPAN),
            Candidate(occurrence=2, at=TextSpan(SpanPos(4, 0), SpanPos(4, 3))),
        ),
    ),
    _error(ErrorCode.STALE, field="if_match"),
    _error(ErrorCode.DOC_CHANGED),
    *(
        _error(ErrorCode.GUARD, subcode=subcode, expected='<x id="1"/>', found="")
        for subcode in GuardSubcode
    ),
    _error(ErrorCode.GATE_FAILED),
    _error(ErrorCode.UNSUPPORTED, capability="synthesize:fmt:bold"),
    _error(ErrorCode.NOT_PERMITTED, field="gate"),
    _error(ErrorCode.BUDGET_EXCEEDED),
    _error(ErrorCode.UNREACHABLE),
)

FINDING = Finding(
    rule="terms.vocabulary",
    message='use "remove", not "delete"',
    fails=True,
    suggested=False,
    at=RESULT_AT,
    range=SPAN,
    replacement="remove",
)

EXAMPLE_RESULTS = (
    Result(
        status=SetStatus.APPLIED,
        record="op-42",
        docs=(
            DocResult(
                doc="app/en.json",
                written=True,
                before=DIGEST,
                after=DIGEST,
                home="file",
                findings=(),
            ),
            DocResult(
                doc="app/fr.json", written=True, after=DIGEST, file="app/fr.json", edition="fr"
            ),
        ),
        ops=(
            OpResult(
                i=0,
                op="replace_text",
                status=OpStatus.APPLIED,
                at=ResultRef(doc="app/en.json", block="home.title"),
                before=REV,
                after=REV2,
                resolved=(SPAN,),
                invalidates=(Invalidation(edition="fr"),),
            ),
            OpResult(
                i=1,
                op="set_content",
                status=OpStatus.UNCHANGED,
                at=RESULT_AT,
                before=REV,
                after=REV,
            ),
            OpResult(i=2, op="annotate", status=OpStatus.APPLIED, at=RESULT_AT, id="note-1"),
            OpResult(
                i=3, op="decide", status=OpStatus.APPLIED, at=RESULT_AT, before=REV, after=REV
            ),
            OpResult(i=4, op="term", status=OpStatus.APPLIED),
            OpResult(i=5, op="provenance", status=OpStatus.APPLIED, at=RESULT_AT, basis=REV2),
            OpResult(
                i=6, op="set_content", status=OpStatus.APPLIED, at=RESULT_AT, findings=(FINDING,)
            ),
        ),
    ),
    Result(
        status=SetStatus.REFUSED,
        record=None,
        docs=(DocResult(doc="app/en.json", written=False, after=None),),
        ops=(
            OpResult(i=0, op="set_content", status=OpStatus.NOT_APPLIED, blocked_by=1),
            OpResult(
                i=1,
                op="replace_text",
                status=OpStatus.REFUSED,
                at=RESULT_AT,
                error=_error(ErrorCode.STALE, field="if_match"),
                current=Current(rev=REV2, text='Supprimer <x id="1"/>'),
            ),
            OpResult(
                i=2,
                op="set_content",
                status=OpStatus.REFUSED,
                at=RESULT_AT,
                error=_error(ErrorCode.STALE, field="if_match"),
                current=Current(rev="absent"),
            ),
        ),
    ),
    *(
        Result(
            status=SetStatus.REFUSED,
            ops=(OpResult(i=0, op="mark", status=OpStatus.REFUSED, at=RESULT_AT, error=error),),
        )
        for error in ERRORS
    ),
    *(Result(status=SetStatus.REFUSED, error=error) for error in ERRORS),
    Result(
        status=SetStatus.PREVIEWED,
        docs=(
            DocResult(
                doc="app/en.json",
                written=False,
                after=None,
                before=DIGEST,
                diff="--- a/app/en.json\n+++ b/app/en.json\n",
                findings=(FINDING,),
            ),
        ),
        ops=(
            OpResult(
                i=0,
                op="set_content",
                status=OpStatus.PREVIEWED,
                at=RESULT_AT,
                before=REV,
                after=REV2,
            ),
        ),
    ),
    Result(
        status=SetStatus.PARTIAL,
        record="op-43",
        docs=(
            DocResult(doc="a.json", written=True, after=DIGEST),
            DocResult(doc="b.json", written=False, after=None),
        ),
        ops=(
            OpResult(
                i=0,
                op="set_content",
                status=OpStatus.APPLIED,
                at=ResultRef(doc="a.json", block="k"),
            ),
            OpResult(
                i=1,
                op="set_content",
                status=OpStatus.NOT_APPLIED,
                at=ResultRef(doc="b.json", block="k"),
            ),
            OpResult(
                i=2, op="recipe", status=OpStatus.REFUSED, error=_error(ErrorCode.UNREACHABLE)
            ),
        ),
    ),
)

EXAMPLE_PAGES = (
    ReadPage(
        doc="docs/guide.md",
        home="file",
        format="md",
        head=DIGEST,
        blocks=(
            BlockRead(
                ref=ResultRef(doc="docs/guide.md", block="p1", edition="en"),
                rev=REV,
                text='Click <x id="1"/>here<x id="/1"/> to <x id="2/"/>',
                ops=("set_content", "replace_text", "set_attribute", "mark", "annotate"),
                codes={
                    "1": CodeInfo(
                        kind="paired",
                        type="link:hyperlink",
                        attrs={"href": "/x"},
                        writable=("href",),
                    ),
                    "2/": CodeInfo(kind="placeholder", type="code:placeholder", equiv="{n}"),
                    "sub:1": CodeInfo(kind="subblock", attrs={"ref": "b7"}),
                },
                structures=(
                    Structure(
                        path=(0,),
                        kind="plural",
                        pivot="n",
                        branches={"one": "file", "other": "files"},
                    ),
                    Structure(
                        path=(0, Branch(plural="one"), 1), kind="select", branches={"a": "x"}
                    ),
                ),
                editions={
                    "fr": EditionRead(
                        rev=REV2, text="Cliquez", status="translated", stale=True, basis=REV
                    ),
                    "de": EditionRead(rev="absent", text="", status="new", stale=False),
                },
                role="heading",
                level=2,
                projected={"html": "<h2>Click</h2>"},
            ),
            BlockRead(
                ref=ResultRef(doc="docs/guide.md", block="code1"), rev=REV, text="ls -l", ops=()
            ),
        ),
        next="YzE6c2hhMjU2OmFi",
    ),
    ReadPage(doc="empty.json", home="workspace", format="json", head=DIGEST, blocks=()),
)


@pytest.mark.parametrize("change_set", EXAMPLE_SETS)
def test_example_change_sets_validate_against_the_frozen_schema(change_set: ChangeSet) -> None:
    FROZEN_CHANGE_SET.validate(encode_change_set(change_set))
    assert decode_change_set(json.dumps(encode_change_set(change_set))) == change_set


def test_examples_cover_every_op_kind_status_and_error_code() -> None:
    assert {op.op for op in EXAMPLE_OPS} == set(S.OPS_BY_KIND)
    set_statuses = {r.status for r in EXAMPLE_RESULTS}
    assert set_statuses == {"applied", "refused", "previewed", "partial"}
    op_statuses = {op.status for r in EXAMPLE_RESULTS for op in r.ops}
    assert op_statuses == {"applied", "unchanged", "refused", "not_applied", "previewed"}
    assert {e.code for e in ERRORS} == set(ErrorCode)
    assert {e.subcode for e in ERRORS} >= set(GuardSubcode)


@pytest.mark.parametrize("result", EXAMPLE_RESULTS)
def test_example_results_validate_against_the_frozen_schema(result: Result) -> None:
    FROZEN_RESULT.validate(encode_result(result))


@pytest.mark.parametrize("page", EXAMPLE_PAGES)
def test_example_read_pages_validate_against_the_frozen_schema(page: ReadPage) -> None:
    FROZEN_READ.validate(encode_read_page(page))


def test_a_decode_refusal_becomes_a_valid_set_level_error_result() -> None:
    with pytest.raises(ChangeError) as caught:
        decode_change_set('{"ops": [{"op": "set_content"}]}')
    result = Result(status=SetStatus.REFUSED, error=caught.value.info)
    FROZEN_RESULT.validate(encode_result(result))


@MANY
@given(S.change_sets)
def test_generated_change_sets_validate_against_the_frozen_schema(change_set: ChangeSet) -> None:
    FROZEN_CHANGE_SET.validate(encode_change_set(change_set))


@MANY
@given(S.results)
def test_generated_results_validate_against_the_frozen_schema(result: Result) -> None:
    FROZEN_RESULT.validate(encode_result(result))


@MANY
@given(S.read_pages)
def test_generated_read_pages_validate_against_the_frozen_schema(page: ReadPage) -> None:
    FROZEN_READ.validate(encode_read_page(page))


# --- our generated schemas only extend the frozen ones ----------------------------------------

# Keywords that narrow or redirect what a value may be: each must stay exactly as frozen.
_EXACT = (
    "type", "const", "$ref", "pattern", "format", "not", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems", "minLength", "maxLength",
    "minProperties", "maxProperties", "uniqueItems", "multipleOf",
)  # fmt: skip


def extension_problems(frozen: Any, ours: Any, side: str, at: str = "") -> list[str]:
    """How ``ours`` fails to extend ``frozen``; empty when it does.

    ``side`` is ``writer`` for a request (nothing newly required) or ``reader`` for a reply
    (nothing required dropped). Every frozen property, $defs entry and oneOf/anyOf member must
    still be there, with the same type, const, $ref, pattern and bounds; no enum value may go
    and none be added where there was none; closed objects stay closed.
    """
    where = at or "(root)"
    if not isinstance(frozen, dict) or not isinstance(ours, dict):
        return [] if frozen == ours else [f"{where}: the schema changed"]
    problems: list[str] = []
    for keyword in _EXACT:
        if keyword in frozen and keyword not in ours:
            problems.append(f"{where}: {keyword} was removed")
        elif keyword in ours and keyword not in frozen:
            problems.append(f"{where}: {keyword} {ours[keyword]!r} was added")
        elif keyword in frozen and not _same(keyword, frozen[keyword], ours[keyword]):
            problems.append(f"{where}: {keyword} changed {frozen[keyword]!r} -> {ours[keyword]!r}")
    if "enum" in frozen:
        problems += [
            f"{where}: enum value {value!r} was removed"
            for value in frozen["enum"]
            if value not in ours.get("enum", [])
        ]
    elif "enum" in ours:
        problems.append(f"{where}: an enum was added")
    frozen_required, our_required = set(frozen.get("required", [])), set(ours.get("required", []))
    if side == "writer" and our_required - frozen_required:
        problems.append(f"{where}: newly required {sorted(our_required - frozen_required)}")
    if side == "reader" and frozen_required - our_required:
        problems.append(f"{where}: no longer required {sorted(frozen_required - our_required)}")
    problems += _additional(frozen, ours, side, at)
    for keyword in ("properties", "$defs"):
        for name, sub in frozen.get(keyword, {}).items():
            if name not in ours.get(keyword, {}):
                problems.append(f"{where}: {keyword} {name!r} was removed (a rename is a removal)")
            else:
                problems += extension_problems(
                    sub, ours[keyword][name], side, f"{at}/{keyword}/{name}"
                )
    for keyword in ("items", "propertyNames"):
        if keyword in frozen and keyword in ours:
            problems += extension_problems(frozen[keyword], ours[keyword], side, f"{at}/{keyword}")
        elif keyword in frozen or keyword in ours:
            problems.append(f"{where}: {keyword} was {'removed' if keyword in frozen else 'added'}")
    for keyword in ("oneOf", "anyOf"):
        problems += _members(keyword, frozen.get(keyword, []), ours.get(keyword, []), side, at)
    return problems


def _same(keyword: str, a: Any, b: Any) -> bool:
    if keyword == "type" and isinstance(a, list) and isinstance(b, list):
        return set(a) == set(b)
    return bool(a == b)


def _additional(frozen: dict[str, Any], ours: dict[str, Any], side: str, at: str) -> list[str]:
    mine, theirs = ours.get("additionalProperties"), frozen.get("additionalProperties")
    if theirs is False or mine is False:
        same = theirs is mine
        return [] if same else [f"{at or '(root)'}: additionalProperties {theirs!r} -> {mine!r}"]
    if (theirs is None) != (mine is None):
        return [f"{at or '(root)'}: additionalProperties {theirs!r} -> {mine!r}"]
    if theirs is None:
        return []
    return extension_problems(theirs, mine, side, f"{at}/additionalProperties")


def _members(keyword: str, frozen: list[Any], ours: list[Any], side: str, at: str) -> list[str]:
    if not frozen:
        return [f"{at or '(root)'}: {keyword} was added"] if ours else []
    by_key = {_member_key(member): member for member in ours}
    problems = []
    for member in frozen:
        key = _member_key(member)
        if key not in by_key:
            problems.append(f"{at or '(root)'}: {keyword} member {key} was removed")
        else:
            problems += extension_problems(member, by_key[key], side, f"{at}/{keyword}[{key}]")
    return problems


def _member_key(member: Any) -> str:
    """A oneOf/anyOf member's identity: its op const, else required names, type, or keywords."""
    if not isinstance(member, dict):
        return json.dumps(member)
    op = member.get("properties", {}).get("op", {})
    if isinstance(op, dict) and "const" in op:
        return f"op={op['const']}"
    if member.get("required"):
        return "required=" + ",".join(sorted(member["required"]))
    if "type" in member:
        return "type=" + json.dumps(member["type"])
    return "keywords=" + ",".join(
        sorted(k for k in member if k not in ("description", "title", "$comment"))
    )


@pytest.mark.parametrize(
    ("name", "ours", "side"),
    [
        ("schema", change_set_schema, "writer"),
        ("result", result_schema, "reader"),
        ("read", read_page_schema, "reader"),
    ],
)
def test_generated_schema_only_extends_the_frozen_one(name: str, ours: Any, side: str) -> None:
    generated = ours()
    Draft202012Validator.check_schema(generated)
    assert extension_problems(_frozen(name), generated, side) == []


def test_the_change_set_schema_requires_nothing_the_frozen_one_does_not() -> None:
    def required_sets(schema: Any, at: str = "") -> dict[str, set[str]]:
        found: dict[str, set[str]] = {}
        if isinstance(schema, dict):
            if "required" in schema:
                found[at] = set(schema["required"])
            for key, value in schema.items():
                found.update(required_sets(value, f"{at}/{key}"))
        elif isinstance(schema, list):
            for index, value in enumerate(schema):
                key = _member_key(value) if isinstance(value, dict) else str(index)
                found.update(required_sets(value, f"{at}[{key}]"))
        return found

    frozen, ours = required_sets(_frozen("schema")), required_sets(change_set_schema())
    for place, names in ours.items():
        assert names <= frozen.get(place, names), place


def test_the_extension_check_catches_what_breaks_a_schema() -> None:
    frozen = _frozen("schema")
    removed = change_set_schema()
    del removed["properties"]["note"]
    assert any("'note' was removed" in p for p in extension_problems(frozen, removed, "writer"))

    required = change_set_schema()
    required["required"] = ["ops", "mode"]
    assert any("newly required" in p for p in extension_problems(frozen, required, "writer"))

    retyped = change_set_schema()
    retyped["$defs"]["ref"]["properties"]["doc"]["type"] = "integer"
    assert any("type changed" in p for p in extension_problems(frozen, retyped, "writer"))

    renamed = change_set_schema()
    members = renamed["properties"]["ops"]["items"]["oneOf"]
    members[0]["properties"]["op"]["const"] = "set_text"
    assert any(
        "op=set_content was removed" in p for p in extension_problems(frozen, renamed, "writer")
    )

    result = result_schema()
    result["required"] = ["schema", "status"]
    assert any(
        "no longer required" in p for p in extension_problems(_frozen("result"), result, "reader")
    )

    loosened = change_set_schema()
    loosened["$defs"]["run"]["oneOf"][1]["properties"]["ph"]["additionalProperties"] = True
    assert any("additionalProperties" in p for p in extension_problems(frozen, loosened, "writer"))
