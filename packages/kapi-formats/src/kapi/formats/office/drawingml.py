"""DrawingML text, as slides and charts hold it: a paragraph (``a:p``) of runs read into text and codes.

Runs: the base formatting (runs without ``a:rPr`` if any, else the run
properties under most of the text) makes no code; sibling runs with other
properties (``dirty``, ``err``, ``smtClean`` ignored, so spell-check splits
merge) are a pair ``fmt:bold`` / ``fmt:italic`` / ``fmt:underline`` /
``fmt:strikethrough`` / ``fmt:style`` or, with ``a:hlinkClick``,
``link:hyperlink``, sub_type ``pptx:run``. ``a:br`` is ``fmt:linebreak``;
``a:fld`` a ``code:field`` placeholder; other content ``code:tag``.
"""

from __future__ import annotations

import re
from collections import Counter

from kapi.core.format import WriteRefused
from kapi.core.model import PcClose, PcOpen, Ph
from kapi.formats.office.inline import (
    OUTER_LEVEL,
    RUN_PAIR,
    STANDALONE,
    CodeInfo,
    Dialect,
    InlineBuilder,
    ParagraphSkeleton,
    choose_base,
)
from kapi.formats.office.package import Relationship
from kapi.formats.office.xmlsplice import Element, escape_text

__all__ = ["DRAWING_DIALECT", "PptxDialect", "refuse_invalid_xml", "walk_drawing_paragraph"]

_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_EDITOR_STATE = re.compile(rb'\s+(?:dirty|err|smtClean|smtId|noProof|bmk)="[^"]*"')
_BETWEEN_TAGS = re.compile(rb">\s+<")


class PptxDialect(Dialect):
    """DrawingML text: one ``a:t`` per ``a:r``; a line break is an ``a:br`` between runs."""

    preserve_edges = False  # DrawingML keeps a:t whitespace as written

    def escape(self, text: str, prefix: bytes, run_open: bytes, block: str) -> tuple[bytes, str]:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        refuse_invalid_xml(text, block)
        pieces = text.split("\n")
        out = [escape_text(pieces[0]).encode("utf-8")]
        reopen = run_open or b"<" + prefix + b"r>"
        for piece in pieces[1:]:
            out.append(
                b"</"
                + prefix
                + b"t></"
                + prefix
                + b"r><"
                + prefix
                + b"br/>"
                + reopen
                + b"<"
                + prefix
                + b"t>"
                + escape_text(piece).encode("utf-8")
            )
        return b"".join(out), pieces[0]

    def synthesize(
        self, run: Ph | PcOpen | PcClose, prefix: bytes, block: str
    ) -> tuple[bytes, CodeInfo]:
        if isinstance(run, Ph) and run.type == "fmt:linebreak":
            return b"<" + prefix + b"br/>", CodeInfo(0, 0, STANDALONE, OUTER_LEVEL)
        return super().synthesize(run, prefix, block)


DRAWING_DIALECT = PptxDialect()


def refuse_invalid_xml(text: str, block: str) -> None:
    """Refuse a character no XML 1.0 document can hold."""
    bad = _INVALID_XML.search(text)
    if bad:
        raise WriteRefused(
            f"block {block}: character U+{ord(bad.group()):04X} cannot be written in XML",
            capability="characters",
            block=block,
        )


def _rpr_key(data: bytes, properties: Element | None) -> bytes:
    if properties is None:
        return b""
    raw = _EDITOR_STATE.sub(b"", data[properties.start : properties.end])
    raw = _BETWEEN_TAGS.sub(b"><", raw)
    return re.sub(rb"^<[^\s>/]+", b"", raw)


