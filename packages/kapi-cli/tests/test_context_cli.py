"""``kapi context`` and ``kapi store`` driven through the real ``kapi`` executable.

Agents are simulated as their hosts declare them (``KAPI_ACTOR=agent``,
``KAPI_AGENT_NAME``, ``KAPI_AGENT_SESSION``); a person is the default.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

KAPI = str(Path(sys.executable).with_name("kapi"))
_MARKERS = ("KAPI_ACTOR", "CLAUDECODE", "CODEX_SESSION_ID", "KAPI_AGENT_NAME", "KAPI_AGENT_SESSION")


def run(root: Path, *args: str, session: str = "", stdin: str | None = None):
    env = {k: v for k, v in os.environ.items() if k not in _MARKERS and not k.startswith("KAPI_")}
    if session:
        env.update(KAPI_ACTOR="agent", KAPI_AGENT_NAME="claude-code", KAPI_AGENT_SESSION=session)
    return subprocess.run(
        [KAPI, *args], cwd=root, env=env, capture_output=True, text=True, input=stdin, timeout=60
    )


def ok(root: Path, *args: str, session: str = "") -> str:
    done = run(root, *args, session=session)
    assert done.returncode == 0, done.stderr + done.stdout
    return done.stdout


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "shop"
    (root / "docs").mkdir(parents=True)
    (root / "docs/intro.md").write_text("# Intro\n\nUse Quickcast to sign in.\n", encoding="utf-8")
    (root / "docs/guide.md").write_text(
        "# Guide\n\nOpen the Quick cast panel, log in and check your e-mail.\n", encoding="utf-8"
    )
    ok(root, "init")
    return root


def note(root: Path, session: str, *args: str) -> str:
    return json.loads(ok(root, "context", "note", *args, "--json", session=session))["operation"]


def check(root: Path) -> tuple[int, list[tuple[str, bool, bool, str]]]:
    done = run(root, "check", "docs", "--json")
    report = json.loads(done.stdout)
    found = sorted(
        (f["rule"], f["fails"], bool(f.get("suggested")), f["metadata"]["term"])
        for f in report["findings"]
    )
    return done.returncode, found


def section(root: Path, name: str = "AGENTS.md") -> str:
    text = (root / name).read_text(encoding="utf-8")
    return text[text.index("<!-- kapi:rules") : text.index("<!-- /kapi:rules -->")]


def _review_in_a_terminal(folder: Path, prompt: bytes, answer: bytes) -> tuple[bytes, bool]:
    """``kapi context review`` in a pseudo-terminal: ``answer`` typed once ``prompt`` shows;
    what it printed, and whether the answer was sent."""
    import pty
    import select

    env = {k: v for k, v in os.environ.items() if k not in _MARKERS}
    pid, fd = pty.fork()
    if pid == 0:  # the child: kapi in a terminal
        os.chdir(folder)
        os.execve(KAPI, [KAPI, "context", "review"], env)
    output = b""
    sent = False
    while True:
        ready, _, _ = select.select([fd], [], [], 30)
        if not ready:
            break
        try:
            chunk = os.read(fd, 1024)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
        if not sent and prompt in output:
            os.write(fd, answer)
            sent = True
    os.waitpid(pid, 0)
    return output, sent


def test_two_agent_sessions_suggest_a_person_keeps_one_and_check_and_rules_files_follow(project):
    quickcast = note(
        project,
        "s-one",
        "--term",
        "Quickcast",
        "--instead-of",
        "Quick cast",
        "--seen-in",
        "docs/intro.md",
    )
    note(project, "s-one", "Product names are never translated", "--seen-in", "docs/intro.md")
    note(
        project,
        "s-two",
        "--from",
        "log in",
        "--to",
        "sign in",
        "--suggest",
        "--seen-in",
        "docs/guide.md",
    )
    note(
        project, "s-two", "--term", "email", "--instead-of", "e-mail", "--seen-in", "docs/guide.md"
    )

    # before any decision: everything advises at weight 0, nothing fails, the files say nothing
    code, found = check(project)
    assert code == 0
    assert {(rule, fails, suggested) for rule, fails, suggested, _ in found} == {
        ("suggested.vocabulary", False, True)
    }
    assert {snippet for *_, snippet in found} == {"Quick cast", "log in", "e-mail"}
    assert "No writing rules are recorded" in section(project)

    summary = ok(project, "context", "log", "--session", "this", session="s-two")
    assert "1 observation and 1 correction" in summary
    assert "kapi context review --session s-two" in summary

    # a person reviews and keeps one
    peek = ok(project, "context", "review", "--peek")
    assert f"#{quickcast[:10]}" in peek and "Suggested:" in peek
    kept = ok(project, "context", "review", "--keep", quickcast[:10])
    assert f"keep #{quickcast[:10]}" in kept

    code, found = check(project)
    assert code == 3
    assert ("terms.vocabulary", True, False, "Quick cast") in found
    assert {snippet for rule, _, _, snippet in found if rule == "suggested.vocabulary"} == {
        "log in",
        "e-mail",
    }
    for name in ("AGENTS.md", "CLAUDE.md"):
        rules = [line for line in section(project, name).splitlines() if line.startswith("- Say")]
        assert rules == ['- Say "Quickcast", not "Quick cast" or "Quick-cast"']


def test_help_says_who_may_run_each_verb(project):
    top = ok(project, "context", "--help")
    assert "(agent or person" in top and "(person only)" in top
    who = {
        "search": "(agent or person)",
        "note": "(agent or person)",
        "log": "(agent or person)",
        "review": "(person only)",
        "reset": "(person only)",
        "sync": "(person only)",
    }
    for verb, says in who.items():
        assert says in " ".join(ok(project, "context", verb, "--help").split()), verb
    assert "(agent or person)" in ok(project, "context", "docs/intro.md", "--help")
    assert "(person only)" in " ".join(ok(project, "store", "import", "--help").split())
    assert "context" in ok(project, "--help")


def _log(root: Path) -> str:
    return ok(root, "store", "export")


def test_bad_input_is_refused_saying_what_to_do_and_changes_nothing(project):
    mine = note(
        project,
        "s-one",
        "--term",
        "Quickcast",
        "--instead-of",
        "Quick cast",
        "--seen-in",
        "docs/intro.md",
    )
    note(project, "s-one", "A second note", "--seen-in", "docs/intro.md")
    log, agents = _log(project), (project / "AGENTS.md").read_bytes()
    cases = [
        (
            ("context", "note", "--term", "sign in", "--instead-of", "log in"),
            "s-one",
            2,
            "needs evidence",
        ),
        (("context", "note", "--withdraw", mine[:10]), "s-two", 3, "another session"),
        (("context", "review", "--keep", mine[:10]), "s-one", 3, "only a person keeps"),
        (("context", "review", "--keep", "zzzzzz"), "", 3, "no operation #zzzzzz"),
        (("context", "review", "--keep", "0"), "", 2, "give more characters"),
        (("context", "note", "x", "--seen-in", "../outside.md"), "s-one", 2, "not inside"),
        (("context", "reset", "--before", mine), "s-one", 3, "only a person resets"),
        (("context", "review", "--drop", mine[:10]), "s-one", 3, "only a person drops"),
        (("context", "review", "--choose", mine[:10]), "s-one", 3, "only a person"),
        (("context", "review", "--widen-to", "project"), "s-one", 3, "only a person widens"),
        (("context", "sync", "--files-only"), "s-one", 3, "only a person syncs"),
        (("context", "sync", "--merged", "HEAD~1..HEAD"), "s-one", 3, "only a person syncs"),
        (("store", "import", "x.jsonl"), "s-one", 3, "only a person imports"),
    ]
    (project / "x.jsonl").write_text("", encoding="utf-8")
    for args, session, code, says in cases:
        done = run(project, *args, session=session)
        assert done.returncode == code, (args, done.stderr)
        assert says in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr
        if session and code == 3 and "another session" not in says:  # the policy's refusals
            assert "kapi context review" in done.stderr, (args, done.stderr)
    assert _log(project) == log and (project / "AGENTS.md").read_bytes() == agents

    broken = b"# Mine\n\n<!-- kapi:rules\n- half a section\n"
    (project / "AGENTS.md").write_bytes(broken)
    done = run(project, "context", "sync", "--files-only")
    assert done.returncode == 2 and "no end marker" in done.stderr
    assert (project / "AGENTS.md").read_bytes() == broken

    done = run(project, "context", "note", "x", "--seen-in", "docs/intro.md", "--json")
    assert done.returncode == 0  # a person may note too
    robot = subprocess.run(
        [KAPI, "context", "log"],
        cwd=project,
        env={**os.environ, "KAPI_ACTOR": "robot"},
        capture_output=True,
        text=True,
    )
    assert robot.returncode == 2 and "use 'person' or 'agent'" in robot.stderr


def test_the_answer_at_a_path_as_markdown_and_json(project):
    note(
        project,
        "s-one",
        "--term",
        "Quickcast",
        "--instead-of",
        "Quick cast",
        "--seen-in",
        "docs/intro.md",
    )
    brief = ok(project, "context", "docs/guide.md", "--explain")
    assert brief.startswith("# Writing docs/guide.md\n")
    assert "Suggested, not yet established:" in brief and "## How this was answered" in brief
    answer = json.loads(ok(project, "context", "--json", "docs/guide.md"))
    assert answer["point"]["path"] == "docs/guide.md"
    assert answer["suggestions"][0]["replacement"] == "Quickcast"
    assert answer["coverage"] == "thin"
    profile = ok(project, "context", "--profile", "technical-docs")
    assert profile.startswith("# Writing for the technical-docs profile")
    found = ok(project, "context", "search", "quick")
    assert "Suggested, not yet established:" in found
    outside = run(project, "context", "/etc/passwd")
    assert outside.returncode == 2 and "not inside this project" in outside.stderr
    assert "root:" not in outside.stdout + outside.stderr


def test_a_reset_with_dry_run_then_for_real(project):
    first = note(project, "s-one", "A note", "--seen-in", "docs/intro.md")
    note(project, "s-two", "Another", "--seen-in", "docs/intro.md")
    log = _log(project)
    preview = ok(project, "context", "reset", "--before", "s-two", "--dry-run")
    assert "would set aside 1 operation(s)" in preview and _log(project) == log
    ok(project, "context", "reset", "--before", "s-two")
    statuses = {
        line["operation"]: line["status"]
        for line in json.loads(ok(project, "context", "log", "--json"))["operations"]
    }
    assert statuses[first] == "suggested" and "reset" in statuses.values()


def test_store_export_and_import_between_two_projects(project, tmp_path):
    op = note(project, "s-one", "A note", "--seen-in", "docs/intro.md")
    exported = project / "context.jsonl"
    ok(project, "store", "export", str(exported))
    other = tmp_path / "other"
    (other / "docs").mkdir(parents=True)
    (other / "docs/a.md").write_text("# A\n", encoding="utf-8")
    ok(other, "init", "--no-rules-files")
    assert not (other / "AGENTS.md").exists()
    exported = other / "shared.jsonl"  # the file as the team shares it: in each project
    exported.write_bytes((project / "context.jsonl").read_bytes())
    first = json.loads(ok(other, "store", "import", str(exported), "--json"))
    again = json.loads(ok(other, "store", "import", str(exported), "--json"))
    assert (first["added"], again["added"], again["skipped"]) == (1, 0, 1)
    assert op in ok(other, "store", "export")
    refused = run(other, "store", "import", str(exported), session="s-x")
    assert refused.returncode == 3 and "only a person imports" in refused.stderr


def test_review_in_a_terminal_asks_for_each_suggestion(project):
    op = note(
        project,
        "s-one",
        "--term",
        "Quickcast",
        "--instead-of",
        "Quick cast",
        "--seen-in",
        "docs/intro.md",
    )
    output, sent = _review_in_a_terminal(project, b"[k]eep", b"k\n")
    assert sent, output
    assert f"keep #{op[:10]}".encode() in output
    assert '- Say "Quickcast"' in section(project)


def test_an_agent_without_a_session_variable_is_one_session_per_host_process(project):
    env = {k: v for k, v in os.environ.items() if k not in _MARKERS}
    env["KAPI_ACTOR"] = "agent"
    sessions = []
    for text in ("One", "Two"):
        done = subprocess.run(
            [KAPI, "context", "note", text, "--seen-in", "docs/intro.md", "--json"],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
        sessions.append(json.loads(done.stdout)["session"])
    assert sessions[0] == sessions[1]
    assert sessions[0].startswith("s") and len(sessions[0]) == 13


def test_a_persons_note_is_named_by_git(project):
    note(project, "", "A person's note", "--seen-in", "docs/intro.md")
    (line,) = json.loads(ok(project, "context", "log", "--json"))["operations"]
    assert line["actor_kind"] == "person" and line["actor"]


def test_a_persons_prepared_change_set_lands_whole_and_an_agents_is_refused(project):
    refresh = project / "refresh.jsonl"
    refresh.write_text(
        '{"op":"term","action":"upsert","term":"team space","locale":"en",'
        '"status":"deprecated","replacement":"workspace"}\n'
        '{"op":"term","action":"upsert","term":"log in","locale":"en",'
        '"status":"forbidden","replacement":"sign in"}\n',
        encoding="utf-8",
    )
    refused = run(project, "apply", str(refresh), session="s-one")
    assert refused.returncode == 3
    assert "log in" not in ok(project, "terms", "list")
    ok(project, "apply", str(refresh))
    listed = ok(project, "terms", "list")
    assert "team space" in listed and "log in" in listed
    kinds = [
        line["kind"] for line in json.loads(ok(project, "context", "log", "--json"))["operations"]
    ]
    assert kinds.count("edit") == 2


# --- a suggestion against the voice's rule in force -----------------------------------

SHOP = Path(__file__).resolve().parents[3] / "examples" / "shop"


@pytest.fixture
def shop(tmp_path) -> Path:
    """The example shop as a git checkout, its strings naming both the cart and a basket
    (its voice, voices/shop-ui.yaml, says "cart", not "basket")."""
    import shutil

    root = tmp_path / "shop"
    shutil.copytree(SHOP, root)
    strings = json.loads((root / "locales/en.json").read_text(encoding="utf-8"))
    strings["nav"]["basket"] = "Your basket"
    (root / "locales/en.json").write_text(json.dumps(strings, indent=2) + "\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    ok(root, "init")
    return root


def vocabulary(root: Path, path: str = "locales/en.json") -> tuple[int, set[tuple[str, bool, str]]]:
    """The check's word findings: (rule, fails, message)."""
    done = run(root, "check", path, "--json")
    found = {
        (f["rule"], f["fails"], f["message"])
        for f in json.loads(done.stdout)["findings"]
        if f["rule"].endswith("vocabulary")
    }
    return done.returncode, found


