"""A project's translation file checked on its own is checked as the translation it is.

`kapi check locales/fr.json` runs the bilingual analyzers (placeholders, QA) on each French
block against its source, as `--target` does, and points at the French file's lines; the
same through a diff, worker processes and the post-edit hook (the MCP door is in kapi-mcp's
tests).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

KAPI = str(Path(sys.executable).with_name("kapi"))

RECIPE = """\
version: v1
id: prj_translationcheck00000000000
name: translation-check
defaults:
  source_language: en
  target_languages: [fr, ja, ru]
collections:
  - name: ui
    content:
      - path: locales/en.json
        target: locales/{lang}.json
"""

SOURCE = {
    "title": "Your files",
    "moved": "{count} files moved to {folder}",
    "left": "{count, plural, one {# file left} other {# files left}}",
}


def write(root: Path, name: str, data: dict[str, str]) -> None:
    (root / "locales" / name).write_text(
        json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "app"
    (root / "locales").mkdir(parents=True)
    (root / "kapi.yaml").write_text(RECIPE, encoding="utf-8")
    write(root, "en.json", SOURCE)
    write(
        root,
        "fr.json",
        {
            "title": "Vos fichiers",
            "moved": "Fichiers déplacés vers {folder}",  # {count} dropped
            "left": "{count, plural, one {# fichier restant} other {# fichiers restants}}",
        },
    )
    write(
        root,
        "ja.json",
        {
            "title": "ファイル",
            "moved": "{count} 件のファイルを {folder} に移動しました",
            "left": "{count, plural, other {残り # 件}}",
        },
    )
    write(
        root,
        "ru.json",
        {
            "title": "Ваши файлы",
            "moved": "{count} файлов перемещено в {folder}",
            # Russian needs few and many too
            "left": "{count, plural, one {остался # файл} other {осталось # файла}}",
        },
    )
    return root


def kapi(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("KAPI_", "CLAUDE"))}
    environ.update(env or {})
    return subprocess.run(
        [KAPI, *args], cwd=root, capture_output=True, text=True, env=environ, timeout=120
    )


def failing(report: dict) -> list[tuple[str, str, str, int]]:
    return [
        (f["location"]["file"], f["location"]["block"], f["rule"], f["location"]["lines"]["start"])
        for f in report["findings"]
        if f["fails"]
    ]


def test_a_french_file_that_drops_a_placeholder_fails_at_its_line(project):
    done = kapi(project, "check", "locales/fr.json", "--json")
    assert done.returncode == 3, done.stderr
    report = json.loads(done.stdout)
    assert failing(report) == [("locales/fr.json", "moved", "placeholder.missing", 3)]
    assert "{count}" in report["findings"][0]["message"]
    runs = {run["id"]: run["status"] for run in report["execution"]["analyzers"]}
    assert runs["qa"] == "passed" and runs["placeholder"] == "findings"
    # The same pairing as --target, which reports it at the source's line.
    paired = json.loads(
        kapi(
            project, "check", "locales/en.json", "--target", "locales/fr.json", "--target-lang",
            "fr", "--json",
        ).stdout
    )  # fmt: skip
    assert [(b, r) for _, b, r, _ in failing(paired)] == [("moved", "placeholder.missing")]
    text = kapi(project, "check", "locales/fr.json")
    assert "locales/fr.json:3" in text.stderr + text.stdout


def test_the_plural_forms_a_language_needs_are_checked_in_its_file(project):
    assert kapi(project, "check", "locales/ja.json").returncode == 0  # other alone is Japanese
    report = json.loads(kapi(project, "check", "locales/ru.json", "--json").stdout)
    assert failing(report) == [("locales/ru.json", "left", "qa.plural", 4)]
    assert "few, many" in report["findings"][0]["message"]


def test_a_qa_rule_fails_in_the_translation_not_in_its_source(project):
    write(project, "fr.json", {**SOURCE, "moved": "{count} fichiers\tdéplacés vers {folder}"})
    report = json.loads(kapi(project, "check", "locales/fr.json", "--json").stdout)
    assert failing(report) == [("locales/fr.json", "moved", "qa.tabs", 3)]
    assert kapi(project, "check", "locales/en.json").returncode == 0


def test_worker_processes_and_a_diff_pair_the_file_too(project):
    report = json.loads(
        kapi(
            project,
            "check",
            "locales/en.json",
            "locales/fr.json",
            "locales/ja.json",
            "locales/ru.json",
            "--json",
            env={"KAPI_CHECK_WORKERS": "2"},
        ).stdout
    )
    assert sorted(failing(report)) == [
        ("locales/fr.json", "moved", "placeholder.missing", 3),
        ("locales/ru.json", "left", "qa.plural", 4),
    ]
    patch = project / "fr.diff"
    patch.write_text(
        "--- a/locales/fr.json\n+++ b/locales/fr.json\n@@ -3 +3 @@\n"
        '-  "moved": "x",\n+  "moved": "Fichiers déplacés vers {folder}",\n',
        encoding="utf-8",
    )
    diffed = json.loads(kapi(project, "check", "--diff-file", "fr.diff", "--json").stdout)
    assert failing(diffed) == [("locales/fr.json", "moved", "placeholder.missing", 3)]


def test_the_post_edit_hook_blocks_on_the_translations_fault(project):
    payload = {
        "session_id": "s-translation-check",
        "cwd": str(project),
        "hook_event_name": "PostToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": str(project / "locales/fr.json"), "content": "…"},
    }
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("KAPI_", "CLAUDE"))}
    done = subprocess.run(
        [KAPI, "hook", "post-edit"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=environ,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    verdict = json.loads(done.stdout)
    assert verdict["decision"] == "block"
    assert "locales/fr.json:3 [placeholder.missing]" in verdict["reason"]
