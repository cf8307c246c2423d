"""In-memory adapters of the change service's ports, for the core's tests."""

from __future__ import annotations

from kapi.core.change.ops import ChangeSet
from kapi.core.change.ports import Actor, EditionCheck
from kapi.core.change.result import Finding, Result
from kapi.core.model import Runs, plain_text


class MemoryAssets:
    """Keeps decisions and assets in lists; can be told to refuse or to fail."""

    def __init__(self) -> None:
        self.landed: list[tuple[str, object, str | None]] = []
        self.refuse: str | None = None
        self.fail = False

    def validate(self, op, actor: Actor) -> str | None:
        return self.refuse

    def apply(self, op, actor: Actor, rev: str | None) -> None:
        if self.fail:
            raise OSError("disk full")
        self.landed.append((op.op, op, rev))


class MemoryRecorder:
    def __init__(self) -> None:
        self.records: list[tuple[ChangeSet, Result, Actor]] = []

    def record(self, change_set: ChangeSet, result: Result, actor: Actor) -> str | None:
        self.records.append((change_set, result, actor))
        return f"rec-{len(self.records)}"


class BannedWordCheck:
    """A deterministic commit check: the word 'simply' fails, 'very' reports."""

    def check(
        self, doc: str, block: str, edition: str, before: Runs | None, after: Runs
    ) -> EditionCheck:
        def count(runs: Runs | None, word: str) -> int:
            return plain_text(runs or ()).lower().split().count(word)

        introduced = tuple(
            Finding(rule="voice.vocabulary", message="avoid 'simply'", fails=True)
            for _ in range(max(0, count(after, "simply") - count(before, "simply")))
        )
        others = tuple(
            Finding(rule="voice.style", message="'very' is weak", fails=False)
            for _ in range(count(after, "very"))
        )
        return EditionCheck(introduced=introduced, others=others)
