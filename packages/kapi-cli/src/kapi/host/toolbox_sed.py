"""``ksed``: sed's ``s`` command over block text, compiled to a ``kapi.change/v1`` change set.

A substitution runs on the text a reader sees (``kcat``'s); kapi turns what
it changed into ``replace_text`` edits by position where only text changed,
and into ``set_content`` of the block (or of one plural form) where a match
took an inline code with it, so the guard decides whether that code may go.
The set lands through the change service exactly as ``kapi apply`` lands it.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from attrs import field, frozen

from kapi.core.change.ops import Branch, ChangeSet, Edit, PathStep, Ref, ReplaceText, SetContent
from kapi.core.errors import EXIT_OK, EXIT_USAGE
from kapi.core.model import Plural, Run, Runs, Select
from kapi.host.documents import FileFailure
from kapi.host.errors import HostError
from kapi.host.toolbox import ToolboxFile, edition_of, edition_runs, read_files
from kapi.host.workspace import Workspace

if TYPE_CHECKING:
    from kapi.core.change.cells import Cell
    from kapi.core.change.ports import Actor, CommitOutcome, Staged, Write
    from kapi.core.change.service import ChangeService
    from kapi.core.model import Document
    from kapi.formats.home import FileHome
    from kapi.host.actor import ResolvedActor
    from kapi.host.apply import ApplyOutcome

__all__ = [
    "SedOutcome",
    "SedPlan",
    "SedRequest",
    "Substitution",
    "change_set_json",
    "compile_sed",
    "parse_script",
    "run_sed",
]

MODES = ("stdout", "print-ops", "dry-run", "in-place")


# --- the script ----------------------------------------------------------------------------


@frozen
class Substitution:
    """One ``s`` command: the regexp, the replacement (text and group numbers), which matches."""

    pattern: re.Pattern[str]
    replacement: tuple[str | int, ...]
    every: bool = False
    occurrence: int = 1
    source: str = ""

    def chosen(self, matches: list[re.Match[str]]) -> list[re.Match[str]]:
        """The matches this command replaces: the Nth (first by default), or it and all after with g."""
        start = self.occurrence - 1
        return matches[start:] if self.every else matches[start : start + 1]


def _usage(message: str) -> HostError:
    return HostError(message, exit_code=EXIT_USAGE)


def parse_script(script: str) -> tuple[Substitution, ...]:
    """The ``s`` commands of a script (separated by ``;`` or new lines); a malformed one is usage."""
    commands: list[Substitution] = []
    i, length = 0, len(script)
    while i < length:
        char = script[i]
        if char in " \t\n;":
            i += 1
            continue
        if char == "#":
            while i < length and script[i] != "\n":
                i += 1
            continue
        if char != "s":
            raise _usage(
                f"-e expression, char {i + 1}: unknown command {char!r}: "
                "ksed knows only s/regexp/replacement/flags"
            )
        start = i
        if i + 1 >= length:
            raise _usage(f"-e expression, char {i + 1}: unterminated `s' command")
        delimiter = script[i + 1]
        if delimiter in "\\\n":
            raise _usage(
                f"-e expression, char {i + 2}: the delimiter may not be a backslash or a new line"
            )
        regexp, i = _part(script, i + 2, delimiter, keep_escape=not delimiter.isalnum())
        replacement_text, i = _part(script, i, delimiter, keep_escape=False, replacement=True)
        flags_start = i
        while i < length and script[i] not in ";\n" and not script[i].isspace():
            i += 1
        every, occurrence, ignore_case = _flags(script[flags_start:i], flags_start)
        source = script[start:i]
        if not regexp:
            raise _usage(f"{source}: the regexp is empty")
        try:
            pattern = re.compile(regexp, re.IGNORECASE if ignore_case else 0)
        except re.error as err:
            raise _usage(f"{source}: bad regexp {regexp!r}: {err}") from None
        replacement = _replacement(replacement_text, source)
        for piece in replacement:
            if isinstance(piece, int) and piece > pattern.groups:
                raise _usage(f"{source}: invalid reference \\{piece} on `s' command's RHS")
        commands.append(
            Substitution(
                pattern=pattern,
                replacement=replacement,
                every=every,
                occurrence=occurrence,
                source=source,
            )
        )
    if not commands:
        raise _usage("no command: give a script such as s/old/new/g")
    return tuple(commands)


_ESCAPED = "\x00"  # stands for a delimiter escaped in the replacement until it is parsed


def _part(
    script: str, i: int, delimiter: str, *, keep_escape: bool, replacement: bool = False
) -> tuple[str, int]:
    """The text up to the next unescaped delimiter, and the index after it."""
    out: list[str] = []
    while i < len(script):
        char = script[i]
        if char == "\\" and i + 1 < len(script):
            following = script[i + 1]
            if following == delimiter:
                if replacement:
                    out.append(_ESCAPED)
                else:
                    out.append("\\" + delimiter if keep_escape else delimiter)
            else:
                out.append(char + following)
            i += 2
            continue
        if char == delimiter:
            return "".join(out), i + 1
        out.append(char)
        i += 1
    raise _usage(f"{script!r}: unterminated `s' command")


def _flags(text: str, at: int) -> tuple[bool, int, bool]:
    every, ignore_case = False, False
    number = ""
    for offset, char in enumerate(text):
        if char == "g":
            every = True
        elif char in "iI":
            ignore_case = True
        elif char.isdigit():
            number += char
        else:
            raise _usage(
                f"-e expression, char {at + offset + 1}: unknown option to `s': {char!r} "
                "(ksed's are g, i and a number)"
            )
    occurrence = int(number) if number else 1
    if occurrence < 1:
        raise _usage("-e expression: the number option to `s' may not be zero")
    return every, occurrence, ignore_case


_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "&": "&", "\\": "\\"}


def _replacement(text: str, source: str) -> tuple[str | int, ...]:
    pieces: list[str | int] = []
    literal: list[str] = []

    def flush() -> None:
        if literal:
            pieces.append("".join(literal))
            literal.clear()

    i = 0
    while i < len(text):
        char = text[i]
        if char == _ESCAPED:
            literal.append(source[1])
        elif char == "&":
            flush()
            pieces.append(0)
        elif char == "\\" and i + 1 < len(text):
            following = text[i + 1]
            i += 1
            if following.isdigit():
                flush()
                pieces.append(int(following))
            else:
                literal.append(_SIMPLE_ESCAPES.get(following, following))
        else:
            literal.append(char)
        i += 1
    flush()
    return tuple(pieces)


# --- substitution over cells -----------------------------------------------------------------


class _Item(NamedTuple):
    """What a substitution works on: a character or a code, and the cell it came from."""

    piece: str  # the text it shows as ("" for bold, a plural, a tag)
    origin: int | None  # index of the original cell; None for new text
    run: Run | None  # the code, for a code


def _items(cells: Sequence[Cell]) -> list[_Item]:
    from kapi.core.edittext import entity_char
    from kapi.core.model import PcClose, PcOpen, Ph, Sub

    items: list[_Item] = []
    for index, cell in enumerate(cells):
        run = cell.run
        if run is None:
            items.append(_Item(cell.char, index, None))
        elif isinstance(run, Ph):
            char = entity_char(run)
            items.append(_Item(char if char is not None else run.equiv, index, run))
        elif isinstance(run, PcOpen | PcClose | Sub):
            items.append(_Item(run.equiv, index, run))
        else:
            items.append(_Item("", index, run))
    return items


def _shown(runs: Runs) -> str:
    """The text :func:`_items` shows for ``runs``, without making the items."""
    from kapi.core.edittext import entity_char
    from kapi.core.model import PcClose, PcOpen, Ph, Sub, Text

    out: list[str] = []
    for run in runs:
        if isinstance(run, Text):
            out.append(run.text)
        elif isinstance(run, Ph):
            char = entity_char(run)
            out.append(char if char is not None else run.equiv)
        elif isinstance(run, PcOpen | PcClose | Sub):
            out.append(run.equiv)
    return "".join(out)


class _Counts:
    def __init__(self) -> None:
        self.replaced = 0
        self.inside_codes = 0


def _substitute(items: list[_Item], command: Substitution, counts: _Counts) -> list[_Item]:
    offsets: list[int] = []
    position = 0
    for item in items:
        offsets.append(position)
        position += len(item.piece)
    display = "".join(item.piece for item in items)
    matches = command.chosen(list(command.pattern.finditer(display)))
    if not matches:
        return items
    out: list[_Item] = []
    i, count = 0, len(items)
    for match in matches:
        start, end = match.span()

        def where(k: int, start: int = start, end: int = end) -> str:
            at, width = offsets[k], len(items[k].piece)
            if width == 0:
                if at <= start:
                    return "before"
                return "after" if at >= end else "inside"
            if at + width <= start:
                return "before"
            if at >= end:
                return "after"
            return "inside" if start <= at and at + width <= end else "partial"

        while i < count and where(i) == "before":
            out.append(items[i])
            i += 1
        j = i
        while j < count and where(j) == "inside":
            j += 1
        if (j < count and where(j) == "partial") or (i < count and where(i) == "partial"):
            counts.inside_codes += 1  # a match inside an inline code's text: left as it is
            continue
        out.extend(_expand(command.replacement, match, items, offsets))
        counts.replaced += 1
        i = j
    out.extend(items[i:])
    return out


def _expand(
    replacement: tuple[str | int, ...], match: re.Match[str], items: list[_Item], offsets: list[int]
) -> list[_Item]:
    out: list[_Item] = []
    for piece in replacement:
        if isinstance(piece, str):
            out.extend(_Item(char, None, None) for char in piece)
            continue
        start, end = match.span(piece)
        if start < 0:
            continue  # a group that took part in no match stands for nothing
        for k, item in enumerate(items):
            at, width = offsets[k], len(item.piece)
            if width == 0:
                if start < at < end:
                    out.append(item)
            elif start <= at and at + width <= end:
                out.append(item)
            elif at < end and at + width > start:  # part of a code's text: copied as text
                shown = item.piece[max(start - at, 0) : min(end - at, width)]
                out.extend(_Item(char, None, None) for char in shown)
    return out


# --- compiling the result --------------------------------------------------------------------


def _edits(cells: Sequence[Cell], items: list[_Item]) -> list[tuple[int, int, str]] | None:
    """The text edits (start, end, text) turning ``cells`` into ``items``; None if codes moved."""
    anchors: list[tuple[int, int]] = [(-1, -1)]
    last = -1
    for index, item in enumerate(items):
        if item.origin is not None and item.origin > last:
            anchors.append((index, item.origin))
            last = item.origin
    anchors.append((len(items), len(cells)))
    chars = [k for k, cell in enumerate(cells) if cell.run is None]
    position = [0] * (len(cells) + 1)  # characters before each cell
    for k, cell in enumerate(cells):
        position[k + 1] = position[k] + (1 if cell.run is None else 0)
    edits: list[tuple[int, int, str]] = []
    for (item_a, cell_a), (item_b, cell_b) in itertools.pairwise(anchors):
        removed = range(cell_a + 1, cell_b)
        inserted = items[item_a + 1 : item_b]
        if not removed and not inserted:
            continue
        if any(cells[k].run is not None for k in removed):
            return None
        if any(item.run is not None for item in inserted):
            return None
        start, end = position[cell_a + 1], position[cell_b]
        if not removed:
            lands_at = chars[start - 1] + 1 if start else 0
            if lands_at != cell_a + 1:
                return None  # between codes: an insertion by position would land elsewhere
        edits.append((start, end, "".join(item.piece for item in inserted)))
    return edits


def _taken(cells: Sequence[Cell], items: list[_Item]) -> str:
    """What a match took with it, in words: the codes of ``cells`` that ``items`` no longer hold."""
    from collections import Counter

    from kapi.core.model import PcClose, PcOpen, Ph

    kept = {item.origin for item in items if item.run is not None}
    gone = [cell.run for k, cell in enumerate(cells) if cell.run is not None and k not in kept]
    placeholders = [run.data for run in gone if isinstance(run, Ph) and run.data]
    halves = {run.id for run in gone if isinstance(run, PcOpen | PcClose)}
    whole = {run.id for run in gone if isinstance(run, PcOpen)} & {
        run.id for run in gone if isinstance(run, PcClose)
    }
    said: list[str] = []
    if placeholders:
        said.append(
            "the match takes " + ", ".join(f"`{p}`" for p in placeholders) + " with it; "
            "to keep it, match it in a group and put the group back (\\1)"
        )
    if halves - whole:
        said.append(
            "the match crosses the edge of marked text (bold, a link); "
            "match all of the marked text, or stop at its edge"
        )
    copies = Counter(item.origin for item in items if isinstance(item.run, PcOpen | PcClose))
    if any(count > 1 for count in copies.values()):
        said.append("the replacement repeats the edge of marked text (bold, a link)")
    return "; ".join(said)


def _edit_text(items: list[_Item]) -> str:
    from kapi.core.edittext import render_edit_text

    out: list[str] = []
    for item in items:
        if item.run is None:
            out.append(item.piece)
        elif isinstance(item.run, Plural | Select):
            continue
        else:
            out.append(render_edit_text((item.run,)))
    return "".join(out)


def _containers(
    runs: Runs, prefix: tuple[PathStep, ...] = ()
) -> list[tuple[tuple[PathStep, ...], Runs]]:
    """The texts of an edition: its own runs, then each plural form and select case by its path."""
    found: list[tuple[tuple[PathStep, ...], Runs]] = [(prefix, runs)]
    for index, run in enumerate(runs):
        if isinstance(run, Plural):
            for name, branch in run.forms.items():
                found.extend(_containers(branch, (*prefix, index, Branch(plural=name))))
        elif isinstance(run, Select):
            for name, branch in run.cases.items():
                found.extend(_containers(branch, (*prefix, index, Branch(select=name))))
    return found


# --- the request -----------------------------------------------------------------------------


@frozen
class SedRequest:
    """``ksed``: the scripts, the files, what to do with the change set, the edition edited."""

    scripts: tuple[str, ...]
    paths: tuple[str, ...] = ()
    mode: str = "stdout"
    backup_suffix: str = ""
    target: str | None = None
    format_name: str | None = None


@frozen
class SedPlan:
    """The change set a script compiles to over some files, and what it left alone and why."""

    change_set: ChangeSet
    files: tuple[ToolboxFile, ...]
    replaced: int = 0
    not_editable: int = 0
    inside_codes: int = 0
    hints: Mapping[int, str] = field(factory=dict)  # by op index: what a set_content takes with it


@frozen
class SedOutcome:
    """What ``ksed`` did: the plan, the change service's outcome, the documents for stdout."""

    plan: SedPlan
    applied: ApplyOutcome | None = None
    outputs: tuple[tuple[str, bytes], ...] = ()
    backups: tuple[str, ...] = ()
    notices: tuple[str, ...] = ()

    @property
    def exit_code(self) -> int:
        return self.applied.exit_code if self.applied is not None else EXIT_OK


