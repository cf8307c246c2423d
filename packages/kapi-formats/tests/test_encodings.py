"""Encodings are detected, never guessed: every text format in UTF-16 and UTF-32, with and
without a BOM, legacy 8-bit bytes, and lone surrogates spelled as escapes."""

from __future__ import annotations

import codecs
import json

import pytest
from attrs import evolve
from hypothesis import given
from hypothesis import strategies as st

from kapi.core.format import FormatError, WriteRefused
from kapi.core.model import Document, Text, plain_text
from kapi.formats import registry

ENCODINGS = ("utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be")
LABELS = {"utf-16-le": "UTF-16LE", "utf-16-be": "UTF-16BE", "utf-32-le": "UTF-32LE"}
LABELS["utf-32-be"] = "UTF-32BE"
BOMS = {
    "utf-16-le": codecs.BOM_UTF16_LE,
    "utf-16-be": codecs.BOM_UTF16_BE,
    "utf-32-le": codecs.BOM_UTF32_LE,
    "utf-32-be": codecs.BOM_UTF32_BE,
}
UTF16 = ("utf-16-le", "utf-16-be")

# name -> (text with {enc} standing for the declared encoding, formats' reading of
# BOM-less UTF-16/UTF-32, with a BOM); "all", "utf16" or "none"
SAMPLES: dict[str, tuple[str, str, str]] = {
    "en.json": ('{"greeting": "Hello", "farewell": "Bye"}\n', "all", "all"),
    "en.arb": ('{"@@locale": "en", "greeting": "Hello", "farewell": "Bye"}\n', "all", "all"),
    "en.yaml": ("greeting: Hello\nfarewell: Bye\n", "all", "all"),
    "en.properties": ("greeting=Hello\nfarewell=Bye\n", "none", "all"),
    "Localizable.strings": ('"greeting" = "Hello";\n"farewell" = "Bye";\n', "utf16", "all"),
    "Localizable.stringsdict": (
        '<?xml version="1.0" encoding="{enc}"?>\n<plist version="1.0"><dict>'
        "<key>items</key><dict><key>NSStringLocalizedFormatKey</key><string>%#@n@</string>"
        "<key>n</key><dict><key>NSStringFormatSpecTypeKey</key>"
        "<string>NSStringPluralRuleType</string><key>NSStringFormatValueTypeKey</key>"
        "<string>d</string><key>one</key><string>%d item</string>"
        "<key>other</key><string>%d items</string></dict></dict></dict></plist>\n",
        "all",
        "all",
    ),
    "strings.xml": (
        '<?xml version="1.0" encoding="{enc}"?>\n'
        '<resources><string name="greeting">Hello</string></resources>\n',
        "none",
        "none",
    ),
    "fr.po": (
        'msgid ""\nmsgstr "Content-Type: text/plain; charset={enc}\\nLanguage: fr\\n"\n\n'
        'msgid "Hello"\nmsgstr "Bonjour"\n',
        "none",
        "all",
    ),
    "v1.xlf": (
        '<?xml version="1.0" encoding="{enc}"?>\n<xliff version="1.2"><file source-language="en" '
        'target-language="fr" original="x"><body><trans-unit id="g"><source>Hello</source>'
        "<target>Bonjour</target></trans-unit></body></file></xliff>\n",
        "all",
        "all",
    ),
    "v2.xlf": (
        '<?xml version="1.0" encoding="{enc}"?>\n<xliff version="2.0" '
        'xmlns="urn:oasis:names:tc:xliff:document:2.0" srcLang="en" trgLang="fr"><file id="f">'
        '<unit id="g"><segment><source>Hello</source><target>Bonjour</target></segment></unit>'
        "</file></xliff>\n",
        "all",
        "all",
    ),
    "README.md": ("# Hello\n\nSome text.\n", "none", "all"),
    "page.html": (
        '<html><head><meta charset="{enc}"></head><body><p>Hello</p></body></html>\n',
        "none",
        "utf16",
    ),
    "notes.txt": ("Hello\n\nSome text.\n", "none", "all"),
}


def sample(name: str, encoding: str) -> str:
    text = SAMPLES[name][0]
    return text.replace("{enc}", "UTF-8" if encoding == "utf-8" else encoding[:6].upper())


def allowed(rule: str, encoding: str) -> bool:
    return rule == "all" or (rule == "utf16" and encoding in UTF16)


def codec_for(name: str, data: bytes):  # type: ignore[no-untyped-def]
    return registry.load_codec(registry.detect(name, data))


def texts(document: Document) -> list[str]:
    out = []
    for block in document.blocks:
        out.append(plain_text(block.source))
        out.extend(plain_text(edition.runs) for edition in block.targets.values())
    return out


