"""What the kapi verbs share: the workspace of an invocation, inputs, common options."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, NoReturn

import click

from kapi.cli.output import fail, say_recipe_warnings
from kapi.host.errors import EXIT_USAGE, HostError

if TYPE_CHECKING:
    from kapi.host.workspace import Workspace

__all__ = [
    "format_option",
    "locale_of",
    "project_inputs",
    "say_recipe_warnings",
    "source_lang_option",
    "workspace_of",
]


def workspace_of(source_lang: str | None = None) -> Workspace:
    """The workspace of this invocation (the project -p names or discovery finds)."""
    from kapi.host.workspace import open_workspace

    ctx = click.get_current_context()
    project = (ctx.find_root().obj or {}).get("project")
    try:
        workspace = open_workspace(
            project=project, source_language=locale_of(source_lang) if source_lang else None
        )
    except HostError as err:
        _exit(err)
    ctx.call_on_close(workspace.close)  # the store closes when the verb ends
    say_recipe_warnings(workspace)
    return workspace


def _exit(err: HostError) -> NoReturn:
    fail(err)
    raise AssertionError


def project_inputs(files: tuple[str, ...], workspace: Workspace) -> list[str]:
    """Files named, else the project's declared content, else stdin."""
    from kapi.host.inputs import inputs_for

    return inputs_for(files, workspace, stdin_is_terminal=sys.stdin.isatty())


def locale_of(value: str) -> str:
    from kapi.core.edition import EditionKeyError, canonical_locale

    try:
        return canonical_locale(value)
    except EditionKeyError as err:
        raise HostError(str(err), exit_code=EXIT_USAGE) from None


source_lang_option = click.option(
    "--source-lang",
    default=None,
    help="Language of the files' own edition when the file does not say (default: the project's, else en).",
)
format_option = click.option(
    "--format", "format_name", help="Read as this format (see `kapi formats`); needed for stdin."
)
