"""The real ``kapi mcp`` over stdio, driven by the MCP SDK's own client as an agent host does."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "shop"
KAPI = str(Path(sys.executable).with_name("kapi"))
CONFORMANCE = ROOT / "tests" / "conformance" / "neokapi-mcp-v1"
WRITING = {
    "context_read",
    "context_search",
    "context_note",
    "context_session_summary",
    "check_file",
    "read_blocks",
    "apply_edits",
    "describe_format",
}


def _env(home: Path) -> dict[str, str]:
    return {"PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin", "HOME": str(home)}


def run(
    cwd: Path,
    body: Callable[[Any], Awaitable[Any]],
    *args: str,
    client_name: str = "test-agent",
) -> Any:
    """Start ``kapi mcp ARGS`` in ``cwd``, connect the SDK client, run ``body(client)``."""
    import mcp_types as types
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    async def main() -> Any:
        params = StdioServerParameters(
            command=KAPI, args=["mcp", *args], cwd=str(cwd), env=_env(cwd)
        )
        async with Client(
            params,
            mode="legacy",
            client_info=types.Implementation(name=client_name, version="1.0"),
        ) as client:
            return await body(client)

    return asyncio.run(main())


def payload(result: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(result.content[0].text)
    assert data == result.structured_content
    return data


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    shutil.copytree(EXAMPLE, root)
    return root


def test_initialize_sends_the_writing_habits_and_the_default_list_is_the_writing_set(shop):
    async def body(client):
        tools = await client.list_tools()
        templates = await client.list_resource_templates()
        return client.instructions, {t.name for t in tools.tools}, templates

    instructions, names, templates = run(shop, body)
    assert names == WRITING
    words = len(instructions.split())
    assert words <= 145, words
    assert "\u2014" not in instructions
    for banned in ("portal", "voice_guide", "term_lookup", "external-command", "kapi up"):
        assert banned not in instructions
    mentioned = re.findall(
        r"\b(?:context|check)_[a-z_]+\b|\b(?:read_blocks|apply_edits|describe_format)\b",
        instructions,
    )
    assert mentioned and set(mentioned) <= WRITING
    for habit in (
        "`AGENTS.md and CLAUDE.md`",
        "`from, to, path`",
        "`withdraw`",
        "`A person decides what becomes a rule`",
        "name",
        "spelling variety",
        "two ways",
    ):
        assert habit in instructions
    assert re.search(r"your (own )?text does not", instructions)
    assert not re.search(
        r"(?i)before (you change|you write|writing|every)[^.]*context_read", instructions
    )
    assert sorted(t.uri_template for t in templates.resource_templates) == [
        "context://profile/{name}{?format,project}",
        "context://{+path}{?format,project}",
    ]


def test_an_unknown_tool_set_fails_at_start_with_the_list(shop):
    done = subprocess.run(
        [KAPI, "mcp", "--tools", "writing,bogus"],
        cwd=shop,
        env=_env(shop),
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=30,
    )
    assert done.returncode == 2
    assert "unknown tool set 'bogus'" in done.stderr
    assert "writing, content, translation, review, all" in done.stderr


def _normalised(schema: dict[str, Any]) -> dict[str, Any]:
    def kind(value: dict[str, Any]) -> Any:
        found = value.get("type")
        return tuple(sorted(found)) if isinstance(found, list) else found

    return {
        "properties": {k: kind(v) for k, v in (schema.get("properties") or {}).items()},
        "required": sorted(schema.get("required") or []),
    }


def test_all_tools_extend_the_reference_servers_frozen_surface(shop):
    frozen = json.loads((CONFORMANCE / "mcp_tools.frozen.json").read_text())["tools"]

    async def body(client):
        return (await client.list_tools()).tools

    served = {t.name: t.input_schema for t in run(shop, body, "--tools", "all")}
    for tool in frozen:
        name = tool["name"]
        assert name in served, f"{name} is no longer served"
        mine, theirs = _normalised(served[name]), _normalised(tool["input_schema"])
        for prop, kind in theirs["properties"].items():
            assert prop in mine["properties"], f"{name}.{prop} was removed"
            if name != "apply_edits":
                assert mine["properties"][prop] == kind, (name, prop)
        assert set(mine["required"]) <= set(theirs["required"]) | set(), (name, mine["required"])
    # the recording tools of the generation before context_note are served only under all
    assert {"context_observe", "context_correct", "context_withdraw"} <= set(served)


def test_the_edit_loop_read_apply_stale_and_a_refused_decide(shop):
    async def body(client):
        page = payload(await client.call_tool("read_blocks", {"doc": "locales/en.json"}))
        first = page["blocks"][0]
        edit = {
            "ops": [
                {
                    "op": "replace_text",
                    "at": first["ref"],
                    "if_match": first["rev"],
                    "edits": [{"find": first["text"], "text": "Start"}],
                }
            ]
        }
        applied = await client.call_tool("apply_edits", edit)
        again = await client.call_tool("apply_edits", edit)
        decide = await client.call_tool(
            "apply_edits",
            {
                "ops": [
                    {
                        "op": "decide",
                        "at": {**first["ref"], "edition": "fr"},
                        "if_match": first["editions"]["fr"]["rev"],
                        "outcome": "establish",
                        "score": 90,
                    }
                ]
            },
        )
        return first, applied, again, decide

    first, applied, again, decide = run(shop, body)
    assert first["ref"]["block"] == "nav.home" and first["rev"].startswith("r:")
    assert not applied.is_error, applied.content[0].text
    assert payload(applied)["status"] == "applied"
    assert json.loads((shop / "locales/en.json").read_text())["nav"]["home"] == "Start"
    assert again.is_error
    stale = payload(again)["ops"][0]["error"]
    assert stale["code"] == "stale"
    assert decide.is_error
    assert payload(decide)["ops"][0]["error"]["code"] == "not_permitted"


def test_undeclared_arguments_and_wrong_types_are_error_results_naming_them(shop):
    async def body(client):
        actor = await client.call_tool(
            "read_blocks", {"doc": "locales/en.json", "actor": {"kind": "person"}}
        )
        wrong = await client.call_tool("read_blocks", {"doc": 3})
        outside = await client.call_tool("read_blocks", {"doc": "../../etc/passwd"})
        broken = await client.call_tool("apply_edits", {"ops": [{"op": "set_content"}]})
        return actor, wrong, outside, broken

    actor, wrong, outside, broken = run(shop, body)
    assert actor.is_error and "actor" in payload(actor)["message"]
    assert wrong.is_error and payload(wrong)["code"] == "invalid"
    assert outside.is_error and "outside the project" in payload(outside)["message"]
    assert str(shop.parent) not in outside.content[0].text  # no path beyond the root is shown
    assert broken.is_error and payload(broken)["code"] == "invalid"


def test_check_file_answers_what_kapi_check_json_answers(shop):
    (shop / "docs" / "clean.md").write_text("# Clean\n\nOpen your basket to pay.\n")

    async def body(client):
        failing = payload(await client.call_tool("check_file", {"file": "docs/getting-started.md"}))
        passing = payload(await client.call_tool("check_file", {"file": "docs/clean.md"}))
        return failing, passing

    failing, passing = run(shop, body)
    for report, file in ((failing, "docs/getting-started.md"), (passing, "docs/clean.md")):
        cli = subprocess.run(
            [KAPI, "check", file, "--json"],
            cwd=shop,
            env=_env(shop),
            capture_output=True,
            text=True,
        )
        expected = json.loads(cli.stdout)
        assert report["verdict"] == expected["verdict"]
        assert [f["rule"] for f in report["findings"]] == [f["rule"] for f in expected["findings"]]
    assert failing["verdict"] == "failed" and passing["verdict"] == "passed"


def test_check_file_on_a_translation_compares_it_with_its_source(shop):
    french = shop / "locales" / "fr.json"
    french.write_text(
        french.read_text(encoding="utf-8").replace("Payer {{amount}} maintenant", "Payer"),
        encoding="utf-8",
    )

    async def body(client):
        return payload(await client.call_tool("check_file", {"file": "locales/fr.json"}))

    report = run(shop, body)
    assert report["verdict"] == "failed"
    assert [
        (f["rule"], f["location"]["file"], f["location"]["block"], f["location"]["lines"]["start"])
        for f in report["findings"]
        if f["fails"]
    ] == [("placeholder.missing", "locales/fr.json", "checkout.pay", 10)]


def test_a_note_recorded_in_one_server_is_visible_to_the_next_and_is_the_agents(shop):
    async def note(client):
        recorded = await client.call_tool(
            "context_note",
            {"term": "basket", "instead_of": ["trolley"], "path": "docs/getting-started.md"},
        )
        summary = payload(await client.call_tool("context_session_summary", {}))
        return recorded, summary

    recorded, summary = run(shop, note, client_name="claude-code")
    assert not recorded.is_error, recorded.content[0].text
    noted = payload(recorded)
    assert noted["status"] in ("suggested", "contested")
    assert summary["session"] == noted["session"] and summary["session"].startswith("s")

    async def look(client):
        return payload(await client.call_tool("context_search", {"query": "basket"}))

    found = run(shop, look)
    assert "basket" in json.dumps(found)
    log = subprocess.run(
        [KAPI, "context", "log", "--json"], cwd=shop, env=_env(shop), capture_output=True, text=True
    )
    assert '"agent"' in log.stdout and "claude-code" in log.stdout


def test_one_server_answers_for_two_projects_and_refuses_a_path_in_none(shop, tmp_path):
    other = tmp_path / "other"
    shutil.copytree(EXAMPLE, other)
    (other / "docs" / "getting-started.md").write_text("# Other\n\nA clean page.\n")
    loose = tmp_path / "loose"
    loose.mkdir()

    async def body(client):
        here = payload(await client.call_tool("check_file", {"file": "docs/getting-started.md"}))
        there = payload(
            await client.call_tool(
                "check_file", {"file": "docs/getting-started.md", "project": str(other)}
            )
        )
        none = await client.call_tool("context_note", {"text": "x", "project": str(loose)})
        return here, there, none

    here, there, none = run(shop, body)
    assert here["verdict"] == "failed" and there["verdict"] == "passed"
    assert none.is_error and "no kapi.yaml" in payload(none)["message"]


def test_the_context_resource_is_the_same_text_as_context_read(shop):
    async def body(client):
        read = payload(await client.call_tool("context_read", {"path": "docs/getting-started.md"}))
        resource = await client.read_resource("context://docs/getting-started.md")
        return read, resource

    read, resource = run(shop, body)
    assert resource.contents[0].text == read["text"]
    assert read["mime_type"] == "text/markdown"


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])
def test_the_handshake_of_each_protocol_version_is_answered(shop, version):
    message = {
        "jsonrpc": "2.0",
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1.0"},
        },
        "id": 1,
    }
    answers = []
    for command, extra in (
        ([KAPI, "mcp"], {}),
        ([str(Path(KAPI).with_name("kapi-mcp"))], {}),
        ([KAPI, "mcp"], {"KAPI_MCP_SDK_HANDSHAKE": "1"}),  # the SDK's own answer
    ):
        done = subprocess.run(
            command,
            cwd=shop,
            env={**_env(shop), **extra},
            input=json.dumps(message) + "\n",
            capture_output=True,
            text=True,
            timeout=60,
        )
        lines = done.stdout.splitlines()
        assert len(lines) == 1, lines  # one answer: the handshake is never answered twice
        answer = json.loads(lines[0])
        answers.append(answer)
        assert answer["result"]["protocolVersion"] == version
        assert answer["result"]["serverInfo"]["name"] == "kapi"
        assert "context_note" in answer["result"]["instructions"]
    assert answers[0] == answers[1] == answers[2]


def test_the_fast_handshake_knows_the_sdks_versions():
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    from kapi.mcp.server import HANDSHAKE_VERSIONS

    assert HANDSHAKE_VERSIONS == HANDSHAKE_PROTOCOL_VERSIONS


def test_describe_and_detect_format_with_the_content_set(shop):
    async def body(client):
        names = {t.name for t in (await client.list_tools()).tools}
        detected = payload(await client.call_tool("detect_format", {"path": "locales/en.json"}))
        described = payload(await client.call_tool("describe_format", {"doc": "locales/en.json"}))
        neither = await client.call_tool("describe_format", {})
        unknown = await client.call_tool("detect_format", {"path": "notes.qqq"})
        return names, detected, described, neither, unknown

    names, detected, described, neither, unknown = run(shop, body, "--tools", "writing,content")
    assert {"check_text", "detect_format"} <= names and "translate" not in names
    assert detected["has_reader"] and detected["has_writer"] and ".json" in detected["extensions"]
    assert described["ops"]["set_content"] is not None
    assert neither.is_error and "one of them" in payload(neither)["message"]
    assert unknown.is_error


def _import_terms(root: Path) -> None:
    subprocess.run(
        [KAPI, "terms", "import", "terms.json"],
        cwd=root,
        env=_env(root),
        check=True,
        capture_output=True,
    )


def test_voice_check_and_rewrite_use_the_checker_and_its_replacements(shop):
    _import_terms(shop)

    async def body(client):
        checked = payload(
            await client.call_tool("voice_check", {"text": "Open the control panel now."})
        )
        rewritten = payload(
            await client.call_tool(
                "voice_rewrite", {"text": "Control panel first, then the control panel."}
            )
        )
        pack = payload(
            await client.call_tool(
                "voice_check", {"text": "Simply click it.", "profile_pack": "technical-docs"}
            )
        )
        outside = await client.call_tool(
            "voice_check", {"text": "x", "profile_file": "../elsewhere/voice.yaml"}
        )
        return checked, rewritten, pack, outside

    checked, rewritten, pack, outside = run(shop, body, "--tools", "content")
    assert [f["rule"] for f in checked["findings"]] == ["terms.vocabulary"]
    assert rewritten["rewritten"] == "Dashboard first, then the dashboard."
    assert rewritten["changes"] == [{"from": "control panel", "to": "dashboard", "count": 2}]
    assert pack["profile"] == "technical-docs" and pack["score"] < 100
    assert outside.is_error and "voices/" in payload(outside)["message"]


def test_the_first_generations_tools_keep_their_shapes(shop):
    _import_terms(shop)

    async def body(client):
        names = {t.name for t in (await client.list_tools()).tools}
        formats = payload(await client.call_tool("list_formats", {}))
        extracted = payload(await client.call_tool("extract_content", {"path": "locales/en.json"}))
        counted = payload(await client.call_tool("word_count", {"path": "locales/en.json"}))
        looked = payload(await client.call_tool("term_lookup", {"term": "dashboard"}))
        return names, formats, extracted, counted, looked

    names, formats, extracted, counted, looked = run(shop, body, "--all-tools")
    assert {"extract_content", "word_count", "brand_check", "tm_search"} <= names
    assert formats["total"] == len(formats["formats"])
    assert {"name", "display_name", "extensions", "has_reader", "has_writer"} <= set(
        formats["formats"][0]
    )
    assert extracted["format"] == "json"
    assert extracted["blocks"][0] == {"id": "nav.home", "source_text": "Home", "word_count": 1}
    assert counted["word_count"] == extracted["word_count"] > 0
    assert counted["block_count"] == len(extracted["blocks"])
    assert looked["total"] >= 1 and looked["matches"][0]["term"] == "dashboard"

    async def default(client):
        return {t.name for t in (await client.list_tools()).tools}

    assert not run(shop, default) & {"extract_content", "word_count", "brand_check", "term_lookup"}


def test_every_request_refreshes_the_agents_presence_row(shop):
    import sqlite3

    async def body(client):
        await client.call_tool("read_blocks", {"doc": "locales/en.json", "limit": 1})
        return None

    run(shop, body, client_name="cursor")
    rows = (
        sqlite3.connect(shop / ".kapi" / "project.db")
        .execute("SELECT id, agent FROM agent_sessions")
        .fetchall()
    )
    assert any(agent == "cursor" and session.startswith("s") for session, agent in rows), rows


def test_a_client_that_disconnects_mid_call_leaves_a_clean_exit_and_a_whole_file(shop):
    before = (shop / "locales/en.json").read_bytes()
    records = json.loads(
        subprocess.run(
            [KAPI, "inspect", "locales/en.json"],
            cwd=shop,
            env=_env(shop),
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    first = records[0]
    messages = [
        {
            "jsonrpc": "2.0",
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "gone", "version": "1"},
            },
            "id": 1,
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "method": "tools/call",
            "params": {
                "name": "apply_edits",
                "arguments": {
                    "ops": [
                        {
                            "op": "set_content",
                            "at": first["ref"],
                            "if_match": first["rev"],
                            "text": "Welcome",
                        }
                    ]
                },
            },
            "id": 2,
        },
    ]
    process = subprocess.Popen(
        [KAPI, "mcp"],
        cwd=shop,
        env=_env(shop),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdin is not None
    process.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
    process.stdin.close()  # gone before any answer is read
    process.wait(timeout=60)
    assert process.stderr is not None
    stderr = process.stderr.read()
    assert process.returncode == 0, stderr.decode()
    assert b"Traceback" not in stderr
    after = (shop / "locales/en.json").read_bytes()
    # the set landed whole or not at all: the file is the original or the edited one, parseable
    data = json.loads(after)
    assert after == before or data["nav"]["home"] == "Welcome"


def test_the_translation_set_translates_plans_and_converges_with_the_pseudo_provider(shop):
    async def body(client):
        names = {t.name for t in (await client.list_tools()).tools}
        text = payload(
            await client.call_tool("translate", {"text": "Your cart", "provider": "pseudo"})
        )
        plan = payload(await client.call_tool("up_plan", {}))
        done = payload(await client.call_tool("up", {"local": True}))
        again = payload(await client.call_tool("up_plan", {}))
        return names, text, plan, done, again

    names, text, plan, done, again = run(shop, body, "--tools", "translation")
    assert names == {"translate", "up", "up_plan", "stats"}
    assert (
        text["language"] == "fr" and text["text"] != "Your cart" and "ç" in text["text"]
    ) or "å" in text["text"]
    assert plan["plan"] is True and done["provider"] == "pseudo"
    before = sum(language["missing"] for language in plan["languages"])
    after = sum(language["missing"] for language in again["languages"])
    assert done["written"] > 0 and after < before, (plan, again)
    # the translations landed in the project's own files, as kapi up writes them
    assert json.loads((shop / "locales/fr.json").read_text()) != json.loads(
        (EXAMPLE / "locales/fr.json").read_text()
    )


def test_flows_tools_and_pseudo_translate_behind_the_widening_flags(shop):
    async def body(client):
        flows = payload(await client.call_tool("list_flows", {}))
        tools = payload(await client.call_tool("list_tools", {}))
        pseudo = payload(await client.call_tool("pseudo_translate", {"path": "locales/en.json"}))
        return flows, tools, pseudo

    flows, tools, pseudo = run(shop, body, "--all")
    assert flows["total"] == len(flows["flows"]) and "pseudo-translate" in {
        f["name"] for f in flows["flows"]
    }
    assert "redact" in {t["name"] for t in tools["tools"]}
    assert not {"external-command", "script", "command"} & {t["name"] for t in tools["tools"]}
    assert pseudo["output_path"] and (shop / pseudo["output_path"]).is_file()


def test_extract_content_shows_a_pairs_text_and_a_placeholder_as_written(tmp_path):
    (tmp_path / "page.md").write_text("Run **kapi check** with {count} files.\n")

    async def body(client):
        return payload(await client.call_tool("extract_content", {"path": "page.md"}))

    extracted = run(tmp_path, body, "--all-tools")
    assert extracted["blocks"][0]["source_text"] == "Run kapi check with {count} files."


def test_up_sends_progress_notifications_when_the_client_asks_for_them(shop):
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress, total, message):
        seen.append((progress, total, message))

    async def body(client):
        return await client.call_tool("up", {"local": True}, progress_callback=on_progress)

    result = run(shop, body, "--tools", "translation")
    assert not result.is_error or payload(result).get("refused"), result.content[0].text
    assert seen, "no progress was sent"
    assert seen[-1][0] == seen[-1][1]  # the last one says all is done
    assert any(message and "locales/en.json" in message for _, _, message in seen)


def test_the_stateless_revision_is_served_over_stdio_and_knows_its_client(shop):
    import mcp_types as types
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    async def main():
        params = StdioServerParameters(command=KAPI, args=["mcp"], cwd=str(shop), env=_env(shop))
        async with Client(
            params, client_info=types.Implementation(name="modern-agent", version="1")
        ) as client:
            noted = await client.call_tool(
                "context_note",
                {"term": "basket", "instead_of": ["trolley"], "path": "docs/getting-started.md"},
            )
            return client.protocol_version, noted

    version, noted = asyncio.run(main())
    assert version == "2026-07-28"
    assert not noted.is_error, noted.content[0].text
    assert "modern-agent" in payload(noted)["recorded"]


# --- arguments that name a file: each does what it says, inside the project only ----------


def test_redact_runs_the_rules_file_it_is_given_and_refuses_one_outside_the_project(shop, tmp_path):
    (shop / "redaction.yaml").write_text(
        "rules:\n  - term: Project Falcon\n    category: codename\n", encoding="utf-8"
    )
    (shop / "broken.yaml").write_text("rules:\n  - category: codename\n", encoding="utf-8")
    (tmp_path / "outside.yaml").write_text(
        "rules:\n  - term: Falcon\n    category: codename\n", encoding="utf-8"
    )
    text = "Project Falcon ships Friday; write to ops@example.com."

    async def body(client):
        plain = payload(await client.call_tool("redact", {"text": text}))
        ruled = payload(
            await client.call_tool("redact", {"text": text, "rulesPath": "redaction.yaml"})
        )
        outside = await client.call_tool("redact", {"text": text, "rulesPath": "../outside.yaml"})
        broken = await client.call_tool("redact", {"text": text, "rulesPath": "broken.yaml"})
        return plain, ruled, outside, broken

    plain, ruled, outside, broken = run(shop, body, "--tools", "content")
    assert [p["type"] for p in plain["placeholders"]] == ["email"]
    assert "Project Falcon" in plain["text"]
    assert [p["type"] for p in ruled["placeholders"]] == ["codename", "email"]
    assert "Falcon" not in ruled["text"] and ruled["text"].startswith("{{CODENAME_")
    assert outside.is_error and "outside the project" in payload(outside)["message"]
    assert str(tmp_path) not in outside.content[0].text
    assert broken.is_error and "broken.yaml" in payload(broken)["message"]
    assert "rules[0]" in payload(broken)["message"]


def test_pseudo_translate_writes_where_output_path_says_inside_the_project_only(shop, tmp_path):
    async def body(client):
        written = payload(
            await client.call_tool(
                "pseudo_translate", {"path": "locales/en.json", "output_path": "build/qps.json"}
            )
        )
        outside = await client.call_tool(
            "pseudo_translate", {"path": "locales/en.json", "output_path": "../escape.json"}
        )
        itself = await client.call_tool(
            "pseudo_translate", {"path": "locales/en.json", "output_path": "locales/en.json"}
        )
        return written, outside, itself

    source = (shop / "locales/en.json").read_bytes()
    written, outside, itself = run(shop, body, "--all")
    assert written["output_path"] == "build/qps.json"
    made = json.loads((shop / "build/qps.json").read_text(encoding="utf-8"))
    assert made.keys() == json.loads(source).keys() and made != json.loads(source)
    assert not (shop / "locales/qps.json").exists()  # the default target was not written
    assert outside.is_error and "outside the project" in payload(outside)["message"]
    assert not (tmp_path / "escape.json").exists()
    assert itself.is_error and "source file" in payload(itself)["message"]
    assert (shop / "locales/en.json").read_bytes() == source


_GLOSSARY = {
    "schemaVersion": "1.0",
    "kind": "kapi-terms",
    "concepts": [
        {
            "id": "term:en:widget",
            "source": "terminology",
            "terms": [
                {"text": "widget", "locale": "en", "status": "preferred"},
                {"text": "gizmo", "locale": "en", "status": "deprecated", "note": "use: widget"},
            ],
        }
    ],
}
_TMX = """<?xml version="1.0" encoding="UTF-8"?>
<tmx version="1.4"><header srclang="en" datatype="plaintext" segtype="sentence"
 adminlang="en" o-tmf="kapi" creationtool="kapi" creationtoolversion="1"/>
