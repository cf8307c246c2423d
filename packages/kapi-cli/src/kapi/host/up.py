"""``kapi up``, ``kapi translate`` and ``kapi status``: converge a project's translations, or say how far they are.

``up`` finds, for each declared target language, the targets that are missing
and the tool drafts whose source moved, leverages the content memory, has a
provider translate the rest, and lands each document and language as one
change set written by the tool actor (drafts, the source revision as basis).
A person's target is never overwritten; when its source moved it is listed
for review. ``--plan`` says what would be done; ``--dry-run`` previews it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from attrs import field, frozen

from kapi.host.errors import EXIT_ERROR, EXIT_GATE, EXIT_UNREACHABLE, EXIT_USAGE, HostError
from kapi.host.translate import Progress, UnitOutcome

if TYPE_CHECKING:
    from kapi.core.change.ports import Staged
    from kapi.host.memory_store import MemoryIndex
    from kapi.host.providers.port import ProviderOptions
    from kapi.host.redaction import Redactor
    from kapi.host.workspace import Workspace

__all__ = [
    "LanguageStatus",
    "StatusResult",
    "TranslateRequest",
    "TranslateResult",
    "UpRequest",
    "UpResult",
    "project_status",
    "run_translate",
    "run_up",
    "translate_text",
]


@frozen
class UpRequest:
    """What ``kapi up`` converges: the provider, the languages (empty: all declared), the documents."""

    provider: str = ""
    options: ProviderOptions | None = None
    languages: tuple[str, ...] = ()
    docs: tuple[str, ...] = ()
    plan: bool = False
    dry_run: bool = False
    leverage: bool = True
    redact: bool = False


@frozen
class LanguagePlan:
    language: str
    missing: int
    stale: int
    review: int
    current: int
    waiting: int = 0  # to translate once a person establishes its source (translate_after)


@frozen
class UpResult:
    """What ``kapi up --json`` prints: per language the work, and every unit done, refused or to review."""

    provider: str
    plan: bool
    dry_run: bool
    languages: tuple[LanguagePlan, ...]
    written: int
    leveraged: int
    refused: int
    review: tuple[UnitOutcome, ...]
    units: tuple[UnitOutcome, ...] = field(factory=tuple)

    @property
    def exit_code(self) -> int:
        """0 done; 3 when a unit was refused; 5 when nothing landed because a file could not
        be written (a full disk, no free inodes, a size limit: ``unreachable``), as
        ``kapi apply`` exits for the same refusal (what landed makes it partial, 3)."""
        return refused_exit_code(self.refused, self.written + self.leveraged, self.units)


def refused_exit_code(refused: int, landed: int, units: Sequence[UnitOutcome]) -> int:
    """The exit code of a run that wrote ``landed`` units and refused ``refused``."""
    if not refused:
        return 0
    if not landed and any(u.outcome == "refused" and u.code == "unreachable" for u in units):
        return EXIT_UNREACHABLE
    return EXIT_GATE


def provider_name(workspace: Workspace, name: str) -> str:
    if name:
        return name
    project = workspace.project
    defaults = (project.raw.get("defaults") or {}) if project is not None else {}
    value = defaults.get("provider") if isinstance(defaults, dict) else None
    if isinstance(value, str) and value:
        return value
    raise HostError(
        "which provider? pass --provider pseudo|memory|openai|anthropic|deepl "
        "(or set defaults.provider in kapi.yaml)",
        exit_code=EXIT_USAGE,
    )


def _options(workspace: Workspace, options: ProviderOptions | None) -> ProviderOptions:
    import os

    from attrs import evolve

    from kapi.host.providers.port import ProviderOptions

    chosen = options or ProviderOptions()
    if not chosen.environ:
        chosen = evolve(chosen, environ=dict(os.environ))
    project = workspace.project
    defaults = (project.raw.get("defaults") or {}) if project is not None else {}
    model = defaults.get("model") if isinstance(defaults, dict) else None
    if not chosen.model and isinstance(model, str):
        chosen = evolve(chosen, model=model)
    return chosen


def _waiting_sources(workspace: Workspace, staged: Staged) -> set[str]:
    """The blocks of ``staged`` whose source no person has established, when the recipe has
    translation wait for that (``defaults.translate_after: established``)."""
    from kapi.host.review import established
    from kapi.host.translate import source_revision

    project, store = workspace.project, workspace.store
    if project is None or project.translate_after != "established":
        return set()
    return {
        block.ref_key
        for block in staged.document.blocks
        if block.translatable
        and not (
            store is not None
            and established(store.decisions(staged.doc, block.ref_key, ""), source_revision(block))
        )
    }


def _redactor(workspace: Workspace) -> Redactor:
    """What keeps sensitive values from a provider: the detectors and the project's vault."""
    from kapi.host.redaction import Redactor, detector_for
    from kapi.host.vault import Vault

    return Redactor(detector_for(workspace.project), Vault.of(workspace))


