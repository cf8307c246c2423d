"""Core figures: applying 10,000 ops to a 10,000-block document in memory, and hashing 100,000 editions.

Run: .venv/bin/python bench/bench_core.py   (targets: under 1 s each on a 2-core machine)
"""

from __future__ import annotations

import statistics
import time

from kapi.core.change.memory_home import MemoryHome
from kapi.core.change.ops import ChangeSet, Edit, Ref, ReplaceText, SetContent
from kapi.core.change.plan import edition_rev
from kapi.core.change.ports import Actor
from kapi.core.change.service import ChangeService
from kapi.core.model import Block, Document, PcClose, PcOpen, Ph, Text
from kapi.core.revision import revision

BLOCKS = 10_000


def document() -> Document:
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
        for i in range(BLOCKS)
    )
    return Document(format="memory", locale="en", blocks=blocks)


def bench_apply() -> float:
    doc = document()
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


def bench_hash() -> float:
    runs = document().blocks[0].source
    started = time.perf_counter()
    for i in range(100_000):
        revision("en" if i % 2 else "fr", runs)
    return time.perf_counter() - started


def main() -> None:
    apply_times = [bench_apply() for _ in range(3)]
    hash_times = [bench_hash() for _ in range(3)]
    print(
        f"apply 10,000 set_content/replace_text ops to a 10,000-block document: median {statistics.median(apply_times):.3f} s"
    )
    print(f"hash 100,000 editions (7 runs each): median {statistics.median(hash_times):.3f} s")


if __name__ == "__main__":
    main()
