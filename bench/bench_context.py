"""Context figures: ``kapi context PATH --json`` cold on a project with 5,000 terms and 2,000
operations, and folding 10,000 operations in memory.

Run: .venv/bin/python bench/bench_context.py   (targets: under 300 ms cold; fold under 200 ms)
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from kapi.core.change.ports import Actor, ActorKind
from kapi.core.context.fold import fold
from kapi.core.context.forms import avoided_forms
from kapi.core.context.ids import mint_id
from kapi.core.context.record import Evidence, OpKind, Record, Scope, Subject
from kapi.core.governance.terms import Concept, Term

sys.path.insert(0, str(Path(__file__).resolve().parent))

import figures

TERMS = 5_000
OPERATIONS = 2_000
FOLDED = 10_000
RUNS = 10
KAPI = str(Path(sys.executable).with_name("kapi"))


def records(count: int) -> list[Record]:
    """Agents' observations in 50 sessions, a person's keep every tenth, a drop every 25th."""
    out: list[Record] = []
    start = datetime(2026, 3, 1, tzinfo=UTC)
    person = Actor(ActorKind.PERSON, "ana@example.com")
    for i in range(count):
        at = start + timedelta(seconds=i)
        newest = out[-1].id if out else ""
        if i % 10 == 9:
            target = out[i - 5].id
            kind = OpKind.DROP if i % 25 == 24 else OpKind.KEEP
            out.append(Record(id=mint_id(at, i, newest), kind=kind, actor=person, target=target))
            continue
        agent = Actor(ActorKind.AGENT, "claude-code", f"s{i % 50}")
        rule = avoided_forms(f"Product{i % 700} Name", [f"product{i % 700} name"])
        out.append(
            Record(
                id=mint_id(at, i, newest),
                kind=OpKind.OBSERVE,
                actor=agent,
                subject=Subject(kind="term", term=rule),
                evidence=(Evidence(path=f"docs/page{i % 40}.md"),),
                scope=Scope(coordinates={"channel": "docs"} if i % 3 else {}),
            )
        )
    return out


def build_project(root: Path) -> None:
    from kapi.core.context.wire import encode_record
    from kapi.host.store import ProjectStore

    (root / "docs").mkdir(parents=True)
    for i in range(40):
        (root / f"docs/page{i}.md").write_text(f"# Page {i}\n\nSome text.\n", encoding="utf-8")
    (root / "kapi.yaml").write_text(
        "version: v1\nid: prj_bench\nname: bench\ndefaults:\n  source_language: en\n"
        "collections:\n  - name: docs\n    content:\n      - path: 'docs/**/*.md'\n",
        encoding="utf-8",
    )
    store = ProjectStore(root / ".kapi/project.db", project="prj_bench")
    concepts = [
        Concept(
            id=f"term:en:word-{i}",
            definition=f"The thing number {i}",
            terms=(
                Term(text=f"word{i}", locale="en", status="preferred"),
                Term(
                    text=f"old-word{i}", locale="en", status="deprecated" if i % 2 else "forbidden"
                ),
            ),
        )
        for i in range(TERMS)
    ]
    store.put_concepts(concepts)
    store.append_context_ops([encode_record(r) for r in records(OPERATIONS)])
    store.close()


def cold(root: Path, command: list[str] | None = None) -> tuple[list[float], list[float]]:
    """Wall and CPU (user + system) seconds of each cold run."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KAPI_")}
    command = command or [KAPI, "context", "docs/page3.md", "--json"]
    subprocess.run(command, cwd=root, env=env, check=True, capture_output=True)  # warm caches
    walls, cpus = [], []
    for _ in range(RUNS):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(command, cwd=root, env=env, capture_output=True)
        walls.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        assert done.returncode == 0, done.stderr
    return walls, cpus


def bench_fold() -> tuple[list[float], list[float]]:
    log = records(FOLDED)
    walls, cpus = [], []
    for _ in range(5):
        started, cpu = time.perf_counter(), time.process_time()
        folded = fold(log)
        walls.append(time.perf_counter() - started)
        cpus.append(time.process_time() - cpu)
    assert len(folded.entries) == FOLDED - FOLDED // 10
    return walls, cpus


def _row(walls: list[float], cpus: list[float], target: str) -> str:
    return (
        f"  wall median {statistics.median(walls) * 1000:.0f} ms, best {min(walls) * 1000:.0f} ms;"
        f" CPU median {statistics.median(cpus) * 1000:.0f} ms, best {min(cpus) * 1000:.0f} ms"
        f" (target {target})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    figures.add_json_option(parser)
    figures.written_on_exit(parser.parse_args().json)
    print(f"load average: {os.getloadavg()[0]:.2f} (wall times move with it; CPU less so)")
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "project"
        build_project(root)
        walls, cpus = cold(root)
        floor, _ = cold(root, [sys.executable, "-c", "pass"])
    print(f"kapi context PATH --json, {TERMS:,} terms, {OPERATIONS:,} ops, cold, {RUNS} runs")
    print(_row(walls, cpus, "< 300 ms"))
    print(f"  python -c pass: wall median {statistics.median(floor) * 1000:.0f} ms")
    figures.record(
        "kapi context PATH --json (cold)",
        statistics.median(walls),
        "python -c pass",
        statistics.median(floor),
    )
    walls, cpus = bench_fold()
    print(f"fold of {FOLDED:,} operations in memory, 5 runs")
    print(_row(walls, cpus, "< 200 ms"))
    figures.record(f"fold {FOLDED:,} context operations", statistics.median(walls))


if __name__ == "__main__":
    main()
