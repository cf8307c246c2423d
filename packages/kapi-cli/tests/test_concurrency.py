"""Several kapi runs at once, and runs killed mid-write: every file lands whole or not at all.

Real ``kapi apply`` processes on a real project: its store is created by the
first runs themselves, racing each other; the folder lock and the store's
busy waits are bounded, and a refusal is a clean exit 3, never a traceback.
"""

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest

from kapi.host import store as store_module
from kapi.host.store import ProjectStore

RECIPE = textwrap.dedent(
    """\
    version: v1
    id: prj_race
    name: race
    defaults:
      source_language: en
    collections:
      - name: ui
        content:
          - path: 'locales/*.json'
    """
)
KEYS = [f"key{n}" for n in range(8)]
WRITERS = 10  # writers 8 and 9 edit key0, as writer 0 does: at most one of the three lands


def catalogue():
    return json.dumps({key: f"Original {key}" for key in KEYS}, indent=2) + "\n"


def project(root):
    (root / "kapi.yaml").write_text(RECIPE)
    (root / "locales").mkdir()
    (root / "locales/en.json").write_text(catalogue())
    return root


def environment(root, **extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KAPI_", "CLAUDE", "CODEX"))}
    return {**env, "KAPI_ACTOR": "person", **extra}


def kapi(root, *args, **popen):
    command = [sys.executable, "-m", "kapi.cli", *args]
    return subprocess.Popen(command, cwd=root, env=environment(root), **popen)


def revs(root):
    done = subprocess.run(
        [sys.executable, "-m", "kapi.cli", "inspect", "locales/en.json"],
        cwd=root,
        env=environment(root),
        capture_output=True,
        text=True,
        check=True,
    )
    return {record["ref"]["block"]: record["rev"] for record in json.loads(done.stdout)}


def one_edit(key, rev, text):
    op = {
        "op": "set_content",
        "at": {"doc": "locales/en.json", "block": key},
        "if_match": rev,
        "text": text,
    }
    return json.dumps({"ops": [op]})


def run_round(root, number, known):
    """Ten runs at once, each one edit read from the same state; what each reported."""
    keys = [KEYS[n % len(KEYS)] for n in range(WRITERS)]
    texts = [f"Round {number} writer {n}" for n in range(WRITERS)]
    pipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    procs = [kapi(root, "apply", "--json", "-", text=True, **pipes) for _ in range(WRITERS)]
    for proc, key, text in zip(procs, keys, texts):
        proc.stdin.write(one_edit(key, known[key], text))
        proc.stdin.close()
    landed = {}
    for proc, key, text in zip(procs, keys, texts):
        out, err = proc.stdout.read(), proc.stderr.read()
        code = proc.wait(timeout=120)
        assert "Traceback" not in err, err
        assert code in (0, 3), (code, out, err)
        result = json.loads(out)
        if code == 0:
            assert result["status"] == "applied", result
            assert result["record"], result  # the store kept the landed set
            assert key not in landed, f"two edits of {key} from one read both landed"
            landed[key] = text
        else:
            assert result["status"] == "refused", result
            codes = {op["error"]["code"] for op in result["ops"] if op.get("error")}
            assert codes <= {"stale", "doc_changed"} and codes, result
    return landed


def test_ten_runs_at_once_each_land_or_refuse_and_the_file_holds_exactly_the_landed(tmp_path):
    """Rounds of ten concurrent applies, the first creating the store: exit 0 or 3, never 1."""
    for fresh, rounds in enumerate((2, 1)):
        root = tmp_path / f"p{fresh}"
        root.mkdir()
        project(root)
        assert not (root / ".kapi").exists()  # the first round's runs create the store
        expected = json.loads(catalogue())
        records = 0
        for number in range(rounds):
            known = revs(root)
            landed = run_round(root, number, known)
            expected.update(landed)
            records += len(landed)
            text = (root / "locales/en.json").read_text()
            assert json.loads(text) == expected
            assert not [p for p in (root / "locales").iterdir() if p.name.endswith(".kapi-tmp")]
        store = ProjectStore(root / ".kapi/project.db")
        assert store.schema_version() == len(store_module.MIGRATIONS)
        assert len(store.change_records()) == records


# --- a store that cannot be opened ----------------------------------------------------------


def apply_in(root, *args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "kapi.cli", "apply", *args, "-"],
        cwd=root,
        env=environment(root, **(env or {})),
        input=one_edit("key1", "*", "Changed"),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_store_that_cannot_be_created_is_a_clean_error(tmp_path):
    project(tmp_path)
    (tmp_path / ".kapi").write_text("not a folder")
    done = apply_in(tmp_path, "--json")
    assert done.returncode == 5 and "Traceback" not in done.stderr, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "refused" and result["error"]["code"] == "unreachable"
    message = result["error"]["message"]
    assert message.startswith(".kapi/project.db: the project store cannot be created: ")
    assert ".kapi is a file, not a folder" in message and "nothing was written" in message
    assert (tmp_path / "locales/en.json").read_text() == catalogue()


@pytest.mark.skipif(not hasattr(signal, "SIGXFSZ"), reason="needs POSIX file size limits")
def test_a_full_disk_under_the_store_is_a_clean_error(tmp_path):
    """A file size limit stands in for a full disk: SQLite's first write fails."""
    import resource

    project(tmp_path)

    def full_disk():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failing write, not a killed process
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))

    done = subprocess.run(
        [sys.executable, "-m", "kapi.cli", "apply", "-"],
        cwd=tmp_path,
        env=environment(tmp_path, PYTHONDONTWRITEBYTECODE="1"),
        input=one_edit("key1", "*", "Changed"),
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=full_disk,
    )
    assert done.returncode == 5 and "Traceback" not in done.stderr, done.stderr
    assert "unreachable: .kapi/project.db: the project store cannot be opened" in done.stderr
    assert "check that .kapi/ can be written and the disk has room" in done.stderr
    assert (tmp_path / "locales/en.json").read_text() == catalogue()


