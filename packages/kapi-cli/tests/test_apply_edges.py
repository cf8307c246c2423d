"""Change sets that once ended in a traceback: each is a clean result now."""

from __future__ import annotations

import json

RECIPE = """version: v1
name: edges
collections:
  - name: ui
    content: ["*.json"]
"""


def _rev(kapi, doc: str, block: str) -> str:
    return next(r["rev"] for r in kapi.inspect(doc) if r["ref"]["block"] == block)


def test_delete_block_in_a_project_passes_the_commit_check(kapi, tmp_path):
    (tmp_path / "kapi.yaml").write_text(RECIPE)
    (tmp_path / "en.json").write_text('{"a": "Hello", "b": "World"}\n')
    op = {"op": "delete_block", "at": {"doc": "en.json", "block": "a"}}
    change = {"ops": [{**op, "if_match": {"en": _rev(kapi, "en.json", "a")}}]}
    result = kapi("apply", "--json", "-", input=json.dumps(change))
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["status"] == "applied"
    assert json.loads((tmp_path / "en.json").read_text()) == {"b": "World"}


def test_a_decision_outside_a_project_is_refused_for_want_of_a_store(kapi, tmp_path):
    (tmp_path / "en.json").write_text('{"a": "Hello"}\n')
    env = {"KAPI_NO_PROJECT": "1"}
    read = kapi("inspect", "en.json", env=env)
    rev = json.loads(read.stdout)[0]["rev"]
    op = {"op": "decide", "at": {"doc": "en.json", "block": "a"}, "if_match": rev}
    change = {"ops": [{**op, "outcome": "establish"}]}
    result = kapi("apply", "--json", "-", input=json.dumps(change), env=env)
    assert result.exit_code == 3, result.output
    error = json.loads(result.stdout)["ops"][0]["error"]
    assert (error["code"], error["capability"]) == ("unsupported", "decide")
    assert (tmp_path / "en.json").read_text() == '{"a": "Hello"}\n'


def test_replacing_text_that_holds_a_character_reference_replaces_the_reference(kapi, tmp_path):
    page = "<html><head><title>Caf&eacute; &amp; th&#233;</title></head><body></body></html>\n"
    (tmp_path / "page.html").write_text(page)
    env = {"KAPI_NO_PROJECT": "1"}
    [record] = json.loads(kapi("inspect", "page.html", env=env).stdout)
    assert record["text"] == "Café & thé"
    op = {"op": "replace_text", "at": record["ref"], "if_match": record["rev"]}
    change = {"ops": [{**op, "edits": [{"find": "Café", "text": "Coffee"}]}]}
    result = kapi("apply", "--json", "-", input=json.dumps(change), env=env)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "page.html").read_text() == page.replace("Caf&eacute;", "Coffee")
    [after] = json.loads(kapi("inspect", "page.html", env=env).stdout)
    assert after["text"] == "Coffee & thé"
