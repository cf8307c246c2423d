"""The MDX codec: JSX, ESM and expressions are structure or codes, the prose around and inside
them is blocks, writes are byte-identical but for the edited value, unbalanced JSX is refused."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kapi.core.format import FormatError, WriteRefused
from kapi.core.model import Document, Ph, Text, plain_text
from kapi.formats.mdx import MdxFormat
from kapi.formats.reading import read_document
from kapi.formats.registry import load_codec

FIXTURE = Path(__file__).parent / "fixtures" / "mdx" / "tabs.mdx"
CODEC = MdxFormat()
KAPI = Path(sys.executable).with_name("kapi")


def read(data: bytes) -> Document:
    return CODEC.read(data, path="page.mdx")


def block(document: Document, block_id: str):  # type: ignore[no-untyped-def]
    return next(b for b in document.blocks if b.id == block_id)


def set_text(document: Document, block_id: str, text: str) -> bytes:
    blocks = tuple(b.with_source((Text(text),)) if b.id == block_id else b for b in document.blocks)
    return CODEC.write(document.with_blocks(blocks))


def text_of(document: Document, block_id: str) -> str:
    return plain_text(block(document, block_id).source)


def test_an_mdx_file_is_read_as_mdx() -> None:
    _, document, spec = read_document(FIXTURE.read_bytes(), display="tabs.mdx", locale="en")
    assert spec.name == "mdx" and document.format == "mdx"
    assert isinstance(load_codec("mdx"), MdxFormat)


def test_jsx_esm_and_expressions_are_structure_and_prose_inside_is_blocks() -> None:
    document = read(FIXTURE.read_bytes())
    got = [(b.id, b.role, b.translatable) for b in document.blocks]
    assert got == [
        ("fm1", "front-matter", False),
        ("esm1", "esm", False),
        ("esm2", "esm", False),
        ("h1", "heading", True),
        ("p1", "paragraph", True),
        ("jsx1", "jsx", False),
        ("jsx2", "jsx", False),
        ("code1", "code", False),
        ("p2", "paragraph", True),
        ("jsx3", "jsx", False),
        ("jsx4", "jsx", False),
        ("p3", "paragraph", True),
        ("jsx5", "jsx", False),
        ("jsx6", "jsx", False),
        ("dir1", "directive", False),
        ("title1", "title", True),
        ("p4", "paragraph", True),
        ("dir2", "directive", False),
        ("title2", "title", True),
        ("p5", "paragraph", True),
        ("expr1", "expression", False),
        ("jsx7", "jsx", False),
        ("p6", "paragraph", True),
    ]
    assert text_of(document, "p2") == "Then add the plugin to your configuration."
    assert text_of(document, "p3").startswith("Yarn users run")
    assert text_of(document, "title1") == "Keep it current"
    assert text_of(document, "title2") == "Older sites"
    assert block(document, "p4").properties["directive"] == "tip"
    assert text_of(document, "jsx7").startswith("<OptionsTable\n")
    # indented code inside a TabItem is a fence, not indented code
    assert block(document, "code1").properties["info"] == "bash"


def test_inline_jsx_and_expressions_are_codes() -> None:
    document = read(FIXTURE.read_bytes())
    p1 = [(r.type, r.sub_type, r.data) for r in block(document, "p1").source if isinstance(r, Ph)]
    assert p1 == [("code:expression", "mdx:expression", "{version}")]
    p6 = [(r.type, r.sub_type, r.data) for r in block(document, "p6").source if isinstance(r, Ph)]
    assert p6 == [
        ("code:tag", "jsx:Link", '<Link to="/docs/options">'),
        ("code:tag", "jsx:Link", "</Link>"),
    ]
    data = b"Call <Button onClick={() => go('x')} kind=\"primary\" /> now {user.name}.\n"
    runs = block(read(data), "p1").source
    assert [r.text for r in runs if isinstance(r, Text)] == ["Call ", " now ", "."]


def test_an_unedited_file_is_written_back_byte_for_byte() -> None:
    data = FIXTURE.read_bytes()
    assert CODEC.write(read(data)) == data
    crlf = data.replace(b"\n", b"\r\n")
    assert CODEC.write(read(crlf)) == crlf


def test_an_edit_inside_a_tab_changes_only_that_value_and_restoring_gives_the_file() -> None:
    data = FIXTURE.read_bytes()
    document = read(data)
    before = text_of(document, "p3")
    out = set_text(document, "p3", "Yarn users run yarn.")
    assert out == data.replace(
        b"Yarn users run the same command with `yarn add`.", b"Yarn users run yarn."
    )
    # the code span was dropped by the edit: setting the runs back restores it
    again = read(out)
    blocks = tuple(
        b.with_source(block(document, "p3").source) if b.id == "p3" else b for b in again.blocks
    )
    assert CODEC.write(again.with_blocks(blocks)) == data
    assert before.startswith("Yarn users")


def test_an_admonition_title_and_body_are_editable_in_place_and_restorable() -> None:
    data = FIXTURE.read_bytes()
    document = read(data)
    out = set_text(document, "title1", "Stay current")
    assert out == data.replace(b":::tip[Keep it current]", b":::tip[Stay current]")
    out = set_text(read(out), "p4", "Update often.")
    assert out == data.replace(b":::tip[Keep it current]", b":::tip[Stay current]").replace(
        b"Update the plugin whenever you update the site.", b"Update often."
    )
    back = set_text(read(out), "title1", "Keep it current")
    back = set_text(read(back), "p4", "Update the plugin whenever you update the site.")
    assert back == data


def test_jsx_and_esm_are_not_editable() -> None:
    document = read(FIXTURE.read_bytes())
    for block_id in ("jsx1", "esm1", "expr1"):
        with pytest.raises(WriteRefused):
            set_text(document, block_id, "changed")


@pytest.mark.parametrize(
    ("data", "line", "words"),
    [
        (b"# T\n\n<Tabs>\n\nText never closed.\n", 3, "<Tabs> is never closed"),
        (b"Text\n\n</Tabs>\n", 3, "</Tabs> closes no element"),
        (b"<Tabs>\n<TabItem>\n\nText\n\n</Tabs>\n", 6, "closes <TabItem>, opened on line 2"),
        (b'Intro\n\n<Foo bar="x"\n\nmore text\n', 3, "never ends"),
        (b"Intro\n\n:::note\nBody never closed.\n", 3, "never closed"),
        (b"Some <b>bold text\n", 1, "<b> is never closed"),
        (b"Intro\n\n{items.map(x =>\n", 3, "never ends"),
    ],
)
def test_unbalanced_jsx_is_refused_naming_the_line(data: bytes, line: int, words: str) -> None:
    with pytest.raises(FormatError) as caught:
        read(data)
    assert caught.value.line == line
    assert words in str(caught.value)


def test_kapi_inspect_refuses_unbalanced_jsx_and_writes_nothing(tmp_path: Path) -> None:
    page = tmp_path / "page.mdx"
    data = b'# T\n\n<Tabs>\n  <TabItem value="a">\n\nText\n\n</Tabs>\n'
    page.write_bytes(data)
    env = {**os.environ, "KAPI_NO_PROJECT": "1", "KAPI_ACTOR": "person"}
    done = subprocess.run(
        [str(KAPI), "inspect", "page.mdx"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "page.mdx:8" in done.stderr and "closes <TabItem>" in done.stderr
    assert "Traceback" not in done.stderr
    assert page.read_bytes() == data


@pytest.mark.parametrize(
    "text", ["Use {braces} here", "Type <Tabs> to start", "Set {a: 1} and {b}", "x } y"]
)
def test_new_text_that_would_read_as_jsx_or_an_expression_is_escaped(text: str) -> None:
    data = b"# T\n\nHello world.\n"
    out = set_text(read(data), "p1", text)
    again = read(out)
    assert text_of(again, "p1") == text
    assert [b.role for b in again.blocks] == ["heading", "paragraph"]


_PIECES = [
    "import A from './a';\nexport const b = 1;",
    "Para with <Kbd>Ctrl</Kbd> and {props.value} and `code`.",
    '<Tabs>\n  <TabItem value="a" label="A">\n    Inside a tab.\n  </TabItem>\n</Tabs>',
    ":::note Title\nA note *body*.\n:::",
    "::::tip[Nested]\n:::info\nInner.\n:::\n::::",
    '<Foo\n  bar={{a: [1, 2]}}\n  baz="x"\n/>',
    "{/* a comment */}",
    "<!-- an HTML\n\ncomment -->",
    "- item with <b>bold</b>\n- second",
    "> quoted {value}",
    "```js\nconst x = <A />;\n```",
    "| a | b |\n|---|---|\n| <C /> | d |",
]
_WORDS = st.text(alphabet="abcXYZ019*_`[]()<>!#\\-+=|~&;:.\"'/é{}%$", min_size=1, max_size=12)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=8), st.data())
def test_any_mdx_document_round_trips_and_any_new_text_reads_back(
    pieces: list[str], data: st.DataObject
) -> None:
    source = "\n\n".join(pieces).encode() + b"\n"
    document = read(source)
    assert CODEC.write(document) == source
    editable = [b for b in document.blocks if b.translatable]
    target = data.draw(st.sampled_from(editable)) if editable else None
    if target is None:
        return
    text = data.draw(_WORDS)
    out = set_text(document, target.id, text)
    again = read(out)
    assert [(b.id, b.role) for b in again.blocks] == [(b.id, b.role) for b in document.blocks]
    assert text_of(again, target.id) == text.strip(" \t")
    restored = again.with_blocks(
        tuple(b.with_source(block(document, b.id).source) for b in again.blocks)
    )
    assert CODEC.write(restored) == source


def test_kapi_apply_lands_an_edit_that_needs_escapes_and_it_reads_back_as_text(
    tmp_path: Path,
) -> None:
    import json

    page = tmp_path / "page.mdx"
    data = b"# T\n\n<Note>\n\nHello world.\n\n</Note>\n"
    page.write_bytes(data)
    env = {**os.environ, "KAPI_NO_PROJECT": "1", "KAPI_ACTOR": "person"}

    def kapi(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(KAPI), *args],
            cwd=tmp_path,
            env=env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
        )

    def edit(find: str, text: str) -> None:
        records = json.loads(kapi("inspect", "page.mdx").stdout)
        record = next(r for r in records if r["role"] == "paragraph")
        op = {
            "op": "replace_text",
            "at": {"doc": "page.mdx", "block": record["ref"]["block"]},
            "if_match": record["rev"],
            "edits": [{"find": find or record["text"], "text": text}],
        }
        done = kapi("apply", "-", stdin=json.dumps({"ops": [op]}))
        assert done.returncode == 0, done.stderr

    edit("world", "{name} *you* <Tag>")
    assert page.read_bytes() == b"# T\n\n<Note>\n\nHello \\{name\\} \\*you\\* \\<Tag>.\n\n</Note>\n"
    again = CODEC.read(page.read_bytes(), path="page.mdx")
    assert text_of(again, "p1") == "Hello {name} *you* <Tag>."
    assert data.replace(b"world", b"") != page.read_bytes()
