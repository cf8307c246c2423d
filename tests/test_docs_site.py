"""The documentation site builds in strict mode, and every page in docs/ is reachable from its nav."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _nav_pages(entries: object) -> list[str]:
    """The page paths a ``nav`` list names, depth first."""
    pages: list[str] = []
    if isinstance(entries, str):
        pages.append(entries)
    elif isinstance(entries, list):
        for entry in entries:
            pages.extend(_nav_pages(entry))
    elif isinstance(entries, dict):
        for value in entries.values():
            pages.extend(_nav_pages(value))
    return pages


def test_every_page_is_in_the_nav_and_every_nav_entry_is_a_page():
    from ruamel.yaml import YAML

    config = YAML(typ="safe").load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    named = _nav_pages(config["nav"])
    on_disk = sorted(path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md"))
    assert sorted(set(on_disk) - set(named)) == [], "pages missing from mkdocs.yml's nav"
    assert sorted(set(named) - set(on_disk)) == [], "nav entries with no page"
    assert len(named) == len(set(named)), "a page named twice in the nav"


def test_the_site_builds_in_strict_mode(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "site" / "index.html").is_file()
