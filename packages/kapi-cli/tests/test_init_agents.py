"""``kapi init`` wires agent hosts: through the real executable, on real folders and git repositories."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import kapi.skill as skill

KAPI = str(Path(sys.executable).parent / "kapi")
ENTRY = {"type": "stdio", "command": "kapi", "args": ["mcp", "--project", "kapi.yaml"]}
TRANSLATING = {**ENTRY, "args": [*ENTRY["args"], "--tools", "writing,translation"]}


def _init(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KAPI_", "CLAUDE"))}
    env.pop("CODEX_SESSION_ID", None)
    return subprocess.run(
        [KAPI, "init", *args], cwd=root, capture_output=True, text=True, env=env, timeout=60
    )


def _tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.relative_to(root).as_posix().startswith(".git/")
    }


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "app"
    (root / "docs").mkdir(parents=True)
    (root / "docs/guide.md").write_text("# Guide\n\nOpen the settings.\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


@pytest.fixture
def translated(repo: Path) -> Path:
    (repo / "locales").mkdir()
    (repo / "locales/en.json").write_text('{"save": "Save"}\n', encoding="utf-8")
    (repo / "locales/fr.json").write_text('{"save": "Enregistrer"}\n', encoding="utf-8")
    return repo


def _json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _wiring(done: subprocess.CompletedProcess[str]) -> list[dict]:
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["agents"]["files"]


def test_a_fresh_repository_gains_the_mcp_entry_the_skill_and_the_rules(repo):
    done = _init(repo)
    assert done.returncode == 0, done.stderr
    assert _json(repo / ".mcp.json") == {"mcpServers": {"kapi": ENTRY}}
    skill_md = repo / ".claude/skills/kapi/SKILL.md"
    assert skill_md.read_bytes() == skill.installed_files()["SKILL.md"]
    assert sorted(p.name for p in (repo / ".claude/skills/kapi").iterdir()) == ["SKILL.md"]
    assert "<!-- kapi:rules" in (repo / "AGENTS.md").read_text(encoding="utf-8")
    for absent in (".cursor", ".vscode", ".codex", ".agents"):
        assert not (repo / absent).exists()
    assert "created .mcp.json (claude-code: kapi mcp --project kapi.yaml)" in done.stderr
    for path, body in _tree(repo).items():
        assert str(repo).encode() not in body, path  # every path written is relative


def test_a_recipe_with_target_languages_serves_the_translation_tools(translated):
    _init(translated, "--agents", "claude-code,vscode")
    assert _json(translated / ".mcp.json")["mcpServers"]["kapi"] == TRANSLATING
    assert _json(translated / ".vscode/mcp.json") == {"servers": {"kapi": TRANSLATING}}


def test_hosts_whose_folder_is_there_are_detected(repo):
    (repo / ".cursor").mkdir()
    (repo / ".agents").mkdir()
    files = _wiring(_init(repo, "--json"))
    assert [(f["host"], f["kind"], f["path"]) for f in files] == [
        ("claude-code", "mcp", ".mcp.json"),
        ("claude-code", "skill", ".claude/skills/kapi"),
        ("cursor", "mcp", ".cursor/mcp.json"),
        ("agents", "skill", ".agents/skills/kapi"),
    ]
    assert _json(repo / ".cursor/mcp.json") == {"mcpServers": {"kapi": ENTRY}}
    assert (repo / ".agents/skills/kapi/SKILL.md").is_file()


def test_agents_names_hosts_in_any_case_and_order_and_none_wires_nothing(repo, tmp_path):
    files = _wiring(_init(repo, "--json", "--agents", " Codex, claude-code "))
    assert [f["host"] for f in files] == ["claude-code", "claude-code", "codex"]
    other = tmp_path / "other"
    other.mkdir()
    assert _wiring(_init(other, "--json", "--agents", "none")) == []
    assert not (other / ".mcp.json").exists()
    assert not (other / ".claude").exists()


def test_an_unknown_host_is_refused_with_the_list_and_nothing_is_written(repo):
    before = _tree(repo)
    done = _init(repo, "--agents", "claude-code,zed")
    assert done.returncode == 2
    assert "unknown agent host 'zed'" in done.stderr
    assert "claude-code, cursor, vscode, codex, agents" in done.stderr
    assert "all" in done.stderr and "none" in done.stderr
    assert _tree(repo) == before
    assert "Traceback" not in done.stderr


def test_a_second_run_reports_only_unchanged_and_changes_no_byte(translated):
    first = _init(translated, "--agents", "all")
    assert first.returncode == 0, first.stderr
    before = _tree(translated)
    again = _wiring(_init(translated, "--json", "--agents", "all"))
    assert {f["action"] for f in again} == {"unchanged"}
    assert len(again) == 6
    assert _tree(translated) == before


def test_init_on_a_project_keeps_the_recipe_and_adds_wiring_and_rules(translated):
    recipe = "# my recipe, my comments\n" + (
        "version: v1\nid: prj_keptrecipe00000000000000000\nname: mine\n"
        "defaults:\n  source_language: en\n  target_languages: [fr]\n"
        "collections:\n  - name: ui\n    content:\n      - path: locales/en.json\n"
        "        target: locales/{lang}.json\n"
    )
    (translated / "kapi.yaml").write_text(recipe, encoding="utf-8")
    done = _init(translated)
    assert done.returncode == 0, done.stderr
    assert (translated / "kapi.yaml").read_text(encoding="utf-8") == recipe
    assert "kept" in done.stderr and "kapi.yaml" in done.stderr
    assert _json(translated / ".mcp.json")["mcpServers"]["kapi"] == TRANSLATING
    assert (translated / "AGENTS.md").is_file() and (translated / "CLAUDE.md").is_file()
    summary = json.loads(_init(translated, "--json").stdout)
    assert summary["recipe_written"] is False
    assert summary["id"] == "prj_keptrecipe00000000000000000"


def test_force_still_replaces_the_recipe_for_a_person(repo):
    (repo / "kapi.yaml").write_text(
        "version: v1\nid: prj_old0000000000000000000000000\nname: old\n"
        "defaults:\n  source_language: en\ncollections: []\n",
        encoding="utf-8",
    )
    done = _init(repo, "--force")
    assert done.returncode == 0, done.stderr
    recipe = (repo / "kapi.yaml").read_text(encoding="utf-8")
    assert "name: old" not in recipe and "docs/**/*.md" in recipe  # proposed afresh
    # ...under the id the store and extracted files carry
    assert "\nid: prj_old0000000000000000000000000\n" in recipe


# --- someone else's configuration ------------------------------------------------------------


def test_other_servers_and_keys_survive_and_kapis_entry_is_added(repo):
    held = {"inputs": [{"id": "token"}], "mcpServers": {"github": {"command": "gh-mcp"}}}
    (repo / ".mcp.json").write_text(json.dumps(held), encoding="utf-8")
    files = _wiring(_init(repo, "--json"))
    assert files[0]["action"] == "updated"
    assert _json(repo / ".mcp.json") == {
        "inputs": [{"id": "token"}],
        "mcpServers": {"github": {"command": "gh-mcp"}, "kapi": ENTRY},
    }
    assert (repo / ".mcp.json").read_text(encoding="utf-8").endswith("}\n")


def test_an_entry_called_kapi_that_someone_else_wrote_is_kept_byte_for_byte(repo):
    theirs = '{"mcpServers": {"kapi": {"command": "kapi", "args": ["mcp"], "env": {"X": "1"}}}}'
    (repo / ".mcp.json").write_text(theirs, encoding="utf-8")
    files = _wiring(_init(repo, "--json"))
    assert files[0] == {
        "kind": "mcp",
        "host": "claude-code",
        "path": ".mcp.json",
        "action": "kept",
        "detail": "already names a server called kapi",
        "removed": [],
        "kept": [],
    }
    assert (repo / ".mcp.json").read_text(encoding="utf-8") == theirs


def test_kapis_own_entry_follows_the_recipe(translated):
    (translated / ".mcp.json").write_text(json.dumps({"mcpServers": {"kapi": ENTRY}}), "utf-8")
    files = _wiring(_init(translated, "--json"))
    assert files[0]["action"] == "updated"
    assert _json(translated / ".mcp.json")["mcpServers"]["kapi"] == TRANSLATING


@pytest.mark.parametrize(
    ("path", "body", "says"),
    [
        (".cursor/mcp.json", "{not json", "holds JSON kapi could not read"),
        (".vscode/mcp.json", '{"servers": []}', "servers is not an object"),
        (".mcp.json", "[1]", "is not a JSON object"),
        (".codex/config.toml", "[mcp_servers\nbroken = ", "holds TOML kapi could not read"),
    ],
)
def test_an_invalid_host_file_is_refused_by_name_and_nothing_is_written(repo, path, body, says):
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    (repo / path).write_text(body, encoding="utf-8")
    before = _tree(repo)
    done = _init(repo, "--agents", "all")
    assert done.returncode == 2
    assert path in done.stderr and says in done.stderr
    assert _tree(repo) == before  # no recipe, no rules files, no other host's file
    assert "Traceback" not in done.stderr


def test_a_host_folder_that_resolves_outside_the_project_is_refused(repo, tmp_path):
    outside = tmp_path / "home-claude"
    outside.mkdir()
    (repo / ".claude").symlink_to(outside)
    done = _init(repo)
    assert done.returncode == 2
    assert ".claude/skills/kapi" in done.stderr and "outside the project" in done.stderr
    assert list(outside.iterdir()) == []


# --- Codex --------------------------------------------------------------------------------


CODEX_HELD = """\
# my Codex settings for this repository
model = "o4-mini"   # keep this comment

