"""Coverage-guided fuzzing of one kapi target with atheris (on demand; not part of the test run).

atheris has a wheel for CPython 3.11 on Linux x86-64; it is not in the dev group
(a 35 MB download the test run does not need). Install it, then run a target:

    .venv/bin/python -m pip install --group fuzz
    .venv/bin/python tests/proof/atheris_fuzz.py format:po -max_total_time=300
    .venv/bin/python tests/proof/atheris_fuzz.py list        # every target

Targets and what each input must do are :mod:`tests.proof.fuzzing`'s (the same
checks the hypothesis tests run). The seeds of the target are the starting
corpus; further arguments go to libFuzzer (``-timeout=10``, ``-runs=N``, a
corpus folder to keep what it finds). A finding stops the run and libFuzzer
writes the input to ``crash-<sha1>``: feed that file back with
``.venv/bin/python tests/proof/atheris_fuzz.py TARGET crash-<sha1>``.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def main() -> None:
    import atheris

    from tests.proof import fuzzing

    if len(sys.argv) < 2 or sys.argv[1] in ("list", "-h", "--help"):
        print(__doc__)
        print("targets:", " ".join(fuzzing.targets()))
        return
    target = sys.argv[1]
    kind, _, name = target.partition(":")
    seeds = list(fuzzing.seeds(target))
    project = None
    if kind == "hook":  # the hooks check files of a project: a copy of the example shop
        project = Path(tempfile.mkdtemp(prefix="kapi-atheris-project-")) / "shop"
        shutil.copytree(ROOT / "examples/shop", project)
    # The modules the target runs, instrumented for coverage: kapi imports lazily, so the
    # codec is loaded and the first seed run inside the block, whose imports it instruments.
    with atheris.instrument_imports():
        from kapi.formats import registry

        if kind in ("format", "office-part"):
            registry.load_codec(name)
        if seeds:
            fuzzing.check(target, seeds[0], project=project, seconds=None)
    args = [sys.argv[0], *sys.argv[2:]]
    if not any(not arg.startswith("-") for arg in args[1:]):  # no corpus named: start from seeds
        corpus = Path(tempfile.mkdtemp(prefix="kapi-atheris-"))
        for number, seed in enumerate(seeds):
            (corpus / f"seed{number}").write_bytes(seed)
        args.append(str(corpus))
    if not any(arg.startswith("-timeout") for arg in args):
        args.append(f"-timeout={int(fuzzing.DEADLINE_SECONDS)}")

    def one(data: bytes) -> None:
        fuzzing.check(target, data, project=project, seconds=None)  # -timeout is the deadline

    atheris.Setup(args, one)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
