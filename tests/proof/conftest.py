"""The proof suites (fuzz, fault, security): short in every test run, long on demand.

``KAPI_PROOF_LONG=1`` runs the long versions: more examples per fuzz target,
each target also fuzzed in a memory-capped subprocess, hundreds of kills
instead of a dozen. :func:`scale` picks the figure for the mode.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LONG = os.environ.get("KAPI_PROOF_LONG", "") not in ("", "0")


def scale(short: int, long: int) -> int:
    """``short`` in a normal test run, ``long`` under ``KAPI_PROOF_LONG=1``."""
    return long if LONG else short


@pytest.fixture
def shop(tmp_path, monkeypatch):
    """A copy of the example shop, the current folder, with kapi run by a person."""
    root = tmp_path / "shop"
    shutil.copytree(ROOT / "examples/shop", root)
    monkeypatch.chdir(root)
    for name in ("KAPI_PROJECT", "KAPI_NO_PROJECT", "CLAUDECODE", "CODEX_SESSION_ID"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("KAPI_ACTOR", "person")
    return root
