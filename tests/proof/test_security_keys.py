"""A provider's key never shows: not on stdout or stderr, not in a file, not in the store.

``kapi up`` and ``kapi translate`` on a copy of the example shop, against a
local server speaking each provider's wire protocol (OpenAI, Anthropic,
DeepL) that answers badly: 401 and 500 whose bodies repeat the key, and 200s
whose bodies are not the protocol (HTML, JSON of another shape) and hold the
key too. Whatever kapi says about the failure, the key is in none of its
output, none of the files under the project (the SQLite store included) and
none under its home folder. The MCP server's ``translate`` tool, driven over stdio
by an MCP client, is held to the same: nothing in its results, its stderr or the files,
nor a key the caller passes as ``apiKey``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kapi.cli.main import cli
from tests.proof.local_server import CountingServer

ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-proof-KEY-7e1d9a0c4b"
ENV = {
    "openai": ("OPENAI_BASE_URL", "OPENAI_API_KEY", "/v1"),
    "anthropic": ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", ""),
    "deepl": ("DEEPL_SERVER_URL", "DEEPL_AUTH_KEY", ""),
}
REPLIES = {
    "401": (401, "application/json", json.dumps({"error": {"message": f"invalid key {KEY}"}})),
    "500": (500, "application/json", json.dumps({"error": {"message": f"failed for {KEY}"}})),
    "html": (200, "text/html", f"<html><body>Your key {KEY} is over its quota</body></html>"),
    "shape": (200, "application/json", json.dumps({"unexpected": KEY, "echo": {"key": KEY}})),
}


CASES = [
    (provider, reply, "up" if n % 2 == 0 else "translate")
    for n, (provider, reply) in enumerate(
        (p, r) for p in ("openai", "anthropic", "deepl") for r in ("401", "500", "html", "shape")
    )
]


@pytest.mark.parametrize(("provider", "reply", "verb"), CASES)
def test_a_failing_provider_never_shows_the_key(shop, tmp_path, monkeypatch, provider, reply, verb):
    home = tmp_path / "home"
    home.mkdir()
    for url_var, key_var, _ in ENV.values():
        monkeypatch.delenv(url_var, raising=False)
        monkeypatch.delenv(key_var, raising=False)
    status, kind, body = REPLIES[reply]
    api = CountingServer(status, kind, body.encode())
    url_var, key_var, suffix = ENV[provider]
    monkeypatch.setenv(url_var, api.url + suffix)
    monkeypatch.setenv(key_var, KEY)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    arguments = ["--provider", provider, "--retries", "0", "--timeout", "10"]
    if verb == "up":
        argv = ["up", *arguments, "--to", "fr"]
    else:
        argv = ["translate", "locales/en.json", "--to", "fr", *arguments]
    try:
        done = CliRunner().invoke(cli, [*argv, "--json"], catch_exceptions=False)
    finally:
        api.close()
    assert api.paths  # kapi asked
    assert done.exit_code != 0  # nothing was translated
    assert "Traceback" not in done.stderr
    assert KEY not in done.stdout and KEY not in done.stderr
    for folder in (shop, home):
        for path in folder.rglob("*"):
            if path.is_file():
                assert KEY.encode() not in path.read_bytes(), path


CALLER_KEY = "sk-caller-KEY-55f0b2e1"


@pytest.mark.parametrize(("provider", "reply"), [(p, r) for p in ENV for r in ("401", "shape")])
def test_the_mcp_translate_tool_never_shows_the_key(shop, tmp_path, provider, reply):
    """The real ``kapi mcp`` over stdio, asked by an MCP client to translate through a
    provider that fails: the key is in no tool result, not on the server's stderr, in no
    file; nor is a key the caller passes as ``apiKey`` (keys come from the environment)."""
    import asyncio
    import os
    import sys

    import mcp_types as types
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    home = tmp_path / "home"
    home.mkdir()
    status, kind, body = REPLIES[reply]
    api = CountingServer(status, kind, body.encode())
    url_var, key_var, suffix = ENV[provider]
    bin_folder = str(Path(sys.executable).parent)
    env = {
        "PATH": f"{bin_folder}:/usr/bin:/bin",
        "HOME": str(home),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "KAPI_ACTOR": "agent",
        url_var: api.url + suffix,
        key_var: KEY,
    }
    params = StdioServerParameters(
        command=os.path.join(bin_folder, "kapi"),
        args=["mcp", "--tools", "translation"],
        cwd=str(shop),
        env=env,
    )
    stderr = tmp_path / "server-stderr.txt"

    async def ask() -> list[Any]:
        with stderr.open("w") as errlog:
            async with Client(
                stdio_client(params, errlog=errlog),
                mode="legacy",
                client_info=types.Implementation(name="proof-agent", version="1.0"),
            ) as client:
                arguments = {"text": "Add to cart", "target_lang": "fr", "provider": provider}
                return [
                    await client.call_tool("translate", arguments),
                    await client.call_tool("translate", {**arguments, "apiKey": CALLER_KEY}),
                ]

    try:
        results = asyncio.run(ask())
    finally:
        api.close()
    assert api.paths  # the provider was asked
    for result in results:
        assert result.is_error, result
        said = json.dumps([part.model_dump(mode="json") for part in result.content])
        said += json.dumps(result.structured_content)
        assert KEY not in said and CALLER_KEY not in said, said
    logged = stderr.read_text()
    assert "Traceback" not in logged
    assert KEY not in logged and CALLER_KEY not in logged
    for folder in (shop, home):
        for path in folder.rglob("*"):
            if path.is_file():
                data = path.read_bytes()
                assert KEY.encode() not in data and CALLER_KEY.encode() not in data, path
