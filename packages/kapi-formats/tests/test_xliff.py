"""The XLIFF 1.2 and 2.x codecs: what they read, and that they write back only what changed."""

from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import escape as sax_escape

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kapi.core.format import FormatError, Limits, WriteRefused
from kapi.core.model import Block, Document, Edition, PcClose, PcOpen, Ph, Plural, Runs, Text
from kapi.formats.registry import load_codec
from kapi.formats.xliff import Xliff1Format, Xliff2Format

FIXTURES = Path(__file__).parent / "fixtures" / "xliff"
V1 = Xliff1Format()
V2 = Xliff2Format()
FILES = {
    "xcode.xliff": V1,
    "angular.xlf": V1,
    "okapi.xlf": V1,
    "crlf-bom.xlf": V1,
    "segments.xlf": V2,
}


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def read(name: str) -> Document:
    return FILES[name].read(fixture(name), path=name)


def named(document: Document, name: str) -> Block:
    return next(b for b in document.blocks if b.name == name)


def replace(document: Document, changed: Block) -> Document:
    return document.with_blocks(
        tuple(changed if b.id == changed.id else b for b in document.blocks)
    )


def with_target(document: Document, name: str, runs: Runs, status: str | None = None) -> Document:
    found = named(document, name)
    old = found.targets.get(document.target_locale)
    keep = status if status is not None else (old.status if old else "")
    return replace(
        document, found.with_target(document.target_locale, Edition(runs=runs, status=keep))
    )


def target(document: Document, name: str) -> Edition | None:
    return named(document, name).targets.get(document.target_locale)


# --- reading ------------------------------------------------------------------------------


def test_registry_loads_both_codecs() -> None:
    assert isinstance(load_codec("xliff"), Xliff1Format)
    assert isinstance(load_codec("xliff2"), Xliff2Format)


def test_xcode_units_locales_names_and_properties() -> None:
    document = read("xcode.xliff")
    assert (document.locale, document.target_locale) == ("en", "de")
    names = [b.name for b in document.blocks]
    # the same unit id in two <file>s is qualified by the file's original
    assert names == [
        "Sample/en.lproj/InfoPlist.strings\u0004CFBundleName",
        "NSCameraUsageDescription",
        "Sample/en.lproj/Localizable.strings\u0004CFBundleName",
        "Hello, %@!",
        "Line one\\nLine two",
    ]
    assert [b.id for b in document.blocks] == ["tu1", "tu2", "tu3", "tu4", "tu5"]
    camera = named(document, "NSCameraUsageDescription")
    assert camera.source == (Text('We need the camera to scan "QR" codes & receipts.'),)
    assert camera.targets == {}
    assert camera.locale == "en"
    assert camera.properties == {
        "file": "Sample/en.lproj/InfoPlist.strings",
        "note": "Privacy - Camera Usage Description",
    }
    assert target(document, "Hello, %@!") == Edition(runs=(Text("Hallo, %@!"),), status="")
    assert named(document, "Line one\\nLine two").source == (Text("Line one\nLine two"),)


def test_angular_codes_and_states() -> None:
    document = read("angular.xlf")
    assert (document.locale, document.target_locale) == ("en-US", "fr-FR")
    welcome = named(document, "welcomeName")
    assert welcome.source == (
        Text("Welcome, "),
        Ph(
            id="1",
            type="code:placeholder",
            sub_type="xlf:x",
            data='<x id="INTERPOLATION" equiv-text="{{ user.name }}"/>',
            equiv="{{ user.name }}",
        ),
        Text("!"),
    )
    bold = named(document, "boldWarning").source
    assert [type(r).__name__ for r in bold] == ["Text", "Ph", "Text", "Ph", "Text", "Ph"]
    start, close, brk = bold[1], bold[3], bold[5]
    assert isinstance(start, Ph) and start.type == "code:tag" and start.equiv == ""
    assert start.data == '<x id="START_BOLD_TEXT" ctype="x-b" equiv-text="&lt;b&gt;"/>'
    assert isinstance(close, Ph) and close.id == "2"
    assert isinstance(brk, Ph) and brk.type == "fmt:linebreak" and brk.equiv == "\n"
    statuses = {b.name: e.status for b in document.blocks for e in b.targets.values()}
    assert statuses == {
        "introductionHeader": "translated",  # final
        "welcomeName": "draft",  # new
        "boldWarning": "translated",
    }
    assert named(document, "introductionHeader").properties["state"] == "final"
    assert named(document, "introductionHeader").properties["note"] == (
        "An introduction header for this sample\nUser welcome"
    )
    assert named(document, "minutes").targets == {}


