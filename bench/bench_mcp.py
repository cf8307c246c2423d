"""kapi mcp: start-up to the initialize answer, and warm tool latency, beside textlint --mcp.

1. From process start to the initialize response, median of 10 cold starts of
   ``kapi mcp`` (target under 500 ms), beside ``python -c pass``.
2. On one warm server, 200 calls each: ``check_file`` on a 300-word Markdown file in a
   project with 50 term rules (target p50 under 30 ms) and ``read_blocks`` on a
   1,000-key JSON catalogue; p50 and p95.
3. The anchor: ``textlint --mcp`` (textlint 15.8.0 with textlint-rule-terminology 5.2.16
   holding the same 50 terms, installed with npm into the temp folder), its ``lintFile``
   tool on the same Markdown file, 200 calls on one warm server. Skipped, with the reason,
   when npm cannot install it.

    .venv/bin/python bench/bench_mcp.py
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import figures  # noqa: E402  (the records bench/run.py gathers)

KAPI = str(ROOT / ".venv" / "bin" / "kapi")
CALLS = 200
TERMS = [(f"legacyterm{i}", f"newterm{i}") for i in range(50)]
INIT = {
    "jsonrpc": "2.0",
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    },
    "id": 1,
}


RECIPE = """\
version: v1
id: prj_benchmcpbenchmcpbenchmcpbe
name: bench-mcp
defaults:
  source_language: en
profiles:
  docs:
    channels: [guides]
    voice: x
collections:
  - name: docs
    channel: docs/guides
    source_only: true
    content:
      - path: "docs/**/*.md"
  - name: ui
    content:
      - path: "locales/en.json"
"""


def _project(folder: Path) -> tuple[Path, Path]:
    (folder / "docs").mkdir(parents=True)
    (folder / "locales").mkdir()
    (folder / "voices").mkdir()
    lines = ["name: Bench voice", "id: x", "terms:"]
    for old, new in TERMS:
        lines += [f"  - term: {old}", f"    replacement: {new}"]
    (folder / "voices" / "x.yaml").write_text("\n".join(lines) + "\n")
    (folder / "kapi.yaml").write_text(RECIPE)
    (folder / ".kapi").mkdir()
    words = ("the shop keeps every order safe while customers pay with a card " * 30).split()
    for index in range(0, 300, 37):
        words[index] = TERMS[index % 50][0]
    page = folder / "docs" / "page.md"
    page.write_text("# Page\n\n" + " ".join(words[:300]) + ".\n")
    catalogue = folder / "locales" / "en.json"
    catalogue.write_text(
        json.dumps({f"key{i}": f"Label number {i} for the shop" for i in range(1000)}, indent=2)
    )
    return page, catalogue


def _cold_start(folder: Path) -> float:
    start = time.perf_counter()
    process = subprocess.Popen(
        [KAPI, "mcp"], cwd=folder, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps(INIT) + "\n")
    process.stdin.flush()
    process.stdout.readline()
    elapsed = time.perf_counter() - start
    process.stdin.close()
    process.wait(timeout=30)
    return elapsed


def _floor() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - start


async def _latencies(
    command: list[str], cwd: Path, tool: str, arguments: dict[str, Any], calls: int = CALLS
) -> list[float]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=command[0], args=command[1:], cwd=str(cwd))
    times = []
    async with Client(params, mode="legacy") as client:
        await client.call_tool(tool, arguments)  # warm
        for _ in range(calls):
            start = time.perf_counter()
            await client.call_tool(tool, arguments)
            times.append(time.perf_counter() - start)
    return times


def _row(label: str, times: list[float]) -> None:
    ordered = sorted(times)
    p50 = statistics.median(ordered) * 1000
    p95 = ordered[int(len(ordered) * 0.95) - 1] * 1000
    print(f"  {label:<44} p50 {p50:7.1f} ms   p95 {p95:7.1f} ms")


def _textlint(folder: Path) -> list[str] | None:
    npm = shutil.which("npm")
    if npm is None:
        print("  textlint --mcp: skipped (npm is not installed)")
        return None
    install = subprocess.run(
        [
            npm,
            "install",
            "--no-save",
            "--silent",
            "textlint@15.8.0",
            "textlint-rule-terminology@5.2.16",
        ],
        cwd=folder,
        capture_output=True,
        text=True,
    )
    if install.returncode != 0:
        print(f"  textlint --mcp: skipped (npm install failed: {install.stderr.strip()[:200]})")
        return None
    terms = [[old, new] for old, new in TERMS]
    (folder / ".textlintrc.json").write_text(
        json.dumps({"rules": {"terminology": {"defaultTerms": False, "terms": terms}}})
    )
    return [str(folder / "node_modules" / ".bin" / "textlint"), "--mcp"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=CALLS, help="calls per tool (200)")
    parser.add_argument("--starts", type=int, default=10, help="cold starts (10)")
    figures.add_json_option(parser)
    args = parser.parse_args()
    figures.written_on_exit(args.json)
    calls = args.calls
    print(f"load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp) / "project"
        page, catalogue = _project(folder)
        floor = statistics.median(_floor() for _ in range(5)) * 1000
        starts = [_cold_start(folder) for _ in range(args.starts)]
        print(f"\nstart-up to the initialize answer, median of {args.starts}")
        print(
            f"  kapi mcp                                     {statistics.median(starts) * 1000:7.1f} ms"
        )
        print(f"  python -c pass (the floor)                   {floor:7.1f} ms")
        figures.record(
            "kapi mcp start-up to initialize",
            statistics.median(starts),
            "python -c pass",
            floor / 1000,
        )
        print(f"\nwarm server, {calls} calls")
        kapi = [KAPI, "mcp"]
        check = asyncio.run(_latencies(kapi, folder, "check_file", {"file": "docs/page.md"}, calls))
        _row("kapi check_file (300 words, 50 terms)", check)
        read = asyncio.run(
            _latencies(
                kapi, folder, "read_blocks", {"doc": "locales/en.json", "limit": 1000}, calls
            )
        )
        _row("kapi read_blocks (1,000-key JSON)", read)
        figures.record("kapi read_blocks p50 (1,000-key JSON)", statistics.median(read))
        textlint = _textlint(folder)
        if textlint is not None:
            anchor = asyncio.run(
                _latencies(textlint, folder, "lintFile", {"filePaths": [str(page)]}, calls)
            )
            _row("textlint --mcp lintFile (same file, terms)", anchor)
            ratio = statistics.median(check) / statistics.median(anchor)
            print(f"  ratio kapi check_file / textlint lintFile     {ratio:7.2f}")
            figures.record(
                "kapi check_file p50 (300 words, 50 terms)",
                statistics.median(check),
                "textlint --mcp lintFile p50",
                statistics.median(anchor),
            )
        else:
            figures.record("kapi check_file p50 (300 words, 50 terms)", statistics.median(check))
        del catalogue


if __name__ == "__main__":
    main()
