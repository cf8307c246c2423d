"""The ``deepl`` provider: the v2 translate API, codes sent as XML tags with ``tag_handling=xml``."""

from __future__ import annotations

import html
import re

from kapi.core.edittext import TOKEN
from kapi.host.providers.http import post_json
from kapi.host.providers.llm import _key
from kapi.host.providers.port import ProviderOptions, ReplyRefused, TranslationBatch

__all__ = ["DeepLProvider", "from_xml", "to_xml"]

_TAG = re.compile(r'<x\s+id="([^"]*)"\s*/>')


def to_xml(text: str) -> str:
    """Edit text as DeepL's XML: text escaped, each code token an empty ``<x id="…"/>`` element."""
    out: list[str] = []
    position = 0
    for match in TOKEN.finditer(text):
        out.append(html.escape(text[position : match.start()], quote=False))
        out.append(f'<x id="{html.escape(match.group(1))}"/>')
        position = match.end()
    out.append(html.escape(text[position:], quote=False))
    return "".join(out)


def from_xml(text: str) -> str:
    out: list[str] = []
    position = 0
    for match in _TAG.finditer(text):
        out.append(html.unescape(text[position : match.start()]))
        out.append(f'<x id="{html.unescape(match.group(1))}"/>')
        position = match.end()
    out.append(html.unescape(text[position:]))
    return "".join(out)


def _language(tag: str, *, target: bool) -> str:
    base, _, region = tag.partition("-")
    if target and base in ("en", "pt") and region:
        return f"{base}-{region}".upper()
    if target and base == "en":
        return "EN-US"
    if target and base == "pt":
        return "PT-PT"
    return base.upper()


class DeepLProvider:
    """DeepL (``DEEPL_SERVER_URL``, ``DEEPL_AUTH_KEY``; a key ending ``:fx`` uses the free API)."""

    name = "deepl"
    engine = "deepl"

    def __init__(self, options: ProviderOptions) -> None:
        self.options = options
        self.key = _key(options, "DEEPL_AUTH_KEY", self.name)
        default = (
            "https://api-free.deepl.com" if self.key.endswith(":fx") else "https://api.deepl.com"
        )
        self.base = options.environ.get("DEEPL_SERVER_URL", "") or default

    def translate(self, batch: TranslationBatch) -> dict[str, str]:
        reply = post_json(
            self.base.rstrip("/") + "/v2/translate",
            {
                "text": [to_xml(s.text) for s in batch.segments],
                "source_lang": _language(batch.source_lang, target=False),
                "target_lang": _language(batch.target_lang, target=True),
                "tag_handling": "xml",
                "ignore_tags": ["x"],
            },
            headers={"Authorization": f"DeepL-Auth-Key {self.key}"},
            provider=self.name,
            timeout=self.options.timeout,
            retries=self.options.retries,
            backoff=self.options.backoff,
            secrets=(self.key,),
        )
        try:
            texts = [item["text"] for item in reply["translations"]]
        except (KeyError, TypeError):
            raise ReplyRefused(f"{self.name}: the reply holds no translations") from None
        if len(texts) != len(batch.segments):
            raise ReplyRefused(
                f"{self.name}: {len(batch.segments)} segments sent, {len(texts)} translated"
            )
        out = {s.id: from_xml(t) for s, t in zip(batch.segments, texts) if isinstance(t, str)}
        return out
