"""HTML: the text of block elements as blocks, inline markup as codes carrying its exact bytes.

The stdlib ``html.parser`` reports every construct in order; the position of
each one (and so its exact source slice) comes from ``getpos()``. A block is
the text between two block-level tags: ``<p>``, ``<h1>``-``<h6>`` (role
``heading``), ``<li>`` (``list-item``, level = list depth), ``<td>``/``<th>``
(``table-cell``), ``<title>``, captions, ``<dt>``/``<dd>``, ``<blockquote>``
(``quote``) and text directly inside ``<div>``, ``<section>`` and the like.
Leading and trailing whitespace stays in the skeleton. Inline tags become codes:
``<b>``/``<strong>`` ``fmt:bold``, ``<i>``/``<em>`` ``fmt:italic``, ``<u>``
``fmt:underline``, ``<s>``/``<del>`` ``fmt:strikethrough``, ``<code>``
``fmt:code``, ``<a>`` ``link:hyperlink`` (attrs href/title), ``<img>``
``media:image`` (attrs src/alt/title), ``<br>`` ``fmt:linebreak``; any other
tag, a comment, an unmatched tag or a whole inline ``<math>``/``<svg>`` is a
``code:tag``. Text in ``<code>``, ``<kbd>``, ``<samp>`` is ``no_translate``. A
character reference is a ``Ph`` ``entity:char`` (data ``&amp;``, equiv ``&``).

Translatable attributes (``alt``, ``title``, ``placeholder``, ``aria-label``,
``label``, the ``value`` of input buttons, ``<meta>`` description/title
``content``) are blocks of their own named ``img[3]@alt`` (the tag, its 1-based
index among that tag in the document, the attribute), unless the element is an
inline code inside a text block: then the attribute travels with the code
(``attrs``), and the writer rewrites ``href``/``title`` of a link and
``src``/``alt``/``title`` of an image when those attrs change.
``<script>``, ``<style>``, ``<template>``, ``<noscript>`` and anything under ``translate="no"``
give no blocks (an inline ``translate="no"`` element's text is ``no_translate``).

Ids count blocks by kind (``h1``, ``p1``, ``li1``, ``td1``, ``attr1``); names are
``p[4]`` (fourth ``<p>`` in the document), ``div[2].2`` for a second stretch of
text directly inside one element, ``text[1]`` for text outside any element.

Writing escapes ``<`` and ``&`` in new text where they would start markup or
a character reference (``a < b`` and ``R&D`` stay as they are; ``<b>`` becomes
``&lt;b>``), the attribute's quote in attribute values, and writes characters
the file's encoding lacks as numeric references. New codes without ``data``
are written as tags (``<b>``, ``<a href="..">``, ``<br>``, ``<img ..>``). A
character the page writes only as a reference (``&eacute;``, never a plain
``é``) is written the same way in new text, so an edit set back gives the
page's bytes again.

Encoding: a BOM (UTF-8, UTF-16), else a ``<meta charset>`` / XML declaration,
else UTF-8. UTF-32, BOM-less UTF-16 and undeclared legacy 8-bit text are
``unsupported`` (``encoding``).
Limits: ``Limits.max_bytes``, ``Limits.max_depth`` (open elements),
``Limits.max_entries`` (blocks) give ``budget_exceeded``; undecodable bytes and
parser failures give ``invalid``, with line and column.
"""

from __future__ import annotations

import codecs
import contextlib
import re

from attrs import evolve, frozen

from kapi.core.edition import EditionKeyError, canonical_locale
from kapi.core.format import DEFAULT_LIMITS, Limits, WriteRefused
from kapi.core.model import Block, Document, Runs
from kapi.formats.common import UTF16, text_encoding
from kapi.formats.html_events import collapse_opaque, parse_events
from kapi.formats.html_read import Layout, Reader
from kapi.formats.html_write import reference_spellings, render_attribute, render_text_block
from kapi.formats.skeleton import Span, TextSkeleton, decode_text

__all__ = ["HtmlFormat"]

_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)""", re.IGNORECASE)
_XML_ENCODING = re.compile(rb"""^<\?xml[^>]+encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")


@frozen
class _HtmlSkeleton:
    text: TextSkeleton
    layouts: dict[str, Layout]
    path: str = ""


def _sniff_encoding(data: bytes) -> str | None:
    head = data[:4096]
    for pattern in (_XML_ENCODING, _CHARSET):
        found = pattern.search(head)
        if found is None:
            continue
        encoding = text_encoding(found.group(1).decode("ascii", "replace").lower())
        if encoding is None:
            return None
        return (
            None if encoding in ("ascii", "utf-8", "utf-16", "utf-16-le", "utf-16-be") else encoding
        )
    return None


class HtmlFormat:
    """HTML pages: block text with inline codes, translatable attributes, byte-faithful writes."""

    name = "html"

    def __init__(self, limits: Limits = DEFAULT_LIMITS) -> None:
        self.limits = limits

    def read(self, data: bytes, *, path: str = "", locale: str = "") -> Document:
        has_bom = data.startswith((codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))
        declared = None if has_bom else _sniff_encoding(data)
        encodings = (declared,) if declared else ("utf-8",)
        text, encoding, bom = decode_text(
            data,
            path=path,
            encodings=encodings,
            marked=UTF16,
            hint=" or declare its encoding with <meta charset>",
            limits=self.limits,
        )
        events = collapse_opaque(parse_events(text, path))
        language = canonical_locale(locale or "en")
        reader = Reader(text, path, language, self.limits)
        found = reader.read(events)
        if reader.lang:
            with contextlib.suppress(EditionKeyError):
                language = canonical_locale(reader.lang.strip())
        found.sort(key=lambda entry: entry[0])
        blocks = tuple(evolve(block, locale=language) for _, block, _, _ in found)
        skeleton = _HtmlSkeleton(
            TextSkeleton(text, encoding, bom, tuple(span for _, _, span, _ in found)),
            {block.id: layout for _, block, _, layout in found},
            path,
        )
        return Document(self.name, blocks, locale=language, skeleton=skeleton)

    def write(self, document: Document) -> bytes:
        skeleton = document.skeleton
        if not isinstance(skeleton, _HtmlSkeleton):
            raise WriteRefused(
                "this document was not read as HTML; only its own reader's documents can be written",
                capability="skeleton",
            )
        for block in document.blocks:
            if block.targets:
                raise WriteRefused(
                    f"an HTML file holds one edition; block {block.id} carries others",
                    capability="edition",
                    block=block.id,
                )
        encoding = skeleton.text.encoding
        spellings: dict[str, str] | None = None

        def renderer(block: Block, span: Span, runs: Runs) -> str:
            nonlocal spellings
            if spellings is None:
                spellings = reference_spellings(s.runs for s in skeleton.text.spans)
            layout = skeleton.layouts[block.id]
            if layout.kind == "attribute":
                return render_attribute(runs, layout.quote, encoding, spellings)
            return render_text_block(runs, span.runs, encoding, spellings)

        return skeleton.text.render(document, renderer)

    def block_lines(self, document: Document) -> dict[str, tuple[int, int]] | None:
        skeleton = document.skeleton
        if not isinstance(skeleton, _HtmlSkeleton):
            return None
        return skeleton.text.block_lines(document)
