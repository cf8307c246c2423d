"""The served surface as a contract: golden snapshots, the generated reference page, sets."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from kapi.mcp.reference import listed, render
from kapi.mcp.sets import (
    ALL_FLOWS_TOOLS,
    ALL_TOOLS_EXTRA,
    SET_NAMES,
    TOOL_SETS,
    UnknownToolSet,
    parse_sets,
    served_tools,
)

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = Path(__file__).parent / "golden"
CONFORMANCE = ROOT / "tests" / "conformance" / "neokapi-mcp-v1"


@pytest.fixture(scope="module")
def surface() -> tuple[list[Any], list[Any]]:
    return listed()


def _golden(name: str, value: Any) -> Any:
    path = GOLDEN / name
    text = json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    if os.environ.get("KAPI_UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{path.name} is missing: run with KAPI_UPDATE_GOLDEN=1 and review it"
    return json.loads(path.read_text(encoding="utf-8")), json.loads(text)


def test_tool_names_and_input_schemas_match_their_golden_snapshot(surface):
    tools, _ = surface
    served = [
        {"name": t.name, "input_schema": t.input_schema}
        for t in sorted(tools, key=lambda t: t.name)
    ]
    expected, got = _golden("mcp_tools.golden.json", served)
    assert got == expected


def test_resource_templates_extend_the_reference_golden_with_project(surface):
    _, templates = surface
    served = [
        {"uri_template": t.uri_template, "name": t.name, "mime_type": t.mime_type}
        for t in sorted(templates, key=lambda t: t.uri_template)
    ]
    expected, got = _golden("mcp_resources.golden.json", served)
    assert got == expected
    reference = json.loads((CONFORMANCE / "mcp_resources.golden.json").read_text())
    for old in reference:
        ours = next(t for t in served if t["name"] == old["name"])
        assert ours["uri_template"] == old["uri_template"].replace("{?format}", "{?format,project}")
        assert ours["mime_type"] == old["mime_type"]


def test_the_committed_reference_page_is_what_the_server_serves(surface):
    tools, templates = surface
    page = (ROOT / "docs" / "mcp.md").read_text(encoding="utf-8")
    assert page == render(tools, templates), (
        "docs/mcp.md differs from the server: run python -m kapi.mcp.reference docs/mcp.md"
    )


def test_every_served_tool_belongs_to_a_set_or_a_widening(surface):
    tools, _ = surface
    placed = {n for names in TOOL_SETS.values() for n in names} | set(ALL_TOOLS_EXTRA)
    placed |= set(ALL_FLOWS_TOOLS)
    assert {t.name for t in tools} <= placed
    assert set(served_tools(frozenset(SET_NAMES), all_tools=True, all_flows=True)) == {
        t.name for t in tools
    }


def test_no_tool_runs_a_callers_command_or_decides_for_a_person(surface):
    tools, _ = surface
    names = {t.name for t in tools}
    for never in (
        "external-command",
        "script",
        "exec",
        "context_keep",
        "context_drop",
        "context_review",
        "context_reset",
        "context_sync",
        "decide",
    ):
        assert never not in names
    # the first generation's tools never shadow their successors in a default set
    for set_name in SET_NAMES:
        assert not set(TOOL_SETS[set_name]) & set(ALL_TOOLS_EXTRA)


@pytest.mark.parametrize(
    ("value", "sets"),
    [
        ((), {"writing"}),
        (("Writing, CONTENT",), {"writing", "content"}),
        (("translation", "review"), {"translation", "review"}),
        (("all",), set(SET_NAMES)),
        ((" , ",), {"writing"}),
    ],
)
def test_tool_set_values_parse_as_the_cli_takes_them(value, sets):
    assert parse_sets(value) == frozenset(sets)


def test_an_unknown_set_names_every_set():
    with pytest.raises(
        UnknownToolSet, match="the sets are writing, content, translation, review, all"
    ):
        parse_sets(("writing,nope",))


def test_the_empty_answer_and_the_note_tool_teach_the_recording_habit():
    import re

    from kapi.host.context import NOTHING
    from kapi.mcp.instructions import INSTRUCTIONS
    from kapi.mcp.server import DESCRIPTIONS

    for text in (INSTRUCTIONS, NOTHING, DESCRIPTIONS["context_note"]):
        assert "name" in text and "spelling variety" in text
        assert re.search(r"your (own )?text does not", text)
        assert "two ways" in text or "more than one way" in text
