"""`kapi tools`, `kapi flows`, `kapi run`, `kapi exec` and `kapi pseudo-translate` on the example shop."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

KAPI = str(Path(sys.executable).with_name("kapi"))
SHOP = Path(__file__).resolve().parents[3] / "examples" / "shop"
TOOL_NAMES = {
    "pseudo-translate",
    "recycle",
    "translate",
    "qa",
    "redact",
    "unredact",
    "term-check",
    "word-count",
    "whitespace-correct",
    "encoding-detect",
    "xml-validation",
    "command",
}


def run(root, *args, env=None):
    environ = {
        k: v for k, v in os.environ.items() if not k.startswith(("KAPI_", "CLAUDE", "CODEX"))
    }
    environ.update(env or {})
    return subprocess.run(
        [KAPI, *args], cwd=root, capture_output=True, text=True, env=environ, timeout=120
    )


@pytest.fixture
def shop(tmp_path):
    root = tmp_path / "shop"
    shutil.copytree(SHOP, root)
    return root


def test_tools_are_listed_with_option_schemas(shop):
    done = run(shop, "tools", "--json")
    assert done.returncode == 0, done.stderr
    tools = {t["name"]: t for t in json.loads(done.stdout)}
    assert set(tools) == TOOL_NAMES
    for tool in tools.values():
        assert tool["description"]
        assert tool["options"]["type"] == "object"
    assert tools["pseudo-translate"]["options"]["properties"]["style"]["enum"][0] == "accents"
    assert "word-count" in run(shop, "tools").stdout


def test_flows_built_in_and_from_the_recipe(shop):
    recipe = shop / "kapi.yaml"
    recipe.write_text(
        recipe.read_text() + "\nflows:\n  ui-check:\n    description: pseudo then QA\n"
        "    steps:\n      - tool: pseudo-translate\n        options: {style: xxx}\n      - tool: qa\n"
    )
    done = run(shop, "flows", "--json")
    assert done.returncode == 0, done.stderr
    flows = {f["name"]: f for f in json.loads(done.stdout)}
    assert {
        "translate",
        "translate-qa",
        "pseudo-translate",
        "qa",
        "recycle",
        "secure-translate",
    } <= set(flows)
    assert [s["tool"] for s in flows["translate"]["steps"]] == ["recycle", "translate", "qa"]
    assert [s["tool"] for s in flows["secure-translate"]["steps"]] == [
        "redact",
        "translate",
        "unredact",
    ]
    assert flows["ui-check"]["source"] == "kapi.yaml"


def test_a_flow_naming_an_unknown_tool_is_refused(shop):
    recipe = shop / "kapi.yaml"
    recipe.write_text(
        recipe.read_text()
        + "\nflows:\n  broken:\n    - tool: pseudo-translate\n    - tool: teleport\n"
    )
    for args in (("flows",), ("run", "broken", "--to", "fr")):
        done = run(shop, *args)
        assert done.returncode == 2
        assert "teleport" in done.stderr and "step 2" in done.stderr
        assert "Traceback" not in done.stderr


def test_a_flow_step_kapi_run_would_not_run_is_refused_when_the_flow_loads(shop):
    recipe = shop / "kapi.yaml"
    base = recipe.read_text()
    recipe.write_text(
        base + "\nflows:\n  sneaky:\n    steps:\n      - tool: pseudo-translate\n"
        "      - tool: command\n        options: {run: 'touch pwned.txt'}\n"
    )
    for args in (("flows",), ("run", "sneaky", "--to", "fr")):
        done = run(shop, *args)
        assert done.returncode == 2, done.stdout
        assert "flows.sneaky step 2" in done.stderr and "kapi exec command" in done.stderr
        assert "Traceback" not in done.stderr
    assert not (shop / "pwned.txt").exists()
    assert not (shop / "locales" / "qps.json").exists()  # no step before it ran either
    recipe.write_text(base + "\nflows:\n  counted:\n    - tool: qa\n    - tool: word-count\n")
    done = run(shop, "run", "counted", "--to", "fr")
    assert done.returncode == 2
    assert "flows.counted step 2: word-count runs on a text or files" in done.stderr
    assert "kapi exec word-count" in done.stderr


def test_an_unknown_flow_is_refused(shop):
    unknown = run(shop, "run", "no-such-flow")
    assert unknown.returncode == 2 and "unknown flow" in unknown.stderr


def test_run_pseudo_translate_and_qa_flows(shop):
    done = run(shop, "run", "pseudo-translate", "locales/en.json", "--to", "fr", "--json")
    assert done.returncode in (0, 3), done.stderr
    result = json.loads(done.stdout)
    assert result["steps"] == ["pseudo-translate", "qa"] and result["written"] == 1
    assert json.loads((shop / "locales/fr.json").read_text())["checkout"]["help"].startswith("[")
    qa = run(shop, "run", "qa", "--to", "fr", "--json")
    assert qa.returncode in (0, 3), qa.stderr
    assert json.loads(qa.stdout)["written"] == 0


def test_secure_translate_keeps_sensitive_text_on_the_machine(shop):
    en = shop / "locales/en.json"
    en.write_text(
        en.read_text().replace(
            "Simply contact support if anything goes wrong.",
            "Write to help@northwind.example if anything goes wrong.",
        )
    )
    done = run(shop, "run", "secure-translate", "--to", "fr", "--provider", "pseudo", "--json")
    assert done.returncode in (0, 3), done.stderr
    help_fr = json.loads((shop / "locales/fr.json").read_text())["checkout"]["help"]
    assert "help@northwind.example" in help_fr  # restored as it was, not pseudo-translated


def test_exec_runs_one_tool(shop):
    done = run(shop, "exec", "word-count", "--text", "Pay your order now")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["results"][0]["words"] == 4
    pseudo = run(
        shop, "exec", "pseudo-translate", "--text", 'Pay <x id="1/"/> now', "--option", "style=xxx"
    )
    assert json.loads(pseudo.stdout)["results"][0]["text"].startswith("xxx")
    assert '<x id="1/"/>' in json.loads(pseudo.stdout)["results"][0]["text"]
    redacted = run(shop, "exec", "redact", "--text", "Mail ops@example.com now")
    assert "ops@example.com" not in json.loads(redacted.stdout)["results"][0]["text"]
    (shop / "bad.xml").write_text("<a><b></a>")
    xml = run(shop, "exec", "xml-validation", "bad.xml")
    assert xml.returncode == 3 and json.loads(xml.stdout)["results"][0]["valid"] is False
    encoding = run(shop, "exec", "encoding-detect", "locales/fr.json")
    assert json.loads(encoding.stdout)["results"][0]["encoding"] in ("utf-8", "ascii")
    terms = run(shop, "exec", "term-check", "--text", "Simply contact support")
    assert terms.returncode == 0, terms.stdout + terms.stderr  # no term in the store yet
    imported = run(shop, "terms", "import", "terms.json", env={"KAPI_ACTOR": "person"})
    assert imported.returncode == 0, imported.stderr
    clean = run(shop, "exec", "term-check", "--text", "Open the Northwind dashboard")
    assert clean.returncode == 0 and json.loads(clean.stdout)["exit_code"] == 0
    flagged = run(shop, "exec", "term-check", "--text", "Ask Contoso via the control panel")
    assert flagged.returncode == 3, flagged.stdout + flagged.stderr
    found = json.loads(flagged.stdout)
    assert found["exit_code"] == 3 and found["results"][0]["fails"] is True
    statuses = {t["term"]: t["status"] for t in found["results"][0]["terms"]}
    assert statuses == {"Contoso": "forbidden", "control panel": "deprecated"}


def test_word_count_and_term_check_on_a_file_read_its_blocks_not_its_bytes(shop):
    (shop / "locales/en.json").write_text(
        '{"control panel": "Open the dashboard", "nav": {"home": "Home page"}}\n'
    )
    counted = run(shop, "exec", "word-count", "locales/en.json")
    assert counted.returncode == 0, counted.stderr
    stats = json.loads(run(shop, "stats", "locales/en.json", "--json").stdout)
    (result,) = json.loads(counted.stdout)["results"]
    assert (result["blocks"], result["words"], result["characters"]) == (2, 5, 27)
    assert stats["total"]["words"] == 5 and stats["total"]["characters"] == 27
    run(shop, "terms", "import", "terms.json", env={"KAPI_ACTOR": "person"})
    checked = run(shop, "exec", "term-check", "locales/en.json")
    assert checked.returncode == 0, checked.stdout  # "control panel" is a key, not content
    (shop / "locales/en.json").write_text('{"a": "Use the control panel"}\n')
    checked = run(shop, "exec", "term-check", "locales/en.json")
    assert checked.returncode == 3 and json.loads(checked.stdout)["results"][0]["fails"] is True


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("exec", "teleport", "--text", "x"), "unknown tool"),
        (("exec", "word-count", "--text", "x", "--option", "colour=red"), "no option"),
        (("exec", "pseudo-translate", "--text", "x", "--option", "style=wild"), "use one of"),
        (("exec", "word-count", "--text", "x", "--option", "novalue"), "key=value"),
        (("exec", "word-count", "../../etc/passwd"), "outside the project"),
    ],
)
def test_exec_refuses_bad_input_clearly(shop, args, message):
    done = run(shop, *args)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_pseudo_translate_beside_the_source_ad_hoc(tmp_path):
    locales = tmp_path / "locales"
    locales.mkdir()
    shutil.copy(SHOP / "locales/en.json", locales / "en.json")
    done = run(tmp_path, "pseudo-translate", "locales/en.json", env={"KAPI_NO_PROJECT": "1"})
    assert done.returncode == 0, done.stderr
    pseudo = json.loads((locales / "qps.json").read_text())
    assert pseudo["checkout"]["pay"].count("{{amount}}") == 1
    assert pseudo["nav"]["home"].startswith("[") and pseudo["nav"]["home"] != "[Home]"
    assert json.loads((locales / "en.json").read_text())["nav"]["home"] == "Home"
    assert not (tmp_path / ".kapi").exists()  # ad hoc: no project store is made


def test_pseudo_translate_in_a_project_writes_each_targets_file(shop):
    done = run(shop, "pseudo-translate", "--to", "qps", "--expansion", "0", "--style", "bracket")
    assert done.returncode == 0, done.stderr
    pseudo = json.loads((shop / "locales/qps.json").read_text())
    assert pseudo["nav"]["home"] == "[[Home]]" or pseudo["nav"]["home"].startswith("[")
    bad = run(shop, "pseudo-translate", "--style", "wild")
    assert bad.returncode == 2 and "style" in bad.stderr


def test_pseudo_translate_never_replaces_the_projects_own_translations(shop):
    before = {path.name: path.read_bytes() for path in (shop / "locales").iterdir()}
    for language in ("fr", "de"):
        done = run(shop, "pseudo-translate", "locales/en.json", "--to", language)
        assert done.returncode == 2, done.stdout + done.stderr
        assert f"the project's {language} translation of locales/en.json" in done.stderr
        assert f"kapi run pseudo-translate --to {language}" in done.stderr
    assert {path.name: path.read_bytes() for path in (shop / "locales").iterdir()} == before
    # the flow the refusal names fills only what is missing, keeping each person's translation
    french = json.loads(before["fr.json"])
    done = run(shop, "run", "pseudo-translate", "locales/en.json", "--to", "fr", "--json")
    assert done.returncode in (0, 3), done.stderr
    after = json.loads((shop / "locales/fr.json").read_text(encoding="utf-8"))
    for section, values in french.items():
        for key, value in values.items():
            assert after[section][key] == value, (section, key)
    assert after != french  # the missing string was filled


def test_translate_outside_a_project_writes_beside_and_keeps_what_is_there(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text("# Welcome\n\nRead the guide first.\n\nThen start.\n")
    env = {"KAPI_NO_PROJECT": "1"}
    done = run(
        tmp_path,
        "translate",
        "docs/guide.md",
        "--to",
        "fr",
        "--provider",
        "pseudo",
        "--json",
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["target_file"] == "docs/guide.fr.md"
    first = (docs / "guide.fr.md").read_text()
    assert first.startswith("# [") and "Read" not in first
    edited = first.replace(first.splitlines()[0], "# Bienvenue")
    (docs / "guide.fr.md").write_text(edited)
    (docs / "guide.md").write_text("# Welcome\n\nRead the guide first.\n\nThen start.\n\nEnjoy.\n")
    again = run(
        tmp_path, "translate", "docs/guide.md", "--to", "fr", "--provider", "pseudo", env=env
    )
    assert again.returncode in (0, 3), again.stderr
    assert (docs / "guide.fr.md").read_text().startswith("# Bienvenue")
    assert not (tmp_path / ".kapi").exists()


def test_the_command_tool_runs_a_callers_command_on_the_cli_only(shop):
    tools = {t["name"]: t for t in json.loads(run(shop, "tools", "--json").stdout)}
    assert tools["command"]["cli_only"] is True
    assert not any(t["cli_only"] for name, t in tools.items() if name != "command")
    done = run(
        shop,
        "exec",
        "command",
        "--text",
        "hello",
        "--option",
        f'run={sys.executable} -c "import sys; print(sys.stdin.read().upper())"',
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["results"][0]["text"].strip() == "HELLO"
    missing = run(shop, "exec", "command", "--text", "x", "--option", "run=no-such-binary-here")
    assert missing.returncode == 2 and "not found" in missing.stderr


def test_the_command_tool_is_refused_outside_the_command_line(shop):
    from kapi.host.errors import HostError
    from kapi.host.tools import exec_tool
    from kapi.host.workspace import open_workspace

    with open_workspace(cwd=shop) as workspace, pytest.raises(HostError, match="command line only"):
        exec_tool("command", workspace, text="x", options={"run": "echo hi"})
