"""Providers against local servers that speak each API's wire protocol: OpenAI chat completions,
Anthropic Messages, DeepL v2. Replies that lose a code or a segment, or are not JSON, are refused;
429 and 5xx are retried; an unreachable or slow server is exit 5; the key appears nowhere."""

import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

KAPI = str(Path(sys.executable).with_name("kapi"))
SHOP = Path(__file__).resolve().parents[3] / "examples" / "shop"
KEY = "sk-test-SECRET-0123456789abcdef"
TOKEN = re.compile(r'<x\s+id="[^"]*"\s*/>')


def translate_text(text, mode):
    """What the fake model does to one segment's text."""
    if mode == "drop":
        return TOKEN.sub("", "FR " + text)
    if mode == "echo":
        return text
    if mode == "printf":
        return "FR " + text + " %s"
    return "FR " + text


class FakeAPI:
    """One local server; ``mode`` decides how it answers, ``requests`` keeps what it was sent."""

    def __init__(self, kind, mode="ok"):
        self.kind = kind
        self.mode = mode
        self.requests = []
        self.failures_left = 1
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                api.requests.append(
                    {
                        "path": self.path,
                        "headers": {k.lower(): v for k, v in self.headers.items()},
                        "body": body,
                    }
                )
                status, reply = api.answer(self.path, body)
                data = json.dumps(reply).encode() if not isinstance(reply, bytes) else reply
                if api.mode == "slow":
                    time.sleep(3)
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                if status == 429:
                    self.send_header("Retry-After", "0")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def answer(self, path, body):
        if self.mode == "429-once" and self.failures_left:
            self.failures_left -= 1
            return 429, {"error": {"message": "rate limited"}}
        if self.mode == "500":
            return 500, {"error": {"message": f"internal error for key {KEY}"}}
        if self.mode == "401":
            return 401, {"error": {"message": f"bad key {KEY}"}}
        if self.kind == "deepl":
            texts = [translate_text(t, self.mode) for t in body["text"]]
            return 200, {
                "translations": [{"detected_source_language": "EN", "text": t} for t in texts]
            }
        message = json.loads(body["messages"][-1]["content"])
        segments = [
            {"id": s["id"], "text": translate_text(s["text"], self.mode)}
            for s in message["segments"]
        ]
        if self.mode == "missing":
            segments = segments[1:]
        content = json.dumps({"segments": segments})
        if self.mode == "notjson":
            content = "Sure! Here are your translations: FR ..."
        if self.kind == "openai":
            return 200, {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }
        return 200, {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": [{"type": "text", "text": content}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }


ENV = {
    "openai": ("OPENAI_BASE_URL", "OPENAI_API_KEY"),
    "anthropic": ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"),
    "deepl": ("DEEPL_SERVER_URL", "DEEPL_AUTH_KEY"),
}


def run(root, *args, env=None):
    environ = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("KAPI_", "CLAUDE", "CODEX", "OPENAI", "ANTHROPIC", "DEEPL"))
    }
    environ.update(env or {})
    return subprocess.run(
        [KAPI, *args], cwd=root, capture_output=True, text=True, env=environ, timeout=120
    )


@pytest.fixture
def shop(tmp_path):
    root = tmp_path / "shop"
    shutil.copytree(SHOP, root)
    return root


def served(kind, mode="ok"):
    api = FakeAPI(kind, mode)
    base = api.url + ("/v1" if kind == "openai" else "")
    url_var, key_var = ENV[kind]
    return api, {url_var: base, key_var: KEY}


def no_key_anywhere(done, root):
    assert KEY not in done.stdout and KEY not in done.stderr
    for path in root.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path


