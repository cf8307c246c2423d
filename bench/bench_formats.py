"""K2 figures: reading catalogues, applying a change set, and the CLI's cold start.

Run: .venv/bin/python bench/bench_formats.py   (about a minute; inputs are generated in a temp folder)

Targets (issue K2): the JSON codec read within 3x of stdlib ``json.loads`` on the same
5 MB catalogue; the PO read faster than translate-toolkit's ``pofile`` on the same
1 MB file; ``kapi apply`` of 1,000 ``set_content`` ops on a 10,000-key catalogue under
1 s; ``kapi --help`` and ``kapi formats`` cold start under 150 ms. Figures are printed,
never asserted: speed lives here, not in timed unit tests.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import figures

if TYPE_CHECKING:
    from kapi.core.change.read import BlockRead

VENV_BIN = Path(sys.executable).parent
KAPI = str(VENV_BIN / "kapi")
MB = 1024 * 1024

WORDS = ("account", "settings", "profile", "welcome", "back", "save", "changes", "cancel",
         "delete", "the", "your", "file", "folder", "message", "error", "network", "please",
         "try", "again", "later", "search", "results", "for", "order", "shipped", "payment",
         "failed", "invoice", "download", "upload", "share", "invite", "team", "member")  # fmt: skip


def sentence(rng: random.Random, low: int = 3, high: int = 14) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(low, high))]
    words[0] = words[0].capitalize()
    return " ".join(words)


# --- inputs ------------------------------------------------------------------------------


def json_value(rng: random.Random, index: int) -> str:
    """A catalogue value with the usual mix: plain, placeholders, escapes, non-ASCII."""
    kind = index % 10
    text = sentence(rng)
    if kind == 1:
        return f"{text} {{name}}"
    if kind == 2:
        return f"{text} {{{{count}}}} items"
    if kind == 3:
        return f'{text} "quoted" and a\nnewline'
    if kind == 4:
        return f"{text} – café über naïve"
    if kind == 5:
        return f"<b>{text}</b> $t(common.ok)"
    return text


def json_catalogue(target_bytes: int, seed: int = 1) -> bytes:
    """A nested i18next-style catalogue of about ``target_bytes`` (sections > groups > keys)."""
    rng = random.Random(seed)
    root: dict[str, object] = {}
    size = 0
    counter = 0
    section_index = 0
    while size < target_bytes:
        section: dict[str, object] = {}
        for group_index in range(20):
            group: dict[str, object] = {}
            for key_index in range(25):
                counter += 1
                if counter % 40 == 0:
                    group[f"item{key_index}_one"] = f"{{{{count}}}} {rng.choice(WORDS)}"
                    group[f"item{key_index}_other"] = f"{{{{count}}}} {rng.choice(WORDS)}s"
                else:
                    group[f"key{key_index}"] = json_value(rng, counter)
            section[f"group{group_index}"] = group
        root[f"section{section_index}"] = section
        section_index += 1
        size = len(json.dumps(root, indent=2, ensure_ascii=False).encode())
    return (json.dumps(root, indent=2, ensure_ascii=False) + "\n").encode()


def flat_keys_catalogue(keys: int, seed: int = 2) -> bytes:
    """A nested catalogue of exactly ``keys`` string values (100 sections of 100)."""
    rng = random.Random(seed)
    root = {
        f"section{s}": {f"key{k}": sentence(rng) for k in range(keys // 100)} for s in range(100)
    }
    return (json.dumps(root, indent=2, ensure_ascii=False) + "\n").encode()


def po_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def po_string(keyword: str, text: str) -> str:
    """A keyword and its string, wrapped gettext-style when long."""
    if len(text) < 60 and "\n" not in text:
        return f"{keyword} {po_quote(text)}\n"
    lines = [f'{keyword} ""']
    chunk = ""
    for word in text.split(" "):
        if len(chunk) + len(word) > 70:
            lines.append(po_quote(chunk))
            chunk = ""
        chunk += word + " "
    lines.append(po_quote(chunk.rstrip(" ")))
    return "\n".join(lines) + "\n"


def po_catalogue(target_bytes: int, seed: int = 3) -> bytes:
    """A German PO file of about ``target_bytes``: contexts, plurals, fuzzy, comments, wraps."""
    rng = random.Random(seed)
    parts = [
        'msgid ""\nmsgstr ""\n'
        '"Project-Id-Version: bench 1.0\\n"\n'
        '"Language: de\\n"\n'
        '"MIME-Version: 1.0\\n"\n'
        '"Content-Type: text/plain; charset=UTF-8\\n"\n'
        '"Content-Transfer-Encoding: 8bit\\n"\n'
        '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n\n'
    ]
    size = len(parts[0])
    index = 0
    while size < target_bytes:
        index += 1
        entry = [f"#. {sentence(rng, 2, 6)}\n", f"#: src/module{index % 50}.py:{index}\n"]
        if index % 7 == 0:
            entry.append("#, fuzzy, python-format\n")
        elif index % 3 == 0:
            entry.append("#, python-format\n")
        if index % 5 == 0:
            entry.append(f'msgctxt "ctx{index % 13}"\n')
        long = index % 4 == 0
        source = sentence(rng, 12, 30) if long else sentence(rng)
        if index % 3 == 0:
            source += " %(name)s"
        source += f" #{index}"
        if index % 11 == 0:
            entry.append(po_string("msgid", source))
            entry.append(po_string("msgid_plural", source + " (plural)"))
            entry.append(po_string("msgstr[0]", "Eins " + source))
            entry.append(po_string("msgstr[1]", "Viele " + source))
        else:
            entry.append(po_string("msgid", source))
            target = "" if index % 17 == 0 else "Übersetzt: " + source
            entry.append(po_string("msgstr", target))
        text = "".join(entry) + "\n"
        parts.append(text)
        size += len(text.encode())
    return "".join(parts).encode()


# --- measuring ---------------------------------------------------------------------------


def median_time(runs: int, call: Callable[[], object]) -> float:
    """The median wall time of ``runs`` calls."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - started)
        del result  # freeing what a call built is not part of its time
    return statistics.median(times)


