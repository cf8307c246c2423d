"""The format registry: which formats exist, what they can do, and which one reads a file.

Formats are declared by :class:`FormatSpec` objects published through the
entry-point group ``kapi.formats``. A spec names its module without importing
it, so listing formats or detecting a file's format loads no parser; the codec
is imported the first time a document of that format is read.
"""

from __future__ import annotations

import importlib
from functools import cache
from importlib.metadata import entry_points
from pathlib import PurePath

from kapi.core.errors import EXIT_USAGE, KapiError
from kapi.core.format import FormatCodec
from kapi.formats.spec import FormatSpec

__all__ = [
    "FormatSpec",
    "UnknownFormat",
    "all_formats",
    "detect",
    "get",
    "load_codec",
]

ENTRY_POINT_GROUP = "kapi.formats"


class UnknownFormat(KapiError, LookupError):
    """No registered format has that name, or none claims that file."""

    code = "unsupported"
    exit_code = EXIT_USAGE


@cache
def _registry() -> dict[str, FormatSpec]:
    found: dict[str, FormatSpec] = {}
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        spec = entry.load()
        if isinstance(spec, FormatSpec):
            found.setdefault(spec.name, spec)
    if not found:
        # Running from a source tree without installed metadata: use the built-ins.
        from kapi.formats import builtin

        for spec in builtin.SPECS:
            found[spec.name] = spec
    return found


def all_formats() -> list[FormatSpec]:
    """Every registered format, by name."""
    return sorted(_registry().values(), key=lambda spec: spec.name)


def get(name: str) -> FormatSpec:
    """The format called ``name``."""
    try:
        return _registry()[name]
    except KeyError:
        known = ", ".join(sorted(_registry()))
        raise UnknownFormat(f"unknown format {name!r}; known formats: {known}") from None


def _candidates(path: str) -> list[FormatSpec]:
    lower = PurePath(path).name.lower()
    matches = [
        spec for spec in _registry().values() if any(lower.endswith(ext) for ext in spec.extensions)
    ]

    # The longest matching extension first (".stringsdict" before ".strings"), then priority.
    def rank(spec: FormatSpec) -> tuple[int, int]:
        longest = max(len(ext) for ext in spec.extensions if lower.endswith(ext))
        return (-longest, -spec.priority)

    return sorted(matches, key=rank)


def detect(path: str, head: bytes | None = None) -> FormatSpec:
    """The format of a file, by its extension and, where that is ambiguous, its first bytes."""
    candidates = _candidates(path)
    if not candidates:
        raise UnknownFormat(f"{path}: no format reads files like this (see `kapi formats`)")
    if len(candidates) == 1 or head is None:
        return candidates[0]
    sample = head[:4096]
    for spec in candidates:
        if spec.sniff is not None and spec.sniff(sample):
            return spec
    for spec in candidates:
        if spec.sniff is None:
            return spec
    return candidates[0]


_loaded: dict[str, FormatCodec] = {}


def load_codec(spec: FormatSpec | str) -> FormatCodec:
    """Import and instantiate a format's codec (once per process)."""
    if isinstance(spec, str):
        spec = get(spec)
    codec = _loaded.get(spec.name)
    if codec is None:
        module_name, _, attribute = spec.codec.partition(":")
        module = importlib.import_module(module_name)
        codec = getattr(module, attribute)()
        _loaded[spec.name] = codec
    return codec
