"""The .stringsdict codec: plural entries as Plural runs, written back by splicing strings."""

from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import escape as sax_escape

import pytest
from attrs import evolve
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kapi.core.format import FormatError, Limits, WriteRefused
from kapi.core.model import Block, Document, Edition, Ph, Plural, Runs, Select, Text
from kapi.formats.stringsdict import StringsdictFormat

FIXTURES = Path(__file__).parent / "fixtures" / "stringsdict"
CODEC = StringsdictFormat()


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def read(name: str, locale: str = "") -> Document:
    return CODEC.read(fixture(name), path=name, locale=locale)


def named(document: Document, name: str) -> Block:
    return next(b for b in document.blocks if b.name == name)


def with_source(document: Document, name: str, runs: Runs) -> Document:
    found = named(document, name)
    return document.with_blocks(
        tuple(b.with_source(runs) if b.id == found.id else b for b in document.blocks)
    )


def printf(code_id: str, spec: str, conversion: str) -> Ph:
    return Ph(
        id=code_id, type="code:placeholder", sub_type=f"printf:{conversion}", data=spec, equiv=spec
    )


def with_forms(document: Document, name: str, **forms: Runs) -> Document:
    """The entry's first plural with its forms replaced."""
    found = named(document, name)
    runs = list(found.source)
    index = next(i for i, r in enumerate(runs) if isinstance(r, Plural))
    plural = runs[index]
    assert isinstance(plural, Plural)
    runs[index] = evolve(plural, forms=forms)
    return with_source(document, name, tuple(runs))


# --- reading ------------------------------------------------------------------------------


def test_reads_plural_entries() -> None:
    document = read("Localizable.stringsdict", locale="de_DE")
    assert document.locale == "de-DE"
    assert document.target_locale == ""
    # the variable-width entry gives no block
    assert [(b.id, b.name) for b in document.blocks] == [
        ("e1", "%d file(s) remaining"),
        ("e2", "%@ moved %lld photos to %lld albums"),
        ("e3", "Café <count>"),
    ]
    assert all(b.locale == "de-DE" for b in document.blocks)
    files = named(document, "%d file(s) remaining")
    assert files.source == (
        Plural(
            pivot="files",
            forms={
                "zero": (Text("No files"),),
                "one": (printf("1", "%d", "d"), Text(" file")),
                "other": (printf("1", "%d", "d"), Text(" files")),
            },
        ),
        Text(" remaining"),
    )


def test_two_variables_positional_reference_and_percent() -> None:
    document = read("Localizable.stringsdict")
    assert document.locale == "en"
    runs = named(document, "%@ moved %lld photos to %lld albums").source
    assert runs[0] == printf("1", "%@", "@")
    assert runs[1] == Text(" moved ")
    photos = runs[2]
    assert isinstance(photos, Plural) and photos.pivot == "photos"
    assert photos.forms["one"] == (printf("1", "%lld", "lld"), Text(" photo"))
    albums = runs[4]
    assert isinstance(albums, Plural) and albums.pivot == "albums"
    assert albums.forms["one"] == (Text("one album"),)
    assert runs[5] == Text(" & 100")
    assert runs[6] == Ph(id="2", type="entity:char", sub_type="printf:%", data="%%", equiv="%")
    assert runs[7] == Text(" done.")


def test_repeated_or_unknown_variable_stays_a_placeholder() -> None:
    data = _plist(
        "<key>k</key><dict><key>NSStringLocalizedFormatKey</key>"
        "<string>%#@n@ and %#@n@ and %#@width@</string>"
        + _variable("n", one="one", other="many")
        + "<key>width</key><dict><key>NSStringFormatSpecTypeKey</key>"
        "<string>NSStringVariableWidthRuleType</string></dict></dict>"
    )
    runs = CODEC.read(data).blocks[0].source
    assert isinstance(runs[0], Plural)
    assert runs[2] == Ph(
        id="1", type="code:placeholder", sub_type="printf:#@", data="%#@n@", equiv="%#@n@"
    )
    assert runs[4] == Ph(
        id="2", type="code:placeholder", sub_type="printf:#@", data="%#@width@", equiv="%#@width@"
    )


