"""The benchmark suite: every bench script in one command, one table, compared with a baseline.

Run from the repository root with the project's venv:

    .venv/bin/python bench/run.py                     # every script, full size (10 to 40 minutes)
    .venv/bin/python bench/run.py --quick             # smaller inputs, fewer runs (about 8 minutes)
    .venv/bin/python bench/run.py --quick --only hooks --only core
    .venv/bin/python bench/run.py --quick --update-baseline     # record this run as the baseline
    .venv/bin/python bench/run.py --records a.json    # compare recorded figures; run nothing

Each script runs in its own process with ``--json FILE`` and writes its figures as records
(``bench/figures.py``): a name, a median in milliseconds and, for most, the anchor measured
in the same run (textlint, proselint, polib, translate-toolkit, python-docx, openpyxl,
GNU grep and sed, the standard library, ``python -c pass``) with the ratio of the two. The
table shows every figure; a figure whose ratio to its anchor grew by more than
``--tolerance`` (20%) over the committed baseline of the same mode (``bench/baseline.json``,
``full`` or ``quick``) is marked REGRESSED. Ratios, not times, are compared: the anchor ran
on the same machine under the same load, so a slower machine or a busy one moves both.
Figures without an anchor are printed and never compared. Each script's own output goes to
a log file (``--logs``, default a temp folder, printed), or to the terminal with ``--verbose``.

A figure that regressed is measured again before the run fails: each script with one is run
once more (``--confirm N`` times; 0 never) and every figure of it keeps the lower of its
ratios, so only a figure that regressed in every run is marked. A shared machine's speed
moves by a third within minutes, faster than a script's kapi runs and anchor runs alternate.
Where it does, ``--only instructions`` is the gate that does not move: the hot path's
commands counted in instructions (``bench_instructions.py``, valgrind), each beside
``python -c pass`` counted the same way.

An outcome (files torn by a kill, codes the guard judges otherwise than the read says) is
printed with its unit and never compared; one that is not the value kapi promises is BROKEN
and fails the run.

A compared figure of the baseline that a script which ran did not measure (its anchor is
not installed, say) is listed as MISSING and fails the run like a regression.

Exit: 0 no regression; 1 a figure regressed, is missing or is broken; 2 a script failed (the figures it wrote before
failing are still printed and compared).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
BASELINE = HERE / "baseline.json"
TOLERANCE = 0.20


@dataclass(frozen=True)
class Bench:
    """One script of the suite, the arguments of a full run and of a quick one."""

    name: str
    script: str
    quick: tuple[str, ...] = ()
    full: tuple[str, ...] = ()
    needs: str = ""  # what the script fetches on its first run


SUITE: tuple[Bench, ...] = (
    Bench("core", "bench_core.py", ("--blocks", "2000", "--hashes", "20000")),
    Bench("formats", "bench_formats.py"),
    Bench(
        "hot_path",
        "bench_hot_path.py",
        ("--runs", "3", "--only", "check", "--only", "inspect", "--only", "po", "--only", "apply"),
        needs="textlint (npm) and proselint (pip) into bench/",
    ),
    Bench(
        "check",
        "bench_check.py",
        ("--files", "100", "--runs", "3", "--tree-runs", "2", "--diff-runs", "2"),
        needs="textlint (npm) and proselint (pip) into a temp folder",
    ),
    Bench("hooks", "bench_hooks.py", ("--runs", "5"), needs="textlint (npm) into bench/"),
    Bench("mcp", "bench_mcp.py", ("--calls", "40", "--starts", "5"), needs="textlint (npm)"),
    Bench("office", "bench_office.py", ("--repeat", "3", "--pages", "50", "--rows", "1000")),
    Bench("context", "bench_context.py"),
    Bench("interchange", "bench_interchange.py", ("--units", "2000", "--runs", "3")),
    Bench("toolbox", "bench_toolbox.py", ("--files", "200", "--keys", "2000", "--repeat", "3")),
    Bench(
        "translation",
        "bench_translation.py",
        ("--entries", "10000", "--queries", "100", "--strings", "1000"),
    ),
    Bench("qa", "bench_qa.py", needs="the corpus tier's Django and Sphinx catalogues"),
    Bench(
        "comments",
        "bench_comments.py",
        needs="the corpus tier's requests and RxJS, codespell (pip)",
    ),
    Bench("bombs", "bench_bombs.py"),
    Bench("instructions", "bench_instructions.py", needs="valgrind (counts; none: skipped)"),
    # Outcomes, not times: each a promise the table shows as kept or BROKEN.
    Bench("kills", "bench_kills.py", ("--kills", "6"), ("--kills", "40")),
    Bench("code_labels", "bench_code_labels.py", ("--per-format", "30")),
)
NAMES = tuple(bench.name for bench in SUITE)


# --- comparing ------------------------------------------------------------------------------


def key(bench: str, record: dict[str, Any]) -> str:
    """The identity of a figure across runs: its script, its name and its anchor."""
    anchor = record.get("anchor")
    return f"{bench}: {record['name']}" + (f" / {anchor}" if anchor else "")


@dataclass(frozen=True)
class Row:
    key: str
    label: str  # the script and the figure's name
    record: dict[str, Any]
    baseline: float | None  # the baseline's ratio
    change: float | None  # ratio / baseline ratio - 1
    regressed: bool
    missing: bool = False  # the baseline holds it; the script ran without measuring it

    @property
    def broken(self) -> bool:
        """An outcome that is not what kapi promises (a torn file after a kill)."""
        must = self.record.get("must")
        return must is not None and self.record.get("value") != must


def compare(
    gathered: dict[str, list[dict[str, Any]]],
    baseline: dict[str, Any],
    tolerance: float = TOLERANCE,
) -> list[Row]:
    """Each gathered figure beside its baseline ratio; regressed when it grew over ``tolerance``."""
    rows: list[Row] = []
    for bench, records in gathered.items():
        for record in records:
            name = key(bench, record)
            label = f"{bench}: {record['name']}"
            ratio = record.get("ratio")
            before = (baseline.get(name) or {}).get("ratio")
            if ratio is None or not before:
                rows.append(Row(name, label, record, before, None, False))
                continue
            change = ratio / before - 1
            rows.append(Row(name, label, record, before, change, change > tolerance))
    # A compared figure of a script that ran but did not measure it (an anchor not
    # installed, a section that failed) is a hole in the table, not a pass.
    measured = {row.key for row in rows}
    for name, figure in baseline.items():
        bench = name.split(": ", 1)[0]
        if bench in gathered and name not in measured and figure.get("ratio"):
            label, _, anchor = name.partition(" / ")
            record = {"name": label.split(": ", 1)[1], "anchor": anchor or None, "ratio": None}
            rows.append(Row(name, label, record, figure["ratio"], None, False, missing=True))
    return rows


def lowest_ratios(runs: Sequence[list[dict[str, Any]]], bench: str) -> list[dict[str, Any]]:
    """The records of a script's runs, each figure at its lowest ratio (in the first run's order);
    a figure only one run has is kept as it is."""
    chosen: dict[str, dict[str, Any]] = {}
    for records in runs:
        for record in records:
            name = key(bench, record)
            held = chosen.get(name)
            lower = (
                held is not None
                and record.get("ratio") is not None
                and (held.get("ratio") is None or record["ratio"] < held["ratio"])
            )
            if held is None or lower:
                chosen[name] = record
    return list(chosen.values())


def confirm(
    gathered: dict[str, list[dict[str, Any]]],
    baseline: dict[str, Any],
    tolerance: float,
    again: Callable[[str], list[dict[str, Any]]],
    times: int,
) -> list[str]:
    """Run each script with a regressed figure ``times`` more (``again(name)`` gives its
    records) and keep each figure's lowest ratio in ``gathered``; the scripts run again."""
    rerun: list[str] = []
    for _ in range(times):
        suspects = sorted(
            {
                row.key.split(": ", 1)[0]
                for row in compare(gathered, baseline, tolerance)
                if row.regressed
            }
        )
        if not suspects:
            break
        for bench in suspects:
            gathered[bench] = lowest_ratios([gathered[bench], again(bench)], bench)
            if bench not in rerun:
                rerun.append(bench)
    return rerun


