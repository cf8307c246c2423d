"""YAML corpus: real locale files nobody on this project wrote.

* ``@paprika/l10n`` 1.1.11 (npm, MIT): seven Rails-style files, each under a
  single root locale key (``en:``, ``de:``, ``ja:`` …).
* ``mcdreforged`` 2.16.2 (PyPI wheel, LGPL-3.0): three large nested language
  files (``en_us.yml``, ``zh_cn.yml``, ``zh_tw.yml``) and two config files
  with comments, block scalars and mixed quoting.

Besides the shared assertions, an independent parser (ruamel's safe loader)
must load the pseudo-translated output with every value where it was, and a
few files are checked again after being given a BOM and CRLF line ends.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from kapi.core.model import Plural, Text
from kapi.formats.yaml_catalog import YamlFormat
from tests.corpus.faithful import assert_faithful, map_text, pseudo_text
from tests.corpus.fetch import Source, unpacked

pytestmark = pytest.mark.corpus

PAPRIKA = Source(
    registry="npm",
    name="@paprika/l10n",
    version="1.1.11",
    sha256="1592ca95c2e726ef0f3a4a62e7f650e8dccf1d99f7b7570db9c2cf050c29ce06",
    filename="paprika-l10n-1.1.11.tgz",
)
MCDREFORGED = Source(
    registry="pypi",
    name="mcdreforged",
    version="2.16.2",
    sha256="83104ea79d134fae00882e55ab2e154d1520559ebcb6583ca9a59922dffc546c",
    filename="mcdreforged-2.16.2-py3-none-any.whl",
)
CODEC = YamlFormat()


def files() -> list[tuple[Path, Path]]:
    paprika = unpacked(PAPRIKA)
    mcd = unpacked(MCDREFORGED)
    rails = sorted((paprika / "package" / "lib" / "locales").glob("*.yml"))
    assert len(rails) == 7, "the pinned package ships seven locale files"
    plain = sorted((mcd / "mcdreforged" / "resources").rglob("*.yml"))
    assert len(plain) == 5, "the pinned wheel ships five YAML files"
    return [(paprika, f) for f in rails] + [(mcd, f) for f in plain]


def lookup(node: Any, name: str) -> Any:
    """The value at a block name; keys may hold dots, and ``true:``/``1:`` load as non-strings."""
    if not name:
        return node
    if isinstance(node, list):
        index, _, rest = name[1:].partition("]")
        return lookup(node[int(index)], rest.removeprefix("."))
    for key, value in node.items():
        text = "" if key is None else str(key)
        for candidate in {text, text.lower()}:
            if name == candidate or name.startswith((candidate + ".", candidate + "[")):
                try:
                    rest = name[len(candidate) :]
                    return lookup(value, rest.removeprefix("."))
                except (KeyError, LookupError, AttributeError, ValueError):
                    continue
    raise KeyError(name)


@pytest.mark.parametrize("index", range(12))
def test_files_are_faithful(index: int) -> None:
    root, path = files()[index]
    data = path.read_bytes()
    name = path.relative_to(root).as_posix()
    assert_faithful(CODEC, data, name)
    document = CODEC.read(data, path=name)
    assert document.blocks, f"{name}: no blocks read"
    if "locales" in name:
        assert document.locale == path.stem
        assert not any(b.name.startswith(path.stem + ".") for b in document.blocks)

    # an independent parser sees every pseudo-translated value in its place
    pseudo = document.with_blocks(
        tuple(b.with_source(map_text(b.source, pseudo_text)) for b in document.blocks)
    )
    loaded = YAML(typ="safe", pure=True).load(CODEC.write(pseudo).decode("utf-8"))
    if "locales" in name:
        loaded = loaded[path.stem]
    for block in pseudo.blocks:
        value = lookup(loaded, block.name)
        if len(block.source) == 1 and isinstance(block.source[0], Plural):
            forms = block.source[0].forms
            assert value == {k: "".join(_flat(r) for r in v) for k, v in forms.items()}
        else:
            assert value == "".join(_flat(r) for r in block.source), f"{name}: {block.name}"


def _flat(run: object) -> str:
    return run.text if isinstance(run, Text) else getattr(run, "data", "")


@pytest.mark.parametrize("index", [1, 7, 10])
def test_bom_and_crlf_versions_are_faithful(index: int) -> None:
    root, path = files()[index]
    data = b"\xef\xbb\xbf" + path.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    assert_faithful(CODEC, data, path.relative_to(root).as_posix())