def test_okapi_inline_codes_keep_their_exact_markup() -> None:
    document = read("okapi.xlf")
    assert (document.locale, document.target_locale) == ("en-US", "ja-JP")
    title = named(document, "1")
    assert title.properties["resname"] == "title"
    assert title.source == (
        Text("Acme\u2122 "),
        PcOpen(id="1", type="fmt:bold", sub_type="xlf:g", data='<g id="1" ctype="bold">'),
        Text("User"),
        PcClose(id="1", type="fmt:bold", sub_type="xlf:g", data="</g>"),
        Text(" Guide"),
    )
    assert target(document, "1").status == "draft"  # needs-review-translation
    link = named(document, "2")
    assert link.targets == {}  # only <alt-trans> has a target
    opening, closing = link.source[1], link.source[3]
    assert opening == PcOpen(
        id="1",
        type="link:hyperlink",
        sub_type="xlf:bpt",
        data='<bpt id="1">&lt;a href="https://example.com/help"&gt;</bpt>',
        attrs={"href": "https://example.com/help"},
    )
    assert isinstance(closing, PcClose) and closing.id == "1"
    assert closing.data == '<ept id="1">&lt;/a&gt;</ept>'
    assert link.source[5] == Ph(
        id="2",
        type="fmt:linebreak",
        sub_type="xlf:ph",
        data='<ph id="2">&lt;br/&gt;</ph>',
        equiv="\n",
    )
    assert link.source[7] == Ph(
        id="3", type="code:placeholder", sub_type="xlf:ph", data='<ph id="3">%s</ph>', equiv="%s"
    )
    translatable = {b.name: b.translatable for b in document.blocks}
    assert translatable == {
        "1": True,
        "2": True,
        "3": False,
        "4": False,
        "5": True,
        "6": True,
        "7": True,
    }
    overridden = named(document, "5").source
    assert overridden[1] == PcOpen(
        id="1", type="fmt:italic", sub_type="xlf:bx", data='<bx id="1" rid="1" ctype="italic"/>'
    )
    assert overridden[3] == PcClose(
        id="1", type="fmt:italic", sub_type="xlf:ex", data='<ex id="2" rid="1"/>'
    )
    assert overridden[4] == Ph(
        id="2", type="code:tag", sub_type="xlf:it", data='<it id="3" pos="open">&lt;span&gt;</it>'
    )


def test_segmented_unit_reads_source_whole_and_target_with_segment_markers() -> None:
    document = read("okapi.xlf")
    unit = named(document, "6")
    assert unit.source[0] == Text("First sentence. Second ")
    assert unit.source[2] == Text("API_KEY", no_translate=True)
    runs = target(document, "6").runs
    assert runs[0] == PcOpen(
        id="1", type="code:tag", sub_type="xlf:mrk", data='<mrk mtype="seg" mid="1">'
    )
    assert [r.id for r in runs if not isinstance(r, Text)] == ["1", "1", "2", "3", "3", "2"]


def test_character_data_cdata_and_comments() -> None:
    unit = named(read("okapi.xlf"), "7")
    assert unit.source == (
        Text("Tom & Jerry <3 x < y"),
        Ph(id="1", type="code:tag", sub_type="xml:comment", data="<!-- keep -->"),
        Text(" end"),
    )
    assert unit.targets == {}  # <target/> is empty


def test_crlf_bom_file_normalises_newlines_and_reads_approved() -> None:
    document = read("crlf-bom.xlf")
    greeting = named(document, "Greeting")
    assert greeting.source == (Text("Good morning,\nworld"),)
    assert greeting.targets["nb-NO"] == Edition(
        runs=(Text("God morgen,\nverden"),), status="translated"
    )


def test_xliff2_units_segments_and_codes() -> None:
    document = read("segments.xlf")
    assert (document.locale, document.target_locale) == ("en-US", "de-DE")
    heading = named(document, "u1")
    assert heading.properties == {"name": "heading", "file": "f1", "state": "translated"}
    assert heading.source[1] == PcOpen(
        id="1",
        type="fmt:bold",
        sub_type="xlf:pc",
        data='<pc id="1" type="fmt" subType="xlf:b" dataRefStart="d1" dataRefEnd="d2">',
    )
    two = named(document, "u2")
    assert two.source == (
        Text("You have "),
        Ph(
            id="1",
            type="code:placeholder",
            sub_type="xlf:ph",
            data='<ph id="1" dataRef="d1"/>',
            equiv="{count}",
        ),
        Text(" files."),
        Text(" "),  # the ignorable: a part of its own
        Text("Open "),
        PcOpen(
            id="2",
            type="fmt:italic",
            sub_type="xlf:sc",
            data='<sc id="2" type="fmt" subType="xlf:i"/>',
        ),
        Text("one"),
        PcClose(id="2", type="fmt:italic", sub_type="xlf:ec", data='<ec startRef="2"/>'),
        Text(" now."),
        Ph(
            id="3",
            type="fmt:linebreak",
            sub_type="xlf:ph",
            data='<ph id="3" type="fmt" subType="xlf:lb" dataRef="d2"/>',
            equiv="\n",
        ),
    )
    assert two.properties["note"] == "Two sentences, one ignorable space"
    # the second segment has no target yet, and state="initial": draft
    assert target(document, "u2") == Edition(
        runs=(Text("Sie haben "), two.source[1], Text(" Dateien."), Text(" ")), status="draft"
    )
    assert named(document, "u3").translatable is False
    four = named(document, "u4").source
    assert four[2] == Text("kapi check", no_translate=True)
    assert four[4] == Text(" fast \u2014 ")
    assert four[5] == PcOpen(
        id="2", type="code:tag", sub_type="xlf:sm", data='<sm id="m2" type="term"/>'
    )
    assert four[-1] == Ph(
        id="3", type="entity:char", sub_type="xlf:cp", data='<cp hex="0007"/>', equiv="\x07"
    )
    assert target(document, "u5") == Edition(
        runs=(Text("Erstens."), Text("Zweitens.")), status="translated"
    )


