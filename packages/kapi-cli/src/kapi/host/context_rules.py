"""The rules files: kapi's section of ``AGENTS.md`` and ``CLAUDE.md``, written from the context.

An agent reads these files before anything else, so the rules in force are
written there: the root's section for the whole project, and a section in a
folder only where its rules differ (a voice of its own). Only the text
between ``<!-- kapi:rules`` and ``<!-- /kapi:rules -->`` is kapi's; the
person's text around it is never touched. Unchanged context gives identical
bytes; a section with no end marker is refused and its file left as it was.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from attrs import frozen

from kapi.core.context.errors import ContextError
from kapi.host.wire import encode

if TYPE_CHECKING:
    from kapi.host.context_terms import ContextRule
    from kapi.host.workspace import Workspace

__all__ = [
    "END",
    "RULES_FILES",
    "START",
    "RulesFileChange",
    "RulesFilesResult",
    "has_rules_files",
    "refresh_rules_files",
    "splice_section",
    "write_rules_files",
]

START = (
    "<!-- kapi:rules (written by kapi from this project's context; edit outside this section) -->"
)
END = "<!-- /kapi:rules -->"
_START_PREFIX = "<!-- kapi:rules"
_LEGACY = ("<!-- kapi:voice -->", "<!-- /kapi:voice -->")
RULES_FILES = ("AGENTS.md", "CLAUDE.md")

VOICE_CAP = 16
RULES_CAP = 20
KEEP_CAP = 10
FOLDERS_CAP = 15

CHECK_LINE = (
    "Before you finish, run `kapi check <file>` on each file you changed: "
    "it is the gate, and it says what to fix."
)
RECORD_LINE = (
    "When the files name a thing, spell a word one way or prefer one word, record it: "
    "`kapi context note --term <used> --instead-of <avoided> --seen-in <file>`; record a "
    "change the person made with `--from <old> --to <new> --seen-in <file>`. "
    "A person decides what becomes a rule."
)
NO_RULES = "No writing rules are recorded for this project yet. Write as the surrounding files do."


@frozen
class RulesFileChange:
    """One file: ``created``, ``updated``, ``unchanged``, ``removed`` or ``deleted``."""

    path: str
    outcome: str


@frozen
class RulesFilesResult:
    files: tuple[RulesFileChange, ...]

    @property
    def changed(self) -> tuple[RulesFileChange, ...]:
        return tuple(f for f in self.files if f.outcome != "unchanged")

    def encoded(self) -> dict[str, Any]:
        data: dict[str, Any] = encode(self)
        return data


# --- the section in a file ------------------------------------------------------------


def _find(lines: Sequence[str], display: str) -> tuple[int, int] | None:
    """The first and last line of kapi's section (or a legacy voice section), else None."""
    for index, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith(_START_PREFIX) or stripped == _LEGACY[0]:
            end = END if stripped.startswith(_START_PREFIX) else _LEGACY[1]
            for last in range(index + 1, len(lines)):
                if lines[last].strip() == end:
                    return index, last
            raise ContextError(
                f"{display}:{index + 1}: kapi's rules section starts here but has no end marker "
                f"`{END}`; add the marker after the section (or delete the section), then run "
                "`kapi context sync --files-only`"
            )
    return None


def splice_section(text: str, section: str | None, display: str = "AGENTS.md") -> str:
    """``text`` with kapi's section replaced by ``section`` (None removes it, with the blank
    line before it); a file without one gets it appended after a blank line."""
    lines = text.splitlines(keepends=True)
    found = _find(lines, display)
    body = [] if section is None else (section.rstrip("\n") + "\n").splitlines(keepends=True)
    if found is not None:
        first, last = found
        if section is None and first > 0 and not lines[first - 1].strip():
            first -= 1
        return "".join([*lines[:first], *body, *lines[last + 1 :]])
    if section is None:
        return text
    if not text.strip():
        return "".join(body)
    head = text if text.endswith("\n") else text + "\n"
    return head + "\n" + "".join(body)


def _same_file(path: Path, agents: Path) -> bool:
    try:
        return agents.exists() and path.exists() and os.path.samefile(path, agents)
    except OSError:
        return False


