"""The host API called directly, as the MCP server will call it: typed requests in, typed results out.

Each case mirrors one the CLI tests cover, so both doors answer alike.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

from kapi.core.change.ports import Actor, ActorKind
from kapi.core.change.result import SetStatus
from kapi.host.actor import ResolvedActor
from kapi.host.apply import (
    MAX_CHANGE_SET_BYTES,
    apply_change_set,
    change_set_schema,
    read_change_set,
)
from kapi.host.errors import EXIT_USAGE, HostError, KapiError, error_payload, exit_code_of
from kapi.host.formats import FormatInfo, list_formats
from kapi.host.init import InitRequest, run_init
from kapi.host.inputs import inputs_for
from kapi.host.inspect import InspectRequest, run_inspect
from kapi.host.stats import StatsRequest, run_stats
from kapi.host.wire import encode
from kapi.host.workspace import open_workspace

EN = '{\n  "title": "Welcome to the shop",\n  "cart": "Your cart"\n}\n'
FR = '{\n  "title": "Bienvenue",\n  "cart": "Votre panier"\n}\n'
RECIPE = """version: v1
name: shop
defaults:
  source_language: en
  target_languages: [fr]
collections:
  - name: ui
    content:
      - path: locales/en.json
        target: locales/{lang}.json
"""
PERSON = ResolvedActor(Actor(ActorKind.PERSON))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "locales").mkdir()
    (tmp_path / "locales/en.json").write_text(EN)
    (tmp_path / "locales/fr.json").write_text(FR)
    (tmp_path / "kapi.yaml").write_text(RECIPE)
    return tmp_path


def test_inspect_in_a_project_joins_the_translation(project: Path) -> None:
    with open_workspace(cwd=project) as workspace:
        paths = inputs_for(["locales/en.json"], workspace, stdin_is_terminal=True)
        result = run_inspect(InspectRequest(paths=tuple(paths)), workspace)
    assert result.exit_code == 0 and result.failures == ()
    records = result.encoded()
    assert [r["ref"] for r in records] == [
        {"doc": "locales/en.json", "block": "title", "edition": "en"},
        {"doc": "locales/en.json", "block": "cart", "edition": "en"},
    ]
    assert records[0]["editions"]["fr"]["text"] == "Bienvenue"


def test_inspect_reports_a_failure_and_still_reads_the_rest(tmp_path: Path) -> None:
    (tmp_path / "en.json").write_text(EN)
    with open_workspace(cwd=tmp_path, environ={"KAPI_NO_PROJECT": "1"}) as workspace:
        result = run_inspect(InspectRequest(paths=("en.json", "missing.json")), workspace)
    assert result.exit_code == EXIT_USAGE
    assert [f.code for f in result.failures] == ["not_found"]
    assert len(result.records) == 2


def test_no_input_at_a_terminal_is_a_usage_error(tmp_path: Path) -> None:
    with open_workspace(cwd=tmp_path, environ={"KAPI_NO_PROJECT": "1"}) as workspace:
        with pytest.raises(HostError) as raised:
            inputs_for([], workspace, stdin_is_terminal=True)
        assert inputs_for([], workspace, stdin_is_terminal=False) == ["-"]
    assert raised.value.exit_code == EXIT_USAGE


def test_stats_count_the_declared_content(project: Path) -> None:
    with open_workspace(cwd=project) as workspace:
        paths = inputs_for([], workspace, stdin_is_terminal=True)
        result = run_stats(StatsRequest(paths=tuple(paths)), workspace)
    assert result.exit_code == 0
    assert encode(result.counts) == {
        "files": [
            {"path": "locales/en.json", "format": "json", "blocks": 2, "words": 6, "characters": 28}
        ],
        "total": {"files": 1, "blocks": 2, "words": 6, "characters": 28},
    }


def test_apply_writes_a_translation_into_its_own_file(project: Path) -> None:
    with open_workspace(cwd=project) as workspace:
        [record] = [
            r
            for r in run_inspect(InspectRequest(paths=("locales/en.json",)), workspace).encoded()
            if r["ref"]["block"] == "cart"
        ]
        op = {"op": "set_content", "at": {"doc": "locales/fr.json", "block": "cart"}}
        change = json.dumps(
            {"ops": [{**op, "if_match": record["editions"]["fr"]["rev"], "text": "Mon panier"}]}
        )
        outcome = apply_change_set(change, actor=PERSON, workspace=workspace)
    assert outcome.exit_code == 0 and outcome.result.status == SetStatus.APPLIED
    assert (project / "locales/fr.json").read_text() == FR.replace("Votre panier", "Mon panier")
    assert (project / "locales/en.json").read_text() == EN


def test_apply_refuses_an_oversized_set_before_decoding(tmp_path: Path) -> None:
    with open_workspace(cwd=tmp_path, environ={"KAPI_NO_PROJECT": "1"}) as workspace:
        outcome = apply_change_set(
            b" " * (MAX_CHANGE_SET_BYTES + 1), actor=PERSON, workspace=workspace
        )
    assert outcome.exit_code == 3
    assert outcome.result.error is not None
    assert outcome.result.error.code == "budget_exceeded"


def test_reading_a_change_set(tmp_path: Path) -> None:
    import io

    (tmp_path / "set.json").write_bytes(b'{"ops": []}')
    stdin = io.BytesIO(b'{"ops": []}')
    assert read_change_set(str(tmp_path / "set.json"), stdin=stdin, stdin_is_terminal=True) == (
        b'{"ops": []}'
    )
    assert read_change_set("-", stdin=stdin, stdin_is_terminal=True) == b'{"ops": []}'
    with pytest.raises(HostError, match="no change set"):
        read_change_set(None, stdin=io.BytesIO(), stdin_is_terminal=True)
    with pytest.raises(HostError, match=r"missing\.json"):
        read_change_set(str(tmp_path / "missing.json"), stdin=stdin, stdin_is_terminal=False)


def test_op_schemas(tmp_path: Path) -> None:
    assert change_set_schema()["title"]
    assert "set_content" in json.dumps(change_set_schema("set_content"))
    with pytest.raises(HostError, match="unknown op 'nope'") as raised:
        change_set_schema("nope")
    assert raised.value.exit_code == EXIT_USAGE


def test_init_proposes_and_writes_a_recipe(tmp_path: Path) -> None:
    (tmp_path / "locales").mkdir()
    (tmp_path / "locales/en.json").write_text(EN)
    (tmp_path / "locales/fr.json").write_text(FR)
    result = run_init(InitRequest(folder=tmp_path))
    encoded = encode(result.summary)
    assert encoded["target_languages"] == ["fr"]
    assert encoded["collections"][0]["target"]
    assert (tmp_path / "kapi.yaml").read_text() == result.plan.recipe_text()
    recipe = (tmp_path / "kapi.yaml").read_bytes()
    kept = run_init(InitRequest(folder=tmp_path))  # a recipe there is kept; the wiring is added
    assert not kept.recipe_written and (tmp_path / "kapi.yaml").read_bytes() == recipe
    assert {f.action for f in kept.agents.files} == {"unchanged"}
    with pytest.raises(HostError) as agent:
        run_init(InitRequest(folder=tmp_path, force=True), actor_kind=ActorKind.AGENT)
    assert agent.value.code == "not_permitted"
    run_init(InitRequest(folder=tmp_path, force=True))  # a person may replace it


def test_formats_are_typed_and_encode_as_kapi_formats_json() -> None:
    formats = list_formats()
    assert all(isinstance(f, FormatInfo) for f in formats)
    by_name = {f["name"]: f for f in encode(formats)}
    assert by_name["json"]["structural"] is True
    assert by_name["po"]["interchange"] is True
    assert isinstance(by_name["json"]["extensions"], list)


def test_every_error_maps_to_an_exit_code_and_a_payload() -> None:
    from kapi.core.change.errors import ChangeError, ErrorCode
    from kapi.core.format import FormatError

    stale = ChangeError.of(ErrorCode.STALE, "moved")
    unreadable = FormatError("broken", path="a.json", line=3)
    usage = HostError("bad flag", exit_code=EXIT_USAGE)
    assert [exit_code_of(e) for e in (stale, unreadable, usage, RuntimeError())] == [3, 2, 2, 1]
    assert error_payload(unreadable) == {"error": "a.json:3: broken", "code": "invalid"}
    assert error_payload(usage) == {"error": "bad flag", "code": "usage"}
    assert all(isinstance(e, KapiError) for e in (stale, unreadable, usage))


def test_the_public_host_api_resolves_every_name_it_lists() -> None:
    import kapi.host

    for name in kapi.host.__all__:
        value = getattr(kapi.host, name)
        assert value is not None, name
        assert name in vars(importlib.import_module(value.__module__)), name
