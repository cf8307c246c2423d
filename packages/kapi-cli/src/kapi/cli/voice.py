"""``kapi voice``: the voice profiles a project binds."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from kapi.cli.common import workspace_of
from kapi.cli.output import emit_json, fail, table, warn
from kapi.host.errors import KapiError

if TYPE_CHECKING:
    from kapi.core.governance.errors import ConfigWarning


@click.group()
def voice() -> None:
    """Voice profiles: validate, import into the project, list."""


@voice.command("validate")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
def validate(file: Path) -> None:
    """Check a voice profile strictly: unknown keys, bad values and bad patterns are errors."""
    from kapi.host.voices import VoiceValidateRequest, validate_voice

    try:
        valid = validate_voice(VoiceValidateRequest(path=file, strict=True), workspace_of())
    except KapiError as err:
        fail(err)
    _warn(valid.warnings)
    click.echo(f"{file}: valid voice profile {valid.label!r}")


@voice.command("import")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--id", "voice_id", default="", help="The id a recipe binds it by (default: the profile's id)."
)
def import_(file: Path, voice_id: str) -> None:
    """Keep a voice profile in the project store, where `voice: <id>` finds it."""
    from kapi.host.voices import VoiceImportRequest, import_voice

    try:
        done = import_voice(VoiceImportRequest(path=file, id=voice_id), workspace_of())
    except KapiError as err:
        fail(err)
    _warn(done.warnings)
    click.echo(f"imported {file} as {done.id!r}; bind it with `voice: {done.id}`")


@voice.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
def list_(as_json: bool) -> None:
    """The voices a recipe can bind: starter packs, store profiles, committed files."""
    from kapi.host.voices import list_voices
    from kapi.host.wire import encode

    voices = list_voices(workspace_of())
    if as_json:
        emit_json(encode(voices))
    else:
        click.echo(
            table(("VOICE", "SOURCE", "BIND WITH"), [(v.id, v.source, v.bind) for v in voices])
        )


def _warn(warnings: tuple[ConfigWarning, ...]) -> None:
    for warning in warnings:
        key = f" ({warning.key})" if warning.key else ""
        warn(f"warning: {warning.code}: {warning.message}{key}")
