"""kapi check reading and analysing many files in worker processes gives one process's report."""

import concurrent.futures
import json
import os
import random
import textwrap
import time

import pytest

from kapi.core.check.engine import TargetResult, default_analyzers

RECIPE = textwrap.dedent(
    """\
    version: v1
    id: prj_parallel
    defaults:
      source_language: en
      target_languages: [fr]
    profiles:
      docs:
        channels: [guides]
        voice: docs
      app:
        channels: [ui]
        voice: ui
    collections:
      - name: ui
        channel: app/ui
        content:
          - path: locales/*/en.json
            target: locales/{lang}.json
      - name: docs
        channel: docs/guides
        source_only: true
        content:
          - path: docs/**/*.md
          - path: docs/**/*.xlf
    """
)
DOCS_VOICE = textwrap.dedent(
    """\
    name: docs
    terms:
      - term: utilize
        replacement: use
      - term: log in
        replacement: sign in
      - term: Github
        replacement: GitHub
    locales:
      de:
        vocabulary_overrides:
          forbidden_terms:
            - term: Korb
              replacement: Warenkorb
    """
)
UI_VOICE = textwrap.dedent(
    """\
    name: ui
    terms:
      - term: basket
        replacement: cart
    """
)
TERMS_CSV = textwrap.dedent(
    """\
    concept,locale,text,status,note,competitor,do_not_translate
    c-cart,en,cart,preferred,,,
    c-cart,en,trolley,forbidden,UK English,,
    c-sign,en,sign up,preferred,,,
    c-sign,en,register,forbidden,,,
    ,en,Kapi,preferred,,,yes
    """
)
XLIFF_DE = textwrap.dedent(
    """\
    <?xml version="1.0" encoding="UTF-8"?>
    <xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="de" trgLang="fr">
      <file id="f1">
        <unit id="u1">
          <segment>
            <source>Legen Sie {n} Artikel in den Korb.</source>
            <target>Mettez les articles dans le panier.</target>
          </segment>
        </unit>
      </file>
    </xliff>
    """
)
PO_FR = textwrap.dedent(
    """\
    msgid ""
    msgstr ""
    "Language: fr\\n"
    "Content-Type: text/plain; charset=UTF-8\\n"

    msgid "Put {n} items in the trolley with Kapi"
    msgstr "Mettez les articles dans le panier"
    """
)
WORDS = ["the", "team", "opens", "each", "report", "and", "saves", "a", "draft", "page"]
TERMS = ("utilize", "log in", "Github", "basket", "GitHub", "utilizing", "trolley", "register")


def _sentence(rng):
    words = [rng.choice(WORDS) for _ in range(rng.randint(6, 12))]
    if rng.random() < 0.4:
        words.insert(rng.randint(1, len(words) - 1), rng.choice(TERMS))
    words[0] = words[0].capitalize()
    return " ".join(words) + "."


@pytest.fixture
def tree(kapi):
    """About 80 files: prose with findings under two voices and the store's terms, catalogues,
    bilingual files (one in another source language), and files that cannot be checked."""
    root = kapi.root
    rng = random.Random(7)
    (root / "kapi.yaml").write_text(RECIPE)
    (root / "voices").mkdir()
    (root / "voices/docs.yaml").write_text(DOCS_VOICE)
    (root / "voices/ui.yaml").write_text(UI_VOICE)
    for n in range(70):
        path = root / "docs" / f"part{n % 4}" / f"page{n:02d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        paragraphs = [" ".join(_sentence(rng) for _ in range(3)) for _ in range(rng.randint(2, 5))]
        code = f"```\n{rng.choice(TERMS)} here is code\n```\n\n" if n % 5 == 0 else ""
        path.write_text(f"# Page {n}\n\n{code}" + "\n\n".join(paragraphs) + "\n")
    for n in range(6):
        folder = root / "locales" / f"app{n}"
        folder.mkdir(parents=True)
        (folder / "en.json").write_text(
            json.dumps({"add": f"Add {n} to basket", "buy": "Buy now", "log": "Log in"}) + "\n"
        )
    (root / "docs/part0/empty.md").write_text("")
    (root / "docs/part1/broken.md").write_bytes(b"# Caf\xe9 \xff\xfe not UTF-8\n")
    (root / "docs/part2/notes.bin").write_bytes(b"\x00\x01 no reader for this")
    (root / "docs/part3/front.md").write_text("---\ntitle: utilize\n---\n\nPlease utilize it.\n")
    (root / "docs/part3/basket.de.xlf").write_text(XLIFF_DE)
    (root / "docs/part1/strings.po").write_text(PO_FR)
    (root / "terms.csv").write_text(TERMS_CSV)
    imported = kapi("terms", "import", "terms.csv", "--json")
    assert imported.exit_code == 0, imported.output
    (root / "terms.csv").unlink()
    return kapi


def _comparable(value):
    """The report without what measures time (durations, timings, the instant it ran)."""
    if isinstance(value, dict):
        return {
            key: _comparable(item)
            for key, item in value.items()
            if key not in ("duration_ms", "timings", "at")
        }
    if isinstance(value, list):
        return [_comparable(item) for item in value]
    return value


def _check(kapi, workers):
    result = kapi("check", "--json", "docs", "locales", env={"KAPI_CHECK_WORKERS": workers})
    assert result.exit_code in (3, 4), result.output
    return result.exit_code, json.loads(result.stdout)


class _CountingPool(concurrent.futures.ProcessPoolExecutor):
    """The real pool, remembering every chunk it was given."""

    futures: list = []

    def submit(self, *args, **kwargs):
        future = super().submit(*args, **kwargs)
        _CountingPool.futures.append(future)
        return future


