"""What the engine checks: a file's blocks (or a draft's text), with the scope a diff gives it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from enum import StrEnum
from typing import TYPE_CHECKING

from attrs import field, frozen

from kapi.core.check.findings import Lines
from kapi.core.model import Block, Text

if TYPE_CHECKING:
    from kapi.core.format import TextLocator

__all__ = ["UNCHECKED_ROLES", "CheckTarget", "ScopeStatus", "checked_blocks", "text_target"]

# Never checked: code blocks and front matter are not prose (spec §4, issue K3).
UNCHECKED_ROLES = frozenset({"code", "front-matter"})


class ScopeStatus(StrEnum):
    """A file's ``scope`` status in the report: read and checked, or why not."""

    CHECKED = "checked"
    UNTOUCHED = "untouched"
    NO_CONTENT = "no_content"
    OUT_OF_SCOPE = "out_of_scope"
    NO_READER = "no_reader"
    DELETED = "deleted"
    DID_NOT_RUN = "did_not_run"


@frozen
class CheckTarget:
    """One file (or text) to check, already read by a format.

    ``status`` is the file's ``scope`` status: ``checked`` for content the
    engine reads; the host passes ``did_not_run`` (unreadable), ``no_reader``,
    ``deleted``, ``untouched`` or ``out_of_scope`` with a ``reason`` for files
    it could not or need not read, so they are reported and never silently
    pass. ``scope_blocks`` (a diff) limits findings to those block keys while
    document-level rules still read the whole file. ``target_blocks`` is the
    ``--target`` file's blocks, paired with these by reference key.
    ``source_blocks`` says the file checked is itself a translation in
    ``target_locale`` (its ``blocks`` the translated text, in ``locale``):
    the bilingual analyzers compare these blocks of its source, written in
    ``source_locale``, with its own, paired by reference key, and their
    findings point into this file.
    ``block_lines`` maps block keys to line spans for locations;
    ``locator``, when the format gives one, places a finding's anchor at its
    line and column in the file. ``comments`` says the blocks are a source
    file's comments (governance resolves at the comment voice);
    ``fingerprints`` maps a comment block's key to its ``comment_sha256``.
    """

    file: str = ""
    format: str = ""
    blocks: tuple[Block, ...] = ()
    locale: str = ""
    kind: str = "file"
    context_path: str = ""
    status: ScopeStatus = ScopeStatus.CHECKED
    reason: str = ""
    scope_blocks: frozenset[str] | None = None
    target_blocks: tuple[Block, ...] | None = None
    target_locale: str = ""
    source_blocks: tuple[Block, ...] | None = None
    source_locale: str = ""
    block_lines: Mapping[str, Lines] = field(factory=dict)
    extraction_ms: float = 0.0
    locator: TextLocator | None = field(default=None, eq=False, repr=False)
    comments: bool = False
    fingerprints: Mapping[str, str] = field(factory=dict)


def checked_blocks(blocks: tuple[Block, ...]) -> tuple[Block, ...]:
    """The blocks a check reads: translatable prose, never code blocks or front matter."""
    return tuple(
        block for block in blocks if block.translatable and block.role not in UNCHECKED_ROLES
    )


def text_target(
    text: str, *, locale: str = "", context_path: str = "", file: str = ""
) -> CheckTarget:
    """A draft as a target (``check_text``): one block per paragraph (blank-line separated)."""
    blocks: list[Block] = []
    for index, paragraph in enumerate(re.split(r"\n[ \t]*\n", text.strip("\n")), start=1):
        if not paragraph.strip():
            continue
        blocks.append(Block(id=f"p{index}", source=(Text(paragraph),), locale=locale))
    return CheckTarget(
        file=file,
        format="text",
        blocks=tuple(blocks),
        locale=locale,
        kind="text",
        context_path=context_path,
    )
