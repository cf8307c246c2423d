"""Apple .strings corpus: real tables nobody on this project wrote.

``react-native-image-crop-picker`` 0.52.0 (npm, MIT) ships QBImagePicker's
``.lproj/QBImagePicker.strings`` for 21 locales as text (UTF-8, block and line
comments, ``%ld`` placeholders) and six more compiled to binary property lists,
which the reader must refuse as ``unsupported``. No UTF-16 table could be found
on the registries, so each text table is also checked re-encoded the way Xcode
saves them: UTF-16 LE and BE with a BOM, UTF-16 LE without one, and with CRLF.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kapi.core.format import FormatError
from kapi.formats.apple import StringsFormat
from tests.corpus.faithful import assert_faithful
from tests.corpus.fetch import Source, unpacked

pytestmark = pytest.mark.corpus

IMAGE_CROP_PICKER = Source(
    registry="npm",
    name="react-native-image-crop-picker",
    version="0.52.0",
    sha256="316c9289d5f8a017d8ed4ee71fe0bfd47a5e064349b5a2765c9db38d794661e4",
    filename="react-native-image-crop-picker-0.52.0.tgz",
)
CODEC = StringsFormat()


def tables() -> tuple[list[tuple[str, bytes]], list[tuple[str, bytes]]]:
    """(text tables, compiled tables) with their paths inside the package."""
    root = unpacked(IMAGE_CROP_PICKER)
    found = sorted(root.rglob("*.strings"))
    assert len(found) == 27, "the pinned package ships 27 .strings files"
    named = [(f.relative_to(root).as_posix(), f.read_bytes()) for f in found]
    compiled = [(n, d) for n, d in named if d.startswith(b"bplist")]
    text = [(n, d) for n, d in named if not d.startswith(b"bplist")]
    assert len(text) == 21 and len(compiled) == 6
    return text, compiled


def test_text_tables_are_faithful() -> None:
    text, _ = tables()
    for name, data in text:
        assert_faithful(CODEC, data, name, locale=Path(name).parent.stem)
        document = CODEC.read(data, path=name)
        assert len(document.blocks) == 17
        assert any(
            r.sub_type == "printf:ld"
            for b in document.blocks
            for r in b.source
            if hasattr(r, "sub_type")
        )


@pytest.mark.parametrize(
    ("encoding", "bom"),
    [("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff"), ("utf-16-le", b""), ("utf-8", b"")],
)
def test_reencoded_tables_are_faithful(encoding: str, bom: bytes) -> None:
    text, _ = tables()
    for name, data in text:
        crlf = data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
        reencoded = bom + crlf.decode("utf-8").encode(encoding)
        document = CODEC.read(reencoded, path=name)
        assert [b.source for b in document.blocks] == [b.source for b in CODEC.read(data).blocks]
        assert_faithful(CODEC, reencoded, name)


def test_compiled_tables_are_refused_as_unsupported() -> None:
    _, compiled = tables()
    for name, data in compiled:
        with pytest.raises(FormatError) as error:
            CODEC.read(data, path=name)
        assert error.value.code == "unsupported"
