"""The ``kapi`` command: a click group whose verbs call :mod:`kapi.host`."""

from __future__ import annotations

import click


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="kapi-cli", prog_name="kapi")
def cli() -> None:
    """kapi: read, change and check content in any format, safely."""


def main() -> None:
    cli()
