"""Writes the recorded sessions in ``transcripts/``: scripted sessions whose results come from running them.

Each session below is what the assistant says and calls, turn by turn. This
script builds the workspace of its condition as a run does, plays the session
through ``fake_claude.py`` (which carries out every call), and keeps the
stream, with the workspace's path put back to the recorded one. Run it after a
template under ``evals/templates`` changes: ``.venv/bin/python
evals/tests/record_sessions.py``.
"""

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "evals"))

from kapi.mcp.sets import TOOL_SETS  # noqa: E402
from kapi_evals.agents import HOST_MARKERS  # noqa: E402
from kapi_evals.workspace import CONDITIONS, Workspaces, agent_env, link_kapi  # noqa: E402

ROOT = "/tmp/evals-run-3q8z1k/a001/workspace"
MODEL = "claude-sonnet-4-5-20250929"
rng = random.Random(7)
B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def ident(prefix):
    return prefix + "".join(rng.choice(B62) for _ in range(22))


def uid():
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


BUILTIN = [
    "Task",
    "Bash",
    "Glob",
    "Grep",
    "ExitPlanMode",
    "Read",
    "Edit",
    "MultiEdit",
    "Write",
    "NotebookEdit",
    "WebFetch",
    "TodoWrite",
    "WebSearch",
    "BashOutput",
    "KillShell",
    "Skill",
    "SlashCommand",
]
# what `kapi mcp --tools writing,translation` serves, as the init message of a session lists it
MCP_TOOLS = [*TOOL_SETS["writing"], *TOOL_SETS["translation"]]


def init(session, mcp, skills):
    tools = BUILTIN + ([f"mcp__kapi__{t}" for t in MCP_TOOLS] if mcp else [])
    return {
        "type": "system",
        "subtype": "init",
        "cwd": ROOT,
        "session_id": session,
        "tools": tools,
        "mcp_servers": [{"name": "kapi", "status": "connected"}] if mcp else [],
        "model": MODEL,
        "permissionMode": "acceptEdits",
        "slash_commands": [
            "compact",
            "context",
            "cost",
            "init",
            "pr-comments",
            "release-notes",
            "review",
            "security-review",
            *skills,
        ],
        "apiKeySource": "ANTHROPIC_API_KEY",
        "claude_code_version": "2.1.117",
        "output_style": "default",
        "agents": ["general-purpose", "statusline-setup", "Explore", "Plan"],
        "skills": skills,
        "plugins": [],
        "uuid": uid(),
    }


def usage(out):
    return {
        "input_tokens": rng.randint(3, 9),
        "cache_creation_input_tokens": rng.randint(200, 3000),
        "cache_read_input_tokens": rng.randint(12000, 30000),
        "output_tokens": out,
        "service_tier": "standard",
    }


def assistant(session, text=None, tools=()):
    content = []
    if text:
        content.append({"type": "text", "text": text})
    for name, args in tools:
        content.append({"type": "tool_use", "id": ident("toolu_01"), "name": name, "input": args})
    return {
        "type": "assistant",
        "message": {
            "model": MODEL,
            "id": ident("msg_01"),
            "type": "message",
            "role": "assistant",
            "content": content,
            "stop_reason": "tool_use" if tools else "end_turn",
            "stop_sequence": None,
            "usage": usage(rng.randint(40, 400)),
        },
        "parent_tool_use_id": None,
        "session_id": session,
        "uuid": uid(),
    }


def result(session, text, turns, cost, subtype="success"):
    return {
        "type": "result",
        "subtype": subtype,
        "is_error": subtype != "success",
        "duration_ms": rng.randint(15000, 90000),
        "duration_api_ms": rng.randint(12000, 80000),
        "num_turns": turns,
        "result": text,
        "stop_reason": "end_turn",
        "session_id": session,
        "total_cost_usd": cost,
        "usage": {
            "input_tokens": rng.randint(20, 60),
            "cache_creation_input_tokens": rng.randint(4000, 9000),
            "cache_read_input_tokens": rng.randint(50000, 150000),
            "output_tokens": rng.randint(500, 2000),
            "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
            "service_tier": "standard",
        },
        "modelUsage": {
            MODEL: {
                "inputTokens": 40,
                "outputTokens": 1200,
                "cacheReadInputTokens": 90000,
                "cacheCreationInputTokens": 6000,
                "webSearchRequests": 0,
                "costUSD": cost,
                "contextWindow": 200000,
            }
        },
        "permission_denials": [],
        "uuid": uid(),
    }


