"""Voice profiles a person keeps: validate a file, import it into the project, list what exists.

The host functions are called directly (as every door calls them), then
``kapi voice`` is checked to print what they return.
"""

from __future__ import annotations

import json
import textwrap

import pytest

from kapi.core.change.ports import Actor, ActorKind
from kapi.core.governance.errors import ConfigWarning
from kapi.core.governance.packs import pack_names
from kapi.host.errors import EXIT_ERROR, EXIT_USAGE, HostError
from kapi.host.voices import (
    ValidatedVoice,
    VoiceEntry,
    VoiceImported,
    VoiceImportRequest,
    VoiceValidateRequest,
    import_voice,
    list_voices,
    validate_voice,
)
from kapi.host.wire import encode
from kapi.host.workspace import open_workspace

PERSON = Actor(kind=ActorKind.PERSON)
AGENT = Actor(kind=ActorKind.AGENT, name="helper")

GOOD = textwrap.dedent(
    """\
    id: shop-ui
    name: Shop UI
    tone:
      formality: casual
    terms:
      - term: basket
        replacement: cart
    """
)
UNKNOWN_KEY = "name: loose\nstyle:\n  sentence_length: short\n  colour: red\n"
BAD_VALUE = "name: bad\nstyle:\n  sentence_length: forever\n"


@pytest.fixture
def root(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kapi.yaml").write_text("version: v1\n")
    (tmp_path / "good.yaml").write_text(GOOD)
    (tmp_path / "loose.yaml").write_text(UNKNOWN_KEY)
    (tmp_path / "bad.yaml").write_text(BAD_VALUE)
    return tmp_path


def refusal(call) -> HostError:
    with pytest.raises(HostError) as raised:
        call()
    return raised.value


def imported(root, path: str, *, actor: Actor = PERSON, id: str = "") -> VoiceImported:
    with open_workspace(cwd=root, environ={}) as workspace:
        return import_voice(VoiceImportRequest(path=root / path, id=id, actor=actor), workspace)


def voices(root) -> tuple[VoiceEntry, ...]:
    with open_workspace(cwd=root, environ={}) as workspace:
        return list_voices(workspace)


def stored(root, voice_id: str) -> str | None:
    with open_workspace(cwd=root, environ={}) as workspace:
        assert workspace.store is not None
        return workspace.store.voice_profile(voice_id)


# --- validate -------------------------------------------------------------------------


def test_validate_a_good_file(root):
    valid = validate_voice(VoiceValidateRequest(path=root / "good.yaml"))
    assert valid == ValidatedVoice(path=str(root / "good.yaml"), id="shop-ui", name="Shop UI")
    assert valid.label == "Shop UI"


def test_strict_validation_refuses_an_unknown_key_naming_its_line(root):
    error = refusal(lambda: validate_voice(VoiceValidateRequest(path=root / "loose.yaml")))
    assert error.exit_code == EXIT_USAGE
    assert error.message.startswith(f"{root / 'loose.yaml'}:4: style.colour:")


def test_lenient_validation_keeps_going_and_warns(root):
    valid = validate_voice(VoiceValidateRequest(path=root / "loose.yaml", strict=False))
    assert valid.label == "loose" and valid.id == ""
    (warning,) = valid.warnings
    assert isinstance(warning, ConfigWarning)
    assert (warning.code, warning.key) == ("voice.unknown_key", "style.colour")


@pytest.mark.parametrize("strict", [True, False])
def test_a_bad_value_names_its_line_and_key_in_either_mode(root, strict):
    request = VoiceValidateRequest(path=root / "bad.yaml", strict=strict)
    error = refusal(lambda: validate_voice(request))
    assert error.exit_code == EXIT_USAGE
    assert f"{root / 'bad.yaml'}:3: style.sentence_length:" in error.message
    assert "forever" in error.message


def test_broken_yaml_and_a_missing_file_are_usage_errors(root):
    (root / "broken.yaml").write_text("name: x\nstyle: [\n")
    broken = refusal(lambda: validate_voice(VoiceValidateRequest(path=root / "broken.yaml")))
    assert broken.exit_code == EXIT_USAGE and "not valid YAML" in broken.message
    missing = refusal(lambda: validate_voice(VoiceValidateRequest(path=root / "nowhere.yaml")))
    assert missing.exit_code == EXIT_USAGE and "cannot read" in missing.message


# --- import ---------------------------------------------------------------------------


def test_a_person_imports_a_voice_under_its_id(root):
    done = imported(root, "good.yaml")
    assert done == VoiceImported(id="shop-ui", name="Shop UI")
    assert stored(root, "shop-ui") == GOOD
    with open_workspace(cwd=root, environ={}) as workspace:
        assert workspace.store is not None
        (op,) = [op for op in workspace.store.context_log() if op["kind"] == "context.import"]
    assert op["actor"]["kind"] == "person"


def test_import_takes_the_id_given_else_the_file_name_and_warns_leniently(root):
    assert imported(root, "good.yaml", id="checkout").id == "checkout"
    loose = imported(root, "loose.yaml")
    assert loose.id == "loose"  # no id in the file: its name
    assert [w.code for w in loose.warnings] == ["voice.unknown_key"]
    assert stored(root, "checkout") == GOOD and stored(root, "loose") == UNKNOWN_KEY


def test_an_agent_may_not_import_a_voice(root):
    error = refusal(lambda: imported(root, "good.yaml", actor=AGENT))
    assert error.exit_code == EXIT_ERROR and "a person decides the voice" in error.message
    assert stored(root, "shop-ui") is None


def test_a_broken_file_is_refused_and_nothing_is_stored(root):
    error = refusal(lambda: imported(root, "bad.yaml"))
    assert error.exit_code == EXIT_USAGE and ":3: style.sentence_length:" in error.message
    assert stored(root, "bad") is None


def test_import_needs_a_project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "good.yaml").write_text(GOOD)
    error = refusal(lambda: imported(tmp_path, "good.yaml"))
    assert error.exit_code == EXIT_ERROR and "kapi init" in error.message
    assert not (tmp_path / ".kapi").exists()


