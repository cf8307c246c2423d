"""Redaction: what must not leave the machine becomes typed placeholders, and back.

The detectors find e-mail addresses, URLs, IP addresses, card and phone
numbers, key-like strings (``sk-…``, ``tok_…``) and whatever the recipe's own
rules match (``defaults.redaction.rules``, checked when the recipe loads), after
those of a rules file a call names (the MCP ``redact`` tool's ``rulesPath``). Each
value becomes a placeholder such as ``{{EMAIL_8f993ccbf311}}`` whose original
the project's vault (:mod:`kapi.host.vault`) keeps under ``.kapi/``.

In content (the ``secure-translate`` flow) a value becomes a placeholder code
(``code:redacted``) whose ``equiv`` is that placeholder, never the value, so a
provider is sent only the code's token; after translation each code is its
original text again, read back from the vault.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from attrs import evolve, frozen

from kapi.core.model import Ph, Run, Runs, Text

if TYPE_CHECKING:
    from collections.abc import Sequence

    from kapi.host.project import Project, RedactionRule
    from kapi.host.vault import Vault

__all__ = ["BUILTIN", "REDACTED", "Detector", "Redactor", "detector_for"]

REDACTED = "code:redacted"
_NO_TRANSLATE = "no_translate"

# The built-in kinds, in the order they win when two match at the same place.
BUILTIN: tuple[tuple[str, str], ...] = (
    ("EMAIL", r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),
    ("URL", r"(?:https?|ftp)://[^\s<>\"']+"),
    ("IP", r"\b(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)\b"),
    ("CARD", r"\b(?:\d[ -]?){12,18}\d\b"),
    ("PHONE", r"(?<![\w+])\+?\d[\d ().-]{6,}\d\b"),
    ("KEY", r"\b(?:sk|pk|key|tok)[-_][A-Za-z0-9_-]{8,}\b"),
)


@frozen
class Detector:
    """Compiled rules, the recipe's first: ``(kind, pattern)`` each."""

    rules: tuple[tuple[str, re.Pattern[str]], ...]

    def spans(self, text: str) -> list[tuple[int, int, str]]:
        """``(start, end, kind)`` of each sensitive value, leftmost first, none overlapping.

        Where two rules match at the same place, the earlier rule wins (the
        recipe's before the built-in ones), then the longer match.
        """
        found: list[tuple[int, int, int, str]] = []
        for rank, (kind, pattern) in enumerate(self.rules):
            found.extend(
                (m.start(), rank, -m.end(), kind)
                for m in pattern.finditer(text)
                if m.end() > m.start()
            )
        chosen: list[tuple[int, int, str]] = []
        reached = 0
        for start, _, negative_end, kind in sorted(found):
            if start >= reached:
                chosen.append((start, -negative_end, kind))
                reached = -negative_end
        return chosen


def detector_for(project: Project | None, extra: Sequence[RedactionRule] = ()) -> Detector:
    """The built-in detectors, after the recipe's own rules when ``project`` declares any,
    after ``extra`` (a rules file's, :func:`kapi.host.project.redaction_rules_file`)."""
    rules: list[tuple[str, re.Pattern[str]]] = []
    own = project.redaction_rules if project is not None else ()
    for rule in (*extra, *own):
        flags = re.IGNORECASE if rule.ignore_case else 0
        rules.append((rule.category.upper(), re.compile(rule.pattern, flags)))
    rules.extend((kind, re.compile(pattern)) for kind, pattern in BUILTIN)
    return Detector(tuple(rules))


@frozen
class Redactor:
    """Redacts content into placeholder codes and restores it, keeping originals in ``vault``."""

    detector: Detector
    vault: Vault

    def redact(self, runs: Runs) -> Runs:
        """``runs`` with every sensitive value a ``code:redacted`` placeholder code."""
        out: list[Run] = []
        count = 0
        for run in runs:
            if not isinstance(run, Text):
                out.append(run)
                continue
            position = 0
            for start, end, kind in self.detector.spans(run.text):
                if start > position:
                    out.append(evolve(run, text=run.text[position:start]))
                count += 1
                out.append(
                    Ph(
                        id=f"r{count}",
                        type=REDACTED,
                        sub_type=kind.lower(),
                        equiv=self.vault.keep(kind, run.text[start:end]),
                        attrs={_NO_TRANSLATE: "true"} if run.no_translate else {},
                    )
                )
                position = end
            if position < len(run.text):
                out.append(evolve(run, text=run.text[position:]))
        return tuple(out)

    def restore(self, runs: Runs) -> Runs:
        """``runs`` with each placeholder code its original text again (``KeyError`` when the
        vault lost it)."""
        from kapi.core.edittext import merge_text

        return merge_text(
            Text(self.vault.original(run.equiv), no_translate=_NO_TRANSLATE in run.attrs)
            if isinstance(run, Ph) and run.type == REDACTED
            else run
            for run in runs
        )