def _require_project(workspace: Workspace, verb: str) -> None:
    if workspace.project is None:
        raise HostError(
            f"no project here: `kapi {verb}` converges a project's translations; run `kapi init` "
            "first (or point at a project with -p)",
            exit_code=EXIT_ERROR,
        )


def terms_for(
    workspace: Workspace, languages: Sequence[str]
) -> dict[str, tuple[dict[str, str], ...]]:
    """The terms a provider is told, per target language: source wording -> required wording."""
    store = workspace.store
    if store is None:
        return {}
    out: dict[str, list[dict[str, str]]] = {language: [] for language in languages}
    source = workspace.source_language
    for concept in store.concepts():
        wordings = [t for t in concept.terms if t.locale == source and t.status != "forbidden"]
        if not wordings:
            continue
        for language in languages:
            if concept.do_not_translate:
                out[language].append({"source": wordings[0].text, "target": wordings[0].text})
                continue
            chosen = [t for t in concept.terms if t.locale.split("-")[0] == language.split("-")[0]]
            preferred = [t for t in chosen if t.status in ("preferred", "admitted")]
            if preferred:
                out[language].append({"source": wordings[0].text, "target": preferred[0].text})
    return {language: tuple(terms) for language, terms in out.items()}


def refuse_undeclared(
    languages: Sequence[str], declared: Iterable[str], *, files_named: bool
) -> None:
    """A usage error naming each of ``languages`` (``--to``) the files do not translate into."""
    declared = set(declared)
    unknown = [lang for lang in languages if lang not in declared]
    if unknown:
        where = "these files" if files_named else "this project"
        raise HostError(
            f"--to {', '.join(unknown)}: not a target language of {where} (declared: "
            f"{', '.join(sorted(declared)) or 'none'}); add it to target_languages "
            "in kapi.yaml",
            exit_code=EXIT_USAGE,
        )


