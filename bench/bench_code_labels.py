"""K14 figures: what a read says of each inline code, and whether the guard agrees, on real files.

Run: .venv/bin/python bench/bench_code_labels.py [--per-format N]   (a minute or two)

Reads the format fixtures and the corpus tier's files (``~/.cache/kapi-corpus``,
fetched by ``bash scripts/test.sh -m corpus``; skipped when absent), at most N files
per format (default 200). For every inline code of every block's own text it counts,
per format: the codes, how many carry a hint of what they stand for (``disp`` or
``equiv``), placeholders with none, and then drops the code (a pair: both halves)
and asks the guard (``check_codes``): a code the read calls deletable must be
accepted, one it calls not deletable refused. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

from kapi.core.change.guards import check_codes
from kapi.core.change.reading import code_infos
from kapi.core.errors import KapiError
from kapi.core.model import PcClose, PcOpen, Ph, Runs
from kapi.formats import registry
from kapi.formats.reading import read_document

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import figures as bench_figures  # noqa: E402  (the records bench/run.py gathers)

FIXTURES = ROOT / "packages/kapi-formats/tests/fixtures"
CORPUS = Path.home() / ".cache/kapi-corpus"
SKIP_PARTS = {"node_modules", ".git", "__pycache__"}


def candidates() -> list[Path]:
    found = [p for p in sorted(FIXTURES.rglob("*")) if p.is_file()]
    if CORPUS.is_dir():
        found += [
            p
            for p in sorted(CORPUS.rglob("*"))
            if p.is_file() and not SKIP_PARTS & set(p.parts) and p.stat().st_size < 4_000_000
        ]
    return found


def format_of(path: Path) -> str | None:
    try:
        with path.open("rb") as handle:
            head = handle.read(4096)
        return registry.detect(path.name, head).name
    except (registry.UnknownFormat, OSError):
        return None


def dropped(runs: Runs, token: str) -> Runs:
    code_id = token.rstrip("/")
    if token.endswith("/"):
        return tuple(r for r in runs if not (isinstance(r, Ph) and r.id == code_id))
    return tuple(r for r in runs if not (isinstance(r, PcOpen | PcClose) and r.id == code_id))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--per-format", type=int, default=200)
    bench_figures.add_json_option(parser)
    args = parser.parse_args()
    bench_figures.written_on_exit(args.json)
    files_by_format: dict[str, list[Path]] = defaultdict(list)
    for path in candidates():
        name = format_of(path)
        if name is not None and len(files_by_format[name]) < args.per_format:
            files_by_format[name].append(path)
    started = time.perf_counter()
    rows = []
    totals: Counter[str] = Counter()
    for name in sorted(files_by_format):
        spec = registry.get(name)
        counts: Counter[str] = Counter()
        for path in files_by_format[name]:
            try:
                _, document, _ = read_document(path, display=path.name, locale="en")
            except KapiError:  # a file its format refuses is counted apart
                counts["unread"] += 1
                continue
            counts["files"] += 1
            for block in document.blocks:
                top_level = tuple(r for r in block.source if isinstance(r, Ph | PcOpen | PcClose))
                for token, info in (code_infos(block.source, spec.capabilities) or {}).items():
                    if info.kind == "subblock" or info.constraints is None:
                        continue
                    counts["codes"] += 1
                    counts[info.kind] += 1
                    if info.disp or info.equiv:
                        counts["hinted"] += 1
                    elif info.kind == "placeholder":
                        counts["bare placeholders"] += 1
                    code_id = token.rstrip("/")
                    if not any(r.id == code_id for r in top_level):
                        continue  # only inside a plural or select: edited through a path
                    refused = check_codes(block.source, dropped(block.source, token)) is not None
                    counts["judged"] += 1
                    if refused == info.constraints.deletable:
                        counts["disagree"] += 1
        totals.update(counts)
        rows.append((name, counts))
    elapsed = time.perf_counter() - started
    header = (
        f"{'format':<13}{'files':>7}{'codes':>8}{'paired':>8}{'placeh.':>8}{'standal.':>9}"
        f"{'hinted':>8}{'bare ph':>8}{'judged':>8}{'disagree':>9}"
    )
    print(header)
    for name, c in [*rows, ("total", totals)]:
        print(
            f"{name:<13}{c['files']:>7}{c['codes']:>8}{c['paired']:>8}{c['placeholder']:>8}"
            f"{c['standalone']:>9}{c['hinted']:>8}{c['bare placeholders']:>8}{c['judged']:>8}"
            f"{c['disagree']:>9}"
        )
    print(f"\n{totals['files']} files read ({totals['unread']} refused) in {elapsed:.1f} s")
    bench_figures.record_outcome("files read", totals["files"], "files")
    bench_figures.record_outcome("codes judged by the guard", totals["judged"], "codes")
    bench_figures.record_outcome(
        "codes the guard judges otherwise than the read says", totals["disagree"], "codes", must=0
    )
    sys.exit(0)


if __name__ == "__main__":
    main()
