"""The five starter packs: shipped as YAML, valid under strict loading, with working rules."""

from __future__ import annotations

from importlib.resources import files

import pytest
from ruamel.yaml import YAML

from kapi.core.check.engine import run_check
from kapi.core.check.report import Verdict
from kapi.core.check.target import text_target
from kapi.core.governance.errors import GovernanceError
from kapi.core.governance.packs import pack_names, pack_source, pack_text
from kapi.core.governance.resolve import ResolvedGovernance
from kapi.core.governance.voice import VoiceProfile, load_voice_profile


def _load(name: str) -> VoiceProfile:
    data = YAML(typ="safe").load(pack_text(name))
    profile, warnings = load_voice_profile(data, pack_source(name), strict=True)
    assert warnings == ()
    return profile


def test_there_are_the_five_packs_of_the_spec() -> None:
    assert pack_names() == (
        "customer-support",
        "friendly-dtc",
        "marketing-blog",
        "professional-b2b",
        "technical-docs",
    )


def test_every_shipped_yaml_file_is_a_named_pack() -> None:
    shipped = files("kapi.core.governance") / "pack_data"
    assert sorted(p.name for p in shipped.iterdir() if p.name.endswith(".yaml")) == [
        f"{name}.yaml" for name in pack_names()
    ]


@pytest.mark.parametrize("name", pack_names())
def test_each_pack_parses_and_loads_strictly(name: str) -> None:
    profile = _load(name)
    assert profile.name == name
    assert profile.has_deterministic_rules
    assert profile.tone.formality and profile.style.person_pov


def test_technical_docs_is_formal_third_person_without_contractions() -> None:
    profile = _load("technical-docs")
    assert (profile.tone.formality, profile.style.person_pov, profile.style.contractions) == (
        "formal",
        "third",
        "never",
    )


@pytest.mark.parametrize("word", ["simply", "just", "easily", "obviously", "clearly", "Simply"])
def test_technical_docs_fails_on_the_banned_words(word: str) -> None:
    governance = ResolvedGovernance(
        voice=_load("technical-docs"), voice_source="pack:technical-docs"
    )
    report = run_check([text_target(f"You can {word} restart the server.")], lambda _t: governance)
    assert report.verdict == Verdict.FAILED
    assert [f.rule for f in report.findings if f.fails] == ["voice.style"]


def test_technical_docs_passes_plain_text() -> None:
    governance = ResolvedGovernance(
        voice=_load("technical-docs"), voice_source="pack:technical-docs"
    )
    report = run_check(
        [text_target("Restart the server. The service reloads its settings.")],
        lambda _t: governance,
    )
    assert report.verdict == Verdict.PASSED, report.did_not_run


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("customer-support", "As I said, you should have restarted it."),
        ("friendly-dtc", "Dear customer, it ships soon!!"),
        ("marketing-blog", "Real synergy for your team."),
        ("professional-b2b", "Hey guys, meet the dashboard."),
    ],
)
def test_each_pack_has_a_failing_rule(name: str, text: str) -> None:
    governance = ResolvedGovernance(voice=_load(name), voice_source=pack_source(name))
    report = run_check([text_target(text)], lambda _t: governance)
    assert report.verdict == Verdict.FAILED


def test_an_unknown_pack_is_refused() -> None:
    with pytest.raises(GovernanceError) as caught:
        pack_text("pirate")
    assert caught.value.source == "pack:pirate"
    assert "technical-docs" in caught.value.message
