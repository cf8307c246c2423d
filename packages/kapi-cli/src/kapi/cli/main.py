"""The ``kapi`` command group: its options, and where each verb is found.

Every verb lives in a module of its own (:data:`LAZY_VERBS`), imported when it is run or
the verbs are listed; its module imports its host function inside the verb.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

import click

import kapi.cli.boot  # noqa: F401  (the generated-code cache; kapi.cli.launch loads it first)
from kapi.cli.output import fail, set_pretty
from kapi.host.errors import KapiError
from kapi.host.version import VERSION

if TYPE_CHECKING:
    from kapi.host.plugins import EntryPoint

HELP_OPTIONS = ("-h", "--help")
MAX_CONTENT_WIDTH = 100  # kapi.cli.launch renders ``kapi --help`` at the same width
CONTEXT = {"help_option_names": list(HELP_OPTIONS), "max_content_width": MAX_CONTENT_WIDTH}


# Each verb's module, loaded when the verb is run or the verbs are listed: ``kapi check``
# imports the check verb's module, not the translation verbs' or apply's.
LAZY_VERBS: dict[str, tuple[str, str]] = {
    "apply": ("kapi.cli.work", "apply"),
    "check": ("kapi.cli.check", "check"),
    "context": ("kapi.cli.context", "context"),
    "exec": ("kapi.cli.translate", "exec_command"),
    "extract": ("kapi.cli.interchange", "extract"),
    "flows": ("kapi.cli.translate", "flows"),
    "formats": ("kapi.cli.work", "formats"),
    "help": ("kapi.cli.help", "help_command"),
    "hook": ("kapi.cli.hook", "hook"),
    "init": ("kapi.cli.work", "init"),
    "inspect": ("kapi.cli.work", "inspect"),
    "memory": ("kapi.cli.translate", "memory"),
    "merge": ("kapi.cli.interchange", "merge"),
    "pseudo-translate": ("kapi.cli.translate", "pseudo_translate"),
    "review": ("kapi.cli.review", "review"),
    "run": ("kapi.cli.translate", "run"),
    "stats": ("kapi.cli.work", "stats"),
    "status": ("kapi.cli.translate", "status"),
    "store": ("kapi.cli.store", "store"),
    "terms": ("kapi.cli.terms", "terms"),
    "tools": ("kapi.cli.translate", "tools"),
    "translate": ("kapi.cli.translate", "translate"),
    "up": ("kapi.cli.translate", "up"),
    "voice": ("kapi.cli.voice", "voice"),
}


class KapiGroup(click.Group):
    """The built-in verbs, and those other distributions register (entry-point group ``kapi.cli``).

    A verb of :data:`LAZY_VERBS` is imported when it is asked for. A built-in verb is found
    without looking for plug-ins; the entry points are read only for a name that is not
    built in, or when the verbs are listed (``kapi --help``), and then from the
    distributions' files directly.
    """

    def list_commands(self, ctx: click.Context) -> list[str]:
        ctx.meta["kapi.listing"] = True  # a plug-in that fails to load is left out of a list
        names = set(super().list_commands(ctx))
        names.update(LAZY_VERBS)
        names.update(self.plugins(ctx))
        return sorted(names)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        command = super().get_command(ctx, name)
        if command is not None:
            return command
        lazy = LAZY_VERBS.get(name)
        if lazy is not None:
            import importlib

            module, attribute = lazy
            verb: click.Command = getattr(importlib.import_module(module), attribute)
            self.add_command(verb, name)
            return verb
        entry = self.plugins(ctx).get(name)
        if entry is None:
            return None
        try:
            loaded = entry.load()
        except Exception as err:  # a plug-in's bug or a half-installed distribution
            if ctx.meta.get("kapi.listing"):
                return None
            raise click.ClickException(
                f"the command {name!r} ({entry.value}) could not be loaded: {err}"
            ) from None
        return loaded if isinstance(loaded, click.Command) else None

    @staticmethod
    def plugins(ctx: click.Context) -> Mapping[str, EntryPoint]:
        """The plug-in commands: those installed, or those ``ctx.meta["kapi.plugins"]`` names
        (how :mod:`kapi.cli.help_render` renders the listing for a given set)."""
        given: Mapping[str, EntryPoint] | None = ctx.meta.get("kapi.plugins")
        if given is not None:
            return given
        from kapi.host.plugins import plugin_commands

        return plugin_commands()


@click.group(cls=KapiGroup, context_settings=CONTEXT)
@click.version_option(VERSION, prog_name="kapi")
@click.option(
    "-p",
    "--project",
    metavar="PATH",
    help="The project: its kapi.yaml, its folder, or any path inside it (default: found upward).",
)
@click.option(
    "--pretty",
    is_flag=True,
    help="Indent JSON output (the default at a terminal; piped, it is one line).",
)
@click.pass_context
def cli(ctx: click.Context, project: str | None, pretty: bool) -> None:
    """kapi: read, change and check content in any format, safely.

    \b
    Work:      inspect FILE…   apply SET   check FILE…   stats FILE…
    Project:   init   voice …   terms …   context …   store …
    Translate: translate   up   status   memory …   pseudo-translate   extract   merge
               review …   tools   flows   run   exec
    Agents:    mcp   help [TOPIC]      Formats: formats
    Toolbox:   kcat   kgrep   ksed   kdiff (commands of their own)
    Exit codes: 0 ok, 1 error, 2 usage or invalid input, 3 refused or gate failed, 5 unreachable.
    """
    ctx.obj = {"project": project}
    if pretty:
        set_pretty(True)


def run_click() -> None:
    """``kapi`` through click: each way it ends as an exit code (the console script,
    :func:`kapi.cli.launch.main`, runs this with :func:`kapi.cli.launch.run`)."""
    try:
        cli(standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except click.ClickException as err:
        err.show()
        sys.exit(err.exit_code)
    except click.exceptions.Exit as done:
        sys.exit(done.exit_code)
    except KapiError as err:  # a verb that did not catch its own: still a message, not a traceback
        fail(err)
    except KeyboardInterrupt:
        click.echo("Interrupted.", err=True)
        sys.exit(130)
