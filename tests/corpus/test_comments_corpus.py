"""Code comments on real code bases: requests (a Python sdist) and RxJS (TypeScript sources).

A check with a voice whose words also fill the code reports them only where
comments hold them: every finding is checked against an oracle that knows
nothing of kapi (Python's ``tokenize`` and ``ast``; for TypeScript the
syntax node under the finding). One comment of each code base is then
edited through ``kapi apply`` in a project that declares the code base's
formatter (ruff; prettier 2, fetched pinned from npm), and the file still
parses and formats; an edit that would break either is refused with nothing
written.
"""

from __future__ import annotations

import ast
import io
import json
import os
import shutil
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

from tests.corpus.fetch import Source, unpacked

pytestmark = pytest.mark.corpus
pytest.importorskip("tree_sitter")

REQUESTS = Source(
    "pypi",
    "requests",
    "2.32.3",
    "55365417734eb18255590a9ff9eb97e9e1da868d4ccd6402399eaf68af20a760",
    "requests-2.32.3.tar.gz",
    binary=False,
)
RXJS = Source(
    "npm",
    "rxjs",
    "7.8.1",
    "c532167725ab7d085123209156c93cef22f2479cb9c8527060f1cd903aa9d149",
    "rxjs-7.8.1.tgz",
)
PRETTIER = Source(
    "npm",
    "prettier",
    "2.8.8",
    "61ff77c8b71fc0b9eb0ab2523d761735c66609f8de40cf60d67b98edda40a28d",
    "prettier-2.8.8.tgz",
)

KAPI = str(Path(sys.executable).parent / "kapi")

# Words the code bases use as names and in strings as much as in prose.
PY_VOICE = """\
name: Corpus
id: corpus
terms:
  - term: session
    replacement: connection pool
  - term: proxy
    replacement: relay
  - term: header
    replacement: field
"""
TS_VOICE = """\
name: Corpus
id: corpus
terms:
  - term: subscriber
    replacement: listener
  - term: observable
    replacement: stream
  - term: operator
    replacement: step
"""
RECIPE = """\
version: v1
name: corpus
defaults:
  source_language: en
  voice: corpus
collections:
  - name: code
    content:
      - path: "{glob}"
        comments: {comments}
"""
PRAGMAS = ("noqa", "type: ignore", "eslint-", "@ts-", "prettier-ignore", "tslint:", "pragma")


