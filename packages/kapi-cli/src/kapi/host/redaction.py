"""Redaction: what must not leave the machine becomes codes a provider must keep, and back.

E-mail addresses, URLs, long digit runs (cards, phones, account numbers) and
key-like strings (``sk-…``, ``tok_…``) in translatable text become placeholder
codes holding the original as their text equivalent; after translation each
such code is text again, exactly as it was.
"""

from __future__ import annotations

import re

from kapi.core.model import Ph, Run, Runs, Text

__all__ = ["REDACTED", "redact_runs", "unredact_runs"]

_SENSITIVE = re.compile(
    r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
    r"|(?:https?|ftp)://[^\s<>\"']+"
    r"|\b(?:\d[ -]?){9,19}\d\b"
    r"|\b(?:sk|pk|key|tok)[-_][A-Za-z0-9_-]{8,}\b"
)
REDACTED = "code:redacted"


def redact_runs(runs: Runs) -> Runs:
    """``runs`` with every sensitive span of its text a placeholder code holding the original."""
    out: list[Run] = []
    count = 0
    for run in runs:
        if not isinstance(run, Text) or run.no_translate:
            out.append(run)
            continue
        position = 0
        for match in _SENSITIVE.finditer(run.text):
            if match.start() > position:
                out.append(Text(run.text[position : match.start()]))
            count += 1
            out.append(Ph(id=f"r{count}", type=REDACTED, equiv=match.group(0)))
            position = match.end()
        if position < len(run.text):
            out.append(Text(run.text[position:]))
    return tuple(out)


def unredact_runs(runs: Runs) -> Runs:
    from kapi.core.edittext import merge_text

    return merge_text(
        Text(run.equiv) if isinstance(run, Ph) and run.type == REDACTED else run for run in runs
    )
