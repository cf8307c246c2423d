"""The repository's ``.pre-commit-hooks.yaml``, run by the real ``pre-commit`` on a real repository."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent

RECIPE = """\
version: v1
id: prj_precommit000000000000000000
name: precommit
defaults:
  source_language: en
profiles:
  docs:
    channels: [guides]
    voice: house
collections:
  - name: docs
    channel: docs/guides
    source_only: true
    content:
      - path: docs/**/*.md
"""
VOICE = """\
name: House voice
id: house
style:
  prohibited_patterns:
    - regex: '(?i)\\bsimply\\b'
      description: Do not call a step easy.
"""


def _pre_commit() -> str:
    found = shutil.which("pre-commit", path=str(BIN)) or shutil.which("pre-commit")
    if found is None:
        pytest.skip("pre-commit is not installed (it is in the dev dependency group)")
    return found


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KAPI_", "CLAUDE", "GIT_"))}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"  # the kapi under test
    env["PRE_COMMIT_HOME"] = str(home / "pre-commit-cache")
    env["HOME"] = str(home)
    for key, value in {
        "GIT_AUTHOR_NAME": "Ada",
        "GIT_AUTHOR_EMAIL": "ada@example.com",
        "GIT_COMMITTER_NAME": "Ada",
        "GIT_COMMITTER_EMAIL": "ada@example.com",
    }.items():
        env[key] = value
    return env


def _git(repo: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=repo, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def hooked(tmp_path: Path):
    """A project in git whose pre-commit config names this checkout's kapi-check hook."""
    pre_commit = _pre_commit()
    hook_repo = (
        tmp_path / "hook-repo"
    )  # a copy holding only the manifest, as a tagged release would
    hook_repo.mkdir()
    env = _env(tmp_path)
    shutil.copy(ROOT / ".pre-commit-hooks.yaml", hook_repo / ".pre-commit-hooks.yaml")
    _git(hook_repo, env, "init", "-q")
    _git(hook_repo, env, "add", ".")
    _git(hook_repo, env, "commit", "-q", "-m", "hooks")
    rev = _git(hook_repo, env, "rev-parse", "HEAD").stdout.strip()

    repo = tmp_path / "site"
    (repo / "docs").mkdir(parents=True)
    (repo / "voices").mkdir()
    (repo / "kapi.yaml").write_text(RECIPE, encoding="utf-8")
    (repo / "voices/house.yaml").write_text(VOICE, encoding="utf-8")
    (repo / "docs/guide.md").write_text("# Guide\n\nOpen the settings.\n", encoding="utf-8")
    config = (
        f"repos:\n  - repo: {hook_repo.as_uri()}\n    rev: {rev}\n    hooks: [{{id: kapi-check}}]\n"
    )
    (repo / ".pre-commit-config.yaml").write_text(config, encoding="utf-8")
    _git(repo, env, "init", "-q")
    _git(repo, env, "add", ".")
    done = _git(repo, env, "commit", "-q", "-m", "start")
    assert done.returncode == 0, done.stderr
    installed = subprocess.run(
        [pre_commit, "install"], cwd=repo, env=env, capture_output=True, text=True, timeout=120
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return repo, env


def test_the_config_takes_three_lines_of_hooks():
    manifest = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    assert "- id: kapi-check" in manifest
    assert "entry: kapi check --staged" in manifest


def test_a_commit_with_a_failing_finding_is_stopped(hooked):
    repo, env = hooked
    (repo / "docs/guide.md").write_text("# Guide\n\nSimply open the settings.\n", "utf-8")
    _git(repo, env, "add", "docs/guide.md")
    done = _git(repo, env, "commit", "-m", "simply")
    assert done.returncode != 0
    output = done.stdout + done.stderr
    assert "kapi check (the staged content)" in output and "Failed" in output
    assert "Do not call a step easy" in output
    assert _git(repo, env, "log", "--oneline").stdout.count("\n") == 1


def test_a_clean_commit_passes_and_a_commit_without_content_skips(hooked):
    repo, env = hooked
    (repo / "docs/guide.md").write_text("# Guide\n\nOpen the settings page.\n", "utf-8")
    _git(repo, env, "add", "docs/guide.md")
    done = _git(repo, env, "commit", "-m", "wording")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Passed" in done.stdout + done.stderr
    (repo / "kapi.yaml").write_text(RECIPE + "# a comment\n", "utf-8")
    (repo / "tool.py").write_text("print('simply')\n", "utf-8")
    _git(repo, env, "add", "kapi.yaml", "tool.py")
    skipped = _git(repo, env, "commit", "-m", "recipe")
    assert skipped.returncode == 0, skipped.stdout + skipped.stderr
    assert "Skipped" in skipped.stdout + skipped.stderr


def test_only_the_staged_change_is_checked(hooked):
    repo, env = hooked
    (repo / "docs/other.md").write_text("# Other\n\nSimply read on.\n", "utf-8")  # not staged
    (repo / "docs/guide.md").write_text("# Guide\n\nOpen the settings now.\n", "utf-8")
    _git(repo, env, "add", "docs/guide.md")
    done = _git(repo, env, "commit", "-m", "guide")
    assert done.returncode == 0, done.stdout + done.stderr
