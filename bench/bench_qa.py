"""Translation QA on 10,000 real PO units, beside translate-toolkit's pofilter critical tests.

Builds one French catalogue of 10,000 translated units from Django's and Sphinx's
catalogues (fetched by the corpus tier into its cache), then times, in the same run:

1. kapi's QA rules in-process over every unit (``qa_issues``), and pofilter's six critical
   tests (printf, pythonbraceformat, escapes, newlines, tabs, xmltags) called in-process on
   the same strings;
2. the command lines: ``kapi check cat.po --json`` (QA and every other analyzer) against
   ``pofilter --test=<each critical test> cat.po out.po``.

It prints each time with its ratio to pofilter, and how many units each flags.

    .venv/bin/python bench/bench_qa.py
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import figures  # noqa: E402  (the records bench/run.py gathers)

UNITS = 10_000
CRITICAL_TESTS = ("printf", "pythonbraceformat", "escapes", "newlines", "tabs", "xmltags")


def _units() -> list[tuple[str, str]]:
    from kapi.core.check.qa import _flat
    from kapi.core.model import Plural
    from kapi.formats.po import PoFormat
    from tests.corpus.fetch import unpacked
    from tests.corpus.test_po_corpus import sample
    from tests.corpus.test_project_corpus import SPHINX

    codec = PoFormat()
    sphinx = sorted((unpacked(SPHINX) / "sphinx-8.1.3/sphinx/locale").glob("*/LC_MESSAGES/*.po"))
    pairs: list[tuple[str, str]] = []
    seen: set[str] = set()
    for path in [*sample(), *sphinx]:
        document = codec.read(path.read_bytes(), path=path.name, locale="en")
        for block in document.blocks:
            edition = block.targets.get(document.target_locale)
            if edition is None or not edition.runs:
                continue
            if any(isinstance(r, Plural) for r in (*block.source, *edition.runs)):
                continue
            source, target = _flat(block.source), _flat(edition.runs)
            key = f"{path}\x00{source}"
            if source and key not in seen:
                seen.add(key)
                pairs.append((source, target))
    return pairs[:UNITS]


def _po(pairs: list[tuple[str, str]]) -> str:
    from kapi.formats.po import escape

    out = ['msgid ""\nmsgstr ""\n"Language: fr\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n']
    for index, (source, target) in enumerate(pairs):
        out.append(f'\nmsgctxt "u{index}"\nmsgid "{escape(source)}"\nmsgstr "{escape(target)}"\n')
    return "".join(out)


def _median(runs: int, action) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    figures.add_json_option(parser)
    figures.written_on_exit(parser.parse_args().json)
    from translate.filters import checks

    from kapi.core.check.qa import CRITICAL, qa_issues
    from kapi.core.model import Text

    pairs = _units()
    print(f"{len(pairs)} units from Django and Sphinx catalogues")
    runs = [((Text(s),), (Text(t),)) for s, t in pairs]

    flagged_kapi = 0

    def kapi_qa() -> None:
        nonlocal flagged_kapi
        flagged_kapi = 0
        for source, target in runs:
            found = qa_issues(source, target, source_language="en", target_language="fr")
            flagged_kapi += any(issue.rule in CRITICAL for issue in found)

    checker = checks.StandardChecker()
    flagged_pofilter = 0

    def pofilter_qa() -> None:
        nonlocal flagged_pofilter
        flagged_pofilter = 0
        for source, target in pairs:
            failed = False
            for name in CRITICAL_TESTS:
                try:
                    getattr(checker, name)(source, target)
                except checks.FilterFailure:
                    failed = True
            flagged_pofilter += failed

    kapi_time = _median(5, kapi_qa)
    pofilter_time = _median(5, pofilter_qa)
    print("\nin-process, median of 5")
    print(f"  kapi QA (every rule)        {kapi_time * 1000:8.1f} ms  {flagged_kapi} units flagged")
    print(
        f"  pofilter critical tests     {pofilter_time * 1000:8.1f} ms  "
        f"{flagged_pofilter} units flagged"
    )
    print(f"  ratio kapi / pofilter       {kapi_time / pofilter_time:8.2f}")
    figures.record(
        "kapi QA in process (10,000 units)", kapi_time, "pofilter critical tests", pofilter_time
    )

    kapi = shutil.which("kapi", path=str(ROOT / ".venv/bin"))
    pofilter = shutil.which("pofilter", path=str(ROOT / ".venv/bin"))
    if not (kapi and pofilter):
        print("\ncommand lines skipped: kapi or pofilter is not in .venv/bin")
        return
    with tempfile.TemporaryDirectory() as folder:
        catalogue = Path(folder) / "fr.po"
        catalogue.write_text(_po(pairs), encoding="utf-8")
        env = {"PATH": "/usr/bin:/bin", "KAPI_NO_PROJECT": "1", "HOME": folder}
        tests = [f"--test={name}" for name in CRITICAL_TESTS]

        def kapi_cli() -> None:
            subprocess.run(
                [kapi, "check", str(catalogue), "--json"], env=env, capture_output=True, check=False
            )

        def pofilter_cli() -> None:
            out = Path(folder) / "out.po"
            subprocess.run(
                [pofilter, *tests, str(catalogue), str(out)],
                env=env,
                capture_output=True,
                check=False,
            )

        kapi_cli_time = _median(3, kapi_cli)
        pofilter_cli_time = _median(3, pofilter_cli)
    print("\ncommand line on one 10,000-unit catalogue, median of 3")
    print(f"  kapi check --json           {kapi_cli_time * 1000:8.1f} ms  (every analyzer)")
    print(f"  pofilter (critical tests)   {pofilter_cli_time * 1000:8.1f} ms")
    print(f"  ratio kapi / pofilter       {kapi_cli_time / pofilter_cli_time:8.2f}")
    figures.record(
        "kapi check cat.po --json (10,000 units)", kapi_cli_time, "pofilter", pofilter_cli_time
    )


if __name__ == "__main__":
    main()
