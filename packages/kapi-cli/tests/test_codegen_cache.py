"""The generated-code cache: kapi's classes built from it behave as compiled ones, and a bad
file is never trusted.

Each test runs real Python processes with their own ``PYTHONPYCACHEPREFIX``, so the cache
file they write is the test's own.
"""

from __future__ import annotations

import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

# What a process prints about a few of kapi's classes: their behaviour, not their identity.
PROBE = """
import sys
from kapi.host import codegen
codegen.install()
import kapi.core.check.qa as qa  # compiles its patterns as it loads
assert qa._PRINTF.search("%1$s and %d").group() == "%1$s", "a pattern from the cache matches"
from kapi.core.model import Block, Text
from kapi.core.change.decode import decode_change_set
a = Block(id="a", name="a", source=(Text("Hello"),))
b = Block(id="a", name="a", source=(Text("Hello"),))
c = Block(id="c", name="c", source=(Text("Hello"),))
ops = decode_change_set(b'{"ops":[{"op":"set_content","at":{"doc":"x.json","block":"a"},'
                        b'"if_match":"*","text":"Hi"}]}')
print(a == b, a != c, hash(Text("x")) == hash(Text("x")), repr(a)[:40], len(ops.ops), type(ops.ops[0]).__name__)
try:
    a.id = "z"
except Exception as err:
    print(type(err).__name__)
codegen.save()
print("cache", codegen.cache_path())
"""
EXPECTED = (
    "True True True Block(id='a', source=(Text(text='Hello', 1 SetContent\nFrozenInstanceError"
)


def _run(prefix: Path, **env: str) -> tuple[str, Path]:
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    environment["PYTHONPYCACHEPREFIX"] = str(prefix)
    environment.update(env)
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, env=environment, timeout=120
    )
    assert done.returncode == 0, done.stderr
    body, _, cache = done.stdout.rpartition("cache ")
    return body.strip(), Path(cache.strip())


def _entries(path: Path) -> dict[bytes, bytes]:
    fmt, _engine, entries, _patterns = marshal.loads(path.read_bytes())
    assert fmt.startswith(b"kapi-codegen/")
    return entries


def _patterns(path: Path) -> dict[tuple[str, int], tuple[object, ...]]:
    loaded = marshal.loads(path.read_bytes())
    return loaded[-1]


def test_classes_built_from_the_cache_behave_as_freshly_compiled_ones(tmp_path: Path) -> None:
    first, path = _run(tmp_path, PYTHONHASHSEED="1")
    assert first == EXPECTED
    assert path.is_relative_to(tmp_path) and path.exists()
    written = _entries(path)
    assert len(written) > 20  # attrs's classes and cattrs's converters both
    # another process, another hash seed: every class comes from the file, nothing is added
    second, _ = _run(tmp_path, PYTHONHASHSEED="2")
    assert second == EXPECTED
    assert _entries(path) == written


@pytest.mark.parametrize(
    "damage",
    [b"", b"\x00garbage", b"kapi", marshal.dumps(("other-format", {})), None],
    ids=["empty", "garbage", "truncated", "foreign", "bad-entry"],
)
def test_a_damaged_cache_is_ignored_and_replaced(tmp_path: Path, damage: bytes | None) -> None:
    _, path = _run(tmp_path)
    good = _entries(path)
    if damage is None:  # a well-formed file whose entries are not code, nor patterns
        fmt, engine, entries, patterns = marshal.loads(path.read_bytes())
        broken = dict.fromkeys(patterns, (0, [999999], 0, {}, ()))
        path.write_bytes(
            marshal.dumps((fmt, engine, dict.fromkeys(entries, b"\x00not code"), broken))
        )
    else:
        path.write_bytes(damage)
    body, _ = _run(tmp_path)
    assert body == EXPECTED
    assert set(_entries(path)) == set(good)


def test_nothing_is_written_where_bytecode_is_not(tmp_path: Path) -> None:
    body, path = _run(tmp_path, PYTHONDONTWRITEBYTECODE="1")
    assert body == EXPECTED
    assert not path.exists()


def test_a_cache_that_cannot_be_written_changes_nothing(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        # root writes through modes: a file in the cache's place stops the folder instead
        _, path = _run(tmp_path, PYTHONDONTWRITEBYTECODE="1")
        path.parent.parent.mkdir(parents=True, exist_ok=True)
        path.parent.write_text("not a folder")
    else:
        tmp_path.chmod(0o555)
    try:
        body, path = _run(tmp_path)
    finally:
        tmp_path.chmod(0o755)
    assert body == EXPECTED
    assert not path.exists()


def test_a_modules_own_patterns_are_kept_and_a_run_time_one_is_not(tmp_path: Path) -> None:
    _, path = _run(tmp_path)
    patterns = _patterns(path)
    printf = [key for key in patterns if key[0].startswith("%(?:")]  # kapi.core.check.qa's
    assert printf, sorted(key[0][:30] for key in patterns)
    assert not [key for key in patterns if "Hello" in key[0]]  # nothing the probe's data built


CHECK = """\
version: v1
id: prj_codegencodegencodegencodege
name: patterns
defaults:
  source_language: en
profiles:
  docs:
    channels: [guides]
    voice: x
collections:
  - name: docs
    channel: docs/guides
    source_only: true
    content:
      - path: "**/*.md"
"""
VOICE = "name: X\nid: x\nterms:\n  - term: utilize\n    replacement: use\n"


def _check(root: Path, prefix: Path) -> subprocess.CompletedProcess[str]:
    environment = {
        k: v for k, v in os.environ.items() if k not in ("KAPI_PROJECT", "KAPI_NO_PROJECT")
    }
    environment["PYTHONPYCACHEPREFIX"] = str(prefix)
    kapi = Path(sys.executable).parent / "kapi"
    return subprocess.run(
        [str(kapi), "check", "page.md"],
        cwd=root,
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
    )


def test_a_projects_term_patterns_are_kept_in_its_own_cache(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / "voices").mkdir(parents=True)
    (root / ".kapi").mkdir()
    (root / "kapi.yaml").write_text(CHECK)
    (root / "voices/x.yaml").write_text(VOICE)
    (root / "page.md").write_text("We utilize the cart.\n")
    first = _check(root, tmp_path / "pyc")
    assert first.returncode == 3 and "utilize" in first.stdout, first.stderr
    kept = next((root / ".kapi/cache").glob("patterns.*.marshal"))
    patterns = _patterns(kept)
    assert [key for key in patterns if "utiliz" in key[0]]  # the term rule's own pattern
    # the install-wide file never holds the project's words
    for installed in (tmp_path / "pyc").rglob("codegen.*.marshal"):
        assert not [key for key in _patterns(installed) if "utiliz" in key[0]]
    kept.write_bytes(b"\x00damaged")
    again = _check(root, tmp_path / "pyc")
    assert again.returncode == 3 and again.stdout == first.stdout
    assert [key for key in _patterns(kept) if "utiliz" in key[0]]  # written afresh
