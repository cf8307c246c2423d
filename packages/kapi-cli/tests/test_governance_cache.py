"""The governance cache in ``.kapi/cache/``: used when nothing changed, never trusted otherwise.

Each test runs the real ``kapi check`` in a project whose voice holds a term
rule, with ``KAPI_DUMP_MODULES=1`` so the process names what it imported: a
check served from the cache never loads the YAML parser.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from kapi.host.governance_cache import CACHE_FORMAT, GovernanceCache

KAPI_SCRIPT = Path(sys.executable).parent / "kapi"
DUMPED = re.compile(r"^kapi-modules: (.*)$", re.M)

RECIPE = """\
version: v1
id: prj_cachecachecachecachecachecac
name: cache
defaults:
  source_language: en
profiles:
  docs:
    channels: [guides]
    voice: x
collections:
  - name: docs
    channel: docs/guides
    source_only: true
    content:
      - path: "**/*.md"
"""
VOICE = """\
name: Cache voice
id: x
terms:
  - term: utilize
    replacement: use
"""
PAGE = "# Title\n\nWe utilize the cart and leverage the basket.\n"


def _kapi(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [str(KAPI_SCRIPT)] if KAPI_SCRIPT.exists() else [sys.executable, "-m", "kapi.cli"]
    env = {k: v for k, v in os.environ.items() if k not in ("KAPI_PROJECT", "KAPI_NO_PROJECT")}
    env.update(PYTHONDONTWRITEBYTECODE="1", KAPI_DUMP_MODULES="1")
    return subprocess.run(
        [*command, *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=120
    )


def _check(root: Path) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    done = _kapi("check", "page.md", cwd=root)
    assert done.returncode in (0, 3), done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    found = DUMPED.search(done.stderr)
    assert found is not None, done.stderr[-2000:]
    return done, set(found.group(1).split())


def _findings(done: subprocess.CompletedProcess[str]) -> list[str]:
    return re.findall(r'Use "\w+" instead of "\w+"', done.stdout)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "voices").mkdir()
    (tmp_path / "kapi.yaml").write_text(RECIPE, encoding="utf-8")
    (tmp_path / "voices" / "x.yaml").write_text(VOICE, encoding="utf-8")
    (tmp_path / "page.md").write_text(PAGE, encoding="utf-8")
    return tmp_path


def _cache(root: Path) -> Path:
    return root / ".kapi" / "cache" / "governance.json"


def _ruamel(modules: set[str]) -> bool:
    return any(m == "ruamel" or m.startswith("ruamel.") for m in modules)


def test_a_second_check_reads_the_cache_and_parses_no_yaml(project):
    first, modules = _check(project)
    assert _findings(first) == ['Use "use" instead of "utilize"']
    assert _ruamel(modules)
    cache = json.loads(_cache(project).read_text(encoding="utf-8"))
    assert cache["format"] == CACHE_FORMAT and len(cache["entries"]) == 2
    second, modules = _check(project)
    assert second.stdout == first.stdout and second.returncode == first.returncode
    assert not _ruamel(modules)


def test_a_changed_voice_misses_the_cache(project):
    _check(project)
    (project / "voices" / "x.yaml").write_text(
        VOICE + "  - term: leverage\n    replacement: use\n", encoding="utf-8"
    )
    done, modules = _check(project)
    assert _findings(done) == ['Use "use" instead of "utilize"', 'Use "use" instead of "leverage"']
    assert _ruamel(modules)
    again, modules = _check(project)
    assert _findings(again) == _findings(done) and not _ruamel(modules)


def _spoiled(project: Path, spoil) -> None:  # type: ignore[no-untyped-def]
    first, _ = _check(project)
    path = _cache(project)
    spoil(path)
    done, modules = _check(project)  # ignored: parsed again, same findings, no error
    assert done.stdout == first.stdout and done.returncode == first.returncode
    assert _ruamel(modules)
    assert "cache" not in DUMPED.sub("", done.stderr).lower()  # silently, nothing said
    rebuilt = json.loads(path.read_text(encoding="utf-8"))  # written afresh
    assert rebuilt["format"] == CACHE_FORMAT and len(rebuilt["entries"]) == 2
    _, modules = _check(project)
    assert not _ruamel(modules)


def test_a_truncated_cache_is_ignored_and_rebuilt(project):
    _spoiled(
        project, lambda path: path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])
    )


def test_a_corrupt_cache_is_ignored_and_rebuilt(project):
    _spoiled(project, lambda path: path.write_bytes(b"\x00\xff not json at all \x80"))


def test_a_cache_of_another_format_or_kapi_is_ignored_and_rebuilt(project):
    def foreign(path: Path) -> None:
        data = json.loads(path.read_text(encoding="utf-8"))
        data["format"] = CACHE_FORMAT + 1
        path.write_text(json.dumps(data), encoding="utf-8")

    _spoiled(project, foreign)

    def other_kapi(path: Path) -> None:
        data = json.loads(path.read_text(encoding="utf-8"))
        data["kapi"] = "0.0.0-other"
        path.write_text(json.dumps(data), encoding="utf-8")

    _spoiled(project, other_kapi)


def test_a_hand_edited_cache_is_not_trusted(project):
    """An entry edited to drop the voice's rule: its digest no longer matches, so it is ignored."""

    def edit(path: Path) -> None:
        data = json.loads(path.read_text(encoding="utf-8"))
        for entry in data["entries"].values():
            if "terms" in entry:
                entry["terms"] = []
        path.write_text(json.dumps(data), encoding="utf-8")

    _spoiled(project, edit)


