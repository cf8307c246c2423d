"""K17 figures: checking the prose in code comments on real code bases, beside codespell.

Run: .venv/bin/python bench/bench_comments.py   (a minute or two; the first run fetches the
pinned trees of the corpus tier, requests 2.32.3 and RxJS 7.8.1, and codespell into a
throwaway virtual environment)

* **Cold check**: ``kapi check --comments --json --no-fail`` on each tree, a fresh process
  each time (best of 3): files per second, comments read, findings. Outside a project, so
  only the hygiene analyzers run; the voice analyzers cost what they cost on any prose.
* **codespell** (``pip install codespell`` into a temporary venv, never a kapi
  dependency) on the same files (best of 3): files per second. codespell reads every line
  of each file for misspellings; kapi parses each file with tree-sitter, sets aside what
  is not prose, and runs its analyzers with their canaries.
* **Reading alone**: ``read_comments`` over the same files in this process, the
  parsers loaded: what the comment layer costs without starting kapi.
* **Sampled files**: the comments kapi reads in two files of each tree, beside the
  comments a person reading the file counts as prose (counted by hand and written
  below with the reasons).

Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import figures  # noqa: E402  (the records bench/run.py gathers)

from tests.corpus.fetch import unpacked  # noqa: E402
from tests.corpus.test_comments_corpus import REQUESTS, RXJS  # noqa: E402

KAPI = Path(sys.executable).with_name("kapi")

# Counted by reading the files: the comments a person calls prose, and why.
BY_HAND = {
    "requests/api.py": (
        10,
        "the module docstring, request()'s docstring, the three-line comment on the "
        "with statement, and the docstrings of get/options/head/post/put/patch/delete",
    ),
    "requests/compat.py": (
        10,
        "the module docstring, a function's docstring, five line comments and three "
        "section titles (Character Detection, Pythons, Legacy Imports); the six rules of "
        "dashes around the titles are not prose",
    ),
    "internal/operators/map.ts": (
        5,
        "the @deprecated JSDoc of the thisArg overload, map's JSDoc, and the three line "
        "comments inside map's body",
    ),
    "internal/operators/refCount.ts": (
        2,
        "the JSDoc, and one 22-line comment of line comments holding a fenced example; "
        "the two empty /// lines around it are not prose",
    ),
}


def _files(tree: Path, suffix: str) -> list[Path]:
    return sorted(path for path in tree.rglob(f"*{suffix}") if path.is_file())


def _best(
    command: list[str], runs: int = 3, **kwargs: object
) -> tuple[float, subprocess.CompletedProcess]:
    best = float("inf")
    done = None
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=False, **kwargs)  # type: ignore[call-overload]
        best = min(best, time.perf_counter() - started)
    assert done is not None
    return best, done


def _codespell() -> Path:
    home = Path(tempfile.mkdtemp(prefix="kapi-bench-codespell-"))
    venv.create(home, with_pip=True)
    python = home / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "codespell"], check=True, timeout=600
    )
    return home / "bin" / "codespell"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    figures.add_json_option(parser)
    figures.written_on_exit(parser.parse_args().json)
    env = dict(os.environ, KAPI_NO_PROJECT="1", PYTHONDONTWRITEBYTECODE="1")
    env.pop("KAPI_PROJECT", None)
    codespell = _codespell()
    trees = [
        ("requests 2.32.3 (Python)", unpacked(REQUESTS) / "requests-2.32.3" / "src", ".py"),
        ("RxJS 7.8.1 (TypeScript)", unpacked(RXJS) / "package" / "src", ".ts"),
    ]
    version = subprocess.run(
        [str(codespell), "--version"], capture_output=True, text=True, check=False
    ).stdout.strip()
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"codespell {version}; kapi {KAPI}; load average {load} on {os.cpu_count()} CPUs")
    print()
    print(
        f"{'tree':<26} {'files':>6} {'kapi s':>8} {'files/s':>8} {'comments':>9} "
        f"{'findings':>9} {'codespell s':>12} {'files/s':>8}"
    )
    for label, tree, suffix in trees:
        files = _files(tree, suffix)
        names = [str(path.relative_to(tree)) for path in files]
        seconds, done = _best(  # kapi reads only below the folder it runs in
            [str(KAPI), "check", "--comments", "--json", "--no-fail", "."], env=env, cwd=tree
        )
        report = json.loads(done.stdout)
        checked = [f for f in report["scope"]["files"] if f["status"] == "checked"]
        comments = report["target"]["blocks"]
        spell_seconds, _ = _best([str(codespell), *names], cwd=tree)
        figures.record(
            f"kapi check --comments ({label})", seconds, "codespell (same files)", spell_seconds
        )
        print(
            f"{label:<26} {len(files):>6} {seconds:>8.2f} {len(checked) / seconds:>8.0f} "
            f"{comments:>9} {len(report['findings']):>9} {spell_seconds:>12.2f} "
            f"{len(files) / spell_seconds:>8.0f}"
        )
    print()
    from kapi.formats.comments import read_comments

    for label, tree, suffix in trees:  # the reading alone, in this process (parsers loaded)
        files = _files(tree, suffix)
        read_comments(files[0].read_bytes(), files[0].name)
        started = time.perf_counter()
        count = sum(len(read_comments(path.read_bytes(), path.name).comments) for path in files)
        seconds = time.perf_counter() - started
        print(
            f"{label}: read_comments in process {len(files) / seconds:.0f} files/s "
            f"({count} comments)"
        )
    print()

    for sample, (hand, why) in BY_HAND.items():
        tree = next(tree for _, tree, suffix in trees if sample.endswith(suffix))
        path = tree / sample
        found = read_comments(path.read_bytes(), sample)
        skipped: dict[str, int] = {}
        for item in found.skipped:
            skipped[item.reason] = skipped.get(item.reason, 0) + 1
        aside = ", ".join(f"{count} {reason}" for reason, count in skipped.items()) or "nothing"
        print(f"{sample}: kapi reads {len(found.comments)} comments as prose, sets aside {aside}")
        print(f"  by hand: {hand} ({why})")


if __name__ == "__main__":
    main()
