"""``kdiff``: two versions of a document compared block by block, and the change set between them.

Blocks pair by key and text, so a reordered catalogue shows moves, not a
rewrite, and a reflowed DOCX (the same prose in other runs) shows nothing.
With one file, the other version is the file as ``git HEAD`` holds it.
"""

from __future__ import annotations

import difflib
import os
import subprocess
from collections.abc import Sequence
from typing import TYPE_CHECKING

from attrs import frozen

from kapi.core.change.ops import (
    BlockRef,
    ChangeSet,
    DeleteBlock,
    EditionContent,
    InsertBlock,
    Op,
    Ref,
    SetContent,
)
from kapi.core.errors import EXIT_OK, EXIT_USAGE
from kapi.core.model import Block
from kapi.host.documents import FileFailure
from kapi.host.errors import HostError
from kapi.host.toolbox import BlockText, ToolboxFile, block_texts, read_files

if TYPE_CHECKING:
    from kapi.host.workspace import Workspace

__all__ = ["BlockChange", "DiffRequest", "DiffResult", "run_diff", "word_diff"]

_GIT_SECONDS = 30
# How alike two texts must be to read as one block changed rather than one removed, one added;
# a block keeping its key needs less.
_ALIKE = 0.5
_SAME_KEY = 0.5
_PAIRING_LIMIT = 2000  # beyond this many unpaired blocks a side, only keys pair them


@frozen
class DiffRequest:
    """``kdiff FILE_A [FILE_B]``: with one file, B is that file and A its text at git HEAD."""

    file_a: str
    file_b: str | None = None
    format_name: str | None = None


@frozen
class BlockChange:
    """One difference: ``added``, ``removed``, ``changed`` (text; ``moved`` too when it moved) or ``moved``."""

    kind: str
    key: str
    before: str | None = None
    after: str | None = None
    moved: bool = False
    n_a: int | None = None
    n_b: int | None = None


@frozen
class DiffResult:
    a: str
    b: str
    changes: tuple[BlockChange, ...]
    change_set: ChangeSet
    left_out: tuple[str, ...] = ()  # changes the set cannot carry, and why

    @property
    def exit_code(self) -> int:
        """As diff: 0 when the texts are the same, 1 when they differ."""
        return 1 if self.changes else EXIT_OK


def _usage(message: str) -> HostError:
    return HostError(message, exit_code=EXIT_USAGE)


def _one(argument: str, workspace: Workspace, format_name: str | None) -> ToolboxFile:
    items = list(read_files((argument,), workspace, format_name=format_name, folders=""))
    failures = [i for i in items if isinstance(i, FileFailure)]
    if failures:
        raise _usage(failures[0].message)
    files = [i for i in items if isinstance(i, ToolboxFile)]
    if len(files) != 1:
        raise _usage(f"{argument}: names {len(files)} files; kdiff compares one file with another")
    return files[0]


def run_diff(request: DiffRequest, workspace: Workspace) -> DiffResult:
    """Compare the two versions; a file that cannot be read, or no git HEAD, is a usage error."""
    b = _one(request.file_b or request.file_a, workspace, request.format_name)
    if request.file_b is None:
        if b.doc == "-":
            raise _usage("kdiff - needs a second file: stdin has no git HEAD")
        a_label = f"HEAD:{b.path}"
        a_blocks = _head_blocks(b, workspace, request.format_name)
        a_doc = b.doc
    else:
        a = _one(request.file_a, workspace, request.format_name)
        a_label, a_doc = a.path, a.doc
        a_blocks = list(block_texts(a))
    b_blocks = list(block_texts(b))
    changes, pairs, added, removed = _compare(a_blocks, b_blocks)
    structural = b.staged.capabilities.structural
    ops, left_out = _ops(a_doc, a_blocks, b_blocks, pairs, added, removed, structural)
    change_set = ChangeSet(
        ops=tuple(ops), schema="kapi.change/v1", note=f"kdiff {a_label} {b.path}"
    )
    return DiffResult(
        a=a_label, b=b.path, changes=tuple(changes), change_set=change_set, left_out=left_out
    )


def word_diff(before: str, after: str) -> str:
    """``after`` with the words that changed marked as ``git diff --word-diff`` marks them."""
    import re

    old = re.findall(r"\s+|[^\s]+", before)
    new = re.findall(r"\s+|[^\s]+", after)
    out: list[str] = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out.append("".join(old[i1:i2]))
            continue
        if i2 > i1:
            out.append("[-" + "".join(old[i1:i2]) + "-]")
        if j2 > j1:
            out.append("{+" + "".join(new[j1:j2]) + "+}")
    return "".join(out)


