"""K10 figures: refusing zip bombs in DOCX files, in process and through the command line.

Run: .venv/bin/python bench/bench_bombs.py   (about half a minute; inputs are generated in a temp folder)

Each bomb is a DOCX whose ``word/document.xml`` (the part every read parses) is the
bomb, built byte by byte with the test suite's zip writer
(``packages/kapi-formats/tests/office_fixtures.py``):

* ``lying sizes``: the headers declare the part's 651 bytes of XML and their CRC; the
  stream goes on to inflate 2 GiB of spaces.
* ``400 MiB declared``: honest headers, 400 MiB at a ratio under 200, within the old
  declared limits (512 MiB in all, 200 times) but over ``max_part_bytes``.
* ``400 MiB as 60``: the same stream, its headers declaring 60 MiB (within every limit):
  the worst a bomb can make kapi inflate before it stops.
* ``ratio``: headers declaring 32 MiB from 1 MiB (32 times); the stream is 32 KiB of
  that MiB, so it inflates about 1,000 times what zlib consumes.
* ``1,000,000 entries``: a central directory of a million records.

For each, the refusal in process (``DocxFormat().read``, best of 5), then ``kapi
inspect`` and ``kapi apply`` of a one-op change set, each a fresh process (best of 3):
wall time and kapi's peak resident size (``ru_maxrss`` from ``wait4`` in a small
launcher, so the figure is kapi's alone). The
``valid`` row is a small DOCX read and edited normally: the cost of starting kapi.
Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import figures  # noqa: E402  (the records bench/run.py gathers)

KAPI = Path(sys.executable).with_name("kapi")
MIB = 1024 * 1024


def _fixtures():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(
        "office_fixtures", ROOT / "packages/kapi-formats/tests/office_fixtures.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


fx = _fixtures()
HELLO = fx.para(fx.run("Hello"))
HEAD = fx.document_xml(HELLO).encode()


def _with_document(entry) -> bytes:  # type: ignore[no-untyped-def]
    return fx.raw_zip(fx.raw_package(fx.docx(HELLO), entry))


def _crc(head: bytes, filler: bytes, count: int) -> int:
    crc = zlib.crc32(head)
    for _ in range(count):
        crc = zlib.crc32(filler, crc)
    return crc


def make_bombs() -> dict[str, bytes]:
    # 1 MiB that deflates about 150 times: random bytes, then zeros.
    mixed = random.Random(9).randbytes(6_500) + bytes(MIB - 6_500)
    big = fx.deflate_repeated(HEAD, mixed, 400)
    spaces = b" " * MIB
    ratio = fx.deflate_repeated(HEAD, spaces, 32)
    return {
        "lying sizes (2 GiB)": _with_document(fx.understated("word/document.xml", HEAD, 2048)),
        "400 MiB declared": _with_document(
            fx.RawEntry("word/document.xml", big, len(HEAD) + 400 * MIB, _crc(HEAD, mixed, 400))
        ),
        "400 MiB as 60": _with_document(
            fx.RawEntry("word/document.xml", big, len(HEAD) + 60 * MIB, _crc(HEAD, mixed, 60))
        ),
        "ratio (1,000x)": _with_document(
            fx.RawEntry(
                "word/document.xml",
                ratio + bytes(MIB - len(ratio)),
                len(HEAD) + 32 * MIB,
                _crc(HEAD, spaces, 32),
            )
        ),
        "1,000,000 entries": fx.raw_zip([fx.RawEntry.of("x", b"")], directory_copies=1_000_000),
    }


def in_process(data: bytes, repeat: int = 5) -> tuple[float, str]:
    """Best time of reading ``data`` with the DOCX codec, and how the read ended."""
    from kapi.core.format import FormatError
    from kapi.formats.office.docx import DocxFormat

    best, outcome = float("inf"), ""
    for _ in range(repeat):
        start = time.perf_counter()
        try:
            DocxFormat().read(data, path="bomb.docx")
            outcome = "read"
        except FormatError as err:
            outcome = f"{err.code}: {err.message}"
        best = min(best, time.perf_counter() - start)
    return best, outcome


# A child's peak resident size starts from its parent's at fork, so kapi is started
# from a fresh, small interpreter, which reports the peak of kapi alone.
LAUNCHER = """
import os, sys
pid = os.posix_spawn(sys.argv[2], sys.argv[2:], os.environ)
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as figures:
    figures.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def kapi(folder: Path, *args: str, repeat: int = 3) -> tuple[float, float, int]:
    """Best wall time, largest peak resident MiB and the exit code of ``kapi args``.

    The time includes starting the small launcher, about 20 ms.
    """
    best, peak, code = float("inf"), 0.0, 0
    env = {**os.environ, "KAPI_NO_PROJECT": "1", "KAPI_ACTOR": "person"}
    figures = folder / "peak.txt"
    for _ in range(repeat):
        start = time.perf_counter()
        result = subprocess.run(
            [sys.executable, "-c", LAUNCHER, str(figures), str(KAPI), *args],
            cwd=folder,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            check=False,
        )
        best = min(best, time.perf_counter() - start)
        code = result.returncode
        peak = max(peak, int(figures.read_text()) / 1024)
    return best, peak, code


