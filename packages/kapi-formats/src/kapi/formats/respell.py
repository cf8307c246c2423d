"""An edited value in the spelling its file held: kept characters keep their bytes.

A codec lists a value's raw text as ``(character, spelling)`` units; the edit's
new text is matched against the old, the kept characters are written as the
file spelled them, and only the new ones are spelled afresh.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence

Unit = tuple[str, str]  # a decoded character and the raw text that spelled it


def respell(units: Sequence[Unit], value: str, spell: Callable[[str], str]) -> str:
    """``value`` in the units' spelling where it keeps their characters, ``spell`` elsewhere.

    A new character the old value escaped takes the same escape; a match of a
    character or two inside new text is chance and is spelled afresh.
    """
    old = "".join(char for char, _ in units)
    chosen = {
        char: spelling
        for char, spelling in units
        if spelling != char and "\n" not in spelling and "\r" not in spelling
    }
    out: list[str] = []
    matcher = difflib.SequenceMatcher(None, old, value, autojunk=False)
    for tag, old_start, old_end, new_start, new_end in matcher.get_opcodes():
        if tag == "equal" and (old_end - old_start >= 3 or old_end - old_start == len(old)):
            out.extend(spelling for _, spelling in units[old_start:old_end])
            continue
        out.extend(chosen.get(char) or spell(char) for char in value[new_start:new_end])
    return "".join(out)