# --- no-op writes ------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(FILES))
def test_unchanged_document_writes_identical_bytes(name: str) -> None:
    document = read(name)
    assert FILES[name].write(document) == fixture(name)


# --- edits --------------------------------------------------------------------------------


def test_edit_changes_only_that_target() -> None:
    document = with_target(read("xcode.xliff"), "Hello, %@!", (Text("Servus, %@ & <du>!"),))
    expected = fixture("xcode.xliff").replace(
        b"<target>Hallo, %@!</target>", b"<target>Servus, %@ &amp; &lt;du&gt;!</target>"
    )
    assert V1.write(document) == expected


def test_missing_target_is_inserted_with_the_units_indentation() -> None:
    document = with_target(read("xcode.xliff"), "NSCameraUsageDescription", (Text("Kamera"),))
    source = b"codes &amp; receipts.</source>"
    expected = fixture("xcode.xliff").replace(source, source + b"\n        <target>Kamera</target>")
    assert V1.write(document) == expected
    again = V1.read(V1.write(document))
    assert target(again, "NSCameraUsageDescription") == Edition(runs=(Text("Kamera"),))


def test_inserted_target_carries_state_and_xml_lang_when_the_file_does() -> None:
    document = with_target(
        read("angular.xlf"), "minutes", (Text("{VAR_PLURAL, plural, other {x}}"),), "translated"
    )
    out = V1.write(document)
    assert (
        b'</source>\n        <target state="translated">{VAR_PLURAL, plural, other {x}}</target>\n        <context-group'
        in out
    )
    okapi = with_target(read("okapi.xlf"), "3", (Text("CONFIG"),))
    written = V1.write(okapi)
    assert (
        b'ACME-CONFIG-42</source><target xml:lang="ja-jp">CONFIG</target></trans-unit>' in written
    )


def test_status_change_rewrites_only_the_state_attribute() -> None:
    document = read("angular.xlf")
    same = target(document, "welcomeName")
    assert same is not None
    out = V1.write(with_target(document, "welcomeName", same.runs, "translated"))
    expected = fixture("angular.xlf").replace(
        b'<target state="new">Welcome', b'<target state="translated">Welcome'
    )
    assert out == expected


def test_edit_keeps_character_references_and_codes_around_it() -> None:
    document = read("okapi.xlf")
    runs = target(document, "1").runs
    edited = (*runs[:4], Text("の手引き"))
    out = V1.write(with_target(document, "1", edited))
    assert (
        '<target xml:lang="ja-jp" state="needs-review-translation">Acme&#8482; '
        '<g id="1" ctype="bold">ユーザー</g>の手引き</target>'
    ).encode() in out
    # an empty <target/> becomes an element with content
    filled = V1.write(with_target(document, "7", (Text("トム"),)))
    assert b'<target xml:lang="ja-jp">\xe3\x83\x88\xe3\x83\xa0</target></trans-unit>' in filled


def test_source_edit_of_segmented_unit_is_refused() -> None:
    document = read("okapi.xlf")
    unit = named(document, "6")
    with pytest.raises(WriteRefused) as refused:
        V1.write(replace(document, unit.with_source((Text("Other."),))))
    assert refused.value.capability == "edition"


def test_source_edit_is_written() -> None:
    document = read("xcode.xliff")
    unit = named(document, "Line one\\nLine two")
    out = V1.write(replace(document, unit.with_source((Text("One\nTwo"),))))
    assert out == fixture("xcode.xliff").replace(
        b"Line one\nLine two</source>", b"One\nTwo</source>"
    )


def test_new_bold_code_is_synthesised_and_others_refused() -> None:
    document = read("okapi.xlf")
    runs = (
        Text("Bold "),
        PcOpen(id="9", type="fmt:bold"),
        Text("x"),
        PcClose(id="9", type="fmt:bold"),
    )
    out = V1.write(with_target(document, "2", runs))
    assert b'<target xml:lang="ja-jp">Bold <g id="4" ctype="bold">x</g></target>' in out
    with pytest.raises(WriteRefused) as refused:
        V1.write(with_target(document, "2", (Ph(id="1", type="code:placeholder"),)))
    assert refused.value.capability == "synthesize:code:placeholder"
    segments = read("segments.xlf")
    out2 = V2.write(with_target(segments, "u4", (Ph(id="1", type="fmt:linebreak"),)))
    assert b'<target><ph id="1" type="fmt" subType="xlf:lb"/></target>' in out2


def test_crossed_element_codes_are_refused() -> None:
    document = read("okapi.xlf")
    source = named(document, "1").source
    crossed = (source[3], Text("x"), source[1])  # </g> before <g>
    with pytest.raises(WriteRefused) as refused:
        V1.write(with_target(document, "1", crossed))
    assert refused.value.capability == "code-order"


def test_plural_runs_are_refused() -> None:
    document = read("xcode.xliff")
    runs = (Plural(pivot="n", forms={"other": (Text("x"),)}),)
    with pytest.raises(WriteRefused):
        V1.write(with_target(document, "Hello, %@!", runs))


def test_other_edition_is_refused() -> None:
    document = read("xcode.xliff")
    unit = named(document, "Hello, %@!")
    changed = unit.with_target("fr", Edition(runs=(Text("Bonjour"),)))
    with pytest.raises(WriteRefused) as refused:
        V1.write(replace(document, changed))
    assert refused.value.capability == "edition"