def test_nested_variable_is_expanded_inside_the_form_and_written_back() -> None:
    data = _plist(
        "<key>k</key><dict><key>NSStringLocalizedFormatKey</key><string>%#@a@</string>"
        + _variable("a", one="one %#@b@", other="%d %#@b@")
        + _variable("b", one="box", other="boxes")
        + "</dict>"
    )
    document = CODEC.read(data)
    runs = document.blocks[0].source
    outer = runs[0]
    assert isinstance(outer, Plural) and outer.pivot == "a"
    inner = outer.forms["one"][1]
    assert inner == Plural(pivot="b", forms={"one": (Text("box"),), "other": (Text("boxes"),)})
    # the second reference to b stays a placeholder
    assert outer.forms["other"][2] == Ph(
        id="2", type="code:placeholder", sub_type="printf:#@", data="%#@b@", equiv="%#@b@"
    )
    edited = evolve(inner, forms={"one": (Text("Kiste"),), "other": (Text("Kisten"),)})
    changed = evolve(outer, forms={**outer.forms, "one": (Text("eine "), edited)})
    out = CODEC.write(document.with_blocks((document.blocks[0].with_source((changed,)),)))
    assert out == data.replace(b"one %#@b@", b"eine %#@b@").replace(
        b"<string>box</string>", b"<string>Kiste</string>"
    ).replace(b"<string>boxes</string>", b"<string>Kisten</string>")


# --- no-op writes ------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["Localizable.stringsdict", "crlf-spaces.stringsdict"])
def test_unchanged_document_writes_identical_bytes(name: str) -> None:
    assert CODEC.write(read(name)) == fixture(name)


# --- edits --------------------------------------------------------------------------------


def test_edit_of_one_form_changes_only_that_string() -> None:
    document = read("Localizable.stringsdict")
    d = printf("1", "%d", "d")
    out = CODEC.write(
        with_forms(
            document,
            "%d file(s) remaining",
            zero=(Text("No files"),),
            one=(d, Text(" Datei")),
            other=(d, Text(" files")),
        )
    )
    assert out == fixture("Localizable.stringsdict").replace(
        b"<string>%d file</string>", b"<string>%d Datei</string>"
    )


def test_edit_of_the_format_text_keeps_the_variable_reference() -> None:
    document = read("Localizable.stringsdict")
    runs = named(document, "%@ moved %lld photos to %lld albums").source
    edited = (*runs[:5], Text(" <&> 100"), *runs[6:])
    out = CODEC.write(with_source(document, "%@ moved %lld photos to %lld albums", edited))
    assert out == fixture("Localizable.stringsdict").replace(
        b"to %#@albums@ &amp; 100%% done.", b"to %#@albums@ &lt;&amp;&gt; 100%% done."
    )


def test_added_form_is_inserted_in_cldr_order_with_the_files_layout() -> None:
    document = read("Localizable.stringsdict")
    d = printf("1", "%d", "d")
    out = CODEC.write(
        with_forms(
            document,
            "%d file(s) remaining",
            zero=(Text("No files"),),
            one=(d, Text(" file")),
            few=(d, Text(" files (few)")),
            other=(d, Text(" files")),
        )
    )
    one = b"\t\t\t<key>one</key>\n\t\t\t<string>%d file</string>\n"
    assert out == fixture("Localizable.stringsdict").replace(
        one, one + b"\t\t\t<key>few</key>\n\t\t\t<string>%d files (few)</string>\n"
    )
    again = CODEC.read(out).blocks[0].source[0]
    assert isinstance(again, Plural)
    assert list(again.forms) == ["zero", "one", "few", "other"]


def test_added_first_form_and_same_line_layout() -> None:
    document = read("crlf-spaces.stringsdict")
    d = printf("1", "%d", "d")
    out = CODEC.write(
        with_forms(
            document,
            "items_count",
            zero=(Text("nothing"),),
            one=(d, Text(" item")),
            other=(d, Text(" items")),
        )
    )
    assert out == fixture("crlf-spaces.stringsdict").replace(
        b"        <key>one</key>",
        b"        <key>zero</key><string>nothing</string>\r\n        <key>one</key>",
    )


