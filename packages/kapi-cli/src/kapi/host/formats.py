"""What formats exist and what a change set may do to each (``kapi formats``, ``describe_format``)."""

from __future__ import annotations

from typing import Any

from kapi.core.change.errors import ChangeError, ErrorCode

__all__ = ["describe_format", "list_formats"]


def list_formats() -> list[dict[str, Any]]:
    """Every registered format with its capability flags, by name."""
    from kapi.formats import registry

    return [
        {
            "name": spec.name,
            "title": spec.title,
            "extensions": list(spec.extensions),
            "mime_types": list(spec.mime_types),
            "reader": spec.reader,
            "writer": spec.writer,
            "editable": spec.editable,
            "round_trip": spec.round_trip,
            "generative": spec.generative,
            "interchange": spec.interchange,
            "editions": spec.capabilities.editions,
            "structural": spec.structural,
            "writable_attrs": {k: list(v) for k, v in spec.writable_attrs.items()},
        }
        for spec in registry.all_formats()
    ]


def describe_format(name: str) -> dict[str, Any]:
    """``describe_format``: the operations a change set may send to documents of a format."""
    from kapi.core.change.reading import describe
    from kapi.formats import registry

    try:
        spec = registry.get(name)
    except registry.UnknownFormat as err:
        raise ChangeError.of(ErrorCode.NOT_FOUND, str(err), field="format") from None
    description = describe(spec.capabilities)
    return {
        "format": description.format,
        "editions": description.editions,
        "ops": dict(description.ops),
        "native": list(description.native),
    }
