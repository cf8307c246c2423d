"""Claude Code hooks: one payload in, a verdict out, and the guard fails open.

``post-edit`` checks the one file an edit wrote, ``stop`` judges the ship
gates before an assistant may finish, ``pre-edit`` refuses a hand-edit of a
generated translation. A hook never fails by exit code: a negative verdict is
JSON on stdout, a guard that could not run says so in a ``systemMessage`` (and
on stderr, for a run with no session to show it), and a hook run by hand with
nothing piped in (stdin a terminal or ``/dev/null``) prints nothing. What a
check hook evaluated is recorded in the context log, so the session summary
counts it.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from attrs import frozen

if TYPE_CHECKING:
    from kapi.host.workspace import Workspace

__all__ = [
    "HOOKS",
    "MAX_STOP_FINDINGS",
    "HookOutcomes",
    "HookVerdict",
    "check_row",
    "hook_outcomes",
    "run_hook",
]

HOOKS = ("post-edit", "stop", "pre-edit")
MAX_STOP_FINDINGS = 25
MAX_POST_EDIT_FINDINGS = 10
HOOK_ACTOR = "kapi-hook"  # the name hook outcomes are recorded under (a tool, not the agent)
_PAYLOAD_BUDGET = 16 * 1024 * 1024


@frozen
class HookVerdict:
    """What a hook prints: JSON for stdout (or nothing) and a warning for stderr (or nothing)."""

    stdout: str = ""
    warning: str = ""


class _CouldNotRun(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


_ALLOWS = {
    "post-edit": "the edit stands unchecked",
    "stop": "the session may stop",
    "pre-edit": "the edit is allowed",
}


def _could_not_run(name: str, reason: str) -> HookVerdict:
    message = (
        f"kapi hook {name}: the guard never ran ({reason}); {_ALLOWS[name]}. "
        f"Run `kapi check` by hand to see what it would have said."
    )
    return HookVerdict(stdout=_dumps({"systemMessage": message}), warning=message)


def _dumps(value: Mapping[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def run_hook(name: str, stdin: IO[Any]) -> HookVerdict:
    """Run hook ``name`` on the payload ``stdin`` holds; never raises for a payload or a project."""
    if name not in HOOKS:
        raise ValueError(name)  # the CLI names only the three
    if _is_character_device(stdin):
        return HookVerdict()  # run by hand with nothing piped in: nothing to read, nothing to say
    try:
        payload = _read_payload(stdin)
        cwd = _cwd_of(payload)
        if name == "post-edit":
            return _post_edit(payload, cwd)
        if name == "stop":
            return _stop(payload, cwd)
        return _pre_edit(payload, cwd)
    except _CouldNotRun as err:
        return _could_not_run(name, err.reason)
    except Exception as err:  # a project that does not load, a store that cannot open: fail open
        return _could_not_run(name, _describe(err))


def _describe(err: BaseException) -> str:
    text = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    return text[:300]


def _is_character_device(stdin: IO[Any]) -> bool:
    try:
        return stat.S_ISCHR(os.fstat(stdin.fileno()).st_mode)
    except (OSError, ValueError, AttributeError):
        return False  # not a descriptor (a test's buffer): read it


def _read_payload(stdin: IO[Any]) -> dict[str, Any]:
    try:
        source = getattr(stdin, "buffer", stdin)
        raw = source.read(_PAYLOAD_BUDGET + 1)
    except (OSError, ValueError) as err:
        raise _CouldNotRun(f"stdin could not be read: {err}") from None
    if isinstance(raw, str):
        raw = raw.encode("utf-8", "surrogatepass")
    if len(raw) > _PAYLOAD_BUDGET:
        raise _CouldNotRun("the payload on stdin is larger than 16 MiB")
    if not raw.strip():
        raise _CouldNotRun("the payload on stdin was empty")
    try:
        payload = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as err:
        raise _CouldNotRun(f"the payload on stdin is not JSON: {err}") from None
    if not isinstance(payload, dict):
        raise _CouldNotRun("the payload on stdin is not a JSON object")
    return payload


def _cwd_of(payload: Mapping[str, Any]) -> Path:
    cwd = payload.get("cwd")
    if not isinstance(cwd, str) or not cwd:
        raise _CouldNotRun("the payload names no cwd")
    path = Path(cwd)
    if not path.is_absolute():
        raise _CouldNotRun(f"the payload's cwd {cwd!r} is not an absolute path")
    if not path.is_dir() or not os.access(path, os.X_OK):
        raise _CouldNotRun(f"the payload's cwd {cwd!r} cannot be entered")
    return path


def _file_of(payload: Mapping[str, Any], cwd: Path) -> Path | None:
    """The file the tool writes, absolute (relative to ``cwd``); None when the payload names none."""
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        return None
    file_path = tool_input.get("file_path")
    if not isinstance(file_path, str) or not file_path:
        return None
    try:
        return Path(os.path.normpath(cwd / file_path))
    except (ValueError, OSError) as err:
        raise _CouldNotRun(f"the file path {file_path!r} cannot be made absolute: {err}") from None


def _workspace(cwd: Path) -> Workspace | None:
    """The project that governs ``cwd``, or None where there is none (nothing to gate)."""
    from kapi.host.workspace import open_workspace

    workspace = open_workspace(cwd=cwd)
    if workspace.project is None:
        workspace.close()
        return None
    return workspace


def _relative(workspace: Workspace, file: Path) -> str | None:
    """The project-relative path of ``file`` (symlinks resolved), None outside the project."""
    project = workspace.project
    assert project is not None
    for candidate in (file, file.resolve()):
        for root in (project.root, project.root.resolve()):
            try:
                return candidate.relative_to(root).as_posix()
            except ValueError:
                continue
    return None


# --- post-edit ------------------------------------------------------------------------


def _post_edit(payload: Mapping[str, Any], cwd: Path) -> HookVerdict:
    file = _file_of(payload, cwd)
    if file is None:
        return HookVerdict()
    workspace = _workspace(cwd)
    if workspace is None:
        return HookVerdict()
    with workspace:
        relpath = _relative(workspace, file)
        assert workspace.project is not None
        if relpath is None or workspace.project.governs(relpath) or not file.is_file():
            return HookVerdict()
        from kapi.formats import registry

        try:
            registry.detect(relpath)
        except registry.UnknownFormat:
            return HookVerdict()  # not a format kapi reads: not content
        from kapi.core.check.report import Cause, Verdict
        from kapi.host.check import CheckRequest, run_check

        outcome = run_check(CheckRequest(files=(str(file),)), workspace)
        report = outcome.report
        if report.verdict == Verdict.DID_NOT_RUN:
            if report.did_not_run_cause == Cause.CHECKER_INVALID:
                raise _CouldNotRun(
                    "a checker missed its canary (checker_invalid), so the check cannot be trusted"
                )
            return HookVerdict()  # nothing in the file kapi checks
        failing = [f for f in report.findings if f.fails]
        _record(workspace, payload, "post-edit", passed=not failing, files=(relpath,))
        if not failing:
            return HookVerdict()
        lines = [f"kapi check {relpath}: {len(failing)} failing finding(s)."]
        for finding in failing[:MAX_POST_EDIT_FINDINGS]:
            lines.append("- " + _finding_line(finding))
        if len(failing) > MAX_POST_EDIT_FINDINGS:
            lines.append(f"… and {len(failing) - MAX_POST_EDIT_FINDINGS} more")
        lines.append(f"Fix the file, then run `kapi check {relpath}` again.")
        return HookVerdict(stdout=_dumps({"decision": "block", "reason": "\n".join(lines)}))


def _finding_line(finding: Any) -> str:
    location = finding.location
    where = location.file or "-"
    if location.start is not None:
        where += f":{location.start.line}"
    elif location.lines is not None:
        where += f":{location.lines.start}"
    message = f"{where} [{finding.rule}] {finding.message}"
    if finding.suggestion and finding.suggestion not in finding.message:
        message += f" ({finding.suggestion})"
    return message


# --- stop -----------------------------------------------------------------------------


def _stop(payload: Mapping[str, Any], cwd: Path) -> HookVerdict:
    if payload.get("stop_hook_active") is True:
        return HookVerdict()  # already continuing because of this hook: let the session end
    workspace = _workspace(cwd)
    if workspace is None:
        return HookVerdict()
    with workspace:
        from kapi.core.check.report import Cause, Verdict
        from kapi.host.check import CheckRequest, run_check

        outcome = run_check(CheckRequest(ship=True), workspace)
        ship = outcome.ship
        assert ship is not None
        # a gate the project does not bind (qa with no bilingual target, terminology with no
        # terms) is not one of its gates: it never holds a session
        bound = [gate for gate in ship.gates if not gate.reason]
        failed = [gate for gate in bound if not gate.passed]
        report = outcome.report
        if report.verdict == Verdict.DID_NOT_RUN:
            cause = str(report.did_not_run_cause) or "unknown"
            if report.did_not_run_cause == Cause.CHECKER_INVALID:
                detail = f"the gates did not run ({cause}): a checker missed its canary, so the gates cannot be trusted"
            else:
                detail = f"the gates did not run ({cause})"
            raise _CouldNotRun(detail)
        if not failed:
            _record(workspace, payload, "stop", passed=True, files=())
            return HookVerdict()
        failing = [f for gate in failed for f in gate.findings if f.fails]
        files = tuple(sorted({f.file for f in failing if f.file}))
        _record(workspace, payload, "stop", passed=False, files=files)
        lines = [
            f"kapi check --ship: {len(failed)} of {len(bound)} gates failed "
            f"({', '.join(gate.gate for gate in failed)})."
        ]
        for finding in failing[:MAX_STOP_FINDINGS]:
            line = f"ERROR [{finding.gate}] {finding.file or '-'}: {finding.message}"
            if finding.suggestion and finding.suggestion not in finding.message:
                line += f" ({finding.suggestion})"
            lines.append(line)
        if len(failing) > MAX_STOP_FINDINGS:
            lines.append(f"… and {len(failing) - MAX_STOP_FINDINGS} more")
        lines.append("Fix them before you finish; `kapi check --ship` shows the full report.")
        return HookVerdict(stdout=_dumps({"decision": "block", "reason": "\n".join(lines)}))


# --- pre-edit -------------------------------------------------------------------------


def _pre_edit(payload: Mapping[str, Any], cwd: Path) -> HookVerdict:
    file = _file_of(payload, cwd)
    if file is None:
        return HookVerdict()
    workspace = _workspace(cwd)
    if workspace is None:
        return HookVerdict()
    with workspace:
        project = workspace.project
        assert project is not None
        relpath = _relative(workspace, file)
        if relpath is None:
            return HookVerdict()
        found = project.source_of(relpath)
        if found is None:
            real = _relative(workspace, file.resolve()) if file.exists() else None
            found = project.source_of(real) if real and real != relpath else None
        if found is None:
            return HookVerdict()
        source, language = found
        tool = payload.get("tool_name") if isinstance(payload.get("tool_name"), str) else "Edit"
        reason = (
            f"{relpath} is the {language} translation of {source}, which kapi writes: a "
            f"{tool} by hand would be overwritten or lose its placeholders. Change the "
            f"source ({source}) and run `kapi translate {source} --to {language}` (or "
            f"`kapi up`); to fix one string, read it with `kapi inspect {relpath}`, send a "
            "kapi.change/v1 change set with `kapi apply`, then `kapi check` it."
        )
        return HookVerdict(
            stdout=_dumps(
                {
                    "hookSpecificOutput": {
                        "hookEventName": "PreToolUse",
                        "permissionDecision": "deny",
                        "permissionDecisionReason": reason,
                    }
                }
            )
        )


# --- outcomes in the context log ------------------------------------------------------


def _record(
    workspace: Workspace,
    payload: Mapping[str, Any],
    hook: str,
    *,
    passed: bool,
    files: tuple[str, ...],
) -> None:
    """A ``check`` op in the context log under the payload's session (best effort)."""
    session = payload.get("session_id")
    if not isinstance(session, str) or not session:
        return
    project, store = workspace.project, workspace.store
    if project is None or store is None:
        return
    try:
        store.append_context_ops(
            [check_row(project.id or project.name, session, hook, passed, files)]
        )
    except Exception:  # a store that is busy or read-only costs the count, never the verdict
        return


