"""``kapi voice``: the voice profiles a project binds."""

from __future__ import annotations

from pathlib import Path

import click

from kapi.cli.common import workspace_of
from kapi.cli.output import emit_json, fail, table, warn
from kapi.host.errors import HostError


@click.group()
def voice() -> None:
    """Voice profiles: validate, import into the project, list."""


@voice.command("validate")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
def validate(file: Path) -> None:
    """Check a voice profile strictly: unknown keys, bad values and bad patterns are errors."""
    from kapi.host.voices import validate_voice

    try:
        profile, warnings = validate_voice(file, strict=True)
    except HostError as err:
        fail(err)
    for line in warnings:
        warn(f"warning: {line}")
    click.echo(f"{file}: valid voice profile {profile.name or profile.id!r}")


@voice.command("import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--id", "voice_id", default="", help="The id a recipe binds it by (default: the profile's id)."
)
def import_(file: Path, voice_id: str) -> None:
    """Keep a voice profile in the project store, where `voice: <id>` finds it."""
    from kapi.host.actor import actor_from_env
    from kapi.host.voices import import_voice

    try:
        done = import_voice(workspace_of(), file, actor_from_env().actor, name=voice_id)
    except HostError as err:
        fail(err)
    for line in done["warnings"]:
        warn(f"warning: {line}")
    click.echo(f"imported {file} as {done['id']!r}; bind it with `voice: {done['id']}`")


@voice.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
def list_(as_json: bool) -> None:
    """The voices a recipe can bind: starter packs, store profiles, committed files."""
    from kapi.host.voices import list_voices

    voices = list_voices(workspace_of())
    if as_json:
        emit_json(voices)
    else:
        click.echo(
            table(
                ("VOICE", "SOURCE", "BIND WITH"),
                [(v["id"], v["source"], v["bind"]) for v in voices],
            )
        )
