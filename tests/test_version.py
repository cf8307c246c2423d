"""One version for the five distributions: every place says it, and a bump writes every place."""

from __future__ import annotations

import importlib.util
import shutil
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def version_tool():
    spec = importlib.util.spec_from_file_location("kapi_version_tool", ROOT / "scripts/version.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["kapi_version_tool"] = module
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("kapi_version_tool", None)


def test_every_place_says_the_version_of_the_constant(version_tool):
    from kapi.host.version import VERSION

    assert version_tool.current() == VERSION
    assert version_tool.differences() == []


def test_the_distributions_pin_each_other_to_that_version_exactly():
    from kapi.host.version import VERSION

    names = set()
    for path in sorted((ROOT / "packages").glob("*/pyproject.toml")):
        project = tomllib.loads(path.read_text(encoding="utf-8"))["project"]
        names.add(project["name"])
        assert project["version"] == VERSION, path
        for requirement in project.get("dependencies", []):
            if requirement.startswith("kapi-"):
                assert requirement.endswith(f"=={VERSION}"), (path, requirement)
    assert names == {"kapi-core", "kapi-formats", "kapi-skill", "kapi-cli", "kapi-mcp"}


def test_a_bump_writes_every_place_and_asks_for_a_changelog_section(version_tool, tmp_path):
    for place in {place.path for place in version_tool.PLACES} | {"CHANGELOG.md"}:
        (tmp_path / place).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / place, tmp_path / place)
    changed = version_tool.set_version("9.8.7", tmp_path)
    assert len(changed) == len({place.path for place in version_tool.PLACES})
    assert version_tool.current(tmp_path) == "9.8.7"
    problems = version_tool.differences(tmp_path)
    assert problems == [f"CHANGELOG.md: its newest section is {version_tool.current()}, not 9.8.7"]
    cli = tomllib.loads((tmp_path / "packages/kapi-cli/pyproject.toml").read_text())
    assert "kapi-core==9.8.7" in cli["project"]["dependencies"]
    # A place left behind is named.
    skill = tmp_path / "packages/kapi-skill/src/kapi/skill/__init__.py"
    skill.write_text(skill.read_text().replace('VERSION = "9.8.7"', 'VERSION = "9.8.6"'))
    assert (
        "packages/kapi-skill/src/kapi/skill/__init__.py: says 9.8.6, not 9.8.7"
        in version_tool.differences(tmp_path)
    )
