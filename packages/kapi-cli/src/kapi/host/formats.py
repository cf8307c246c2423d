"""What formats exist and what a change set may do to each (``kapi formats``, ``describe_format``)."""

from __future__ import annotations

from typing import Any

from attrs import field, frozen

from kapi.core.change.errors import ChangeError, ErrorCode
from kapi.core.model import Constraints, Ph, code_constraints

__all__ = ["FormatInfo", "describe_format", "format_of", "list_formats"]


@frozen
class FormatInfo:
    """A registered format and what kapi can do with its files (``kapi formats --json``).

    ``codes`` maps each inline code type the format's reader makes to what an
    edit may do with such a code, as the guard holds it.
    """

    name: str
    title: str
    extensions: tuple[str, ...]
    mime_types: tuple[str, ...]
    reader: bool
    writer: bool
    editable: bool
    round_trip: bool
    generative: bool
    interchange: bool
    editions: str
    structural: bool
    writable_attrs: dict[str, tuple[str, ...]]
    codes: dict[str, Constraints] = field(factory=dict)


def list_formats() -> tuple[FormatInfo, ...]:
    """Every registered format with its capability flags, by name."""
    from kapi.formats import registry

    return tuple(
        FormatInfo(
            name=spec.name,
            title=spec.title,
            extensions=tuple(spec.extensions),
            mime_types=tuple(spec.mime_types),
            reader=spec.reader,
            writer=spec.writer,
            editable=spec.editable,
            round_trip=spec.round_trip,
            generative=spec.generative,
            interchange=spec.interchange,
            editions=spec.capabilities.editions,
            structural=spec.structural,
            writable_attrs={k: tuple(v) for k, v in spec.writable_attrs.items()},
            codes={kind: code_constraints(Ph("", kind)) for kind in spec.code_types},
        )
        for spec in registry.all_formats()
    )


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


def format_of(path: str) -> str:
    """The name of the format kapi reads ``path`` as (by its name); ``unsupported`` if none."""
    from kapi.formats import registry

    try:
        return registry.detect(path).name
    except registry.UnknownFormat as err:
        raise ChangeError.of(ErrorCode.UNSUPPORTED, str(err), field="path") from None
