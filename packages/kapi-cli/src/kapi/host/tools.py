"""The tools a flow is made of: each a name, a JSON Schema for its options and a description.

A text tool runs on one string (``kapi exec TOOL --text T``); a file tool on
files; a unit tool is a step of the translation pipeline (``kapi run``).
``redact`` and ``unredact`` are :mod:`kapi.host.vault`'s (detectors in :mod:`kapi.host.redaction`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from attrs import frozen

from kapi.host.errors import EXIT_USAGE, HostError

if TYPE_CHECKING:
    from kapi.host.workspace import Workspace

__all__ = ["TOOLS", "Tool", "ToolResult", "exec_tool", "tool_named"]


@frozen
class Tool:
    """A tool: its name, description, the JSON Schema of its options and what it runs on.

    ``cli_only`` marks a tool that runs a caller's command: ``kapi exec`` offers
    it, an MCP server never does.
    """

    name: str
    description: str
    options: Mapping[str, Any]
    runs_on: tuple[str, ...]  # text, files, units
    cli_only: bool = False


def _schema(**properties: Mapping[str, Any]) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": False, "properties": dict(properties)}


TOOLS: tuple[Tool, ...] = (
    Tool(
        "pseudo-translate",
        "Pseudo-translate: accents, expansion and bracket markers; codes kept.",
        _schema(
            style={"enum": ["accents", "xxx", "bracket", "flipped", "blank", "en"]},
            expansion={"type": "number", "minimum": 0, "maximum": 10},
            brackets={"type": "boolean"},
        ),
        ("text", "units"),
    ),
    Tool(
        "recycle",
        "Leverage the content memory: exact and structural matches become drafts.",
        _schema(min_score={"type": "number", "minimum": 0, "maximum": 1}),
        ("text", "units"),
    ),
    Tool(
        "translate",
        "Translate with a provider (pseudo, memory, openai, anthropic, deepl).",
        _schema(
            provider={"enum": ["pseudo", "memory", "openai", "anthropic", "deepl"]},
            model={"type": "string"},
            batch_size={"type": "integer", "minimum": 1},
        ),
        ("text", "units"),
    ),
    Tool(
        "qa",
        "Translation QA: placeholders, codes, structure, whitespace, punctuation, length.",
        _schema(),
        ("units", "files"),
    ),
    Tool(
        "redact",
        "Replace e-mail addresses, URLs, IP addresses, card and phone numbers, keys and what "
        "the recipe's redaction rules match with typed placeholders, the originals kept in the "
        "project's .kapi/ vault.",
        _schema(),
        ("text", "units"),
    ),
    Tool(
        "unredact",
        "Put redacted originals back from the project's .kapi/ vault.",
        _schema(),
        ("text", "units"),
    ),
    Tool(
        "term-check",
        "The project's terms a text uses: forbidden and deprecated wordings flagged.",
        _schema(),
        ("text", "files"),
    ),
    Tool("word-count", "Words and characters.", _schema(), ("text", "files")),
    Tool(
        "whitespace-correct", "Fold runs of spaces and trim each line's ends.", _schema(), ("text",)
    ),
    Tool(
        "encoding-detect",
        "The encoding a file is written in (BOM, UTF-8, else a legacy guess).",
        _schema(),
        ("files",),
    ),
    Tool(
        "xml-validation",
        "Whether a text or file is well-formed XML, with the first error's place.",
        _schema(),
        ("text", "files"),
    ),
    Tool(
        "command",
        "Run a command of yours on the text (stdin to stdout, no shell, 60 s at most).",
        _schema(run={"type": "string"}),
        ("text", "files"),
        cli_only=True,
    ),
)


def tool_named(name: str) -> Tool:
    for tool in TOOLS:
        if tool.name == name:
            return tool
    raise HostError(
        f"unknown tool {name!r}; the tools are {', '.join(t.name for t in TOOLS)} (see `kapi tools`)",
        exit_code=EXIT_USAGE,
    )


# --- exec -----------------------------------------------------------------------------


@frozen
class ToolResult:
    """What ``kapi exec`` prints: the tool, and per input (``text`` or a file) its output."""

    tool: str
    results: tuple[Mapping[str, Any], ...]
    exit_code: int = 0


def exec_tool(
    name: str,
    workspace: Workspace,
    *,
    text: str | None = None,
    files: tuple[str, ...] = (),
    options: Mapping[str, str] | None = None,
    to: str = "",
    commands: bool = False,
) -> ToolResult:
    """Run one tool on a text or on files (nothing is written; ``kapi run`` writes).

    A tool that runs a caller's command (``cli_only``) runs only when
    ``commands`` is true: the command line passes it, an MCP server never does.
    """
    tool = tool_named(name)
    if tool.cli_only and not commands:
        raise HostError(
            f"{name} runs a command of yours: it is offered on the command line only "
            f"(`kapi exec {name}`)",
            exit_code=3,
            code="not_permitted",
        )
    opts = _checked_options(tool, options or {})
    if text is None and not files:
        raise HostError(f"{name}: pass --text or name files", exit_code=EXIT_USAGE)
    if text is not None:
        if "text" not in tool.runs_on:
            raise HostError(f"{name} runs on files, not --text", exit_code=EXIT_USAGE)
        result = _on_text(tool, text, opts, workspace, to)
        return ToolResult(tool=name, results=(result,), exit_code=3 if result.get("fails") else 0)
    if "files" not in tool.runs_on and "text" not in tool.runs_on:
        raise HostError(
            f"{name} is a translation step: use it in a flow (`kapi run`)", exit_code=EXIT_USAGE
        )
    results = []
    for file in files:
        from kapi.host.inputs import read_in

        data = read_in(workspace, file)
        results.append({"file": file, **_on_file(tool, file, data, opts, workspace, to)})
    failing = any(r.get("fails") for r in results)
    return ToolResult(tool=name, results=tuple(results), exit_code=3 if failing else 0)


def _checked_options(tool: Tool, options: Mapping[str, str]) -> dict[str, Any]:
    known = tool.options.get("properties", {})
    out: dict[str, Any] = {}
    for key, value in options.items():
        schema = known.get(key)
        if schema is None:
            raise HostError(
                f"{tool.name} has no option {key!r}"
                + (f"; its options are {', '.join(sorted(known))}" if known else "; it takes none"),
                exit_code=EXIT_USAGE,
            )
        kind = schema.get("type")
        try:
            if kind == "number":
                out[key] = float(value)
            elif kind == "integer":
                out[key] = int(value)
            elif kind == "boolean":
                if value.lower() not in ("true", "false", "1", "0", "yes", "no"):
                    raise ValueError(value)
                out[key] = value.lower() in ("true", "1", "yes")
            else:
                out[key] = value
        except ValueError:
            raise HostError(
                f"{tool.name}: option {key}={value!r} is not a {kind}", exit_code=EXIT_USAGE
            ) from None
        if "enum" in schema and out[key] not in schema["enum"]:
            raise HostError(
                f"{tool.name}: option {key}={value!r}; use one of {', '.join(schema['enum'])}",
                exit_code=EXIT_USAGE,
            )
    return out


def _on_text(
    tool: Tool, text: str, opts: dict[str, Any], workspace: Workspace, to: str
) -> dict[str, Any]:
    if tool.name == "word-count":
        return {"text": text, "words": len(re.findall(r"\w+", text)), "characters": len(text)}
    if tool.name == "whitespace-correct":
        fixed = "\n".join(re.sub(r"[ \t]+", " ", line).strip() for line in text.split("\n"))
        return {"text": fixed, "changed": fixed != text}
    if tool.name == "redact":
        from kapi.host.vault import redact_text

        return redact_text(text, workspace)
    if tool.name == "unredact":
        from kapi.host.vault import unredact_text

        return unredact_text(text, workspace)
    if tool.name == "xml-validation":
        return _xml_check(text.encode("utf-8"))
    if tool.name == "term-check":
        return _term_check(text, workspace)
    if tool.name == "command":
        return _command(str(opts.get("run", "")), text, workspace)
    if tool.name in ("pseudo-translate", "translate", "recycle"):
        from kapi.host.providers.port import ProviderOptions
        from kapi.host.up import TranslateRequest, translate_text

        provider = {"pseudo-translate": "pseudo", "recycle": "memory"}.get(tool.name) or str(
            opts.get("provider", "")
        )
        options = ProviderOptions(
            model=str(opts.get("model", "")),
            pseudo_style=str(opts.get("style", "accents")),
            pseudo_expansion=float(opts.get("expansion", 0.3)),
            pseudo_brackets=bool(opts.get("brackets", True)),
        )
        result = translate_text(
            TranslateRequest(to=to or "qps", text=text, provider=provider, options=options),
            workspace,
        )
        return {"text": result.text, "language": result.language}
    raise HostError(f"{tool.name} does not run on --text", exit_code=EXIT_USAGE)


def _on_file(
    tool: Tool, file: str, data: bytes, opts: dict[str, Any], workspace: Workspace, to: str
) -> dict[str, Any]:
    if tool.name == "encoding-detect":
        return {"encoding": _encoding(data)}
    if tool.name == "xml-validation":
        return _xml_check(data)
    if tool.name == "qa":
        return {
            "issues": [],
            "note": "run `kapi run qa FILE` for translation QA over a project's targets",
        }
    if tool.name in ("word-count", "term-check"):
        # What the file says, not how it is spelled: its blocks' text, without keys or markup.
        texts = _content_texts(file, data, workspace)
        if texts is not None:
            if tool.name == "word-count":
                from kapi.host.stats import count_words

                return {
                    "blocks": len(texts),
                    "words": sum(count_words(text) for text in texts),
                    "characters": sum(len(text) for text in texts),
                }
            result = _term_check("\n".join(texts), workspace)
            result.pop("text", None)
            return result
    text = data.decode("utf-8", "replace")
    if tool.name in ("pseudo-translate", "translate", "recycle", "redact"):
        raise HostError(
            f"{tool.name} on files writes translations: use `kapi run`", exit_code=EXIT_USAGE
        )
    return _on_text(tool, text, opts, workspace, to)


def _content_texts(file: str, data: bytes, workspace: Workspace) -> list[str] | None:
    """The text of each of a file's translatable blocks, as ``kapi stats`` counts them;
    ``None`` when no format reads the file (its bytes are then taken as text)."""
    from kapi.core.format import FormatError
    from kapi.formats import registry
    from kapi.formats.reading import read_document
    from kapi.host.stats import block_texts

    try:
        _, document, _ = read_document(data, display=file, locale=workspace.source_language)
    except (registry.UnknownFormat, FormatError):
        return None
    return block_texts(document)


def _encoding(data: bytes) -> str:
    for bom, name in (
        (b"\xef\xbb\xbf", "utf-8-sig"),
        (b"\xff\xfe", "utf-16-le"),
        (b"\xfe\xff", "utf-16-be"),
    ):
        if data.startswith(bom):
            return name
    try:
        data.decode("utf-8")
        return "ascii" if data.isascii() else "utf-8"
    except UnicodeDecodeError:
        return "windows-1252" if any(0x80 <= b <= 0x9F for b in data) else "iso-8859-1"


def _xml_check(data: bytes) -> dict[str, Any]:
    import xml.parsers.expat

    parser = xml.parsers.expat.ParserCreate()
    parser.SetParamEntityParsing(xml.parsers.expat.XML_PARAM_ENTITY_PARSING_NEVER)
    try:
        parser.Parse(data, True)
    except (LookupError, ValueError) as err:  # a declared encoding expat cannot read
        return {"valid": False, "fails": True, "error": f"unreadable encoding: {err}"}
    except xml.parsers.expat.ExpatError as err:
        return {
            "valid": False,
            "fails": True,
            "error": str(err),
            "line": err.lineno,
            "column": err.offset,
        }
    return {"valid": True}


def _term_check(text: str, workspace: Workspace) -> dict[str, Any]:
    store = workspace.store
    found: list[dict[str, str]] = []
    folded = text.casefold()
    if store is not None:
        for concept in store.concepts():
            preferred = next((t.text for t in concept.terms if t.status == "preferred"), "")
            for term in concept.terms:
                if re.search(rf"(?<!\w){re.escape(term.text.casefold())}(?!\w)", folded):
                    found.append({"term": term.text, "status": term.status, "use": preferred})
    failing = [f for f in found if f["status"] in ("forbidden", "deprecated")]
    return {"text": text, "terms": found, "fails": bool(failing)}


def _command(run: str, text: str, workspace: Workspace) -> dict[str, Any]:
    """The caller's command on ``text``: its output, or why it failed (never through a shell)."""
    import shlex
    import subprocess

    try:
        argv = shlex.split(run)
    except ValueError as err:
        raise HostError(f"command: --option run={run!r}: {err}", exit_code=EXIT_USAGE) from None
    if not argv:
        raise HostError("command: name the command with --option run='…'", exit_code=EXIT_USAGE)
    try:
        done = subprocess.run(
            argv, input=text, capture_output=True, text=True, timeout=60, cwd=workspace.root
        )
    except FileNotFoundError:
        raise HostError(f"command: {argv[0]!r} was not found", exit_code=EXIT_USAGE) from None
    except subprocess.TimeoutExpired:
        return {"text": text, "fails": True, "error": "the command ran for more than 60 s"}
    out: dict[str, Any] = {"text": done.stdout, "exit": done.returncode}
    if done.returncode:
        out.update(fails=True, error=done.stderr.strip()[:500])
    return out
