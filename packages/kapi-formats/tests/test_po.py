"""The PO/POT codec: what it reads, and that it writes back only what changed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from attrs import evolve
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kapi.core.format import FormatError, Limits, WriteRefused
from kapi.core.model import Block, Document, Edition, PcOpen, Ph, Plural, Runs, Text
from kapi.formats.po import PoFormat, catalogue_plural_forms, plural_categories, quote
from kapi.formats.registry import load_codec

FIXTURES = Path(__file__).parent / "fixtures" / "po"
CODEC = PoFormat()


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def read(name: str) -> Document:
    return CODEC.read(fixture(name), path=name)


def block(document: Document, name: str) -> Block:
    return next(b for b in document.blocks if b.name == name)


def replace(document: Document, changed: Block) -> Document:
    return document.with_blocks(
        tuple(changed if b.id == changed.id else b for b in document.blocks)
    )


def set_target(document: Document, name: str, runs: Runs, status: str = "translated") -> Document:
    found = block(document, name)
    return replace(
        document, found.with_target(document.target_locale, Edition(runs=runs, status=status))
    )


def plural(**forms: str) -> Runs:
    return (Plural(pivot="n", forms={k: (Text(v),) if v else () for k, v in forms.items()}),)


# --- reading ------------------------------------------------------------------------------


def test_registry_loads_the_codec() -> None:
    assert isinstance(load_codec("po"), PoFormat)


def test_reads_entries_names_and_locales() -> None:
    document = read("basic.po")
    assert document.format == "po"
    assert document.locale == "en"
    assert document.target_locale == "fr"
    assert [b.id for b in document.blocks] == [f"tu{n}" for n in range(1, 9)]
    names = [b.name for b in document.blocks]
    assert names[0] == "Welcome"
    assert "menu\u0004Open" in names
    assert "Old message" not in names  # obsolete entries stay in the skeleton
    assert "" not in names  # the header is not a block
    assert all(b.locale == "en" for b in document.blocks)


def test_locale_argument_is_the_source_language() -> None:
    document = CODEC.read(fixture("basic.po"), locale="de_CH")
    assert document.locale == "de-CH"
    assert document.blocks[0].locale == "de-CH"


def test_comments_flags_and_references_become_properties() -> None:
    document = read("basic.po")
    welcome = block(document, "Welcome")
    assert welcome.properties == {
        "note": "Shown on the home page.",
        "locations": "app/views.py:10 app/views.py:22",
    }
    hello = document.blocks[1]
    assert hello.properties["flags"] == "python-format"
    assert hello.properties["comment"] == "Reviewed by Anne."
    fuzzy = block(document, "Save the file")
    assert fuzzy.properties == {"flags": "fuzzy", "previous_msgid": "Save file"}
    assert block(document, "menu\u0004Open").properties == {"context": "menu"}


def test_status_from_fuzzy_and_absent_targets() -> None:
    document = read("basic.po")
    assert block(document, "Welcome").targets["fr"].status == "translated"
    assert block(document, "Save the file").targets["fr"] == Edition(
        runs=(Text("Enregistrer le fichier"),), status="draft"
    )
    assert block(document, "Not yet translated").targets == {}
    assert block(document, "One item").targets == {}


def test_printf_placeholders_are_codes_with_exact_data() -> None:
    hello = read("basic.po").blocks[1]
    codes = [run for run in hello.source if isinstance(run, Ph)]
    assert [(c.id, c.data, c.sub_type, c.equiv, c.type) for c in codes] == [
        ("1", "%(name)s", "printf:s", "%(name)s", "code:placeholder"),
        ("2", "%d", "printf:d", "%d", "code:placeholder"),
        ("3", "%%", "printf:%", "%", "code:placeholder"),
    ]
    assert hello.source[0] == Text("Hello, ")
    assert hello.source[-1] == Text(" left.")


def test_brace_and_positional_placeholders() -> None:
    document = read("template.pot")
    copied = document.blocks[0]
    assert [r.data for r in copied.source if isinstance(r, Ph)] == ["%1$s", "%2$s"]
    brace = document.blocks[1]
    assert [(r.data, r.equiv) for r in brace.source if isinstance(r, Ph)] == [
        ("{name}", "{name}"),
        ("{{", "{"),
        ("}}", "}"),
    ]


def test_placeholders_follow_the_flags() -> None:
    data = (
        b'#, no-python-format\nmsgid "100% done %s"\nmsgstr ""\n\n'
        b'msgid "50% of %(total)s and 100% sure"\nmsgstr ""\n'
    )
    first, second = CODEC.read(data).blocks
    assert first.source == (Text("100% done %s"),)
    # unflagged: only the unmistakable forms, so "% s" in prose stays text
    assert [r.data for r in second.source if isinstance(r, Ph)] == ["%(total)s"]


def test_multiline_strings_and_escapes_are_decoded() -> None:
    long_block = read("basic.po").blocks[4]
    assert long_block.source == (
        Text(
            "A long message that was wrapped by gettext because it does not fit on one line of "
            'seventy-nine columns.\nSecond line with a "quote", a tab\there and a backslash \\ too.'
        ),
    )


def test_plural_source_and_target_use_cldr_forms() -> None:
    document = read("basic.po")
    files = document.blocks[5]
    assert files.properties["plural_forms"] == "one other"
    (source,) = files.source
    assert isinstance(source, Plural)
    assert source.pivot == "n"
    assert set(source.forms) == {"one", "other"}
    assert source.forms["other"][1] == Text(" files")
    (target,) = files.targets["fr"].runs
    assert isinstance(target, Plural)
    assert target.forms["one"][1] == Text(" fichier")


def test_russian_plural_forms_and_bom_crlf_file() -> None:
    document = read("crlf_bom.po")
    assert document.target_locale == "ru-RU"
    (target,) = document.blocks[0].targets["ru-RU"].runs
    assert isinstance(target, Plural)
    assert list(target.forms) == ["one", "few", "many"]
    assert target.forms["many"] == (
        Ph(id="1", type="code:placeholder", sub_type="printf:d", data="%d", equiv="%d"),
        Text(" яблок"),
    )


def test_plural_category_table() -> None:
    assert plural_categories("en", 2) == ("one", "other")
    assert plural_categories("ja", 1) == ("other",)
    assert plural_categories("fr", 3) == ("one", "many", "other")
    assert plural_categories("ru", 3) == ("one", "few", "many")
    assert plural_categories("uk", 4) == ("one", "few", "many", "other")
    assert plural_categories("pl", 3) == ("one", "few", "many")
    assert plural_categories("cs", 3) == ("one", "few", "other")
    assert plural_categories("ar", 6) == ("zero", "one", "two", "few", "many", "other")
    assert plural_categories("lv", 3) == ("one", "other", "zero")
    # unknown language or count: positional names, the last always "other"
    assert plural_categories("cy", 4) == ("one", "two", "few", "other")
    assert plural_categories("xx", 3) == ("one", "few", "other")
    assert plural_categories("xx", 8) == ("zero", "one", "two", "few", "many", "=5", "=6", "other")


def test_language_header_variants() -> None:
    def language(value: str) -> str:
        data = f'msgid ""\nmsgstr "Language: {value}\\n"\n\nmsgid "a"\nmsgstr "b"\n'.encode()
        return CODEC.read(data).target_locale

    assert language("pt_BR") == "pt-BR"
    assert language("sr@latin") == "sr-Latn"
    assert language("ca@valencia") == "ca-valencia"
    assert language("zh_Hant_TW") == "zh-Hant-TW"


def test_language_from_the_path_when_the_header_has_none() -> None:
    data = b'msgid "a"\nmsgstr "b"\n'
    assert CODEC.read(data, path="locale/nb_NO/LC_MESSAGES/app.po").target_locale == "nb-NO"
    assert CODEC.read(data, path="po/de.po").target_locale == "de"
    assert CODEC.read(data, path="messages.po").target_locale == "und"
    assert CODEC.read(b'msgid "a"\nmsgstr ""\n', path="messages.pot").target_locale == ""


def test_latin1_catalogue_is_decoded_by_its_charset() -> None:
    document = read("latin1.po")
    assert document.blocks[0].targets["pt-BR"].runs == (Text("Ação"),)


# --- writing: unchanged -------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.iterdir()))
def test_unchanged_document_writes_identical_bytes(name: str) -> None:
    data = fixture(name)
    assert CODEC.write(CODEC.read(data, path=name)) == data


def test_rebuilt_blocks_with_equal_runs_write_identical_bytes() -> None:
    document = read("basic.po")
    copies = tuple(evolve(b, targets=dict(b.targets), properties={}) for b in document.blocks)
    assert CODEC.write(document.with_blocks(copies)) == fixture("basic.po")


# --- writing: edits -----------------------------------------------------------------------


def test_edit_single_line_msgstr_changes_only_that_value() -> None:
    document = set_target(read("basic.po"), "Welcome", (Text('Salut "toi"\\'),))
    expected = fixture("basic.po").replace(b'msgstr "Bienvenue"', b'msgstr "Salut \\"toi\\"\\\\"')
    assert CODEC.write(document) == expected


def test_edit_keeps_placeholder_data() -> None:
    document = read("basic.po")
    hello = document.blocks[1]
    runs = hello.targets["fr"].runs
    edited = (Text("Salut "), runs[1], Text(", plus que "), runs[3], runs[4])
    written = CODEC.write(replace(document, hello.with_target("fr", Edition(edited, "translated"))))
    assert b'msgstr "Salut %(name)s, plus que %d%%"\n' in written
    assert written.replace(
        b'msgstr "Salut %(name)s, plus que %d%%"',
        b'msgstr "Bonjour, %(name)s ! Il vous reste %d%%."',
    ) == fixture("basic.po")


def test_edit_wrapped_msgstr_is_rewrapped_like_gettext() -> None:
    document = read("basic.po")
    long_block = document.blocks[4]
    text = "Première ligne.\n" + "mot " * 30 + "fin."
    written = CODEC.write(set_target(document, long_block.name, (Text(text),)))
    old = (
        b'msgstr ""\n"Un long message que gettext a coup\xc3\xa9 parce qu\'il ne tient pas sur une ligne "\n'
        b'"de soixante-dix-neuf colonnes.\\n"\n'
        b'"Deuxi\xc3\xa8me ligne avec des \xc2\xab guillemets \xc2\xbb \\"droits\\", une tabulation\\tici et "\n'
        b'"une barre oblique inverse \\\\ aussi."\n'
    )
    new = (
        'msgstr ""\n"Première ligne.\\n"\n"' + "mot " * 19 + '"\n"' + "mot " * 11 + 'fin."\n'
    ).encode()
    assert old in fixture("basic.po")
    assert written == fixture("basic.po").replace(old, new)


def test_nowrap_file_keeps_long_values_on_one_line() -> None:
    document = read("nowrap.po")
    text = "Ein sehr langer neuer Wert, der weit über neunundsiebzig Spalten hinausgeht und trotzdem auf einer Zeile bleibt."
    written = CODEC.write(set_target(document, document.blocks[0].name, (Text(text),)))
    lines = written.decode().splitlines()
    assert f'msgstr "{text}"' in lines
    assert len(lines) == len(fixture("nowrap.po").decode().splitlines())


def test_short_value_in_a_wrapping_file_stays_on_the_keyword_line() -> None:
    document = read("basic.po")
    long_block = document.blocks[4]
    written = CODEC.write(set_target(document, long_block.name, (Text("Court."),)))
    assert b'"une barre oblique inverse \\\\ aussi."\n\n#, python-format' not in written
    assert b'msgstr "Court."\n\n#, python-format\nmsgid "%(count)d file"' in written


def test_adding_a_target_fills_the_empty_msgstr() -> None:
    document = set_target(read("basic.po"), "Not yet translated", (Text("Pas encore traduit"),))
    expected = fixture("basic.po").replace(
        b'msgid "Not yet translated"\nmsgstr ""',
        b'msgid "Not yet translated"\nmsgstr "Pas encore traduit"',
    )
    assert CODEC.write(document) == expected
    again = CODEC.read(CODEC.write(document))
    assert block(again, "Not yet translated").targets["fr"] == Edition(
        (Text("Pas encore traduit"),), "translated"
    )


def test_adding_a_plural_target_fills_every_form() -> None:
    document = read("basic.po")
    one_item = block(document, "One item")
    items = one_item.source[0]
    assert isinstance(items, Plural)
    ph = items.forms["other"][0]
    runs = (
        Plural(pivot="n", forms={"one": (Text("Un élément"),), "other": (ph, Text(" éléments"))}),
    )
    written = CODEC.write(
        replace(document, one_item.with_target("fr", Edition(runs, "translated")))
    )
    expected = fixture("basic.po").replace(
        b'msgid_plural "%(n)s items"\nmsgstr[0] ""\nmsgstr[1] ""',
        'msgid_plural "%(n)s items"\nmsgstr[0] "Un élément"\nmsgstr[1] "%(n)s éléments"'.encode(),
    )
    assert written == expected
    assert block(CODEC.read(written), "One item").targets["fr"].runs == runs


def test_adding_forms_beyond_the_existing_msgstr_lines() -> None:
    data = (
        b'msgid ""\nmsgstr ""\n"Language: ru\\n"\n"Plural-Forms: nplurals=3; plural=0;\\n"\n\n'
        b'msgid "file"\nmsgid_plural "files"\nmsgstr[0] ""\nmsgstr[1] ""\n'
    )
    document = CODEC.read(data)
    runs = plural(one="файл", few="файла", many="файлов")
    written = CODEC.write(set_target(document, "file", runs))
    assert written.endswith('msgstr[0] "файл"\nmsgstr[1] "файла"\nmsgstr[2] "файлов"\n'.encode())
    assert CODEC.read(written).blocks[0].targets["ru"].runs == runs


def test_editing_one_plural_form_leaves_the_others() -> None:
    document = read("crlf_bom.po")
    apples = document.blocks[0]
    (target,) = apples.targets["ru-RU"].runs
    assert isinstance(target, Plural)
    forms = dict(target.forms)
    forms["few"] = (forms["few"][0], Text(" яблочка"))
    edited = apples.with_target("ru-RU", Edition((Plural("n", forms),), "translated"))
    written = CODEC.write(replace(document, edited))
    assert written == fixture("crlf_bom.po").replace(
        '"%d яблока"'.encode(), '"%d яблочка"'.encode()
    )


def test_unknown_plural_form_is_refused() -> None:
    document = read("basic.po")
    with pytest.raises(WriteRefused) as refused:
        CODEC.write(set_target(document, "%(count)d file", plural(one="a", few="b")))
    assert refused.value.capability == "plural"


def test_forms_the_language_lacks_are_dropped_when_other_is_there() -> None:
    data = (
        b'msgid ""\nmsgstr ""\n"Language: ja\\n"\n"Plural-Forms: nplurals=1; plural=0;\\n"\n\n'
        b'msgid "file"\nmsgid_plural "files"\nmsgstr[0] ""\n'
    )
    document = CODEC.read(data)
    written = CODEC.write(set_target(document, "file", plural(one="1ファイル", other="ファイル")))
    assert written.endswith('msgstr[0] "ファイル"\n'.encode())
    with pytest.raises(WriteRefused):
        CODEC.write(set_target(document, "file", plural(one="1ファイル")))


def test_flat_text_for_a_plural_entry_is_refused() -> None:
    with pytest.raises(WriteRefused) as refused:
        CODEC.write(set_target(read("basic.po"), "%(count)d file", (Text("flat"),)))
    assert refused.value.capability == "plural"


def test_crlf_and_bom_are_kept_on_edit() -> None:
    document = read("crlf_bom.po")
    written = CODEC.write(set_target(document, "Empty", (Text("Пусто\nсовсем"),)))
    assert written == fixture("crlf_bom.po").replace(
        b'msgid "Empty"\r\nmsgstr ""\r\n',
        'msgid "Empty"\r\nmsgstr ""\r\n"Пусто\\n"\r\n"совсем"\r\n'.encode(),
    )


def test_source_edit_in_a_template() -> None:
    document = read("template.pot")
    copied = document.blocks[0]
    edited = copied.with_source(
        (Text("Moved "), copied.source[1], Text(" into "), copied.source[3])
    )
    written = CODEC.write(replace(document, edited))
    assert written == fixture("template.pot").replace(
        b'"Copied %1$s to %2$s"', b'"Moved %1$s into %2$s"'
    )


def test_plural_source_edit_changes_the_right_msgid() -> None:
    document = read("template.pot")
    edited = document.blocks[2].with_source(plural(one="Single", other="Many"))
    written = CODEC.write(replace(document, edited))
    assert written == fixture("template.pot").replace(b'msgid "One"', b'msgid "Single"')


def test_last_entry_without_final_newline_can_be_edited() -> None:
    document = read("template.pot")
    edited = document.blocks[2].with_source(plural(one="One", other="Several"))
    written = CODEC.write(replace(document, edited))
    assert written.endswith(b'msgid_plural "Several"\nmsgstr[0] ""\nmsgstr[1] ""')


# --- the fuzzy flag -----------------------------------------------------------------------


def test_editing_a_draft_keeps_it_fuzzy() -> None:
    document = set_target(
        read("basic.po"), "Save the file", (Text("Enregistrer ce fichier"),), status="draft"
    )
    written = CODEC.write(document)
    assert written == fixture("basic.po").replace(
        b'"Enregistrer le fichier"', b'"Enregistrer ce fichier"'
    )


def test_marking_a_draft_translated_removes_the_fuzzy_flag() -> None:
    document = set_target(read("basic.po"), "Save the file", (Text("Enregistrer ce fichier"),))
    written = CODEC.write(document)
    expected = fixture("basic.po").replace(
        b'#, fuzzy\n#| msgid "Save file"\nmsgid "Save the file"\nmsgstr "Enregistrer le fichier"',
        b'#| msgid "Save file"\nmsgid "Save the file"\nmsgstr "Enregistrer ce fichier"',
    )
    assert written == expected
    again = block(CODEC.read(written), "Save the file")
    assert again.targets["fr"].status == "translated"
    assert "flags" not in again.properties


def test_status_change_alone_removes_fuzzy_from_a_shared_flag_line() -> None:
    document = read("crlf_bom.po")
    delete = document.blocks[1]
    edited = delete.with_target("ru-RU", evolve(delete.targets["ru-RU"], status="translated"))
    written = CODEC.write(replace(document, edited))
    assert written == fixture("crlf_bom.po").replace(b"#, fuzzy, c-format\r\n", b"#, c-format\r\n")


def test_marking_a_translation_draft_adds_the_fuzzy_flag() -> None:
    document = read("basic.po")
    written = CODEC.write(set_target(document, "menu\u0004Open", (Text("Ouvrir"),), status="draft"))
    assert written == fixture("basic.po").replace(
        b'\nmsgctxt "menu"', b'\n#, fuzzy\nmsgctxt "menu"'
    )
    hello = document.blocks[1]
    edited = hello.with_target("fr", evolve(hello.targets["fr"], status="draft"))
    written = CODEC.write(replace(document, edited))
    assert written == fixture("basic.po").replace(
        b'#, python-format\nmsgid "Hello', b'#, fuzzy, python-format\nmsgid "Hello'
    )


def test_a_new_draft_target_is_fuzzy() -> None:
    written = CODEC.write(
        set_target(read("crlf_bom.po"), "Empty", (Text("Пусто"),), status="draft")
    )
    assert written == fixture("crlf_bom.po").replace(
        b'\r\nmsgid "Empty"\r\nmsgstr ""',
        '\r\n#, fuzzy\r\nmsgid "Empty"\r\nmsgstr "Пусто"'.encode(),
    )


def test_removing_a_target_empties_the_msgstr() -> None:
    document = read("basic.po")
    welcome = block(document, "Welcome")
    written = CODEC.write(replace(document, welcome.with_target("fr", None)))
    assert written == fixture("basic.po").replace(b'msgstr "Bienvenue"', b'msgstr ""')


def assert_target_removed(name: str, entry: str, old: bytes, new: bytes) -> None:
    document = read(name)
    removed = block(document, entry)
    written = CODEC.write(replace(document, removed.with_target(document.target_locale, None)))
    assert fixture(name).count(old) == 1
    assert written == fixture(name).replace(old, new)
    again = CODEC.read(written, path=name)
    assert block(again, entry).targets == {}
    for before, after in zip(document.blocks, again.blocks, strict=True):
        if before.id != removed.id:
            assert after == before


def test_removed_target_reads_back_as_absent() -> None:
    assert_target_removed("basic.po", "Welcome", b'msgstr "Bienvenue"', b'msgstr ""')


def test_removing_a_wrapped_target_leaves_an_empty_msgstr() -> None:
    old = (
        'msgstr ""\n'
        '"Un long message que gettext a coup\u00e9 parce qu\'il ne tient pas sur une ligne "\n'
        '"de soixante-dix-neuf colonnes.\\n"\n'
        '"Deuxi\u00e8me ligne avec des \u00ab guillemets \u00bb \\"droits\\", une '
        'tabulation\\tici et "\n'
        '"une barre oblique inverse \\\\ aussi."\n'
    ).encode()
    long_name = next(b.name for b in read("basic.po").blocks if b.name.startswith("A long"))
    assert_target_removed("basic.po", long_name, old, b'msgstr ""\n')


def test_removing_a_plural_target_empties_every_form_in_a_crlf_bom_file() -> None:
    old = 'msgstr[0] "%d яблоко"\r\nmsgstr[1] "%d яблока"\r\nmsgstr[2] "%d яблок"'.encode()
    new = b'msgstr[0] ""\r\nmsgstr[1] ""\r\nmsgstr[2] ""'
    assert_target_removed("crlf_bom.po", "%d apple", old, new)
    assert fixture("crlf_bom.po").startswith(b"\xef\xbb\xbf")


# --- escaping -----------------------------------------------------------------------------

AWKWARD = 'quote " backslash \\ tab \t newline \n return \r bell \a «ünï» 漢字 \\n literal %% {x}'


def test_awkward_characters_round_trip() -> None:
    document = set_target(read("basic.po"), "Welcome", (Text(AWKWARD),))
    again = CODEC.read(CODEC.write(document))
    assert block(again, "Welcome").targets["fr"].runs == (Text(AWKWARD),)


def test_quote_wraps_after_newlines_and_at_spaces() -> None:
    assert quote("short", prefix=7, wrap=True, newline="\n") == '"short"'
    assert quote("a\nb", prefix=7, wrap=False, newline="\r\n") == '""\r\n"a\\n"\r\n"b"'
    assert quote("end\n", prefix=7, wrap=True, newline="\n") == '"end\\n"'
    long = "word " * 20
    lines = quote(long, prefix=7, wrap=True, newline="\n").split("\n")
    assert lines[0] == '""'
    assert all(len(line) <= 79 for line in lines)
    assert "".join(line[1:-1] for line in lines) == long


def test_latin1_file_is_written_in_latin1() -> None:
    document = read("latin1.po")
    written = CODEC.write(set_target(document, "Action", (Text("Ações"),)))
    assert written == fixture("latin1.po").replace(b"A\xe7\xe3o", b"A\xe7\xf5es")
    with pytest.raises(WriteRefused) as refused:
        CODEC.write(set_target(document, "Action", (Text("Ação 漢"),)))
    assert refused.value.capability == "encoding"


# --- refusals -----------------------------------------------------------------------------


def test_other_language_edition_is_refused() -> None:
    document = read("basic.po")
    welcome = block(document, "Welcome")
    with pytest.raises(WriteRefused) as refused:
        CODEC.write(replace(document, welcome.with_target("de", Edition((Text("Willkommen"),)))))
    assert refused.value.capability == "edition"
    assert refused.value.block == welcome.id


def test_template_refuses_targets() -> None:
    document = read("template.pot")
    with pytest.raises(WriteRefused) as refused:
        CODEC.write(replace(document, document.blocks[0].with_target("fr", Edition((Text("x"),)))))
    assert refused.value.capability == "edition"


def test_new_code_without_data_is_refused_unless_it_can_be_synthesised() -> None:
    document = read("basic.po")
    with pytest.raises(WriteRefused) as refused:
        CODEC.write(set_target(document, "Welcome", (PcOpen(id="1", type="fmt:bold"), Text("x"))))
    assert refused.value.capability == "synthesize:fmt:bold"
    written = CODEC.write(
        set_target(
            document, "Welcome", (Text("a"), Ph(id="1", type="code:placeholder", equiv="%s"))
        )
    )
    assert b'msgstr "a%s"' in written


def test_document_from_elsewhere_is_refused() -> None:
    with pytest.raises(WriteRefused):
        CODEC.write(Document(format="po", blocks=()))


# --- bad input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "line", "column", "fragment"),
    [
        (b'msgid "a"\nmsgstr "b\n', 2, 8, "unterminated"),
        (b'msgid "a"\nmsgstr "b"\nbogus\n', 3, 1, "expected"),
        (b'msgid "a"\nmsgid "b"\nmsgstr ""\n', 2, 1, "msgid before"),
        (b'msgid "a"\n\nmsgid "b"\nmsgstr ""\n', 1, 7, "without msgstr"),
        (b'msgid "a"\n', 1, 7, "without msgstr"),
        (b'msgstr "b"\n', 1, 8, "msgstr before msgid"),
        (b'msgid "a"\nmsgstr "b\\q"\n', 2, 10, "escape"),
        (b'"dangling"\n', 1, 1, "continues no keyword"),
        (b'msgid "a"\nmsgstr[0] "b"\n', 2, 11, "without msgid_plural"),
        (b'msgid "a"\nmsgid_plural "b"\nmsgstr "c"\n', 3, 8, "expected msgstr[0]"),
        (b'msgid "a" x\nmsgstr ""\n', 1, 11, "after a string"),
        (b'msgid\nmsgstr ""\n', 1, 6, "needs a string"),
        (b'msgid "\xc3\xa9"\nmsgstr "\xff"\n', 2, 9, "UTF-8"),
    ],
)
def test_bad_input_is_refused_with_a_position(
    data: bytes, line: int, column: int, fragment: str
) -> None:
    with pytest.raises(FormatError) as error:
        CODEC.read(data, path="bad.po")
    assert error.value.code == "invalid"
    assert error.value.path == "bad.po"
    assert (error.value.line, error.value.column) == (line, column)
    assert fragment in error.value.message


def test_limits_are_enforced() -> None:
    data = b'msgid "a"\nmsgstr ""\n\nmsgid "b"\nmsgstr ""\n\nmsgid "c"\nmsgstr ""\n'
    with pytest.raises(FormatError) as error:
        PoFormat(Limits(max_entries=2)).read(data, path="big.po")
    assert error.value.code == "budget_exceeded"
    with pytest.raises(FormatError) as error:
        PoFormat(Limits(max_bytes=10)).read(data, path="big.po")
    assert error.value.code == "budget_exceeded"


# --- new entries (a translation catalogue gains what its template gained) -------------------


def gained(
    document: Document,
    name: str,
    source: Runs,
    target: Runs | None = None,
    status: str = "draft",
    **properties: str,
) -> Document:
    """``document`` with a block its file does not hold yet, as kapi.host joins one in."""
    targets = {document.target_locale: Edition(runs=target, status=status)} if target else {}
    new = Block(
        id=f"joined-{len(document.blocks)}",
        name=name,
        source=source,
        locale=document.locale,
        targets=targets,
        properties=properties,
    )
    return document.with_blocks((*document.blocks, new))


def test_a_new_entry_goes_after_the_entry_it_names_and_nothing_else_changes() -> None:
    document = gained(
        read("basic.po"), "Close", (Text("Close"),), (Text("Fermer"),), insert_after="Welcome"
    )
    written = CODEC.write(document)
    entry = b'\n#, fuzzy\nmsgid "Close"\nmsgstr "Fermer"\n'
    assert written == fixture("basic.po").replace(
        b'msgstr "Bienvenue"\n', b'msgstr "Bienvenue"\n' + entry, 1
    )
    again = CODEC.read(written, path="basic.po")
    close = block(again, "Close")
    assert close.targets["fr"] == Edition(runs=(Text("Fermer"),), status="draft")
    assert [b.name for b in again.blocks][:2] == ["Welcome", "Close"]


def test_a_new_entry_without_a_place_goes_after_the_last_entry_before_obsolete_ones() -> None:
    written = CODEC.write(gained(read("basic.po"), "Close", (Text("Close"),)))
    old = fixture("basic.po")
    assert written == old.replace(
        b'\n#~ msgid "Old message"', b'\nmsgid "Close"\nmsgstr ""\n\n#~ msgid "Old message"'
    )
    assert written.count(b'msgid "Close"') == 1


def test_new_entries_keep_the_order_they_name_and_the_templates_comments_and_flags() -> None:
    document = gained(
        read("basic.po"),
        "menu\u0004Close %s",
        (Text("Close "), Ph(id="1", type="code:placeholder", data="%s", equiv="%s")),
        (Text("Fermer "), Ph(id="1", type="code:placeholder", data="%s", equiv="%s")),
        context="menu",
        flags="c-format",
        note="The menu item.\nKeep it short.",
        locations="app/menu.py:3 app/menu.py:9",
        insert_after="menu\u0004Open",
    )
    document = gained(
        document, "Quit", (Text("Quit"),), (Text("Quitter"),), "translated",
        insert_after="menu\u0004Close %s",
    )  # fmt: skip
    written = CODEC.write(document).decode()
    assert (
        'msgctxt "menu"\nmsgid "Open"\nmsgstr "Ouvrir"\n\n'
        "#. The menu item.\n#. Keep it short.\n#: app/menu.py:3 app/menu.py:9\n"
        '#, fuzzy, c-format\nmsgctxt "menu"\nmsgid "Close %s"\nmsgstr "Fermer %s"\n\n'
        'msgid "Quit"\nmsgstr "Quitter"\n\nmsgid ""\n"A long message'
    ) in written
    again = CODEC.read(written.encode(), path="basic.po")
    assert block(again, "menu\u0004Close %s").properties["flags"] == "fuzzy, c-format"


def test_a_new_plural_entry_has_one_msgstr_for_each_of_the_catalogues_forms() -> None:
    french = read("basic.po")
    assert catalogue_plural_forms(french) == ("one", "other")
    document = gained(
        french,
        "%d folder",
        plural(one="%d folder", other="%d folders"),
        plural(one="%d dossier", many="%d de dossiers", other="%d dossiers"),
        insert_after="Welcome",
    )
    written = CODEC.write(document)
    assert (
        b'\n#, fuzzy\nmsgid "%d folder"\nmsgid_plural "%d folders"\n'
        b'msgstr[0] "%d dossier"\nmsgstr[1] "%d dossiers"\n\n# Reviewed by Anne.'
    ) in written
    untranslated = CODEC.write(gained(french, "%d folder", plural(one="a", other="b")))
    assert b'msgid_plural "b"\nmsgstr[0] ""\nmsgstr[1] ""\n\n#~' in untranslated
    russian = read("crlf_bom.po")
    assert catalogue_plural_forms(russian) == ("one", "few", "many")
    written = CODEC.write(gained(russian, "%d pear", plural(one="%d pear", other="%d pears")))
    assert written.endswith(
        b'msgstr ""\r\n\r\nmsgid "%d pear"\r\nmsgid_plural "%d pears"\r\n'
        b'msgstr[0] ""\r\nmsgstr[1] ""\r\nmsgstr[2] ""\r\n'
    )
    assert written.startswith(b"\xef\xbb\xbf")


def test_a_new_entry_before_the_first_one_goes_after_the_header() -> None:
    document = gained(
        read("basic.po"), "Hi", (Text("Hi"),), (Text("Salut"),), "", insert_before="Welcome"
    )
    written = CODEC.write(document)
    assert written == fixture("basic.po").replace(
        b"\n#. Shown on the home page.",
        b'\nmsgid "Hi"\nmsgstr "Salut"\n\n#. Shown on the home page.',
    )
    assert [b.name for b in CODEC.read(written).blocks][:2] == ["Hi", "Welcome"]


def test_a_new_entry_an_obsolete_one_holds_is_refused_and_others_are_not() -> None:
    """gettext reads a msgid both live and obsolete as one message defined twice."""
    data = fixture("basic.po").replace(
        b'#~ msgstr "Ancien message"',
        b'#~ msgstr "Ancien message"\n\n#~| msgid "Older"\n#~ msgctxt "menu"\n#~ msgid ""\n'
        b'#~ "Gone"\n#~ msgstr "Parti"',
    )
    document = CODEC.read(data, path="basic.po")
    for name in ("Old message", "menu\u0004Gone"):
        with pytest.raises(WriteRefused) as refused:
            CODEC.write(gained(document, name, (Text(name.split("\u0004")[-1]),)))
        assert refused.value.capability == "insert_block"
        assert "obsolete" in refused.value.message
    assert b'msgid "Gone"' in CODEC.write(gained(document, "Gone", (Text("Gone"),)))


def test_a_new_entry_in_a_file_without_a_final_newline_keeps_it_so() -> None:
    data = b'msgid ""\nmsgstr ""\n"Language: fr\\n"\n\nmsgid "Open"\nmsgstr "Ouvrir"'
    written = CODEC.write(gained(CODEC.read(data), "Close", (Text("Close"),), (Text("Fermer"),)))
    assert written == data + b'\n\n#, fuzzy\nmsgid "Close"\nmsgstr "Fermer"'
    header_only = b'msgid ""\nmsgstr ""\n"Language: fr\\n"\n'
    written = CODEC.write(gained(CODEC.read(header_only), "Close", (Text("Close"),)))
    assert written == header_only + b'\nmsgid "Close"\nmsgstr ""\n'


def test_a_new_entry_the_catalogue_holds_already_is_refused() -> None:
    with pytest.raises(WriteRefused) as refused:
        CODEC.write(gained(read("basic.po"), "Welcome", (Text("Welcome"),)))
    assert refused.value.capability == "insert_block"
    assert "Welcome" in refused.value.message
    document = read("basic.po")
    german = Block(
        id="x", name="Close", source=(Text("Close"),), targets={"de": Edition((Text("Zu"),))}
    )
    with pytest.raises(WriteRefused) as refused:
        CODEC.write(document.with_blocks((*document.blocks, german)))
    assert refused.value.capability == "edition"


# --- gettext agrees -----------------------------------------------------------------------

needs_gettext = pytest.mark.skipif(
    shutil.which("msgcat") is None, reason="gettext tools not installed"
)


@needs_gettext
def test_edited_catalogue_is_what_msgcat_writes(tmp_path: Path) -> None:
    data = (
        b'msgid ""\nmsgstr ""\n"Language: fr\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        b'msgid "first"\nmsgstr "premier"\n\nmsgid "second"\nmsgstr ""\n'
    )
    document = CODEC.read(data)
    text = "Une traduction assez longue pour dépasser la largeur d'une ligne de gettext, avec une deuxième ligne.\nEt la voici."
    written = CODEC.write(set_target(document, "second", (Text(text),)))
    path = tmp_path / "edited.po"
    path.write_bytes(written)
    normalised = subprocess.run(["msgcat", str(path)], capture_output=True, check=True).stdout
    assert written == normalised


@needs_gettext
def test_edited_fixture_compiles_with_msgfmt(tmp_path: Path) -> None:
    document = set_target(read("basic.po"), "Save the file", (Text(AWKWARD.replace("\r", "")),))
    document = set_target(document, "%(count)d file", plural(one="un", other="plusieurs"))
    path = tmp_path / "edited.po"
    path.write_bytes(CODEC.write(document))
    subprocess.run(
        ["msgfmt", "-o", str(tmp_path / "out.mo"), str(path)], check=True, capture_output=True
    )


@needs_gettext
def test_new_entries_are_what_msgmerge_adds(tmp_path: Path) -> None:
    """Every entry a template gained, in the template's order, as msgmerge writes it."""
    template = (
        '#, fuzzy\nmsgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        '#: app.py:0\nmsgid "New"\nmsgstr ""\n\n#: app.py:1\nmsgid "Open"\nmsgstr ""\n\n'
        "#. TRANSLATORS: the button that closes the main window of the application\n"
        "#: app.py:2 app/a/long/path/to/a/module/somewhere/deep/inside/the/tree.py:200\n"
        "#, python-format\n"
        'msgid "Close %(name)s, a message long enough that gettext has to wrap it somewhere"\n'
        'msgstr ""\n\n'
        '#: app.py:3\nmsgctxt "menu"\nmsgid "File"\nmsgid_plural "Files"\n'
        'msgstr[0] ""\nmsgstr[1] ""\n\n'
        '#: app.py:4\nmsgid "Save"\nmsgstr ""\n\n'
        '#: app.py:5\nmsgid "Quit"\nmsgstr ""\n'
    )
    french = (
        'msgid ""\nmsgstr ""\n"Language: fr\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
        '"Plural-Forms: nplurals=2; plural=(n > 1);\\n"\n\n'
        '#: app.py:1\nmsgid "Open"\nmsgstr "Ouvrir"\n\n'
        '#: app.py:4\nmsgid "Save"\nmsgstr "Enregistrer"\n'
    )
    (tmp_path / "messages.pot").write_text(template, encoding="utf-8")
    (tmp_path / "fr.po").write_text(french, encoding="utf-8")
    pot = CODEC.read(template.encode(), path="messages.pot")
    document = CODEC.read(french.encode(), path="fr.po")
    held, previous = {b.name for b in document.blocks}, ""
    for index, source in enumerate(pot.blocks):
        if source.name not in held:
            later = next((b.name for b in pot.blocks[index:] if b.name in held), "")
            place = {"insert_after": previous} if previous else {"insert_before": later}
            document = gained(document, source.name, source.source, **source.properties, **place)
        previous = source.name
    written = CODEC.write(document)
    merged = subprocess.run(
        ["msgmerge", "--quiet", "-o", "-", str(tmp_path / "fr.po"), str(tmp_path / "messages.pot")],
        capture_output=True,
        check=True,
    ).stdout
    assert written.decode() == merged.decode()


