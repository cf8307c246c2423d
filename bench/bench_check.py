"""K3 figures: ``kapi check`` cold on one file, throughput on 1,000 files, and diff-scoped checks.

Run: .venv/bin/python bench/bench_check.py   (about 2-3 minutes; inputs are generated in a temp folder)

Targets (issue K3): ``kapi check`` of one ~300-word Markdown file in a cold process under
300 ms, compared with ``npx textlint`` + ``textlint-rule-terminology`` holding the same 50
terms; files per second on 1,000 Markdown files (~200 words each) at least textlint's and
proselint's, and parallel across processes; ``kapi check --diff-against HEAD`` after changing
1 of the 1,000 files taking time proportional to the change, not the tree.

The comparison tools are installed at bench time into the temp folder, pinned: textlint and
the rule with ``npm install --no-save``, proselint into a throwaway venv (kapi's venv is left
alone). Without npm (or the network) the textlint rows say why and are skipped. Figures are
printed, never asserted. ``--profile`` adds a cProfile of ``kapi check`` on the tree.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import json
import os
import pstats
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import figures

VENV_BIN = Path(sys.executable).parent
KAPI = str(VENV_BIN / "kapi")

TEXTLINT = "textlint@15.8.0"
TERMINOLOGY = "textlint-rule-terminology@5.2.16"
PROSELINT = "proselint==0.16.0"

# The 50 term rules: (rejected term, preferred replacement). The last five differ only by
# case, which kapi matches case-sensitively (spec §3.5) and textlint skips when the match is
# already spelled as the replacement.
TERMS: tuple[tuple[str, str], ...] = (
    ("basket", "cart"),
    ("log in", "sign in"),
    ("log out", "sign out"),
    ("e-mail", "email"),
    ("web site", "website"),
    ("utilize", "use"),
    ("leverage", "use"),
    ("purchase", "buy"),
    ("commence", "start"),
    ("terminate", "end"),
    ("whitelist", "allowlist"),
    ("blacklist", "blocklist"),
    ("master branch", "main branch"),
    ("sanity check", "quick check"),
    ("dummy value", "placeholder value"),
    ("click on", "select"),
    ("abort", "cancel"),
    ("execute", "run"),
    ("navigate to", "go to"),
    ("in order to", "to"),
    ("prior to", "before"),
    ("subsequent to", "after"),
    ("approximately", "about"),
    ("assist", "help"),
    ("endeavor", "try"),
    ("facilitate", "help"),
    ("modify", "change"),
    ("obtain", "get"),
    ("numerous", "many"),
    ("sufficient", "enough"),
    ("indicate", "show"),
    ("demonstrate", "show"),
    ("drop-down", "dropdown"),
    ("pop-up", "popup"),
    ("check box", "checkbox"),
    ("tool tip", "tooltip"),
    ("set-up", "setup"),
    ("plug-in", "plugin"),
    ("addon", "add-on"),
    ("back-end", "backend"),
    ("front-end", "frontend"),
    ("data base", "database"),
    ("file name", "filename"),
    ("user name", "username"),
    ("end user", "user"),
    ("Github", "GitHub"),
    ("Javascript", "JavaScript"),
    ("Nodejs", "Node.js"),
    ("Paypal", "PayPal"),
    ("Wordpress", "WordPress"),
)

# Neutral filler: none of these is a rejected term or an inflection of one.
_FILLER = (
    "account settings profile page team member invoice report screen window panel "
    "order shipment payment receipt address city country region language theme color "
    "button field label title summary detail list table column row record entry "
    "project folder document draft version release update notice warning message "
    "customer shopper visitor reader writer editor owner admin guest partner "
    "open close save keep share send invite review approve reject export import "
    "quickly safely clearly often later today soon again always never "
    "new old small large simple recent shared private public main extra final "
    "with from into over under near inside for of on at by the a this that each every"
)
FILLER = tuple(_FILLER.split())

WORD = re.compile(r"[\w'-]+")


def words_of(text: str) -> int:
    return len(WORD.findall(text))


# --- inputs -------------------------------------------------------------------------------


@dataclass
class Page:
    text: str
    expected: int  # rejected terms placed in prose (each should be one finding)


def _sentence(rng: random.Random, counter: list[int]) -> str:
    words = [rng.choice(FILLER) for _ in range(rng.randint(8, 15))]
    for i in range(1, len(words)):
        while words[i] == words[i - 1]:  # no doubled words: kapi's hygiene would report them
            words[i] = rng.choice(FILLER)
    roll = rng.random()
    if roll < 0.15:
        words.insert(rng.randint(1, len(words) - 1), rng.choice(TERMS)[0])
        counter[0] += 1
    elif roll < 0.30:
        words.insert(rng.randint(1, len(words) - 1), rng.choice(TERMS)[1])
    words[0] = words[0].capitalize()
    return " ".join(words) + "."


def page(rng: random.Random, target_words: int) -> Page:
    """A Markdown page, one sentence a line, with headings, a list, code and a link.

    Terms inside the code block, the inline code span and the URL are never findings.
    """
    counter = [0]
    parts = [f"# {' '.join(rng.choice(FILLER) for _ in range(3)).capitalize()}"]
    para = 0
    while words_of("\n".join(parts)) < target_words:
        para += 1
        if para % 3 == 0:
            parts.append(f"## {' '.join(rng.choice(FILLER) for _ in range(2)).capitalize()}")
        if para % 4 == 2:
            parts.append("\n".join(f"- {_sentence(rng, counter)}" for _ in range(3)))
        else:
            parts.append("\n".join(_sentence(rng, counter) for _ in range(rng.randint(2, 4))))
        if para == 2:
            term, _ = rng.choice(TERMS)
            parts.append(f"```text\n{term} = {rng.choice(TERMS)[0]}\n```")
            parts.append(
                f"Run `{rng.choice(TERMS)[0]}` and read [the guide](https://example.com/{term.replace(' ', '-')})."
            )
    return Page("\n\n".join(parts) + "\n", counter[0])


def voice_yaml() -> str:
    lines = ["# 50 term rules for bench/bench_check.py", "name: Bench voice", "id: x", "terms:"]
    for term, replacement in TERMS:
        lines += [f"  - term: {term}", f"    replacement: {replacement}"]
    return "\n".join(lines) + "\n"


RECIPE = """\
version: v1
id: prj_benchcheckbenchcheckbenchch
name: bench-check
defaults:
  source_language: en