<body><tu><tuv xml:lang="en"><seg>Your gizmo order shipped</seg></tuv>
<tuv xml:lang="fr"><seg>Votre commande est partie</seg></tuv></tu></body></tmx>
"""


def test_context_search_searches_the_terms_and_memory_files_it_is_given(shop, tmp_path):
    (shop / "glossary.json").write_text(json.dumps(_GLOSSARY), encoding="utf-8")
    (shop / "approved.tmx").write_text(_TMX, encoding="utf-8")
    (tmp_path / "outside.json").write_text(json.dumps(_GLOSSARY), encoding="utf-8")

    async def body(client):
        own = payload(await client.call_tool("context_search", {"query": "gizmo"}))
        files = payload(
            await client.call_tool(
                "context_search",
                {"query": "gizmo", "terms": "glossary.json", "memory": "approved.tmx"},
            )
        )
        outside = await client.call_tool(
            "context_search", {"query": "gizmo", "terms": "../outside.json"}
        )
        unknown = await client.call_tool(
            "context_search", {"query": "gizmo", "memory": "approved.txt"}
        )
        return own, files, outside, unknown

    own, files, outside, unknown = run(shop, body)
    assert own["coverage"] == "empty" and not own.get("terms") and not own.get("precedent")
    assert files["coverage"] == "covered"
    assert [(t["term"], t["discouraged"]) for t in files["terms"]] == [("gizmo", True)]
    assert [(p["text"], p["locale"]) for p in files["precedent"]] == [
        ("Your gizmo order shipped", "en")
    ]
    assert files["precedent"][0]["entry_id"] == "approved.tmx#1"
    assert outside.is_error and "outside the project" in payload(outside)["message"]
    assert unknown.is_error and "approved.txt" in payload(unknown)["message"]