def run_up(request: UpRequest, workspace: Workspace, progress: Progress | None = None) -> UpResult:
    """Converge the project's translations (see the module's docstring)."""
    from kapi.host.memory import memory_index
    from kapi.host.providers.registry import make_provider
    from kapi.host.store import now
    from kapi.host.translate import (
        adopt_stamps,
        classify,
        declared_plural_forms,
        languages_for,
        project_documents,
        translate_units,
        write_units,
    )

    _require_project(workspace, "up")
    assert workspace.project is not None
    name = (
        "" if request.plan and not request.provider else provider_name(workspace, request.provider)
    )
    options = _options(workspace, request.options)
    redactor = _redactor(workspace) if request.redact and not request.plan else None
    index = memory_index(workspace)
    try:
        provider = None if request.plan else make_provider(name, options, memory=index)
        stamps = index.stamps()
        docs = list(request.docs) or list(workspace.project.source_files())
        home = workspace.home()
        staged_docs = [
            s
            for s in project_documents(workspace, docs, home=home)
            if languages_for(workspace, s.doc)
        ]
        declared = {lang for s in staged_docs for lang in languages_for(workspace, s.doc)}
        refuse_undeclared(request.languages, declared, files_named=bool(request.docs))
        plans: dict[str, dict[str, int]] = {}
        work: list[tuple[Staged, list[Any]]] = []
        review: list[UnitOutcome] = []
        adopted = []
        feed: list[list[tuple[str, str]]] = []
        for staged in staged_docs:
            languages = [
                lang
                for lang in languages_for(workspace, staged.doc)
                if not request.languages or lang in request.languages
            ]
            units = classify(staged, languages, stamps, declared_plural_forms(home, staged))
            adopted.extend(adopt_stamps(units, stamps, now()))
            todo = []
            waiting = _waiting_sources(workspace, staged)
            for unit in units:
                counts = plans.setdefault(
                    unit.language,
                    {"missing": 0, "stale": 0, "review": 0, "current": 0, "waiting": 0},
                )
                if unit.state in ("missing", "draft-stale") and unit.block in waiting:
                    counts["waiting"] += 1
                elif unit.state == "missing":
                    counts["missing"] += 1
                    todo.append(unit)
                elif unit.state == "draft-stale":
                    counts["stale"] += 1
                    todo.append(unit)
                elif unit.state == "person-stale":
                    counts["review"] += 1
                    review.append(
                        UnitOutcome(
                            unit.doc,
                            unit.block,
                            unit.language,
                            "review",
                            reason="its source changed since this translation was made; "
                            "a person's translation is not overwritten: review it",
                        )
                    )
                else:
                    counts["current"] += 1
            if todo:
                work.append((staged, todo))
            feed.extend(_person_pairs(staged, units))
        if not request.plan and not request.dry_run:
            if adopted:
                index.put_stamps(adopted)
            if feed and request.leverage:  # a person's translations feed memory as they are found
                index.add_entries(feed, actor="tool/kapi", origin="project", at=now())
        planned = tuple(
            LanguagePlan(language=lang, **counts) for lang, counts in sorted(plans.items())
        )
        if request.plan or provider is None:
            return UpResult(
                provider=name,
                plan=True,
                dry_run=request.dry_run,
                languages=planned,
                written=0,
                leveraged=0,
                refused=0,
                review=tuple(review),
            )
        outcomes: list[UnitOutcome] = []
        total = sum(len(todo) for _, todo in work)
        done = 0
        voice = ""
        terms = terms_for(workspace, sorted(plans))
        for staged, todo in work:
            by_language: dict[str, list[Any]] = {}
            for unit in todo:
                by_language.setdefault(unit.language, []).append(unit)
            started: set[str] = set()  # languages whose file this run started from its source
            for language, units in _landing_units(by_language, name, options.batch_size):
                joined = next((j for j in staged.joined if j.edition == language), None)
                unborn = joined is not None and joined.head is None
                try:
                    if not request.dry_run and _seed_missing_file(
                        workspace, staged, language, index
                    ):
                        started.add(language)
                    seeded = language in started
                except _CannotStart as why:
                    outcomes.extend(
                        UnitOutcome(u.doc, u.block, u.language, "refused", reason=str(why))
                        for u in units
                    )
                    done += len(units)
                    continue
                if provider.name in ("openai", "anthropic"):
                    voice = voice_brief_at(workspace, staged, language)
                made, refused = translate_units(
                    units,
                    provider=provider,
                    index=index,
                    source_lang=staged.document.locale or workspace.source_language,
                    batch_size=options.batch_size,
                    voice=voice,
                    terms=terms,
                    leverage=request.leverage,
                    redactor=redactor,
                )
                outcomes.extend(refused)
                if (
                    request.dry_run and unborn
                ):  # its file does not exist yet: say what it would hold
                    outcomes.extend(_would_write(made))
                    made = []
                note = f"translated with `kapi up` ({provider.engine})"
                # A file just started as a copy of its source holds the source's runs.
                first = _as_copied(made, language) if seeded else made
                landed = write_units(
                    workspace,
                    first,
                    engine=provider.engine,
                    index=index,
                    note=note,
                    dry_run=request.dry_run,
                )
                if seeded and any(o.code == "stale" for o in landed):
                    landed = write_units(
                        workspace,
                        _refreshed(workspace, staged, made, index),
                        engine=provider.engine,
                        index=index,
                        note=note,
                        dry_run=request.dry_run,
                    )
                outcomes.extend(landed)
                done += len(units)
                if progress is not None:
                    progress(
                        {"doc": staged.doc, "language": language, "done": done, "total": total}
                    )
        written = sum(1 for o in outcomes if o.outcome == "written")
        leveraged = sum(1 for o in outcomes if o.outcome == "leveraged")
        refused_count = sum(1 for o in outcomes if o.outcome == "refused")
        return UpResult(
            provider=name,
            plan=False,
            dry_run=request.dry_run,
            languages=planned,
            written=written,
            leveraged=leveraged,
            refused=refused_count,
            review=tuple(review),
            units=tuple(outcomes),
        )
    finally:
        index.close()