def _imports_agents(path: Path, agents: Path) -> bool:
    """A CLAUDE.md that imports AGENTS.md with a line ``@AGENTS.md`` needs no section of its own."""
    try:
        return path.is_file() and any(
            line.strip() == "@AGENTS.md" for line in path.read_text(encoding="utf-8").splitlines()
        )
    except OSError:
        return False


# --- what the sections say ------------------------------------------------------------


def _cap(lines: list[str], cap: int, tail: str) -> list[str]:
    return lines if len(lines) <= cap else [*lines[:cap], tail]


def _rules_lines(rules: Sequence[ContextRule], sample: str, total: int) -> list[str]:
    from kapi.host.context import rule_line

    ordered = sorted(rules, key=lambda r: r.advisory)  # rules that forbid a wording first
    lines = [rule_line(r) for r in ordered[:RULES_CAP]]
    shown = min(len(ordered), RULES_CAP)
    if total > shown:
        lines.append(
            f"- {total - shown} more rules hold here: `kapi context {sample}` lists them all."
        )
    return lines


def _root_section(answer: Any, folders: Sequence[tuple[str, str]]) -> str:
    lines = [START, "## Writing rules", ""]
    has_rules = bool(answer.voice_brief or answer.rules or answer.keep)
    if not has_rules:
        lines += [NO_RULES, ""]
    else:
        lines += [
            "These rules come from this project's context and hold for every file here, "
            "unless a folder's own AGENTS.md says otherwise.",
            "",
        ]
        if answer.voice_brief:
            lines += _cap(
                list(answer.voice_brief),
                VOICE_CAP,
                "(The voice continues: `kapi context <path>` gives it in full.)",
            )
            lines.append("")
        if answer.rules:
            lines += [
                "Say this, not that:",
                *_rules_lines(answer.rules, "AGENTS.md", answer.rules_total),
                "",
            ]
        if answer.keep:
            lines += ["Keep as it is:", *_keep_lines(answer.keep), ""]
    if folders:
        lines.append("Some folders have rules of their own; their AGENTS.md says which:")
        lines += [f"- {folder}/: {summary}" for folder, summary in folders[:FOLDERS_CAP]]
        lines.append("")
    lines += [CHECK_LINE, "", RECORD_LINE, END]
    return "\n".join(lines) + "\n"


def _keep_lines(keep: Sequence[Any]) -> list[str]:
    return [f"- {k.line()}" for k in keep[:KEEP_CAP]]


def _folder_section(folder: str, answer: Any, root: Any) -> str:
    lines = [START, f"## Writing rules for {folder}/", ""]
    if answer.voice_brief:
        lines += _cap(
            list(answer.voice_brief),
            VOICE_CAP,
            "(The voice continues: `kapi context <path>` gives it in full.)",
        )
        lines += ["This voice takes the place of the project's voice for these files.", ""]
    else:
        lines += ["No voice is bound here; the project's voice does not hold for these files.", ""]
    extra = [r for r in answer.rules if r not in root.rules]
    if extra:
        lines += ["Say this, not that:", *_rules_lines(extra, folder + "/", len(extra)), ""]
    keep = [k for k in answer.keep if k not in root.keep]
    if keep:
        lines += ["Keep as it is:", *_keep_lines(keep), ""]
    lines += [CHECK_LINE, END]
    return "\n".join(lines) + "\n"


def _plan(workspace: Workspace) -> dict[str, str | None]:
    """Every rules file's section (None: it should have none), keyed by project-relative folder."""
    from kapi.host.context import ContextReadRequest, read_context
    from kapi.host.context_points import collection_folders

    root = read_context(ContextReadRequest(path="AGENTS.md"), workspace)
    plan: dict[str, str | None] = {}
    summaries: list[tuple[str, str]] = []
    voice = (root.voice.name, root.voice.source) if root.voice else None
    for folder, sample in collection_folders(workspace):
        answer = read_context(ContextReadRequest(path=sample), workspace)
        here = (answer.voice.name, answer.voice.source) if answer.voice else None
        extra = [r for r in answer.rules if r not in root.rules]
        keep = [k for k in answer.keep if k not in root.keep]
        if here == voice and not extra and not keep:
            plan[folder] = None
            continue
        parts = []
        if here != voice:
            parts.append("a voice of its own" if here else "no voice")
        parts += [f'write "{r.say}", not "{r.not_[0]}"' for r in extra if r.say]
        parts += [f'keep "{k.keep[0]}" (do not rename it to "{k.instead}")' for k in keep]
        summary = ", ".join(parts[:3]) + (" and more" if len(parts) > 3 else "")
        summaries.append((folder, summary))
        plan[folder] = _folder_section(folder, answer, root)
    plan[""] = _root_section(root, summaries)
    for folder in _sectioned_folders(workspace):
        plan.setdefault(folder, None)  # a folder that no longer needs its section loses it
    return plan


