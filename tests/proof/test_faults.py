"""Faults: runs killed at random moments, runs racing each other, disks that refuse writes.

What the write protocol promises (``kapi.formats.home``): a change set's files
are written to temporaries beside them, then renamed into place one by one in
the order of their keys, under a lock on each folder. So a ``kapi apply``
killed at any moment leaves every file exactly its old bytes or exactly its
new bytes, and the files of one set mixed only as a prefix of that order: the
files before some key new, the rest old. The next write into a folder removes
the temporaries a killed run left there, and the project store (SQLite in WAL
mode) opens consistent. ``kapi up`` lands its translations as such sets, so a
killed ``up`` leaves every string its old or its new value, and the next
``up`` finishes the job with the same bytes an unkilled run writes.

Short in a normal run (a dozen kills); ``KAPI_PROOF_LONG=1`` kills hundreds of
times.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.proof.conftest import LONG, scale

ROOT = Path(__file__).resolve().parents[2]
SHOP = ROOT / "examples/shop"
RECIPE = """\
version: v1
id: prj_faults
name: faults
defaults:
  source_language: en
collections:
  - name: ui
    content:
      - path: 'a/*.json'
      - path: 'b/*.json'
"""


def environment() -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("KAPI_", "CLAUDE", "CODEX", "OPENAI", "ANTHROPIC", "DEEPL"))
    }
    return {**env, "KAPI_ACTOR": "person"}


def start(root: Path, *args: str, stdin: bytes | None = None) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "kapi.cli", *args],
        cwd=root,
        env=environment(),
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    if stdin is not None:
        assert proc.stdin is not None
        proc.stdin.write(stdin)
        proc.stdin.close()
        proc.stdin = None  # written whole: nothing for communicate() to flush
    return proc


def finish(proc: subprocess.Popen[bytes]) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=300)
    return proc.returncode, out.decode(), err.decode()


def temporaries(root: Path) -> list[str]:
    return [str(p.relative_to(root)) for p in root.rglob("*.kapi-tmp")]


def store_is_consistent(root: Path) -> None:
    path = root / ".kapi/project.db"
    if not path.exists():
        return
    db = sqlite3.connect(path)
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        db.execute("SELECT count(*) FROM change_records").fetchone()
    finally:
        db.close()


def kill_at(proc: subprocess.Popen[bytes], moment: float | str, watch: Path) -> None:
    """SIGKILL ``proc``: after ``moment`` seconds, as a temporary appears under ``watch``
    (``"temporary"``), or as the file ``watch`` is replaced (``"rename"``)."""
    deadline = time.monotonic() + 120
    if moment == "temporary":
        while proc.poll() is None and not temporaries(watch):
            assert time.monotonic() < deadline
            time.sleep(0.0002)
    elif moment == "rename":
        first = os.stat(watch).st_ino
        while proc.poll() is None and os.stat(watch).st_ino == first:
            assert time.monotonic() < deadline
            time.sleep(0.0002)
    else:
        assert isinstance(moment, float)
        time.sleep(moment)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)


def moments(rng: random.Random, whole: float, count: int, *, at: str) -> list[float | str]:
    """Kill moments: a third drawn over a whole run, a third at ``at``, a third as a
    temporary file appears."""
    kinds: list[float | str] = [rng.uniform(0.05, 1.0) * whole, at, "temporary"]
    return [kinds[n % 3] if n % 3 else rng.uniform(0.05, 1.0) * whole for n in range(count)]


# --- kapi apply ------------------------------------------------------------------------


def catalogue(tag: str) -> bytes:
    """About 100 KB of JSON: 20 sections of 100 keys."""
    data = {
        f"section{s}": {f"key{k}": f"{tag} value {s}-{k}: words a person wrote" for k in range(100)}
        for s in range(20)
    }
    return (json.dumps(data, indent=2) + "\n").encode()


FILES = ("a/en.json", "b/en.json", "b/more.json")


def test_a_killed_apply_leaves_each_file_old_or_new_and_the_set_a_prefix_of_its_order(tmp_path):
    root = tmp_path / "project"
    for name in FILES:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(catalogue(name))
    (root / "kapi.yaml").write_text(RECIPE)
    old = {name: (root / name).read_bytes() for name in FILES}
    change = json.dumps(
        {
            "ops": [
                {
                    "op": "set_content",
                    "at": {"doc": name, "block": f"section{s}.key7"},
                    "if_match": "*",
                    "text": f"Changed {name} {s}",
                }
                for name in FILES
                for s in (0, 10, 19)
            ]
        }
    ).encode()

    def reset() -> None:
        for name in FILES:
            (root / name).write_bytes(old[name])

    started = time.monotonic()
    assert finish(start(root, "apply", "-", stdin=change))[0] == 0
    whole = time.monotonic() - started
    new = {name: (root / name).read_bytes() for name in FILES}
    assert all(new[name] != old[name] for name in FILES)

    rng = random.Random(17)
    seen: set[tuple[bool, ...]] = set()
    moments_drawn = moments(rng, whole, scale(9, 300), at="rename")
    for moment in moments_drawn:
        reset()
        proc = start(root, "apply", "-", stdin=change)
        kill_at(proc, moment, root / FILES[0] if moment == "rename" else root)
        state = []
        for name in FILES:
            after = (root / name).read_bytes()
            assert after in (old[name], new[name]), f"{name} killed at {moment}: torn"
            state.append(after == new[name])
        # renamed in key order: once a file is old, every file after it is old too
        assert state == sorted(state, reverse=True), f"killed at {moment}: {state}"
        seen.add(tuple(state))
        store_is_consistent(root)
    reset()
    assert finish(start(root, "apply", "-", stdin=change))[0] == 0  # the next run sweeps
    assert {name: (root / name).read_bytes() for name in FILES} == new
    assert temporaries(root) == []
    store_is_consistent(root)
    assert (False, False, False) in seen, seen  # kills before the renames did happen
    if LONG:  # hundreds of kills, a third as the first file is replaced: some between renames
        assert any(0 < sum(state) < len(FILES) for state in seen), seen
    print(f"states after {len(moments_drawn)} kills: {sorted(seen)}")


# --- kapi up ---------------------------------------------------------------------------


def grown_shop(root: Path) -> None:
    """A copy of the example shop whose catalogue has 150 more strings to translate."""
    import shutil

    shutil.copytree(SHOP, root)
    en = json.loads((root / "locales/en.json").read_text(encoding="utf-8"))
    en["help"] = {f"topic{n}": f"Help topic {n}: how to pay for {n} items" for n in range(150)}
    (root / "locales/en.json").write_text(json.dumps(en, indent=2) + "\n", encoding="utf-8")


def strings(path: Path) -> dict[str, Any]:
    """Every string of a JSON catalogue by its dotted key (nothing when it does not exist)."""
    if not path.exists():
        return {}
    found: dict[str, Any] = {}

    def walk(node: Any, prefix: str) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, f"{prefix}{key}.")
        else:
            found[prefix[:-1]] = node

    walk(json.loads(path.read_bytes()), "")
    return found


TARGETS = ("locales/fr.json", "locales/de.json")


def test_a_killed_up_leaves_every_string_old_or_new_and_the_next_up_finishes(tmp_path):
    reference = tmp_path / "reference"
    grown_shop(reference)
    started = time.monotonic()
    code, _, err = finish(start(reference, "up", "--provider", "pseudo", "--quiet"))
    assert code == 0, err
    whole = time.monotonic() - started
    new = {name: strings(reference / name) for name in TARGETS}

    root = tmp_path / "shop"
    grown_shop(root)
    old = {name: strings(root / name) for name in TARGETS}
    rng = random.Random(23)
    for moment in moments(rng, whole, scale(6, 150), at="temporary"):
        kill_at(start(root, "up", "--provider", "pseudo", "--quiet"), moment, root / "locales")
        for name in TARGETS:
            now = strings(root / name)  # parses: a file is never torn
            for key, value in now.items():
                assert value in (old[name].get(key), new[name].get(key)), (name, key, value)
        store_is_consistent(root)
    code, _, err = finish(start(root, "up", "--provider", "pseudo", "--quiet"))
    assert code == 0 and "Traceback" not in err, err
    for name in TARGETS:
        assert (root / name).read_bytes() == (reference / name).read_bytes(), name
    assert temporaries(root) == []
    store_is_consistent(root)


# --- runs at once ------------------------------------------------------------------------


def race(root: Path, sets: list[bytes]) -> list[int]:
    """Start one ``kapi apply`` per set at once; the indexes of the sets that landed. Every
    other must be refused, whole, as stale (``doc_changed`` when it lost the lock's race)."""
    procs = [start(root, "apply", "--json", "-", stdin=change) for change in sets]
    landed = []
    for n, proc in enumerate(procs):
        code, out, err = finish(proc)
        assert "Traceback" not in err and code in (0, 3), (code, out, err)
        result = json.loads(out)
        if code == 0:
            assert result["status"] == "applied"
            landed.append(n)
        else:
            assert result["status"] == "refused", result
            codes = {op["error"]["code"] for op in result["ops"] if op.get("error")}
            assert codes and codes <= {"stale", "doc_changed"}, result
    return landed


@pytest.mark.parametrize("writers", [2, 10])
def test_runs_editing_one_block_at_once_one_lands_and_the_others_are_refused(tmp_path, writers):
    root = tmp_path / "project"
    (root / "a").mkdir(parents=True)
    (root / "a/en.json").write_text(json.dumps({"title": "Original", "body": "Text"}, indent=2))
    (root / "kapi.yaml").write_text(RECIPE)
    read = subprocess.run(
        [sys.executable, "-m", "kapi.cli", "inspect", "a/en.json"],
        cwd=root,
        env=environment(),
        capture_output=True,
        check=True,
    )
    rev = next(r["rev"] for r in json.loads(read.stdout) if r["ref"]["block"] == "title")

    def edit(n: int) -> bytes:
        op = {"op": "set_content", "at": {"doc": "a/en.json", "block": "title"}, "if_match": rev}
        return json.dumps({"ops": [{**op, "text": f"Writer {n}"}]}).encode()

    landed = race(root, [edit(n) for n in range(writers)])
    assert len(landed) == 1, landed
    assert json.loads((root / "a/en.json").read_text()) == {
        "title": f"Writer {landed[0]}",
        "body": "Text",
    }
    assert temporaries(root) == []
    store_is_consistent(root)


@pytest.mark.parametrize("writers", [2, 10])
def test_runs_editing_overlapping_files_at_once_land_whole_or_not_at_all(tmp_path, writers):
    """Writer n's set edits two of three files, n's and the next one's, each at the rev
    every writer read: any two sets share a file, so one lands and every other is refused
    whole, and no file holds a refused writer's text."""
    root = tmp_path / "project"
    for name in FILES:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(json.dumps({"title": "Original", "body": "Text"}, indent=2))
    (root / "kapi.yaml").write_text(RECIPE)
    read = subprocess.run(
        [sys.executable, "-m", "kapi.cli", "inspect", *FILES],
        cwd=root,
        env=environment(),
        capture_output=True,
        check=True,
    )
    revs = {
        r["ref"]["doc"]: r["rev"] for r in json.loads(read.stdout) if r["ref"]["block"] == "title"
    }
    assert sorted(revs) == sorted(FILES)

    def files_of(n: int) -> tuple[str, str]:
        return FILES[n % 3], FILES[(n + 1) % 3]

    def edit(n: int) -> bytes:
        ops = [
            {
                "op": "set_content",
                "at": {"doc": doc, "block": "title"},
                "if_match": revs[doc],
                "text": f"Writer {n}",
            }
            for doc in files_of(n)
        ]
        return json.dumps({"ops": ops}).encode()

    landed = race(root, [edit(n) for n in range(writers)])
    assert len(landed) == 1, landed
    winner = landed[0]
    for name in FILES:
        title = f"Writer {winner}" if name in files_of(winner) else "Original"
        assert json.loads((root / name).read_text()) == {"title": title, "body": "Text"}, name
    assert temporaries(root) == []
    store_is_consistent(root)