@needs_gettext
def test_a_catalogue_with_new_translated_entries_passes_msgfmt_check(tmp_path: Path) -> None:
    document = gained(
        read("basic.po"),
        "%(count)d folder",
        plural(one="%(count)d folder", other="%(count)d folders"),
        plural(one="%(count)d dossier", other="%(count)d dossiers"),
        flags="python-format",
        insert_after="Welcome",
    )
    document = gained(document, "Quit", (Text("Quit"),), (Text("Quitter"),))
    path = tmp_path / "fr.po"
    path.write_bytes(CODEC.write(document))
    checked = subprocess.run(
        ["msgfmt", "--check", "-o", str(tmp_path / "fr.mo"), str(path)], capture_output=True
    )
    assert checked.returncode == 0, checked.stderr.decode()


# --- properties ---------------------------------------------------------------------------

_TEXT = st.text(alphabet=st.sampled_from([*'abc XYZ é漢"\\\t\n%{}#', "\r", "\u00a0"]), max_size=120)


@st.composite
def catalogues(draw: st.DrawFn) -> bytes:
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    bom = draw(st.sampled_from(["", "\ufeff"]))
    wrap = draw(st.booleans())
    out = [
        'msgid ""',
        'msgstr ""',
        '"Language: de\\n"',
        '"Content-Type: text/plain; charset=UTF-8\\n"',
        "",
    ]
    for index in range(draw(st.integers(0, 6))):
        if draw(st.booleans()):
            out.append("#, " + draw(st.sampled_from(["fuzzy", "python-format", "fuzzy, c-format"])))
        if draw(st.booleans()):
            out.append("# " + draw(st.text(alphabet="abc xyz", max_size=20)))
        if draw(st.booleans()):
            out.append('msgctxt "ctx"')
        out.append(f"msgid {quote(f'key {index}', prefix=6, wrap=wrap, newline=newline)}")
        if draw(st.booleans()):
            out.append(f'msgid_plural "keys {index}"')
            for form in range(2):
                out.append(
                    f"msgstr[{form}] {quote(draw(_TEXT), prefix=10, wrap=wrap, newline=newline)}"
                )
        else:
            out.append(f"msgstr {quote(draw(_TEXT), prefix=7, wrap=wrap, newline=newline)}")
        out.append("")
    if draw(st.booleans()):
        out += ['#~ msgid "gone"', '#~ msgstr "weg"']
    text = newline.join(out)
    if draw(st.booleans()):
        text = text.rstrip(newline)
    return (bom + text).encode("utf-8")


