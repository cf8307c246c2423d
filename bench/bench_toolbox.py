"""K16 figures: ``kgrep`` over a 1,000-file Markdown tree beside GNU grep (and ripgrep, when
``rg`` is on PATH), and ``ksed`` on a 10,000-key JSON catalogue beside GNU sed.

Run: .venv/bin/python bench/bench_toolbox.py   (about a minute; inputs are generated in a temp folder)

Every tool runs as a fresh process, as a person or an agent runs it from a shell; each row is
the median of ``--repeat`` runs (default 5), with what the tool found beside it, so the rows
can be seen to do the same work. grep and sed read lines of bytes; kgrep and ksed read each
file with its format into blocks (skipping markup), and ksed lands its edit through the change
service (guards, revisions, the read-back of every write). Figures are printed, never asserted.
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
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import figures

VENV_BIN = Path(sys.executable).parent

WORDS = [
    "the",
    "cart",
    "holds",
    "every",
    "item",
    "a",
    "customer",
    "picks",
    "before",
    "checkout",
    "and",
    "the",
    "page",
    "shows",
    "totals",
    "taxes",
    "shipping",
    "and",
    "the",
    "delivery",
    "date",
    "for",
    "each",
    "order",
    "placed",
    "through",
    "the",
    "shop",
    "support",
    "answers",
    "questions",
    "about",
    "returns",
    "refunds",
    "accounts",
    "passwords",
    "and",
    "gift",
    "cards",
]


def markdown_page(rng: random.Random, index: int) -> str:
    """A page of about 200 words: a heading, paragraphs with emphasis, links and code, a list."""
    parts = [f"# Page {index}\n"]
    for _ in range(4):
        words = [rng.choice(WORDS) for _ in range(40)]
        words[rng.randrange(40)] = "**" + rng.choice(WORDS) + "**"
        words[rng.randrange(40)] = f"[{rng.choice(WORDS)}](https://example.com/{index})"
        if rng.random() < 0.3:
            words[rng.randrange(40)] = "`checkout --dry-run`"
        parts.append(" ".join(words).capitalize() + ".\n")
    parts.append("".join(f"- {rng.choice(WORDS)} {rng.choice(WORDS)}\n" for _ in range(3)))
    parts.append("```sh\nshop checkout --all\n```\n")
    return "\n".join(parts)


def make_tree(root: Path, files: int) -> None:
    rng = random.Random(16)
    for index in range(files):
        folder = root / f"section{index % 20:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"page{index:04d}.md").write_text(markdown_page(rng, index), encoding="utf-8")


def make_catalogue(path: Path, keys: int) -> None:
    rng = random.Random(10_000)
    catalogue: dict[str, dict[str, str]] = {}
    for index in range(keys):
        group = catalogue.setdefault(f"screen{index // 100:03d}", {})
        words = " ".join(rng.choice(WORDS) for _ in range(8))
        group[f"label{index % 100:02d}"] = words.capitalize()
    path.write_text(json.dumps(catalogue, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def timed(
    command: Sequence[str], *, cwd: Path, env: dict[str, str], repeat: int, before=None
) -> tuple[float, subprocess.CompletedProcess[bytes]]:
    times: list[float] = []
    done: subprocess.CompletedProcess[bytes] | None = None
    for _ in range(repeat):
        if before is not None:
            before()
        start = time.perf_counter()
        done = subprocess.run(list(command), cwd=cwd, env=env, capture_output=True, check=False)
        times.append(time.perf_counter() - start)
    assert done is not None
    return statistics.median(times), done


def row(label: str, seconds: float, found: str) -> None:
    print(f"  {label:<46} {seconds * 1000:9.0f} ms   {found}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--keys", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    figures.add_json_option(parser)
    args = parser.parse_args()
    figures.written_on_exit(args.json)
    work = Path(tempfile.mkdtemp(prefix="kapi-bench-toolbox-"))
    env = {
        **os.environ,
        "KAPI_NO_PROJECT": "1",
        "KAPI_ACTOR": "person",
        "PYTHONPYCACHEPREFIX": str(work / "pycache"),  # cached bytecode, as an installed kapi has
        "LC_ALL": "C.UTF-8",
    }
    try:
        print(
            f"load average {os.getloadavg()[0]:.2f}; {os.cpu_count()} CPUs; median of {args.repeat}"
        )
        tree = work / "tree"
        make_tree(tree, args.files)
        size = sum(p.stat().st_size for p in tree.rglob("*.md"))
        print(
            f"\nkgrep: {args.files} Markdown files, {size / 1e6:.1f} MB, pattern 'refunds? account'"
        )
        pattern = "refunds? account"
        subprocess.run(
            [str(VENV_BIN / "kgrep"), "-c", "x", "tree/section00/page0000.md"],
            cwd=work,
            env=env,
            capture_output=True,
            check=False,
        )  # warm the bytecode
        seconds, done = timed(
            [str(VENV_BIN / "kgrep"), "-r", "-c", pattern, "tree"],
            cwd=work,
            env=env,
            repeat=args.repeat,
        )
        blocks = sum(int(line.rsplit(b":", 1)[1]) for line in done.stdout.splitlines())
        row(
            "kgrep -r -c (blocks, markup skipped)",
            seconds,
            f"{blocks} blocks, exit {done.returncode}",
        )
        kgrep_count = seconds
        seconds, done = timed(
            [str(VENV_BIN / "kgrep"), "-r", "-l", pattern, "tree"],
            cwd=work,
            env=env,
            repeat=args.repeat,
        )
        row("kgrep -r -l", seconds, f"{len(done.stdout.splitlines())} files")
        kgrep_list = seconds
        seconds, done = timed(
            ["grep", "-r", "-E", "-c", pattern, "tree"], cwd=work, env=env, repeat=args.repeat
        )
        lines = sum(int(line.rsplit(b":", 1)[1]) for line in done.stdout.splitlines())
        row("GNU grep -r -E -c (lines of bytes)", seconds, f"{lines} lines")
        figures.record("kgrep -r -c", kgrep_count, "grep -r -E -c", seconds)
        figures.record("kgrep -r -l", kgrep_list, "grep -r -E -c", seconds)
        rg = shutil.which("rg")
        if rg:
            seconds, done = timed(
                [rg, "-c", pattern, "tree"], cwd=work, env=env, repeat=args.repeat
            )
            lines = sum(int(line.rsplit(b":", 1)[1]) for line in done.stdout.splitlines())
            row("ripgrep -c", seconds, f"{lines} lines")
        else:
            print("  ripgrep: not on PATH, skipped")
        markup = timed(["grep", "-r", "-c", "example.com", "tree"], cwd=work, env=env, repeat=1)[1]
        in_links = sum(int(line.rsplit(b":", 1)[1]) for line in markup.stdout.splitlines())
        kgrep_links = timed(
            [str(VENV_BIN / "kgrep"), "-r", "-c", "example.com", "tree"],
            cwd=work,
            env=env,
            repeat=1,
        )[1]
        text_links = sum(int(line.rsplit(b":", 1)[1]) for line in kgrep_links.stdout.splitlines())
        print(
            f"  'example.com' (only in link targets): grep {in_links} lines, kgrep {text_links} blocks"
        )

        catalogue = work / "catalogue.json"
        make_catalogue(catalogue, args.keys)
        original = catalogue.read_bytes()
        print(
            f"\nksed: a {args.keys}-key JSON catalogue, {len(original) / 1e6:.1f} MB, s/cart/basket/g"
        )

        def restore() -> None:
            catalogue.write_bytes(original)

        script = "s/cart/basket/g"
        seconds, done = timed(
            [str(VENV_BIN / "ksed"), "--print-ops", script, "catalogue.json"],
            cwd=work,
            env=env,
            repeat=args.repeat,
        )
        ops = len(json.loads(done.stdout)["ops"])
        row("ksed --print-ops (compile the change set)", seconds, f"{ops} ops")
        ksed_ops = seconds
        seconds, done = timed(
            [str(VENV_BIN / "ksed"), script, "catalogue.json"],
            cwd=work,
            env=env,
            repeat=args.repeat,
        )
        row("ksed to stdout (through the change service)", seconds, f"exit {done.returncode}")
        ksed_stdout = seconds
        seconds, done = timed(
            [str(VENV_BIN / "ksed"), "-i", script, "catalogue.json"],
            cwd=work,
            env=env,
            repeat=args.repeat,
            before=restore,
        )
        edited = catalogue.read_bytes()
        row("ksed -i (lands, atomic write, read-back)", seconds, f"exit {done.returncode}")
        ksed_in_place = seconds
        restore()
        seconds, done = timed(
            ["sed", "-i", "-E", script, "catalogue.json"],
            cwd=work,
            env=env,
            repeat=args.repeat,
            before=restore,
        )
        by_sed = catalogue.read_bytes()
        row("GNU sed -i -E (lines of bytes)", seconds, f"exit {done.returncode}")
        for label, mine in (
            ("ksed --print-ops", ksed_ops),
            ("ksed to stdout", ksed_stdout),
            ("ksed -i", ksed_in_place),
        ):
            figures.record(label, mine, "sed -i -E", seconds)
        same = "the same bytes" if edited == by_sed else "different bytes"
        print(f"  ksed -i and sed -i leave {same} (every match here is in a value)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