@pytest.mark.parametrize("kind", ["openai", "anthropic", "deepl"])
def test_each_provider_translates_a_file_through_its_wire_protocol(shop, kind):
    api, env = served(kind)
    try:
        done = run(
            shop,
            "translate",
            "locales/en.json",
            "--to",
            "fr",
            "--provider",
            kind,
            "--json",
            env=env,
        )
    finally:
        api.close()
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["written"] == 1
    french = json.loads((shop / "locales/fr.json").read_text())
    assert french["checkout"]["help"] == "FR Simply contact support if anything goes wrong."
    request = api.requests[0]
    if kind == "openai":
        assert request["path"] == "/v1/chat/completions"
        assert request["headers"]["authorization"] == f"Bearer {KEY}"
        users = [m for m in request["body"]["messages"] if m["role"] == "user"]
        assert len(users) == 1
        message = json.loads(users[0]["content"])
        assert set(message) == {"source_lang", "target_lang", "voice", "terms", "segments"}
        assert message["source_lang"] == "en" and message["target_lang"] == "fr"
        assert message["segments"][0]["text"] == "Simply contact support if anything goes wrong."
    elif kind == "anthropic":
        assert request["path"] == "/v1/messages"
        assert request["headers"]["x-api-key"] == KEY
        assert request["headers"]["anthropic-version"]
        assert len(request["body"]["messages"]) == 1
        assert request["body"]["max_tokens"] > 0
    else:
        assert request["path"] == "/v2/translate"
        assert request["headers"]["authorization"] == f"DeepL-Auth-Key {KEY}"
        assert request["body"]["tag_handling"] == "xml"
        assert request["body"]["target_lang"] == "FR"
    no_key_anywhere(done, shop)


@pytest.mark.parametrize("kind", ["openai", "deepl"])
def test_a_placeholder_sent_as_a_code_comes_back(shop, kind):
    api, env = served(kind)
    try:
        done = run(
            shop,
            "translate",
            "locales/en.json",
            "--to",
            "de",
            "--provider",
            kind,
            "--json",
            env=env,
        )
    finally:
        api.close()
    german = json.loads((shop / "locales/de.json").read_text())
    assert german["checkout"]["pay"] == "FR Pay {{amount}} now"
    sent = json.dumps(api.requests[0]["body"])
    assert "{{amount}}" not in sent  # the placeholder travelled as a code token
    assert done.returncode in (0, 3)


def test_a_reply_that_is_not_json_refuses_its_units_and_writes_nothing(shop):
    before = (shop / "locales/de.json").read_bytes()
    api, env = served("openai", "notjson")
    try:
        done = run(
            shop,
            "translate",
            "locales/en.json",
            "--to",
            "de",
            "--provider",
            "openai",
            "--json",
            env=env,
        )
    finally:
        api.close()
    assert done.returncode == 3
    refused = [u for u in json.loads(done.stdout)["units"] if u["outcome"] == "refused"]
    assert len(refused) == 3 and all("not JSON" in u["reason"] for u in refused)
    assert (shop / "locales/de.json").read_bytes() == before
    no_key_anywhere(done, shop)


@pytest.mark.parametrize(
    ("mode", "message"), [("drop", "did not survive"), ("missing", "no segment")]
)
def test_a_unit_the_reply_got_wrong_is_refused_and_the_rest_land(shop, mode, message):
    api, env = served("openai", mode)
    try:
        done = run(
            shop,
            "translate",
            "locales/en.json",
            "--to",
            "de",
            "--provider",
            "openai",
            "--json",
            env=env,
        )
    finally:
        api.close()
    assert done.returncode == 3
    units = json.loads(done.stdout)["units"]
    refused = {u["block"] for u in units if u["outcome"] == "refused" and message in u["reason"]}
    written = {u["block"] for u in units if u["outcome"] == "written"}
    assert refused and written and not refused & written
    german = json.loads((shop / "locales/de.json").read_text())["checkout"]
    for block in refused:
        assert block.split(".")[-1] not in german  # nothing of a refused unit was written
    for block in written:
        assert german[block.split(".")[-1]].startswith("FR ")
    no_key_anywhere(done, shop)


def test_a_dropped_code_is_refused_by_deepl_too(shop):
    before = (shop / "locales/de.json").read_bytes()
    api, env = served("deepl", "drop")
    try:
        done = run(
            shop,
            "translate",
            "locales/en.json",
            "--to",
            "de",
            "--provider",
            "deepl",
            "--json",
            env=env,
        )
    finally:
        api.close()
    assert done.returncode == 3
    result = json.loads(done.stdout)
    assert any("did not survive" in u["reason"] for u in result["units"])
    german = json.loads((shop / "locales/de.json").read_text())["checkout"]
    assert "pay" not in german and german["help"].startswith("FR ")
    assert before != (shop / "locales/de.json").read_bytes()


