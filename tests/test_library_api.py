"""The public library API the README documents, used as another tool would use it."""

from __future__ import annotations

import importlib
import json

import pytest

import kapi.core.change as change
from kapi.core.edittext import parse_edit_text, render_edit_text
from kapi.core.model import Block, Document, PcClose, PcOpen, Text
from kapi.core.revision import revision

PUBLIC_MODULES = [
    "kapi.core.model",
    "kapi.core.revision",
    "kapi.core.edittext",
    "kapi.core.edition",
    "kapi.core.format",
    "kapi.core.change",
    "kapi.core.change.ops",
    "kapi.core.change.result",
    "kapi.core.change.errors",
    "kapi.core.change.service",
    "kapi.formats.registry",
]


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_public_modules_declare_their_surface(name):
    module = importlib.import_module(name)
    assert module.__all__, name
    for symbol in module.__all__:
        assert getattr(module, symbol) is not None, f"{name}.{symbol}"


def test_decode_errors_carry_code_pointer_and_message():
    with pytest.raises(change.ChangeError) as err:
        change.decode_change_set(
            b'{"ops": [{"op": "set_content", "at": {"doc": "a", "block": "b"}, "if_match": 5, "text": "x"}]}'
        )
    assert err.value.info.code == "invalid"
    assert err.value.info.pointer == "/ops/0/if_match"
    assert err.value.info.message


def test_schemas_are_json_schemas():
    for schema in (change.change_set_schema(), change.result_schema(), change.read_page_schema()):
        assert schema["$schema"].startswith("https://json-schema.org/draft/2020-12")
    assert change.op_schema("set_content")["properties"]["op"]["const"] == "set_content"


def test_edit_text_and_revisions():
    runs = (
        Text("Click "),
        PcOpen(id="1", type="fmt:bold", data="<b>"),
        Text("here"),
        PcClose(id="1", type="fmt:bold", data="</b>"),
    )
    text = render_edit_text(runs)
    assert text == 'Click <x id="1"/>here<x id="/1"/>'
    assert parse_edit_text(text, runs) == runs
    assert revision("en", runs).startswith("r:")


def test_running_the_change_service_over_a_home():
    block = Block(id="b1", name="greeting", locale="en", source=(Text("Hello"),))
    home = change.MemoryHome({"ui": Document(format="memory", locale="en", blocks=(block,))})
    wire = json.dumps(
        {
            "ops": [
                {
                    "op": "set_content",
                    "at": {"doc": "ui", "block": "greeting"},
                    "if_match": revision("en", block.source),
                    "text": "Hi",
                }
            ]
        }
    )
    result = change.ChangeService(home).apply(
        change.decode_change_set(wire), change.Actor("tool", name="my-tool")
    )
    encoded = change.encode_result(result)
    assert encoded["status"] == "applied"
    assert encoded["ops"][0]["after"] == revision("en", (Text("Hi"),))
    assert home.documents["ui"].blocks[0].source == (Text("Hi"),)
