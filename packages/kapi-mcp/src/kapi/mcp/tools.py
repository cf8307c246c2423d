"""What each tool does: a thin call into the host function the matching CLI verb uses.

A handler takes the call's arguments (already held to the tool's input
schema) and the caller, opens the project the call names, and returns the
result the CLI would print with ``--json``. A refusal is a :class:`ToolRefused`
carrying the payload of the error result.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from attrs import evolve, frozen

from kapi.core.change.ports import Actor, ActorKind
from kapi.core.edittext import TOKEN
from kapi.core.errors import KapiError

__all__ = ["Caller", "ToolRefused", "call_tool", "handles"]

Arguments = Mapping[str, Any]
Payload = dict[str, Any]
READ_PAGE = 100
READ_PAGE_MAX = 1000


@frozen
class Caller:
    """Who is calling and where the server stands: the client, this server's session, the
    project bound at start (``-p``) and the folder the server started in."""

    client: str
    session: str
    project: str | None
    cwd: Path
    progress: Callable[[dict[str, Any]], None] | None = None  # the client asked for progress

    @property
    def actor(self) -> Actor:
        return Actor(kind=ActorKind.AGENT, name=self.client, session=self.session)


class ToolRefused(Exception):
    """A call that could not be served: the error result's payload (``code``, ``message``…)."""

    def __init__(self, payload: Payload) -> None:
        super().__init__(payload.get("message", ""))
        self.payload = payload


def _refused(code: str, message: str, **extra: Any) -> ToolRefused:
    return ToolRefused({"code": code, "message": message, **extra})


@contextmanager
def _refusing() -> Iterator[None]:
    """A host refusal (any KapiError) as the tool's error result, with its code."""
    try:
        yield
    except KapiError as err:
        raise _refused(err.code, str(err)) from None


def _workspace(caller: Caller, arguments: Arguments, *, needs_project: bool = False) -> Any:
    """The workspace a call runs in: its ``project``, else the server's, else discovery."""
    from kapi.host.workspace import open_workspace

    named = arguments.get("project")
    cwd = caller.cwd
    if named:  # a call's own project: its relative paths are taken from the project's folder
        place = (caller.cwd / named).resolve()
        cwd = place if place.is_dir() else place.parent
    try:
        workspace = open_workspace(project=named or caller.project, cwd=cwd)
    except KapiError as err:
        label = f"project {named!r}" if named else "no kapi project"
        raise _refused(err.code, f"{label}: {err}") from None
    _present(workspace, caller)
    if needs_project and workspace.project is None:
        workspace.close()
        raise _refused(
            "not_found",
            "no kapi project: this tool records into a project's store; name one with project "
            "(its kapi.yaml, root folder or any path inside it)",
        )
    return workspace


def _present(workspace: Any, caller: Caller) -> None:
    """The calling agent's session is seen now in the project's store (best effort)."""
    if workspace.project is None:
        return
    try:
        store = workspace.store
        if store is not None:
            store.touch_session(caller.session, caller.client)
    except Exception:  # presence never fails a call
        return


def _strings(arguments: Arguments, name: str) -> tuple[str, ...]:
    return tuple(arguments.get(name) or ())


# --- writing ----------------------------------------------------------------------------


def read_blocks(arguments: Arguments, caller: Caller) -> Payload:
    from kapi.host.inspect import InspectRequest, run_inspect

    doc = arguments["doc"]
    _no_comments(doc, "read_blocks")
    limit = int(arguments.get("limit") or READ_PAGE)
    if not 1 <= limit <= READ_PAGE_MAX:
        raise _refused("invalid", f"limit must be 1 to {READ_PAGE_MAX}", field="limit")
    with _workspace(caller, arguments) as workspace:
        result = run_inspect(InspectRequest(paths=(doc,)), workspace)
        if result.failures:
            failure = result.failures[0]
            raise _refused(
                getattr(failure, "code", "") or "invalid",
                getattr(failure, "message", "") or str(failure),
                doc=doc,
            )
        records = result.encoded()
    wanted = set(_strings(arguments, "blocks"))
    if wanted:
        records = [r for r in records if _keys(r) & wanted]
    start = _cursor(arguments.get("cursor"))
    page = records[start : start + limit]
    following = start + limit
    return {
        "doc": doc,
        "blocks": page,
        "total": len(records),
        "next": str(following) if following < len(records) else None,
    }