def _person_pairs(staged: Staged, units: Sequence[Any]) -> list[list[tuple[str, str]]]:
    """Source/target pairs of a person's current translations whose codes agree."""
    from kapi.core.edittext import TOKEN, render_edit_text

    source_locale = staged.document.locale or "en"
    pairs: list[list[tuple[str, str]]] = []
    for unit in units:
        if not unit.person or unit.state != "current" or unit.target is None:
            continue
        source, target = render_edit_text(unit.source), render_edit_text(unit.target)
        if target.strip() and sorted(TOKEN.findall(source)) == sorted(TOKEN.findall(target)):
            pairs.append([(source_locale, source), (unit.language, target)])
    return pairs


def voice_brief_at(workspace: Workspace, staged: Staged, language: str) -> str:
    """The voice brief that holds at a target's point (its source's place, its language), or ``""``."""
    from kapi.core.errors import KapiError

    try:
        from kapi.host.context import ContextReadRequest, read_context

        answer = read_context(ContextReadRequest(path=staged.doc, locale=language), workspace)
    except (KapiError, ImportError, OSError):
        return ""
    return "\n".join(answer.voice_brief)


REMOTE_PROVIDERS = ("openai", "anthropic", "deepl")
LANDING_BATCHES = 5


def _landing_units(
    by_language: dict[str, list[Any]], provider: str, batch_size: int
) -> list[tuple[str, list[Any]]]:
    """The units of each language in the groups that land as one change set.

    An offline provider's language lands whole; a remote one's every few
    batches, so a run stopped midway keeps what the API already answered.
    """
    out: list[tuple[str, list[Any]]] = []
    for language, units in sorted(by_language.items()):
        size = max(1, batch_size) * LANDING_BATCHES if provider in REMOTE_PROVIDERS else len(units)
        out.extend((language, units[i : i + size]) for i in range(0, len(units), max(size, 1)))
    return out


class _CannotStart(Exception):
    """A target file kapi cannot start as a copy of its source (the reason is the message)."""


def _seed_missing_file(
    workspace: Workspace, staged: Staged, language: str, index: MemoryIndex
) -> bool:
    """Start a target file that does not exist yet as a copy of its source (its blocks marked seed).

    The copy's blocks are not translations: they stay ``missing`` until written,
    so a run stopped here starts again from the copy.
    """
    joined = next((j for j in staged.joined if j.edition == language), None)
    if joined is None or joined.head is not None:
        return False
    from kapi.formats import registry

    if registry.get(staged.capabilities.name).interchange:
        # A copy of a PO template or an XLIFF file would not say its language: it needs its tool.
        raise _CannotStart(
            f"{joined.file} does not exist yet; create it for {language} with the format's own "
            "tool (msginit for PO, say) and run kapi up again"
        )
    from kapi.core.revision import revision
    from kapi.host.memory_store import Stamp
    from kapi.host.store import now

    assert workspace.project is not None
    target = workspace.home().path_for(joined.file)
    source = workspace.home().path_for(staged.doc)
    if target.exists():
        return False
    at = now()
    index.put_stamps(
        Stamp(
            staged.doc,
            block.ref_key,
            language,
            "",
            revision(language, block.source),
            "seed",
            "",
            at,
        )
        for block in staged.document.blocks
    )
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(source.read_bytes())
    return True


def _would_write(made: Sequence[Any]) -> list[UnitOutcome]:
    from kapi.core.edittext import render_edit_text

    return [
        UnitOutcome(
            m.unit.doc,
            m.unit.block,
            m.unit.language,
            "leveraged" if m.kind == "memory" else "written",
            text=render_edit_text(m.runs),
        )
        for m in made
    ]


def _as_copied(made: Sequence[Any], language: str) -> list[Any]:
    """The made units with the revision a copy of their source has in ``language``."""
    from attrs import evolve

    from kapi.core.revision import revision

    return [
        evolve(m, unit=evolve(m.unit, target_rev=revision(language, m.unit.source)))
        if m.unit.target_rev == "absent"
        else m
        for m in made
    ]


def _refreshed(
    workspace: Workspace, staged: Staged, made: list[Any], index: MemoryIndex
) -> list[Any]:
    """The made units with the target revision the file holds now (a seeded copy has one)."""
    from attrs import evolve

    from kapi.core.revision import revision

    if not made or all(m.unit.target_rev != "absent" for m in made):
        return made
    fresh = workspace.home().stage(staged.doc)
    blocks = {b.ref_key: b for b in fresh.document.blocks}
    out = []
    for m in made:
        block = blocks.get(m.unit.block)
        edition = block.targets.get(m.unit.language) if block is not None else None
        if edition is not None and edition.runs and m.unit.target_rev == "absent":
            m = evolve(m, unit=evolve(m.unit, target_rev=revision(m.unit.language, edition.runs)))
        out.append(m)
    return out