@given(catalogues())
@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
def test_generated_catalogue_round_trips_unchanged(data: bytes) -> None:
    assert CODEC.write(CODEC.read(data)) == data


@given(catalogues(), st.data())
@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
def test_set_value_is_read_back(data: bytes, choose: st.DataObject) -> None:
    document = CODEC.read(data)
    plain = [b for b in document.blocks if not (b.source and isinstance(b.source[0], Plural))]
    if not plain:
        return
    target = choose.draw(st.sampled_from(plain))
    value = choose.draw(_TEXT.filter(bool))
    edited = target.with_target("de", Edition((Text(value),), "translated"))
    written = CODEC.write(replace(document, edited))
    again = {b.id: b for b in CODEC.read(written).blocks}
    runs = again[target.id].targets["de"].runs
    assert (
        "".join(r.data if isinstance(r, Ph) else r.text for r in runs if isinstance(r, Text | Ph))
        == value
    )
    for other in document.blocks:
        if other.id != target.id:
            assert again[other.id].targets == other.targets
    assert written.startswith(b"\xef\xbb\xbf") == data.startswith(b"\xef\xbb\xbf")


# --- undo: a value set back gives the lines the file held ---------------------------------


def _edited(runs: Runs, text: str) -> Runs:
    if runs and isinstance(runs[0], Plural):
        return plural(**{form: text for form in runs[0].forms})
    return (Text(text),)


