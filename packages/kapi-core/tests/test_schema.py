"""The JSON Schemas generated from the attrs types."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from jsonschema import Draft202012Validator

from kapi.core.change.ops import OP_KINDS, ChangeSet
from kapi.core.change.read import ReadPage
from kapi.core.change.result import Result
from kapi.core.change.schema import (
    DRAFT,
    change_set_schema,
    op_schema,
    read_page_schema,
    result_schema,
)
from kapi.core.change.wire import (
    encode_change_set,
    encode_op,
    encode_read_page,
    encode_result,
    wire_fields,
)


def _load_strategies() -> Any:
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
AT = {"doc": "app/en.json", "block": "home.title"}
CHECK = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

CHANGE_SET = Draft202012Validator(change_set_schema())
RESULT = Draft202012Validator(result_schema())
READ = Draft202012Validator(read_page_schema())


@pytest.mark.parametrize(
    "schema",
    [change_set_schema(), result_schema(), read_page_schema(), *map(op_schema, OP_KINDS)],
)
def test_generated_schemas_are_valid_draft_2020_12(schema: dict[str, Any]) -> None:
    assert schema["$schema"] == DRAFT
    Draft202012Validator.check_schema(schema)
    json.dumps(schema)  # plain JSON, nothing Python-only inside


def test_every_op_is_a_member_named_by_its_const() -> None:
    members = change_set_schema()["properties"]["ops"]["items"]["oneOf"]
    assert [member["properties"]["op"]["const"] for member in members] == list(OP_KINDS)


@pytest.mark.parametrize("kind", list(OP_KINDS))
def test_op_schema_is_generated_from_the_op_class(kind: str) -> None:
    schema = op_schema(kind)
    cls: type = OP_KINDS[kind]
    names = [name for _, name in wire_fields(cls)]
    assert list(schema["properties"]) == names
    assert schema["additionalProperties"] is False
    assert schema["required"][0] == "op"
    assert {field.name for field in attrs.fields(cls)} == {attr for attr, _ in wire_fields(cls)}


def test_op_schema_of_an_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown operation"):
        op_schema("rename_block")


def test_schema_requires_what_the_decoder_requires() -> None:
    set_content = op_schema("set_content")
    assert set_content["required"] == ["op", "at", "if_match"]
    assert set_content["properties"]["if_match"]["pattern"] == "^(absent|\\*|r:[0-9a-f]{16})$"
    assert op_schema("native")["required"] == ["op", "doc", "if_match", "name", "args"]
    assert op_schema("memory")["properties"]["from"]["required"] == ["edition", "text"]
    assert change_set_schema()["required"] == ["ops"]
    assert result_schema()["required"] == ["schema", "status", "record", "docs", "ops"]


def test_schemas_refuse_what_the_contract_refuses() -> None:
    both = {"op": "set_content", "at": AT, "if_match": REV, "text": "a", "runs": []}
    data = {
        "op": "set_content",
        "at": AT,
        "if_match": REV,
        "runs": [{"ph": {"id": "1", "data": "x"}}],
    }
    two_selectors = {
        "op": "replace_text",
        "at": AT,
        "if_match": REV,
        "edits": [{"find": "a", "start": 0, "end": 1, "text": "b"}],
    }
    unknown = {"op": "recipe", "path": "a", "value": 1, "extra": True}
    bad_form = {
        "op": "set_content",
        "at": AT,
        "if_match": REV,
        "runs": [{"plural": {"pivot": "n", "forms": {"several": []}}}],
    }
    for op in (both, data, two_selectors, unknown, bad_form):
        assert not CHANGE_SET.is_valid({"ops": [op]}), op
    good = {
        "op": "set_content",
        "at": AT,
        "if_match": "absent",
        "text": "a",
        "path": [0, {"plural": "=2"}],
    }
    assert CHANGE_SET.is_valid({"ops": [good]})


def test_read_page_schema_knows_the_inspect_extras() -> None:
    block = read_page_schema()["properties"]["blocks"]["items"]
    assert {"role", "level", "projected"} <= set(block["properties"])
    assert block["required"] == ["ref", "rev", "text", "ops"]


@CHECK
@given(S.change_sets)
def test_encoded_change_sets_validate_against_the_generated_schema(change_set: ChangeSet) -> None:
    CHANGE_SET.validate(encode_change_set(change_set))
    for op in change_set.ops:
        Draft202012Validator(op_schema(op.op)).validate(encode_op(op))


@CHECK
@given(S.results)
def test_encoded_results_validate_against_the_generated_schema(result: Result) -> None:
    RESULT.validate(encode_result(result))


@CHECK
@given(S.read_pages)
def test_encoded_read_pages_validate_against_the_generated_schema(page: ReadPage) -> None:
    READ.validate(encode_read_page(page))
    READ.validate(encode_read_page(page, inspect=True))
