"""How a JSON catalogue's string value reads as runs, shared by the JSON reader and the
read-back that checks a write (:mod:`kapi.formats.json_readback`)."""

from __future__ import annotations

from kapi.core.model import Plural, Runs, Select, Text
from kapi.formats import icu

__all__ = ["parse_value", "structured"]


def parse_value(text: str, icu_file: bool) -> tuple[Runs, tuple[icu.StructureLayout, ...]]:
    """A value's runs: ICU when the file is ICU and the value parses, else plain placeholders."""
    if "{" not in text and "$t(" not in text and not (icu_file and "'" in text):
        # Plain text in both dialects: no argument, no nesting, no ICU quoting.
        return ((Text(text),) if text else ()), ()
    if icu_file:
        try:
            message = icu.parse(text)
        except icu.IcuSyntaxError:
            pass
        else:
            return message.runs, message.layouts
    return icu.parse_placeholders(text), ()


def structured(runs: Runs) -> bool:
    return any(isinstance(run, Plural | Select) for run in runs)