# --- translate --------------------------------------------------------------------------


@frozen
class TranslateRequest:
    """``kapi translate``: one file (or ``text``) into one language."""

    to: str
    file: str = ""
    text: str | None = None
    provider: str = ""
    options: ProviderOptions | None = None
    dry_run: bool = False
    source_lang: str = ""


@frozen
class TranslateResult:
    language: str
    provider: str
    text: str | None = None
    target_file: str = ""
    written: int = 0
    leveraged: int = 0
    refused: int = 0
    review: int = 0
    units: tuple[UnitOutcome, ...] = ()

    @property
    def exit_code(self) -> int:
        """As ``kapi up``'s (:attr:`UpResult.exit_code`)."""
        return refused_exit_code(self.refused, self.written + self.leveraged, self.units)


def translate_text(request: TranslateRequest, workspace: Workspace) -> TranslateResult:
    """Translate one text (codes as ``<x id="…"/>`` tokens are kept); nothing is written."""
    from kapi.core.edittext import TOKEN
    from kapi.core.model import PcClose, PcOpen, Ph, Text
    from kapi.host.providers.port import Segment, TranslationBatch, check_reply
    from kapi.host.providers.registry import make_provider
    from kapi.host.translate import check_language

    language = check_language(request.to)
    name = provider_name(workspace, request.provider)
    options = _options(workspace, request.options)
    index = None
    if name == "memory":
        from kapi.host.memory import memory_index

        index = memory_index(workspace)
    try:
        provider = make_provider(name, options, memory=index)
        text = request.text or ""
        runs: list[Any] = []
        position = 0
        for match in TOKEN.finditer(text):
            if match.start() > position:
                runs.append(Text(text[position : match.start()]))
            token = match.group(1)
            if token.endswith("/"):
                runs.append(Ph(id=token[:-1]))
            elif token.startswith("/"):
                runs.append(PcClose(id=token[1:]))
            else:
                runs.append(PcOpen(id=token))
            position = match.end()
        if position < len(text):
            runs.append(Text(text[position:]))
        segment = Segment(id="1", text=text, runs=tuple(runs))
        batch = TranslationBatch(
            request.source_lang or workspace.source_language,
            language,
            (segment,),
            terms=terms_for(workspace, [language]).get(language, ()),
        )
        reply = provider.translate(batch)
        check_reply(batch, reply, provider.name, language=provider.name != "pseudo")
    finally:
        if index is not None:
            index.close()
    return TranslateResult(language=language, provider=name, text=reply["1"])


def run_translate(
    request: TranslateRequest, workspace: Workspace, progress: Progress | None = None
) -> TranslateResult:
    """Translate one file of the project into one of its target languages, as ``up`` does."""
    from kapi.host.translate import check_language

    if request.text is not None:
        return translate_text(request, workspace)
    language = check_language(request.to)
    if workspace.project is None:
        return _translate_ad_hoc(request, language, workspace)
    project = workspace.project
    assert project is not None
    from kapi.formats.containment import inside
    from kapi.host.inputs import file_in

    path = file_in(workspace, request.file)
    relpath = inside(project.root.resolve(), path)
    if not path.is_file():
        raise HostError(
            f"{request.file}: no such file" if not path.exists() else f"{request.file}: not a file",
            exit_code=EXIT_USAGE,
            code="not_found",
        )
    source = project.source_of(relpath)
    doc = source[0] if source is not None else relpath
    paths = project.translation_paths(doc)
    if language not in paths:
        claimed = project.claim(doc)
        if claimed is None:
            why = "it is not in any collection of kapi.yaml; add it to one that has a target"
        elif claimed[0].source_only:
            why = f"its collection {claimed[0].name!r} is source_only: its files are not translated"
        elif not claimed[1].target:
            why = (
                f"its content item in collection {claimed[0].name!r} names no target: add "
                "`target:` (where each language's file goes) to it in kapi.yaml"
            )
        else:
            declared = ", ".join(sorted(paths)) or "none"
            why = (
                f"{language} is not a target language of this file (declared: {declared}); "
                "add it to target_languages in kapi.yaml"
            )
        raise HostError(f"{request.file}: {why}", exit_code=EXIT_USAGE)
    result = run_up(
        UpRequest(
            provider=request.provider,
            options=request.options,
            languages=(language,),
            docs=(doc,),
            dry_run=request.dry_run,
        ),
        workspace,
        progress,
    )
    return TranslateResult(
        language=language,
        provider=result.provider,
        target_file=paths[language],
        written=result.written,
        leveraged=result.leveraged,
        refused=result.refused,
        review=len(result.review),
        units=result.units + result.review,
    )


