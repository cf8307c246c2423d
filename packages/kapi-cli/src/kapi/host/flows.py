"""Flows: named, ordered tool pipelines, built in or declared under the recipe's ``flows:``.

``kapi run FLOW`` turns a flow's steps into one converging run: ``recycle``
leverages memory, ``translate`` (or ``pseudo-translate``) names the provider,
``redact``/``unredact`` keep sensitive text on this machine, ``qa`` reports
what the written targets still get wrong. A recipe flow naming any other tool
is refused when it loads (``command`` runs a command of yours and stays with
``kapi exec``; the text and file tools run there too), never passed over. ``kapi pseudo-translate`` writes
into each target's file in a project, beside the source ad hoc (:mod:`kapi.host.beside`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from attrs import field, frozen

from kapi.host.errors import EXIT_GATE, EXIT_USAGE, HostError
from kapi.host.translate import UnitOutcome

if TYPE_CHECKING:
    from kapi.host.beside import PseudoResult
    from kapi.host.workspace import Workspace

__all__ = [
    "BUILTIN_FLOWS",
    "FLOW_TOOLS",
    "Flow",
    "FlowStep",
    "PseudoRequest",
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


# The tools a flow's steps may name: those `kapi run` runs over a project's units.
FLOW_TOOLS = ("recycle", "translate", "pseudo-translate", "redact", "unredact", "qa")


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
                found = tool_named(tool)
            except HostError:
                raise HostError(
                    f"kapi.yaml: flows.{name} step {number} names the unknown tool {tool!r}; "
                    "see `kapi tools`",
                    exit_code=EXIT_USAGE,
                ) from None
            _runs_in_a_flow(found, f"kapi.yaml: flows.{name} step {number}")
            options = step.get("options", {}) if isinstance(step, Mapping) else {}
            steps.append(FlowStep(tool, dict(options) if isinstance(options, Mapping) else {}))
        flows[str(name)] = Flow(str(name), description, tuple(steps), source="kapi.yaml")
    return list(flows.values())


def _runs_in_a_flow(tool: Any, where: str) -> None:
    """Refuse a step ``kapi run`` would not run: every step of a flow runs, or the flow is
    refused when it loads, never passed over."""
    if tool.cli_only:
        raise HostError(
            f"{where}: {tool.name} runs a command of yours, which a flow never does (a recipe "
            f"travels with the project, and an MCP server runs flows for agents); run it "
            f"yourself with `kapi exec {tool.name}`",
            exit_code=EXIT_USAGE,
        )
    if "units" not in tool.runs_on:
        raise HostError(
            f"{where}: {tool.name} runs on a text or files, not as a step of a flow; "
            f"run it with `kapi exec {tool.name}` (a flow's steps are "
            f"{', '.join(FLOW_TOOLS)})",
            exit_code=EXIT_USAGE,
        )


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
    if languages:
        from kapi.host.translate import languages_for
        from kapi.host.up import refuse_undeclared

        project = workspace.project
        assert project is not None  # _docs refuses a workspace without one
        declared = {
            lang
            for doc in (docs or project.source_files())
            for lang in languages_for(workspace, doc)
        }
        refuse_undeclared(languages, declared, files_named=bool(docs))
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
    from kapi.host.inputs import file_in

    docs = []
    for file in files:
        # held to the project like every file a verb is given: a link leading out is refused
        relpath = project.relative(file_in(workspace, file))
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
    output: str = ""  # where the one file's pseudo-translation goes (default: its target)


def run_pseudo(request: PseudoRequest, workspace: Workspace) -> PseudoResult:
    """Pseudo-translate files into ``request.to`` through the change service."""
    from kapi.host.beside import translate_beside
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
        output=request.output,
    )