def _comment_refusal(doc: str, tool: str) -> Any:
    """The refusal of a read or an edit of a source file kapi reads for its comments."""
    from kapi.host.comments import comment_refusal

    return comment_refusal(doc, tool)


def _no_comments(doc: str, tool: str) -> None:
    refusal = _comment_refusal(doc, tool)
    if refusal is not None:
        error = refusal.error
        raise _refused("unsupported", error.message, capability="comment", field="doc", doc=doc)


def _keys(record: Mapping[str, Any]) -> set[str]:
    ref = record.get("ref") or {}
    return {str(ref.get("block", "")), str(record.get("key", "")), str(record.get("id", ""))}


def _cursor(value: Any) -> int:
    if value in (None, ""):
        return 0
    try:
        found = int(str(value))
    except ValueError:
        found = -1
    if found < 0:
        raise _refused("invalid", f"cursor {value!r} is not one a read returned", field="cursor")
    return found


def apply_edits(arguments: Arguments, caller: Caller) -> Payload:
    from kapi.core.change import wire
    from kapi.host.actor import ResolvedActor
    from kapi.host.apply import apply_change_set

    change_set = {k: v for k, v in arguments.items() if k != "project"}
    for op in change_set.get("ops") or ():
        at = op.get("at") if isinstance(op, Mapping) else None
        if isinstance(at, Mapping) and isinstance(at.get("doc"), str):
            refusal = _comment_refusal(at["doc"], "apply_edits")
            if refusal is not None:
                raise ToolRefused(wire.encode_result(refusal))
    with _workspace(caller, arguments) as workspace:
        outcome = apply_change_set(
            json.dumps(change_set), actor=ResolvedActor(caller.actor), workspace=workspace
        )
    payload: Payload = wire.encode_result(outcome.result)
    if payload.get("status") not in ("applied", "previewed"):
        raise ToolRefused(payload)
    return payload


def describe_format(arguments: Arguments, caller: Caller) -> Payload:
    from kapi.host.formats import describe_format as describe
    from kapi.host.formats import format_of

    name = arguments.get("format")
    doc = arguments.get("doc")
    if bool(name) == bool(doc):
        raise _refused("invalid", "give format or doc, one of them")
    with _refusing():
        if doc:
            name = _format_in_project(str(doc), arguments, caller) or format_of(str(doc))
        return describe(str(name))


def _format_in_project(doc: str, arguments: Arguments, caller: Caller) -> str:
    """The format a document reads as where it sits (a recipe may name one, such as myst)."""
    from kapi.host.documents import FileFailure, read_inputs

    with _workspace(caller, arguments) as workspace:
        for item in read_inputs((doc,), home=workspace.home(), locale=workspace.source_language):
            if isinstance(item, FileFailure):
                raise _refused(item.code or "invalid", item.message, doc=doc)
            return str(item.format)
    return ""


def detect_format(arguments: Arguments, caller: Caller) -> Payload:
    from kapi.host.formats import format_of, list_formats

    path = arguments["path"]
    with _refusing():
        name = format_of(path)
    info = next((f for f in list_formats() if f.name == name), None)
    return {
        "format": name,
        "extensions": list(info.extensions) if info else [],
        "has_reader": bool(info and info.reader),
        "has_writer": bool(info and info.writer),
    }


def list_formats(arguments: Arguments, caller: Caller) -> Payload:
    from kapi.host.formats import list_formats as formats
    from kapi.host.wire import encode

    return {"formats": encode(formats())}


def _check(request: Any, caller: Caller, arguments: Arguments) -> Payload:
    from kapi.core.check.report import encode_report
    from kapi.host.check import run_check

    with _workspace(caller, arguments) as workspace, _refusing():
        outcome = run_check(request, workspace)
    report: Payload = encode_report(outcome.report)
    return report