def _ms(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value / 1000:.2f} s" if value >= 10_000 else f"{value:.1f} ms"


def _figure(record: dict[str, Any], anchor: bool = False) -> str:
    """A record's median (or its anchor's): a time, an instruction count in millions, or an
    outcome and its unit."""
    if not anchor and record.get("value") is not None:
        return f"{record['value']} {record.get('unit', '')}".rstrip()
    counted = record.get("anchor_count" if anchor else "count")
    if counted is not None:
        return f"{counted / 1e6:.1f} Mi"
    return _ms(record.get("anchor_ms" if anchor else "median_ms"))


def table(rows: Sequence[Row]) -> str:
    """The table of every figure: median, anchor, ratio, the baseline's ratio and the change."""
    width = max([len(row.label) for row in rows] + [20])
    lines = [
        f"{'figure':<{width}}  {'median':>10}  {'anchor':<34} {'anchor':>10}  {'ratio':>8}"
        f"  {'baseline':>8}  change"
    ]
    for row in rows:
        record = row.record
        anchor = record.get("anchor") or ""
        ratio = f"{record['ratio']:.2f}x" if record.get("ratio") is not None else "-"
        base = f"{row.baseline:.2f}x" if row.baseline else "-"
        if row.broken:
            change = f"BROKEN (must be {record['must']})"
        elif record.get("must") is not None:
            change = f"kept (must be {record['must']})"
        elif row.missing:
            change = "MISSING (not measured in this run)"
        elif row.change is None:
            change = "new" if record.get("ratio") is not None else ""
        else:
            change = f"{row.change:+.0%}" + ("  REGRESSED" if row.regressed else "")
        lines.append(
            f"{row.label:<{width}}  {_figure(record):>10}  "
            f"{anchor[:34]:<34} {_figure(record, anchor=True):>10}  {ratio:>8}  {base:>8}  {change}".rstrip()
        )
    return "\n".join(lines)


