"""The input schema of every tool: JSON Schema objects that refuse undeclared arguments.

Each schema extends the one the reference server froze with ``kapi.change/v1``
(the same properties and types, no new required field); the newer tools add
their own.
"""

from __future__ import annotations

from typing import Any

__all__ = ["input_schema", "output_schema"]

Schema = dict[str, Any]

PROJECT = "the project: its kapi.yaml, its root folder, or any path inside it (default: the project the server serves)"


def _string(description: str, **extra: Any) -> Schema:
    return {"type": "string", "description": description, **extra}


def _integer(description: str, **extra: Any) -> Schema:
    return {"type": "integer", "description": description, **extra}


def _boolean(description: str) -> Schema:
    return {"type": "boolean", "description": description}


def _strings(description: str) -> Schema:
    return {"type": ["null", "array"], "items": {"type": "string"}, "description": description}


def _object(properties: dict[str, Schema], *required: str, project: bool = True) -> Schema:
    if project:
        properties = {**properties, "project": _string(PROJECT)}
    schema: Schema = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = list(required)
    return schema


_PROFILE = {
    "profile_file": _string("a voice profile file (YAML) to use instead of the file's own voice"),
    "profile_pack": _string("a starter voice pack to use instead of the file's own voice"),
}
_LIMITS = {
    "forbid": _strings("patterns the text must not contain"),
    "require": _strings("patterns the text must contain"),
    "max_chars": _integer("the most characters a block may have (0: no limit)"),
    "max_words": _integer("the most words a block may have (0: no limit)"),
}

