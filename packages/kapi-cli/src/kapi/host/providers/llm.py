"""The LLM providers: one user message holding a JSON object, a JSON object back.

The message is ``{"source_lang", "target_lang", "voice", "terms", "segments":
[{"id", "text"}]}`` with inline codes as ``<x id="…"/>`` tokens; the reply must
be ``{"segments": [{"id", "text"}]}``. ``openai`` speaks chat completions (any
compatible endpoint), ``anthropic`` the Messages API. See docs/translation.md.
"""

from __future__ import annotations

import json
from typing import Any

from kapi.host.errors import EXIT_USAGE, HostError
from kapi.host.providers.http import post_json
from kapi.host.providers.port import ProviderOptions, ReplyRefused, TranslationBatch

__all__ = ["SYSTEM_PROMPT", "AnthropicProvider", "OpenAIProvider", "parse_reply", "request_message"]

SYSTEM_PROMPT = (
    "You translate software and documentation strings. The user message is a JSON object: "
    "source_lang, target_lang, voice (a brief of how the text should sound), terms (required "
    "translations of terms), segments [{id, text}]. Translate every segment's text from "
    'source_lang into target_lang. Keep every <x id="..."/> token exactly as written, once '
    "each; reorder them only when the grammar needs it. Answer with one JSON object only: "
    '{"segments": [{"id": "...", "text": "..."}]}, one entry for every id.'
)


def request_message(batch: TranslationBatch) -> str:
    """The user message: the JSON object of the protocol."""
    return json.dumps(
        {
            "source_lang": batch.source_lang,
            "target_lang": batch.target_lang,
            "voice": batch.voice,
            "terms": [dict(term) for term in batch.terms],
            "segments": [{"id": s.id, "text": s.text} for s in batch.segments],
        },
        ensure_ascii=False,
    )


def parse_reply(content: Any, batch: TranslationBatch, provider: str) -> dict[str, str]:
    """The reply's segments (id -> text), checked; ReplyRefused for anything else."""
    if not isinstance(content, str):
        raise ReplyRefused(f"{provider}: the reply holds no text")
    text = content.strip()
    if text.startswith("```"):  # a model that fences its JSON
        text = text.strip("`").removeprefix("json").strip()
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        raise ReplyRefused(f"{provider}: the reply is not JSON") from None
    if not isinstance(data, dict) or not isinstance(data.get("segments"), list):
        raise ReplyRefused(f'{provider}: the reply is not an object with "segments"')
    out: dict[str, str] = {}
    for item in data["segments"]:
        if (
            isinstance(item, dict)
            and isinstance(item.get("id"), str)
            and isinstance(item.get("text"), str)
        ):
            out[item["id"]] = item["text"]
    return out


def _key(options: ProviderOptions, variable: str, provider: str) -> str:
    key = options.environ.get(variable, "")
    if not key:
        raise HostError(
            f"{provider}: set {variable} in the environment (kapi reads keys from nowhere else)",
            exit_code=EXIT_USAGE,
        )
    return key


class OpenAIProvider:
    """Any OpenAI-compatible chat-completions endpoint (``OPENAI_BASE_URL``, ``OPENAI_API_KEY``)."""

    name = "openai"

    def __init__(self, options: ProviderOptions) -> None:
        self.options = options
        self.key = _key(options, "OPENAI_API_KEY", self.name)
        self.base = options.environ.get("OPENAI_BASE_URL", "") or "https://api.openai.com/v1"
        self.model = options.model or options.environ.get("OPENAI_MODEL", "") or "gpt-4o-mini"
        self.engine = f"openai/{self.model}"

    def translate(self, batch: TranslationBatch) -> dict[str, str]:
        reply = post_json(
            self.base.rstrip("/") + "/chat/completions",
            {
                "model": self.model,
                "messages": [
                    {"role": "system", "content": SYSTEM_PROMPT},
                    {"role": "user", "content": request_message(batch)},
                ],
                "response_format": {"type": "json_object"},
                "temperature": 0,
            },
            headers={"Authorization": f"Bearer {self.key}"},
            provider=self.name,
            timeout=self.options.timeout,
            retries=self.options.retries,
            backoff=self.options.backoff,
            secrets=(self.key,),
        )
        try:
            content = reply["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise ReplyRefused(
                f"{self.name}: the reply holds no choices[0].message.content"
            ) from None
        return parse_reply(content, batch, self.name)


class AnthropicProvider:
    """The Anthropic Messages API (``ANTHROPIC_BASE_URL``, ``ANTHROPIC_API_KEY``)."""

    name = "anthropic"

    def __init__(self, options: ProviderOptions) -> None:
        self.options = options
        self.key = _key(options, "ANTHROPIC_API_KEY", self.name)
        self.base = options.environ.get("ANTHROPIC_BASE_URL", "") or "https://api.anthropic.com"
        self.model = (
            options.model or options.environ.get("ANTHROPIC_MODEL", "") or "claude-sonnet-4-5"
        )
        self.engine = f"anthropic/{self.model}"

    def translate(self, batch: TranslationBatch) -> dict[str, str]:
        reply = post_json(
            self.base.rstrip("/") + "/v1/messages",
            {
                "model": self.model,
                "max_tokens": 8192,
                "system": SYSTEM_PROMPT,
                "messages": [{"role": "user", "content": request_message(batch)}],
            },
            headers={"x-api-key": self.key, "anthropic-version": "2023-06-01"},
            provider=self.name,
            timeout=self.options.timeout,
            retries=self.options.retries,
            backoff=self.options.backoff,
            secrets=(self.key,),
        )
        try:
            content = "".join(
                part["text"] for part in reply["content"] if part.get("type") == "text"
            )
        except (KeyError, TypeError):
            raise ReplyRefused(f"{self.name}: the reply holds no text content") from None
        return parse_reply(content, batch, self.name)
