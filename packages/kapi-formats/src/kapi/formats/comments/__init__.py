"""Code comments: the prose of source files, read with tree-sitter and rewritten in place.

:func:`read_comments` reads a file's comments into :class:`Comment` blocks;
:func:`rewrite_comment` writes new prose into one, inside its markers.
tree-sitter and the grammars are the optional extra ``kapi-formats[code]``,
imported only when a source file is read for its comments.
"""

from __future__ import annotations

from kapi.formats.comments.languages import LANGUAGES, Language, language_for
from kapi.formats.comments.model import Comment, CommentFile, Shape, Skipped
from kapi.formats.comments.parser import EXTRA_HINT, CodeExtraMissing
from kapi.formats.comments.reader import (
    UnsupportedLanguage,
    is_source_file,
    language_of,
    read_comments,
)

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