def _limits(arguments: Arguments) -> dict[str, Any]:
    return {
        "forbid": _strings(arguments, "forbid"),
        "require": _strings(arguments, "require"),
        "max_chars": int(arguments.get("max_chars") or 0),
        "max_words": int(arguments.get("max_words") or 0),
        "profile": arguments.get("profile_file") or arguments.get("profile_pack") or "",
    }


def check_file(arguments: Arguments, caller: Caller) -> Payload:
    from kapi.host.check import CheckRequest

    file = arguments.get("file")
    diff_range = arguments.get("diff_range")
    diff_modes = [arguments.get("diff"), arguments.get("diff_against") or diff_range]
    diff_modes.append(arguments.get("staged") or None)
    if sum(1 for mode in diff_modes if mode) > 1:
        raise _refused("invalid", "diff, diff_against/diff_range and staged exclude one another")
    diffed = any(diff_modes)
    if not file and not diffed:
        raise _refused("invalid", "give file, or a diff mode (diff, diff_against, staged)")
    if diffed and (arguments.get("target") or arguments.get("validate") not in (None, "off")):
        raise _refused("invalid", "a diff-scoped check takes neither target nor validate")
    try:
        request = CheckRequest(
            files=(file,) if file and not diffed else (),
            diff_against=arguments.get("diff_against") or diff_range or None,
            diff_text=arguments.get("diff"),
            staged=bool(arguments.get("staged")),
            target=arguments.get("target"),
            target_lang=arguments.get("target_lang"),
            dnt=_strings(arguments, "dnt"),
            comments=bool(file) and _reads_comments(str(file)),
            **_limits(arguments),
        )
    except KapiError as err:
        raise _refused("invalid", str(err)) from None
    return _check(request, caller, arguments)


def _reads_comments(file: str) -> bool:
    """A source file's check reads its comments (the way to check a comment an agent edited)."""
    from kapi.host.comments import check_reads_comments

    return check_reads_comments(file)


def check_text(arguments: Arguments, caller: Caller) -> Payload:
    from kapi.host.check import CheckRequest

    context_path = arguments.get("context_path")
    if context_path and (arguments.get("profile_file") or arguments.get("profile_pack")):
        raise _refused("invalid", "context_path takes the voice of its folder: omit profile_*")
    request = CheckRequest(
        files=(context_path,) if context_path else (),
        text=arguments["text"],
        format_name="markdown" if not context_path else None,
        **_limits(arguments),
    )
    return _check(request, caller, arguments)


def stats(arguments: Arguments, caller: Caller) -> Payload:
    from kapi.host.inputs import inputs_for
    from kapi.host.stats import StatsRequest, run_stats
    from kapi.host.wire import encode

    with _workspace(caller, arguments) as workspace, _refusing():
        paths = inputs_for(_strings(arguments, "files"), workspace, stdin_is_terminal=True)
        request = StatsRequest(paths=tuple(paths), format_name=arguments.get("format"))
        result = run_stats(request, workspace)
    payload: Payload = encode(result.counts)
    return payload


# --- context ------------------------------------------------------------------------------


def context_read(arguments: Arguments, caller: Caller) -> Payload:
    text, mime = read_context_text(arguments, caller)
    return {"uri": f"context://{arguments['path']}", "mime_type": mime, "text": text}


def read_context_text(arguments: Arguments, caller: Caller) -> tuple[str, str]:
    """The context text at a path (or ``profile/<name>``): Markdown, or JSON when asked."""
    from kapi.host.context import ContextReadRequest, read_context

    path = str(arguments["path"])
    kind = str(arguments.get("format") or "markdown").lower()
    if kind not in ("", "markdown", "md", "text", "json"):
        raise _refused("invalid", f"format {kind!r}: use markdown or json", field="format")
    request = (
        ContextReadRequest(profile=path.removeprefix("profile/"))
        if path.startswith("profile/")
        else ContextReadRequest(path=path.removeprefix("./"))
    )
    with _workspace(caller, arguments) as workspace, _refusing():
        answer = read_context(request, workspace)
    if kind == "json":
        return json.dumps(answer.encoded(), ensure_ascii=False, indent=2), "application/json"
    return answer.markdown(), "text/markdown"


