"""``kapi mcp`` on source files: reads and edits refused ``unsupported``/``comment``, checks read comments.

The real server over stdio, driven by the MCP SDK's own client.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("tree_sitter")
pytest.importorskip("mcp")

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "shop"
KAPI = str(Path(sys.executable).with_name("kapi"))

SOURCE = '"""Load the basket from disk."""\n\nBASKET = "the the basket"  # the the basket name\n'


def call(cwd: Path, name: str, arguments: dict[str, Any]) -> Any:
    import mcp_types as types
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    async def main() -> Any:
        params = StdioServerParameters(
            command=KAPI,
            args=["mcp"],
            cwd=str(cwd),
            env={"PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin", "HOME": str(cwd)},
        )
        async with Client(
            params, mode="legacy", client_info=types.Implementation(name="agent", version="1")
        ) as client:
            return await client.call_tool(name, arguments)

    return asyncio.run(main())


def payload(result: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(result.content[0].text)
    return data


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    shutil.copytree(EXAMPLE, root)
    (root / "app.py").write_text(SOURCE)
    return root


def test_read_blocks_on_a_source_file_is_refused_with_the_way_on(shop: Path):
    result = call(shop, "read_blocks", {"doc": "app.py"})
    assert result.is_error
    data = payload(result)
    assert data["code"] == "unsupported" and data["capability"] == "comment"
    assert "edit the comment in the file, then run check_file" in data["message"]


def test_apply_edits_on_a_source_file_is_refused_and_writes_nothing(shop: Path):
    edit = {
        "ops": [
            {
                "op": "set_content",
                "at": {"doc": "app.py", "block": "L1"},
                "if_match": "*",
                "text": "Load the cart from disk.",
            }
        ]
    }
    result = call(shop, "apply_edits", edit)
    assert result.is_error
    data = payload(result)
    assert data["schema"] == "kapi.change-result/v1" and data["status"] == "refused"
    assert data["error"]["code"] == "unsupported" and data["error"]["capability"] == "comment"
    assert (shop / "app.py").read_text() == SOURCE


def test_check_file_on_a_source_file_checks_its_comments(shop: Path):
    result = call(shop, "check_file", {"file": "app.py"})
    report = payload(result)
    found = [(f["rule"], f["location"]["block"]) for f in report["findings"]]
    # the doubled word in the comment, never the one in the string
    assert found == [("hygiene.doubled-word", "L3")]
    assert all(f["location"].get("comment_sha256") for f in report["findings"])
