"""K7 figure: ``kapi hook post-edit`` after an edit, beside ``kapi check`` and textlint on the same page.

Run: .venv/bin/python bench/bench_hooks.py   (--runs N; default 15)

Medians of cold processes (each after one warm-up run, as a hook sees kapi after its first
run) on the 300-word Markdown page of bench_check's project (a voice of 50 term rules):

* ``kapi hook post-edit`` fed a recorded PostToolUse payload for the page on stdin (the
  check, the verdict JSON, and the outcome recorded in the project store);
* ``kapi check page.md`` on the same page;
* textlint 15.8 + textlint-rule-terminology 5.2 with the same 50 terms (installed with npm
  into ``bench/.node/`` on first use, as bench_hot_path does; skipped without npm).

Targets (issue K7): the hook within 1.1x of ``kapi check``, and under 200 ms on an idle
machine. Figures are printed, never asserted; the load average is printed with them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_hot_path as hot  # noqa: E402  (the project, textlint, the environment)
import figures  # noqa: E402  (the records bench/run.py gathers)


def _once(
    cmd: Sequence[str], cwd: Path, env: dict[str, str], stdin: Path | None
) -> tuple[float, int]:
    handle = open(stdin, "rb") if stdin is not None else subprocess.DEVNULL  # noqa: SIM115
    try:
        started = time.perf_counter()
        done = subprocess.run(cmd, cwd=cwd, env=env, stdin=handle, capture_output=True)
        return time.perf_counter() - started, done.returncode
    finally:
        if stdin is not None:
            handle.close()  # type: ignore[union-attr]


def median_of(
    label: str,
    cmd: Sequence[str],
    cwd: Path,
    runs: int,
    *,
    stdin: Path | None = None,
    expect: Sequence[int] = (0,),
) -> float:
    env = hot._env()
    for attempt in range(runs + 1):  # the first is the warm-up
        elapsed, code = _once(cmd, cwd, env, stdin)
        if code not in expect:
            raise RuntimeError(f"{label}: exit {code}")
        if attempt == 0:
            times: list[float] = []
        else:
            times.append(elapsed)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    figures.add_json_option(parser)
    args = parser.parse_args()
    figures.written_on_exit(args.json)
    runs = args.runs
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}  (runs: {runs})")
    with tempfile.TemporaryDirectory(prefix="kapi-bench-hooks-") as folder:
        root = Path(folder) / "project"
        page, _ = hot.build_project(root)
        relative = str(page.relative_to(root))
        payload = Path(folder) / "post-tool-use.json"
        payload.write_text(
            json.dumps(
                {
                    "session_id": "bench-session",
                    "transcript_path": str(root / "transcript.jsonl"),
                    "cwd": str(root),
                    "hook_event_name": "PostToolUse",
                    "tool_name": "Edit",
                    "tool_input": {"file_path": str(page), "old_string": "a", "new_string": "b"},
                    "tool_response": {"filePath": str(page), "success": True},
                }
            )
        )
        words = hot.checks.words_of(page.read_text())
        print(f"\n`kapi hook post-edit` on a {words}-word Markdown page (50 term rules)")
        check = median_of("kapi check", [hot.KAPI, "check", relative], root, runs, expect=(0, 3))
        hook = median_of(
            "kapi hook post-edit", [hot.KAPI, "hook", "post-edit"], root, runs, stdin=payload
        )
        print(f"  {'kapi check ' + relative:<40}{hot.ms(check)}")
        figures.record("kapi hook post-edit", hook, "kapi check", check)
        print(
            f"  {'kapi hook post-edit':<40}{hot.ms(hook)}  {hook / check:5.2f}x kapi check"
            "   target <= 1.1x; < 200 ms"
        )
        textlint = hot.textlint_bin()
        if isinstance(textlint, Path):
            config = str(root / ".textlintrc.json")
            anchor = median_of(
                "textlint",
                [str(textlint), "-c", config, "-f", "compact", str(page)],
                hot.NODE_DIR,
                runs,
                expect=(0, 1),
            )
            print(f"  {'textlint (same page, same terms)':<40}{hot.ms(anchor)}")
            print(f"  {'':<40}hook {hook / anchor:.2f}x textlint")
            figures.record("kapi hook post-edit", hook, "textlint", anchor)
        else:
            hot.skipped("textlint", str(textlint))


if __name__ == "__main__":
    main()