CART = 'Use "cart" instead of "basket"'
BASKET = 'Use "basket" instead of "cart"'


def test_a_suggestion_against_the_voice_is_contested_and_cannot_be_kept(shop):
    noted = json.loads(
        ok(
            shop,
            "context", "note", "--from", "cart", "--to", "basket", "--suggest",
            "--seen-in", "locales/en.json", "--json",
            session="s-one",
        )
    )  # fmt: skip
    op = noted["operation"]
    assert noted["status"] == "contested"
    assert noted["contested_by"] == ["voice:shop-ui/cart"]

    # every surface says it is contested and by which rule in force
    (line,) = json.loads(ok(shop, "context", "log", "--json"))["operations"]
    assert line["status"] == "contested" and line["contested_by"] == ["voice:shop-ui/cart"]
    assert '[contested by the voice shop-ui (say "cart")]' in line["line"]
    peek = ok(shop, "context", "review", "--peek")
    assert peek.startswith("Conflicts:\n") and f"#{op[:10]}" in peek
    assert 'contested by the voice shop-ui (say "cart")' in peek
    answer = json.loads(ok(shop, "context", "locales/en.json", "--json"))
    (suggestion,) = answer["suggestions"]
    assert suggestion["status"] == "contested"
    assert suggestion["contested_by"] == ["voice:shop-ui/cart"]
    assert '[contested by the voice shop-ui (say "cart")]' in ok(shop, "context", "locales/en.json")
    (found,) = json.loads(ok(shop, "context", "search", "basket", "--json"))["suggestions"]
    assert found["status"] == "contested" and found["contested_by"] == ["voice:shop-ui/cart"]

    # the voice's rule stays in force: keeping or choosing the suggestion is refused, and
    # nothing is recorded
    log_before = ok(shop, "context", "log", "--json")
    for verb in ("--keep", "--choose"):
        refused = run(shop, "context", "review", verb, op[:10])
        assert refused.returncode == 3, refused.stdout + refused.stderr
        assert 'the voice shop-ui (say "cart"), a rule in force' in refused.stderr
        assert f"kapi context review --drop #{op[:10]}" in refused.stderr
    skipped = run(shop, "context", "review", "--keep", "all", "--session", "s-one")
    assert skipped.returncode == 0, skipped.stderr
    assert f"skipped #{op[:10]}: contested by the voice shop-ui" in skipped.stderr
    assert "a rule in force that stays" in skipped.stderr
    assert ok(shop, "context", "log", "--json") == log_before
    assert "basket" not in ok(shop, "terms", "list")

    # the check fails one way only; the suggestion only reports
    code, found = vocabulary(shop)
    assert code != 0
    assert ("voice.vocabulary", True, CART) in found
    assert not any(BASKET in message for *_, message in found)
    assert {fails for rule, fails, _ in found if rule == "suggested.vocabulary"} == {False}

    # the rules files say one direction
    ok(shop, "context", "sync", "--files-only")
    rules = section(shop / "locales")
    assert '- Say "cart", not "basket"' in rules
    assert 'Say "basket", not "cart"' not in rules

    # the person drops it: nothing suggests "basket" any more
    ok(shop, "context", "review", "--drop", op[:10])
    _, found = vocabulary(shop)
    assert found == {("voice.vocabulary", True, CART)}