def context_search(arguments: Arguments, caller: Caller) -> Payload:
    from kapi.host.context import ContextSearchRequest, search_context

    request = ContextSearchRequest(
        query=arguments["query"],
        locale=arguments.get("locale") or "",
        limit=int(arguments.get("limit") or 10),
        terms=arguments.get("terms") or "",
        memory=arguments.get("memory") or "",
    )
    with _workspace(caller, arguments) as workspace, _refusing():
        result = search_context(request, workspace)
    payload: Payload = result.encoded()
    return payload


def context_note(arguments: Arguments, caller: Caller) -> Payload:
    from kapi.host.context_ops import ContextNoteRequest, note_context

    request = ContextNoteRequest(
        actor=caller.actor,
        text=arguments.get("text") or "",
        term=arguments.get("term") or "",
        instead_of=_strings(arguments, "instead_of"),
        from_=arguments.get("from") or "",
        to=arguments.get("to") or "",
        suggest=bool(arguments.get("suggest")),
        advisory=bool(arguments.get("advisory")),
        withdraw=arguments.get("withdraw") or arguments.get("operation") or "",
        path=arguments.get("path") or "",
        unit=arguments.get("block") or "",
        quote=arguments.get("quote") or "",
        note=arguments.get("note") or "",
    )
    with _workspace(caller, arguments, needs_project=True) as workspace, _refusing():
        recorded = note_context(request, workspace)
    payload: Payload = recorded.encoded()
    return payload


def context_correct(arguments: Arguments, caller: Caller) -> Payload:
    return context_note(arguments, caller)


def context_observe(arguments: Arguments, caller: Caller) -> Payload:
    return context_note(arguments, caller)


def context_withdraw(arguments: Arguments, caller: Caller) -> Payload:
    return context_note({**arguments, "withdraw": arguments["operation"]}, caller)


def context_session_summary(arguments: Arguments, caller: Caller) -> Payload:
    from kapi.host.context_ops import ContextSessionRequest, session_summary

    request = ContextSessionRequest(session=arguments.get("session") or caller.session)
    with _workspace(caller, arguments, needs_project=True) as workspace, _refusing():
        summary = session_summary(request, workspace)
    payload: Payload = summary.encoded()
    return payload


# --- voice, terms, memory and the first generation's tools ------------------------------------


def _voice_of(arguments: Arguments, caller: Caller) -> str:
    """The ``--voice`` value for profile_pack / profile_file: a pack, or a project profile id."""
    pack, file = arguments.get("profile_pack"), arguments.get("profile_file")
    if pack and file:
        raise _refused("invalid", "give profile_pack or profile_file, not both")
    if pack:
        return f"pack:{pack}"
    if file:
        stem = Path(str(file)).name
        for suffix in (".yaml", ".yml"):
            stem = stem.removesuffix(suffix)
        if Path(str(file)).parent.name != "voices":
            raise _refused(
                "unsupported",
                f"profile_file {file!r}: a voice profile file lives in the project's voices/ "
                "folder (voices/<id>.yaml); name it there, or give profile_pack",
                field="profile_file",
            )
        return stem
    return ""


def _text_report(arguments: Arguments, caller: Caller) -> tuple[str, Payload]:
    from kapi.host.check import CheckRequest

    voice = _voice_of(arguments, caller)
    request = CheckRequest(text=arguments["text"], format_name="markdown", voice=voice)
    return voice.removeprefix("pack:"), _check(request, caller, arguments)


def voice_check(arguments: Arguments, caller: Caller) -> Payload:
    profile, report = _text_report(arguments, caller)
    findings = report.get("findings") or []
    dimensions: dict[str, int] = {}
    for finding in findings:
        family = str(finding.get("rule", "")).split(".")[0]
        dimensions[family] = dimensions.get(family, 0) + 1
    return {
        "profile": profile or _bound_voice(report),
        "score": (report.get("summary") or {}).get("score"),
        "verdict": report.get("verdict"),
        "dimensions": [{"name": k, "findings": v} for k, v in sorted(dimensions.items())],
        "findings": findings,
    }