def test_a_store_held_too_long_is_refused_exit_3_and_nothing_is_written(kapi, monkeypatch):
    project(kapi.root)
    (kapi.root / ".kapi").mkdir()
    holder = sqlite3.connect(kapi.root / ".kapi/project.db", isolation_level=None)
    holder.execute("PRAGMA journal_mode=WAL")
    holder.execute("BEGIN IMMEDIATE")  # another run, mid-transaction, before any migration
    monkeypatch.setattr(store_module, "BUSY_WAIT_SECONDS", 0.3)
    try:
        started = time.monotonic()
        result = kapi("apply", "-", input=one_edit("key1", "*", "Changed"))
        waited = time.monotonic() - started
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert result.exit_code == 3, result.output
    assert "the project store is busy" in result.stderr and "0.3 seconds" in result.stderr
    assert 0.3 <= waited < 10
    assert (kapi.root / "locales/en.json").read_text() == catalogue()
    again = kapi("apply", "-", input=one_edit("key1", "*", "Changed"))
    assert again.exit_code == 0, again.output  # the holder gone, the store is made


def test_a_folder_held_too_long_is_doc_changed_exit_3(kapi, monkeypatch):
    import fcntl

    from kapi.formats import home

    project(kapi.root)
    monkeypatch.setattr(home, "LOCK_WAIT_SECONDS", 0.2)
    folder = os.open(kapi.root / "locales", os.O_RDONLY)
    fcntl.flock(folder, fcntl.LOCK_EX)  # another run, mid-commit
    try:
        result = kapi("apply", "--json", "-", input=one_edit("key1", "*", "Changed"))
    finally:
        os.close(folder)
    assert result.exit_code == 3, result.output
    payload = json.loads(result.stdout)
    assert payload["status"] == "refused"
    assert payload["ops"][0]["error"]["code"] == "doc_changed"
    assert (kapi.root / "locales/en.json").read_text() == catalogue()
    assert kapi("apply", "-", input=one_edit("key1", "*", "Changed")).exit_code == 0


# --- runs killed mid-write ------------------------------------------------------------------


def test_the_next_write_into_a_folder_removes_temporaries_killed_runs_left(kapi):
    project(kapi.root)
    (kapi.root / "docs").mkdir()
    left = {
        "locales/.en.json.0badf00d.kapi-tmp": b'{"half": "writ',
        "locales/.fr.json.a1_b2c3d.kapi-tmp": b"an earlier build's temporary",
    }
    kept = {
        "locales/fr.json": b'{"key1": "Bonjour"}\n',
        "locales/notes.kapi-tmp.txt": b"not a temporary",
        "locales/.hidden": b"a person's file",
        "docs/.guide.md.12345678.kapi-tmp": b"another folder, not written by this run",
    }
    for name, data in {**left, **kept}.items():
        (kapi.root / name).write_bytes(data)
    result = kapi("apply", "-", input=one_edit("key1", "*", "Changed"))
    assert result.exit_code == 0, result.output
    for name in left:
        assert not (kapi.root / name).exists(), name
    for name, data in kept.items():
        assert (kapi.root / name).read_bytes() == data, name
    assert json.loads((kapi.root / "locales/en.json").read_text())["key1"] == "Changed"


def big_catalogue():
    """About 2 MB of JSON: 350 sections of 100 keys."""
    data = {
        f"section{s}": {f"key{k}": f"Value {s}-{k}: some words a person wrote" for k in range(100)}
        for s in range(350)
    }
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode()


def temporaries(folder):
    return [name for name in os.listdir(folder) if name.endswith(".kapi-tmp")]


def test_a_killed_apply_leaves_the_old_bytes_or_the_new_never_a_mix(tmp_path):
    """SIGKILL at random moments, and as the temporary appears: the file is old or new, whole."""
    root = project(tmp_path)
    path = root / "locales/en.json"
    old = big_catalogue()
    assert 1_500_000 < len(old) < 3_000_000
    edit = json.dumps(
        {
            "ops": [
                {
                    "op": "set_content",
                    "at": {"doc": "locales/en.json", "block": f"section{s}.key7"},
                    "if_match": "*",
                    "text": f"Changed {s}",
                }
                for s in (0, 175, 349)
            ]
        }
    )

    def start():
        proc = kapi(root, "apply", "-", stdin=subprocess.PIPE, stderr=subprocess.DEVNULL)
        proc.stdin.write(edit.encode())
        proc.stdin.close()
        return proc

    path.write_bytes(old)
    started = time.monotonic()
    assert start().wait(timeout=120) == 0
    whole_run = time.monotonic() - started
    new = path.read_bytes()
    assert new != old and json.loads(new)["section175"]["key7"] == "Changed 175"

    rng = random.Random(7)
    moments = [rng.uniform(0.05, 1.0) * whole_run for _ in range(4)] + [None, None]
    for moment in moments:
        path.write_bytes(old)
        proc = start()
        if moment is None:  # kill as soon as the temporary shows in the folder
            deadline = time.monotonic() + 120
            while proc.poll() is None and not temporaries(path.parent):
                assert time.monotonic() < deadline
                time.sleep(0.0005)
        else:
            time.sleep(moment)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=120)
        after = path.read_bytes()
        assert after in (old, new), f"killed at {moment}: {len(after)} bytes, neither old nor new"
        json.loads(after)

    path.write_bytes(old)
    assert start().wait(timeout=120) == 0  # the next run sweeps what the killed ones left
    assert path.read_bytes() == new
    assert temporaries(path.parent) == []