def compile_sed(
    request: SedRequest, workspace: Workspace, *, stdin_is_terminal: bool = True
) -> SedPlan:
    """Read the files and compile the script over them; any file that fails refuses all (usage)."""
    from kapi.core.change.cells import cells_of
    from kapi.core.change.plan import edition_rev, own_edition_key
    from kapi.core.revision import revision

    if request.mode not in MODES:
        raise _usage(f"unknown mode {request.mode!r}")
    commands = tuple(c for script in request.scripts for c in parse_script(script))
    target = edition_of(request.target)
    files: list[ToolboxFile] = []
    failures: list[FileFailure] = []
    if not request.paths and stdin_is_terminal:
        raise _usage("no input files: name the files to edit (a glob reaches into folders)")
    for item in read_files(
        request.paths or ("-",),
        workspace,
        folders="; name its files, or a glob such as 'docs/**/*.md'",
        format_name=request.format_name,
        target=target,
        stdin_is_terminal=stdin_is_terminal,
    ):
        if isinstance(item, FileFailure):
            failures.append(item)
        else:
            files.append(item)
    if failures:
        raise _usage("; ".join(f.message for f in failures) + "; nothing was changed")
    if any(f.doc == "-" for f in files) and request.mode != "stdout":
        raise _usage("stdin can only be edited to stdout (no -i, --dry-run or --print-ops)")
    ops: list[ReplaceText | SetContent] = []
    hints: dict[int, str] = {}
    counts = _Counts()
    not_editable = 0
    seen: set[tuple[str, str | None]] = set()
    for file in files:
        if (file.doc, file.edition) in seen:
            continue  # a translation's file and its source named together: edit once
        seen.add((file.doc, file.edition))
        for block in file.staged.document.blocks:
            runs = edition_runs(block, file.edition)
            if runs is None:
                continue
            edits: list[Edit] = []
            contents: list[tuple[SetContent, str]] = []
            rev = (
                edition_rev(block, file.edition)
                if file.edition
                else revision(own_edition_key(block), block.source)
            )
            at = Ref(doc=file.doc, block=block.ref_key, edition=file.edition)
            before = counts.replaced
            for path, container in _containers(runs):
                if not any(c.pattern.search(_shown(container)) for c in commands):
                    continue  # no command matches: none can change what the others leave
                cells = cells_of(container)
                items = _items(cells)
                for command in commands:
                    items = _substitute(items, command, counts)
                if [item.origin for item in items] == list(range(len(cells))):
                    continue  # unchanged (every cell kept, in place, nothing new)
                found = _edits(cells, items)
                if found is None:
                    content = SetContent(
                        at=at, if_match=rev, text=_edit_text(items), path=path or None
                    )
                    contents.append((content, _taken(cells, items)))
                    continue
                edits.extend(
                    Edit(text=text, start=start, end=end, path=path or None)
                    for start, end, text in found
                )
            if counts.replaced > before and not block.translatable:
                not_editable += 1
                continue
            if edits:
                ops.append(ReplaceText(at=at, if_match=rev, edits=tuple(edits)))
            for content, hint in contents:
                if hint:
                    hints[len(ops)] = hint
                ops.append(content)
    scripts = "; ".join(c.source for c in commands)
    change_set = ChangeSet(ops=tuple(ops), schema="kapi.change/v1", note=f"ksed {scripts}")
    return SedPlan(
        change_set=change_set,
        files=tuple(files),
        replaced=counts.replaced,
        not_editable=not_editable,
        inside_codes=counts.inside_codes,
        hints=hints,
    )


