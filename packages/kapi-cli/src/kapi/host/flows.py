"""Flows: named, ordered tool pipelines, built in or declared under the recipe's ``flows:``.

``kapi run FLOW`` turns a flow's steps into one converging run: ``recycle``
leverages memory, ``translate`` (or ``pseudo-translate``) names the provider,
``redact``/``unredact`` keep sensitive text on this machine, ``qa`` reports
what the written targets still get wrong. ``kapi pseudo-translate`` writes
into each target's file in a project, beside the source ad hoc.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from attrs import evolve, field, frozen

from kapi.host.errors import EXIT_GATE, EXIT_USAGE, HostError
from kapi.host.translate import UnitOutcome

if TYPE_CHECKING:
    from kapi.host.workspace import Workspace

__all__ = [
    "BUILTIN_FLOWS",
    "Flow",
    "FlowStep",
    "PseudoRequest",
    "PseudoResult",
    "RunRequest",
    "list_flows",
    "run_flow",
    "run_pseudo",
]


@frozen
class FlowStep:
    tool: str
    options: Mapping[str, Any] = field(factory=dict)


@frozen
class Flow:
    name: str
    description: str
    steps: tuple[FlowStep, ...]
    source: str = "built-in"


def _flow(name: str, description: str, *tools: str) -> Flow:
    return Flow(name, description, tuple(FlowStep(t) for t in tools))


BUILTIN_FLOWS: tuple[Flow, ...] = (
    _flow(
        "translate",
        "Leverage memory, translate the remainder, check the result.",
        "recycle",
        "translate",
        "qa",
    ),
    _flow("translate-qa", "Translate, then check the result.", "translate", "qa"),
    _flow("pseudo-translate", "Pseudo-translate, then check the result.", "pseudo-translate", "qa"),
    _flow("qa", "Check the translations that exist.", "qa"),
    _flow("recycle", "Fill targets from the content memory only.", "recycle"),
    _flow(
        "secure-translate",
        "Redact, translate, unredact: nothing sensitive leaves the machine.",
        "redact",
        "translate",
        "unredact",
    ),
)


def list_flows(workspace: Workspace) -> list[Flow]:
    """The built-in flows, then the recipe's (a recipe flow of the same name replaces the built-in)."""
    from kapi.host.tools import tool_named

    flows = {f.name: f for f in BUILTIN_FLOWS}
    project = workspace.project
    raw = project.raw.get("flows") if project is not None else None
    if raw is None:
        return list(flows.values())
    if not isinstance(raw, Mapping):
        raise HostError(
            "kapi.yaml: flows must map a flow's name to its steps", exit_code=EXIT_USAGE
        )
    for name, body in raw.items():
        steps_raw = body.get("steps") if isinstance(body, Mapping) else body
        description = str(body.get("description", "")) if isinstance(body, Mapping) else ""
        if not isinstance(steps_raw, Sequence) or isinstance(steps_raw, str) or not steps_raw:
            raise HostError(
                f"kapi.yaml: flows.{name}: list its steps, each with a tool", exit_code=EXIT_USAGE
            )
        steps = []
        for number, step in enumerate(steps_raw, start=1):
            tool = step.get("tool") if isinstance(step, Mapping) else step
            if not isinstance(tool, str):
                raise HostError(
                    f"kapi.yaml: flows.{name} step {number} names no tool", exit_code=EXIT_USAGE
                )
            try:
                tool_named(tool)
            except HostError:
                raise HostError(
                    f"kapi.yaml: flows.{name} step {number} names the unknown tool {tool!r}; "
                    "see `kapi tools`",
                    exit_code=EXIT_USAGE,
                ) from None
            options = step.get("options", {}) if isinstance(step, Mapping) else {}
            steps.append(FlowStep(tool, dict(options) if isinstance(options, Mapping) else {}))
        flows[str(name)] = Flow(str(name), description, tuple(steps), source="kapi.yaml")
    return list(flows.values())


@frozen
class RunRequest:
    flow: str
    to: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    provider: str = ""
    options: Any = None
    dry_run: bool = False


@frozen
class FlowResult:
    flow: str
    steps: tuple[str, ...]
    written: int
    leveraged: int
    refused: int
    review: int
    qa: tuple[Mapping[str, str], ...]
    units: tuple[UnitOutcome, ...]

    @property
    def exit_code(self) -> int:
        return EXIT_GATE if self.refused or any(q.get("fails") == "true" for q in self.qa) else 0


