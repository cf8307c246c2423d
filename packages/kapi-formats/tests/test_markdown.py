"""The Markdown codec: blocks and codes as read, byte-identical writes, edits that touch only the value."""

from __future__ import annotations

from pathlib import Path

import pytest
from attrs import evolve
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kapi.core.format import FormatError, Limits, WriteRefused
from kapi.core.model import Document, Edition, PcClose, PcOpen, Ph, Runs, Text, plain_text
from kapi.formats.markdown import MarkdownFormat, parse_inline
from kapi.formats.registry import load_codec

FIXTURES = Path(__file__).parent / "fixtures" / "markdown"
CODEC = MarkdownFormat()


def read(name: str) -> tuple[bytes, Document]:
    data = (FIXTURES / name).read_bytes()
    return data, CODEC.read(data, path=name)


def block(document: Document, block_id: str):  # type: ignore[no-untyped-def]
    return next(b for b in document.blocks if b.id == block_id)


def with_source(document: Document, block_id: str, runs: Runs) -> Document:
    return document.with_blocks(
        tuple(b.with_source(runs) if b.id == block_id else b for b in document.blocks)
    )


def set_text(document: Document, block_id: str, text: str) -> bytes:
    return CODEC.write(with_source(document, block_id, (Text(text),)))


# --- reading


def test_the_registry_loads_this_codec() -> None:
    assert isinstance(load_codec("markdown"), MarkdownFormat)


def test_blocks_have_position_ids_section_names_roles_and_levels() -> None:
    _, document = read("guide.md")
    got = [(b.id, b.name, b.role, b.level, b.translatable) for b in document.blocks]
    assert got == [
        ("fm1", "front-matter", "front-matter", 0, False),
        ("h1", "s1", "heading", 1, True),
        ("p1", "s1/p1", "paragraph", 0, True),
        ("h2", "s1.1", "heading", 2, True),
        ("q1", "s1.1/q1", "quote", 0, True),
        ("li1", "s1.1/li1", "list-item", 1, True),
        ("li2", "s1.1/li2", "list-item", 1, True),
        ("li3", "s1.1/li3", "list-item", 2, True),
        ("li4", "s1.1/li4", "list-item", 2, True),
        ("td1", "s1.1/t1.r1c1", "table-cell", 0, True),
        ("td2", "s1.1/t1.r1c2", "table-cell", 0, True),
        ("td3", "s1.1/t1.r2c1", "table-cell", 0, True),
        ("td4", "s1.1/t1.r2c2", "table-cell", 0, True),
        ("td5", "s1.1/t1.r3c1", "table-cell", 0, True),
        ("td6", "s1.1/t1.r3c2", "table-cell", 0, True),
        ("code1", "s1.1/code1", "code", 0, False),
        ("code2", "s1.1/code2", "code", 0, False),
        ("html1", "s1.1/html1", "html", 0, False),
        ("p2", "s1.1/p1", "paragraph", 0, True),
    ]
    assert document.locale == "en"
    assert {b.locale for b in document.blocks} == {"en"}


def test_non_translatable_blocks_hold_their_text() -> None:
    _, document = read("guide.md")
    assert block(document, "fm1").source == (Text("title: Kapi guide\ntags: [docs]"),)
    assert block(document, "fm1").properties == {"syntax": "yaml"}
    assert block(document, "code1").source == (Text('print("not translated")\n'),)
    assert block(document, "code1").properties == {"info": "python"}
    assert block(document, "code2").source == (Text("indented code\n"),)
    assert block(document, "html1").source == (Text('<div class="note">\nHTML block\n</div>\n'),)
    assert block(document, "li2").properties == {"checked": "true"}
    assert block(document, "h1").source == (Text("Getting started"),)
    assert block(document, "h2").source == (Text("Setext heading"),)


