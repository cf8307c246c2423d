"""The change service: plans a change set by document, applies it in memory, and lands it whole.

Order (spec change-contract §9): policy for every op; stage every document
(the policy again, for a document that governs the project) and apply its
content ops in memory against the state the set began with; check
guards and governance; stop for a preview; otherwise write every document
atomically, then land decisions and asset ops, then record the set. Any
refusal before the write leaves every document as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from attrs import evolve, field, frozen

from kapi.core.change import content
from kapi.core.change.content import EditLog
from kapi.core.change.errors import (
    ChangeError,
    ErrorCode,
    ErrorInfo,
)
from kapi.core.change.guards import check_codes
from kapi.core.change.ops import (
    ASSET_OPS,
    Annotate,
    ChangeSet,
    Decide,
    DeleteBlock,
    InsertBlock,
    Mark,
    Memory,
    Native,
    Op,
    PathStep,
    Recipe,
    RemoveEdition,
    ReplaceText,
    SetAttribute,
    SetContent,
    Term,
    Unannotate,
)
from kapi.core.change.plan import (
    DocPlan,
    Target,
    check_if_match,
    edition_rev,
    edition_runs,
    find_block,
    own_edition_key,
)
from kapi.core.change.policy import ChangePolicy
from kapi.core.change.ports import (
    Actor,
    AssetSink,
    CommitCheck,
    CommitRefused,
    DocChanged,
    DocumentHome,
    GovernanceFiles,
    Recorder,
    Write,
    digest,
)
from kapi.core.change.result import (
    Current,
    DocResult,
    Finding,
    Invalidation,
    OpResult,
    OpStatus,
    Result,
    ResultRef,
    SetStatus,
)
from kapi.core.change.structure import annotate, delete_block, insert_block, remove_edition
from kapi.core.edition import EditionKey, EditionKeyError
from kapi.core.edittext import render_edit_text
from kapi.core.format import FormatError, WriteRefused
from kapi.core.model import Block, Edition, Origin, Runs
from kapi.core.revision import revision

__all__ = ["ChangeService"]


@frozen
class ChangeService:
    """Applies ``kapi.change/v1`` change sets through a document home."""

    home: DocumentHome
    policy: ChangePolicy = field(factory=ChangePolicy)
    commit_check: CommitCheck | None = None
    assets: AssetSink | None = None
    recorder: Recorder | None = None
    clock: Callable[[], str] | None = None
    governance_files: GovernanceFiles | None = None

    # --- entry point --------------------------------------------------------------------

    def apply(self, change_set: ChangeSet, actor: Actor) -> Result:
        """Apply (or preview) a change set sent by ``actor``."""
        refusals = self.policy.refusals(change_set, actor.kind)
        if refusals:
            return _refused(change_set, refusals, {})
        for attempt in range(2):
            try:
                return self._apply_once(change_set, actor)
            except DocChanged as changed:
                if attempt == 1:
                    info = ErrorInfo(
                        code=ErrorCode.DOC_CHANGED,
                        message=f"{changed.doc} kept changing while the set was applied; "
                        "read it again and resend",
                    )
                    return _refused(change_set, {0: info} if change_set.ops else {}, {}, info)
        raise AssertionError("unreachable")

    def _apply_once(self, change_set: ChangeSet, actor: Actor) -> Result:
        plans: dict[str, DocPlan] = {}
        outcomes: dict[int, OpResult] = {}
        refusals: dict[int, ErrorInfo] = {}
        currents: dict[int, Current] = {}
        guard_findings: dict[int, list[Finding]] = {}
        decisions: list[tuple[int, Decide, str]] = []
        assets: list[tuple[int, Term | Memory | Recipe]] = []
        report_guards = actor.kind == "tool"
        governed: dict[str, str] = {}  # file -> what it is, when it governs the project

        for index, op in enumerate(change_set.ops):
            try:
                if isinstance(op, Term | Memory | Recipe):
                    self._validate_asset(op, actor)
                    assets.append((index, op))
                    continue
                self._check_governed(op, [_named_doc(op)], actor, governed)
                plan = self._plan_for(op, plans)
                staged = plan.staged
                files = [staged.doc, *(joined.file for joined in staged.joined)]
                self._check_governed(op, files, actor, governed)
                result = self._apply_op(
                    index, op, plan, change_set, actor, report_guards, guard_findings
                )
                if isinstance(op, Decide):
                    assert result.before is not None
                    decisions.append((index, op, result.before))
                outcomes[index] = result
            except ChangeError as err:
                refusals[index] = _pointed(err.info, index)
                if isinstance(err.current, Current):
                    currents[index] = err.current

        # Governance at commit, per changed edition.
        doc_findings: dict[str, list[Finding]] = {}
        if self.commit_check is not None:
            for doc, plan in plans.items():
                findings: list[Finding] = []
                for (block_id, edition), op_index in sorted(
                    plan.changed.items(), key=lambda i: i[1]
                ):
                    if op_index in refusals:
                        continue
                    block = plan.block(block_id)
                    after = edition_runs(block, edition)
                    if after is None:
                        continue
                    original = plan.original.get(block_id)
                    before = edition_runs(original, edition) if original else None
                    verdict = self.commit_check.check(doc, block.ref_key, edition, before, after)
                    findings.extend(verdict.introduced)
                    if (
                        verdict.introduced
                        and change_set.gate_mode == "enforce"
                        and not report_guards
                    ):
                        refusals[op_index] = ErrorInfo(
                            code=ErrorCode.GATE_FAILED,
                            message=f"the edit introduces {len(verdict.introduced)} failing "
                            f"finding(s): {verdict.introduced[0].message}",
                        )
                        guard_findings.setdefault(op_index, []).extend(verdict.introduced)
                    elif verdict.introduced:
                        guard_findings.setdefault(op_index, []).extend(verdict.introduced)
                doc_findings[doc] = findings

        # Render every changed document (a writer may refuse what it cannot say).
        writes: list[Write] = []
        rendered: dict[str, list[Write]] = {}
        if not refusals:
            for doc, plan in plans.items():
                if not plan.changed and not plan.deleted and not plan.inserted:
                    continue
                document = plan.staged.document.with_blocks(tuple(plan.blocks))
                try:
                    produced = self.home.render(plan.staged, document)
                except WriteRefused as refused:
                    index = _op_for_block(plan, refused.block)
                    refusals[index] = ErrorInfo(
                        code=ErrorCode.UNSUPPORTED,
                        message=refused.message,
                        capability=refused.capability,
                    )
                    continue
                except FormatError as err:
                    index = _op_for_block(plan, "")
                    refusals[index] = ErrorInfo(code=ErrorCode(err.code), message=err.located())
                    continue
                changed = [w for w in produced if digest(w.data) != w.head]
                rendered[doc] = changed
                writes.extend(changed)

        if refusals:
            return _refused(
                change_set,
                refusals,
                currents,
                docs=_doc_results(plans, {}, {}, {}),
                findings=guard_findings,
            )

        if change_set.preview:
            docs = _doc_results(plans, {}, doc_findings, rendered, preview=self.home)
            ops = []
            for index, op in enumerate(change_set.ops):
                outcome = outcomes.get(index) or OpResult(
                    i=index, op=op.op, status=OpStatus.APPLIED
                )
                status = (
                    OpStatus.UNCHANGED
                    if outcome.status == OpStatus.UNCHANGED
                    else OpStatus.PREVIEWED
                )
                ops.append(
                    _with_findings(evolve(outcome, status=status), guard_findings.get(index))
                )
            return Result(status=SetStatus.PREVIEWED, docs=tuple(docs), ops=tuple(ops))

        written: dict[str, str | None] = {}
        io_error: str | None = None
        if writes:
            try:
                commit = self.home.commit(writes)  # raises DocChanged for a retry
            except CommitRefused as refused:
                index = _op_for_file(change_set, plans, rendered, refused.file)
                info = ErrorInfo(code=ErrorCode(refused.code), message=refused.message)
                return _refused(change_set, {index: info}, {}, docs=_doc_results(plans, {}, {}, {}))
            written = commit.written
            io_error = commit.error

        ops_out: list[OpResult] = []
        unwritten = {
            doc for doc, files in rendered.items() if any(written.get(w.key) is None for w in files)
        }
        for index, op in enumerate(change_set.ops):
            landed = outcomes.get(index) or OpResult(i=index, op=op.op, status=OpStatus.APPLIED)
            if io_error is not None:
                op_doc = _op_doc(op, plans)
                if op.op in ASSET_OPS or isinstance(op, Decide) or op_doc in unwritten:
                    landed = OpResult(i=index, op=op.op, status=OpStatus.NOT_APPLIED, at=landed.at)
            ops_out.append(_with_findings(landed, guard_findings.get(index)))

        status = SetStatus.APPLIED
        if io_error is None:
            for index, op, rev in decisions:
                status = self._land_asset(index, op, actor, rev, ops_out, status)
            for index, asset in assets:
                status = self._land_asset(index, asset, actor, None, ops_out, status)
        else:
            status = SetStatus.PARTIAL

        docs = _doc_results(plans, written, doc_findings, rendered)
        final = Result(status=status, docs=tuple(docs), ops=tuple(ops_out))
        if self.recorder is not None and status in (SetStatus.APPLIED, SetStatus.PARTIAL):
            try:
                record = self.recorder.record(change_set, final, actor)
            except Exception:  # a failing recorder leaves content written and record null
                record = None
            final = evolve(final, record=record)
        return final

    # --- assets -------------------------------------------------------------------------

    def _validate_asset(self, op: Term | Memory | Recipe | Decide, actor: Actor) -> None:
        if self.assets is None:
            raise ChangeError.of(
                ErrorCode.UNSUPPORTED,
                f"{op.op} ops need a project store; run inside a project (kapi init)",
                capability=op.op,
            )
        if isinstance(op, Memory):
            for side, name in ((op.from_, "from"), (op.to, "to")):
                try:
                    EditionKey.parse(side.edition)
                except EditionKeyError as err:
                    raise ChangeError.of(
                        ErrorCode.INVALID, str(err), field=f"{name}/edition"
                    ) from None
        reason = self.assets.validate(op, actor)
        if reason is not None:
            raise ChangeError.of(ErrorCode.INVALID, reason)

    def _land_asset(
        self,
        index: int,
        op: Decide | Term | Memory | Recipe,
        actor: Actor,
        rev: str | None,
        ops_out: list[OpResult],
        status: str,
    ) -> str:
        assert self.assets is not None
        try:
            self.assets.apply(op, actor, rev)
        except Exception as err:  # the store refused after content landed: partial
            ops_out[index] = OpResult(
                i=index,
                op=op.op,
                status=OpStatus.REFUSED,
                at=ops_out[index].at,
                error=ErrorInfo(code=ErrorCode.UNREACHABLE, message=f"the store refused: {err}"),
            )
            return SetStatus.PARTIAL
        return status

    # --- planning -----------------------------------------------------------------------

    def _check_governed(
        self, op: Op, files: Sequence[str], actor: Actor, governed: dict[str, str]
    ) -> None:
        """Refuse an op that would change a file that governs the project, if the sender may not.

        ``files`` are the document the op names (before the home reads it, so a
        file no format reads is refused for what it is) or, once staged, every
        file the document writes: its own and its joined translations'.
        """
        if self.governance_files is None or isinstance(op, Decide):  # advice changes no file
            return
        for file in files:
            if file not in governed:
                governed[file] = self.governance_files.governs(file)
            what = governed[file]
            if not what:
                continue
            field = "doc" if isinstance(op, InsertBlock | Native) else "at/doc"
            refusal = self.policy.governed_refusal(file, what, actor.kind, field=field)
            if refusal is not None:
                raise ChangeError(refusal)

    def _plan_for(self, op: Op, plans: dict[str, DocPlan]) -> DocPlan:
        doc = _named_doc(op)
        for plan in plans.values():
            if doc in (plan.staged.doc, plan.staged.file) or plan.staged.joined_file(doc):
                return plan
        staged = self.home.stage(doc)
        existing = plans.get(staged.doc)
        if existing is not None:
            return existing
        plan = DocPlan(staged)
        plans[staged.doc] = plan
        return plan

    def _target(self, plan: DocPlan, block_key: str, edition: str | None, doc: str = "") -> Target:
        joined = plan.staged.joined_file(doc) if doc else None
        if joined is not None:
            # A translation's own file addresses that edition of its source document.
            if edition:
                try:
                    named = EditionKey.parse(edition).text
                except EditionKeyError as err:
                    raise ChangeError.of(ErrorCode.INVALID, str(err), field="at/edition") from None
                if named != joined.edition:
                    raise ChangeError.of(
                        ErrorCode.INVALID,
                        f"{doc} holds the {joined.edition} edition, not {named}",
                        field="at/edition",
                    )
            edition = joined.edition
        block = find_block(plan, block_key, "at/block")
        if block.id in plan.inserted:
            raise ChangeError.of(
                ErrorCode.INVALID,
                f"block {block_key!r} is inserted by this set; send its content with insert_block",
                field="at/block",
            )
        resolved = ""
        if edition:
            try:
                key = EditionKey.parse(edition)
            except EditionKeyError as err:
                raise ChangeError.of(ErrorCode.INVALID, str(err), field="at/edition") from None
            same = key.is_plain and key.language == block.locale and key.text not in block.targets
            if not same:
                resolved = key.text
                allowed = plan.staged.editions
                if (
                    allowed is not None
                    and resolved not in allowed
                    and resolved not in block.targets
                ):
                    where = ", ".join(sorted(allowed)) or "only its own edition"
                    raise ChangeError.of(
                        ErrorCode.UNSUPPORTED,
                        f"{plan.staged.doc} has no place for the {resolved} edition (it holds {where})",
                        capability="edition",
                        field="at/edition",
                    )
        ref = ResultRef(doc=plan.staged.doc, block=block.ref_key, edition=resolved or None)
        return Target(block.id, resolved, ref)

    def _apply_op(
        self,
        index: int,
        op: Op,
        plan: DocPlan,
        change_set: ChangeSet,
        actor: Actor,
        report_guards: bool,
        guard_findings: dict[int, list[Finding]],
    ) -> OpResult:
        caps = plan.staged.capabilities
        if isinstance(op, Native):
            raise ChangeError.of(
                ErrorCode.UNSUPPORTED,
                f"format {caps.name} declares no native operations",
                capability="native",
            )
        if isinstance(op, InsertBlock):
            return insert_block(index, op, plan)
        if isinstance(op, DeleteBlock):
            return delete_block(index, op, plan)
        assert not isinstance(op, Term | Memory | Recipe)
        target = self._target(plan, op.at.block, getattr(op.at, "edition", None), op.at.doc)
        block = plan.block(target.block_id)
        if not block.translatable and not isinstance(op, Decide | Annotate | Unannotate):
            raise ChangeError.of(
                ErrorCode.UNSUPPORTED,
                f"block {block.ref_key!r} is not translatable content (role {block.role or 'none'})",
                capability="editable",
            )
        if isinstance(op, Annotate | Unannotate):
            return annotate(index, op, plan, target)
        if_match = getattr(op, "if_match", None)
        before = check_if_match(plan, target, if_match, op)
        if isinstance(op, Decide):
            if op.outcome == "advise" and op.score is None:
                raise ChangeError.of(
                    ErrorCode.INVALID, "advise needs a score (0-100)", field="score"
                )
            after = edition_rev(block, target.edition)
            return OpResult(
                i=index,
                op=op.op,
                status=OpStatus.APPLIED,
                at=target.ref,
                before=before,
                after=after,
            )
        if isinstance(op, RemoveEdition):
            return remove_edition(index, op, plan, target, before)

        authoritative = not target.edition
        if authoritative and isinstance(op, SetContent) and op.basis is not None:
            raise ChangeError.of(
                ErrorCode.INVALID,
                "basis names the authoritative edition a derived edition was made from; "
                "this is the authoritative edition",
                field="basis",
            )
        current_runs = edition_runs(block, target.edition)
        original_block = plan.original.get(target.block_id)
        original_runs = edition_runs(original_block, target.edition) if original_block else None
        reference = current_runs if current_runs is not None else block.source
        extra = [block.source] if target.edition else []
        log = plan.log(target.block_id, target.edition)
        resolved: tuple[object, ...] | None = None

        if isinstance(op, SetContent):
            new_runs = self._set_content(
                op, block, target, current_runs, reference, extra, caps.new_codes, log
            )
        elif isinstance(op, ReplaceText):
            assert current_runs is not None
            new_runs, spans = content.apply_edits(
                op.edits, op.path, current_runs, original_runs or current_runs, log, extra, "edits"
            )
            resolved = tuple(spans)
        elif isinstance(op, SetAttribute):
            assert current_runs is not None
            new_runs = self._set_attribute(op, current_runs, caps.writable_attrs)
        elif isinstance(op, Mark):
            assert current_runs is not None
            if op.type not in caps.new_codes:
                raise ChangeError.of(
                    ErrorCode.UNSUPPORTED,
                    f"format {caps.name} cannot add a {op.type} code",
                    capability=f"synthesize:{op.type}",
                    field="type",
                )
            new_runs, span = content.mark_range(
                op.range,
                current_runs,
                original_runs or current_runs,
                log,
                op.type,
                op.attrs or {},
                "range",
            )
            resolved = (span,)
        else:
            raise ChangeError.of(
                ErrorCode.UNSUPPORTED, f"{op.op} is not supported", capability=op.op
            )

        # Guards against the content replaced (a new edition: the authoritative one).
        guard_reference = current_runs if current_runs is not None else block.source
        problem = check_codes(guard_reference, new_runs)
        if problem is not None:
            if report_guards:
                guard_findings.setdefault(index, []).append(
                    Finding(
                        rule=f"guard.{problem.subcode}",
                        message=problem.message,
                        fails=True,
                        at=target.ref,
                    )
                )
            else:
                raise ChangeError(problem)

        if current_runs is not None and new_runs == current_runs:
            rev = edition_rev(block, target.edition)
            return OpResult(
                i=index,
                op=op.op,
                status=OpStatus.UNCHANGED,
                at=target.ref,
                before=before,
                after=rev,
                resolved=resolved,  # type: ignore[arg-type]
            )

        new_block, basis, invalidates = self._write_edition(
            block, target, new_runs, op, change_set, actor, plan
        )
        plan.replace(new_block)
        plan.changed[(target.block_id, target.edition)] = index
        plan.touched_ops.append(index)
        return OpResult(
            i=index,
            op=op.op,
            status=OpStatus.APPLIED,
            at=target.ref,
            before=before,
            after=edition_rev(new_block, target.edition),
            basis=basis,
            resolved=resolved,  # type: ignore[arg-type]
            invalidates=invalidates,
        )

    def _set_content(
        self,
        op: SetContent,
        block: Block,
        target: Target,
        current_runs: Runs | None,
        reference: Runs,
        extra: list[Runs],
        new_codes: Sequence[str],
        log: dict[tuple[PathStep, ...], EditLog],
    ) -> Runs:
        if op.path:
            if current_runs is None:
                raise ChangeError.of(
                    ErrorCode.NOT_FOUND,
                    "the edition does not exist; create it whole first, then edit a branch",
                    field="path",
                )
            branch_reference = content.branch_reference(current_runs, op.path)
            if op.text is not None:
                branch = content.parse_text(op.text, branch_reference, extra, "text")
            else:
                assert op.runs is not None
                branch = content.fill_payload_codes(
                    op.runs, [branch_reference, *extra], new_codes, "runs"
                )
            new_runs = content.set_branch(current_runs, op.path, branch, create=True)
            log.setdefault(tuple(op.path), EditLog()).replaced_whole()
            return new_runs
        if op.text is not None:
            new_runs = content.parse_text(op.text, reference, extra, "text")
        else:
            assert op.runs is not None
            new_runs = content.fill_payload_codes(op.runs, [reference, *extra], new_codes, "runs")
        log.setdefault((), EditLog()).replaced_whole()
        return new_runs

    def _set_attribute(self, op: SetAttribute, runs: Runs, writable: object) -> Runs:
        code = content.find_code(runs, op.code)
        if code is None:
            raise ChangeError.of(
                ErrorCode.NOT_FOUND, f"no code {op.code!r} in this edition", field="code"
            )
        allowed = writable.get(code.type, ()) if isinstance(writable, dict) else ()
        if op.name not in allowed:
            names = ", ".join(allowed) or "none"
            raise ChangeError.of(
                ErrorCode.UNSUPPORTED,
                f"attribute {op.name!r} of a {code.type or 'untyped'} code is not writable "
                f"(writable: {names})",
                capability="set_attribute",
                field="name",
            )
        new_runs, _ = content.set_code_attribute(runs, op.code, op.name, op.value)
        return new_runs

    def _write_edition(
        self,
        block: Block,
        target: Target,
        runs: Runs,
        op: Op,
        change_set: ChangeSet,
        actor: Actor,
        plan: DocPlan,
    ) -> tuple[Block, str | None, tuple[Invalidation, ...] | None]:
        stamp = self.clock() if self.clock is not None else ""
        if not target.edition:
            new_block = block.with_source(runs)
            if block.source_status == "established":
                new_block = evolve(new_block, source_status="written")
            invalidates = tuple(Invalidation(edition=key) for key in sorted(block.targets)) or None
            return new_block, None, invalidates
        authoritative_rev = revision(own_edition_key(block), block.source)
        sent_basis = op.basis if isinstance(op, SetContent) else None
        if change_set.require_basis and sent_basis is not None and sent_basis != authoritative_rev:
            raise ChangeError.of(
                ErrorCode.STALE,
                "the authoritative edition moved since the basis was read; translate it again",
                field="basis",
                current=Current(rev=authoritative_rev, text=render_edit_text(block.source)),
            )
        basis = sent_basis or authoritative_rev
        previous = block.targets.get(target.edition)
        if actor.kind == "tool":
            tool_origin = getattr(op, "origin", None)
            status = "draft"
            origin = Origin(
                kind=(tool_origin.kind or "tool") if tool_origin else "tool",
                tool=tool_origin.tool if tool_origin else actor.name,
                engine=(tool_origin.engine or "") if tool_origin else "",
                at=stamp,
            )
        elif actor.kind == "agent":
            status = "translated"
            origin = Origin(kind="agent", engine=actor.name, reference=actor.session, at=stamp)
        else:
            status = "translated"
            origin = Origin(kind="human", at=stamp)
        if previous is not None and previous.status == "draft" and actor.kind == "tool":
            status = "draft"
        edition = Edition(runs=runs, status=status, basis=basis, origin=origin)
        return block.with_target(target.edition, edition), basis, None


def _named_doc(op: Op) -> str:
    """The document a content op (or a decision) names, as its sender wrote it."""
    assert not isinstance(op, Term | Memory | Recipe)
    return op.doc if isinstance(op, InsertBlock | Native) else op.at.doc


def _op_for_block(plan: DocPlan, block_id: str) -> int:
    for (changed_block, _), index in plan.changed.items():
        if not block_id or changed_block == block_id:
            return index
    return min(plan.changed.values(), default=0)


def _pointed(info: ErrorInfo, index: int) -> ErrorInfo:
    """A refusal of the document an op names points at it (``/ops/N/at/doc``)."""
    if info.pointer is None and info.field in ("at/doc", "doc"):
        return evolve(info, pointer=f"/ops/{index}/{info.field}")
    return info


def _op_for_file(
    change_set: ChangeSet,
    plans: dict[str, DocPlan],
    rendered: dict[str, list[Write]],
    file: str,
) -> int:
    """The first op whose document writes ``file`` (0 when none names it)."""
    docs = {doc for doc, files in rendered.items() if any(w.key == file for w in files)}
    for index, op in enumerate(change_set.ops):
        if _op_doc(op, plans) in docs:
            return index
    return 0


def _op_doc(op: Op, plans: dict[str, DocPlan]) -> str | None:
    doc = getattr(op, "doc", None) or getattr(getattr(op, "at", None), "doc", None)
    for key, plan in plans.items():
        if doc in (key, plan.staged.file) or (doc and plan.staged.joined_file(doc)):
            return key
    return doc


def _with_findings(result: OpResult, findings: list[Finding] | None) -> OpResult:
    if not findings:
        return result
    return evolve(result, findings=tuple(findings))


def _doc_results(
    plans: dict[str, DocPlan],
    written: dict[str, str | None],
    findings: dict[str, list[Finding]],
    rendered: dict[str, list[Write]],
    preview: DocumentHome | None = None,
) -> list[DocResult]:
    """One entry per staged document, then one per joined translation file it writes."""
    out = []
    for doc, plan in plans.items():
        writes = rendered.get(doc, [])
        own = next((w for w in writes if w.file is None), None)
        after = written.get(doc)
        if preview is not None and own is not None:
            after = digest(own.data)
        out.append(
            DocResult(
                doc=doc,
                home=plan.staged.home,
                file=plan.staged.file,
                written=preview is None and after is not None,
                before=plan.staged.head,
                after=after,
                findings=tuple(findings[doc]) if doc in findings else None,
                diff=(preview.diff(own) if own is not None else "")
                if preview is not None
                else None,
            )
        )
        for write in writes:
            if write.file is None:
                continue
            file_after = digest(write.data) if preview is not None else written.get(write.key)
            out.append(
                DocResult(
                    doc=doc,
                    home=plan.staged.home,
                    file=write.file,
                    edition=write.edition,
                    written=preview is None and file_after is not None,
                    before=write.head,
                    after=file_after,
                    diff=preview.diff(write) if preview is not None else None,
                )
            )
    return out


def _refused(
    change_set: ChangeSet,
    refusals: dict[int, ErrorInfo],
    currents: dict[int, Current],
    error: ErrorInfo | None = None,
    docs: Sequence[DocResult] = (),
    findings: dict[int, list[Finding]] | None = None,
) -> Result:
    if not refusals:
        return Result(status=SetStatus.REFUSED, error=error)
    first = min(refusals)
    ops = []
    for index, op in enumerate(change_set.ops):
        if index in refusals:
            ops.append(
                OpResult(
                    i=index,
                    op=op.op,
                    status=OpStatus.REFUSED,
                    at=_echo_ref(op),
                    error=refusals[index],
                    current=currents.get(index),
                    findings=tuple((findings or {}).get(index, ())) or None,
                )
            )
        else:
            ops.append(
                OpResult(
                    i=index,
                    op=op.op,
                    status=OpStatus.NOT_APPLIED,
                    at=_echo_ref(op),
                    blocked_by=first,
                )
            )
    return Result(status=SetStatus.REFUSED, docs=tuple(docs), ops=tuple(ops), error=error)


def _echo_ref(op: Op) -> ResultRef | None:
    at = getattr(op, "at", None)
    if at is not None:
        return ResultRef(doc=at.doc, block=at.block, edition=getattr(at, "edition", None) or None)
    doc = getattr(op, "doc", None)
    return ResultRef(doc=doc) if doc else None
