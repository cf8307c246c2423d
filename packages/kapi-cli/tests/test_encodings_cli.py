"""Encodings from the command line: `kapi inspect` and `kapi apply` as subprocesses.

Every text format in UTF-16 and UTF-32 (LE and BE), with and without a BOM:
read where the format defines the encoding, else refused with the encoding
named and the file left byte for byte. Lone surrogates spelled as escapes
print as JSON escapes and survive edits elsewhere in the file.
"""

from __future__ import annotations

import codecs
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ENCODINGS = ("utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be")
LABELS = {"utf-16-le": "UTF-16LE", "utf-16-be": "UTF-16BE"}
LABELS |= {"utf-32-le": "UTF-32LE", "utf-32-be": "UTF-32BE"}
BOMS = {
    "utf-16-le": codecs.BOM_UTF16_LE,
    "utf-16-be": codecs.BOM_UTF16_BE,
    "utf-32-le": codecs.BOM_UTF32_LE,
    "utf-32-be": codecs.BOM_UTF32_BE,
}
NEVER = "r:0000000000000000"

# (stem, extension, text with {enc} for the declared encoding, block, read without a BOM,
# read with one): "all", "utf16" or "none"
FORMATS = [
    ("en", ".json", '{"greeting": "Hello", "farewell": "Bye"}\n', "greeting", "all", "all"),
    ("en", ".arb", '{"@@locale": "en", "greeting": "Hello"}\n', "greeting", "all", "all"),
    ("en", ".yaml", "greeting: Hello\nfarewell: Bye\n", "greeting", "all", "all"),
    ("en", ".properties", "greeting=Hello\nfarewell=Bye\n", "greeting", "none", "all"),
    ("Localizable", ".strings", '"greeting" = "Hello";\n', "greeting", "utf16", "all"),
    (
        "Localizable",
        ".stringsdict",
        '<?xml version="1.0" encoding="{enc}"?>\n<plist version="1.0"><dict>'
        "<key>items</key><dict><key>NSStringLocalizedFormatKey</key><string>%#@n@</string>"
        "<key>n</key><dict><key>NSStringFormatSpecTypeKey</key>"
        "<string>NSStringPluralRuleType</string><key>NSStringFormatValueTypeKey</key>"
        "<string>d</string><key>one</key><string>%d item</string>"
        "<key>other</key><string>%d items</string></dict></dict></dict></plist>\n",
        "items",
        "all",
        "all",
    ),
    (
        "strings",
        ".xml",
        '<?xml version="1.0" encoding="{enc}"?>\n'
        '<resources><string name="greeting">Hello</string></resources>\n',
        "greeting",
        "none",
        "none",
    ),
    (
        "fr",
        ".po",
        'msgid ""\nmsgstr "Content-Type: text/plain; charset={enc}\\nLanguage: fr\\n"\n\n'
        'msgid "Hello"\nmsgstr "Bonjour"\n',
        "Hello",
        "none",
        "all",
    ),
    (
        "v1",
        ".xlf",
        '<?xml version="1.0" encoding="{enc}"?>\n<xliff version="1.2"><file source-language="en" '
        'target-language="fr" original="x"><body><trans-unit id="g"><source>Hello</source>'
        "<target>Bonjour</target></trans-unit></body></file></xliff>\n",
        "g",
        "all",
        "all",
    ),
    (
        "v2",
        ".xlf",
        '<?xml version="1.0" encoding="{enc}"?>\n<xliff version="2.0" '
        'xmlns="urn:oasis:names:tc:xliff:document:2.0" srcLang="en" trgLang="fr"><file id="f">'
        '<unit id="g"><segment><source>Hello</source><target>Bonjour</target></segment></unit>'
        "</file></xliff>\n",
        "g",
        "all",
        "all",
    ),
    ("README", ".md", "# Hello\n\nSome text.\n", "s1", "none", "all"),
    (
        "page",
        ".html",
        '<html><head><meta charset="{enc}"></head><body><p>Hello</p></body></html>\n',
        "p[1]",
        "none",
        "utf16",
    ),
    ("notes", ".txt", "Hello\n\nSome text.\n", "p1", "none", "all"),
]