def change_set_json(change_set: ChangeSet) -> str:
    """The change set as ``kapi apply`` reads it (and ``--print-ops`` prints it)."""
    from kapi.core.change import wire

    return wire.dumps(wire.encode_change_set(change_set), indent=2)


def run_sed(
    request: SedRequest,
    workspace: Workspace,
    *,
    actor: ResolvedActor,
    stdin_is_terminal: bool = True,
    binary_to_terminal: bool = True,
) -> SedOutcome:
    """Compile the script, then print, preview, land in place, or land into memory for stdout.

    ``binary_to_terminal`` False refuses, before anything is applied, to send a
    binary document (one with a NUL byte: DOCX, XLSX…) to stdout.
    """
    from kapi.host.apply import apply_change_set

    plan = compile_sed(request, workspace, stdin_is_terminal=stdin_is_terminal)
    notices = _notices(plan)
    if request.mode == "stdout" and not binary_to_terminal:
        for file in plan.files:
            head = (
                _stdin_bytes(file.staged)
                if file.path == "-"
                else _first_bytes(workspace, file.path)
            )
            if b"\x00" in head:
                raise _usage(
                    f"{file.path}: a binary document ({file.format}) would go to the terminal; "
                    "send it to a file (> out), edit in place with -i, or pass --force"
                )
    if request.mode == "print-ops":
        return SedOutcome(plan=plan, notices=notices)
    data = change_set_json(plan.change_set)
    if request.mode == "dry-run":
        applied = apply_change_set(data, actor=actor, workspace=workspace, dry_run=True)
        return SedOutcome(plan=plan, applied=applied, notices=notices)
    if request.mode == "in-place":
        originals = _backups_planned(plan, workspace, request.backup_suffix)
        applied = apply_change_set(data, actor=actor, workspace=workspace)
        backups: list[str] = []
        if applied.exit_code == EXIT_OK and originals:
            written = {doc.doc for doc in applied.result.docs if doc.written}
            written |= {doc.file for doc in applied.result.docs if doc.written and doc.file}
            for key, (backup, original) in originals.items():
                if key in written:
                    _write_backup(backup, original)
                    backups.append(os.path.relpath(backup, workspace.root))
        return SedOutcome(plan=plan, applied=applied, backups=tuple(backups), notices=notices)
    held = _HeldWorkspace(workspace, {f.doc: f.staged for f in plan.files if f.doc == "-"})
    applied = apply_change_set(data, actor=actor, workspace=held)
    outputs: list[tuple[str, bytes]] = []
    if applied.exit_code == EXIT_OK:
        for file in plan.files:
            outputs.append((file.path, held.output_of(file)))
    return SedOutcome(plan=plan, applied=applied, outputs=tuple(outputs), notices=notices)


