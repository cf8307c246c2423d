"""The Android strings.xml codec: what it reads, and that it writes back only what changed."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kapi.core.format import FormatError, Limits, WriteRefused
from kapi.core.model import Block, Document, Edition, PcClose, PcOpen, Ph, Plural, Run, Runs, Text
from kapi.formats.android import AndroidFormat, decode_value, encode_text
from kapi.formats.registry import load_codec

FIXTURES = Path(__file__).parent / "fixtures" / "android"
CODEC = AndroidFormat()


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def read(name: str = "strings.xml") -> Document:
    return CODEC.read(fixture(name), path=name)


def block(document: Document, name: str) -> Block:
    return next(b for b in document.blocks if b.name == name)


def edit(document: Document, name: str, runs: Runs) -> Document:
    found = block(document, name)
    return document.with_blocks(
        tuple(b.with_source(runs) if b.id == found.id else b for b in document.blocks)
    )


def flat(runs: Runs) -> str:
    out = []
    for run in runs:
        if isinstance(run, Text):
            out.append(run.text)
        elif isinstance(run, Ph | PcOpen | PcClose):
            out.append(run.data)
    return "".join(out)


def resources(body: str) -> bytes:
    return f'<?xml version="1.0" encoding="utf-8"?>\n<resources>\n{body}\n</resources>\n'.encode()


# --- reading ------------------------------------------------------------------------------


def test_registry_loads_the_codec() -> None:
    assert isinstance(load_codec("androidxml"), AndroidFormat)


def test_blocks_names_and_roles() -> None:
    document = read()
    assert document.format == "androidxml"
    assert document.locale == "en" and document.target_locale == ""
    assert [b.name for b in document.blocks] == [
        "app_name", "welcome", "apostrophe", "quoted", "styled", "protected", "html", "escapes",
        "collapsed", "empty", "ref", "unformatted", "tools_attr", "files", "planets[0]", "planets[1]",
    ]  # fmt: skip
    assert len({b.id for b in document.blocks}) == len(document.blocks)
    app_name = block(document, "app_name")
    assert (app_name.translatable, app_name.role) == (False, "config")
    ref = block(document, "ref")
    assert (ref.translatable, ref.role) == (False, "reference")
    assert block(document, "welcome").properties == {"note": "Shown on the welcome screen."}
    assert block(document, "tools_attr").properties == {"tools:ignore": "MissingTranslation"}
    assert all(b.locale == "en" for b in document.blocks)


def test_locale_argument() -> None:
    document = CODEC.read(fixture("strings.xml"), locale="pt_BR")
    assert document.locale == "pt-BR"
    assert document.blocks[0].locale == "pt-BR"


def test_escapes_quotes_and_whitespace_are_decoded() -> None:
    document = read()
    assert block(document, "apostrophe").source == (Text('Don\'t stop & "go"'),)
    assert block(document, "quoted").source == (Text("It's   spaced"),)
    assert block(document, "collapsed").source == (Text("Several words over lines"),)
    escapes = block(document, "escapes").source
    assert escapes[0] == Text("Line one\nLine\ttwo @home é 100")
    assert escapes[1] == Ph("1", "code:placeholder", "printf:%", "%%", equiv="%")
    assert block(document, "empty").source == ()


def test_placeholders_are_codes_unless_unformatted() -> None:
    document = read()
    assert block(document, "welcome").source == (
        Text("Welcome, "),
        Ph("1", "code:placeholder", "printf:s", "%1$s", equiv="%1$s"),
        Text("!"),
    )
    assert block(document, "unformatted").source == (Text("50% of %s"),)


def test_inline_markup_is_paired_codes_with_exact_data() -> None:
    runs = block(read(), "styled").source
    assert runs[1] == PcOpen("1", "fmt:bold", "android:b", "<b>")
    assert runs[3] == PcClose("1", "fmt:bold", "android:b", "</b>")
    assert runs[5] == PcOpen("2", "fmt:italic", "android:i", "<i>")
    link = runs[9]
    assert isinstance(link, PcOpen)
    assert link.type == "link:hyperlink"
    assert link.data == '<a href="https://example.com/help?a=1&amp;b=2">'
    assert link.attrs == {"href": "https://example.com/help?a=1&b=2"}
    assert runs[11] == PcClose("3", "link:hyperlink", "android:a", "</a>")
    assert (
        flat(runs)
        == 'Tap <b>Save</b> or <i>Cancel</i>, see <a href="https://example.com/help?a=1&amp;b=2">help</a>.'
    )


def test_xliff_g_is_one_protected_placeholder() -> None:
    runs = block(read(), "protected").source
    assert runs == (
        Text("Downloaded "),
        Ph(
            "1",
            "code:placeholder",
            "xliff:g",
            '<xliff:g id="count" example="3">%d</xliff:g>',
            equiv="%d",
            disp="3",
        ),
        Text(" files"),
    )


def test_cdata_html_becomes_codes() -> None:
    runs = block(read(), "html").source
    assert runs == (
        PcOpen("1", "fmt:bold", "html:b", "<b>"),
        Text("Bold"),
        PcClose("1", "fmt:bold", "html:b", "</b>"),
        Text(" & "),
        PcOpen("2", "fmt:underline", "html:u", "<u>"),
        Ph("3", "code:placeholder", "printf:s", "%1$s", equiv="%1$s"),
        PcClose("2", "fmt:underline", "html:u", "</u>"),
    )


def test_plurals_and_string_arrays() -> None:
    document = read()
    (files,) = block(document, "files").source
    assert isinstance(files, Plural)
    assert files.pivot == "count"
    assert list(files.forms) == ["one", "other"]
    assert files.forms["other"] == (
        Ph("1", "code:placeholder", "printf:d", "%d", equiv="%d"),
        Text(" files"),
    )
    assert block(document, "planets[1]").source == (Text("Venus"),)


def test_code_ids_are_sequential_and_pairs_share_one() -> None:
    runs = decode_value("%1$s <b>%2$s</b> %3$d <i>x</i> %%")
    ids = [(type(r).__name__, r.id) for r in runs if not isinstance(r, Text)]
    assert ids == [
        ("Ph", "1"), ("PcOpen", "2"), ("Ph", "3"), ("PcClose", "2"), ("Ph", "4"),
        ("PcOpen", "5"), ("PcClose", "5"), ("Ph", "6"),
    ]  # fmt: skip


def test_decode_value_corner_cases() -> None:
    assert decode_value('  "  kept  "  ') == (Text("  kept  "),)
    assert decode_value("a\\u0020\\u0020b") == (Text("a  b"),)
    assert decode_value("<b> bold </b> x") == (
        PcOpen("1", "fmt:bold", "android:b", "<b>"),
        Text("bold "),
        PcClose("1", "fmt:bold", "android:b", "</b>"),
        Text("x"),
    )
    assert decode_value("&#8230;&#x41;&lt;") == (Text("…A<"),)
    assert decode_value("a<!-- note -->b") == (
        Text("a"),
        Ph("1", "code:tag", "xml:comment", "<!-- note -->"),
        Text("b"),
    )


# --- writing: unchanged -------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.iterdir()))
def test_unchanged_document_writes_identical_bytes(name: str) -> None:
    data = fixture(name)
    assert CODEC.write(CODEC.read(data, path=name)) == data


def test_no_final_newline_and_odd_layout_kept() -> None:
    data = b"<resources><string\n  name='a'  >x</string  ><!--c--><string name=\"b\">y</string></resources>"
    document = CODEC.read(data)
    assert CODEC.write(document) == data
    assert CODEC.write(edit(document, "a", (Text("z"),))) == data.replace(b">x<", b">z<")


# --- writing: edits -----------------------------------------------------------------------


def test_edit_changes_only_that_value_and_escapes_apostrophes() -> None:
    written = CODEC.write(edit(read(), "welcome", (Text('It\'s <new> & "fine"'),)))
    assert written == fixture("strings.xml").replace(
        b">Welcome, %1$s!<", b'>It\\\'s &lt;new&gt; &amp; \\"fine\\"<'
    )


def test_quoted_value_stays_quoted() -> None:
    written = CODEC.write(edit(read(), "quoted", (Text("Don't  stop"),)))
    assert written == fixture("strings.xml").replace(b'"It\'s   spaced"', b'"Don\'t  stop"')


def test_cdata_value_stays_cdata_and_keeps_codes() -> None:
    document = read()
    runs = block(document, "html").source
    edited = (*runs[:3], Text(" et ]]> "), *runs[4:])
    written = CODEC.write(edit(document, "html", edited))
    assert written == fixture("strings.xml").replace(
        b"<![CDATA[<b>Bold</b> & <u>%1$s</u>]]>",
        b"<![CDATA[<b>Bold</b> et ]]]]><![CDATA[> <u>%1$s</u>]]>",
    )
    assert block(CODEC.read(written), "html").source == edited


def test_xliff_placeholder_and_links_are_replayed() -> None:
    document = read()
    runs = block(document, "protected").source
    written = CODEC.write(edit(document, "protected", (Text("Fichiers : "), runs[1])))
    assert (
        b'<string name="protected">Fichiers : <xliff:g id="count" example="3">%d</xliff:g></string>'
        in written
    )


def test_spaces_android_would_drop_are_escaped() -> None:
    written = CODEC.write(edit(read(), "welcome", (Text(" two  spaces "),)))
    assert b'<string name="welcome">\\u0020two \\u0020spaces\\u0020</string>' in written
    assert block(CODEC.read(written), "welcome").source == (Text(" two  spaces "),)


def test_leading_at_and_question_mark_are_escaped() -> None:
    written = CODEC.write(edit(read(), "welcome", (Text("@home?"),)))
    assert b'<string name="welcome">\\@home?</string>' in written
    again = block(CODEC.read(written), "welcome")
    assert again.source == (Text("@home?"),) and again.translatable


def test_multiline_value_is_written_with_escapes() -> None:
    written = CODEC.write(edit(read(), "collapsed", (Text("one\ntwo\tthree"),)))
    assert written == fixture("strings.xml").replace(
        b"\n        Several words\n        over lines\n    ", b"one\\ntwo\\tthree"
    )


def test_self_closing_string_gets_a_value() -> None:
    written = CODEC.write(edit(read(), "empty", (Text("Now full"),)))
    assert written == fixture("strings.xml").replace(
        b'<string name="empty"/>', b'<string name="empty">Now full</string>'
    )


def test_string_array_item_edit() -> None:
    written = CODEC.write(edit(read(), "planets[1]", (Text("Vénus"),)))
    assert written == fixture("strings.xml").replace(
        b"<item>Venus</item>", "<item>Vénus</item>".encode()
    )


def test_plural_form_edit_changes_only_that_item() -> None:
    document = read()
    (files,) = block(document, "files").source
    assert isinstance(files, Plural)
    forms = dict(files.forms)
    forms["other"] = (forms["other"][0], Text(" fichiers"))
    written = CODEC.write(edit(document, "files", (Plural("count", forms),)))
    assert written == fixture("strings.xml").replace(b"%d files</item>", b"%d fichiers</item>")


def test_new_plural_forms_are_inserted_in_the_file_layout() -> None:
    document = read("crlf_bom.xml")
    (apples,) = block(document, "apples").source
    assert isinstance(apples, Plural)
    ph = apples.forms["one"][0]
    forms = {
        "one": (ph, Text(" яблоко")),
        "few": (ph, Text(" яблока")),
        "many": (ph, Text(" яблок")),
        "other": (ph, Text(" яблока")),
    }
    written = CODEC.write(edit(document, "apples", (Plural("count", forms),)))
    expected = (
        '\ufeff<?xml version="1.0" encoding="utf-8"?>\r\n<resources>\r\n'
        '    <string name="hello">Hallo</string>\r\n    <plurals name="apples">\r\n'
        '        <item quantity="one">%d яблоко</item>\r\n'
        '        <item quantity="other">%d яблока</item>\r\n'
        '        <item quantity="few">%d яблока</item>\r\n'
        '        <item quantity="many">%d яблок</item>\r\n'
        "    </plurals>\r\n</resources>"
    ).encode()
    assert written == expected
    (again,) = block(CODEC.read(written), "apples").source
    assert isinstance(again, Plural)
    assert dict(again.forms) == forms


def test_dropped_plural_form_removes_its_line() -> None:
    document = read("crlf_bom.xml")
    (apples,) = block(document, "apples").source
    assert isinstance(apples, Plural)
    written = CODEC.write(
        edit(document, "apples", (Plural("count", {"other": apples.forms["other"]}),))
    )
    assert written == fixture("crlf_bom.xml").replace(
        b'\r\n        <item quantity="one">%d Apfel</item>', b""
    )


def test_new_codes_are_synthesised() -> None:
    runs: tuple[Run, ...] = (
        PcOpen("1", "fmt:bold"),
        Text("Hi"),
        PcClose("1", "fmt:bold"),
        Text(" "),
        PcOpen("2", "link:hyperlink", attrs={"href": 'https://x.test/?a=1&b="2"'}),
        Text("there"),
        PcClose("2", "link:hyperlink"),
        Ph("3", "code:placeholder", equiv="%1$s"),
    )
    written = CODEC.write(edit(read(), "welcome", runs))
    assert (
        b'<string name="welcome"><b>Hi</b> <a href="https://x.test/?a=1&amp;b=&quot;2&quot;">there</a>%1$s</string>'
        in written
    )
    with pytest.raises(WriteRefused) as refused:
        CODEC.write(edit(read(), "welcome", (Ph("1", "media:image"),)))
    assert refused.value.capability == "synthesize:media:image"


def test_mixed_cdata_value_is_refused_on_edit() -> None:
    data = resources('<string name="m">Plain <![CDATA[<b>html</b>]]> tail</string>')
    document = CODEC.read(data)
    assert CODEC.write(document) == data
    assert [r.data for r in document.blocks[0].source if isinstance(r, PcOpen)] == ["<b>"]
    with pytest.raises(WriteRefused) as refused:
        CODEC.write(edit(document, "m", (Text("x"),)))
    assert refused.value.capability == "cdata-mixed"


def test_other_editions_are_refused() -> None:
    document = read()
    welcome = block(document, "welcome")
    changed = welcome.with_target("fr", Edition((Text("Bienvenue"),)))
    with pytest.raises(WriteRefused) as refused:
        CODEC.write(
            document.with_blocks(
                tuple(changed if b.id == welcome.id else b for b in document.blocks)
            )
        )
    assert refused.value.capability == "edition"


def test_plural_shape_is_enforced() -> None:
    with pytest.raises(WriteRefused) as refused:
        CODEC.write(edit(read(), "files", (Text("flat"),)))
    assert refused.value.capability == "plural"
    with pytest.raises(WriteRefused):
        CODEC.write(edit(read(), "files", (Plural("count", {"=0": (Text("none"),)}),)))
    with pytest.raises(WriteRefused):
        CODEC.write(edit(read(), "welcome", (Plural("count", {"other": (Text("x"),)}),)))


def test_document_from_elsewhere_is_refused() -> None:
    with pytest.raises(WriteRefused):
        CODEC.write(Document(format="androidxml", blocks=()))


# --- bad input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "line", "column", "fragment"),
    [
        (b"<resources>\n  <string name='a'>x</strin>\n</resources>", 2, 23, "mismatched tag"),
        (b"<resources>\n  <string name='a'>x", 2, 21, "no element found"),
        (b"<resources>\n<string name='a'>&nbsp;</string></resources>", 2, 18, "undefined entity"),
        (b"<manifest>\n</manifest>", 1, 1, "not <resources>"),
        (b'<!DOCTYPE r [<!ENTITY x "y">]>\n<resources/>', 1, 1, "DOCTYPE"),
        (
            b"<resources><!-- \xc3\xa9 -->\n<string name='a'>\xff</string></resources>",
            2,
            18,
            "UTF-8",
        ),
    ],
)
def test_bad_input_is_refused_with_a_position(
    data: bytes, line: int, column: int, fragment: str
) -> None:
    with pytest.raises(FormatError) as error:
        CODEC.read(data, path="res/values/strings.xml")
    assert error.value.code == "invalid"
    assert error.value.path == "res/values/strings.xml"
    assert (error.value.line, error.value.column) == (line, column)
    assert fragment in error.value.message


def test_limits_are_enforced() -> None:
    data = resources(
        '<string name="a">1</string><string name="b">2</string><string name="c">3</string>'
    )
    with pytest.raises(FormatError) as error:
        AndroidFormat(Limits(max_entries=2)).read(data)
    assert error.value.code == "budget_exceeded"
    with pytest.raises(FormatError) as error:
        AndroidFormat(Limits(max_bytes=20)).read(data)
    assert error.value.code == "budget_exceeded"
    deep = resources('<string name="a">' + "<b>" * 30 + "x" + "</b>" * 30 + "</string>")
    with pytest.raises(FormatError) as error:
        AndroidFormat(Limits(max_depth=10)).read(deep)
    assert error.value.code == "budget_exceeded"


def test_utf16_is_unsupported() -> None:
    data = '<?xml version="1.0" encoding="utf-16"?><resources/>'.encode("utf-16")
    with pytest.raises(FormatError) as error:
        CODEC.read(data)
    assert error.value.code == "unsupported"


# --- properties ---------------------------------------------------------------------------

_TEXT = st.lists(
    st.sampled_from([*"ab Zé漢'\"\\@?&<>%\n\t;", "\u00a0", "\x01", "]]>", "  "]),
    min_size=1,
    max_size=30,
).map("".join)


@st.composite
def strings_files(draw: st.DrawFn) -> bytes:
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    indent = draw(st.sampled_from(["", "  ", "    ", "\t"]))
    lines = ['<?xml version="1.0" encoding="utf-8"?>', "<!-- generated -->", "<resources>"]
    for index in range(draw(st.integers(0, 6))):
        style = draw(st.sampled_from(["plain", "quoted", "cdata"]))
        text = draw(_TEXT) if style != "cdata" else draw(_TEXT.filter(lambda t: "<" not in t))
        value = encode_text((Text(text),), quoted=style == "quoted", cdata=style == "cdata")
        if draw(st.booleans()):
            lines.append(f"{indent}<!-- note {index} -->")
        lines.append(f'{indent}<string name="s{index}">{value}</string>')
    if draw(st.booleans()):
        lines.append(f'{indent}<plurals name="p">')
        lines.append(
            f'{indent}{indent}<item quantity="one">{encode_text((Text(draw(_TEXT)),))}</item>'
        )
        lines.append(
            f'{indent}{indent}<item quantity="other">{encode_text((Text(draw(_TEXT)),))}</item>'
        )
        lines.append(f"{indent}</plurals>")
    lines.append("</resources>")
    text = newline.join(lines) + draw(st.sampled_from(["", newline]))
    return (draw(st.sampled_from(["", "\ufeff"])) + text).encode()


@given(strings_files())
@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
def test_generated_file_round_trips_unchanged(data: bytes) -> None:
    assert CODEC.write(CODEC.read(data)) == data


@given(strings_files(), _TEXT, st.data())
@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
def test_set_value_is_read_back(data: bytes, value: str, choose: st.DataObject) -> None:
    document = CODEC.read(data)
    singles = [
        b
        for b in document.blocks
        if b.source is not None and not any(isinstance(r, Plural) for r in b.source)
    ]
    if not singles:
        return
    target = choose.draw(st.sampled_from(singles))
    skeleton = document.skeleton
    cdata = next(v.cdata for v in skeleton.values if v.block_id == target.id)
    if cdata and "<" in value:
        value = value.replace("<", "")
        if not value:
            return
    written = CODEC.write(edit(document, target.name, (Text(value),)))
    again = {b.id: b for b in CODEC.read(written).blocks}
    assert flat(again[target.id].source) == value
    for other in document.blocks:
        if other.id != target.id:
            assert again[other.id].source == other.source