def run_flow(request: RunRequest, workspace: Workspace) -> FlowResult:
    """Run a flow over the project's content (or the files named) in the languages named."""
    from kapi.host.translate import check_language
    from kapi.host.up import UpRequest, run_up

    flows = {f.name: f for f in list_flows(workspace)}
    flow = flows.get(request.flow)
    if flow is None:
        raise HostError(
            f"unknown flow {request.flow!r}; the flows are {', '.join(flows)} (see `kapi flows`)",
            exit_code=EXIT_USAGE,
        )
    tools = [step.tool for step in flow.steps]
    languages = tuple(check_language(lang) for lang in request.to)
    docs = _docs(workspace, request.files)
    provider = request.provider
    for step in flow.steps:
        if step.tool == "translate" and step.options.get("provider"):
            provider = provider or str(step.options["provider"])
    if "pseudo-translate" in tools:
        provider = "pseudo"
    elif "translate" not in tools and "recycle" in tools:
        provider = "memory"
    units: tuple[UnitOutcome, ...] = ()
    written = leveraged = refused = review = 0
    if any(t in tools for t in ("translate", "pseudo-translate", "recycle")):
        result = run_up(
            UpRequest(
                provider=provider,
                options=request.options,
                languages=languages,
                docs=docs,
                dry_run=request.dry_run,
                leverage="recycle" in tools or "translate" not in tools,
                redact="redact" in tools,
            ),
            workspace,
        )
        units, written, leveraged, refused = (
            result.units + result.review,
            result.written,
            result.leveraged,
            result.refused,
        )
        review = len(result.review)
    qa = _qa(workspace, docs, languages) if "qa" in tools else ()
    return FlowResult(
        flow=flow.name,
        steps=tuple(tools),
        written=written,
        leveraged=leveraged,
        refused=refused,
        review=review,
        qa=qa,
        units=units,
    )


def _docs(workspace: Workspace, files: Sequence[str]) -> tuple[str, ...]:
    project = workspace.project
    if project is None:
        raise HostError(
            "no project here: `kapi run` works in a project (run `kapi init`); "
            "`kapi exec TOOL --text …` runs one tool anywhere",
            exit_code=1,
        )
    docs = []
    for file in files:
        base = workspace.cwd or Path.cwd()
        relpath = project.relative(base / file)
        if relpath is None:
            raise HostError(f"{file}: outside the project", exit_code=EXIT_USAGE)
        source = project.source_of(relpath)
        docs.append(source[0] if source is not None else relpath)
    return tuple(docs)


def _qa(
    workspace: Workspace, docs: Sequence[str], languages: Sequence[str]
) -> tuple[dict[str, str], ...]:
    from kapi.host.translate import languages_for, project_documents

    try:
        from kapi.core.check.qa import qa_issues
    except ImportError:
        return ()
    out: list[dict[str, str]] = []
    for staged in project_documents(workspace, list(docs) or None):
        for block in staged.document.blocks:
            for language in languages_for(workspace, staged.doc):
                if languages and language not in languages:
                    continue
                edition = block.targets.get(language)
                if edition is None or not block.translatable:
                    continue
                for issue in qa_issues(
                    block.source,
                    edition.runs,
                    source_language=staged.document.locale or workspace.source_language,
                    target_language=language,
                ):
                    out.append(
                        {
                            "doc": staged.doc,
                            "block": block.ref_key,
                            "language": language,
                            "rule": issue.rule,
                            "message": issue.message,
                            "fails": "true" if issue.fails else "false",
                        }
                    )
    return tuple(out)


# --- pseudo-translate -------------------------------------------------------------------


@frozen
class PseudoRequest:
    files: tuple[str, ...] = ()
    to: str = "qps"
    style: str = "accents"
    expansion: float = 0.3
    brackets: bool = True
    dry_run: bool = False


@frozen
class PseudoFile:
    source: str
    file: str
    written: int


@frozen
class PseudoResult:
    language: str
    files: tuple[PseudoFile, ...]
    refused: tuple[UnitOutcome, ...]
    units: tuple[UnitOutcome, ...] = ()

    @property
    def exit_code(self) -> int:
        return EXIT_GATE if self.refused else 0


def beside(relpath: str, source_lang: str, lang: str) -> str:
    """Where an ad hoc translation goes: ``locales/en.json`` -> ``locales/qps.json``,
    ``locales/en/app.json`` -> ``locales/qps/app.json``, else ``guide.md`` -> ``guide.qps.md``."""
    pure = PurePosixPath(relpath)
    base = source_lang.split("-")[0].lower()
    if pure.stem.lower() in (source_lang.lower(), base):
        return str(pure.with_name(lang + pure.suffix))
    parts = list(pure.parts)
    for index in range(len(parts) - 2, -1, -1):
        if parts[index].lower() in (source_lang.lower(), base):
            parts[index] = lang
            return str(PurePosixPath(*parts))
    return str(pure.with_name(f"{pure.stem}.{lang}{pure.suffix}"))


