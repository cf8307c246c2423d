"""The report: tables per mode and condition from a results file, with links to every transcript.

``docs/evals.md`` holds it between two markers, so the page's own prose stays
as written; the command line prints the same summary tables after a run.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from kapi_evals.errors import EvalError
from kapi_evals.scoring import MODES

__all__ = [
    "BEGIN",
    "END",
    "newest_results",
    "read_results",
    "report_section",
    "summary_tables",
    "write_section",
]

BEGIN = "<!-- evals:results (written by `python scripts/evals.py report`; edit outside) -->"
END = "<!-- /evals:results -->"

_TITLES = {
    "skill": "Triggering (`skill`): does the agent reach for kapi, and only when it should",
    "completion": "Completion (`completion`): is the task done, judged by its artifact checks",
    "mcp": "MCP tool choice (`mcp`): is the first kapi tool the right one",
}


def read_results(path: Path) -> dict[str, Any]:
    try:
        results = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise EvalError(f"{path.name}: not a results file ({err})") from None
    if not isinstance(results, dict) or "attempts" not in results:
        raise EvalError(f"{path.name}: not a results file (no attempts)")
    return results


def newest_results(out: Path) -> Path | None:
    """The results file of the latest run kept in ``out`` (by its start), or None."""
    found = []
    for path in out.glob("*.json"):
        try:
            started = json.loads(path.read_text(encoding="utf-8")).get("started") or ""
        except (OSError, ValueError, AttributeError):
            continue
        found.append((started, path.name, path))
    return max(found)[2] if found else None


def _cell(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value).replace("|", "\\|").replace("\n", " ")


def _rate(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def _table(head: list[str], rows: list[list[Any]]) -> list[str]:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(_cell(value) for value in row) + " |" for row in rows]
    return lines


def summary_tables(results: dict[str, Any]) -> str:
    """The numbers per mode and condition: what the command line prints after a run."""
    lines: list[str] = []
    summary = results.get("summary", {})
    for mode in MODES:
        if mode not in summary:
            continue
        lines += ["", f"### {_TITLES[mode]}", ""]
        groups = summary[mode]
        if mode == "skill":
            rows = [
                [
                    condition,
                    g["attempts"],
                    g["errors"],
                    f"{g['true_positives']}/{g['true_positives'] + g['false_negatives']}",
                    f"{g['false_positives']}/{g['false_positives'] + g['true_negatives']}",
                    _rate(g["precision"]),
                    _rate(g["recall"]),
                    g["skill_loaded"],
                    g["ran_kapi"],
                ]
                for condition, g in groups.items()
            ]
            head = [
                "condition",
                "attempts",
                "errors",
                "fired on positives",
                "fired on negatives",
                "precision",
                "recall",
                "loaded the skill",
                "ran kapi",
            ]
        elif mode == "completion":
            rows = [
                [
                    condition,
                    g["attempts"],
                    g["passed"],
                    _rate(g["success_rate"]),
                    g["errors"],
                    g["median_turns"],
                    g["cost_usd"],
                ]
                for condition, g in groups.items()
            ]
            head = [
                "condition",
                "attempts",
                "passed",
                "success rate",
                "errors",
                "median turns (passed)",
                "cost (USD)",
            ]
        else:
            rows = [
                [
                    condition,
                    g["attempts"],
                    g["errors"],
                    f"{g['right_first']}/{g['positives']}",
                    _rate(g["right_first_rate"]),
                    f"{g['kapi_called']}/{g['negatives']}",
                ]
                for condition, g in groups.items()
            ]
            head = [
                "condition",
                "attempts",
                "errors",
                "right tool first",
                "rate",
                "kapi called on negatives",
            ]
        lines += _table(head, rows)
    return "\n".join(lines).strip("\n")


def _link(attempt: dict[str, Any], results_dir: Path, page_dir: Path, label: str) -> str:
    target = os.path.relpath(results_dir / attempt["transcript"], page_dir)
    return f"[{label}]({Path(target).as_posix()})"


def report_section(results: dict[str, Any] | None, results_file: Path | None, page: Path) -> str:
    """The page's generated section: the run's facts, the tables, and every attempt's transcript."""
    if results is None or results_file is None:
        return "\n".join(
            [
                BEGIN,
                "",
                "No run is recorded in `evals/results/` yet. Run",
                "`.venv/bin/python scripts/evals.py run --agent claude` with the agent CLI and",
                "its credentials, and commit the results file, its transcripts and this page.",
                "",
                END,
            ]
        )
    page_dir = page.parent.resolve()
    results_dir = results_file.parent.resolve()
    agent = results.get("agent", {})
    kapi = results.get("kapi", {})
    settings = results.get("settings", {})
    attempts = results.get("attempts", [])
    observed = sorted({m for a in attempts for m in a.get("model", {}).get("observed", [])})
    name = Path(os.path.relpath(results_file.resolve(), page_dir)).as_posix()
    lines = [
        BEGIN,
        "",
        f"## Results of {results.get('started', '?')[:10]}",
        "",
        f"From [`{results_file.name}`]({name}): {len(attempts)} attempts, "
        f"started {results.get('started')}, finished {results.get('finished') or 'not'}.",
        "",
        f"* Agent: {agent.get('name')} {agent.get('version') or '(version unknown)'}; "
        f"model requested: {agent.get('model') or 'the CLI default'}; "
        f"observed: {', '.join(observed) or 'none reported'}.",
        f"* kapi {kapi.get('version')} at commit {kapi.get('commit') or '?'}; "
        f"skill SHA-256 `{str(kapi.get('skill_sha256', ''))[:12]}`; host {results.get('host')}.",
        f"* {settings.get('repeat')} attempts per scenario and condition, "
        f"{settings.get('rounds')} rounds at most in completion, "
        f"{settings.get('timeout_s'):g} s per attempt, turns capped at "
        + ", ".join(f"{mode} {turns}" for mode, turns in settings.get("max_turns", {}).items())
        + ".",
        "",
        summary_tables(results),
    ]
    for mode in MODES:
        rows = _detail_rows(mode, [a for a in attempts if a["mode"] == mode], results_dir, page_dir)
        if rows:
            lines += ["", f"#### Every `{mode}` attempt", "", *rows]
    failed = [a for a in attempts if a["outcome"] != "pass"]
    if failed:
        lines += ["", "#### Attempts that failed or erred", ""]
        lines += _table(
            ["attempt", "outcome", "why", "transcript"],
            [
                [a["id"], a["outcome"], a["reason"], _link(a, results_dir, page_dir, "jsonl")]
                for a in failed
            ],
        )
    lines += ["", END]
    return "\n".join(lines)


