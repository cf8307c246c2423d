"""kapi's host: the functions every door (the CLI, the MCP server, hooks) calls.

Each verb is one function in its own module that takes a request value and
returns a result value (``run_inspect``, ``apply_change_set``, ``run_check``,
``run_stats``, ``run_init``, the terms and voice functions, the toolbox's
``list_blocks``, ``run_grep``, ``run_sed`` and ``run_diff``); the workspace
builds the adapters they need and closes what it opened. The names below are
the public host API; each is imported from its module on first use, so
importing :mod:`kapi.host` costs nothing.
"""

from __future__ import annotations

TYPE_CHECKING = False  # no ``typing`` import: ``kapi --help`` reads the version through here
if TYPE_CHECKING:
    from typing import Any

_EXPORTS: dict[str, str] = {
    # the composition root and inputs
    "Workspace": "workspace",
    "open_workspace": "workspace",
    "inputs_for": "inputs",
    "ResolvedActor": "actor",
    "actor_from_env": "actor",
    # errors and the wire
    "KapiError": "errors",
    "HostError": "errors",
    "exit_code_of": "errors",
    "error_payload": "errors",
    "encode": "wire",
    "StorePort": "store_port",
    # verbs
    "InspectRequest": "inspect",
    "InspectResult": "inspect",
    "run_inspect": "inspect",
    "ApplyOutcome": "apply",
    "apply_change_set": "apply",
    "read_change_set": "apply",
    "change_set_schema": "apply",
    "CheckRequest": "check",
    "CheckOutcome": "check",
    "run_check": "check",
    "StatsRequest": "stats",
    "StatsResult": "stats",
    "run_stats": "stats",
    "FormatInfo": "formats",
    "list_formats": "formats",
    "describe_format": "formats",
    "InitRequest": "init",
    "InitResult": "init",
    "run_init": "init",
    "TermsImportRequest": "terms",
    "TermsExportRequest": "terms",
    "TermsListRequest": "terms",
    "TermLookupRequest": "terms",
    "import_terms": "terms",
    "export_terms": "terms",
    "list_terms": "terms",
    "lookup_term": "terms",
    "VoiceValidateRequest": "voices",
    "VoiceImportRequest": "voices",
    "validate_voice": "voices",
    "import_voice": "voices",
    "list_voices": "voices",
    "ContextReadRequest": "context",
    "ContextSearchRequest": "context",
    "read_context": "context",
    "search_context": "context",
    "ContextNoteRequest": "context_ops",
    "ContextLogRequest": "context_ops",
    "ContextSessionRequest": "context_ops",
    "ContextReviewRequest": "context_ops",
    "ContextResetRequest": "context_ops",
    "note_context": "context_ops",
    "read_context_log": "context_ops",
    "session_summary": "context_ops",
    "review_context": "context_ops",
    "reset_context": "context_ops",
    "write_rules_files": "context_rules",
    "export_store": "context_store",
    "import_store": "context_store",
    "ListRequest": "toolbox",
    "list_blocks": "toolbox",
    "GrepRequest": "toolbox",
    "GrepResult": "toolbox",
    "run_grep": "toolbox",
    "grep": "toolbox",
    "SedRequest": "toolbox_sed",
    "SedOutcome": "toolbox_sed",
    "compile_sed": "toolbox_sed",
    "run_sed": "toolbox_sed",
    "DiffRequest": "toolbox_diff",
    "DiffResult": "toolbox_diff",
    "run_diff": "toolbox_diff",
    # code comments: what the MCP tools answer for a source file
    "comment_refusal": "comments",
    "check_reads_comments": "comments",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'kapi.host' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"kapi.host.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
