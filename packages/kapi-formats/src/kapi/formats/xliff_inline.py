"""Inline content of XLIFF 1.2 and 2.x ``<source>``/``<target>`` elements read into runs:
code types, halves paired through their ids, codes numbered, each code's data its exact markup."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence

from kapi.core.model import PcClose, PcOpen, Ph, Run, Runs, Text
from kapi.formats.xmlspans import Node, decode_gap

__all__ = ["NS1", "NS2", "InlineReader", "Raw", "finish"]

NS1 = frozenset(
    {
        "",
        "urn:oasis:names:tc:xliff:document:1.0",
        "urn:oasis:names:tc:xliff:document:1.1",
        "urn:oasis:names:tc:xliff:document:1.2",
    }
)
NS2 = frozenset(
    {
        "",
        "urn:oasis:names:tc:xliff:document:2.0",
        "urn:oasis:names:tc:xliff:document:2.1",
        "urn:oasis:names:tc:xliff:document:2.2",
    }
)

_CTYPE = {
    "bold": "fmt:bold",
    "x-html-b": "fmt:bold",
    "x-html-strong": "fmt:bold",
    "italic": "fmt:italic",
    "x-html-i": "fmt:italic",
    "x-html-em": "fmt:italic",
    "underlined": "fmt:underline",
    "x-html-u": "fmt:underline",
    "link": "link:hyperlink",
    "x-html-a": "link:hyperlink",
    "x-html-code": "fmt:code",
    "lb": "fmt:linebreak",
    "x-html-br": "fmt:linebreak",
    "image": "media:image",
    "x-html-img": "media:image",
}
_NATIVE_TAG = {
    "b": "fmt:bold",
    "strong": "fmt:bold",
    "i": "fmt:italic",
    "em": "fmt:italic",
    "u": "fmt:underline",
    "a": "link:hyperlink",
    "code": "fmt:code",
    "br": "fmt:linebreak",
    "img": "media:image",
}
_SUBTYPE2 = {
    "xlf:b": "fmt:bold",
    "xlf:i": "fmt:italic",
    "xlf:u": "fmt:underline",
    "xlf:lb": "fmt:linebreak",
}
_TAG_NAME = re.compile(r"^\s*<\s*/?\s*([A-Za-z][\w:.-]*)")
_HREF = re.compile(r"""\bhref\s*=\s*(["'])(.*?)\1""", re.S)


def _native_type(native: str) -> str:
    found = _TAG_NAME.match(native)
    return _NATIVE_TAG.get(found.group(1).lower(), "") if found else ""


class Raw:
    """A run being read: text, or a code before pairing and numbering."""

    __slots__ = ("close_of", "fields", "kind", "no_translate", "pair", "raw", "text")

    def __init__(self, kind: str, raw: str, **fields: object) -> None:
        self.kind = kind  # "text", "ph", "open", "close", "half-open", "half-close"
        self.raw = raw
        self.text = ""
        self.no_translate = False
        self.pair: object = None
        self.close_of: Raw | None = None
        self.fields: dict[str, object] = fields


def _text(raw: str, no_translate: bool) -> Raw:
    run = Raw("text", raw)
    run.text = decode_gap(raw)
    run.no_translate = no_translate
    return run


class InlineReader:
    """Turns the content of a source or target element into provisional runs."""

    def __init__(self, text: str, version: int, data_refs: Mapping[str, str] | None = None) -> None:
        self.text = text
        self.version = version
        self.namespaces = NS1 if version == 1 else NS2
        self.data_refs = data_refs or {}

    def read(self, element: Node, no_translate: bool = False) -> list[Raw]:
        out: list[Raw] = []
        for item in element.items():
            if isinstance(item, tuple):
                out.append(_text(self.text[item[0] : item[1]], no_translate))
            elif item.kind != "element":
                kind = "xml:comment" if item.kind == "comment" else "xml:pi"
                out.append(
                    Raw("ph", self.text[item.start : item.end], type="code:tag", sub_type=kind)
                )
            elif item.ns not in self.namespaces:
                out.append(self._opaque(item))
            elif self.version == 1:
                self._code1(item, out, no_translate)
            else:
                self._code2(item, out, no_translate)
        return out

    def _whole(self, node: Node) -> str:
        return self.text[node.start : node.end]

    def _opaque(self, node: Node) -> Raw:
        return Raw("ph", self._whole(node), type="code:tag", sub_type=f"xlf:{node.local}")

    def _pair(self, node: Node, out: list[Raw], no_translate: bool, **fields: object) -> None:
        equiv_end = fields.pop("equiv_end", "")
        opening = Raw("open", self.text[node.start : node.content_start], **fields)
        closing = Raw(
            "close",
            self.text[node.content_end : node.end],
            type=fields.get("type", ""),
            sub_type=fields.get("sub_type", ""),
            equiv=equiv_end,
        )
        opening.pair = closing.pair = object()
        out.append(opening)
        out.extend(self.read(node, no_translate))
        out.append(closing)

    def _inner(self, node: Node) -> str:
        return decode_gap(self.text[node.content_start : node.content_end])

    def _code1(self, node: Node, out: list[Raw], no_translate: bool) -> None:
        local = node.local
        attrs = node.attrs
        sub_type = f"xlf:{local}"
        ctype = _CTYPE.get(attrs.get("ctype", ""), "")
        if local in ("g", "mrk") and not node.empty:
            protected = local == "mrk" and attrs.get("mtype") == "protected"
            kind = (ctype or "code:tag") if local == "g" else "code:tag"
            self._pair(
                node,
                out,
                no_translate or protected,
                type=kind,
                sub_type=sub_type,
                attrs=_link_attrs(kind, attrs.get("href", "")),
            )
        elif local == "x":
            out.append(self._x(node))
        elif local in ("bx", "ex", "bpt", "ept"):
            native = self._inner(node) if local in ("bpt", "ept") else ""
            kind = _native_type(native) or ctype or "code:tag"
            half = "half-open" if local in ("bx", "bpt") else "half-close"
            run = Raw(half, self._whole(node), type=kind, sub_type=sub_type)
            if kind == "link:hyperlink":
                run.fields["attrs"] = _href_attrs(native)
            key = attrs.get("rid") or attrs.get("id", "")
            run.pair = ("b" if local in ("bx", "ex") else "pt", key)
            out.append(run)
        elif local == "ph":
            native = self._inner(node)
            out.append(self._placeholder(node, native, ctype, attrs.get("equiv-text")))
        else:  # it, g/mrk as empty elements, anything unknown
            native = self._inner(node) if local == "it" else ""
            kind = _native_type(native) if local == "it" else ""
            out.append(Raw("ph", self._whole(node), type=kind or "code:tag", sub_type=sub_type))

    def _x(self, node: Node) -> Raw:
        attrs = node.attrs
        unit_id = attrs.get("id", "")
        kind = _CTYPE.get(attrs.get("ctype", ""), "")
        if unit_id == "LINE_BREAK":
            kind = "fmt:linebreak"
        elif unit_id.startswith("TAG_IMG"):
            kind = "media:image"
        elif unit_id.startswith(("START_", "CLOSE_")):
            kind = "code:tag"
        if kind == "fmt:linebreak":
            equiv = "\n"
        elif kind in ("", "code:placeholder"):
            kind = "code:placeholder"
            equiv = attrs.get("equiv-text", "")
        else:
            kind = kind if kind in ("media:image",) else "code:tag"
            equiv = ""
        return Raw("ph", self._whole(node), type=kind, sub_type="xlf:x", equiv=equiv)

    def _placeholder(self, node: Node, native: str, ctype: str, equiv: str | None) -> Raw:
        kind = _native_type(native) or ctype
        if kind == "fmt:linebreak":
            text = "\n"
        elif kind == "media:image":
            text = ""
        elif native.lstrip().startswith("<"):
            kind, text = "code:tag", ""
        else:
            kind, text = "code:placeholder", native
        if equiv is not None:
            text = equiv
        return Raw("ph", self._whole(node), type=kind, sub_type=f"xlf:{node.local}", equiv=text)

    def _code2(self, node: Node, out: list[Raw], no_translate: bool) -> None:
        local = node.local
        attrs = node.attrs
        sub_type = f"xlf:{local}"
        if local in ("pc", "mrk") and not node.empty:
            kind = _type2(attrs, "code:tag") if local == "pc" else "code:tag"
            self._pair(
                node,
                out,
                no_translate or (local == "mrk" and attrs.get("translate") == "no"),
                type=kind,
                sub_type=sub_type,
                equiv=attrs.get("equivStart", ""),
                equiv_end=attrs.get("equivEnd", ""),
                disp=attrs.get("dispStart", ""),
            )
        elif local == "ph":
            kind = _type2(attrs, "code:placeholder")
            equiv = attrs.get("equiv")
            if equiv is None:
                equiv = "\n" if kind == "fmt:linebreak" else ""
                native = self.data_refs.get(attrs.get("dataRef", ""), "")
                if kind == "code:placeholder" and native and not native.lstrip().startswith("<"):
                    equiv = native
            out.append(
                Raw(
                    "ph",
                    self._whole(node),
                    type=kind,
                    sub_type=sub_type,
                    equiv=equiv,
                    disp=attrs.get("disp", ""),
                )
            )
        elif local == "cp":
            try:
                char = chr(int(attrs.get("hex", ""), 16))
            except ValueError:
                char = ""
            out.append(
                Raw("ph", self._whole(node), type="entity:char", sub_type=sub_type, equiv=char)
            )
        elif local in ("sc", "sm") and attrs.get("isolated") != "yes":
            run = Raw(
                "half-open",
                self._whole(node),
                type=_type2(attrs, "code:tag"),
                sub_type=sub_type,
                equiv=attrs.get("equiv", ""),
                disp=attrs.get("disp", ""),
            )
            run.pair = (local, attrs.get("id", ""))
            out.append(run)
        elif local in ("ec", "em") and attrs.get("startRef"):
            run = Raw(
                "half-close",
                self._whole(node),
                type=_type2(attrs, "code:tag"),
                sub_type=sub_type,
                equiv=attrs.get("equiv", ""),
            )
            run.pair = ("sc" if local == "ec" else "sm", attrs["startRef"])
            out.append(run)
        else:
            out.append(
                Raw(
                    "ph",
                    self._whole(node),
                    type=_type2(attrs, "code:tag"),
                    sub_type=sub_type,
                    equiv=attrs.get("equiv", ""),
                    disp=attrs.get("disp", ""),
                )
            )


def _type2(attrs: Mapping[str, str], default: str) -> str:
    sub = attrs.get("subType", "")
    if sub in _SUBTYPE2:
        return _SUBTYPE2[sub]
    kind = attrs.get("type", "")
    if kind == "link":
        return "link:hyperlink"
    if kind == "image":
        return "media:image"
    return default


def _link_attrs(kind: str, href: str) -> dict[str, str]:
    return {"href": href} if kind == "link:hyperlink" and href else {}


def _href_attrs(native: str) -> dict[str, str]:
    found = _HREF.search(native)
    return {"href": found.group(2)} if found else {}


def finish(raws: Sequence[Raw]) -> tuple[Runs, tuple[str, ...]]:
    """Pair the halves, number the codes 1, 2, … and build the runs with their raw text."""
    pending: dict[object, list[Raw]] = defaultdict(list)
    for raw in raws:
        if raw.kind == "half-open":
            pending[raw.pair].append(raw)
        elif raw.kind == "half-close":
            openers = pending.get(raw.pair)
            if openers:
                opener = openers.pop()
                opener.kind, raw.kind = "open", "close"
                raw.close_of = opener
                shared = object()
                opener.pair = raw.pair = shared
                raw.fields["type"] = opener.fields.get("type", raw.fields.get("type", ""))
    runs: list[Run] = []
    pieces: list[str] = []
    number = 0
    ids: dict[int, str] = {}
    for raw in raws:
        pieces.append(raw.raw)
        fields = raw.fields
        if raw.kind == "text":
            runs.append(Text(raw.text, no_translate=raw.no_translate))
            continue
        if raw.kind == "close":
            code_id = ids.get(id(raw.pair), "")
            runs.append(
                PcClose(
                    id=code_id,
                    type=str(fields.get("type", "")),
                    sub_type=str(fields.get("sub_type", "")),
                    data=raw.raw,
                    equiv=str(fields.get("equiv", "")),
                )
            )
            continue
        number += 1
        code_id = str(number)
        found_attrs = fields.get("attrs")
        code_attrs = dict(found_attrs) if isinstance(found_attrs, dict) else {}
        if raw.kind == "open":
            ids[id(raw.pair)] = code_id
        kind: type[PcOpen] | type[Ph] = PcOpen if raw.kind == "open" else Ph
        runs.append(
            kind(
                id=code_id,
                type=str(fields.get("type", "")),
                sub_type=str(fields.get("sub_type", "")),
                data=raw.raw,
                equiv=str(fields.get("equiv", "")),
                disp=str(fields.get("disp", "")),
                attrs=code_attrs,
            )
        )
    return tuple(runs), tuple(pieces)