def test_file_without_target_language_refuses_targets() -> None:
    data = (
        b'<xliff version="1.2"><file source-language="en"><body>'
        b'<trans-unit id="a"><source>A</source></trans-unit></body></file></xliff>'
    )
    document = V1.read(data)
    assert document.target_locale == ""
    unit = document.blocks[0]
    assert unit.properties == {}  # no original: no "file" property
    with pytest.raises(WriteRefused):
        V1.write(replace(document, unit.with_target("de", Edition(runs=(Text("B"),)))))


def test_awkward_characters_round_trip() -> None:
    document = read("crlf-bom.xlf")
    awkward = "a & b < c > d \"q\" 's' \t tab\r cr 😀 \u00a0end\nnext"
    out = V1.write(with_target(document, "Farewell", (Text(awkward),)))
    assert out.startswith(b"\xef\xbb\xbf")
    assert (
        b"a &amp; b &lt; c &gt; d \"q\" 's' \t tab&#13; cr \xf0\x9f\x98\x80 \xc2\xa0end\r\nnext"
        in out
    )
    again = V1.read(out)
    assert target(again, "Farewell") == Edition(runs=(Text(awkward),))


def test_character_xml_cannot_hold_is_refused() -> None:
    document = read("xcode.xliff")
    with pytest.raises(WriteRefused) as refused:
        V1.write(with_target(document, "Hello, %@!", (Text("bell \x07"),)))
    assert refused.value.capability == "characters"


def test_crlf_edit_writes_crlf() -> None:
    document = with_target(read("crlf-bom.xlf"), "Greeting", (Text("God dag,\nverden"),))
    expected = fixture("crlf-bom.xlf").replace(b"God morgen,\r\nverden", b"God dag,\r\nverden")
    assert V1.write(document) == expected


def test_legacy_encoding_writes_character_references() -> None:
    data = (
        '<?xml version="1.0" encoding="ISO-8859-1"?>\n<xliff version="1.2"><file source-language="fr" '
        'target-language="de"><body><trans-unit id="a"><source>Café</source></trans-unit>'
        "</body></file></xliff>\n"
    ).encode("latin-1")
    document = V1.read(data)
    assert document.blocks[0].source == (Text("Café"),)
    out = V1.write(with_target(document, "a", (Text("Kaffee € é"),)))
    assert "<target>Kaffee &#8364; é</target>".encode("latin-1") in out
    assert V1.read(out).blocks[0].targets["de"].runs == (Text("Kaffee € é"),)


# --- XLIFF 2 segments ---------------------------------------------------------------------


def test_xliff2_edit_of_one_segment_unit() -> None:
    document = read("segments.xlf")
    runs = target(document, "u1").runs
    out = V2.write(with_target(document, "u1", (Text("Hallo "), *runs[1:])))
    expected = fixture("segments.xlf").replace(b"<target>Willkommen bei ", b"<target>Hallo ")
    assert out == expected


def test_xliff2_same_shape_edit_goes_segment_by_segment() -> None:
    document = read("segments.xlf")
    out = V2.write(with_target(document, "u5", (Text("Eins."), Text("Zwei."))))
    expected = (
        fixture("segments.xlf").replace(b"Erstens.", b"Eins.").replace(b"Zweitens.", b"Zwei.")
    )
    assert out == expected


def test_xliff2_edit_within_one_segment_is_placed_there() -> None:
    document = read("segments.xlf")
    merged = (Text("Erstens.Zweitens!"),)  # a merged edit whose change lies in segment b
    out = V2.write(with_target(document, "u5", merged))
    assert out == fixture("segments.xlf").replace(b"Zweitens.", b"Zweitens!")


def test_xliff2_edit_across_segments_is_refused() -> None:
    document = read("segments.xlf")
    with pytest.raises(WriteRefused) as refused:
        V2.write(with_target(document, "u5", (Text("Alles in einem."),)))
    assert refused.value.capability == "edition"


def test_xliff2_completing_a_unit_inserts_the_missing_segment_target() -> None:
    document = read("segments.xlf")
    source = named(document, "u2").source
    old = target(document, "u2").runs
    runs = (*old, Text("Öffne "), source[5], Text("eine"), source[7], Text(" jetzt."), source[9])
    out = V2.write(with_target(document, "u2", runs, "translated"))
    expected = (
        fixture("segments.xlf")
        .replace(b'<segment id="s2" state="initial">', b'<segment id="s2" state="translated">')
        .replace(
            b'<ph id="3" type="fmt" subType="xlf:lb" dataRef="d2"/></source>\n',
            b'<ph id="3" type="fmt" subType="xlf:lb" dataRef="d2"/></source>\n'
            + '        <target>Öffne <sc id="2" type="fmt" subType="xlf:i"/>eine<ec startRef="2"/>'.encode()
            + b' jetzt.<ph id="3" type="fmt" subType="xlf:lb" dataRef="d2"/></target>\n',
        )
    )
    assert out == expected
    again = V2.read(out)
    assert target(again, "u2") == Edition(runs=runs, status="translated")