def test_429_is_retried(shop):
    api, env = served("anthropic", "429-once")
    try:
        done = run(
            shop, "translate", "locales/en.json", "--to", "fr", "--provider", "anthropic", env=env
        )
    finally:
        api.close()
    assert done.returncode == 0, done.stderr
    assert len(api.requests) == 2


def test_a_server_error_after_retries_is_unreachable_and_the_key_stays_secret(shop):
    before = (shop / "locales/fr.json").read_bytes()
    api, env = served("openai", "500")
    try:
        done = run(
            shop,
            "translate",
            "locales/en.json",
            "--to",
            "fr",
            "--provider",
            "openai",
            "--retries",
            "1",
            env=env,
        )
    finally:
        api.close()
    assert done.returncode == 5
    assert "HTTP 500" in done.stderr
    assert len(api.requests) == 2
    assert (shop / "locales/fr.json").read_bytes() == before
    no_key_anywhere(done, shop)


def test_a_refused_key_is_said_without_the_key(shop):
    api, env = served("deepl", "401")
    try:
        done = run(
            shop, "translate", "locales/en.json", "--to", "fr", "--provider", "deepl", env=env
        )
    finally:
        api.close()
    assert done.returncode == 1
    assert "refused the key" in done.stderr
    no_key_anywhere(done, shop)


def test_a_slow_server_times_out(shop):
    api, env = served("openai", "slow")
    try:
        done = run(
            shop,
            "translate",
            "locales/en.json",
            "--to",
            "fr",
            "--provider",
            "openai",
            "--timeout",
            "0.5",
            "--retries",
            "0",
            env=env,
        )
    finally:
        api.close()
    assert done.returncode == 5
    assert "timed out" in done.stderr
    no_key_anywhere(done, shop)


def test_an_unreachable_server(shop):
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_API_KEY": KEY}
    done = run(
        shop,
        "translate",
        "locales/en.json",
        "--to",
        "fr",
        "--provider",
        "openai",
        "--retries",
        "0",
        env=env,
    )
    assert done.returncode == 5
    assert "unreachable" in done.stderr
    no_key_anywhere(done, shop)


def test_a_missing_key_names_the_variable(shop):
    done = run(shop, "translate", "locales/en.json", "--to", "fr", "--provider", "anthropic")
    assert done.returncode == 2
    assert "ANTHROPIC_API_KEY" in done.stderr


def test_text_mode_translates_and_writes_nothing(shop):
    api, env = served("openai")
    try:
        done = run(
            shop,
            "translate",
            "--text",
            'Hello <x id="1/"/>',
            "--to",
            "fr",
            "--provider",
            "openai",
            env=env,
        )
    finally:
        api.close()
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == 'FR Hello <x id="1/"/>'


def test_batches_follow_the_batch_size(shop):
    api, env = served("openai")
    (shop / "locales/de.json").unlink()
    try:
        done = run(
            shop,
            "translate",
            "locales/en.json",
            "--to",
            "de",
            "--provider",
            "openai",
            "--batch-size",
            "2",
            env=env,
        )
    finally:
        api.close()
    assert done.returncode in (0, 3), done.stderr
    sizes = [
        len(json.loads(r["body"]["messages"][-1]["content"])["segments"]) for r in api.requests
    ]
    assert sizes and max(sizes) <= 2


def test_a_reply_in_the_wrong_language_is_refused(shop):
    api, env = served("openai", "echo")
    try:
        echoed = run(
            shop,
            "translate",
            "locales/en.json",
            "--to",
            "fr",
            "--provider",
            "openai",
            "--json",
            env=env,
        )
    finally:
        api.close()
    assert echoed.returncode == 3
    units = json.loads(echoed.stdout)["units"]
    assert any("not in the target language" in u["reason"] for u in units)
    assert "help" not in json.loads((shop / "locales/fr.json").read_text())["checkout"]
    api, env = served("openai")
    try:
        latin = run(
            shop,
            "translate",
            "--text",
            "Open your cart",
            "--to",
            "ja",
            "--provider",
            "openai",
            env=env,
        )
    finally:
        api.close()
    assert latin.returncode == 3
    assert "script" in latin.stderr


