"""The context resources: ``context://{+path}`` and ``context://profile/{name}``.

Addresses are parsed by hand: a URL parser would take the first path segment
for a host and lower-case it (``context://Docs/Guide.md``).
"""

from __future__ import annotations

from urllib.parse import parse_qs, unquote

from attrs import frozen

__all__ = ["TEMPLATES", "ContextAddress", "Template", "parse_context_uri"]


@frozen
class Template:
    uri_template: str
    name: str
    mime_type: str


TEMPLATES = (
    Template("context://{+path}{?format,project}", "context-at-location", "text/markdown"),
    Template("context://profile/{name}{?format,project}", "context-for-profile", "text/markdown"),
)


@frozen
class ContextAddress:
    """A context URI taken apart: the path (``profile/<name>`` for a profile), format, project."""

    path: str
    format: str = ""
    project: str = ""


def parse_context_uri(uri: str) -> ContextAddress:
    """The parts of a ``context://`` address; ValueError names what is wrong."""
    scheme = "context://"
    if not uri.startswith(scheme):
        raise ValueError(f"{uri!r} is not a context:// address")
    rest = uri[len(scheme) :]
    path, _, query = rest.partition("?")
    path = unquote(path)
    if not path:
        raise ValueError("a context:// address names a path: context://docs/guide.md")
    values = parse_qs(query, keep_blank_values=True)
    unknown = sorted(set(values) - {"format", "project"})
    if unknown:
        raise ValueError(f"context:// takes format and project, not {', '.join(unknown)}")
    kind = (values.get("format") or [""])[0]
    if kind not in ("", "markdown", "md", "text", "json"):
        raise ValueError(f"format {kind!r}: use markdown or json")
    if path.startswith("profile/") and not path.removeprefix("profile/"):
        raise ValueError("context://profile/ names a profile: context://profile/<name>")
    return ContextAddress(path=path, format=kind, project=(values.get("project") or [""])[0])
