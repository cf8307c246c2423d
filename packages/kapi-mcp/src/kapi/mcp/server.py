"""The stdio server: the served tool list, argument checking, the context resources.

Every call is held to its tool's input schema before it runs (an undeclared
argument such as ``actor`` is an error result naming it); a tool's result is
``structuredContent`` mirrored as JSON text, written with non-ASCII kept and no
HTML escaping so ``<x id="1"/>`` arrives as written. The host work runs in a
worker thread, so one slow call does not hold the others.
"""

from __future__ import annotations

import functools
import json
import secrets
import sys
from pathlib import Path
from typing import Any

from attrs import evolve, frozen

from kapi.host.version import VERSION
from kapi.mcp.instructions import INSTRUCTIONS
from kapi.mcp.resources import TEMPLATES, ContextAddress, parse_context_uri
from kapi.mcp.schemas import input_schema, output_schema
from kapi.mcp.sets import served_tools
from kapi.mcp.tools import Caller, ToolRefused, call_tool, read_context_text

__all__ = ["ServerOptions", "build_server", "serve"]


@frozen
class ServerOptions:
    """What the server serves and for which project."""

    sets: frozenset[str]
    all_tools: bool = False
    all_flows: bool = False
    project: str | None = None
    cwd: Path = Path(".")


DESCRIPTIONS = {
    "context_read": "What applies where a file is about to be written: the voice, the terms and "
    "the rules in force there, and suggestions awaiting a person (same text as context://<path>).",
    "context_search": "What the project says about one word: its name, discouraged forms and "
    "their replacement, approved wording, and suggestions.",
    "context_note": "Record one thing the files keep to that the rules omit, even where your own "
    "text does not need it: a name, the spelling variety, a word preferred over a common "
    "alternative, with the path it is seen in; leave alone a word the files write two ways. "
    "Record a person's edit with from, to and path; withdraw takes back a mistake. A person "
    "decides what becomes a rule.",
    "context_session_summary": "What this session recorded, and the command a person reviews it with.",
    "check_file": "Check a saved file (or only the blocks a diff changes) against the voice and "
    "terms that hold where it sits; returns a kapi.check/v2 report.",
    "read_blocks": "A page of a document's blocks: ref and rev, text with inline codes as "
    '<x id="…"/>, the codes and what they stand for, other editions, and the ops each accepts.',
    "apply_edits": "Apply a kapi.change/v1 change set: each op guarded by the rev it read; the "
    "set lands whole or not at all and says why when refused.",
    "describe_format": "What a change set may do to a format (or a document's format).",
    "check_text": "Check a draft before it is written, under the voice and terms of the place "
    "it will live (context_path).",
    "voice_check": "Score a text against a voice profile, with its findings.",
    "voice_rewrite": "Rewrite a text with the substitutions its voice's findings suggest.",
    "term-check": "Check a translation keeps the project's terms.",
    "detect_format": "The format kapi reads a path as, and whether it reads and writes it.",
    "redact": "Replace sensitive spans of a text with placeholders.",
    "translate": "Translate a text through the project's provider and memory.",
    "up": "Bring every declared translation up to date.",
    "up_plan": "What up would do, without doing it.",
    "stats": "Blocks, words and characters per file and in total.",
    "review_queue": "Translations (and sources, when translation waits for them) waiting for review.",
    "review_block": "One edition under review: its ref and rev, its decisions, the blocks around "
    "it, the content memory's best match and the findings on it.",
    "context_observe": "Record an observation (the generation before context_note).",
    "context_correct": "Record a person's correction (the generation before context_note).",
    "context_withdraw": "Withdraw a suggestion (the generation before context_note).",
    "list_formats": "Every format kapi reads and writes.",
    "list_tools": "Every tool of kapi's registry.",
    "pseudo_translate": "Pseudo-translate a file to try layouts and encodings.",
    "extract_content": "The blocks of a file (the first generation's read_blocks).",
    "word_count": "Words of a file (the first generation's stats).",
    "brand_guide": "A voice profile's guide (the first generation's context for a profile).",
    "brand_check": "Check a text against a voice (the first generation's voice_check).",
    "brand_rewrite": "Rewrite a text for a voice (the first generation's voice_rewrite).",
    "term_lookup": "Look a term up (the first generation's context_search).",
    "tm_search": "Search translation memory (the first generation's memory search).",
    "run_flow": "Run a named flow on a file.",
    "list_flows": "The flows the project can run.",
}


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)