def test_dropped_form_is_removed_but_other_is_kept() -> None:
    document = read("Localizable.stringsdict")
    d = printf("1", "%d", "d")
    out = CODEC.write(
        with_forms(
            document, "%d file(s) remaining", one=(d, Text(" file")), other=(d, Text(" files"))
        )
    )
    assert out == fixture("Localizable.stringsdict").replace(
        b"\t\t\t<key>zero</key>\n\t\t\t<string>No files</string>\n", b""
    )
    with pytest.raises(WriteRefused) as refused:
        CODEC.write(with_forms(document, "%d file(s) remaining", one=(d, Text(" file"))))
    assert refused.value.capability == "plural"


@pytest.mark.parametrize(
    "runs",
    [
        (Plural(pivot="nope", forms={"other": (Text("x"),)}),),
        (Plural(pivot="cups", forms={"=0": (Text("x"),), "other": (Text("y"),)}),),
        (Select(pivot="g", cases={"other": (Text("x"),)}),),
        (
            Plural(pivot="cups", forms={"other": (Text("x"),)}),
            Plural(pivot="cups", forms={"other": (Text("y"),)}),
        ),
    ],
)
def test_structures_a_stringsdict_cannot_hold_are_refused(runs: Runs) -> None:
    document = read("Localizable.stringsdict")
    with pytest.raises(WriteRefused):
        CODEC.write(with_source(document, "Café <count>", runs))


def test_other_edition_is_refused() -> None:
    document = read("Localizable.stringsdict")
    found = named(document, "Café <count>")
    changed = found.with_target("fr", Edition(runs=(Text("x"),)))
    with pytest.raises(WriteRefused) as refused:
        CODEC.write(document.with_blocks((changed, *document.blocks[1:])))
    assert refused.value.capability == "edition"


def test_new_placeholder_is_written_from_its_equiv_or_refused() -> None:
    document = read("Localizable.stringsdict")
    runs = (Plural(pivot="cups", forms={"other": (Ph(id="1", equiv="%lu"), Text(" Tassen"))}),)
    out = CODEC.write(with_source(document, "Café <count>", runs))
    assert b"<string>%lu Tassen</string>" in out
    assert "%d café crème".encode() not in out  # the "one" form was dropped
    bad = (Plural(pivot="cups", forms={"other": (Ph(id="1", type="code:placeholder"),)}),)
    with pytest.raises(WriteRefused) as refused:
        CODEC.write(with_source(document, "Café <count>", bad))
    assert refused.value.capability == "synthesize:code:placeholder"


def test_awkward_characters_round_trip() -> None:
    document = read("crlf-spaces.stringsdict")
    awkward = "a & b < c > d \"q\" 's' \t😀\nline\r"
    d = printf("1", "%d", "d")
    out = CODEC.write(
        with_forms(document, "items_count", one=(d, Text(awkward)), other=(d, Text(" items")))
    )
    assert (
        b"<string>%da &amp; b &lt; c &gt; d \"q\" 's' \t\xf0\x9f\x98\x80\r\nline&#13;</string>"
        in out
    )
    again = CODEC.read(out).blocks[0].source[0]
    assert isinstance(again, Plural)
    assert again.forms["one"] == (d, Text(awkward))


def test_unchanged_prefix_keeps_character_references() -> None:
    data = _plist(
        "<key>k</key><dict><key>NSStringLocalizedFormatKey</key><string>%#@n@</string>"
        + _variable("n", one="&#x2014; one &amp; done", other="x")
        + "</dict>"
    )
    document = CODEC.read(data)
    out = CODEC.write(
        with_forms(document, "k", one=(Text("\u2014 one & more"),), other=(Text("x"),))
    )
    assert b"<string>&#x2014; one &amp; more</string>" in out


# --- bad input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        b"<xliff/>",
        b"<plist><array/></plist>",
        b"<plist><dict><key>a</key></dict></plist>",
        b"<plist><dict><string>a</string></dict></plist>",
        b"<plist><dict><key>a</key><dict><key>NSStringLocalizedFormatKey</key><string>x</string>",
        b"<plist><!-- \xc3\xa9 --><dict><key>\xe9</key></dict></plist>",
    ],
)
def test_bad_input_is_a_format_error_with_position(data: bytes) -> None:
    with pytest.raises(FormatError) as error:
        CODEC.read(data, path="bad.stringsdict")
    assert error.value.code == "invalid"
    assert error.value.line is not None and error.value.column is not None
    assert str(error.value).startswith("bad.stringsdict:")


