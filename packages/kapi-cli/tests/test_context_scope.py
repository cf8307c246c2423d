"""Where a kept rule holds: its scope in the terms store, the answer and the check at each
point, the keep-as-is lines and folder sections of the rules files, widening, and the
provenance of the answer."""

from __future__ import annotations

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
    ContextNoteRequest,
    ContextReviewRequest,
    note_context,
    review_context,
)
from kapi.host.init import InitRequest, run_init
from kapi.host.workspace import open_workspace

KAPI = str(Path(sys.executable).with_name("kapi"))
ONE = Actor(ActorKind.AGENT, "claude-code", "s-one")
PERSON = Actor(ActorKind.PERSON, "ana@example.com")

RECIPE = """\
version: v1
id: prj_scope
name: scope
defaults:
  source_language: en
profiles:
  help:
    channels: [articles]
collections:
  - name: docs
    content:
      - path: "docs/**/*.md"
  - name: help
    channel: help/articles
    content:
      - path: "help/**/*.md"
"""


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "suite"
    (root / "docs").mkdir(parents=True)
    (root / "help").mkdir()
    (root / "kapi.yaml").write_text(RECIPE, encoding="utf-8")
    (root / "docs/setup.md").write_text("# Setup\n\nOpen your Workspace.\n", encoding="utf-8")
    (root / "help/start.md").write_text("# Start\n\nOpen your Workspace.\n", encoding="utf-8")
    run_init(InitRequest(folder=root))
    return root


def kapi(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KAPI_")}
    return subprocess.run([KAPI, *args], cwd=root, capture_output=True, text=True, env=env)


def ws(root: Path):
    return open_workspace(cwd=root)


def kept_space(root: Path) -> str:
    with ws(root) as w:
        op = note_context(
            ContextNoteRequest(
                actor=ONE, term="Space", instead_of=("Workspace",), path="help/start.md"
            ),
            w,
        ).operation
        review_context(ContextReviewRequest(actor=PERSON, keep=(op,)), w)
    return op


def answer(root: Path, path: str):
    with ws(root) as w:
        return read_context(ContextReadRequest(path=path), w)


def findings(root: Path, path: str) -> list[tuple[str, bool]]:
    with ws(root) as w:
        report = run_check(CheckRequest(files=(path,)), w).report
    return [(f.rule, f.fails) for f in report.findings]


def test_a_rule_kept_in_a_folder_holds_only_there(project):
    op = kept_space(project)
    with ws(project) as w:
        [concept] = [c for c in w.store.concepts() if any(t.text == "Space" for t in c.terms)]
    assert dict(concept.properties) == {
        "profile": "help",
        "coordinates": "channel=articles,product=help",
        "origin": op,
    }
    help_answer = answer(project, "help/start.md")
    assert [(r.say, r.not_) for r in help_answer.rules] == [("Space", ("Workspace",))]
    assert help_answer.keep == ()
    docs = answer(project, "docs/setup.md")
    assert docs.rules == () and docs.terms == ()
    [keep] = docs.keep
    assert keep.line() == (
        '"Workspace" is correct here; do not rename it to "Space". That rename holds only in help/.'
    )
    assert 'Keep as it is:\n- "Workspace" is correct here' in docs.markdown()
    assert findings(project, "help/start.md") == [("terms.vocabulary", True)]
    assert findings(project, "docs/setup.md") == []


def test_the_rules_files_keep_the_old_wording_at_the_root_and_the_rule_in_its_folder(project):
    kept_space(project)
    root = (project / "AGENTS.md").read_text(encoding="utf-8")
    assert 'Keep as it is:\n- "Workspace" is correct here; do not rename it to "Space".' in root
    assert '- help/: write "Space", not "Workspace"' in root
    assert "- Say" not in root
    folder = (project / "help/AGENTS.md").read_text(encoding="utf-8")
    assert "## Writing rules for help/" in folder
    assert '- Say "Space", not "Workspace"' in folder
    assert not (project / "docs/AGENTS.md").exists()


def test_a_person_widens_a_rule_to_the_project_and_it_holds_everywhere(project):
    op = kept_space(project)
    with ws(project) as w:
        with pytest.raises(ContextRefused, match="only a person widens"):
            review_context(ContextReviewRequest(actor=ONE, widen_to="project"), w)
        with pytest.raises(ContextError, match="needs a store shared by the projects"):
            review_context(ContextReviewRequest(actor=PERSON, widen_to="workspace"), w)
        done = review_context(ContextReviewRequest(actor=PERSON, widen_to="project"), w)
    assert [(d.kind, d.target) for d in done.decisions] == [("widen", op)]
    with ws(project) as w:
        [concept] = [c for c in w.store.concepts() if any(t.text == "Space" for t in c.terms)]
    assert dict(concept.properties) == {"origin": op}
    assert [r.say for r in answer(project, "docs/setup.md").rules] == ["Space"]
    assert findings(project, "docs/setup.md") == [("terms.vocabulary", True)]
    root = (project / "AGENTS.md").read_text(encoding="utf-8")
    assert '- Say "Space", not "Workspace"' in root and "Keep as it is" not in root
    assert not (project / "help/AGENTS.md").exists()  # it held only the section


def test_widening_an_axis_keeps_the_others(project):
    op = kept_space(project)
    with ws(project) as w:
        review_context(ContextReviewRequest(actor=PERSON, keep=(), widen_to="channel"), w)
        [concept] = [c for c in w.store.concepts() if any(t.text == "Space" for t in c.terms)]
    assert dict(concept.properties) == {
        "profile": "help",
        "coordinates": "product=help",
        "origin": op,
    }


def test_provenance_names_the_revision_and_a_terms_store_behind_the_log(project):
    op = kept_space(project)
    fresh = answer(project, "help/start.md").provenance
    with ws(project) as w:
        ops = len(w.store.context_log())
    assert (fresh.project, fresh.revision, fresh.stale) == ("prj_scope", ops, False)
    with ws(project) as w:  # the store loses the rule behind the log's back
        w.store.delete_concepts([c.id for c in w.store.concepts()])
    behind = answer(project, "help/start.md")
    assert behind.provenance.stale
    assert f"lacks the wording of #{op[:10]}" in behind.provenance.reason
    explained = kapi(project, "context", "help/start.md", "--explain").stdout
    assert f"at context revision {ops}, content stale: the terms store lacks" in explained
    synced = kapi(project, "context", "sync", "--files-only")
    assert synced.returncode == 0, synced.stderr
    assert "brought 1 rule(s) of the terms store in step" in synced.stdout
    again = answer(project, "help/start.md")
    assert not again.provenance.stale and [r.say for r in again.rules] == ["Space"]
    assert answer(project, "docs/setup.md").rules == ()  # back with its scope
