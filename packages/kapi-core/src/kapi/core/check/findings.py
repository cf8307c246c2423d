"""What a check finds: a rule broken (or a wording reported) at a run-anchored place."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from attrs import field, frozen

from kapi.core.check.text import Anchor

__all__ = ["FilePosition", "Finding", "Lines", "Location", "Point", "finding_weight", "fix_op"]

WEIGHT_FAILING = 25
WEIGHT_REPORTING = 1
WEIGHT_SUGGESTED = 0


@frozen
class Lines:
    """The lines of the file a block occupies (1-based, inclusive), when the host knows them."""

    start: int
    end: int


@frozen
class FilePosition:
    """A place in the file as editors count it: 1-based line, 1-based column in UTF-16 code units."""

    line: int
    column: int


@frozen
class Location:
    """Where a finding is: the file, the block's reference key, the range inside its runs.

    A finding about the whole file (a required pattern that is missing) has
    no block; one about a whole block has no anchor. ``start`` and ``end``
    (exclusive) are where the anchored text stands in the file, when its
    format can tell; then ``snippet`` is the text as the file writes it.
    """

    file: str = ""
    block: str = ""
    anchor: Anchor | None = None
    lines: Lines | None = None
    comment_sha256: str | None = None
    snippet: str = ""
    start: FilePosition | None = None
    end: FilePosition | None = None


@frozen
class Point:
    """The governance point a finding was judged at."""

    profile: str = ""
    channel: str = ""
    comments: bool = False


@frozen
class Finding:
    """One finding. ``rule`` is ``<family>.<category>`` (``voice.vocabulary``), ``check`` the family.

    ``fails`` decides the verdict; ``suggested`` marks a hit of a pending
    suggestion (never failing, weight 0). ``replacement`` is the exact text
    that would replace the anchored range, when the rule knows one.
    """

    rule: str
    check: str
    fails: bool
    message: str
    location: Location = Location()
    suggestion: str = ""
    replacement: str | None = None
    point: Point | None = None
    metadata: Mapping[str, Any] = field(factory=dict)
    suggested: bool = False
    fix: Mapping[str, Any] | None = None
    analyzer: str = field(default="", eq=False)


def finding_weight(finding: Finding) -> int:
    """The score weight of a finding: failing 25, reporting 1, suggested 0 (spec §4.5)."""
    if finding.suggested:
        return WEIGHT_SUGGESTED
    return WEIGHT_FAILING if finding.fails else WEIGHT_REPORTING


def fix_op(finding: Finding, *, doc: str, if_match: str) -> dict[str, Any] | None:
    """The ``kapi.change/v1`` ``replace_text`` op that applies a finding's replacement, if it has one.

    The host knows the document reference and the block's revision; the
    finding knows the range. ``None`` when the finding has no replacement or
    no range.
    """
    anchor = finding.location.anchor
    if finding.replacement is None or anchor is None or not finding.location.block:
        return None
    edit: dict[str, Any] = {
        "range": {
            "start": {"run": anchor.start.run, "offset": anchor.start.offset},
            "end": {"run": anchor.end.run, "offset": anchor.end.offset},
        },
        "text": finding.replacement,
    }
    if anchor.path:
        edit["path"] = [
            step if isinstance(step, int) else {step[0]: step[1]} for step in anchor.path
        ]
    return {
        "op": "replace_text",
        "at": {"doc": doc, "block": finding.location.block},
        "if_match": if_match,
        "edits": [edit],
    }
