"""Reading source files' comments with tree-sitter, and writing new prose into one."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from kapi.core.format import FormatError
from kapi.formats.comments import (
    CodeExtraMissing,
    UnsupportedLanguage,
    read_comments,
)
from kapi.formats.comments.rewrite import CommentRewriteRefused, rewrite_comment

pytest.importorskip("tree_sitter")

PYTHON = textwrap.dedent(
    '''\
    #!/usr/bin/env python
    # Copyright 2024 Acme Ltd. Licensed under the MIT licence.
    """Tools that count the words in a text.

    Use them from the command line:

        >>> count("a b")
        2
    """
    import os  # noqa: F401

    # The limit is generous because some
    # documents are long.
    #
    # A second paragraph of prose.
    LIMIT = 10_000  # type: ignore[assignment]
    # LIMIT = compute_limit(os.environ)
    # -----------------------------------
    # pylint: disable=invalid-name


    def count(text):
        """Return how many words `text` holds."""
        return len(text.split())  # split on whitespace
    '''
)


def read(source: str, name: str):
    return read_comments(source.encode("utf-8"), name)


def test_python_comments_and_docstrings_are_prose_with_markers_kept_out():
    found = read(PYTHON, "count.py")
    texts = {comment.key: comment.text for comment in found.comments}
    assert texts == {
        "L3": "Tools that count the words in a text.\n\nUse them from the command line:\n\n"
        '    >>> count("a b")\n    2',
        "L12": "The limit is generous because some\ndocuments are long.\n\n"
        "A second paragraph of prose.",
        "L23": "Return how many words `text` holds.",
        "L24": "split on whitespace",
    }
    styles = {comment.key: comment.style for comment in found.comments}
    assert styles == {"L3": "docstring", "L12": "line", "L23": "docstring", "L24": "line"}
    reasons = {(skip.line, skip.reason) for skip in found.skipped}
    assert reasons == {
        (1, "shebang"),
        (2, "license"),
        (10, "pragma"),
        (16, "pragma"),
        (17, "code"),
        (18, "decoration"),
        (19, "pragma"),
    }
    assert found.error_lines == ()


def test_a_comment_has_its_span_lines_column_and_fingerprint():
    data = PYTHON.encode()
    found = read_comments(data, "count.py")
    comment = found.get("L12")
    assert comment is not None
    assert data[comment.start : comment.end].startswith(b"# The limit")
    assert data[comment.start : comment.end].endswith(b"prose.")
    assert (comment.line, comment.end_line, comment.column) == (12, 15, 1)
    import hashlib

    assert comment.sha256 == hashlib.sha256(data[comment.start : comment.end]).hexdigest()
    assert comment.rev == "r:" + comment.sha256[:16]
    docstring = found.get("L23")
    assert docstring is not None and docstring.column == 5
    # inline code is known as code, never read as prose
    start, end = docstring.codes[0]
    assert docstring.text[start:end] == "`text`"
    module = found.get("L3")
    assert module is not None
    assert any('>>> count("a b")' in module.text[a:b] for a, b in module.codes)


def test_segments_map_text_offsets_to_the_file():
    data = PYTHON.encode()
    comment = read_comments(data, "count.py").get("L12")
    assert comment is not None
    text = PYTHON
    at = comment.text.index("documents")
    assert text[comment.file_offset(at) :].startswith("documents are long.")


SOURCES = {
    "a.ts": (
        "// SPDX-License-Identifier: MIT\n/* eslint-disable no-console */\nimport { x } from 'y';\n\n"
        "/**\n * Returns the sum of two numbers.\n *\n * @param {number} a the first value\n"
        " */\nexport function add(a: number, b: number): number {\n  // @ts-ignore\n"
        "  return a + b; // adds them up\n}\n// const old = add(1, 2);\n",
        {
            "L5": "Returns the sum of two numbers.\n\n@param {number} a the first value",
            "L12": "adds them up",
        },
    ),
    "a.tsx": (
        "// Renders the page header.\nexport const Header = () => <h1>Hi</h1>;\n",
        {"L1": "Renders the page header."},
    ),
    "a.js": (
        "/* prettier-ignore */\n/** Formats a date for people. */\nfunction f() {}\n",
        {"L2": "Formats a date for people."},
    ),
    "a.go": (
        "//go:build linux\n\n// Package main runs the demo.\npackage main\n\n"
        "// main starts the program and\n// prints a greeting.\nfunc main() {} //nolint:errcheck\n",
        {
            "L3": "Package main runs the demo.",
            "L6": "main starts the program and\nprints a greeting.",
        },
    ),
    "a.rs": (
        "/// Adds one to the number given.\nfn add(x: i32) -> i32 { x + 1 } // increments it\n",
        {"L1": "Adds one to the number given.", "L2": "increments it"},
    ),
    "A.java": (
        "/** Holds the user's settings. */\nclass A { // the first field follows\n}\n",
        {"L1": "Holds the user's settings.", "L2": "the first field follows"},
    ),
    "a.c": (
        "#include <stdio.h>\n/* Prints a message to the screen. */\nint main(void) { return 0; }\n",
        {"L2": "Prints a message to the screen."},
    ),
    "a.cpp": (
        "// Keeps the cache warm between requests.\nint warm;\n",
        {"L1": "Keeps the cache warm between requests."},
    ),
    "a.cs": (
        "/// <summary>Loads the file.</summary>\nclass A {}\n",
        {"L1": "<summary>Loads the file.</summary>"},
    ),
    "a.rb": (
        "# frozen_string_literal: true\n# Greets the user politely.\nputs 'hi'\n",
        {"L2": "Greets the user politely."},
    ),
    "a.php": (
        "<?php\n// Handles the request for the page.\necho 1;\n",
        {"L2": "Handles the request for the page."},
    ),
    "a.swift": (
        "// Shows the settings screen.\nlet a = 1\n",
        {"L1": "Shows the settings screen."},
    ),
    "a.kt": (
        "/** Sends the message again. */\nval a = 1\n",
        {"L1": "Sends the message again."},
    ),
    "a.sh": (
        "#!/bin/bash\n# shellcheck disable=SC2086\n# Deploys the site to the server.\necho hi\n",
        {"L3": "Deploys the site to the server."},
    ),
}


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_every_language_reads_its_comments(name):
    source, expected = SOURCES[name]
    found = read(source, name)
    assert {comment.key: comment.text for comment in found.comments} == expected
    assert found.error_lines == ()


def test_a_file_that_does_not_parse_is_read_where_the_parser_recovers():
    found = read("# Explains the value.\nx = (1,\n# Another note here.\n", "broken.py")
    assert found.error_lines
    assert "Explains the value." in [comment.text for comment in found.comments]


def test_a_language_without_a_grammar_is_a_clear_unsupported_error():
    with pytest.raises(UnsupportedLanguage) as caught:
        read("-- a comment\n", "a.lua")
    assert caught.value.code == "unsupported"
    assert "reads comments in python" in str(caught.value)


def test_a_file_that_is_not_utf8_is_refused():
    with pytest.raises(FormatError):
        read_comments(b"# caf\xe9\n", "a.py")


def test_without_the_extra_the_error_names_the_install_command():
    code = (
        "import sys; sys.modules['tree_sitter'] = None\n"
        "from kapi.formats.comments import read_comments, CodeExtraMissing\n"
        "try:\n    read_comments(b'# x\\n', 'a.py')\n"
        "except CodeExtraMissing as err:\n    print(err)\n"
    )
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert "pip install 'kapi-formats[code]'" in done.stdout
    assert issubclass(CodeExtraMissing, FormatError)


# --- rewriting --------------------------------------------------------------------------


def rewritten(source: str, name: str, key: str, text: str) -> str:
    data = source.encode()
    comment = read_comments(data, name).get(key)
    assert comment is not None
    return rewrite_comment(data, comment, text).decode()


def test_a_line_comment_is_rewrapped_at_its_indentation_and_nothing_else_moves():
    source = "def f():\n    # Old words.\n    return 1\n"
    text = "New words that run long enough to need a second line when they are wrapped here."
    out = rewritten(source, "a.py", "L2", text)
    assert out.startswith("def f():\n    # New words")
    assert out.endswith("    return 1\n")
    lines = out.split("\n")[1:-2]
    assert len(lines) == 2 and all(line.startswith("    # ") for line in lines)
    again = read_comments(out.encode(), "a.py").get("L2")
    assert again is not None and again.text.replace("\n", " ") == text


def test_a_jsdoc_block_keeps_its_stars_and_tags():
    source, _ = SOURCES["a.ts"]
    out = rewritten(source, "a.ts", "L5", "Adds two numbers.\n\n@param {number} a the first value")
    assert "/**\n * Adds two numbers.\n *\n * @param {number} a the first value\n */\n" in out
    assert out.count("\n") == source.count("\n")


def test_a_docstring_keeps_its_quotes_and_indentation():
    out = rewritten(PYTHON, "count.py", "L23", "Count the words in `text`.")
    assert '    """Count the words in `text`."""\n' in out


@pytest.mark.parametrize(
    ("name", "source", "key", "text"),
    [
        ("a.ts", "/* Old. */\nlet a = 1;\n", "L1", "ends */ here"),
        ("a.py", 'def f():\n    """Old."""\n', "L2", 'says """ here'),
        ("a.py", 'def f():\n    """Old."""\n', "L2", 'ends with a quote"'),
        ("a.c", "// Old note.\nint a;\n", "L1", "continues \\"),
    ],
)
def test_text_that_would_close_the_comment_early_is_refused(name, source, key, text):
    with pytest.raises(CommentRewriteRefused) as caught:
        rewritten(source, name, key, text)
    assert caught.value.code == "guard"