def run(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in ("KAPI_PROJECT", "KAPI_NO_PROJECT", "KAPI_ACTOR", "CLAUDECODE")
    }
    environment["PYTHONDONTWRITEBYTECODE"] = "1"
    return subprocess.run(
        [KAPI, *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        env=environment,
        check=False,
        timeout=900,
    )


def project(tmp: Path, tree: Path, glob: str, voice: str, formatter: str) -> Path:
    shutil.copytree(tree, tmp / "code")
    comments = f"{{formatter: {formatter}}}" if formatter else "true"
    (tmp / "kapi.yaml").write_text(RECIPE.format(glob=glob, comments=comments))
    (tmp / "voices").mkdir()
    (tmp / "voices" / "corpus.yaml").write_text(voice)
    return tmp


def offset_of(text: str, line: int, column: int) -> int:
    """The character offset of a 1-based line and UTF-16 column."""
    start = 0
    for _ in range(line - 1):
        start = text.index("\n", start) + 1
    units = 0
    index = start
    while units < column - 1:
        units += 2 if ord(text[index]) > 0xFFFF else 1
        index += 1
    return index


def python_prose_spans(text: str) -> list[tuple[int, int]]:
    """Comments and docstrings by Python's own tokenizer and parser, as character spans."""
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def at(row: int, col: int) -> int:  # tokenize counts columns in characters
        return starts[row - 1] + col

    spans = [
        (at(*token.start), at(*token.end))
        for token in tokenize.generate_tokens(io.StringIO(text).readline)
        if token.type == tokenize.COMMENT
    ]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                value = body[0].value
                if isinstance(value.value, str) and value.end_lineno is not None:
                    spans.append(
                        (
                            at(value.lineno, value.col_offset),
                            at(value.end_lineno, value.end_col_offset or 0),
                        )
                    )
    return spans


def check(root: Path) -> dict:
    done = run("check", "--json", "--no-fail", cwd=root)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def test_requests_findings_are_prose_in_comments_and_docstrings_only(tmp_path: Path):
    tree = unpacked(REQUESTS) / "requests-2.32.3" / "src" / "requests"
    root = project(tmp_path, tree, "code/**/*.py", PY_VOICE, "")
    report = check(root)
    findings = report["findings"]
    assert len(findings) >= 20, [f["rule"] for f in findings]
    files = {f["path"] for f in report["scope"]["files"] if f["status"] == "checked"}
    assert len(files) >= 15
    spans: dict[str, list[tuple[int, int]]] = {}
    for finding in findings:
        location = finding["location"]
        text = (root / location["file"]).read_text(encoding="utf-8")
        if location["file"] not in spans:
            spans[location["file"]] = python_prose_spans(text)
        start = offset_of(text, location["start"]["line"], location["start"]["column"])
        assert any(a <= start < b for a, b in spans[location["file"]]), (
            f"{location['file']}:{location['start']}: {finding['rule']} outside any comment"
        )
        line = text.splitlines()[location["start"]["line"] - 1]
        assert not any(pragma in line[line.find("#") :] for pragma in PRAGMAS if "#" in line)
        assert location["comment_sha256"]


def test_rxjs_findings_are_prose_in_comments_only(tmp_path: Path):
    tree = unpacked(RXJS) / "package" / "src"
    root = project(tmp_path, tree, "code/**/*.ts", TS_VOICE, "")
    report = check(root)
    findings = report["findings"]
    assert len(findings) >= 50
    from kapi.formats.comments.languages import language_named
    from kapi.formats.comments.parser import parse

    typescript = language_named("typescript")
    assert typescript is not None
    for finding in findings:
        location = finding["location"]
        text = (root / location["file"]).read_text(encoding="utf-8")
        start = offset_of(text, location["start"]["line"], location["start"]["column"])
        data = text.encode("utf-8")
        byte = len(text[:start].encode("utf-8"))
        node = parse(typescript, data).root_node.descendant_for_byte_range(byte, byte + 1)
        assert node is not None and "comment" in node.type, (
            f"{location['file']}:{location['start']}: {finding['rule']} in a {node and node.type}"
        )
        comment = data[node.start_byte : node.end_byte].decode()
        assert not any(pragma in comment for pragma in PRAGMAS)


def _apply(root: Path, doc: str, key: str, text: str) -> tuple[int, dict]:
    from kapi.formats.comments import read_comments

    comment = read_comments((root / doc).read_bytes(), doc).get(key)
    assert comment is not None, key
    change_set = {
        "ops": [
            {
                "op": "set_content",
                "at": {"doc": doc, "block": key},
                "if_match": comment.rev,
                "text": text,
            }
        ]
    }
    done = run("apply", "--json", "-", cwd=root, stdin=json.dumps(change_set))
    return done.returncode, json.loads(done.stdout)


def _first_prose(root: Path, doc: str, style: str) -> str:
    from kapi.formats.comments import read_comments

    found = read_comments((root / doc).read_bytes(), doc)
    return next(c.key for c in found.comments if c.style == style and len(c.text) > 40)


def test_one_requests_comment_is_edited_and_the_file_parses_and_formats(tmp_path: Path):
    tree = unpacked(REQUESTS) / "requests-2.32.3" / "src" / "requests"
    root = project(tmp_path, tree, "code/**/*.py", PY_VOICE, "ruff")
    doc = "code/api.py"
    before = (root / doc).read_bytes()
    key = _first_prose(root, doc, "docstring")
    code, result = _apply(root, doc, key, "Send a request, and give back its response.")
    assert code == 0, result
    after = (root / doc).read_text()
    ast.parse(after)
    ruff = Path(sys.executable).parent / "ruff"
    formatted = subprocess.run(
        [str(ruff), "format", "--check", "--stdin-filename", doc, "-"],
        input=after.encode(),
        capture_output=True,
        check=False,
    )
    assert formatted.returncode == 0, formatted.stderr
    # an edit that would close the docstring early is refused, and nothing is written
    code, result = _apply(root, doc, _first_prose(root, doc, "docstring"), 'ends """ early')
    assert code == 3 and result["ops"][0]["error"]["code"] == "guard"
    assert (root / doc).read_text() == after
    assert before != after.encode()


def test_one_rxjs_comment_is_edited_and_the_file_parses_and_formats(tmp_path: Path):
    tree = unpacked(RXJS) / "package" / "src"
    prettier = unpacked(PRETTIER) / "package" / "bin-prettier.js"
    root = project(tmp_path, tree, "code/**/*.ts", TS_VOICE, "prettier")
    (root / ".prettierrc").write_text('{"singleQuote": true, "printWidth": 140}\n')
    bin_dir = root / "node_modules" / ".bin"
    bin_dir.mkdir(parents=True)
    wrapper = bin_dir / "prettier"
    wrapper.write_text(f'#!/bin/sh\nexec node "{prettier}" "$@"\n')
    wrapper.chmod(0o755)
    doc = "code/internal/operators/map.ts"
    key = _first_prose(root, doc, "block")
    code, result = _apply(
        root,
        doc,
        key,
        "Applies a projection to each value the source emits, and emits what it gives back.",
    )
    assert code == 0, result
    after = (root / doc).read_text()
    checked = subprocess.run(
        ["node", str(prettier), "--check", doc], cwd=root, capture_output=True, check=False
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    from kapi.formats.comments import read_comments

    assert read_comments(after.encode(), doc).error_lines == ()
    # closing the block early is refused and writes nothing
    key = _first_prose(root, doc, "block")
    code, result = _apply(root, doc, key, "Ends */ early.")
    assert code == 3 and result["ops"][0]["error"]["code"] == "guard"
    assert (root / doc).read_text() == after
