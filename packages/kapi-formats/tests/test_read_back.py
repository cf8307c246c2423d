"""The read-back after a write still catches a writer that damages what nobody edited.

Blocks read back with the very runs meant are passed at once; anything else
is compared edition by edition, so a corrupted neighbour, a dropped edit or a
broken file is refused exactly as before.
"""

from __future__ import annotations

import json

import pytest

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
