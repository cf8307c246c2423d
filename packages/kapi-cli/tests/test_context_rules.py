"""The rules files: kapi's section of AGENTS.md and CLAUDE.md, and nothing else of them.

Written through the host functions on real projects; every refusal leaves the
files' bytes as they were.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kapi.core.change.ports import Actor, ActorKind
from kapi.core.context.errors import ContextError
from kapi.host.context_ops import (
    ContextNoteRequest,
    ContextReviewRequest,
    note_context,
    review_context,
)
from kapi.host.context_rules import END, START, splice_section, write_rules_files
from kapi.host.init import InitRequest, run_init
from kapi.host.workspace import open_workspace

AGENT = Actor(ActorKind.AGENT, "claude-code", "s-one")
PERSON = Actor(ActorKind.PERSON, "ana@example.com")

RECIPE = """\
version: v1
id: prj_rules
name: rules
defaults:
  source_language: en
profiles:
  guide:
    channels: [docs]
    voice: {pack: technical-docs}
collections:
  - name: docs
    channel: guide/docs
    content:
      - path: 'docs/**/*.md'
  - name: blog
    content:
      - path: 'blog/**/*.md'
"""


def project(root: Path, *, recipe: str | None = None, init: bool = True) -> Path:
    for folder in ("docs", "blog"):
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / "a.md").write_text("# A\n\nUse Quickcast to log in.\n", encoding="utf-8")
    if recipe is not None:
        (root / "kapi.yaml").write_text(recipe, encoding="utf-8")
    elif init:
        run_init(InitRequest(folder=root, rules_files=False))
    return root


def sync(root: Path):
    with open_workspace(cwd=root) as ws:
        return {c.path: c.outcome for c in write_rules_files(ws).files}


def keep_rule(root: Path, say: str, avoid: str) -> None:
    with open_workspace(cwd=root) as ws:
        op = note_context(
            ContextNoteRequest(actor=AGENT, term=say, instead_of=(avoid,), path="blog/a.md"), ws
        ).operation
        review_context(ContextReviewRequest(actor=PERSON, keep=(op,)), ws)


def test_init_writes_both_files_and_no_rules_files_opts_out(tmp_path):
    written = project(tmp_path / "a", init=False)
    result = run_init(InitRequest(folder=written))
    assert {(c.path, c.outcome) for c in result.rules_files} == {
        ("AGENTS.md", "created"),
        ("CLAUDE.md", "created"),
    }
    text = (written / "AGENTS.md").read_text(encoding="utf-8")
    assert text.startswith(START + "\n## Writing rules\n") and text.endswith(END + "\n")
    assert "No writing rules are recorded for this project yet." in text
    assert "kapi check <file>" in text and "kapi context note --term" in text
    bare = project(tmp_path / "b", init=False)
    run_init(InitRequest(folder=bare, rules_files=False))
    assert not (bare / "AGENTS.md").exists() and not (bare / "CLAUDE.md").exists()


def test_the_persons_text_outside_the_section_is_never_touched(tmp_path):
    root = project(tmp_path / "p")
    mine_before = "# Our agents\n\nBe kind.\n"
    mine_after = "\n## Notes\n\nAsk before deleting.\n"
    (root / "AGENTS.md").write_text(
        mine_before + "\n" + START + "\nstale rules\n" + END + "\n" + mine_after, encoding="utf-8"
    )
    keep_rule(root, "Quickcast", "Quick cast")
    text = (root / "AGENTS.md").read_text(encoding="utf-8")
    assert text.startswith(mine_before + "\n" + START + "\n## Writing rules\n")
    assert text.endswith(END + "\n" + mine_after)
    assert '- Say "Quickcast", not "Quick cast"' in text and "stale rules" not in text


def test_a_file_without_a_section_gets_it_appended_after_a_blank_line(tmp_path):
    root = project(tmp_path / "p")
    (root / "AGENTS.md").write_text("# Agents\nBe kind.", encoding="utf-8")
    assert sync(root)["AGENTS.md"] == "updated"
    text = (root / "AGENTS.md").read_text(encoding="utf-8")
    assert text.startswith("# Agents\nBe kind.\n\n" + START)


def test_unchanged_context_gives_identical_bytes(tmp_path):
    root = project(tmp_path / "p")
    keep_rule(root, "Quickcast", "Quick cast")
    sync(root)
    before = {name: (root / name).read_bytes() for name in ("AGENTS.md", "CLAUDE.md")}
    assert set(sync(root).values()) == {"unchanged"}
    assert {name: (root / name).read_bytes() for name in before} == before


def test_an_unterminated_section_is_refused_and_the_file_left_as_it_was(tmp_path):
    root = project(tmp_path / "p")
    broken = "# Agents\n\n" + START + "\n- Say something\n"
    (root / "AGENTS.md").write_text(broken, encoding="utf-8")
    with pytest.raises(ContextError, match=r"AGENTS.md:3: .*no end marker") as refused:
        sync(root)
    assert "kapi context sync --files-only" in str(refused.value)
    assert (root / "AGENTS.md").read_text(encoding="utf-8") == broken
    assert not (root / "CLAUDE.md").exists()


def test_init_refuses_a_broken_section_before_writing_anything(tmp_path):
    root = project(tmp_path / "p", init=False)
    (root / "CLAUDE.md").write_text(START + "\n", encoding="utf-8")
    with pytest.raises(ContextError, match="no end marker"):
        run_init(InitRequest(folder=root))
    assert not (root / "kapi.yaml").exists() and not (root / "AGENTS.md").exists()


def test_a_claude_md_importing_agents_md_gets_no_section_and_loses_an_old_one(tmp_path):
    root = project(tmp_path / "p")
    (root / "CLAUDE.md").write_text(
        "@AGENTS.md\n\n" + START + "\nold\n" + END + "\n", encoding="utf-8"
    )
    outcomes = sync(root)
    assert outcomes == {"AGENTS.md": "created", "CLAUDE.md": "removed"}
    assert (root / "CLAUDE.md").read_text(encoding="utf-8") == "@AGENTS.md\n"


def test_a_claude_md_that_is_agents_md_is_written_once(tmp_path):
    root = project(tmp_path / "p")
    sync(root)
    (root / "CLAUDE.md").unlink()
    os.link(root / "AGENTS.md", root / "CLAUDE.md")
    assert sync(root) == {"AGENTS.md": "unchanged"}
    assert (root / "AGENTS.md").read_text(encoding="utf-8").count(START) == 1


def test_the_rules_list_is_capped_at_20_forbidding_rules_first(tmp_path):
    root = project(tmp_path / "p")
    from kapi.core.governance.terms import Concept, Term

    with open_workspace(cwd=root) as ws:
        ws.store.put_concepts(
            [
                Concept(
                    id=f"c{i:02}",
                    terms=(
                        Term(text=f"good{i:02}", locale="en", status="preferred"),
                        Term(
                            text=f"bad{i:02}",
                            locale="en",
                            status="deprecated" if i < 5 else "forbidden",
                        ),
                    ),
                )
                for i in range(25)
            ]
        )
    sync(root)
    lines = (root / "AGENTS.md").read_text(encoding="utf-8").splitlines()
    rules = [line for line in lines if line.startswith('- Say "')]
    assert len(rules) == 20 and rules[0] == '- Say "good05", not "bad05"'
    assert "- 5 more rules hold here: `kapi context AGENTS.md` lists them all." in lines


def test_a_folder_with_a_voice_of_its_own_gets_a_section_removed_when_it_no_longer_differs(
    tmp_path,
):
    root = project(tmp_path / "p", recipe=RECIPE)
    outcomes = sync(root)
    assert outcomes["docs/AGENTS.md"] == "created" and "blog/AGENTS.md" not in outcomes
    folder = (root / "docs/AGENTS.md").read_text(encoding="utf-8")
    assert "## Writing rules for docs/" in folder
    assert "This voice takes the place of the project's voice for these files." in folder
    assert "- docs/: a voice of its own" in (root / "AGENTS.md").read_text(encoding="utf-8")
    (root / "kapi.yaml").write_text(RECIPE.replace("    voice: {pack: technical-docs}\n", ""))
    outcomes = sync(root)
    assert outcomes["docs/AGENTS.md"] == "deleted" and outcomes["docs/CLAUDE.md"] == "deleted"
    assert not (root / "docs/AGENTS.md").exists()


def test_splicing_removes_the_section_with_the_blank_line_before_it():
    text = "# Mine\n\n" + START + "\nx\n" + END + "\n"
    assert splice_section(text, None) == "# Mine\n"
    assert splice_section("# Mine\n", None) == "# Mine\n"
    legacy = "a\n<!-- kapi:voice -->\nold\n<!-- /kapi:voice -->\nb\n"
    assert splice_section(legacy, "S\n") == "a\nS\nb\n"


def test_a_folder_left_with_a_stale_section_loses_it_and_dependencies_are_not_walked(tmp_path):
    root = project(tmp_path / "p")
    (root / "old").mkdir()
    (root / "old/AGENTS.md").write_text(
        "# Old notes\n\n" + START + "\n## Writing rules for old/\n" + END + "\n",
        encoding="utf-8",
    )
    (root / "node_modules/pkg").mkdir(parents=True)
    vendored = "x\n" + START + "\nx\n" + END + "\n"
    (root / "node_modules/pkg/AGENTS.md").write_text(vendored, encoding="utf-8")
    outcomes = sync(root)
    assert outcomes["old/AGENTS.md"] == "removed"
    assert (root / "old/AGENTS.md").read_text(encoding="utf-8") == "# Old notes\n"
    assert (root / "node_modules/pkg/AGENTS.md").read_text(encoding="utf-8") == vendored


def test_a_declared_profile_answers_with_its_voice(tmp_path):
    from kapi.host.context import ContextReadRequest, read_context

    root = project(tmp_path / "p", recipe=RECIPE)
    with open_workspace(cwd=root) as ws:
        answer = read_context(ContextReadRequest(profile="guide"), ws)
        folder = read_context(ContextReadRequest(path="docs/a.md"), ws)
    assert answer.scope == "project" and answer.voice is not None
    assert answer.voice.source == "pack:technical-docs"
    assert folder.point.profile == "guide" and folder.voice is not None
    assert "This file is governed by the `guide` profile" in folder.markdown()
