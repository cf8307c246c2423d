"""The provider port: segments of edit text in, their translations out, and how replies are judged.

A provider is chosen by name (``--provider`` or the recipe's
``defaults.provider``): ``pseudo`` and ``memory`` work offline; ``openai``,
``anthropic`` and ``deepl`` call a remote API over HTTP (the stdlib's urllib),
with their keys read from the environment only. Every reply is checked before
it is used: each segment answered, every code token kept.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from attrs import field, frozen

from kapi.core.model import Runs
from kapi.host.errors import EXIT_UNREACHABLE, HostError

__all__ = [
    "Provider",
    "ProviderError",
    "ProviderOptions",
    "ReplyRefused",
    "Segment",
    "TranslationBatch",
    "check_reply",
    "reply_problems",
]


@frozen
class Segment:
    """One piece to translate: an id the reply names, its edit text, and the runs it renders."""

    id: str
    text: str
    runs: Runs = ()


@frozen
class TranslationBatch:
    """Segments from one language to another, with the voice brief and terms at the target's point."""

    source_lang: str
    target_lang: str
    segments: tuple[Segment, ...]
    voice: str = ""
    terms: tuple[Mapping[str, str], ...] = ()


@frozen
class ProviderOptions:
    """How a provider is called: model, timeout (seconds), retries, batch size, pseudo settings."""

    model: str = ""
    timeout: float = 60.0
    retries: int = 3
    batch_size: int = 40
    backoff: float = 0.5
    pseudo_style: str = "accents"
    pseudo_expansion: float = 0.3
    pseudo_brackets: bool = True
    environ: Mapping[str, str] = field(factory=dict, repr=False)


class Provider(Protocol):
    """Translates a batch: segment id -> translated edit text (a segment it cannot do is left out)."""

    name: str
    engine: str

    def translate(self, batch: TranslationBatch) -> dict[str, str]: ...


class ProviderError(HostError):
    """A provider that could not be reached or answered with an error (exit 5, ``unreachable``)."""

    def __init__(
        self, message: str, *, exit_code: int = EXIT_UNREACHABLE, code: str = "unreachable"
    ) -> None:
        super().__init__(message, exit_code=exit_code, code=code)


class ReplyRefused(HostError):
    """A reply kapi does not use: not JSON, a segment missing, a code or placeholder lost."""

    def __init__(self, message: str) -> None:
        super().__init__(message, exit_code=3, code="refused")


def reply_problems(
    batch: TranslationBatch, reply: Mapping[str, str], provider: str, *, language: bool = True
) -> dict[str, str]:
    """Per segment, why its answer is not used: missing, not text, or a code token lost or added."""
    from collections import Counter

    from kapi.core.edittext import TOKEN
    from kapi.host.providers.language import wrong_language

    problems: dict[str, str] = {}
    for segment in batch.segments:
        text = reply.get(segment.id)
        if text is None:
            problems[segment.id] = f"{provider}: the reply has no segment {segment.id!r}"
            continue
        if not isinstance(text, str):
            problems[segment.id] = f"{provider}: segment {segment.id!r} is not text"
            continue
        wrong = (
            wrong_language(segment.text, text, batch.source_lang, batch.target_lang)
            if language
            else ""
        )
        if wrong:
            problems[segment.id] = f"{provider}: segment {segment.id!r} {wrong}"
            continue
        expected = Counter(TOKEN.findall(segment.text))
        found = Counter(TOKEN.findall(text))
        if expected != found:
            lost = sorted((expected - found).elements())
            extra = sorted((found - expected).elements())
            what = (
                f"lost {', '.join(f'<x id={t!r}/>' for t in lost)}"
                if lost
                else f"added {', '.join(f'<x id={t!r}/>' for t in extra)}"
            )
            problems[segment.id] = (
                f"{provider}: segment {segment.id!r} {what}; a code or placeholder did not survive"
            )
    return problems


def check_reply(
    batch: TranslationBatch, reply: Mapping[str, str], provider: str, *, language: bool = True
) -> None:
    """Refuse a reply that misses a segment, drops, adds or repeats a code, or is in another language."""
    problems = reply_problems(batch, reply, provider, language=language)
    if problems:
        raise ReplyRefused(next(iter(problems.values())))


def segments_in_batches(segments: Sequence[Segment], size: int) -> list[tuple[Segment, ...]]:
    size = max(1, size)
    return [tuple(segments[i : i + size]) for i in range(0, len(segments), size)]
