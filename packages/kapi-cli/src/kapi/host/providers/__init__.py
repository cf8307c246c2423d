"""Translation providers behind one port (:mod:`kapi.host.providers.port`).

A provider is chosen by name (``--provider`` or the recipe's
``defaults.provider``; :mod:`kapi.host.providers.registry`): ``pseudo`` and
``memory`` work offline; ``openai``, ``anthropic`` and ``deepl`` call a remote
API over HTTP (the stdlib's urllib), with their keys read from the environment
only. Every reply is checked before it is used: each segment answered, every
code token kept.
"""
