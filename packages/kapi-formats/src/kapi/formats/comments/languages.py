"""The source languages kapi reads comments in: extensions, grammar wheel, markers, formatter.

Nothing here imports a parser; the grammar is loaded from its wheel the first
time a file of the language is read (:mod:`kapi.formats.comments.parser`).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import PurePosixPath

from attrs import frozen

__all__ = ["LANGUAGES", "Language", "is_source_file", "language_for", "language_named"]


@frozen
class Language:
    """One language: how its files are named, which grammar reads them, how comments are marked.

    ``line_markers`` open a comment that runs to the end of its line, longest
    first; ``block_markers`` are ``(open, close)`` pairs; ``docstrings`` says
    that string statements documenting a module, class or function are comments
    too (Python). ``formatter`` is the formatter the language usually declares.
    """

    name: str
    extensions: tuple[str, ...]
    grammar: str
    function: str = "language"
    line_markers: tuple[str, ...] = ("//",)
    block_markers: tuple[tuple[str, str], ...] = (("/*", "*/"),)
    docstrings: bool = False
    formatter: str = ""


_C_LINE = ("///", "//!", "//")
_C_BLOCK = (("/**", "*/"), ("/*!", "*/"), ("/*", "*/"))

LANGUAGES: tuple[Language, ...] = (
    Language(
        "python",
        (".py", ".pyi"),
        "tree_sitter_python",
        line_markers=("#:", "#"),
        block_markers=(),
        docstrings=True,
        formatter="ruff",
    ),
    Language(
        "javascript",
        (".js", ".mjs", ".cjs", ".jsx"),
        "tree_sitter_javascript",
        line_markers=_C_LINE,
        block_markers=_C_BLOCK,
        formatter="prettier",
    ),
    Language(
        "typescript",
        (".ts", ".mts", ".cts"),
        "tree_sitter_typescript",
        "language_typescript",
        line_markers=_C_LINE,
        block_markers=_C_BLOCK,
        formatter="prettier",
    ),
    Language(
        "tsx",
        (".tsx",),
        "tree_sitter_typescript",
        "language_tsx",
        line_markers=_C_LINE,
        block_markers=_C_BLOCK,
        formatter="prettier",
    ),
    Language(
        "go",
        (".go",),
        "tree_sitter_go",
        line_markers=("//",),
        block_markers=(("/*", "*/"),),
        formatter="gofmt",
    ),
    Language("rust", (".rs",), "tree_sitter_rust", line_markers=_C_LINE, block_markers=_C_BLOCK),
    Language("java", (".java",), "tree_sitter_java", line_markers=_C_LINE, block_markers=_C_BLOCK),
    Language("c", (".c", ".h"), "tree_sitter_c", line_markers=_C_LINE, block_markers=_C_BLOCK),
    Language(
        "cpp",
        (".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx"),
        "tree_sitter_cpp",
        line_markers=_C_LINE,
        block_markers=_C_BLOCK,
    ),
    Language(
        "csharp", (".cs",), "tree_sitter_c_sharp", line_markers=_C_LINE, block_markers=_C_BLOCK
    ),
    Language(
        "ruby",
        (".rb",),
        "tree_sitter_ruby",
        line_markers=("#",),
        block_markers=(("=begin", "=end"),),
    ),
    Language(
        "php",
        (".php",),
        "tree_sitter_php",
        "language_php",
        line_markers=("//", "#"),
        block_markers=_C_BLOCK,
    ),
    Language(
        "swift", (".swift",), "tree_sitter_swift", line_markers=_C_LINE, block_markers=_C_BLOCK
    ),
    Language(
        "kotlin",
        (".kt", ".kts"),
        "tree_sitter_kotlin",
        line_markers=_C_LINE,
        block_markers=_C_BLOCK,
    ),
    Language(
        "shell",
        (".sh", ".bash", ".zsh"),
        "tree_sitter_bash",
        line_markers=("#",),
        block_markers=(),
    ),
)

_BY_EXTENSION = {ext: language for language in LANGUAGES for ext in language.extensions}
_BY_NAME = {language.name: language for language in LANGUAGES}

# Source files kapi knows by name but reads no comments in: a clear "unsupported" beats silence.
KNOWN_WITHOUT_GRAMMAR = frozenset(
    {".lua", ".pl", ".pm", ".r", ".scala", ".dart", ".ex", ".exs", ".hs", ".clj", ".m", ".zig"}
)


def language_for(path: str) -> Language | None:
    """The language a file's extension names, or ``None``."""
    return _BY_EXTENSION.get(PurePosixPath(path.replace("\\", "/")).suffix.lower())


def language_named(name: str) -> Language | None:
    return _BY_NAME.get(name)


@lru_cache(maxsize=1024)  # a change set's ops name a few documents, many times over
def is_source_file(path: str) -> bool:
    """Whether a file is source code: one kapi reads comments in, or knows as code without."""
    suffix = PurePosixPath(path.replace("\\", "/")).suffix.lower()
    return suffix in _BY_EXTENSION or suffix in KNOWN_WITHOUT_GRAMMAR
