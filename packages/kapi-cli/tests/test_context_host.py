"""The context's host functions called directly, on a real project and its SQLite store.

Each refusal changes nothing: the log, the terms store and the rules files
are compared before and after.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from kapi.core.change.ports import Actor, ActorKind
from kapi.core.context.errors import ContextError, ContextRefused
from kapi.host.check import CheckRequest, run_check
from kapi.host.context import (
    ContextReadRequest,
    ContextSearchRequest,
    read_context,
    search_context,
)
from kapi.host.context_log import ContextLog
from kapi.host.context_ops import (
    ContextLogRequest,
    ContextNoteRequest,
    ContextResetRequest,
    ContextReviewRequest,
    ContextSessionRequest,
    note_context,
    read_context_log,
    reset_context,
    review_context,
    session_summary,
)
from kapi.host.context_store import export_store, import_store
from kapi.host.init import InitRequest, run_init
from kapi.host.store import MIGRATIONS, ProjectStore
from kapi.host.workspace import open_workspace

ONE = Actor(ActorKind.AGENT, "claude-code", "s-one")
TWO = Actor(ActorKind.AGENT, "claude-code", "s-two")
PERSON = Actor(ActorKind.PERSON, "ana@example.com")


def make_project(root: Path, *, rules_files: bool = True) -> Path:
    (root / "docs").mkdir(parents=True)
    (root / "docs/intro.md").write_text("# Intro\n\nUse Quickcast to log in.\n", encoding="utf-8")
    (root / "docs/guide.md").write_text(
        "# Guide\n\nOpen the Quick cast panel to log in.\n", encoding="utf-8"
    )
    run_init(InitRequest(folder=root, rules_files=rules_files))
    return root


@pytest.fixture
def project(tmp_path):
    return make_project(tmp_path / "shop")


def workspace(root: Path):
    return open_workspace(cwd=root)


def note(root: Path, actor: Actor = ONE, **fields):
    with workspace(root) as ws:
        return note_context(ContextNoteRequest(actor=actor, **fields), ws)


def review(root: Path, actor: Actor = PERSON, **fields):
    with workspace(root) as ws:
        return review_context(ContextReviewRequest(actor=actor, **fields), ws)


def state(root: Path) -> tuple:
    """Everything a refusal must leave alone: the log, the terms and the rules files."""
    with workspace(root) as ws:
        log = ws.store.context_log()
        concepts = ws.store.concepts()
    files = {p.name: p.read_bytes() for p in root.glob("*.md")}
    return json.dumps(log, sort_keys=True), concepts, files


def quickcast(root: Path, actor: Actor = ONE) -> str:
    return note(
        root, actor, term="Quickcast", instead_of=("Quick cast",), path="docs/intro.md"
    ).operation


def findings(root: Path) -> list[tuple[str, bool, str]]:
    with workspace(root) as ws:
        outcome = run_check(CheckRequest(files=("docs",)), ws)
    return sorted((f.rule, f.fails, f.message) for f in outcome.report.findings)


# --- note -----------------------------------------------------------------------------


def test_a_term_note_is_a_suggestion_with_its_derived_forms(project):
    recorded = note(project, term="Quickcast", instead_of=("Quick cast",), path="docs/intro.md")
    assert (recorded.kind, recorded.status, recorded.session) == ("observe", "suggested", "s-one")
    assert "a person decides" in recorded.next
    assert recorded.review == "kapi context review --session s-one"
    assert '"Quick cast", "Quick-cast", "QuickCast"' in recorded.recorded
    assert recorded.encoded()["operation"] == recorded.operation


def test_a_suggestion_reaches_the_check_with_weight_zero(project):
    quickcast(project)
    found = findings(project)
    assert (
        "suggested.vocabulary",
        False,
        'Suggested rule about "Quick cast", not yet established',
    ) in found
    assert not any(fails for _, fails, _ in found)


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"term": "Quickcast", "instead_of": ("Quick cast",)}, "needs evidence"),
        ({"text": "Product names are bold"}, "needs evidence"),
        ({"from_": "log in", "to": "sign in", "suggest": True}, "needs evidence"),
        ({"term": "Quickcast", "path": "docs/intro.md"}, "needs --instead-of"),
        ({"from_": "log in", "path": "docs/intro.md"}, "both --from"),
        ({"term": "X", "instead_of": ("Y",), "path": "../elsewhere.md"}, "not inside this project"),
        ({"term": "X", "instead_of": ("Y",), "path": "docs/missing.md"}, "no such file"),
        ({"text": "a", "term": "X", "instead_of": ("Y",), "path": "docs/intro.md"}, "one thing"),
    ],
)
def test_a_note_without_what_it_needs_is_refused_and_changes_nothing(project, fields, says):
    before = state(project)
    with pytest.raises(ContextError, match=says) as refused:
        note(project, **fields)
    assert refused.value.exit_code == 2
    assert state(project) == before


def test_an_agent_withdraws_its_own_suggestion_in_the_same_session(project):
    op = quickcast(project)
    done = note(project, ONE, withdraw="#" + op[:10].upper())
    assert done.kind == "withdraw" and done.status == "withdrawn"
    assert findings(project) == []


def test_withdrawing_another_sessions_suggestion_is_refused_and_changes_nothing(project):
    op = quickcast(project, ONE)
    before = state(project)
    with pytest.raises(ContextRefused, match="another session") as refused:
        note(project, TWO, withdraw=op[:10])
    assert "kapi context review" in str(refused.value) and refused.value.exit_code == 3
    assert state(project) == before


def test_an_unknown_or_ambiguous_id_is_refused_naming_what_to_do(project):
    quickcast(project)
    note(project, text="Product names are bold", path="docs/intro.md")
    before = state(project)
    with pytest.raises(ContextError, match="no operation #zzzz") as unknown:
        note(project, withdraw="zzzz")
    assert "kapi context log" in str(unknown.value) and unknown.value.exit_code == 3
    with pytest.raises(ContextError, match="names 2 operations") as ambiguous:
        note(project, withdraw="0")
    assert "more characters" in str(ambiguous.value)
    assert state(project) == before


# --- review ---------------------------------------------------------------------------


def test_a_keep_by_an_agent_is_refused_and_changes_nothing(project):
    op = quickcast(project)
    before = state(project)
    with pytest.raises(ContextRefused, match="only a person keeps") as refused:
        review(project, ONE, keep=(op,))
    assert "kapi context log --status suggested" in str(refused.value)
    assert state(project) == before


def test_a_kept_word_rule_is_written_to_the_terms_store_and_binds(project):
    op = quickcast(project)
    done = review(project, keep=(op[:10],))
    assert [d.kind for d in done.decisions] == ["keep"]
    with workspace(project) as ws:
        terms = {(t.text, t.status) for c in ws.store.concepts() for t in c.terms}
        edits = [o for o in ws.store.context_log() if o["kind"] == "context.edit"]
    assert {("Quickcast", "preferred"), ("Quick cast", "forbidden")} <= terms
    assert ("QuickCast", "forbidden") not in terms  # a case-only variant folds into Quickcast
    assert edits and all(e["actor"]["kind"] == "person" for e in edits)
    assert (
        "terms.vocabulary",
        True,
        'Use "Quickcast" instead of "Quick cast" (use: Quickcast)',
    ) in (findings(project))


def test_dropping_a_rule_in_force_takes_it_out_of_the_terms_store(project):
    op = quickcast(project)
    review(project, keep=(op,))
    review(project, drop=(op,))
    with workspace(project) as ws:
        texts = {t.text for c in ws.store.concepts() for t in c.terms}
    assert "Quick cast" not in texts
    assert findings(project) == []


def test_rivals_are_contested_until_a_person_chooses_one(project):
    first = note(
        project, ONE, term="sign in", instead_of=("log in",), path="docs/intro.md"
    ).operation
    second = note(project, TWO, term="log on", instead_of=("log in",), path="docs/guide.md")
    assert second.status == "contested" and second.contested_by == (first,)
    before = state(project)
    with pytest.raises(ContextRefused, match="--choose"):
        review(project, keep=(first,))
    assert state(project) == before
    done = review(project, choose=(first,))
    assert sorted(d.kind for d in done.decisions) == ["drop", "keep"]
    with workspace(project) as ws:
        log = read_context_log(ContextLogRequest(), ws)
    statuses = {line.operation: line.status for line in log.operations}
    assert statuses[first] == "established" and statuses[second.operation] == "dropped"


def test_keep_all_of_a_session_skips_contested_items_with_reasons(project):
    a = note(project, ONE, term="sign in", instead_of=("log in",), path="docs/intro.md")
    b = note(project, ONE, text="Product names are bold", path="docs/intro.md")
    note(project, TWO, term="log on", instead_of=("log in",), path="docs/guide.md")
    with pytest.raises(ContextError, match="needs --session"):
        review(project, keep=("all",))
    done = review(project, keep=("all",), session="s-one")
    assert [d.target for d in done.decisions] == [b.operation]
    assert [s.operation for s in done.skipped] == [a.operation]
    assert "choose one" in done.skipped[0].reason


def test_peek_shows_the_digest_and_decides_nothing(project):
    op = quickcast(project)
    before = state(project)
    shown = review(project)
    assert [i.operation for i in shown.digest.suggested] == [op]
    assert state(project) == before


# --- log, summary, reset --------------------------------------------------------------


def test_the_log_filters_by_session_status_and_actor(project):
    quickcast(project, ONE)
    note(project, TWO, from_="log in", to="sign in", suggest=True, path="docs/guide.md")
    with workspace(project) as ws:
        mine = read_context_log(ContextLogRequest(actor=TWO, session="this"), ws)
        suggested = read_context_log(ContextLogRequest(status="suggested"), ws)
        with pytest.raises(ContextError, match="not an agent's session"):
            read_context_log(ContextLogRequest(actor=PERSON, session="this"), ws)
        with pytest.raises(ContextError, match="--status 'kept'"):
            read_context_log(ContextLogRequest(status="kept"), ws)
    assert [line.kind for line in mine.operations] == ["correct"]
    assert len(suggested.operations) == 2


def test_the_session_summary_counts_and_ends_on_the_review_command(project):
    op = quickcast(project, ONE)
    note(project, ONE, from_="log in", to="sign in", suggest=True, path="docs/guide.md")
    note(project, ONE, withdraw=op)
    with workspace(project) as ws:
        summary = session_summary(ContextSessionRequest(session="s-one"), ws)
        latest = session_summary(ContextSessionRequest(), ws)
    data = summary.encoded()
    assert (data["observed"], data["corrected"], data["withdrawn"], data["suggested"]) == (
        1,
        1,
        1,
        1,
    )
    assert (data["checked"], data["failing"], data["caught"], data["files"]) == (0, 0, 0, [])
    assert data["review"] == "kapi context review --session s-one"
    assert "only advise" in data["report"]
    assert latest.chosen is not None and latest.chosen.session == "s-one"


def test_the_summary_of_an_empty_log_is_only_the_report(project):
    with workspace(project) as ws:
        assert list(session_summary(ContextSessionRequest(), ws).encoded()) == ["report"]


def test_a_reset_sets_aside_and_a_reset_of_the_reset_restores(project):
    quickcast(project, ONE)
    kept = note(project, TWO, term="sign in", instead_of=("log in",), path="docs/guide.md")
    review(project, keep=(kept.operation,))
    before = state(project)
    with workspace(project) as ws:
        preview = reset_context(ContextResetRequest(actor=PERSON, before="s-two", dry_run=True), ws)
    assert preview.dry_run and len(preview.set_aside) >= 2
    assert state(project) == before
    with workspace(project) as ws:
        with pytest.raises(ContextRefused, match="only a person resets"):
            reset_context(ContextResetRequest(actor=ONE, before="s-two"), ws)
        done = reset_context(ContextResetRequest(actor=PERSON, before="s-two"), ws)
    assert not any(rule == "terms.vocabulary" for rule, _, _ in findings(project))
    with workspace(project) as ws:
        reset_context(ContextResetRequest(actor=PERSON, before=done.operation), ws)
    assert any(rule == "terms.vocabulary" for rule, _, _ in findings(project))


# --- read and search ------------------------------------------------------------------


def test_the_answer_at_a_path_has_rules_suggestions_and_coverage(project):
    op = quickcast(project)
    note(project, TWO, term="sign in", instead_of=("log in",), path="docs/guide.md")
    review(project, keep=(op,))
    with workspace(project) as ws:
        answer = read_context(ContextReadRequest(path="docs/guide.md"), ws)
    data = answer.encoded()
    assert data["point"]["path"] == "docs/guide.md" and data["point"]["collection"] == "docs"
    assert data["rules"][0]["say"] == "Quickcast" and "Quick cast" in data["rules"][0]["not"]
    assert data["rules"][0]["from"] == ["terms"]
    assert [s["replacement"] for s in data["suggestions"]] == ["sign in"]
    assert data["coverage"] == "covered"  # terms and binding rules
    brief = answer.markdown()
    assert brief.startswith("# Writing docs/guide.md\n")
    assert "Say this, not that:" in brief and "Suggested, not yet established:" in brief


def test_terms_are_capped_at_25_with_the_total(project):
    with workspace(project) as ws:
        from kapi.core.governance.terms import Concept, Term

        ws.store.put_concepts(
            [Concept(id=f"c{i}", terms=(Term(text=f"word{i:02}", locale="en"),)) for i in range(40)]
        )
        data = read_context(ContextReadRequest(path="docs/intro.md"), ws).encoded()
    assert len(data["terms"]) == 25 and data["terms_total"] == 40


def test_nothing_recorded_says_so(project):
    with workspace(project) as ws:
        brief = read_context(ContextReadRequest(path="docs/intro.md"), ws).markdown()
    assert "Nothing is recorded for this file yet" in brief


def test_a_path_outside_the_project_is_refused(project, tmp_path):
    (tmp_path / "secret.md").write_text("x", encoding="utf-8")
    with workspace(project) as ws, pytest.raises(ContextError, match="not inside this project"):
        read_context(ContextReadRequest(path=str(tmp_path / "secret.md")), ws)


def test_a_pack_by_name_answers_with_scope_profile(project):
    from kapi.core.governance.packs import pack_names

    name = pack_names()[0]
    with workspace(project) as ws:
        answer = read_context(ContextReadRequest(profile=name), ws)
        with pytest.raises(ContextError, match="no profile, stored voice or pack"):
            read_context(ContextReadRequest(profile="nope"), ws)
    assert answer.scope == "profile" and answer.voice is not None
    assert answer.markdown().startswith(f"# Writing for the {name} profile")


def test_search_returns_separate_groups(project):
    op = quickcast(project)
    review(project, keep=(op,))
    note(project, TWO, term="sign in", instead_of=("log in",), path="docs/guide.md")
    with workspace(project) as ws:
        found = search_context(ContextSearchRequest(query="quick"), ws)
        signs = search_context(ContextSearchRequest(query="log in"), ws)
        empty = search_context(ContextSearchRequest(query="zebra"), ws)
    assert {h.term for h in found.terms} >= {"Quickcast", "Quick cast"}
    assert [s.replacement for s in signs.suggestions] == ["sign in"] and not signs.terms
    assert "Nothing in this project's context matches 'zebra'" in empty.text()


# --- the log on the store -------------------------------------------------------------


def test_an_older_store_is_migrated_and_its_ops_stay_readable(tmp_path):
    path = tmp_path / ".kapi/project.db"
    path.parent.mkdir()
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, description TEXT NOT NULL, "
        "applied_at TEXT NOT NULL)"
    )
    for version, description, script in MIGRATIONS[:2]:
        db.executescript(script)
        db.execute("INSERT INTO schema_migrations VALUES (?, ?, 'x')", (version, description))
    db.execute(
        "INSERT INTO context_ops (id, kind, actor_kind, actor_name, session, payload, at) "
        "VALUES ('op_0001', 'context.edit', 'person', 'ana', '', ?, '2026-02-01T00:00:00Z')",
        (json.dumps({"subject": {"kind": "term", "term": "berth", "status": "preferred"}}),),
    )
    db.commit()
    db.close()
    store = ProjectStore(path)
    assert store.schema_version() == 3
    (legacy,) = ContextLog(store).records()
    assert (legacy.id, legacy.kind, legacy.actor.name) == ("op_0001", "edit", "ana")
    store.close()


def test_the_log_is_append_only_and_skips_known_ids(project):
    op = quickcast(project)
    with workspace(project) as ws:
        log = ContextLog(ws.store)
        (record,) = log.records()
        assert log.append([record]) == 0
        assert [r.id for r in log.records()] == [op]


def test_ids_never_sort_before_the_newest_even_when_the_clock_goes_back(project):
    quickcast(project)
    with workspace(project) as ws:
        past = ContextLog(ws.store, clock=lambda: datetime(2026, 1, 2, tzinfo=UTC))
        newest = past.records()[-1].id
        assert past.new(past.records()[-1].kind, ONE).id > newest


def test_presence_is_upserted_on_agent_calls_and_pruned_after_seven_days(project):
    with workspace(project) as ws:
        ws.store.touch_session("s-old", "codex", at=datetime.now(UTC) - timedelta(days=8))
    quickcast(project, ONE)
    with workspace(project) as ws:
        sessions = {s["id"]: s for s in ws.store.sessions()}
    assert set(sessions) == {"s-one"} and sessions["s-one"]["agent"] == "claude-code"


# --- export and import ----------------------------------------------------------------


def test_export_then_import_keeps_ids_and_skips_duplicates(project, tmp_path):
    op = quickcast(project)
    review(project, keep=(op,))
    with workspace(project) as ws:
        exported = export_store(ws)
    other = make_project(tmp_path / "other")
    data = exported.text.encode()
    with workspace(other) as ws:
        first = import_store(data, "context.jsonl", ws, PERSON)
        again = import_store(data, "context.jsonl", ws, PERSON)
        ids = [r.id for r in ContextLog(ws.store).records()]
    assert first.added == exported.operations and again.added == 0
    assert again.skipped == exported.operations
    assert op in ids
    assert any(rule == "terms.vocabulary" for rule, _, _ in findings(other))  # the keep landed


def test_a_bad_import_line_is_refused_and_nothing_is_imported(project):
    good = json.dumps({"id": "0" * 24, "kind": "observe", "actor": {"kind": "agent"}})
    data = (good + "\n{not json\n").encode()
    with workspace(project) as ws:
        with pytest.raises(ContextError, match=r"context.jsonl:2: not JSON"):
            import_store(data, "context.jsonl", ws, PERSON)
        with pytest.raises(ContextRefused, match="only a person imports"):
            import_store(good.encode(), "context.jsonl", ws, ONE)
        assert ws.store.context_log() == []


def test_a_kept_rule_can_be_kept_with_another_wording_and_advisory(project):
    op = quickcast(project)
    review(project, keep=(op,), use="QuickCast", advisory=True)
    with workspace(project) as ws:
        terms = {(t.text, t.status) for c in ws.store.concepts() for t in c.terms}
    assert ("QuickCast", "preferred") in terms and ("Quick cast", "deprecated") in terms
    assert not any(fails for _, fails, _ in findings(project))  # advisory: it reports


def test_widening_is_recorded_for_a_rule_in_force_and_refused_to_the_workspace(project):
    op = quickcast(project)
    with pytest.raises(ContextRefused, match="only a person widens"):
        review(project, ONE, widen_to="project")
    with pytest.raises(ContextError, match="shared by the projects"):
        review(project, keep=(op,), widen_to="workspace")
    review(project, keep=(op,))
    other = quickcast(project, TWO)
    before = state(project)
    with pytest.raises(ContextError, match="nothing to widen"):  # it holds project-wide
        review(project, widen_to="project")
    with pytest.raises(ContextError, match="changes nothing; widen one of its axes"):
        review(project, keep=(other,), widen_to="channel")
    assert state(project) == before


def test_outside_a_project_the_context_says_to_run_kapi_init(tmp_path):
    with open_workspace(cwd=tmp_path, environ={"KAPI_NO_PROJECT": "1"}) as ws:
        from kapi.host.errors import HostError

        with pytest.raises(HostError, match="kapi init"):
            read_context(ContextReadRequest(path="a.md"), ws)
        with pytest.raises(HostError, match="kapi init"):
            note_context(ContextNoteRequest(actor=ONE, text="x", path="a.md"), ws)


def test_the_json_answer_has_the_fields_of_the_contract(project):
    quickcast(project)
    note(project, TWO, term="sign in", instead_of=("log in",), path="docs/guide.md")
    review(project, keep=(quickcast(project, TWO),))
    with workspace(project) as ws:
        data = read_context(ContextReadRequest(path="docs/guide.md"), ws).encoded()
    assert set(data) == {
        "point", "scope", "coverage", "provenance", "voice", "voice_brief", "constraints",
        "terms", "terms_total", "rules", "rules_total", "suggestions", "profiles",
        "attention", "notes", "notice", "keep",
    }  # fmt: skip
    assert set(data["point"]) == {
        "path",
        "profile",
        "channel",
        "collection",
        "ref",
        "coordinates",
        "default",
    }
    assert set(data["rules"][0]) == {"say", "also", "not", "note", "locale", "from", "advisory"}
    assert set(data["suggestions"][0]) == {
        "operation", "kind", "status", "contested_by", "term", "forms", "replacement",
        "advisory", "text", "note", "suggested_by", "session", "at", "evidence", "standing",
    }  # fmt: skip
    assert set(data["terms"][0]) >= {
        "concept_id", "term", "locale", "status", "definition", "domain", "replacement",
        "discouraged", "valid_from", "valid_to", "uses", "use_blocks", "top_uses",
    }  # fmt: skip


def test_a_persons_correction_takes_a_rule_out_of_force_until_it_is_kept_again(project):
    op = quickcast(project)
    review(project, keep=(op,))
    assert any(rule == "terms.vocabulary" for rule, _, _ in findings(project))
    reversal = note(
        project, PERSON, from_="Quickcast", to="Quick cast", suggest=True, path="docs/guide.md"
    )
    assert reversal.status == "contested" and reversal.contested_by == (op,)
    found = findings(project)
    assert not any(fails for _, fails, _ in found)  # out of the store: it no longer fails
    with pytest.raises(ContextRefused, match="--choose"):
        review(project, keep=(reversal.operation,))
    review(project, keep=(op,))
    assert any(rule == "terms.vocabulary" for rule, _, _ in findings(project))


def test_an_agent_reading_the_context_is_marked_present(project):
    with workspace(project) as ws:
        read_context(ContextReadRequest(path="docs/intro.md", actor=TWO), ws)
        search_context(ContextSearchRequest(query="x", actor=ONE), ws)
        assert {s["id"] for s in ws.store.sessions()} == {"s-one", "s-two"}


@pytest.mark.parametrize(
    ("description", "line"),
    [
        ("Do not tell shoppers a step is easy.", "Avoid: Do not tell shoppers a step is easy."),
        ("Never shout!", "Avoid: Never shout!"),
        ("Would a shopper say this?", "Avoid: Would a shopper say this?"),
        ("Exclamation marks", "Avoid: Exclamation marks."),
        ("Trailing space.  ", "Avoid: Trailing space."),
    ],
)
def test_a_patterns_description_ends_with_one_mark_in_the_voice_brief(description, line):
    from kapi.core.governance.voice import Pattern, Style, VoiceProfile
    from kapi.host.context import voice_brief

    voice = VoiceProfile(
        name="Shop", style=Style(prohibited_patterns=(Pattern(r"!", description=description),))
    )
    assert voice_brief(voice)[-1] == line
