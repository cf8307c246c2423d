"""The terms store's part of ``kapi context PATH`` kept in ``.kapi/cache/`` between runs: the
same answer while the store is unchanged, a fresh one when it changes, and a file edited by
hand never trusted."""

from __future__ import annotations

from pathlib import Path

import pytest

from kapi.core.governance.terms import Concept, Term, TermValidity
from kapi.host.context import ContextReadRequest, read_context
from kapi.host.init import InitRequest, run_init
from kapi.host.workspace import open_workspace


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "shop"
    (root / "docs").mkdir(parents=True)
    (root / "docs/a.md").write_text("# A\n\nText.\n", encoding="utf-8")
    run_init(InitRequest(folder=root, rules_files=False))
    with open_workspace(cwd=root) as ws:
        ws.store.put_concepts([concept(i) for i in range(30)])
    return root


def concept(i: int, **term: object) -> Concept:
    return Concept(
        id=f"term:en:word-{i}",
        terms=(
            Term(text=f"word{i}", locale="en", status="preferred"),
            Term(text=f"old word{i}", locale="en", status="forbidden", **term),  # type: ignore[arg-type]
        ),
    )


def answer(root: Path):
    with open_workspace(cwd=root) as ws:
        return read_context(ContextReadRequest(path="docs/a.md"), ws)


def kept(root: Path) -> list[Path]:
    return sorted((root / ".kapi/cache").glob("context-terms-*.json"))


def test_the_answer_is_kept_while_the_store_is_unchanged_and_worked_out_when_it_changes(project):
    first = answer(project)
    assert (first.rules_total, first.terms_total, len(first.rules)) == (30, 60, 25)
    [cached] = kept(project)
    written = cached.read_bytes()
    again = answer(project)
    assert again.encoded() == first.encoded() and cached.read_bytes() == written
    with open_workspace(cwd=project) as ws:
        ws.store.put_concepts([concept(99)])
    changed = answer(project)
    assert changed.rules_total == 31 and changed.terms_total == 62
    assert len(kept(project)) == 2  # the old store's file stays until newer ones push it out


def test_a_cache_file_edited_by_hand_is_not_trusted(project):
    first = answer(project)
    [cached] = kept(project)
    head, _, body = cached.read_bytes().partition(b"\n")
    cached.write_bytes(head + b"\n" + body.replace(b'"word0"', b'"wordX"'))
    assert answer(project).encoded() == first.encoded()
    assert b'"wordX"' not in cached.read_bytes()  # written afresh
    cached.write_bytes(b"not json at all")
    assert answer(project).encoded() == first.encoded()


def test_a_store_with_validity_windows_is_worked_out_every_time(project):
    for path in kept(project):
        path.unlink()
    with open_workspace(cwd=project) as ws:
        ws.store.put_concepts([concept(50, validity=TermValidity(valid_to="2000-01-01"))])
    found = answer(project)
    assert (found.rules_total, found.terms_total) == (30, 61)  # "old word50" left in 2000
    assert kept(project) == []
