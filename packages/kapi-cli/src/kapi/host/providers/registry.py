"""Which provider a name means; each is loaded only when it is chosen."""

from __future__ import annotations

from kapi.host.errors import EXIT_USAGE, HostError
from kapi.host.providers.port import Provider, ProviderOptions

__all__ = ["PROVIDERS", "make_provider"]

PROVIDERS = ("pseudo", "memory", "openai", "anthropic", "deepl")


def make_provider(name: str, options: ProviderOptions, *, memory: object = None) -> Provider:
    """The provider called ``name``; an unknown name is a usage error naming the known ones."""
    if name == "pseudo":
        from kapi.host.providers.pseudo import PseudoProvider

        return PseudoProvider(options)
    if name == "memory":
        from kapi.host.providers.memory import MemoryProvider

        return MemoryProvider(memory)
    if name == "openai":
        from kapi.host.providers.llm import OpenAIProvider

        return OpenAIProvider(options)
    if name == "anthropic":
        from kapi.host.providers.llm import AnthropicProvider

        return AnthropicProvider(options)
    if name == "deepl":
        from kapi.host.providers.deepl import DeepLProvider

        return DeepLProvider(options)
    raise HostError(
        f"unknown provider {name!r}; use one of {', '.join(PROVIDERS)}", exit_code=EXIT_USAGE
    )
