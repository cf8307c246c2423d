"""Settling and standing on an in-memory log, the counting behind signals, and rule scope."""

from __future__ import annotations

from context_log_fakes import AGENT_A, AGENT_B, AGENT_C, PERSON, MemoryLog

from kapi.core.context.fold import fold
from kapi.core.context.forms import avoided_forms
from kapi.core.context.record import (
    Author,
    Correction,
    Evidence,
    OpKind,
    Scope,
    Status,
    Subject,
)
from kapi.core.context.scope import (
    applies_at,
    coordinates_text,
    holds_at,
    parse_coordinates,
    scope_properties,
    spelling_variant,
)
from kapi.core.context.settle import Standing, Uses, establish_address
from kapi.core.context.signals import UseCounter, common_folder, merge_address, pr_number

SETTLE = Author("tool", "settle")


# --- what settles ---------------------------------------------------------------------


def test_a_persons_change_toward_a_suggestion_settles_it_established():
    log = MemoryLog()
    rule = log.rule(AGENT_A, "sign in", "log in")
    change = log.change(AGENT_B, "log in", "sign in")  # an agent recording the person's change
    folded = fold(log.records)
    assert folded.entry(rule.id).status == Status.ESTABLISHED
    assert [(s.target, s.because) for s in folded.settling] == [(rule.id, (change.id,))]
    assert folded.entry(rule.id).standing.corrections == 1


def test_a_recorded_establish_settles_it_for_good_and_two_logs_address_it_alike():
    log = MemoryLog()
    rule = log.rule(AGENT_A, "sign in", "log in")
    change = log.change(PERSON, "log in", "sign in")
    address = establish_address(rule.id, [change.id])
    assert address == establish_address(rule.id, (change.id,)) and address.startswith("sha256:")
    establish = log.add(
        OpKind.ESTABLISH, SETTLE, target=rule.id, because=(change.id,), address=address
    )
    folded = fold(log.records)
    assert folded.settling == ()
    assert folded.entry(rule.id).decided_by == establish.id
    log.add(OpKind.WITHDRAW, AGENT_A, target=rule.id)  # too late: it is a rule now
    assert log.entry(rule).status == Status.ESTABLISHED


def test_a_group_of_one_is_not_settled_by_its_own_source_correction():
    log = MemoryLog()
    change = log.change(AGENT_A, "log in", "sign in", suggest=True)
    assert log.entry(change).status == Status.SUGGESTED
    assert fold(log.records).settling == ()
    other = log.rule(AGENT_B, "sign in", "log in")  # now a group of two: the change counts
    assert log.entry(other).status == Status.ESTABLISHED
    assert log.entry(change).status == Status.ESTABLISHED


def test_time_and_observations_settle_nothing():
    log = MemoryLog()
    first = log.rule(AGENT_A, "sign in", "log in")
    log.rule(AGENT_B, "sign in", "log in")
    log.rule(AGENT_C, "sign in", "log in")
    entry = log.entry(first)
    assert entry.status == Status.SUGGESTED
    assert entry.standing == Standing(sessions=3)
    assert entry.standing.text() == "seen in 3 sessions"


def test_a_person_signal_with_something_against_contests_it():
    log = MemoryLog()
    rule = log.rule(AGENT_A, "sign in", "log in")
    log.change(PERSON, "log in", "sign in")
    away = log.change(PERSON, "sign in", "log in")
    entry = log.entry(rule)
    assert entry.status == Status.CONTESTED
    assert away.id in entry.contested_by
    assert entry.standing.against == 1 and entry.standing.against_by == (away.id,)


def test_a_withdrawn_member_stands_against_the_others():
    log = MemoryLog()
    mine = log.rule(AGENT_A, "sign in", "log in")
    theirs = log.rule(AGENT_B, "sign in", "log in")
    withdraw = log.add(OpKind.WITHDRAW, AGENT_A, target=mine.id)
    log.change(PERSON, "log in", "sign in")
    entry = log.entry(theirs)
    assert entry.status == Status.CONTESTED and entry.contested_by == (withdraw.id,)
    assert entry.standing.text() == "seen in 1 session · 1 correction · 1 against"