def test_a_trailing_comment_takes_one_line():
    with pytest.raises(CommentRewriteRefused) as caught:
        rewritten("x = 1  # a note\n", "a.py", "L1", "first line\n\nsecond paragraph")
    assert caught.value.code == "invalid"


def test_a_code_example_inside_line_comments_stays_one_comment_with_its_code_as_code():
    source = (
        "function f() {\n"
        "  // Compare the two connections. For example:\n"
        "  // ```\n"
        "  // range(0, 10).pipe(\n"
        "  //   take(5),\n"
        "  // )\n"
        "  // ```\n"
        "  // In that case, dispose of it.\n"
        "}\n"
    )
    found = read(source, "a.ts")
    assert [comment.key for comment in found.comments] == ["L2"]
    comment = found.comments[0]
    assert comment.end_line == 8
    code = "".join(comment.text[a:b] for a, b in comment.codes)
    assert "range(0, 10).pipe(" in code and ")" in code
    assert "In that case" not in code and "Compare" not in code


def test_a_banner_is_its_title_and_its_rules_are_set_aside():
    found = read("# -------\n# Pythons\n# -------\nx = 1\n#: Python 3.x?\ny = 2\n", "a.py")
    assert [(c.key, c.text) for c in found.comments] == [("L2", "Pythons"), ("L5", "Python 3.x?")]
    assert [(s.line, s.reason) for s in found.skipped] == [(1, "decoration"), (3, "decoration")]


