"""The one fake the translation tests use: a local HTTP server for the remote APIs.

It speaks each provider's real wire protocol (OpenAI chat completions, the Anthropic
Messages API, DeepL v2) on 127.0.0.1 and answers in the language asked for: each
segment's letters accented (codes and placeholders kept) after ``FR:``, so the answer
reads as no language kapi knows the words of. ``mode`` makes it answer wrongly.
"""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from kapi.core.pseudo import PseudoOptions, pseudo_text

KEY = "sk-test-SECRET-0123456789abcdef"
TOKEN = re.compile(r'<x\s+id="[^"]*"\s*/>')
ENV = {
    "openai": ("OPENAI_BASE_URL", "OPENAI_API_KEY"),
    "anthropic": ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"),
    "deepl": ("DEEPL_SERVER_URL", "DEEPL_AUTH_KEY"),
}
_PLAIN = PseudoOptions(expansion=0, brackets=False)


def translated(text: str, language: str) -> str:
    """What the fake model answers for ``text`` asked in ``language`` (its codes kept)."""
    return f"{language.upper()}: {pseudo_text(text, _PLAIN)}"


def answer(text: str, language: str, mode: str) -> str:
    """One segment's answer: right, or wrong in the way ``mode`` names."""
    if mode == "drop":
        return TOKEN.sub("", translated(text, language))
    if mode == "echo":
        return text
    if mode == "printf":
        return translated(text, language) + " %s"
    if mode == "english":  # English that is not the source as sent
        return "Please " + text[:1].lower() + text[1:]
    return translated(text, language)


class FakeAPI:
    """One local server of ``kind``; ``requests`` and ``segments`` keep what it was sent.

    ``fail_for`` names a target language it answers 503 for, ``slow_for`` one it takes
    30 s to answer.
    """

    def __init__(self, kind: str, mode: str = "ok", *, fail_for: str = "", slow_for: str = ""):
        self.kind = kind
        self.mode = mode
        self.fail_for = fail_for
        self.slow_for = slow_for
        self.requests: list[dict] = []
        self.segments: list[tuple[str, str]] = []
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
                status, reply = api.answer(body)
                data = json.dumps(reply).encode()
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
        url_var, key_var = ENV[kind]
        base = f"http://127.0.0.1:{self.server.server_port}"
        self.env = {url_var: base + ("/v1" if kind == "openai" else ""), key_var: KEY}

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def answer(self, body: dict) -> tuple[int, dict]:
        if self.mode == "429-once" and self.failures_left:
            self.failures_left -= 1
            return 429, {"error": {"message": "rate limited"}}
        if self.mode == "500":
            return 500, {"error": {"message": f"internal error for key {KEY}"}}
        if self.mode == "401":
            return 401, {"error": {"message": f"bad key {KEY}"}}
        if self.kind == "deepl":
            language = body["target_lang"].lower()
            texts = [answer(t, language, self.mode) for t in body["text"]]
            return 200, {
                "translations": [{"detected_source_language": "EN", "text": t} for t in texts]
            }
        message = json.loads(body["messages"][-1]["content"])
        language = message["target_lang"]
        if language == self.slow_for:
            time.sleep(30)
        if language == self.fail_for:
            return 503, {"error": {"message": "overloaded"}}
        self.segments.extend((language, s["text"]) for s in message["segments"])
        segments = [
            {"id": s["id"], "text": answer(s["text"], language, self.mode)}
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


def served(kind: str, mode: str = "ok", **options: str) -> tuple[FakeAPI, dict[str, str]]:
    api = FakeAPI(kind, mode, **options)
    return api, api.env
