"""Tool evidence about a rule, counted without a model: uses in text, lines a merge moved.

A ``usage`` signal is the count of a rule's preferred and rejected uses in the
project's content; a ``merge`` signal counts the lines a merged change added
with the preferred wording and removed with a rejected one. Both are content
addressed, so two machines counting the same thing record one op.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable

from kapi.core.context.record import OpKind, TermRule
from kapi.core.context.settle import content_address

__all__ = ["UseCounter", "common_folder", "merge_address", "pr_number", "usage_address"]


def _pattern(forms: Iterable[str], case_sensitive: bool) -> re.Pattern[str] | None:
    words = sorted({f for f in forms if f}, key=len, reverse=True)
    if not words:
        return None
    alternation = "|".join(re.escape(w) for w in words)
    return re.compile(rf"(?<!\w)(?:{alternation})(?!\w)", 0 if case_sensitive else re.IGNORECASE)


class UseCounter:
    """Counts a rule's uses: the preferred wording, and any avoided form (whole words; case
    ignored unless the rule tells forms apart by case). A preferred use is counted first, so
    an avoided form inside the preferred wording is not counted again."""

    def __init__(self, rule: TermRule) -> None:
        folded = rule.replacement.casefold()
        avoided = [f for f in rule.avoided if rule.case_sensitive or f.casefold() != folded]
        self.preferred = _pattern([rule.replacement], rule.case_sensitive)
        self.rejected = _pattern(avoided, rule.case_sensitive)

    def count(self, text: str) -> tuple[int, int]:
        """How many preferred and rejected uses ``text`` holds."""
        preferred = 0
        if self.preferred is not None:
            text, preferred = self.preferred.subn("\0", text)
        rejected = len(self.rejected.findall(text)) if self.rejected is not None else 0
        return preferred, rejected


_PR = (
    re.compile(r"^Merge pull request #(\d+)\b"),
    re.compile(r"\(#(\d+)\)\s*$"),
    re.compile(r"^Merge branch .* into .*\(#(\d+)\)"),
    re.compile(r"\bSee merge request [^\s!]*!(\d+)"),
)


def pr_number(subject: str) -> str:
    """The pull request a merge commit's subject names (``Merge pull request #412 …``,
    ``Title (#412)``), else ``""``."""
    for pattern in _PR:
        found = pattern.search(subject.strip())
        if found:
            return found.group(1)
    return ""


def common_folder(paths: Iterable[str]) -> str:
    """The deepest folder holding every path, with a trailing slash (``docs/``); ``""`` for
    the project's root."""
    folders = [posixpath.dirname(p) for p in paths]
    if not folders:
        return ""
    common = posixpath.commonpath(folders) if all(folders) else ""
    return common + "/" if common else ""


def usage_address(
    target: str, preferred: int, rejected: int, within: str, previous: str = ""
) -> str:
    """A usage count's content address (the count before it included)."""
    return content_address(OpKind.SIGNAL, target, "usage", preferred, rejected, within, previous)


def merge_address(target: str, commit: str) -> str:
    """A merge signal's content address: one per suggestion and commit."""
    return content_address(OpKind.SIGNAL, target, "merge", commit)
