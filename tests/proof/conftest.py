"""The proof suites (fuzz, fault, security): short in every test run, long on demand.

``KAPI_PROOF_LONG=1`` runs the long versions: more examples per fuzz target,
each target also fuzzed in a memory-capped subprocess, hundreds of kills
instead of a dozen. :func:`scale` picks the figure for the mode.
"""

from __future__ import annotations

import os

LONG = os.environ.get("KAPI_PROOF_LONG", "") not in ("", "0")


def scale(short: int, long: int) -> int:
    """``short`` in a normal test run, ``long`` under ``KAPI_PROOF_LONG=1``."""
    return long if LONG else short