def test_a_cache_that_cannot_be_written_does_not_fail_the_check(project):
    (project / ".kapi").mkdir()
    (project / ".kapi" / "cache").write_text("a file where the cache folder would be")
    first, modules = _check(project)
    assert _findings(first) == ['Use "use" instead of "utilize"']
    assert first.returncode == 3 and "Traceback" not in first.stderr
    second, modules = _check(project)
    assert second.stdout == first.stdout and _ruamel(modules)  # parsed each time, never fails


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder")
def test_a_read_only_kapi_folder_does_not_fail_the_check(project):
    _check(project)  # the store and the cache are made
    _cache(project).unlink()
    (project / ".kapi" / "cache").chmod(0o555)
    try:
        done, modules = _check(project)
        assert _findings(done) == ['Use "use" instead of "utilize"'] and _ruamel(modules)
    finally:
        (project / ".kapi" / "cache").chmod(0o755)


def test_a_cache_linked_out_of_the_project_is_not_used(project, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside")
    (project / ".kapi").mkdir()
    (project / ".kapi" / "cache").symlink_to(outside, target_is_directory=True)
    done, _ = _check(project)
    assert _findings(done) == ['Use "use" instead of "utilize"']
    assert list(outside.iterdir()) == []


def test_data_json_cannot_hold_is_parsed_each_time_and_not_kept(tmp_path):
    import datetime

    (tmp_path / ".kapi").mkdir()
    cache = GovernanceCache(tmp_path / ".kapi", tmp_path)
    dated = cache.parsed("when: 2024-01-01", lambda text: {"when": datetime.date(2024, 1, 1)})
    assert dated == {"when": datetime.date(2024, 1, 1)}
    numbered = cache.parsed("1: one", lambda text: {1: "one"})
    assert numbered == {1: "one"}
    assert not (tmp_path / ".kapi" / "cache" / "governance.json").exists()
    kept = cache.parsed("a: [1, 2.5, true, null]", lambda text: {"a": [1, 2.5, True, None]})
    again = GovernanceCache(tmp_path / ".kapi", tmp_path).parsed("a: [1, 2.5, true, null]", None)  # type: ignore[arg-type]
    assert kept == again == {"a": [1, 2.5, True, None]}


def test_a_recipe_mistake_names_its_line_from_the_cache_too(project):
    (project / "kapi.yaml").write_text(
        RECIPE.replace("    voice: x\n", "    voice: {pack: technical-docs, profile: x}\n"),
        encoding="utf-8",
    )
    first = _kapi("check", "page.md", cwd=project)
    second = _kapi("check", "page.md", cwd=project)  # the recipe's data now from the cache
    assert first.returncode == second.returncode == 2
    people = [DUMPED.sub("", done.stderr).strip() for done in (first, second)]
    assert people[0] == people[1]
    assert "kapi.yaml:9" in people[1] and "exactly one of profile or pack" in people[1]


def test_a_recipe_warning_names_its_line_from_the_cache_too(project):
    (project / "kapi.yaml").write_text(
        RECIPE.replace("profiles:\n", "colections: []\nprofiles:\n"), encoding="utf-8"
    )
    first = _kapi("check", "page.md", cwd=project)
    second = _kapi("check", "page.md", cwd=project)  # the recipe's data now from the cache
    people = [DUMPED.sub("", done.stderr).strip() for done in (first, second)]
    assert people[0] == people[1]
    assert re.search(r"kapi\.yaml:\d+: colections: unknown key", people[1]), people[1]


def test_a_project_without_its_state_folder_gets_no_cache(tmp_path):
    cache = GovernanceCache(tmp_path / ".kapi", tmp_path)
    assert cache.parsed("a: 1", lambda text: {"a": 1}) == {"a": 1}
    assert not (tmp_path / ".kapi").exists()  # the cache never makes the project's .kapi/