def change_set(name: str, rev: str) -> str:
    op = {
        "op": "replace_text",
        "at": {"doc": name, "block": "word/document.xml#p1"},
        "if_match": rev,
        "edits": [{"find": "Hello", "text": "Hi"}],
    }
    return json.dumps({"ops": [op]})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    figures.add_json_option(parser)
    figures.written_on_exit(parser.parse_args().json)
    load = os.getloadavg()[0]
    print(f"load average {load:.2f}; kapi {KAPI}")
    bombs = {"valid": fx.docx(HELLO), **make_bombs()}
    print()
    print(
        f"{'bomb':20} {'file':>8} {'read ms':>8} {'inspect s':>9} {'MiB':>6} {'exit':>4}"
        f" {'apply s':>8} {'MiB':>6} {'exit':>4}"
    )
    outcomes = {}
    with tempfile.TemporaryDirectory() as folder:
        where = Path(folder)
        for label, data in bombs.items():
            path = where / "report.docx"
            read_s, outcomes[label] = in_process(data)
            path.write_bytes(data)
            inspect_s, inspect_mib, inspect_code = kapi(where, "inspect", path.name)
            rev = "r:0000000000000000"
            if label == "valid":
                listed = subprocess.run(
                    [str(KAPI), "inspect", path.name],
                    cwd=where,
                    capture_output=True,
                    text=True,
                    env={**os.environ, "KAPI_NO_PROJECT": "1"},
                    check=True,
                )
                rev = json.loads(listed.stdout)[0]["rev"]
            (where / "change.json").write_text(change_set(path.name, rev))
            repeat = 1 if label == "valid" else 3  # a valid set applies once
            apply_s, apply_mib, apply_code = kapi(where, "apply", "change.json", repeat=repeat)
            if label == "valid":
                valid = (inspect_s, apply_s)
            else:
                assert path.read_bytes() == data, "a refused apply changed the file"
                figures.record(
                    f"kapi inspect refuses {label}", inspect_s, "kapi inspect valid", valid[0]
                )
                figures.record(f"kapi apply refuses {label}", apply_s, "kapi apply valid", valid[1])
            print(
                f"{label:20} {len(data) / MIB:6.1f}MB {read_s * 1000:8.1f} {inspect_s:9.3f}"
                f" {inspect_mib:6.1f} {inspect_code:4} {apply_s:8.3f} {apply_mib:6.1f}"
                f" {apply_code:4}"
            )
    print()
    for label, outcome in outcomes.items():
        print(f"{label}: {outcome}")


if __name__ == "__main__":
    main()
