"""The doors run nothing of the caller's and reach nothing outside: shell, MCP, paths.

* No shell is ever started: the product code never calls one (checked on its
  syntax tree), and the one tool that runs a person's command (``kapi exec
  command``, command line only) passes file names and text as data: a name
  holding ``; touch pwned`` or ``$(…)`` creates nothing.
* The MCP server offers nothing that runs a caller's code under any set of
  tools: ``tools/list`` with ``--all`` is every tool any set serves, none runs
  a command or takes one, and a recipe flow naming the command tool runs no
  command when an agent runs the flow.
* Every MCP argument that names a file (a document, a voice profile, redaction
  rules, an output) is refused when it leads outside the project, climbing,
  absolute or through a symbolic link, and nothing of the outside file shows.
"""

from __future__ import annotations

import ast
import asyncio
import itertools
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kapi.cli.main import cli
from kapi.mcp.sets import SET_NAMES, served_tools

ROOT = Path(__file__).resolve().parents[2]
KAPI = str(Path(sys.executable).with_name("kapi"))
SECRET = "SECRET-door-91a3"
SOURCES = sorted((ROOT / "packages").glob("*/src/kapi/**/*.py"))

# --- no shell -------------------------------------------------------------------------------

_SHELLS = {("os", "system"), ("os", "popen"), ("subprocess", "getoutput")}
_SHELLS |= {("subprocess", "getstatusoutput"), ("pty", "spawn")}
_SHELLS |= {("asyncio", "create_subprocess_shell"), ("os", "posix_spawn"), ("os", "posix_spawnp")}
_RUNNERS = {"run", "Popen", "call", "check_call", "check_output"}
_SHELL_PROGRAMS = {"sh", "bash", "zsh", "dash", "ksh", "fish", "cmd", "cmd.exe", "powershell"}


def _shell_program(node: ast.AST) -> bool:
    """A literal argument list that starts a shell: ``["sh", "-c", ...]``, ``("/bin/bash", ...)``."""
    if not isinstance(node, (ast.List, ast.Tuple)) or not node.elts:
        return False
    first = node.elts[0]
    return (
        isinstance(first, ast.Constant)
        and isinstance(first.value, str)
        and first.value.rsplit("/", 1)[-1] in _SHELL_PROGRAMS
    )


