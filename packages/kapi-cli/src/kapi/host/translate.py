"""Translating content through the change contract: find the work, leverage memory, translate, write.

A unit is one block in one target language. It is ``missing`` (no target),
``current``, ``stale`` (its source moved since the target was made) or
``draft`` (a tool wrote it and no person has touched it since). kapi stamps
every target a tool writes with the source revision it was made from and the
revision it wrote; a target whose revision no longer matches its stamp is a
person's, and a person's target is never overwritten: when its source moves it
is reported for review. Each document and language lands as one change set
written by the tool actor, so an interrupted run keeps what it finished.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from attrs import evolve, frozen

from kapi.core.model import PcClose, PcOpen, Ph, Plural, Run, Runs, Select
from kapi.host.errors import EXIT_USAGE, HostError

if TYPE_CHECKING:
    from kapi.core.change.ports import Staged
    from kapi.core.model import Block, Document
    from kapi.formats.home import FileHome
    from kapi.host.memory_store import MemoryIndex, Stamp
    from kapi.host.providers.port import Provider
    from kapi.host.redaction import Redactor
    from kapi.host.workspace import Workspace

__all__ = [
    "TOOL_NAME",
    "Unit",
    "UnitOutcome",
    "assemble",
    "classify",
    "project_documents",
    "segments_of",
    "translate_units",
]

TOOL_NAME = "kapi"
Progress = Callable[[dict[str, Any]], None]


@frozen
class Unit:
    """One block in one target language, and what it needs."""

    doc: str
    block: str
    language: str
    state: str  # missing | current | stale | draft-stale | person-stale | draft
    source: Runs
    source_rev: str
    target: Runs | None = None
    target_rev: str = "absent"
    person: bool = False
    forms: tuple[str, ...] = ()  # the plural categories the target's file declares, if it does


@frozen
class UnitOutcome:
    """What became of a unit: ``written``, ``leveraged`` (from memory), ``refused``, ``review``, ``skipped``."""

    doc: str
    block: str
    language: str
    outcome: str
    text: str = ""
    reason: str = ""
    rev: str = ""
    code: str = ""  # a refusal's error code (``stale``, ``guard``, ``unsupported``…)


def languages_for(workspace: Workspace, doc: str) -> tuple[str, ...]:
    project = workspace.project
    if project is None:
        return ()
    return tuple(sorted(project.translation_paths(doc)))


def project_documents(
    workspace: Workspace, docs: Sequence[str] | None = None, *, home: FileHome | None = None
) -> Iterator[Staged]:
    """Each source document of the project (or those named), staged with its translations joined."""
    project = workspace.project
    if project is None:
        return
    home = home or workspace.home()
    for doc in docs if docs is not None else list(project.source_files()):
        yield home.stage(doc)


def declared_plural_forms(home: FileHome, staged: Staged) -> dict[tuple[str, str], tuple[str, ...]]:
    """The plural categories each target's file declares for a block: ``(block, language)``.

    A gettext catalogue names its forms in ``Plural-Forms`` (three for Russian,
    two for French), whatever its language has; a translation gives those, also
    for a plural entry its template gained that the catalogue does not hold yet.
    """
    from kapi.host.project_home import ProjectHome

    documents: list[tuple[str, Document | None]] = [
        (staged.document.target_locale, staged.document)
    ]
    if isinstance(home, ProjectHome):
        documents += [
            (joined.edition, home.translation(staged.doc, joined.edition))
            for joined in staged.joined
        ]
    out: dict[tuple[str, str], tuple[str, ...]] = {}
    for language, document in documents:
        if not language or document is None:
            continue
        for block in document.blocks:
            forms = block.properties.get("plural_forms")
            if forms:
                out[(block.ref_key, language)] = tuple(forms.split())
        if document is not staged.document and document.format == "po":
            from kapi.formats.po import catalogue_plural_forms

            held = {block.ref_key for block in document.blocks}
            for block in staged.document.blocks:
                if block.ref_key not in held and any(isinstance(r, Plural) for r in block.source):
                    out[(block.ref_key, language)] = catalogue_plural_forms(document)
    return out


def source_revision(block: Block) -> str:
    from kapi.core.change.plan import own_edition_key
    from kapi.core.revision import revision

    return revision(own_edition_key(block), block.source)


def classify(
    staged: Staged,
    languages: Sequence[str],
    stamps: dict[tuple[str, str, str], Stamp],
    forms: Mapping[tuple[str, str], tuple[str, ...]] | None = None,
) -> list[Unit]:
    """Every translatable block of ``staged`` in each language, with its state.

    ``forms`` are the plural categories target files declare (:func:`declared_plural_forms`).
    """
    from kapi.core.revision import revision

    declared = forms or {}

    units: list[Unit] = []
    for block in staged.document.blocks:
        if not block.translatable or not has_words(block.source):
            continue
        source_rev = source_revision(block)
        for language in languages:
            edition = block.targets.get(language)
            unit = partial(
                Unit,
                staged.doc,
                block.ref_key,
                language,
                source=block.source,
                source_rev=source_rev,
                forms=declared.get((block.ref_key, language), ()),
            )

            if edition is None:
                units.append(unit(state="missing"))
                continue
            if not edition.runs:  # held but empty (a PO msgstr ""): missing, at its own revision
                units.append(unit(state="missing", target_rev=revision(language, edition.runs)))
                continue
            rev = revision(language, edition.runs)
            stamp = stamps.get((staged.doc, block.ref_key, language))
            if stamp is not None and stamp.kind == "seed" and stamp.rev == rev:
                # a new file kapi started as a copy of its source: not translated yet
                units.append(unit(state="missing", target_rev=rev))
                continue
            tool_made = (
                stamp is not None
                and stamp.kind in ("tool", "pending")
                and (stamp.rev == rev or stamp.kind == "pending")
            )
            # A revision kapi has not seen is a person's work on the source as it stands.
            known = stamp is not None and (stamp.rev == rev or stamp.kind == "pending")
            basis = stamp.basis if known and stamp is not None else source_rev
            moved = basis != source_rev
            if tool_made:
                state = "draft-stale" if moved else "draft"
            else:
                state = "person-stale" if moved else "current"
            units.append(
                unit(state=state, target=edition.runs, target_rev=rev, person=not tool_made)
            )
    return units


def has_words(runs: Runs) -> bool:
    """Whether ``runs`` hold a letter to translate (a block of numbers or codes has none)."""
    from kapi.core.model import plain_text

    return any(ch.isalpha() for ch in plain_text(runs))


def adopt_stamps(
    units: Sequence[Unit], stamps: dict[tuple[str, str, str], Stamp], at: str
) -> list[Stamp]:
    """Stamps for targets first seen, or edited by a person since a tool wrote them.

    A target revision kapi has not seen before (a translation it finds, or a
    person's edit of a draft or of a stale translation) is taken as made from
    the source as it stands: the person worked on it with that source before
    them. A pending stamp (a run stopped between landing and stamping) is the
    tool's.
    """
    from kapi.host.memory_store import Stamp

    out: list[Stamp] = []
    for unit in units:
        if unit.target is None:
            continue
        stamp = stamps.get((unit.doc, unit.block, unit.language))
        if unit.state == "missing":
            continue
        if stamp is not None and stamp.rev == unit.target_rev and stamp.kind != "pending":
            continue
        if stamp is not None and stamp.kind == "pending":
            kind, basis = "tool", stamp.basis
        else:
            kind, basis = "person", unit.source_rev
        out.append(
            Stamp(
                doc=unit.doc,
                block=unit.block,
                edition=unit.language,
                basis=basis,
                rev=unit.target_rev,
                kind=kind,
                tool=stamp.tool if stamp else "",
                at=at,
            )
        )
    return out


# --- segments -------------------------------------------------------------------------


def segments_of(runs: Runs, prefix: str) -> list[tuple[str, Runs]]:
    """The pieces of ``runs`` a provider translates: text-and-code spans, each structure's branches."""
    out: list[tuple[str, Runs]] = []
    span: list[Run] = []
    count = 0

    def flush() -> None:
        nonlocal count
        if span and has_words(tuple(span)):
            out.append((f"{prefix}.{count}", tuple(span)))
        count += 1
        span.clear()

    for index, run in enumerate(runs):
        if isinstance(run, Plural | Select):
            flush()
            branches = run.forms if isinstance(run, Plural) else run.cases
            for name, branch in sorted(branches.items()):
                out.extend(segments_of(branch, f"{prefix}.{index}:{name}"))
        else:
            span.append(run)
    flush()
    return out


def assemble(runs: Runs, prefix: str, translated: dict[str, Runs]) -> Runs:
    """``runs`` with each translated piece put in its place (a piece left out keeps the source)."""
    out: list[Run] = []
    span: list[Run] = []
    count = 0

    def flush() -> None:
        nonlocal count
        key = f"{prefix}.{count}"
        out.extend(translated.get(key, tuple(span)) if span else ())
        count += 1
        span.clear()

    for index, run in enumerate(runs):
        if isinstance(run, Plural):
            flush()
            forms = {
                n: assemble(b, f"{prefix}.{index}:{n}", translated) for n, b in run.forms.items()
            }
            out.append(evolve(run, forms=forms))
        elif isinstance(run, Select):
            flush()
            cases = {
                n: assemble(b, f"{prefix}.{index}:{n}", translated) for n, b in run.cases.items()
            }
            out.append(evolve(run, cases=cases))
        else:
            span.append(run)
    flush()
    return tuple(out)


def wire_runs(runs: Runs) -> Runs:
    """Runs as a change set carries them: a code's native data stays with the format."""
    out: list[Run] = []
    for run in runs:
        if isinstance(run, Ph | PcOpen | PcClose):
            out.append(evolve(run, data=""))
        elif isinstance(run, Plural):
            out.append(evolve(run, forms={k: wire_runs(v) for k, v in run.forms.items()}))
        elif isinstance(run, Select):
            out.append(evolve(run, cases={k: wire_runs(v) for k, v in run.cases.items()}))
        else:
            out.append(run)
    return tuple(out)


# --- translating units ------------------------------------------------------------------


@frozen
class Made:
    """A unit's new target runs and how they were made (``memory`` or the provider's kind)."""

    unit: Unit
    runs: Runs
    kind: str


def translate_units(
    units: Sequence[Unit],
    *,
    provider: Provider,
    index: MemoryIndex | None,
    source_lang: str,
    batch_size: int,
    voice: str = "",
    terms: dict[str, tuple[dict[str, str], ...]] | None = None,
    leverage: bool = True,
    redactor: Redactor | None = None,
) -> tuple[list[Made], list[UnitOutcome]]:
    """New target runs for ``units``: memory's exact matches first, the provider for the rest.

    A unit whose reply a provider got wrong, or whose result fails QA, is
    refused (an outcome with the reason) and nothing of it is written. With a
    ``redactor``, each sensitive value is a placeholder code before anything
    sees the text (its original in the vault, saved first) and its original
    again in the result.
    """
    from kapi.core.edittext import EditTextError, parse_edit_text, render_edit_text
    from kapi.core.plurals import for_language
    from kapi.host.providers.memory import MemoryProvider
    from kapi.host.providers.port import ReplyRefused, Segment, TranslationBatch, reply_problems

    made: list[Made] = []
    refused: list[UnitOutcome] = []
    by_language: dict[str, list[Unit]] = {}
    for unit in units:
        by_language.setdefault(unit.language, []).append(unit)
    for language, group in by_language.items():
        pieces: dict[str, tuple[Unit, Runs]] = {}
        segments: list[Segment] = []
        # each plural with the categories the target language has, not the source's
        shaped = [for_language(unit.source, language, unit.forms or None) for unit in group]
        for number, unit in enumerate(group):
            for key, span in segments_of(shaped[number], f"u{number}"):
                if redactor is not None:
                    span = redactor.redact(span)
                pieces[key] = (unit, span)
                segments.append(Segment(id=key, text=render_edit_text(span), runs=span))
        if redactor is not None:
            redactor.vault.save()  # the originals are kept before any provider is asked
        answers: dict[str, str] = {}
        leveraged: set[str] = set()
        if (
            leverage
            and index is not None
            and provider.name != "memory"
            and index.holds_pair(source_lang, language)
        ):
            batch = TranslationBatch(source_lang, language, tuple(segments))
            answers.update(MemoryProvider(index).translate(batch))
            leveraged = set(answers)
        rest = [s for s in segments if s.id not in answers]
        failed: dict[int, str] = {}
        for start in range(0, len(rest), max(1, batch_size)):
            chunk = tuple(rest[start : start + max(1, batch_size)])
            said = " ".join(segment.text for segment in chunk).casefold()
            batch = TranslationBatch(
                source_lang,
                language,
                chunk,
                voice=voice,
                terms=tuple(
                    term
                    for term in (terms or {}).get(language, ())
                    if term["source"].casefold() in said
                ),
            )
            try:
                reply = provider.translate(batch)
            except ReplyRefused as err:
                for segment in chunk:
                    failed[id(pieces[segment.id][0])] = err.message
                continue
            if provider.name != "memory":
                for key, problem in reply_problems(
                    batch, reply, provider.name, language=provider.name != "pseudo"
                ).items():
                    failed.setdefault(id(pieces[key][0]), problem)
                    reply = {k: v for k, v in reply.items() if k != key}
            answers.update(reply)
        translated: dict[int, dict[str, Runs]] = {}
        for key, text in answers.items():
            unit, span = pieces[key]
            try:
                runs = parse_edit_text(text, span)
                if redactor is not None:
                    runs = redactor.restore(runs)
                translated.setdefault(id(unit), {})[key] = runs
            except EditTextError as err:
                failed[id(unit)] = f"{provider.name}: {err.message}"
            except KeyError as err:
                failed[id(unit)] = f"the vault holds no original for {err.args[0]}; nothing written"
        for number, unit in enumerate(group):
            keys = [key for key, _ in segments_of(shaped[number], f"u{number}")]
            if id(unit) in failed:
                refused.append(_refused(unit, failed[id(unit)]))
                continue
            mine = translated.get(id(unit), {})
            if not keys or any(key not in mine for key in keys):
                if provider.name == "memory":
                    continue  # memory holds no match: the unit stays to do
                refused.append(_refused(unit, f"{provider.name}: no translation came back"))
                continue
            runs = assemble(shaped[number], f"u{number}", mine)
            problem = qa_problem(unit.source, runs, source_lang, language)
            if problem:
                refused.append(_refused(unit, problem))
                continue
            kind = "memory" if all(key in leveraged for key in keys) else provider.name
            made.append(Made(unit=unit, runs=runs, kind=kind))
    return made, refused


def _refused(unit: Unit, reason: str) -> UnitOutcome:
    return UnitOutcome(unit.doc, unit.block, unit.language, "refused", reason=reason)


def qa_problem(source: Runs, target: Runs, source_lang: str, target_lang: str) -> str:
    """The first failing QA issue of a machine-made target, ``""`` when none fails."""
    try:
        from kapi.core.check.qa import qa_issues
    except ImportError:
        return ""
    for issue in qa_issues(
        source, target, source_language=source_lang, target_language=target_lang
    ):
        if issue.fails:
            return f"{issue.rule}: {issue.message}"
    return ""


# --- writing ----------------------------------------------------------------------------


def write_units(
    workspace: Workspace,
    made: Sequence[Made],
    *,
    engine: str,
    index: MemoryIndex | None,
    note: str,
    dry_run: bool = False,
) -> list[UnitOutcome]:
    """Land the new targets of one document; a unit the service refuses is left out and the rest land."""
    outcomes = _write_once(workspace, made, engine=engine, index=index, note=note, dry_run=dry_run)
    refused = [o for o in outcomes if o.outcome == "refused" and o.reason != _BLOCKED]
    if refused and len(refused) < len(made):
        keys = {(o.block, o.language) for o in refused}
        rest = [m for m in made if (m.unit.block, m.unit.language) not in keys]
        return refused + _write_once(
            workspace, rest, engine=engine, index=index, note=note, dry_run=dry_run
        )
    return outcomes


_BLOCKED = "blocked by another unit of the same change set"


def _write_once(
    workspace: Workspace,
    made: Sequence[Made],
    *,
    engine: str,
    index: MemoryIndex | None,
    note: str,
    dry_run: bool = False,
) -> list[UnitOutcome]:
    """Land the new targets of one document as one change set by the tool actor (drafts, with basis)."""
    from kapi.core.change.ops import ChangeSet, Origin, Ref, SetContent
    from kapi.core.change.ports import Actor, ActorKind
    from kapi.core.edittext import render_edit_text
    from kapi.host.actor import ResolvedActor
    from kapi.host.apply import apply_decoded
    from kapi.host.memory_store import Stamp
    from kapi.host.store import now

    if not made:
        return []
    ops = tuple(
        SetContent(
            at=Ref(doc=m.unit.doc, block=m.unit.block, edition=m.unit.language),
            if_match=m.unit.target_rev,
            runs=wire_runs(m.runs),
            basis=m.unit.source_rev,
            origin=Origin(
                tool=TOOL_NAME, kind="memory" if m.kind == "memory" else "mt", engine=engine
            ),
        )
        for m in made
    )
    change_set = ChangeSet(ops=ops, note=note, mode="preview" if dry_run else None)
    at = now()
    if (
        not dry_run and index is not None
    ):  # a run stopped between landing and stamping still knows these were a tool's
        index.put_stamps(
            Stamp(
                m.unit.doc,
                m.unit.block,
                m.unit.language,
                m.unit.source_rev,
                "",
                "pending",
                engine,
                at,
            )
            for m in made
        )
    actor = ResolvedActor(Actor(kind=ActorKind.TOOL, name=TOOL_NAME))
    outcome = apply_decoded(change_set, actor=actor, workspace=workspace)
    result = outcome.result
    outcomes: list[UnitOutcome] = []
    stamps: list[Stamp] = []
    for m, op in zip(made, result.ops or ()):
        text = render_edit_text(m.runs)
        if op.status in ("applied", "unchanged", "previewed"):
            kind = "leveraged" if m.kind == "memory" else "written"
            outcomes.append(
                UnitOutcome(
                    m.unit.doc, m.unit.block, m.unit.language, kind, text=text, rev=op.after or ""
                )
            )
            if op.after and not dry_run:
                stamps.append(
                    Stamp(
                        m.unit.doc,
                        m.unit.block,
                        m.unit.language,
                        m.unit.source_rev,
                        op.after,
                        "tool",
                        engine,
                        at,
                    )
                )
        else:
            reason = (
                op.error.message
                if op.error is not None
                else (result.error.message if result.error is not None else _BLOCKED)
            )
            code = str(op.error.code) if op.error is not None else ""
            outcomes.append(
                UnitOutcome(
                    m.unit.doc, m.unit.block, m.unit.language, "refused", reason=reason, code=code
                )
            )
    if not result.ops and result.error is not None:
        outcomes = [
            UnitOutcome(
                m.unit.doc, m.unit.block, m.unit.language, "refused", reason=result.error.message
            )
            for m in made
        ]
    if not dry_run and index is not None:
        index.put_stamps(stamps)
    return outcomes


def check_language(value: str) -> str:
    """A ``--to`` tag as canonical BCP-47; a usage error for anything else."""
    from kapi.core.edition import EditionKeyError, canonical_locale

    try:
        return canonical_locale(value)
    except EditionKeyError as err:
        raise HostError(f"--to {value!r}: {err}", exit_code=EXIT_USAGE) from None


def progress_printer(as_json: bool, quiet: bool = False) -> Progress:
    """Progress to stderr: NDJSON events with ``--json``, a bar on a terminal, else nothing."""
    import json

    terminal = sys.stderr.isatty()

    def emit(event: dict[str, Any]) -> None:
        if quiet:
            return
        if as_json:
            sys.stderr.write(json.dumps({"event": "progress", **event}, ensure_ascii=False) + "\n")
            sys.stderr.flush()
        elif terminal:
            done, total = event.get("done", 0), max(event.get("total", 0), 1)
            width = 30
            filled = int(width * done / total)
            sys.stderr.write(
                f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {event.get('doc', '')} "
                f"{event.get('language', '')}   "
            )
            if done >= total:
                sys.stderr.write("\n")
            sys.stderr.flush()

    return emit
