"""The ``memory`` provider: a segment the content memory holds exactly, its codes mapped in order."""

from __future__ import annotations

import re

from kapi.core.edittext import TOKEN
from kapi.host.providers.port import TranslationBatch

__all__ = ["MemoryProvider", "adapt_codes"]


def adapt_codes(memory_source: str, memory_target: str, source: str) -> str | None:
    """The memory target with its code tokens renamed to ``source``'s, matched by order and shape.

    None when the two sources' codes differ in number or shape.
    """
    theirs = TOKEN.findall(memory_source)
    ours = TOKEN.findall(source)
    if len(theirs) != len(ours) or any(_shape(a) != _shape(b) for a, b in zip(theirs, ours)):
        return None
    names = {_bare(a): _bare(b) for a, b in zip(theirs, ours)}

    def rename(match: re.Match[str]) -> str:
        token = match.group(1)
        bare = _bare(token)
        if bare not in names:
            return match.group(0)
        new = names[bare]
        shape = _shape(token)
        return f'<x id="{"/" + new if shape == "close" else new + "/" if shape == "ph" else new}"/>'

    return TOKEN.sub(rename, memory_target)


def _shape(token: str) -> str:
    return "ph" if token.endswith("/") else "close" if token.startswith("/") else "open"


def _bare(token: str) -> str:
    return token[:-1] if token.endswith("/") else token.lstrip("/")


class MemoryProvider:
    """Leverages the memory's exact tiers (score 1.0); a segment with no such match is left out."""

    name = "memory"
    engine = "memory"

    def __init__(self, index: object) -> None:
        self.index = index

    def translate(self, batch: TranslationBatch) -> dict[str, str]:
        from kapi.host.memory import find_matches
        from kapi.host.memory_store import MemoryIndex

        out: dict[str, str] = {}
        if not isinstance(self.index, MemoryIndex):
            return out
        for segment in batch.segments:
            for match in find_matches(
                self.index, segment.text, batch.source_lang, batch.target_lang, 1.0
            ):
                adapted = adapt_codes(match.source, match.target, segment.text)
                if adapted is not None and match.score >= 1.0:
                    out[segment.id] = adapted
                    break
        return out
