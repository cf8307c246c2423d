"""``kapi apply``: read a change set, decode it, stamp the sender, run the change service.

The set's bytes are read here, within :data:`MAX_CHANGE_SET_BYTES`; a larger
set is refused ``budget_exceeded`` before it is decoded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, BinaryIO

from attrs import evolve, frozen

from kapi.core.change.errors import ChangeError, ErrorCode
from kapi.core.change.ops import ChangeSet, Op
from kapi.core.change.ports import ActorKind
from kapi.core.change.result import Result, SetStatus
from kapi.host.actor import ResolvedActor
from kapi.host.errors import EXIT_USAGE, HostError

if TYPE_CHECKING:
    from pathlib import Path

    from kapi.host.workspace import Workspace

__all__ = [
    "MAX_CHANGE_SET_BYTES",
    "ApplyOutcome",
    "apply_change_set",
    "apply_decoded",
    "change_set_schema",
    "decode_input",
    "error_result",
    "read_change_set",
]

DEFAULT_NOTE = "applied with `kapi apply`"
MAX_CHANGE_SET_BYTES = 64 * 1024 * 1024


@frozen
class ApplyOutcome:
    """A change set's result, with notices for the person at the terminal."""

    result: Result
    change_set: ChangeSet | None
    notices: tuple[str, ...] = ()

    @property
    def exit_code(self) -> int:
        return self.result.exit_code


def error_result(error: ChangeError) -> Result:
    """The set-level refusal result (undecodable set, refused read)."""
    return Result(status=SetStatus.REFUSED, record=None, docs=(), ops=(), error=error.info)


def change_set_schema(op: str | None = None) -> dict[str, Any]:
    """The JSON Schema of a change set, or of one op kind (an unknown kind is a usage error)."""
    from kapi.core.change import schema as schemas
    from kapi.core.change.ops import OP_KINDS

    if op is None:
        return schemas.change_set_schema()
    try:
        return schemas.op_schema(op)
    except (KeyError, ValueError):
        raise HostError(
            f"unknown op {op!r}; ops: {', '.join(sorted(OP_KINDS))}", exit_code=EXIT_USAGE
        ) from None


def read_change_set(
    argument: str | None,
    *,
    stdin: BinaryIO,
    stdin_is_terminal: bool,
    workspace: Workspace | None = None,
) -> bytes:
    """The change set's bytes from a file, or from stdin (``-`` or nothing named).

    At most one byte past :data:`MAX_CHANGE_SET_BYTES` is read, so an
    oversized set costs no more memory than the budget; :func:`decode_input`
    refuses it. A file that cannot be read, or a terminal with nothing piped
    in, is a usage error. Given the workspace (the command line's), the file
    is held inside it as every file a verb reads is.
    """
    if argument in (None, "-"):
        if argument is None and stdin_is_terminal:
            raise HostError("no change set: name a file or pipe one on stdin", exit_code=EXIT_USAGE)
        return stdin.read(MAX_CHANGE_SET_BYTES + 1)
    path: str | Path = argument
    if workspace is not None:
        from kapi.host.inputs import file_in

        path = file_in(workspace, argument)
    try:
        with open(path, "rb") as handle:
            return handle.read(MAX_CHANGE_SET_BYTES + 1)
    except OSError as err:
        raise HostError(f"{argument}: {err.strerror or err}", exit_code=EXIT_USAGE) from None


def decode_input(data: bytes | str) -> ChangeSet:
    """The decoded set; raises ChangeError (``budget_exceeded`` past the size budget)."""
    from kapi.core.change.decode import decode_change_set

    if len(data) > MAX_CHANGE_SET_BYTES:
        raise ChangeError.of(
            ErrorCode.BUDGET_EXCEEDED,
            f"the change set is larger than {MAX_CHANGE_SET_BYTES} bytes; split it into several",
            pointer="",
        )
    return decode_change_set(data)


def apply_change_set(
    data: bytes | str,
    *,
    actor: ResolvedActor,
    workspace: Workspace | None = None,
    dry_run: bool = False,
    gate: str | None = None,
) -> ApplyOutcome:
    """Decode and apply (or preview) a change set in a workspace (a project, or a plain folder)."""
    from kapi.host.workspace import open_workspace

    try:
        change_set = decode_input(data)
    except ChangeError as err:
        return ApplyOutcome(result=error_result(err), change_set=None)
    notices: list[str] = []
    changes: dict[str, Any] = {}
    if dry_run:
        changes["mode"] = "preview"
    if gate:
        changes["gate"] = gate
    note = change_set.note or DEFAULT_NOTE
    if actor.note:
        note = f"{note} ({actor.note})"
    changes["note"] = note
    change_set = evolve(change_set, **changes)
    if actor.actor.kind in (ActorKind.PERSON, ActorKind.AGENT) and any(
        _origin(op) for op in change_set.ops
    ):
        notices.append(
            f"origin is kept only for tools; this edit is recorded as the {actor.actor.kind}'s own"
        )
    if workspace is None:  # a workspace this call opens, it closes
        with open_workspace() as opened:
            return _apply(change_set, actor, opened, tuple(notices))
    return _apply(change_set, actor, workspace, tuple(notices))


def apply_decoded(
    change_set: ChangeSet, *, actor: ResolvedActor, workspace: Workspace
) -> ApplyOutcome:
    """Apply a change set a host verb built as a value (``kapi up``): the same service, no decoding.

    The set's ``note`` and ``mode`` are the caller's to set.
    """
    return _apply(change_set, actor, workspace, ())


def _apply(
    change_set: ChangeSet, actor: ResolvedActor, workspace: Workspace, notices: tuple[str, ...]
) -> ApplyOutcome:
    from kapi.host.comment_sets import comment_ops

    try:
        comments = comment_ops(change_set)
    except ChangeError as err:  # comments mixed with documents
        return ApplyOutcome(result=error_result(err), change_set=change_set)
    if comments:
        from kapi.host.comments_apply import apply_comment_set

        result = apply_comment_set(change_set, actor.actor, workspace)
        return ApplyOutcome(result=result, change_set=change_set, notices=notices)
    try:
        service = workspace.change_service(actor.actor)
    except HostError as err:  # the project's store could not be opened: write nothing
        refusal = ChangeError.of(
            ErrorCode.DOC_CHANGED if err.code == "busy" else ErrorCode.UNREACHABLE,
            f"{err.message}; nothing was written",
        )
        return ApplyOutcome(result=error_result(refusal), change_set=change_set)
    result = service.apply(change_set, actor.actor)
    return ApplyOutcome(result=result, change_set=change_set, notices=notices)


def _origin(op: Op) -> bool:
    return getattr(op, "origin", None) is not None
