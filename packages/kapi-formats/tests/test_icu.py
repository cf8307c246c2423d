"""ICU MessageFormat and the i18next placeholder dialect: text to runs and back."""

from __future__ import annotations

import pytest
from attrs import evolve
from hypothesis import given, settings
from hypothesis import strategies as st

from kapi.core.model import PcOpen, Ph, Plural, Run, Runs, Select, Sub, Text
from kapi.formats import icu


def arg(code_id: str, data: str) -> Ph:
    return Ph(code_id, "code:placeholder", "icu:argument", data, data)


def pound(code_id: str = "1") -> Ph:
    return Ph(code_id, "code:placeholder", "icu:pound", "#", "#")


def runs_of(text: str) -> Runs:
    return icu.parse(text).runs


# --- parsing ------------------------------------------------------------------------------


def test_simple_arguments_keep_their_exact_text() -> None:
    assert runs_of(
        "Hi {name}, you owe {amount, number, ::currency/EUR} by { day , date,short}"
    ) == (
        Text("Hi "),
        arg("1", "{name}"),
        Text(", you owe "),
        arg("2", "{amount, number, ::currency/EUR}"),
        Text(" by "),
        arg("3", "{ day , date,short}"),
    )


def test_argument_style_may_hold_braces_and_quotes() -> None:
    text = "{n, choice, 0#none|1#{n} item|1<'{n}' items}"
    assert runs_of(text) == (arg("1", text),)


def test_plural_with_exact_forms_and_pound() -> None:
    assert runs_of("{count, plural, =0 {none} one {# file} other {# files}}") == (
        Plural(
            pivot="count",
            forms={
                "=0": (Text("none"),),
                "one": (pound(), Text(" file")),
                "other": (pound(), Text(" files")),
            },
        ),
    )


def test_each_branch_numbers_its_own_codes() -> None:
    (plural,) = runs_of("{n, plural, one {{a} and {b}} other {# {a}}}")
    assert isinstance(plural, Plural)
    assert plural.forms["one"] == (arg("1", "{a}"), Text(" and "), arg("2", "{b}"))
    assert plural.forms["other"] == (pound("1"), Text(" "), arg("2", "{a}"))


def test_select_selectordinal_and_nesting() -> None:
    (select,) = runs_of(
        "{g, select, female {{n, plural, one {her #} other {her # things}}} other {theirs}}"
    )
    assert isinstance(select, Select)
    assert select.pivot == "g"
    nested = select.cases["female"][0]
    assert isinstance(nested, Plural) and nested.forms["one"] == (Text("her "), pound())
    (ordinal, rest) = runs_of("{n, selectordinal, one {#st} other {#th}}!")
    assert isinstance(ordinal, Plural) and ordinal.forms["one"] == (pound(), Text("st"))
    assert rest == Text("!")


def test_pound_is_text_outside_a_plural_and_in_a_select_inside_one() -> None:
    assert runs_of("# {g, select, other {#}}") == (
        Text("# "),
        Select("g", {"other": (Text("#"),)}),
    )
    (plural,) = runs_of("{n, plural, other {{g, select, other {#}}}}")
    assert isinstance(plural, Plural)
    assert plural.forms["other"] == (Select("g", {"other": (Text("#"),)}),)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("don't", "don't"),
        ("It''s", "It's"),
        ("'{name}'", "{name}"),
        ("'{' and '}'", "{ and }"),
        ("'{it''s}'", "{it's}"),
        ("a '# b", "a '# b"),
        ("'{unclosed at the end", "{unclosed at the end"),
        ("a } b", "a } b"),
        ("''''", "''"),
    ],
)
def test_apostrophes_quote_like_icu(text: str, expected: str) -> None:
    assert runs_of(text) == (Text(expected),)


def test_apostrophe_before_a_letter_does_not_protect_a_brace() -> None:
    with pytest.raises(icu.IcuSyntaxError):
        icu.parse("'unclosed {")


def test_pound_is_quoted_in_a_plural_branch() -> None:
    (plural,) = runs_of("{n, plural, other {'#' is #}}")
    assert isinstance(plural, Plural)
    assert plural.forms["other"] == (Text("# is "), pound())


@pytest.mark.parametrize(
    ("text", "offset", "words"),
    [
        ("{", 1, "argument name"),
        ("{name", 5, "expected ',' or '}'"),
        ("{n, plural, one {x}", 0, "not closed"),
        ("{n, plural, one x}", 16, "expected '{'"),
        ("{n, plural,}", 0, "no branches"),
        ("{n, plural, one {a} one {b}}", 27, "appears twice"),
        ("{n, number, {x}", 15, "not closed"),
        ("{n, select, other {'{}}", 19, "quoted text is not closed"),
        ("{n 1}", 3, "expected ',' or '}'"),
    ],
)
def test_syntax_errors_say_where(text: str, offset: int, words: str) -> None:
    with pytest.raises(icu.IcuSyntaxError) as raised:
        icu.parse(text)
    assert raised.value.offset == offset
    assert words in raised.value.message


