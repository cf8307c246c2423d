"""``kapi help [TOPIC]`` through the real executable."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import kapi.skill as skill

KAPI = str(Path(sys.executable).parent / "kapi")


def _kapi(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KAPI_")}
    return subprocess.run(
        [KAPI, *args], capture_output=True, text=True, env=env, timeout=60, check=False
    )


def test_help_lists_every_topic_with_its_title():
    done = _kapi("help")
    assert done.returncode == 0, done.stderr
    listed = dict(
        re.match(r"(\S+)\s+(.*)", line).groups()  # type: ignore[union-attr]
        for line in done.stdout.splitlines()[1:]
        if line.strip()
    )
    assert listed == {t.name: t.title for t in skill.topics()}
    assert "edit" in listed
    assert listed["i18n-frameworks"]
    assert "kapi help TOPIC" in done.stderr


def test_a_topic_prints_with_links_rewritten_as_help_commands():
    done = _kapi("help", "translate")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("# Translate\n")
    assert "`kapi help project`" in done.stdout
    assert ".md)" not in done.stdout
    nested = _kapi("help", "i18n-react-native")
    assert "`kapi help i18n-android`" in nested.stdout  # a sibling inside i18n/
    assert _kapi("help", "i18n-react").stdout.count("`kapi help edit`") == 1  # ../edit.md


def test_every_topic_a_topic_names_is_served():
    named = {"edit"}
    for topic in skill.topics():
        named |= set(re.findall(r"`kapi help ([a-z0-9-]+)`", skill.read_topic(topic.name) or ""))
    for name in sorted(named):
        done = _kapi("help", name)
        assert done.returncode == 0, (name, done.stderr)
        assert done.stdout.strip()


def test_the_frameworks_registry_is_a_topic():
    done = _kapi("help", "i18n-frameworks")
    assert done.returncode == 0
    assert "frameworks:" in done.stdout
    assert "kapi_format:" in done.stdout


def test_an_unknown_topic_is_a_usage_error_naming_the_topics():
    done = _kapi("help", "no-such-thing")
    assert done.returncode == 2
    assert done.stdout == ""
    assert "no help topic 'no-such-thing'" in done.stderr
    assert "growing-context" in done.stderr
    assert "Traceback" not in done.stderr


def test_help_is_listed_and_hook_is_hidden_in_kapi_help():
    done = _kapi("--help")
    assert done.returncode == 0
    assert re.search(r"^\s+help\s", done.stdout, re.M)
    assert not re.search(r"^\s+hook\s", done.stdout, re.M)
