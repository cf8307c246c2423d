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
    with path.open("rb") as handle:
        fmt, entries = marshal.load(handle)
    assert fmt.startswith(b"kapi-codegen/")
    return entries


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
    if damage is None:  # a well-formed file whose entries are not code
        fmt, entries = marshal.loads(path.read_bytes())
        path.write_bytes(marshal.dumps((fmt, dict.fromkeys(entries, b"\x00not code"))))
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