def test_xliff2_new_target_split_like_the_source() -> None:
    data = (
        b'<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="fr">'
        b'<file id="f"><unit id="u"><segment><source>A.</source></segment>'
        b"<ignorable><source> </source></ignorable>"
        b"<segment><source>B.</source></segment></unit></file></xliff>"
    )
    document = V2.read(data)
    out = V2.write(with_target(document, "u", (Text("Un."), Text(" "), Text("Deux."))))
    assert out == (
        b'<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="fr">'
        b'<file id="f"><unit id="u"><segment><source>A.</source><target>Un.</target></segment>'
        b"<ignorable><source> </source></ignorable>"
        b"<segment><source>B.</source><target>Deux.</target></segment></unit></file></xliff>"
    )


# --- bad input ----------------------------------------------------------------------------


def test_truncated_file_names_line_and_column() -> None:
    data = fixture("xcode.xliff")[:700]
    with pytest.raises(FormatError) as error:
        V1.read(data, path="x.xliff")
    assert error.value.code == "invalid"
    assert error.value.path == "x.xliff"
    assert error.value.line is not None and error.value.line > 1
    assert error.value.column is not None


def test_malformed_xml_position() -> None:
    data = b'<xliff version="1.2">\n  <file>\n    <body></file>\n</xliff>'
    with pytest.raises(FormatError) as error:
        V1.read(data, path="bad.xlf")
    assert (error.value.line, error.value.column) == (3, 13)
    assert "bad.xlf:3:13" in str(error.value)


def test_invalid_utf8_is_a_format_error() -> None:
    data = b'<xliff version="1.2"><file><body><trans-unit id="a"><source>\xc3\xa9\xff</source>'
    with pytest.raises(FormatError) as error:
        V1.read(data)
    assert error.value.code == "invalid"
    assert error.value.line == 1


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"<resources/>", "invalid"),
        (b'<xliff version="2.0" srcLang="en"/>', "unsupported"),
        (
            b'<xliff version="1.2"><file source-language="en" target-language="de"/>'
            b'<file source-language="en" target-language="fr"/></xliff>',
            "unsupported",
        ),
        (b'<xliff version="1.2"><file source-language="not a tag"/></xliff>', "invalid"),
        (b'<!DOCTYPE x [<!ENTITY a "aaaa">]><xliff version="1.2">&a;</xliff>', "unsupported"),
        (b'<xliff version="1.2"><file><body><trans-unit id="a"/></body></file></xliff>', "invalid"),
    ],
)
def test_bad_documents(data: bytes, code: str) -> None:
    with pytest.raises(FormatError) as error:
        V1.read(data, path="f.xlf")
    assert error.value.code == code
    assert error.value.line is not None


def test_xliff2_codec_refuses_a_1_2_file() -> None:
    with pytest.raises(FormatError) as error:
        V2.read(fixture("xcode.xliff"))
    assert error.value.code == "unsupported"


def test_limits_give_budget_exceeded() -> None:
    deep = b"<xliff>" + b"<g>" * 10 + b"</g>" * 10 + b"</xliff>"
    with pytest.raises(FormatError) as error:
        Xliff1Format(Limits(max_depth=5)).read(deep)
    assert error.value.code == "budget_exceeded"
    with pytest.raises(FormatError) as error:
        Xliff1Format(Limits(max_entries=2)).read(fixture("xcode.xliff"))
    assert error.value.code == "budget_exceeded"
    with pytest.raises(FormatError) as error:
        Xliff1Format(Limits(max_bytes=100)).read(fixture("xcode.xliff"))
    assert error.value.code == "budget_exceeded"


# --- removing the target edition ---------------------------------------------------------


def without_target(document: Document, name: str) -> Document:
    return replace(document, named(document, name).with_target(document.target_locale, None))


def assert_removed(codec: Xliff1Format | Xliff2Format, before: Document, out: bytes, name: str):
    """The re-read has no target for ``name`` and every other block as it was."""
    again = codec.read(out)
    assert named(again, name).targets == {}
    assert [b.name for b in again.blocks] == [b.name for b in before.blocks]
    for old, new in zip(before.blocks, again.blocks):
        if old.name != name:
            assert new == old


def test_removing_a_single_line_units_target() -> None:
    document = read("okapi.xlf")
    out = V1.write(without_target(document, "1"))
    removed = (
        '<target xml:lang="ja-jp" state="needs-review-translation">Acme&#8482; '
        '<g id="1" ctype="bold">ユーザー</g>ガイド</target>'
    ).encode()
    assert fixture("okapi.xlf").count(removed) == 1
    assert out == fixture("okapi.xlf").replace(removed, b"")
    assert b'Guide</source></trans-unit>\n<trans-unit id="2">' in out
    assert_removed(V1, document, out, "1")


def test_removing_a_multi_line_units_target_takes_its_line() -> None:
    document = read("xcode.xliff")
    out = V1.write(without_target(document, "Hello, %@!"))
    assert out == fixture("xcode.xliff").replace(b"\n        <target>Hallo, %@!</target>", b"")
    assert b"<source>Hello, %@!</source>\n        <note>Greeting" in out
    assert_removed(V1, document, out, "Hello, %@!")


def test_removed_then_added_target_gives_the_file_back() -> None:
    document = read("xcode.xliff")
    out = V1.write(without_target(document, "Hello, %@!"))
    again = V1.read(out)
    restored = with_target(again, "Hello, %@!", (Text("Hallo, %@!"),), "")
    assert V1.write(restored) == fixture("xcode.xliff")