def test_inline_codes_carry_the_exact_source_slice() -> None:
    _, document = read("guide.md")
    assert block(document, "p1").source == (
        Text("Kapi reads "),
        PcOpen("1", "fmt:italic", "md:emphasis", "*"),
        Text("Markdown"),
        PcClose("1", "fmt:italic", "md:emphasis", "*"),
        Text(" and "),
        PcOpen("2", "fmt:bold", "md:strong", "**"),
        Text("keeps"),
        PcClose("2", "fmt:bold", "md:strong", "**"),
        Text(" every byte. Run "),
        Ph("3", "fmt:code", "md:code", "`kapi check`", equiv="kapi check"),
        Text("\nto see "),
        PcOpen(
            "4",
            "link:hyperlink",
            "md:link",
            "[",
            attrs={"href": "https://example.com/report", "title": "Report"},
        ),
        Text("the report"),
        PcClose("4", "link:hyperlink", "md:link", '](https://example.com/report "Report")'),
        Text(" or\n"),
        Ph(
            "5",
            "media:image",
            "md:image",
            '![a logo](logo.png "Logo")',
            attrs={"src": "logo.png", "alt": "a logo", "title": "Logo"},
        ),
        Text(" "),
        Ph("6", "entity:char", "md:entity", "&copy;", equiv="©"),
        Text(" 2026"),
        Ph("7", "entity:char", "md:escape", "\\*", equiv="*"),
        Text(" "),
        Ph("8", "code:tag", "html:kbd", "<kbd>"),
        Text("Ctrl"),
        Ph("9", "code:tag", "html:kbd", "</kbd>"),
        Text("."),
        Ph("10", "fmt:linebreak", "md:hardbreak", "  \n", equiv="\n"),
        Text("Line after a hard break."),
    )
    assert plain_text(block(document, "p1").source).startswith("Kapi reads Markdown and keeps")


def test_table_cells_and_reference_links() -> None:
    _, document = read("guide.md")
    assert block(document, "td2").source == (
        Text("Value "),
        Ph("1", "entity:char", "md:escape", "\\|", equiv="|"),
        Text(" pipe"),
    )
    assert block(document, "td3").source == (
        Ph("1", "fmt:code", "md:code", "`a\\|b`", equiv="a|b"),
    )
    assert block(document, "td4").source == (
        PcOpen("1", "fmt:strikethrough", "md:strikethrough", "~~"),
        Text("old"),
        PcClose("1", "fmt:strikethrough", "md:strikethrough", "~~"),
        Text(" new"),
    )
    assert block(document, "td6").source == (
        Ph(
            "1",
            "link:hyperlink",
            "md:autolink",
            "<https://kapi.dev>",
            equiv="https://kapi.dev",
            attrs={"href": "https://kapi.dev"},
        ),
    )
    docs = {"href": "https://example.com/docs", "title": "Docs"}
    assert block(document, "p2").source == (
        Text("See "),
        PcOpen("1", "link:hyperlink", "md:link-full", "[", attrs=docs),
        Text("the docs"),
        PcClose("1", "link:hyperlink", "md:link-full", "][docs]"),
        Text(" and "),
        PcOpen("2", "link:hyperlink", "md:link-shortcut", "[", attrs=docs),
        Text("docs", no_translate=True),
        PcClose("2", "link:hyperlink", "md:link-shortcut", "]"),
        Text("."),
    )


def test_escapes_entities_comments_and_breaks() -> None:
    _, document = read("tabs.md")
    first = block(document, "p1").source
    assert first[0] == Text("Intro\twith a tab and an escaped ")
    assert first[1] == Ph("1", "entity:char", "md:escape", "\\_", equiv="_")
    assert Ph("4", "entity:char", "md:entity", "&lt;", equiv="<") in first
    assert plain_text(first) == "Intro\twith a tab and an escaped _underscore_ and é and <b>."
    assert block(document, "li1").source == (Text("item one\ncontinued with a tab"),)
    assert block(document, "q1").source == (Text("quoted in a list\nsecond line"),)
    assert block(document, "q2").source == (Text("nested quote\nagain"),)
    last = block(document, "p2").source
    assert last[1].data == "<me@example.com>"
    assert last[1].attrs == {"href": "mailto:me@example.com"}
    assert last[3] == Ph("2", "code:tag", "html:comment", "<!-- a comment -->")
    assert last[4] == Text(" go on_with_snake_case.\nTrailing backslash")
    assert last[5] == Ph("3", "fmt:linebreak", "md:hardbreak", "\\\n", equiv="\n")


