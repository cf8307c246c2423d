"""The read-back after a write still catches a writer that damages what nobody edited.

Blocks read back with the very runs meant are passed at once; anything else
is compared edition by edition, so a corrupted neighbour, a dropped edit or a
broken file is refused exactly as before.
"""

from __future__ import annotations

import json

import pytest
from attrs import evolve

from kapi.core.format import WriteRefused
from kapi.core.model import Text
from kapi.formats import registry
from kapi.formats.verify import verify_written

CATALOGUE = json.dumps({f"key{i}": f"Value number {i}" for i in range(1000)}, indent=2) + "\n"


def _edited():
    codec = registry.load_codec("json")
    document = codec.read(CATALOGUE.encode(), path="en.json", locale="en")
    blocks = list(document.blocks)
    for index in range(0, 1000, 10):  # every tenth value edited
        blocks[index] = blocks[index].with_source((Text(f"Edited {index}"),))
    edited = document.with_blocks(tuple(blocks))
    return codec, edited, codec.write(edited)


def test_a_faithful_write_of_many_edits_passes():
    codec, edited, data = _edited()
    verify_written(codec, edited, data, path="en.json", locale="en")
    assert b'"Edited 990"' in data and b'"Value number 991"' in data


def test_a_write_that_damages_a_block_nobody_edited_is_refused():
    codec, edited, data = _edited()
    damaged = data.replace(b'"Value number 555"', b'"Value number 556"')
    assert damaged != data
    with pytest.raises(WriteRefused, match="block 'key555' as 'Value number 556'"):
        verify_written(codec, edited, damaged, path="en.json", locale="en")


def test_a_write_that_drops_an_edit_is_refused():
    codec, edited, data = _edited()
    dropped = data.replace(b'"Edited 500"', b'"Value number 500"')
    with pytest.raises(WriteRefused, match="block 'key500' as 'Value number 500'"):
        verify_written(codec, edited, dropped, path="en.json", locale="en")


def test_a_write_that_turns_a_value_into_a_code_is_refused():
    codec, edited, data = _edited()
    coded = data.replace(b'"Value number 7"', b'"Value {number} 7"')
    with pytest.raises(WriteRefused, match="block 'key7'"):
        verify_written(codec, edited, coded, path="en.json", locale="en")


def test_a_write_that_breaks_the_file_is_refused():
    codec, edited, data = _edited()
    with pytest.raises(WriteRefused, match="would not read back"):
        verify_written(codec, edited, data[:-40], path="en.json", locale="en")


def test_a_write_that_loses_a_block_is_refused():
    codec, edited, data = _edited()
    lost = data.replace(b'  "key999": "Value number 999"\n', b"").replace(
        b'"Value number 998",', b'"Value number 998"'
    )
    with pytest.raises(WriteRefused, match="key999"):
        verify_written(codec, edited, lost, path="en.json", locale="en")


# --- the spliced read-back: only the changed values are read again ---------------------------


class _WholeRead:
    """The same codec without ``read_back``: every write is read back whole."""

    def __init__(self, codec):
        self.codec = codec
        self.name = codec.name

    def read(self, data, *, path="", locale=""):
        return self.codec.read(data, path=path, locale=locale)


def _outcome(codec, edited, data):
    try:
        verify_written(codec, edited, data, path="en.json", locale="en")
    except WriteRefused as refused:
        return str(refused)
    return "passed"


def test_a_faithful_write_is_read_back_from_the_changed_values_only():
    codec, edited, data = _edited()
    pairs = codec.read_back(edited, data)
    assert pairs is not None
    assert [mine.id for mine, _ in pairs] == [f"key{i}" for i in range(0, 1000, 10)]
    assert all(theirs.source == mine.source for mine, theirs in pairs)


@pytest.mark.parametrize(
    ("old", "new", "refused"),
    [
        (b'"Value number 555"', b'"Value number 556"', True),  # an untouched value
        (b'"Edited 500"', b'"Value number 500"', True),  # an edit dropped
        (b'"Edited 500"', b'"Edited 50\\u0030"', False),  # an edit spelled another way
        (b'"Edited 500"', b'"Edited {n} 500"', True),  # an edit turned into a code
        (b'"Edited 500"', b'"Edited", "extra": "500"', True),  # a member smuggled in
        (b'"Edited 500"', b'"Edited \\q"', True),  # a bad escape
        (b'"Edited 500"', b'"Edited \x01"', True),  # a raw control character
        (b'"Edited 990"', b'"Edited 990"  ', False),  # space after an edited value
        (b'"key3": ', b'"key3":', False),  # layout between values
        (b"\n}\n", b"\n}", False),  # the end of the file
        (b"{\n", b"\xef\xbb\xbf{\n", False),  # a byte-order mark
        (b'"Edited 10"', b'"Edited 10 \xc3\xa9"', True),  # a character that was not sent
        (b'"Edited 10"', b'"Edited 1\xe9"', True),  # not UTF-8
    ],
)
def test_the_spliced_read_back_refuses_what_reading_it_whole_refuses(old, new, refused):
    codec, edited, data = _edited()
    damaged = data.replace(old, new, 1)
    assert damaged != data
    whole = _outcome(_WholeRead(codec), edited, damaged)
    assert (whole != "passed") == refused
    assert _outcome(codec, edited, damaged) == whole