def _progress_token(params: Any) -> Any:
    """The token a client gave to be told a call's progress, if it gave one."""
    meta = getattr(params, "meta", None)
    if meta is None:
        return None
    if isinstance(meta, dict):
        return meta.get("progressToken") or meta.get("progress_token")
    return getattr(meta, "progress_token", None) or (getattr(meta, "model_extra", None) or {}).get(
        "progressToken"
    )


def _progress_sender(ctx: Any, token: Any) -> Any:
    """A host progress callback (called in the worker thread) that notifies the client."""
    import anyio.from_thread

    def send(event: dict[str, Any]) -> None:
        done, total = event.get("done", 0), event.get("total")
        message = " ".join(str(event[k]) for k in ("doc", "language") if event.get(k)) or None
        try:
            anyio.from_thread.run(
                ctx.session.send_progress_notification, token, float(done), total, message
            )
        except Exception:  # a client gone or a closed stream never fails the work
            return

    return send


@functools.cache
def _validator(name: str) -> Any:
    """The checker of a tool's arguments, built once per tool."""
    from jsonschema import Draft202012Validator

    return Draft202012Validator(input_schema(name))


def _validate(name: str, arguments: dict[str, Any]) -> str | None:
    """The first way ``arguments`` break the tool's input schema, as a message; None if none."""
    errors = sorted(_validator(name).iter_errors(arguments), key=lambda e: list(e.absolute_path))
    if not errors:
        return None
    error = errors[0]
    where = "/".join(str(p) for p in error.absolute_path)
    if error.validator == "additionalProperties":
        declared = set((error.schema or {}).get("properties", {}))
        extra = sorted(set(error.instance) - declared) if isinstance(error.instance, dict) else []
        named = ", ".join(extra) or "an argument"
        return f"{name} takes no argument {named}" + (f" (at /{where})" if where else "")
    return f"{name}: {error.message}" + (f" at /{where}" if where else "")


def build_server(options: ServerOptions) -> Any:
    """The MCP server for ``options`` (not yet connected to a transport)."""
    import anyio
    import mcp_types as types

    from mcp.server import Server

    tools = served_tools(options.sets, all_tools=options.all_tools, all_flows=options.all_flows)
    writing = "writing" in options.sets
    session = "s" + secrets.token_hex(6)

    def caller_of(ctx: Any) -> Caller:
        params = getattr(ctx.session, "client_params", None)
        info = getattr(params, "client_info", None) if params is not None else None
        client = getattr(info, "name", "")
        if not client:  # the stateless revision sends the client on every request
            meta = ctx.meta if isinstance(getattr(ctx, "meta", None), dict) else {}
            stated = meta.get("io.modelcontextprotocol/clientInfo") or {}
            client = str(stated.get("name", "")) if isinstance(stated, dict) else ""
        client = client or "mcp-client"
        return Caller(client=client, session=session, project=options.project, cwd=options.cwd)

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=name,
                    description=DESCRIPTIONS.get(name, ""),
                    input_schema=input_schema(name),
                    output_schema=output_schema(name),
                )
                for name in tools
            ]
        )

    async def call(ctx: Any, params: Any) -> Any:
        name = params.name
        arguments = dict(params.arguments or {})
        if name not in tools:
            return _error({"code": "not_found", "message": f"no tool {name!r} is served"})
        problem = _validate(name, arguments)
        if problem is not None:
            return _error({"code": "invalid", "message": problem})
        caller = caller_of(ctx)
        token = _progress_token(params)
        if token is not None:
            caller = evolve(caller, progress=_progress_sender(ctx, token))
        try:
            payload = await anyio.to_thread.run_sync(call_tool, name, arguments, caller)
        except ToolRefused as refused:
            return _error(refused.payload)
        return types.CallToolResult(
            content=[types.TextContent(text=_dumps(payload))],
            structured_content=payload,
        )

    def _error(payload: dict[str, Any]) -> Any:
        return types.CallToolResult(
            content=[types.TextContent(text=_dumps(payload))],
            structured_content=payload,
            is_error=True,
        )

    async def list_templates(ctx: Any, params: Any) -> Any:
        return types.ListResourceTemplatesResult(
            resource_templates=[
                types.ResourceTemplate(
                    uri_template=t.uri_template, name=t.name, mime_type=t.mime_type
                )
                for t in (TEMPLATES if writing else ())
            ]
        )

    async def read_resource(ctx: Any, params: Any) -> Any:
        from mcp.shared.exceptions import MCPError

        uri = str(params.uri)
        try:
            address: ContextAddress = parse_context_uri(uri)
        except ValueError as err:
            raise MCPError(code=-32602, message=str(err)) from None
        arguments: dict[str, Any] = {"path": address.path, "format": address.format}
        if address.project:
            arguments["project"] = address.project
        try:
            text, mime = await anyio.to_thread.run_sync(
                read_context_text, arguments, caller_of(ctx)
            )
        except ToolRefused as refused:
            raise MCPError(code=-32602, message=refused.payload.get("message", "")) from None
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type=mime, text=text)]
        )

    async def list_resources(ctx: Any, params: Any) -> Any:
        return types.ListResourcesResult(resources=[])  # every context resource is templated

    handlers: dict[str, Any] = {"on_list_tools": list_tools, "on_call_tool": call}
    if writing:
        handlers["on_list_resources"] = list_resources
        handlers["on_list_resource_templates"] = list_templates
        handlers["on_read_resource"] = read_resource
    return Server(
        "kapi",
        version=VERSION,
        instructions=INSTRUCTIONS if writing else None,
        **handlers,
    )