[sandbox]
mode = "workspace-write"

[mcp_servers.github]
command = "gh-mcp"
"""


def test_codex_gains_its_table_as_appended_text(repo):
    (repo / ".codex").mkdir()
    (repo / ".codex/config.toml").write_text(CODEX_HELD, encoding="utf-8")
    files = _wiring(_init(repo, "--json"))
    assert ("codex", "updated") in [(f["host"], f["action"]) for f in files]
    text = (repo / ".codex/config.toml").read_text(encoding="utf-8")
    assert text.startswith(CODEX_HELD + "\n[mcp_servers.kapi]\n")
    parsed = tomllib.loads(text)
    assert parsed["mcp_servers"]["github"] == {"command": "gh-mcp"}
    kapi = parsed["mcp_servers"]["kapi"]
    assert kapi["command"] == "kapi"
    assert kapi["args"] == ["mcp", "--project", "kapi.yaml"]
    assert "KAPI_AGENT_SESSION" in kapi["env_vars"]
    assert all(isinstance(name, str) and "=" not in name for name in kapi["env_vars"])
    again = _wiring(_init(repo, "--json"))
    assert [f["action"] for f in again if f["host"] == "codex"] == ["unchanged"]
    assert (repo / ".codex/config.toml").read_text(encoding="utf-8") == text
    assert "once the person trusts this repository" in _init(repo).stderr


def test_codex_kapi_table_of_an_earlier_shape_is_replaced_in_place(translated):
    earlier = '[mcp_servers.kapi]\ncommand = "kapi"\nargs = ["mcp", "--project", "kapi.yaml"]\n'
    (translated / ".codex").mkdir()
    (translated / ".codex/config.toml").write_text("# top\n" + earlier + "# tail\n", "utf-8")
    files = _wiring(_init(translated, "--json", "--agents", "codex"))
    assert files[0]["action"] == "updated"
    text = (translated / ".codex/config.toml").read_text(encoding="utf-8")
    assert text.startswith("# top\n[mcp_servers.kapi]\n") and text.endswith("# tail\n")
    assert tomllib.loads(text)["mcp_servers"]["kapi"]["args"][-2:] == [
        "--tools",
        "writing,translation",
    ]


def test_codex_kapi_table_someone_else_wrote_is_kept(repo):
    theirs = '[mcp_servers.kapi]\ncommand = "kapi"\nargs = ["mcp"]\nstartup_timeout_sec = 30\n'
    (repo / ".codex").mkdir()
    (repo / ".codex/config.toml").write_text(theirs, encoding="utf-8")
    files = _wiring(_init(repo, "--json", "--agents", "codex"))
    assert files[0]["action"] == "kept"
    assert (repo / ".codex/config.toml").read_text(encoding="utf-8") == theirs


# --- the skill folder ---------------------------------------------------------------------


def test_the_skill_folder_holds_what_this_kapi_ships(repo):
    folder = repo / ".claude/skills/kapi"
    (folder / "references").mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: kapi\n---\nan old skill\n", encoding="utf-8")
    retired = skill.skill_root() / "references/check.md"
    (folder / "references/check.md").write_bytes(retired.read_bytes())
    (folder / "my-notes.md").write_text("mine\n", encoding="utf-8")
    files = _wiring(_init(repo, "--json"))
    (wired,) = [f for f in files if f["kind"] == "skill"]
    assert wired["action"] == "updated"
    assert wired["detail"] == "1 file"
    assert wired["removed"] == ["references/check.md"]
    assert wired["kept"] == ["my-notes.md"]
    assert (folder / "SKILL.md").read_bytes() == skill.installed_files()["SKILL.md"]
    assert not (folder / "references").exists()  # emptied, so removed
    assert (folder / "my-notes.md").read_text(encoding="utf-8") == "mine\n"
    again = [f for f in _wiring(_init(repo, "--json")) if f["kind"] == "skill"]
    assert again[0]["action"] == "unchanged" and again[0]["kept"] == ["my-notes.md"]


def test_the_server_the_mcp_entry_names_starts_and_serves_the_project(translated):
    """What an agent host does with .mcp.json: run its command in the project, over stdio."""
    pytest.importorskip("mcp")
    import asyncio

    import mcp_types as types
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    assert _init(translated).returncode == 0
    entry = _json(translated / ".mcp.json")["mcpServers"]["kapi"]
    command = str(Path(sys.executable).parent / entry["command"])

    async def main() -> list[str]:
        params = StdioServerParameters(
            command=command,
            args=entry["args"],
            cwd=str(translated),
            env={
                "PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin",
                "HOME": str(translated),
            },
        )
        async with Client(
            params, mode="legacy", client_info=types.Implementation(name="host", version="1")
        ) as client:
            listed = await client.list_tools()
            return [tool.name for tool in listed.tools]

    names = asyncio.run(main())
    assert "check_file" in names and "context_note" in names
    assert any("translat" in name for name in names)  # --tools writing,translation


def test_nothing_is_read_or_written_under_the_home_folder(repo, tmp_path):
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude/settings.json").write_text("{}", encoding="utf-8")
    before = {p: p.stat().st_mtime_ns for p in home.rglob("*")}
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KAPI_", "CLAUDE"))}
    env["HOME"] = str(home)
    done = subprocess.run(
        [KAPI, "init", "--agents", "all"], cwd=repo, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert {p: p.stat().st_mtime_ns for p in home.rglob("*")} == before
    assert str(home) not in done.stderr