def _bound_voice(report: Payload) -> str:
    context = report.get("context") or {}
    voice = context.get("voice") if isinstance(context, dict) else None
    if isinstance(voice, dict):
        return str(voice.get("id") or voice.get("name") or "")
    return str(voice or "")


def voice_rewrite(arguments: Arguments, caller: Caller) -> Payload:

    profile, report = _text_report(arguments, caller)
    text = original = str(arguments["text"])
    changes: list[dict[str, Any]] = []
    for finding in report.get("findings") or []:
        metadata = finding.get("metadata") or {}
        found = str(metadata.get("term") or "")
        replacement = finding.get("replacement") or metadata.get("replacement")
        if not found or not isinstance(replacement, str) or found == replacement:
            continue
        pattern = re.compile(r"(?<!\w)" + re.escape(found) + r"(?!\w)", re.IGNORECASE)

        def same_case(match: re.Match[str], new: str = replacement) -> str:
            return new[:1].upper() + new[1:] if match.group(0)[:1].isupper() else new

        text, count = pattern.subn(same_case, text)
        if count:
            changes.append({"from": found, "to": replacement, "count": count})
    return {
        "profile": profile or _bound_voice(report),
        "original": original,
        "rewritten": text,
        "changes": changes,
    }


def brand_guide(arguments: Arguments, caller: Caller) -> Payload:
    text, _ = read_context_text(
        {
            "path": f"profile/{arguments.get('profile_pack') or arguments.get('profile') or ''}",
            **({"project": arguments["project"]} if arguments.get("project") else {}),
        },
        caller,
    )
    return {
        "profile": arguments.get("profile_pack") or arguments.get("profile") or "",
        "guide": text,
    }


def list_formats_first(arguments: Arguments, caller: Caller) -> Payload:
    from kapi.host.formats import list_formats as formats

    rows = [
        {
            "name": f.name,
            "display_name": f.title,
            "extensions": list(f.extensions),
            "mime_types": list(f.mime_types),
            "has_reader": f.reader,
            "has_writer": f.writer,
            "source": "built-in",
        }
        for f in formats()
    ]
    return {"formats": rows, "total": len(rows)}


def _words(text: str) -> int:
    from kapi.host.stats import count_words

    return count_words(text)


def extract_content(arguments: Arguments, caller: Caller) -> Payload:
    from kapi.host.formats import format_of

    page = read_blocks(
        {"doc": arguments["path"], "limit": READ_PAGE_MAX, **_project(arguments)}, caller
    )
    blocks = []
    for record in page["blocks"]:
        text = str(record.get("text", ""))
        codes = record.get("codes") or {}

        def shown(match: re.Match[str], codes: Mapping[str, Any] = codes) -> str:
            """A placeholder as the file spells it, a lone code as the text it stands for,
            a formatting pair as nothing (its text is between its tokens)."""
            code = codes.get(match.group(1) or "") or {}
            if code.get("kind") == "paired":
                return ""
            if code.get("kind") == "placeholder":
                return str(code.get("disp") or code.get("equiv") or "")
            return str(code.get("equiv") or code.get("disp") or "")

        source_text = TOKEN.sub(shown, text)
        if not source_text.strip():
            continue
        words = _words(source_text)
        blocks.append(
            {"id": record["ref"]["block"], "source_text": source_text, "word_count": words}
        )
    return {
        "format": arguments.get("format") or format_of(arguments["path"]),
        "word_count": sum(b["word_count"] for b in blocks),
        "blocks": blocks,
    }


def word_count(arguments: Arguments, caller: Caller) -> Payload:
    counted = stats({"files": [arguments["path"]], **_project(arguments)}, caller)
    total = counted.get("total") or {}
    from kapi.host.formats import format_of

    return {
        "format": arguments.get("format") or format_of(arguments["path"]),
        "word_count": total.get("words", 0),
        "block_count": total.get("blocks", 0),
    }