# --- list -----------------------------------------------------------------------------


def test_list_packs_store_profiles_and_committed_files(root):
    (root / "voices").mkdir()
    (root / "voices/docs.yaml").write_text("name: docs\n")
    imported(root, "good.yaml")
    found = voices(root)
    packs = [entry for entry in found if entry.source == "pack"]
    assert [entry.id for entry in packs] == list(pack_names())
    assert packs[0].bind == f"{{pack: {packs[0].id}}}"
    assert VoiceEntry(id="shop-ui", source="store", bind="shop-ui") in found
    assert found[-1] == VoiceEntry(id="docs", source="voices/docs.yaml", bind="docs")
    assert encode(found[-1]) == {"id": "docs", "source": "voices/docs.yaml", "bind": "docs"}


def test_outside_a_project_only_the_packs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert {entry.source for entry in voices(tmp_path)} == {"pack"}


# --- the command line prints what the host returns -------------------------------------


def test_kapi_voice_prints_the_results(kapi):
    (kapi.root / "kapi.yaml").write_text("version: v1\n")
    (kapi.root / "good.yaml").write_text(GOOD)
    (kapi.root / "loose.yaml").write_text(UNKNOWN_KEY)

    valid = kapi("voice", "validate", "good.yaml")
    assert valid.exit_code == 0 and valid.stdout == "good.yaml: valid voice profile 'Shop UI'\n"
    strict = kapi("voice", "validate", "loose.yaml")
    assert strict.exit_code == 2 and "loose.yaml:4: style.colour:" in strict.stderr

    done = kapi("voice", "import", "loose.yaml", "--id", "loose")
    assert done.exit_code == 0
    assert done.stdout == "imported loose.yaml as 'loose'; bind it with `voice: loose`\n"
    assert done.stderr.startswith("warning: voice.unknown_key: ")
    assert done.stderr.rstrip().endswith("(style.colour)")
    agent = kapi("voice", "import", "good.yaml", env={"KAPI_ACTOR": "agent"})
    assert agent.exit_code == 1 and "a person decides the voice" in agent.stderr

    listed = json.loads(kapi("voice", "list", "--json").stdout)
    assert {"id": "loose", "source": "store", "bind": "loose"} in listed
    table = kapi("voice", "list").stdout.splitlines()
    assert table[0].split() == ["VOICE", "SOURCE", "BIND", "WITH"]
