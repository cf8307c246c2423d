"""``kapi check`` as a verb: a request holding every flag in, the report and its exit code out.

The flag rules, the choice of files, text or a diff, the mapping of governance
that does not resolve to an exit code, and the ship gates live here; the
engine glue that reads and analyses files is :mod:`kapi.host.checking`.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from attrs import frozen

from kapi.host.errors import (
    EXIT_DID_NOT_RUN,
    EXIT_ERROR,
    EXIT_GATE,
    EXIT_OK,
    EXIT_USAGE,
    HostError,
)

if TYPE_CHECKING:
    from kapi.core.check.options import CheckOptions
    from kapi.core.check.report import Report
    from kapi.host.governance import Governance
    from kapi.host.ship import ShipReport
    from kapi.host.workspace import Workspace

__all__ = ["CheckOutcome", "CheckRequest", "SkippedGovernance", "run_check"]


@frozen
class CheckRequest:
    """Every flag of ``kapi check``; a request whose flags exclude one another cannot be made.

    ``files`` are the file arguments as given (files, folders, globs, ``-``);
    with none, the project's declared content, else stdin when
    ``stdin_is_terminal`` is false. ``text`` checks a draft instead (``files[0]``
    then names the path it stands for). ``diff_file`` is a unified diff's path,
    ``-`` for stdin; ``diff_text`` the diff itself (an MCP client sends it). ``comments`` reads source files for their comments.
    """

    files: tuple[str, ...] = ()
    stdin_is_terminal: bool = True
    text: str | None = None
    format_name: str | None = None
    max_chars: int = 0
    max_words: int = 0
    forbid: tuple[str, ...] = ()
    require: tuple[str, ...] = ()
    dnt: tuple[str, ...] = ()
    target: str | None = None
    target_lang: str | None = None
    profile: str = ""
    channel: str = ""
    voice: str = ""
    diff_against: str | None = None
    diff_file: str | None = None
    diff_text: str | None = None
    staged: bool = False
    ship: bool = False
    gates: tuple[str, ...] = ()
    no_fail: bool = False
    comments: bool = False

    def __attrs_post_init__(self) -> None:
        scopes = [
            bool(self.diff_against),
            bool(self.diff_file) or self.diff_text is not None,
            self.staged,
        ]
        if sum(scopes) > 1:
            raise HostError(
                "--diff-against, --diff-file and --staged exclude one another",
                exit_code=EXIT_USAGE,
            )
        if any(scopes) and (self.ship or self.target):
            raise HostError(
                "a diff-scoped check takes neither --ship nor --target", exit_code=EXIT_USAGE
            )

    @property
    def diff_scoped(self) -> bool:
        """Whether only the blocks a diff changes are checked."""
        return bool(
            self.diff_against or self.diff_file or self.diff_text is not None or self.staged
        )


@frozen
class SkippedGovernance:
    """A file named outright that governs the project (its recipe, a voice, terms), not checked."""

    path: str
    governs: str

    @property
    def message(self) -> str:
        return f"{self.path}: skipped as governance ({self.governs}), not content"


@frozen
class CheckOutcome:
    """The ``kapi.check/v2`` report, the ship gates when asked for, and the files left out."""

    report: Report
    ship: ShipReport | None = None
    skipped: tuple[SkippedGovernance, ...] = ()
    no_fail: bool = False

    @property
    def exit_code(self) -> int:
        """0 passed; 3 a finding or a gate failed (0 with ``no_fail``); 4 did not run."""
        from kapi.core.check.report import Verdict, exit_code

        if self.ship is None:
            return exit_code(self.report, no_fail=self.no_fail)
        if self.ship.passed:
            return EXIT_OK
        if self.report.verdict == Verdict.DID_NOT_RUN:
            return EXIT_DID_NOT_RUN
        return EXIT_OK if self.no_fail else EXIT_GATE


def run_check(request: CheckRequest, workspace: Workspace) -> CheckOutcome:
    """Check files, a diff or text against the governance where each sits.

    Raises :class:`HostError`: exit 2 for bad flags, options or input; exit 1
    when governance does not resolve or ``--ship`` has no project.
    """
    from kapi.core.governance.errors import GovernanceError
    from kapi.host.governance import Governance, governance_error

    if request.ship and workspace.project is None:
        raise HostError("--ship needs a project (kapi init)", exit_code=EXIT_ERROR)
    skipped: list[SkippedGovernance] = []
    try:
        options = _options(request)
        governance = Governance(
            workspace, profile=request.profile, channel=request.channel, voice=request.voice
        )
        report = _check(request, workspace, options, governance, skipped)
    except GovernanceError as err:
        error = governance_error(err)
        error.exit_code = EXIT_USAGE if err.source == "options" else EXIT_ERROR
        raise error from None
    if _whole_project(request, workspace):
        _record_usage(workspace, report, governance)
    ship = None
    if request.ship:
        from kapi.host.ship import GATES, ship_report

        ship = ship_report(
            report,
            request.gates or GATES,
            terms_bound=bool(governance.concepts()),
            bilingual=request.target is not None,
        )
    return CheckOutcome(report=report, ship=ship, skipped=tuple(skipped), no_fail=request.no_fail)


def _whole_project(request: CheckRequest, workspace: Workspace) -> bool:
    """A check of the project's declared content: no files named, no text, no diff."""
    return (
        not request.files
        and request.text is None
        and not request.diff_scoped
        and workspace.project is not None
    )


