import json

import pytest
from click.testing import CliRunner

from kapi.cli.main import cli


class Kapi:
    """Runs the kapi CLI in-process inside a folder, as a person unless told otherwise."""

    def __init__(self, root, monkeypatch):
        self.root = root
        monkeypatch.chdir(root)
        for name in (
            "KAPI_ACTOR",
            "CLAUDECODE",
            "CODEX_SESSION_ID",
            "KAPI_AGENT_NAME",
            "KAPI_AGENT_SESSION",
        ):
            monkeypatch.delenv(name, raising=False)

    def __call__(self, *args, input=None, env=None):
        runner = CliRunner()
        return runner.invoke(cli, list(args), input=input, env=env or {}, catch_exceptions=False)

    def inspect(self, *files):
        result = self("inspect", *files)
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)


@pytest.fixture
def kapi(tmp_path, monkeypatch):
    return Kapi(tmp_path, monkeypatch)
