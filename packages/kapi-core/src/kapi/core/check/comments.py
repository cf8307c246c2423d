"""``comments``: the limits a voice sets for code comments (``style.comments``); ``formatter``.

``comment.length`` (a comment of more words than the limit for what it is),
``comment.sentence-length`` (a sentence of more words than the limit),
``comment.first-person`` (``I``, ``we``, ``my``… when the voice forbids them)
and ``comment.todo-owner`` (a ``TODO`` or ``FIXME`` naming nobody, when the
voice asks for an owner). They report unless ``style.comments.fails`` is
true. Only comment blocks (role ``comment``) are read; inline code never
counts as words. ``formatter`` turns the host's formatter verdicts into
``formatter.<name>`` findings, which fail.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Mapping
from typing import Any

from attrs import frozen

from kapi.core.check.analyzers import Analyzer, AnalyzerStatus, CheckUnit, Probe
from kapi.core.check.findings import Finding
from kapi.core.model import Block, Text

__all__ = [
    "COMMENT_ROLE",
    "CommentLimits",
    "CommentsAnalyzer",
    "FormatterAnalyzer",
    "FormatterVerdictValue",
    "canary_file",
    "comment_limits",
]

COMMENT_ROLE = "comment"

_WORD = re.compile(r"[^\W_][\w'’-]*")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(`])|\n[ \t]*\n")
_FIRST_PERSON = re.compile(
    r"\bI\b|\bI['’](?:m|ve|d|ll)\b|(?i:\b(?:me|my|mine|myself|we|we['’](?:re|ve|ll|d)|us|our|ours|ourselves)\b)"
)
_TODO = re.compile(r"\b(TODO|FIXME|XXX|HACK)\b(\s*\(([^)]*)\))?(\s*[:-]?\s*@?\w+:)?")


@frozen
class CommentLimits:
    """``style.comments`` read: word limits, and which optional rules the voice asks for."""

    max_words: int = 100
    doc_max_words: int = 150
    sentence_words: int = 50
    first_person: bool = True
    todo_owner: bool = False
    fails: bool = False


def _int(value: Any, default: int) -> int:
    return (
        value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else default
    )


def comment_limits(settings: Mapping[str, Any]) -> CommentLimits:
    """The limits a voice's ``style.comments`` sets (defaults where it names no number)."""
    first_person = settings.get("first_person", True)
    return CommentLimits(
        max_words=_int(settings.get("max_words"), 100),
        doc_max_words=_int(settings.get("doc_max_words"), 150),
        sentence_words=_int(settings.get("sentence_words"), 50),
        first_person=bool(first_person) if isinstance(first_person, bool) else True,
        todo_owner=settings.get("todo_owner") is True,
        fails=settings.get("fails") is True,
    )