def kapi(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KAPI_ACTOR": "person", "KAPI_NO_PROJECT": "1"}
    return subprocess.run(
        [sys.executable, "-m", "kapi.cli", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
    )


def allowed(rule: str, encoding: str) -> bool:
    return rule == "all" or (rule == "utf16" and encoding.startswith("utf-16"))


class File:
    """One sample file: its format row, encoding, BOM, and whether kapi is to read it."""

    def __init__(self, row: tuple[str, str, str, str, str, str], encoding: str, bom: bool):
        stem, extension, text, block, unmarked, marked = row
        declared = encoding[:6].upper()
        self.name = f"{stem}-{encoding}{'-bom' if bom else ''}{extension}"
        self.block = block
        self.encoding = encoding
        self.bom = BOMS[encoding] if bom else b""
        self.data = self.bom + text.replace("{enc}", declared).encode(encoding)
        self.readable = allowed(marked if bom else unmarked, encoding)

    def text(self, data: bytes) -> str:
        assert data.startswith(self.bom)
        return data[len(self.bom) :].decode(self.encoding)


FILES = [File(row, encoding, bom) for row in FORMATS for encoding in ENCODINGS for bom in (0, 1)]
IDS = [file.name for file in FILES]


def edit_op(file: File, record: dict) -> dict:
    """A one-op edit of the file's sample block: its target when it has one, else itself."""
    at = dict(record["ref"])
    holder, rev = record, record["rev"]
    for key, edition in (record.get("editions") or {}).items():
        at["edition"] = key
        holder, rev = edition, edition["rev"]
    op = {"op": "set_content", "at": at, "if_match": rev, "text": "Kapi é 中"}
    if holder.get("structures"):
        structure = holder["structures"][0]
        op["path"] = [*structure["path"], {structure["kind"]: "one"}]
        op["text"] = structure["branches"]["one"].replace("item", "Kapi é 中")
    return op


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Each sample once through `kapi inspect` and `kapi apply`, in four subprocesses."""
    folder = tmp_path_factory.mktemp("encodings")
    for file in FILES:
        (folder / file.name).write_bytes(file.data)
    inspected = kapi(folder, "inspect", *(file.name for file in FILES))
    records = {}
    for record in json.loads(inspected.stdout):
        if record["ref"]["block"] in {f.block for f in FILES if f.name == record["ref"]["doc"]}:
            records[record["ref"]["doc"]] = record
    refused_ops = [
        {
            "op": "set_content",
            "at": {"doc": f.name, "block": f.block},
            "if_match": NEVER,
            "text": "x",
        }
        for f in FILES
        if not f.readable
    ]
    (folder / "refused.json").write_text(json.dumps({"ops": refused_ops}))
    refused = kapi(folder, "apply", "--json", "refused.json")
    (folder / "refused-text.json").write_text(json.dumps({"ops": refused_ops[:3]}))
    refused_text = kapi(folder, "apply", "refused-text.json")
    edits = [edit_op(f, records[f.name]) for f in FILES if f.readable and f.name in records]
    (folder / "edits.json").write_text(json.dumps({"ops": edits}))
    applied = kapi(folder, "apply", "--json", "edits.json")
    after = {file.name: (folder / file.name).read_bytes() for file in FILES}
    return {
        "inspect": inspected,
        "records": records,
        "refused": refused,
        "refused_text": refused_text,
        "applied": applied,
        "after": after,
    }


def test_no_command_shows_a_traceback(session: dict) -> None:
    for run in ("inspect", "refused", "refused_text", "applied"):
        assert "Traceback" not in session[run].stderr, session[run].stderr
    assert session["inspect"].returncode == 2  # some files are refused
    assert session["refused"].returncode == 3
    assert session["refused_text"].returncode == 3
    assert "capability encoding" in session["refused_text"].stderr
    assert session["applied"].returncode == 0, session["applied"].stdout
    assert json.loads(session["applied"].stdout)["status"] == "applied"


@pytest.mark.parametrize("file", FILES, ids=IDS)
def test_inspect_reads_the_file_or_names_its_encoding(file: File, session: dict) -> None:
    errors = [line for line in session["inspect"].stderr.splitlines() if f"{file.name}:" in line]
    if not file.readable:
        assert file.name not in session["records"]
        assert len(errors) == 1
        assert LABELS[file.encoding] in errors[0]
        assert "save it as UTF-8" in errors[0]
        return
    assert not errors
    record = session["records"][file.name]
    shown = [record["text"], *(e["text"] for e in (record.get("editions") or {}).values())]
    assert any(text in ("Hello", "Bonjour") or "item" in text for text in shown)
    assert not any("\x00" in text for text in shown)


@pytest.mark.parametrize("file", FILES, ids=IDS)
def test_apply_refuses_or_edits_in_the_files_own_encoding(file: File, session: dict) -> None:
    after = session["after"][file.name]
    if not file.readable:
        assert after == file.data
        ops = json.loads(session["refused"].stdout)["ops"]
        (op,) = [op for op in ops if op["at"]["doc"] == file.name]
        assert op["error"]["code"] == "unsupported"
        assert op["error"]["capability"] == "encoding"
        assert LABELS[file.encoding] in op["error"]["message"]
        assert file.name in op["error"]["message"]
        return
    before, now = file.text(file.data), file.text(after)
    assert "Kapi é 中" in now
    old = "item<" if "item<" in before else ("Bonjour" if "Bonjour" in before else "Hello")
    assert now == before.replace(old, old.replace(old.rstrip("<"), "Kapi é 中"), 1)


# --- lone surrogates -----------------------------------------------------------------------

SURROGATES = {
    "en.json": b'{"lone": "\\ud800", "other": "Hello"}\n',
    "en.arb": b'{"@@locale": "en", "lone": "x\\udc00", "other": "Hello"}\n',
    "en.yaml": b'lone: "\\ud800"\nother: Hello\n',
    "en.properties": b"lone=\\ud800\nother=Hello\n",
    "Localizable.strings": b'"lone" = "\\Ud800";\n"other" = "Hello";\n',
}


@pytest.fixture(scope="module")
def surrogates(tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder = tmp_path_factory.mktemp("surrogates")
    for name, data in SURROGATES.items():
        (folder / name).write_bytes(data)
    inspected = kapi(folder, "inspect", *SURROGATES)
    records = {(r["ref"]["doc"], r["ref"]["block"]): r for r in json.loads(inspected.stdout)}
    noop = {name: (folder / name).read_bytes() for name in SURROGATES}
    ops = [
        {
            "op": "set_content",
            "at": {"doc": name, "block": "other"},
            "if_match": records[(name, "other")]["rev"],
            "text": "Bonjour",
        }
        for name in SURROGATES
    ]
    (folder / "edits.json").write_text(json.dumps({"ops": ops}))
    applied = kapi(folder, "apply", "edits.json")
    stale = [{**op, "at": {**op["at"], "block": "lone"}, "if_match": NEVER} for op in ops]
    (folder / "stale.json").write_text(json.dumps({"ops": stale}))
    stale_json = kapi(folder, "apply", "--json", "stale.json")
    stale_text = kapi(folder, "apply", "stale.json")
    lone = [{**ops[0], "text": "half \ud800 a pair"}]
    (folder / "lone.json").write_text(json.dumps({"ops": lone}))  # ASCII: "\ud800" escaped
    sent = kapi(folder, "apply", "--json", "lone.json")
    return {
        "inspect": inspected,
        "records": records,
        "noop": noop,
        "applied": applied,
        "stale_json": stale_json,
        "stale_text": stale_text,
        "sent": sent,
        "after": {name: (folder / name).read_bytes() for name in SURROGATES},
    }


def test_lone_surrogates_never_give_a_traceback(surrogates: dict) -> None:
    for run in ("inspect", "applied", "stale_json", "stale_text", "sent"):
        assert "Traceback" not in surrogates[run].stderr, surrogates[run].stderr
    assert surrogates["inspect"].returncode == 0
    assert surrogates["applied"].returncode == 0
    assert surrogates["stale_json"].returncode == 3
    assert surrogates["stale_text"].returncode == 3
    assert "\\ud800" in surrogates["stale_text"].stderr


@pytest.mark.parametrize("name", SURROGATES)
def test_inspect_prints_a_lone_surrogate_as_a_json_escape(name: str, surrogates: dict) -> None:
    record = surrogates["records"][(name, "lone")]
    assert any(0xD800 <= ord(char) <= 0xDFFF for char in record["text"])
    escape = json.dumps(record["text"])  # "\ud800" as JSON writes it
    assert escape[1:-1] in surrogates["inspect"].stdout
    assert surrogates["noop"][name] == SURROGATES[name]


@pytest.mark.parametrize("name", SURROGATES)
def test_an_edit_elsewhere_keeps_the_escape_byte_for_byte(name: str, surrogates: dict) -> None:
    assert surrogates["after"][name] == SURROGATES[name].replace(b"Hello", b"Bonjour")


@pytest.mark.parametrize("name", SURROGATES)
def test_a_stale_edit_shows_the_current_text_with_its_escape(name: str, surrogates: dict) -> None:
    ops = json.loads(surrogates["stale_json"].stdout)["ops"]
    (op,) = [op for op in ops if op["at"]["doc"] == name]
    assert op["error"]["code"] == "stale"
    assert op["current"]["text"] == surrogates["records"][(name, "lone")]["text"]


def test_a_change_set_sending_a_lone_surrogate_is_refused_and_writes_nothing(
    surrogates: dict,
) -> None:
    sent = surrogates["sent"]
    assert sent.returncode == 2
    error = json.loads(sent.stdout)["error"]
    assert error["code"] == "invalid" and "surrogate" in error["message"]
    assert error["pointer"] == "/ops/0/text"
    name = next(iter(SURROGATES))
    assert surrogates["after"][name] == SURROGATES[name].replace(b"Hello", b"Bonjour")
