"""HTML corpus: real pages nobody on this project wrote.

Source (PyPI sdist, pinned): docutils 0.21.2 (public domain / BSD-2-Clause /
Python-2.0 for the parts shipped). Its 29 ``.html`` files are the expected
outputs of its functional tests (HTML4 and HTML5 writers, S5 slides, PEP pages,
MathML math, footnotes, tables, entities) plus the hand-written reStructuredText
quick reference. reveal.js 5.1.0 (npm, MIT): three hand-written pages (the
demo deck, the index, the speaker view) with inline scripts and styles,
``data-*`` attributes and code listings.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kapi.formats.html import HtmlFormat
from tests.corpus.faithful import assert_faithful
from tests.corpus.fetch import Source, unpacked

pytestmark = pytest.mark.corpus

DOCUTILS = Source(
    registry="pypi",
    name="docutils",
    version="0.21.2",
    sha256="3a6b18732edf182daa3cd12775bbb338cf5691468f91eeeb109deff6ebfa986f",
    filename="docutils-0.21.2.tar.gz",
    binary=False,
)
REVEAL = Source(
    registry="npm",
    name="reveal.js",
    version="5.1.0",
    sha256="524caf847e98033595943d994725dd357d20c7d07ad18afbaa932f1535e636e7",
    filename="reveal.js-5.1.0.tgz",
)


def _pages() -> list[Path]:
    return sorted(unpacked(DOCUTILS).rglob("*.html"))


def test_docutils_pages_round_trip() -> None:
    codec = HtmlFormat()
    pages = _pages()
    assert len(pages) == 29
    blocks = 0
    for page in pages:
        data = page.read_bytes()
        assert_faithful(codec, data, page.name)
        blocks += len(codec.read(data, path=page.name).blocks)
    assert blocks > 2000


def test_reveal_js_pages_round_trip() -> None:
    codec = HtmlFormat()
    pages = sorted((unpacked(REVEAL) / "package").rglob("*.html"))
    assert len(pages) == 3
    for page in pages:
        assert_faithful(codec, page.read_bytes(), page.name)
    demo = codec.read((unpacked(REVEAL) / "package" / "demo.html").read_bytes())
    assert sum(1 for b in demo.blocks if b.role == "heading") >= 30
