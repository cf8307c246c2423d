"""K12 figures: where agents feel kapi's speed, each beside its anchor from the same run.

Run: .venv/bin/python bench/bench_hot_path.py   (a few minutes; --runs N for more or fewer)

Medians of cold processes (each after one warm-up run that fills the OS cache, the .pyc
files and kapi's governance cache, as a hook sees kapi after its first run):

1. ``kapi check`` of a 300-word and a 5,000-word Markdown page in a project whose voice has
   50 term rules, beside textlint 15.8 + textlint-rule-terminology 5.2 with the same 50
   terms and proselint 0.16 (its own checks: it takes no term list) on the same pages.
2. ``kapi inspect`` of a 5 MB nested JSON catalogue beside ``json.load`` + ``json.dump``.
3. A 1 MB PO file read in process: kapi's codec beside polib and translate-toolkit.
4. ``kapi apply`` of 1,000 ``set_content`` ops on a 10,000-key catalogue in that project.
5. ``kapi --help``, and ``python -c pass`` as the floor.
6. ``kapi inspect`` of flat JSON catalogues of 10k, 100k, 300k and 900k keys: time and peak
   memory (RSS of the process), and each per key.

Targets (issue K12): check at most 0.5x textlint on both pages and under 150 ms on the
300-word page on an idle machine; --help under 80 ms; inspect within 8x of load+dump; PO
within 2x of polib; apply under 400 ms; inspect linear in keys, 900k keys under 10 s and
800 MB. Figures are printed, never asserted; the load average is printed with them.

textlint and its rule are installed with npm into ``bench/.node/`` and proselint into
``bench/.venv-proselint/`` on the first run (both gitignored); kapi's venv is left alone.
Without npm, pip or the network those rows say why and are skipped. kapi subprocesses get a
temp ``PYTHONPYCACHEPREFIX``, so they run with cached bytecode like an installed kapi.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_check as checks  # noqa: E402  (the pages, the 50 terms, the textlint config)
import bench_formats as formats  # noqa: E402  (the catalogues)
import figures as bench_figures  # noqa: E402  (the records bench/run.py gathers)

VENV_BIN = Path(sys.executable).parent
KAPI = str(VENV_BIN / "kapi")
PYTHON = sys.executable
NODE_DIR = HERE / ".node"
PROSELINT_VENV = HERE / ".venv-proselint"
TEXTLINT = "textlint@15.8.0"
TERMINOLOGY = "textlint-rule-terminology@5.2.16"
PROSELINT = "proselint==0.16.0"
MB = 1024 * 1024

PYC = Path(tempfile.mkdtemp(prefix="kapi-bench-pyc-"))


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("KAPI_PROJECT", "KAPI_NO_PROJECT")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(
        PYTHONPYCACHEPREFIX=str(PYC),
        NO_COLOR="1",
        FORCE_COLOR="0",
        npm_config_update_notifier="false",
        KAPI_ACTOR="person",
    )
    env.update(extra)
    return env


GNU_TIME = "/usr/bin/time"
RSS_FILE = PYC / "rss.txt"


def run_once(
    cmd: Sequence[str], cwd: Path, env: dict[str, str], before: Callable[[], None] | None = None
) -> tuple[float, int, int, str]:
    """One run: wall seconds, exit code, peak RSS in bytes (the process's own), output.

    The peak is GNU time's (``%M``) when it is installed: the rusage of a child of this
    process would count the pages it shared with this process before it exec'd.
    """
    if before is not None:
        before()
    measure = os.access(GNU_TIME, os.X_OK)
    full = [GNU_TIME, "-f", "%M", "-o", str(RSS_FILE), *cmd] if measure else list(cmd)
    started = time.perf_counter()
    done = subprocess.run(full, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    elapsed = time.perf_counter() - started
    rss = 0
    if measure:
        try:
            rss = int(RSS_FILE.read_text().split()[-1]) * 1024
        except (OSError, ValueError, IndexError):
            rss = 0
    return elapsed, done.returncode, rss, done.stdout.decode("utf-8", "replace")


class Figure:
    def __init__(self, label: str, times: list[float], rss: int = 0, note: str = "") -> None:
        self.label = label
        self.times = times
        self.rss = rss
        self.note = note

    @property
    def median(self) -> float:
        return statistics.median(self.times)


def timed(
    label: str,
    cmd: Sequence[str],
    cwd: Path,
    runs: int,
    env: dict[str, str] | None = None,
    before: Callable[[], None] | None = None,
    expect: Sequence[int] = (0,),
) -> Figure:
    env = env or _env()
    _, code, _, out = run_once(cmd, cwd, env, before)  # warm-up: OS cache, .pyc, kapi's cache
    if code not in expect:
        raise RuntimeError(f"{label}: exit {code}\n{out[-2000:]}")
    times: list[float] = []
    peak = 0
    for _ in range(runs):
        elapsed, code, rss, out = run_once(cmd, cwd, env, before)
        if code not in expect:
            raise RuntimeError(f"{label}: exit {code}\n{out[-2000:]}")
        times.append(elapsed)
        peak = max(peak, rss)
    return Figure(label, times, peak)


def in_process(label: str, runs: int, call: Callable[[], object]) -> Figure:
    call()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return Figure(label, times)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:9.1f} ms"


def row(figure: Figure, anchor: Figure | None = None, target: str = "") -> None:
    ratio = f"{figure.median / anchor.median:6.2f}x {anchor.label}" if anchor else ""
    if anchor is not None:
        bench_figures.record(figure.label, figure.median, anchor.label, anchor.median)
    elif figure.label.startswith("kapi"):
        bench_figures.record(figure.label, figure.median)
    rss = f"{figure.rss / MB:7.0f} MB" if figure.rss else " " * 10
    print(f"  {figure.label:<44}{ms(figure.median)} {rss}  {ratio:<34} {target}")


def skipped(label: str, why: str) -> None:
    print(f"  {label:<44}{'-':>12}             skipped: {why}")


# --- the comparison tools ---------------------------------------------------------------------


def textlint_bin() -> Path | str:
    """textlint in bench/.node/, installed there with npm on first use; or why not."""
    binary = NODE_DIR / "node_modules" / ".bin" / "textlint"
    if binary.exists():
        return binary
    if shutil.which("npm") is None:
        return "npm is not installed"
    NODE_DIR.mkdir(exist_ok=True)
    done = subprocess.run(
        ["npm", "install", "--no-save", "--no-audit", "--no-fund", TEXTLINT, TERMINOLOGY],
        cwd=NODE_DIR,
        capture_output=True,
        text=True,
        env=_env(),
        timeout=600,
    )
    if done.returncode != 0 or not binary.exists():
        return f"npm install failed: {done.stderr.strip()[-200:]}"
    return binary


def proselint_bin() -> Path | str:
    binary = PROSELINT_VENV / "bin" / "proselint"
    if binary.exists():
        return binary
    done = subprocess.run(
        [sys.executable, "-m", "venv", str(PROSELINT_VENV)], capture_output=True, text=True
    )
    if done.returncode == 0:
        done = subprocess.run(
            [str(PROSELINT_VENV / "bin" / "python"), "-m", "pip", "install", "--quiet", PROSELINT],
            capture_output=True,
            text=True,
            timeout=600,
        )
    if done.returncode != 0 or not binary.exists():
        return f"pip install failed: {done.stderr.strip()[-200:]}"
    return binary


# --- the sections -----------------------------------------------------------------------------


def build_project(root: Path) -> tuple[Path, Path]:
    """The bench_check project (a voice of 50 term rules) with a 300- and a 5,000-word page."""
    checks.build(root, 0)
    rng = random.Random(7)
    big = root / "single" / "big.md"
    big.write_text(checks.page(rng, 5000).text)
    (root / ".textlintrc.json").write_text(checks.textlintrc())
    return root / "single" / "page.md", big


def section_check(root: Path, pages: Sequence[Path], runs: int) -> None:
    print("\n1. cold `kapi check` in a project with 50 term rules, beside textlint and proselint")
    textlint = textlint_bin()
    proselint = proselint_bin()
    for page in pages:
        words = checks.words_of(page.read_text())
        relative = str(page.relative_to(root))
        kapi = timed(
            f"kapi check ({words} words)", [KAPI, "check", relative], root, runs, expect=(0, 3)
        )
        anchor: Figure | None = None
        if isinstance(textlint, Path):
            # Run from its own folder, where it finds the rule, on the same page and terms.
            config = str(root / ".textlintrc.json")
            anchor = timed(
                f"textlint ({words} words)",
                [str(textlint), "-c", config, "-f", "compact", str(page)],
                NODE_DIR,
                runs,
                expect=(0, 1),
            )
        prose: Figure | None = None
        if isinstance(proselint, Path):
            prose = timed(
                f"proselint ({words} words)",
                [str(proselint), "check", str(page)],
                root,
                runs,
                expect=(0, 1),
            )
        target = "target <= 0.5x textlint" + ("; < 150 ms" if words < 1000 else "")
        row(kapi, anchor, target)
        if anchor is not None:
            row(anchor)
        else:
            skipped(f"textlint ({words} words)", str(textlint))
        if prose is not None:
            row(prose)
            bench_figures.record(kapi.label, kapi.median, prose.label, prose.median)
            print(
                f"  {'':<44}{'':>12}             kapi {kapi.median / prose.median:.2f}x proselint"
            )
        else:
            skipped(f"proselint ({words} words)", str(proselint))


def _load_dump() -> str:
    return (
        "import json, sys\n"
        "with open(sys.argv[1], encoding='utf-8') as f: data = json.load(f)\n"
        "json.dump(data, sys.stdout, ensure_ascii=False)\n"
    )


def section_inspect(folder: Path, runs: int) -> None:
    print("\n2. `kapi inspect` of a 5 MB nested JSON catalogue, beside the standard library")
    data = formats.json_catalogue(5 * MB)
    path = folder / "catalogue.json"
    path.write_bytes(data)
    script = folder / "load_dump.py"
    script.write_text(_load_dump())
    env = _env(KAPI_NO_PROJECT="1")
    anchor = timed("python json.load + json.dump", [PYTHON, str(script), path.name], folder, runs)
    kapi = timed(
        f"kapi inspect ({len(data) / MB:.1f} MB)", [KAPI, "inspect", path.name], folder, runs, env
    )
    row(kapi, anchor, "target <= 8x")
    row(anchor)


def section_po(folder: Path, runs: int) -> None:
    print("\n3. reading a 1 MB PO file in process, beside polib and translate-toolkit")
    data = formats.po_catalogue(1 * MB)
    path = folder / "messages.po"
    path.write_bytes(data)
    from kapi.formats import registry

    codec = registry.load_codec("po")
    # A read takes a tenth of a second, so the in-process figures take at least nine runs:
    # the three of a quick suite let one slow moment move a median by a third.
    runs = max(runs, 9)
    kapi = in_process(
        f"kapi PO read ({len(data) / MB:.1f} MB)",
        runs,
        lambda: codec.read(data, path="messages.po", locale="de"),
    )
    try:
        import polib
    except ImportError:
        polib_figure = None
    else:
        text = data.decode("utf-8")
        polib_figure = in_process("polib.pofile", runs, lambda: polib.pofile(text))
    try:
        import translate.storage.pypo  # noqa: F401
    except ImportError:
        toolkit = None
    else:  # parsed, then each unit's strings read (it decodes them lazily), as bench_formats does
        toolkit = in_process("translate-toolkit pypo", runs, lambda: formats.toolkit_units(data))
    row(kapi, polib_figure, "target <= 2x polib")
    if polib_figure is not None:
        row(polib_figure)
    else:
        skipped("polib.pofile", "polib is not installed (pip install polib==1.2.0)")
    if toolkit is not None:
        row(toolkit)
        bench_figures.record(kapi.label, kapi.median, toolkit.label, toolkit.median)
        print(
            f"  {'':<44}{'':>12}             kapi {kapi.median / toolkit.median:.2f}x translate-toolkit"
        )
    else:
        skipped("translate-toolkit pofile", "translate-toolkit is not installed")
    cold = timed(
        "kapi inspect messages.po (cold process)",
        [KAPI, "inspect", path.name],
        folder,
        runs,
        _env(KAPI_NO_PROJECT="1"),
    )
    row(cold)


def add_catalogue(root: Path, keys: int) -> tuple[Path, bytes]:
    """``locales/en.json`` of ``keys`` values, declared in the project: its path and bytes."""
    locales = root / "locales"
    locales.mkdir(exist_ok=True)
    catalogue = formats.flat_keys_catalogue(keys)
    target = locales / "en.json"
    target.write_bytes(catalogue)
    recipe = (root / "kapi.yaml").read_text()
    if "locales/en.json" not in recipe:
        recipe = recipe.replace(
            "collections:\n",
            "collections:\n  - name: ui\n    channel: docs/guides\n    content:\n"
            "      - path: locales/en.json\n",
            1,
        )
        (root / "kapi.yaml").write_text(recipe)
    return target, catalogue


def section_apply(root: Path, runs: int) -> Figure:
    print("\n4. `kapi apply` of 1,000 ops on a 10,000-key catalogue, in the 50-term project")
    target, catalogue = add_catalogue(root, 10_000)
    done = subprocess.run(
        [KAPI, "inspect", "locales/en.json"], cwd=root, env=_env(), capture_output=True, text=True
    )
    records = json.loads(done.stdout)
    rng = random.Random(4)
    ops = [
        {
            "op": "set_content",
            "at": record["ref"],
            "if_match": record["rev"],
            "text": f"Changed text {index} for the cart",
        }
        for index, record in enumerate(rng.sample(records, 1000))
    ]
    (root / "set.json").write_text(json.dumps({"ops": ops}))

    def restore() -> None:
        target.write_bytes(catalogue)

    figure = timed(
        "kapi apply set.json (1,000 ops)", [KAPI, "apply", "set.json"], root, runs, before=restore
    )
    restore()
    return figure


def section_start(folder: Path, runs: int, apply: Figure) -> None:
    floor = timed("python -c pass", [PYTHON, "-c", "pass"], folder, runs)
    row(apply, floor, "target < 400 ms")
    print("\n5. cold start")
    helped = timed("kapi --help", [KAPI, "--help"], folder, runs)
    row(helped, floor, "target < 80 ms")
    row(floor)


def flat_catalogue(keys: int) -> bytes:
    """A flat catalogue of ``keys`` short values, one a line."""
    lines = ",\n".join(f'  "k{index}": "Value {index % 1000}"' for index in range(keys))
    return ("{\n" + lines + "\n}\n").encode()


def section_curve(folder: Path, runs: int) -> None:
    print("\n6. `kapi inspect` of flat JSON by key count (time and peak memory linear in keys)")
    env = _env(KAPI_NO_PROJECT="1")
    figures: list[tuple[int, Figure]] = []
    for keys in (10_000, 100_000, 300_000, 900_000):
        path = folder / f"flat{keys}.json"
        data = flat_catalogue(keys)
        path.write_bytes(data)
        figure = timed(
            f"{keys:>7,} keys ({len(data) / MB:.1f} MB)",
            [KAPI, "inspect", path.name],
            folder,
            runs if keys < 300_000 else max(1, runs // 3),
            env,
        )
        figures.append((keys, figure))
        path.unlink()
    first_keys, first = figures[0]
    for keys, figure in figures:
        per_key = figure.median / keys * 1e6
        per_mb = figure.rss / keys
        note = f"{per_key:6.1f} us/key {per_mb:6.0f} B/key"
        target = "target < 10 s, < 800 MB" if keys == 900_000 else ""
        ratio = (figure.median / first.median) / (keys / first_keys)
        bench_figures.record(f"kapi inspect {figure.label}", figure.median)
        print(
            f"  {figure.label:<44}{ms(figure.median)} {figure.rss / MB:7.0f} MB  "
            f"{note}  time/keys {ratio:4.2f}x the 10k file's  {target}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=9, help="timed runs per figure (median)")
    parser.add_argument(
        "--only", choices=["check", "inspect", "po", "apply", "curve"], action="append"
    )
    bench_figures.add_json_option(parser)
    args = parser.parse_args()
    bench_figures.written_on_exit(args.json)
    only = set(args.only or ["check", "inspect", "po", "apply", "curve"])
    print(
        f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} on {os.cpu_count()} CPUs"
    )
    with tempfile.TemporaryDirectory(prefix="kapi-bench-hot-") as temp:
        folder = Path(temp)
        root = folder / "project"
        pages = build_project(root)
        if "check" in only:
            section_check(root, pages, args.runs)
        if "inspect" in only:
            section_inspect(folder, args.runs)
        if "po" in only:
            section_po(folder, args.runs)
        if "apply" in only:
            apply = section_apply(root, args.runs)
            section_start(folder, args.runs, apply)
        if "curve" in only:
            section_curve(folder, args.runs)
    shutil.rmtree(PYC, ignore_errors=True)
    print(f"\nload average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} at the end")


if __name__ == "__main__":
    main()