def _notices(plan: SedPlan) -> tuple[str, ...]:
    notes: list[str] = []
    if plan.not_editable:
        notes.append(
            f"{plan.not_editable} matching block(s) are not editable (code, front matter, "
            "markup) and were left as they are"
        )
    if plan.inside_codes:
        notes.append(
            f"{plan.inside_codes} match(es) fall inside an inline code's text (a code span, "
            "a placeholder) and were left as they are"
        )
    return tuple(notes)


# --- backups -------------------------------------------------------------------------------


def _backups_planned(
    plan: SedPlan, workspace: Workspace, suffix: str
) -> dict[str, tuple[Path, bytes]]:
    """For ``-i SUFFIX``: each file's backup path (inside the root) and the bytes it will hold.

    Checked before anything lands, so a backup that could not be made refuses
    the edit rather than follow it.
    """
    if not suffix:
        return {}
    from kapi.core.change.ports import digest
    from kapi.formats.containment import Outside, resolve_inside

    if "/" in suffix or "\x00" in suffix:
        raise _usage(f"-i{suffix}: a backup suffix may not hold a slash")
    home = workspace.home()
    scope = "the project" if workspace.project is not None else "the current folder"
    planned: dict[str, tuple[Path, bytes]] = {}
    keys = {op.at.doc for op in plan.change_set.ops if isinstance(op, ReplaceText | SetContent)}
    for file in plan.files:
        if file.doc not in keys:
            continue
        key = file.path
        path = home.path_for(key)
        try:
            backup = resolve_inside(
                workspace.root.resolve(),
                f"{key}{suffix}",
                relative_to=workspace.root.resolve(),
                scope=scope,
            )
        except Outside as err:
            raise _usage(f"{err}; nothing was changed") from None
        if backup.is_dir():
            raise _usage(f"{key}{suffix}: is a folder; nothing was changed")
        original = path.read_bytes()
        joined = file.staged.joined_file(key)
        head = file.staged.head if key == file.doc else (joined.head if joined else None)
        if head is not None and digest(original) != head:
            raise HostError(f"{key} changed while ksed read it; run it again", exit_code=3)
        planned[key] = (backup, original)
    return planned


