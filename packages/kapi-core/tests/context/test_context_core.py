"""The context core on an in-memory log: ids, derived forms, the fold, disagreement and the policy."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from context_log_fakes import AGENT_A, AGENT_B, PERSON, TOOL, MemoryLog

from kapi.core.change.ports import Actor, ActorKind
from kapi.core.context.errors import ContextError, ContextRefused
from kapi.core.context.fold import StoreRule, disagree, fold, in_force_outside, rivals_text
from kapi.core.context.forms import avoided_forms
from kapi.core.context.ids import ALPHABET, mint_id, resolve_prefix, short
from kapi.core.context.policy import decision_refusal, person_decides
from kapi.core.context.record import (
    Author,
    Correction,
    Evidence,
    OpKind,
    Record,
    Signal,
    Status,
    Subject,
    TermRule,
)
from kapi.core.context.wire import decode_record, encode_record


def test_the_change_services_actor_is_an_author_too():
    actor = Actor(ActorKind.AGENT, "claude-code", "s-one")
    assert Author.of(actor) == AGENT_A
    person_decides(actor, OpKind.OBSERVE)
    with pytest.raises(ContextRefused):
        person_decides(actor, OpKind.KEEP)


# --- ids ---------------------------------------------------------------------------


def test_ids_are_24_crockford_characters_sorted_by_time_and_never_before_the_newest():
    at = datetime(2026, 5, 1, tzinfo=UTC)
    first = mint_id(at, 12345)
    assert len(first) == 24 and set(first) <= set(ALPHABET)
    later = mint_id(at + timedelta(seconds=1), 1)
    assert later > first
    bumped = mint_id(at - timedelta(days=1), 0, newest=later)  # the clock went back
    assert bumped > later
    assert short(first) == first[:10]


def test_a_unique_prefix_resolves_and_an_unknown_or_ambiguous_one_is_refused():
    ids = ["0abc000000aaaaaaaaaaaaaa", "0abd000000bbbbbbbbbbbbbb", "1zzz000000cccccccccccccc"]
    assert resolve_prefix("#0ABC", ids) == ids[0]
    with pytest.raises(ContextError, match="no operation #9") as unknown:
        resolve_prefix("9", ids)
    assert unknown.value.code == "not_found" and "kapi context log" in str(unknown.value)
    with pytest.raises(ContextError, match="names 2 operations") as ambiguous:
        resolve_prefix("0ab", ids)
    assert "#0abc000000" in str(ambiguous.value) and "more characters" in str(ambiguous.value)


# --- avoided forms ------------------------------------------------------------------


def test_a_closed_capitalised_term_is_split_like_the_form_it_replaces():
    rule = avoided_forms("Quickcast", ["Quick cast"])
    assert rule.replacement == "Quickcast"
    assert rule.avoided == ("Quick cast", "Quick-cast", "QuickCast")
    assert rule.case_sensitive  # QuickCast differs from Quickcast only in case


def test_a_capitalised_spaced_term_gains_its_hyphenated_closed_and_camel_forms():
    rule = avoided_forms("Team space", ["Teamspace"])
    assert rule.avoided == ("Teamspace", "Team-space", "TeamSpace")


def test_a_lower_case_spaced_phrase_gets_no_variants():
    rule = avoided_forms("sign in", ["log in", "login"])
    assert rule.avoided == ("log in", "login") and not rule.case_sensitive


def test_derivation_is_deterministic_and_drops_duplicates_and_the_term_itself():
    assert avoided_forms("QuickCast", ["Quick cast", "QuickCast", "Quick cast"]) == avoided_forms(
        "QuickCast", ["Quick cast", "QuickCast"]
    )
    assert "QuickCast" not in avoided_forms("QuickCast", ["QuickCast"]).avoided


# --- wire ---------------------------------------------------------------------------


def test_a_record_round_trips_with_from_on_the_wire():
    record = Record(
        id=mint_id(datetime(2026, 2, 1, tzinfo=UTC), 7),
        kind=OpKind.CORRECT,
        actor=AGENT_A,
        correction=Correction(from_="utilise", to="use"),
        suggest=True,
        subject=Subject(kind="term", term=TermRule(term="utilise", replacement="use")),
        evidence=(Evidence(path="a.md", quote="we utilise"),),
    )
    data = encode_record(record)
    assert data["correction"] == {"from": "utilise", "to": "use"}
    assert data["kind"] == "correct" and "target" not in data
    assert decode_record({**data, "kind": "context.correct"}) == record


def test_a_stored_record_reads_as_the_converter_reads_it():
    log = MemoryLog()
    records = [
        log.rule(AGENT_A, "Quickcast", "Quick cast", coordinates={"channel": "app"}),
        log.add(
            OpKind.CORRECT,
            PERSON,
            correction=Correction(from_="log in", to="sign in"),
            subject=Subject(kind="note", text='"log in" became "sign in"'),
            evidence=(Evidence(path="a.md", unit="k", quote="log in"),),
        ),
        log.add(OpKind.KEEP, PERSON, target="0abc", replacement="QuickCast", advisory=False),
        log.add(
            OpKind.SIGNAL,
            Author("tool", "sync"),
            target="0abc",
            signal=Signal(source="merge", commit="f00", pr="12", preferred=2),
            address="sha256:1",
        ),
        log.add(OpKind.ESTABLISH, Author("tool", "settle"), target="0abc", because=("0def",)),
    ]
    for record in records:
        data = encode_record(record)
        assert decode_record(data, stored=True) == decode_record(data) == record
    later = {**encode_record(records[0]), "written_by": "a later kapi"}
    assert decode_record(later, stored=True) == records[0]  # the converter reads it
    with pytest.raises(ContextError, match="cannot be read"):
        decode_record({**encode_record(records[0]), "actor": {"kind": "robot"}}, stored=True)


def test_an_unreadable_record_names_what_is_wrong():
    with pytest.raises(ContextError, match="cannot be read"):
        decode_record({"id": "x", "kind": "nonsense", "actor": {"kind": "agent"}})
    with pytest.raises(ContextError, match="cannot be read"):
        decode_record({"id": "x", "kind": "observe", "actor": {"kind": "robot"}})


# --- the fold -----------------------------------------------------------------------


def test_decisions_fold_into_statuses():
    log = MemoryLog()
    kept = log.rule(AGENT_A, "sign in", "log in")
    dropped = log.rule(AGENT_A, "workspace", "team space")
    withdrawn = log.rule(AGENT_A, "email", "e-mail")
    fact = log.add(
        OpKind.OBSERVE, AGENT_A, subject=Subject(kind="note", text="Product names are bold")
    )
    log.add(OpKind.KEEP, PERSON, target=kept.id, advisory=True)
    log.add(OpKind.DROP, PERSON, target=dropped.id)
    log.add(OpKind.WITHDRAW, AGENT_A, target=withdrawn.id)
    folded = fold(log.records)
    assert [folded.entry(r.id).status for r in (kept, dropped, withdrawn, fact)] == [
        Status.ESTABLISHED,
        Status.DROPPED,
        Status.WITHDRAWN,
        Status.SUGGESTED,
    ]
    assert folded.entry(kept.id).rule.advisory
    assert [e.id for e in folded.advising] == [fact.id]


def test_a_reset_sets_aside_everything_from_its_point_and_a_reset_of_a_reset_undoes_it():
    log = MemoryLog()
    early = log.rule(AGENT_A, "sign in", "log in")
    late = log.rule(AGENT_A, "workspace", "team space")
    log.add(OpKind.KEEP, PERSON, target=late.id)
    first_reset = log.add(OpKind.RESET, PERSON, before=late.id)
    folded = fold(log.records)
    assert folded.entry(early.id).status == Status.SUGGESTED
    assert folded.entry(late.id).status == Status.RESET
    log.add(OpKind.RESET, PERSON, before=first_reset.id)
    assert log.status(late) == Status.ESTABLISHED


def test_two_suggestions_that_disagree_contest_each_other():
    log = MemoryLog()
    one = log.rule(AGENT_A, "sign in", "log in")
    two = log.rule(AGENT_B, "log on", "log in")
    folded = fold(log.records)
    assert folded.entry(one.id).status == Status.CONTESTED
    assert folded.entry(one.id).contested_by == (two.id,)
    assert folded.entry(two.id).contested_by == (one.id,)


def test_one_avoiding_the_others_replacement_also_disagrees():
    log = MemoryLog()
    one = log.rule(AGENT_A, "sign in", "log in")
    two = log.rule(AGENT_B, "log in", "sign in")
    assert log.status(one) == log.status(two) == Status.CONTESTED


def test_a_capitalisation_rule_does_not_contest_itself_at_another_point():
    log = MemoryLog()
    one = log.rule(AGENT_A, "QuickCast", "quickcast", coordinates={"channel": "app"})
    two = log.rule(AGENT_B, "QuickCast", "quickcast")
    assert log.status(one) == log.status(two) == Status.SUGGESTED


def test_rules_at_points_that_do_not_meet_do_not_contest():
    log = MemoryLog()
    one = log.rule(AGENT_A, "sign in", "log in", coordinates={"channel": "app"})
    two = log.rule(AGENT_B, "log on", "log in", coordinates={"channel": "docs"})
    assert log.status(one) == log.status(two) == Status.SUGGESTED


def test_a_suggestion_against_an_established_rule_is_contested_and_the_rule_stays():
    log = MemoryLog()
    rule = log.rule(AGENT_A, "sign in", "log in")
    log.add(OpKind.KEEP, PERSON, target=rule.id)
    rival = log.rule(AGENT_B, "log on", "log in")
    folded = fold(log.records)
    assert folded.entry(rule.id).status == Status.ESTABLISHED
    assert folded.entry(rival.id).contested_by == (rule.id,)


def test_a_suggestion_against_the_terms_store_is_contested_by_the_concept():
    log = MemoryLog()
    rival = log.rule(AGENT_B, "log on", "log in")
    store = [StoreRule(key="term:en:log-in", rule=TermRule(term="log in", replacement="sign in"))]
    entry = fold(log.records, store).entry(rival.id)
    assert entry.status == Status.CONTESTED and entry.contested_by == ("terms:term:en:log-in",)


APP = {"product": "app", "channel": "ui"}


def _voice(say: str, *avoid: str, where=None) -> StoreRule:
    term, *forms = avoid or ("",)
    return StoreRule(
        key=f"shop-ui/{say}",
        rule=TermRule(term=term, forms=tuple(forms), replacement=say),
        coordinates=APP if where is None else where,
        source="voice",
        local=True,
    )


def test_a_suggestion_against_a_voices_rule_where_it_holds_is_contested_by_that_rule():
    for say, avoid, where in (
        ("basket", "cart", APP),  # avoids what the voice says
        ("trolley", "basket", APP),  # says another word for what the voice avoids
        ("basket", "cart", {}),  # seen at the default point: holds at the voice's too
    ):
        log = MemoryLog()
        record = log.rule(AGENT_B, say, avoid, coordinates=where)
        entry = fold(log.records, [_voice("cart", "basket")]).entry(record.id)
        assert entry.status == Status.CONTESTED and entry.contested_by == ("voice:shop-ui/cart",)


def test_a_voices_rule_contests_only_where_its_voice_is_bound():
    log = MemoryLog()
    docs = log.rule(AGENT_B, "basket", "cart", coordinates={"product": "docs"})
    default_voice = _voice("cart", "basket", where={})  # the default point's voice
    app = log.rule(AGENT_B, "basket", "cart", coordinates=APP)
    folded = fold(log.records, [_voice("cart", "basket"), default_voice])
    assert folded.entry(docs.id).status == Status.SUGGESTED
    assert folded.entry(app.id).contested_by == ("voice:shop-ui/cart",)


def test_a_rule_that_only_prefers_a_word_contests_a_suggestion_to_avoid_it():
    log = MemoryLog()
    rival = log.rule(AGENT_B, "basket", "cart", coordinates=APP)
    assert fold(log.records, [_voice("cart")]).entry(rival.id).contested_by == (
        "voice:shop-ui/cart",
    )
    log = MemoryLog()
    agrees = log.rule(AGENT_B, "cart", "trolley", coordinates=APP)
    assert fold(log.records, [_voice("cart")]).entry(agrees.id).status == Status.SUGGESTED


def test_a_rule_that_names_no_replacement_agrees_with_one_that_names_one():
    log = MemoryLog()
    fills_in = log.rule(AGENT_B, "easily", "simply", coordinates=APP)
    avoid_only = StoreRule(key="shop-ui/simply", rule=TermRule(term="simply"), source="voice")
    assert fold(log.records, [avoid_only]).entry(fills_in.id).status == Status.SUGGESTED
    assert not disagree(TermRule(term="simply"), TermRule(term="simply", replacement="easily"))


def test_a_rule_kept_against_a_voices_rule_is_contested_and_not_kept_again():
    log = MemoryLog()
    rule = log.rule(AGENT_A, "basket", "cart", coordinates=APP)
    log.add(OpKind.KEEP, PERSON, target=rule.id)
    assert log.status(rule) == Status.ESTABLISHED
    entry = fold(log.records, [_voice("cart", "basket")]).entry(rule.id)
    assert entry.status == Status.CONTESTED and entry.contested_by == ("voice:shop-ui/cart",)
    with pytest.raises(ContextRefused, match=r"the voice shop-ui \(say \"cart\"\), a rule in"):
        decision_refusal(OpKind.KEEP, entry)
    # the terms store's rule a kept one was written to is the kept rule: it contests nothing
    own = StoreRule(key="c1", rule=TermRule(term="cart", replacement="basket"))
    assert fold(log.records, [own]).entry(rule.id).status == Status.ESTABLISHED


def test_rivals_read_as_ops_voices_and_concepts():
    assert rivals_text(["0n79tw5k9sabcdefghjkmnpq", "voice:shop-ui/cart", "terms:c1"]) == (
        '#0n79tw5k9s, the voice shop-ui (say "cart"), the terms store\'s concept c1'
    )
    assert in_force_outside("voice:shop-ui/cart") and in_force_outside("terms:c1")
    assert not in_force_outside("0n79tw5k9sabcdefghjkmnpq")


def test_a_persons_correction_reversing_a_rule_contests_it_until_kept_again():
    log = MemoryLog()
    rule = log.rule(AGENT_A, "sign in", "log in")
    log.add(OpKind.KEEP, PERSON, target=rule.id)
    reversal = log.add(
        OpKind.CORRECT,
        PERSON,
        correction=Correction(from_="sign in", to="log in"),
        suggest=True,
        subject=Subject(kind="term", term=TermRule(term="sign in", replacement="log in")),
    )
    folded = fold(log.records)
    assert folded.entry(rule.id).status == Status.CONTESTED
    assert folded.entry(reversal.id).contested_by == (rule.id,)
    log.add(OpKind.KEEP, PERSON, target=rule.id)
    assert log.status(rule) == Status.ESTABLISHED
    assert log.status(reversal) == Status.CONTESTED


def test_an_agents_correction_against_a_rule_leaves_the_rule_in_force():
    log = MemoryLog()
    rule = log.rule(AGENT_A, "sign in", "log in")
    log.add(OpKind.KEEP, PERSON, target=rule.id)
    log.add(
        OpKind.CORRECT,
        AGENT_B,
        subject=Subject(kind="term", term=TermRule(term="sign in", replacement="log in")),
    )
    assert log.status(rule) == Status.ESTABLISHED


def test_standing_counts_parties_corrections_and_what_stands_against():
    log = MemoryLog()
    first = log.rule(AGENT_A, "sign in", "log in")
    log.rule(AGENT_B, "sign in", "log in")
    log.rule(AGENT_A, "sign in", "login", "log in")
    log.add(
        OpKind.CORRECT,
        AGENT_B,
        subject=Subject(kind="term", term=TermRule(term="log in", replacement="sign in")),
    )
    standing = fold(log.records).entry(first.id).standing
    assert (standing.sessions, standing.corrections) == (2, 1)
    assert standing.text() == "seen in 2 sessions · 1 correction"


def test_a_widen_drops_the_axis_it_names():
    log = MemoryLog()
    rule = log.rule(AGENT_A, "sign in", "log in", coordinates={"channel": "app", "brand": "x"})
    log.add(OpKind.KEEP, PERSON, target=rule.id)
    log.add(OpKind.WIDEN, PERSON, target=rule.id, widen_to="channel")
    assert fold(log.records).entry(rule.id).scope.coordinates == {"brand": "x"}


# --- the policy (every refusal of spec §3e) -----------------------------------------


@pytest.mark.parametrize("kind", [OpKind.KEEP, OpKind.DROP, OpKind.WIDEN, OpKind.RESET])
def test_an_agent_may_not_decide(kind):
    with pytest.raises(ContextRefused, match="only a person") as refused:
        person_decides(AGENT_A, kind)
    assert "kapi context review" in str(refused.value)
    assert refused.value.code == "not_permitted" and refused.value.exit_code == 3


@pytest.mark.parametrize("kind", [OpKind.SIGNAL, OpKind.ESTABLISH, OpKind.EDIT, OpKind.IMPORT])
def test_an_agent_may_not_signal_establish_edit_or_import(kind):
    with pytest.raises(ContextRefused, match="only a person"):
        person_decides(AGENT_A, kind)


def test_an_agent_may_observe_correct_and_withdraw_its_own_suggestion():
    log = MemoryLog()
    mine = log.rule(AGENT_A, "sign in", "log in")
    entry = fold(log.records).entry(mine.id)
    for kind in (OpKind.OBSERVE, OpKind.CORRECT):
        person_decides(AGENT_A, kind)
    person_decides(AGENT_A, OpKind.WITHDRAW, target=entry)
    decision_refusal(OpKind.WITHDRAW, entry)


def test_an_agent_may_not_withdraw_another_sessions_suggestion_even_its_own_agents():
    log = MemoryLog()
    theirs = log.rule(AGENT_B, "sign in", "log in")
    entry = fold(log.records).entry(theirs.id)
    with pytest.raises(ContextRefused, match="another session"):
        person_decides(AGENT_A, OpKind.WITHDRAW, target=entry)


def test_a_withdraw_is_refused_once_the_suggestion_is_established():
    log = MemoryLog()
    mine = log.rule(AGENT_A, "sign in", "log in")
    log.add(OpKind.KEEP, PERSON, target=mine.id)
    with pytest.raises(ContextRefused, match="review --drop"):
        decision_refusal(OpKind.WITHDRAW, fold(log.records).entry(mine.id))


def test_widening_is_a_persons_even_for_a_tool():
    with pytest.raises(ContextRefused):
        person_decides(AGENT_A, OpKind.KEEP, widening=True)
    with pytest.raises(ContextRefused):
        person_decides(TOOL, OpKind.ESTABLISH, widening=True)


def test_a_tool_may_signal_and_establish_but_decide_nothing():
    for kind in (OpKind.OBSERVE, OpKind.CORRECT, OpKind.SIGNAL, OpKind.ESTABLISH):
        person_decides(TOOL, kind)
    refused = (OpKind.KEEP, OpKind.DROP, OpKind.WIDEN, OpKind.RESET, OpKind.WITHDRAW)
    for kind in (*refused, OpKind.EDIT, OpKind.IMPORT):
        with pytest.raises(ContextRefused, match="only a person"):
            person_decides(TOOL, kind)


def test_a_person_may_do_everything():
    for kind in OpKind:
        person_decides(PERSON, kind, widening=True)


def test_a_contested_suggestion_cannot_be_kept_only_chosen():
    log = MemoryLog()
    one = log.rule(AGENT_A, "sign in", "log in")
    log.rule(AGENT_B, "log on", "log in")
    with pytest.raises(ContextRefused, match="--choose"):
        decision_refusal(OpKind.KEEP, fold(log.records).entry(one.id))


def test_a_dropped_suggestion_has_nothing_left_to_decide():
    log = MemoryLog()
    one = log.rule(AGENT_A, "sign in", "log in")
    log.add(OpKind.DROP, PERSON, target=one.id)
    with pytest.raises(ContextRefused, match="is dropped"):
        decision_refusal(OpKind.KEEP, fold(log.records).entry(one.id))


def test_a_rule_contested_by_a_persons_correction_may_be_kept_again_the_correction_not():
    log = MemoryLog()
    rule = log.rule(AGENT_A, "sign in", "log in")
    log.add(OpKind.KEEP, PERSON, target=rule.id)
    reversal = log.add(
        OpKind.CORRECT,
        PERSON,
        subject=Subject(kind="term", term=TermRule(term="sign in", replacement="log in")),
    )
    folded = fold(log.records)
    decision_refusal(OpKind.KEEP, folded.entry(rule.id))
    with pytest.raises(ContextRefused, match="--choose"):
        decision_refusal(OpKind.KEEP, folded.entry(reversal.id))
