import pytest
from hypothesis import given
from kapi_strategies import flat_runs

from kapi.core.edittext import EditTextError, parse_edit_text, render_edit_text
from kapi.core.model import PcClose, PcOpen, Ph, Plural, Select, Sub, Text

RUNS = (
    Text("Click "),
    PcOpen(id="1", type="link:hyperlink", data='<a href="/x">'),
    Text("here"),
    PcClose(id="1", type="link:hyperlink", data="</a>"),
    Text(" for "),
    Ph(id="2", type="code:placeholder", data="{name}", equiv="{name}"),
    Sub(id="3", ref="b4"),
)


def test_render_tokens():
    assert (
        render_edit_text(RUNS)
        == 'Click <x id="1"/>here<x id="/1"/> for <x id="2/"/><x id="sub:3"/>'
    )


def test_parse_takes_codes_from_the_reference():
    runs = parse_edit_text(
        'Klicken Sie <x id="1"/>hier<x id="/1"/>, <x id="2/"/><x id="sub:3"/>', RUNS
    )
    assert runs[1] is RUNS[1] and runs[3] is RUNS[3] and runs[5] is RUNS[5]
    assert runs[0] == Text("Klicken Sie ")


def test_parse_accepts_loose_token_spacing():
    assert parse_edit_text('a<x  id="2/" />b', RUNS)[1] is RUNS[5]


def test_unknown_token_is_codes_changed():
    with pytest.raises(EditTextError) as err:
        parse_edit_text('oops <x id="7/"/>', RUNS)
    assert err.value.subcode == "codes_changed"
    assert err.value.found == '<x id="7/"/>'


def test_plural_shows_other_branch_and_refuses_flat_text():
    runs = (
        Text("You have "),
        Plural(pivot="n", forms={"one": (Text("a file"),), "other": (Text("files"),)}),
    )
    assert render_edit_text(runs) == "You have files"
    with pytest.raises(EditTextError) as err:
        parse_edit_text("You have many files", runs)
    assert err.value.subcode == "structure_lost"
    select = (Select(pivot="g", cases={"male": (Text("he"),)}),)
    assert render_edit_text(select) == "he"


def test_character_references_show_as_characters_and_come_back_where_kept():
    amp = Ph(id="1", type="entity:char", data="&amp;", equiv="&")
    quote = Ph(id="2", type="entity:char", data="&#8217;", equiv="’")
    runs = (Text("Tom "), amp, Text(" Jerry"), quote, Text("s"))
    assert render_edit_text(runs) == "Tom & Jerry’s"
    assert parse_edit_text("Tom & Jerry’s", runs) == runs
    edited = parse_edit_text("Tom & Jerry’s & Spike", runs)
    assert edited == (Text("Tom "), amp, Text(" Jerry"), quote, Text("s & Spike"))


def test_no_translate_text_kept_in_place_keeps_its_flag():
    runs = (Text("Run "), Text("kapi check", no_translate=True), Text(" first"))
    assert parse_edit_text("Please run kapi check first", runs) == (
        Text("Please run "),
        Text("kapi check", no_translate=True),
        Text(" first"),
    )


@given(flat_runs())
def test_parse_of_render_is_identity(runs):
    assert parse_edit_text(render_edit_text(runs), runs) == runs
