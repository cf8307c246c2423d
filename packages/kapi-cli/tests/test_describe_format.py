"""describe_format from the registry alone: what a change set may send to each format."""

import pytest

from kapi.core.change.errors import ChangeError
from kapi.host.formats import describe_format, list_formats


def test_catalogue_formats_are_structural_and_one_per_file():
    json_format = describe_format("json")
    assert json_format["editions"] == "one-per-file"
    assert json_format["ops"]["insert_block"] == {} and json_format["ops"]["delete_block"] == {}
    assert json_format["ops"]["remove_edition"] is None
    assert json_format["ops"]["set_content"]["forms"] == ["text", "runs"]


def test_interchange_formats_hold_editions_in_file():
    po = describe_format("po")
    assert po["editions"] == "in-file" and po["ops"]["remove_edition"] == {}
    assert po["ops"]["insert_block"] is None


def test_html_declares_writable_attributes():
    assert describe_format("html")["ops"]["set_attribute"]["link:hyperlink"] == ["href", "title"]


def test_unknown_format_is_not_found_on_the_format_field():
    with pytest.raises(ChangeError) as err:
        describe_format("klingon")
    assert err.value.info.code == "not_found" and err.value.info.field == "format"


def test_every_listed_format_can_be_described():
    for entry in list_formats():
        assert describe_format(entry.name)["format"] == entry.name