def rate_limit(session):
    return {
        "type": "rate_limit_event",
        "rate_limit_info": {
            "status": "allowed",
            "resetsAt": 1767243600,
            "rateLimitType": "five_hour",
            "isUsingOverage": False,
        },
        "uuid": uid(),
        "session_id": session,
    }


def bash(command, description):
    return ("Bash", {"command": command, "description": description})


P = ROOT + "/"
XLIFF_OP = {
    "schema": "kapi.change/v1",
    "ops": [
        {
            "op": "set_content",
            "at": {"doc": "translations/checkout.fr.xlf", "block": "checkout.pay", "edition": "fr"},
            "if_match": "r:02a84218d3dcbf62",
            "text": 'Régler <x id="1/"/> maintenant',
        }
    ],
}
FAQ_OLD = "Open your dashboard, choose **Account** and type the new email address."
FAQ_NEW = "Open your dashboard, choose **Profile** and type the new email address."

SESSIONS = {
    # name: (condition, turns)
    "xliff-skill-pass": (
        "skill",
        [
            (
                "I'll load the kapi skill: this is an edit inside an XLIFF file.",
                [("Skill", {"skill": "kapi"})],
            ),
            (
                "The French target keeps the amount as a placeholder; ksed edits the text around it.",
                [
                    bash(
                        "ksed --target fr -i 's/Payer (.*) tout de suite/Régler \\1 maintenant/' translations/checkout.fr.xlf",
                        "Change the French pay button",
                    )
                ],
            ),
            (None, [bash("kapi check translations/checkout.fr.xlf", "Check the changed file")]),
            (
                "RESULT",
                'The French pay button now reads "Régler {amount} maintenant", with the amount placeholder kept; `kapi check` passes.',
                4,
                0.0612,
            ),
        ],
    ),
    "xliff-mcp-pass": (
        "mcp",
        [
            (None, [("mcp__kapi__read_blocks", {"doc": "translations/checkout.fr.xlf"})]),
            (
                "I'll set the French edition of checkout.pay, keeping the placeholder.",
                [("mcp__kapi__apply_edits", XLIFF_OP)],
            ),
            (None, [("mcp__kapi__check_file", {"file": "translations/checkout.fr.xlf"})]),
            (
                "RESULT",
                'Done: the French pay button reads "Régler {amount} maintenant" and the file checks clean.',
                4,
                0.0655,
            ),
        ],
    ),
    "xliff-baseline-pass": (
        "baseline",
        [
            (None, [bash("command -v kapi || echo 'no kapi here'", "Look for a content tool")]),
            (None, [("Read", {"file_path": P + "translations/checkout.fr.xlf"})]),
            (
                None,
                [
                    (
                        "Edit",
                        {
                            "file_path": P + "translations/checkout.fr.xlf",
                            "old_string": '<target>Payer <x id="amount" equiv-text="{amount}"/> tout de suite</target>',
                            "new_string": '<target>Régler <x id="amount" equiv-text="{amount}"/> maintenant</target>',
                        },
                    )
                ],
            ),
            (
                "RESULT",
                'Changed the French target of checkout.pay to "Régler {amount} maintenant".',
                4,
                0.0433,
            ),
        ],
    ),
    "docx-skill-gives-up": (
        "skill",
        [
            (
                "RESULT",
                'docs/returns-policy.docx is a binary Word file, so I can\'t safely edit it here. Open it in Word and replace "control panel" with "dashboard".',
                1,
                0.0121,
            ),
        ],
    ),
    "docx-mcp-check-first": (
        "mcp",
        [
            (None, [("mcp__kapi__check_file", {"file": "docs/returns-policy.docx"})]),
            (None, [("mcp__kapi__read_blocks", {"doc": "docs/returns-policy.docx"})]),
            ("RESULT", 'The document says "control panel" in its second paragraph.', 3, 0.0301),
        ],
    ),
    "docs-skill-crash": (
        "skill",
        [
            ("I'll write the shipping page in the docs' voice.", [("Skill", {"skill": "kapi"})]),
            (None, [bash("kapi context docs/shipping.md", "What applies to the new page")]),
            ("RESULT", "Wrote docs/shipping.md.", 4, 0.05),
        ],
    ),
    "docs-mcp-invalid": (
        "mcp",
        [
            ("INVALID", 'Error: Request timed out while connecting to the MCP server "kapi"'),
            ("RESULT", "I could not reach the kapi server, so I stopped.", 1, 0.0093),
        ],
    ),
    "faq-skill-hang": (
        "skill",
        [
            ("I'll fix the FAQ and record the correction.", [("Skill", {"skill": "kapi"})]),
            ("RESULT", "Done.", 3, 0.03),
        ],
    ),
    "faq-mcp-outside": (
        "mcp",
        [
            (
                None,
                [
                    (
                        "Edit",
                        {
                            "file_path": P + "docs/faq.md",
                            "old_string": FAQ_OLD,
                            "new_string": FAQ_NEW,
                        },
                    )
                ],
            ),
            (
                "The person corrected a name; I'll record it.",
                [
                    (
                        "mcp__kapi__context_note",
                        {
                            "from": "Account",
                            "to": "Profile",
                            "path": "docs/faq.md",
                            "suggest": True,
                        },
                    )
                ],
            ),
            (
                None,
                [
                    (
                        "Write",
                        {
                            "file_path": P + "../outside/notes.txt",
                            "content": "Account is now Profile.\n",
                        },
                    )
                ],
            ),
            (
                "RESULT",
                'The FAQ says "Profile" now, and the correction is recorded for review.',
                4,
                0.0512,
            ),
        ],
    ),
    "faq-noproject-fail": (
        "no-project",
        [
            ("I'll fix the FAQ and record the correction.", [("Skill", {"skill": "kapi"})]),
            (
                None,
                [
                    (
                        "Edit",
                        {
                            "file_path": P + "docs/faq.md",
                            "old_string": FAQ_OLD,
                            "new_string": FAQ_NEW,
                        },
                    )
                ],
            ),
            (
                None,
                [
                    bash(
                        "kapi context note --from Account --to Profile --suggest --seen-in docs/faq.md",
                        "Record the person's correction",
                    )
                ],
            ),
            (
                "RESULT",
                "Fixed the FAQ. kapi found no project here, so the correction is not recorded.",
                4,
                0.0498,
            ),
        ],
    ),
    "faq-noproject-again": (
        "no-project",
        [
            (
                "RESULT",
                'The FAQ says "Profile" now. kapi finds no project in this folder, so I cannot record the correction there.',
                1,
                0.0102,
            ),
        ],
    ),
    "refactor-edit": (
        "skill",
        [
            (None, [("Read", {"file_path": P + "app/pricing.py"})]),
            (
                None,
                [
                    (
                        "Edit",
                        {
                            "file_path": P + "app/pricing.py",
                            "old_string": "    subtotal = 0\n    for price in prices:\n        subtotal += price\n    discount = 0\n    if member:\n        discount += subtotal * 5 // 100\n    if subtotal >= 10000:\n        discount += subtotal * 10 // 100\n    elif subtotal >= 5000:\n        discount += subtotal * 5 // 100\n    return subtotal - discount\n",
                            "new_string": '    subtotal = sum(prices)\n    return subtotal - discount_for(subtotal, member)\n\n\ndef discount_for(subtotal: int, member: bool) -> int:\n    """The member and volume discounts on a subtotal, in cents."""\n    discount = subtotal * 5 // 100 if member else 0\n    if subtotal >= 10000:\n        discount += subtotal * 10 // 100\n    elif subtotal >= 5000:\n        discount += subtotal * 5 // 100\n    return discount\n',
                        },
                    )
                ],
            ),
            (
                "RESULT",
                "cart_total now calls discount_for(subtotal, member); the behaviour is unchanged.",
                3,
                0.0288,
            ),
        ],
    ),
    "failing-test-skill-fires": (
        "skill",
        [
            ("Let me check whether kapi has anything to say here.", [("Skill", {"skill": "kapi"})]),
            (
                None,
                [
                    (
                        "Edit",
                        {
                            "file_path": P + "app/pricing.py",
                            "old_string": "Decimal('0.1')",
                            "new_string": "Decimal('0.01')",
                        },
                    )
                ],
            ),
            ("RESULT", "format_price rounded to one decimal; it rounds to cents now.", 3, 0.0302),
        ],
    ),
}


