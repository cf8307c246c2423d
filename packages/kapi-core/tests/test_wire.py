"""The wire forms the encoder writes: shapes, key order, what is left out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kapi.core.change.decode import decode_change_set, decode_read_page, decode_result
from kapi.core.change.errors import (
    Candidate,
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
from kapi.core.change.read import BlockRead, CodeInfo, ReadPage
from kapi.core.change.result import Current, DocResult, OpResult, Result, ResultRef
from kapi.core.change.wire import (
    dumps,
    encode_change_set,
    encode_op,
    encode_read_page,
    encode_result,
)
from kapi.core.model import Constraints, PcClose, PcOpen, Ph, Plural, Select, Sub, Text


def _load_strategies() -> Any:
    import importlib.util
    import sys

    name = "kapi_change_strategies"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            name, Path(__file__).with_name("change_strategies.py")
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


S = _load_strategies()

REV = "r:0123456789abcdef"
AT = Ref(doc="app/en.json", block="home.title")
AT_FR = Ref(doc="app/en.json", block="home.title", edition="fr")
ROUND_TRIP = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def run_wire(run: Any) -> Any:
    return encode_op(SetContent(at=AT, if_match=REV, runs=(run,)))["runs"][0]


# --- runs --------------------------------------------------------------------------


def test_text_run_writes_no_translate_only_when_true() -> None:
    assert run_wire(Text("Hello")) == {"text": "Hello"}
    assert run_wire(Text("ls -l", no_translate=True)) == {"text": "ls -l", "noTranslate": True}


def test_code_runs_never_write_native_data_and_leave_out_empty_fields() -> None:
    ph = Ph(id="1", type="code:placeholder", sub_type="icu:argument", data="{name}", equiv="{name}")
    assert run_wire(ph) == {
        "ph": {"id": "1", "type": "code:placeholder", "subType": "icu:argument", "equiv": "{name}"}
    }
    opener = PcOpen(id="2", type="link:hyperlink", data='<a href="x">', attrs={"href": "x"})
    assert run_wire(opener) == {
        "pcOpen": {"id": "2", "type": "link:hyperlink", "attrs": {"href": "x"}}
    }
    assert run_wire(PcClose(id="2", type="link:hyperlink", data="</a>")) == {
        "pcClose": {"id": "2", "type": "link:hyperlink"}
    }
    assert run_wire(Ph(id="3")) == {"ph": {"id": "3"}}


def test_constraints_are_written_whole_when_set() -> None:
    ph = Ph(id="1", constraints=Constraints(deletable=False))
    assert run_wire(ph) == {
        "ph": {
            "id": "1",
            "constraints": {"deletable": False, "cloneable": True, "reorderable": True},
        }
    }


def test_sub_plural_and_select_shapes() -> None:
    assert run_wire(Sub(id="1", ref="b7")) == {"sub": {"id": "1", "ref": "b7"}}
    plural = Plural(pivot="count", forms={"one": (Text("1 file"),), "other": ()})
    assert run_wire(plural) == {
        "plural": {"pivot": "count", "forms": {"one": [{"text": "1 file"}], "other": []}}
    }
    select = Select(pivot="gender", cases={"female": (Ph(id="1"),)})
    assert run_wire(select) == {
        "select": {"pivot": "gender", "cases": {"female": [{"ph": {"id": "1"}}]}}
    }


def test_path_steps_are_ints_and_one_key_objects() -> None:
    op = SetContent(
        at=AT, if_match=REV, text="x", path=(0, Branch(plural="one"), 2, Branch(select="male"))
    )
    assert encode_op(op)["path"] == [0, {"plural": "one"}, 2, {"select": "male"}]


# --- operations: key order and omission --------------------------------------------

ORDERED_OPS: list[tuple[Any, list[str]]] = [
    (
        SetContent(
            at=AT_FR,
            if_match=REV,
            text="Bonjour",
            basis=REV,
            path=(0, Branch(plural="one")),
            origin=Origin(tool="mt", kind="mt"),
        ),
        ["op", "at", "if_match", "basis", "text", "path", "origin"],
    ),
    (
        ReplaceText(at=AT, if_match="*", edits=(Edit(text="Hi", find="Hello"),)),
        ["op", "at", "if_match", "edits"],
    ),
    (
        SetAttribute(at=AT, if_match=REV, code="1", name="href", value="/x"),
        ["op", "at", "if_match", "code", "name", "value"],
    ),
    (
        Mark(at=AT, if_match=REV, range=Selection(start=0, end=5), type="fmt:bold"),
        ["op", "at", "if_match", "range", "type"],
    ),
    (RemoveEdition(at=AT_FR, if_match=REV), ["op", "at", "if_match"]),
    (
        Annotate(at=AT, type="note", if_match=REV, id="n1", value={"text": "check"}),
        ["op", "at", "if_match", "type", "id", "value"],
    ),
    (Unannotate(at=AT, type="note", id="n1"), ["op", "at", "type", "id"]),
    (
        InsertBlock(doc="app/en.json", editions={"en": EditionContent(text="New")}, after="a"),
        ["op", "doc", "editions", "after"],
    ),
    (
        DeleteBlock(at=BlockRef(doc="app/en.json", block="a"), if_match={"en": REV}),
        ["op", "at", "if_match"],
    ),
    (
        Native(doc="a.docx", if_match="sha256:" + "0" * 64, name="docx.x", args={"n": 1}),
        ["op", "doc", "if_match", "name", "args"],
    ),
    (
        Decide(at=AT_FR, if_match=REV, outcome="advise", score=80, reasons=("reads well",)),
        ["op", "at", "if_match", "outcome", "score", "reasons"],
    ),
    (
        Term(action="upsert", term="kapi", do_not_translate=True),
        ["op", "action", "term", "do_not_translate"],
    ),
    (
        Memory(action="add", from_=MemorySide("en", "Save"), to=MemorySide("fr", "Enregistrer")),
        ["op", "action", "from", "to"],
    ),
    (Recipe(path="voice.tone", value="warm"), ["op", "path", "value"]),
]


@pytest.mark.parametrize(("op", "keys"), ORDERED_OPS, ids=[op.op for op, _ in ORDERED_OPS])
def test_op_keys_come_in_print_ops_order(op: Any, keys: list[str]) -> None:
    assert list(encode_op(op)) == keys


def test_every_op_kind_has_an_ordering_case() -> None:
    assert {op.op for op, _ in ORDERED_OPS} == set(S.OPS_BY_KIND)


def test_wire_names_from_and_run_id() -> None:
    memory = encode_op(Memory(action="add", from_=MemorySide("en", "a"), to=MemorySide("fr", "b")))
    assert memory["from"] == {"edition": "en", "text": "a"}
    assert "from_" not in memory
    annotate = encode_op(
        Annotate(at=AT, type="note", anchor=Anchor(kind="run", run_id="2", start=Position(1)))
    )
    assert annotate["anchor"] == {"kind": "run", "runId": "2", "start": {"run": 1}}


def test_edit_range_and_selection_leave_out_what_is_none() -> None:
    edit = Edit(text="x", range=Range(start=Position(0, 2), end=Position(1)))
    op = encode_op(ReplaceText(at=AT, if_match=REV, edits=(edit,)))
    assert op["edits"] == [
        {"text": "x", "range": {"start": {"run": 0, "offset": 2}, "end": {"run": 1}}}
    ]


def test_change_set_envelope_order_and_omission() -> None:
    empty = encode_change_set(ChangeSet())
    assert empty == {"ops": []}
    full = encode_change_set(
        ChangeSet(
            ops=(RemoveEdition(at=AT_FR, if_match=REV),),
            note="tidy",
            schema="kapi.change/v1",
            mode="preview",
            gate="report",
            require_basis=False,
        )
    )
    assert list(full) == ["schema", "mode", "gate", "require_basis", "note", "ops"]
    assert full["require_basis"] is False


def test_ref_edition_is_left_out_when_none_and_kept_when_empty() -> None:
    assert encode_op(RemoveEdition(at=AT, if_match=REV))["at"] == {
        "doc": "app/en.json",
        "block": "home.title",
    }
    own = Ref(doc="d", block="b", edition="")
    assert encode_op(RemoveEdition(at=own, if_match=REV))["at"]["edition"] == ""


# --- results -----------------------------------------------------------------------


def test_result_keeps_record_null_and_writes_schema_first() -> None:
    wire = encode_result(Result(status="applied"))
    assert wire == {
        "schema": "kapi.change-result/v1",
        "status": "applied",
        "record": None,
        "docs": [],
        "ops": [],
    }


def test_doc_result_after_is_null_when_nothing_was_written() -> None:
    doc = DocResult(doc="a.json", written=False, after=None)
    assert encode_result(Result(status="refused", docs=(doc,)))["docs"] == [
        {"doc": "a.json", "written": False, "after": None}
    ]


def test_blocked_by_is_written_only_for_a_blocked_op() -> None:
    refused = OpResult(
        i=0,
        op="replace_text",
        status="refused",
        at=ResultRef(doc="a.json", block="k"),
        error=ErrorInfo(code=ErrorCode.STALE, message="the edition changed", field="if_match"),
        current=Current(rev=REV, text="Hello"),
    )
    blocked = OpResult(i=1, op="set_content", status="not_applied", blocked_by=0)
    wire = encode_result(Result(status="refused", ops=(refused, blocked)))
    assert "blocked_by" not in wire["ops"][0]
    stray = OpResult(i=2, op="set_content", status="refused", blocked_by=0)
    assert "blocked_by" not in encode_result(Result(status="refused", ops=(stray,)))["ops"][0]
    assert wire["ops"][1] == {"i": 1, "op": "set_content", "status": "not_applied", "blocked_by": 0}
    assert wire["ops"][0]["error"] == {
        "code": "stale",
        "message": "the edition changed",
        "field": "if_match",
    }
    assert wire["ops"][0]["current"] == {"rev": REV, "text": "Hello"}


def test_error_detail_shapes() -> None:
    error = ErrorInfo(
        code=ErrorCode.GUARD,
        subcode=GuardSubcode.CODES_CHANGED,
        message="a code was dropped",
        candidates=(Candidate(occurrence=2, at=TextSpan(SpanPos(0, 1), SpanPos(0, 4))),),
        searched=Searched(text="Hi", path=(0, Branch(plural="other"))),
    )
    wire = encode_result(Result(status="refused", error=error))["error"]
    assert wire["code"] == "guard"
    assert wire["subcode"] == "codes_changed"
    assert wire["candidates"] == [
        {"occurrence": 2, "at": {"start": {"run": 0, "offset": 1}, "end": {"run": 0, "offset": 4}}}
    ]
    assert wire["searched"] == {"text": "Hi", "path": [0, {"plural": "other"}]}


# --- read pages ----------------------------------------------------------------------


def _page(**block: Any) -> ReadPage:
    read = BlockRead(
        ref=ResultRef(doc="d.md", block="p1"),
        rev=REV,
        text='Hello <x id="1"/>',
        ops=("set_content", "replace_text"),
        codes={"1": CodeInfo(kind="paired", type="fmt:bold")},
        **block,
    )
    return ReadPage(doc="d.md", home="file", format="md", head="sha256:" + "0" * 64, blocks=(read,))


def test_read_page_without_inspect_never_writes_role_level_or_projection() -> None:
    wire = encode_read_page(_page(role="heading", level=2, projected={"html": "<b>x</b>"}))
    assert list(wire) == ["doc", "home", "format", "head", "blocks"]
    assert wire["blocks"][0] == {
        "ref": {"doc": "d.md", "block": "p1"},
        "rev": REV,
        "text": 'Hello <x id="1"/>',
        "ops": ["set_content", "replace_text"],
        "codes": {"1": {"kind": "paired", "type": "fmt:bold"}},
    }


def test_inspect_adds_role_and_level_but_not_when_zero() -> None:
    block = encode_read_page(_page(role="heading", level=2), inspect=True)["blocks"][0]
    assert (block["role"], block["level"]) == ("heading", 2)
    plain = encode_read_page(_page(role="", level=0), inspect=True)["blocks"][0]
    assert "role" not in plain and "level" not in plain


def test_next_is_written_only_when_there_is_one() -> None:
    assert "next" not in encode_read_page(_page())
    page = _page()
    from attrs import evolve

    assert encode_read_page(evolve(page, next="YzE6"))["next"] == "YzE6"


# --- dumps ---------------------------------------------------------------------------


def test_dumps_keeps_non_ascii_and_markup_as_is() -> None:
    op = SetContent(at=AT_FR, if_match=REV, text='Héllo <x id="1"/> & “quotes”')
    text = dumps(ChangeSet(ops=(op,)))
    assert 'Héllo <x id=\\"1\\"/> & “quotes”' in text
    assert json.loads(text) == encode_change_set(ChangeSet(ops=(op,)))
    assert json.loads(dumps(Result(status="applied")))["record"] is None


# --- round trips -----------------------------------------------------------------------


@ROUND_TRIP
@given(S.change_sets)
def test_decode_of_encode_is_identity(change_set: ChangeSet) -> None:
    assert decode_change_set(dumps(change_set)) == change_set


@ROUND_TRIP
@given(S.change_sets)
def test_jsonl_and_array_forms_round_trip(change_set: ChangeSet) -> None:
    wire = encode_change_set(change_set)
    ops = wire.pop("ops")
    if ops:
        lines = [json.dumps(wire, ensure_ascii=False)] + [json.dumps(op) for op in ops]
        assert decode_change_set("\n".join(lines) + "\n") == change_set
    if not wire:
        assert decode_change_set(json.dumps(ops).encode()) == change_set
        if ops:
            op_lines = "\r\n".join(json.dumps(op) for op in ops)
            assert decode_change_set(op_lines) == change_set


@pytest.mark.parametrize("kind", sorted(S.OPS_BY_KIND))
def test_each_op_kind_round_trips(kind: str) -> None:
    @ROUND_TRIP
    @given(S.OPS_BY_KIND[kind])
    def check(op: Any) -> None:
        change_set = ChangeSet(ops=(op,))
        assert decode_change_set(dumps(change_set)) == change_set

    check()


@settings(max_examples=100, deadline=None)
@given(S.results)
def test_result_round_trips(result: Result) -> None:
    assert decode_result(dumps(result)) == result


@settings(max_examples=100, deadline=None)
@given(S.read_pages)
def test_inspect_read_page_round_trips(page: ReadPage) -> None:
    assert decode_read_page(json.dumps(encode_read_page(page, inspect=True))) == page


# The usual set_content op is built without the converter; anything near it, valid or not,
# must come out exactly as the converter reads it (the same op, or the same faults).
_near_values = st.one_of(
    st.text(max_size=6), st.none(), st.integers(), st.booleans(), st.lists(st.text(), max_size=2)
)
_near_refs = st.dictionaries(
    st.sampled_from(["doc", "block", "edition", "id", "Doc"]), _near_values, max_size=4
) | st.fixed_dictionaries(
    {"doc": st.text(max_size=6), "block": st.text(max_size=6)},
    optional={"edition": st.text(max_size=6) | st.none()},
)
_plain_ops = st.fixed_dictionaries(
    {
        "op": st.just("set_content"),
        "at": st.fixed_dictionaries(
            {"doc": st.text(max_size=6), "block": st.text(max_size=6)},
            optional={"edition": st.text(max_size=6)},
        ),
        "if_match": st.text(max_size=6),
        "text": st.text(max_size=6),
    },
    optional={"basis": st.text(max_size=6)},
)


@st.composite
def _near_ops(draw: st.DrawFn) -> dict[str, Any]:
    """A plain set_content op, or one with a field changed, dropped or added (itself or in at)."""
    op = draw(_plain_ops)
    change = draw(st.sampled_from(["none", "op", "field", "at", "at_extra", "drop", "extra"]))
    if change == "op":
        op["op"] = draw(st.sampled_from(["replace_text", "Set_content"]) | _near_values)
    elif change == "field":
        op[draw(st.sampled_from(["at", "if_match", "text", "basis"]))] = draw(_near_values)
    elif change == "at":
        op["at"] = draw(_near_refs)
    elif change == "at_extra":
        op["at"][draw(st.sampled_from(["id", "Doc", "edtion"]))] = draw(st.text(max_size=3))
    elif change == "drop":
        del op[draw(st.sampled_from(sorted(op)))]
    elif change == "extra":
        op[draw(st.sampled_from(["runs", "path", "note", "origin"]))] = draw(
            st.just([{"text": "a"}]) | st.just([0]) | _near_values
        )
    return op


def _through_converter(value: Any, cls: Any = None) -> Any:
    """What the strict converter makes of ``value`` as ``cls`` (an op by default), or its faults."""
    from kapi.core.change import wire
    from kapi.core.change.ops import Op

    try:
        return wire._structure_checked(wire._change_set_converter(), value, cls or Op)
    except wire.WireFault as fault:
        return ("faults", fault.faults)


def _as_read(value: Any, whole_set: bool = False) -> Any:
    """What the wire's public reader makes of ``value`` (an op, or a set), or its faults."""
    from kapi.core.change.wire import WireFault, structure_change_set, structure_op

    try:
        return structure_change_set(value) if whole_set else structure_op(value)
    except WireFault as fault:
        return ("faults", fault.faults)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(_near_ops())