class CommentsAnalyzer(Analyzer):
    id = "comments"
    family = "comment"

    def _limits(self, unit: CheckUnit) -> CommentLimits | None:
        voice = unit.governance.voice
        if voice is None or not voice.style.comments:
            return None
        return comment_limits(voice.style.comments)

    def plan(self, unit: CheckUnit) -> tuple[AnalyzerStatus, str] | None:
        if not any(block.role == COMMENT_ROLE for block in unit.blocks):
            return AnalyzerStatus.NOT_APPLICABLE, "no code comments"
        if self._limits(unit) is None:
            return AnalyzerStatus.NOT_REQUESTED, "the voice sets no comment limits (style.comments)"
        return None

    def canary_key(self, unit: CheckUnit) -> Hashable:
        return (self.id, self._limits(unit))

    def run(self, unit: CheckUnit) -> list[Finding]:
        limits = self._limits(unit)
        if limits is None:
            return []
        out: list[Finding] = []
        for block in unit.blocks:
            if block.role != COMMENT_ROLE:
                continue
            out.extend(self._block(unit, block, limits))
        return out

    def _block(self, unit: CheckUnit, block: Block, limits: CommentLimits) -> list[Finding]:
        views = unit.views(block)
        if not views:
            return []
        view = views[0]
        prose = view.prose  # inline code, placeholders and URLs masked: never words
        out: list[Finding] = []
        doc = block.properties.get("doc") == "true"
        limit = limits.doc_max_words if doc else limits.max_words
        words = len(_WORD.findall(prose))
        if words > limit:
            kind = "doc comment" if doc else "comment"
            out.append(
                self.finding(
                    unit,
                    "comment.length",
                    f"this {kind} has {words} words, over the limit of {limit}",
                    fails=limits.fails,
                    block=block,
                    metadata={"words": words, "limit": limit},
                )
            )
        at = 0
        for piece in [*_SENTENCE_END.split(prose)]:
            start = prose.index(piece, at) if piece else at
            at = start + len(piece)
            count = len(_WORD.findall(piece))
            if count > limits.sentence_words:
                out.append(
                    self.finding(
                        unit,
                        "comment.sentence-length",
                        f"a sentence of {count} words, over the limit of {limits.sentence_words}",
                        fails=limits.fails,
                        block=block,
                        view=view,
                        span=(start, start + len(piece.rstrip())),
                        metadata={"words": count, "limit": limits.sentence_words},
                    )
                )
        if not limits.first_person:
            for match in _FIRST_PERSON.finditer(prose):
                out.append(
                    self.finding(
                        unit,
                        "comment.first-person",
                        f"{match.group(0)!r}: the voice writes comments without the first person",
                        fails=limits.fails,
                        block=block,
                        view=view,
                        span=match.span(),
                    )
                )
        if limits.todo_owner:
            for match in _TODO.finditer(prose):
                if (match.group(3) or "").strip() or match.group(4):
                    continue
                out.append(
                    self.finding(
                        unit,
                        "comment.todo-owner",
                        f"{match.group(1)} names no owner; write {match.group(1)}(name): …",
                        fails=limits.fails,
                        block=block,
                        view=view,
                        span=match.span(1),
                    )
                )
        return out

    def probes(self, unit: CheckUnit) -> list[Probe]:
        limits = self._limits(unit)
        if limits is None:
            return []

        def sample(text: str, doc: bool = False) -> Block:
            return Block(
                id="canary",
                source=(Text(text),),
                role=COMMENT_ROLE,
                properties={"doc": "true" if doc else "false"},
            )

        long_sentence = "Canary " + " ".join(["word"] * limits.sentence_words) + "."
        probes = [
            Probe(
                unit.with_blocks([sample(long_sentence)]),
                "comment.sentence-length",
                long_sentence[:40] + "…",
            )
        ]
        if not limits.first_person:
            probes.append(
                Probe(
                    unit.with_blocks([sample("Here we read the file.")]),
                    "comment.first-person",
                    "Here we read the file.",
                )
            )
        if limits.todo_owner:
            probes.append(
                Probe(
                    unit.with_blocks([sample("TODO: handle the error.")]),
                    "comment.todo-owner",
                    "TODO: handle the error.",
                )
            )
        return probes


@frozen
class FormatterVerdictValue:
    """What a declared formatter said of a file: ``passed``, ``failed`` or ``did_not_run``."""

    formatter: str
    status: str
    reason: str = ""


def canary_file(formatter: str) -> str:
    """The key under which the host gives a formatter's verdict on its known-bad sample."""
    return f"<canary:{formatter}>"


class FormatterAnalyzer(Analyzer):
    """``formatter.<name>``: the formatter the project declares for a source file must agree.

    The host runs the formatters (this analyzer does no I/O) and gives each
    file's verdict, and each formatter's verdict on a sample it must flag (the
    canary). A declared formatter that could not run is ``did_not_run`` and
    required, so the check never passes on it; a file it would reformat is a
    failing finding.
    """

    id = "formatter"
    family = "formatter"

    def __init__(self, verdicts: Mapping[str, FormatterVerdictValue]) -> None:
        self.verdicts = dict(verdicts)

    def plan(self, unit: CheckUnit) -> tuple[AnalyzerStatus, str] | None:
        verdict = self.verdicts.get(unit.file)
        if verdict is None:
            return AnalyzerStatus.NOT_APPLICABLE, "no formatter is declared for this file"
        if verdict.status == "did_not_run":
            return AnalyzerStatus.DID_NOT_RUN, f"formatter.{verdict.formatter}: {verdict.reason}"
        return None

    def required(self, unit: CheckUnit) -> bool:
        return unit.file in self.verdicts or super().required(unit)

    def canary_key(self, unit: CheckUnit) -> Hashable:
        verdict = self.verdicts.get(unit.file)
        return (self.id, verdict.formatter if verdict is not None else "")

    def run(self, unit: CheckUnit) -> list[Finding]:
        verdict = self.verdicts.get(unit.file)
        if verdict is None or verdict.status != "failed":
            return []
        return [
            self.finding(
                unit,
                f"formatter.{verdict.formatter}",
                f"{verdict.formatter} does not agree with this file ({verdict.reason})",
                fails=True,
                metadata={"formatter": verdict.formatter},
            )
        ]

    def probes(self, unit: CheckUnit) -> list[Probe]:
        verdict = self.verdicts.get(unit.file)
        if verdict is None:
            return []
        from attrs import evolve

        probe = evolve(unit.with_blocks(unit.blocks[:1]), file=canary_file(verdict.formatter))
        return [
            Probe(
                probe,
                f"formatter.{verdict.formatter}",
                f"a sample {verdict.formatter} must reformat",
            )
        ]