# --- git HEAD ------------------------------------------------------------------------------


def _head_blocks(
    file: ToolboxFile, workspace: Workspace, format_name: str | None
) -> list[tuple[Block, BlockText]]:
    """The blocks of ``file`` as git HEAD holds it: git runs in the file's folder, for that path only."""
    from kapi.core.format import FormatError
    from kapi.formats import registry
    from kapi.formats.reading import read_document

    home = workspace.home()
    path = home.path_for(file.path)  # resolved inside the root, symlinks followed
    limits = home.limits
    try:
        done = subprocess.run(
            ["git", "--no-pager", "cat-file", "blob", f"HEAD:./{path.name}"],
            cwd=path.parent,
            capture_output=True,
            timeout=_GIT_SECONDS,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"},
            check=False,
        )
    except FileNotFoundError:
        raise _usage("git is not installed: name two files to compare") from None
    except (OSError, subprocess.TimeoutExpired) as err:
        raise _usage(f"git could not be run: {err}") from None
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        reason = said[-1] if said else f"git exited {done.returncode}"
        if "not a git repository" in reason:
            raise _usage(f"{file.path}: not in a git repository: name two files to compare")
        raise _usage(
            f"{file.path}: not in git HEAD (a new file?): name two files to compare ({reason})"
        )
    if len(done.stdout) > limits.max_bytes:
        raise _usage(f"HEAD:{file.path} is over {limits.max_bytes} bytes, the limit")
    try:
        _, document, _ = read_document(
            done.stdout,
            display=file.path,
            locale=workspace.source_language,
            format_name=format_name or file.format,
            limits=limits,
        )
    except FormatError as err:
        raise _usage(f"HEAD:{err.located()}") from None
    except registry.UnknownFormat as err:
        raise _usage(str(err)) from None
    from attrs import evolve

    head = ToolboxFile(path=file.path, staged=evolve(file.staged, document=document))
    return list(block_texts(head))


# --- pairing -------------------------------------------------------------------------------


def _compare(
    a: Sequence[tuple[Block, BlockText]], b: Sequence[tuple[Block, BlockText]]
) -> tuple[list[BlockChange], dict[int, int], list[int], list[int]]:
    pairs: dict[int, int] = {}  # index in a -> index in b
    taken: set[int] = set()
    b_by_key_text: dict[tuple[str, str], int] = {}
    for j, (block, text) in enumerate(b):
        b_by_key_text.setdefault((block.ref_key, text.text), j)
    for i, (block, text) in enumerate(a):  # the same key and text
        found = b_by_key_text.get((block.ref_key, text.text))
        if found is not None and found not in taken:
            pairs[i] = found
            taken.add(found)
    by_text: dict[str, list[int]] = {}
    for j, (_, text) in enumerate(b):
        if j not in taken:
            by_text.setdefault(text.text, []).append(j)
    for i, (_, text) in enumerate(a):  # the same text under another key, or moved
        if i in pairs:
            continue
        waiting = by_text.get(text.text)
        if waiting:
            j = waiting.pop(0)
            pairs[i] = j
            taken.add(j)
    rest_a = [i for i in range(len(a)) if i not in pairs]
    rest_b = [j for j in range(len(b)) if j not in taken]
    if rest_a and rest_b:
        _pair_alike(a, b, rest_a, rest_b, pairs)
    taken = set(pairs.values())
    added = [j for j in range(len(b)) if j not in taken]
    removed = [i for i in range(len(a)) if i not in pairs]
    in_order = _in_order(sorted(pairs.items()))
    changes: list[tuple[float, BlockChange]] = []
    for i, j in pairs.items():
        block_a, text_a = a[i]
        block_b, text_b = b[j]
        moved = i not in in_order
        if text_a.text != text_b.text:
            kind = "changed"
        elif moved:
            kind = "moved"
        else:
            continue
        changes.append(
            (
                j,
                BlockChange(
                    kind=kind,
                    key=block_b.ref_key,
                    before=text_a.text,
                    after=text_b.text,
                    moved=moved,
                    n_a=text_a.n,
                    n_b=text_b.n,
                ),
            )
        )
    for j in added:
        block_b, text_b = b[j]
        changes.append(
            (j, BlockChange(kind="added", key=block_b.ref_key, after=text_b.text, n_b=text_b.n))
        )
    for i in removed:
        block_a, text_a = a[i]
        earlier = [pairs[k] for k in range(i) if k in pairs]
        place = (max(earlier) if earlier else -1) + 0.5
        changes.append(
            (
                place,
                BlockChange(kind="removed", key=block_a.ref_key, before=text_a.text, n_a=text_a.n),
            )
        )
    changes.sort(key=lambda item: item[0])
    return [change for _, change in changes], pairs, added, removed


