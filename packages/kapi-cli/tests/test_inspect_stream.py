"""``kapi inspect`` as a stream: plain-text records made cheaply, written as the general ones.

The compact output is written while the files are read (``InspectStream``); a block of
plain text with no editions is read as a ``PlainRead``. Both must give what the
general path gives, record for record and character for character.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kapi.core.change.read import BlockRead, PlainRead
from kapi.core.change.reading import read_block, read_blocks
from kapi.core.model import plain_text
from kapi.host.documents import read_inputs
from kapi.host.inspect import InspectRequest, InspectStream, run_inspect
from kapi.host.wire import encode_read_records, read_records_json
from kapi.host.workspace import open_workspace

FIXTURES = Path(__file__).resolve().parents[2] / "kapi-formats" / "tests" / "fixtures"
FILES = sorted(p for p in FIXTURES.rglob("*") if p.is_file())


@pytest.mark.parametrize("fixture", FILES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_a_fixture_streams_as_it_reads(fixture, tmp_path, monkeypatch):
    copy = tmp_path / fixture.name
    shutil.copyfile(fixture, copy)
    monkeypatch.setenv("KAPI_NO_PROJECT", "1")
    with open_workspace(cwd=tmp_path) as workspace:
        result = run_inspect(InspectRequest(paths=(copy.name,)), workspace)
        stream = InspectStream(InspectRequest(paths=(copy.name,)), workspace)
        streamed = "".join(stream.encoded_json_chunks())
        assert [f.message for f in stream.failures] == [f.message for f in result.failures]
        assert stream.exit_code == result.exit_code
        assert all(record.__class__ is BlockRead for record in result.records)
        assert streamed == result.encoded_json()
        for item in read_inputs((copy.name,), home=workspace.home()):
            if not hasattr(item, "document"):
                continue
            general = [
                read_block(block, item.staged, own_edition=own)
                for own in (False, True)
                for block in item.document.blocks
                if block.targets or plain_text(block.source).strip()
            ]
            fast = [
                record.record() if isinstance(record, PlainRead) else record
                for own in (False, True)
                for record in read_blocks(item.document.blocks, item.staged, own_edition=own)
            ]
            assert fast == general


@pytest.mark.parametrize("edition", [None, "en", 'fr-"x"'])
@pytest.mark.parametrize(("role", "level"), [(None, None), ("heading", 2), ("", 0)])
@pytest.mark.parametrize("text", ["Save", 'say "hi" \\ \u2028 \U0001f600 \ud800', ""])
def test_a_plain_read_is_written_as_its_block_read(edition, role, level, text):
    plain = PlainRead(
        "docs/a b.json", 'k."x"', edition, "r:0123456789abcdef", text, ("set_content",), role, level
    )
    record = plain.record()
    for inspect in (True, False):
        assert read_records_json([plain], inspect=inspect) == read_records_json(
            [record], inspect=inspect
        )
        assert encode_read_records([plain], inspect=inspect) == encode_read_records(
            [record], inspect=inspect
        )
        assert json.loads(read_records_json([plain, record], inspect=inspect))


def test_a_missing_file_is_a_failure_after_the_others_are_written(tmp_path, monkeypatch):
    monkeypatch.setenv("KAPI_NO_PROJECT", "1")
    (tmp_path / "en.json").write_text('{"a": "Save", "b": "{n} items"}', encoding="utf-8")
    with open_workspace(cwd=tmp_path) as workspace:
        stream = InspectStream(InspectRequest(paths=("missing.json", "en.json")), workspace)
        records = json.loads("".join(stream.encoded_json_chunks()))
    assert [r["ref"]["block"] for r in records] == ["a", "b"]
    assert len(stream.failures) == 1 and stream.exit_code == 2
