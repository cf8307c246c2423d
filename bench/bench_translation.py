"""Translation figures: memory import and fuzzy search over 100,000 entries, and `kapi up`.

1. Import: ``kapi memory import`` of a TMX 1.4 file of 100,000 units (en -> fr sentences
   made from a 400-word vocabulary, a number in each) into a real project store: wall and
   CPU time of the cold process.
2. Fuzzy search over that memory: 300 queries, each an entry with one to four
   characters changed, so every query has a fuzzy match to find. p50 and p95 of
   ``find_matches`` in one process (the store opened once, as a server holds it),
   and how often the entry the query was made from came first.
3. ``kapi up --provider pseudo`` on a project of 5,000 strings in three target languages
   (fr, de, es; their files do not exist yet): wall time of the cold process.

    .venv/bin/python bench/bench_translation.py [--entries N] [--strings N]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import figures

KAPI = str(Path(sys.executable).with_name("kapi"))
RECIPE = """version: v1
id: prj_benchtranslation0000000000
name: bench
defaults:
  source_language: en
  target_languages: [{languages}]
collections:
  - name: ui
    content:
      - path: locales/en.json
        target: locales/{{lang}}.json
"""


def vocabulary(rng: random.Random, size: int = 400) -> list[str]:
    letters = "etaoinshrdlucmfwypvbgk"
    words = set()
    while len(words) < size:
        words.add("".join(rng.choice(letters) for _ in range(rng.randint(2, 9))))
    return sorted(words)


def sentence(rng: random.Random, words: list[str]) -> str:
    return " ".join(rng.choice(words) for _ in range(rng.randint(4, 10))).capitalize()


def mutate(rng: random.Random, text: str) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(chars))
        choice = rng.random()
        if choice < 0.4:
            chars[at] = rng.choice("abcdefghij")
        elif choice < 0.7:
            del chars[at]
        else:
            chars.insert(at, rng.choice("xyz"))
    return "".join(chars)


def timed_kapi(root: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], float, float]:
    """A cold ``kapi`` process in ``root``: what it did, its wall time and CPU time (s)."""
    environ = {**os.environ, "PYTHONPYCACHEPREFIX": str(root / ".pyc")}
    subprocess.run([KAPI, "--version"], env=environ, capture_output=True, check=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([KAPI, *args], cwd=root, env=environ, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return done, wall, cpu


def write_tmx(path: Path, sources: list[str]) -> None:
    from xml.sax.saxutils import escape

    with path.open("w", encoding="utf-8") as out:
        out.write(
            '<?xml version="1.0" encoding="UTF-8"?>\n<tmx version="1.4"><header srclang="en" '
            'datatype="plaintext" segtype="sentence" adminlang="en" creationtool="bench" '
            'creationtoolversion="1" o-tmf="bench"/><body>\n'
        )
        for source in sources:
            text = escape(source)
            out.write(
                f'<tu><tuv xml:lang="en"><seg>{text}</seg></tuv>'
                f'<tuv xml:lang="fr"><seg>FR {text}</seg></tuv></tu>\n'
            )
        out.write("</body></tmx>\n")


def bench_memory(entries: int, queries: int) -> None:
    from kapi.host.memory import find_matches, memory_index
    from kapi.host.workspace import open_workspace

    rng = random.Random(8)
    words = vocabulary(rng)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "locales").mkdir()
        (root / "locales/en.json").write_text("{}")
        (root / "kapi.yaml").write_text(RECIPE.format(languages="fr"))
        sources = [f"{sentence(rng, words)} {n}" for n in range(entries)]
        write_tmx(root / "memory.tmx", sources)
        done, load, cpu = timed_kapi(root, "memory", "import", "memory.tmx", "--json")
        added = json.loads(done.stdout).get("added", "?") if done.stdout else done.stderr
        with open_workspace(cwd=root) as workspace:
            index = memory_index(workspace)
            picks = [rng.randrange(entries) for _ in range(queries)]
            times, cpu_times, first = [], [], 0
            for pick in picks:
                query = mutate(rng, sources[pick])
                started, spent = time.perf_counter(), time.thread_time()
                matches = find_matches(index, query, "en", "fr")
                times.append((time.perf_counter() - started) * 1000)
                cpu_times.append((time.thread_time() - spent) * 1000)
                if matches and matches[0].source == sources[pick]:
                    first += 1
            index.close()
            size = (root / ".kapi/project.db").stat().st_size / 1e6
    times.sort()
    print(f"kapi memory import, a TMX of {entries:,} units ({size:.0f} MB store)")
    print(f"  wall {load:.2f} s, cpu {cpu:.2f} s, exit {done.returncode}, {added} added")
    print(f"fuzzy memory search over those {entries:,} entries")
    print(
        f"  p50 {statistics.median(times):.2f} ms   p95 {times[int(len(times) * 0.95)]:.2f} ms"
        f"   max {times[-1]:.2f} ms   (target p50 < 20 ms)"
    )
    print(f"  cpu p50 {statistics.median(cpu_times):.2f} ms (this thread's own time)")
    print(f"  the entry a query was made from came first in {first}/{queries} queries")
    figures.record(f"find_matches p50 ({entries:,} entries)", statistics.median(times) / 1000)


def bench_up(strings: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "locales").mkdir()
        rng = random.Random(5)
        words = vocabulary(rng)
        catalogue = {
            f"screen{screen}": {
                f"key{n}": sentence(rng, words) + (" {{count}}" if n % 7 == 0 else "")
                for n in range(screen * 50, screen * 50 + 50)
            }
            for screen in range(strings // 50)
        }
        (root / "locales/en.json").write_text(json.dumps(catalogue, indent=2))
        (root / "kapi.yaml").write_text(RECIPE.format(languages="fr, de, es"))
        done, wall, cpu = timed_kapi(root, "up", "--provider", "pseudo", "--json", "--quiet")
        result = json.loads(done.stdout) if done.stdout else {}
        _, again, _ = timed_kapi(root, "up", "--provider", "pseudo", "--quiet")
    print(f"kapi up --provider pseudo, {strings:,} strings x 3 languages")
    print(
        f"  wall {wall:.2f} s (target < 10 s), cpu {cpu:.2f} s, exit {done.returncode}, "
        f"{result.get('written', '?')} written, {result.get('refused', '?')} refused"
    )
    print(f"  a second kapi up (nothing to do): {again:.2f} s")
    figures.record(f"kapi up --provider pseudo ({strings:,} strings x 3)", wall)
    figures.record("kapi up with nothing to do", again)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--strings", type=int, default=5_000)
    figures.add_json_option(parser)
    args = parser.parse_args()
    figures.written_on_exit(args.json)
    print(f"load average {os.getloadavg()[0]:.2f}")
    bench_memory(args.entries, args.queries)
    bench_up(args.strings)


if __name__ == "__main__":
    main()
