"""XML entity attacks against every XML reader: refused or neutralised, nothing read, no request.

Each reader kapi has for XML (the XLIFF 1.2 and 2 readers, Android, stringsdict,
the parts of DOCX, XLSX and PPTX, HTML, and on the host side TMX memory import,
TBX terms import, the returned XLIFF ``kapi merge`` reads and the
``xml-validation`` tool) is fed each attack, in UTF-8 and in UTF-16 (where a
check on the bytes would not see the declarations):

* billion laughs (entities nested ten deep) and quadratic blowup (one large
  entity referenced many times);
* an external entity naming a file outside the project, and one naming a URL;
* an external DTD and an external parameter entity, both URLs.

The URLs point at a local HTTP server that counts requests (it must count
none), the file holds a secret that must appear nowhere in what the reader
returns or says, an audit hook proves no Python code opened that file or
connected a socket, and each read must end within the fuzzers' deadline.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from kapi.cli.main import cli
from kapi.core.format import FormatError
from kapi.formats import registry
from tests.proof import fuzzing
from tests.proof.local_server import CountingServer

ROOT = Path(__file__).resolve().parents[2]
SECRET = "SECRET-xxe-5b7d0c"
_WATCHED: dict[str, object] = {"file": None, "events": None}


def _audit(event: str, args: tuple[object, ...]) -> None:
    events = _WATCHED["events"]
    if not isinstance(events, list):
        return
    if event == "open" and args and str(args[0]) == str(_WATCHED["file"]):
        events.append(f"open {args[0]}")
    elif event in ("socket.connect", "urllib.Request"):
        events.append(f"{event} {args!r}")


sys.addaudithook(_audit)  # audit hooks stay for the process; this one only watches when asked


@pytest.fixture(scope="module")
def outside(tmp_path_factory):
    folder = tmp_path_factory.mktemp("xxe")
    secret = folder / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text(SECRET)
    # a DTD that would read the secret, for a reader that fetched it
    dtd = f'<!ENTITY x SYSTEM "file://{secret}"><!ENTITY % q "x">'.encode()
    server = CountingServer(200, "application/xml-dtd", dtd)
    yield secret, server
    server.close()


def attacks(secret: Path, url: str) -> dict[str, tuple[str, str]]:
    """Each attack as (the DOCTYPE to put after the XML declaration, the reference in the text)."""
    laughs = ['<!ENTITY a0 "lol">'] + [
        f'<!ENTITY a{n} "{f"&a{n - 1};" * 10}">' for n in range(1, 10)
    ]
    return {
        "billion-laughs": (f"<!DOCTYPE r [{''.join(laughs)}]>", "&a9;"),
        "quadratic-blowup": (f'<!DOCTYPE r [<!ENTITY a "{"A" * 50_000}">]>', "&a;" * 20_000),
        "external-file": (f'<!DOCTYPE r [<!ENTITY x SYSTEM "file://{secret}">]>', "&x;"),
        "external-url": (f'<!DOCTYPE r [<!ENTITY x SYSTEM "{url}/entity">]>', "&x;"),
        "external-dtd": (f'<!DOCTYPE r SYSTEM "{url}/dtd">', "&x;"),
        "parameter-entity": (f'<!DOCTYPE r [<!ENTITY % p SYSTEM "{url}/param"> %p;]>', "&x;"),
    }


ATTACKS = [
    "billion-laughs",
    "quadratic-blowup",
    "external-file",
    "external-url",
    "external-dtd",
    "parameter-entity",
]
DECLARATION = '<?xml version="1.0" encoding="{encoding}"?>\n'
# Each reader's smallest valid file, with {doctype} and {ref} where the attack goes.
FORMAT_FILES = {
    "xliff": (
        '<xliff version="1.2"><file original="a" source-language="en" target-language="fr" '
        'datatype="plaintext"><body><trans-unit id="1"><source>Hi {ref}</source>'
        "</trans-unit></body></file></xliff>"
    ),
    "xliff2": (
        '<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en">'
        '<file id="f"><unit id="u"><segment><source>Hi {ref}</source></segment></unit></file></xliff>'
    ),
    "androidxml": '<resources><string name="a">Hi {ref}</string></resources>',
    "stringsdict": (
        '<plist version="1.0"><dict><key>k</key><dict><key>NSStringLocalizedFormatKey</key>'
        "<string>Hi {ref} %#@n@</string><key>n</key><dict><key>NSStringFormatSpecTypeKey</key>"
        "<string>NSStringPluralRuleType</string><key>NSStringFormatValueTypeKey</key>"
        "<string>d</string><key>other</key><string>%d {ref}</string></dict></dict></dict></plist>"
    ),
    "html": "<html><body><p>Hi {ref}</p></body></html>",
}
ENCODINGS = ("UTF-8", "UTF-16")


def encoded(text: str, encoding: str) -> bytes:
    return text.encode("utf-8") if encoding == "UTF-8" else text.encode("utf-16")  # with a BOM


def xml_of(template: str, attack: tuple[str, str], encoding: str) -> bytes:
    doctype, ref = attack
    body = template.replace("{ref}", ref)
    return encoded(DECLARATION.format(encoding=encoding) + doctype + body, encoding)


def office_part(name: str, attack: tuple[str, str]) -> bytes:
    """The office seed's main part with the attack after its declaration and in its text."""
    doctype, ref = attack
    part = fuzzing.seeds(f"office-part:{name}")[0].decode("utf-8")
    declaration, _, rest = part.partition("?>")
    for text in ("Hello ", "Name", "Title"):
        rest = rest.replace(f">{text}<", f">{text}{ref}<", 1)
    return fuzzing.with_part(name, f"{declaration}?>{doctype}{rest}".encode())


