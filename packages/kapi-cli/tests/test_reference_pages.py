"""The generated reference pages (docs/reference/) are what the code says today."""

from __future__ import annotations

from pathlib import Path

import click
import pytest

from kapi.cli import reference

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("name", sorted(reference.PAGES))
def test_the_committed_page_is_what_the_code_generates(name):
    committed = (ROOT / "docs" / "reference" / name).read_text(encoding="utf-8")
    assert committed == reference.PAGES[name](), (
        f"docs/reference/{name} differs from the code: "
        "run python -m kapi.cli.reference docs/reference"
    )


def test_every_exit_and_error_code_of_the_code_has_its_meaning_written():
    import kapi.core.errors as errors
    from kapi.core.change.errors import ErrorCode, GuardSubcode

    constants = {name for name in errors.__all__ if name.startswith("EXIT_")}
    assert set(reference.EXIT_MEANINGS) == constants
    assert set(reference.ERROR_MEANINGS) == {code.value for code in ErrorCode}
    assert set(reference.GUARD_MEANINGS) == {sub.value for sub in GuardSubcode}


def test_the_cli_page_has_a_section_for_every_visible_command_and_subcommand():
    from kapi.cli.main import cli

    page = reference.cli_page()
    expected = []

    def walk(command: click.Command, ctx: click.Context) -> None:
        expected.append(ctx.command_path)
        if isinstance(command, click.Group):
            for name in command.list_commands(ctx):
                child = command.get_command(ctx, name)
                if child is not None and not child.hidden:
                    walk(child, click.Context(child, info_name=name, parent=ctx))

    walk(cli, click.Context(cli, info_name="kapi"))
    assert {"kapi inspect", "kapi terms import", "kapi mcp", "kapi context review"} <= set(expected)
    for path in expected:
        assert f"## `{path}`\n" in page, path
    assert "## `kapi hook`" not in page  # hidden: the hooks' own page says how they are wired
    for tool in ("kcat", "kgrep", "ksed", "kdiff"):
        assert f"### `{tool}`\n" in page