def _worker_results(futures):
    """What the pool's workers gave back, file by file (a chunk's items in order)."""
    return [
        item
        for future in futures
        if future.done() and not future.cancelled()
        for item in future.result()
    ]


def test_parallel_report_equals_the_single_process_report(tree, monkeypatch):
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", _CountingPool)
    _CountingPool.futures = []
    serial_code, serial = _check(tree, "1")
    assert _CountingPool.futures == []  # 1 = checked in this process

    parallel_code, parallel = _check(tree, "3")
    assert _worker_results(_CountingPool.futures), "no chunk was checked by a worker process"

    assert parallel_code == serial_code
    assert _comparable(parallel) == _comparable(serial)
    # the report is a real one: many files, findings from both voices and the store, odd
    # files in scope, a bilingual file, canaries on every analyzer that ran
    files = [entry["path"] for entry in serial["scope"]["files"]]
    assert len(files) == 82
    assert files.index("docs/part0/empty.md") < files.index("docs/part0/page00.md")
    statuses = {entry["path"]: entry["status"] for entry in serial["scope"]["files"]}
    assert statuses["docs/part1/broken.md"] == "did_not_run"
    assert statuses["docs/part0/empty.md"] == "no_content"
    assert statuses["docs/part2/notes.bin"] != "checked"
    assert statuses["docs/part3/basket.de.xlf"] == "checked"
    terms = {finding["metadata"].get("term") for finding in serial["findings"]}
    assert {"utilize", "log in", "Github", "basket", "trolley", "register", "Korb"} <= terms
    rules = {finding["rule"] for finding in serial["findings"]}
    assert {"voice.vocabulary", "terms.vocabulary", "placeholder.missing"} <= rules
    assert serial["summary"]["failing"] > 20
    voices = {context["voice"]["name"] for context in serial["execution"]["contexts"]}
    assert {"docs", "ui"} <= voices
    (german,) = [c for c in serial["execution"]["contexts"] if c["file"].endswith(".de.xlf")]
    assert german["voice"]["name"] == "docs"  # resolved at its own locale: "Korb" is found
    locales = {entry["locale"] for entry in serial["execution"]["term_matching"]}
    assert locales == {"en", "de"}
    canaries = [run["canary"] for run in serial["execution"]["analyzers"] if "canary" in run]
    assert len(canaries) > 200 and {c["status"] for c in canaries} == {"caught"}
    assert serial["verdict"] == parallel["verdict"]
    assert serial["summary"] == parallel["summary"]


def test_the_workers_analyse_what_they_read(tree, monkeypatch):
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", _CountingPool)
    _CountingPool.futures = []
    _check(tree, "2")
    done = _worker_results(_CountingPool.futures)
    analysed = [item for item in done if isinstance(item, TargetResult) and item.runs]
    assert len(analysed) > 10, "the workers returned no analysis"
    assert all(len(item.runs) == len(default_analyzers()) for item in analysed)
    # a worker returns results, never the read blocks, for a file the parent resolved for it
    assert all(isinstance(item, TargetResult) for item in done if item.file.endswith(".md"))


class _DyingPool(concurrent.futures.ProcessPoolExecutor):
    """The real pool, whose workers die on their first chunk (killed, out of memory)."""

    def submit(self, fn, *args, **kwargs):
        return super().submit(os._exit, 9)


def test_spawned_workers_give_the_same_report(tree, monkeypatch):
    """Under ``spawn`` (macOS, or a process with threads) everything a worker gets and gives
    back goes through pickle: its checker's options, the files' governance, the results."""
    from kapi.host import checking

    _, serial = _check(tree, "1")
    monkeypatch.setattr(checking, "_fork_is_safe", lambda: False)
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", _CountingPool)
    _CountingPool.futures = []
    check_here = checking._check_chunk

    def after_a_worker_chunk(*args):
        # A spawned worker imports kapi first: once the pool has chunks, wait until the worker
        # has checked one, so that this process does not check them all before it starts.
        deadline = time.monotonic() + 60
        while (
            _CountingPool.futures
            and time.monotonic() < deadline
            and not _worker_results(_CountingPool.futures)
        ):
            time.sleep(0.01)
        return check_here(*args)

    monkeypatch.setattr(checking, "_check_chunk", after_a_worker_chunk)
    _, spawned = _check(tree, "2")
    assert any(isinstance(item, TargetResult) for item in _worker_results(_CountingPool.futures))
    assert _comparable(spawned) == _comparable(serial)


# Python 3.11's pool thread may raise InvalidStateError setting "broken" on a chunk this
# process has just cancelled to check it here (fixed in 3.12); the report is unaffected.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_worker_that_dies_leaves_its_chunks_to_this_process(tree, monkeypatch):
    _, serial = _check(tree, "1")
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", _DyingPool)
    _, recovered = _check(tree, "3")
    assert _comparable(recovered) == _comparable(serial)


def test_zero_checks_in_this_process(tree, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("KAPI_CHECK_WORKERS=0 must not start a pool")

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", refuse)
    code, report = _check(tree, "0")
    assert code == 3
    assert len(report["scope"]["files"]) == 82


def test_a_pool_that_cannot_start_checks_here_with_the_same_report(tree, monkeypatch):
    _, serial = _check(tree, "1")

    def no_semaphores(*args, **kwargs):
        raise OSError(38, "Function not implemented")

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", no_semaphores)
    _, fallback = _check(tree, "2")
    assert _comparable(fallback) == _comparable(serial)


@pytest.mark.parametrize("value", ["many", "-2", "1.5"])
def test_a_bad_worker_count_is_a_usage_error(tree, value):
    result = tree("check", "--json", "docs", env={"KAPI_CHECK_WORKERS": value})
    assert result.exit_code == 2
    assert "KAPI_CHECK_WORKERS" in result.output