def test_damage_outside_the_changed_values_leaves_the_read_back_to_a_whole_read():
    codec, edited, data = _edited()
    for damaged in (
        data.replace(b'"Value number 555"', b'"Value number 556"'),
        data.replace(b'"key3": ', b'"key3":'),
        data[:-1],
        data + b" ",
    ):
        assert codec.read_back(edited, damaged) is None
    assert codec.read_back(edited, data) is not None


def test_escapes_in_an_edited_value_read_back_as_the_reader_reads_them():
    codec = registry.load_codec("json")
    source = '{\n  "a": "caf\\u00e9",\n  "b": "plain",\n  "c": "x"\n}\n'
    document = codec.read(source.encode(), path="en.json", locale="en")
    blocks = list(document.blocks)
    blocks[1] = blocks[1].with_source((Text('say "hi" \\ to /é\u2028'),))
    edited = document.with_blocks(tuple(blocks))
    data = codec.write(edited)
    pairs = codec.read_back(edited, data)
    assert pairs is not None and [p[0].id for p in pairs] == ["b"]
    assert pairs[0][1].source == (Text('say "hi" \\ to /é\u2028'),)
    verify_written(codec, edited, data, path="en.json", locale="en")


def test_a_value_that_makes_the_file_icu_is_read_back_whole():
    codec = registry.load_codec("json")
    source = '{\n  "a": "{n} files",\n  "b": "plain"\n}\n'
    document = codec.read(source.encode(), path="en.json", locale="en")
    icu_text = '{\n  "a": "{n} files",\n  "b": "{n, plural, one {# file} other {# files}}"\n}\n'
    plural = codec.read(icu_text.encode(), path="en.json", locale="en").blocks[1]
    edited = document.with_blocks((document.blocks[0], plural))
    data = codec.write(edited)
    assert codec.read_back(edited, data) is None  # whether the file is ICU changed
    verify_written(codec, edited, data, path="en.json", locale="en")


def test_an_i18next_plural_form_edited_in_place_is_read_back_from_its_value():
    codec = registry.load_codec("json")
    source = '{\n  "files_one": "{{count}} file",\n  "files_other": "{{count}} files"\n}\n'
    document = codec.read(source.encode(), path="en.json", locale="en")
    (block,) = document.blocks
    plural = block.source[0]
    forms = dict(plural.forms)
    forms["other"] = (*forms["other"][:1], Text(" documents"))
    edited = document.with_blocks((block.with_source((evolve(plural, forms=forms),)),))
    data = codec.write(edited)
    assert b'"{{count}} documents"' in data
    pairs = codec.read_back(edited, data)
    assert pairs is not None and pairs[0][1].source == edited.blocks[0].source
    wrong = data.replace(b"{{count}} documents", b"{{count}} document")
    with pytest.raises(WriteRefused, match="block 'files'"):
        verify_written(codec, edited, wrong, path="en.json", locale="en")
    forms["few"] = (Text("a few files"),)  # a new form is a new sibling: read whole
    grown = document.with_blocks((block.with_source((evolve(plural, forms=forms),)),))
    assert codec.read_back(grown, codec.write(grown)) is None


def test_a_write_that_corrupts_the_file_is_refused_and_the_file_left_as_it_was(
    tmp_path, monkeypatch
):
    from kapi.core.change.decode import decode_change_set
    from kapi.core.change.ports import Actor
    from kapi.core.change.service import ChangeService
    from kapi.core.change.wire import encode_result
    from kapi.formats.home import FileHome
    from kapi.formats.json_catalog import JsonFormat

    path = tmp_path / "en.json"
    path.write_text(CATALOGUE)
    real_write = JsonFormat.write

    def corrupting(self, document):
        return real_write(self, document).replace(b'"Value number 555"', b'"Value number 5"')

    monkeypatch.setattr(JsonFormat, "write", corrupting)
    ops = [
        {"op": "set_content", "at": {"doc": "en.json", "block": f"key{i}"}, "if_match": "*"}
        | {"text": f"Edited {i}"}
        for i in range(0, 1000, 100)
    ]
    change_set = decode_change_set(json.dumps({"ops": ops}))
    result = encode_result(ChangeService(FileHome(tmp_path)).apply(change_set, Actor("person")))
    assert result["status"] != "applied"
    errors = [op["error"]["message"] for op in result["ops"] if op.get("error")]
    assert any("block 'key555' as 'Value number 5'" in message for message in errors), result
    assert path.read_text() == CATALOGUE
    assert sorted(p.name for p in tmp_path.iterdir()) == ["en.json"]