# The revisions reachable by the initialize handshake, newest last (a test holds this to the
# SDK's own list).
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")


def initialize_answer(request: dict[str, Any], writing: bool) -> dict[str, Any]:
    """The initialize result, as the SDK gives it, for a handshake ``request``."""
    asked = str((request.get("params") or {}).get("protocolVersion", ""))
    capabilities: dict[str, Any] = {"tools": {"listChanged": False}}
    if writing:
        capabilities = {"resources": {"listChanged": False, "subscribe": False}, **capabilities}
    result: dict[str, Any] = {"capabilities": capabilities}
    if writing:
        result["instructions"] = INSTRUCTIONS
    result["protocolVersion"] = asked if asked in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
    result["serverInfo"] = {"name": "kapi", "version": VERSION}
    return {"jsonrpc": "2.0", "id": request["id"], "result": result}


def _handshake(line: bytes) -> dict[str, Any] | None:
    """The first message when it is an initialize request, else None."""
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if isinstance(message, dict) and message.get("method") == "initialize" and "id" in message:
        return message
    return None


def serve(options: ServerOptions) -> None:
    """Serve over stdio until the client closes the connection.

    The MCP SDK takes about a second to import; it loads in a thread while the
    first message is read, and an initialize request is answered at once (the
    SDK is handed the same request and its own answer is not sent again), so an
    agent host sees the server come up as soon as Python does.
    """
    import os
    import threading

    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    built: dict[str, Any] = {}

    def load() -> None:
        try:
            built["server"] = build_server(options)
        except BaseException as err:  # reported on the main thread
            built["error"] = err

    loader = threading.Thread(target=load, name="kapi-mcp-sdk", daemon=True)
    loader.start()
    first = stdin.readline()
    answered: Any = None
    request = _handshake(first) if os.environ.get("KAPI_MCP_SDK_HANDSHAKE") != "1" else None
    if request is not None:
        answer = initialize_answer(request, "writing" in options.sets)
        stdout.write(json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode() + b"\n")
        stdout.flush()
        answered = request["id"]
    loader.join()
    if "error" in built:
        raise built["error"]
    _run(built["server"], first, stdin, stdout, answered)


def _run(server: Any, first: bytes, stdin: Any, stdout: Any, answered: Any) -> None:
    """The SDK's server loop over stdin and stdout, the first line already read."""
    import anyio
    import mcp_types as types

    from mcp.shared._context_streams import create_context_streams
    from mcp.shared.message import SessionMessage

    # Stray output of a handler must not reach the wire: print() goes to stderr while serving.
    sys.stdout = sys.stderr

    async def run() -> None:
        read_writer, read_stream = create_context_streams[SessionMessage | Exception](0)
        write_stream, write_reader = create_context_streams[SessionMessage](0)

        async def feed(line: bytes) -> None:
            try:
                message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
            except Exception as err:
                await read_writer.send(err)
                return
            await read_writer.send(SessionMessage(message))

        async def reader() -> None:
            async with read_writer:
                if first.strip():
                    await feed(first)
                while True:
                    line = await anyio.to_thread.run_sync(stdin.readline)
                    if not line:
                        break
                    if line.strip():
                        await feed(line)

        pending = [answered] if answered is not None else []

        async def writer() -> None:
            async with write_reader:
                async for session_message in write_reader:
                    message = session_message.message
                    if pending and getattr(message, "id", None) == pending[0]:
                        pending.clear()
                        continue  # the handshake was answered already
                    text = message.model_dump_json(by_alias=True, exclude_unset=True)
                    stdout.write(text.encode() + b"\n")
                    stdout.flush()

        async with anyio.create_task_group() as group:
            group.start_soon(reader)
            group.start_soon(writer)
            await server.run(read_stream, write_stream, server.create_initialization_options())
            group.cancel_scope.cancel()

    anyio.run(run)
