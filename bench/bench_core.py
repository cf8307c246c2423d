"""Core figures: applying 10,000 ops to a 10,000-block document in memory, and hashing 100,000 editions.

Run: .venv/bin/python bench/bench_core.py   (targets: under 1 s each on a 2-core machine)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from kapi.core.change.memory_home import MemoryHome
from kapi.core.change.ops import ChangeSet, Edit, Ref, ReplaceText, SetContent
from kapi.core.change.plan import edition_rev
from kapi.core.change.ports import Actor
from kapi.core.change.service import ChangeService
from kapi.core.model import Block, Document, PcClose, PcOpen, Ph, Text
from kapi.core.revision import revision

sys.path.insert(0, str(Path(__file__).resolve().parent))

import figures

BLOCKS = 10_000
HASHES = 100_000


def document(count: int = BLOCKS) -> Document:
    blocks = tuple(
        Block(
            id=f"b{i}",
            name=f"key.{i}",
            locale="en",
            source=(
                Text(f"Item {i}: welcome to the "),
                PcOpen(id="1", type="fmt:bold", data="<b>"),
                Text("shop"),
                PcClose(id="1", type="fmt:bold", data="</b>"),
                Text(", "),
                Ph(id="2", type="code:placeholder", data="{name}", equiv="{name}"),
                Text("!"),
            ),
        )
        for i in range(count)
    )
    return Document(format="memory", locale="en", blocks=blocks)


def bench_apply(count: int = BLOCKS) -> float:
    doc = document(count)
    home = MemoryHome({"big.json": doc})
    ops = []
    for i, block in enumerate(doc.blocks):
        rev = edition_rev(block, "")
        ref = Ref("big.json", block.name)
        if i % 2:
            ops.append(ReplaceText(at=ref, if_match=rev, edits=(Edit(find="shop", text="store"),)))
        else:
            ops.append(
                SetContent(
                    at=ref,
                    if_match=rev,
                    text=f'Item {i}: hello <x id="1"/>all<x id="/1"/> <x id="2/"/>',
                )
            )
    change_set = ChangeSet(ops=tuple(ops))
    started = time.perf_counter()
    result = ChangeService(home).apply(change_set, Actor("person"))
    elapsed = time.perf_counter() - started
    assert result.status == "applied", result.ops[0]
    return elapsed


def bench_hash(count: int = HASHES) -> float:
    runs = document(1).blocks[0].source
    started = time.perf_counter()
    for i in range(count):
        revision("en" if i % 2 else "fr", runs)
    return time.perf_counter() - started


def bench_sha256(count: int = HASHES) -> float:
    """The floor under ``revision``: sha256 of a key and a canonical JSON text of that size."""
    import hashlib
    import json

    runs = document(1).blocks[0].source
    text = json.dumps([repr(run) for run in runs]).encode()
    started = time.perf_counter()
    for i in range(count):
        hashlib.sha256(("en" if i % 2 else "fr").encode() + b"\0" + text).hexdigest()[:16]
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=BLOCKS, help="blocks and ops (10,000)")
    parser.add_argument("--hashes", type=int, default=HASHES, help="editions hashed (100,000)")
    parser.add_argument("--runs", type=int, default=3, help="runs of each (median)")
    figures.add_json_option(parser)
    args = parser.parse_args(argv)
    figures.written_on_exit(args.json)
    apply_times = [bench_apply(args.blocks) for _ in range(args.runs)]
    hash_times = [bench_hash(args.hashes) for _ in range(args.runs)]
    floor = statistics.median(bench_sha256(args.hashes) for _ in range(args.runs))
    apply_median = statistics.median(apply_times)
    hash_median = statistics.median(hash_times)
    print(
        f"apply {args.blocks:,} set_content/replace_text ops to a {args.blocks:,}-block document:"
        f" median {apply_median:.3f} s"
    )
    print(f"hash {args.hashes:,} editions (7 runs each): median {hash_median:.3f} s")
    print(f"  sha256 alone of a text that size: median {floor:.3f} s")
    figures.record(f"apply {args.blocks:,} ops in memory", apply_median)
    figures.record(f"hash {args.hashes:,} editions", hash_median, "sha256 alone", floor)


if __name__ == "__main__":
    main()