def test_a_rule_kept_before_the_voice_said_otherwise_leaves_force_and_the_voice_stays(shop):
    voice = shop / "voices/shop-ui.yaml"
    said = voice.read_text(encoding="utf-8")
    voice.write_text(
        said.replace("  - term: basket\n    replacement: cart\n", ""), encoding="utf-8"
    )
    op = note(
        shop, "s-one", "--from", "cart", "--to", "basket", "--suggest",
        "--seen-in", "locales/en.json",
    )  # fmt: skip
    ok(shop, "context", "review", "--keep", op[:10])  # no rule in force against it yet
    _, found = vocabulary(shop)
    assert ("terms.vocabulary", True, BASKET + " (use: basket)") in found

    voice.write_text(said, encoding="utf-8")  # the voice says "cart", not "basket" again
    (line,) = [
        o
        for o in json.loads(ok(shop, "context", "log", "--json"))["operations"]
        if o["operation"] == op
    ]
    assert line["status"] == "contested" and line["contested_by"] == ["voice:shop-ui/cart"]
    refused = run(shop, "context", "review", "--keep", op[:10])
    assert refused.returncode == 3 and "a rule in force" in refused.stderr

    # the terms store is brought in step: only the voice's direction binds
    ok(shop, "context", "sync", "--files-only")
    _, found = vocabulary(shop)
    assert {(rule, message) for rule, fails, message in found if fails} == {
        ("voice.vocabulary", CART)
    }
    rules = section(shop / "locales")
    assert '- Say "cart", not "basket"' in rules
    assert 'Say "basket", not "cart"' not in rules