profiles:
  docs:
    channels: [guides]
    voice: x               # voices/x.yaml
collections:
  - name: docs
    channel: docs/guides
    source_only: true
    content:
      - path: "**/*.md"
"""


def _js_escape(text: str) -> str:
    return re.sub(r"([.^$*+?()\[\]{}|\\/])", r"\\\1", text)


def textlintrc() -> str:
    terms = [[_js_escape(term), replacement] for term, replacement in TERMS]
    rules = {"terminology": {"defaultTerms": False, "terms": terms}}
    return json.dumps({"rules": rules}, indent=2) + "\n"


@dataclass
class Tree:
    root: Path  # the kapi project and git repository
    single: Path
    single_expected: int
    files: list[Path]
    expected: int


def build(root: Path, count: int) -> Tree:
    rng = random.Random(3)
    (root / "voices").mkdir(parents=True)
    (root / "kapi.yaml").write_text(RECIPE)
    (root / "voices" / "x.yaml").write_text(voice_yaml())
    (root / ".kapi").mkdir()
    (root / ".kapi" / ".gitignore").write_text("*\n")  # as `kapi init` leaves it
    single = root / "single" / "page.md"
    single.parent.mkdir()
    one = page(rng, 300)
    single.write_text(one.text)
    files: list[Path] = []
    expected = 0
    for i in range(count):
        path = root / "tree" / f"s{i // 100:02d}" / f"f{i:04d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        made = page(rng, 200)
        path.write_text(made.text)
        files.append(path)
        expected += made.expected
    return Tree(root, single, one.expected, files, expected)


# --- running and timing -------------------------------------------------------------------


PYC_CACHE: Path | None = None  # set in main(): a temp PYTHONPYCACHEPREFIX


def _env(pyc: bool = True) -> dict[str, str]:
    """The subprocess environment.

    An installed kapi has its .pyc files; an editable install under
    PYTHONDONTWRITEBYTECODE=1 (as on the project's machines) recompiles every kapi module
    in every process. With ``pyc`` the bytecode goes to a temp PYTHONPYCACHEPREFIX (the
    warm-up run fills it), so nothing is written into the repository.
    """
    env = {k: v for k, v in os.environ.items() if k not in ("KAPI_PROJECT", "KAPI_NO_PROJECT")}
    env.update(NO_COLOR="1", FORCE_COLOR="0", npm_config_update_notifier="false")
    if pyc and PYC_CACHE is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(PYC_CACHE)
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX", None)
    return env


def run(cmd: Sequence[str], cwd: Path, *, pyc: bool = True) -> tuple[float, str, int]:
    started = time.perf_counter()
    done = subprocess.run(list(cmd), cwd=cwd, capture_output=True, text=True, env=_env(pyc))
    return time.perf_counter() - started, done.stdout + done.stderr, done.returncode


def run_parallel(cmds: Sequence[Sequence[str]], cwd: Path) -> tuple[float, str]:
    started = time.perf_counter()
    procs = [
        subprocess.Popen(
            list(c),
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=_env(),
        )
        for c in cmds
    ]
    outputs = [p.communicate()[0] for p in procs]
    return time.perf_counter() - started, "".join(outputs)


@dataclass
class Timing:
    label: str
    command: str
    times: list[float] = field(default_factory=list)
    findings: int | None = None
    note: str = ""

    @property
    def median(self) -> float:
        return statistics.median(self.times)


def timed(
    label: str,
    command: str,
    once: Callable[[], tuple[float, str]],
    runs: int,
    count: Callable[[str], int] | None = None,
) -> Timing:
    """``runs`` timed runs after one warm-up run (warm OS file cache, .pyc written)."""
    result = Timing(label, command)
    _, output = once()
    result.findings = count(output) if count else None
    for _ in range(runs):
        elapsed, _ = once()
        result.times.append(elapsed)
    return result


def kapi_findings(output: str) -> int:
    return len(re.findall(r"\bvoice\.vocabulary\b", output))


def textlint_findings(output: str) -> int:
    return output.count("(terminology)")


def proselint_findings(output: str) -> int:
    return len(re.findall(r"^\S.*:\d+:\d+: ", output, re.M))


# --- the comparison tools -----------------------------------------------------------------


@dataclass
class Tools:
    textlint: list[str] | None = None  # argv prefix, run with cwd = the npm folder
    npx: list[str] | None = None
    npm_dir: Path | None = None
    textlint_why: str = ""
    proselint: list[str] | None = None
    proselint_why: str = ""
    versions: list[str] = field(default_factory=list)


def install_tools(work: Path, skip: bool) -> Tools:
    tools = Tools()
    if skip:
        tools.textlint_why = tools.proselint_why = "skipped (--no-compare)"
        return tools
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        tools.textlint_why = "npm/node not found"
    else:
        npm_dir = work / "textlint"
        npm_dir.mkdir()
        (npm_dir / "package.json").write_text('{"private": true}\n')
        (npm_dir / ".textlintrc.json").write_text(textlintrc())
        started = time.perf_counter()
        done = _install(
            [npm, "install", "--no-save", "--no-audit", "--no-fund", TEXTLINT, TERMINOLOGY],
            npm_dir,
        )
        if done.returncode != 0:
            tools.textlint_why = f"npm install failed: {done.stderr.strip()[-300:]}"
        else:
            rc = str(npm_dir / ".textlintrc.json")
            tools.npm_dir = npm_dir
            tools.textlint = [str(npm_dir / "node_modules" / ".bin" / "textlint"), "-c", rc]
            tools.textlint += ["-f", "compact"]
            tools.npx = ["npx", "--no-install", "textlint", "-c", rc, "-f", "compact"]
            tools.versions.append(
                f"{TEXTLINT} + {TERMINOLOGY} (node {_out(['node', '--version'])}; "
                f"npm install {time.perf_counter() - started:.1f} s)"
            )
    venv = work / "proselint-venv"
    started = time.perf_counter()
    done = _install([sys.executable, "-m", "venv", str(venv)], work)
    if done.returncode == 0:
        done = _install(
            [str(venv / "bin" / "pip"), "install", "-q", "--disable-pip-version-check", PROSELINT],
            work,
        )
    if done.returncode != 0:
        tools.proselint_why = f"proselint install failed: {done.stderr.strip()[-300:]}"
    else:
        tools.proselint = [str(venv / "bin" / "proselint"), "check"]
        tools.versions.append(
            f"{PROSELINT} in a temp venv ({time.perf_counter() - started:.1f} s; "
            "its built-in checks: it has no custom term list)"
        )
    return tools


def _install(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run an installer; a hang (no network) becomes a failure after 5 minutes."""
    try:
        return subprocess.run(
            cmd, cwd=cwd, capture_output=True, text=True, env=_env(), timeout=300, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        return subprocess.CompletedProcess(cmd, 1, "", str(err))


def _load() -> str:
    """The 1-minute load average: other work on the machine skews every figure."""
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except OSError:
        return "?"


def _out(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True).stdout.strip()
    except OSError:
        return "?"


# --- the figures --------------------------------------------------------------------------


def _print_table(title: str, rows: list[Timing], files: int = 0) -> None:
    print(f"\n{title}")
    for row in rows:
        if not row.times:
            print(f"  {row.label:<34} skipped: {row.note}")
            continue
        median = row.median
        rate = f"{files / median:8.0f} files/s" if files else ""
        spread = f"[{min(row.times) * 1000:.0f}-{max(row.times) * 1000:.0f}]"
        found = "" if row.findings is None else f"{row.findings:>5} findings"
        print(f"  {row.label:<34} {median * 1000:8.0f} ms {spread:<13} {rate} {found}  {row.note}")
        print(f"  {'':<34} $ {row.command}")


def single_file(tree: Tree, tools: Tools, runs: int) -> list[Timing]:
    rel = tree.single.relative_to(tree.root).as_posix()
    rows = [
        timed(
            "kapi check (cold process)",
            f"kapi check {rel}",
            lambda: run([KAPI, "check", rel], tree.root)[:2],
            runs,
            kapi_findings,
        ),
        timed(
            "kapi check (cold, no .pyc)",
            f"PYTHONDONTWRITEBYTECODE=1 kapi check {rel}",
            lambda: run([KAPI, "check", rel], tree.root, pyc=False)[:2],
            runs,
            kapi_findings,
        ),
    ]
    rows[1].note = "(editable install, bytecode never cached)"
    if tools.npx and tools.textlint and tools.npm_dir:
        npx, textlint, npm_dir = tools.npx, tools.textlint, tools.npm_dir
        rows.append(
            timed(
                "npx textlint (terminology, 50)",
                f"npx --no-install textlint -c .textlintrc.json -f compact {rel}",
                lambda: run([*npx, str(tree.single)], npm_dir)[:2],
                runs,
                textlint_findings,
            )
        )
        rows.append(
            timed(
                "textlint bin (no npx resolution)",
                f"node_modules/.bin/textlint -c .textlintrc.json -f compact {rel}",
                lambda: run([*textlint, str(tree.single)], npm_dir)[:2],
                runs,
                textlint_findings,
            )
        )
    else:
        rows.append(Timing("npx textlint", "", note=tools.textlint_why))
    if tools.proselint:
        proselint = tools.proselint
        rows.append(
            timed(
                "proselint (built-in checks)",
                f"proselint check {rel}",
                lambda: run([*proselint, str(tree.single)], tree.root)[:2],
                runs,
                proselint_findings,
            )
        )
    return rows


def throughput(tree: Tree, tools: Tools, runs: int, procs: int) -> list[Timing]:
    rels = [p.relative_to(tree.root).as_posix() for p in tree.files]
    rows = [
        timed(
            "kapi check tree/ (one command, its own workers)",
            "kapi check tree",
            lambda: run([KAPI, "check", "tree"], tree.root)[:2],
            runs,
            kapi_findings,
        )
    ]
    chunks = [rels[i::procs] for i in range(procs)]
    rows.append(
        timed(
            f"kapi check, {procs} processes",
            f"{procs} x `kapi check <1/{procs} of the files>` at once",
            lambda: run_parallel([[KAPI, "check", *chunk] for chunk in chunks], tree.root),
            runs,
            kapi_findings,
        )
    )
    if tools.textlint and tools.npm_dir:
        textlint, npm_dir = tools.textlint, tools.npm_dir
        rows.append(
            timed(
                "textlint tree/ (terminology, 50)",
                "node_modules/.bin/textlint -c .textlintrc.json -f compact tree",
                lambda: run([*textlint, str(tree.root / "tree")], npm_dir)[:2],
                runs,
                textlint_findings,
            )
        )
    else:
        rows.append(Timing("textlint tree/", "", note=tools.textlint_why))
    if tools.proselint:
        proselint = tools.proselint
        rows.append(
            timed(
                "proselint tree/ (built-in checks)",
                "proselint check tree",
                lambda: run([*proselint, "tree"], tree.root)[:2],
                runs,
                proselint_findings,
            )
        )
    else:
        rows.append(Timing("proselint tree/", "", note=tools.proselint_why))
    return rows


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True)
    return done.stdout


CHANGE = "We utilize the basket for each order."


def diff_scoped(tree: Tree, runs: int, whole: Timing | None) -> list[Timing]:
    root = tree.root
    _git(root, "init", "-q")
    _git(root, "-c", "user.name=bench", "-c", "user.email=bench@example.com", "add", "-A")
    _git(
        root,
        "-c",
        "user.name=bench",
        "-c",
        "user.email=bench@example.com",
        "commit",
        "-q",
        "-m",
        "bench tree",
    )
    rows: list[Timing] = []
    command = "kapi check --diff-against HEAD"
    rows.append(
        timed(
            "no file changed",
            command,
            lambda: run([KAPI, "check", "--diff-against", "HEAD"], root)[:2],
            runs,
            kapi_findings,
        )
    )
    for changed in [n for n in (1, 10, 100) if n <= len(tree.files)]:
        step = len(tree.files) // changed
        chosen = tree.files[::step][:changed]
        originals = {path: path.read_text() for path in chosen}
        for path, text in originals.items():
            lines = text.split("\n")
            first_prose = next(i for i, line in enumerate(lines) if line and line[0].isalpha())
            lines.insert(first_prose + 1, CHANGE)  # a new line inside the first paragraph
            path.write_text("\n".join(lines))
        try:
            rows.append(
                timed(
                    f"{changed} of {len(tree.files)} files changed",
                    command,
                    lambda: run([KAPI, "check", "--diff-against", "HEAD"], root)[:2],
                    runs,
                    kapi_findings,
                )
            )
        finally:
            for path, text in originals.items():
                path.write_text(text)
    if whole is not None:
        rows.append(
            Timing(
                f"all {len(tree.files)} files (from above)",
                whole.command,
                whole.times,
                whole.findings,
            )
        )
    started = time.perf_counter()
    _git(root, "diff", "--unified=0", "--no-color", "--no-ext-diff", "HEAD", "--")
    _git(root, "ls-files", "--others", "--exclude-standard")
    git_ms = (time.perf_counter() - started) * 1000
    rows[0].note = f"(git diff + ls-files alone: {git_ms:.0f} ms)"
    return rows


def _record(figure: Timing, anchors: Sequence[Timing]) -> None:
    """Keep ``figure`` beside each anchor that ran (alone when none did)."""
    ran = [anchor for anchor in anchors if anchor.times]
    if not figure.times:
        return
    for anchor in ran:
        figures.record(figure.label, figure.median, anchor.label, anchor.median)
    if not ran:
        figures.record(figure.label, figure.median)


def _print_stats(title: str, stats: pstats.Stats, top: int) -> None:
    for order in ("tottime", "cumulative"):
        buffer = io.StringIO()
        stats.stream = buffer  # type: ignore[attr-defined]
        stats.strip_dirs().sort_stats(order).print_stats(top)
        text = buffer.getvalue()
        print(f"\nprofile of {title}, top {top} by {order}:")
        print(text[text.find("   ncalls") :].rstrip())


def profile(tree: Tree, top: int) -> None:
    """cProfile of ``kapi check`` on the one file (cold process) and on the tree (in-process)."""
    from kapi.cli.main import cli

    rel = tree.single.relative_to(tree.root).as_posix()
    out = tree.root.parent / "single.prof"
    subprocess.run(
        [sys.executable, "-m", "cProfile", "-o", str(out), "-m", "kapi.cli", "check", rel],
        cwd=tree.root,
        capture_output=True,
        env=_env(),
    )
    _print_stats(f"`kapi check {rel}` (cold process, .pyc cached)", pstats.Stats(str(out)), top)

    cwd = Path.cwd()
    os.chdir(tree.root)
    profiler = cProfile.Profile()
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            profiler.enable()
            try:
                cli.main(["check", "tree"], standalone_mode=False)
            except SystemExit:
                pass
            finally:
                profiler.disable()
    finally:
        os.chdir(cwd)
    _print_stats(
        "`kapi check tree` (in-process, first call: imports and regex compiles included)",
        pstats.Stats(profiler),
        top,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=1000, help="files in the tree (1000)")
    parser.add_argument("--runs", type=int, default=10, help="runs for the one-file figure (10)")
    parser.add_argument("--tree-runs", type=int, default=3, help="runs for tree figures (3)")
    parser.add_argument("--diff-runs", type=int, default=5, help="runs for diff figures (5)")
    parser.add_argument("--procs", type=int, default=2, help="processes for the parallel run (2)")
    parser.add_argument("--no-compare", action="store_true", help="skip textlint and proselint")
    parser.add_argument("--profile", action="store_true", help="add a cProfile of kapi check")
    parser.add_argument("--keep", action="store_true", help="keep the temp folder and print it")
    figures.add_json_option(parser)
    args = parser.parse_args()
    figures.written_on_exit(args.json)

    global PYC_CACHE
    started = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="kapi-bench-check-"))
    PYC_CACHE = work / "pycache"
    try:
        tree = build(work / "project", args.files)
        words = words_of(tree.single.read_text())
        tree_words = sum(words_of(p.read_text()) for p in tree.files) / len(tree.files)
        tools = install_tools(work, args.no_compare)
        print(
            f"kapi check figures (issue K3) on {os.cpu_count()} CPUs; Python "
            f"{sys.version.split()[0]}; load average at start {_load()}"
        )
        print(f"  voice: 50 term rules (voices/x.yaml, bound by kapi.yaml); tools: {KAPI}")
        for version in tools.versions:
            print(f"  compared with {version}")
        if not tools.textlint:
            print(f"  textlint: {tools.textlint_why}")
        if not tools.proselint:
            print(f"  proselint: {tools.proselint_why}")
        print(
            f"  inputs: one {words}-word page ({tree.single_expected} rejected terms in prose); "
            f"{len(tree.files)} pages of ~{tree_words:.0f} words ({tree.expected} rejected terms "
            "in prose; more in code blocks, inline code and URLs, which must not be found)"
        )
        print("  times: median [min-max] wall time, after one warm-up run; findings = in output")

        rows = single_file(tree, tools, args.runs)
        _print_table(f"1. one ~{words}-word Markdown file, {args.runs} runs", rows)
        _record(rows[0], [row for row in rows[2:] if not row.label.startswith("npx")])
        _record(rows[1], rows[:1])
        kapi = rows[0].median
        for row in rows[2:]:
            if row.times:
                print(f"  ratio {row.label.split(' (')[0]} / kapi: {row.median / kapi:.2f}x")
        print(f"  target: kapi under 300 ms -> {'met' if kapi < 0.3 else 'NOT met'}")

        rows = throughput(tree, tools, args.tree_runs, args.procs)
        _print_table(
            f"2. throughput on {len(tree.files)} files, {args.tree_runs} runs",
            rows,
            len(tree.files),
        )
        kapi_one, kapi_par = rows[0].median, rows[1].median
        others = [row for row in rows[2:] if row.times]
        _record(rows[0], others)
        _record(rows[1], rows[:1])
        for row in others:
            name = row.label.split(" ")[0]
            print(
                f"  kapi/{name} files-per-second: one command {row.median / kapi_one:.2f}x, "
                f"{args.procs} processes {row.median / kapi_par:.2f}x"
            )
        print(f"  parallel speed-up ({args.procs} processes): {kapi_one / kapi_par:.2f}x")
        fastest = min((row.median for row in others), default=None)
        if fastest is not None:
            verdict = "met" if kapi_one <= fastest else "NOT met"
            verdict_par = "met" if kapi_par <= fastest else "NOT met"
            print(
                f"  target (>= every other tool's files/s): one command {verdict}; "
                f"{args.procs} processes {verdict_par}"
            )

        rows = diff_scoped(tree, args.diff_runs, rows[0])
        _print_table(
            f"3. kapi check --diff-against HEAD in a git repository of {len(tree.files)} files",
            rows,
        )
        base = rows[0].median
        for row in rows[:-1]:
            _record(row, rows[-1:])
        for row in [row for row in rows if " changed" in row.label][1:]:
            print(f"  {row.label}: {(row.median - base) * 1000:+.0f} ms over no change")

        if args.profile:
            profile(tree, 20)
    finally:
        if args.keep:
            print(f"\nkept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(
        f"\ntotal bench time: {time.perf_counter() - started:.0f} s; load average at end {_load()}"
    )


if __name__ == "__main__":
    main()
