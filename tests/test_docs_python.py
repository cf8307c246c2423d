"""The Python the documentation shows runs as written.

Each page's ``python`` blocks run in order in one namespace, in a copy of the
example shop. The names a page leaves to its reader (the runs of a block, the
bytes of a change set, a home holding a document) are given to it first, as a
library user's own code would hold them; everything else the blocks use they
import or define themselves.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = ("README.md", "docs/library.md")
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def blocks(page: str) -> list[str]:
    return BLOCK.findall((ROOT / page).read_text(encoding="utf-8"))


def test_the_pages_show_python():
    assert all(blocks(page) for page in PAGES)


def _given(shop: Path) -> dict[str, Any]:
    """What a library user holds before the page's first line: the catalogue's bytes and
    document, one block's runs, a change set's bytes, and a home holding the document."""
    from kapi.core.change import MemoryHome
    from kapi.formats import registry

    data = (shop / "locales/en.json").read_bytes()
    document = registry.load_codec("json").read(data, path="locales/en.json", locale="en")
    block = document.blocks[0]
    change = {
        "ops": [
            {
                "op": "set_content",
                "at": {"doc": "locales/en.json", "block": block.id},
                "if_match": "*",
                "text": "Changed by a library",
            }
        ]
    }
    raw_bytes = json.dumps(change).encode()
    (shop / "change.json").write_bytes(raw_bytes)
    return {
        "data": data,
        "head_bytes": data[:4096],
        "runs": block.source,
        "raw_bytes": raw_bytes,
        "home": MemoryHome({"locales/en.json": document}),
    }


@pytest.mark.parametrize("page", PAGES)
def test_the_pages_python_runs(page, tmp_path, monkeypatch, capsys):
    shop = tmp_path / "shop"
    shutil.copytree(ROOT / "examples/shop", shop)
    monkeypatch.chdir(shop)
    namespace = {"__name__": "__docs__", **_given(shop)}
    before = (shop / "locales/en.json").read_bytes()
    for number, source in enumerate(blocks(page), start=1):
        code = compile(source, f"{page}, python block {number}", "exec")
        exec(code, namespace)
    if page == "README.md":  # its change set lands in the file through FileHome
        printed = capsys.readouterr().out
        assert '"status": "applied"' in printed, printed
        assert b"Changed by a library" in (shop / "locales/en.json").read_bytes()
    else:  # the library page applies to the home in memory; the file is untouched
        assert namespace["result"].status == "applied"
        assert namespace["data_again"] == namespace["data"]
        assert (shop / "locales/en.json").read_bytes() == before
