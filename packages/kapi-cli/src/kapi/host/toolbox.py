"""The toolbox's reading: files named as cat and grep take them, and the text of each block.

``kcat``, ``kgrep``, ``ksed`` and ``kdiff`` read files through the
workspace's home, as every verb does, and see a block as a reader does: its
text with each inline code shown by the text it stands for (a placeholder as
written, a code span's content, nothing for bold), a plural by its ``other``
form. In a project, a translation's own file shows that language's edition.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from attrs import frozen

from kapi.core.change.ports import Staged
from kapi.core.change.result import ResultRef
from kapi.core.errors import EXIT_OK, EXIT_USAGE
from kapi.core.model import Block, Plural, Runs, Select, Text
from kapi.host.documents import FileFailure
from kapi.host.errors import HostError

if TYPE_CHECKING:
    from kapi.formats.home import FileHome
    from kapi.host.workspace import Workspace

__all__ = [
    "BlockMatch",
    "BlockText",
    "FileMatches",
    "GrepRequest",
    "GrepResult",
    "ListRequest",
    "ListedFile",
    "Match",
    "ToolboxFile",
    "block_texts",
    "compile_pattern",
    "display_text",
    "edition_of",
    "edition_runs",
    "grep",
    "list_blocks",
    "read_files",
    "run_grep",
]

_GLOB_CHARS = re.compile(r"[*?\[{]")


@frozen
class ToolboxFile:
    """A file as a toolbox command read it.

    ``path`` is the file named (a key below the root, or ``-``); ``staged`` the
    document the change service addresses, which for a translation's own file
    in a project is its source, shown at ``edition``.
    """

    path: str
    staged: Staged
    edition: str | None = None

    @property
    def doc(self) -> str:
        return self.staged.doc

    @property
    def format(self) -> str:
        return self.staged.capabilities.name


@frozen
class BlockText:
    """One block's text as a reader sees it, numbered from 1 within its file."""

    ref: ResultRef
    n: int
    text: str


def edition_of(value: str | None) -> str | None:
    """The edition key ``--target`` names, its language canonical (``fr_CA`` → ``fr-CA``)."""
    if value is None:
        return None
    from kapi.core.edition import EditionKeyError, canonical_locale

    language, _, rest = value.partition(";")
    try:
        canonical = canonical_locale(language)
    except EditionKeyError as err:
        raise HostError(f"--target: {err}", exit_code=EXIT_USAGE) from None
    return f"{canonical};{rest}" if rest else canonical


def display_text(runs: Runs) -> str:
    """What a reader sees: text, each code as the text it stands for, a plural's ``other`` form."""
    from kapi.core.edittext import entity_char
    from kapi.core.model import PcClose, PcOpen, Ph, Sub

    out: list[str] = []
    for run in runs:
        if isinstance(run, Text):
            out.append(run.text)
        elif isinstance(run, Plural):
            out.append(display_text(_other(run.forms)))
        elif isinstance(run, Select):
            out.append(display_text(_other(run.cases)))
        elif isinstance(run, Ph):
            char = entity_char(run)
            out.append(char if char is not None else run.equiv)
        elif isinstance(run, PcOpen | PcClose | Sub):
            out.append(run.equiv)
    return "".join(out)


def _other(branches: Mapping[str, Runs]) -> Runs:
    if "other" in branches:
        return branches["other"]
    return next(iter(branches.values()), ())


def edition_runs(block: Block, edition: str | None) -> Runs | None:
    """The runs of ``edition`` of ``block`` (``None``: the own edition); None when it has none."""
    if edition is None:
        return block.source
    held = block.targets.get(edition)
    return held.runs if held is not None else None


