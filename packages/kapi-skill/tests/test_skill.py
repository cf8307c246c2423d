"""The skill as package data: its limits, its topics, and every command it names exists."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from ruamel.yaml import YAML

import kapi.skill as skill

ROOT = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent
SKILL = skill.skill_root() / "SKILL.md"
TOOLS = ("kapi", "kcat", "kgrep", "ksed", "kdiff")


def _load_yaml(text: str):
    return YAML(typ="safe", pure=True).load(text)


def _frontmatter() -> tuple[dict[str, str], str]:
    text = SKILL.read_text(encoding="utf-8")
    assert text.startswith("---\n")
    head, body = text[4:].split("\n---\n", 1)
    return _load_yaml(head), body


def test_the_frontmatter_names_kapi_and_says_when_to_reach_for_it():
    meta, _ = _frontmatter()
    assert meta["name"] == "kapi"
    description = meta["description"]
    assert 200 < len(description) < 1024
    for words in ("AGENTS.md", "CLAUDE.md", "kapi check", "UI strings", "translation"):
        assert words in description


def test_the_body_holds_the_four_habits_under_365_words():
    _, body = _frontmatter()
    assert len(body.split()) < 365
    for command in (
        "kapi context <file>",
        "kapi context search",
        "kapi context note --term",
        "--instead-of",
        "kapi context note --from",
        "--suggest",
        "kapi check <file>",
        "kapi context log --session this",
        "kapi help edit",
        "kapi help",
    ):
        assert command in body, command
    for tool in (
        "context_read",
        "context_search",
        "context_note",
        "check_file",
        "context_session_summary",
    ):
        assert f"`{tool}`" in body, tool


def test_the_body_names_no_verb_that_is_a_persons():
    _, body = _frontmatter()
    spans = re.findall(r"`([^`]+)`", body)
    persons = [s for s in spans if re.match(r"kapi context (reset|sync)\b", s)]
    assert persons == []
    reviews = [s for s in spans if s.startswith("kapi context review")]
    assert reviews == ["kapi context review"]  # named once, as what to tell the person
    assert "person's\ndecision" in body or "person's decision" in body


def test_the_mcp_tools_the_skill_names_are_served_by_kapi_mcp():
    _, body = _frontmatter()
    served = _run("kapi", "mcp", "--help").stdout
    for tool in re.findall(r"`(context_[a-z_]+|check_file)`", body):
        assert tool in served, tool


def test_topics_are_named_for_their_files_and_titled_by_their_heading():
    names = {t.name: t.title for t in skill.topics()}
    for name in (
        "check",
        "context",
        "create",
        "edit",
        "growing-context",
        "i18n",
        "i18n-react",
        "i18n-frameworks",
        "project",
        "toolbox",
        "translate",
        "voice",
    ):
        assert name in names, name
    for ecosystem in (
        "react",
        "vue",
        "angular",
        "svelte",
        "android",
        "ios",
        "flutter",
        "rails",
        "gettext",
        "backend",
        "docs-sites",
        "react-native",
    ):
        assert f"i18n-{ecosystem}" in names
    assert names["check"] == "Check what you changed"


def test_links_between_references_become_the_command_that_serves_them():
    translate = skill.read_topic("translate")
    assert translate is not None
    assert "`kapi help project`" in translate
    assert "](project.md)" not in translate
    for topic in skill.topics():
        text = skill.read_topic(topic.name)
        assert text is not None
        assert not re.search(r"\]\([^)]*\.(md|yaml)[^)]*\)", text), topic.name
    named = set()
    for topic in skill.topics():
        named |= set(re.findall(r"`kapi help ([a-z0-9-]+)`", skill.read_topic(topic.name) or ""))
    assert named <= {t.name for t in skill.topics()}
    assert skill.read_topic("no-such-topic") is None


def test_the_raw_references_link_only_files_that_exist():
    root = skill.skill_root()
    for path in root.rglob("*.md"):
        for target in re.findall(r"\]\(([^)#]+\.(?:md|yaml))", path.read_text(encoding="utf-8")):
            assert (path.parent / target).is_file(), f"{path.name} links {target}"


def test_frameworks_yaml_lists_each_playbook_with_its_signals_layout_format_and_grade():
    text = (skill.skill_root() / "references/i18n/frameworks.yaml").read_text(encoding="utf-8")
    registry = _load_yaml(text)
    formats = _run("kapi", "formats").stdout.split()
    playbooks = {t.name for t in skill.topics()}
    for framework in registry["frameworks"]:
        assert set(framework) >= {"id", "playbook", "signals", "catalogs", "kapi_format", "grade"}
        assert framework["playbook"] in playbooks
        assert framework["kapi_format"] in formats
        assert framework["grade"] in ("low", "medium", "high")
    assert len(registry["frameworks"]) == 12


def test_init_installs_skill_md_alone():
    assert list(skill.installed_files()) == ["SKILL.md"]
    assert skill.installed_files()["SKILL.md"] == SKILL.read_bytes()


def test_a_file_an_earlier_kapi_shipped_counts_as_retired_and_other_bytes_do_not():
    reference = (skill.skill_root() / "references/check.md").read_bytes()
    assert skill.is_retired(reference)
    assert not skill.is_retired(b"# my own notes about kapi\n")
    assert not skill.is_retired(reference + b"\nmy addition\n")


def test_retired_digests_are_sha256_lines_or_comments():
    path = skill.skill_root().parent / "retired.sha256"
    for line in path.read_text(encoding="utf-8").splitlines():
        assert line.startswith("#") or re.fullmatch(r"[0-9a-f]{64}(\s+\S.*)?", line), line


def test_the_version_is_the_distributions():
    pyproject = tomllib.loads((ROOT / "packages/kapi-skill/pyproject.toml").read_text("utf-8"))
    assert pyproject["project"]["version"] == skill.VERSION


# --- every command the skill names exists ---------------------------------------------------


def _run(*argv: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KAPI_")}
    env["KAPI_NO_PROJECT"] = "1"
    done = subprocess.run(
        [str(BIN / argv[0]), *argv[1:]],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    if check:
        assert done.returncode == 0, (argv, done.stdout, done.stderr)
    return done


def _documented_commands() -> dict[tuple[str, ...], set[str]]:
    """Each command path the skill's code spans name (``kapi context note``), with its flags."""
    texts = [SKILL.read_text(encoding="utf-8")]
    texts += [skill.read_topic(t.name) or "" for t in skill.topics()]
    commands: dict[tuple[str, ...], set[str]] = {}
    for text in texts:
        for span in re.findall(r"`([^`\n]+)`", text):
            if span.split(" ", 1)[0] not in TOOLS:
                continue
            try:
                words = shlex.split(span)
            except ValueError:
                words = span.split()
            path = [words[0]]
            for word in words[1:]:
                if not re.fullmatch(r"[a-z][a-z0-9-]*", word):
                    break
                path.append(word)
            flags = {w.split("=", 1)[0] for w in words if re.fullmatch(r"--?[a-z][a-z-]*(=.*)?", w)}
            commands.setdefault(tuple(path), set()).update(flags)
    return commands