def test_limits() -> None:
    with pytest.raises(FormatError) as error:
        StringsdictFormat(Limits(max_entries=1)).read(fixture("Localizable.stringsdict"))
    assert error.value.code == "budget_exceeded"
    with pytest.raises(FormatError) as error:
        StringsdictFormat(Limits(max_depth=3)).read(fixture("Localizable.stringsdict"))
    assert error.value.code == "budget_exceeded"


# --- properties ---------------------------------------------------------------------------

_XML_CHARS = st.characters(
    blacklist_categories=("Cs",),
    blacklist_characters="\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f\x10\x11\x12"
    "\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\ufffe\uffff%",
)
_TEXTS = st.text(_XML_CHARS, max_size=20)
_FORMS = ("zero", "one", "two", "few", "many", "other")


def _escape(text: str) -> str:
    return sax_escape(text).replace("\r", "&#13;")


def _variable(name: str, **forms: str) -> str:
    pairs = "".join(f"<key>{form}</key><string>{value}</string>" for form, value in forms.items())
    return (
        f"<key>{name}</key><dict><key>NSStringFormatSpecTypeKey</key>"
        f"<string>NSStringPluralRuleType</string><key>NSStringFormatValueTypeKey</key>"
        f"<string>d</string>{pairs}</dict>"
    )


def _plist(body: str) -> bytes:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" '
        '"http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n'
        f'<plist version="1.0">\n<dict>{body}</dict>\n</plist>\n'
    ).encode()


@st.composite
def stringsdicts(draw: st.DrawFn) -> tuple[bytes, list[dict[str, str]]]:
    entries: list[dict[str, str]] = []
    for _ in range(draw(st.integers(1, 4))):
        chosen = draw(st.lists(st.sampled_from(_FORMS[:-1]), unique=True, max_size=3))
        forms = [*sorted(chosen, key=_FORMS.index), "other"]
        entries.append({form: draw(_TEXTS) for form in forms})
    body = "".join(
        f"\n\t<key>entry{index}</key>\n\t<dict><key>NSStringLocalizedFormatKey</key>"
        f"<string>%#@n@</string>"
        + _variable("n", **{form: "%d " + _escape(value) for form, value in forms.items()})
        + "</dict>"
        for index, forms in enumerate(entries)
    )
    return _plist(body), entries


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(stringsdicts())
def test_generated_stringsdict_round_trips(generated: tuple[bytes, list[dict[str, str]]]) -> None:
    data, entries = generated
    document = CODEC.read(data)
    assert CODEC.write(document) == data
    for block, forms in zip(document.blocks, entries):
        plural = block.source[0]
        assert isinstance(plural, Plural)
        assert list(plural.forms) == list(forms)
        for form, value in forms.items():
            text = "".join(r.text for r in plural.forms[form] if isinstance(r, Text))
            assert text == " " + value


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(stringsdicts(), st.data())
def test_set_random_form_reads_back(
    generated: tuple[bytes, list[dict[str, str]]], data: st.DataObject
) -> None:
    raw, entries = generated
    document = CODEC.read(raw)
    index = data.draw(st.integers(0, len(entries) - 1))
    block = document.blocks[index]
    plural = block.source[0]
    assert isinstance(plural, Plural)
    form = data.draw(st.sampled_from(_FORMS))
    value = data.draw(_TEXTS)
    forms = dict(plural.forms)
    forms[form] = (Text(value),) if value else ()
    changed = block.with_source((evolve(plural, forms=forms),))
    out = CODEC.write(
        document.with_blocks(tuple(changed if b.id == block.id else b for b in document.blocks))
    )
    again = CODEC.read(out)
    reread = again.blocks[index].source[0]
    assert isinstance(reread, Plural)
    assert reread.forms[form] == forms[form]
    assert set(reread.forms) == set(forms)
    assert [b for i, b in enumerate(again.blocks) if i != index] == [
        b for i, b in enumerate(document.blocks) if i != index
    ]
