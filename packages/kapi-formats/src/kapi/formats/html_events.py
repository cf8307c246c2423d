"""What ``html.parser`` reads, with exact positions: its reports as events, the attribute
values inside a tag, and which text it takes for markup or a character reference."""

from __future__ import annotations

import html
import html.entities
import re

from attrs import frozen

from kapi.core.format import FormatError

__all__ = [
    "HTML_SPACE",
    "MARKUP_START",
    "REFERENCE",
    "Event",
    "attribute_spans",
    "collapse_opaque",
    "is_reference",
    "parse_events",
]

REFERENCE = re.compile(r"&(?:#[xX][0-9a-fA-F]+;?|#[0-9]+;?|[A-Za-z][A-Za-z0-9]*;?)")

HTML_SPACE = " \t\n\r\f"
# "<" that html.parser reads as the start of markup, not as text.
MARKUP_START = re.compile(r"<(?=[A-Za-z/!?])")


def is_reference(raw: str) -> str | None:
    """The character(s) ``raw`` (``&amp;``, ``&#233``) stands for, or None if it is plain text."""
    if raw.startswith("&#"):
        return html.unescape(raw)
    return html.entities.html5.get(raw[1:])


@frozen
class Event:
    kind: str  # start, end, startend, text, comment, other
    start: int
    end: int
    tag: str = ""
    attrs: tuple[tuple[str, str | None], ...] = ()


def parse_events(text: str, path: str) -> list[Event]:
    from html.parser import HTMLParser

    line_starts = [0]
    for match in re.finditer("\n", text):
        line_starts.append(match.end())
    found: list[tuple[str, int, str, tuple[tuple[str, str | None], ...]]] = []

    class Recorder(HTMLParser):
        def _at(self) -> int:
            line, column = self.getpos()
            return line_starts[line - 1] + column

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            found.append(("start", self._at(), tag, tuple(attrs)))

        def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            found.append(("startend", self._at(), tag, tuple(attrs)))

        def handle_endtag(self, tag: str) -> None:
            found.append(("end", self._at(), tag, ()))

        def handle_data(self, data: str) -> None:
            found.append(("text", self._at(), "", ()))

        def handle_entityref(self, name: str) -> None:
            found.append(("text", self._at(), "", ()))

        def handle_charref(self, name: str) -> None:
            found.append(("text", self._at(), "", ()))

        def handle_comment(self, data: str) -> None:
            found.append(("comment", self._at(), "", ()))

        def handle_decl(self, decl: str) -> None:
            found.append(("other", self._at(), "", ()))

        def handle_pi(self, data: str) -> None:
            found.append(("other", self._at(), "", ()))

        def unknown_decl(self, data: str) -> None:
            found.append(("other", self._at(), "", ()))

    parser = Recorder(convert_charrefs=False)
    try:
        parser.feed(text)
        parser.close()
    except Exception as err:  # html.parser asserts on a few malformed declarations
        line, column = parser.getpos()
        raise FormatError(
            f"HTML could not be parsed: {err}", path=path, line=line, column=column + 1
        ) from None
    if found and found[0][1] > 0:
        found.insert(0, ("text", 0, "", ()))  # the parser can skip a leading "&" at the very end
    events: list[Event] = []
    for index, (kind, start, tag, attrs) in enumerate(found):
        end = found[index + 1][1] if index + 1 < len(found) else len(text)
        if end <= start and kind in ("text", "other", "comment"):
            continue
        if kind == "text" and MARKUP_START.match(text, start):
            kind = "other"  # markup the parser gave up on (an unfinished tag at the end)
            if ">" not in text[start:]:
                events.append(Event(kind, start, len(text)))
                break
        if kind == "text" and events and events[-1].kind == "text" and events[-1].end == start:
            events[-1] = Event("text", events[-1].start, end)
            continue
        events.append(Event(kind, start, end, tag, attrs))
    return events


def attribute_spans(tag_text: str) -> list[tuple[str, int, int, str]]:
    """``(name, value start, value end, quote)`` of each attribute with a value, as the parser reads them."""
    from html.parser import attrfind_tolerant, tagfind_tolerant  # type: ignore[attr-defined]

    match = tagfind_tolerant.match(tag_text, 1)
    if match is None:
        return []
    out: list[tuple[str, int, int, str]] = []
    pos = match.end()
    while pos < len(tag_text):
        found = attrfind_tolerant.match(tag_text, pos)
        if not found:
            break
        if found.group(2):
            start, end = found.span(3)
            value = found.group(3)
            quote = (
                value[:1]
                if value[:1] in "'\"" and value[-1:] == value[:1] and len(value) >= 2
                else ""
            )
            if quote:
                start, end = start + 1, end - 1
            out.append((found.group(1).lower(), start, end, quote))
        pos = found.end()
    return out


_OPAQUE = frozenset({"math", "svg"})


def collapse_opaque(events: list[Event]) -> list[Event]:
    """An inline ``<math>`` or ``<svg>`` element becomes one event: it is a code, not prose."""
    closing: dict[int, int] = {}
    open_at: dict[str, list[int]] = {tag: [] for tag in _OPAQUE}
    for index, event in enumerate(events):
        if event.tag in _OPAQUE:
            if event.kind == "start":
                open_at[event.tag].append(index)
            elif event.kind == "end" and open_at[event.tag]:
                closing[open_at[event.tag].pop()] = index
    if not closing:
        return events
    out: list[Event] = []
    index = 0
    while index < len(events):
        event = events[index]
        close = closing.get(index)
        if close is not None:
            out.append(Event("opaque", event.start, events[close].end, event.tag, event.attrs))
            index = close + 1
            continue
        out.append(event)
        index += 1
    return out
