"""Where a kept rule holds, as the terms store carries it, and the wording kept elsewhere.

A rule a person keeps holds at the point it was seen (the coordinates of its
evidence file) unless it was widened. The terms store carries that scope on
the rule's concept as two properties: ``profile`` (the product, when the rule
holds for one) and ``coordinates`` (``channel=app,product=quickcast``). A
concept without them holds everywhere. A point holds a rule when it has every
axis the rule names, with the same value.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from kapi.core.context.record import Scope

__all__ = [
    "PROP_COORDINATES",
    "PROP_ORIGIN",
    "PROP_PROFILE",
    "applies_at",
    "coordinates_text",
    "holds_at",
    "parse_coordinates",
    "scope_properties",
    "spelling_variant",
]

PROP_PROFILE = "profile"
PROP_COORDINATES = "coordinates"
PROP_ORIGIN = "origin"  # the context ops a concept was written from


def coordinates_text(coordinates: Mapping[str, str]) -> str:
    """``channel=app,product=quickcast``: the axes sorted, each ``axis=value``."""
    return ",".join(f"{axis}={value}" for axis, value in sorted(coordinates.items()) if value)


def parse_coordinates(text: str) -> dict[str, str]:
    """The coordinates :func:`coordinates_text` wrote (pairs without ``=`` are left out)."""
    out: dict[str, str] = {}
    for part in text.split(","):
        axis, sep, value = part.partition("=")
        if sep and axis.strip() and value.strip():
            out[axis.strip()] = value.strip()
    return out


def scope_properties(scope: Scope) -> dict[str, str]:
    """The concept properties that say where a rule with ``scope`` holds (none: everywhere)."""
    coordinates = dict(scope.coordinates)
    if scope.all_profiles:
        coordinates.pop("product", None)
    out: dict[str, str] = {}
    if coordinates.get("product"):
        out[PROP_PROFILE] = coordinates["product"]
    text = coordinates_text(coordinates)
    if text:
        out[PROP_COORDINATES] = text
    return out


def applies_at(coordinates: Mapping[str, str], point: Mapping[str, str]) -> bool:
    """Whether something seen at ``coordinates`` holds at ``point``: the point has every axis
    it names, with the same value (a note holds only where it was seen)."""
    return all(point.get(axis) == value for axis, value in coordinates.items())


def holds_at(properties: Mapping[str, str], point: Mapping[str, str]) -> bool:
    """Whether a concept with these properties holds at a point with these coordinates."""
    profile = properties.get(PROP_PROFILE, "")
    if profile and point.get("product") != profile:
        return False
    text = properties.get(PROP_COORDINATES, "")
    return not text or applies_at(parse_coordinates(text), point)


_SEPARATORS = re.compile(r"[\s\-_]+")


def spelling_variant(form: str, name: str) -> bool:
    """Whether ``form`` spells ``name`` another way (spaced, hyphenated, closed, other case)."""
    return _SEPARATORS.sub("", form).casefold() == _SEPARATORS.sub("", name).casefold()
