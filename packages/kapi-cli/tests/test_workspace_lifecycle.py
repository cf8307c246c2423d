"""A workspace owns what it opens: a long-lived process holds one store connection per project.

The MCP server answers thousands of calls in one process; each opens a
workspace, and closing it must release the store. Open files are counted
from ``/proc/self/fd``, so a connection nobody closed shows up.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from kapi.host.actor import ResolvedActor
from kapi.host.apply import apply_change_set
from kapi.host.store_port import StorePort
from kapi.host.workspace import open_workspace

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")

RECIPE = """version: v1
name: lifecycle
defaults:
  source_language: en
collections:
  - name: ui
    content: ["*.json"]
"""


def store_files_open(root: Path) -> int:
    """How many descriptors of this process point into the project's ``.kapi/``."""
    state = str(root / ".kapi")
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        count += target.startswith(state)
    return count


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "kapi.yaml").write_text(RECIPE)
    (tmp_path / "en.json").write_text('{"title": "Welcome"}\n')
    return tmp_path


def test_a_thousand_host_calls_hold_at_most_one_connection(project: Path, monkeypatch) -> None:
    from kapi.core.change.ports import Actor

    person = ResolvedActor(actor=Actor("person"))
    change = json.dumps(
        {
            "ops": [
                {
                    "op": "set_content",
                    "at": {"doc": "en.json", "block": "title"},
                    "if_match": "*",
                    "text": "Welcome",
                }
            ]
        }
    )
    monkeypatch.chdir(project)
    most = 0
    for call in range(1000):
        with open_workspace(cwd=project) as workspace:
            assert workspace.store is not None
            workspace.store.concepts()
            if call % 20 == 0:
                outcome = apply_change_set(change, actor=person, workspace=workspace)
                assert outcome.exit_code == 0
            most = max(most, store_files_open(project))
        if call % 50 == 0:  # a call that opens its own workspace closes it too
            assert apply_change_set(change, actor=person).exit_code == 0
    assert 0 < most <= 3  # the database, its WAL and its shared-memory index
    assert store_files_open(project) == 0


def test_closing_twice_and_reopening_after_close_are_fine(project: Path) -> None:
    workspace = open_workspace(cwd=project)
    assert workspace.store is not None
    workspace.close()
    workspace.close()
    assert store_files_open(project) == 0
    assert workspace.store is not None  # opened again on use
    assert workspace.store.schema_version() >= 1
    workspace.close()
    assert store_files_open(project) == 0


def test_the_sqlite_store_implements_the_store_port(project: Path) -> None:
    import inspect

    from kapi.host.store import ProjectStore

    wanted = {
        name
        for name, member in inspect.getmembers(StorePort)
        if callable(member) and not name.startswith("_")
    }
    assert wanted <= {name for name in dir(ProjectStore) if not name.startswith("_")}
    for name in wanted:
        port = inspect.signature(getattr(StorePort, name))
        real = inspect.signature(getattr(ProjectStore, name))
        assert list(port.parameters) == list(real.parameters), name


def test_the_store_stamps_with_the_clock_and_ids_it_is_given(project: Path) -> None:
    from kapi.core.change.ports import Actor
    from kapi.host.store import ProjectStore

    minted = iter(range(100))
    store = ProjectStore(
        project / ".kapi" / "project.db",
        clock=lambda: "2030-01-02T03:04:05Z",
        mint=lambda digits: f"{next(minted):0{digits}d}",
    )
    try:
        op_id = store.log_context("observe", Actor("agent", name="claude"), {"note": "x"})
        assert op_id == "op_" + "0" * 16
        [entry] = store.context_log()
        assert entry["at"] == "2030-01-02T03:04:05Z"
    finally:
        store.close()
