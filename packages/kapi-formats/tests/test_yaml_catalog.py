"""YAML catalogues: Rails and plain files read into blocks and written back byte for byte."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from kapi.core.format import FormatError, Limits, WriteRefused
from kapi.core.model import Block, Document, Edition, Ph, Plural, Runs, Text
from kapi.formats.registry import load_codec
from kapi.formats.yaml_catalog import YamlFormat

FIXTURES = Path(__file__).parent / "fixtures" / "yaml"
codec = YamlFormat()


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def blocks_of(document: Document) -> dict[str, Block]:
    return {block.id: block for block in document.blocks}


def edit(document: Document, block_id: str, runs: Runs) -> bytes:
    blocks = tuple(b.with_source(runs) if b.id == block_id else b for b in document.blocks)
    assert any(b.id == block_id for b in document.blocks), block_id
    return codec.write(document.with_blocks(blocks))


def flat(runs: Runs) -> str:
    return "".join(r.text if isinstance(r, Text) else r.data for r in runs)  # type: ignore[union-attr]


def safe_load(data: bytes) -> Any:
    return YAML(typ="safe", pure=True).load(data.decode("utf-8-sig"))


# --- reading -----------------------------------------------------------------


def test_rails_file_names_omit_the_locale_root() -> None:
    document = codec.read(fixture("rails_en.yml"), path="config/locales/rails_en.yml")
    assert document.format == "yaml"
    assert document.locale == "en"
    assert [b.id for b in document.blocks] == [
        "defaults.save",
        "defaults.cancel",
        "views.home.title",
        "views.home.subtitle",
        "views.home.motto",
        "views.home.body",
        "views.home.summary",
        "views.items",
        "date.day_names[0]",
        "date.day_names[1]",
        "date.day_names[2]",
        "date.formats.short",
        "number.delimiter",
        "messages.format",
    ]
    assert all(b.name == b.id and b.locale == "en" for b in document.blocks)


def test_every_scalar_style_is_decoded() -> None:
    blocks = blocks_of(codec.read(fixture("rails_en.yml")))
    assert blocks["defaults.cancel"].source == (Text("Cancel"),)
    assert blocks["views.home.subtitle"].source == (Text('Line with "quotes" and café'),)
    assert blocks["views.home.motto"].source == (Text("It's fine"),)
    assert blocks["views.home.body"].source == (Text("First line\n  indented line\n\nLast line\n"),)
    assert blocks["views.home.summary"].source == (Text("Folded text on two lines"),)


def test_interpolations_are_placeholders_with_their_source_slice() -> None:
    blocks = blocks_of(codec.read(fixture("rails_en.yml")))
    assert blocks["views.home.title"].source == (
        Text("Welcome to "),
        Ph(
            id="1",
            type="code:placeholder",
            sub_type="ruby:interpolation",
            data="%{app_name}",
            equiv="%{app_name}",
        ),
    )
    runs = blocks["messages.format"].source
    assert [(r.id, r.sub_type, r.data) for r in runs if isinstance(r, Ph)] == [
        ("1", "ruby:format", "%<count>d"),
        ("2", "ruby:interpolation", "%{total}"),
    ]


def test_rails_plural_map_is_one_block_with_a_plural_run() -> None:
    block = blocks_of(codec.read(fixture("rails_en.yml")))["views.items"]
    (plural,) = block.source
    assert isinstance(plural, Plural)
    assert plural.pivot == "count"
    assert plural.forms == {
        "zero": (Text("No items"),),
        "one": (Text("One item"),),
        "other": (
            Ph(
                id="1",
                type="code:placeholder",
                sub_type="ruby:interpolation",
                data="%{count}",
                equiv="%{count}",
            ),
            Text(" items"),
        ),
    }


def test_aliases_non_strings_and_symbols_are_not_blocks() -> None:
    ids = {b.id for b in codec.read(fixture("rails_en.yml")).blocks}
    # *defaults is an alias; precision/false/empty are not strings; :year is a Ruby symbol
    assert not any(i.startswith("views.home.actions") for i in ids)
    assert not {"number.precision", "number.strip_insignificant_zeros", "number.empty"} & ids
    assert not any(i.startswith("date.order") for i in ids)


def test_plain_yaml_keeps_its_root_key_and_takes_the_locale_argument() -> None:
    document = codec.read(fixture("plain_crlf.yaml"), path="app.yaml", locale="fr_CA")
    assert document.locale == "fr-CA"
    blocks = blocks_of(document)
    assert list(blocks) == [
        "app.title",
        "app.farewell",
        "app.note",
        "app.tags[0]",
        "app.tags[1]",
        "app.plural",
    ]
    assert blocks["app.note"].source == (Text("Two\nlines\n"),)
    assert codec.read(fixture("plain_crlf.yaml")).locale == "en"


def test_root_locale_from_file_name_for_three_letter_codes() -> None:
    data = b"fil:\n  hello: Kumusta\n"
    assert codec.read(data, path="devise.fil.yml").locale == "fil"
    assert codec.read(data, path="devise.fil.yml").blocks[0].name == "hello"
    # without the hint, "fil" is just a key
    assert codec.read(data, path="x.yml").blocks[0].name == "fil.hello"
    assert codec.read(b"app:\n  hello: Hi\n").blocks[0].name == "app.hello"


def test_bom_file_reads_its_locale_from_the_root() -> None:
    document = codec.read(fixture("bom_de.yml"), locale="en")
    assert document.locale == "de"
    assert blocks_of(document)["hallo"].source == (Text("Grüß dich"),)


def test_duplicate_names_get_distinct_ids() -> None:
    document = codec.read(b"a: one\na: two\n")
    assert [(b.id, b.name) for b in document.blocks] == [("a", "a"), ("a#2", "a")]


def test_registry_loads_this_codec() -> None:
    assert isinstance(load_codec("yaml"), YamlFormat)


# --- no-op writes ----------------------------------------------------------------


@pytest.mark.parametrize("name", ["rails_en.yml", "plain_crlf.yaml", "bom_de.yml"])
def test_unchanged_document_writes_identical_bytes(name: str) -> None:
    data = fixture(name)
    assert codec.write(codec.read(data, path=name)) == data


# --- edits -----------------------------------------------------------------------


def test_plain_edit_stays_plain_and_keeps_the_comment() -> None:
    document = codec.read(fixture("rails_en.yml"))
    title = blocks_of(document)["views.home.title"]
    out = edit(document, "views.home.title", (Text("Hello from "), title.source[1]))
    expected = fixture("rails_en.yml").replace(
        b"title: Welcome to %{app_name}   #", b"title: Hello from %{app_name}   #"
    )
    assert out == expected


def test_plain_edit_is_quoted_only_when_it_must_be() -> None:
    document = codec.read(fixture("rails_en.yml"))
    out = edit(document, "defaults.save", (Text("Note: save # now"),))
    assert out == fixture("rails_en.yml").replace(
        b"    save: Save\n", b'    save: "Note: save # now"\n'
    )
    for text in ("yes", "12", "- item", ":symbol", "trailing ", "@handle", "null"):
        out = edit(document, "defaults.save", (Text(text),))
        assert safe_load(out)["en"]["defaults"]["save"] == text


def test_single_quoted_edit_doubles_apostrophes() -> None:
    document = codec.read(fixture("rails_en.yml"))
    out = edit(document, "views.home.motto", (Text("Don't panic"),))
    assert out == fixture("rails_en.yml").replace(b"'It''s fine'", b"'Don''t panic'")
    out = edit(document, "views.home.motto", (Text("two\nlines"),))
    assert b'motto: "two\\nlines"\n' in out


def test_double_quoted_edit_escapes_like_the_file() -> None:
    document = codec.read(fixture("rails_en.yml"))
    out = edit(document, "views.home.subtitle", (Text('Grüße "x" \\ tab\t'),))
    # the file writes non-ASCII as lower-case \u escapes, so the edit does too
    assert out == fixture("rails_en.yml").replace(
        b'"Line with \\"quotes\\" and caf\\u00e9"',
        b'"Gr\\u00fc\\u00dfe \\"x\\" \\\\ tab\\t"',
    )


def test_double_quoted_edit_writes_non_ascii_raw_in_a_utf8_file() -> None:
    data = b'k: "caf\xc3\xa9"\n'
    out = edit(codec.read(data), "k", (Text("thé \u2028"),))
    assert out == 'k: "thé \\L"\n'.encode()


def test_literal_block_edit_keeps_indentation_and_chomping_follows_the_text() -> None:
    document = codec.read(fixture("rails_en.yml"))
    out = edit(document, "views.home.body", (Text("New first\n  still indented\n"),))
    assert out == fixture("rails_en.yml").replace(
        b"First line\n          indented line\n\n        Last line\n",
        b"New first\n          still indented\n",
    )
    out = edit(document, "views.home.body", (Text("No final newline"),))
    assert b"      body: |-\n        No final newline\n      summary:" in out
    assert blocks_of(codec.read(out))["views.home.body"].source == (Text("No final newline"),)


def test_folded_block_edit_turns_line_breaks_into_blank_lines() -> None:
    document = codec.read(fixture("rails_en.yml"))
    out = edit(document, "views.home.summary", (Text("One\nTwo"),))
    assert b"      summary: >-\n        One\n\n        Two\n      actions:" in out
    assert blocks_of(codec.read(out))["views.home.summary"].source == (Text("One\nTwo"),)


def test_block_scalar_falls_back_to_double_quotes_when_its_style_cannot_hold_the_text() -> None:
    document = codec.read(fixture("rails_en.yml"))
    out = edit(document, "views.home.body", (Text("  leading spaces"),))
    assert b'      body: "  leading spaces"\n      summary:' in out


def test_anchored_value_edit_changes_only_the_anchor() -> None:
    document = codec.read(fixture("rails_en.yml"))
    out = edit(document, "defaults.save", (Text("Store"),))
    assert out == fixture("rails_en.yml").replace(b"save: Save", b"save: Store")
    assert safe_load(out)["en"]["views"]["home"]["actions"]["save"] == "Store"


def test_plural_form_edit_changes_only_that_form() -> None:
    document = codec.read(fixture("rails_en.yml"))
    (plural,) = blocks_of(document)["views.items"].source
    assert isinstance(plural, Plural)
    forms = dict(plural.forms)
    forms["one"] = (Text("A single item"),)
    out = edit(document, "views.items", (Plural("count", forms),))
    assert out == fixture("rails_en.yml").replace(b'"One item"', b'"A single item"')


def test_plural_forms_can_be_added_and_removed() -> None:
    document = codec.read(fixture("rails_en.yml"))
    (plural,) = blocks_of(document)["views.items"].source
    assert isinstance(plural, Plural)
    forms = {
        "one": plural.forms["one"],
        "few": (Text("A few items"),),
        "many": (plural.forms["other"][0], Text(" lots")),
        "other": plural.forms["other"],
    }
    out = edit(document, "views.items", (Plural("count", forms),))
    assert out == fixture("rails_en.yml").replace(
        b'      zero: No items\n      one: "One item"\n      other:',
        b'      one: "One item"\n      few: "A few items"\n'
        b'      many: "%{count} lots"\n      other:',
    )
    again = blocks_of(codec.read(out))["views.items"].source
    assert again == (Plural("count", forms),)


def test_plural_added_at_the_end_of_a_crlf_file_without_final_newline() -> None:
    document = codec.read(fixture("plain_crlf.yaml"))
    forms = {"one": (Text("one file"),), "other": (Text("many files"),), "zero": (Text("none"),)}
    out = edit(document, "app.plural", (Plural("count", forms),))
    assert out.endswith(
        b"  plural:\r\n    zero: none\r\n    one: one file\r\n    other: many files"
    )
    forms = {"one": (Text("one file"),), "many": (Text("lots"),), "other": (Text("many files"),)}
    out = edit(document, "app.plural", (Plural("count", forms),))
    assert out.endswith(b"    one: one file\r\n    many: lots\r\n    other: many files")
    forms = {"one": (Text("one file"),), "other": (Text("files"),)}
    out = edit(document, "app.plural", (Plural("count", forms),))
    assert out == fixture("plain_crlf.yaml")[:-10] + b"files"


def test_crlf_literal_edit_uses_crlf() -> None:
    document = codec.read(fixture("plain_crlf.yaml"))
    out = edit(document, "app.note", (Text("Three\nshort\nlines\n"),))
    assert b"  note: |\r\n    Three\r\n    short\r\n    lines\r\n  tags:" in out
    assert out.count(b"\n") == out.count(b"\r\n")


def test_bom_is_kept_on_edit() -> None:
    document = codec.read(fixture("bom_de.yml"))
    out = edit(document, "hallo", (Text("Servus"),))
    assert out == fixture("bom_de.yml").replace("Grüß dich".encode(), b"Servus")
    assert out.startswith(b"\xef\xbb\xbf")


def test_flow_sequence_item_is_quoted_when_it_holds_a_comma() -> None:
    document = codec.read(fixture("rails_en.yml"))
    out = edit(document, "date.day_names[0]", (Text("Sun, day"),))
    assert b'day_names: ["Sun, day", Monday, "Tuesday"]' in out


def test_new_placeholder_without_data_is_synthesized() -> None:
    document = codec.read(b"k: Hi\n")
    ph = Ph(id="1", type="code:placeholder", equiv="%{name}")
    assert edit(document, "k", (Text("Hi "), ph)) == b"k: Hi %{name}\n"
    with pytest.raises(WriteRefused) as refused:
        edit(document, "k", (Ph(id="1", type="media:image"),))
    assert refused.value.capability == "synthesize:media:image"


def test_refusals_for_targets_and_plural_shape_changes() -> None:
    document = codec.read(fixture("rails_en.yml"))
    block = blocks_of(document)["defaults.save"]
    with_target = block.with_target("fr", Edition(runs=(Text("Enregistrer"),)))
    with pytest.raises(WriteRefused) as refused:
        codec.write(
            document.with_blocks(
                tuple(with_target if b.id == block.id else b for b in document.blocks)
            )
        )
    assert refused.value.capability == "edition"
    with pytest.raises(WriteRefused) as refused:
        edit(document, "views.items", (Text("flat"),))
    assert refused.value.capability == "plural-flatten"
    with pytest.raises(WriteRefused) as refused:
        edit(document, "defaults.save", (Plural("count", {"other": (Text("x"),)}),))
    assert refused.value.capability == "plural"


def test_forms_sharing_a_line_cannot_be_added() -> None:
    document = codec.read(b"n: {one: a, other: b}\n")
    out = edit(document, "n", (Plural("count", {"one": (Text("c"),), "other": (Text("b"),)}),))
    assert out == b"n: {one: c, other: b}\n"
    with pytest.raises(WriteRefused):
        edit(document, "n", (Plural("count", {"few": (Text("c"),), "other": (Text("b"),)}),))


def test_document_without_skeleton_is_generated() -> None:
    blocks = (
        Block(id="a.b", source=(Text("x: y"),), name="a.b"),
        Block(id="a.c", source=(Text("plain"),), name="a.c"),
        Block(id="n", source=(Plural("count", {"one": (Text("1"),), "other": (Text("n"),)}),)),
    )
    out = codec.write(Document(format="yaml", blocks=blocks, locale="en"))
    assert safe_load(out) == {"a": {"b": "x: y", "c": "plain"}, "n": {"one": "1", "other": "n"}}


# --- bad input ---------------------------------------------------------------------


def test_malformed_yaml_names_line_and_column() -> None:
    with pytest.raises(FormatError) as error:
        codec.read(b"a: ok\nb: [1, 2\nc: 3\n", path="bad.yml")
    assert error.value.code == "invalid"
    assert error.value.path == "bad.yml"
    assert error.value.line == 3
    assert error.value.column is not None


def test_invalid_utf8_and_control_characters_are_refused_with_position() -> None:
    with pytest.raises(FormatError) as error:
        codec.read(b"a: ok\nb: caf\xe9\n")
    assert (error.value.line, error.value.column) == (2, 7)
    with pytest.raises(FormatError) as error:
        codec.read(b"a: ok\nb: \x01\n")
    assert error.value.line == 2


def test_limits_are_budget_errors() -> None:
    deep = b"a: " + b"[" * 30 + b"]" * 30 + b"\n"
    with pytest.raises(FormatError) as error:
        YamlFormat(Limits(max_depth=10)).read(deep)
    assert error.value.code == "budget_exceeded"
    with pytest.raises(FormatError) as error:
        YamlFormat(Limits(max_entries=5)).read(fixture("rails_en.yml"))
    assert error.value.code == "budget_exceeded"
    with pytest.raises(FormatError) as error:
        YamlFormat(Limits(max_bytes=100)).read(fixture("rails_en.yml"))
    assert error.value.code == "budget_exceeded"


def test_truncated_quoted_scalar_is_invalid() -> None:
    with pytest.raises(FormatError) as error:
        codec.read(b'a: "never closed\n')
    assert error.value.code == "invalid" and error.value.line is not None


# --- property tests ---------------------------------------------------------------------------

_KEYS = st.from_regex(r"[a-z][a-z0-9_]{2,6}", fullmatch=True).filter(
    lambda k: (
        k
        not in {"yes", "no", "on", "off", "y", "n", "true", "false", "null", "zero", "one"}
        | {"two", "few", "many", "other"}
    )
)
_SAFE = st.characters(
    blacklist_categories=("Cs", "Cc", "Zl", "Zp"), blacklist_characters="\x85\ufeff%"
)
_STYLES = ("plain", "single", "double", "literal", "folded")


def _styled(value: str, style: str) -> Any:
    from ruamel.yaml.scalarstring import (
        DoubleQuotedScalarString,
        FoldedScalarString,
        LiteralScalarString,
        PlainScalarString,
        SingleQuotedScalarString,
    )

    kind = {
        "plain": PlainScalarString,
        "single": SingleQuotedScalarString,
        "double": DoubleQuotedScalarString,
        "literal": LiteralScalarString,
        "folded": FoldedScalarString,
    }[style]
    return kind(value)


_VALUES = st.builds(
    _styled,
    st.text(_SAFE, min_size=1, max_size=20).map(lambda t: t.strip() or "x"),
    st.sampled_from(_STYLES),
) | st.builds(
    _styled,
    st.lists(st.text(_SAFE, min_size=1, max_size=10), min_size=1, max_size=3).map(
        lambda lines: "\n".join(line.strip() or "y" for line in lines) + "\n"
    ),
    st.sampled_from(("literal", "folded", "double")),
)
_TREES = st.recursive(
    st.dictionaries(_KEYS, _VALUES, min_size=1, max_size=4),
    lambda inner: st.dictionaries(_KEYS, inner | _VALUES, min_size=1, max_size=3),
    max_leaves=12,
)


def _dump(tree: Any, root: str | None, crlf: bool) -> bytes:
    yaml = YAML(typ="rt")
    stream = io.StringIO()
    yaml.dump({root: tree} if root else tree, stream)
    text = stream.getvalue()
    return (text.replace("\n", "\r\n") if crlf else text).encode()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_TREES, st.sampled_from([None, "en", "pt-BR"]), st.booleans())
def test_generated_catalogue_round_trips_identically(
    tree: Any, root: str | None, crlf: bool
) -> None:
    data = _dump(tree, root, crlf)
    document = codec.read(data)
    assert codec.write(document) == data
    assert document.locale == (root or "en")


_NEW_TEXT = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="%"), max_size=30
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_TREES, st.data(), _NEW_TEXT)
def test_set_any_text_then_read_it_back(tree: Any, data: st.DataObject, new: str) -> None:
    original = _dump(tree, "en", False)
    document = codec.read(original)
    # a plain value spelled like a Ruby symbol (``:0``) is not text, so not a block
    assume(document.blocks)
    target = data.draw(st.sampled_from([b.id for b in document.blocks]))
    out = edit(document, target, (Text(new),) if new else ())
    again = blocks_of(codec.read(out))
    assert flat(again[target].source) == new
    for block in document.blocks:
        if block.id != target:
            assert again[block.id].source == block.source
    # an independent parser agrees
    node = safe_load(out)["en"]
    for part in target.split("."):
        node = node[part]
    assert node == new


# --- inserting and deleting blocks -------------------------------------------------------------


def without(document: Document, *ids: str) -> Document:
    assert all(any(b.id == i for b in document.blocks) for i in ids), ids
    return document.with_blocks(tuple(b for b in document.blocks if b.id not in ids))


def added(document: Document, name: str, runs: Runs | str, **properties: str) -> Document:
    source = (Text(runs),) if isinstance(runs, str) else runs
    block = Block(id=f"new:{name}", source=source, name=name, properties=properties)
    return document.with_blocks((*document.blocks, block))


_SMALL_RAILS = (
    b"# header\n"
    b"en:\n"
    b"  views:\n"
    b"    home:\n"
    b"      title: Welcome   # shown in the header\n"
    b"      # about the body\n"
    b"      body: |\n"
    b"        Two\n"
    b"        lines\n"
    b"    items:\n"
    b"      one: One item\n"
    b"      other: '%{count} items'\n"
    b"  last:\n"
    b"    only: Alone\n"
)


def test_insert_after_a_sibling_in_the_files_style() -> None:
    document = codec.read(_SMALL_RAILS)
    out = codec.write(
        added(document, "views.home.subtitle", "Hi: there", insert_after="views.home.title")
    )
    assert out == _SMALL_RAILS.replace(
        b"# shown in the header\n", b"# shown in the header\n      subtitle: 'Hi: there'\n"
    )
    again = blocks_of(codec.read(out))
    assert again["views.home.subtitle"].source == (Text("Hi: there"),)
    assert again["views.home.title"].source == (Text("Welcome"),)


def test_insert_before_a_sibling_and_at_the_end_of_its_mapping() -> None:
    document = codec.read(_SMALL_RAILS)
    document = added(document, "views.home.kicker", "yes", insert_before="views.home.body")
    document = added(document, "views.home.footer", "Bye")
    out = codec.write(document)
    assert out == _SMALL_RAILS.replace(
        b"      # about the body\n", b"      # about the body\n      kicker: 'yes'\n"
    ).replace(b"        lines\n", b"        lines\n      footer: Bye\n")
    again = blocks_of(codec.read(out))
    assert flat(again["views.home.kicker"].source) == "yes"
    assert [b.id for b in codec.read(out).blocks][:4] == [
        "views.home.title",
        "views.home.kicker",
        "views.home.body",
        "views.home.footer",
    ]


def test_insert_after_a_block_in_another_mapping_goes_to_the_end() -> None:
    document = codec.read(_SMALL_RAILS)
    out = codec.write(added(document, "views.home.x", "X", insert_after="last.only"))
    assert out == _SMALL_RAILS.replace(b"        lines\n", b"        lines\n      x: X\n")


def test_insert_creates_missing_parent_mappings_under_the_rails_root() -> None:
    document = codec.read(_SMALL_RAILS)
    document = added(document, "errors.form.required", "Required")
    document = added(document, "errors.form.too_long", "Too long")
    document = added(document, "views.account.title", "Account")
    out = codec.write(document)
    assert out == (
        _SMALL_RAILS.replace(
            b"      other: '%{count} items'\n",
            b"      other: '%{count} items'\n    account:\n      title: Account\n",
        )
        + b"  errors:\n    form:\n      required: Required\n      too_long: Too long\n"
    )
    again = blocks_of(codec.read(out))
    assert again["errors.form.too_long"].source == (Text("Too long"),)
    assert safe_load(out)["en"]["errors"]["form"]["required"] == "Required"


def test_insert_a_plural_and_a_placeholder() -> None:
    document = codec.read(_SMALL_RAILS)
    plural = Plural(pivot="count", forms={"other": (Text("many"),), "one": (Text("1"),)})
    document = added(document, "views.files", (plural,))
    ph = Ph(
        id="1", type="code:placeholder", sub_type="ruby:interpolation", data="%{n}", equiv="%{n}"
    )
    document = added(document, "last.greeting", (Text("Hi "), ph))
    out = codec.write(document)
    assert out.endswith(
        b"      other: '%{count} items'\n    files:\n      one: '1'\n      other: many\n"
        b"  last:\n    only: Alone\n    greeting: Hi %{n}\n"
    )
    again = blocks_of(codec.read(out))
    assert again["views.files"].source == (
        Plural(pivot="count", forms={"one": (Text("1"),), "other": (Text("many"),)}),
    )
    assert again["last.greeting"].source == (Text("Hi "), ph)


def test_insert_into_a_crlf_file_without_final_newline() -> None:
    data = fixture("plain_crlf.yaml")
    document = codec.read(data)
    out = codec.write(added(document, "app.extra.deep", "new value"))
    assert out == data + b"\r\n  extra:\r\n    deep: new value"
    out = codec.write(added(document, "app.first", "A", insert_before="app.title"))
    assert out == data.replace(b"app:\r\n", b"app:\r\n  first: A\r\n")
    assert blocks_of(codec.read(out))["app.first"].source == (Text("A"),)


def test_insert_escapes_like_the_file() -> None:
    document = codec.read(fixture("rails_en.yml"))
    out = codec.write(added(document, "messages.odd", "café\n#1"))
    assert out.endswith(b'    format: "%<count>d left of %{total}"\n    odd: "caf\\u00e9\\n#1"\n')
    assert blocks_of(codec.read(out))["messages.odd"].source == (Text("café\n#1"),)


def test_delete_plain_block_scalar_and_plural() -> None:
    document = codec.read(_SMALL_RAILS)
    out = codec.write(without(document, "views.home.title"))
    assert out == _SMALL_RAILS.replace(b"      title: Welcome   # shown in the header\n", b"")
    out = codec.write(without(document, "views.home.body"))
    assert out == _SMALL_RAILS.replace(
        b"      body: |\n        Two\n        lines\n", b""
    )  # the comment above it stays
    out = codec.write(without(document, "views.items"))
    assert out == _SMALL_RAILS.replace(
        b"    items:\n      one: One item\n      other: '%{count} items'\n", b""
    )
    again = codec.read(out)
    assert [b.id for b in again.blocks] == ["views.home.title", "views.home.body", "last.only"]


def test_deleting_the_last_key_of_a_mapping_removes_the_mapping() -> None:
    document = codec.read(_SMALL_RAILS)
    out = codec.write(without(document, "last.only"))
    assert out == _SMALL_RAILS.replace(b"  last:\n    only: Alone\n", b"")
    out = codec.write(without(document, "views.home.title", "views.home.body"))
    assert out == _SMALL_RAILS.replace(
        b"    home:\n      title: Welcome   # shown in the header\n      # about the body\n"
        b"      body: |\n        Two\n        lines\n",
        b"",
    )
    assert codec.write(document.with_blocks(())) == b"# header\nen: {}\n"
    plain = codec.read(b"a: x\nb:\n  c: y\n")
    assert codec.write(plain.with_blocks(())) == b"{}\n"


def test_delete_in_a_crlf_file_keeps_no_final_newline() -> None:
    data = fixture("plain_crlf.yaml")
    document = codec.read(data)
    out = codec.write(without(document, "app.plural"))
    assert out == data.replace(b"\r\n  plural:\r\n    one: one file\r\n    other: many files", b"")
    out = codec.write(without(document, "app.note", "app.title"))
    assert out == data.replace(b"  title: Hello\r\n", b"").replace(
        b"  note: |\r\n    Two\r\n    lines\r\n", b""
    )


def test_delete_and_insert_in_one_write() -> None:
    document = codec.read(_SMALL_RAILS)
    document = without(document, "last.only")
    document = added(document, "last.more", "More")
    out = codec.write(document)
    assert out == _SMALL_RAILS.replace(b"only: Alone", b"more: More")


def test_insert_that_would_read_back_differently_is_refused() -> None:
    # "other" beside "one" only would turn the mapping into a Rails plural
    document = codec.read(b"en:\n  last:\n    one: One\n")
    with pytest.raises(WriteRefused) as refused:
        codec.write(added(document, "last.other", "Other"))
    assert refused.value.capability == "insert_block"


def test_structural_edits_that_cannot_be_written_safely_are_refused() -> None:
    cases: list[tuple[bytes, Any, str]] = [
        (b"a: {b: c}\n", lambda d: added(d, "a.d", "x"), "insert_block"),
        (b"a: {b: c, d: e}\n", lambda d: without(d, "a.b"), "delete_block"),
        (b"a: &x hi\nb: *x\n", lambda d: without(d, "a"), "delete_block"),
        (b"a:\n  b: &m\n    c: y\n  d: *m\n", lambda d: without(d, "a.b.c"), "delete_block"),
        (b"l: [a, b]\n", lambda d: without(d, "l[0]"), "delete_block"),
        (b"l:\n- a: x\n  b: y\n", lambda d: without(d, "l[0].a"), "delete_block"),
        (b"l:\n- a\n", lambda d: added(d, "l[1]", "x"), "insert_block"),
        (b"a: x\n", lambda d: added(d, "a", "y"), "insert_block"),
        (b"a: x\n", lambda d: added(d, "a.b", "y"), "insert_block"),
        (b"a: x\n---\nb: y\n", lambda d: added(d, "c", "y"), "insert_block"),
        (b"a: x\n", lambda d: added(d, "", "y"), "insert_block"),
    ]
    for data, change, capability in cases:
        document = change(codec.read(data))
        with pytest.raises(WriteRefused) as refused:
            codec.write(document)
        assert refused.value.capability == capability, data
        assert refused.value.block, data


def test_an_anchor_no_alias_uses_does_not_block_deleting() -> None:
    document = codec.read(b"a: &x hi\nb: y\n")
    assert codec.write(without(document, "a")) == b"b: y\n"


_NEW_KEY_PATH = st.lists(_KEYS, min_size=1, max_size=3).map(".".join)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_TREES, _NEW_KEY_PATH, _NEW_TEXT, st.data(), st.booleans())
def test_insert_any_key_path_then_read_it_back(
    tree: Any, path: str, new: str, data: st.DataObject, crlf: bool
) -> None:
    document = codec.read(_dump(tree, "en", crlf))
    names = {b.name for b in document.blocks}
    # a path through an existing value, or onto an existing key, is refused: skip those
    if any(path == n or path.startswith(n + ".") or n.startswith(path + ".") for n in names):
        return
    properties: dict[str, str] = {}
    if document.blocks:
        sibling = data.draw(st.sampled_from([b.id for b in document.blocks]))
        properties[data.draw(st.sampled_from(["insert_after", "insert_before"]))] = sibling
    try:
        out = codec.write(added(document, path, new, **properties))
    except WriteRefused as refused:
        # only a path through a key that holds a non-string value (or a sequence) is refused
        assert "holds a value" in refused.message or "sequence" in refused.message
        return
    again = codec.read(out)
    by_name = {b.name: b for b in again.blocks}
    assert flat(by_name[path].source) == new
    again_ids = blocks_of(again)
    for block in document.blocks:
        assert again_ids[block.id].source == block.source
    assert len(again.blocks) == len(document.blocks) + 1


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_TREES, st.data(), st.booleans())
def test_delete_any_block_then_read_the_rest_back(
    tree: Any, data: st.DataObject, crlf: bool
) -> None:
    document = codec.read(_dump(tree, data.draw(st.sampled_from([None, "en"])), crlf))
    assume(document.blocks)  # every value spelled like a Ruby symbol: no block to delete
    target = data.draw(st.sampled_from([b.id for b in document.blocks]))
    try:
        out = codec.write(without(document, target))
    except WriteRefused as refused:
        # the one key left beside it would read as a Rails locale's root, renaming its blocks
        assert "would not read back" in str(refused)
        assert [key for key in tree if key != target] == [refused.block.split(".")[0]]
        return
    again = blocks_of(codec.read(out))
    assert target not in again
    assert again == {b.id: b for b in document.blocks if b.id != target}


# --- undo: a value set back gives the file's own bytes -------------------------------------

ESCAPED = b'greeting: "Say \\"hi\\" at the caf\\u00e9 \\/ bar"\nother: x\n'


def test_a_double_quoted_value_set_back_keeps_the_files_escapes() -> None:
    document = codec.read(ESCAPED)
    as_read = blocks_of(document)["greeting"].source
    out = edit(document, "greeting", (Text('Say "hi" at the café / pub'),))
    assert out == ESCAPED.replace(b"bar", b"pub")
    assert edit(codec.read(out), "greeting", as_read) == ESCAPED
