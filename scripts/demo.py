"""The README's main job: kapi on the bundled example project, start to finish.

Works on a copy of examples/shop in a temporary folder, so the repository
stays as it is. Each step prints the command it runs and what kapi answered.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KAPI = [sys.executable, "-m", "kapi.cli"]


def step(title: str) -> None:
    print(f"\n=== {title}")


def run(*args: str, cwd: Path, stdin: str | None = None, expect: int = 0, show: bool = True) -> str:
    print("$ kapi " + " ".join(args) + (" < change.json" if stdin is not None else ""))
    env = {**os.environ, "KAPI_ACTOR": os.environ.get("KAPI_ACTOR", "person")}
    done = subprocess.run(
        [*KAPI, *args], cwd=cwd, input=stdin, capture_output=True, text=True, env=env
    )
    if show and done.stdout.strip():
        print(done.stdout.rstrip())
    if done.stderr.strip():
        print(done.stderr.rstrip())
    print(f"(exit {done.returncode})")
    if done.returncode != expect:
        sys.exit(f"demo: expected exit {expect}, got {done.returncode}")
    return done.stdout


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="kapi-demo-")) / "shop"
    shutil.copytree(ROOT / "examples" / "shop", work, ignore=shutil.ignore_patterns(".kapi"))
    print(f"Working on a copy of examples/shop in {work}")

    step("Which formats kapi reads and writes")
    run("formats", cwd=work)

    step("Read the English catalogue as an agent would")
    records = json.loads(run("inspect", "locales/en.json", cwd=work, show=False))
    for record in records:
        print(f"  {record['ref']['block']:<22} {record['rev']}  {record['text']}")
    help_block = next(r for r in records if r["ref"]["block"] == "checkout.help")
    pay_block = next(r for r in records if r["ref"]["block"] == "checkout.pay")

    step("Preview a change set: two edits, each guarded by the rev that was read")
    change = {
        "note": "friendlier checkout copy",
        "ops": [
            {
                "op": "replace_text",
                "at": help_block["ref"],
                "if_match": help_block["rev"],
                "edits": [{"find": "Simply contact", "text": "Contact"}],
            },
            {
                "op": "set_content",
                "at": pay_block["ref"],
                "if_match": pay_block["rev"],
                "text": pay_block["text"].replace("now", "securely"),
            },
        ],
    }
    change_text = json.dumps(change, indent=2)
    print(change_text)
    run("apply", "--dry-run", "-", cwd=work, stdin=change_text)

    step("Apply it: all of it lands, or none of it")
    run("apply", "-", cwd=work, stdin=change_text)
    print((work / "locales" / "en.json").read_text())

    step("Send the same set again: its revs are stale, so nothing is written")
    run("apply", "-", cwd=work, stdin=change_text, expect=3)

    step("A placeholder may not be dropped: the guard refuses")
    records = json.loads(run("inspect", "locales/en.json", cwd=work, show=False))
    by_key = {r["ref"]["block"]: r for r in records}
    pay_block = by_key["checkout.pay"]
    broken = {
        "ops": [
            {
                "op": "set_content",
                "at": pay_block["ref"],
                "if_match": pay_block["rev"],
                "text": "Pay now",
            }
        ]
    }
    run("apply", "-", cwd=work, stdin=json.dumps(broken), expect=3)

    step("Translations live in their own files: the fr edition of en.json is locales/fr.json")
    title = by_key["checkout.title"]
    print(
        f"  fr edition of checkout.title: {title['editions']['fr']['text']!r} ({title['editions']['fr']['rev']})"
    )
    french = {
        "ops": [
            {
                "op": "set_content",
                "at": {**title["ref"], "edition": "fr"},
                "if_match": title["editions"]["fr"]["rev"],
                "text": "Valider la commande",
            }
        ]
    }
    run("apply", "-", cwd=work, stdin=json.dumps(french))
    print((work / "locales" / "fr.json").read_text())

    step("An edit that breaks the voice is refused at commit (gate_failed)")
    home = by_key["nav.home"]
    pushy = {
        "ops": [
            {"op": "set_content", "at": home["ref"], "if_match": home["rev"], "text": "Simply home"}
        ]
    }
    run("apply", "-", cwd=work, stdin=json.dumps(pushy), expect=3)

    step("A person brings in the project's terms")
    run("terms", "import", "terms.json", cwd=work)

    step("Check everything the project declares against its voices and terms")
    run("check", cwd=work, expect=3)

    step("Count the content")
    run("stats", "locales", "docs", cwd=work)
    print("\nDone. The example project in the repository is unchanged.")


if __name__ == "__main__":
    main()
