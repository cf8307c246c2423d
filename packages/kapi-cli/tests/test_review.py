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


def test_the_mcp_review_set_serves_the_queue_and_one_block_and_takes_an_agents_advice(project):
    import asyncio

    import mcp_types as types
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    async def main():
        params = StdioServerParameters(
            command=KAPI,
            args=["mcp", "--tools", "review"],
            cwd=str(project),
            env={"PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin", "HOME": str(project)},
        )
        async with Client(
            params, mode="legacy", client_info=types.Implementation(name="reviewer", version="1")
        ) as client:
            listed = await client.call_tool("review_queue", {"language": "de"})
            item = json.loads(listed.content[0].text)["pending"][0]
            op = {**_advice(item), "score": 64, "reasons": ["too formal"]}
            advised = await client.call_tool("apply_edits", {"ops": [op]})
            shown = await client.call_tool("review_block", {"at": item["ref"]})
            missing = await client.call_tool(
                "review_block", {"at": {"doc": "locales/en.json", "block": "bye", "edition": "de"}}
            )
            return item, advised, json.loads(shown.content[0].text), missing

    item, advised, shown, missing = asyncio.run(main())
    assert item["ref"] == {"doc": "locales/en.json", "block": "hello", "edition": "de"}
    assert not advised.is_error, advised.content[0].text
    assert shown["rev"] == item["rev"] and shown["score"] == 64 and not shown["established"]
    assert [d["outcome"] for d in shown["decisions"]] == ["advise"]
    assert missing.is_error and "not_found" in missing.content[0].text


def _advice(item):
    return {"op": "decide", "at": item["ref"], "if_match": item["rev"], "outcome": "advise"}


def test_an_edit_drops_an_agents_advice_from_the_queue(project):
    item = queue(project, "--language", "de")["pending"][0]
    assert decide(project, item, "advise", actor="agent", score=90).returncode == 0
    edit = {"op": "set_content", "at": item["ref"], "if_match": item["rev"], "text": "Servus"}
    done = run(project, "apply", "--json", "-", stdin=json.dumps({"ops": [edit]}))
    assert done.returncode == 0, done.stdout + done.stderr
    shown = queue(project, "--language", "de")["pending"][0]
    assert shown["target"] == "Servus" and shown["score"] is None and shown["rev"] != item["rev"]
