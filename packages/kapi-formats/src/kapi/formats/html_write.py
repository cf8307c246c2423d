"""Runs written back as HTML: text and attribute values escaped as the file needs, new codes
written as tags, changed link and image attributes set inside the tag's text."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping

from kapi.core.format import WriteRefused
from kapi.core.model import PcClose, PcOpen, Ph, Runs, Text
from kapi.formats.html_events import (
    HTML_SPACE,
    MARKUP_START,
    REFERENCE,
    attribute_spans,
    is_reference,
)

__all__ = ["reference_spellings", "render_attribute", "render_text_block"]

_WRITABLE = {"link:hyperlink": ("href", "title"), "media:image": ("src", "alt", "title")}


def _escape_attribute(value: str, quote: str, *, minimal: bool = False) -> str:
    """An attribute value escaped for ``quote``; ``minimal`` escapes ``&`` only where it would read as a reference."""
    if minimal:
        value = _escape_ampersands(value)
    else:
        value = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    if quote == "'":
        return value.replace("'", "&#39;")
    return value.replace('"', "&quot;")


def _escape_ampersands(text: str) -> str:
    """``&`` escaped where it would read as a reference, and before ``#`` always:
    html.parser reads everything after an unfinished ``&#`` as text."""
    if "&" not in text:
        return text

    def replace(match: re.Match[str]) -> str:
        raw = match.group(0)
        return "&amp;" + raw[1:] if is_reference(raw) is not None else raw

    return REFERENCE.sub(replace, text).replace("&#", "&amp;#")


def _needs_quotes(value: str) -> bool:
    return value == "" or any(char in value for char in " \t\n\r\f\"'=<>`")


def _set_attribute(tag_text: str, name: str, value: str | None) -> str:
    """``tag_text`` with attribute ``name`` set to ``value`` (None removes it), quoting kept."""
    spans = {attr: (start, end, quote) for attr, start, end, quote in attribute_spans(tag_text)}
    if name in spans:
        start, end, quote = spans[name]
        if value is None:
            pattern = re.compile(r"\s+" + re.escape(name) + r"\s*=\s*", re.IGNORECASE)
            found = None
            for candidate in pattern.finditer(tag_text, 0, start):
                found = candidate
            if found is None:
                return tag_text
            return tag_text[: found.start()] + tag_text[end + len(quote) :]
        if not quote and _needs_quotes(value):
            return tag_text[:start] + '"' + _escape_attribute(value, '"') + '"' + tag_text[end:]
        return tag_text[:start] + _escape_attribute(value, quote or '"') + tag_text[end:]
    if value is None:
        return tag_text
    close = len(tag_text) - (2 if tag_text.endswith("/>") else 1)
    while close > 0 and tag_text[close - 1] in HTML_SPACE:
        close -= 1
    return tag_text[:close] + f' {name}="{_escape_attribute(value, chr(34))}"' + tag_text[close:]


_SYNTHESIZED = {
    "fmt:bold": ("<b>", "</b>"),
    "fmt:italic": ("<i>", "</i>"),
    "fmt:underline": ("<u>", "</u>"),
    "fmt:code": ("<code>", "</code>"),
    "fmt:strikethrough": ("<s>", "</s>"),
    "link:hyperlink": ("<a>", "</a>"),
}


# Escaped by the rules above where they would read as markup, and kept plain elsewhere.
_ESCAPED = frozenset("&<>\"'")


def reference_spellings(read: Iterable[Runs]) -> dict[str, str]:
    """The reference each character is written as where the file never writes it as itself.

    A page that spells ``é`` as ``&eacute;`` (and never as a plain ``é``) gets
    ``&eacute;`` for an ``é`` an edit brings in, so an edit set back gives the
    page's bytes again; where the file spells a character more than one way, its
    most frequent spelling wins (the first one met on a tie). The characters of
    markup (``&``, ``<``, ``>``, quotes) keep the escaping rules above.
    """
    literal: set[str] = set()
    spelled: dict[str, Counter[str]] = {}
    for runs in read:
        for run in runs:
            if isinstance(run, Text):
                literal.update(run.text)
            elif (
                isinstance(run, Ph)
                and run.type == "entity:char"
                and len(run.equiv) == 1
                and run.equiv not in _ESCAPED
            ):
                spelled.setdefault(run.equiv, Counter())[run.data] += 1
    return {
        char: counts.most_common(1)[0][0] for char, counts in spelled.items() if char not in literal
    }