def _pair_alike(
    a: Sequence[tuple[Block, BlockText]],
    b: Sequence[tuple[Block, BlockText]],
    rest_a: list[int],
    rest_b: list[int],
    pairs: dict[int, int],
) -> None:
    """Pair the blocks left by how alike their texts are, a shared key counting for more."""
    scored: list[tuple[float, int, int]] = []
    if len(rest_a) > _PAIRING_LIMIT or len(rest_b) > _PAIRING_LIMIT:
        keys = {b[j][0].ref_key: j for j in rest_b}
        for i in rest_a:
            j = keys.get(a[i][0].ref_key)
            if j is not None:
                scored.append((1.0, i, j))
    else:
        for i in rest_a:
            matcher = difflib.SequenceMatcher(autojunk=False)
            matcher.set_seq2(a[i][1].text)
            for j in rest_b:
                matcher.set_seq1(b[j][1].text)
                score = matcher.ratio() if matcher.real_quick_ratio() >= _ALIKE - _SAME_KEY else 0.0
                if a[i][0].ref_key == b[j][0].ref_key:
                    score += _SAME_KEY
                if score >= _ALIKE:
                    scored.append((score, i, j))
    used_a: set[int] = set()
    used_b: set[int] = set()
    for _, i, j in sorted(scored, key=lambda item: (-item[0], item[1], item[2])):
        if i not in used_a and j not in used_b:
            pairs[i] = j
            used_a.add(i)
            used_b.add(j)


def _in_order(pairs: list[tuple[int, int]]) -> set[int]:
    """The a-indexes of the longest run of pairs whose b-indexes rise: the blocks that stayed."""
    import bisect

    tails: list[int] = []  # b-index ending the best run of each length
    tail_at: list[int] = []  # position in pairs of that tail
    previous: list[int] = [-1] * len(pairs)
    for position, (_, j) in enumerate(pairs):
        length = bisect.bisect_left(tails, j)
        if length == len(tails):
            tails.append(j)
            tail_at.append(position)
        else:
            tails[length] = j
            tail_at[length] = position
        previous[position] = tail_at[length - 1] if length else -1
    stayed: set[int] = set()
    position = tail_at[-1] if tail_at else -1
    while position >= 0:
        stayed.add(pairs[position][0])
        position = previous[position]
    return stayed


# --- the change set ------------------------------------------------------------------------


def _ops(
    doc: str,
    a: Sequence[tuple[Block, BlockText]],
    b: Sequence[tuple[Block, BlockText]],
    pairs: dict[int, int],
    added: list[int],
    removed: list[int],
    structural: bool,
) -> tuple[list[Op], tuple[str, ...]]:
    from kapi.core.change.plan import own_edition_key
    from kapi.core.edittext import render_edit_text
    from kapi.core.revision import revision

    ops: list[Op] = []
    left_out: list[str] = []
    for i, j in sorted(pairs.items()):
        block_a, text_a = a[i]
        block_b, text_b = b[j]
        if text_a.text == text_b.text:
            continue
        if not block_a.translatable:
            left_out.append(f"{block_a.ref_key}: not editable, so not in the change set")
            continue
        ops.append(
            SetContent(
                at=Ref(doc=doc, block=block_a.ref_key),
                if_match=revision(own_edition_key(block_a), block_a.source),
                text=render_edit_text(block_b.source),
            )
        )
    if (added or removed) and not structural:
        left_out.append(
            f"{len(added)} added and {len(removed)} removed block(s): this format cannot add "
            "or remove blocks through a change set, so they are not in it"
        )
        return ops, tuple(left_out)
    paired_b = {j: i for i, j in pairs.items()}
    for j in added:
        block_b, _ = b[j]
        before = [paired_b[k] for k in range(j) if k in paired_b]
        after = a[max(before)][0].ref_key if before else None
        own = block_b.locale or "en"
        ops.append(
            InsertBlock(
                doc=doc,
                editions={own: EditionContent(text=render_edit_text(block_b.source))},
                name=block_b.name or block_b.ref_key,
                after=after,
            )
        )
    for i in removed:
        block_a, _ = a[i]
        own = block_a.locale or "en"
        ops.append(
            DeleteBlock(
                at=BlockRef(doc=doc, block=block_a.ref_key),
                if_match={own: revision(own_edition_key(block_a), block_a.source)},
            )
        )
    return ops, tuple(left_out)
