"""Renders ``kapi --help`` as click prints it, and writes :mod:`kapi.cli.help_texts`.

``python -m kapi.cli.help_render`` writes the module afresh: one text for each width of
:data:`WIDTHS` and each set of plug-in commands of :data:`PLUGIN_SETS` (none, or those
kapi's own distributions register). A test fails when a kept text and click differ.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path

from kapi.host.plugins import COMMAND_GROUP, EntryPoint

__all__ = ["PLUGIN_SETS", "WIDTHS", "help_text", "module_source", "write_module"]

WIDTHS = (78, 98)  # a pipe or an 80-column terminal; a terminal of 100 columns or more
PLUGIN_SETS: tuple[Mapping[str, str], ...] = ({}, {"mcp": "kapi.mcp.cli:mcp"})
MODULE = Path(__file__).with_name("help_texts.py")


def help_text(width: int, plugins: Mapping[str, str]) -> str:
    """What ``kapi --help`` prints at ``width`` with ``plugins`` (name: entry point) installed."""
    import click

    from kapi.cli.main import HELP_OPTIONS, MAX_CONTENT_WIDTH, cli

    ctx = click.Context(
        cli,
        info_name="kapi",
        terminal_width=width,
        max_content_width=MAX_CONTENT_WIDTH,
        help_option_names=list(HELP_OPTIONS),
    )
    ctx.meta["kapi.plugins"] = {
        name: EntryPoint(name, value, COMMAND_GROUP) for name, value in plugins.items()
    }
    with ctx:
        return ctx.get_help() + "\n"


def _literal(key: tuple[int, tuple[tuple[str, str], ...]]) -> str:
    """A key as Python source, strings double-quoted (as the formatter writes them)."""
    width, plugins = key
    pairs = "".join(f"({json.dumps(n)}, {json.dumps(v)}), " for n, v in plugins).rstrip(" ")
    return f"({width}, ({pairs}))"


def module_source() -> str:
    """The text of :mod:`kapi.cli.help_texts`."""
    lines = [
        '"""``kapi --help`` as click prints it, by width and plug-in commands.',
        "",
        "Written by ``python -m kapi.cli.help_render``; read by :mod:`kapi.cli.launch`.",
        '"""',
        "",
        "TEXTS: dict[tuple[int, tuple[tuple[str, str], ...]], str] = {",
    ]
    for plugins in PLUGIN_SETS:
        for width in WIDTHS:
            key = (width, tuple(sorted(plugins.items())))
            lines.append(f"    {_literal(key)}: (")
            for line in help_text(width, plugins).splitlines(keepends=True):
                lines.append(f"        {json.dumps(line, ensure_ascii=False)}")
            lines.append("    ),")
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_module(path: Path = MODULE) -> Path:
    path.write_text(module_source(), encoding="utf-8")
    return path


if __name__ == "__main__":
    print(f"wrote {write_module()}")
    sys.exit(0)
