"""Property: new prose written into a comment reads back as that prose, and nothing else moves."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("tree_sitter")

from kapi.formats.comments import read_comments
from kapi.formats.comments.rewrite import rewrite_comment

WORDS = st.sampled_from(
    [
        "the",
        "file",
        "holds",
        "a",
        "value",
        "which",
        "every",
        "reader",
        "keeps",
        "until",
        "it",
        "closes",
        "and",
        "then",
        "writes",
        "back",
        "what",
        "changed",
        "because",
        "people",
        "ask",
        "for",
        "short",
        "clear",
        "sentences",
    ]
)
SENTENCE = st.lists(WORDS, min_size=1, max_size=30).map(lambda w: " ".join(w).capitalize() + ".")
PARAGRAPH = st.lists(SENTENCE, min_size=1, max_size=4).map(" ".join)
PROSE = st.lists(PARAGRAPH, min_size=1, max_size=3).map("\n\n".join)

FILES = [
    ("a.py", "def f():\n    # Old words here.\n    return 1\n", "L2"),
    ("a.py", 'class A:\n    """Old words here.\n\n    More old words.\n    """\n', "L2"),
    ("a.py", '"""Old module words."""\nimport os\n', "L1"),
    ("a.ts", "export class A {\n  /**\n   * Old words here.\n   */\n  run(): void {}\n}\n", "L2"),
    ("a.ts", "/* Old words here. */\nlet a = 1;\n", "L1"),
    ("a.go", "package main\n\n// main runs the\n// old words.\nfunc main() {}\n", "L3"),
    ("a.rs", "/// Old words here.\nfn f() {}\n", "L1"),
    ("a.rb", "=begin\nOld words here.\n=end\nputs 1\n", "L1"),
    ("a.sh", "#!/bin/sh\n# Old words here.\necho 1\n", "L2"),
    ("A.java", "class A {\n    /** Old words. */\n    int x;\n}\n", "L2"),
]


@pytest.mark.parametrize(("name", "source", "key"), FILES)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=PROSE)
def test_rewritten_prose_reads_back_and_the_file_still_parses(name, source, key, text):
    data = source.encode()
    comment = read_comments(data, name).get(key)
    assert comment is not None
    out = rewrite_comment(data, comment, text)
    assert out[: comment.start] == data[: comment.start]
    tail = data[comment.end :]
    assert out.endswith(tail)
    again = read_comments(out, name)
    assert again.error_lines == ()
    found = [c for c in again.comments if c.start == comment.start]
    assert len(found) == 1
    assert " ".join(found[0].text.split()) == " ".join(text.split())
    # paragraphs survive the re-wrap
    assert found[0].text.count("\n\n") == text.count("\n\n")