def updated_baseline(
    baseline: dict[str, Any], mode: str, gathered: dict[str, list[dict[str, Any]]]
) -> dict[str, Any]:
    """``baseline`` with this mode's figures of the scripts that ran replaced by ``gathered``."""
    modes = dict(baseline.get("modes", {}))
    figures = {
        name: value
        for name, value in modes.get(mode, {}).items()
        if name.split(":", 1)[0] not in gathered
    }
    for bench, records in gathered.items():
        for record in records:
            kept = {
                "median_ms": record["median_ms"],
                "anchor_ms": record.get("anchor_ms"),
                "ratio": record.get("ratio"),
            }
            if record.get("count") is not None:
                kept.update(count=record["count"], anchor_count=record.get("anchor_count"))
            figures[key(bench, record)] = kept
    modes[mode] = dict(sorted(figures.items()))
    return {
        "about": (
            "Figures of bench/run.py (--quick: the quick mode), written with --update-baseline. "
            "A run fails when a figure's ratio to its anchor grows more than the tolerance."
        ),
        "tolerance": baseline.get("tolerance", TOLERANCE),
        "modes": modes,
    }


def load_baseline(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))


# --- running --------------------------------------------------------------------------------


def run_script(
    bench: Bench, quick: bool, logs: Path, verbose: bool
) -> tuple[list[dict[str, Any]], int, float]:
    """Run one script in its own process; its records, its exit code and its wall time."""
    out = logs / f"{bench.name}.json"
    out.unlink(missing_ok=True)
    command = [sys.executable, str(HERE / bench.script), *(bench.quick if quick else bench.full)]
    command += ["--json", str(out)]
    started = time.perf_counter()
    if verbose:
        done = subprocess.run(command, cwd=HERE.parent, check=False)
    else:
        with open(logs / f"{bench.name}.log", "wb") as log:
            done = subprocess.run(
                command, cwd=HERE.parent, stdout=log, stderr=subprocess.STDOUT, check=False
            )
    elapsed = time.perf_counter() - started
    records = json.loads(out.read_text(encoding="utf-8")) if out.exists() else []
    return records, done.returncode, elapsed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller inputs and fewer runs")
    parser.add_argument("--only", action="append", choices=NAMES, help="run only this script")
    parser.add_argument("--skip", action="append", choices=NAMES, default=[], help="leave out")
    parser.add_argument("--baseline", type=Path, default=BASELINE, help="the baseline file")
    parser.add_argument("--update-baseline", action="store_true", help="write this run into it")
    parser.add_argument("--tolerance", type=float, default=None, help="allowed growth (0.20)")
    parser.add_argument("--logs", type=Path, default=None, help="folder for scripts' output")
    parser.add_argument("--verbose", action="store_true", help="show each script's output")
    parser.add_argument(
        "--confirm",
        type=int,
        default=1,
        metavar="N",
        help="run a script with a regressed figure N more times before failing (1)",
    )
    parser.add_argument(
        "--records",
        nargs="+",
        type=Path,
        metavar="FILE",
        help="compare these recorded runs ({script: [records]} or a script's own list, "
        "named after the script) instead of running anything",
    )
    args = parser.parse_args(argv)
    mode = "quick" if args.quick else "full"
    baseline = load_baseline(args.baseline)
    tolerance = args.tolerance if args.tolerance is not None else baseline.get("tolerance")
    tolerance = TOLERANCE if tolerance is None else tolerance
    gathered: dict[str, list[dict[str, Any]]] = {}
    failed: list[str] = []

    if args.records:
        for path in args.records:
            loaded = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(loaded, list):
                gathered[path.stem] = loaded
            else:
                gathered.update(loaded)
    else:
        chosen = [b for b in SUITE if (not args.only or b.name in args.only)]
        chosen = [b for b in chosen if b.name not in args.skip]
        logs = args.logs or Path(tempfile.mkdtemp(prefix="kapi-bench-run-"))
        logs.mkdir(parents=True, exist_ok=True)
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"{mode} run of {len(chosen)} scripts on {os.cpu_count()} CPUs, load {load}")
        print(f"each script's output: {logs}/<name>.log")
        for bench in chosen:
            print(f"  {bench.name:<12} ", end="", flush=True)
            records, code, elapsed = run_script(bench, args.quick, logs, args.verbose)
            gathered[bench.name] = records
            status = "ok" if code == 0 else f"FAILED (exit {code}, see {bench.name}.log)"
            if code != 0:
                failed.append(bench.name)
            print(f"{elapsed:7.1f} s  {len(records):3} figures  {status}")
        if not args.update_baseline and args.confirm > 0:
            by_name = {bench.name: bench for bench in chosen}

            def again(name: str) -> list[dict[str, Any]]:
                print(f"  {name:<12} ", end="", flush=True)
                records, code, elapsed = run_script(by_name[name], args.quick, logs, args.verbose)
                print(f"{elapsed:7.1f} s  {len(records):3} figures  again (a figure regressed)")
                return records if code == 0 else []

            confirm(
                gathered, baseline.get("modes", {}).get(mode, {}), tolerance, again, args.confirm
            )
        (logs / "figures.json").write_text(json.dumps(gathered, indent=1) + "\n")

    rows = compare(gathered, baseline.get("modes", {}).get(mode, {}), tolerance)
    print()
    print(table(rows))
    regressed = [row for row in rows if row.regressed]
    missing = [row for row in rows if row.missing]
    broken = [row for row in rows if row.broken]
    anchored = sum(1 for row in rows if row.change is not None)
    print(
        f"\n{len(rows) - len(missing)} figures, {anchored} compared with the {mode} baseline "
        f"(tolerance {tolerance:.0%}): {len(regressed)} regressed"
        + (f", {len(missing)} missing" if missing else "")
        + (f", {len(broken)} broken" if broken else "")
        + (f"; failed scripts: {', '.join(failed)}" if failed else "")
    )
    if args.update_baseline:
        args.baseline.write_text(
            json.dumps(updated_baseline(baseline, mode, gathered), indent=1) + "\n",
            encoding="utf-8",
        )
        print(f"wrote the {mode} baseline of {', '.join(gathered)} into {args.baseline}")
        return 2 if failed else 0
    if failed:
        return 2
    return 1 if regressed or missing or broken else 0


if __name__ == "__main__":
    sys.exit(main())