_SKIPPED = frozenset({"node_modules", "vendor", "testdata"})


def _sectioned_folders(workspace: Workspace) -> list[str]:
    """Folders below the root whose rules file holds kapi's section (dot-folders, dependencies,
    test data and nested projects are not walked)."""
    project = workspace.project
    assert project is not None
    found: list[str] = []
    for base, folders, files in os.walk(project.root):
        here = Path(base)
        folders[:] = sorted(
            f
            for f in folders
            if not f.startswith(".") and f not in _SKIPPED and not (here / f / "kapi.yaml").exists()
        )
        if here == project.root:
            continue
        if any(name in files and _holds_section(here / name) for name in RULES_FILES):
            found.append(here.relative_to(project.root).as_posix())
    return found


def _holds_section(path: Path) -> bool:
    try:
        return any(
            line.strip().startswith(_START_PREFIX)
            for line in path.read_text(encoding="utf-8").splitlines()
        )
    except (OSError, UnicodeDecodeError):
        return False


# --- writing --------------------------------------------------------------------------


def has_rules_files(workspace: Workspace) -> bool:
    """True when the project's root ``AGENTS.md`` or ``CLAUDE.md`` holds kapi's section."""
    project = workspace.project
    if project is None:
        return False
    return any(_holds_section(project.root / name) for name in RULES_FILES)


def refresh_rules_files(workspace: Workspace) -> RulesFilesResult | None:
    """After a rule changed: rewrite the sections, only if the root already holds one."""
    if not has_rules_files(workspace):
        return None
    return write_rules_files(workspace)


def write_rules_files(workspace: Workspace, *, create: bool = True) -> RulesFilesResult:
    """Write every section the plan needs; every file is checked before any is written."""
    project = workspace.project
    if project is None:
        raise ContextError("no project here: rules files are written for a project (`kapi init`)")
    plan = _plan(workspace)
    writes: list[tuple[Path, str, bytes | None, bytes]] = []
    for folder in sorted(plan, key=lambda f: (f != "", f)):
        section = plan[folder]
        base = project.root / folder if folder else project.root
        if folder and not base.is_dir():
            continue
        agents = base / "AGENTS.md"
        for name in RULES_FILES:
            path = base / name
            display = path.relative_to(project.root).as_posix()
            wanted = section
            if name == "CLAUDE.md" and _same_file(path, agents):
                continue  # one file under two names: written once, as AGENTS.md
            if name == "CLAUDE.md" and _imports_agents(path, agents):
                wanted = None
            exists = path.is_file()
            if not exists and (wanted is None or not create):
                continue
            try:
                before = path.read_bytes() if exists else None
                text = before.decode("utf-8") if before is not None else ""
            except (OSError, UnicodeDecodeError) as err:
                raise ContextError(f"{display}: cannot be read as UTF-8 text: {err}") from None
            writes.append((path, display, before, splice_section(text, wanted, display).encode()))
    changes: list[RulesFileChange] = []
    for path, display, before, after in writes:
        if after == before:
            changes.append(RulesFileChange(display, "unchanged"))
        elif before is not None and not after.strip():
            path.unlink()
            changes.append(RulesFileChange(display, "deleted"))
        else:
            _write(path, after)
            outcome = "created" if before is None else "updated"
            if before is not None and _START_PREFIX.encode() not in after:
                outcome = "removed"
            changes.append(RulesFileChange(display, outcome))
    return RulesFilesResult(files=tuple(changes))


def _write(path: Path, data: bytes) -> None:
    temporary = path.with_name(f".{path.name}.kapi-tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def check_rules_files(root: Path) -> None:
    """Refuse (before anything is written) a rules file whose kapi section has no end."""
    for name in RULES_FILES:
        path = root / name
        try:
            text = path.read_text(encoding="utf-8") if path.is_file() else ""
        except (OSError, UnicodeDecodeError):
            continue
        _find(text.splitlines(keepends=True), name)