def test_an_op_built_without_the_converter_is_the_converters(value):
    assert _as_read(value) == _through_converter(value)


def test_the_usual_set_content_takes_the_direct_way():
    from kapi.core.change import wire

    value = {
        "op": "set_content",
        "at": {"doc": "a.json", "block": "k", "edition": "fr"},
        "if_match": "r:0123456789abcdef",
        "text": "Bag",
    }
    assert wire._plain_set_content(value) == _through_converter(value)
    assert wire._plain_set_content({**value, "runs": []}) is None  # the converter reads it


# set_content ops of text or runs, with or without basis: the usual op and its neighbours
_set_contents = st.builds(
    SetContent,
    at=S.refs,
    if_match=S.revisions,
    text=st.none() | S.texts,
    basis=st.none() | S.digests,
    runs=st.none() | S.runs,
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(_set_contents)
def test_a_set_content_written_directly_is_what_the_converter_writes(op):
    from kapi.core.change import wire

    hook = wire._change_set_converter().get_unstructure_hook(SetContent)
    direct = wire.encode_op(op)
    assert list(direct.items()) == list(hook.generated(op).items())  # the same keys, in order


_envelope_values = {
    "schema": st.just("kapi.change/v1") | st.text(max_size=4),
    "mode": st.sampled_from(["apply", "preview"]) | st.text(max_size=4),
    "gate": st.sampled_from(["enforce", "report"]),
    "note": st.text(max_size=6),
    "require_basis": st.booleans(),
}


@st.composite
def _near_sets(draw: st.DrawFn) -> dict[str, Any]:
    """A set of plain ops with a plain envelope, or one with an envelope field of another
    kind, an unknown field, evidence, ops that are not a list, or one op that is not plain."""
    value: dict[str, Any] = {
        key: draw(strategy) for key, strategy in _envelope_values.items() if draw(st.booleans())
    }
    value["ops"] = draw(st.lists(_plain_ops, max_size=3))
    change = draw(st.sampled_from(["none", "field", "extra", "evidence", "ops", "op", "no_ops"]))
    if change == "field":
        value[draw(st.sampled_from(sorted(_envelope_values)))] = draw(_near_values)
    elif change == "extra":
        value[draw(st.sampled_from(["$schema", "Note", "id"]))] = draw(_near_values)
    elif change == "evidence":
        value["evidence"] = draw(st.just([]) | st.just([{"kind": "x"}]) | _near_values)
    elif change == "ops":
        value["ops"] = draw(_near_values | st.just({}))
    elif change == "op":
        value["ops"].append(draw(_near_ops()))
    elif change == "no_ops":
        del value["ops"]
    return value


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(_near_sets())
def test_a_set_built_without_the_converter_is_the_converters(value):
    assert _as_read(value, whole_set=True) == _through_converter(value, ChangeSet)


def test_the_usual_set_takes_the_direct_way():
    from kapi.core.change import wire

    op = {"op": "set_content", "at": {"doc": "a.json", "block": "k"}, "if_match": "*", "text": "x"}
    value = {"note": "n", "mode": "preview", "ops": [op]}
    assert wire._plain_change_set(value) == _through_converter(value, ChangeSet)
    assert wire._plain_change_set({**value, "evidence": []}) is None  # the converter reads it


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.builds(
        ChangeSet,
        ops=st.lists(
            _set_contents,
            max_size=3,
        ).map(tuple),
        schema=st.none() | st.just("kapi.change/v1"),
        mode=st.none() | st.sampled_from(["apply", "preview"]),
        gate=st.none() | st.sampled_from(["enforce", "report"]),
        require_basis=st.none() | st.booleans(),
        note=st.none() | st.text(max_size=5),
    )
)
def test_a_set_written_directly_is_what_the_converter_writes(change_set):
    from kapi.core.change import wire

    through = wire._change_set_converter().unstructure(change_set, ChangeSet)
    direct = wire.encode_change_set(change_set)
    assert list(direct.items()) == list(through.items())  # the same keys, in order
    assert [list(op.items()) for op in direct["ops"]] == [list(op.items()) for op in through["ops"]]
