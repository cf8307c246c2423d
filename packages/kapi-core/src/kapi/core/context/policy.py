"""Who may record what (``PersonDecides``): one function for every writer of the context.

A person may do everything. An agent observes and corrects (both become
suggestions) and withdraws its own suggestion in the same session while it is
still a suggestion; it never keeps, drops, widens or resets. A tool observes,
corrects, signals and establishes. Two sessions of one agent are two parties.
"""

from __future__ import annotations

from kapi.core.context.errors import ContextRefused
from kapi.core.context.fold import Entry, in_force_outside, rival_name, rivals_text
from kapi.core.context.record import ActorLike, OpKind, Status

__all__ = ["REVIEW_HINT", "decision_refusal", "in_force_refusal", "person_decides"]

REVIEW_HINT = "show the person `kapi context log --status suggested` and ask them to run `kapi context review`"

_AGENT = frozenset({OpKind.OBSERVE, OpKind.CORRECT, OpKind.WITHDRAW, OpKind.CHECK})
_TOOL = frozenset({OpKind.OBSERVE, OpKind.CORRECT, OpKind.SIGNAL, OpKind.ESTABLISH, OpKind.CHECK})
_VERB = {
    OpKind.KEEP: "keeps a suggestion",
    OpKind.DROP: "drops a suggestion or a rule",
    OpKind.WIDEN: "widens a rule",
    OpKind.RESET: "resets the context",
    OpKind.EDIT: "edits a rule",
    OpKind.IMPORT: "imports a context file",
    OpKind.SIGNAL: "records a signal",
    OpKind.ESTABLISH: "establishes a rule",
}


def person_decides(
    actor: ActorLike, kind: OpKind, *, target: Entry | None = None, widening: bool = False
) -> None:
    """Refuse (:class:`ContextRefused`) what ``actor`` may not record; return when it may."""
    if actor.kind == "person":
        return
    if actor.kind == "tool":
        if kind in _TOOL and not widening:
            return
        raise ContextRefused(f"a tool may not record {kind}: only a person decides that")
    if widening:
        raise ContextRefused(f"only a person widens a rule; {REVIEW_HINT}")
    if kind not in _AGENT:
        what = _VERB.get(kind, f"records {kind}")
        raise ContextRefused(
            f"only a person {what}: an agent records what it sees (`kapi context note`) "
            f"and a person decides; {REVIEW_HINT}"
        )
    if kind == OpKind.WITHDRAW and target is not None:
        author = target.record.actor
        if author.kind != "agent" or (author.name, author.session) != (
            actor.name,
            actor.session,
        ):
            raise ContextRefused(
                f"#{target.record.short} was recorded by another session: an agent withdraws "
                f"only what its own session suggested; {REVIEW_HINT} (a person drops it there)"
            )


def decision_refusal(kind: OpKind, target: Entry) -> None:
    """Refuse a decision the target's status does not allow, saying what to do instead.

    A contested suggestion is chosen, not kept; a suggestion against a rule in force
    outside the log (a voice's, the terms store's) is neither: the rule stays. A rule a
    person kept and a later correction of a person's contests may be kept again.
    """
    ref = f"#{target.record.short}"
    status = target.status
    if status in (Status.WITHDRAWN, Status.DROPPED, Status.RESET):
        raise ContextRefused(
            f"{ref} is {status}: nothing to decide; record it again with `kapi context note` "
            "if it should be a rule"
        )
    if kind == OpKind.WITHDRAW and status == Status.ESTABLISHED:
        raise ContextRefused(
            f"{ref} is established, no longer a suggestion: a person drops it with "
            f"`kapi context review --drop {ref}`"
        )
    held = [r for r in target.contested_by if in_force_outside(r)]
    if kind == OpKind.KEEP and status == Status.CONTESTED and held:
        raise ContextRefused(in_force_refusal(target, held[0]))
    if kind == OpKind.KEEP and status == Status.CONTESTED and not target.decided_by:
        rivals = rivals_text(target.contested_by)
        raise ContextRefused(
            f"{ref} is contested by {rivals}: keep one of them with "
            f"`kapi context review --choose {ref}`, which drops the others"
        )
    if kind == OpKind.KEEP and status == Status.ESTABLISHED:
        raise ContextRefused(f"{ref} is established already; nothing to keep")
    if kind == OpKind.WIDEN and status != Status.ESTABLISHED:
        raise ContextRefused(f"{ref} is {status}: only a rule in force is widened; keep it first")


def in_force_refusal(target: Entry, ref: str) -> str:
    """Why a suggestion against a rule in force outside the log (``ref``) is not kept or
    chosen: the rule stays, so keeping it would bind two rules that say opposite things."""
    ref_name = f"#{target.record.short}"
    where = (
        "change the voice where it is written (`kapi voice list` shows where)"
        if ref.startswith("voice:")
        else "change that term with `kapi terms` or `kapi apply`"
    )
    return (
        f"{ref_name} is contested by {rival_name(ref)}, a rule in force, and the rule stays: "
        f"keeping {ref_name} would make two rules that say opposite things. To follow "
        f"{ref_name} instead, {where}, then keep it; or drop it with "
        f"`kapi context review --drop {ref_name}`"
    )
