"""The MyST codec: directive bodies that hold prose are blocks, code directives and roles stay
code, every write is byte-identical but for the edited value, and bad fences are refused."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kapi.core.format import FormatError, WriteRefused
from kapi.core.model import Document, Ph, Text, plain_text
from kapi.formats.myst import MystFormat
from kapi.formats.reading import read_document
from kapi.formats.registry import detect, load_codec

FIXTURE = Path(__file__).parent / "fixtures" / "myst" / "guide.md"
CODEC = MystFormat()
KAPI = Path(sys.executable).with_name("kapi")


def read(data: bytes) -> Document:
    return CODEC.read(data, path="page.md")


def block(document: Document, block_id: str):  # type: ignore[no-untyped-def]
    return next(b for b in document.blocks if b.id == block_id)


def set_text(document: Document, block_id: str, text: str) -> bytes:
    blocks = tuple(b.with_source((Text(text),)) if b.id == block_id else b for b in document.blocks)
    return CODEC.write(document.with_blocks(blocks))


def text_of(document: Document, block_id: str) -> str:
    return plain_text(block(document, block_id).source)


# --- which files are MyST


def test_a_markdown_file_with_myst_syntax_is_detected_as_myst() -> None:
    assert detect("page.md", b"# T\n\n```{note}\nx\n```\n").name == "myst"
    assert detect("page.md", b"See {ref}`intro`.\n").name == "myst"
    assert detect("page.md", b"(intro)=\n# Intro\n").name == "myst"
    assert detect("page.md", b"# Plain\n\n```python\nx\n```\n").name == "markdown"
    assert detect("page.md").name == "markdown"
    assert isinstance(load_codec("myst"), MystFormat)


def test_the_fixture_is_read_as_myst_by_detection() -> None:
    _, document, spec = read_document(FIXTURE.read_bytes(), display="guide.md", locale="en")
    assert spec.name == "myst"
    assert document.format == "myst"


# --- blocks


def test_prose_directives_are_blocks_and_their_heads_are_structure() -> None:
    document = read(FIXTURE.read_bytes())
    got = [
        (b.id, b.role, b.translatable, b.properties.get("directive", "")) for b in document.blocks
    ]
    assert got == [
        ("fm1", "front-matter", False, ""),
        ("tgt1", "target", False, ""),
        ("h1", "heading", True, ""),
        ("cmt1", "comment", False, ""),
        ("p1", "paragraph", True, ""),
        ("dir1", "directive", False, "note"),
        ("p2", "paragraph", True, "note"),
        ("dir2", "directive", False, "admonition"),
        ("title1", "title", True, "admonition"),
        ("p3", "paragraph", True, "admonition"),
        ("li1", "list-item", True, "admonition"),
        ("li2", "list-item", True, "admonition"),
        ("dir3", "directive", False, "warning"),
        ("p4", "paragraph", True, "warning"),
        ("dir4", "directive", False, "seealso"),
        ("p5", "paragraph", True, "seealso"),
        ("code1", "code", False, ""),
        ("dir5", "directive", False, "versionadded"),
        ("p6", "paragraph", True, "versionadded"),
        ("dir6", "directive", False, "figure"),
        ("p7", "paragraph", True, "figure"),
        ("code2", "code", False, ""),
        ("brk1", "break", False, ""),
        ("math1", "math", False, ""),
        ("p8", "paragraph", True, ""),
    ]
    assert text_of(document, "p2").startswith("Options are read once")
    assert text_of(document, "title1") == "Before you start"
    assert plain_text(block(document, "dir2").source) == ":::{admonition}\n:class: tip"
    assert plain_text(block(document, "dir6").source).endswith(":width: 200px")
    assert block(document, "code1").properties["info"] == "{code-block} python"


def test_roles_are_one_code_with_their_target() -> None:
    document = read(FIXTURE.read_bytes())
    codes = [r for r in block(document, "p1").source if isinstance(r, Ph)]
    assert [(c.sub_type, c.data) for c in codes] == [
        ("md:code", "`html_theme_options`"),
        ("myst:role", "{file}`conf.py`"),
        ("myst:role", "{ref}`the reference <theme-reference>`"),
        ("myst:role", "{py:func}`sphinx.setup`"),
    ]
    assert "ref" not in "".join(r.text for r in block(document, "p1").source if isinstance(r, Text))


def test_substitutions_are_placeholders() -> None:
    document = read(b"Version {{ release }} is out.\n\n(x)=\n")
    codes = [r for r in block(document, "p1").source if isinstance(r, Ph)]
    assert [(c.type, c.data) for c in codes] == [("code:placeholder", "{{ release }}")]


@pytest.mark.parametrize(
    "name", ["code-block", "code-cell", "eval-rst", "math", "mermaid", "toctree", "my-own"]
)
def test_code_and_unknown_directives_are_one_code_block(name: str) -> None:
    data = (
        f"```{{{name}}}\n:option: x\n\nSome words inside\n```\n\n:::{{{name}}}\nmore words\n:::\n"
    )
    document = read(data.encode())
    assert [(b.role, b.translatable) for b in document.blocks] == [("code", False)] * 2
    assert CODEC.write(document) == data.encode()


def test_a_directive_nested_in_a_list_keeps_its_layout() -> None:
    data = b"- Item\n\n  ```{tip}\n  Indented tip\n  over two lines.\n  ```\n- Next\n"
    document = read(data)
    assert text_of(document, "li2") == "Indented tip\nover two lines."
    out = set_text(document, "li2", "New tip\non two lines.")
    assert out == b"- Item\n\n  ```{tip}\n  New tip\n  on two lines.\n  ```\n- Next\n"


# --- writing


def test_an_unedited_file_is_written_back_byte_for_byte() -> None:
    data = FIXTURE.read_bytes()
    assert CODEC.write(read(data)) == data
    crlf = data.replace(b"\n", b"\r\n")
    assert CODEC.write(read(crlf)) == crlf


def test_an_edit_in_a_directive_changes_only_that_value_and_restoring_gives_the_file() -> None:
    data = FIXTURE.read_bytes()
    document = read(data)
    before = text_of(document, "p5")
    out = set_text(document, "p5", "The changelog names each option.")
    assert out == data.replace(b"lists every option by release.", b"names each option.")
    again = read(out)
    assert text_of(again, "p5") == "The changelog names each option."
    assert set_text(again, "p5", before) == data


def test_a_title_edit_leaves_the_head_and_options() -> None:
    data = FIXTURE.read_bytes()
    out = set_text(read(data), "title1", "Before installing")
    assert out == data.replace(b"{admonition} Before you start", b"{admonition} Before installing")


def test_code_directives_are_not_editable() -> None:
    document = read(FIXTURE.read_bytes())
    with pytest.raises(WriteRefused):
        set_text(document, "code1", "print('changed')")


# --- bad input


@pytest.mark.parametrize(
    ("data", "line"),
    [
        (b"# T\n\n```{note}\nNever closed.\n", 3),
        (b"Text\n\n:::{tip}\nNever closed.\n\nStill in it.\n", 3),
        (b"````{note}\nOuter\n```{tip}\nInner never closed\n````\n", 3),
        (b"```{code-block} python\nprint(1)\n", 1),
    ],
)
def test_a_directive_never_closed_is_refused_naming_its_line(data: bytes, line: int) -> None:
    with pytest.raises(FormatError) as caught:
        read(data)
    assert caught.value.line == line
    assert "never closed" in str(caught.value)
    assert caught.value.code == "invalid"


def test_the_same_file_still_reads_as_plain_markdown() -> None:
    data = b"# T\n\n```{note}\nNever closed.\n"
    document = load_codec("markdown").read(data, path="page.md")
    assert [b.role for b in document.blocks] == ["heading", "code"]


def _kapi(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KAPI_NO_PROJECT": "1", "KAPI_ACTOR": "person"}
    return subprocess.run(
        [str(KAPI), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def test_kapi_inspect_refuses_an_unclosed_directive_and_writes_nothing(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_bytes(b"# T\n\nFine text.\n\n```{warning}\nNo end.\n")
    done = _kapi(["inspect", "page.md"], tmp_path)
    assert done.returncode == 2
    assert "page.md:5" in done.stderr and "never closed" in done.stderr
    assert "Traceback" not in done.stderr
    assert page.read_bytes() == b"# T\n\nFine text.\n\n```{warning}\nNo end.\n"


TERMS = {
    "schemaVersion": "1.0",
    "kind": "kapi-terms",
    "concepts": [
        {
            "id": "term:en:option",
            "source": "terminology",
            "terms": [{"text": "option", "locale": "en", "status": "forbidden"}],
        }
    ],
}


def test_kapi_check_finds_terms_in_directive_prose_not_in_code_or_roles(tmp_path: Path) -> None:
    (tmp_path / "kapi.yaml").write_text(
        "version: v1\nname: probe\ndefaults:\n  source_language: en\n"
        "collections:\n  - name: docs\n    source_only: true\n    content:\n"
        "      - path: docs/**/*.md\n        format: myst\n"
    )
    (tmp_path / "terms.json").write_text(json.dumps(TERMS))
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "page.md").write_text(
        "# Page\n\n```{note}\nThe option is new.\n```\n\n"
        "```{code-block} python\noption = 1\n```\n\nSee {ref}`option`.\n\n"
        ":::{admonition} An option\n:name: option\n\nWords.\n:::\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "KAPI_NO_PROJECT"}
    env["KAPI_ACTOR"] = "person"

    def kapi(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(KAPI), *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
        )

    assert kapi("terms", "import", "terms.json").returncode == 0
    done = kapi("check", "--json")
    findings = json.loads(done.stdout)["findings"]
    starts = sorted(
        (f["location"]["start"]["line"], f["location"]["start"]["column"]) for f in findings
    )
    assert starts == [(4, 5), (13, 20)], done.stdout


@pytest.mark.parametrize(
    "text",
    ["(label)=", "% not a comment", "See {ref}`x` here", "$$ x $$", "+++", "First\n(label)="],
)
def test_new_text_that_would_read_as_myst_markup_is_escaped(text: str) -> None:
    data = b"# T\n\nHello world.\n\n(end)=\n"
    out = set_text(read(data), "p1", text)
    again = read(out)
    assert text_of(again, "p1") == text
    assert [b.role for b in again.blocks] == ["heading", "paragraph", "target"]


_PIECES = [
    "Para with {ref}`a role` and `code`.",
    "```{note}\nA note *body*.\n```",
    ":::{tip}\n:class: x\n\n- one\n- two\n:::",
    "````{warning} Title here\n```{seealso}\nInner.\n```\n````",
    "```{code-block} python\nx = 1\n```",
    "(target-x)=",
    "% a comment",
    "+++",
    "$$\nx\n$$",
    "> ```{hint}\n> Quoted hint.\n> ```",
    "- item\n\n  ```{important}\n  In a list.\n  ```",
    "| a | b |\n|---|---|\n| {term}`c` | d |",
]
_WORDS = st.text(alphabet="abcXYZ019*_`[]()<>!#\\-+=|~&;:.\"'/é{}%$", min_size=1, max_size=12)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=8), st.data())
def test_any_myst_document_round_trips_and_any_new_text_reads_back(
    pieces: list[str], data: st.DataObject
) -> None:
    source = "\n\n".join(pieces).encode() + b"\n"
    document = read(source)
    assert CODEC.write(document) == source
    editable = [b for b in document.blocks if b.translatable]
    if not editable:
        return
    target = data.draw(st.sampled_from(editable))
    text = data.draw(_WORDS)
    meant = document.with_blocks(
        tuple(b.with_source((Text(text),)) if b.id == target.id else b for b in document.blocks)
    )
    out = CODEC.write(meant)
    again = read(out)
    same = [(b.id, b.role) for b in again.blocks] == [(b.id, b.role) for b in document.blocks]
    assert same
    assert text_of(again, target.id) == text.strip(" \t")
    restored = again.with_blocks(
        tuple(b.with_source(block(document, b.id).source) for b in again.blocks)
    )
    assert CODEC.write(restored) == source


def test_a_backtick_in_a_backtick_fence_title_is_written_as_a_reference() -> None:
    data = b"```{admonition} Plain title\nBody.\n```\n"
    out = set_text(read(data), "title1", "Use `x` here")
    assert out == b"```{admonition} Use &#96;x&#96; here\nBody.\n```\n"
    assert text_of(read(out), "title1") == "Use `x` here"