def _detail_rows(
    mode: str, attempts: list[dict[str, Any]], results_dir: Path, page_dir: Path
) -> list[str]:
    if not attempts:
        return []
    rows = []
    for a in attempts:
        link = _link(a, results_dir, page_dir, f"#{a['repeat']}")
        if mode == "skill":
            did = ", ".join(
                part
                for part in (
                    "loaded the skill" if a["skill_loaded"] else "",
                    ", ".join(dict.fromkeys(a["kapi_commands"])),
                )
                if part
            )
            rows.append([a["scenario"], a["kind"], a["condition"], link, a["outcome"], did or "–"])
        elif mode == "completion":
            failing = [c["check"] for c in a["checks"] if not c["passed"]]
            rows.append(
                [
                    a["scenario"],
                    a["condition"],
                    link,
                    a["outcome"],
                    a["turns"],
                    a["rounds"],
                    "; ".join(failing) or ("–" if a["outcome"] == "pass" else a["reason"]),
                ]
            )
        else:
            rows.append(
                [
                    a["scenario"],
                    a["kind"],
                    link,
                    a["outcome"],
                    a["first_mcp_tool"] or "none",
                ]
            )
    heads = {
        "skill": ["scenario", "kind", "condition", "attempt", "outcome", "what it ran"],
        "completion": [
            "scenario",
            "condition",
            "attempt",
            "outcome",
            "turns",
            "rounds",
            "failed checks",
        ],
        "mcp": ["scenario", "kind", "attempt", "outcome", "first kapi tool"],
    }
    return _table(heads[mode], rows)


def write_section(page: Path, section: str) -> None:
    """Puts the section into the page between its markers (a new page holds only a title and it)."""
    if not page.exists():
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(f"# kapi's agent evaluations\n\n{section}\n", encoding="utf-8")
        return
    text = page.read_text(encoding="utf-8")
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise EvalError(f"{page.name} has no results section ({BEGIN} … {END}) to write into")
    page.write_text(text[:start] + section + text[end + len(END) :], encoding="utf-8")


def section_of(page: Path) -> str | None:
    """The page's results section as it stands, or None when it has none."""
    text = page.read_text(encoding="utf-8") if page.exists() else ""
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        return None
    return text[start : end + len(END)]
