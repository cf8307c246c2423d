"""The replaying agent on PATH, its plan, and a run of the evaluations through the real command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kapi_evals.agents import ClaudeCode

REPO = Path(__file__).resolve().parents[2]
EVALS = REPO / "scripts/evals.py"
RECORDINGS = Path(__file__).parent / "transcripts"
SECRET = "sk-ant-test-0123456789abcdef"

# What the replaying agent plays, by a piece of the prompt and the condition it finds itself in.
PLAN = [
    {"prompt": "checkout.fr.xlf", "conditions": ["skill"], "replay": ["xliff-skill-pass.jsonl"]},
    {"prompt": "checkout.fr.xlf", "conditions": ["mcp"], "replay": ["xliff-mcp-pass.jsonl"]},
    {
        "prompt": "checkout.fr.xlf",
        "conditions": ["baseline"],
        "replay": ["xliff-baseline-pass.jsonl"],
    },
    {
        "prompt": "returns-policy.docx",
        "conditions": ["skill"],
        "replay": ["docx-skill-gives-up.jsonl", "docx-skill-gives-up.jsonl"],
    },
    {
        "prompt": "returns-policy.docx",
        "conditions": ["mcp"],
        "replay": ["docx-mcp-check-first.jsonl"],
    },
    {
        "prompt": "docs/shipping.md",
        "conditions": ["skill"],
        "replay": ["docs-skill-crash.jsonl"],
        "crash_after": 3,
    },
    {"prompt": "docs/shipping.md", "conditions": ["mcp"], "replay": ["docs-mcp-invalid.jsonl"]},
    {"prompt": "docs/faq.md", "conditions": ["mcp"], "replay": ["faq-mcp-outside.jsonl"]},
    {
        "prompt": "docs/faq.md",
        "conditions": ["no-project"],
        "replay": ["faq-noproject-fail.jsonl", "faq-noproject-again.jsonl"],
    },
    {
        "prompt": "docs/faq.md",
        "conditions": ["skill"],
        "replay": ["faq-skill-hang.jsonl"],
        "hang_after": 2,
    },
    {
        "prompt": "pull the discount",
        "conditions": ["skill", "mcp"],
        "replay": ["refactor-edit.jsonl"],
    },
    {
        "prompt": "format_price tests",
        "conditions": ["skill", "mcp"],
        "replay": ["failing-test-skill-fires.jsonl"],
    },
]


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str
    out: Path
    report: Path

    @property
    def results_file(self) -> Path:
        (found,) = self.out.glob("*.json")
        return found

    @property
    def results(self) -> dict[str, Any]:
        return json.loads(self.results_file.read_text(encoding="utf-8"))

    def attempt(self, mode: str, scenario: str, condition: str) -> dict[str, Any]:
        (found,) = [
            a
            for a in self.results["attempts"]
            if (a["mode"], a["scenario"], a["condition"]) == (mode, scenario, condition)
        ]
        return found

    def transcript(self, attempt: dict[str, Any]) -> str:
        return (self.out / attempt["transcript"]).read_text(encoding="utf-8")


def fake_agent_env(folder: Path) -> dict[str, str]:
    """The environment of a run whose ``claude`` is the replaying agent."""
    bin_dir = folder / "agent-bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    launcher = bin_dir / "claude"
    launcher.write_text(
        f'#!/bin/sh\nexec "{sys.executable}" "{Path(__file__).parent / "fake_claude.py"}" "$@"\n',
        encoding="utf-8",
    )
    launcher.chmod(0o755)
    plan = folder / "plan.json"
    plan.write_text(json.dumps({"recordings": str(RECORDINGS), "sessions": PLAN}), encoding="utf-8")
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ClaudeCode.CREDENTIALS and not key.startswith("KAPI_")
    }
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["FAKE_CLAUDE_PLAN"] = str(plan)
    env["ANTHROPIC_API_KEY"] = SECRET
    return env


def run_evals(folder: Path, *args: str, env: dict[str, str] | None = None) -> Run:
    out, report = folder / "results", folder / "evals.md"
    done = subprocess.run(
        [sys.executable, str(EVALS), "run", "--out", str(out), "--report", str(report), *args],
        env=env if env is not None else fake_agent_env(folder),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    return Run(done.returncode, done.stdout, done.stderr, out, report)


MODEL = "claude-sonnet-4-5-20250929"