def _spelled(text: str, spellings: Mapping[str, str], escape: Callable[[str], str]) -> str:
    """``text`` escaped, its characters the file writes only as references written so."""
    if not spellings or not any(char in spellings for char in text):
        return escape(text)
    out: list[str] = []
    plain: list[str] = []
    for char in text:
        if char in spellings:
            out.append(escape("".join(plain)))
            out.append(spellings[char])
            plain.clear()
        else:
            plain.append(char)
    out.append(escape("".join(plain)))
    return "".join(out)


def _escape_text(text: str, encoding: str) -> str:
    """Text as HTML: ``&`` and ``<`` escaped where they would start a reference or markup."""
    escaped = MARKUP_START.sub("&lt;", _escape_ampersands(text))
    return _encodable(escaped, encoding)


def _encodable(text: str, encoding: str) -> str:
    if encoding.startswith("utf"):
        return text
    out: list[str] = []
    for char in text:
        try:
            char.encode(encoding)
            out.append(char)
        except UnicodeEncodeError:
            out.append(f"&#{ord(char)};")
    return "".join(out)


def _with_attrs(run: Ph | PcOpen, data: str, as_read: Ph | PcOpen | None) -> str:
    """The tag text with the writable attrs that changed since reading written into it."""
    names = _WRITABLE.get(run.type, ())
    before = dict(as_read.attrs) if as_read is not None else {}
    for name in names:
        now = run.attrs.get(name)
        if now != before.get(name):
            data = _set_attribute(data, name, now)
    return data


def _synthesize(run: Ph | PcOpen | PcClose, opener: PcOpen | None) -> str:
    kind = run.type
    if isinstance(run, PcOpen | PcClose) and kind in _SYNTHESIZED:
        open_tag, close_tag = _SYNTHESIZED[kind]
        if isinstance(run, PcClose):
            if opener is not None and opener.data.startswith("<"):
                name = re.match(r"<([A-Za-z][^\s/>]*)", opener.data)
                if name:
                    return f"</{name.group(1)}>"
            return close_tag
        return _with_attrs(run, open_tag, None)
    if isinstance(run, Ph):
        if kind == "fmt:linebreak":
            return "<br>"
        if kind == "media:image":
            return _with_attrs(run, "<img>", None)
        if kind == "entity:char" and run.equiv:
            return "".join(f"&#{ord(char)};" for char in run.equiv)
        if kind == "code:placeholder" and run.equiv:
            return _escape_text(run.equiv, "utf-8")
    raise WriteRefused(
        f"HTML has no way to write a new {kind or 'untyped'} code without its markup",
        capability=f"synthesize:{kind}",
    )


def render_text_block(
    runs: Runs, as_read: Runs, encoding: str, spellings: Mapping[str, str] | None = None
) -> str:
    before: dict[tuple[str, str], Ph | PcOpen] = {
        (type(run).__name__, run.id): run for run in as_read if isinstance(run, Ph | PcOpen)
    }
    openers: dict[str, PcOpen] = {}
    out: list[str] = []
    for run in runs:
        if isinstance(run, Text):
            out.append(_spelled(run.text, spellings or {}, lambda t: _escape_text(t, encoding)))
        elif isinstance(run, Ph | PcOpen):
            if isinstance(run, PcOpen):
                openers[run.id] = run
            if not run.data:
                out.append(_synthesize(run, None))
                continue
            out.append(_with_attrs(run, run.data, before.get((type(run).__name__, run.id))))
        elif isinstance(run, PcClose):
            out.append(run.data or _synthesize(run, openers.get(run.id)))
        else:
            raise WriteRefused(
                f"HTML cannot hold a {type(run).__name__.lower()} run",
                capability=f"run:{type(run).__name__.lower()}",
            )
    return "".join(out)


def render_attribute(
    runs: Runs, quote: str, encoding: str, spellings: Mapping[str, str] | None = None
) -> str:
    def escape(text: str) -> str:
        return _encodable(_escape_attribute(text, quote or '"', minimal=True), encoding)

    out: list[str] = []
    for run in runs:
        if isinstance(run, Text):
            out.append(_spelled(run.text, spellings or {}, escape))
        elif isinstance(run, Ph) and run.type == "entity:char":
            out.append(run.data or _synthesize(run, None))
        else:
            raise WriteRefused(
                "an attribute value holds only text and character references",
                capability=f"run:{getattr(run, 'type', '') or type(run).__name__.lower()}",
            )
    value = "".join(out)
    if not quote and _needs_quotes(value):
        return '"' + value + '"'
    return value
