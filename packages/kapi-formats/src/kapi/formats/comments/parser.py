"""The tree-sitter side: a language's grammar from its wheel, a parse, and the syntax errors.

tree-sitter and the grammar wheels are the optional extra ``kapi-formats[code]``;
they are imported here and only here, the first time a source file's comments
are read, so no other path of kapi pays for them.
"""

from __future__ import annotations

import importlib
from typing import Any

from kapi.core.format import FormatError
from kapi.formats.comments.languages import Language

__all__ = ["EXTRA_HINT", "CodeExtraMissing", "captures", "error_lines", "parse"]

EXTRA_HINT = "pip install 'kapi-formats[code]'"

_PARSERS: dict[str, Any] = {}
_QUERIES: dict[str, Any] = {}
# The node kinds grammars give comments; a grammar has some of them.
_COMMENT_KINDS = ("comment", "line_comment", "block_comment", "multiline_comment")
_DOC_OWNERS = ("module", "class_definition", "function_definition")


class CodeExtraMissing(FormatError):
    """tree-sitter or a language's grammar is not installed: names the extra that brings it."""

    def __init__(self, what: str, *, path: str = "") -> None:
        super().__init__(
            f"reading code comments needs {what}, which is not installed: {EXTRA_HINT}",
            path=path,
            code="unsupported",
            capability="comment",
        )


def _parser(language: Language, path: str) -> Any:
    cached = _PARSERS.get(language.name)
    if cached is not None:
        return cached
    try:
        import tree_sitter
    except ImportError:
        raise CodeExtraMissing("tree-sitter", path=path) from None
    try:
        grammar = importlib.import_module(language.grammar)
    except ImportError:
        raise CodeExtraMissing(
            f"the {language.name} grammar ({language.grammar.replace('_', '-')})", path=path
        ) from None
    grammar_language = tree_sitter.Language(getattr(grammar, language.function)())
    parser = tree_sitter.Parser(grammar_language)
    _PARSERS[language.name] = parser
    kinds = [kind for kind in _COMMENT_KINDS if grammar_language.id_for_node_kind(kind, True)]
    patterns = [f"({kind}) @comment" for kind in kinds]
    if language.docstrings:
        patterns += [f"({owner}) @owner" for owner in _DOC_OWNERS]
    _QUERIES[language.name] = tree_sitter.QueryCursor(
        tree_sitter.Query(grammar_language, " ".join(patterns))
    )
    return parser


def parse(language: Language, data: bytes, *, path: str = "") -> Any:
    """The syntax tree of ``data``; raises :class:`CodeExtraMissing` without the extra."""
    return _parser(language, path).parse(data)


def captures(language: Language, tree: Any) -> dict[str, list[Any]]:
    """The tree's comment nodes (``comment``) and docstring owners (``owner``), found in C."""
    found: dict[str, list[Any]] = _QUERIES[language.name].captures(tree.root_node)
    return found


def error_lines(tree: Any, limit: int = 5) -> tuple[int, ...]:
    """The 1-based lines where the parser met a syntax error (at most ``limit``)."""
    root = tree.root_node
    if not root.has_error:
        return ()
    found: list[int] = []
    stack = [root]
    while stack and len(found) < limit:
        node = stack.pop()
        if not node.has_error:
            continue
        if node.is_error or node.is_missing:
            line = node.start_point[0] + 1
            if line not in found:
                found.append(line)
            continue
        stack.extend(reversed(node.children))
    return tuple(sorted(found)) or (root.start_point[0] + 1,)
