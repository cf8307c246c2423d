"""Guards: what an edit may not do to the codes and structures of the content it replaces."""

from __future__ import annotations

from collections import Counter

from kapi.core.change.errors import ErrorCode, ErrorInfo, GuardSubcode
from kapi.core.edittext import code_token, entity_char
from kapi.core.model import (
    PcClose,
    PcOpen,
    Ph,
    Plural,
    Run,
    Runs,
    Select,
    Sub,
    Text,
    code_constraints,
)

__all__ = ["check_codes", "guard_error"]


def guard_error(
    subcode: GuardSubcode, message: str, *, expected: str = "", found: str = "", field: str = ""
) -> ErrorInfo:
    return ErrorInfo(
        code=ErrorCode.GUARD,
        subcode=subcode,
        message=message,
        expected=expected or None,
        found=found or None,
        field=field or None,
    )


def _tokens(runs: Runs) -> list[tuple[str, Run]]:
    """The codes an edit must account for; a character reference is text, shown as its character."""
    return [
        (token, run)
        for run in runs
        if (token := code_token(run)) is not None
        and isinstance(run, Ph | PcOpen | PcClose | Sub)
        and entity_char(run) is None
    ]


def _show(token: str) -> str:
    return f'<x id="{token}"/>'


def check_codes(old: Runs, new: Runs) -> ErrorInfo | None:
    """The first guard ``new`` breaks against ``old``, or ``None``; recurses into structures."""
    old_codes = [run for run in old if not isinstance(run, Text)]
    new_codes = [run for run in new if not isinstance(run, Text)]
    if old_codes == new_codes and not any(isinstance(r, Plural | Select) for r in old_codes):
        return None  # the same codes in the same order: nothing to guard
    old_structures = [run for run in old if isinstance(run, Plural | Select)]
    new_structures = [run for run in new if isinstance(run, Plural | Select)]
    if len(new_structures) < len(old_structures):
        return guard_error(
            GuardSubcode.STRUCTURE_LOST,
            "the edit drops a plural or select; edit its branches with a path instead",
        )
    openers = {run.id: run for run in old if isinstance(run, PcOpen)}
    openers.update(
        {run.id: run for run in new if isinstance(run, PcOpen) and run.id not in openers}
    )
    old_counts = Counter(token for token, _ in _tokens(old))
    new_counts = Counter(token for token, _ in _tokens(new))
    for token, run in _tokens(old):
        if not isinstance(run, Ph | PcOpen | PcClose):
            continue
        opener = openers.get(run.id) if isinstance(run, PcClose) else None
        constraints = code_constraints(run, opener)
        if new_counts[token] == 0 and not constraints.deletable:
            return guard_error(
                GuardSubcode.CODES_CHANGED,
                f"the edit drops {_show(token)}, which may not be deleted; keep the token",
                expected=_show(token),
            )
    for token, run in _tokens(new):
        if not isinstance(run, Ph | PcOpen | PcClose):
            continue
        opener = openers.get(run.id) if isinstance(run, PcClose) else None
        if (
            new_counts[token] > max(1, old_counts[token])
            and not code_constraints(run, opener).cloneable
        ):
            return guard_error(
                GuardSubcode.CODES_CHANGED,
                f"the edit repeats {_show(token)}, which may appear only once",
                found=_show(token),
            )
    balance = _check_pairs(new)
    if balance is not None:
        return balance
    order_old = [t for t, r in _tokens(old) if _fixed_order(r, openers)]
    order_new = [t for t, r in _tokens(new) if _fixed_order(r, openers) and t in old_counts]
    kept_old = [t for t in order_old if t in new_counts]
    if kept_old != order_new[: len(kept_old)] and sorted(kept_old) == sorted(order_new):
        return guard_error(
            GuardSubcode.CODES_CHANGED,
            "the edit moves a code that must stay in order",
            expected=" ".join(_show(t) for t in kept_old),
            found=" ".join(_show(t) for t in order_new),
        )
    for before, after in zip(old_structures, new_structures):
        error = _check_structure(before, after)
        if error is not None:
            return error
    return None


def _fixed_order(run: Run, openers: dict[str, PcOpen]) -> bool:
    if not isinstance(run, Ph | PcOpen | PcClose):
        return False
    opener = openers.get(run.id) if isinstance(run, PcClose) else None
    return not code_constraints(run, opener).reorderable


def _check_pairs(runs: Runs) -> ErrorInfo | None:
    stack: list[str] = []
    for run in runs:
        if isinstance(run, PcOpen):
            if run.id in stack:
                return guard_error(
                    GuardSubcode.CODES_CHANGED,
                    f"{_show(run.id)} opens again before it closes",
                    found=_show(run.id),
                )
            stack.append(run.id)
        elif isinstance(run, PcClose):
            if not stack or stack[-1] != run.id:
                expected = _show("/" + stack[-1]) if stack else ""
                return guard_error(
                    GuardSubcode.CODES_CHANGED,
                    f"{_show('/' + run.id)} does not close the innermost open code; "
                    "paired codes must nest",
                    expected=expected,
                    found=_show("/" + run.id),
                )
            stack.pop()
    if stack:
        return guard_error(
            GuardSubcode.CODES_CHANGED,
            f"{_show(stack[-1])} is opened but never closed; add {_show('/' + stack[-1])}",
            expected=_show("/" + stack[-1]),
        )
    return None


def _check_structure(before: Plural | Select, after: Plural | Select) -> ErrorInfo | None:
    if type(before) is not type(after):
        return guard_error(
            GuardSubcode.STRUCTURE_LOST, "the edit turns a plural into a select or back"
        )
    old_branches = before.forms if isinstance(before, Plural) else before.cases
    new_branches = after.forms if isinstance(after, Plural) else after.cases
    for name, runs in new_branches.items():
        reference = old_branches.get(name, old_branches.get("other", ()))
        error = check_codes(reference, runs)
        if error is not None:
            return error
    return None