def test_a_machine_made_target_that_fails_qa_is_refused(shop):
    api, env = served("openai", "printf")
    try:
        done = run(
            shop,
            "translate",
            "locales/en.json",
            "--to",
            "fr",
            "--provider",
            "openai",
            "--json",
            env=env,
        )
    finally:
        api.close()
    assert done.returncode == 3
    refused = [u for u in json.loads(done.stdout)["units"] if u["outcome"] == "refused"]
    assert refused and "qa.printf" in refused[0]["reason"]
    assert "help" not in json.loads((shop / "locales/fr.json").read_text())["checkout"]


def test_the_recipe_names_the_provider_and_model_and_the_flag_wins(shop):
    recipe = shop / "kapi.yaml"
    recipe.write_text(
        recipe.read_text().replace(
            "  target_languages: [fr, de]",
            "  target_languages: [fr, de]\n  provider: openai\n  model: house-model",
        )
    )
    api, env = served("openai")
    try:
        done = run(shop, "translate", "locales/en.json", "--to", "fr", env=env)
        flagged = run(
            shop, "translate", "--text", "Open the cart", "--to", "fr", "--model", "other", env=env
        )
    finally:
        api.close()
    assert done.returncode == 0, done.stderr
    assert api.requests[0]["body"]["model"] == "house-model"
    assert flagged.returncode == 0, flagged.stderr
    assert api.requests[-1]["body"]["model"] == "other"


def test_terms_and_the_voice_brief_reach_the_model(shop):
    assert run(shop, "terms", "import", "terms.json").returncode == 0
    en = shop / "locales/en.json"
    en.write_text(
        en.read_text().replace("Simply contact support", "Simply contact Northwind support")
    )
    api, env = served("openai")
    try:
        done = run(
            shop, "translate", "locales/en.json", "--to", "fr", "--provider", "openai", env=env
        )
    finally:
        api.close()
    assert done.returncode == 0, done.stderr
    message = json.loads(api.requests[0]["body"]["messages"][-1]["content"])
    assert {"source": "Northwind", "target": "Northwind"} in message["terms"]
    assert "Northwind shop UI" in message["voice"]


SENSITIVE = {
    "email": "ann@example.com",
    "phone": "+44 20 7946 0958",
    "card": "4111 1111 1111 1111",
    "ip": "10.0.0.12",
    "url": "https://intranet.example/orders?id=7",
    "sku": "ACME-ROCKET-42",  # a recipe rule's own category
}
SENSITIVE_HELP = (
    "Mail {email} or call {phone}; pay with {card}, reach {ip}, see {url} and quote {sku}."
).format(**SENSITIVE)


def test_secure_translate_sends_the_provider_no_sensitive_value_and_restores_each(shop):
    recipe = shop / "kapi.yaml"
    recipe.write_text(
        recipe.read_text().replace(
            "  target_languages: [fr, de]\n",
            "  target_languages: [fr, de]\n  redaction:\n    rules:\n"
            "      - pattern: 'ACME-[A-Z]+-\\d+'\n        category: sku\n",
        )
    )
    source = shop / "locales/en.json"
    source.write_text(
        source.read_text().replace("Simply contact support if anything goes wrong.", SENSITIVE_HELP)
    )
    api, env = served("openai")
    try:
        done = run(
            shop, "run", "secure-translate", "locales/en.json", "--to", "fr", "--provider",
            "openai", "--json", env=env,
        )  # fmt: skip
        sent = json.dumps([request["body"] for request in api.requests], ensure_ascii=False)
        plain = run(
            shop, "translate", "locales/en.json", "--to", "de", "--provider", "openai", env=env
        )
        sent_plain = json.dumps([r["body"] for r in api.requests], ensure_ascii=False)
    finally:
        api.close()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "<x id=" in sent and "Mail " in sent  # the text went, with codes in the values' place
    for value in SENSITIVE.values():
        assert value not in sent
        assert value in sent_plain  # without redaction the same server sees every one
    assert plain.returncode == 0, plain.stderr
    help_fr = json.loads((shop / "locales/fr.json").read_text())["checkout"]["help"]
    assert help_fr == "FR " + SENSITIVE_HELP  # each original restored exactly where it was
    vault = json.loads((shop / ".kapi/vault.json").read_text())
    assert set(vault.values()) == set(SENSITIVE.values())
    assert {key.split("_")[0] for key in vault} == {
        "{{EMAIL", "{{PHONE", "{{CARD", "{{IP", "{{URL", "{{SKU"
    }  # fmt: skip
