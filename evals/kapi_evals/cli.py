"""The command line: ``run`` the evaluations, write the ``report``, check the ``scenarios``.

```
python scripts/evals.py run --agent claude          # every mode, condition and scenario
python scripts/evals.py run --mode skill --repeat 5 --scenario xliff-edit-string
python scripts/evals.py report                      # docs/evals.md from the newest results
python scripts/evals.py scenarios                   # read every scenario strictly, list them
```

Exit codes: 0 done; 2 bad input, no agent CLI or no credentials (nothing run);
1 the run could not be carried out, or ``report --check`` found the page stale.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from kapi_evals.agents import AGENTS
from kapi_evals.errors import EXIT_FAILED, EvalError
from kapi_evals.report import (
    newest_results,
    read_results,
    report_section,
    section_of,
    summary_tables,
    write_section,
)
from kapi_evals.runner import MODE_CONDITIONS, Options, check_modes, conditions_for, run
from kapi_evals.scenarios import Scenario, load_scenarios
from kapi_evals.scoring import MODES
from kapi_evals.workspace import CONDITIONS

__all__ = ["REPO", "main"]

REPO = Path(__file__).resolve().parents[2]
PROG = "kapi-evals"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="evals", description="Measure how agents use kapi: triggering, completion, MCP."
    )
    verbs = parser.add_subparsers(dest="verb", required=True)
    go = verbs.add_parser("run", help="drive a real agent CLI through the scenarios")
    go.add_argument("--agent", default="claude", help=f"the agent CLI: {', '.join(AGENTS)}")
    go.add_argument("--mode", default=",".join(MODES), help="skill, completion, mcp (comma list)")
    go.add_argument(
        "--condition",
        help=f"{', '.join(CONDITIONS)} (comma list; default: each mode's own)",
    )
    go.add_argument(
        "--scenario",
        action="append",
        default=[],
        metavar="ID[@COND,…]",
        help="run only this scenario (under only these conditions)",
    )
    go.add_argument("--scenarios", type=Path, default=REPO / "evals/scenarios")
    go.add_argument("--repeat", type=int, default=3, help="attempts per scenario and condition")
    go.add_argument("--rounds", type=int, default=2, help="sessions per completion attempt")
    go.add_argument("--timeout", type=float, default=600.0, help="seconds per agent session")
    go.add_argument(
        "--max-turns", type=int, help="turn cap (default: skill 8, completion 40, mcp 8)"
    )
    go.add_argument("--model", help="the model the agent uses (default: the CLI's own)")
    go.add_argument("--kapi", type=Path, help="the kapi executable measured (default: this one)")
    go.add_argument("--out", type=Path, default=REPO / "evals/results")
    go.add_argument("--report", type=Path, default=REPO / "docs/evals.md")
    go.add_argument("--no-report", action="store_true", help="write no report page")
    go.add_argument("--keep", action="store_true", help="keep the workspaces for a look")
    report = verbs.add_parser("report", help="write the report from a results file")
    report.add_argument("results", nargs="?", type=Path, help="default: the newest in --out")
    report.add_argument("--out", type=Path, default=REPO / "evals/results")
    report.add_argument("--write", type=Path, default=REPO / "docs/evals.md")
    report.add_argument("--check", action="store_true", help="fail if the page is not current")
    listing = verbs.add_parser("scenarios", help="read every scenario strictly and list them")
    listing.add_argument("--scenarios", type=Path, default=REPO / "evals/scenarios")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.verb == "scenarios":
            for scenario in load_scenarios(args.scenarios, REPO):
                print(f"{scenario.id}\t{scenario.kind}\t{scenario.title}")
            return 0
        if args.verb == "report":
            return _report(args)
        return _run(args)
    except EvalError as err:
        print(f"{PROG}: {err}", file=sys.stderr)
        return err.exit_code


def _comma(value: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in value.split(",") if part.strip())


def _run(args: argparse.Namespace) -> int:
    modes = _comma(args.mode)
    check_modes(modes)
    conditions = None
    if args.condition is not None:
        conditions = _comma(args.condition)
        for name in conditions:
            if name not in CONDITIONS:
                raise EvalError(
                    f"unknown condition {name!r}: the conditions are {', '.join(CONDITIONS)}"
                )
            if not any(name in MODE_CONDITIONS[mode] for mode in modes):
                raise EvalError(f"no chosen mode is measured under the condition {name!r}")
    for number, flag in ((args.repeat, "--repeat"), (args.rounds, "--rounds")):
        if number < 1:
            raise EvalError(f"{flag} must be at least 1")
    if args.timeout <= 0 or (args.max_turns is not None and args.max_turns < 1):
        raise EvalError("--timeout and --max-turns must be positive")
    scenarios, cells = _select(load_scenarios(args.scenarios, REPO), args.scenario)
    if args.agent not in AGENTS:
        raise EvalError(f"unknown agent {args.agent!r}: the agents are {', '.join(AGENTS)}")
    agent = AGENTS[args.agent]()
    env = dict(os.environ)
    executable = agent.locate(env)
    if executable is None:
        raise EvalError(
            f"no agent to drive: the {agent.executable} CLI is not on PATH "
            "(these evaluations run a real agent; install it, then run again)"
        )
    missing = agent.missing_credentials(env)
    if missing:
        raise EvalError(missing)
    kapi = args.kapi or _this_kapi()
    if kapi is None or not kapi.is_file():
        raise EvalError("no kapi executable to measure: name one with --kapi")
    options = Options(
        repo=REPO,
        agent=agent,
        executable=executable,
        kapi=kapi,
        modes=modes,
        conditions=conditions,
        repeat=args.repeat,
        rounds=args.rounds,
        timeout=args.timeout,
        max_turns=args.max_turns,
        model=args.model,
        out=args.out,
        keep=args.keep,
        env=env,
        cells=cells,
        progress=lambda line: print(line, file=sys.stderr, flush=True),
    )
    for mode in modes:
        if not conditions_for(mode, conditions):
            print(f"{PROG}: {mode}: none of the chosen conditions applies", file=sys.stderr)
    path, results = run(scenarios, options)
    print(summary_tables(results))
    print(f"\nresults: {_shown(path)}")
    if not args.no_report:
        write_section(args.report, report_section(results, path, args.report))
        print(f"report: {_shown(args.report)}")
    return 0


def _select(
    scenarios: list[Scenario], wanted: list[str]
) -> tuple[list[Scenario], dict[str, tuple[str, ...]]]:
    """The scenarios ``--scenario`` names (all without it), and the conditions each is narrowed to."""
    if not wanted:
        return scenarios, {}
    known = {scenario.id: scenario for scenario in scenarios}
    chosen: dict[str, Scenario] = {}
    cells: dict[str, tuple[str, ...]] = {}
    for item in wanted:
        name, _, narrowed = item.partition("@")
        if name not in known:
            raise EvalError(f"no scenario {name!r}: the scenarios are {', '.join(known)}")
        chosen[name] = known[name]
        if narrowed:
            conditions = _comma(narrowed)
            for condition in conditions:
                if condition not in CONDITIONS:
                    raise EvalError(
                        f"unknown condition {condition!r} in --scenario {item}: "
                        f"the conditions are {', '.join(CONDITIONS)}"
                    )
            cells[name] = conditions
    return list(chosen.values()), cells


def _this_kapi() -> Path | None:
    beside = Path(sys.executable).parent / "kapi"
    if beside.is_file():
        return beside
    found = shutil.which("kapi")
    return Path(found) if found else None


def _report(args: argparse.Namespace) -> int:
    path = args.results or newest_results(args.out)
    results = read_results(path) if path is not None else None
    section = report_section(results, path, args.write)
    if args.check:
        if section_of(args.write) != section:
            source = f"the results of {path.name}" if path is not None else "that no run is kept"
            raise EvalError(
                f"{_shown(args.write)} does not show {source}: run `python scripts/evals.py report`",
                EXIT_FAILED,
            )
        return 0
    write_section(args.write, section)
    if results is not None:
        print(summary_tables(results))
    print(f"report: {_shown(args.write)}")
    return 0


def _shown(path: Path) -> str:
    try:
        return path.resolve().relative_to(REPO).as_posix()
    except ValueError:
        return str(path)
