"""kapi's version, a constant so that no verb reads package metadata to print it.

A test keeps it equal to the ``kapi-cli`` distribution's version.
"""

from __future__ import annotations

__all__ = ["VERSION"]

VERSION = "0.1.0"