def test_a_settled_rule_with_a_rival_is_contested():
    log = MemoryLog()
    rule = log.rule(AGENT_A, "sign in", "log in")
    rival = log.rule(AGENT_B, "log on", "log in")
    log.change(PERSON, "log in", "sign in")
    folded = fold(log.records)
    assert folded.entry(rule.id).status == Status.CONTESTED
    assert folded.entry(rule.id).contested_by == (rival.id,)
    assert folded.entry(rival.id).status == Status.CONTESTED
    assert folded.settling == ()


def test_a_drop_discards_the_evidence_before_it():
    log = MemoryLog()
    dropped = log.rule(AGENT_A, "sign in", "log in")
    log.add(OpKind.DROP, PERSON, target=dropped.id)
    log.change(PERSON, "log in", "sign in")  # after the drop: it counts
    again = log.rule(AGENT_B, "sign in", "log in")
    assert log.entry(again).status == Status.ESTABLISHED

    log = MemoryLog()
    early = log.change(PERSON, "log in", "sign in")
    first = log.rule(AGENT_A, "sign in", "log in", path="")  # no path: not settled
    log.add(OpKind.DROP, PERSON, target=first.id)
    later = log.rule(AGENT_B, "sign in", "log in")
    entry = log.entry(later)
    assert entry.status == Status.SUGGESTED  # the change came before the drop
    assert entry.standing.corrections == 0 and early.id not in entry.standing.against_by


def test_a_suggestion_without_an_evidence_path_is_never_settled():
    log = MemoryLog()
    quoted = log.rule(AGENT_A, "sign in", "log in", path="")
    log.change(PERSON, "log in", "sign in")
    assert log.entry(quoted).status == Status.SUGGESTED


def test_settling_never_widens_and_groups_only_points_that_meet():
    log = MemoryLog()
    app = log.rule(AGENT_A, "sign in", "log in", coordinates={"channel": "app"})
    docs = log.rule(AGENT_B, "sign in", "log in", coordinates={"channel": "docs"})
    log.add(
        OpKind.CORRECT,
        PERSON,
        correction=Correction(from_="log in", to="sign in"),
        subject=Subject(kind="note", text="changed"),
        evidence=(Evidence(path="app/a.json"),),
        scope=Scope(coordinates={"channel": "app"}),
    )
    folded = fold(log.records)
    assert folded.entry(app.id).status == Status.ESTABLISHED
    assert folded.entry(app.id).scope.coordinates == {"channel": "app"}
    assert folded.entry(docs.id).status == Status.SUGGESTED
    assert folded.heads[app.id] != folded.heads[docs.id]


def test_a_merge_is_a_person_signal_and_standing_names_it():
    log = MemoryLog()
    rule = log.rule(AGENT_A, "Quickcast", "Quick cast")
    log.rule(AGENT_B, "Quickcast", "Quick cast")
    merge = log.signal(rule, "merge", commit="0809f7a6", pr="412", preferred=3, rejected=1)
    folded = fold(log.records)
    assert folded.entry(rule.id).status == Status.ESTABLISHED
    assert folded.settling[0].because == (merge.id,)
    assert folded.entry(rule.id).standing.text() == "seen in 2 sessions · merged in #412"


def test_a_merge_that_moved_nothing_settles_nothing():
    log = MemoryLog()
    rule = log.rule(AGENT_A, "Quickcast", "Quick cast")
    log.signal(rule, "merge", commit="0809f7a6")
    assert log.entry(rule).status == Status.SUGGESTED


