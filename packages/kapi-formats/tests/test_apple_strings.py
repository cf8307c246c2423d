"""Apple .strings: UTF-8 and UTF-16 tables read into blocks and spliced back byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kapi.core.format import FormatError, Limits, WriteRefused
from kapi.core.model import Block, Document, Edition, Ph, Plural, Runs, Text
from kapi.formats.apple import StringsFormat
from kapi.formats.registry import load_codec

FIXTURES = Path(__file__).parent / "fixtures" / "strings"
codec = StringsFormat()
UTF16_FIXTURES = ["utf16le_bom.strings", "utf16be_bom.strings", "utf16le_nobom.strings"]


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


# --- reading -----------------------------------------------------------------------------


def test_entries_keys_and_escapes() -> None:
    document = codec.read(fixture("Localizable.strings"), path="fr.lproj/Localizable.strings")
    assert document.format == "applestrings"
    assert document.locale == "en"
    blocks = blocks_of(document)
    assert list(blocks) == [
        "window.title",
        "greeting",
        "items.count",
        "progress",
        "escapes",
        "unquoted_key",
        "spaced",
        "multi.line",
        "key.only",
        "Café",
    ]
    assert blocks["window.title"].source == (Text("Welcome"),)
    assert blocks["escapes"].source == (Text('Say "hi"\nthen \\ leave\tnow é\U0001f600'),)
    assert blocks["unquoted_key"].source == (Text("unquoted.value"),)
    assert blocks["spaced"].source == (Text("Odd   spacing"),)
    assert blocks["multi.line"].source == (Text("First\nSecond"),)
    assert blocks["key.only"].source == (Text("key.only"),)
    assert blocks["Café"].name == "Café"


def test_comments_become_notes() -> None:
    blocks = blocks_of(codec.read(fixture("Localizable.strings")))
    assert blocks["window.title"].properties == {"note": "Title of the main window"}
    assert blocks["greeting"].properties == {"note": "Shown after the user signs in."}
    assert blocks["items.count"].properties == {}


def test_printf_placeholders_with_apple_extensions() -> None:
    blocks = blocks_of(codec.read(fixture("Localizable.strings")))
    assert blocks["greeting"].source == (Text("Hello, "), ph(1, "printf:@", "%@"), Text("!"))
    assert blocks["items.count"].source == (
        ph(1, "printf:@", "%1$@"),
        Text(" has "),
        ph(2, "printf:lld", "%lld"),
        Text(" items"),
    )
    assert blocks["progress"].source == (ph(1, "printf:f", "%.1f"), Text("%% done"))
    runs = codec.read(b'"a" = "%#@files@ in %2$lu, 100% sure";').blocks[0].source
    assert runs == (
        ph(1, "printf:#@", "%#@files@"),
        Text(" in "),
        ph(2, "printf:lu", "%2$lu"),
        Text(", 100% sure"),
    )


@pytest.mark.parametrize("name", [*UTF16_FIXTURES, "utf8_bom_crlf.strings"])
def test_utf16_and_bom_files_read_the_same_entries(name: str) -> None:
    document = codec.read(fixture(name))
    assert blocks_of(document)["count"].source == (ph(1, "printf:d", "%d"), Text(" élément(s)"))
    assert blocks_of(document)["ok"].properties == {"note": "Xcode writes UTF-16"}


def test_locale_argument() -> None:
    assert codec.read(fixture("Localizable.strings"), locale="pt_BR").locale == "pt-BR"


def test_registry_loads_this_codec() -> None:
    assert isinstance(load_codec("applestrings"), StringsFormat)
    # .stringsdict is declared at kapi.formats.apple too; it is re-exported from its module
    assert load_codec("stringsdict").name == "stringsdict"


# --- no-op writes ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["Localizable.strings", "utf8_bom_crlf.strings", *UTF16_FIXTURES])
def test_unchanged_document_writes_identical_bytes(name: str) -> None:
    data = fixture(name)
    assert codec.write(codec.read(data, path=name)) == data


# --- edits ------------------------------------------------------------------------------------


def test_edit_changes_only_the_value() -> None:
    document = codec.read(fixture("Localizable.strings"))
    out = edit(document, "spaced", (Text("Even"),))
    assert out == fixture("Localizable.strings").replace(b'"Odd   spacing"', b'"Even"')


def test_edit_escapes_quotes_backslashes_and_controls() -> None:
    document = codec.read(fixture("Localizable.strings"))
    out = edit(document, "window.title", (Text('a "b" \\ c\nd\te\x01 é'),))
    assert out == fixture("Localizable.strings").replace(
        b'"Welcome"', b'"a \\"b\\" \\\\ c\\nd\\te\\U0001 \xc3\xa9"'
    )
    assert blocks_of(codec.read(out))["window.title"].source == (Text('a "b" \\ c\nd\te\x01 é'),)


def test_unquoted_value_stays_unquoted_when_it_can() -> None:
    document = codec.read(fixture("Localizable.strings"))
    out = edit(document, "unquoted_key", (Text("other.value"),))
    assert b"\nunquoted_key = other.value;\n" in out
    out = edit(document, "unquoted_key", (Text("two words"),))
    assert b'\nunquoted_key = "two words";\n' in out


def test_key_only_entry_gains_a_value() -> None:
    document = codec.read(fixture("Localizable.strings"))
    out = edit(document, "key.only", (Text("Now a value"),))
    assert b'\n"key.only" = "Now a value";\n' in out
    assert blocks_of(codec.read(out))["key.only"].source == (Text("Now a value"),)


def test_placeholders_are_written_from_their_data() -> None:
    document = codec.read(fixture("Localizable.strings"))
    runs = blocks_of(document)["items.count"].source
    out = edit(document, "items.count", (runs[2], Text(" items for "), runs[0]))
    assert b'"items.count" = "%lld items for %1$@";' in out
    new = Ph(id="1", type="code:placeholder", equiv="%@")
    assert b'"window.title" = "Hi %@";' in edit(document, "window.title", (Text("Hi "), new))
    with pytest.raises(WriteRefused) as refused:
        edit(document, "window.title", (Ph(id="1", type="fmt:bold"),))
    assert refused.value.capability == "synthesize:fmt:bold"


@pytest.mark.parametrize("name", UTF16_FIXTURES)
def test_utf16_edit_keeps_encoding_bom_and_newlines(name: str) -> None:
    data = fixture(name)
    document = codec.read(data)
    out = edit(document, "cancel", (Text("Abbrechen ✓"),))
    encoding = document.skeleton.encoding
    bom = document.skeleton.bom
    assert out.startswith(bom)
    assert out[len(bom) :].decode(encoding) == data[len(bom) :].decode(encoding).replace(
        "Annuler", "Abbrechen ✓"
    )


def test_utf8_bom_crlf_without_final_newline() -> None:
    document = codec.read(fixture("utf8_bom_crlf.strings"))
    out = edit(document, "count", (Text("none"),))
    assert out == fixture("utf8_bom_crlf.strings").replace("%d élément(s)".encode(), b"none")
    assert out.startswith(b"\xef\xbb\xbf") and out.endswith(b'"none";')


def test_refusals() -> None:
    document = codec.read(fixture("Localizable.strings"))
    block = blocks_of(document)["greeting"]
    targeted = block.with_target("de", Edition(runs=(Text("Hallo"),)))
    with pytest.raises(WriteRefused) as refused:
        codec.write(
            document.with_blocks(
                tuple(targeted if b.id == "greeting" else b for b in document.blocks)
            )
        )
    assert refused.value.capability == "edition"
    with pytest.raises(WriteRefused):
        edit(document, "greeting", (Plural("count", {"other": (Text("x"),)}),))


def test_document_without_skeleton_is_generated() -> None:
    blocks = (Block(id="a", source=(Text('Say "hi"'),), name="a"),)
    out = codec.write(Document(format="applestrings", blocks=blocks))
    assert out == b'"a" = "Say \\"hi\\"";\n'


# --- bad input ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "line", "column"),
    [
        (b'"a" = "ok";\n"b" = "never closed;\n', 2, 7),
        (b'"a" = "ok";\n/* never closed\n', 2, 1),
        (b'"a" = "ok";\n"b" "c";\n', 2, 5),
        (b'"a" = "ok"\n"b" = "c";\n', 2, 1),
        (b'"a" = ;\n', 1, 7),
        (b'"a" = "x";\n"b" = \n', 2, 6),
        (b'"a" = "x";\n{ }\n', 2, 1),
    ],
)
def test_malformed_input_names_line_and_column(data: bytes, line: int, column: int) -> None:
    with pytest.raises(FormatError) as error:
        codec.read(data, path="Localizable.strings")
    assert error.value.code == "invalid"
    assert error.value.path == "Localizable.strings"
    assert (error.value.line, error.value.column) == (line, column)


def test_invalid_encoding_is_refused() -> None:
    with pytest.raises(FormatError) as error:
        codec.read(b'"a" = "caf\xe9";\n')
    assert (error.value.line, error.value.column) == (1, 11)
    with pytest.raises(FormatError):
        codec.read(b"\xff\xfe\x00\xd8")  # a lone surrogate in UTF-16


def test_compiled_binary_plist_is_unsupported() -> None:
    with pytest.raises(FormatError) as error:
        codec.read(b"bplist00\xd1\x01\x02Ta\x00b", path="en.lproj/Foo.strings")
    assert error.value.code == "unsupported"
    assert error.value.offset == 0


def test_limits_are_budget_errors() -> None:
    with pytest.raises(FormatError) as error:
        StringsFormat(Limits(max_entries=2)).read(fixture("Localizable.strings"))
    assert error.value.code == "budget_exceeded"
    with pytest.raises(FormatError) as error:
        StringsFormat(Limits(max_bytes=50)).read(fixture("Localizable.strings"))
    assert error.value.code == "budget_exceeded"


# --- property tests ---------------------------------------------------------------------------

_KEY = st.from_regex(r"[A-Za-z][A-Za-z0-9_.]{0,10}", fullmatch=True)
_RAW = st.text(
    st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters='"\\%'), max_size=15
)
_LAYOUT = st.sampled_from(['"{k}" = "{v}";', '"{k}"="{v}";', '{k} = "{v}" ;', '"{k}"\t=\t"{v}";'])
_COMMENT = st.sampled_from(["", "/* note */", "// line note", "/* a\n   b */"])
_ENCODING = st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be"])


@st.composite
def tables(draw: st.DrawFn) -> bytes:
    entries = draw(st.lists(st.tuples(_KEY, _RAW, _LAYOUT, _COMMENT), min_size=1, max_size=6))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    lines = []
    for key, value, layout, comment in entries:
        if comment:
            lines.append(comment)
        lines.append(layout.format(k=key, v=value))
    text = newline.join(lines) + (newline if draw(st.booleans()) else "")
    return text.encode(draw(_ENCODING))


@settings(max_examples=150, deadline=None)
@given(tables())
def test_generated_table_round_trips_identically(data: bytes) -> None:
    assert codec.write(codec.read(data)) == data


_ANY_TEXT = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="%"), max_size=30
)


@settings(max_examples=200, deadline=None)
@given(tables(), st.data(), _ANY_TEXT)
def test_set_any_text_then_read_it_back(data: bytes, draw: st.DataObject, new: str) -> None:
    document = codec.read(data)
    target = draw.draw(st.sampled_from([b.id for b in document.blocks]))
    out = edit(document, target, (Text(new),) if new else ())
    again = blocks_of(codec.read(out))
    assert again[target].source == ((Text(new),) if new else ())
    for block in document.blocks:
        if block.id != target:
            assert again[block.id].source == block.source


# --- undo: a value set back gives the file's own bytes -------------------------------------

ESCAPED = b'"quote" = "Say \\"hi\\" to the caf\\U00e9 team";\n"other" = "x";\n'


def test_a_value_set_back_keeps_the_files_escapes() -> None:
    document = codec.read(ESCAPED)
    as_read = blocks_of(document)["quote"].source
    out = edit(document, "quote", (Text('Say "hi" to the café crew'),))
    assert out == ESCAPED.replace(b"team", b"crew")
    assert edit(codec.read(out), "quote", as_read) == ESCAPED


def test_new_text_takes_the_escape_the_value_used() -> None:
    document = codec.read(ESCAPED)
    out = edit(document, "quote", (Text('Say "hi" to the café, and é'),))
    assert out.startswith(b'"quote" = "Say \\"hi\\" to the caf\\U00e9, and \\U00e9";\n')
