"""The HTML element vocabulary the reader goes by: inline, void and excluded elements, the
code type and block role each element gives, and which start tags close which elements."""

from __future__ import annotations

__all__ = [
    "CLOSED_BY",
    "CLOSES_P",
    "CODE_ATTRS",
    "CONTAINER_ROLES",
    "EXCLUDED",
    "ID_PREFIX",
    "INLINE",
    "LISTS",
    "META_NAMES",
    "PAIR_TYPES",
    "QUIET_TAGS",
    "ROLES",
    "TEXT_ATTRS",
    "VOID",
]

INLINE = frozenset(
    [
        "a",
        "abbr",
        "acronym",
        "b",
        "bdi",
        "bdo",
        "big",
        "br",
        "cite",
        "code",
        "data",
        "del",
        "dfn",
        "em",
        "font",
        "i",
        "img",
        "ins",
        "kbd",
        "mark",
        "q",
        "rb",
        "rp",
        "rt",
        "rtc",
        "ruby",
        "s",
        "samp",
        "small",
        "span",
        "strike",
        "strong",
        "sub",
        "sup",
        "time",
        "tt",
        "u",
        "var",
        "wbr",
    ]
)
VOID = frozenset(
    [
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "keygen",
        "link",
        "meta",
        "param",
        "source",
        "track",
        "wbr",
    ]
)
EXCLUDED = frozenset({"script", "style", "template", "noscript", "svg", "math"})
PAIR_TYPES = {
    "b": "fmt:bold",
    "strong": "fmt:bold",
    "i": "fmt:italic",
    "em": "fmt:italic",
    "u": "fmt:underline",
    "code": "fmt:code",
    "tt": "fmt:code",
    "s": "fmt:strikethrough",
    "strike": "fmt:strikethrough",
    "del": "fmt:strikethrough",
    "a": "link:hyperlink",
}
CODE_ATTRS = {"a": ("href", "title"), "img": ("src", "alt", "title")}

ROLES = {
    "li": "list-item",
    "td": "table-cell",
    "th": "table-cell",
    "title": "title",
    "caption": "caption",
    "figcaption": "caption",
    "dt": "term",
    "dd": "definition",
    "blockquote": "quote",
    "p": "paragraph",
    "div": "text",
    "pre": "preformatted",
}
CONTAINER_ROLES = frozenset({"li", "td", "th", "blockquote", "dd", "dt", "caption", "figcaption"})
ID_PREFIX = {"heading": "h", "list-item": "li", "table-cell": "td", "attribute": "attr"}
TEXT_ATTRS = frozenset({"alt", "title", "placeholder", "aria-label"})
META_NAMES = frozenset(
    {"description", "og:title", "og:description", "twitter:title", "twitter:description"}
)
LISTS = frozenset({"ul", "ol", "menu"})
# Elements a new start tag of these closes implicitly (the parser reports no end tag).
CLOSED_BY = {
    "li": frozenset({"li"}),
    "dt": frozenset({"dt", "dd"}),
    "dd": frozenset({"dt", "dd"}),
    "td": frozenset({"td", "th"}),
    "th": frozenset({"td", "th"}),
    "tr": frozenset({"tr", "td", "th"}),
    "option": frozenset({"option"}),
}
CLOSES_P = frozenset(
    [
        "address",
        "article",
        "aside",
        "blockquote",
        "details",
        "div",
        "dl",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hgroup",
        "hr",
        "main",
        "menu",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "table",
        "ul",
    ]
)

QUIET_TAGS = frozenset({"code", "tt", "kbd", "samp"})
