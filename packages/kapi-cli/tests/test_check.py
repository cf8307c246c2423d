"""kapi check: findings by path, diffs in real git repositories, exit codes, and the commit gate."""

import json
import subprocess
import textwrap

import pytest

RECIPE = textwrap.dedent(
    """\
    version: v1
    id: prj_checks
    defaults:
      source_language: en
      target_languages: [fr]
    profiles:
      docs:
        channels: [guides]
        voice: {pack: technical-docs}
      app:
        channels: [ui]
        voice: ui
    collections:
      - name: ui
        channel: app/ui
        content:
          - path: locales/en.json
            target: locales/{lang}.json
      - name: docs
        channel: docs/guides
        source_only: true
        content:
          - path: docs/**/*.md
    """
)
UI_VOICE = textwrap.dedent(
    """\
    name: ui
    terms:
      - term: basket
        replacement: cart
    """
)


def git(root, *args):
    subprocess.run(
        ["git", *args],
        cwd=root,
        check=True,
        capture_output=True,
        env={
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@e",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@e",
            "PATH": "/usr/bin:/bin",
            "HOME": str(root),
        },
    )


@pytest.fixture
def project(kapi):
    root = kapi.root
    (root / "kapi.yaml").write_text(RECIPE)
    (root / "voices").mkdir()
    (root / "voices/ui.yaml").write_text(UI_VOICE)
    (root / "locales").mkdir()
    (root / "locales/en.json").write_text('{\n  "add": "Add to basket",\n  "buy": "Buy now"\n}\n')
    (root / "locales/fr.json").write_text('{\n  "add": "Ajouter au panier"\n}\n')
    (root / "docs").mkdir()
    for n in range(5):
        (root / f"docs/page{n}.md").write_text(
            f"# Page {n}\n\nThe tool runs the import.\n\nIt writes a report.\n"
        )
    return kapi


def report(result):
    return json.loads(result.stdout)


def test_findings_follow_the_voice_where_the_file_sits(project):
    (project.root / "docs/page0.md").write_text("# Page\n\nSimply add it to the basket.\n")
    result = project("check", "--json", "docs/page0.md", "locales/en.json")
    assert result.exit_code == 3
    rules = {(f["location"]["file"], f["rule"]) for f in report(result)["findings"]}
    # the docs voice bans "simply"; only the ui voice knows "basket"
    assert ("docs/page0.md", "voice.style") in rules
    assert ("locales/en.json", "voice.vocabulary") in rules
    assert ("docs/page0.md", "voice.vocabulary") not in rules
    assert project("check", "--no-fail", "docs/page0.md").exit_code == 0


def test_no_findings_from_code_front_matter_or_urls(project):
    text = "---\ntitle: simply\n---\n\n# Guide\n\nRun `simply-run` or see <https://simply.example.com/basket>.\n\n```\nsimply\n```\n"
    (project.root / "docs/page1.md").write_text(text)
    result = project("check", "--json", "docs/page1.md")
    assert result.exit_code == 0, result.output
    assert report(result)["verdict"] == "passed"


def test_an_unreadable_file_never_passes(project):
    (project.root / "docs/broken.json").write_text('{"a": ')
    result = project("check", "--json", "docs/broken.json")
    assert result.exit_code == 4
    payload = report(result)
    assert payload["verdict"] == "did_not_run"
    assert payload["scope"]["files"][0]["status"] == "did_not_run"


def test_nothing_to_check_is_exit_4(project):
    (project.root / "docs/empty.md").write_text("```\ncode only\n```\n")
    assert project("check", "docs/empty.md").exit_code == 4


def test_text_table_and_json_report_shape(project):
    (project.root / "docs/page2.md").write_text("# Page\n\nSimply run it.\n")
    text = project("check", "docs/page2.md")
    assert "FAILS" in text.stdout and "1 failing" in text.stdout
    payload = report(project("check", "--json", "docs/page2.md"))
    assert payload["schema"] == "kapi.check/v2"
    assert payload["summary"] == {"findings": 1, "failing": 1, "reporting": 0, "score": 75}
    assert {a["id"] for a in payload["execution"]["analyzers"]} >= {"hygiene", "voice.rules"}
    assert all(
        a.get("canary", {}).get("status") in ("caught", "impossible", None)
        for a in payload["execution"]["analyzers"]
    )
    assert set(payload["execution"]["timings"]) >= {"context_ms", "analyzers_ms", "total_ms"}