def block_texts(item: ToolboxFile) -> Iterator[tuple[Block, BlockText]]:
    """Each block of a file that has text in the edition shown, numbered from 1."""
    n = 0
    for block in item.staged.document.blocks:
        runs = edition_runs(block, item.edition)
        if runs is None:
            continue
        text = display_text(runs)
        if not text.strip():
            continue
        n += 1
        yield (
            block,
            BlockText(
                ref=ResultRef(doc=item.doc, block=block.ref_key, edition=item.edition),
                n=n,
                text=text,
            ),
        )


# --- which files, read -------------------------------------------------------------------


def read_files(
    files: Sequence[str],
    workspace: Workspace,
    *,
    recursive: bool = False,
    format_name: str | None = None,
    target: str | None = None,
    stdin_is_terminal: bool = True,
    folders: str = " (use -r)",
) -> Iterator[ToolboxFile | FileFailure]:
    """Each file the arguments name, read; a failure for each that could not be.

    As grep takes them: a folder needs ``recursive`` (and then files no format
    reads are passed over in silence; otherwise it is refused, ``folders``
    saying what to do); with nothing named, ``recursive`` reads the current
    folder, otherwise the project's content or stdin. A file outside the root
    is a failure, and nothing of it is read.
    """
    from kapi.host.inputs import expand_inputs, inputs_for

    if not files and recursive:
        files = (".",)
    home = workspace.home()
    if not files:
        for path in inputs_for((), workspace, stdin_is_terminal=stdin_is_terminal):
            yield from _read_one(path, workspace, home, format_name, target, walked=False)
        return
    scope = "the project" if workspace.project is not None else "the current folder"
    base = workspace.cwd if workspace.cwd is not None else Path(".")
    for argument in files:
        walked = False
        if argument != "-" and not _GLOB_CHARS.search(argument) and (base / argument).is_dir():
            if not recursive:
                yield FileFailure(argument, f"{argument}: is a folder{folders}", "usage")
                continue
            walked = True
        try:
            paths = expand_inputs((argument,), root=workspace.root, scope=scope, cwd=workspace.cwd)
        except HostError as err:
            yield FileFailure(argument, err.message, err.code)
            continue
        for path in paths:
            yield from _read_one(path, workspace, home, format_name, target, walked=walked)


def _read_one(
    path: str,
    workspace: Workspace,
    home: FileHome,
    format_name: str | None,
    target: str | None,
    *,
    walked: bool,
) -> Iterator[ToolboxFile | FileFailure]:
    from kapi.host.documents import read_inputs

    for item in read_inputs(
        (path,),
        home=home,
        locale=workspace.source_language,
        format_name=format_name,
    ):
        if isinstance(item, FileFailure):
            if walked and item.code == "unsupported":
                continue  # a folder walked holds files no format reads: grep -r passes them
            yield item
            continue
        # outside a project a file is its own document; in one, a translation's file is not
        named = item.staged.doc
        if path != "-" and workspace.project is not None:
            named = home.key_for(Path(path))
        edition = target
        if edition is None and named != item.staged.doc:
            edition = _language_of(workspace, named)
        yield ToolboxFile(path=named, staged=item.staged, edition=edition)


def _language_of(workspace: Workspace, key: str) -> str | None:
    """The language a translation's own file holds, read as its source's edition."""
    if workspace.project is None:
        return None
    found = workspace.project.source_of(key)
    return found[1] if found is not None else None


# --- kcat ----------------------------------------------------------------------------------


@frozen
class ListRequest:
    """``kcat``: files as grep takes them, a format for stdin, the edition to show."""

    paths: tuple[str, ...]
    recursive: bool = False
    format_name: str | None = None
    target: str | None = None


@frozen
class ListedFile:
    path: str
    format: str
    blocks: tuple[BlockText, ...]


