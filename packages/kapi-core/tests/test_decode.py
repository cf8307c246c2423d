"""Strict decoding of change sets: the three input forms, canonical keys, and refusals with pointers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kapi.core.change.decode import (
    decode_change_set,
    decode_read_page,
    decode_result,
    pointer,
)
from kapi.core.change.errors import ChangeError, ErrorCode
from kapi.core.change.ops import (
    ChangeSet,
    Decide,
    DeleteBlock,
    InsertBlock,
    Memory,
    Ref,
    SetContent,
    Term,
)
from kapi.core.change.wire import encode_change_set
from kapi.core.model import Ph, Text

MALFORMED = Path(__file__).with_name("malformed")
EXPECTED: dict[str, dict[str, str]] = json.loads((MALFORMED / "expected.json").read_text())

REV = "r:0123456789abcdef"
AT = {"doc": "app/en.json", "block": "home.title"}
SET_TITLE = {"op": "set_content", "at": AT, "if_match": REV, "text": "Hello"}


def refusal(data: str | bytes) -> ChangeError:
    with pytest.raises(ChangeError) as caught:
        decode_change_set(data)
    return caught.value


# --- the malformed corpus ------------------------------------------------------------


def test_corpus_is_large_and_complete() -> None:
    files = {path.name for path in MALFORMED.iterdir() if path.name != "expected.json"}
    assert files == set(EXPECTED)
    assert len(files) >= 40


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_malformed_change_set_is_refused_with_code_and_pointer(name: str) -> None:
    error = refusal((MALFORMED / name).read_bytes())
    expected = EXPECTED[name]
    assert (error.info.code.value, error.info.pointer) == (expected["code"], expected["pointer"])
    assert error.info.message
    assert "internal decoder error" not in error.info.message
    assert error.info.exit_code == 2


# --- the three input forms ------------------------------------------------------------


def test_one_object_with_ops() -> None:
    change_set = decode_change_set(json.dumps({"note": "title", "ops": [SET_TITLE]}))
    assert change_set.note == "title"
    assert change_set.ops == (SetContent(at=Ref(**AT), if_match=REV, text="Hello"),)


def test_empty_ops_is_a_valid_set_that_changes_nothing() -> None:
    assert decode_change_set('{"ops": []}') == ChangeSet()
    assert decode_change_set("[]") == ChangeSet()


def test_jsonl_with_an_envelope_line() -> None:
    lines = [json.dumps({"mode": "preview"}), json.dumps(SET_TITLE), json.dumps(SET_TITLE)]
    change_set = decode_change_set("\n".join(lines))
    assert change_set.mode == "preview"
    assert len(change_set.ops) == 2


def test_jsonl_of_op_lines_only_with_crlf_and_blank_lines() -> None:
    text = json.dumps(SET_TITLE) + "\r\n\r\n" + json.dumps(SET_TITLE) + "\r\n"
    change_set = decode_change_set(text.encode())
    assert change_set.mode is None
    assert len(change_set.ops) == 2


def test_a_single_op_line_is_a_set_of_one() -> None:
    assert len(decode_change_set(json.dumps(SET_TITLE)).ops) == 1


def test_bare_array_of_ops_and_utf8_bom() -> None:
    data = b"\xef\xbb\xbf" + json.dumps([SET_TITLE]).encode()
    assert len(decode_change_set(data).ops) == 1


def test_jsonl_bad_line_names_its_op_and_line() -> None:
    text = "\n".join([json.dumps(SET_TITLE), json.dumps(SET_TITLE), '{"op": "set_content",'])
    error = refusal(text)
    assert error.info.pointer == "/ops/2"
    assert "line 3" in error.info.message


def test_invalid_json_names_line_and_column() -> None:
    error = refusal('{\n  "ops": [\n    {"op": }\n  ]\n}')
    assert error.info.pointer == ""
    assert "line 3, column 12" in error.info.message


# --- canonical edition keys ------------------------------------------------------------


def test_edition_keys_come_back_canonical() -> None:
    data = {
        "ops": [
            {**SET_TITLE, "at": {**AT, "edition": "pt_br;channel=web"}},
            {
                "op": "insert_block",
                "doc": "app/en.json",
                "editions": {"EN": {"text": "New"}, "zh_hant_tw": {"text": "新"}},
            },
            {"op": "delete_block", "at": AT, "if_match": {"nb_no": REV}},
            {
                "op": "memory",
                "action": "add",
                "from": {"edition": "EN", "text": "Save"},
                "to": {"edition": "fr_ca;tone=formal", "text": "Enregistrer"},
            },
            {"op": "term", "action": "upsert", "term": "kapi", "locale": "en_gb"},
        ]
    }
    set_content, insert, delete, memory, term = decode_change_set(json.dumps(data)).ops
    assert isinstance(set_content, SetContent) and set_content.at.edition == "pt-BR;channel=web"
    assert isinstance(insert, InsertBlock) and list(insert.editions) == ["en", "zh-Hant-TW"]
    assert isinstance(delete, DeleteBlock) and dict(delete.if_match) == {"nb-NO": REV}
    assert isinstance(memory, Memory)
    assert (memory.from_.edition, memory.to.edition) == ("en", "fr-CA;tone=formal")
    assert isinstance(term, Term) and term.locale == "en-GB"


def test_empty_edition_names_the_own_edition_and_is_kept() -> None:
    change_set = decode_change_set(json.dumps([{**SET_TITLE, "at": {**AT, "edition": ""}}]))
    assert change_set.ops[0].at.edition == ""  # type: ignore[union-attr]


# --- what decoding leaves to the service --------------------------------------------------


def test_decide_score_without_advise_decodes() -> None:
    op = {"op": "decide", "at": AT, "if_match": REV, "outcome": "establish", "score": 40}
    (decide,) = decode_change_set(json.dumps([op])).ops
    assert decide == Decide(at=Ref(**AT), if_match=REV, outcome="establish", score=40)


def test_blind_write_and_report_gate_decode_for_the_policy_to_judge() -> None:
    data = {"gate": "report", "ops": [{**SET_TITLE, "if_match": "*"}]}
    change_set = decode_change_set(json.dumps(data))
    assert change_set.gate == "report"
    assert change_set.ops[0].if_match == "*"  # type: ignore[union-attr]


def test_runs_decode_with_empty_data_allowed() -> None:
    runs = [{"text": "Hi "}, {"ph": {"id": "1", "type": "code:placeholder", "data": ""}}]
    data = [{"op": "set_content", "at": AT, "if_match": REV, "runs": runs}]
    (op,) = decode_change_set(json.dumps(data)).ops
    assert op == SetContent(
        at=Ref(**AT), if_match=REV, runs=(Text("Hi "), Ph(id="1", type="code:placeholder"))
    )


# --- refusals never escape as anything else -------------------------------------------------


def test_refusal_is_a_change_error_of_code_invalid_with_an_rfc6901_pointer() -> None:
    data = {"ops": [{"op": "insert_block", "doc": "d", "editions": {"a/b~c": {"text": "x"}}}]}
    error = refusal(json.dumps(data))
    assert error.code is ErrorCode.INVALID
    assert error.info.pointer == "/ops/0/editions/a~1b~0c"
    assert pointer(("ops", 0, "a/b~c")) == "/ops/0/a~1b~0c"


def test_the_first_fault_in_the_set_as_sent_is_named() -> None:
    first = {**SET_TITLE, "if_match": "bad"}
    second = {**SET_TITLE, "basis": None}
    assert refusal(json.dumps([first, second])).info.pointer == "/ops/0/if_match"
    assert refusal(json.dumps([second, first])).info.pointer == "/ops/0/basis"


def _no_internal_error(data: str | bytes) -> None:
    try:
        decode_change_set(data)
    except ChangeError as error:
        assert error.code is ErrorCode.INVALID
        assert error.info.pointer is not None
        assert "internal decoder error" not in error.info.message, error.info.message


FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(st.binary(max_size=200))
def test_random_bytes_only_ever_refuse(data: bytes) -> None:
    _no_internal_error(data)


@FUZZ
@given(st.text(alphabet='{}[]":,0123456789.-+eEnulltrufas \n\\opsx', max_size=120))
def test_json_like_text_only_ever_refuses(text: str) -> None:
    _no_internal_error(text)


json_anything = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "op",
                    "ops",
                    "at",
                    "doc",
                    "block",
                    "edition",
                    "if_match",
                    "text",
                    "runs",
                    "edits",
                    "find",
                    "path",
                    "ph",
                    "plural",
                    "forms",
                    "x",
                ]
            ),
            inner,
            max_size=5,
        )
    ),
    max_leaves=20,
)


@FUZZ
@given(json_anything)
def test_random_json_only_ever_refuses(value: Any) -> None:
    _no_internal_error(json.dumps(value))
    _no_internal_error(json.dumps({"ops": [value]}))


_kinds = st.sampled_from(
    [
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
        "decide",
        "term",
        "memory",
        "recipe",
    ]
)


@FUZZ
@given(
    _kinds,
    st.dictionaries(
        st.sampled_from(
            [
                "at",
                "doc",
                "if_match",
                "text",
                "runs",
                "edits",
                "range",
                "editions",
                "outcome",
                "score",
                "from",
                "to",
                "value",
                "args",
                "name",
                "type",
                "id",
                "code",
                "path",
                "anchor",
                "action",
                "term",
            ]
        ),
        json_anything,
        max_size=6,
    ),
)
def test_random_op_bodies_only_ever_refuse(kind: str, body: dict[str, Any]) -> None:
    _no_internal_error(json.dumps([{"op": kind, **body}]))


def test_encoded_sets_mutated_only_ever_refuse() -> None:
    wire = encode_change_set(
        ChangeSet(ops=(SetContent(at=Ref(**AT), if_match=REV, runs=(Text("a"), Ph(id="1"))),))
    )
    text = json.dumps(wire)
    for index in range(len(text)):
        _no_internal_error(text[:index])
        _no_internal_error(text[:index] + text[index + 1 :])


# --- replies read back ------------------------------------------------------------------


def test_reply_decoders_refuse_with_change_error() -> None:
    with pytest.raises(ChangeError):
        decode_result("{")
    with pytest.raises(ChangeError):
        decode_result('{"ops": []}')
    with pytest.raises(ChangeError):
        decode_read_page('{"doc": "d"}')


# --- faults deep in a long set ---------------------------------------------------------


def _long_set(fault: str) -> str:
    ops = [dict(SET_TITLE, text=f"Title {index}") for index in range(300)]
    text = json.dumps({"ops": ops})
    marker = '"Title 200"'
    assert text.count(marker) == 1
    return text.replace(marker, fault)


@pytest.mark.parametrize(
    ("fault", "where", "says"),
    [
        ('"Title \\ud800"', "/ops/200/text", "lone surrogate"),
        ('"Title \\udc00 end"', "/ops/200/text", "lone surrogate"),
        ('"Title", "te\\ud83dxt": "x"', "/ops/200/te\ud83dxt", "lone surrogate"),
        ('"Title", "text": "again"', "/ops/200/text", "appears twice"),
        ('"Title", "runs": NaN', "/ops/200/runs", "not a number"),
        ('"Title", "runs": 1e999', "/ops/200/runs", "not a number"),
        ('"Title", "runs": ' + "[" * 70 + "]" * 70, "/ops/200/runs", "nested deeper"),
    ],
)
def test_a_fault_deep_in_a_long_set_is_refused_where_it_is(fault, where, says) -> None:
    error = refusal(_long_set(fault))
    assert error.info.code == ErrorCode.INVALID
    assert error.info.pointer is not None and error.info.pointer.startswith(where)
    assert says in error.info.message


def test_a_long_set_with_escapes_but_no_fault_decodes() -> None:
    change_set = decode_change_set(_long_set('"Titl\\u00e9 \\ud83d\\ude00 \\\\ud800"'))
    assert change_set.ops[200].text == "Titl\u00e9 \U0001f600 \\ud800"
    assert len(change_set.ops) == 300
