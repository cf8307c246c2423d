"""kapi check reading many files in worker processes gives the report one process gives."""

import concurrent.futures
import json
import random
import textwrap

import pytest

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
WORDS = ["the", "team", "opens", "each", "report", "and", "saves", "a", "draft", "page"]
TERMS = ("utilize", "log in", "Github", "basket", "GitHub", "utilizing")


def _sentence(rng):
    words = [rng.choice(WORDS) for _ in range(rng.randint(6, 12))]
    if rng.random() < 0.4:
        words.insert(rng.randint(1, len(words) - 1), rng.choice(TERMS))
    words[0] = words[0].capitalize()
    return " ".join(words) + "."


@pytest.fixture
def tree(kapi):
    """About 80 files: prose with findings, catalogues under another voice, and odd files."""
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


def test_parallel_report_equals_the_single_process_report(tree, monkeypatch):
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", _CountingPool)
    _CountingPool.futures = []
    serial_code, serial = _check(tree, "1")
    assert _CountingPool.futures == []  # 1 = read in this process

    parallel_code, parallel = _check(tree, "3")
    worked = [f for f in _CountingPool.futures if f.done() and not f.cancelled()]
    assert worked, "no chunk was read by a worker process"

    assert parallel_code == serial_code
    assert _comparable(parallel) == _comparable(serial)
    # the report is a real one: many files, findings from both voices, odd files in scope
    files = [entry["path"] for entry in serial["scope"]["files"]]
    assert len(files) == 80
    assert files.index("docs/part0/empty.md") < files.index("docs/part0/page00.md")
    statuses = {entry["path"]: entry["status"] for entry in serial["scope"]["files"]}
    assert statuses["docs/part1/broken.md"] == "did_not_run"
    assert statuses["docs/part0/empty.md"] == "no_content"
    assert statuses["docs/part2/notes.bin"] != "checked"
    rules = {finding["metadata"].get("term") for finding in serial["findings"]}
    assert {"utilize", "log in", "Github", "basket"} <= rules
    assert serial["summary"]["failing"] > 20
    assert serial["verdict"] == parallel["verdict"]
    assert serial["summary"] == parallel["summary"]


def test_zero_reads_in_this_process(tree, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("KAPI_CHECK_WORKERS=0 must not start a pool")

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", refuse)
    code, report = _check(tree, "0")
    assert code == 3
    assert len(report["scope"]["files"]) == 80


def test_a_pool_that_cannot_start_reads_here_with_the_same_report(tree, monkeypatch):
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
