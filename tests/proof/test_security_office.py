"""Zip slip: part names and relationship targets that climb out of an office package.

An office file is a zip whose part names kapi treats as names inside the zip,
never as paths on disk. A package holding parts named ``../../evil.xml`` and
``/abs.xml``, whose relationships point at ``../../../outside/secret.xml``, is
read and edited through the real command line: nothing is created or read
outside the package, the odd parts are copied into the edited file as they
were, and the outside file's content shows nowhere. Zip bombs (headers that
lie, ratios, a million entries) are refused in bounded memory by
``packages/kapi-formats/tests/test_office_package.py``.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from kapi.cli.main import cli
from tests.proof import fuzzing

SECRET = "SECRET-zip-3f0e"
CLIMBING = ("../../evil.xml", "/abs/evil.xml", "word/../../../evil2.xml", "..\\..\\evil3.xml")


def package(kind: str) -> bytes:
    """The office seed with climbing parts and a relationship that leads outside."""
    with zipfile.ZipFile(io.BytesIO(fuzzing.seeds(f"format:{kind}")[0])) as archive:
        parts = {info.filename: archive.read(info) for info in archive.infolist()}
    for name in CLIMBING:
        parts[name] = f"<x>{name}</x>".encode()
    rels = next(name for name in parts if name.endswith(".rels") and not name.startswith("_rels"))
    parts[rels] = parts[rels].replace(
        b"</Relationships>",
        b'<Relationship Id="rIdOut" Type="http://schemas.openxmlformats.org/officeDocument/'
        b'2006/relationships/image" Target="../../../outside/secret.xml"/></Relationships>',
    )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    return out.getvalue()


def tree(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


@pytest.mark.parametrize("kind", ["docx", "xlsx", "pptx"])
def test_parts_named_outside_the_package_stay_inside_it(tmp_path, monkeypatch, kind):
    work = tmp_path / "work" / "inner"
    work.mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside/secret.xml").write_text(f"<x>{SECRET}</x>")
    name = f"report.{kind}"
    (work / name).write_bytes(package(kind))
    monkeypatch.chdir(work)
    monkeypatch.setenv("KAPI_NO_PROJECT", "1")
    monkeypatch.setenv("KAPI_ACTOR", "person")
    before = tree(tmp_path)

    read = CliRunner().invoke(cli, ["inspect", name], catch_exceptions=False)
    assert read.exit_code == 0, read.output
    assert SECRET not in read.output
    record = next(r for r in json.loads(read.stdout) if "replace_text" in r["ops"])
    word = record["text"].split()[0]
    change = {
        "ops": [
            {
                "op": "replace_text",
                "at": record["ref"],
                "if_match": record["rev"],
                "edits": [{"find": word, "text": "Changed"}],
            }
        ]
    }
    done = CliRunner().invoke(
        cli, ["apply", "--json", "-"], input=json.dumps(change), catch_exceptions=False
    )
    assert done.exit_code == 0, done.output
    assert SECRET not in done.output
    assert tree(tmp_path) == before  # nothing created anywhere, the package replaced in place
    with zipfile.ZipFile(work / name) as archive:
        kept = {info.filename: archive.read(info) for info in archive.infolist()}
    for part in CLIMBING:
        assert kept[part] == f"<x>{part}</x>".encode()
    again = CliRunner().invoke(cli, ["inspect", name], catch_exceptions=False)
    assert "Changed" in again.stdout