def test_crlf_bom_and_toml_front_matter() -> None:
    _, document = read("windows.md")
    assert [(b.id, b.name, b.role) for b in document.blocks] == [
        ("fm1", "front-matter", "front-matter"),
        ("h1", "s0.1", "heading"),
        ("p1", "s0.1/p1", "paragraph"),
        ("q1", "s0.1/q1", "quote"),
    ]
    assert block(document, "fm1").properties == {"syntax": "toml"}
    assert block(document, "p1").source == (Text("A paragraph\nwith two lines."),)


def test_locale_comes_from_the_caller_in_canonical_form() -> None:
    document = CODEC.read(b"# Hei\n", locale="nb_NO")
    assert document.locale == "nb-NO"
    assert document.blocks[0].locale == "nb-NO"


def test_the_inline_scanner_follows_commonmark_precedence() -> None:
    kinds = [(kind, info.get("emphasis")) for _, _, kind, info in parse_inline("***foo***")]
    assert kinds == [
        ("open", "em"),
        ("open", "strong"),
        ("text", None),
        ("close", None),
        ("close", None),
    ]
    # a code span binds tighter than emphasis: the star inside it is not a delimiter
    assert [kind for _, _, kind, _ in parse_inline("*foo`*`")] == ["text", "text", "code"]
    # rule of three: no emphasis across *foo**bar*'s inner run
    assert [kind for _, _, kind, _ in parse_inline("*foo**bar*")] == [
        "open",
        "text",
        "text",
        "text",
        "close",
    ]
    assert [kind for _, _, kind, _ in parse_inline("_snake_case_ x")][:1] == ["open"]
    assert [kind for _, _, kind, _ in parse_inline("snake_case_word")] == [
        "text",
        "text",
        "text",
        "text",
        "text",
    ]
    assert [kind for _, _, kind, _ in parse_inline("[a](</my url>) [b]")][0:3] == [
        "open",
        "text",
        "close",
    ]


# --- writing


@pytest.mark.parametrize("name", ["guide.md", "tabs.md", "windows.md"])
def test_unchanged_documents_write_back_identical(name: str) -> None:
    data, document = read(name)
    assert CODEC.write(document) == data


def test_an_edit_changes_only_that_value() -> None:
    data, document = read("guide.md")
    out = set_text(document, "li1", "Premier élément")
    assert out == data.replace(b"- First item", "- Premier élément".encode())


def test_an_edit_keeps_codes_and_their_bytes() -> None:
    data, document = read("guide.md")
    runs = block(document, "li3").source
    edited = (Text("Imbriqué "), *runs[1:2], Text("un"), *runs[3:])
    out = CODEC.write(with_source(document, "li3", edited))
    assert out == data.replace(b"1. Nested *one*", "1. Imbriqué *un*".encode())


def test_line_breaks_keep_the_markers_of_each_line() -> None:
    data, document = read("guide.md")
    out = set_text(document, "q1", "Une citation\nsur des lignes\nqui continue.")
    assert out == data.replace(
        b"> A quote that\n> spans lines\ncontinues lazily.",
        b"> Une citation\n> sur des lignes\nqui continue.",
    )


def test_a_new_line_break_uses_the_files_newline_and_prefix() -> None:
    data, document = read("windows.md")
    out = set_text(document, "q1", "citation\nplus\nencore")
    assert out == data.replace(b"> quote\r\n> more", b"> citation\r\n> plus\r\n> encore")
    assert out.startswith(b"\xef\xbb\xbf+++\r\n") and not out.endswith(b"\n")


def test_text_that_would_become_markup_is_escaped() -> None:
    data, document = read("guide.md")
    value = "Use *stars*, [brackets] and <b>tags</b> & &amp; `ticks`"
    out = set_text(document, "li1", value)
    assert out == data.replace(
        b"- First item",
        b"- Use \\*stars\\*, \\[brackets\\] and \\<b>tags\\</b> & \\&amp; \\`ticks\\`",
    )
    again = CODEC.read(out)
    assert plain_text(block(again, "li1").source) == value