@pytest.mark.parametrize("index", range(4))
@pytest.mark.parametrize("edition", ["source", "target"])
def test_a_wrapped_value_set_back_gives_the_files_lines(index: int, edition: str) -> None:
    original = fixture("wrapped.po")
    document = CODEC.read(original, path="wrapped.po")
    found = [b for b in document.blocks if b.name][index]
    locale = document.target_locale
    if edition == "source":
        as_read = found.source
        changed = found.with_source(_edited(as_read, "Changed text"))
    else:
        was = found.targets[locale]
        changed = found.with_target(locale, evolve(was, runs=_edited(was.runs, "Autre")))
    edited = CODEC.read(CODEC.write(replace(document, changed)), path="wrapped.po")
    back = next(b for b in edited.blocks if b.id == changed.id)
    back = back.with_source(found.source) if edition == "source" else back
    back = back.with_target(locale, found.targets[locale]) if edition == "target" else back
    assert CODEC.write(replace(edited, back)) == original


def test_an_edited_value_wraps_at_the_files_width() -> None:
    document = read("wrapped.po")
    text = "Le renard saute par-dessus le chien et continue de courir dans la forêt profonde"
    first = next(b for b in document.blocks if b.name)
    out = CODEC.write(set_target(document, first.name, (Text(text),))).decode()
    assert (
        'msgstr ""\n'
        '"Le renard saute par-dessus le chien et continue de courir "\n'
        '"dans la forêt profonde"\n'
    ) in out


