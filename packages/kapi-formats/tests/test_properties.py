"""Java .properties: values read as Java reads them and spliced back with the file's escaping."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kapi.core.format import FormatError, Limits, WriteRefused
from kapi.core.model import Block, Document, Edition, Ph, Plural, Runs, Text
from kapi.formats.properties import PropertiesFormat
from kapi.formats.registry import load_codec

FIXTURES = Path(__file__).parent / "fixtures" / "properties"
codec = PropertiesFormat()


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def blocks_of(document: Document) -> dict[str, Block]:
    return {block.id: block for block in document.blocks}


def edit(document: Document, block_id: str, runs: Runs) -> bytes:
    assert any(b.id == block_id for b in document.blocks), block_id
    blocks = tuple(b.with_source(runs) if b.id == block_id else b for b in document.blocks)
    return codec.write(document.with_blocks(blocks))


def ph(number: int, sub_type: str, data: str) -> Ph:
    return Ph(id=str(number), type="code:placeholder", sub_type=sub_type, data=data, equiv=data)


# --- reading -------------------------------------------------------------------------


def test_keys_separators_and_escapes_read_as_java_reads_them() -> None:
    document = codec.read(fixture("messages.properties"), path="messages.properties")
    assert document.format == "properties"
    assert document.locale == "en"
    blocks = blocks_of(document)
    assert list(blocks) == [
        "greeting",
        "farewell",
        "title",
        "long.text",
        "cafe",
        "emoji",
        "key with spaces",
        "path:name",
        "files",
        "printf",
        "named",
        "empty",
        "bare",
        "leading",
        "tabs",
    ]
    assert blocks["farewell"].source == (Text("Goodbye"),)
    assert blocks["title"].source == (Text("Welcome"),)
    assert blocks["long.text"].source == (Text("This value is continued over three lines"),)
    assert blocks["cafe"].source == (Text("Café au lait"),)
    assert blocks["emoji"].source == (Text("\U0001f600 smile"),)
    assert blocks["key with spaces"].source == (Text("spaced key"),)
    assert blocks["path:name"].name == "path:name"
    assert blocks["empty"].source == ()
    assert blocks["bare"].source == ()
    assert blocks["leading"].source == (Text("  two spaces"),)
    assert blocks["tabs"].source == (Text("a\tb\nc"),)


def test_comments_above_an_entry_become_its_note() -> None:
    blocks = blocks_of(codec.read(fixture("messages.properties")))
    assert blocks["greeting"].properties == {"note": "Greeting shown on the home page"}
    assert blocks["farewell"].properties == {}


def test_messageformat_and_printf_placeholders() -> None:
    blocks = blocks_of(codec.read(fixture("messages.properties")))
    assert blocks["greeting"].source == (
        Text("Hello, "),
        ph(1, "icu:argument", "{0}"),
        Text("!"),
    )
    choice = "{0,choice,0#no files|1#one file|1<{0,number,integer} files}"
    assert blocks["files"].source == (ph(1, "icu:argument", choice),)
    assert blocks["printf"].source == (
        ph(1, "printf:s", "%s"),
        Text(" has "),
        ph(2, "printf:d", "%1$d"),
        Text(" items ("),
        ph(3, "printf:f", "%.2f"),
        Text("%%)"),
    )
    assert blocks["named"].source == (
        Text("must be between "),
        ph(1, "icu:argument", "{min}"),
        Text(" and "),
        ph(2, "icu:argument", "{max}"),
    )
    runs = codec.read(b"page_of=of {{pageCount}} ({{ size_b }})\n").blocks[0].source
    assert runs == (
        Text("of "),
        ph(1, "mozilla:variable", "{{pageCount}}"),
        Text(" ("),
        ph(2, "mozilla:variable", "{{ size_b }}"),
        Text(")"),
    )
    # prose percent signs and braces that are not arguments stay text
    document = codec.read(b"a=50% off {not an arg} 100%\n")
    assert document.blocks[0].source == (Text("50% off {not an arg} 100%"),)


def test_encodings_latin1_utf8_and_ascii() -> None:
    french = codec.read(fixture("messages_fr.properties"), locale="fr")
    assert french.locale == "fr"
    assert blocks_of(french)["bonjour"].source == (Text("Bonjour, ça va ?"),)
    german = codec.read(fixture("messages_de.properties"))
    assert blocks_of(german)["gruss"].source == (Text("Grüß Gott"),)
    assert blocks_of(german)["escaped"].source == (Text("ärger"),)


def test_registry_loads_this_codec() -> None:
    assert isinstance(load_codec("properties"), PropertiesFormat)


# --- no-op writes ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["messages.properties", "messages_fr.properties", "messages_de.properties", "crlf.properties"],
)
def test_unchanged_document_writes_identical_bytes(name: str) -> None:
    data = fixture(name)
    assert codec.write(codec.read(data, path=name)) == data


def test_bom_and_utf16_are_kept() -> None:
    data = b"\xef\xbb\xbfk=v\xc3\xa9\n"
    document = codec.read(data)
    assert codec.write(document) == data
    assert edit(document, "k", (Text("ü"),)) == b"\xef\xbb\xbfk=\xc3\xbc\n"
    data = "k = v\r\n".encode("utf-16")
    document = codec.read(data)
    assert codec.write(document) == data
    assert edit(document, "k", (Text("ü"),)) == "k = ü\r\n".encode("utf-16")


# --- edits ---------------------------------------------------------------------------------


def test_edit_keeps_separator_and_spacing() -> None:
    document = codec.read(fixture("messages.properties"))
    out = edit(document, "title", (Text("Hi there"),))
    assert out == fixture("messages.properties").replace(
        b"title    Welcome\n", b"title    Hi there\n"
    )
    out = edit(document, "farewell", (Text("Ciao"),))
    assert out == fixture("messages.properties").replace(b"farewell:Goodbye", b"farewell:Ciao")


def test_edited_continuation_value_is_written_on_one_line() -> None:
    document = codec.read(fixture("messages.properties"))
    out = edit(document, "long.text", (Text("Now short"),))
    assert out == fixture("messages.properties").replace(
        b"This value is \\\n            continued over \\\n            three lines",
        b"Now short",
    )


def test_ascii_file_escapes_non_ascii_with_its_hex_case() -> None:
    document = codec.read(fixture("messages.properties"))
    out = edit(document, "cafe", (Text("Thé \u2603 \U0001f600"),))
    # the file's first escape (\u00e9) is lower case
    assert b"cafe=Th\\u00e9 \\u2603 \\ud83d\\ude00\n" in out
    lower = codec.read(b"a=\\u00e9\nb=x\n")
    assert edit(lower, "b", (Text("ü"),)) == b"a=\\u00e9\nb=\\u00fc\n"


def test_latin1_file_writes_latin1_raw_and_escapes_the_rest() -> None:
    document = codec.read(fixture("messages_fr.properties"))
    out = edit(document, "merci", (Text("Très bien \u20ac"),))
    assert out == fixture("messages_fr.properties").replace(
        b"Merci beaucoup", b"Tr\xe8s bien \\u20AC"
    )


def test_latin1_file_that_escapes_latin1_escapes_all_non_ascii() -> None:
    data = b"a=caf\\u00e9\nb=\xe0 la\n"
    document = codec.read(data)
    assert edit(document, "a", (Text("né"),)) == b"a=n\\u00e9\nb=\xe0 la\n"


def test_utf8_file_writes_characters_raw() -> None:
    document = codec.read(fixture("messages_de.properties"))
    out = edit(document, "escaped", (Text("Ärger \U0001f600"),))
    assert out == fixture("messages_de.properties").replace(
        b"\\u00e4rger", "Ärger \U0001f600".encode()
    )


def test_awkward_characters_are_escaped() -> None:
    document = codec.read(fixture("messages.properties"))
    out = edit(document, "farewell", (Text(" lead\\back\nline\ttab\r# = : !"),))
    assert b"farewell:\\ lead\\\\back\\nline\\ttab\\r# = : !\n" in out
    assert blocks_of(codec.read(out))["farewell"].source == (
        Text(" lead\\back\nline\ttab\r# = : !"),
    )


def test_file_that_escapes_separators_keeps_doing_so() -> None:
    document = codec.read(b"url=http\\://example.com\nb=x\n")
    assert edit(document, "b", (Text("a=b:c"),)) == b"url=http\\://example.com\nb=a\\=b\\:c\n"


def test_empty_and_bare_values_are_filled() -> None:
    document = codec.read(fixture("messages.properties"))
    assert b"\nempty=Filled\n" in edit(document, "empty", (Text("Filled"),))
    out = edit(document, "bare", (Text("Filled"),))
    assert b"\nbare=Filled\n" in out
    assert blocks_of(codec.read(out))["bare"].source == (Text("Filled"),)


def test_crlf_and_missing_final_newline_are_kept() -> None:
    document = codec.read(fixture("crlf.properties"))
    out = edit(document, "gamma", (Text("Drei"),))
    assert out == fixture("crlf.properties")[: -len("Three")] + b"Drei"
    out = edit(document, "beta", (Text("Zwei"),))
    assert out == b"# CRLF and no final newline\r\nalpha = One\r\nbeta = Zwei\r\ngamma = Three"


def test_placeholders_are_written_from_their_data() -> None:
    document = codec.read(fixture("messages.properties"))
    out = edit(document, "greeting", (ph(1, "icu:argument", "{0}"), Text(", welcome")))
    assert b"greeting = {0}, welcome\n" in out
    new = Ph(id="1", type="code:placeholder", equiv="%s")
    assert b"farewell:Bye %s\n" in edit(document, "farewell", (Text("Bye "), new))
    with pytest.raises(WriteRefused) as refused:
        edit(document, "farewell", (Ph(id="1", type="fmt:bold"),))
    assert refused.value.capability == "synthesize:fmt:bold"


def test_refusals() -> None:
    document = codec.read(fixture("messages.properties"))
    block = blocks_of(document)["title"]
    targeted = block.with_target("fr", Edition(runs=(Text("Bienvenue"),)))
    with pytest.raises(WriteRefused) as refused:
        codec.write(
            document.with_blocks(tuple(targeted if b.id == "title" else b for b in document.blocks))
        )
    assert refused.value.capability == "edition"
    with pytest.raises(WriteRefused):
        edit(document, "title", (Plural("count", {"other": (Text("x"),)}),))


def test_document_without_skeleton_is_generated() -> None:
    blocks = (
        Block(id="a key", source=(Text("Café = good"),), name="a key"),
        Block(id="b", source=(Text(" x"),), name="b"),
    )
    out = codec.write(Document(format="properties", blocks=blocks))
    assert out == b"a\\ key=Caf\\u00E9 = good\nb=\\ x\n"
    again = blocks_of(codec.read(out))
    assert again["a key"].source == (Text("Café = good"),)
    assert again["b"].source == (Text(" x"),)


# --- bad input ---------------------------------------------------------------------------


def test_malformed_unicode_escape_names_line_and_column() -> None:
    with pytest.raises(FormatError) as error:
        codec.read(b"a=ok\nb=bad \\u12G4\n", path="m.properties")
    assert error.value.code == "invalid"
    assert (error.value.path, error.value.line, error.value.column) == ("m.properties", 2, 7)


def test_limits_are_budget_errors() -> None:
    with pytest.raises(FormatError) as error:
        PropertiesFormat(Limits(max_entries=3)).read(fixture("messages.properties"))
    assert error.value.code == "budget_exceeded"
    assert error.value.line == 8
    with pytest.raises(FormatError) as error:
        PropertiesFormat(Limits(max_bytes=10)).read(fixture("messages.properties"))
    assert error.value.code == "budget_exceeded"


def test_utf16_with_bad_surrogates_is_invalid() -> None:
    with pytest.raises(FormatError) as error:
        codec.read(b"\xff\xfea\x00=\x00\x00\xd8")
    assert error.value.code == "invalid"


# --- property tests ------------------------------------------------------------------------

_KEY = st.from_regex(r"[A-Za-z][A-Za-z0-9_.]{0,10}", fullmatch=True)
_VALUE = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="{}%$\r\n\\"), max_size=20
)
_SEPARATORS = st.sampled_from(["=", " = ", ":", " : ", " ", "\t", "  =  "])


@st.composite
def bundles(draw: st.DrawFn) -> bytes:
    entries = draw(st.lists(st.tuples(_KEY, _SEPARATORS, _VALUE), min_size=1, max_size=8))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    lines: list[str] = []
    for key, separator, value in entries:
        if draw(st.booleans()):
            lines.append(draw(st.sampled_from(["# note", "! bang", "", "   "])))
        escaped = value.replace(" ", "\\ ", 1) if value.startswith(" ") else value
        escaped = "".join(c if ord(c) < 0x80 else f"\\u{ord(c):04x}" for c in escaped)
        if draw(st.booleans()) and len(escaped) > 3:
            escaped = escaped[:2] + "\\" + newline + "    " + escaped[2:].lstrip(" ")
        lines.append(key + separator + escaped)
    text = newline.join(lines) + (newline if draw(st.booleans()) else "")
    return text.encode("ascii")


@settings(max_examples=150, deadline=None)
@given(bundles())
def test_generated_bundle_round_trips_identically(data: bytes) -> None:
    assert codec.write(codec.read(data)) == data


_ANY_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)


@settings(max_examples=200, deadline=None)
@given(bundles(), st.data(), _ANY_TEXT)
def test_set_any_text_then_read_it_back(data: bytes, draw: st.DataObject, new: str) -> None:
    document = codec.read(data)
    target = draw.draw(st.sampled_from([b.id for b in document.blocks]))
    out = edit(document, target, (Text(new),) if new else ())
    again = blocks_of(codec.read(out))
    runs = again[target].source
    assert "".join(r.text if isinstance(r, Text) else r.data for r in runs) == new  # type: ignore[union-attr]
    for block in document.blocks:
        if block.id != target:
            assert again[block.id].source == block.source


# --- undo: setting a value back gives the file's own bytes ------------------------------------


@pytest.mark.parametrize(
    ("block_id", "edited"),
    [
        ("quote", 'Say "bye" to "Kapi"'),
        ("url", "https://example.com/a=b"),
        ("cafe", "Café noir"),
        ("spaced", "one two three"),
        ("long", "The first part, then the second part and the end"),
    ],
)
def test_a_value_set_back_writes_the_bytes_the_file_held(block_id: str, edited: str) -> None:
    original = fixture("escapes.properties")
    document = codec.read(original)
    as_read = blocks_of(document)[block_id].source
    out = edit(document, block_id, (Text(edited),))
    assert blocks_of(codec.read(out))[block_id].source == (Text(edited),)
    assert edit(codec.read(out), block_id, as_read) == original


def test_new_text_takes_the_escapes_the_value_used() -> None:
    document = codec.read(fixture("escapes.properties"))
    out = edit(document, "quote", (Text('Say "hello" to "you"'),))
    assert b'quote = Say \\"hello\\" to \\"you\\"\n' in out
    out = edit(document, "long", (Text("The first part, then the second part and more"),))
    assert b"long = The first part, \\\n    then the second part \\\n    and more\n" in out