def test_characters_that_stay_text_are_written_as_they_are() -> None:
    data, document = read("guide.md")
    value = "2 * 3 = 6, snake_case, a < b & c"
    out = set_text(document, "li1", value)
    assert out == data.replace(b"- First item", b"- " + value.encode())
    assert block(CODEC.read(out), "li1").source == (Text(value),)


def test_line_start_markers_in_new_text_are_escaped() -> None:
    data, document = read("guide.md")
    out = set_text(document, "q1", "# not a heading\n- not a list\n10. not ordered")
    assert out == data.replace(
        b"> A quote that\n> spans lines\ncontinues lazily.",
        b"> \\# not a heading\n> \\- not a list\n10\\. not ordered",
    )
    assert [b.role for b in CODEC.read(out).blocks] == [b.role for b in document.blocks]


def test_a_pipe_in_a_table_cell_is_escaped_and_a_heading_stays_one_line() -> None:
    data, document = read("guide.md")
    out = set_text(document, "td1", "Nom | nom")
    assert out == data.replace(b"| Name |", b"| Nom \\| nom |")
    out = set_text(document, "h1", "Premiers\npas")
    assert out == data.replace(b"# Getting started", b"# Premiers pas")


def test_editing_a_shortcut_link_keeps_it_linked() -> None:
    data, document = read("guide.md")
    runs = tuple(
        Text("la doc") if isinstance(r, Text) and r.no_translate else r
        for r in block(document, "p2").source
    )
    out = CODEC.write(with_source(document, "p2", runs))
    assert out == data.replace(b"and [docs].", b"and [la doc][docs].")
    link = block(CODEC.read(out), "p2").source[5]
    assert isinstance(link, PcOpen) and link.attrs["href"] == "https://example.com/docs"


def test_new_codes_are_written_as_markdown() -> None:
    data, document = read("guide.md")
    runs = (
        Text("Plain "),
        PcOpen("1", "fmt:bold"),
        Text("bold"),
        PcClose("1", "fmt:bold"),
        Text(", "),
        PcOpen("2", "link:hyperlink", attrs={"href": "https://x.test/a b", "title": "T"}),
        Text("link"),
        PcClose("2", "link:hyperlink"),
        Text(", "),
        Ph("3", "fmt:code", equiv="a`b"),
        Text(", "),
        Ph("4", "media:image", attrs={"src": "i.png", "alt": "Alt"}),
    )
    out = CODEC.write(with_source(document, "li1", runs))
    written = b'- Plain **bold**, [link](<https://x.test/a b> "T"), ``a`b``, ![Alt](i.png)'
    assert out == data.replace(b"- First item", written)
    again = block(CODEC.read(out), "li1").source
    assert [type(r).__name__ for r in again] == [type(r).__name__ for r in runs]
    assert again[5].attrs == {"href": "https://x.test/a b", "title": "T"}


def test_a_code_markdown_cannot_make_is_refused() -> None:
    _, document = read("guide.md")
    runs = (Text("x "), Ph("1", "code:tag"))
    with pytest.raises(WriteRefused) as refused:
        CODEC.write(with_source(document, "li1", runs))
    assert refused.value.capability == "synthesize:code:tag"


def test_non_translatable_blocks_and_other_editions_are_refused() -> None:
    _, document = read("guide.md")
    with pytest.raises(WriteRefused) as refused:
        CODEC.write(with_source(document, "code1", (Text("rm -rf /\n"),)))
    assert refused.value.capability == "translatable"
    translated = document.with_blocks(
        tuple(
            b.with_target("fr", Edition((Text("Bonjour"),))) if b.id == "h1" else b
            for b in document.blocks
        )
    )
    with pytest.raises(WriteRefused) as refused:
        CODEC.write(translated)
    assert refused.value.capability == "edition"
    with pytest.raises(WriteRefused):
        CODEC.write(evolve(document, skeleton=None))


# --- bad input


def test_invalid_utf8_names_line_and_column() -> None:
    with pytest.raises(FormatError) as failed:
        CODEC.read(b"# Titl\xc3\xa9\n\nab\xffc\n", path="bad.md")
    assert (failed.value.line, failed.value.column, failed.value.code) == (3, 3, "invalid")
    assert failed.value.path == "bad.md"