def test_diff_against_checks_only_changed_blocks(project):
    root = project.root
    (root / "docs/page3.md").write_text("# Page\n\nSimply old text.\n\nUntouched paragraph.\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    (root / "docs/page3.md").write_text("# Page\n\nSimply old text.\n\nChanged, clearly.\n")
    (root / "docs/new.md").write_text("# New\n\nJust arrived.\n")
    result = project("check", "--json", "--diff-against", "HEAD")
    payload = report(result)
    files = {f["path"]: f["status"] for f in payload["scope"]["files"]}
    assert files["docs/page3.md"] == "checked" and files["docs/new.md"] == "checked"
    assert "docs/page1.md" not in files  # unchanged files are not read at all
    messages = [(f["location"]["file"], f["location"]["block"]) for f in payload["findings"]]
    # the old "Simply" paragraph is not in the diff; the changed one and the new file are
    assert ("docs/page3.md", "s1/p1") not in messages
    assert any(file == "docs/page3.md" for file, _ in messages)
    assert any(file == "docs/new.md" for file, _ in messages)
    assert result.exit_code == 3


def test_staged_and_diff_file(project):
    root = project.root
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    (root / "docs/page4.md").write_text(
        "# Page 4\n\nThe tool runs the import.\n\nObviously it writes a report.\n"
    )
    assert (
        report(project("check", "--json", "--staged"))["verdict"] == "did_not_run"
    )  # nothing staged
    git(root, "add", "docs/page4.md")
    staged = project("check", "--json", "--staged")
    assert staged.exit_code == 3
    diff = subprocess.run(
        ["git", "diff", "--cached"], cwd=root, capture_output=True, text=True
    ).stdout
    from_file = project("check", "--json", "--diff-file", "-", input=diff)
    assert [f["rule"] for f in report(from_file)["findings"]] == [
        f["rule"] for f in report(staged)["findings"]
    ]


def test_scopes_exclude_each_other(project):
    assert project("check", "--staged", "--diff-against", "HEAD").exit_code == 2


def test_malformed_diff_is_a_usage_error(project):
    result = project("check", "--diff-file", "-", input="+++ b/docs/page0.md\n@@ -x +y @@\n")
    assert result.exit_code == 2 and "malformed hunk" in result.stderr


def test_unknown_voice_is_exit_1_without_a_report(project):
    (project.root / "voices/ui.yaml").unlink()
    result = project("check", "locales/en.json")
    assert result.exit_code == 1 and "no voice profile 'ui'" in result.stderr
    assert result.stdout == ""


def test_ship_gates(project):
    (project.root / "docs/page0.md").write_text("# Page\n\nSimply do it.\n")
    result = project("check", "--ship", "--json", "docs/page0.md")
    payload = report(result)
    gates = {g["gate"]: g["pass"] for g in payload["gates"]}
    assert gates == {"voice": False, "terminology": False, "qa": False}
    assert result.exit_code == 3


def test_commit_gate_refuses_only_what_an_edit_introduces(project):
    records = {
        r["ref"]["block"]: r for r in json.loads(project("inspect", "locales/en.json").stdout)
    }
    buy = records["buy"]
    op = {
        "op": "set_content",
        "at": buy["ref"],
        "if_match": buy["rev"],
        "text": "Add to basket now",
    }
    result = project(
        "apply", "--json", "-", input=json.dumps({"ops": [op]}), env={"KAPI_ACTOR": "agent"}
    )
    payload = report(result)
    assert result.exit_code == 3
    assert payload["ops"][0]["error"]["code"] == "gate_failed"
    assert payload["ops"][0]["findings"][0]["rule"] == "voice.vocabulary"
    # "add" already says basket: editing it elsewhere lands, the old finding is reported, not refused
    add = records["add"]
    op = {
        "op": "set_content",
        "at": add["ref"],
        "if_match": add["rev"],
        "text": "Add to basket today",
    }
    result = project(
        "apply", "--json", "-", input=json.dumps({"ops": [op]}), env={"KAPI_ACTOR": "agent"}
    )
    assert result.exit_code == 0, result.output
    # a person may land over a failing finding with gate report
    op = {"op": "set_content", "at": buy["ref"], "if_match": buy["rev"], "text": "Basket it now"}
    person = project("apply", "--json", "--gate", "report", "-", input=json.dumps({"ops": [op]}))
    assert person.exit_code == 0, person.output
    assert report(person)["docs"][0]["findings"][0]["fails"] is True


def test_check_text(project):
    result = project("check", "--json", "--text", "Simply do it.", "docs/x.md")
    assert result.exit_code == 3
    assert report(result)["target"]["kind"] == "text"


def test_bilingual_check_finds_a_dropped_placeholder(project):
    (project.root / "locales/fr.json").write_text(
        '{\n  "add": "Ajouter au panier",\n  "buy": "Acheter"\n}\n'
    )
    (project.root / "locales/en.json").write_text(
        '{\n  "add": "Add {{count}} to cart",\n  "buy": "Buy now"\n}\n'
    )
    result = project(
        "check", "--json", "locales/en.json", "--target", "locales/fr.json", "--target-lang", "fr"
    )
    assert result.exit_code == 3, result.output
    rules = [f["rule"] for f in report(result)["findings"]]
    assert "placeholder.missing" in rules
    assert project("check", "--target", "locales/fr.json", "locales/en.json").exit_code == 2


def test_a_broken_voice_file_names_its_line_and_key(project):
    (project.root / "voices/ui.yaml").write_text("name: ui\nstyle:\n  sentence_length: forever\n")
    result = project("check", "locales/en.json")
    assert result.exit_code == 1
    assert "voices/ui.yaml:3 style.sentence_length" in result.stderr