def test_usage_and_applied_signals_add_standing_only():
    log = MemoryLog()
    rule = log.rule(AGENT_A, "sign in", "log in")
    log.signal(rule, "usage", preferred=14, rejected=1, within="docs/")
    log.signal(rule, "applied", preferred=2)
    entry = log.entry(rule)
    assert entry.status == Status.SUGGESTED
    assert entry.standing.uses == Uses(preferred=14, total=15, within="docs/")
    assert entry.standing.text() == "seen in 1 session · 14 of 15 uses in docs/"
    assert Standing(sessions=3, uses=Uses(14, 15, "docs/"), merges=("#412",), against=2).text() == (
        "seen in 3 sessions · 14 of 15 uses in docs/ · merged in #412 · 2 against"
    )


def test_more_rejected_uses_later_stand_against_and_show_as_drift_once_established():
    log = MemoryLog()
    rule = log.rule(AGENT_A, "sign in", "log in")
    log.signal(rule, "usage", preferred=9, rejected=1)
    log.add(OpKind.KEEP, PERSON, target=rule.id)
    assert not log.entry(rule).drift
    later = log.signal(rule, "usage", preferred=9, rejected=4)
    entry = log.entry(rule)
    assert entry.drift and entry.standing.against_by == (later.id,)
    assert entry.status == Status.ESTABLISHED  # drift is shown, not decided


# --- counting -------------------------------------------------------------------------


def test_uses_are_whole_words_and_an_avoided_form_inside_the_preferred_one_is_not_counted():
    counter = UseCounter(avoided_forms("Quickcast Pro", ["Quickcast"]))
    assert counter.count("Quickcast Pro beats Quickcast, not Quickcasts.") == (1, 1)
    sign = UseCounter(avoided_forms("sign in", ["log in", "login"]))
    assert sign.count("Log in, then LOGIN; sign in later; blogin") == (1, 2)


def test_a_case_sensitive_rule_counts_case_apart():
    counter = UseCounter(avoided_forms("Quickcast", ["QuickCast"]))
    assert counter.count("Quickcast and QuickCast and quickcast") == (1, 1)


def test_pull_requests_are_read_from_merge_subjects():
    assert pr_number("Merge pull request #412 from ana/fix") == "412"
    assert pr_number("Say Quickcast everywhere (#77)") == "77"
    assert pr_number("Merge branch 'fix' into 'main'\n\nSee merge request web/app!9") == "9"
    assert pr_number("Fix a typo") == ""


def test_the_common_folder_of_counted_files():
    assert common_folder(["docs/a.md", "docs/guide/b.md"]) == "docs/"
    assert common_folder(["docs/a.md", "help/b.md"]) == ""
    assert common_folder(["README.md"]) == "" and common_folder([]) == ""


def test_signal_addresses_are_content_addresses():
    assert merge_address("0abc", "f00") == merge_address("0abc", "f00")
    assert merge_address("0abc", "f00") != merge_address("0abc", "f01")


# --- scope ----------------------------------------------------------------------------


def test_a_kept_rules_scope_becomes_concept_properties_and_holds_only_there():
    scope = Scope(coordinates={"product": "quickcast", "channel": "app"})
    props = scope_properties(scope)
    assert props == {"profile": "quickcast", "coordinates": "channel=app,product=quickcast"}
    assert holds_at(props, {"product": "quickcast", "channel": "app", "brand": "x"})
    assert not holds_at(props, {"product": "quickcast", "channel": "docs"})
    assert not holds_at(props, {})
    assert holds_at({}, {"channel": "docs"})
    widened = Scope(coordinates={"brand": "x"}, all_profiles=True)
    assert scope_properties(widened) == {"coordinates": "brand=x"}
    assert parse_coordinates(coordinates_text({"b": "2", "a": "1"})) == {"a": "1", "b": "2"}


def test_a_note_holds_only_where_it_was_seen():
    assert applies_at({}, {"channel": "docs"})
    assert applies_at({"channel": "docs"}, {"channel": "docs", "product": "x"})
    assert not applies_at({"channel": "docs"}, {})


def test_spelling_variants_are_told_from_old_wording():
    assert spelling_variant("Quick cast", "Quickcast") and spelling_variant(
        "quick-cast", "Quickcast"
    )
    assert not spelling_variant("Workspace", "Space")