def check_row(
    project: str,
    session: str,
    hook: str,
    passed: bool,
    files: Sequence[str],
    *,
    moment: datetime | None = None,
    random_bits: int | None = None,
) -> dict[str, Any]:
    """The ``check`` op a hook records, as the context record's wire form.

    Built here rather than through the context converter, whose construction
    costs a hook more than the check it runs; a test holds this row equal to the
    converter's encoding of the same record. The id comes from the clock: reading
    the whole log for its newest id would slow every edit as a session grows.
    """
    import secrets
    from datetime import UTC

    from kapi.core.context.ids import mint_id

    moment = moment or datetime.now(UTC)
    bits = secrets.randbits(80) if random_bits is None else random_bits
    row: dict[str, Any] = {
        "id": mint_id(moment, bits),
        "kind": "check",
        "actor": {"kind": "tool", "name": HOOK_ACTOR, "session": session},
        "at": moment.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        "project": project,
        "subject": {"kind": "note", "text": f"{hook} {'passed' if passed else 'failing'}"},
    }
    if files:
        row["evidence"] = [{"path": path} for path in files]
    return row


@frozen
class HookOutcomes:
    """What a session's hooks evaluated: checks run, checks that failed, failures fixed, files."""

    checked: int = 0
    failing: int = 0
    caught: int = 0
    files: tuple[str, ...] = ()


def hook_outcomes(records: Any) -> HookOutcomes:
    """Fold a session's ``check`` ops: ``caught`` counts files a hook found failing and a later
    check found passing (a post-edit of that file, or the stop gates passing)."""
    checked = failing = 0
    files: set[str] = set()
    open_failures: set[str] = set()
    caught: set[str] = set()
    for record in records:
        if str(record.kind) != "check" or record.actor.name != HOOK_ACTOR:
            continue
        text = record.subject.text if record.subject is not None else ""
        hook, _, verdict = text.partition(" ")
        paths = {e.path for e in record.evidence if e.path}
        checked += 1
        files.update(paths)
        if verdict == "failing":
            failing += 1
            open_failures.update(paths)
        elif hook == "stop":
            caught.update(open_failures)
            open_failures.clear()
        else:
            caught.update(paths & open_failures)
            open_failures -= paths
    return HookOutcomes(
        checked=checked, failing=failing, caught=len(caught), files=tuple(sorted(files))
    )