def shell_calls(source: Path) -> list[str]:
    """Where ``source`` starts a shell or passes a command line as one string."""
    found: list[str] = []
    text = source.read_text(encoding="utf-8")
    tree = ast.parse(text)
    # import subprocess as sp: the calls go through the alias
    modules = {"os": "os", "subprocess": "subprocess", "pty": "pty", "asyncio": "asyncio"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname and alias.name in modules:
                    modules[alias.asname] = alias.name
    for node in ast.walk(tree):
        where = f"{source.name}:{node.lineno}" if hasattr(node, "lineno") else source.name
        if _shell_program(node):
            found.append(f"{where}: a shell as the program")
            continue
        if isinstance(node, ast.ImportFrom):  # from os import system: a name the calls hide
            for alias in node.names:
                shell = (node.module, alias.name) in _SHELLS
                if shell or (node.module == "subprocess" and alias.name in _RUNNERS):
                    found.append(f"{where}: from {node.module} import {alias.name}")
            continue
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        written = node.func.value.id if isinstance(node.func.value, ast.Name) else ""
        owner = modules.get(written, "")
        name = node.func.attr
        if (owner, name) in _SHELLS or (owner == "os" and name.startswith(("exec", "spawn"))):
            found.append(f"{where}: {owner}.{name}")
        if owner == "subprocess" and name in _RUNNERS:
            if any(k.arg == "shell" for k in node.keywords):
                found.append(f"{where}: subprocess.{name}(shell=…)")
            if node.args and isinstance(node.args[0], (ast.Constant, ast.JoinedStr, ast.BinOp)):
                found.append(f"{where}: subprocess.{name} with a command line string")
    return found


def test_the_product_never_starts_a_shell():
    assert len(SOURCES) > 100
    assert [call for source in SOURCES for call in shell_calls(source)] == []


def test_the_shell_finder_finds_a_shell(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import os, subprocess\nos.system('x')\nsubprocess.run('ls', shell=True)\n"
        "os.execv('/bin/sh', ['sh'])\nfrom subprocess import run\n"
    )
    assert len(shell_calls(probe)) == 6, shell_calls(probe)  # the ['sh'] list too
    hidden = tmp_path / "hidden.py"
    hidden.write_text(
        "import asyncio, os\nimport subprocess as sp\n"
        "sp.run('ls -l')\n"
        "sp.Popen(['/bin/bash', '-c', 'ls'])\n"
        "asyncio.create_subprocess_shell('ls')\n"
        "os.posix_spawn('/usr/bin/env', ['env'], {})\n"
        "sp.run(['git', 'status'])\n"  # a program and its arguments: no shell
    )
    assert sorted(shell_calls(hidden)) == [
        "hidden.py:3: subprocess.run with a command line string",
        "hidden.py:4: a shell as the program",
        "hidden.py:5: asyncio.create_subprocess_shell",
        "hidden.py:6: os.posix_spawn",
    ]


@pytest.mark.parametrize(
    "name",
    ["a; touch pwned.txt", "$(touch pwned.txt).txt", "`touch pwned.txt`.txt", "a|touch pwned.txt"],
)
def test_a_file_name_is_data_to_the_command_tool(shop, name):
    (shop / name).write_text("two words\n")
    done = CliRunner().invoke(
        cli, ["exec", "command", "--option", "run=wc -w", name], catch_exceptions=False
    )
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["results"][0]["text"].strip() == "2"
    assert not (shop / "pwned.txt").exists()


def test_the_command_tool_runs_its_words_without_a_shell(shop):
    done = CliRunner().invoke(
        cli,
        [
            "exec",
            "command",
            "--option",
            "run=echo $(touch pwned.txt) ; touch pwned.txt",
            "--text",
            "x",
        ],
        catch_exceptions=False,
    )
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["results"][0]["text"] == "$(touch pwned.txt) ; touch pwned.txt\n"
    assert not (shop / "pwned.txt").exists()


# --- the MCP server ---------------------------------------------------------------------------

BANNED_NAMES = {"command", "exec", "shell", "run_command", "script", "external-command", "eval"}
BANNED_ARGUMENTS = {"command", "run", "script", "shell", "argv", "exec", "cmd", "code"}


def test_no_set_of_tools_serves_a_command():
    """Every combination the flags can make serves a subset of what --all serves."""
    everything = set(served_tools(frozenset(SET_NAMES), all_tools=True, all_flows=True))
    for size in range(1, len(SET_NAMES) + 1):
        for sets in itertools.combinations(SET_NAMES, size):
            for wide in itertools.product((False, True), repeat=2):
                served = set(served_tools(frozenset(sets), all_tools=wide[0], all_flows=wide[1]))
                assert served <= everything and not served & BANNED_NAMES


def mcp_session(cwd: Path, body: Any, *args: str) -> Any:
    """Start ``kapi mcp ARGS`` in ``cwd``, connect the MCP SDK's client, run ``body(client)``."""
    import mcp_types as types
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    async def main() -> Any:
        env = {"PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin", "HOME": str(cwd)}
        params = StdioServerParameters(command=KAPI, args=["mcp", *args], cwd=str(cwd), env=env)
        info = types.Implementation(name="proof-agent", version="1.0")
        async with Client(params, mode="legacy", client_info=info) as client:
            return await body(client)

    return asyncio.run(main())


OUTSIDE = {
    "secret.json": json.dumps({"title": SECRET}),
    "secret.md": f"# {SECRET}\n\n{SECRET} text.\n",
    "voice.yaml": f"id: {SECRET}\nstyle:\n  sentence_length: {SECRET}\n",
    "rules.yaml": f"patterns:\n  - {SECRET}\n",
}
# Each tool argument that names a file: (tool, arguments with {f} for the path, the file).
FILE_ARGUMENTS = [
    ("read_blocks", {"doc": "{f}"}, "secret.json"),
    ("describe_format", {"doc": "{f}"}, "secret.json"),
    ("check_file", {"file": "{f}"}, "secret.md"),
    (
        "check_file",
        {"file": "locales/en.json", "target": "{f}", "target_lang": "fr"},
        "secret.json",
    ),
    ("check_file", {"file": "docs/getting-started.md", "profile_file": "{f}"}, "voice.yaml"),
    ("check_text", {"text": "Hello", "profile_file": "{f}"}, "voice.yaml"),
    ("voice_check", {"text": "Hello", "profile_file": "{f}"}, "voice.yaml"),
    ("voice_rewrite", {"text": "Hello", "profile_file": "{f}"}, "voice.yaml"),
    ("brand_check", {"text": "Hello", "profile_file": "{f}"}, "voice.yaml"),
    ("context_read", {"path": "{f}"}, "secret.md"),
    ("stats", {"files": ["{f}"]}, "secret.md"),
    ("pseudo_translate", {"path": "{f}"}, "secret.json"),
    ("extract_content", {"path": "{f}"}, "secret.json"),
    ("word_count", {"path": "{f}"}, "secret.md"),
    (
        "run_flow",
        {"flow_name": "pseudo-translate", "path": "{f}", "target_lang": "fr"},
        "secret.json",
    ),
    (
        "apply_edits",
        {
            "ops": [
                {
                    "op": "set_content",
                    "at": {"doc": "{f}", "block": "title"},
                    "if_match": "*",
                    "text": "x",
                }
            ]
        },
        "secret.json",
    ),
]


# Arguments that name a file but never open it: a format named by the file's name alone,
# and two the first generation's schemas declare that the server does not use. They must
# show nothing of the file and change nothing outside, as every call must.
NAME_ONLY = [
    ("detect_format", {"path": "{f}"}, "secret.json"),
    ("redact", {"text": "Hello", "rulesPath": "{f}"}, "rules.yaml"),
    ("pseudo_translate", {"path": "locales/en.json", "output_path": "{f}"}, "new.json"),
]


def filled(value: Any, path: str) -> Any:
    if isinstance(value, str):
        return path if value == "{f}" else value
    if isinstance(value, list):
        return [filled(v, path) for v in value]
    if isinstance(value, dict):
        return {k: filled(v, path) for k, v in value.items()}
    return value


def test_the_mcp_server_runs_no_caller_code_and_reaches_nothing_outside(tmp_path):
    shop = tmp_path / "shop"
    shutil.copytree(ROOT / "examples/shop", shop)
    outside = tmp_path / "outside"
    outside.mkdir()
    for name, text in OUTSIDE.items():
        (outside / name).write_text(text)
    (shop / "linked").symlink_to(outside, target_is_directory=True)
    recipe = (shop / "kapi.yaml").read_text()
    (shop / "kapi.yaml").write_text(
        recipe + "\nflows:\n  sneaky:\n    steps:\n"
        "      - tool: command\n        options: {run: 'touch pwned.txt'}\n      - qa\n"
    )
    spellings = {"climbing": "../outside/{}", "absolute": f"{outside}/{{}}", "linked": "linked/{}"}

    async def body(client: Any) -> Any:
        listed = (await client.list_tools()).tools
        flow = await client.call_tool("run_flow", {"flow_name": "sneaky", "target_lang": "fr"})
        tools = await client.call_tool("list_tools", {})
        answers = {}
        for (tool, arguments, name), (spelling, form) in itertools.product(
            FILE_ARGUMENTS + NAME_ONLY, spellings.items()
        ):
            call = await client.call_tool(tool, filled(arguments, form.format(name)))
            answers[f"{tool} {json.dumps(arguments)} {spelling}"] = call
        return listed, flow, tools, answers

    listed, flow, tools, answers = mcp_session(shop, body, "--all")
    names = {tool.name for tool in listed}
    assert names == set(served_tools(frozenset(SET_NAMES), all_tools=True, all_flows=True))
    assert not names & BANNED_NAMES
    for tool in listed:
        assert not set(tool.input_schema.get("properties", {})) & BANNED_ARGUMENTS, tool.name
    assert not (shop / "pwned.txt").exists(), "a recipe flow ran a command for an agent"
    assert "command" not in {t["name"] for t in json.loads(tools.content[0].text)["tools"]}
    assert not flow.is_error or "command" in flow.content[0].text
    leaks = {}
    for label, call in answers.items():
        text = " ".join(getattr(c, "text", "") for c in call.content)
        refused = call.is_error or '"status": "refused"' in text
        refused = refused or any(label.startswith(f"{t} {json.dumps(a)} ") for t, a, _ in NAME_ONLY)
        # a refusal may repeat the caller's own path, never where a link leads
        shown = str(outside) in text and not label.endswith("absolute")
        if not refused or SECRET in text or shown:
            leaks[label] = text[:400]
    assert leaks == {}, "\n".join(f"{k}: {v}" for k, v in leaks.items())
    assert sorted(p.name for p in outside.iterdir()) == sorted(OUTSIDE)
    for name, text in OUTSIDE.items():
        assert (outside / name).read_text() == text