def run_pseudo(request: PseudoRequest, workspace: Workspace) -> PseudoResult:
    """Pseudo-translate files into ``request.to`` through the change service."""
    from kapi.host.providers.port import ProviderOptions
    from kapi.host.providers.registry import make_provider
    from kapi.host.translate import check_language

    language = check_language(request.to)
    provider = make_provider(
        "pseudo",
        ProviderOptions(
            pseudo_style=request.style,
            pseudo_expansion=request.expansion,
            pseudo_brackets=request.brackets,
        ),
    )
    return translate_beside(
        workspace,
        request.files,
        language,
        provider,
        dry_run=request.dry_run,
        overwrite=True,
        note="pseudo-translated with `kapi pseudo-translate`",
    )


def translate_beside(
    workspace: Workspace,
    files: Sequence[str],
    language: str,
    provider: Any,
    *,
    dry_run: bool = False,
    overwrite: bool = False,
    note: str = "translated with `kapi translate`",
    batch_size: int = 40,
) -> PseudoResult:
    """Translate files into each one's target for ``language`` (a project's template, else beside it).

    ``overwrite`` rewrites every unit (pseudo-translation); otherwise only the
    missing ones are translated, so an existing translation is kept.
    """
    from kapi.host.project import Collection, ContentItem, Project, target_path
    from kapi.host.translate import classify, translate_units, write_units

    project = workspace.project
    root = workspace.root
    base = workspace.cwd or Path.cwd()
    if files:
        relpaths = []
        for file in files:
            path = (base / file).resolve()
            try:
                relpaths.append(path.relative_to(root.resolve()).as_posix())
            except ValueError:
                raise HostError(
                    f"{file}: outside the working folder", exit_code=EXIT_USAGE
                ) from None
    elif project is not None:
        relpaths = [doc for doc in project.source_files() if project.translation_paths(doc)]
    else:
        raise HostError("name the files to translate", exit_code=EXIT_USAGE)
    source_lang = workspace.source_language
    items = []
    for relpath in relpaths:
        claimed = project.claim(relpath) if project is not None else None
        if claimed is not None and claimed[1].target:
            target = target_path(claimed[1], relpath, language)
        else:
            target = beside(relpath, source_lang, language)
        items.append((relpath, target))
    synthetic = Project(
        root=root,
        recipe_path=project.recipe_path if project else root / "kapi.yaml",
        id=project.id if project else "",
        name=project.name if project else "",
        source_language=source_lang,
        target_languages=(language,),
        collections=tuple(
            Collection(name=f"beside-{n}", items=(ContentItem(path=relpath, target=target),))
            for n, (relpath, target) in enumerate(items)
        ),
    )
    space = _NoStore(root, synthetic, cwd=workspace.cwd)
    done: list[PseudoFile] = []
    refused: list[UnitOutcome] = []
    units_out: list[UnitOutcome] = []
    try:
        for relpath, target in items:
            target_file = space.home().path_for(target)
            created = False
            if not target_file.exists():
                if dry_run:
                    done.append(PseudoFile(relpath, target, 0))
                    continue
                target_file.parent.mkdir(parents=True, exist_ok=True)
                target_file.write_bytes(space.home().path_for(relpath).read_bytes())
                created = True
            staged = space.home().stage(relpath)
            units = [
                evolve(u, state="missing")
                for u in classify(staged, [language], {})
                if overwrite or created or u.state == "missing"
            ]
            made, bad = translate_units(
                units,
                provider=provider,
                index=None,
                source_lang=source_lang,
                batch_size=batch_size,
                leverage=False,
            )
            outcomes = write_units(
                space, made, engine=provider.engine, index=None, note=note, dry_run=dry_run
            )
            refused.extend(bad)
            refused.extend(o for o in outcomes if o.outcome == "refused")
            units_out.extend(bad)
            units_out.extend(outcomes)
            written = sum(1 for o in outcomes if o.outcome in ("written", "leveraged"))
            if created and not written:
                target_file.unlink()  # nothing landed: leave no copy of the source behind
            done.append(PseudoFile(relpath, target, written))
    finally:
        space.close()
    return PseudoResult(
        language=language, files=tuple(done), refused=tuple(refused), units=tuple(units_out)
    )


def _no_store_workspace() -> type:
    from kapi.host.workspace import Workspace

    class NoStore(Workspace):
        """A workspace over a made-up project: the home joins its targets; no store, no check."""

        @property
        def store(self) -> None:
            return None

        def commit_check(self) -> None:
            return None

    return NoStore


def _NoStore(root: Path, project: Any, *, cwd: Path | None) -> Any:
    return _no_store_workspace()(root, project, cwd=cwd)
