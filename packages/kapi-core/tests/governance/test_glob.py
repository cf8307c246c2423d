"""Doublestar globs: ``**`` across directories, ``{a,b}``, sets and escapes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kapi.core.governance.glob import GlobError, glob_match, literal_prefix


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("docs/**/*.md", "docs/a.md", True),
        ("docs/**/*.md", "docs/x/y/a.md", True),
        ("docs/**/*.md", "docsx/a.md", False),
        ("**/*.md", "a.md", True),
        ("**/*.md", "x/y/a.md", True),
        ("**", "any/thing", True),
        ("docs/**", "docs", True),
        ("docs/**", "docs/a/b", True),
        ("docs/**", "docsa", False),
        ("*.md", "x/a.md", False),
        ("*.{md,mdx}", "a.mdx", True),
        ("*.{md,mdx}", "a.txt", False),
        ("{docs/**,src/*.md}", "docs/a/b.md", True),
        ("{docs/**,src/*.md}", "src/x/b.md", False),
        ("src/{a,b{c,d}}/x", "src/bd/x", True),
        ("src/{a,b{c,d}}/x", "src/b/x", False),
        ("a/[!b]c", "a/xc", True),
        ("a/[!b]c", "a/bc", False),
        ("a/[bc]d", "a/cd", True),
        ("a/[a-c]d", "a//d", False),
        ("a?c", "abc", True),
        ("a?c", "a/c", False),
        (r"a\*b", "a*b", True),
        (r"a\*b", "axb", False),
        ("l10n/*.json", "./l10n/en.json", True),
        (".github/**", ".github/workflows/ci.yml", True),
        ("*", ".hidden", True),
        ("a.b", "axb", False),
        ("a+b(c)", "a+b(c)", True),
    ],
)
def test_glob_match(pattern: str, path: str, expected: bool) -> None:
    assert glob_match(pattern, path) is expected


@pytest.mark.parametrize("pattern", ["a/[bc", "{a,b", "x/{y"])
def test_malformed_globs_are_refused(pattern: str) -> None:
    with pytest.raises(GlobError):
        glob_match(pattern, "x")


@pytest.mark.parametrize(
    ("pattern", "prefix"),
    [("docs/api/**/*.md", "docs/api"), ("*.md", ""), ("docs/a.md", "docs"), ("a/{b,c}/d", "a")],
)
def test_literal_prefix(pattern: str, prefix: str) -> None:
    assert literal_prefix(pattern) == prefix


_SEGMENT = st.text(alphabet="abcXYZ019._-", min_size=1, max_size=8).filter(
    lambda s: s not in (".", "..")
)
_PATHS = st.lists(_SEGMENT, min_size=1, max_size=5).map("/".join)


@given(_PATHS)
def test_a_literal_path_matches_itself_and_doublestar_matches_it_anywhere(path: str) -> None:
    assert glob_match(path, path)
    assert glob_match("**/" + path.rsplit("/", 1)[-1], path)
    assert glob_match("**", path)


@given(_PATHS, _SEGMENT)
def test_single_star_never_crosses_a_directory(path: str, name: str) -> None:
    assert glob_match("*", name)
    assert glob_match("*", path) is ("/" not in path)
