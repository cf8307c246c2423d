"""Android corpus: real ``res/values*/*.xml`` resource files from pinned npm packages.

* react-native 0.76.9 (MIT): ReactAndroid's resources, 140 ``strings.xml`` in
  about 70 locales (RTL scripts, ``\\'`` escapes, ``translatable="false"``,
  ``%1$s``), plus its themes, styles and values files.
* cordova-plugin-android-fingerprint-auth 1.5.0 (MIT): 18 locales of another
  project's ``fpauth-strings.xml`` and a colours file, with licence comments.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kapi.core.model import Ph
from kapi.formats.android import AndroidFormat
from tests.corpus.faithful import assert_faithful
from tests.corpus.fetch import Source, unpacked

pytestmark = pytest.mark.corpus

SOURCES = (
    Source(
        registry="npm",
        name="react-native",
        version="0.76.9",
        sha256="aef5ca9b8a621db566488b82e46c86ed5662d48b7a1080f8a14a86d5454b97b3",
        filename="react-native-0.76.9.tgz",
    ),
    Source(
        registry="npm",
        name="cordova-plugin-android-fingerprint-auth",
        version="1.5.0",
        sha256="c6466952329b50425c58b5c71fb6a96139046225eb691e7c1fcc9091423704fb",
        filename="cordova-plugin-android-fingerprint-auth-1.5.0.tgz",
    ),
)
MAX_FILES = 400
CODEC = AndroidFormat()


def resource_files() -> list[tuple[Path, Path]]:
    out = []
    for source in SOURCES:
        tree = unpacked(source)
        for path in sorted(tree.rglob("*.xml")):
            if path.parent.name.startswith("values") and b"<resources" in path.read_bytes()[:4096]:
                out.append((tree, path))
    return out[:MAX_FILES]


def locale_of(path: Path) -> str:
    """The values-xx-rYY folder's language, as the file's own edition."""
    parts = path.parent.name.split("-")[1:]
    if not parts or len(parts[0]) not in (2, 3) or not parts[0].isalpha():
        return "en"
    language = {"iw": "he", "in": "id", "ji": "yi"}.get(parts[0], parts[0])
    region = next((p[1:] for p in parts[1:] if p.startswith("r") and len(p) == 3), "")
    return f"{language}-{region}" if region else language


def test_resource_files_are_faithful() -> None:
    files = resource_files()
    failures: list[str] = []
    blocks = strings_files = placeholders = untranslatable = 0
    for tree, path in files:
        relative = path.relative_to(tree).as_posix()
        data = path.read_bytes()
        try:
            assert_faithful(CODEC, data, relative, locale=locale_of(path))
        except AssertionError as err:
            failures.append(str(err))
        document = CODEC.read(data, path=relative)
        blocks += len(document.blocks)
        strings_files += path.name.endswith("strings.xml")
        untranslatable += sum(not b.translatable for b in document.blocks)
        placeholders += sum(isinstance(r, Ph) for b in document.blocks for r in b.source)
    assert not failures, "\n".join(failures[:10])
    assert strings_files >= 150
    assert blocks > 1500 and untranslatable > 10 and placeholders >= 3


def test_escaped_apostrophes_are_decoded() -> None:
    tree = unpacked(SOURCES[0])
    path = tree / "package/ReactAndroid/src/main/res/views/uimanager/values-uk/strings.xml"
    document = CODEC.read(path.read_bytes(), path=str(path), locale="uk")
    menu_item = next(b for b in document.blocks if b.name == "menuitem_description")
    assert "\\" not in "".join(getattr(r, "text", "") for r in menu_item.source)
    assert "'" in "".join(getattr(r, "text", "") for r in menu_item.source)