def row(label: str, seconds: float, size: int | None = None, note: str = "") -> None:
    rate = f"{size / MB / seconds:8.1f} MB/s" if size else " " * 13
    print(f"  {label:<52} {seconds * 1000:9.1f} ms  {rate}  {note}")


def toolkit_units(data: bytes) -> list[object]:
    """translate-toolkit decodes strings lazily: parse, then read what kapi's reader yields."""
    from translate.storage import pypo

    store = pypo.pofile.parsestring(data)  # type: ignore[no-untyped-call]
    return [
        (unit.source, unit.target, unit.getcontext(), unit.getlocations(), unit.isfuzzy())
        for unit in store.units
    ]


def inspect_files(paths: list[str], folder: Path) -> tuple[list[BlockRead], list[object]]:
    """What ``kapi inspect`` does in process: every block of the files as read records."""
    from kapi.host.inspect import InspectRequest, run_inspect
    from kapi.host.workspace import open_workspace

    workspace = open_workspace(cwd=folder, environ={"KAPI_NO_PROJECT": "1"})
    result = run_inspect(InspectRequest(paths=tuple(paths)), workspace)
    return list(result.records), list(result.failures)


def bench_reads(folder: Path) -> None:
    from translate.storage import pypo

    from kapi.formats.registry import load_codec

    data = json_catalogue(5 * MB)
    path = folder / "catalogue.json"
    path.write_bytes(data)
    json_codec = load_codec("json")
    blocks = len(json_codec.read(data, path=path.name).blocks)
    print(f"\n(a) JSON catalogue: {len(data) / MB:.2f} MB, {blocks} blocks")
    stdlib = median_time(5, lambda: json.loads(data))
    codec = median_time(3, lambda: json_codec.read(data, path=path.name))
    inspect = median_time(3, lambda: inspect_files([str(path)], folder))
    row("stdlib json.loads", stdlib, len(data))
    row("kapi json codec read", codec, len(data), f"{codec / stdlib:.2f}x json (target <= 3x)")
    row("kapi inspect_files (read + records)", inspect, len(data), f"{inspect / stdlib:.2f}x json")
    figures.record("kapi json codec read (5 MB)", codec, "json.loads", stdlib)
    figures.record("kapi inspect_files JSON (5 MB)", inspect, "json.loads", stdlib)

    data = po_catalogue(1 * MB)
    path = folder / "messages.po"
    path.write_bytes(data)
    po_codec = load_codec("po")
    blocks = len(po_codec.read(data, path=path.name).blocks)
    print(f"\n(a) PO file: {len(data) / MB:.2f} MB, {blocks} blocks")
    toolkit = median_time(5, lambda: pypo.pofile.parsestring(data))  # type: ignore[no-untyped-call]
    toolkit_read = median_time(5, lambda: toolkit_units(data))
    codec = median_time(5, lambda: po_codec.read(data, path=path.name))
    inspect = median_time(3, lambda: inspect_files([str(path)], folder))
    row("translate-toolkit pypo.pofile.parsestring", toolkit, len(data))
    row("  (for context) parsestring + each unit's strings", toolkit_read, len(data))
    row("kapi po codec read", codec, len(data), f"{codec / toolkit:.2f}x toolkit (target < 1x)")
    row(
        "kapi inspect_files (read + records)",
        inspect,
        len(data),
        f"{inspect / toolkit:.2f}x toolkit",
    )
    figures.record("kapi po codec read (1 MB)", codec, "translate-toolkit parsestring", toolkit)
    figures.record(
        "kapi inspect_files PO (1 MB)", inspect, "translate-toolkit parsestring", toolkit
    )