def set_first(document: Document, text: str) -> Document:
    """The first translatable block's own edition (or its one target) set to ``text``."""
    blocks = list(document.blocks)
    for index, block in enumerate(blocks):
        if not block.translatable:
            continue
        if block.targets:
            key = next(iter(block.targets))
            blocks[index] = block.with_target(key, evolve(block.targets[key], runs=(Text(text),)))
        else:
            blocks[index] = evolve(block, source=(Text(text),))
        return evolve(document, blocks=tuple(blocks))
    raise AssertionError("no translatable block")


CASES = [
    pytest.param(name, encoding, bom, id=f"{name}-{encoding}{'-bom' if bom else ''}")
    for name in SAMPLES
    for encoding in ENCODINGS
    for bom in (False, True)
]


@pytest.mark.parametrize(("name", "encoding", "bom"), CASES)
def test_utf16_and_utf32_are_read_as_the_format_allows_or_refused_by_name(
    name: str, encoding: str, bom: bool
) -> None:
    _, unmarked, marked = SAMPLES[name]
    reference = sample(name, "utf-8").encode("utf-8")
    data = (BOMS[encoding] if bom else b"") + sample(name, encoding).encode(encoding)
    codec = codec_for(name, data)
    if name != "strings.xml":
        expected = texts(codec_for(name, reference).read(reference, path=name))
    if not allowed(marked if bom else unmarked, encoding):
        with pytest.raises(FormatError) as refused:
            codec.read(data, path=name)
        assert refused.value.code == "unsupported"
        assert refused.value.capability == "encoding"
        assert LABELS[encoding] in refused.value.message
        assert str(refused.value).startswith(f"{name}: ")
        return
    document = codec.read(data, path=name)
    assert texts(document) == expected
    assert not any("\x00" in text for text in texts(document))
    assert codec.write(document) == data
    edited = codec.write(set_first(document, "Kapi é 中"))
    assert edited.startswith(BOMS[encoding]) == bom
    body = edited[len(BOMS[encoding]) :] if bom else edited
    assert "Kapi é 中" in body.decode(encoding)
    assert "Kapi é 中" in texts(codec.read(edited, path=name))


@pytest.mark.parametrize("name", [n for n in SAMPLES if n != "strings.xml"])
def test_utf8_with_a_bom_is_read_and_kept(name: str) -> None:
    data = codecs.BOM_UTF8 + sample(name, "utf-8").encode("utf-8")
    codec = codec_for(name, data)
    document = codec.read(data, path=name)
    assert codec.write(document) == data
    assert codec.write(set_first(document, "Kapi")).startswith(codecs.BOM_UTF8)


def test_utf16_opening_with_a_non_ascii_character_is_named() -> None:
    data = "中文的段落\n\n还有一个段落。\n".encode("utf-16-le")
    with pytest.raises(FormatError) as refused:
        codec_for("notes.txt", data).read(data, path="notes.txt")
    assert (refused.value.code, refused.value.capability) == ("unsupported", "encoding")
    assert "UTF-16LE without a byte-order mark" in refused.value.message


def test_nul_characters_in_a_utf8_file_are_not_taken_for_utf16() -> None:
    data = b"key=a\x00b\nother=\x00\n"
    codec = codec_for("en.properties", data)
    document = codec.read(data, path="en.properties")
    assert texts(document) == ["a\x00b", "\x00"]
    assert codec.write(document) == data


# --- legacy 8-bit text ---------------------------------------------------------------------

LATIN1 = {
    "en.json": '{"title": "Café"}\n',
    "en.arb": '{"@@locale": "fr", "title": "Café"}\n',
    "en.yaml": "title: Café\n",
    "Localizable.strings": '"title" = "Café";\n',
    "strings.xml": '<resources><string name="title">Café</string></resources>\n',
    "v1.xlf": '<xliff version="1.2"><file source-language="fr"><body><trans-unit id="t">'
    "<source>Café</source></trans-unit></body></file></xliff>\n",
    "fr.po": 'msgid "Café"\nmsgstr ""\n',
    "README.md": "# Café\n",
    "page.html": "<p>Café</p>\n",
    "notes.txt": "Café\n",
}


@pytest.mark.parametrize("name", LATIN1)
def test_legacy_8bit_bytes_in_a_utf8_format_are_refused_by_name(name: str) -> None:
    data = LATIN1[name].encode("latin-1")
    with pytest.raises(FormatError) as refused:
        codec_for(name, data).read(data, path=name)
    assert (refused.value.code, refused.value.capability) == ("unsupported", "encoding")
    assert "ISO-8859-1" in refused.value.message and "save it as UTF-8" in refused.value.message
    assert refused.value.line == 1 and refused.value.column is not None


def test_windows_1252_punctuation_is_named() -> None:
    data = "Don’t – stop\n".encode("cp1252")
    with pytest.raises(FormatError) as refused:
        codec_for("notes.txt", data).read(data, path="notes.txt")
    assert "Windows-1252" in refused.value.message


