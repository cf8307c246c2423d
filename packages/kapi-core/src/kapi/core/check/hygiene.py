"""``hygiene``: empty blocks (fail), stray whitespace, doubled words and control characters (report)."""

from __future__ import annotations

import re

from kapi.core.check.analyzers import Analyzer, CheckUnit, Probe, sample_block
from kapi.core.check.findings import Finding
from kapi.core.check.text import MASK, TextView
from kapi.core.model import Block, PcOpen, Ph, Plural, Select, Sub, Text

__all__ = ["HygieneAnalyzer"]

_DOUBLE_SPACE = re.compile(r"(?<=[^\s\ufffc]) {2,}(?=[^\s\ufffc])")
_DOUBLED_WORD = re.compile(r"(?<![\w\ufffc])(\w+)(\s+)(\1)(?![\w])", re.IGNORECASE)
# Unicode category Cc less tab, line feed and carriage return
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def _is_empty(block: Block) -> bool:
    for run in block.source:
        if isinstance(run, Text):
            if run.text.strip():
                return False
        elif isinstance(run, Ph | PcOpen | Sub | Plural | Select):
            return False
    return True


class HygieneAnalyzer(Analyzer):
    id = "hygiene"
    family = "hygiene"

    def run(self, unit: CheckUnit) -> list[Finding]:
        out: list[Finding] = []
        for block in unit.blocks:
            if _is_empty(block):
                out.append(
                    self.finding(
                        unit, "hygiene.empty", "The block is empty", fails=True, block=block
                    )
                )
                continue
            for view in unit.views(block):
                out.extend(self._view(unit, block, view))
        return out

    def _view(self, unit: CheckUnit, block: Block, view: TextView) -> list[Finding]:
        out: list[Finding] = []
        raw = view.raw
        if not raw.replace(MASK, "").strip():
            return out
        leading = len(raw) - len(raw.lstrip(" \t"))
        if leading:
            out.append(
                self.finding(
                    unit,
                    "hygiene.leading-whitespace",
                    "The text starts with whitespace",
                    fails=False,
                    block=block,
                    view=view,
                    span=(0, leading),
                    replacement="",
                )
            )
        trailing = len(raw) - len(raw.rstrip(" \t\n\r"))
        if trailing and len(raw.strip(" \t\n\r")):
            out.append(
                self.finding(
                    unit,
                    "hygiene.trailing-whitespace",
                    "The text ends with whitespace",
                    fails=False,
                    block=block,
                    view=view,
                    span=(len(raw) - trailing, len(raw)),
                    replacement="",
                )
            )
        prose = view.prose
        for match in _DOUBLE_SPACE.finditer(prose):
            out.append(
                self.finding(
                    unit,
                    "hygiene.double-spaces",
                    f"{len(match.group())} spaces in a row",
                    fails=False,
                    block=block,
                    view=view,
                    span=match.span(),
                    suggestion=" ",
                    replacement=" ",
                )
            )
        for match in _DOUBLED_WORD.finditer(prose):
            word = match.group(1)
            if word.isdigit():
                continue
            out.append(
                self.finding(
                    unit,
                    "hygiene.doubled-word",
                    f'The word "{word}" is doubled',
                    fails=False,
                    block=block,
                    view=view,
                    span=match.span(),
                    suggestion=word,
                    replacement=word,
                )
            )
        for control in _CONTROL.finditer(raw):
            out.append(
                self.finding(
                    unit,
                    "hygiene.control-char",
                    f"A control character U+{ord(control.group()):04X}",
                    fails=False,
                    block=block,
                    view=view,
                    span=control.span(),
                    replacement="",
                )
            )
        return out

    def probes(self, unit: CheckUnit) -> list[Probe]:
        sample = "This sentence has has a doubled word."
        return [Probe(unit.with_blocks([sample_block(sample)]), "hygiene.doubled-word", sample)]
