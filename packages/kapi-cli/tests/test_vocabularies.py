"""The command line spells a few core vocabularies itself, to keep ``kapi --help`` light."""

from __future__ import annotations

import click

from kapi.cli.terms import terms
from kapi.core.governance.terms import TermStatus


def test_terms_list_offers_every_term_status_in_order() -> None:
    command = terms.commands["list"]
    option = next(param for param in command.params if param.name == "status")
    assert isinstance(option.type, click.Choice)
    assert list(option.type.choices) == [status.value for status in TermStatus]
