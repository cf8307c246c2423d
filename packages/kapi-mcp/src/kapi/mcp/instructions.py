"""What the server tells an agent at initialize, when it serves the writing set."""

from __future__ import annotations

__all__ = ["INSTRUCTIONS"]

INSTRUCTIONS = (
    "kapi keeps this project's wording. Follow the rules in kapi's section of "
    "`AGENTS.md and CLAUDE.md`; call context_read only for a file no section covers or "
    "for the full answer: it says what applies and which old names stay correct. "
    "For Word, XLIFF and other files your own tools cannot safely edit, use read_blocks "
    "and apply_edits; describe_format says what a format accepts. "
    "Record with context_note what the files keep to but the rules omit, even where your "
    "own text does not need it: a name, the spelling variety, a word preferred over a "
    "common alternative, with its path. Leave alone a word the files write two ways. "
    "Record a person's edits with `from, to, path`; `withdraw` takes back a mistake. "
    "`A person decides what becomes a rule`. "
    "Run check_file on each changed file and fix its findings; after a note, end with "
    "context_session_summary."
)