def test_the_skill_names_many_commands():
    commands = _documented_commands()
    assert len(commands) > 25
    for tool in TOOLS:
        assert any(path[0] == tool for path in commands), tool


@pytest.mark.parametrize("path", sorted(_documented_commands()), ids=" ".join)
def test_each_documented_command_and_flag_exists(path):
    flags = _documented_commands()[path]
    done = _run(*path, "--help")
    assert "Usage:" in done.stdout
    for flag in flags:
        assert re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", done.stdout), (path, flag)


# --- the bundle and the validator ----------------------------------------------------------


def test_the_bundle_is_the_package_data_byte_for_byte(tmp_path):
    plugin, portable = tmp_path / "plugin", tmp_path / "skills"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "kapi.skill",
            "bundle",
            "--plugin",
            str(plugin),
            "--skill",
            str(portable),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    shipped = skill.skill_files()
    for folder in (plugin / "skills/kapi", portable / "kapi"):
        found = {
            p.relative_to(folder).as_posix(): p.read_bytes()
            for p in folder.rglob("*")
            if p.is_file()
        }
        assert found == shipped
    import json

    manifest = json.loads((plugin / ".claude-plugin/plugin.json").read_text("utf-8"))
    assert manifest["name"] == "kapi"
    assert manifest["version"] == skill.VERSION
    assert manifest["license"] == "Apache-2.0"
    assert manifest["description"]
    hooks = json.loads((plugin / "hooks/hooks.json").read_text("utf-8"))["hooks"]
    assert hooks["PreToolUse"] == [
        {
            "matcher": "Edit|Write|MultiEdit",
            "hooks": [{"type": "command", "command": "kapi hook pre-edit"}],
        }
    ]
    assert hooks["PostToolUse"] == [
        {
            "matcher": "Edit|Write|MultiEdit",
            "hooks": [{"type": "command", "command": "kapi hook post-edit"}],
        }
    ]
    assert hooks["Stop"] == [{"hooks": [{"type": "command", "command": "kapi hook stop"}]}]


def test_the_bundle_without_a_folder_is_a_usage_error():
    done = subprocess.run(
        [sys.executable, "-m", "kapi.skill", "bundle"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2
    assert "--plugin" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_committed_plugin_is_a_fresh_bundle(tmp_path):
    """The repository serves itself as a marketplace: its plugin folder must be current."""
    import json

    marketplace = json.loads((ROOT / ".claude-plugin/marketplace.json").read_text("utf-8"))
    (entry,) = marketplace["plugins"]
    assert entry["name"] == "kapi"
    committed = (ROOT / entry["source"]).resolve()
    subprocess.run(
        [sys.executable, "-m", "kapi.skill", "bundle", "--plugin", str(tmp_path)], check=True
    )
    fresh = {
        p.relative_to(tmp_path).as_posix(): p.read_bytes()
        for p in tmp_path.rglob("*")
        if p.is_file()
    }
    held = {
        p.relative_to(committed).as_posix(): p.read_bytes()
        for p in committed.rglob("*")
        if p.is_file()
    }
    assert held == fresh, "run: python -m kapi.skill bundle --plugin " + entry["source"]
    assert marketplace["metadata"]["version"] == skill.VERSION


def _validator() -> str | None:
    for name in ("skills-ref", "agentskills"):
        found = shutil.which(name, path=str(BIN)) or shutil.which(name)
        if found:
            return found
    return None


def test_the_skill_passes_the_agent_skills_reference_validator(tmp_path):
    validator = _validator()
    if validator is None:
        pytest.skip("skills-ref is not installed (pip install skills-ref)")
    subprocess.run(
        [sys.executable, "-m", "kapi.skill", "bundle", "--skill", str(tmp_path)], check=True
    )
    done = subprocess.run(
        [validator, "validate", str(tmp_path / "kapi")], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    broken = tmp_path / "broken"
    shutil.copytree(tmp_path / "kapi", broken)
    text = (broken / "SKILL.md").read_text("utf-8").replace("name: kapi", "name: Not A Name", 1)
    (broken / "SKILL.md").write_text(text, "utf-8")
    refused = subprocess.run(
        [validator, "validate", str(broken)], capture_output=True, text=True, check=False
    )
    assert refused.returncode != 0
