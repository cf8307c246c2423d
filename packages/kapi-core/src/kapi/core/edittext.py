"""Edit text: an edition as the text an agent reads and writes, codes as ``<x id="…"/>`` tokens.

Tokens: a paired code's open ``<x id="1"/>`` and close ``<x id="/1"/>``, a
standalone code ``<x id="2/"/>``, a subblock ``<x id="sub:1"/>``. A plural or
select shows its ``other`` branch (else its first), so flat text cannot carry
structure. A standalone code whose native data is one HTML character
reference (``&amp;``, ``&#8217;``) shows as the character; parsing puts the
reference back where the character was kept (aligned by longest common
subsequence) and treats a new character as plain text the writer escapes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from kapi.core.errors import EXIT_USAGE, KapiError
from kapi.core.model import PcClose, PcOpen, Ph, Plural, Run, Runs, Select, Sub, Text

__all__ = [
    "TOKEN",
    "EditTextError",
    "code_token",
    "entity_char",
    "has_structure",
    "merge_text",
    "parse_edit_text",
    "render_edit_text",
]

TOKEN = re.compile(r'<x\s+id="([^"]*)"\s*/>')
_CHAR_REFERENCE = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")


class EditTextError(KapiError, ValueError):
    """Edit text that does not fit the content it replaces.

    ``subcode`` is the guard it maps to (``codes_changed``, ``structure_lost``);
    ``expected``/``found`` name the tokens in question.
    """

    code = "invalid"
    exit_code = EXIT_USAGE

    def __init__(self, message: str, *, subcode: str, expected: str = "", found: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.subcode = subcode
        self.expected = expected
        self.found = found


def entity_char(run: Run) -> str | None:
    """The character a standalone code stands for when its data is one character reference."""
    if not isinstance(run, Ph) or not _CHAR_REFERENCE.fullmatch(run.data):
        return None
    import html  # only for character references: its entity table is large to load

    char = html.unescape(run.data)
    return char if len(char) == 1 and char != run.data else None


def code_token(run: Run) -> str | None:
    """The token id a code shows as: ``1`` (paired), ``1/`` (standalone), ``sub:1``."""
    if isinstance(run, PcOpen):
        return run.id
    if isinstance(run, PcClose):
        return "/" + run.id
    if isinstance(run, Ph):
        return run.id + "/"
    if isinstance(run, Sub):
        return "sub:" + run.id
    return None


def _branch(branches: Mapping[str, Runs]) -> Runs:
    if "other" in branches:
        return branches["other"]
    return next(iter(branches.values()), ())


def render_edit_text(runs: Runs) -> str:
    """The edit text of a run sequence."""
    out: list[str] = []
    for run in runs:
        if isinstance(run, Text):
            out.append(run.text)
        elif isinstance(run, Plural):
            out.append(render_edit_text(_branch(run.forms)))
        elif isinstance(run, Select):
            out.append(render_edit_text(_branch(run.cases)))
        else:
            char = entity_char(run)
            out.append(char if char is not None else f'<x id="{code_token(run)}"/>')
    return "".join(out)


def has_structure(runs: Runs) -> bool:
    return any(isinstance(run, Plural | Select) for run in runs)


def _codes_by_token(references: Iterable[Runs]) -> dict[str, Run]:
    found: dict[str, Run] = {}
    for runs in references:
        for run in runs:
            token = code_token(run)
            if token is not None:
                found.setdefault(token, run)
    return found


def merge_text(runs: Iterable[Run]) -> Runs:
    """Join adjacent text runs of the same kind and drop empty ones."""
    out: list[Run] = []
    for run in runs:
        if isinstance(run, Text):
            if not run.text:
                continue
            last = out[-1] if out else None
            if isinstance(last, Text) and last.no_translate == run.no_translate:
                out[-1] = Text(last.text + run.text, no_translate=run.no_translate)
                continue
        out.append(run)
    return tuple(out)


def parse_edit_text(text: str, reference: Runs, *, extra: Iterable[Runs] = ()) -> Runs:
    """Runs for ``text``, taking each token's code from ``reference`` (then from ``extra``).

    ``reference`` is the content being replaced; ``extra`` holds further
    sources a token may restore a code from (a derived edition may restore a
    code its authoritative edition holds). A token naming no known code raises
    :class:`EditTextError` with subcode ``codes_changed``. Plain text over a
    reference holding a plural or select raises ``structure_lost``.
    """
    if has_structure(reference):
        raise EditTextError(
            "this edition holds a plural or select; flat text cannot replace it: "
            "edit one branch with a path (see the read's structures)",
            subcode="structure_lost",
        )
    known = _codes_by_token([reference, *extra])
    pieces: list[Run] = []
    position = 0
    for match in TOKEN.finditer(text):
        if match.start() > position:
            pieces.append(Text(text[position : match.start()]))
        token = match.group(1)
        code = known.get(token)
        if code is None:
            raise EditTextError(
                f'<x id="{token}"/> names no code of this content; '
                "use only the tokens the read shows",
                subcode="codes_changed",
                found=f'<x id="{token}"/>',
            )
        pieces.append(code)
        position = match.end()
    if position < len(text):
        pieces.append(Text(text[position:]))
    runs = merge_text(pieces)
    if any(entity_char(run) is not None for run in reference) or any(
        isinstance(run, Text) and run.no_translate for run in reference
    ):
        runs = _align_with_reference(runs, reference)
    return runs


def _align_with_reference(runs: Runs, reference: Runs) -> Runs:
    """Characters kept in place keep what they were: a character reference, or no-translate text.

    Alignment is by longest common subsequence of the characters, so only text
    that stayed where it was inherits; new text is plain text.
    """
    old: list[tuple[str, Run | None, bool]] = []
    for run in reference:
        if isinstance(run, Text):
            old.extend((char, None, run.no_translate) for char in run.text)
        else:
            char = entity_char(run)
            if char is not None:
                old.append((char, run, False))
    new: list[tuple[str, int, int]] = []  # (char, run index, offset)
    for index, run in enumerate(runs):
        if isinstance(run, Text):
            new.extend((char, index, offset) for offset, char in enumerate(run.text))
    import difflib  # only when edited text is mapped back onto codes

    matcher = difflib.SequenceMatcher(
        None, [c for c, _, _ in old], [c for c, _, _ in new], autojunk=False
    )
    kept: dict[tuple[int, int], tuple[Run | None, bool]] = {}
    for block in matcher.get_matching_blocks():
        for step in range(block.size):
            _, code, protected = old[block.a + step]
            _, run_index, offset = new[block.b + step]
            kept[(run_index, offset)] = (code, protected)
    out: list[Run] = []
    for index, run in enumerate(runs):
        if not isinstance(run, Text):
            out.append(run)
            continue
        for offset, char in enumerate(run.text):
            code, protected = kept.get((index, offset), (None, False))
            out.append(code if code is not None else Text(char, protected))
    return merge_text(out)