def test_removing_a_target_keeps_seg_source_and_alt_trans() -> None:
    document = read("okapi.xlf")
    out = V1.write(without_target(document, "6"))
    expected = (
        "</seg-source></trans-unit>",
        '<alt-trans match-quality="80"><source xml:lang="en-us">Click here.</source>'
        '<target xml:lang="ja-jp">ここをクリック。</target></alt-trans>',
    )
    for piece in expected:
        assert piece.encode() in out
    start = fixture("okapi.xlf").index(b'</seg-source><target xml:lang="ja-jp" state="translated">')
    end = fixture("okapi.xlf").index(b"</target></trans-unit>", start) + len(b"</target>")
    data = fixture("okapi.xlf")
    assert out == data[: start + len(b"</seg-source>")] + data[end:]
    assert_removed(V1, document, out, "6")


def test_removing_a_target_from_the_crlf_bom_file_drops_approved() -> None:
    document = read("crlf-bom.xlf")
    out = V1.write(without_target(document, "Greeting"))
    expected = (
        fixture("crlf-bom.xlf")
        .replace(b' approved="yes"', b"")
        .replace(b"\r\n\t\t\t\t<target>God morgen,\r\nverden</target>", b"")
    )
    assert expected != fixture("crlf-bom.xlf")
    assert out == expected
    assert out.startswith(b"\xef\xbb\xbf<?xml") and b"\n" not in out.replace(b"\r\n", b"")
    again = V1.read(out)
    assert "approved" not in named(again, "Greeting").properties
    assert named(again, "Greeting").targets == {}
    assert named(again, "Farewell") == named(document, "Farewell")


def test_removing_an_absent_target_changes_nothing() -> None:
    document = read("okapi.xlf")  # unit 7 has an empty <target/>: no edition was read
    assert target(document, "7") is None
    assert V1.write(without_target(document, "7")) == fixture("okapi.xlf")


def test_xliff2_removing_a_one_segment_target() -> None:
    document = read("segments.xlf")
    out = V2.write(without_target(document, "u1"))
    expected = fixture("segments.xlf").replace(
        b'<segment id="s1" state="translated">\n        <source>Welcome to <pc id="1" type="fmt" '
        b'subType="xlf:b" dataRefStart="d1" dataRefEnd="d2">Kapi</pc></source>\n        '
        b'<target>Willkommen bei <pc id="1" type="fmt" subType="xlf:b" dataRefStart="d1" '
        b'dataRefEnd="d2">Kapi</pc></target>\n',
        b'<segment id="s1" state="initial">\n        <source>Welcome to <pc id="1" type="fmt" '
        b'subType="xlf:b" dataRefStart="d1" dataRefEnd="d2">Kapi</pc></source>\n',
    )
    assert expected != fixture("segments.xlf")
    assert out == expected
    assert_removed(V2, document, out, "u1")


def test_xliff2_removing_the_targets_of_several_segments() -> None:
    document = read("segments.xlf")
    out = V2.write(without_target(document, "u5"))
    expected = fixture("segments.xlf").replace(
        b'      <segment id="a" state="translated"><source>First.</source>'
        b"<target>Erstens.</target></segment>\n"
        b'      <segment id="b" state="translated"><source>Second.</source>'
        b"<target>Zweitens.</target></segment>\n",
        b'      <segment id="a" state="initial"><source>First.</source></segment>\n'
        b'      <segment id="b" state="initial"><source>Second.</source></segment>\n',
    )
    assert expected != fixture("segments.xlf")
    assert out == expected
    assert_removed(V2, document, out, "u5")


def test_xliff2_removing_a_partly_translated_units_target() -> None:
    document = read("segments.xlf")
    out = V2.write(without_target(document, "u2"))
    expected = (
        fixture("segments.xlf")
        .replace(
            b'<segment id="s1" state="translated">\n        <source>You have',
            b'<segment id="s1" state="initial">\n        <source>You have',
        )
        .replace(b'\n        <target>Sie haben <ph id="1" dataRef="d1"/> Dateien.</target>', b"")
    )
    assert expected.count(b'state="initial"') == 2
    assert out == expected
    assert_removed(V2, document, out, "u2")


XLIFF2_IGNORABLE = (
    b'<?xml version="1.0"?>\n'
    b'<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="de">\n'
    b' <file id="f">\n'
    b'  <unit id="u">\n'
    b'   <segment state="reviewed" subState="acme:ok">\n'
    b"    <source>A.</source>\n"
    b"    <target>A-de.</target>\n"
    b"   </segment>\n"
    b"   <ignorable>\n"
    b"    <source> </source>\n"
    b"    <target> </target>\n"
    b"   </ignorable>\n"
    b"   <segment>\n"
    b"    <source>B.</source>\n"
    b"    <target>B-de.</target>\n"
    b"   </segment>\n"
    b"  </unit>\n"
    b'  <unit id="v">\n'
    b"   <segment><source>C.</source><target>C-de.</target></segment>\n"
    b"  </unit>\n"
    b" </file>\n"
    b"</xliff>\n"
)