def _pair(
    properties: Element | None, relationships: dict[str, Relationship]
) -> tuple[str, dict[str, str]]:
    if properties is None:
        return "fmt:style", {}
    link = properties.first("a:hlinkClick")
    if link is not None:
        relationship = relationships.get(link.attrs.get("r:id", ""))
        attrs = (
            {"href": relationship.target}
            if relationship is not None and relationship.target
            else {}
        )
        return "link:hyperlink", attrs
    attrs = properties.attrs
    if attrs.get("b") in ("1", "true"):
        return "fmt:bold", {}
    if attrs.get("i") in ("1", "true"):
        return "fmt:italic", {}
    if attrs.get("u", "none") != "none":
        return "fmt:underline", {}
    if attrs.get("strike", "noStrike") != "noStrike":
        return "fmt:strikethrough", {}
    return "fmt:style", {}


def walk_drawing_paragraph(
    paragraph: Element, data: bytes, relationships: dict[str, Relationship]
) -> ParagraphSkeleton | None:
    content = [child for child in paragraph.children if child.name not in ("a:pPr", "a:endParaRPr")]
    if not content:
        return None
    raw_name = paragraph.raw_name(data)
    prefix = raw_name[: raw_name.index(b":") + 1] if b":" in raw_name else b""
    runs: list[tuple[Element, Element | None, bytes]] = []
    weights: Counter[bytes] = Counter()
    for element in content:
        if element.name == "a:r":
            first = element.children[0] if element.children else None
            properties = first if first is not None and first.name == "a:rPr" else None
            key = _rpr_key(data, properties)
            runs.append((element, properties, key))
            weights[key] += len(element.all_text("a:t"))
    base_key = choose_base(weights)
    base_open = b"<" + prefix + b"r>"
    for element, properties, key in runs:
        if key == base_key:
            base_open = data[
                element.start : properties.end
                if properties is not None
                else element.start_end(data)
            ]
            break
    keys = {id(element): (properties, key) for element, properties, key in runs}

    builder = InlineBuilder(data)
    index = 0
    while index < len(content):
        element = content[index]
        if element.name == "a:r":
            properties, key = keys[id(element)]
            stop = index
            while (
                stop + 1 < len(content)
                and content[stop + 1].name == "a:r"
                and keys[id(content[stop + 1])][1] == key
            ):
                stop += 1
            group = content[index : stop + 1]
            code_id = ""
            pair_type = ""
            if key != base_key:
                pair_type, attrs = _pair(properties, relationships)
                open_end = properties.end if properties is not None else element.start_end(data)
                code_id = builder.open(
                    element.start,
                    open_end,
                    kind=RUN_PAIR,
                    type=pair_type,
                    sub_type="pptx:run",
                    attrs=attrs,
                )
            for run in group:
                run_properties = keys[id(run)][0]
                run_open = data[
                    run.start : run_properties.end
                    if run_properties is not None
                    else run.start_end(data)
                ]
                for child in run.children:
                    if child.name == "a:t":
                        builder.slot(child, run_open)
            if code_id:
                last = group[-1]
                builder.close(
                    code_id,
                    last.end_start,
                    last.end,
                    kind=RUN_PAIR,
                    type=pair_type,
                    sub_type="pptx:run",
                )
            index = stop + 1
            continue
        if element.name == "a:br":
            builder.ph(
                element.start,
                element.end,
                level=OUTER_LEVEL,
                type="fmt:linebreak",
                sub_type="pptx:br",
                equiv="\n",
            )
        elif element.name == "a:fld":
            builder.ph(
                element.start,
                element.end,
                level=OUTER_LEVEL,
                type="code:field",
                sub_type="pptx:fld",
                equiv=element.all_text("a:t"),
                attrs={"field": element.attrs.get("type", "")},
            )
        else:
            local = element.name.rsplit(":", 1)[-1].rsplit("}", 1)[-1]
            builder.ph(
                element.start,
                element.end,
                level=OUTER_LEVEL,
                type="code:tag",
                sub_type="pptx:" + local,
            )
        index += 1
    if not builder.has_text():
        return None
    return builder.finish(
        content_start=content[0].start,
        content_end=content[-1].end,
        base_open=base_open,
        prefix=prefix,
        dialect=DRAWING_DIALECT,
    )
