"""The wire form of host results: one cattrs converter for every door.

A host function returns an ``attrs`` value; the CLI prints ``encode(value)``
as JSON and the MCP server returns the same dict, so the two doors cannot
drift. Field names are the JSON names; tuples become lists.
"""

from __future__ import annotations

from typing import Any

import cattrs

__all__ = ["converter", "encode"]

converter = cattrs.Converter()
converter.register_unstructure_hook(tuple, lambda value: [converter.unstructure(v) for v in value])


def encode(value: Any) -> Any:
    """``value`` (an attrs result, or a sequence of them) as JSON-ready dicts and lists."""
    return converter.unstructure(value)