def _project(arguments: Arguments) -> dict[str, Any]:
    return {"project": arguments["project"]} if arguments.get("project") else {}


def term_lookup(arguments: Arguments, caller: Caller) -> Payload:
    from kapi.host.terms import TermLookupRequest, lookup_term

    locale = arguments.get("source_lang") or None
    with _workspace(caller, arguments, needs_project=True) as workspace, _refusing():
        hits = lookup_term(TermLookupRequest(text=arguments["term"], locale=locale), workspace)
    matches = [
        {"term": h.row.term, "locale": h.row.locale, "status": h.row.status, "match_type": h.tier}
        for h in hits
    ]
    return {"matches": matches, "total": len(matches)}


def tm_search(arguments: Arguments, caller: Caller) -> Payload:
    from kapi.host.memory import MemorySearchRequest, search_memory

    request = MemorySearchRequest(
        text=arguments["text"], source=arguments["source_lang"], target=arguments["target_lang"]
    )
    if "min_score" in arguments:
        request = evolve(request, min_score=float(arguments["min_score"]))
    with _workspace(caller, arguments, needs_project=True) as workspace, _refusing():
        found = search_memory(request, workspace)
    from kapi.host.wire import encode

    payload: Payload = encode(found)
    return payload


# --- translation --------------------------------------------------------------------------


def _first_target(workspace: Any) -> str:
    """The project's first target language: the default ``target_lang`` of a project call."""
    project = workspace.project
    languages = project.target_languages if project is not None else ()
    return str(languages[0]) if languages else ""


def _encoded(result: Any) -> Payload:
    from kapi.host.wire import encode

    encoded = getattr(result, "encoded", None)
    payload: Payload = encoded() if callable(encoded) else encode(result)
    return payload


def translate(arguments: Arguments, caller: Caller) -> Payload:
    from kapi.host.up import TranslateRequest, translate_text

    with _workspace(caller, arguments) as workspace:
        language = arguments.get("target_lang") or _first_target(workspace)
        if not language:
            raise _refused("invalid", "name target_lang (the project declares no target language)")
        request = TranslateRequest(
            to=language, text=arguments["text"], provider=arguments.get("provider") or ""
        )
        with _refusing():
            result = translate_text(request, workspace)
    return _encoded(result)


def _up(arguments: Arguments, caller: Caller, *, plan: bool) -> Payload:
    from kapi.host.up import UpRequest, run_up

    with _workspace(caller, arguments, needs_project=True) as workspace, _refusing():
        request = UpRequest(plan=plan, provider="pseudo" if arguments.get("local") else "")
        result = run_up(request, workspace, caller.progress)
    return _encoded(result)


def up(arguments: Arguments, caller: Caller) -> Payload:
    return _up(arguments, caller, plan=False)


def up_plan(arguments: Arguments, caller: Caller) -> Payload:
    return _up(arguments, caller, plan=True)


def pseudo_translate(arguments: Arguments, caller: Caller) -> Payload:
    from kapi.host.flows import PseudoRequest, run_pseudo

    language = arguments.get("target_lang") or "qps"
    request = PseudoRequest(
        files=(arguments["path"],), to=language, output=arguments.get("output_path") or ""
    )
    with _workspace(caller, arguments) as workspace, _refusing():
        result = run_pseudo(request, workspace)
    written = result.files[0].file if result.files else ""
    return {
        "flow_name": "pseudo-translate",
        "input_path": arguments["path"],
        "output_path": written,
    }


def run_flow(arguments: Arguments, caller: Caller) -> Payload:
    from kapi.host.flows import RunRequest
    from kapi.host.flows import run_flow as run

    languages = (arguments["target_lang"],) if arguments.get("target_lang") else ()
    files = (arguments["path"],) if arguments.get("path") else ()
    with _workspace(caller, arguments) as workspace, _refusing():
        result = run(RunRequest(flow=arguments["flow_name"], to=languages, files=files), workspace)
    return {
        "flow_name": arguments["flow_name"],
        "input_path": arguments.get("path", ""),
        **_encoded(result),
    }


