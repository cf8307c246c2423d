"""K10 figures: ``kapi apply`` killed (SIGKILL) at random moments never leaves a torn file.

Run: .venv/bin/python bench/bench_kills.py   (15 to 30 minutes, by the load; --kills 20 takes 3)

A project in a temp folder holds a ~2 MB JSON catalogue and a 200-page DOCX (the
generator of ``bench_office.py``). For each, one unkilled run gives the new bytes
and how long a run takes; then each of ``--kills`` runs starts from the old bytes
and is killed: half at a moment drawn uniformly over a whole run, half inside the
write itself (drawn over the measured write window, counted from the moment the
temporary file appears). After each kill the file is classified as the old bytes,
the new bytes or anything else (must be 0), the temporaries left in its folder are
counted, and the next run (a small edit of another file in the same folder) must
succeed and leave no temporary behind (must be 0). Figures are printed, never
asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import figures as bench_figures  # the records bench/run.py gathers

RECIPE = """\
version: v1
id: prj_kills
name: kills
defaults:
  source_language: en
collections:
  - name: content
    content:
      - path: 'content/*.json'
      - path: 'content/*.docx'
"""


def make_json(path: Path) -> None:
    """About 2 MB: 350 sections of 100 short strings."""
    data = {
        f"section{s}": {f"key{k}": f"Value {s}-{k}: some words a person wrote" for k in range(100)}
        for s in range(350)
    }
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def make_docx(path: Path) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    from bench_office import make_docx as office_docx

    office_docx(path)


def kapi(*args: str) -> list[str]:
    return [sys.executable, "-m", "kapi.cli", *args]


def environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KAPI_", "CLAUDE", "CODEX"))}
    return {**env, "KAPI_ACTOR": "person"}


def edit_of(root: Path, doc: str) -> bytes:
    """A change set of three blind edits spread over ``doc`` (read with ``kapi inspect``)."""
    read = subprocess.run(
        kapi("inspect", doc), cwd=root, env=environment(), capture_output=True, check=True
    )
    records = [r for r in json.loads(read.stdout) if "set_content" in r["ops"]]
    chosen = [records[0], records[len(records) // 2], records[-1]]
    ops = [
        {"op": "set_content", "at": r["ref"], "if_match": "*", "text": f"Changed block {n}"}
        for n, r in enumerate(chosen)
    ]
    return json.dumps({"ops": ops}).encode()


def start(root: Path, change: bytes) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        kapi("apply", "-"),
        cwd=root,
        env=environment(),
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None
    proc.stdin.write(change)
    proc.stdin.close()
    return proc


def temporaries(folder: Path) -> list[str]:
    return [name for name in os.listdir(folder) if name.endswith(".kapi-tmp")]


def wait_for_temporary(proc: subprocess.Popen[bytes], folder: Path) -> float | None:
    """The moment the run's temporary appears (None when the run ended without one seen)."""
    while proc.poll() is None:
        if temporaries(folder):
            return time.monotonic()
        time.sleep(0.0005)
    return None


def reference(root: Path, path: Path, change: bytes, old: bytes) -> tuple[bytes, float, float]:
    """The new bytes, a whole run's time and the write window (median of three runs)."""
    wholes, windows = [], []
    new = b""
    for _ in range(3):
        path.write_bytes(old)
        started = time.monotonic()
        proc = start(root, change)
        appeared = wait_for_temporary(proc, path.parent)
        while proc.poll() is None and temporaries(path.parent):
            time.sleep(0.0005)
        gone = time.monotonic()
        if proc.wait() != 0:
            raise SystemExit(f"the reference apply of {path.name} failed")
        wholes.append(time.monotonic() - started)
        if appeared is not None:
            windows.append(gone - appeared)
        new = path.read_bytes()
    window = sorted(windows)[len(windows) // 2] if windows else 0.01
    return new, sorted(wholes)[1], max(window, 0.002)


def measure(root: Path, path: Path, kills: int, rng: random.Random) -> dict[str, int | float]:
    old = path.read_bytes()
    change = edit_of(root, path.relative_to(root).as_posix())
    new, whole, window = reference(root, path, change, old)
    neighbour = path.parent / "neighbour.json"
    counts = {
        "old": 0,
        "new": 0,
        "other": 0,
        "temps after kill": 0,
        "temps after next run": 0,
        "next run failed": 0,
    }
    for n in range(kills):
        path.write_bytes(old)
        proc = start(root, change)
        if n % 2 == 0:
            time.sleep(rng.uniform(0, whole))
        else:
            appeared = wait_for_temporary(proc, path.parent)
            if appeared is not None:
                time.sleep(max(appeared + rng.uniform(0, window) - time.monotonic(), 0))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        after = path.read_bytes()
        counts["old" if after == old else "new" if after == new else "other"] += 1
        counts["temps after kill"] += len(temporaries(path.parent))
        neighbour.write_text('{"note": "before"}\n')
        note = {"op": "set_content", "at": {"doc": "content/neighbour.json", "block": "note"}}
        nxt = start(root, json.dumps({"ops": [{**note, "if_match": "*", "text": f"{n}"}]}).encode())
        counts["next run failed"] += nxt.wait() != 0
        counts["temps after next run"] += len(temporaries(path.parent))
    return {**counts, "whole run s": whole, "write window ms": window * 1000}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kills", type=int, default=200, help="kills per format (default 200)")
    parser.add_argument("--seed", type=int, default=10)
    bench_figures.add_json_option(parser)
    args = parser.parse_args()
    bench_figures.written_on_exit(args.json)
    rng = random.Random(args.seed)
    print(f"load average {os.getloadavg()[0]:.2f}; {args.kills} kills per format\n")
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "kapi.yaml").write_text(RECIPE)
        (root / "content").mkdir()
        files = {"JSON": root / "content/catalogue.json", "DOCX": root / "content/guide.docx"}
        make_json(files["JSON"])
        make_docx(files["DOCX"])
        rows = []
        for name, path in files.items():
            started = time.monotonic()
            figures = measure(root, path, args.kills, rng)
            size = path.stat().st_size / 1e6
            rows.append((f"{name} ({size:.2f} MB)", figures, time.monotonic() - started))
    headers = ["file", "kills", "old", "new", "other", "temps after kill"]
    headers += ["temps after next run", "next run failed", "run s", "write ms", "bench s"]
    print(" | ".join(headers))
    for label, f, took in rows:
        cells = [label, f["old"] + f["new"] + f["other"], f["old"], f["new"], f["other"]]
        cells += [f["temps after kill"], f["temps after next run"], f["next run failed"]]
        cells += [f"{f['whole run s']:.2f}", f"{f['write window ms']:.1f}", f"{took:.0f}"]
        print(" | ".join(str(c) for c in cells))
        kind = label.split(" ")[0]
        record = bench_figures.record_outcome
        record(f"{kind}: kills", f["old"] + f["new"] + f["other"], "runs")
        record(f"{kind}: files neither old nor new after a kill", f["other"], "files", must=0)
        record(
            f"{kind}: temporaries left after the next run",
            f["temps after next run"],
            "files",
            must=0,
        )
        record(f"{kind}: next runs that failed", f["next run failed"], "runs", must=0)
    print("\nold/new: the file is exactly the bytes before or after the edit; other must be 0.")
    print("temps after kill: temporaries the killed runs left; after next run: must be 0.")


if __name__ == "__main__":
    main()