def test_xliff2_removal_takes_ignorable_targets_and_resets_state() -> None:
    document = V2.read(XLIFF2_IGNORABLE)
    edition = target(document, "u")
    assert edition is not None
    assert edition.runs == (Text("A-de."), Text(" "), Text("B-de."))
    out = V2.write(without_target(document, "u"))
    assert out == (
        b'<?xml version="1.0"?>\n'
        b'<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" '
        b'trgLang="de">\n'
        b' <file id="f">\n'
        b'  <unit id="u">\n'
        b'   <segment state="initial">\n'
        b"    <source>A.</source>\n"
        b"   </segment>\n"
        b"   <ignorable>\n"
        b"    <source> </source>\n"
        b"   </ignorable>\n"
        b"   <segment>\n"
        b"    <source>B.</source>\n"
        b"   </segment>\n"
        b"  </unit>\n"
        b'  <unit id="v">\n'
        b"   <segment><source>C.</source><target>C-de.</target></segment>\n"
        b"  </unit>\n"
        b" </file>\n"
        b"</xliff>\n"
    )
    assert_removed(V2, document, out, "u")


def _one_unit(body: str) -> bytes:
    return (
        '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">'
        '<file source-language="en" target-language="fr" original="x"><body>'
        f'<trans-unit id="a">{body}</trans-unit>'
        "</body></file></xliff>"
    ).encode()


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ("<source>x</source>stray<target>y</target>", "next to text"),
        ("<source>x</source><target>y</target> &#10;", "next to text"),
        ("<source>x</source><target>y</target><target>z</target>", "holds 2 <target>"),
    ],
)
def test_unsafe_target_removal_is_refused(body: str, why: str) -> None:
    document = V1.read(_one_unit(body))
    assert target(document, "a") is not None
    with pytest.raises(WriteRefused) as caught:
        V1.write(without_target(document, "a"))
    assert caught.value.capability == "remove_edition"
    assert caught.value.block == "tu1"
    assert why in str(caught.value)


def test_remove_edition_through_the_change_service(tmp_path: Path) -> None:
    import json

    from kapi.core.change.decode import decode_change_set
    from kapi.core.change.ports import Actor
    from kapi.core.change.reading import ReadRequest, read_page
    from kapi.core.change.service import ChangeService
    from kapi.core.change.wire import encode_result
    from kapi.formats.home import FileHome

    original = (
        b'<?xml version="1.0" encoding="UTF-8"?>\n'
        b'<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">\n'
        b'  <file source-language="en" target-language="fr" datatype="plaintext" original="f">\n'
        b"    <body>\n"
        b'      <trans-unit id="1">\n'
        b"        <source>Hello</source>\n"
        b'        <target state="translated">Bonjour</target>\n'
        b"        <note>Greeting</note>\n"
        b"      </trans-unit>\n"
        b'      <trans-unit id="2">\n'
        b"        <source>Bye</source>\n"
        b"        <target>Au revoir</target>\n"
        b"      </trans-unit>\n"
        b"    </body>\n"
        b"  </file>\n"
        b"</xliff>\n"
    )
    (tmp_path / "f.xlf").write_bytes(original)
    home = FileHome(tmp_path)
    page = read_page(home.stage("f.xlf"), ReadRequest(doc="f.xlf", blocks=("1",)))
    editions = page.blocks[0].editions
    assert editions is not None and editions["fr"].text == "Bonjour"
    change = {
        "ops": [
            {
                "op": "remove_edition",
                "at": {"doc": "f.xlf", "block": "1", "edition": "fr"},
                "if_match": editions["fr"].rev,
            }
        ]
    }
    result = encode_result(
        ChangeService(home).apply(decode_change_set(json.dumps(change)), Actor("person"))
    )
    assert result["ops"][0]["status"] == "applied", result
    written = (tmp_path / "f.xlf").read_bytes()
    assert written == original.replace(
        b'\n        <target state="translated">Bonjour</target>', b""
    )
    again = V1.read(written)
    assert named(again, "1").targets == {}
    assert target(again, "2") == Edition(runs=(Text("Au revoir"),))
    # the old rev again is stale (the edition is gone); "*" leaves it unchanged
    result = encode_result(
        ChangeService(home).apply(decode_change_set(json.dumps(change)), Actor("person"))
    )
    assert result["ops"][0]["error"]["code"] == "stale"
    change["ops"][0]["if_match"] = "*"
    result = encode_result(
        ChangeService(home).apply(decode_change_set(json.dumps(change)), Actor("person"))
    )
    assert result["ops"][0]["status"] == "unchanged"
    assert (tmp_path / "f.xlf").read_bytes() == written


# --- properties ---------------------------------------------------------------------------

_XML_CHARS = st.characters(
    blacklist_categories=("Cs",),
    blacklist_characters="\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f\x10\x11\x12"
    "\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\ufffe\uffff",
)
_TEXTS = st.text(_XML_CHARS, max_size=30)


def _escape(text: str) -> str:
    return sax_escape(text).replace("\r", "&#13;")


@st.composite
def catalogues(draw: st.DrawFn) -> tuple[bytes, list[tuple[str, str | None]]]:
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    indent = draw(st.sampled_from(["  ", "\t", ""]))
    quote = draw(st.sampled_from(['"', "'"]))
    units = draw(st.lists(st.tuples(_TEXTS, st.none() | _TEXTS), min_size=1, max_size=5))
    final = draw(st.sampled_from(["", newline]))
    return _catalogue(newline, indent, quote, units, final), units


