"""Settling on real signals: merges read from a real git repository, usage counted by a
whole-project ``kapi check``, and what the log, the review and the answer then show."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kapi.core.change.ports import Actor, ActorKind
from kapi.core.context.errors import ContextError, ContextRefused
from kapi.host.check import CheckRequest, run_check
from kapi.host.context import ContextReadRequest, read_context
from kapi.host.context_ops import (
    ContextLogRequest,
    ContextNoteRequest,
    ContextReviewRequest,
    note_context,
    read_context_log,
    review_context,
)
from kapi.host.context_signals import ContextSyncRequest, sync_merged
from kapi.host.init import InitRequest, run_init
from kapi.host.workspace import open_workspace

KAPI = str(Path(sys.executable).with_name("kapi"))
ONE = Actor(ActorKind.AGENT, "claude-code", "s-one")
TWO = Actor(ActorKind.AGENT, "codex", "s-two")
PERSON = Actor(ActorKind.PERSON, "ana@example.com")


def git(root: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_DATE": "2026-04-01T10:00:00Z"}
    env["GIT_COMMITTER_DATE"] = env["GIT_AUTHOR_DATE"]
    done = subprocess.run(
        ["git", *args], cwd=root, capture_output=True, text=True, check=True, env=env
    )
    return done.stdout


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "shop"
    (root / "docs").mkdir(parents=True)
    (root / "docs/intro.md").write_text("# Intro\n\nOpen Quick cast to share.\n", encoding="utf-8")
    (root / "docs/guide.md").write_text(
        "# Guide\n\nQuick cast shows the Quick cast panel.\n", encoding="utf-8"
    )
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "ana@example.com")
    git(root, "config", "user.name", "Ana")
    run_init(InitRequest(folder=root))
    git(root, "add", "-A")
    git(root, "commit", "-qm", "Start the docs")
    return root


def ws(root: Path):
    return open_workspace(cwd=root)


def note(root: Path, actor: Actor = ONE, **fields) -> str:
    with ws(root) as w:
        return note_context(ContextNoteRequest(actor=actor, **fields), w).operation


def quickcast(root: Path, actor: Actor = ONE) -> str:
    return note(root, actor, term="Quickcast", instead_of=("Quick cast",), path="docs/intro.md")


def merge_branch(root: Path, title: str, edit: dict[str, str]) -> None:
    """A pull request merged with a merge commit, as GitHub writes it."""
    git(root, "checkout", "-qb", "change")
    for path, text in edit.items():
        (root / path).write_text(text, encoding="utf-8")
    git(root, "commit", "-qam", title)
    git(root, "checkout", "-q", "main")
    git(root, "merge", "-q", "--no-ff", "change", "-m", "Merge pull request #412 from ana/change")
    git(root, "branch", "-qD", "change")


def entry(root: Path, op: str):
    with ws(root) as w:
        from kapi.host.context_project import ProjectContext

        found = ProjectContext(w).fold().entry(op)
        assert found is not None
        return found


def concepts(root: Path) -> dict[str, dict]:
    with ws(root) as w:
        return {
            t.text: {"status": t.status, "properties": dict(c.properties)}
            for c in w.store.concepts()
            for t in c.terms
        }


def test_a_merge_toward_a_suggestion_settles_it_once_and_the_store_and_files_follow(project):
    op = quickcast(project)
    merge_branch(
        project,
        "Say Quickcast in the guide",
        {"docs/guide.md": "# Guide\n\nQuickcast shows the Quickcast panel.\n"},
    )
    with ws(project) as w:
        done = sync_merged(ContextSyncRequest(actor=PERSON, merged="HEAD~1..HEAD"), w)
    assert done.commits == 1
    [signal] = done.signals
    assert (signal.target, signal.pr, signal.preferred, signal.rejected) == (op, "412", 1, 1)
    assert signal.within == "docs/"
    assert done.settled == (op,)
    found = entry(project, op)
    assert found.status == "established" and found.standing.merges == ("#412",)
    assert concepts(project)["Quick cast"]["status"] == "forbidden"  # written as the tool's
    assert '- Say "Quickcast", not "Quick cast"' in (project / "AGENTS.md").read_text()
    with ws(project) as w:
        again = sync_merged(ContextSyncRequest(actor=PERSON, merged="HEAD~1..HEAD"), w)
        lines = read_context_log(ContextLogRequest(), w).operations
    assert again.signals == () and again.settled == ()  # content addressed: nothing new
    kinds = [(line.kind, line.actor) for line in lines if line.kind in ("signal", "establish")]
    assert kinds == [("signal", "sync"), ("establish", "settle")]
    establish = next(line for line in lines if line.kind == "establish")
    assert establish.text == f"#{op[:10]} settled on #{signal.operation[:10]}"


def test_a_merge_away_from_nothing_and_files_outside_the_content_record_nothing(project):
    quickcast(project)
    merge_branch(
        project, "Notes", {"NOTES.txt": "Quickcast, not Quick cast\n", "AGENTS.md": "Quickcast\n"}
    )
    with ws(project) as w:
        done = sync_merged(ContextSyncRequest(actor=PERSON, merged="main~1..main"), w)
    assert done.commits == 1 and done.signals == ()


def test_a_bad_range_an_agent_and_an_option_for_a_range_are_refused(project):
    quickcast(project)
    before = (project / ".kapi/project.db").read_bytes()
    with ws(project) as w:
        with pytest.raises(ContextError, match="git could not read it") as bad:
            sync_merged(ContextSyncRequest(actor=PERSON, merged="nowhere..main"), w)
        assert "main~5..main" in str(bad.value)
        with pytest.raises(ContextError, match="give a git range"):
            sync_merged(ContextSyncRequest(actor=PERSON, merged="--output=/tmp/x"), w)
        with pytest.raises(ContextRefused, match="kapi context review"):
            sync_merged(ContextSyncRequest(actor=ONE, merged="HEAD~1..HEAD"), w)
    assert (project / ".kapi/project.db").read_bytes() == before


def test_a_whole_project_check_records_usage_only_when_the_counts_move(project):
    op = quickcast(project)
    with ws(project) as w:
        run_check(CheckRequest(files=("docs/guide.md",)), w)  # a file check counts nothing
        assert entry(project, op).standing.uses is None
        run_check(CheckRequest(), w)
    uses = entry(project, op).standing.uses
    assert (uses.preferred, uses.total, uses.within) == (0, 3, "docs/")
    with ws(project) as w:
        run_check(CheckRequest(), w)  # the same counts: nothing recorded
        lines = read_context_log(ContextLogRequest(), w).operations
    assert [line.actor for line in lines if line.kind == "signal"] == ["check"]
    (project / "docs/intro.md").write_text("# Intro\n\nOpen Quickcast to share.\n", "utf-8")
    with ws(project) as w:
        run_check(CheckRequest(), w)
    found = entry(project, op)
    assert found.standing.text() == "seen in 1 session · 1 of 3 uses in docs/"
    assert found.status == "suggested"  # usage is standing only


def test_more_rejected_uses_after_a_keep_show_as_drift_in_the_review(project):
    op = quickcast(project)
    with ws(project) as w:
        review_context(ContextReviewRequest(actor=PERSON, keep=(op,)), w)
        run_check(CheckRequest(), w)
    (project / "docs/more.md").write_text("# More\n\nQuick cast again.\n", encoding="utf-8")
    with ws(project) as w:
        run_check(CheckRequest(), w)
        digest = review_context(ContextReviewRequest(actor=PERSON), w).digest
    assert [item.operation for item in digest.drift] == [op]
    assert digest.drift[0].standing.against == 1


def test_an_agent_recording_the_persons_change_settles_another_sessions_suggestion(project):
    op = quickcast(project)
    change = note(project, TWO, from_="Quick cast", to="Quickcast", path="docs/guide.md")
    found = entry(project, op)
    assert found.status == "established" and found.standing.corrections == 1
    assert concepts(project)["Quickcast"]["properties"]["origin"] == op
    with ws(project) as w:
        answer = read_context(ContextReadRequest(path="docs/intro.md"), w)
        lines = {x.operation: x for x in read_context_log(ContextLogRequest(), w).operations}
    assert [r.say for r in answer.rules] == ["Quickcast"]
    assert [(s.operation, s.kind) for s in answer.suggestions] == [(change, "note")]  # the fact
    establish = next(line for line in lines.values() if line.kind == "establish")
    assert change[:10] in establish.text


def test_the_log_and_the_answer_show_standing_as_counts_and_json_as_fields(project):
    op = quickcast(project)
    quickcast(project, TWO)
    done = subprocess.run(
        [KAPI, "context", "log", "--json"], cwd=project, capture_output=True, text=True
    )
    data = json.loads(done.stdout)
    standing = data["operations"][0]["standing"]
    assert standing == {
        "sessions": 2, "corrections": 0, "merges": [], "uses": None, "against": 0, "against_by": [],
    }  # fmt: skip
    assert data["operations"][0]["line"].endswith("· seen in 2 sessions")
    text = subprocess.run(
        [KAPI, "context", "docs/intro.md"], cwd=project, capture_output=True, text=True
    ).stdout
    assert "(claude-code, seen in docs/intro.md) · seen in 2 sessions" in text
    answer = subprocess.run(
        [KAPI, "context", "docs/intro.md", "--json"], cwd=project, capture_output=True, text=True
    )
    suggestion = json.loads(answer.stdout)["suggestions"][0]
    assert suggestion["operation"] == op and suggestion["standing"]["sessions"] == 2


def test_sync_merged_through_the_executable(project):
    quickcast(project)
    merge_branch(project, "Say Quickcast", {"docs/intro.md": "# Intro\n\nOpen Quickcast.\n"})
    env = {k: v for k, v in os.environ.items() if not k.startswith("KAPI_")}
    done = subprocess.run(
        [KAPI, "context", "sync", "--merged", "HEAD~1..HEAD"],
        cwd=project,
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert "read 1 merged commit(s); 1 signal(s) recorded" in done.stdout
    assert "merged in #412" in done.stdout and "settled #" in done.stdout
    agent = subprocess.run(
        [KAPI, "context", "sync", "--merged", "HEAD~1..HEAD"],
        cwd=project,
        capture_output=True,
        text=True,
        env={**env, "KAPI_ACTOR": "agent", "KAPI_AGENT_SESSION": "s-x"},
    )
    assert agent.returncode == 3 and "only a person" in agent.stderr
    assert "Traceback" not in agent.stderr
