"""Signals about the context's rules: what merged changes and whole-project checks show.

``kapi context sync --merged <range>`` reads the merged commits of a git range
(first parent only, so a merge counts as one change) and, for each rule the
log states, counts the lines each merge added with the preferred wording and
removed with an avoided one: a ``merge`` signal (tool ``sync``) per rule and
commit, with the pull request its subject names and who merged it. A
whole-project ``kapi check`` counts each rule's preferred and rejected uses in
the content it checked: a ``usage`` signal (tool ``check``), recorded only when
the counts moved. Signals are content addressed, so reading a range twice, or
on two machines, records each once; then the log is settled.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from attrs import frozen

from kapi.core.context.errors import ContextError
from kapi.core.context.fold import Entry, Fold
from kapi.core.context.policy import person_decides
from kapi.core.context.record import OpKind, Record, Signal, Status, TermRule
from kapi.host.wire import encode

if TYPE_CHECKING:
    from kapi.core.change.ports import Actor
    from kapi.core.check.report import Report
    from kapi.host.governance import Governance
    from kapi.host.workspace import Workspace

__all__ = [
    "ContextSyncRequest",
    "ContextSyncResult",
    "MergedCommit",
    "SignalLine",
    "merged_commits",
    "record_usage",
    "sync_merged",
]

SYNC = "sync"  # the tool that records merge signals
CHECK = "check"  # the tool that records usage signals
_LIVE = (Status.SUGGESTED, Status.CONTESTED, Status.ESTABLISHED)
GIT_TIMEOUT = 120


@frozen
class MergedCommit:
    """A merged change: its commit, the pull request its subject names, who merged it, and
    per project-relative file the lines it added and removed."""

    commit: str
    subject: str
    merger: str
    files: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]]


@frozen
class SignalLine:
    operation: str
    target: str
    source: str
    preferred: int
    rejected: int
    commit: str = ""
    pr: str = ""
    within: str = ""
    text: str = ""


@frozen
class ContextSyncRequest:
    """``kapi context sync``: ``merged`` is a git range whose merges are read."""

    actor: Actor
    merged: str


@frozen
class ContextSyncResult:
    commits: int
    signals: tuple[SignalLine, ...]
    settled: tuple[str, ...]

    def encoded(self) -> dict[str, Any]:
        data: dict[str, Any] = encode(self)
        return data


# --- the rules a signal is about ----------------------------------------------------------


@frozen
class _Group:
    """The rules stated together (one group of the fold), as one rule counted at their points."""

    head: str
    rule: TermRule
    points: tuple[Mapping[str, str], ...]

    def holds_at(self, point: Mapping[str, str]) -> bool:
        from kapi.core.context.scope import applies_at

        return any(applies_at(p, point) for p in self.points)


def _groups(folded: Fold) -> list[_Group]:
    """Each group of word rules that still stands (suggested, contested or in force)."""
    members: dict[str, list[Entry]] = {}
    for entry in folded.entries:
        rule = entry.rule
        if rule is None or not rule.term or entry.status not in _LIVE:
            continue
        if entry.record.kind not in (OpKind.OBSERVE, OpKind.CORRECT):
            continue
        members.setdefault(folded.heads.get(entry.id, entry.id), []).append(entry)
    out = []
    for head, entries in members.items():
        rules = [e.rule for e in entries if e.rule is not None]
        replacement = rules[0].replacement
        folded_replacement = replacement.casefold()
        forms: list[str] = []
        for rule in rules:
            forms += [f for f in rule.avoided if f and f not in forms]
        case_sensitive = any(r.case_sensitive for r in rules)
        if not case_sensitive:
            forms = [f for f in forms if f.casefold() != folded_replacement]
        if not forms:
            continue
        points = tuple(dict(e.scope.coordinates) for e in entries)
        out.append(
            _Group(
                head,
                TermRule(
                    term=forms[0],
                    forms=tuple(forms[1:]),
                    replacement=replacement,
                    case_sensitive=case_sensitive,
                ),
                points,
            )
        )
    return out


class _Points:
    """The coordinates of the point each project file sits at, resolved once per file."""

    def __init__(self, governance: Governance) -> None:
        self.governance = governance
        self._seen: dict[str, Mapping[str, str]] = {}

    def __call__(self, path: str) -> Mapping[str, str]:
        found = self._seen.get(path)
        if found is None:
            from kapi.core.governance.errors import GovernanceError
            from kapi.core.governance.resolve import resolve_governance

            try:
                point = resolve_governance(self.governance.recipe, path, at=self.governance.at)
                found = dict(point.coordinates)
            except GovernanceError:
                found = {}
            self._seen[path] = found
        return found


# --- merges -------------------------------------------------------------------------------


def merged_commits(root: Any, revisions: str) -> list[MergedCommit]:
    """The commits of ``revisions`` along the first parent (a merge is one change, diffed
    against the branch it merged into), oldest first, with the lines each added and removed
    in files under ``root``."""
    if not revisions.strip() or revisions.startswith("-"):
        raise ContextError(
            f"--merged {revisions!r}: give a git range such as main~5..main or "
            "origin/main@{1}..origin/main"
        )
    command = [
        "git",
        "-c",
        "core.quotePath=false",
        "log",
        "--reverse",
        "--first-parent",
        "--diff-merges=first-parent",
        "-p",
        "--unified=0",
        "--no-color",
        "--no-ext-diff",
        "--no-renames",
        "--relative",
        "--format=%x00%H%x1f%s%x1f%cn <%ce>",
        "--end-of-options",
        revisions,
        "--",
        ".",
    ]
    try:
        done = subprocess.run(
            command, cwd=root, capture_output=True, timeout=GIT_TIMEOUT, check=False
        )
    except (OSError, subprocess.SubprocessError) as err:
        raise ContextError(f"--merged {revisions}: git did not run: {err}") from None
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ContextError(
            f"--merged {revisions}: git could not read it: "
            f"{reason[0] if reason else 'exit ' + str(done.returncode)}; give a range of this "
            "project's repository, such as main~5..main"
        )
    return list(_parse_log(done.stdout.decode("utf-8", "replace")))


def _parse_log(text: str) -> Iterator[MergedCommit]:
    commit: list[str] | None = None
    files: dict[str, tuple[list[str], list[str]]] = {}
    path = old = ""
    in_hunk = False

    def done() -> MergedCommit | None:
        if commit is None:
            return None
        sha, subject, merger = [*commit, "", "", ""][:3]
        return MergedCommit(
            sha, subject, merger, {p: (tuple(a), tuple(r)) for p, (a, r) in files.items()}
        )

    for line in text.split("\n"):
        if line.startswith("\x00"):
            finished = done()
            if finished is not None:
                yield finished
            commit, files, path, old, in_hunk = line[1:].split("\x1f"), {}, "", "", False
            continue
        if line.startswith("diff --git "):
            in_hunk, path, old = False, "", ""
        elif not in_hunk and line.startswith("--- "):
            old = line[6:] if line.startswith("--- a/") else ""
        elif not in_hunk and line.startswith("+++ "):
            path = line[6:] if line.startswith("+++ b/") else old
        elif line.startswith("@@"):
            in_hunk = bool(path)
        elif in_hunk and line.startswith("+"):
            files.setdefault(path, ([], []))[0].append(line[1:])
        elif in_hunk and line.startswith("-"):
            files.setdefault(path, ([], []))[1].append(line[1:])
    finished = done()
    if finished is not None:
        yield finished


def sync_merged(request: ContextSyncRequest, workspace: Workspace) -> ContextSyncResult:
    """Record a ``merge`` signal per rule and merged commit of the range that moved text
    toward the rule, then settle the log (a merge is a person's signal)."""
    from kapi.core.change.ports import Actor, ActorKind
    from kapi.core.context.signals import UseCounter, common_folder, merge_address, pr_number
    from kapi.host.context_project import ProjectContext
    from kapi.host.context_write import record_ops
    from kapi.host.governance import Governance

    if request.actor.kind != ActorKind.PERSON:
        person_decides(request.actor, OpKind.SIGNAL)  # refuses an agent: only a person syncs
    context = ProjectContext(workspace)
    before = context.fold()
    commits = merged_commits(context.project.root, request.merged)
    groups = _groups(before)
    counters = {g.head: UseCounter(g.rule) for g in groups}
    points = _Points(Governance(workspace))
    project = context.project
    tool = Actor(kind=ActorKind.TOOL, name=SYNC)
    known = {r.address for r in context.log.records() if r.address}
    records: list[Record] = []
    lines: list[SignalLine] = []
    for commit in commits:
        pr = pr_number(commit.subject)
        content = {p: changed for p, changed in commit.files.items() if _content(project, p)}
        for group in groups:
            counter = counters[group.head]
            preferred = rejected = 0
            counted: list[str] = []
            for path, (added, removed) in content.items():
                if not group.holds_at(points(path)):
                    continue
                here = sum(1 for line in added if counter.count(line)[0])
                gone = sum(1 for line in removed if counter.count(line)[1])
                if here or gone:
                    counted.append(path)
                    preferred, rejected = preferred + here, rejected + gone
            if not (preferred or rejected):
                continue
            address = merge_address(group.head, commit.commit)
            if address in known:
                continue
            known.add(address)
            signal = Signal(
                source="merge",
                commit=commit.commit,
                pr=pr,
                merger=commit.merger,
                preferred=preferred,
                rejected=rejected,
                within=common_folder(counted),
            )
            record = context.log.new(
                OpKind.SIGNAL, tool, target=group.head, signal=signal, address=address
            )
            records.append(record)
    settled_before = {e.id for e in before.established}
    after = record_ops(context, records, tool, before) if records else before
    from kapi.host.context_write import describe

    for record in records:
        said = record.signal
        assert said is not None
        lines.append(
            SignalLine(
                operation=record.id,
                target=record.target,
                source=said.source,
                preferred=said.preferred,
                rejected=said.rejected,
                commit=said.commit,
                pr=said.pr,
                within=said.within,
                text=describe(record),
            )
        )
    settled = tuple(e.id for e in after.established if e.id not in settled_before)
    return ContextSyncResult(commits=len(commits), signals=tuple(lines), settled=settled)


def _content(project: Any, path: str) -> bool:
    """Whether a changed file is the project's content: claimed by a collection (or, with
    none declared, any file that does not govern the project)."""
    if project.collections:
        return project.claim(path) is not None
    return not project.governs(path) and not any(p.startswith(".") for p in path.split("/"))


# --- usage --------------------------------------------------------------------------------


def record_usage(workspace: Workspace, report: Report, governance: Governance) -> int:
    """After a whole-project check: count each rule's uses in the files checked and record a
    ``usage`` signal where the count moved since the last one. How many were recorded."""
    folded = governance.context_fold()[0]
    if folded is None:
        return 0
    groups = _groups(folded)
    if not groups:
        return 0
    from kapi.core.change.ports import Actor, ActorKind
    from kapi.core.check.target import ScopeStatus
    from kapi.core.context.signals import UseCounter, common_folder, usage_address
    from kapi.host.context_project import ProjectContext
    from kapi.host.context_write import record_ops

    scope = report.scope
    files = [f.path for f in scope.files if f.status == ScopeStatus.CHECKED] if scope else []
    counters = {g.head: UseCounter(g.rule) for g in groups}
    points = _Points(governance)
    found: dict[str, list[int]] = {g.head: [0, 0] for g in groups}
    where: dict[str, list[str]] = {g.head: [] for g in groups}
    for path, texts in _texts(workspace, files):
        point = points(path)
        for group in groups:
            if not group.holds_at(point):
                continue
            counter = counters[group.head]
            preferred = rejected = 0
            for text in texts:
                p, r = counter.count(text)
                preferred, rejected = preferred + p, rejected + r
            if preferred or rejected:
                totals = found[group.head]
                totals[0] += preferred
                totals[1] += rejected
                where[group.head].append(path)
    latest = _latest_usage(folded)
    context = ProjectContext(workspace)
    tool = Actor(kind=ActorKind.TOOL, name=CHECK)
    records = []
    for group in groups:
        preferred, rejected = found[group.head]
        within = common_folder(where[group.head])
        previous = latest.get(group.head)
        if previous is None and not (preferred or rejected):
            continue
        if previous is not None:
            signal = previous.signal
            assert signal is not None
            if (signal.preferred, signal.rejected, signal.within) == (preferred, rejected, within):
                continue
        counted = Signal(source="usage", preferred=preferred, rejected=rejected, within=within)
        address = usage_address(
            group.head, preferred, rejected, within, previous.id if previous else ""
        )
        records.append(
            context.log.new(OpKind.SIGNAL, tool, target=group.head, signal=counted, address=address)
        )
    if records:
        record_ops(context, records, tool, context.fold())
    return len(records)


def _latest_usage(folded: Fold) -> dict[str, Record]:
    latest: dict[str, Record] = {}
    for record in folded.records:
        if record.kind != OpKind.SIGNAL or record.signal is None or record.id in folded.reset:
            continue
        if record.signal.source == "usage":
            latest[folded.heads.get(record.target, record.target)] = record
    return latest


def _texts(workspace: Workspace, files: Sequence[str]) -> Iterable[tuple[str, list[str]]]:
    """Each checked file's prose, as the check read it (code and front matter left out)."""
    from kapi.core.check.target import checked_blocks
    from kapi.core.format import FormatError
    from kapi.core.model import plain_text
    from kapi.formats.reading import read_document
    from kapi.formats.registry import UnknownFormat

    root = workspace.root
    for path in files:
        try:
            _, document, _ = read_document(
                root / path, display=path, locale=workspace.source_language
            )
        except (FormatError, UnknownFormat, OSError):
            continue
        yield path, [plain_text(b.source) for b in checked_blocks(document.blocks)]