def bench_apply(folder: Path) -> None:
    from kapi.host.actor import actor_from_env
    from kapi.host.apply import apply_change_set
    from kapi.host.workspace import open_workspace

    catalogue = flat_keys_catalogue(10_000)
    path = folder / "en.json"
    path.write_bytes(catalogue)
    records, failures = inspect_files([str(path)], folder)
    assert not failures and len(records) == 10_000, (len(records), failures)
    rng = random.Random(4)
    ops = [
        {"op": "set_content", "at": r["ref"], "if_match": r["rev"], "text": f"Changed {i}"}
        for i, r in enumerate(rng.sample([_wire(record) for record in records], 1_000))
    ]
    change_set = json.dumps({"ops": ops}).encode()
    (folder / "set.json").write_bytes(change_set)
    print("\n(b) kapi apply: 1,000 set_content ops on a 10,000-key JSON catalogue")

    env = {**os.environ, "KAPI_NO_PROJECT": "1", "KAPI_ACTOR": "person"}
    times = []
    for _ in range(3):
        path.write_bytes(catalogue)
        started = time.perf_counter()
        done = subprocess.run(
            [KAPI, "apply", "set.json"], cwd=folder, env=env, capture_output=True, text=True
        )
        times.append(time.perf_counter() - started)
        assert done.returncode == 0, done.stderr
    row(
        "`kapi apply set.json` subprocess (median of 3)",
        statistics.median(times),
        note="target < 1 s",
    )
    figures.record("kapi apply 1,000 ops (subprocess)", statistics.median(times))

    actor = actor_from_env({"KAPI_ACTOR": "person"})
    times = []
    for _ in range(3):
        path.write_bytes(catalogue)
        started = time.perf_counter()
        workspace = open_workspace(cwd=folder, environ={"KAPI_NO_PROJECT": "1"})
        outcome = apply_change_set(change_set, actor=actor, workspace=workspace)
        times.append(time.perf_counter() - started)
        assert outcome.exit_code == 0, outcome.result
    row("host apply_change_set in process (median of 3)", statistics.median(times))
    figures.record("host apply_change_set 1,000 ops (in process)", statistics.median(times))
    assert path.read_bytes() != catalogue


def _wire(record: BlockRead) -> dict[str, Any]:
    return {"ref": {"doc": record.ref.doc, "block": record.ref.block}, "rev": record.rev}


def bench_start(folder: Path) -> None:
    print("\n(c) cold start, subprocess, median of 10")
    env = {**os.environ, "KAPI_NO_PROJECT": "1"}
    floor = 0.0
    for label, argv in (
        ("python -c pass (floor)", [sys.executable, "-c", "pass"]),
        ("kapi --help", [KAPI, "--help"]),
        ("kapi formats", [KAPI, "formats"]),
    ):
        times = []
        for _ in range(10):
            started = time.perf_counter()
            done = subprocess.run(argv, cwd=folder, env=env, capture_output=True)
            times.append(time.perf_counter() - started)
            assert done.returncode == 0, done.stderr
        note = "" if "floor" in label else "target < 150 ms"
        row(label, statistics.median(times), note=note)
        if "floor" in label:
            floor = statistics.median(times)
        else:
            figures.record(label, statistics.median(times), "python -c pass", floor)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    figures.add_json_option(parser)
    figures.written_on_exit(parser.parse_args().json)
    print(f"kapi K2 figures ({sys.version.split()[0]}, {os.cpu_count()} CPUs)")
    with tempfile.TemporaryDirectory(prefix="kapi-bench-") as temp:
        folder = Path(temp)
        bench_reads(folder)
        bench_apply(folder)
        bench_start(folder)


if __name__ == "__main__":
    main()