def _catalogue(
    newline: str, indent: str, quote: str, units: list[tuple[str, str | None]], final: str
) -> bytes:
    lines = [
        f"<?xml version={quote}1.0{quote} encoding={quote}UTF-8{quote}?>",
        '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">',
        f'{indent}<file source-language="en" target-language="fr" original="x">',
        f"{indent * 2}<body>",
    ]
    for index, (source, translated) in enumerate(units):
        lines.append(f'{indent * 3}<trans-unit id="u{index}">')
        lines.append(f"{indent * 4}<source>{_escape(source)}</source>")
        if translated is not None:
            lines.append(f"{indent * 4}<target>{_escape(translated)}</target>")
        lines.append(f"{indent * 3}</trans-unit>")
    lines += [f"{indent * 2}</body>", f"{indent}</file>", "</xliff>"]
    return (newline.join(lines) + final).encode("utf-8")


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(catalogues())
def test_generated_catalogue_round_trips(
    generated: tuple[bytes, list[tuple[str, str | None]]],
) -> None:
    data, units = generated
    document = V1.read(data)
    assert V1.write(document) == data
    for block, (source, translated) in zip(document.blocks, units):
        assert "".join(r.text for r in block.source if isinstance(r, Text)) == source
        if translated:
            assert block.targets["fr"].runs == (Text(translated),)
        else:
            assert "fr" not in block.targets


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(catalogues(), st.data())
def test_set_random_target_reads_back(
    generated: tuple[bytes, list[tuple[str, str | None]]], data: st.DataObject
) -> None:
    raw, units = generated
    document = V1.read(raw)
    index = data.draw(st.integers(0, len(units) - 1))
    value = data.draw(st.text(_XML_CHARS, min_size=1, max_size=40))
    block = document.blocks[index]
    changed = document.with_blocks(
        tuple(
            b.with_target("fr", Edition(runs=(Text(value),))) if b.id == block.id else b
            for b in document.blocks
        )
    )
    again = V1.read(V1.write(changed))
    assert again.blocks[index].targets["fr"].runs == (Text(value),)
    for other, before in zip(again.blocks, document.blocks):
        if other.id != block.id:
            assert other == before


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_TEXTS.filter(bool), min_size=2, max_size=4), st.data())
def test_xliff2_segment_targets_read_back(sources: list[str], data: st.DataObject) -> None:
    segments = "".join(f"<segment><source>{_escape(s)}</source></segment>" for s in sources)
    raw = (
        '<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" '
        f'trgLang="de"><file id="f"><unit id="u">{segments}</unit></file></xliff>'
    ).encode()
    document = V2.read(raw)
    assert V2.write(document) == raw
    translations = tuple(Text(data.draw(_TEXTS.filter(bool))) for _ in sources)
    block = document.blocks[0].with_target("de", Edition(runs=translations))
    again = V2.read(V2.write(document.with_blocks((block,))))
    assert again.blocks[0].targets["de"].runs == translations


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(["\n", "\r\n"]),
    st.sampled_from(["  ", "\t", ""]),
    st.lists(st.tuples(_TEXTS, st.none() | _TEXTS), min_size=1, max_size=5),
    st.data(),
)
def test_removed_target_writes_the_catalogue_without_it(
    newline: str, indent: str, units: list[tuple[str, str | None]], data: st.DataObject
) -> None:
    translated = [i for i, (_, target_text) in enumerate(units) if target_text]
    if not translated:
        units = [*units, ("s", "t")]
        translated = [len(units) - 1]
    index = data.draw(st.sampled_from(translated))
    raw = _catalogue(newline, indent, '"', units, newline)
    document = V1.read(raw)
    block = document.blocks[index]
    changed = document.with_blocks(
        tuple(b.with_target("fr", None) if b.id == block.id else b for b in document.blocks)
    )
    rest = [(source, None) if i == index else (source, t) for i, (source, t) in enumerate(units)]
    assert V1.write(changed) == _catalogue(newline, indent, '"', rest, newline)


def test_a_units_length_limit_in_characters_is_the_blocks_max_chars() -> None:
    v1 = (
        b'<xliff xmlns="urn:oasis:names:tc:xliff:document:1.2" version="1.2">'
        b'<file original="a" source-language="en" datatype="plaintext"><body>'
        b'<trans-unit id="a" maxwidth="12" size-unit="char"><source>Pay</source></trans-unit>'
        b'<trans-unit id="b" maxwidth="80"><source>Pixels, by default</source></trans-unit>'
        b"</body></file></xliff>"
    )
    blocks = V1.read(v1, path="a.xlf").blocks
    assert [b.properties.get("max_chars") for b in blocks] == ["12", None]
    v2 = (
        '<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" '
        'xmlns:slr="urn:oasis:names:tc:xliff:sizerestriction:2.0" version="2.0" srcLang="en">'
        '<file id="f1">{profile}<unit id="a" slr:sizeRestriction="20">'
        "<segment><source>Pay</source></segment></unit></file></xliff>"
    )
    counted = v2.format(profile='<slr:profiles generalProfile="xliff:codepoints"/>')
    assert V2.read(counted.encode(), path="b.xlf").blocks[0].properties["max_chars"] == "20"
    unprofiled = V2.read(v2.format(profile="").encode(), path="c.xlf").blocks[0]
    assert "max_chars" not in unprofiled.properties  # a size in no known unit is not a length
