"""``python -m kapi.skill bundle --plugin DIR --skill DIR``: build the plugin and the portable skill."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kapi.skill")
    commands = parser.add_subparsers(dest="command", required=True)
    bundle = commands.add_parser(
        "bundle", help="Build the Claude Code plugin and the portable skill folder."
    )
    bundle.add_argument("--plugin", metavar="DIR", help="The plugin directory to write.")
    bundle.add_argument("--skill", metavar="DIR", help="The folder to write kapi/SKILL.md into.")
    args = parser.parse_args(argv)
    if not args.plugin and not args.skill:
        parser.error("bundle needs --plugin DIR, --skill DIR, or both")
    from kapi.skill.bundle import bundle_plugin, bundle_skill

    written: list[Path] = []
    try:
        if args.plugin:
            written += bundle_plugin(Path(args.plugin))
        if args.skill:
            written += bundle_skill(Path(args.skill))
    except OSError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(f"wrote {len(written)} files", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