def _write_backup(path: Path, data: bytes) -> None:
    import secrets

    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.kapi-tmp")
    try:
        with open(temporary, "xb") as out:
            out.write(data)
        os.replace(temporary, path)
    except OSError as err:
        if temporary.exists():
            temporary.unlink()
        raise HostError(
            f"{path.name}: the edit landed, but the backup could not be written: {err.strerror}"
        ) from None


# --- landing into memory, for stdout ---------------------------------------------------------


class _HeldHome:
    """The workspace's home, except that a commit is held in memory: nothing is written."""

    def __init__(self, inner: FileHome, stdin: dict[str, Staged]) -> None:
        self.inner = inner
        self.kind = inner.kind
        self.stdin = stdin
        self.held: dict[str, bytes] = {}

    def stage(self, doc: str) -> Staged:
        if doc in self.stdin:
            return self.stdin[doc]
        return self.inner.stage(doc)

    def render(self, staged: Staged, document: Document) -> Sequence[Write]:
        from kapi.core.change.ports import Write

        if staged.doc in self.stdin:
            data = self.inner.write_checked(staged, document, staged.doc)
            return (Write(staged=staged, data=data),)
        return self.inner.render(staged, document)

    def diff(self, write: Write) -> str:
        return ""

    def commit(self, writes: Sequence[Write]) -> CommitOutcome:
        from kapi.core.change.ports import CommitOutcome, digest

        for write in writes:
            self.held[write.key] = write.data
        return CommitOutcome(written={write.key: digest(write.data) for write in writes})


