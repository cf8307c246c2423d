"""Text views: codes as boundaries, code spans, placeholders and URLs masked, run anchors."""

from __future__ import annotations

from kapi.core.check.text import MASK, Anchor, Position, TextView, block_views
from kapi.core.model import PcClose, PcOpen, Ph, Plural, Text


def test_codes_are_one_mask_character_and_code_spans_are_masked_in_prose() -> None:
    runs = (
        Text("Run "),
        PcOpen(id="1", type="fmt:code", data="`"),
        Text("npm install"),
        PcClose(id="1", type="fmt:code", data="`"),
        Text(" then "),
        Ph(id="2", type="code:placeholder", data="{name}", equiv="{name}"),
        Text(" and `x` stays"),
        Text("literal", no_translate=True),
    )
    view = TextView(runs)
    assert view.raw == f"Run {MASK}npm install{MASK} then {MASK} and `x` stays" + "literal"
    assert "npm install" not in view.prose
    assert "literal" not in view.prose
    assert view.prose.startswith("Run ")
    assert "npm install" in view.code and "literal" in view.code
    assert "then" not in view.code


def test_placeholders_and_urls_are_masked_in_prose() -> None:
    text = "Hi {name}, {{count}} ${x} %s %1$s %(n)d %@ <0>go</0> at https://ex.com/simply. Or www.a.org or me@x.io"
    prose = TextView((Text(text),)).prose
    for hidden in (
        "{name}",
        "{{count}}",
        "${x}",
        "%s",
        "%1$s",
        "%(n)d",
        "%@",
        "<0>",
        "</0>",
        "https://ex.com/simply",
        "www.a.org",
        "me@x.io",
    ):
        assert hidden not in prose, hidden
    assert "go" in prose
    assert "100% sure" in TextView((Text("100% sure"),)).prose


def test_anchors_are_run_positions_and_a_run_end_is_the_next_run() -> None:
    runs = (Text("abc"), Ph(id="1"), Text("defg"))
    view = TextView(runs)
    start = view.raw.index("de")
    assert view.anchor(start, start + 2) == Anchor(Position(2, 0), Position(2, 2))
    assert view.anchor(0, 3) == Anchor(Position(0, 0), Position(1, 0))
    assert view.anchor(start, len(view.raw)) == Anchor(Position(2, 0), Position(2, 4))


def test_adjacent_text_runs_join_and_anchor_across() -> None:
    view = TextView((Text("ab"), Text("cd")))
    assert view.raw == "abcd"
    assert view.anchor(1, 3) == Anchor(Position(0, 1), Position(1, 1))


def test_plural_branches_are_views_of_their_own_with_a_path() -> None:
    runs = (
        Text("You have "),
        Plural(pivot="n", forms={"one": (Text("one file"),), "other": (Text("many files"),)}),
    )
    views = list(block_views(runs))
    assert [v.path for v in views] == [(), (1, ("plural", "one")), (1, ("plural", "other"))]
    assert views[0].raw == f"You have {MASK}"
    assert views[2].anchor(5, 10).path == (1, ("plural", "other"))


def test_snippet_leaves_codes_out_and_collapses_whitespace() -> None:
    view = TextView((Text("a\n  b"), Ph(id="1"), Text("c")))
    assert view.snippet(0, 1) == "a bc"
