"""XLIFF and stringsdict corpus: files other projects wrote, from two pinned PyPI packages.

* Weblate 5.14.3 wheel (GPL-3.0-or-later; fetched, never vendored): the XLIFF 1.1/1.2
  test files of ``weblate/trans/tests/data`` (translate-toolkit and Angular
  styles, units without ids, ``<mrk mtype="protected">``, a PO-XLIFF with
  plural groups) and its ``cs.stringsdict``.
* wagtail-xliff-translation 1.0.4 sdist (BSD): six XLIFF 2.0 exports of Wagtail
  pages (metadata and size-restriction modules; their ``xlmns`` typo leaves the
  elements without a namespace, which the reader accepts).

Real XLIFF is scarce on the registries, so these are all the files there are;
the unit tests' own fixtures cover the rest (Xcode/Angular/Okapi styles, XLIFF 2
codes and segments). The real files have no BOM or CRLF, so each is also checked
after giving it both, as a Windows editor saves it.
"""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from kapi.core.format import FormatCodec
from kapi.formats.stringsdict import StringsdictFormat
from kapi.formats.xliff import Xliff1Format, Xliff2Format
from tests.corpus.faithful import assert_faithful
from tests.corpus.fetch import Source, unpacked

pytestmark = pytest.mark.corpus

WEBLATE = Source(
    registry="pypi",
    name="weblate",
    version="5.14.3",
    sha256="0bc2c5a49ebc496758e89f08d5ec9d1b226e8aba2cff7744a18ab9f235dca816",
    filename="weblate-5.14.3-py3-none-any.whl",
)
WAGTAIL = Source(
    registry="pypi",
    name="wagtail-xliff-translation",
    version="1.0.4",
    sha256="be5710dc83b03826d0044809895b9ca54a02f91859b84fb6d42fbfb2d9221b37",
    filename="wagtail_xliff_translation-1.0.4.tar.gz",
    binary=False,
)


def weblate_files(pattern: str) -> list[Path]:
    return sorted((unpacked(WEBLATE) / "weblate" / "trans" / "tests" / "data").glob(pattern))


def wagtail_files() -> list[Path]:
    return sorted(unpacked(WAGTAIL).rglob("*.xliff"))


def windows(data: bytes) -> bytes:
    """The same file as a Windows editor saves it: BOM and CRLF."""
    return codecs.BOM_UTF8 + data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def check(codec: FormatCodec, files: list[Path], root: Path) -> int:
    units = 0
    for path in files:
        data = path.read_bytes()
        name = path.relative_to(root).as_posix()
        assert_faithful(codec, data, name)
        assert_faithful(codec, windows(data), name + " (BOM+CRLF)")
        units += len(codec.read(data, path=name).blocks)
    return units


def test_weblate_xliff_1_files_are_faithful() -> None:
    files = weblate_files("*.xliff") + weblate_files("*.poxliff")
    assert len(files) == 7, "the pinned wheel ships six .xliff and one .poxliff"
    units = check(Xliff1Format(), files, unpacked(WEBLATE))
    assert units == 27


def test_weblate_xliff_reads_what_weblate_wrote() -> None:
    document = Xliff1Format().read(weblate_files("ids-translated.xliff")[0].read_bytes())
    orangutan = next(b for b in document.blocks if b.name == "orangutan")
    placeholder = orangutan.source[1]
    assert getattr(placeholder, "data", "") == '<x id="c" equiv-text="{{count}}"/>'
    assert getattr(placeholder, "equiv", "") == "{{count}}"
    protected = Xliff1Format().read(weblate_files("placeholder-mrk.xliff")[0].read_bytes())
    assert protected.target_locale == "en-US"
    assert protected.blocks[0].source[2].no_translate  # type: ignore[union-attr]


def test_wagtail_xliff_2_files_are_faithful() -> None:
    files = wagtail_files()
    assert len(files) == 6
    units = check(Xliff2Format(), files, unpacked(WAGTAIL))
    assert units == 65


def test_weblate_stringsdict_is_faithful() -> None:
    files = weblate_files("*.stringsdict")
    assert len(files) == 1
    units = check(StringsdictFormat(), files, unpacked(WEBLATE))
    assert units == 1