HAND_WRAPPED = (
    b'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
    b'#: app.py:1\nmsgid ""\n"Hello. "\n'
    b'"This second sentence is much longer than the first one and it runs on "\n'
    b'"to the end."\nmsgstr ""\n"Bonjour. "\n"La suite."\n\nmsgid "Short"\nmsgstr "Court"\n'
)


def _edit_source(data: bytes, find: str, text: str) -> bytes:
    from kapi.core.model import plain_text

    document = CODEC.read(data, path="hand.po", locale="en")
    found = next(b for b in document.blocks if find in plain_text(b.source))
    changed = found.with_source((Text(plain_text(found.source).replace(find, text)),))
    return CODEC.write(replace(document, changed))


def test_an_entry_wrapped_by_hand_keeps_its_lines_where_the_text_around_them_stays() -> None:
    edited = _edit_source(HAND_WRAPPED, "second", "kapiword")
    assert edited == HAND_WRAPPED.replace(b"This second", b"This kapiword")
    assert _edit_source(edited, "kapiword", "second") == HAND_WRAPPED


def test_an_edit_across_a_hand_made_break_drops_only_that_break() -> None:
    edited = _edit_source(HAND_WRAPPED, "Hello. This", "Hi, this")
    assert b'msgid ""\n"Hi, this second sentence is much longer' in edited
    assert b'runs on "\n"to the end."\nmsgstr' in edited
    again = CODEC.read(edited, path="hand.po", locale="en")
    assert any(
        "Hi, this second" in "".join(getattr(r, "text", "") for r in b.source) for b in again.blocks
    )
