"""The benchmark suite's runner (bench/run.py): it gathers records, compares ratios, fails on a regression."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def runner():
    spec = importlib.util.spec_from_file_location("bench_run", ROOT / "bench" / "run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_run"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("bench_run", None)


def _record(name, median_ms, anchor=None, anchor_ms=None):
    ratio = round(median_ms / anchor_ms, 4) if anchor else None
    return {
        "name": name,
        "median_ms": median_ms,
        "anchor": anchor,
        "anchor_ms": anchor_ms,
        "ratio": ratio,
    }


def _baseline(path, figures, mode="quick"):
    path.write_text(json.dumps({"tolerance": 0.2, "modes": {mode: figures}}))
    return path


def test_a_ratio_grown_past_the_tolerance_fails_the_run_and_is_marked(runner, tmp_path, capsys):
    baseline = _baseline(
        tmp_path / "baseline.json",
        {
            "check: kapi check (cold process) / textlint": {"ratio": 0.5},
            "check: kapi check tree / proselint": {"ratio": 1.0},
        },
    )
    recorded = tmp_path / "check.json"
    recorded.write_text(
        json.dumps(
            [
                _record("kapi check (cold process)", 130.0, "textlint", 200.0),  # 0.65: +30%
                _record("kapi check tree", 900.0, "proselint", 1000.0),  # 0.90: better
                _record("kapi check, 2 processes", 600.0),  # no anchor: never compared
            ]
        )
    )
    code = runner.main(["--quick", "--baseline", str(baseline), "--records", str(recorded)])
    out = capsys.readouterr().out
    assert code == 1
    regressed = [line for line in out.splitlines() if "REGRESSED" in line]
    assert len(regressed) == 1 and "kapi check (cold process)" in regressed[0]
    assert "+30%" in regressed[0]
    assert "3 figures, 2 compared with the quick baseline (tolerance 20%): 1 regressed" in out


def test_within_the_tolerance_passes_and_the_full_baseline_is_not_the_quick_one(
    runner, tmp_path, capsys
):
    baseline = _baseline(
        tmp_path / "baseline.json", {"core: hash / sha256 alone": {"ratio": 5.0}}, mode="full"
    )
    recorded = tmp_path / "figures.json"
    recorded.write_text(json.dumps({"core": [_record("hash", 59.0, "sha256 alone", 10.0)]}))
    assert runner.main(["--baseline", str(baseline), "--records", str(recorded)]) == 0
    assert "+18%" in capsys.readouterr().out
    # The same figures read as a quick run have no quick baseline: printed, not compared.
    assert runner.main(["--quick", "--baseline", str(baseline), "--records", str(recorded)]) == 0
    assert "0 compared with the quick baseline" in capsys.readouterr().out


def test_update_baseline_replaces_the_scripts_that_ran_and_keeps_the_others(runner, tmp_path):
    baseline = _baseline(
        tmp_path / "baseline.json",
        {
            "core: hash / sha256 alone": {"ratio": 5.0},
            "toolbox: kgrep -r -c / grep -r -E -c": {"ratio": 3.0},
        },
    )
    recorded = tmp_path / "core.json"
    recorded.write_text(json.dumps([_record("hash", 70.0, "sha256 alone", 10.0)]))
    argv = ["--quick", "--baseline", str(baseline), "--records", str(recorded)]
    assert runner.main([*argv, "--update-baseline"]) == 0
    written = json.loads(baseline.read_text())["modes"]["quick"]
    assert written["core: hash / sha256 alone"]["ratio"] == 7.0
    assert written["toolbox: kgrep -r -c / grep -r -E -c"]["ratio"] == 3.0
    assert runner.main(argv) == 0  # the new baseline holds


def test_a_real_bench_script_writes_records_the_runner_reads(runner, tmp_path):
    bench = runner.Bench("core", "bench_core.py", ("--blocks", "40", "--hashes", "400"))
    records, code, _ = runner.run_script(bench, True, tmp_path, verbose=False)
    assert code == 0, (tmp_path / "core.log").read_text()
    names = {record["name"]: record for record in records}
    assert set(names) == {"apply 40 ops in memory", "hash 400 editions"}
    hashed = names["hash 400 editions"]
    assert hashed["anchor"] == "sha256 alone"
    assert hashed["ratio"] == pytest.approx(hashed["median_ms"] / hashed["anchor_ms"], rel=0.01)
    assert "hash 400 editions" in (tmp_path / "core.log").read_text()


def test_every_bench_script_of_the_suite_exists_and_takes_json(runner):
    for bench in runner.SUITE:
        text = (ROOT / "bench" / bench.script).read_text(encoding="utf-8")
        assert "figures.add_json_option(parser)" in text, bench.script


def test_a_regression_is_measured_again_and_counts_only_when_every_run_shows_it(runner):
    baseline = {
        "check: cold / textlint": {"ratio": 0.5},
        "check: tree / proselint": {"ratio": 1.0},
        "core: hash / sha256 alone": {"ratio": 5.0},
    }
    gathered = {
        "check": [
            _record("cold", 150.0, "textlint", 200.0),  # 0.75: +50%, a passing slow moment
            _record("tree", 1500.0, "proselint", 1000.0),  # 1.50: +50%, and again below
            _record("two processes", 600.0),
        ],
        "core": [_record("hash", 50.0, "sha256 alone", 10.0)],  # as before: never run again
    }
    second = {
        "check": [
            _record("cold", 100.0, "textlint", 200.0),  # 0.50
            _record("tree", 1400.0, "proselint", 1000.0),  # 1.40: still +40%
            _record("two processes", 900.0),
        ]
    }
    asked: list[str] = []

    def again(name):
        asked.append(name)
        return second[name]

    rerun = runner.confirm(gathered, baseline, 0.2, again, 1)
    assert rerun == ["check"] and asked == ["check"]
    by_name = {record["name"]: record for record in gathered["check"]}
    assert [record["name"] for record in gathered["check"]] == ["cold", "tree", "two processes"]
    assert by_name["cold"]["ratio"] == 0.5
    assert by_name["tree"]["ratio"] == 1.4
    assert by_name["two processes"]["median_ms"] == 600.0  # no ratio: the first run's
    regressed = [row.label for row in runner.compare(gathered, baseline, 0.2) if row.regressed]
    assert regressed == ["check: tree"]


def test_no_regression_runs_nothing_again(runner):
    gathered = {"core": [_record("hash", 50.0, "sha256 alone", 10.0)]}

    def again(name):
        raise AssertionError(f"{name} was run again")

    assert (
        runner.confirm(gathered, {"core: hash / sha256 alone": {"ratio": 5.0}}, 0.2, again, 3) == []
    )


def _counted(name, count, anchor_count):
    return {
        "name": name,
        "median_ms": None,
        "count": count,
        "anchor": "python -c pass",
        "anchor_ms": None,
        "anchor_count": anchor_count,
        "ratio": round(count / anchor_count, 4),
    }


def test_counted_figures_are_shown_in_instructions_and_gated_on_their_ratio(
    runner, tmp_path, capsys
):
    baseline = _baseline(
        tmp_path / "baseline.json",
        {
            "instructions: kapi check (302 words) / python -c pass": {"ratio": 10.0},
            "instructions: kapi --help / python -c pass": {"ratio": 1.2},
        },
    )
    recorded = tmp_path / "instructions.json"
    recorded.write_text(
        json.dumps(
            [
                _counted("kapi check (302 words)", 500_000_000, 40_000_000),  # 12.5: +25%
                _counted("kapi --help", 48_000_000, 40_000_000),  # 1.2: as before
            ]
        )
    )
    argv = ["--quick", "--baseline", str(baseline), "--records", str(recorded)]
    assert runner.main(argv) == 1
    out = capsys.readouterr().out
    (regressed,) = [line for line in out.splitlines() if "REGRESSED" in line]
    assert "kapi check (302 words)" in regressed and "500.0 Mi" in regressed
    assert "40.0 Mi" in regressed and "+25%" in regressed
    assert runner.main([*argv, "--update-baseline"]) == 0
    written = json.loads(baseline.read_text())["modes"]["quick"]
    kept = written["instructions: kapi check (302 words) / python -c pass"]
    assert kept["count"] == 500_000_000 and kept["ratio"] == 12.5


def _instructions_script():
    spec = importlib.util.spec_from_file_location(
        "bench_instructions", ROOT / "bench" / "bench_instructions.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_callgrinds_report_is_read_for_every_process_it_saw():
    script = _instructions_script()
    report = (
        "==101== Callgrind, a call-graph generating cache profiler\n"
        "==101== Events    : Ir\n==101== Collected : 1500\n==101== \n"
        "==102== Collected : 250\n"
    )
    assert script.collected(report) == 1750
    with pytest.raises(RuntimeError, match="no count"):
        script.collected("valgrind: failed to start tool 'callgrind'\n")


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="counting needs valgrind")
def test_the_instruction_counts_come_from_a_real_run(runner, tmp_path):
    bench = runner.Bench("instructions", "bench_instructions.py", ("--only", "help"))
    records, code, _ = runner.run_script(bench, True, tmp_path, verbose=False)
    assert code == 0, (tmp_path / "instructions.log").read_text()
    (helped,) = records
    assert helped["name"] == "kapi --help" and helped["anchor"] == "python -c pass"
    # the interpreter's own start is tens of millions of instructions; --help adds a little
    assert 10_000_000 < helped["anchor_count"] < helped["count"] < 10 * helped["anchor_count"]
    assert helped["ratio"] == pytest.approx(helped["count"] / helped["anchor_count"], rel=1e-3)


def test_a_baseline_figure_a_script_did_not_measure_fails_the_run_as_missing(
    runner, tmp_path, capsys
):
    baseline = _baseline(
        tmp_path / "baseline.json",
        {
            "check: kapi check (cold process) / textlint": {"ratio": 0.5},
            "check: kapi check (cold process) / proselint": {"ratio": 0.9},
            "toolbox: kgrep -r -c / grep -r -E -c": {"ratio": 3.0},  # its script did not run
        },
    )
    recorded = tmp_path / "check.json"  # textlint was not installed: only proselint's ratio
    recorded.write_text(
        json.dumps([_record("kapi check (cold process)", 90.0, "proselint", 100.0)])
    )
    code = runner.main(["--quick", "--baseline", str(baseline), "--records", str(recorded)])
    out = capsys.readouterr().out
    assert code == 1
    missing = [line for line in out.splitlines() if "MISSING" in line]
    assert len(missing) == 1
    assert "kapi check (cold process)" in missing[0] and "textlint" in missing[0]
    assert "0.50x" in missing[0]
    assert (
        "1 figures, 1 compared with the quick baseline (tolerance 20%): 0 regressed, 1 missing"
        in out
    )


def _outcome(name, value, unit, must=None):
    return {"name": name, "median_ms": None, "value": value, "unit": unit, "must": must,
            "anchor": None, "anchor_ms": None, "ratio": None}  # fmt: skip


def test_an_outcome_is_shown_with_its_unit_and_a_broken_promise_fails_the_run(
    runner, tmp_path, capsys
):
    baseline = _baseline(tmp_path / "baseline.json", {})
    kept = tmp_path / "kills.json"
    kept.write_text(
        json.dumps(
            [
                _outcome("JSON: kills", 40, "runs"),
                _outcome("JSON: files neither old nor new after a kill", 0, "files", must=0),
            ]
        )
    )
    assert runner.main(["--quick", "--baseline", str(baseline), "--records", str(kept)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"kills: JSON: kills\s+40 runs", out), out
    assert re.search(r"neither old nor new after a kill\s+0 files.*kept \(must be 0\)", out), out

    torn = tmp_path / "torn" / "kills.json"
    torn.parent.mkdir()
    torn.write_text(
        json.dumps([_outcome("JSON: files neither old nor new after a kill", 2, "files", must=0)])
    )
    assert runner.main(["--quick", "--baseline", str(baseline), "--records", str(torn)]) == 1
    out = capsys.readouterr().out
    assert re.search(r"after a kill\s+2 files.*BROKEN \(must be 0\)", out), out
    assert "0 regressed, 1 broken" in out
