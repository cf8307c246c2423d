"""`kapi review queue` through the real executable: pending translations with the ref and rev a
`decide` op takes; an agent's advice shows its score; a person's `establish` takes the edition off
the queue; an agent's `establish` is refused `not_permitted`; a stale decision is refused `stale`."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

KAPI = str(Path(sys.executable).with_name("kapi"))

RECIPE = """version: v1
id: prj_reviewtest00000000000000000
name: review
defaults:
  source_language: en
  target_languages: [fr, de]
collections:
  - name: ui
    content:
      - path: locales/en.json
        target: locales/{lang}.json
"""


def run(root, *args, actor="person", stdin=None):
    environ = {
        k: v for k, v in os.environ.items() if not k.startswith(("KAPI_", "CLAUDE", "CODEX"))
    }
    environ["KAPI_ACTOR"] = actor
    return subprocess.run(
        [KAPI, *args],
        cwd=root,
        capture_output=True,
        text=True,
        env=environ,
        input=stdin,
        timeout=120,
    )


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "project"
    (root / "locales").mkdir(parents=True)
    (root / "kapi.yaml").write_text(RECIPE, encoding="utf-8")
    (root / "locales/en.json").write_text(
        '{"hello": "Hello", "bye": "Goodbye"}\n', encoding="utf-8"
    )
    (root / "locales/fr.json").write_text(
        '{"hello": "Bonjour", "bye": "Au revoir"}\n', encoding="utf-8"
    )
    (root / "locales/de.json").write_text('{"hello": "Hallo"}\n', encoding="utf-8")
    return root


def queue(root, *args):
    done = run(root, "review", "queue", "--json", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def decide(root, item, outcome, actor="person", **extra):
    op = {"op": "decide", "at": item["ref"], "if_match": item["rev"], "outcome": outcome, **extra}
    return run(root, "apply", "--json", "-", actor=actor, stdin=json.dumps({"ops": [op]}))


def test_the_queue_lists_pending_translations_with_their_ref_and_rev(project):
    result = queue(project)
    assert result["total"] == 3
    assert {(i["ref"]["block"], i["ref"]["edition"]) for i in result["pending"]} == {
        ("hello", "fr"),
        ("bye", "fr"),
        ("hello", "de"),
    }
    assert result["languages"] == [
        {"language": "de", "pending": 1},
        {"language": "fr", "pending": 2},
    ]
    only_german = queue(project, "--language", "de")
    assert [i["target"] for i in only_german["pending"]] == ["Hallo"]
    assert queue(project, "--collection", "ui")["total"] == 3
    unknown = run(project, "review", "queue", "--collection", "nope")
    assert unknown.returncode == 2 and "no collection" in unknown.stderr


def test_advice_shows_and_a_persons_establish_takes_the_edition_off_the_queue(project):
    item = next(i for i in queue(project, "--language", "de")["pending"])
    advised = decide(project, item, "advise", actor="agent", score=82, reasons=["reads well"])
    assert advised.returncode == 0, advised.stdout + advised.stderr
    shown = queue(project, "--language", "de")["pending"][0]
    assert shown["score"] == 82 and shown["reasons"] == ["reads well"]
    refused = decide(project, item, "establish", actor="agent")
    assert refused.returncode == 3
    assert "not_permitted" in refused.stdout
    landed = decide(project, item, "establish")
    assert landed.returncode == 0, landed.stdout + landed.stderr
    assert queue(project, "--language", "de")["total"] == 0
    status = json.loads(run(project, "status", "--json").stdout)
    german = next(row for row in status["languages"] if row["language"] == "de")
    assert german["established"] == 1


def test_a_decision_on_a_revision_that_moved_is_refused_stale(project):
    item = next(i for i in queue(project, "--language", "de")["pending"])
    (project / "locales/de.json").write_text('{"hello": "Guten Tag"}\n', encoding="utf-8")
    done = decide(project, item, "establish")
    assert done.returncode == 3 and "stale" in done.stdout
    assert queue(project, "--language", "de")["pending"][0]["target"] == "Guten Tag"