def test_limits_are_enforced() -> None:
    with pytest.raises(FormatError) as failed:
        MarkdownFormat(Limits(max_bytes=8)).read(b"# a long title\n")
    assert failed.value.code == "budget_exceeded"
    with pytest.raises(FormatError) as failed:
        CODEC.read(b">" * 300 + b" deep\n")
    assert failed.value.code == "budget_exceeded" and failed.value.line == 1
    with pytest.raises(FormatError) as failed:
        MarkdownFormat(Limits(max_entries=2)).read(b"a\n\nb\n\nc\n")
    assert failed.value.code == "budget_exceeded"


# --- properties

_MARKUP = "ab *_`[]()<>!#\\-+=|~&;:\n\t>1.\"'/\r"
_LINES = st.sampled_from(
    [
        "# Heading *x*\n",
        "> quote\n",
        "- item\n",
        "  - nested\n",
        "| a | b |\n",
        "|---|---|\n",
        "```\n",
        "    code\n",
        "[x]: /u\n",
        "[x] and *y* and `z`\n",
        "text **bold** ![i](j)\n",
        "\n",
        "---\n",
        "<div>\n",
        "1. one\n",
        "hard  \n",
        "back\\\n",
        "\r\n",
        "Setext\n===\n",
    ]
)
_DOCUMENTS = st.text(alphabet=_MARKUP, max_size=80) | st.lists(_LINES, max_size=14).map("".join)


def _pseudo(runs: Runs) -> Runs:
    return tuple(
        Text(r.text.upper().replace("A", "Å"), r.no_translate)
        if isinstance(r, Text) and not r.no_translate
        else r
        for r in runs
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_DOCUMENTS)
def test_any_text_round_trips_and_translated_text_reads_back(text: str) -> None:
    data = text.encode("utf-8")
    document = CODEC.read(data)
    assert CODEC.write(document) == data
    translated = document.with_blocks(
        tuple(b.with_source(_pseudo(b.source)) if b.translatable else b for b in document.blocks)
    )
    again = CODEC.read(CODEC.write(translated))
    assert [(b.id, b.role) for b in again.blocks] == [(b.id, b.role) for b in document.blocks]
    for before, after in zip(translated.blocks, again.blocks):
        assert plain_text(after.source) == plain_text(before.source)


_WORD = st.text(alphabet="abcXYZ019*_`[]()<>!#\\-+=|~&;:.\"'/é{}%$@^", min_size=1, max_size=8)
_BASE = (
    b"# Title\n\nPara *x* one\nline two\n\n> quote\n> more\n\n- item\n  - nested\n\n"
    b"| a | b |\n|---|---|\n| c | d |\n\nSetext\n===\n"
)


@pytest.mark.parametrize(
    "value",
    [
        "0 0 |\n|-",  # the second line would be a table's delimiter row
        "a | b\n:-|-:",
        "a | b\n| --- | --- |",
        "text\n-",  # a setext underline
        "| starts with a pipe",
    ],
)
def test_an_edited_paragraph_never_becomes_a_table_or_a_heading(value: str) -> None:
    document = CODEC.read(_BASE)
    out = set_text(document, "p1", value)
    again = CODEC.read(out)
    assert [b.id for b in again.blocks] == [b.id for b in document.blocks]
    assert plain_text(next(b for b in again.blocks if b.id == "p1").source) == value


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_any_new_text_reads_back_as_written(data: st.DataObject) -> None:
    document = CODEC.read(_BASE)
    target = data.draw(st.sampled_from([b for b in document.blocks if b.translatable]))
    multiline = target.role in ("paragraph", "quote", "list-item") or target.id == "h2"
    words = data.draw(st.lists(_WORD, min_size=1, max_size=8))
    joins = data.draw(
        st.lists(st.sampled_from([" ", "\n"] if multiline else [" "]), min_size=len(words))
    )
    value = "".join(w + j for w, j in zip(words, joins))[:-1]
    out = set_text(document, target.id, value)
    again = CODEC.read(out)
    assert [b.id for b in again.blocks] == [b.id for b in document.blocks]
    for before, after in zip(document.blocks, again.blocks):
        if before.id == target.id:
            assert plain_text(after.source) == value
        else:
            assert after.source == before.source
