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
    assert shown["neighbours"] == [
        {"block": "bye", "position": "after", "source": "Goodbye", "target": ""}
    ]
    assert shown["memory"] is None and isinstance(shown["findings"], list)
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


def test_review_block_gives_the_memory_match_and_the_findings_on_the_target(project):
    (project / "locales/en.json").write_text(
        '{"hello": "Hello", "bye": "Goodbye!"}\n', encoding="utf-8"
    )
    remember = {
        "op": "memory",
        "action": "add",
        "from": {"edition": "en", "text": "Goodbye!"},
        "to": {"edition": "fr", "text": "Adieu !"},
    }
    assert run(project, "apply", "-", stdin=json.dumps({"ops": [remember]})).returncode == 0
    from kapi.host.review import review_block
    from kapi.host.workspace import open_workspace

    workspace = open_workspace(project=str(project))
    try:
        shown = review_block(workspace, "locales/en.json", "bye", "fr").encoded()
    finally:
        workspace.close()
    assert shown["memory"]["target"] == "Adieu !" and shown["memory"]["score"] == 1.0
    assert shown["neighbours"][0]["block"] == "hello"
    assert shown["neighbours"][0]["target"] == "Bonjour"
    endpunc = next(f for f in shown["findings"] if f["rule"] == "qa.endpunc")
    assert endpunc["on"] == "target" and not endpunc["fails"]


def walk(root, answers, *args):
    """Run `kapi review` in a pseudo-terminal, answering each prompt as it appears."""
    import pty
    import select

    environ = {
        k: v for k, v in os.environ.items() if not k.startswith(("KAPI_", "CLAUDE", "CODEX"))
    }
    pid, fd = pty.fork()
    if pid == 0:  # the child: kapi in a terminal
        os.chdir(root)
        os.execve(KAPI, [KAPI, "review", *args], environ)
    output, sent = b"", 0
    while True:
        ready, _, _ = select.select([fd], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
        prompts = output.count(b"[q]uit") + output.count(b"new text") + output.count(b"why")
        while sent < min(prompts, len(answers)):
            os.write(fd, answers[sent].encode() + b"\n")
            sent += 1
    os.waitpid(pid, 0)
    return output.decode("utf-8", "replace")


def test_the_terminal_walk_shows_each_edition_and_establishes_rejects_and_edits(project):
    (project / "locales/en.json").write_text(
        '{"hello": "Hello", "bye": "Goodbye!"}\n', encoding="utf-8"
    )
    item = next(
        i for i in queue(project, "--language", "fr")["pending"] if i["ref"]["block"] == "hello"
    )
    assert (
        decide(project, item, "advise", actor="agent", score=71, reasons=["a bit stiff"]).returncode
        == 0
    )
    # hello: establish; bye: reject (with a reason), then edit and establish the new text
    shown = walk(project, ["e", "r", "too short", "q"], "--language", "fr")
    assert "[1/2] locales/en.json hello → fr" in shown
    assert "source: Hello" in shown and "target: Bonjour" in shown
    assert "advice: 71/100: a bit stiff" in shown
    assert "note qa.endpunc (target)" in shown  # "Goodbye!" and "Au revoir"
    assert "established" in shown and "rejected" in shown
    pending = {i["ref"]["block"]: i for i in queue(project, "--language", "fr")["pending"]}
    assert set(pending) == {"bye"}  # a rejection keeps it waiting for a better translation
    shown = walk(project, ["d", "Au revoir !", "e"], "--language", "fr")
    assert "target: Au revoir !" in shown and "established" in shown
    assert json.loads((project / "locales/fr.json").read_text(encoding="utf-8"))["bye"] == (
        "Au revoir !"
    )
    assert queue(project, "--language", "fr")["total"] == 0
    status = json.loads(run(project, "status", "--json").stdout)
    french = next(row for row in status["languages"] if row["language"] == "fr")
    assert french["established"] == 2


def test_the_walk_outside_a_terminal_says_how_and_exits_2(project):
    done = run(project, "review", stdin="e\n")
    assert done.returncode == 2
    assert "in a terminal" in done.stderr and "kapi review queue --json" in done.stderr
    assert "Traceback" not in done.stderr


def translate_after(root, value):
    recipe = root / "kapi.yaml"
    recipe.write_text(
        recipe.read_text(encoding="utf-8").replace(
            "  target_languages: [fr, de]\n",
            f"  target_languages: [fr, de]\n  translate_after: {value}\n",
        ),
        encoding="utf-8",
    )


def test_sources_wait_for_a_persons_decision_when_translation_waits_for_them(project):
    translate_after(project, "established")
    result = queue(project)
    sources = [i for i in result["pending"] if i["is_source"]]
    assert [(i["ref"], i["status"]) for i in sources] == [
        ({"doc": "locales/en.json", "block": "hello"}, "written"),
        ({"doc": "locales/en.json", "block": "bye"}, "written"),
    ]
    assert {"language": "en", "pending": 2} in result["languages"]
    assert queue(project, "--language", "fr")["total"] == 2  # sources are not French
    landed = decide(project, sources[0], "establish")
    assert landed.returncode == 0, landed.stdout + landed.stderr
    refused = decide(project, sources[1], "establish", actor="agent")
    assert refused.returncode == 3 and "not_permitted" in refused.stdout
    left = [i["ref"]["block"] for i in queue(project, "--language", "en")["pending"]]
    assert left == ["bye"]
    (project / "locales/en.json").write_text(
        '{"hello": "Hello there", "bye": "Goodbye"}\n', encoding="utf-8"
    )  # a new wording is written, not established
    assert [i["ref"]["block"] for i in queue(project, "--language", "en")["pending"]] == [
        "hello",
        "bye",
    ]


def test_a_recipe_with_an_unknown_translate_after_is_refused(project):
    translate_after(project, "approved")
    done = run(project, "review", "queue")
    assert done.returncode == 2
    assert "kapi.yaml:7: defaults.translate_after: translate_after is written or established" in (
        done.stderr
    )


def test_up_translates_only_established_sources_when_translation_waits_for_them(project):
    translate_after(project, "established")
    done = run(project, "up", "--provider", "pseudo", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    german = next(p for p in json.loads(done.stdout)["languages"] if p["language"] == "de")
    assert (german["missing"], german["waiting"]) == (0, 1)  # "bye" waits for its source
    assert "bye" not in json.loads((project / "locales/de.json").read_text(encoding="utf-8"))
    bye = next(
        i for i in queue(project, "--language", "en")["pending"] if i["ref"]["block"] == "bye"
    )
    assert decide(project, bye, "establish").returncode == 0
    done = run(project, "up", "--provider", "pseudo", "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["written"] == 1
    assert "bye" in json.loads((project / "locales/de.json").read_text(encoding="utf-8"))
