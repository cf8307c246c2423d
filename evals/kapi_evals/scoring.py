"""Each attempt's outcome, and the numbers per mode and condition.

* ``skill`` (triggering): an attempt *fired* when the agent loaded the kapi
  skill or ran a kapi command. Over finished attempts, a positive that fired is
  a true positive, a negative that fired a false positive; precision and recall
  follow.
* ``completion``: an attempt passed when every artifact check passed. The
  success rate is over every attempt (one that crashed or timed out did not
  complete); turns are the host's own count, summed over rounds.
* ``mcp``: a positive passed when its first kapi MCP tool is one the scenario
  names (counted as the right tool first even when the attempt failed for
  another reason); a negative when it called none.

An attempt that wrote outside its workspace fails, whatever else it did; one
whose stream did not finish (timeout, crash, invalid stream) is an error.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from typing import Any

__all__ = ["MODES", "judge", "summarize"]

MODES = ("skill", "completion", "mcp")


def judge(attempt: dict[str, Any], first_tool: tuple[str, ...]) -> tuple[str, str]:
    """The outcome of one attempt (pass, fail or error) and why."""
    if attempt["status"] not in ("completed", "agent_failed"):
        return "error", f"{attempt['status']}: {attempt['error']}".rstrip(": ")
    if attempt["outside_writes"]:
        return "fail", "wrote outside its workspace: " + ", ".join(attempt["outside_writes"][:5])
    positive = attempt["kind"] == "positive"
    mode = attempt["mode"]
    if mode == "skill":
        if attempt["fired"] == positive:
            return "pass", ""
        if positive:
            return "fail", "did not reach for kapi"
        return "fail", "reached for kapi on a task that is not kapi's"
    if mode == "mcp":
        first = attempt["first_mcp_tool"]
        if not positive:
            return ("pass", "") if first is None else ("fail", f"called kapi's {first}")
        if first is None:
            return "fail", "called no kapi MCP tool"
        if first in first_tool:
            return "pass", ""
        return "fail", f"first kapi tool was {first}, not {' or '.join(first_tool)}"
    failed = [check["check"] for check in attempt["checks"] if not check["passed"]]
    if failed:
        return "fail", "failed: " + "; ".join(failed)
    return "pass", ""


def _ratio(numerator: int, denominator: int) -> float | None:
    return round(numerator / denominator, 3) if denominator else None


def summarize(attempts: Iterable[dict[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    """The numbers per mode and condition, as the report and the CLI print them."""
    groups: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for attempt in attempts:
        groups.setdefault(attempt["mode"], {}).setdefault(attempt["condition"], []).append(attempt)
    summary: dict[str, dict[str, dict[str, Any]]] = {}
    for mode in MODES:
        for condition, group in groups.get(mode, {}).items():
            summary.setdefault(mode, {})[condition] = _SUMMARIES[mode](group)
    return summary


def _skill(group: list[dict[str, Any]]) -> dict[str, Any]:
    scored = [attempt for attempt in group if attempt["outcome"] != "error"]
    tp = sum(1 for a in scored if a["kind"] == "positive" and a["fired"])
    fn = sum(1 for a in scored if a["kind"] == "positive" and not a["fired"])
    fp = sum(1 for a in scored if a["kind"] == "negative" and a["fired"])
    tn = sum(1 for a in scored if a["kind"] == "negative" and not a["fired"])
    return {
        "attempts": len(group),
        "errors": len(group) - len(scored),
        "true_positives": tp,
        "false_negatives": fn,
        "false_positives": fp,
        "true_negatives": tn,
        "precision": _ratio(tp, tp + fp),
        "recall": _ratio(tp, tp + fn),
        "skill_loaded": sum(1 for a in scored if a["skill_loaded"]),
        "ran_kapi": sum(1 for a in scored if a["kapi_commands"]),
    }


def _completion(group: list[dict[str, Any]]) -> dict[str, Any]:
    passed = [attempt for attempt in group if attempt["outcome"] == "pass"]
    turns = [a["turns"] for a in passed if a["turns"] is not None]
    costs = [a["cost_usd"] for a in group if a["cost_usd"] is not None]
    return {
        "attempts": len(group),
        "passed": len(passed),
        "errors": sum(1 for a in group if a["outcome"] == "error"),
        "success_rate": _ratio(len(passed), len(group)),
        "median_turns": statistics.median(turns) if turns else None,
        "cost_usd": round(sum(costs), 4) if costs else None,
    }


def _mcp(group: list[dict[str, Any]]) -> dict[str, Any]:
    scored = [attempt for attempt in group if attempt["outcome"] != "error"]
    positives = [a for a in scored if a["kind"] == "positive"]
    negatives = [a for a in scored if a["kind"] == "negative"]
    right = sum(1 for a in positives if a.get("right_first_tool"))
    return {
        "attempts": len(group),
        "errors": len(group) - len(scored),
        "positives": len(positives),
        "right_first": right,
        "right_first_rate": _ratio(right, len(positives)),
        "negatives": len(negatives),
        "kapi_called": sum(1 for a in negatives if a["first_mcp_tool"] is not None),
    }


_SUMMARIES = {"skill": _skill, "completion": _completion, "mcp": _mcp}
