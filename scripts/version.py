"""kapi's one version: where it is written, a check that every place agrees, and a bump.

The source of truth is ``VERSION`` in ``packages/kapi-cli/src/kapi/host/version.py`` (a
constant, so no verb reads package metadata to print it). The five distributions carry the
same version and pin each other to it exactly (``kapi-cli`` requires ``kapi-core==X``...);
the skill, the Claude Code plugin, its marketplace and the pre-commit example say it too.

    python scripts/version.py            # print the version; exit 1 naming each place that differs
    python scripts/version.py 0.2.0      # write 0.2.0 into every place

A bump also needs a section for it at the top of ``CHANGELOG.md``; the check says so.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = "packages/kapi-cli/src/kapi/host/version.py"
DISTRIBUTIONS = ("kapi-core", "kapi-formats", "kapi-cli", "kapi-mcp", "kapi-skill")
_NUMBER = r"[0-9]+(?:\.[0-9]+)*(?:[a-z0-9.+-]*)"


@dataclass(frozen=True)
class Place:
    """A file and a pattern whose group ``v`` is the version (every match must agree)."""

    path: str
    pattern: str

    def compiled(self) -> re.Pattern[str]:
        return re.compile(self.pattern.replace("{V}", f"(?P<v>{_NUMBER})"), re.MULTILINE)


PLACES: tuple[Place, ...] = (
    Place(SOURCE, r'^VERSION = "{V}"'),
    Place("packages/kapi-skill/src/kapi/skill/__init__.py", r'^VERSION = "{V}"'),
    *(Place(f"packages/{name}/pyproject.toml", r'^version = "{V}"') for name in DISTRIBUTIONS),
    *(
        Place(f"packages/{name}/pyproject.toml", r'"kapi-[a-z]+=={V}"')
        for name in ("kapi-formats", "kapi-cli", "kapi-mcp")
    ),
    Place("plugins/kapi/.claude-plugin/plugin.json", r'^  "version": "{V}"'),
    Place(".claude-plugin/marketplace.json", r'^    "version": "{V}"'),
    Place(".pre-commit-hooks.yaml", r"rev: v{V}"),
    Place("docs/agents.md", r"rev: v{V}"),
)


def current(root: Path = ROOT) -> str:
    """The version: the constant in the source of truth."""
    match = PLACES[0].compiled().search((root / SOURCE).read_text(encoding="utf-8"))
    if match is None:
        raise SystemExit(f"{SOURCE}: no VERSION constant")
    return match["v"]


def _changelog_heading(root: Path) -> str | None:
    path = root / "CHANGELOG.md"
    if not path.exists():
        return None
    match = re.search(r"^## \[?(" + _NUMBER + r")\]?", path.read_text(encoding="utf-8"), re.M)
    return match[1] if match else None


def differences(root: Path = ROOT) -> list[str]:
    """Each place that does not say the version (empty when all agree)."""
    version = current(root)
    problems: list[str] = []
    for place in PLACES:
        text = (root / place.path).read_text(encoding="utf-8")
        found = [match["v"] for match in place.compiled().finditer(text)]
        if not found:
            problems.append(f"{place.path}: no version where {place.pattern!r} expects one")
        problems.extend(
            f"{place.path}: says {other}, not {version}" for other in found if other != version
        )
    heading = _changelog_heading(root)
    if heading != version:
        problems.append(
            f"CHANGELOG.md: its newest section is {heading or 'missing'}, not {version}"
        )
    return problems


def set_version(version: str, root: Path = ROOT) -> list[str]:
    """Write ``version`` into every place; the files changed."""
    if not re.fullmatch(_NUMBER, version):
        raise SystemExit(f"not a version: {version!r}")
    changed: list[str] = []
    for place in PLACES:
        path = root / place.path
        text = path.read_text(encoding="utf-8")

        def swap(match: re.Match[str]) -> str:
            whole, start = match[0], match.start("v") - match.start()
            return whole[:start] + version + whole[start + len(match["v"]) :]

        new = place.compiled().sub(swap, text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed.append(place.path)
    return sorted(set(changed))


def main(argv: list[str]) -> int:
    if argv:
        for path in set_version(argv[0]):
            print(f"wrote {path}")
        if _changelog_heading(ROOT) != argv[0]:
            print(f"now add a section for {argv[0]} at the top of CHANGELOG.md")
        return 0
    print(current())
    problems = differences()
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