class _HeldWorkspace(Workspace):
    """A workspace whose change service lands into memory and records nothing."""

    def __init__(self, workspace: Workspace, stdin: dict[str, Staged]) -> None:
        super().__init__(
            workspace.root,
            workspace.project,
            source_language=workspace.source_language,
            cwd=workspace.cwd,
        )
        self.workspace = workspace
        self.home_held = _HeldHome(workspace.home(), stdin)
        self.originals = {doc: _stdin_bytes(staged) for doc, staged in stdin.items()}

    def change_service(self, actor: Actor) -> ChangeService:
        from kapi.core.change.service import ChangeService

        return ChangeService(
            self.home_held,
            commit_check=self.workspace.commit_check(),
            governance_files=self.workspace.project,
        )

    def output_of(self, file: ToolboxFile) -> bytes:
        """The bytes of the file named: as edited, else as they are."""
        held = self.home_held.held.get(file.path)
        if held is not None:
            return held
        if file.path == "-":
            return self.originals["-"]
        return self.workspace.home().path_for(file.path).read_bytes()


def _first_bytes(workspace: Workspace, key: str) -> bytes:
    with open(workspace.home().path_for(key), "rb") as handle:
        return handle.read(8192)


def _stdin_bytes(staged: Staged) -> bytes:
    from kapi.formats import registry

    return registry.load_codec(staged.capabilities.name).write(staged.document)
