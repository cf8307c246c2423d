"""``kapi --help`` and ``kapi --version`` answered without click, and exactly as click would.

The kept texts (``kapi/cli/help_texts.py``) are rendered again through click here; the real
``kapi`` executable prints them when the width and the plug-in commands are ones kept, and
goes through click for any other.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from kapi.cli import help_render, help_texts
from kapi.cli.launch import help_width, quick_answer
from kapi.host.plugins import plugin_commands
from kapi.host.version import VERSION

KAPI = Path(sys.executable).parent / "kapi"
DUMPED = re.compile(r"^kapi-modules: (.*)$", re.M)


def _installed_plugins() -> dict[str, str]:
    return {name: entry.value for name, entry in plugin_commands().items()}


def _kapi(*args: str, cwd: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KAPI_") and k != "COLUMNS"}
    env.update(PYTHONDONTWRITEBYTECODE="1", KAPI_DUMP_MODULES="1", **extra)
    return subprocess.run(
        [str(KAPI), *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=120
    )


def _modules(done: subprocess.CompletedProcess[str]) -> set[str]:
    found = DUMPED.search(done.stderr)
    assert found is not None, done.stderr[-2000:]
    return set(found.group(1).split())


def test_the_kept_module_is_what_the_renderer_writes_today():
    committed = Path(help_texts.__file__).read_text(encoding="utf-8")
    assert committed == help_render.module_source(), (
        "kapi/cli/help_texts.py differs from click's help: run python -m kapi.cli.help_render"
    )


@pytest.mark.parametrize("width", help_render.WIDTHS)
@pytest.mark.parametrize("plugins", help_render.PLUGIN_SETS, ids=["no-plugins", "mcp"])
def test_every_kept_text_is_clicks_rendering(width, plugins):
    key = (width, tuple(sorted(plugins.items())))
    assert help_texts.TEXTS[key] == help_render.help_text(width, plugins)


def test_the_texts_differ_by_width_and_by_plugins():
    narrow = help_texts.TEXTS[(78, ())]
    assert "mcp " not in narrow.split("Commands:")[1]
    with_mcp = help_texts.TEXTS[(78, (("mcp", "kapi.mcp.cli:mcp"),))]
    assert re.search(r"^  mcp +Serve kapi's tools", with_mcp, re.M)
    wide = help_texts.TEXTS[(98, ())]
    assert max(len(line) for line in wide.splitlines() if not line.startswith("  Exit")) > 80
    assert narrow != wide


def test_a_piped_kapi_help_prints_the_kept_text_without_loading_click(tmp_path):
    done = _kapi("--help", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == help_render.help_text(78, _installed_plugins())
    modules = _modules(done)
    assert "click" not in modules
    assert "kapi.cli.main" not in modules
    assert "typing" not in modules


def test_h_is_help_too(tmp_path):
    assert _kapi("-h", cwd=tmp_path).stdout == _kapi("--help", cwd=tmp_path).stdout


def test_a_wide_terminal_gets_the_wide_text(tmp_path):
    done = _kapi("--help", cwd=tmp_path, COLUMNS="140")
    assert done.stdout == help_render.help_text(98, _installed_plugins())
    assert "click" not in _modules(done)


def test_a_width_not_kept_goes_through_click_and_reads_the_same(tmp_path):
    done = _kapi("--help", cwd=tmp_path, COLUMNS="60")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "click" in _modules(done)
    assert done.stdout == help_render.help_text(58, _installed_plugins())


def test_a_help_of_a_verb_and_other_arguments_go_through_click(tmp_path):
    done = _kapi("check", "--help", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("Usage: kapi check [OPTIONS] [FILES]...")
    assert "click" in _modules(done)
    done = _kapi("--help", "--pretty", cwd=tmp_path)
    assert done.returncode == 0
    assert "click" in _modules(done)


def test_kapi_version_is_answered_without_click(tmp_path):
    done = _kapi("--version", cwd=tmp_path)
    assert done.returncode == 0
    assert done.stdout == f"kapi, version {VERSION}\n"
    assert "click" not in _modules(done)


def test_a_closed_pipe_ends_the_help_quietly(tmp_path):
    done = subprocess.run(
        f"'{KAPI}' --help | head -n 1",
        shell=True,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout == "Usage: kapi [OPTIONS] COMMAND [ARGS]...\n"
    assert "Traceback" not in done.stderr


def test_another_program_name_is_left_to_click():
    assert quick_answer(["--help"], "/usr/bin/python") is None
    assert quick_answer(["--help", "-p", "x"], "kapi") is None
    assert quick_answer(["inspect"], "kapi") is None
    assert quick_answer(["--version"], "/venv/bin/kapi") == f"kapi, version {VERSION}\n"


@pytest.mark.parametrize(
    ("columns", "width"),
    [("", 78), ("80", 78), ("79", 77), ("100", 98), ("300", 98), ("40", 50), ("x", 78), ("0", 78)],
)
def test_the_width_is_clicks(columns, width):
    environ = {"COLUMNS": columns} if columns else {}
    assert help_width(environ, None) == width


def test_the_launcher_and_the_group_agree_on_the_widest_help():
    from kapi.cli import launch, main

    assert launch.MAX_CONTENT_WIDTH == main.MAX_CONTENT_WIDTH


def test_every_lazy_verb_names_a_command_of_that_name():
    import importlib

    import click

    from kapi.cli.main import LAZY_VERBS

    for name, (module, attribute) in LAZY_VERBS.items():
        command = getattr(importlib.import_module(module), attribute)
        assert isinstance(command, click.Command)
        assert command.name == name