def test_a_rest_title_underline_is_not_a_code_fence():
    found = read('"""\nrequests.compat\n~~~~~~~~~~~~~~~\n\nThis module holds shims.\n"""\n', "a.py")
    comment = found.comments[0]
    code = "".join(comment.text[a:b] for a, b in comment.codes)
    assert "This module" not in code


@pytest.mark.parametrize(
    ("name", "source", "key"),
    [
        ("a.py", "def f():\r\n    # Old words here\r\n    # and more.\r\n    return 1\r\n", "L2"),
        ("a.ts", "/**\r\n * Old words.\r\n * More.\r\n */\r\nlet a = 1;\r\n", "L1"),
    ],
)
def test_a_file_with_crlf_lines_keeps_them(name, source, key):
    text = "New words that run long enough to be wrapped onto a second line of the comment."
    out = rewritten(source, name, key, text + "\n\nMore.")
    assert "\n" not in out.replace("\r\n", "")
    again = read_comments(out.encode(), name).get(key)
    assert again is not None and "\r" not in again.text
    assert " ".join(again.text.split()) == text + " More."


def test_positions_count_characters_after_text_that_is_not_ascii():
    data = 'x = "café 😀"  # Ünïcode note here\n'.encode()
    comment = read_comments(data, "a.py").comments[0]
    assert data[comment.start : comment.end].decode() == "# Ünïcode note here"
    assert comment.column == 15
    text = data.decode()
    assert text[comment.file_offset(0) :].startswith("Ünïcode")
    out = rewrite_comment(data, comment, "Ünïcode, rewritten")
    assert out.decode() == 'x = "café 😀"  # Ünïcode, rewritten\n'


PRAGMA_SOURCES = {
    "a.js": (
        "const a = /*#__PURE__*/ make();\n"
        "const b = /* @__PURE__ */ make();\n"
        "/* istanbul ignore next */\n"
        "function f() {}\n"
        "// @ts-expect-error: wrong type\n"
        "//# sourceMappingURL=app.js.map\n"
        "// eslint-disable-next-line no-console\n"
        "/* global window */\n"
        "/** @jsx h */\n"
        "// prettier-ignore\n"
        "import(/* webpackChunkName: 'x' */ './x');\n"
        "// Explains the code below.\n"
    ),
    "a.py": (
        "import os  # pragma: no cover\n"
        "# fmt: off\n"
        "x = [1,2]\n"
        "# fmt: on\n"
        "y = 1  # type: ignore[attr-defined]\n"
        "z = 2  # noqa\n"
        "w = 3  # pylint: disable=invalid-name\n"
        "# mypy: ignore-errors\n"
        "# Explains the code below.\n"
        "v = 4  # nosec B101\n"
        "# -*- coding: utf-8 -*-\n"
    ),
    "a.go": "//go:generate stringer -type=X\n// +build linux\n// Explains the code below.\n",
    "a.rs": "// Explains the code below.\n#[allow(dead_code)] // NOLINT\nfn f() {}\n",
}


@pytest.mark.parametrize("name", sorted(PRAGMA_SOURCES))
def test_pragmas_and_annotations_are_never_prose(name):
    found = read(PRAGMA_SOURCES[name], name)
    assert [comment.text for comment in found.comments] == ["Explains the code below."]
    assert found.skipped and {skip.reason for skip in found.skipped} == {"pragma"}