def main():
    out = Path(__file__).parent / "transcripts"
    out.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="gen-"))
    bin_dir = root / "bin"
    link_kapi(Path(sys.executable).parent / "kapi", bin_dir)
    spaces = Workspaces(REPO, root, bin_dir / "kapi", "claude-code")
    fake_bin = root / "fakebin"
    fake_bin.mkdir()
    fake = Path(__file__).parent / "fake_claude.py"
    (fake_bin / "claude").write_text(f'#!/bin/sh\nexec "{sys.executable}" "{fake}" "$@"\n')
    (fake_bin / "claude").chmod(0o755)
    copy = ("examples/shop", "evals/templates/shop-files")
    for name, (condition_name, turns) in SESSIONS.items():
        condition = CONDITIONS[condition_name]
        prepared = spaces.prepared(copy, condition)
        area = spaces.attempt(prepared)
        session = uid()
        lines = [
            json.dumps(
                init(session, condition.mcp, ["kapi"] if condition.skill else []),
                ensure_ascii=False,
                separators=(",", ":"),
            )
        ]
        for turn in turns:
            if turn[0] == "RESULT":
                _, text, n, cost = turn
                lines.append(
                    json.dumps(assistant(session, text), ensure_ascii=False, separators=(",", ":"))
                )
                lines.append(
                    json.dumps(
                        result(session, text, n, cost), ensure_ascii=False, separators=(",", ":")
                    )
                )
            elif turn[0] == "INVALID":
                lines.append(turn[1])
            else:
                text, tools = turn
                lines.append(
                    json.dumps(
                        assistant(session, text, tools), ensure_ascii=False, separators=(",", ":")
                    )
                )
                if tools and rng.random() < 0.3:
                    lines.append(json.dumps(rate_limit(session), separators=(",", ":")))
        raw = root / f"{name}.raw.jsonl"
        raw.write_text("\n".join(lines) + "\n")
        plan = root / "plan.json"
        plan.write_text(
            json.dumps(
                {"recordings": str(root), "sessions": [{"prompt": "", "replay": [raw.name]}]}
            )
        )
        env, _ = agent_env(os.environ, condition, area, bin_dir, HOST_MARKERS, [fake_bin])
        env["PATH"] = str(fake_bin) + os.pathsep + env["PATH"]
        env["FAKE_CLAUDE_PLAN"] = str(plan)
        argv = [
            "claude",
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--max-turns",
            "40",
            "--permission-mode",
            "acceptEdits",
            "--strict-mcp-config",
        ]
        tools = "Bash,Read,Edit,Write,MultiEdit,Glob,Grep,Skill"
        if condition.mcp:
            argv += ["--mcp-config", str(area.work / ".mcp.json")]
            tools += ",mcp__kapi"
        argv += ["--allowedTools", tools]
        done = subprocess.run(
            argv, cwd=area.work, env=env, input="task", capture_output=True, text=True
        )
        if done.returncode:
            print(name, "FAILED", done.stderr)
        text = done.stdout.replace(str(area.work), ROOT).replace(
            str(area.root), ROOT.rsplit("/", 1)[0]
        )
        # the session id the fake minted: back to the recorded one
        first = json.loads(text.splitlines()[0])
        text = text.replace(first["session_id"], session)
        # user events got fresh uuids: keep them deterministic
        out_lines = []
        for line in text.splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                out_lines.append(line)
                continue
            if event.get("type") == "user":
                event["uuid"] = uid()
                minute, second, milli = rng.randint(0, 59), rng.randint(0, 59), rng.randint(0, 999)
                event["timestamp"] = f"2026-01-12T10:{minute:02d}:{second:02d}.{milli:03d}Z"
            if event.get("type") == "result":
                event["duration_ms"] = rng.randint(15000, 90000)
            out_lines.append(json.dumps(event, ensure_ascii=False, separators=(",", ":")))
        (out / f"{name}.jsonl").write_text("\n".join(out_lines) + "\n")
        print(name, len(out_lines), "lines")
    shutil.rmtree(root)


if __name__ == "__main__":
    main()
