"""The change service's commit check in a project: the deterministic analyzers on each edited block.

Loaded with the change service (:meth:`kapi.host.workspace.Workspace.change_service`), never
by ``kapi check``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kapi.core.change.ports import EditionCheck
from kapi.core.change.result import Finding as ResultFinding
from kapi.core.change.result import ResultRef
from kapi.core.check.analysis import BlockAnalysis, introduced_failures
from kapi.core.check.findings import Finding
from kapi.core.check.options import CheckOptions
from kapi.core.governance.errors import GovernanceError
from kapi.core.model import Block
from kapi.host.governance import Governance

if TYPE_CHECKING:
    from kapi.core.model import Runs
    from kapi.host.workspace import Workspace

__all__ = ["ProjectCommitCheck"]


class ProjectCommitCheck:
    """The change service's commit check: deterministic analyzers on the edited block."""

    def __init__(self, workspace: Workspace) -> None:
        self.governance = Governance(workspace)
        # One commit check serves one change set: the governance at a (doc, locale) is
        # resolved once, and the analysis made from it (its voice and term rules, the
        # analyzers that run) serves every block edited there.
        self._analyses: dict[tuple[str, str], BlockAnalysis | None] = {}

    def _analysis(self, doc: str, locale: str) -> BlockAnalysis | None:
        key = (doc, locale)
        if key not in self._analyses:
            try:
                governance = self.governance.resolve(doc, locale)
            except GovernanceError:
                self._analyses[key] = None
            else:
                self._analyses[key] = BlockAnalysis(
                    governance, CheckOptions(), locale=locale, file=doc
                )
        return self._analyses[key]

    def check(
        self, doc: str, block: str, edition: str, before: Runs | None, after: Runs
    ) -> EditionCheck:
        locale = edition.split(";")[0] if edition else self.governance.workspace.source_language
        analysis = self._analysis(doc, locale)
        if analysis is None:
            return EditionCheck()  # context that does not resolve is reported by `kapi check`
        after_findings = analysis.findings(
            [Block(id=block, name=block, source=after, locale=locale)]
        )
        before_findings: list[Finding] = []
        # Only a failing finding after the edit can be one it introduced: without one,
        # what the block held before changes nothing, and is not analysed.
        if before is not None and any(f.fails and not f.suggested for f in after_findings):
            before_findings = analysis.findings(
                [Block(id=block, name=block, source=before, locale=locale)]
            )
        if not after_findings:
            return EditionCheck()
        introduced = introduced_failures(before_findings, after_findings)
        ref = ResultRef(doc=doc, block=block, edition=edition or None)
        introduced_ids = {id(f) for f in introduced}
        return EditionCheck(
            introduced=tuple(_result_finding(f, ref) for f in introduced),
            others=tuple(
                _result_finding(f, ref) for f in after_findings if id(f) not in introduced_ids
            ),
        )


def _result_finding(finding: Finding, ref: ResultRef) -> ResultFinding:
    return ResultFinding(
        rule=finding.rule,
        message=finding.message,
        fails=finding.fails,
        suggested=finding.suggested or None,
        at=ref,
        replacement=finding.replacement,
    )