_SCHEMAS: dict[str, Schema] = {
    "context_read": _object(
        {
            "path": _string(
                "the file about to be written (or profile/<name> for a declared voice profile)"
            ),
            "format": _string(
                "markdown (default) or json", enum=["markdown", "json", "md", "text", ""]
            ),
        },
        "path",
    ),
    "context_search": _object(
        {
            "query": _string("the word or phrase to look up"),
            "locale": _string("the language the wording is in (default: the project's source)"),
            "limit": _integer("the most results per group (default 10)", minimum=1),
            "terms": _string(
                "a terms file in the project (JSON bundle, TBX or CSV) searched instead of "
                "the project's own store"
            ),
            "memory": _string(
                "a memory file in the project (TMX, PO or XLIFF) searched instead of the "
                "project's own store"
            ),
        },
        "query",
    ),
    "context_note": _object(
        {
            "text": _string("a fact the files keep to, in your words"),
            "term": _string("the name or word the files use"),
            "instead_of": _strings("the forms the files avoid in its place"),
            "from": _string("what you wrote, that a person changed"),
            "to": _string("what the person wrote instead"),
            "suggest": _boolean("record the correction as a suggestion for the rules"),
            "path": _string("the file the evidence is in (seen in)"),
            "quote": _string("the words from that file that show it"),
            "block": _string("the block of that file the quote is in"),
            "withdraw": _string("the id of a suggestion of this session to take back"),
            "note": _string("why (with withdraw)"),
        }
    ),
    "context_session_summary": _object(
        {"session": _string("the session to summarise (default: this server's)")}
    ),
    "context_observe": _object(
        {
            "text": _string("a fact the files keep to"),
            "term": _string("the name or word the files use"),
            "instead_of": _strings("the forms the files avoid in its place"),
            "path": _string("the file the evidence is in"),
            "quote": _string("the words from that file that show it"),
            "block": _string("the block of that file the quote is in"),
        }
    ),
    "context_correct": _object(
        {
            "from": _string("what you wrote"),
            "to": _string("what the person wrote instead"),
            "path": _string("the file the person edited"),
            "quote": _string("the words from that file that show it"),
            "block": _string("the block the edit is in"),
            "note": _string("a note for the reviewer"),
            "suggest": _boolean("record the correction as a suggestion for the rules"),
            "advisory": _boolean("record it as advice only"),
        },
        "from",
        "to",
        "path",
    ),
    "context_withdraw": _object(
        {
            "operation": _string("the id of the suggestion to take back"),
            "note": _string("why"),
        },
        "operation",
    ),
    "check_file": _object(
        {
            "file": _string("the saved file to check (optional with a diff mode)"),
            "diff": _string("unified diff text: check only the blocks it touches"),
            "diff_against": _string("a git revision: check only blocks changed since it"),
            "diff_range": _string("a git range A..B or A...B: check only blocks it changes"),
            "staged": _boolean("check only blocks changed in the git index"),
            "target": _string("a translation file to check against the file"),
            "target_lang": _string("the translation's language"),
            "dnt": _strings("terms a translation must keep verbatim"),
            **_LIMITS,
            **_PROFILE,
            "validate": _string(
                "off (default), report or strict", enum=["off", "report", "strict"]
            ),
        }
    ),
    "read_blocks": _object(
        {
            "doc": _string("the document to read, relative to the project"),
            "blocks": _strings("block keys to read (empty: all)"),
            "editions": _strings("translation editions kept in their own files to include"),
            "cursor": _string("where the previous page ended (its next)"),
            "limit": _integer(
                "blocks per page (default 100, at most 1000)", minimum=1, maximum=1000
            ),
        },
        "doc",
    ),
    "describe_format": _object(
        {
            "format": _string("a format name (see list_formats)"),
            "doc": _string("a document whose format to describe"),
        }
    ),
    "check_text": _object(
        {
            "text": _string("the draft to check"),
            "context_path": _string(
                "where the text will live, so its folder's voice and terms hold"
            ),
            **_LIMITS,
            **_PROFILE,
        },
        "text",
    ),
    "voice_check": _object(
        {"text": _string("the text to score"), **_PROFILE}, "text", project=False
    ),
    "voice_rewrite": _object(
        {"text": _string("the text to rewrite"), **_PROFILE}, "text", project=False
    ),
    "term-check": {
        "type": "object",
        "properties": {
            "text": _string("the source text"),
            "target": _string("its translation"),
            "target_lang": _string("the translation's language"),
            "caseSensitive": {"type": "boolean", "default": False, "description": "match case"},
            "project": _string(PROJECT),
        },
        "required": ["text", "target"],
    },
    "detect_format": _object({"path": _string("a file path")}, "path", project=False),
    "redact": {
        "type": "object",
        "properties": {
            "text": _string("the text to redact"),
            "target_lang": _string("the language the text will be translated to"),
            "detectors": {"type": "array", "items": {"type": "string"}},
            "entityTypes": {"type": "array", "items": {"type": "string"}},
            "placeholder": _string("the placeholder that replaces a sensitive span"),
            "rulesPath": _string(
                "a YAML file of redaction rules in the project (rules: each a pattern or a "
                "term, with a category), run before the recipe's"
            ),
            "project": _string(PROJECT),
        },
        "required": ["text"],
    },
    "translate": {
        "type": "object",
        "properties": {
            "text": _string("the text to translate"),
            "target_lang": _string("the language to translate into"),
            "engine": _string("the translation engine"),
            "provider": _string("pseudo, memory, openai, anthropic or deepl"),
            "apiKey": _string("not used: keys come from the server's environment only"),
            "model": _string("the model a provider uses"),
            "batching": _string("how segments are batched"),
            "batchConcurrency": _integer("batches sent at once"),
            "context": _string("context for the translator"),
            "contextWindow": _integer("segments of context around each one"),
            "instruction": _string("an instruction for the translator"),
            "reuse": _string("how memory is reused"),
            "skipMatched": _boolean("skip segments memory matches exactly"),
            "project": _string(PROJECT),
        },
        "required": ["text"],
    },
    "up": _object(
        {
            "jobs": _integer("files translated at once"),
            "local": _boolean("offline providers only"),
            "materialize": _boolean("write targets a template names"),
            "no_checks": _boolean("skip QA"),
            "passes": _integer("passes over the project"),
        }
    ),
    "up_plan": _object({"no_checks": _boolean("skip QA")}),
    "stats": _object(
        {
            "files": _strings("the files to count"),
            "format": _string("the format of every file"),
        },
        "files",
        project=False,
    ),
    "review_queue": _object(
        {
            "collection": _string("a collection of the recipe"),
            "language": _string("a target language"),
            "locale": _string("a target locale"),
        }
    ),
    "review_block": _object(
        {
            "at": {
                "type": "object",
                "properties": {
                    "doc": {"type": "string"},
                    "block": {"type": "string"},
                    "edition": {"type": "string"},
                },
                "required": ["doc", "block"],
                "additionalProperties": False,
            }
        },
        "at",
    ),
    "list_formats": _object({}, project=False),
    "list_tools": _object({}, project=False),
    "pseudo_translate": _object(
        {
            "path": _string("the file to pseudo-translate"),
            "target_lang": _string("the pseudo language (default qps)"),
            "output_path": _string(
                "where to write it, in the project (default: the file's target, else beside it)"
            ),
        },
        "path",
    ),
    "extract_content": _object(
        {
            "path": _string("the file to read"),
            "format": _string("the format, instead of the one its name gives"),
            "source_lang": _string("its language (default: the project's, else en)"),
        },
        "path",
    ),
    "word_count": _object(
        {
            "path": _string("the file to count"),
            "format": _string("the format, instead of the one its name gives"),
            "source_lang": _string("its language (default: the project's, else en)"),
        },
        "path",
    ),
    "brand_guide": _object(
        {
            "profile_pack": _string("a starter voice pack (technical-docs, marketing-blog…)"),
            "profile": _string("a profile the recipe declares"),
        }
    ),
    "brand_check": _object({"text": _string("the text to check"), **_PROFILE}, "text"),
    "brand_rewrite": _object({"text": _string("the text to rewrite"), **_PROFILE}, "text"),
    "term_lookup": _object(
        {
            "term": _string("the term to look up"),
            "source_lang": _string("its locale"),
            "target_lang": _string("the locale of the translation wanted"),
            "termbase": _string("not used: the project's terms store is searched"),
        },
        "term",
    ),
    "tm_search": _object(
        {
            "text": _string("the source text to look up"),
            "source_lang": _string("its locale"),
            "target_lang": _string("the translation's locale"),
            "min_score": {
                "type": "number",
                "minimum": 0,
                "maximum": 1,
                "description": "lowest score (default 0.7)",
            },
            "tm": _string("not used: the project's memory is searched"),
        },
        "text",
        "source_lang",
        "target_lang",
    ),
    "run_flow": _object(
        {
            "flow_name": _string("the flow to run (see list_flows)"),
            "path": _string("the file to run it on"),
            "source_lang": _string("the source language"),
            "target_lang": _string("the target language"),
            "output_path": _string("where to write the result"),
        },
        "flow_name",
    ),
    "list_flows": _object({}),
}


