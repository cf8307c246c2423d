"""What a read says an inline code is: its kind, and what it stands for as the file spells it.

A placeholder shows as ``%(provider)s``, a pair as ``**…**``; markup that says
nothing to a reader (an office part's XML, an XLIFF element) is not shown,
though an XLIFF element's own ``disp`` or ``equiv-text`` is.
"""

from __future__ import annotations

import html
import re

from kapi.core.model import PcClose, PcOpen, Ph

__all__ = ["code_kind", "code_label"]

# Standalone codes that stand for a value the program fills in at run time.
_VALUE_TYPES = frozenset({"", "code:placeholder", "code:variable", "code:field", "code:expression"})
# printf's and str.format's escapes: they stand for a literal character, not a value.
_ESCAPES = frozenset({"%%", "{{", "}}"})
# A native spelling longer than this, or spread over lines, is markup rather than a label.
_LABEL_LIMIT = 80
# Inline elements of XLIFF (1.2 and 2.x): their spelling says nothing, their label attributes do.
_INTERCHANGE_ELEMENTS = frozenset(
    {"x", "g", "bx", "ex", "ph", "pc", "sc", "ec", "bpt", "ept", "it", "mrk"}
)
_INTERCHANGE_MARKERS = frozenset({"sm", "em", "cp"})  # XLIFF 2 empty elements (HTML has <em>…</em>)
_ELEMENT = re.compile(r"</?([A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?)(?=[\s/>])")
_LABEL_ATTRIBUTE = re.compile(r'\s(disp|equiv-text)="([^"]*)"')


def _spelling(data: str) -> str | None:
    """A code's native form when it reads as a label (``%(name)s``, ``**``, ``<b>``), else None.

    An XLIFF inline element gives its ``disp`` or ``equiv-text``; an office
    part's namespaced markup gives nothing.
    """
    element = _ELEMENT.match(data)
    name = element.group(1) if element is not None else ""
    if name in _INTERCHANGE_ELEMENTS or (
        name in _INTERCHANGE_MARKERS and data.rstrip().endswith("/>")
    ):
        labels = dict(_LABEL_ATTRIBUTE.findall(data))
        data = html.unescape(labels.get("disp") or labels.get("equiv-text") or "")
    elif ":" in name:
        return None
    if not data or len(data) > _LABEL_LIMIT or not data.isprintable():
        return None
    return data


def code_label(run: Ph | PcOpen, close: PcClose | None) -> str | None:
    """What a code stands for: the format's label, else its own spelling (``**…**`` for a pair)."""
    if run.disp and run.disp != run.data:
        return run.disp
    opening = _spelling(run.data)
    if isinstance(run, Ph) or opening is None:
        return opening
    closing = _spelling(close.data) if close is not None else None
    return f"{opening}…{closing}" if closing is not None else None


def code_kind(run: Ph | PcOpen) -> str:
    """``paired``, ``placeholder`` (a value filled in at run time) or ``standalone``."""
    if isinstance(run, PcOpen):
        return "paired"
    if run.type in _VALUE_TYPES and run.data not in _ESCAPES:
        return "placeholder"
    return "standalone"
