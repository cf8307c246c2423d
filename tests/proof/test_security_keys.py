"""A provider's key never shows: not on stdout or stderr, not in a file, not in the store.

``kapi up`` and ``kapi translate`` on a copy of the example shop, against a
local server speaking each provider's wire protocol (OpenAI, Anthropic,
DeepL) that answers badly: 401 and 500 whose bodies repeat the key, and 200s
whose bodies are not the protocol (HTML, JSON of another shape) and hold the
key too. Whatever kapi says about the failure, the key is in none of its
output, none of the files under the project (the SQLite store included) and
none under its home folder.
"""

from __future__ import annotations

import json
from pathlib import Path

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
