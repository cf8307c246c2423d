"""The five starter voice packs, shipped as YAML text beside this module.

Parsing is the host's job (the core has no YAML library): a host reads
:func:`pack_text`, parses it, and passes the data to
:func:`~kapi.core.governance.voice.load_voice_profile` with the source
:func:`pack_source`.
"""

from __future__ import annotations

from importlib.resources import files

from kapi.core.governance.errors import GovernanceError

__all__ = ["PACK_NAMES", "pack_names", "pack_source", "pack_text"]

PACK_NAMES = (
    "customer-support",
    "friendly-dtc",
    "marketing-blog",
    "professional-b2b",
    "technical-docs",
)


def pack_names() -> tuple[str, ...]:
    """The names a recipe may bind with ``voice: {pack: <name>}``, sorted."""
    return PACK_NAMES


def pack_source(name: str) -> str:
    """How warnings and errors name a pack: ``pack:<name>``."""
    return f"pack:{name}"


def pack_text(name: str) -> str:
    """The YAML text of a starter pack; an unknown name is a :class:`GovernanceError`."""
    if name not in PACK_NAMES:
        raise GovernanceError(
            f"no starter pack named {name!r} (packs: {', '.join(PACK_NAMES)})",
            pack_source(name),
        )
    resource = files("kapi.core.governance") / "pack_data" / f"{name}.yaml"
    return resource.read_text(encoding="utf-8")
