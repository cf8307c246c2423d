"""The read-record encoder equals the change contract's converter on every format's fixtures.

``kapi inspect`` writes its records through :func:`kapi.host.wire.encode_read_records`,
planned once per class instead of a converter call per record; here every fixture
file (and a project whose translations are editions) is read through the host and
both encodings are compared record for record.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kapi.core.change.read import ReadPage
from kapi.core.change.wire import encode_read_page
from kapi.host.inspect import InspectRequest, run_inspect
from kapi.host.wire import encode_read_records, read_records_json, read_records_json_chunks
from kapi.host.workspace import open_workspace

FIXTURES = Path(__file__).resolve().parents[2] / "kapi-formats" / "tests" / "fixtures"
FILES = sorted(p for p in FIXTURES.rglob("*") if p.is_file())


def _contract(records: tuple, inspect: bool) -> list[dict]:
    page = ReadPage(doc="", home="file", format="", head="", blocks=records)
    blocks: list[dict] = encode_read_page(page, inspect=inspect)["blocks"]
    return blocks


def _both(records: tuple) -> None:
    for inspect in (True, False):
        fast = encode_read_records(records, inspect=inspect)
        assert fast == _contract(records, inspect)
        # Equal as JSON too: the same keys in the same order.
        assert json.dumps(fast) == json.dumps(_contract(records, inspect))
        # And the text written without the dicts is the C encoder's, character for character.
        compact = json.dumps(fast, ensure_ascii=False, separators=(",", ":"))
        assert read_records_json(records, inspect=inspect) == compact
        for size in (1, 2, 3):  # in pieces, as kapi inspect writes them
            pieces = list(read_records_json_chunks(records, inspect=inspect, size=size))
            assert "".join(pieces) == compact


def test_the_fixtures_are_there():
    assert len(FILES) > 30
    assert {p.parent.name for p in FILES} >= {"json", "po", "xliff", "markdown", "html"}


@pytest.mark.parametrize("fixture", FILES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_a_fixture_encodes_as_the_contract_does(fixture, tmp_path, monkeypatch):
    copy = tmp_path / fixture.name
    shutil.copyfile(fixture, copy)
    monkeypatch.setenv("KAPI_NO_PROJECT", "1")
    with open_workspace(cwd=tmp_path) as workspace:
        result = run_inspect(InspectRequest(paths=(copy.name,)), workspace)
    if result.failures:  # a fixture made to be refused: nothing to encode
        assert not result.records
        return
    _both(result.records)


RECIPE = """\
version: v1
id: prj_wirerecordswirerecordswirer
name: wire-records
defaults:
  source_language: en
  target_languages: [fr, de]
collections:
  - name: ui
    content:
      - path: locales/en.json
        target: locales/{lang}.json
"""


def test_a_project_s_editions_encode_as_the_contract_does(tmp_path, monkeypatch):
    monkeypatch.delenv("KAPI_NO_PROJECT", raising=False)
    monkeypatch.delenv("KAPI_PROJECT", raising=False)
    (tmp_path / "kapi.yaml").write_text(RECIPE, encoding="utf-8")
    (tmp_path / "locales").mkdir()
    (tmp_path / "locales" / "en.json").write_text(
        json.dumps(
            {
                "title": "Welcome, {name}",
                "cart": {"one": "{count} item", "other": "{count} items"},
                "plain": "Save",
                "rich": "<b>Bold</b> and $t(common.ok)",
            }
        ),
        encoding="utf-8",
    )
    (tmp_path / "locales" / "fr.json").write_text(
        json.dumps({"title": "Bienvenue, {name}", "plain": "Enregistrer"}), encoding="utf-8"
    )
    (tmp_path / "locales" / "de.json").write_text(json.dumps({"plain": "Save"}), encoding="utf-8")
    with open_workspace(cwd=tmp_path) as workspace:
        result = run_inspect(InspectRequest(paths=("locales/en.json",)), workspace)
    assert not result.failures
    assert any(record.editions for record in result.records)
    _both(result.records)


def test_strings_json_escapes_encode_as_the_contract_does(tmp_path, monkeypatch):
    monkeypatch.setenv("KAPI_NO_PROJECT", "1")
    values = {
        "quote": 'say "hi" \\ back',
        "controls": "tab\there\nnew\u0001line\u007f",
        "separators": "line\u2028para\u2029end",
        "astral": "emoji \U0001f600 and é",
        "lone": "\ud800 alone",
        "html": "<b>bold</b> & {name}",
    }
    (tmp_path / "odd.json").write_text(json.dumps(values), encoding="utf-8")
    with open_workspace(cwd=tmp_path) as workspace:
        result = run_inspect(InspectRequest(paths=("odd.json",)), workspace)
    assert not result.failures and len(result.records) == len(values)
    _both(result.records)