def test_nesting_depth_is_bounded() -> None:
    deep = "{n, plural, other {" * 60 + "x" + "}}" * 60
    with pytest.raises(icu.IcuSyntaxError):
        icu.parse(deep)
    assert icu.parse(deep, max_depth=100).runs


def test_has_complex_argument() -> None:
    assert icu.has_complex_argument("a {n, plural, one {x} other {y}}")
    assert icu.has_complex_argument("{ g ,select, other {y}}")
    assert not icu.has_complex_argument("a {n, number} {name}")


# --- rendering ----------------------------------------------------------------------------

ROUND_TRIPS = [
    "Hello {name}!",
    "{count, plural, =0 {none} one {# item} other {# items}}",
    "{count,plural,offset:1 one{a}other{b {x, select, a {A} other {#}}}}",
    "{g, select, male {He} female {She} other {They}} said {n, number, ::currency/EUR}",
    "{n, selectordinal,\n  one {#st}\n  other {#th}\n}",
    "'#' {n, plural, other {'#' is #}}",
    "{n, plural, one {it'''#'} other {x}}",
]


@pytest.mark.parametrize("text", ROUND_TRIPS)
def test_render_with_layouts_gives_back_the_text(text: str) -> None:
    message = icu.parse(text)
    assert icu.render(message.runs, layouts=message.layouts) == text


def test_edited_branch_changes_only_that_branch() -> None:
    text = "{count,plural,offset:1\n  =0 {nobody}\n  one {just you}\n  other {you and # others}\n}"
    message = icu.parse(text)
    (plural,) = message.runs
    assert isinstance(plural, Plural)
    forms = {**plural.forms, "one": (Text("only you {really}"),)}
    out = icu.render((evolve(plural, forms=forms),), layouts=message.layouts)
    assert out == text.replace("{just you}", "{only you '{really}'}")
    assert icu.parse(out).runs == (evolve(plural, forms=forms),)


def test_added_branch_takes_the_spacing_of_the_others() -> None:
    message = icu.parse("{n, plural,\n  one {a}\n  other {b}\n}")
    (plural,) = message.runs
    assert isinstance(plural, Plural)
    forms = {"one": plural.forms["one"], "few": (Text("c"),), "other": plural.forms["other"]}
    out = icu.render((Plural("n", forms),), layouts=message.layouts)
    assert out == "{n, plural,\n  one {a}\n  few {c}\n  other {b}\n}"


def test_new_structures_render_in_canonical_spelling() -> None:
    runs = (
        Text("You have "),
        Plural("n", {"one": (pound(), Text(" cat")), "other": (pound(), Text(" cats"))}),
        Text(" and "),
        Select("g", {"x": (Text("X"),), "other": (Text("Y"),)}),
    )
    assert icu.render(runs) == (
        "You have {n, plural, one {# cat} other {# cats}} and {g, select, x {X} other {Y}}"
    )


def test_a_layout_for_another_pivot_is_not_reused() -> None:
    message = icu.parse("{a, selectordinal, one {x} other {y}}")
    runs = (Plural("b", {"other": (Text("z"),)}),)
    assert icu.render(runs, layouts=message.layouts) == "{b, plural, other {z}}"


@pytest.mark.parametrize(
    ("runs", "text"),
    [
        ((Text("{x}"),), "'{x}'"),
        ((Text("a {b} c } d"),), "a '{b} c }' d"),
        ((Text("it's"),), "it's"),
        ((Text("it''s"),), "it''''s"),
        ((Text("it'"), arg("1", "{x}")), "it''{x}"),
        ((Text("'{'"),), "'''{'''"),
        ((Text("{a}'x"),), "'{a}'''x"),
    ],
)
def test_literal_text_is_quoted_as_little_as_icu_needs(runs: Runs, text: str) -> None:
    assert icu.render(runs) == text
    assert icu.parse(text).runs == runs


def test_apostrophe_before_a_branch_end_or_pound_is_doubled() -> None:
    runs = (Plural("n", {"other": (Text("x'"),), "one": (Text("y'"), pound())}),)
    text = icu.render(runs)
    assert text == "{n, plural, other {x''} one {y''#}}"
    assert icu.parse(text).runs == runs


