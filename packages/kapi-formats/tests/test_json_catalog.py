"""JSON catalogues and ARB: blocks, codes, plurals, byte-faithful writes, structural edits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from attrs import evolve
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kapi.core.format import FormatError, Limits, WriteRefused
from kapi.core.model import Block, Document, Edition, PcOpen, Ph, Plural, Runs, Select, Text
from kapi.formats import json_catalog
from kapi.formats.json_catalog import ArbFormat, JsonFormat
from kapi.formats.registry import load_codec

FIXTURES = Path(__file__).parent / "fixtures" / "json"
JSON = JsonFormat()
ARB = ArbFormat()


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def by_name(document: Document) -> dict[str, Block]:
    return {block.name: block for block in document.blocks}


def replace(document: Document, name: str, runs: Runs) -> Document:
    return document.with_blocks(
        tuple(b.with_source(runs) if b.name == name else b for b in document.blocks)
    )


def without(document: Document, *names: str) -> Document:
    return document.with_blocks(tuple(b for b in document.blocks if b.name not in names))


def plus(document: Document, *blocks: Block) -> Document:
    return document.with_blocks((*document.blocks, *blocks))


def new_block(name: str, text: str, **properties: str) -> Block:
    return Block(id=f"new:{name}", source=(Text(text),), name=name, properties=properties)


def ph(code_id: str, data: str, sub_type: str) -> Ph:
    return Ph(code_id, "code:placeholder", sub_type, data, data)


# --- reading ------------------------------------------------------------------------------


def test_registry_loads_both_codecs() -> None:
    assert isinstance(load_codec("json"), JsonFormat)
    assert isinstance(load_codec("arb"), ArbFormat)


def test_nested_names_codes_and_skipped_values() -> None:
    document = JSON.read(fixture("nested.json"), path="nested.json", locale="fr_FR")
    assert document.format == "json"
    assert document.locale == "fr-FR"
    names = [block.name for block in document.blocks]
    assert names == [
        "nav.home",
        "nav.back",
        "nav.help",
        "cart.items",
        "cart.step_one",
        "cart.total",
        "cart.quote",
        "cart.path",
        "cart.tags[0]",
        "cart.tags[1]",
        "empty",
    ]
    assert all(block.id == block.name for block in document.blocks)
    assert all(block.locale == "fr-FR" for block in document.blocks)
    blocks = by_name(document)
    assert blocks["nav.back"].source == (
        Text("Back to "),
        ph("1", "{{page}}", "i18next:interpolation"),
    )
    assert blocks["nav.help"].source == (
        Text("See "),
        ph("1", "$t(nav.home)", "i18next:nesting"),
        Text(" or "),
        ph("2", "{{- link}}", "i18next:interpolation"),
    )
    assert blocks["cart.total"].source == (Text("Total: "), ph("1", "{amount}", "icu:argument"))
    assert blocks["cart.quote"].source == (Text('She said "hi"\\n\tthen left'),)
    assert blocks["cart.path"].source == (Text("a/b/c"),)
    assert blocks["empty"].source == ()


def test_i18next_plural_siblings_fold_into_one_block() -> None:
    blocks = by_name(JSON.read(fixture("nested.json")))
    assert blocks["cart.items"].source == (
        Plural(
            pivot="count",
            forms={
                "one": (ph("1", "{{count}}", "i18next:interpolation"), Text(" item in your cart")),
                "other": (
                    ph("1", "{{count}}", "i18next:interpolation"),
                    Text(" items in your cart"),
                ),
            },
        ),
    )
    # a lone "_one" key without "_other" is an ordinary key
    assert blocks["cart.step_one"].source == (Text("First step"),)


def test_flat_file_names_are_the_keys_and_nested_names_escape_dots() -> None:
    flat = JSON.read(fixture("flat_crlf_bom.json"))
    assert [b.name for b in flat.blocks] == ["home.title", "home.body", "footer.copy"]
    assert by_name(flat)["footer.copy"].source == (Text("© 2024 Café"),)
    nested = JSON.read(b'{"a.b": "1", "c": {"d.e": "2", "f\\\\g": "3", "x[0]": "4"}}')
    assert [b.name for b in nested.blocks] == ["a\\.b", "c.d\\.e", "c.f\\\\g", "c.x\\[0]"]


def test_icu_values_become_plural_select_and_arguments() -> None:
    blocks = by_name(JSON.read(fixture("icu.json")))
    assert blocks["inbox"].source == (
        Plural(
            pivot="count",
            forms={
                "=0": (Text("No messages"),),
                "one": (ph("1", "#", "icu:pound"), Text(" message")),
                "other": (ph("1", "#", "icu:pound"), Text(" messages")),
            },
        ),
    )
    invite = blocks["invite"].source[0]
    assert isinstance(invite, Select)
    assert invite.pivot == "gender"
    assert list(invite.cases) == ["female", "male", "other"]
    place = blocks["place"].source
    assert isinstance(place[0], Plural) and list(place[0].forms) == ["one", "two", "few", "other"]
    assert place[1] == Text(" place")
    # the file holds ICU plurals, so every value is ICU: apostrophes quote
    assert blocks["quoted"].source == (Text("It's {literally} braces, don't worry"),)
    assert blocks["price"].source == (
        Text("Costs "),
        ph("1", "{amount, number, ::currency/EUR}", "icu:argument"),
        Text(" now"),
    )


def test_arb_locale_metadata_and_notes() -> None:
    document = ARB.read(fixture("app_en.arb"), locale="de")
    assert document.format == "arb"
    assert document.locale == "en-US"
    assert [b.name for b in document.blocks] == ["hello", "itemCount", "title"]
    blocks = by_name(document)
    assert blocks["hello"].properties == {"note": "Greets the user by name"}
    assert blocks["title"].properties == {}
    assert blocks["hello"].source == (Text("Hello "), ph("1", "{name}", "icu:argument"))
    assert blocks["itemCount"].source == (
        Plural(
            pivot="count",
            forms={
                "=0": (Text("No items"),),
                "=1": (Text("One item"),),
                "other": (ph("1", "{count}", "icu:argument"), Text(" items")),
            },
        ),
    )


def test_values_of_a_file_without_icu_plurals_are_plain() -> None:
    document = JSON.read(b'{"a": "It\'\'s \'{x}\' {y}", "b": "{{z}}"}')
    assert [b.source for b in document.blocks] == [
        (
            Text("It''s '"),
            ph("1", "{x}", "icu:argument"),
            Text("' "),
            ph("2", "{y}", "icu:argument"),
        ),
        (ph("1", "{{z}}", "i18next:interpolation"),),
    ]


def test_icu_file_values_that_are_not_icu_fall_back_to_plain() -> None:
    data = b'{"a": "{n, plural, other {#}}", "b": "{{z}} it\'s {"}'
    document = JSON.read(data)
    assert document.blocks[1].source == (
        ph("1", "{{z}}", "i18next:interpolation"),
        Text(" it's {"),
    )
    out = JSON.write(replace(document, "b", (ph("1", "{{z}}", "x"), Text(" it's"))))
    assert out == b'{"a": "{n, plural, other {#}}", "b": "{{z}} it\'s"}'


def test_edit_that_would_change_how_other_values_read_is_refused() -> None:
    document = JSON.read(b'{"a": "It\'\'s", "b": "x"}')
    plural = (Plural("n", {"one": (Text("one"),), "other": (Text("more"),)}),)
    with pytest.raises(WriteRefused) as refused:
        JSON.write(replace(document, "b", plural))
    assert refused.value.capability == "escape"
    fine = JSON.read(b'{"a": "Its", "b": "x"}')
    out = JSON.write(replace(fine, "b", plural))
    assert out == b'{"a": "Its", "b": "{n, plural, one {one} other {more}}"}'


def test_json_with_arb_locale_reads_like_arb() -> None:
    document = JSON.read(b'{"@@locale": "pt_BR", "a": "It\'\'s", "@a": {"description": "n"}}')
    assert document.locale == "pt-BR"
    assert [(b.name, b.source, dict(b.properties)) for b in document.blocks] == [
        ("a", (Text("It's"),), {"note": "n"})
    ]


def test_locale_defaults_to_en() -> None:
    assert JSON.read(b'{"a": "b"}').locale == "en"
    assert JSON.read(b'{"a": "b"}', locale="not a tag").locale == "en"


def test_duplicate_keys_last_wins_earlier_kept_verbatim() -> None:
    data = fixture("duplicates.json")
    document = JSON.read(data)
    assert [(b.name, b.source) for b in document.blocks] == [
        ("other", (Text("x"),)),
        ("dup", (Text("second"),)),
    ]
    out = JSON.write(replace(document, "dup", (Text("third"),)))
    assert out == b'{\n  "dup": "first",\n  "other": "x",\n  "dup": "third"\n}\n'


def test_root_array_and_root_string() -> None:
    array = JSON.read(b'["a", ["b"], {"c": "d"}]')
    assert [b.name for b in array.blocks] == ["[0]", "[1][0]", "[2].c"]
    single = JSON.read(b'"just text"')
    assert [(b.id, b.name) for b in single.blocks] == [("$", "")]
    assert JSON.write(replace(single, "", (Text("new"),))) == b'"new"'


# --- no-op writes -------------------------------------------------------------------------

ALL_FIXTURES = sorted(p.name for p in FIXTURES.iterdir())


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_unchanged_document_writes_identical_bytes(name: str) -> None:
    codec = ARB if name.endswith(".arb") else JSON
    data = fixture(name)
    assert codec.write(codec.read(data, path=name)) == data


def test_rewriting_the_same_runs_in_new_objects_is_still_a_no_op() -> None:
    data = fixture("icu.json")
    document = JSON.read(data)
    copied = document.with_blocks(tuple(evolve(b, source=tuple(b.source)) for b in document.blocks))
    assert JSON.write(copied) == data


# --- edits --------------------------------------------------------------------------------


def test_edit_changes_only_that_value() -> None:
    data = fixture("nested.json")
    document = JSON.read(data)
    out = JSON.write(replace(document, "nav.back", (Text("Zurück zu "), ph("1", "{{page}}", "x"))))
    assert out == data.replace(b'"Back to {{page}}"', b'"Zur\xc3\xbcck zu {{page}}"')


def test_edit_keeps_crlf_bom_and_missing_final_newline() -> None:
    data = fixture("flat_crlf_bom.json")
    out = JSON.write(replace(JSON.read(data), "home.title", (Text("Bienvenue"),)))
    assert out == data.replace(b'"Welcome"', b'"Bienvenue"')
    assert out.startswith(b"\xef\xbb\xbf") and b"\r\n" in out and not out.endswith(b"\n")


def test_file_that_escapes_non_ascii_gets_escaped_text() -> None:
    data = fixture("ascii_escapes.json")
    document = JSON.read(data)
    assert by_name(document)["greeting"].source == (Text("Café crème"),)
    assert by_name(document)["html"].source == (Text("a <b> tag"),)
    out = JSON.write(replace(document, "farewell", (Text("À bientôt <3 😀"),)))
    assert out == data.replace(b'"Au revoir"', b'"\\u00C0 bient\\u00F4t \\u003C3 \\uD83D\\uDE00"')


def test_raw_utf8_file_gets_raw_text_and_mandatory_escapes() -> None:
    data = fixture("flat_crlf_bom.json")
    out = JSON.write(
        replace(JSON.read(data), "home.title", (Text('Süß "quoted" \\ tab\there\nnew\x01'),))
    )
    expected = '"Süß \\"quoted\\" \\\\ tab\\there\\nnew\\u0001"'.encode()
    assert out == data.replace(b'"Welcome"', expected)
    assert by_name(JSON.read(out))["home.title"].source == (
        Text('Süß "quoted" \\ tab\there\nnew\x01'),
    )


def test_utf16_with_bom_round_trips_and_edits() -> None:
    data = '{\r\n  "a": "é",\r\n  "b": "x"\r\n}'.encode("utf-16")
    document = JSON.read(data)
    assert JSON.write(document) == data
    out = JSON.write(replace(document, "b", (Text("ü"),)))
    assert out == '{\r\n  "a": "é",\r\n  "b": "ü"\r\n}'.encode("utf-16")


def test_lone_surrogates_are_read_and_written_as_escapes() -> None:
    data = b'{"a": "\\ud800 lone", "b": "x"}'
    document = JSON.read(data)
    assert document.blocks[0].source == (Text("\ud800 lone"),)
    assert JSON.write(document) == data
    out = JSON.write(replace(document, "b", (Text("\udfff!"),)))
    assert out == b'{"a": "\\ud800 lone", "b": "\\udfff!"}'


def test_slash_escape_kept_where_the_value_used_it() -> None:
    data = fixture("nested.json")
    out = JSON.write(replace(JSON.read(data), "cart.path", (Text("x/y"),)))
    assert out == data.replace(b'"a\\/b\\/c"', b'"x\\/y"')
    # a value without slashes follows the file: this one escapes every slash it has
    out = JSON.write(replace(JSON.read(data), "nav.home", (Text("x/y"),)))
    assert out == data.replace(b'"Home"', b'"x\\/y"')
    raw = b'{"a": "1/2", "b": "c"}'
    assert JSON.write(replace(JSON.read(raw), "b", (Text("x/y"),))) == b'{"a": "1/2", "b": "x/y"}'


def test_i18next_plural_branch_edit_rewrites_only_that_sibling() -> None:
    data = fixture("nested.json")
    document = JSON.read(data)
    plural = by_name(document)["cart.items"].source[0]
    assert isinstance(plural, Plural)
    forms = dict(plural.forms)
    forms["other"] = (ph("1", "{{count}}", "i18next:interpolation"), Text(" things"))
    out = JSON.write(replace(document, "cart.items", (evolve(plural, forms=forms),)))
    assert out == data.replace(b"{{count}} items in your cart", b"{{count}} things")


def test_i18next_plural_forms_added_and_removed_as_siblings() -> None:
    data = fixture("nested.json")
    document = JSON.read(data)
    plural = by_name(document)["cart.items"].source[0]
    assert isinstance(plural, Plural)
    forms = {
        "zero": (Text("empty"),),
        "few": (Text("a few"),),
        "other": plural.forms["other"],
    }
    out = JSON.write(replace(document, "cart.items", (Plural("count", forms),)))
    assert out == data.replace(
        b'    "items_one": "{{count}} item in your cart",\n'
        b'    "items_other": "{{count}} items in your cart",\n',
        b'    "items_zero": "empty",\n'
        b'    "items_few": "a few",\n'
        b'    "items_other": "{{count}} items in your cart",\n',
    )
    assert by_name(JSON.read(out))["cart.items"].source == (Plural("count", forms),)


def test_i18next_plural_cannot_become_flat_text() -> None:
    document = JSON.read(fixture("nested.json"))
    with pytest.raises(WriteRefused) as refused:
        JSON.write(replace(document, "cart.items", (Text("items"),)))
    assert refused.value.capability == "plural"


def test_icu_branch_edit_keeps_the_rest_of_the_message() -> None:
    data = fixture("app_en.arb")
    document = ARB.read(data)
    plural = by_name(document)["itemCount"].source[0]
    assert isinstance(plural, Plural)
    forms = dict(plural.forms)
    forms["=1"] = (Text("Exactly one {item}"),)
    out = ARB.write(replace(document, "itemCount", (evolve(plural, forms=forms),)))
    assert out == data.replace(b"=1{One item}", b"=1{Exactly one '{item}'}")
    assert by_name(ARB.read(out))["itemCount"].source[0] == evolve(plural, forms=forms)


def test_selectordinal_and_offset_spelling_survive_a_branch_edit() -> None:
    data = b'{"a": "{n, selectordinal, offset:1 one {#st} other {#th}}"}'
    document = JSON.read(data)
    plural = document.blocks[0].source[0]
    assert isinstance(plural, Plural)
    forms = {**plural.forms, "other": (ph("1", "#", "icu:pound"), Text(". th"))}
    out = JSON.write(replace(document, "a", (evolve(plural, forms=forms),)))
    assert out == b'{"a": "{n, selectordinal, offset:1 one {#st} other {#. th}}"}'


def test_apostrophes_in_icu_text_are_quoted_only_where_needed() -> None:
    data = fixture("app_en.arb")
    document = ARB.read(data)
    out = ARB.write(
        replace(document, "hello", (Text("Don't '"), ph("1", "{name}", "icu:argument")))
    )
    assert out == data.replace(b'"Hello {name}"', b"\"Don't ''{name}\"")
    assert by_name(ARB.read(out))["hello"].source == (
        Text("Don't '"),
        ph("1", "{name}", "icu:argument"),
    )


def test_literal_placeholder_text_in_a_plain_value_is_refused() -> None:
    document = JSON.read(fixture("nested.json"))
    with pytest.raises(WriteRefused) as refused:
        JSON.write(replace(document, "nav.home", (Text("Home {page}"),)))
    assert refused.value.capability == "escape"


def test_new_code_without_data_is_synthesized_from_equiv_or_refused() -> None:
    data = fixture("nested.json")
    document = JSON.read(data)
    runs = (Text("Hi "), Ph("1", "code:placeholder", equiv="{{name}}"))
    out = JSON.write(replace(document, "nav.home", runs))
    assert out == data.replace(b'"Home"', b'"Hi {{name}}"')
    with pytest.raises(WriteRefused) as refused:
        JSON.write(replace(document, "nav.home", (PcOpen("1", "fmt:bold"), Text("x"))))
    assert refused.value.capability == "synthesize:fmt:bold"


def test_target_editions_are_refused() -> None:
    document = JSON.read(fixture("nested.json"))
    blocks = list(document.blocks)
    blocks[0] = blocks[0].with_target("de", Edition(runs=(Text("Start"),)))
    with pytest.raises(WriteRefused) as refused:
        JSON.write(document.with_blocks(tuple(blocks)))
    assert refused.value.capability == "edition"


# --- structural edits ---------------------------------------------------------------------


def test_insert_after_a_named_block_in_the_files_style() -> None:
    data = fixture("nested.json")
    document = JSON.read(data)
    out = JSON.write(plus(document, new_block("nav.contact", "Contact", insert_after="nav.back")))
    assert out == data.replace(
        b'    "back": "Back to {{page}}",\n',
        b'    "back": "Back to {{page}}",\n    "contact": "Contact",\n',
    )
    assert by_name(JSON.read(out))["nav.contact"].source == (Text("Contact"),)


def test_insert_at_the_end_of_its_object_and_before_a_block() -> None:
    data = fixture("nested.json")
    document = JSON.read(data)
    out = JSON.write(plus(document, new_block("nav.last", "Last")))
    assert out == data.replace(
        b'    "help": "See $t(nav.home) or {{- link}}"\n',
        b'    "help": "See $t(nav.home) or {{- link}}",\n    "last": "Last"\n',
    )
    out = JSON.write(plus(document, new_block("nav.first", "First", insert_before="nav.home")))
    assert out == data.replace(
        b'    "home": "Home",\n', b'    "first": "First",\n    "home": "Home",\n'
    )


def test_insert_creates_missing_objects_with_the_files_indentation() -> None:
    data = b'{\n\t"a": {\n\t\t"b": "Caf\\u00e9"\n\t}\n}\n'
    document = plus(JSON.read(data), new_block("menu.file.open", "\u00d6ffnen"))
    assert JSON.write(document) == (
        b'{\n\t"a": {\n\t\t"b": "Caf\\u00e9"\n\t},\n\t"menu": {\n\t\t"file": {\n'
        b'\t\t\t"open": "\\u00d6ffnen"\n\t\t}\n\t}\n}\n'
    )
    # in a flat file the same name is one key
    flat = fixture("ascii_escapes.json")
    out = JSON.write(plus(JSON.read(flat), new_block("menu.file.open", "\u00d6ffnen")))
    assert out == flat.replace(b'tag"\n}', b'tag",\n\t"menu.file.open": "\\u00D6ffnen"\n}')


def test_insert_into_flat_crlf_file_and_into_compact_file() -> None:
    data = fixture("flat_crlf_bom.json")
    out = JSON.write(plus(JSON.read(data), new_block("home.cta", "Go", insert_after="home.title")))
    assert out == data.replace(b'"Welcome",\r\n', b'"Welcome",\r\n    "home.cta": "Go",\r\n')
    compact = fixture("compact.json")
    out = JSON.write(plus(JSON.read(compact), new_block("z", "Z"), new_block("list[2]", "w")))
    assert out == b'{"a":"b","list":["x","y","w"],"n":1,"z":"Z"}'


def test_insert_into_empty_object_and_chain_after_a_new_block() -> None:
    document = JSON.read(b'{\n  "a": {},\n  "b": "x"\n}\n')
    out = JSON.write(
        plus(
            document,
            new_block("a.one", "1"),
            new_block("a.two", "2", insert_after="a.one"),
            new_block("a.half", "1.5", insert_after="a.one"),
        )
    )
    assert out == (
        b'{\n  "a": {\n    "one": "1",\n    "half": "1.5",\n    "two": "2"\n  },\n  "b": "x"\n}\n'
    )


def test_insert_an_i18next_plural_as_siblings() -> None:
    data = fixture("nested.json")
    document = JSON.read(data)
    block = Block(
        id="n",
        name="cart.boxes",
        source=(Plural("count", {"one": (Text("a box"),), "other": (Text("boxes"),)}),),
        properties={"insert_after": "cart.items"},
    )
    out = JSON.write(plus(document, block))
    assert out == data.replace(
        b'    "items_other": "{{count}} items in your cart",\n',
        b'    "items_other": "{{count}} items in your cart",\n'
        b'    "boxes_one": "a box",\n    "boxes_other": "boxes",\n',
    )
    assert by_name(JSON.read(out))["cart.boxes"].source == block.source


# A translation file that lacks a plural of its source: German, French and Japanese
# (CLDR: de one/other, fr one/many/other, ja other only).
TARGET_FORMS = {
    "de": {"one": "Artikel", "other": "Artikel"},
    "fr": {"one": "article", "many": "d'articles", "other": "articles"},
    "ja": {"other": "個の商品"},
}


def _target_plural(source: bytes, target: bytes, name: str, language: str) -> tuple[Plural, Block]:
    """The source's plural at ``name``, translated into ``language``'s forms, as a new block."""
    original = by_name(JSON.read(source))[name].source[0]
    assert isinstance(original, Plural)
    count = next(run for run in original.forms["other"] if isinstance(run, Ph))
    forms = {form: (count, Text(" " + word)) for form, word in TARGET_FORMS[language].items()}
    plural = Plural("count", forms)
    return plural, Block(id=f"joined-{name}", name=name, source=(plural,), locale=language)


@pytest.mark.parametrize("language", ["de", "fr", "ja"])
def test_an_i18next_plural_is_added_to_a_translation_that_lacks_its_keys(language: str) -> None:
    source = (
        b'{\n  "checkout": {\n    "title": "Checkout",\n'
        b'    "items_one": "{{count}} item",\n    "items_other": "{{count}} items"\n  }\n}\n'
    )
    target = b'{\n  "checkout": {\n    "title": "Kasse"\n  }\n}\n'
    plural, block = _target_plural(source, target, "checkout.items", language)
    out = JSON.write(plus(JSON.read(target, locale=language), block))
    siblings = "".join(
        f',\n    "items_{form}": "{{{{count}}}} {word}"'
        for form, word in TARGET_FORMS[language].items()
    )
    expected = '{\n  "checkout": {\n    "title": "Kasse"' + siblings + "\n  }\n}\n"
    assert out.decode() == expected
    again = by_name(JSON.read(out, locale=language))
    assert again["checkout.items"].source == (plural,)
    assert again["checkout.title"].source == (Text("Kasse"),)


@pytest.mark.parametrize("language", ["de", "fr", "ja"])
def test_an_i18next_plural_whose_object_is_missing_creates_it(language: str) -> None:
    source = b'{\n  "cart": {\n    "items_one": "{{count}} item",\n    "items_other": "{{count}} items"\n  }\n}\n'
    target = b'{\n  "nav": {\n    "home": "Start"\n  }\n}\n'
    plural, block = _target_plural(source, target, "cart.items", language)
    out = JSON.write(plus(JSON.read(target, locale=language), block))
    members = ",\n".join(
        f'    "items_{form}": "{{{{count}}}} {word}"'
        for form, word in TARGET_FORMS[language].items()
    )
    assert out.decode() == (
        '{\n  "nav": {\n    "home": "Start"\n  },\n  "cart": {\n' + members + "\n  }\n}\n"
    )
    assert by_name(JSON.read(out))["cart.items"].source == (plural,)


@pytest.mark.parametrize("language", ["de", "fr", "ja"])
def test_an_icu_plural_is_added_to_a_translation_that_lacks_it(language: str) -> None:
    source = (
        b'{\n  "title": "Checkout",\n'
        b'  "items": "{count, plural, one {# item} other {# items}}"\n}\n'
    )
    target = b'{\n  "title": "Kasse"\n}\n'
    plural, block = _target_plural(source, target, "items", language)
    out = JSON.write(plus(JSON.read(target, locale=language), block))
    branches = " ".join(f"{form} {{# {word}}}" for form, word in TARGET_FORMS[language].items())
    expected = '{\n  "title": "Kasse",\n  "items": "{count, plural, ' + branches + '}"\n}\n'
    assert out.decode() == expected  # a lone apostrophe is literal in ICU
    again = by_name(JSON.read(out, locale=language))
    assert again["items"].source == (plural,)
    assert again["title"].source == (Text("Kasse"),)


def test_a_plain_plural_in_a_file_without_i18next_codes_stays_an_icu_message() -> None:
    target = b'{\n  "title": "Kasse"\n}\n'
    plural = Plural("count", {"one": (Text("ein Artikel"),), "other": (Text("Artikel"),)})
    block = Block(id="n", name="items", source=(plural,))
    out = JSON.write(plus(JSON.read(target), block))
    assert b'"items": "{count, plural, one {ein Artikel} other {Artikel}}"' in out
    assert by_name(JSON.read(out))["items"].source == (plural,)


def test_insert_refuses_an_existing_key_or_a_path_through_a_value() -> None:
    document = JSON.read(fixture("nested.json"))
    with pytest.raises(WriteRefused):
        JSON.write(plus(document, new_block("nav.home", "again")))
    with pytest.raises(WriteRefused):
        JSON.write(plus(document, new_block("nav.home.deeper", "x")))


def test_delete_middle_last_and_only_members() -> None:
    data = fixture("nested.json")
    document = JSON.read(data)
    out = JSON.write(without(document, "nav.back"))
    assert out == data.replace(b'    "back": "Back to {{page}}",\n', b"")
    out = JSON.write(without(document, "nav.help"))
    assert out == data.replace(
        b'{{page}}",\n    "help": "See $t(nav.home) or {{- link}}"\n', b'{{page}}"\n'
    )
    out = JSON.write(without(document, "nav.home", "nav.back", "nav.help"))
    assert out.startswith(b'{\n  "nav": {},\n  "cart"')
    json.loads(out)


def test_delete_array_item_folded_plural_and_first_member() -> None:
    data = fixture("nested.json")
    document = JSON.read(data)
    out = JSON.write(without(document, "cart.tags[0]", "cart.items"))
    expected = data.replace(b'["new", "sale"', b'["sale"').replace(
        b'    "items_one": "{{count}} item in your cart",\n'
        b'    "items_other": "{{count}} items in your cart",\n',
        b"",
    )
    assert out == expected
    compact = fixture("compact.json")
    assert JSON.write(without(JSON.read(compact), "a")) == b'{"list":["x","y"],"n":1}'


def test_arb_delete_takes_metadata_and_insert_lands_after_metadata() -> None:
    data = fixture("app_en.arb")
    document = ARB.read(data)
    out = ARB.write(without(document, "hello"))
    assert b'"hello"' not in out and b'"@hello"' not in out
    assert json.loads(out)["@@last_modified"] == "2024-01-01T00:00:00Z"
    assert list(json.loads(out)) == [
        "@@locale",
        "@@last_modified",
        "itemCount",
        "@itemCount",
        "title",
    ]
    runs = (Text("Bye "), ph("1", "{name}", "icu:argument"), Text(" {literally}"))
    bye = Block(id="bye", name="bye", source=runs, properties={"insert_after": "hello"})
    out = ARB.write(plus(document, bye))
    keys = list(json.loads(out))
    assert keys.index("bye") == keys.index("@hello") + 1
    assert json.loads(out)["bye"] == "Bye {name} '{literally}'"
    assert by_name(ARB.read(out))["bye"].source == runs


def test_insert_and_delete_in_one_write() -> None:
    data = fixture("nested.json")
    document = without(JSON.read(data), "nav.back")
    out = JSON.write(plus(document, new_block("nav.new", "New", insert_after="nav.back")))
    assert out == data.replace(b'"back": "Back to {{page}}"', b'"new": "New"')


def test_delete_and_insert_the_same_key_replaces_the_member() -> None:
    data = fixture("compact.json")
    document = without(JSON.read(data), "a")
    out = JSON.write(plus(document, new_block("a", "new", insert_before="list[0]")))
    assert out == b'{"list":["x","y"],"n":1,"a":"new"}'
    empty = Block(id="e", name="e", source=())
    assert JSON.write(plus(JSON.read(data), empty)) == b'{"a":"b","list":["x","y"],"n":1,"e":""}'


def test_document_without_skeleton_is_written_from_scratch() -> None:
    document = Document(
        format="json",
        locale="en",
        blocks=(
            Block(
                id="a",
                name="home.title",
                source=(Text("Hi "), Ph("1", "code:placeholder", equiv="{name}")),
            ),
            Block(
                id="b",
                name="count",
                source=(Plural("n", {"one": (Text("one"),), "other": (Text("many"),)}),),
            ),
        ),
    )
    out = JSON.write(document)
    assert out == (
        b'{\n  "home.title": "Hi {name}",\n  "count": "{n, plural, one {one} other {many}}"\n}\n'
    )
    arb = ARB.write(evolve(document, format="arb", locale="fr"))
    assert arb.startswith(b'{\n  "@@locale": "fr",\n  "home.title"')
    assert [b.name for b in ARB.read(arb).blocks] == ["home.title", "count"]


# --- bad input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "line", "column", "words"),
    [
        (b'{\n  "a": "b",\n}', 3, 1, "trailing comma"),
        (b'{\n  "a": "b\n}', 2, 10, "control character"),
        (b'{"a": "\\x"}', 1, 8, "invalid escape"),
        (b'{"a": "\\u12"}', 1, 8, "four hex digits"),
        (b'{"a": "b"', 1, 10, "expected ',' or '}'"),
        (b'{"a": "unterminated', 1, 7, "unterminated string"),
        (b'{"a" "b"}', 1, 6, "expected ':'"),
        (b'// comment\n{"a": "b"}', 1, 1, "unexpected '/'"),
        (b'{"a": "b"} extra', 1, 12, "after the JSON value"),
        (b"[1, 2,]", 1, 7, "trailing comma"),
        (b"{'a': 1}", 1, 2, "member name"),
        (b"", 1, 1, "no JSON value"),
        (b'{"a": tru}', 1, 7, "unexpected 't'"),
    ],
)
def test_malformed_json_names_line_and_column(
    data: bytes, line: int, column: int, words: str
) -> None:
    with pytest.raises(FormatError) as raised:
        JSON.read(data, path="bad.json")
    error = raised.value
    assert error.code == "invalid"
    assert (error.line, error.column) == (line, column)
    assert words in error.message
    assert error.path == "bad.json"
    assert str(error).startswith(f"bad.json:{line}:{column}: ")


def test_invalid_utf8_is_a_format_error_with_position() -> None:
    with pytest.raises(FormatError) as raised:
        JSON.read(b'{\n  "a": "\xff", "b": "\xc3\xa9"\n}', path="x.json")
    assert (raised.value.line, raised.value.column, raised.value.code) == (2, 9, "invalid")


def test_depth_and_entry_budgets() -> None:
    codec = JsonFormat(Limits(max_depth=3, max_entries=4))
    codec.read(b'{"a": {"b": ["c"]}}')
    with pytest.raises(FormatError) as raised:
        codec.read(b'{"a": {"b": {"c": {"d": "e"}}}}')
    assert raised.value.code == "budget_exceeded"
    assert (raised.value.line, raised.value.column) == (1, 19)
    with pytest.raises(FormatError) as raised:
        codec.read(b'["a", "b", "c", "d", "e"]')
    assert raised.value.code == "budget_exceeded"
    with pytest.raises(FormatError) as raised:
        JsonFormat(Limits(max_bytes=10)).read(b'{"a": "bcdefghij"}')
    assert raised.value.code == "budget_exceeded"


def test_deep_nesting_within_default_budget_is_refused_not_crashed() -> None:
    with pytest.raises(FormatError) as raised:
        JSON.read(b"[" * 5000 + b"]" * 5000)
    assert raised.value.code == "budget_exceeded"
    with pytest.raises(FormatError) as raised:
        JsonFormat(Limits(max_depth=100_000)).read(b"[" * 50_000 + b"]" * 50_000)
    assert raised.value.code == "budget_exceeded"


def test_unterminated_long_string_fails_fast() -> None:
    with pytest.raises(FormatError):
        JSON.read(b'{"a": "' + b"x" * 200_000)


# --- properties ---------------------------------------------------------------------------

_keys = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8)
_texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30)
_leaves = st.one_of(_texts, st.integers(), st.booleans(), st.none())
_catalogues = st.recursive(
    _leaves,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(_keys, children, max_size=5)
    ),
    max_leaves=25,
).filter(lambda value: isinstance(value, dict))
_layouts = st.sampled_from([None, 0, 2, 4, "\t"])


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(_catalogues, _layouts, st.booleans(), st.booleans())
def test_any_catalogue_round_trips(
    catalogue: dict[str, object], indent: int | str | None, ascii_only: bool, crlf: bool
) -> None:
    text = json.dumps(catalogue, indent=indent, ensure_ascii=ascii_only)
    if crlf:
        text = text.replace("\n", "\r\n")
    data = text.encode("utf-8")
    document = JSON.read(data)
    assert JSON.write(document) == data


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(_catalogues, _layouts, st.booleans(), st.data())
def test_setting_a_value_reads_back_and_keeps_json_valid(
    catalogue: dict[str, object],
    indent: int | str | None,
    ascii_only: bool,
    data: st.DataObject,
) -> None:
    raw = json.dumps(catalogue, indent=indent, ensure_ascii=ascii_only).encode()
    document = JSON.read(raw)
    plain = [b for b in document.blocks if not any(isinstance(r, Plural) for r in b.source)]
    if not plain:
        return
    target = data.draw(st.sampled_from(plain))
    new_text = data.draw(_texts)
    edited = document.with_blocks(
        tuple(
            b.with_source((Text(new_text),) if new_text else ()) if b.id == target.id else b
            for b in document.blocks
        )
    )
    try:
        out = JSON.write(edited)
    except WriteRefused as refused:
        # only text that the plain dialect would read as a code may be refused
        assert refused.capability == "escape"
        assert "{" in new_text or "$t(" in new_text
        return
    json.loads(out)
    again = {b.id: b for b in JSON.read(out).blocks}
    assert again[target.id].source == ((Text(new_text),) if new_text else ())
    for block in document.blocks:
        if block.id != target.id:
            assert again[block.id].source == block.source
    if ascii_only and not json.dumps(catalogue, ensure_ascii=False).isascii():
        assert out.isascii()  # the file escapes non-ASCII, so the new text does too


@settings(max_examples=100)
@given(_texts)
def test_arb_holds_any_text(new_text: str) -> None:
    document = ARB.read(fixture("app_en.arb"))
    runs: Runs = (Text(new_text),) if new_text else ()
    out = ARB.write(replace(document, "title", runs))
    assert by_name(ARB.read(out))["title"].source == runs


_paths = st.lists(
    st.one_of(st.text(alphabet="a.[]\\0 é", min_size=1, max_size=4), st.just("")),
    min_size=1,
    max_size=3,
)


def _name_of(keys: list[str]) -> str:
    return ".".join(k.replace("\\", "\\\\").replace(".", "\\.").replace("[", "\\[") for k in keys)


@settings(max_examples=150)
@given(_paths, _texts)
def test_inserting_any_key_path_creates_that_path(keys: list[str], text: str) -> None:
    data = fixture("nested.json")
    document = JSON.read(data)
    name = "cart." + _name_of(keys)
    expected = json.loads(data)
    node = expected["cart"]
    for key in keys[:-1]:
        existing = node.get(key)
        if existing is not None and not isinstance(existing, dict):
            return  # the path runs through a value: refused, tested elsewhere
        node = node.setdefault(key, {})
    if keys[-1] in node:
        return
    node[keys[-1]] = text
    runs: Runs = (Text(text),) if text else ()
    block = Block(id="new", name=name, source=runs)
    try:
        out = JSON.write(plus(document, block))
    except WriteRefused as refused:
        assert refused.capability == "escape"
        return
    assert json.loads(out) == expected
    assert by_name(JSON.read(out))[name].source == runs


def test_new_values_under_one_new_parent_share_one_object():
    from kapi.core.model import Block, Text

    codec = JsonFormat()
    document = codec.read(b'{\n  "a": {\n    "b": "B"\n  }\n}\n', path="en.json", locale="en")
    new = tuple(
        Block(id=f"n{i}", name=name, source=(Text(text),), locale="en")
        for i, (name, text) in enumerate(
            [("a.new.x", "X"), ("a.new.y", "Y"), ("a.new.deep.z", "Z")]
        )
    )
    written = codec.write(document.with_blocks((*document.blocks, *new)))
    assert written == (
        b'{\n  "a": {\n    "b": "B",\n    "new": {\n      "x": "X",\n      "y": "Y",\n'
        b'      "deep": {\n        "z": "Z"\n      }\n    }\n  }\n}\n'
    )
    compact = codec.read(b'{"a":{"b":"B"}}', path="en.json", locale="en")
    out = codec.write(compact.with_blocks((*compact.blocks, *new[:2])))
    assert out == b'{"a":{"b":"B","new":{"x":"X","y":"Y"}}}'


# --- the light read and the skeleton made later -------------------------------------------


def _exact_blocks(codec: JsonFormat, data: bytes) -> tuple[Block, ...]:
    """The blocks the walk finds on the exact scanner's tree (the tree a write's skeleton walks)."""
    from kapi.formats import json_catalog
    from kapi.formats.jsonscan import scan

    document = codec.read(data)
    text = data.decode("utf-8-sig")
    root, _ = scan(text, "", codec.limits)
    arb = document.skeleton.arb
    light = json_catalog._lighten(root)
    recorder = json_catalog._Reader(light, arb, document.locale, text, exact=root)
    recorder.read()
    assert len(recorder.values) == len(document.skeleton.values)
    reader = json_catalog._Reader(light, arb, document.locale, text)
    reader.read()
    return tuple(reader.blocks)


LIGHT_CASES = [
    *(path.name for path in sorted(FIXTURES.iterdir())),
]
ODD = {
    "i18next.json": b'{"cart": {"items_one": "{{count}} item", "items_other": "{{count}} items",'
    b' "list": ["a", {"deep": "c", "n": 3.5e2}, ["d", "  "], true, null], "dup": "1",'
    b' "dup": "2", "w.k[0]": "esc \\u00e9 \\ud800"}, "": "empty", "n": -0}',
    "root.json": b'"just a string"',
    "array.json": b'["x", "y", "", {"a": "b"}]',
    "empty.json": b"{}",
    "icu.json": b'{"a": "{n, plural, one {# x} other {# y}}", "b": "It\'\'s {x}"}',
    "arb.json": b'{"@@locale": "fr", "a": "b", "@a": {"description": "note", "x": [1, {}]}}',
}


@pytest.mark.parametrize("name", LIGHT_CASES + sorted(ODD))
def test_light_read_finds_the_blocks_the_exact_tree_holds(name: str) -> None:
    data = ODD.get(name) or fixture(name)
    codec = ARB if name.endswith(".arb") else JSON
    document = codec.read(data)
    assert document.blocks == _exact_blocks(codec, data)
    assert codec.write(document) == data  # the skeleton made on demand splices as before


def test_skeleton_is_made_only_when_asked_for() -> None:
    document = JSON.read(b'{"a": "b", "c": "d"}')
    skeleton = document.skeleton
    assert object.__getattribute__(skeleton, "_plan") is not None  # not made by the read
    assert skeleton.names == {"a": "a", "c": "c"}
    assert object.__getattribute__(skeleton, "_plan") is None
    with pytest.raises(AttributeError):
        skeleton.no_such_field  # noqa: B018


@pytest.mark.parametrize(
    "data",
    [
        b'{"a": NaN}',
        b'{"a": Infinity}',
        b"[-Infinity]",
        b'{"a": 1e999999}',
        b"[" + b"9" * 5000 + b"]",
    ],
)
def test_what_the_standard_library_would_take_is_judged_by_the_exact_scanner(data: bytes) -> None:
    from kapi.formats.jsonscan import scan

    try:
        scan(data.decode(), "x.json", JSON.limits)
    except FormatError as exact:
        with pytest.raises(FormatError) as raised:
            JSON.read(data, path="x.json")
        assert str(raised.value) == str(exact)
    else:
        assert JSON.read(data).blocks == ()


# --- the skeleton of a file read one block a string value ------------------------------------


def _recorded(codec: JsonFormat, document: Document, data: bytes) -> json_catalog._Reader:
    """The full walk of the exact tree that records every value and place (any file's way)."""
    from kapi.formats.jsonscan import scan

    text = data.decode("utf-8-sig")
    root, _ = scan(text, "", codec.limits)
    skeleton = document.skeleton
    recorder = json_catalog._Reader(
        json_catalog._lighten(root),
        skeleton.arb,
        document.locale,
        text,
        exact=root,
        read=document.blocks,
    )
    recorder.read()
    return recorder


def _as_found(skeleton: json_catalog.JsonSkeleton) -> tuple[object, ...]:
    values = [
        (v.block_id, v.node.start, v.node.end, v.runs, v.form, v.layouts) for v in skeleton.values
    ]
    places = {
        key: [(place.container.start, place.index) for place in found]
        for key, found in skeleton.places.items()
    }
    return values, places, dict(skeleton.names), set(skeleton.folded)


def _same_as_recorded(codec: JsonFormat, data: bytes) -> bool:
    """Asserts the skeleton holds what the full walk records; True when the file took the
    one-value-a-block way (its places found only when asked for)."""
    document = codec.read(data)
    skeleton = document.skeleton
    recorder = _recorded(codec, document, data)
    assert skeleton.values is not None  # the skeleton made, its places not asked for yet
    try:
        object.__getattribute__(skeleton, "places")
    except AttributeError:
        short = True
    else:
        short = False
    found = _as_found(skeleton)
    want = (
        [
            (v.block_id, v.node.start, v.node.end, v.runs, v.form, v.layouts)
            for v in recorder.values
        ],
        {
            key: [(place.container.start, place.index) for place in places]
            for key, places in recorder.places.items()
        },
        dict(recorder.names),
        set(recorder.folded),
    )
    assert found == want
    # an unchanged block's runs are the very runs it was read with
    read = {block.id: block.source for block in document.blocks}
    assert all(value.runs is read[value.block_id] for value in skeleton.values if not value.form)
    return short


@pytest.mark.parametrize("name", LIGHT_CASES + sorted(ODD))
def test_a_skeleton_holds_what_the_full_walk_records(name: str) -> None:
    data = ODD.get(name) or fixture(name)
    codec = ARB if name.endswith(".arb") else JSON
    short = _same_as_recorded(codec, data)
    if name in ("root.json", "array.json", "empty.json", "icu.json"):
        assert short
    if name in ("i18next.json", "arb.json") or name.endswith(".arb"):
        assert not short  # repeated keys, folded plurals and ARB take the full walk


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(_catalogues, _layouts)
def test_any_catalogues_skeleton_holds_what_the_full_walk_records(
    catalogue: dict[str, object], indent: int | str | None
) -> None:
    _same_as_recorded(JSON, json.dumps(catalogue, indent=indent).encode("utf-8"))


def test_a_plain_catalogue_takes_the_short_way_and_still_deletes_and_inserts() -> None:
    data = b'{\n  "a": "A",\n  "b": {\n    "c": "C {n}",\n    "d": ["x", "y"]\n  }\n}\n'
    assert _same_as_recorded(JSON, data)
    document = JSON.read(data)
    kept = tuple(block for block in document.blocks if block.name != "b.d[0]")
    new = Block(id="n", name="b.e", source=(Text("E"),))
    out = JSON.write(document.with_blocks((*kept, new)))
    assert json.loads(out) == {"a": "A", "b": {"c": "C {n}", "d": ["y"], "e": "E"}}