def input_schema(name: str) -> Schema:
    """The input schema of a tool (``apply_edits`` is the change-set schema plus ``project``)."""
    if name == "apply_edits":
        from kapi.host.apply import change_set_schema

        schema = change_set_schema()
        schema = {**schema, "properties": {**schema["properties"], "project": _string(PROJECT)}}
        return schema
    return _SCHEMAS[name]


def known(name: str) -> bool:
    return name == "apply_edits" or name in _SCHEMAS


def _shape(*required: str, **properties: Schema) -> Schema:
    """An output object: the fields a client can rely on; others may come with them."""
    return {"type": "object", "properties": properties, "required": list(required)}


_ANY: Schema = {}
_TEXT: Schema = {"type": "string"}
_LIST: Schema = {"type": "array"}
_REPORT = _shape(
    "schema",
    "verdict",
    "findings",
    schema={"const": "kapi.check/v2"},
    verdict={"enum": ["passed", "failed", "did_not_run"]},
    findings=_LIST,
    summary={"type": "object"},
)
_OUTPUTS: dict[str, Schema] = {
    "read_blocks": _shape(
        "doc", "blocks", "total", doc=_TEXT, blocks=_LIST, total={"type": "integer"}, next=_ANY
    ),
    "apply_edits": _shape(
        "schema",
        "status",
        schema={"const": "kapi.change-result/v1"},
        status=_TEXT,
        docs=_LIST,
        ops=_LIST,
    ),
    "check_file": _REPORT,
    "check_text": _REPORT,
    "context_read": _shape("uri", "mime_type", "text", uri=_TEXT, mime_type=_TEXT, text=_TEXT),
    "context_note": _shape(
        "operation", "kind", "status", operation=_TEXT, kind=_TEXT, status=_TEXT
    ),
    "describe_format": _shape("format", "ops", format=_TEXT, ops={"type": "object"}),
    "detect_format": _shape("format", format=_TEXT, extensions=_LIST),
    "voice_check": _shape("findings", profile=_TEXT, score=_ANY, findings=_LIST),
    "voice_rewrite": _shape(
        "original", "rewritten", original=_TEXT, rewritten=_TEXT, changes=_LIST
    ),
    "list_formats": _shape("formats", "total", formats=_LIST, total={"type": "integer"}),
    "list_tools": _shape("tools", "total", tools=_LIST, total={"type": "integer"}),
    "list_flows": _shape("flows", "total", flows=_LIST, total={"type": "integer"}),
    "extract_content": _shape("format", "blocks", format=_TEXT, blocks=_LIST),
    "word_count": _shape("format", "word_count", format=_TEXT, word_count={"type": "integer"}),
    "term_lookup": _shape("matches", "total", matches=_LIST, total={"type": "integer"}),
    "tm_search": _shape("matches", "total", matches=_LIST, total={"type": "integer"}),
}


def output_schema(name: str) -> Schema:
    """What a tool's structured result holds (an object for every tool)."""
    return _OUTPUTS.get(name, {"type": "object"})