def list_blocks(
    request: ListRequest, workspace: Workspace, *, stdin_is_terminal: bool = True
) -> Iterator[ListedFile | FileFailure]:
    """The text of every block of each file, file by file, as each is read."""
    for item in read_files(
        request.paths,
        workspace,
        recursive=request.recursive,
        format_name=request.format_name,
        target=edition_of(request.target),
        stdin_is_terminal=stdin_is_terminal,
    ):
        if isinstance(item, FileFailure):
            yield item
            continue
        yield ListedFile(
            path=item.path,
            format=item.format,
            blocks=tuple(text for _, text in block_texts(item)),
        )


# --- kgrep ---------------------------------------------------------------------------------


@frozen
class GrepRequest:
    """``kgrep``: a pattern, how it matches, and the files as grep takes them."""

    pattern: str
    paths: tuple[str, ...] = ()
    ignore_case: bool = False
    invert: bool = False
    word: bool = False
    fixed: bool = False
    recursive: bool = False
    format_name: str | None = None
    target: str | None = None


@frozen
class Match:
    """A match in a block's text: code-point offsets, end exclusive."""

    start: int
    end: int
    text: str


@frozen
class BlockMatch:
    """A block that was selected: its text and where the pattern matched in it."""

    ref: ResultRef
    n: int
    text: str
    matches: tuple[Match, ...] = ()


@frozen
class FileMatches:
    """The blocks of one file the pattern selected (with ``-v``: those it did not match)."""

    path: str
    format: str
    blocks: tuple[BlockMatch, ...]


@frozen
class GrepResult:
    files: tuple[FileMatches, ...]
    failures: tuple[FileFailure, ...] = ()

    @property
    def selected(self) -> int:
        return sum(len(f.blocks) for f in self.files)

    @property
    def exit_code(self) -> int:
        """As grep: 0 when a block was selected, 1 when none was, 2 when a file failed."""
        if self.failures:
            return EXIT_USAGE
        return EXIT_OK if self.selected else 1


def compile_pattern(
    pattern: str, *, ignore_case: bool = False, word: bool = False, fixed: bool = False
) -> re.Pattern[str]:
    """The pattern as Python compiles it; one that does not compile is a usage error."""
    source = re.escape(pattern) if fixed else pattern
    if word:
        source = rf"(?<!\w)(?:{source})(?!\w)"
    try:
        return re.compile(source, re.IGNORECASE if ignore_case else 0)
    except re.error as err:
        raise HostError(f"bad regexp {pattern!r}: {err}", exit_code=EXIT_USAGE) from None


def run_grep(
    request: GrepRequest, workspace: Workspace, *, stdin_is_terminal: bool = True
) -> Iterator[FileMatches | FileFailure]:
    """The blocks of each file the pattern selects, file by file, as each is read."""
    regex = compile_pattern(
        request.pattern, ignore_case=request.ignore_case, word=request.word, fixed=request.fixed
    )
    for item in read_files(
        request.paths,
        workspace,
        recursive=request.recursive,
        format_name=request.format_name,
        target=edition_of(request.target),
        stdin_is_terminal=stdin_is_terminal,
    ):
        if isinstance(item, FileFailure):
            yield item
            continue
        selected: list[BlockMatch] = []
        for _, text in block_texts(item):
            found = tuple(
                Match(start=m.start(), end=m.end(), text=m.group())
                for m in regex.finditer(text.text)
            )
            if bool(found) != request.invert:
                selected.append(BlockMatch(ref=text.ref, n=text.n, text=text.text, matches=found))
        yield FileMatches(path=item.path, format=item.format, blocks=tuple(selected))


def grep(
    request: GrepRequest, workspace: Workspace, *, stdin_is_terminal: bool = True
) -> GrepResult:
    """Every file's selected blocks at once (the streaming form is :func:`run_grep`)."""
    files: list[FileMatches] = []
    failures: list[FileFailure] = []
    for item in run_grep(request, workspace, stdin_is_terminal=stdin_is_terminal):
        if isinstance(item, FileFailure):
            failures.append(item)
        else:
            files.append(item)
    return GrepResult(files=tuple(files), failures=tuple(failures))
