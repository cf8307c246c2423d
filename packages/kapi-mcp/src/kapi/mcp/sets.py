"""The tool sets ``kapi mcp --tools`` serves: one table, each tool in the sets that list it."""

from __future__ import annotations

from collections.abc import Iterable

from kapi.core.errors import KapiError

__all__ = [
    "ALL_FLOWS_TOOLS",
    "ALL_TOOLS_EXTRA",
    "SET_NAMES",
    "TOOL_SETS",
    "UnknownToolSet",
    "parse_sets",
    "served_tools",
]

# The default set is what an agent writing in a repository needs; the others widen it.
TOOL_SETS: dict[str, tuple[str, ...]] = {
    "writing": (
        "context_read",
        "context_search",
        "context_note",
        "context_session_summary",
        "check_file",
        "read_blocks",
        "apply_edits",
        "describe_format",
    ),
    "content": (
        "check_text",
        "voice_check",
        "voice_rewrite",
        "term-check",
        "detect_format",
        "redact",
    ),
    "translation": ("translate", "up", "up_plan", "stats"),
    "review": ("review_queue", "review_block", "apply_edits"),
    # the recording tools of the generation before context_note, for clients written to it
    "all": ("context_observe", "context_correct", "context_withdraw"),
}
SET_NAMES = ("writing", "content", "translation", "review", "all")

# --all-tools: the listing tools and the first generation's tools, never in a default set.
ALL_TOOLS_EXTRA = (
    "list_formats",
    "list_tools",
    "pseudo_translate",
    "extract_content",
    "word_count",
    "brand_guide",
    "brand_check",
    "brand_rewrite",
    "term_lookup",
    "tm_search",
)
# --all-flows
ALL_FLOWS_TOOLS = ("run_flow", "list_flows")


class UnknownToolSet(KapiError):
    """A ``--tools`` value that names no set."""

    code = "usage"
    exit_code = 2


def parse_sets(values: Iterable[str]) -> frozenset[str]:
    """The sets a ``--tools`` value names: comma lists, any case; none means ``writing``."""
    chosen: set[str] = set()
    for value in values:
        for part in value.split(","):
            name = part.strip().lower()
            if not name:
                continue
            if name not in SET_NAMES:
                raise UnknownToolSet(
                    f"unknown tool set {name!r}: the sets are {', '.join(SET_NAMES)}"
                )
            chosen.add(name)
    if "all" in chosen:
        return frozenset(SET_NAMES)
    return frozenset(chosen or {"writing"})


def served_tools(
    sets: frozenset[str], *, all_tools: bool = False, all_flows: bool = False
) -> tuple[str, ...]:
    """Every tool the server lists for these sets and widenings, in a stable order."""
    names: list[str] = []
    for set_name in SET_NAMES:
        if set_name in sets:
            names.extend(n for n in TOOL_SETS[set_name] if n not in names)
    if all_tools:
        names.extend(n for n in ALL_TOOLS_EXTRA if n not in names)
    if all_flows:
        names.extend(n for n in ALL_FLOWS_TOOLS if n not in names)
    return tuple(names)
