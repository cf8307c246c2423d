"""The format registry: which formats exist, what they can do, and which one reads a file.

Formats are declared by :class:`FormatSpec` objects. The built-in ones are
known from :mod:`kapi.formats.builtin` without reading any package metadata;
other distributions publish theirs through the entry-point group
``kapi.formats``, which is scanned only when a file needs a format that is not
built in, or every format is listed: a third-party format adds names and
extensions, and never takes over a built-in one's. A spec names its module without importing
it, so listing formats or detecting a file's format loads no parser; the codec
is imported the first time a document of that format is read.
"""

from __future__ import annotations

import importlib
from functools import cache
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
def _builtins() -> dict[str, FormatSpec]:
    from kapi.formats import builtin

    return {spec.name: spec for spec in builtin.SPECS}


@cache
def _registry() -> dict[str, FormatSpec]:
    """Every format: the built-in ones, then those other distributions publish."""
    from kapi.formats.entrypoints import entry_points

    found = dict(_builtins())
    for entry in entry_points(ENTRY_POINT_GROUP):
        try:
            spec = entry.load()
        except Exception:  # a broken plug-in must not take the built-in formats down
            continue
        if isinstance(spec, FormatSpec):
            found.setdefault(spec.name, spec)
    return found


def all_formats() -> list[FormatSpec]:
    """Every registered format, by name."""
    return sorted(_registry().values(), key=lambda spec: spec.name)


def get(name: str) -> FormatSpec:
    """The format called ``name``."""
    spec = _builtins().get(name) or _registry().get(name)
    if spec is None:
        known = ", ".join(sorted(_registry()))
        raise UnknownFormat(f"unknown format {name!r}; known formats: {known}")
    return spec


def _candidates(path: str) -> list[FormatSpec]:
    lower = PurePath(path).name.lower()
    matches = [
        spec for spec in _builtins().values() if any(lower.endswith(ext) for ext in spec.extensions)
    ]
    if not matches:  # not a built-in's file: perhaps a third-party format's
        matches = [
            spec
            for spec in _registry().values()
            if any(lower.endswith(ext) for ext in spec.extensions)
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
