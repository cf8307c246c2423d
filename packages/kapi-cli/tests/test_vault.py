"""`kapi exec redact` / `unredact` through the real executable: typed placeholders, the originals
kept in the project's `.kapi/` vault (its owner's only), restored exactly; a missing vault is a
clear refusal that leaves the placeholders as they are."""

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

KAPI = str(Path(sys.executable).with_name("kapi"))
SECRETS = (
    "ann@example.com",
    "+44 20 7946 0958",
    "4111 1111 1111 1111",
    "10.0.0.12",
    "https://intranet.example/a?b=1",
)
TEXT = "Mail {} or call {}, card {}, host {}, see {}.".format(*SECRETS)


def run(root, *args):
    environ = {
        k: v for k, v in os.environ.items() if not k.startswith(("KAPI_", "CLAUDE", "CODEX"))
    }
    return subprocess.run([KAPI, *args], cwd=root, capture_output=True, text=True, env=environ)


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    (root / "kapi.yaml").write_text(
        "version: v1\nid: prj_vaulttest000000000000000000\nname: v\n"
        "defaults:\n  source_language: en\n  target_languages: [fr]\ncollections: []\n",
        encoding="utf-8",
    )
    return root


def tool(root, name, text):
    done = run(root, "exec", name, "--text", text)
    return done, (json.loads(done.stdout)["results"][0] if done.returncode == 0 else None)


def test_redact_keeps_every_value_in_the_vault_and_unredact_restores_it(project):
    done, redacted = tool(project, "redact", TEXT)
    assert done.returncode == 0, done.stderr
    assert not any(secret in redacted["text"] for secret in SECRETS)
    assert [p["type"] for p in redacted["placeholders"]] == ["email", "phone", "card", "ip", "url"]
    vault = project / ".kapi" / "vault.json"
    assert stat.S_IMODE(vault.stat().st_mode) == 0o600
    done, restored = tool(project, "unredact", redacted["text"])
    assert done.returncode == 0, done.stderr
    assert restored["text"] == TEXT and restored["restored"] == 5


def test_unredact_without_the_vault_is_refused_and_restores_nothing(project):
    _, redacted = tool(project, "redact", TEXT)
    (project / ".kapi" / "vault.json").unlink()
    done, _ = tool(project, "unredact", redacted["text"])
    assert done.returncode == 3
    assert "vault.json is missing" in done.stderr and "Traceback" not in done.stderr
    assert "ann@example.com" not in done.stdout + done.stderr


RULES = """  redaction:
    rules:
      - pattern: 'ACME-[A-Z]+-\\d+'
        category: sku
      - term: Project Halcyon
        category: product
        flags: [ignorecase, wholeword]
"""


def with_rules(root, rules):
    recipe = root / "kapi.yaml"
    text = recipe.read_text(encoding="utf-8")
    recipe.write_text(
        text.replace("  target_languages: [fr]\n", "  target_languages: [fr]\n" + rules),
        encoding="utf-8",
    )


def test_the_recipes_own_rules_redact_their_categories_and_unredact_restores_them(project):
    with_rules(project, RULES)
    text = "Ship ACME-ROCKET-42 for project halcyon to ann@example.com (not Project Halcyons)."
    done, redacted = tool(project, "redact", text)
    assert done.returncode == 0, done.stderr
    assert [p["type"] for p in redacted["placeholders"]] == ["sku", "product", "email"]
    assert redacted["text"].startswith("Ship {{SKU_") and "Project Halcyons" in redacted["text"]
    done, restored = tool(project, "unredact", redacted["text"])
    assert done.returncode == 0, done.stderr
    assert restored["text"] == text


@pytest.mark.parametrize(
    ("rules", "line", "key", "message"),
    [
        (
            RULES.replace("ACME-[A-Z]+", "ACME-[A-Z+"),
            9,
            "rules[0].pattern",
            "not a regular expression",
        ),
        (RULES.replace("'ACME-[A-Z]+-\\d+'", "'x*'"), 9, "rules[0].pattern", "matches empty text"),
        (RULES.replace("wholeword", "wholeline"), 13, "rules[1].flags", "wholeline"),
        (RULES.replace("category: sku", "category: SKU"), 10, "rules[0].category", "lowercase"),
        ("  redaction:\n    rules: redaction.yaml\n", 8, "rules", "list the rules"),
    ],
)
def test_a_bad_rule_is_a_recipe_error_naming_its_line_and_key(project, rules, line, key, message):
    with_rules(project, rules)
    (project / ".kapi").mkdir()  # the governance cache keeps the parsed recipe there
    for _ in range(2):  # the second read comes from the cache, which keeps no lines
        done, _ = tool(project, "redact", "Mail ann@example.com")
        assert done.returncode == 2, done.stdout + done.stderr
        assert f"kapi.yaml:{line}: defaults.redaction.{key}: " in done.stderr, done.stderr
        assert message in done.stderr and "Traceback" not in done.stderr
    assert not (project / ".kapi/vault.json").exists()


def test_unredact_of_a_placeholder_the_vault_does_not_hold_restores_nothing(project):
    _, redacted = tool(project, "redact", TEXT)
    foreign = redacted["text"] + " {{EMAIL_0123456789ab}}"
    done, _ = tool(project, "unredact", foreign)
    assert done.returncode == 3 and "Traceback" not in done.stderr
    assert "holds no original for {{EMAIL_0123456789ab}}" in done.stderr
    assert "nothing was restored" in done.stderr and "ann@example.com" not in done.stdout
