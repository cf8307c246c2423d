"""Writes the file system refuses: every file stays byte-identical and the set is refused.

A full disk, no free inodes, a file-size limit, a read-only file or folder, an
immutable file, a read-only mount: ``kapi apply`` exits 3 (5 for a device
that cannot take the bytes), the result is ``refused`` with a code and a
message naming the file and the OS reason, no temporary file is left, and no
traceback is printed. Each case runs the real executable on a real file
system: tmpfs mounts stand in for small or read-only disks.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

KAPI = Path(sys.executable).with_name("kapi")
EN = '{\n  "title": "Welcome",\n  "body": "' + "Some text. " * 40 + '"\n}\n'
RECIPE = """version: v1
name: faults
defaults:
  source_language: en
collections:
  - name: ui
    content:
      - path: "*.json"
"""

needs_root = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("mount") is None,
    reason="mounting a small or read-only file system needs root",
)


def kapi(root: Path, *args: str, stdin: str | None = None, project: bool, limit: int | None = None):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KAPI_", "CLAUDE", "CODEX"))}
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # a size limit must not truncate the bytecode cache
    if not project:
        env["KAPI_NO_PROJECT"] = "1"

    def limited() -> None:
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run(
        [str(KAPI), *args],
        cwd=root,
        input=stdin.encode() if stdin else None,
        capture_output=True,
        timeout=60,
        env=env,
        preexec_fn=limited,
    )


def lay_out(root: Path, *, project: bool) -> None:
    (root / "en.json").write_text(EN)
    if project:
        (root / "kapi.yaml").write_text(RECIPE)


def change_set(root: Path, *, project: bool) -> str:
    """A one-op set that makes ``title`` longer, with the rev ``kapi inspect`` gave."""
    read = kapi(root, "inspect", "en.json", project=project)
    assert read.returncode == 0, read.stderr
    rev = next(r["rev"] for r in json.loads(read.stdout) if r["ref"]["block"] == "title")
    op = {"op": "set_content", "at": {"doc": "en.json", "block": "title"}, "if_match": rev}
    return json.dumps({"ops": [{**op, "text": "Welcome to the shop, " + "friend " * 400}]})


def refused(root: Path, change: str, *, project: bool, limit: int | None = None) -> dict:
    """Apply ``change``; assert a clean refusal that left every file as it was."""
    before = {p.name: p.read_bytes() for p in root.iterdir() if p.is_file()}
    completed = kapi(root, "apply", "--json", "-", stdin=change, project=project, limit=limit)
    stderr = completed.stderr.decode()
    assert "Traceback" not in stderr, stderr
    assert completed.returncode in (3, 5), (completed.returncode, stderr)
    result = json.loads(completed.stdout)
    assert result["status"] == "refused", result
    # The file that could not be written, or (in a project) the store that could not be opened.
    error = result["ops"][0]["error"] if result.get("ops") else result["error"]
    assert "en.json" in error["message"] or (project and ".kapi/project.db" in error["message"])
    assert {p.name: p.read_bytes() for p in root.iterdir() if p.is_file()} == before
    assert not [p for p in root.iterdir() if p.name.endswith(".kapi-tmp")]
    return error


@pytest.fixture
def mount(tmp_path):
    """Mounts a tmpfs with the given options; yields a function that returns the folder."""
    mounted: list[Path] = []

    def make(options: str) -> Path:
        folder = tmp_path / f"fs{len(mounted)}"
        folder.mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], check=True)
        mounted.append(folder)
        return folder

    yield make
    for folder in reversed(mounted):
        subprocess.run(["umount", "-l", str(folder)], check=False)


def fill(folder: Path, *, leave: int = 0) -> None:
    """Take every free block of the tmpfs but ``leave`` bytes."""
    stats = os.statvfs(folder)
    free = stats.f_bavail * stats.f_frsize - leave
    with open(folder / ".filler", "wb") as out, contextlib.suppress(OSError):
        out.write(b"\0" * max(free, 0))


both_modes = pytest.mark.parametrize("project", [True, False], ids=["project", "no project"])


@needs_root
@both_modes
def test_a_full_disk_is_refused_and_loses_nothing(mount, project):
    root = mount("size=1m")
    lay_out(root, project=project)
    change = change_set(root, project=project)
    fill(root)
    error = refused(root, change, project=project)
    assert error["code"] == "unreachable"
    assert "No space left on device" in error["message"] or "disk is full" in error["message"]


@needs_root
@both_modes
def test_a_nearly_full_disk_is_refused_and_loses_nothing(mount, project):
    root = mount("size=1m")
    lay_out(root, project=project)
    change = change_set(root, project=project)
    fill(root, leave=len(EN) + 512)  # room for part of the new file, not all of it
    error = refused(root, change, project=project)
    assert error["code"] == "unreachable"


@needs_root
@both_modes
def test_no_free_inodes_is_refused_and_loses_nothing(mount, project):
    root = mount("size=4m,nr_inodes=64")
    lay_out(root, project=project)
    change = change_set(root, project=project)
    count = 0
    while True:
        try:
            (root / f".inode-{count}").touch()
        except OSError:
            break
        count += 1
    error = refused(root, change, project=project)
    assert error["code"] == "unreachable"
    assert "No space left on device" in error["message"] or "disk is full" in error["message"]


@both_modes
def test_a_file_size_limit_is_refused_and_loses_nothing(tmp_path, project):
    lay_out(tmp_path, project=project)
    change = change_set(tmp_path, project=project)
    error = refused(tmp_path, change, project=project, limit=len(EN) + 64)
    assert error["code"] == "unreachable"
    assert "File too large" in error["message"] or "disk I/O error" in error["message"]


@both_modes
def test_a_read_only_file_is_refused_not_replaced(tmp_path, project):
    lay_out(tmp_path, project=project)
    change = change_set(tmp_path, project=project)
    (tmp_path / "en.json").chmod(0o444)
    error = refused(tmp_path, change, project=project)
    assert error["code"] == "not_permitted"
    assert "read-only (mode 0444)" in error["message"]
    assert (tmp_path / "en.json").stat().st_mode & 0o777 == 0o444


@both_modes
def test_a_read_only_folder_is_refused(tmp_path, project):
    root = tmp_path / "root"
    root.mkdir()
    lay_out(root, project=project)
    change = change_set(root, project=project)
    root.chmod(0o555)
    try:
        error = refused(root, change, project=project)
    finally:
        root.chmod(0o755)
    assert error["code"] == "not_permitted"
    assert "folder" in error["message"] and "read-only" in error["message"]


@needs_root
@both_modes
def test_an_immutable_file_is_refused(tmp_path, project):
    if shutil.which("chattr") is None:
        pytest.skip("chattr is not installed")
    lay_out(tmp_path, project=project)
    change = change_set(tmp_path, project=project)
    made = subprocess.run(["chattr", "+i", str(tmp_path / "en.json")], capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"this file system keeps no immutable flag: {made.stderr.decode().strip()}")
    try:
        error = refused(tmp_path, change, project=project)
    finally:
        subprocess.run(["chattr", "-i", str(tmp_path / "en.json")], check=True)
    assert error["code"] == "not_permitted"
    assert "Operation not permitted (EPERM)" in error["message"]


@needs_root
@both_modes
def test_a_read_only_mount_is_refused(mount, project):
    root = mount("size=1m")
    lay_out(root, project=project)
    change = change_set(root, project=project)
    if project:  # the project's store exists before the disk turns read-only
        kapi(root, "terms", "list", project=True)
    subprocess.run(["mount", "-o", "remount,ro", str(root)], check=True)
    error = refused(root, change, project=project)
    assert error["code"] in ("not_permitted", "unreachable" if project else "not_permitted")
    assert "Read-only file system (EROFS)" in error["message"] or (
        project and ".kapi/project.db" in error["message"]
    )


@needs_root
def test_a_full_disk_under_a_project_whose_store_exists_is_refused(mount):
    root = mount("size=1m")
    lay_out(root, project=True)
    change = change_set(root, project=True)
    assert kapi(root, "terms", "list", project=True).returncode == 0  # creates .kapi/project.db
    fill(root)
    error = refused(root, change, project=True)
    assert error["code"] in ("unreachable", "not_permitted")
    assert "en.json" in error["message"] or ".kapi/project.db" in error["message"]


# --- kapi up: a disk that refuses the translations it writes ---------------------------------

SHOP = Path(__file__).resolve().parents[3] / "examples" / "shop"
TARGETS = ("locales/fr.json", "locales/de.json")


def up_refused(root: Path) -> tuple[int, str]:
    """``kapi up --provider pseudo``: a clean failure, every target as it was, no temporary.

    1 when the store cannot be opened (as for every verb but ``apply``, which reports
    ``unreachable``), 3 when a translation is refused.
    """
    before = {name: (root / name).read_bytes() for name in TARGETS}
    completed = kapi(root, "up", "--provider", "pseudo", project=True)
    stderr = completed.stderr.decode()
    assert "Traceback" not in stderr, stderr
    assert completed.returncode in (1, 3), (completed.returncode, stderr)
    assert {name: (root / name).read_bytes() for name in TARGETS} == before
    assert not list(root.rglob("*.kapi-tmp"))
    return completed.returncode, stderr


@needs_root
@pytest.mark.parametrize("store_first", [True, False], ids=["store exists", "no store"])
def test_up_on_a_full_disk_refuses_and_loses_nothing(mount, store_first):
    root = mount("size=2m")
    shutil.copytree(SHOP, root, dirs_exist_ok=True)
    if store_first:
        assert kapi(root, "status", project=True).returncode == 0
    fill(root)
    _, stderr = up_refused(root)
    assert (
        "No space left on device" in stderr
        or "disk is full" in stderr
        or ("disk I/O error" in stderr and "the disk has room" in stderr)
    ), stderr


def test_up_refuses_a_read_only_translation_and_lands_the_others(tmp_path):
    root = tmp_path / "shop"
    shutil.copytree(SHOP, root)
    french = (root / "locales/fr.json").read_bytes()
    (root / "locales/fr.json").chmod(0o444)
    completed = kapi(root, "up", "--provider", "pseudo", project=True)
    stderr = completed.stderr.decode()
    assert completed.returncode == 3 and "Traceback" not in stderr, stderr
    assert "locales/fr.json is read-only (mode 0444)" in stderr
    assert (root / "locales/fr.json").read_bytes() == french
    assert json.loads((root / "locales/de.json").read_text())["checkout"]["pay"] != ""
    assert not list(root.rglob("*.kapi-tmp"))


@needs_root
def test_up_exits_as_apply_does_when_no_translation_could_be_written_for_lack_of_room(mount):
    """The store has room, the translations' folder none: nothing lands, exit 5 (``unreachable``),
    the code ``kapi apply`` exits with for the same write."""
    root = mount("size=4m")
    shutil.copytree(SHOP, root, dirs_exist_ok=True)
    assert kapi(root, "status", project=True).returncode == 0  # the store, on the roomy disk
    catalogues = {p.name: p.read_bytes() for p in (root / "locales").iterdir()}
    full = root / "locales"
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(full)], check=True)
    try:
        for name, data in catalogues.items():
            (full / name).write_bytes(data)
        fill(full)
        completed = kapi(root, "up", "--provider", "pseudo", "--json", project=True)
        stderr = completed.stderr.decode()
        assert "Traceback" not in stderr, stderr
        assert completed.returncode == 5, (completed.returncode, stderr)
        result = json.loads(completed.stdout)
        assert result["written"] == 0 and result["refused"] > 0
        codes = {u["code"] for u in result["units"] if u["outcome"] == "refused"}
        assert "unreachable" in codes and codes <= {"unreachable", ""}
        assert any("No space left on device" in u["reason"] for u in result["units"])
        assert {p.name: p.read_bytes() for p in full.iterdir() if p.name != ".filler"} == (
            catalogues
        )
        assert not list(root.rglob("*.kapi-tmp"))
        # apply refuses the same write with the same code
        op = {
            "op": "set_content",
            "at": {"doc": "locales/fr.json", "block": "nav.home"},
            "if_match": "*",
            "text": "Bienvenue " * 200,
        }
        applied = kapi(root, "apply", "--json", "-", stdin=json.dumps({"ops": [op]}), project=True)
        assert applied.returncode == completed.returncode, applied.stderr.decode()
    finally:
        subprocess.run(["umount", "-l", str(full)], check=False)
