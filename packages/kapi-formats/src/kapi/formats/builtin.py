"""The formats kapi ships, declared without importing their parsers."""

from __future__ import annotations

import re

from kapi.formats.spec import FormatSpec


def _ascii(head: bytes) -> bytes:
    """The first bytes with the NULs of UTF-16 or UTF-32 dropped, so ASCII markup shows."""
    if b"\x00" in head[:4] or head[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return head.replace(b"\x00", b"")
    return head


def _starts_with_tag(tag: bytes):  # type: ignore[no-untyped-def]
    def sniff(head: bytes) -> bool:
        return tag in _ascii(head)

    return sniff


_XLIFF_VERSION = re.compile(rb"<xliff\b[^>]*?\sversion\s*=\s*[\"']([0-9])")


def _xliff_version(head: bytes) -> str:
    """The major version an ``<xliff>`` element declares (its own attribute, not ``its:version``)."""
    head = _ascii(head)
    match = _XLIFF_VERSION.search(head)
    return match.group(1).decode() if match else ("1" if b"<xliff" in head else "")


_MYST_SYNTAX = re.compile(
    rb"^ {0,3}(?:`{3,}|~{3,}|:{3,})\{[A-Za-z][\w.+:-]*\}"  # a directive fence
    rb"|\{[A-Za-z][\w.+:-]*\}`[^`\n]"  # a role
    rb"|^ {0,3}\([^()\s][^()\n]*\)=[ \t]*$",  # a target
    re.MULTILINE,
)


def looks_like_myst(head: bytes) -> bool:
    """Do a Markdown file's first bytes hold MyST syntax (a directive, a role, a target)?"""
    return _MYST_SYNTAX.search(_ascii(head)) is not None


def _arb_like(head: bytes) -> bool:
    return b'"@@locale"' in _ascii(head)


# The inline code types each reader makes (what an edit may do with each follows from the type).
_PLACEHOLDERS = ("code:placeholder",)
_EMPHASIS = ("fmt:bold", "fmt:italic", "fmt:underline", "fmt:strikethrough")
_MARKUP = ("fmt:code", "link:hyperlink", "media:image", "fmt:linebreak", "code:tag", "entity:char")
_MARKDOWN_CODES = ("fmt:bold", "fmt:italic", "fmt:strikethrough", *_MARKUP)
_XLIFF_CODES = ("code:placeholder", "fmt:bold", "fmt:italic", "fmt:underline", *_MARKUP)
_DRAWING_CODES = (
    *_EMPHASIS,
    "fmt:style",
    "link:hyperlink",
    "fmt:linebreak",
    "code:field",
    "code:tag",
)
_ANDROID_CODES = (
    "code:placeholder",
    "fmt:bold",
    "fmt:italic",
    "fmt:underline",
    "link:hyperlink",
    "fmt:linebreak",
    "code:tag",
)


JSON = FormatSpec(
    name="json",
    title="JSON catalogue (flat, nested, i18next, ICU MessageFormat)",
    codec="kapi.formats.json_catalog:JsonFormat",
    extensions=(".json",),
    mime_types=("application/json",),
    structural=True,
    code_types=_PLACEHOLDERS,
)
ARB = FormatSpec(
    name="arb",
    title="Flutter Application Resource Bundle",
    codec="kapi.formats.json_catalog:ArbFormat",
    extensions=(".arb",),
    mime_types=("application/x-arb",),
    structural=True,
    sniff=_arb_like,
    code_types=_PLACEHOLDERS,
)
YAML = FormatSpec(
    name="yaml",
    title="YAML catalogue (Rails i18n and plain)",
    codec="kapi.formats.yaml_catalog:YamlFormat",
    extensions=(".yaml", ".yml"),
    mime_types=("application/yaml",),
    structural=True,
    code_types=_PLACEHOLDERS,
)
PO = FormatSpec(
    name="po",
    title="GNU gettext PO / POT",
    codec="kapi.formats.po:PoFormat",
    extensions=(".po", ".pot"),
    mime_types=("text/x-gettext-translation",),
    interchange=True,
    adds_blocks=True,
    code_types=_PLACEHOLDERS,
)
XLIFF = FormatSpec(
    name="xliff",
    title="XLIFF 1.2",
    codec="kapi.formats.xliff:Xliff1Format",
    extensions=(".xlf", ".xliff"),
    mime_types=("application/x-xliff+xml",),
    interchange=True,
    sniff=lambda head: _xliff_version(head) == "1",
    priority=1,
    code_types=_XLIFF_CODES,
)
XLIFF2 = FormatSpec(
    name="xliff2",
    title="XLIFF 2.x",
    codec="kapi.formats.xliff:Xliff2Format",
    extensions=(".xlf", ".xliff"),
    mime_types=("application/xliff+xml",),
    interchange=True,
    sniff=lambda head: _xliff_version(head) == "2",
    priority=2,
    code_types=_XLIFF_CODES,
)
ANDROID = FormatSpec(
    name="androidxml",
    title="Android strings.xml",
    codec="kapi.formats.android:AndroidFormat",
    extensions=(".xml",),
    mime_types=("application/xml",),
    sniff=_starts_with_tag(b"<resources"),
    code_types=_ANDROID_CODES,
)
APPLE_STRINGS = FormatSpec(
    name="applestrings",
    title="Apple .strings (UTF-8 and UTF-16)",
    codec="kapi.formats.apple:StringsFormat",
    extensions=(".strings",),
    mime_types=("text/x-apple-strings",),
    code_types=_PLACEHOLDERS,
)
STRINGSDICT = FormatSpec(
    name="stringsdict",
    title="Apple .stringsdict plurals",
    codec="kapi.formats.stringsdict:StringsdictFormat",
    extensions=(".stringsdict",),
    mime_types=("application/x-plist",),
    code_types=(*_PLACEHOLDERS, "entity:char"),
)
PROPERTIES = FormatSpec(
    name="properties",
    title="Java .properties",
    codec="kapi.formats.properties:PropertiesFormat",
    extensions=(".properties",),
    mime_types=("text/x-java-properties",),
    code_types=_PLACEHOLDERS,
)
MARKDOWN = FormatSpec(
    name="markdown",
    title="Markdown (CommonMark + GFM tables, front matter)",
    codec="kapi.formats.markdown:MarkdownFormat",
    extensions=(".md", ".markdown"),
    mime_types=("text/markdown",),
    code_types=_MARKDOWN_CODES,
)
MYST = FormatSpec(
    name="myst",
    title="MyST Markdown (Sphinx directives and roles; .md with MyST syntax, or format: myst)",
    codec="kapi.formats.myst:MystFormat",
    extensions=(".md", ".markdown"),
    mime_types=("text/markdown",),
    sniff=looks_like_myst,
    priority=-1,
    code_types=(*_MARKDOWN_CODES, *_PLACEHOLDERS),
)
MDX = FormatSpec(
    name="mdx",
    title="MDX (Markdown with JSX, ESM and Docusaurus admonitions)",
    codec="kapi.formats.mdx:MdxFormat",
    extensions=(".mdx",),
    mime_types=("text/mdx",),
    code_types=(*_MARKDOWN_CODES, "code:expression"),
)
HTML = FormatSpec(
    name="html",
    title="HTML",
    codec="kapi.formats.html:HtmlFormat",
    extensions=(".html", ".htm", ".xhtml"),
    mime_types=("text/html",),
    writable_attrs={"link:hyperlink": ("href", "title"), "media:image": ("src", "alt", "title")},
    code_types=(*_EMPHASIS, *_MARKUP),
)
PLAINTEXT = FormatSpec(
    name="plaintext",
    title="Plain text (paragraphs)",
    codec="kapi.formats.plaintext:PlainTextFormat",
    extensions=(".txt",),
    mime_types=("text/plain",),
)
DOCX = FormatSpec(
    name="docx",
    title="Word document (OOXML)",
    codec="kapi.formats.office.docx:DocxFormat",
    extensions=(".docx", ".docm", ".dotx"),
    mime_types=("application/vnd.openxmlformats-officedocument.wordprocessingml.document",),
    generative=False,
    code_types=(*_DRAWING_CODES, "fmt:tab", "fmt:break", "media:image", "entity:char"),
)
XLSX = FormatSpec(
    name="xlsx",
    title="Excel workbook (OOXML)",
    codec="kapi.formats.office.xlsx:XlsxFormat",
    extensions=(".xlsx", ".xlsm", ".xltx"),
    mime_types=("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",),
    generative=False,
    code_types=_DRAWING_CODES,
)
PPTX = FormatSpec(
    name="pptx",
    title="PowerPoint presentation (OOXML)",
    codec="kapi.formats.office.pptx:PptxFormat",
    extensions=(".pptx", ".pptm", ".potx"),
    mime_types=("application/vnd.openxmlformats-officedocument.presentationml.presentation",),
    generative=False,
    code_types=_DRAWING_CODES,
)

SPECS: tuple[FormatSpec, ...] = (
    JSON,
    ARB,
    YAML,
    PO,
    XLIFF,
    XLIFF2,
    ANDROID,
    APPLE_STRINGS,
    STRINGSDICT,
    PROPERTIES,
    MARKDOWN,
    MYST,
    MDX,
    HTML,
    PLAINTEXT,
    DOCX,
    XLSX,
    PPTX,
)