def test_damaged_utf8_stays_invalid_at_its_position() -> None:
    data = "Café\n\nna\u00efve ".encode() + b"\xc3(\n"
    with pytest.raises(FormatError) as refused:
        codec_for("notes.txt", data).read(data, path="notes.txt")
    assert (refused.value.code, refused.value.line, refused.value.column) == (
        "invalid",
        3,
        8,
    )  # columns count bytes


def test_latin1_properties_and_declared_legacy_encodings_are_read() -> None:
    data = "title=Café\n".encode("latin-1")
    codec = codec_for("en.properties", data)
    assert texts(codec.read(data)) == ["Café"]
    page = '<meta charset="windows-1252"><p>Café – ok</p>\n'.encode("cp1252")
    assert "Café – ok" in texts(codec_for("page.html", page).read(page))
    po = 'msgid ""\nmsgstr "Content-Type: text/plain; charset=ISO-8859-1\\n"\n\nmsgid "Café"\nmsgstr ""\n'
    assert "Café" in texts(codec_for("fr.po", po.encode("latin-1")).read(po.encode("latin-1")))


# --- lone surrogates -------------------------------------------------------------------------

SURROGATES = {
    "en.json": (b'{"lone": "\\ud800", "high": "\\uDBFF!", "other": "Hello"}\n', "other"),
    "en.arb": (b'{"@@locale": "en", "lone": "x\\udc00", "other": "Hello"}\n', "other"),
    "en.yaml": (b'lone: "\\ud800"\nalso: "a\\uDC00b"\nother: Hello\n', "other"),
    "en.properties": (b"lone=\\ud800\nalso=\\uDC00 tail\nother=Hello\n", "other"),
    "Localizable.strings": (b'"lone" = "\\Ud800";\n"other" = "Hello";\n', "other"),
}


def _surrogates(text: str) -> bool:
    return any(0xD800 <= ord(char) <= 0xDFFF for char in text)


@pytest.mark.parametrize("name", SURROGATES)
def test_a_lone_surrogate_escape_round_trips_byte_for_byte(name: str) -> None:
    data, other = SURROGATES[name]
    codec = codec_for(name, data)
    document = codec.read(data, path=name)
    assert any(_surrogates(text) for text in texts(document))
    assert codec.write(document) == data
    blocks = tuple(
        evolve(b, source=(Text("Bonjour"),)) if b.name == other else b for b in document.blocks
    )
    edited = codec.write(evolve(document, blocks=blocks))
    assert edited == data.replace(b"Hello", b"Bonjour")


@pytest.mark.parametrize("name", SURROGATES)
def test_new_text_with_a_lone_surrogate_is_written_as_an_escape(name: str) -> None:
    data, other = SURROGATES[name]
    codec = codec_for(name, data)
    document = codec.read(data, path=name)
    blocks = tuple(
        evolve(b, source=(Text("new \udfff end"),)) if b.name == other else b
        for b in document.blocks
    )
    edited = codec.write(evolve(document, blocks=blocks))
    assert b"\\" in edited[edited.index(b"new") :]  # an escape, never raw surrogate bytes
    again = codec.read(edited, path=name)
    assert "new \udfff end" in texts(again)
    assert edited.startswith(data[: data.index(b"Hello") - 1])


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("README.md", b"# Title\n\nSome text.\n"),
        ("page.html", b"<p>Some text.</p>\n"),
        ("notes.txt", b"Some text.\n"),
        ("fr.po", b'msgid "Hello"\nmsgstr "Bonjour"\n'),
        ("v1.xlf", SAMPLES["v1.xlf"][0].replace("{enc}", "UTF-8").encode()),
    ],
)
def test_a_lone_surrogate_a_format_cannot_escape_is_refused(name: str, data: bytes) -> None:
    codec = codec_for(name, data)
    document = codec.read(data, path=name)
    with pytest.raises(WriteRefused) as refused:
        codec.write(set_first(document, "half \ud800 a pair"))
    assert refused.value.capability in ("encoding", "characters")
    assert "U+D800" in refused.value.message


# --- property: JSON in every Unicode encoding --------------------------------------------

_VALUE = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)


@given(
    st.dictionaries(st.from_regex(r"[a-z]{1,6}", fullmatch=True), _VALUE, min_size=1, max_size=4),
    st.sampled_from(("utf-8", *ENCODINGS)),
    st.booleans(),
)
def test_json_in_any_unicode_encoding_round_trips(
    values: dict[str, str], encoding: str, bom: bool
) -> None:
    text = json.dumps(values, ensure_ascii=False, indent=2) + "\n"
    mark = (codecs.BOM_UTF8 if encoding == "utf-8" else BOMS[encoding]) if bom else b""
    data = mark + text.encode(encoding)
    codec = codec_for("en.json", data)
    document = codec.read(data, path="en.json")
    assert {b.name: plain_text(b.source) for b in document.blocks} == values
    assert codec.write(document) == data
