"""The hot path in instructions: what a wall clock cannot show on a machine whose speed moves.

Run: .venv/bin/python bench/bench_instructions.py   (a few minutes; needs valgrind)

Each command runs once to fill the bytecode and kapi's caches, then once more under
``valgrind --tool=callgrind``, which counts the instructions the process executed (every
child process too). The count barely moves from run to run (well under 1%; the
interpreter's string hashing is fixed with ``PYTHONHASHSEED=0``), where the wall time of
the same command on a shared machine moves by a third within minutes. Each figure is
beside ``python -c pass`` counted the same way; ``bench/run.py`` gates on that ratio.

1. ``kapi --help`` (answered without click).
2. ``kapi check`` of a 300-word page in a project whose voice has 50 term rules, and of a
   5,000-word page (the pages of ``bench_hot_path.py``).
3. ``kapi hook post-edit`` on the 300-word page, as Claude Code sends it.
4. ``kapi apply`` of 100 ``set_content`` ops on a 1,000-key catalogue in that project.
5. ``kapi inspect`` of the 1,000-key catalogue.

Without valgrind the script says so and records nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_hot_path as hot  # noqa: E402  (the 50-term project and its pages)
import figures as bench_figures  # noqa: E402  (the records bench/run.py gathers)

VALGRIND = shutil.which("valgrind")
KAPI = str(Path(sys.executable).parent / "kapi")
COLLECTED = re.compile(r"^==\d+== Collected : (\d+)\s*$", re.M)
FIGURES = ("help", "check", "hook", "apply", "inspect")


def collected(stderr: str) -> int:
    """The instructions callgrind counted, from its report on stderr (every process it saw)."""
    counts = [int(found) for found in COLLECTED.findall(stderr)]
    if not counts:
        raise RuntimeError(f"callgrind reported no count:\n{stderr[-2000:]}")
    return sum(counts)


def _env(pyc: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("KAPI_PROJECT", "KAPI_NO_PROJECT")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(PYTHONHASHSEED="0", PYTHONPYCACHEPREFIX=str(pyc), NO_COLOR="1", KAPI_ACTOR="person")
    return env


def count(
    command: Sequence[str],
    cwd: Path,
    env: dict[str, str],
    stdin: bytes = b"",
    before: Callable[[], None] = lambda: None,
) -> int:
    """The instructions of one run of ``command`` after a warm-up run (each after ``before``)."""
    before()
    subprocess.run(command, cwd=cwd, env=env, input=stdin, capture_output=True, check=False)
    before()
    assert VALGRIND is not None
    callgrind = [VALGRIND, "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    done = subprocess.run(
        [*callgrind, "--trace-children=yes", *command],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        check=False,
    )
    return collected(done.stderr.decode("utf-8", "replace"))


def row(label: str, instructions: int, floor: int | None) -> None:
    ratio = f"{instructions / floor:8.2f}x python -c pass" if floor else ""
    print(f"  {label:<44} {instructions / 1e6:9.1f} M instructions  {ratio}")


def build(root: Path) -> dict[str, tuple[list[str], bytes, Callable[[], None]]]:
    """The project and each figure's command, stdin and set-up."""
    page, big = hot.build_project(root)
    target, catalogue = hot.add_catalogue(root, 1000)
    env = _env(Path(tempfile.mkdtemp(prefix="kapi-bench-pyc-")))
    inspected = subprocess.run(
        [KAPI, "inspect", "locales/en.json"], cwd=root, env=env, capture_output=True, check=True
    )
    records = json.loads(inspected.stdout)
    rng = random.Random(4)
    ops = [
        {"op": "set_content", "at": r["ref"], "if_match": r["rev"], "text": f"Changed {i} cart"}
        for i, r in enumerate(rng.sample(records, 100))
    ]
    (root / "set.json").write_text(json.dumps({"ops": ops}))
    payload = {
        "session_id": "bench",
        "cwd": str(root),
        "hook_event_name": "PostToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": str(page), "content": "…"},
    }

    def restore() -> None:
        target.write_bytes(catalogue)

    def nothing() -> None:
        return None

    relative = str(page.relative_to(root))
    return {
        "kapi --help": ([KAPI, "--help"], b"", nothing),
        "kapi check (302 words)": ([KAPI, "check", relative], b"", nothing),
        "kapi check (5006 words)": ([KAPI, "check", str(big.relative_to(root))], b"", nothing),
        "kapi hook post-edit (302 words)": (
            [KAPI, "hook", "post-edit"],
            json.dumps(payload).encode(),
            nothing,
        ),
        "kapi apply set.json (100 ops)": ([KAPI, "apply", "set.json"], b"", restore),
        "kapi inspect (1,000 keys)": ([KAPI, "inspect", "locales/en.json"], b"", nothing),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--only", action="append", choices=FIGURES, help="count only these commands"
    )
    bench_figures.add_json_option(parser)
    args = parser.parse_args()
    bench_figures.written_on_exit(args.json)
    print("The hot path in instructions (valgrind --tool=callgrind, PYTHONHASHSEED=0)")
    if VALGRIND is None:
        print("  skipped: valgrind is not installed (apt install valgrind)")
        return
    with tempfile.TemporaryDirectory(prefix="kapi-bench-instructions-") as folder:
        root = Path(folder)
        commands = build(root)
        env = _env(Path(tempfile.mkdtemp(prefix="kapi-bench-pyc-")))
        floor = count([sys.executable, "-c", "pass"], root, env)
        for label, (command, stdin, before) in commands.items():
            if args.only and command[1].lstrip("-") not in args.only:
                continue
            instructions = count(command, root, env, stdin, before)
            row(label, instructions, floor)
            bench_figures.record_count(label, instructions, "python -c pass", floor)
        row("python -c pass", floor, None)


if __name__ == "__main__":
    main()