def _record_usage(workspace: Workspace, report: Report, governance: Governance) -> None:
    """Record the uses of the context's rules the check counted (never fails the check)."""
    import contextlib

    from kapi.host.context_signals import record_usage

    with contextlib.suppress(Exception):
        if workspace.store is not None:
            record_usage(workspace, report, governance)


def _options(request: CheckRequest) -> CheckOptions:
    from kapi.core.check.options import CheckOptions

    options = CheckOptions(
        max_chars=request.max_chars,
        max_words=request.max_words,
        forbid=request.forbid,
        require=request.require,
        dnt=request.dnt,
        target_locale=_locale(request.target_lang),
    )
    options.validate()
    return options


def _check(
    request: CheckRequest,
    workspace: Workspace,
    options: CheckOptions,
    governance: Governance,
    skipped: list[SkippedGovernance],
) -> Report:
    from kapi.host.checking import check_diff, check_files, check_text
    from kapi.host.inputs import inputs_for

    files = request.files
    if request.text is not None:
        return check_text(
            workspace,
            request.text,
            options,
            governance,
            path=files[0] if files else "",
            format_name=request.format_name,
        )
    if request.diff_scoped:
        diff_text = request.diff_text
        if request.diff_file:
            diff_text = _read_diff(request.diff_file, workspace)
        return check_diff(
            workspace,
            options,
            governance,
            against=request.diff_against,
            diff_text=diff_text,
            staged=request.staged,
            comments=request.comments,
        )
    paths = inputs_for(files, workspace, stdin_is_terminal=request.stdin_is_terminal)
    named = {os.path.abspath(file): file for file in files if file != "-"}

    def left_out(path: str, governs: str) -> None:
        file = named.get(os.path.abspath(path))
        if file is not None:  # named outright, not found in a folder or by a glob
            skipped.append(SkippedGovernance(path=file, governs=governs))

    return check_files(
        workspace,
        paths,
        options,
        governance,
        format_name=request.format_name,
        target=request.target,
        target_lang=_locale(request.target_lang) or None,
        on_governance=left_out,
        comments=request.comments,
    )


def _locale(value: str | None) -> str:
    if not value:
        return ""
    from kapi.core.edition import EditionKeyError, canonical_locale

    try:
        return canonical_locale(value)
    except EditionKeyError as err:
        raise HostError(str(err), exit_code=EXIT_USAGE) from None


def _read_diff(path: str, workspace: Workspace) -> str:
    """The unified diff ``--diff-file`` names (``-``: stdin), a file inside the workspace."""
    if path == "-":
        return sys.stdin.read()
    from kapi.host.inputs import read_in

    data = read_in(workspace, path)
    try:  # read as text mode reads it: universal newlines
        return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    except UnicodeDecodeError as err:
        raise HostError(f"{path}: not UTF-8 text: {err}", exit_code=EXIT_USAGE) from None