def _translate_ad_hoc(
    request: TranslateRequest, language: str, workspace: Workspace
) -> TranslateResult:
    """Outside a project: the translation goes beside the source; only missing units are made."""
    from kapi.host.beside import translate_beside
    from kapi.host.providers.registry import make_provider

    name = provider_name(workspace, request.provider)
    options = _options(workspace, request.options)
    if name == "memory":
        raise HostError(
            "the memory provider needs a project's memory; run `kapi init` first",
            exit_code=EXIT_USAGE,
        )
    result = translate_beside(
        workspace,
        (request.file,),
        language,
        make_provider(name, options),
        dry_run=request.dry_run,
        batch_size=options.batch_size,
    )
    target = result.files[0]
    return TranslateResult(
        language=language,
        provider=name,
        target_file=target.file,
        written=target.written,
        refused=len(result.refused),
        units=result.units,
    )


# --- status -----------------------------------------------------------------------------


@frozen
class LanguageStatus:
    """One target language in one collection (``collection`` empty: the language over all)."""

    language: str
    total: int
    translated: int
    missing: int
    stale: int
    draft: int
    established: int
    collection: str = ""


@frozen
class StatusResult:
    """What ``kapi status --json`` prints."""

    languages: tuple[LanguageStatus, ...]
    collections: tuple[LanguageStatus, ...]
    notices: tuple[str, ...] = ()

    exit_code = 0


def project_status(workspace: Workspace) -> StatusResult:
    """Per target language and collection: total, translated, missing, stale, draft, established."""
    from kapi.host.memory import memory_index
    from kapi.host.translate import classify, languages_for, project_documents

    if workspace.project is None:
        return StatusResult((), (), notices=("no project here: run `kapi init` first",))
    project = workspace.project
    notices: list[str] = []
    try:
        index = memory_index(workspace)
        try:
            stamps = index.stamps()
        finally:
            index.close()
    except HostError as err:
        notices.append(err.message)
        stamps = {}
    counts: dict[tuple[str, str], dict[str, int]] = {}
    store = workspace.store
    for doc in project.source_files():
        claimed = project.claim(doc)
        collection = claimed[0].name if claimed is not None else ""
        languages = languages_for(workspace, doc)
        if not languages:
            continue
        try:
            staged = next(project_documents(workspace, [doc]))
        except Exception as err:  # a file that cannot be read is named, never a traceback
            notices.append(f"{doc}: {err}")
            continue
        for unit in classify(staged, languages, stamps):
            for key in ((unit.language, ""), (unit.language, collection)):
                row = counts.setdefault(
                    key,
                    dict.fromkeys(
                        ("total", "translated", "missing", "stale", "draft", "established"), 0
                    ),
                )
                row["total"] += 1
                if unit.state == "missing":
                    row["missing"] += 1
                    continue
                if unit.state in ("draft-stale", "person-stale"):
                    row["stale"] += 1
                else:
                    row["translated"] += 1
                if unit.state in ("draft", "draft-stale"):
                    row["draft"] += 1
                if store is not None and any(
                    d["outcome"] == "establish" and d["rev"] == unit.target_rev
                    for d in store.decisions(unit.doc, unit.block, unit.language)
                ):
                    row["established"] += 1
    for language in project.target_languages:
        counts.setdefault(
            (language, ""),
            dict.fromkeys(("total", "translated", "missing", "stale", "draft", "established"), 0),
        )
    per_language = tuple(
        LanguageStatus(lang, **row)  # type: ignore[arg-type]
        for (lang, coll), row in sorted(counts.items())
        if not coll
    )
    collections = tuple(
        LanguageStatus(lang, collection=coll, **row)
        for (lang, coll), row in sorted(counts.items(), key=lambda kv: (kv[0][1], kv[0][0]))
        if coll
    )
    return StatusResult(languages=per_language, collections=collections, notices=tuple(notices))
