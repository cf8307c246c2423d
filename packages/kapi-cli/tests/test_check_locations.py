"""Findings point where they are: the line and UTF-16 column of their first character in the file.

Each case is checked through the engine (a target read as ``kapi check``
reads it), through ``kapi check --json`` and through the text output's
``file:line:col``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kapi.core.check.engine import run_check
from kapi.core.check.findings import FilePosition, Finding
from kapi.core.check.target import CheckTarget
from kapi.core.check.text import TextView
from kapi.core.governance.resolve import ResolvedGovernance
from kapi.core.model import Ph, Text
from kapi.host.checking import _read

FILLER = [f"Line {n} of the opening section." for n in range(3, 29)]
# a paragraph from line 30 to 32; the doubled word is on its third line
MARKDOWN = "\n".join(
    [
        "# Title",
        "",
        *FILLER,
        "",
        "The paragraph starts here on line thirty",
        "and the role `{py:func}` just displays",
        "the the value and more.",
        "",
    ]
)
# after a character outside the BMP (two UTF-16 code units)
EMOJI = "# Title\n\nA smile 😀 and then then more.\n"
PO = (
    'msgid ""\nmsgstr ""\n"Language: fr\\n"\n\n'
    'msgid "Hello {name}"\nmsgstr ""\n"Bonjour \\"toi\\" "\n"le {nom} monde"\n'
)
YAML = 'title: Hello\nbody: "This is is it"\n'
JSON = '{\n  "a": "Caf\\u00e9 and the the rest"\n}\n'
HTML = "<html><body>\n<p>We read the the page.</p>\n</body></html>\n"
XLIFF = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">\n'
    '<file original="a" source-language="en" datatype="plaintext">\n<body>\n'
    '<trans-unit id="a"><source>It is is here</source></trans-unit>\n'
    "</body>\n</file>\n</xliff>\n"
)


def resolver(_target: CheckTarget) -> ResolvedGovernance:
    return ResolvedGovernance()


def engine_findings(path: Path) -> list[Finding]:
    target = _read("en", path, path.name)
    assert target.locator is not None
    return [
        finding
        for finding in run_check([target], resolver).findings
        if finding.location.start is not None
    ]


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KAPI_CHECK_WORKERS", raising=False)
    for name, text in (
        ("doc.md", MARKDOWN),
        ("emoji.md", EMOJI),
        ("fr.po", PO),
        ("a.yaml", YAML),
        ("en.json", JSON),
        ("page.html", HTML),
        ("doc.xlf", XLIFF),
    ):
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def test_markdown_file_has_the_paragraph_on_lines_30_to_32() -> None:
    lines = MARKDOWN.split("\n")
    assert lines[29].startswith("The paragraph") and lines[31].startswith("the the")


def test_a_finding_inside_a_wrapped_paragraph_is_at_its_own_line_and_column(files) -> None:
    (finding,) = engine_findings(files / "doc.md")
    assert finding.rule == "hygiene.doubled-word"
    assert finding.location.lines is not None and finding.location.lines.start == 30
    assert finding.location.start == FilePosition(32, 1)
    assert finding.location.end == FilePosition(32, 8)


def test_the_snippet_is_the_text_as_written_inline_code_included(files) -> None:
    (finding,) = engine_findings(files / "doc.md")
    assert "role `{py:func}` just displays the the value" in finding.location.snippet


def test_a_snippet_from_runs_shows_inline_code_text() -> None:
    # what a format without positions reports: the runs' text, inline code included
    view = TextView(
        (Text("the role "), Ph("1", "fmt:code", equiv="{py:func}"), Text(" just displays"))
    )
    assert view.snippet(10, 14) == "the role {py:func} just displays"


def test_columns_count_utf16_code_units_after_a_non_bmp_character(files) -> None:
    (finding,) = engine_findings(files / "emoji.md")
    # "A smile 😀 and " is 14 code points, 15 UTF-16 code units
    assert finding.location.start == FilePosition(3, 16)
    assert finding.location.end == FilePosition(3, 25)


def test_a_finding_in_a_po_msgstr_is_at_its_place_in_the_msgstr(files) -> None:
    (finding,) = engine_findings(files / "fr.po")
    assert finding.rule == "placeholder.unexpected"
    assert finding.location.start == FilePosition(8, 5)
    assert finding.location.end == FilePosition(8, 10)
    assert "{nom}" in finding.location.snippet


def test_a_finding_in_a_yaml_value_is_inside_its_quotes(files) -> None:
    (finding,) = engine_findings(files / "a.yaml")
    assert finding.location.start == FilePosition(2, 13)
    assert finding.location.end == FilePosition(2, 18)
    assert finding.location.snippet == "This is is it"


@pytest.mark.parametrize(
    ("name", "start", "end"),
    [
        ("doc.md", [32, 1], [32, 8]),
        ("emoji.md", [3, 16], [3, 25]),
        ("fr.po", [8, 5], [8, 10]),
        ("a.yaml", [2, 13], [2, 18]),
        ("en.json", [2, 23], [2, 30]),
        ("page.html", [2, 12], [2, 19]),
        ("doc.xlf", [5, 31], [5, 36]),
    ],
)
def test_check_json_carries_start_and_end(kapi, files, name, start, end) -> None:
    result = kapi("check", name, "--json")
    findings = json.loads(result.stdout)["findings"]
    placed = [finding["location"] for finding in findings if finding["location"].get("start")]
    assert len(placed) == 1
    (location,) = placed
    assert [location["start"]["line"], location["start"]["column"]] == start
    assert [location["end"]["line"], location["end"]["column"]] == end


def test_check_json_snippet_keeps_inline_code(kapi, files) -> None:
    (finding,) = json.loads(kapi("check", "doc.md", "--json").stdout)["findings"]
    assert "`{py:func}`" in finding["location"]["snippet"]


@pytest.mark.parametrize(
    ("name", "where"),
    [
        ("doc.md", "doc.md:32:1 "),
        ("emoji.md", "emoji.md:3:16 "),
        ("fr.po", "fr.po:8:5 "),
        ("a.yaml", "a.yaml:2:13 "),
        ("en.json", "en.json:2:23 "),
        ("page.html", "page.html:2:12 "),
        ("doc.xlf", "doc.xlf:5:31 "),
    ],
)
def test_text_output_prints_file_line_column(kapi, files, name, where) -> None:
    assert where in kapi("check", name).output


def test_a_finding_without_a_range_keeps_its_block_line(kapi, files) -> None:
    # the missing placeholder has no place in the msgstr: the block's first line stands
    output = kapi("check", "fr.po").output
    missing = next(line for line in output.splitlines() if "placeholder.missing" in line)
    assert missing.split()[0] == "fr.po:5"


def test_markdown_markup_between_lines_is_skipped_when_placing(tmp_path) -> None:
    # a quote's "> " and a list item's indent are not in the block's text
    path = tmp_path / "e.md"
    path.write_text(
        "# Title\n\n> quoted line one\n> and the the two\n\n- item \\*x\\* and\n  continued so so\n",
        encoding="utf-8",
    )
    placed = {
        finding.location.block: (finding.location.start, finding.location.snippet)
        for finding in engine_findings(path)
    }
    assert placed["s1/q1"][0] == FilePosition(4, 7)
    assert placed["s1/li1"] == (FilePosition(7, 13), "item *x* and continued so so")


PLURAL_JSON = (
    "{\n"
    '  "items_one": "{{count}} item is is here",\n'
    '  "items_other": "{{count}} items are are here"\n'
    "}\n"
)


def test_a_finding_in_each_plural_form_of_a_json_key_is_at_that_forms_own_line(
    kapi, tmp_path
) -> None:
    # i18next writes a plural as one key per form; kapi reads them as one block with forms
    (tmp_path / "en.json").write_text(PLURAL_JSON, encoding="utf-8")
    findings = json.loads(kapi("check", "en.json", "--json").stdout)["findings"]
    places = sorted(
        (f["location"]["start"]["line"], f["location"]["start"]["column"], f["location"]["end"])
        for f in findings
        if f["rule"].startswith("hygiene")
    )
    assert places == [
        (2, 32, {"line": 2, "column": 37}),  # "is is", after "{{count}} item "
        (3, 35, {"line": 3, "column": 42}),  # "are are", after "{{count}} items "
    ], findings
    output = kapi("check", "en.json").output
    assert "en.json:2:32 " in output and "en.json:3:35 " in output