def watched(outside, read) -> str:
    """What ``read()`` returned or said; fails on a read of the secret, a socket or a request."""
    secret, server = outside
    events: list[str] = []
    requests_before = len(server.paths)
    _WATCHED.update(file=str(secret), events=events)
    try:
        with fuzzing.deadline():
            shown = read()
    finally:
        _WATCHED.update(file=None, events=None)
    assert events == [], events
    assert server.paths[requests_before:] == []
    assert SECRET not in shown
    return shown


def document_text(name: str, data: bytes) -> str:
    """The reader's document as text (every source and target), or its refusal's message."""
    try:
        document = registry.load_codec(name).read(data, path=f"x{registry.get(name).extensions[0]}")
    except FormatError as err:
        return f"refused {err.code}: {err}"
    return "\n".join(repr(block) for block in document.blocks)


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("attack", ATTACKS)
@pytest.mark.parametrize("name", sorted(FORMAT_FILES))
def test_a_format_reader_refuses_or_neutralises_entities(outside, name, attack, encoding):
    payload = xml_of(FORMAT_FILES[name], attacks(outside[0], outside[1].url)[attack], encoding)
    shown = watched(outside, lambda: document_text(name, payload))
    if name == "html":  # an HTML page has no DTD: a reference is text, never expanded
        assert "lol" not in shown and "AAAA" not in shown
    else:
        assert shown.startswith("refused"), shown


@pytest.mark.parametrize("attack", ATTACKS)
@pytest.mark.parametrize("name", ["docx", "xlsx", "pptx"])
def test_an_office_part_with_a_doctype_is_refused(outside, name, attack):
    package = office_part(name, attacks(outside[0], outside[1].url)[attack])
    shown = watched(outside, lambda: document_text(name, package))
    assert shown.startswith("refused invalid") and "DOCTYPE" in shown, shown


# --- the host's XML readers, through the command line -----------------------------------------


def kapi(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code in (0, 2, 3), result.output
    return f"exit {result.exit_code}: {result.stdout}{result.stderr}"


HOST_FILES = {
    "memory.tmx": (
        '<tmx version="1.4"><header srclang="en"/><body><tu><tuv xml:lang="en"><seg>Hi {ref}</seg>'
        '</tuv><tuv xml:lang="fr"><seg>Salut {ref}</seg></tuv></tu></body></tmx>'
    ),
    "terms.tbx": (
        '<tbx xmlns="urn:iso:std:iso:30042:ed-2" type="TBX-Core" style="dca" xml:lang="en"><text>'
        '<body><conceptEntry id="c1"><langSec xml:lang="en"><termSec><term>Hi {ref}</term></termSec>'
        "</langSec></conceptEntry></body></text></tbx>"
    ),
    "returned.xlf": (
        '<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" '
        'trgLang="fr"><file id="f" original="locales/en.json"><unit id="u"><segment>'
        "<source>Hi</source><target>Salut {ref}</target></segment></unit></file></xliff>"
    ),
    "returned-1.2.xlf": (
        '<xliff xmlns="urn:oasis:names:tc:xliff:document:1.2" version="1.2"><file '
        'original="locales/en.json" source-language="en" target-language="fr" datatype="plaintext">'
        '<body><trans-unit id="u"><source>Hi</source><target>Salut {ref}</target></trans-unit>'
        "</body></file></xliff>"
    ),
    "check.xml": "<r>Hi {ref}</r>",
}
HOST_READS = {
    "memory.tmx": [("memory", "import", "memory.tmx"), ("memory", "list")],
    "terms.tbx": [("terms", "import", "terms.tbx"), ("terms", "export", "-")],
    "returned.xlf": [("merge", "returned.xlf")],
    "returned-1.2.xlf": [("merge", "returned-1.2.xlf")],
    "check.xml": [("exec", "xml-validation", "check.xml")],
}


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("attack", ATTACKS)
@pytest.mark.parametrize("name", sorted(HOST_FILES))
def test_a_host_reader_refuses_or_neutralises_entities(shop, outside, name, attack, encoding):
    (shop / name).write_bytes(
        xml_of(HOST_FILES[name], attacks(outside[0], outside[1].url)[attack], encoding)
    )

    def run() -> str:
        return "\n".join(kapi(*argv) for argv in HOST_READS[name])

    shown = watched(outside, run)
    assert "lollol" not in shown and "AAAAAAAA" not in shown
    if name != "check.xml" and attack != "external-dtd":  # they refuse entity declarations
        assert shown.startswith("exit 2"), shown
    if name.startswith("returned"):  # merge refuses any DOCTYPE, before reading the units
        assert "document type declaration" in shown, shown
    # a DOCTYPE naming an external DTD (as TBX and TMX files do) is read without fetching it
    store = (
        (shop / ".kapi/project.db").read_bytes() if (shop / ".kapi/project.db").exists() else b""
    )
    assert SECRET.encode() not in store


@pytest.mark.parametrize("encoding", ["Mtf-8", "rot13", "shift_jis"])
@pytest.mark.parametrize("name", sorted(HOST_FILES))
def test_a_host_reader_refuses_an_encoding_it_cannot_read(shop, name, encoding):
    """A declared encoding expat cannot use was a traceback in these readers."""
    text = DECLARATION.format(encoding=encoding) + HOST_FILES[name].replace("{ref}", "x")
    (shop / name).write_text(text, encoding="utf-8")
    result = CliRunner().invoke(cli, list(HOST_READS[name][0]), catch_exceptions=False)
    assert result.exit_code in (0, 2, 3), result.output
    assert "Traceback" not in result.output
