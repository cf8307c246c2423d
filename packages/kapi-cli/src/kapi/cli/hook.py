"""``kapi hook post-edit|stop|pre-edit``: Claude Code hooks (hidden; the plugin's hooks.json runs them).

Each reads one hook payload on stdin, always exits 0, and says its verdict only
in the JSON it prints (:mod:`kapi.host.hooks`).
"""

from __future__ import annotations

import click


@click.group(hidden=True)
def hook() -> None:
    """Claude Code hooks: read one payload on stdin; the verdict is JSON on stdout, exit 0."""


def _run(name: str) -> None:
    from kapi.cli.plain import run_hook

    run_hook(name)


@hook.command("post-edit")
def post_edit() -> None:
    """PostToolUse on Edit|Write|MultiEdit: check the one file the edit wrote."""
    _run("post-edit")


@hook.command("stop")
def stop() -> None:
    """Stop: the project's ship gates, before the assistant may finish."""
    _run("stop")


@hook.command("pre-edit")
def pre_edit() -> None:
    """PreToolUse on Edit|Write|MultiEdit: refuse a hand-edit of a generated translation."""
    _run("pre-edit")
