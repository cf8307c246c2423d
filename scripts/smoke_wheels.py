"""The smoke test of an installed kapi: run by scripts/smoke_wheels.sh with the clean venv's Python.

It checks that kapi is installed from wheels (not editable, not the repository's sources),
then runs the main verbs on a copy of examples/shop as a user would: ``kapi --version``,
``kapi --help``,
``kapi formats``, ``kapi inspect``, ``kapi apply`` (a change set built from what inspect
printed), ``kapi check``, ``kapi help`` and ``kapi init`` (the skill's package data), ``kapi mcp --help``
(the verb kapi-mcp registers), and the ``kapi-mcp`` script through the MCP handshake by hand:
``initialize``, ``notifications/initialized`` and ``tools/list`` as JSON-RPC lines on stdio.

    python scripts/smoke_wheels.py REPOSITORY_ROOT VERSION
    python scripts/smoke_wheels.py --check-wheels REPOSITORY_ROOT VERSION DIST

``--check-wheels`` checks, before anything is installed, that DIST holds an sdist and a wheel
of each distribution and that each wheel holds every file of the distribution's ``src/``
that git tracks (the wheel was built from the sdist, so this checks the sdist too).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path

BIN = Path(sys.executable).parent
DISTRIBUTIONS = ("kapi-core", "kapi-formats", "kapi-skill", "kapi-cli", "kapi-mcp")


def fail(message: str) -> None:
    print(f"smoke test FAILED: {message}", file=sys.stderr)
    sys.exit(1)


def run(*args: str, cwd: Path, expect: tuple[int, ...] = (0,), stdin: str = "") -> str:
    command = [str(BIN / args[0]), *args[1:]]
    env = {k: v for k, v in os.environ.items() if not k.startswith("KAPI_")}
    env.update(KAPI_ACTOR="person", NO_COLOR="1")
    done = subprocess.run(
        command, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=120
    )
    if done.returncode not in expect:
        fail(f"`{' '.join(args)}` exited {done.returncode}\n{done.stdout[-1500:]}{done.stderr}")
    print(f"ok  {' '.join(args)}  (exit {done.returncode})")
    return done.stdout


def installed_from_wheels(repository: Path, version: str) -> None:
    for name in DISTRIBUTIONS:
        found = metadata.distribution(name)
        if found.version != version:
            fail(f"{name} {found.version} installed, not {version}")
        direct = found.read_text("direct_url.json") or "{}"
        if json.loads(direct).get("dir_info", {}).get("editable"):
            fail(f"{name} is an editable install")
    import kapi.host

    where = Path(kapi.host.__file__).resolve()
    if repository.resolve() in where.parents:
        fail(f"kapi.host is imported from the repository ({where}), not the installed wheel")
    print(f"ok  the five distributions {version}, from wheels, in {where.parents[2]}")


def mcp_handshake(cwd: Path, version: str) -> None:
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "smoke", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    process = subprocess.Popen(
        [str(BIN / "kapi-mcp")],
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    answers: dict[int, dict[str, object]] = {}
    try:
        for message in messages:
            process.stdin.write(json.dumps(message) + "\n")
            process.stdin.flush()
            if "id" not in message:
                continue
            while message["id"] not in answers:
                line = process.stdout.readline()
                if not line:
                    fail(
                        f"kapi-mcp closed stdout: {process.stderr.read() if process.stderr else ''}"
                    )
                answer = json.loads(line)
                if "id" in answer:
                    answers[answer["id"]] = answer
    finally:
        process.stdin.close()
        code = process.wait(timeout=30)
    info = answers[1].get("result", {}).get("serverInfo", {})  # type: ignore[union-attr]
    if info != {"name": "kapi", "version": version}:
        fail(f"initialize answered serverInfo {info}")
    tools = {tool["name"] for tool in answers[2].get("result", {}).get("tools", [])}  # type: ignore[union-attr]
    if not {"read_blocks", "apply_edits", "check_file", "context_read"} <= tools:
        fail(f"tools/list lists {sorted(tools)}")
    if code != 0:
        fail(f"kapi-mcp exited {code} when the client closed")
    print(f"ok  kapi-mcp: initialize (serverInfo kapi {version}), tools/list ({len(tools)} tools)")


def check_wheels(repository: Path, version: str, dist: Path) -> None:
    import zipfile

    for name in DISTRIBUTIONS:
        stem = f"{name.replace('-', '_')}-{version}"
        sdist, wheel = dist / f"{stem}.tar.gz", dist / f"{stem}-py3-none-any.whl"
        for artefact in (sdist, wheel):
            if not artefact.is_file():
                fail(f"{artefact} was not built")
        src = repository / "packages" / name / "src"
        tracked = subprocess.run(
            ["git", "ls-files", "-z", "."], cwd=src, capture_output=True, check=True
        ).stdout.decode()
        wanted = {path for path in tracked.split("\0") if path}
        with zipfile.ZipFile(wheel) as archive:
            held = {entry for entry in archive.namelist() if ".dist-info/" not in entry}
        if wanted - held:
            fail(f"{wheel.name} lacks {sorted(wanted - held)}")
        print(f"ok  {sdist.name} and {wheel.name}: the wheel holds all {len(wanted)} src files")


def main() -> None:
    if sys.argv[1] == "--check-wheels":
        check_wheels(Path(sys.argv[2]), sys.argv[3], Path(sys.argv[4]))
        return
    repository, version = Path(sys.argv[1]), sys.argv[2]
    installed_from_wheels(repository, version)
    with tempfile.TemporaryDirectory(prefix="kapi-smoke-") as temp:
        shop = Path(temp) / "shop"
        shutil.copytree(repository / "examples" / "shop", shop)
        out = run("kapi", "--version", cwd=shop)
        if out.strip() != f"kapi, version {version}":
            fail(f"kapi --version printed {out!r}")
        listing = run("kapi", "--help", cwd=shop)
        if not listing.startswith("Usage: kapi ") or not all(
            f"\n  {verb} " in listing for verb in ("apply", "check", "mcp")
        ):
            fail(f"kapi --help printed {listing[:400]!r}")
        from kapi.cli.help_render import help_text  # click's rendering, in the installed wheel

        if listing != help_text(78, {"mcp": "kapi.mcp.cli:mcp"}):
            fail("kapi --help differs from click's rendering of the installed commands")
        if "xliff" not in run("kapi", "formats", cwd=shop):
            fail("kapi formats does not list xliff")
        records = json.loads(run("kapi", "inspect", "locales/en.json", cwd=shop))
        first = records[0]
        change = {
            "ops": [
                {
                    "op": "set_content",
                    "at": first["ref"],
                    "if_match": first["rev"],
                    "text": "Smoke-tested text",
                }
            ]
        }
        before = (shop / "locales/en.json").read_bytes()
        run("kapi", "apply", "-", cwd=shop, stdin=json.dumps(change))
        after = (shop / "locales/en.json").read_bytes()
        if b"Smoke-tested text" not in after or before == after:
            fail("kapi apply did not write the change")
        run("kapi", "apply", "-", cwd=shop, stdin=json.dumps(change), expect=(3,))  # now stale
        report = json.loads(run("kapi", "check", "--json", cwd=shop, expect=(0, 3)))
        if not report.get("scope", {}).get("files"):
            fail(f"kapi check --json checked no file: {report}")
        if not run("kapi", "help", "edit", cwd=shop).startswith("# "):
            fail("kapi help edit printed no topic")
        fresh = Path(temp) / "fresh"
        (fresh / "locales").mkdir(parents=True)
        (fresh / "locales" / "en.json").write_text('{"hello": "Hello"}\n')
        run("kapi", "init", "--agents", "claude-code", cwd=fresh)
        if not (fresh / ".claude/skills/kapi/SKILL.md").read_text().startswith("---"):
            fail("kapi init wrote no SKILL.md from the skill's package data")
        run("kapi", "mcp", "--help", cwd=shop)
        mcp_handshake(shop, version)
    print("smoke test passed")


if __name__ == "__main__":
    main()
