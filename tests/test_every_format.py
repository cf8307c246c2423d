"""inspect -> edit -> apply from the command line, on a file of every format kapi ships.

Each file is one nobody wrote for this test (the formats' own fixtures, and
office documents made by python-docx, openpyxl and python-pptx). One word of
one block changes; everything else must read back the same.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from kapi.cli.main import cli
from tests.office_made import office_bytes

FIXTURES = Path(__file__).resolve().parents[1] / "packages/kapi-formats/tests/fixtures"
TEXT_FILES = sorted(p for p in FIXTURES.rglob("*") if p.is_file() and p.name != "duplicates.json")
WORD = re.compile(r"\b\w+\b")


def make_office(kind: str, folder: Path) -> Path:
    path = folder / f"made.{kind.split('-')[0]}"
    path.write_bytes(office_bytes(kind))
    return path


CASES = [pytest.param(p, id=f"{p.parent.name}/{p.name}") for p in TEXT_FILES] + [
    pytest.param(kind, id=f"office/{kind}")
    for kind in ("docx", "xlsx", "pptx", "xlsx-chart", "pptx-chart", "pptx-series")
]


def run(args: list[str], folder: Path, monkeypatch, stdin: str | None = None):
    monkeypatch.chdir(folder)
    result = CliRunner().invoke(
        cli,
        args,
        input=stdin,
        env={"KAPI_ACTOR": "person", "KAPI_NO_PROJECT": "1"},
        catch_exceptions=False,
    )
    return result


def common_prefix(a: bytes, b: bytes) -> int:
    length = 0
    for x, y in zip(a, b):
        if x != y:
            break
        length += 1
    return length


def edition_of(record: dict) -> tuple[str | None, str, str]:
    """The edition the file holds for editing: a bilingual file's target, else its own."""
    for key, edition in (record.get("editions") or {}).items():
        return key, edition["text"], edition["rev"]
    return None, record["text"], record["rev"]


@pytest.mark.parametrize("source", CASES)
def test_one_word_edit_lands_and_changes_nothing_else(source, tmp_path, monkeypatch):
    if isinstance(source, str):
        path = make_office(source, tmp_path)
    else:
        path = tmp_path / source.name
        shutil.copyfile(source, path)
    original = path.read_bytes()
    before = run(["inspect", path.name], tmp_path, monkeypatch)
    assert before.exit_code == 0, before.output
    records = json.loads(before.stdout)
    candidate = None
    for record in records:
        if "replace_text" not in record["ops"]:
            continue
        edition, text, rev = edition_of(record)
        structures = (
            (record.get("editions") or {})[edition].get("structures")
            if edition
            else record.get("structures")
        )
        branch_path = None
        if structures:  # a plural's text lives in its branches: edit one through its path
            first = structures[0]
            form, text = next(iter(first["branches"].items()))
            branch_path = [*first["path"], {first["kind"]: form}]
        match = WORD.search(re.sub(r'<x id="[^"]*"/>', lambda m: " " * len(m.group(0)), text))
        if match:
            candidate = (record, edition, rev, match.group(0), text, branch_path)
            break
    assert candidate is not None, f"no editable word in {path.name}"
    record, edition, rev, word, text, branch_path = candidate
    at = dict(record["ref"])
    if edition:
        at["edition"] = edition
    occurrence = text.count(word)
    edit = {"find": word, "text": "Kapiedit"}
    if occurrence > 1:
        edit["occurrence"] = 1
    op = {"op": "replace_text", "at": at, "if_match": rev, "edits": [edit]}
    if branch_path:
        op["path"] = branch_path
    change = {"ops": [op]}
    applied = run(["apply", "--json", "-"], tmp_path, monkeypatch, stdin=json.dumps(change))
    assert applied.exit_code == 0, applied.output
    assert json.loads(applied.stdout)["status"] == "applied"
    after = json.loads(run(["inspect", path.name], tmp_path, monkeypatch).stdout)
    assert len(after) == len(records)
    for old, new in zip(records, after):
        if old["ref"] == record["ref"]:
            _, new_text, _ = edition_of(new) if edition else (None, new["text"], None)
            holder = (new.get("editions") or {}).get(edition, {}) if edition else new
            branches = [b for s in holder.get("structures") or () for b in s["branches"].values()]
            assert "Kapiedit" in new_text or any("Kapiedit" in b for b in branches)
            continue
        assert (old["text"], old["rev"], old.get("editions")) == (
            new["text"],
            new["rev"],
            new.get("editions"),
        ), old["ref"]
    data = path.read_bytes()
    assert data != original
    if not isinstance(source, str):
        # only the edited value's bytes moved: the rest of the file is a common prefix and suffix
        prefix = common_prefix(original, data)
        suffix = common_prefix(original[::-1], data[::-1])
        changed = len(original) - prefix - suffix
        # a bilingual file may also record the edition's new status (state="translated")
        slack = 64 if edition else 16
        assert changed <= len(word.encode("utf-16")) + slack, (path.name, changed)
