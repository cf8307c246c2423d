"""Code comments: the prose of source files, read with tree-sitter and rewritten in place.

:func:`read_comments` reads a file's comments into :class:`Comment` blocks;
:func:`~kapi.formats.comments.rewrite.rewrite_comment` writes new prose into
one, inside its markers. tree-sitter and the grammars are the optional extra
``kapi-formats[code]``, imported only when a source file is read for its
comments; importing this package loads nothing but the names asked for.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = [
    "EXTRA_HINT",
    "LANGUAGES",
    "CodeExtraMissing",
    "Comment",
    "CommentFile",
    "Language",
    "Shape",
    "Skipped",
    "UnsupportedLanguage",
    "is_source_file",
    "language_for",
    "language_of",
    "read_comments",
]

_HOMES = {
    "LANGUAGES": "languages",
    "Language": "languages",
    "language_for": "languages",
    "is_source_file": "languages",
    "Comment": "model",
    "CommentFile": "model",
    "Shape": "model",
    "Skipped": "model",
    "EXTRA_HINT": "parser",
    "CodeExtraMissing": "parser",
    "UnsupportedLanguage": "reader",
    "language_of": "reader",
    "read_comments": "reader",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