def test_new_code_without_data_uses_its_equiv_and_others_are_refused() -> None:
    assert icu.render((Ph("1", "code:placeholder", equiv="{who}"),)) == "{who}"
    with pytest.raises(icu.IcuRenderError) as raised:
        icu.render((PcOpen("1", "fmt:bold"),))
    assert raised.value.capability == "synthesize:fmt:bold"
    with pytest.raises(icu.IcuRenderError):
        icu.render((Sub("1", ref="x"),))
    with pytest.raises(icu.IcuRenderError):
        icu.render((Plural("not a name", {"other": ()}),))
    with pytest.raises(icu.IcuRenderError):
        icu.render((Plural("n", {}),))


# --- the placeholder dialect --------------------------------------------------------------


def test_i18next_placeholders() -> None:
    text = 'Hi {{name}}, {{- html}} $t(common.ok) $t(items, {"count": {{n}} }) {{n, number}}'
    runs = icu.parse_placeholders(text)
    codes = [(r.sub_type, r.data) for r in runs if isinstance(r, Ph)]
    assert codes == [
        ("i18next:interpolation", "{{name}}"),
        ("i18next:interpolation", "{{- html}}"),
        ("i18next:nesting", "$t(common.ok)"),
        ("i18next:nesting", '$t(items, {"count": {{n}} })'),
        ("i18next:interpolation", "{{n, number}}"),
    ]
    assert [r.id for r in runs if isinstance(r, Ph)] == ["1", "2", "3", "4", "5"]
    assert icu.render_placeholders(runs) == text


def test_plain_dialect_keeps_everything_else_literal() -> None:
    text = "It''s '{x}' $t(unclosed { not one } {{"
    runs = icu.parse_placeholders(text)
    assert runs == (
        Text("It''s '"),
        Ph("1", "code:placeholder", "icu:argument", "{x}", "{x}"),
        Text("' $t(unclosed { not one } {{"),
    )
    assert icu.render_placeholders(runs) == text


def test_plain_dialect_cannot_hold_a_plural() -> None:
    with pytest.raises(icu.IcuRenderError) as raised:
        icu.render_placeholders((Plural("n", {"other": ()}),))
    assert raised.value.capability == "plural"


# --- properties ---------------------------------------------------------------------------

_awkward = st.text(alphabet="ab '{}#|=,x\n", max_size=12)
_names = st.sampled_from(["n", "count", "user_name", "0"])


def _merge(runs: list[Run]) -> Runs:
    out: list[Run] = []
    for run in runs:
        if isinstance(run, Text):
            if not run.text:
                continue
            if out and isinstance(out[-1], Text):
                out[-1] = Text(out[-1].text + run.text)
                continue
        out.append(run)
    return tuple(out)


def _number(runs: Runs) -> Runs:
    """Renumber codes 1, 2, ... as a parse would."""
    out: list[Run] = []
    counter = 0
    for run in runs:
        if isinstance(run, Ph):
            counter += 1
            out.append(evolve(run, id=str(counter)))
        else:
            out.append(run)
    return tuple(out)


@st.composite
def _messages(draw: st.DrawFn, depth: int = 0, plural: bool = False) -> Runs:
    parts: list[Run] = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["text", "text", "arg", "pound", "plural", "select"]))
        if kind == "text":
            parts.append(Text(draw(_awkward)))
        elif kind == "arg":
            name = draw(_names)
            parts.append(arg("0", "{" + name + "}"))
        elif kind == "pound" and plural:
            parts.append(pound("0"))
        elif kind in ("plural", "select") and depth < 2:
            keys = draw(
                st.lists(st.sampled_from(["one", "few", "=0", "=12", "male", "x"]), unique=True)
            )
            branches = {key: draw(_messages(depth + 1, kind == "plural")) for key in keys}
            branches["other"] = draw(_messages(depth + 1, kind == "plural"))
            pivot = draw(_names)
            if kind == "plural":
                parts.append(Plural(pivot, branches))
            else:
                parts.append(Select(pivot, branches))
    return _number(_merge(parts))


@settings(max_examples=300)
@given(_messages())
def test_any_runs_render_to_icu_that_parses_back(runs: Runs) -> None:
    text = icu.render(runs)
    message = icu.parse(text)
    assert message.runs == runs
    assert icu.render(message.runs, layouts=message.layouts) == text


@settings(max_examples=300)
@given(st.text(max_size=40))
def test_any_text_is_one_text_run_in_icu(text: str) -> None:
    runs: Runs = (Text(text),) if text else ()
    assert icu.parse(icu.render(runs)).runs == runs