def list_flows(arguments: Arguments, caller: Caller) -> Payload:
    from kapi.host.flows import list_flows as flows

    with _workspace(caller, arguments) as workspace:
        found = flows(workspace)
    rows = [{"name": f.name, "description": f.description} for f in found]
    return {"flows": rows, "total": len(rows)}


def list_tools(arguments: Arguments, caller: Caller) -> Payload:
    from kapi.host.tools import TOOLS

    rows = [
        {"name": t.name, "description": t.description, "source": "built-in"}
        for t in TOOLS
        if not t.cli_only  # a tool that runs a caller's command stays on the command line
    ]
    return {"tools": rows, "total": len(rows)}


def _exec(name: str, text: str, arguments: Arguments, caller: Caller) -> Payload:
    from kapi.host.tools import exec_tool

    with _workspace(caller, arguments) as workspace, _refusing():
        result = exec_tool(name, workspace, text=text, to=arguments.get("target_lang") or "")
    return dict(result.results[0])


def redact(arguments: Arguments, caller: Caller) -> Payload:
    from kapi.host.vault import redact_text

    with _workspace(caller, arguments) as workspace, _refusing():
        return redact_text(
            arguments["text"], workspace, rules_file=arguments.get("rulesPath") or ""
        )


def term_check(arguments: Arguments, caller: Caller) -> Payload:
    source = _exec("term-check", arguments["text"], arguments, caller)
    target = _exec("term-check", arguments["target"], arguments, caller)
    return {"source": source, "target": target, "fails": bool(target.get("fails"))}


# --- review -------------------------------------------------------------------------------


def review_queue(arguments: Arguments, caller: Caller) -> Payload:
    from kapi.host.review import review_queue as pending

    language = arguments.get("language") or arguments.get("locale")
    with _workspace(caller, arguments, needs_project=True) as workspace, _refusing():
        result = pending(workspace, language=language, collection=arguments.get("collection"))
    return result.encoded()


def review_block(arguments: Arguments, caller: Caller) -> Payload:
    from kapi.host.review import review_block as under_review

    at = arguments["at"]
    with _workspace(caller, arguments, needs_project=True) as workspace, _refusing():
        result = under_review(workspace, at["doc"], at["block"], at.get("edition") or "")
    return result.encoded()


HANDLERS: dict[str, Callable[[Arguments, Caller], Payload]] = {
    "review_queue": review_queue,
    "review_block": review_block,
    "read_blocks": read_blocks,
    "apply_edits": apply_edits,
    "describe_format": describe_format,
    "detect_format": detect_format,
    "list_formats": list_formats_first,
    "check_file": check_file,
    "check_text": check_text,
    "stats": stats,
    "context_read": context_read,
    "context_search": context_search,
    "context_note": context_note,
    "context_observe": context_observe,
    "context_correct": context_correct,
    "context_withdraw": context_withdraw,
    "context_session_summary": context_session_summary,
    "voice_check": voice_check,
    "voice_rewrite": voice_rewrite,
    "brand_check": voice_check,
    "brand_rewrite": voice_rewrite,
    "brand_guide": brand_guide,
    "extract_content": extract_content,
    "word_count": word_count,
    "term_lookup": term_lookup,
    "tm_search": tm_search,
    "translate": translate,
    "up": up,
    "up_plan": up_plan,
    "pseudo_translate": pseudo_translate,
    "run_flow": run_flow,
    "list_flows": list_flows,
    "list_tools": list_tools,
    "redact": redact,
    "term-check": term_check,
}


def handles(name: str) -> bool:
    return name in HANDLERS


def call_tool(name: str, arguments: Arguments, caller: Caller) -> Payload:
    """Run one tool; :class:`ToolRefused` when it refuses, with the error payload."""
    handler = HANDLERS.get(name)
    if handler is None:
        raise _refused("unsupported", f"{name} is not served by this kapi yet")
    return handler(arguments, caller)