def test_a_suggestion_that_agrees_with_the_voice_or_holds_elsewhere_is_not_contested(shop):
    agrees = json.loads(
        ok(
            shop,
            "context", "note", "--term", "cart", "--instead-of", "trolley",
            "--seen-in", "locales/en.json", "--json",
            session="s-one",
        )
    )  # fmt: skip
    assert agrees["status"] == "suggested" and agrees["contested_by"] == []
    # the docs are written in another voice: there "basket" may win
    elsewhere = json.loads(
        ok(
            shop,
            "context", "note", "--term", "basket", "--instead-of", "cart",
            "--seen-in", "docs/getting-started.md", "--json",
            session="s-one",
        )
    )  # fmt: skip
    assert elsewhere["status"] == "suggested" and elsewhere["contested_by"] == []
    ok(shop, "context", "review", "--keep", elsewhere["operation"][:10])
    assert '- Say "basket", not "cart"' in section(shop / "docs")
    _, found = vocabulary(shop)
    assert not any(BASKET in message for *_, message in found)


def test_the_voice_brief_and_rules_files_end_a_pattern_description_once(shop):
    brief = ok(shop, "context", "locales/en.json")
    assert "Avoid: Do not tell shoppers a step is easy.\n" in brief
    for name in ("AGENTS.md", "docs/AGENTS.md", "locales/AGENTS.md"):
        text = (shop / name).read_text(encoding="utf-8")
        assert ".." not in text.replace("...", ""), name
    assert "Avoid: Do not tell shoppers a step is easy.\n" in section(shop / "locales")


def test_review_in_a_terminal_offers_no_choice_against_the_voice(shop):
    op = note(
        shop, "s-one", "--from", "cart", "--to", "basket", "--suggest",
        "--seen-in", "locales/en.json",
    )  # fmt: skip
    output, sent = _review_in_a_terminal(shop, b"[s]kip", b"d\n")
    assert sent, output
    assert b'contested by the voice shop-ui (say "cart"), a rule in force that stays' in output
    assert b"[d]rop, [s]kip, [q]uit" in output and b"[c]hoose" not in output
    assert f"drop #{op[:10]}".encode() in output
    (line,) = json.loads(ok(shop, "context", "log", "--json", "--status", "dropped"))["operations"]
    assert line["operation"] == op
