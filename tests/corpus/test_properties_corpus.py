"""Java .properties corpus: real bundles nobody on this project wrote.

* ``pdf.js-viewer`` 0.2.8 (npm, Apache-2.0): 105 ``viewer.properties`` files of
  Mozilla's PDF.js viewer, one per locale, UTF-8, ``{{n}}`` placeholders.
* ``google-closure-compiler-java`` 20261015.0.0 (npm, Apache-2.0): the 21
  ``.properties`` inside its ``compiler.jar`` — Java resource bundles (args4j
  messages in German and Russian, ``\\uXXXX`` escaped, MessageFormat ``{0}``)
  and Ant/Maven configuration files.

Besides the shared assertions: a file written with ``\\u`` escapes stays pure
ASCII after pseudo-translation, and a few files are checked again with CRLF.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from kapi.formats.properties import PropertiesFormat
from tests.corpus.faithful import assert_faithful, map_text, pseudo_text
from tests.corpus.fetch import Source, unpacked

pytestmark = pytest.mark.corpus

PDFJS_VIEWER = Source(
    registry="npm",
    name="pdf.js-viewer",
    version="0.2.8",
    sha256="91cd9a73f108f0a330872ec46fa249746d4dd9d6777c3f6a8fa32e503ceeec02",
    filename="pdf.js-viewer-0.2.8.tgz",
)
CLOSURE = Source(
    registry="npm",
    name="google-closure-compiler-java",
    version="20261015.0.0",
    sha256="ca26ec5391c4bd95e180e930137ee9cd8ed39b7ac432043854601b827a5fb4a9",
    filename="google-closure-compiler-java-20261015.0.0.tgz",
)
CODEC = PropertiesFormat()


def viewer_files() -> list[tuple[str, bytes]]:
    root = unpacked(PDFJS_VIEWER)
    found = sorted((root / "package" / "locale").rglob("*.properties"))
    assert len(found) == 105, "the pinned package ships 105 locale files"
    return [(f.relative_to(root).as_posix(), f.read_bytes()) for f in found]


def jar_files() -> list[tuple[str, bytes]]:
    jar = unpacked(CLOSURE) / "package" / "compiler.jar"
    with zipfile.ZipFile(jar) as zipped:
        names = sorted(n for n in zipped.namelist() if n.endswith(".properties"))
        assert len(names) == 21, "the pinned compiler.jar holds 21 .properties files"
        return [(f"compiler.jar!/{n}", zipped.read(n)) for n in names]


def test_pdfjs_viewer_locales_are_faithful() -> None:
    files = viewer_files()
    for name, data in files:
        assert_faithful(CODEC, data, name, locale=Path(name).parent.name)
    blocks = sum(len(CODEC.read(data).blocks) for _, data in files)
    assert blocks > 10_000


def test_java_bundles_in_a_jar_are_faithful() -> None:
    for name, data in jar_files():
        assert_faithful(CODEC, data, name)


def test_escaped_bundle_stays_ascii_after_pseudo_translation() -> None:
    data = dict(jar_files())["compiler.jar!/org/kohsuke/args4j/Messages_ru.properties"]
    document = CODEC.read(data)
    assert any(not b.source[0].text.isascii() for b in document.blocks if b.source)  # type: ignore[union-attr]
    pseudo = document.with_blocks(
        tuple(b.with_source(map_text(b.source, pseudo_text)) for b in document.blocks)
    )
    out = CODEC.write(pseudo)
    assert out.isascii()
    again = CODEC.read(out)
    assert [b.source for b in again.blocks] == [b.source for b in pseudo.blocks]


@pytest.mark.parametrize("index", [0, 40, 104])
def test_crlf_versions_are_faithful(index: int) -> None:
    name, data = viewer_files()[index]
    assert_faithful(CODEC, data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"), name)
