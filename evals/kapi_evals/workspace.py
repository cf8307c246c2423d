"""Throwaway workspaces, the paired study's conditions, and the guard around each attempt.

Each scenario's workspace is built once per condition: its template folders
copied in order, made a git repository with one commit, then given kapi's
store by ``kapi init`` (with the agent host wired and the rules files written,
unless the condition is the baseline), adjusted to the condition and
committed again. Every attempt runs in a fresh copy of that,
inside an attempt folder of its own:

```
a007/
  workspace/  the agent's working directory
  home/       the agent's HOME (its host keeps its own state here)
  tmp/        the agent's TMPDIR
  outside/    a sentinel folder beside the workspace
```

The guard snapshots the attempt folder (all but ``workspace/``, ``tmp/`` and the
host's own state in ``home/``), the folder of kapi executables the agent runs
and the repository checkout before the agent starts, and compares after: any
difference is a write outside the workspace, and fails the attempt.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kapi_evals.agents import HOST_MARKERS
from kapi_evals.errors import EXIT_FAILED, EvalError

__all__ = [
    "CONDITIONS",
    "KAPI_EXECUTABLES",
    "Area",
    "Condition",
    "Guard",
    "Prepared",
    "Workspaces",
    "agent_env",
    "file_digests",
    "git",
    "kapi_env",
    "link_kapi",
]

KAPI_EXECUTABLES = ("kapi", "kcat", "kgrep", "ksed", "kdiff", "kapi-mcp")

# What kapi itself keeps in a workspace, and git's own folder: never an agent's edit.
_OWN = (".git", ".kapi")


@dataclass(frozen=True)
class Condition:
    """One arm of the paired study: what of kapi the agent is given."""

    name: str
    skill: bool  # the kapi skill in the workspace's skills folder
    mcp: bool  # the kapi MCP server configured for the agent
    kapi_on_path: bool  # the kapi executables on the agent's PATH
    project: bool  # kapi finds the project (False: KAPI_NO_PROJECT=1)
    wired: bool  # `kapi init --agents` wired the host and wrote the rules files
    about: str


CONDITIONS: dict[str, Condition] = {
    "skill": Condition(
        "skill",
        True,
        False,
        True,
        True,
        True,
        "the kapi skill and kapi on PATH; no kapi MCP server",
    ),
    "mcp": Condition(
        "mcp", False, True, True, True, True, "the kapi MCP server and kapi on PATH; no skill"
    ),
    "no-project": Condition(
        "no-project",
        True,
        False,
        True,
        False,
        True,
        "the kapi skill and kapi on PATH with discovery off (KAPI_NO_PROJECT=1): nothing governs the edits",
    ),
    "baseline": Condition(
        "baseline",
        False,
        False,
        False,
        True,
        False,
        "ordinary file tools: no skill, no MCP server, no kapi on PATH, no rules files",
    ),
}


def git(cwd: Path, *args: str) -> str:
    """Run git in ``cwd`` with no person's configuration (no signing, no hooks); its stdout."""
    env = {
        **os.environ,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
        "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    }
    done = subprocess.run(
        ["git", "-c", "user.name=kapi evals", "-c", "user.email=evals@kapi.invalid", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise EvalError(
            f"git {' '.join(args)} failed: {done.stderr.strip() or done.stdout.strip()}",
            EXIT_FAILED,
        )
    return done.stdout


def file_digests(root: Path) -> dict[str, str]:
    """Every file of a workspace (not .git/ or .kapi/) by its path, as a SHA-256 of its bytes."""
    digests: dict[str, str] = {}
    for path in _walk(root, lambda rel: rel.split("/", 1)[0] in _OWN):
        digests[path] = hashlib.sha256((root / path).read_bytes()).hexdigest()
    return digests


def _walk(root: Path, skip: Callable[[str], bool]) -> Iterable[str]:
    """The files (and symlinks) below ``root`` as slash paths, folders ``skip`` names left out."""
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            rel = Path(entry.path).relative_to(root).as_posix()
            if skip(rel):
                continue
            if entry.is_dir(follow_symlinks=False):
                stack.append(Path(entry.path))
            else:
                yield rel


@dataclass(frozen=True)
class Prepared:
    """A workspace built for one condition: the folder copied per attempt and what it started as."""

    path: Path
    baseline: dict[str, str]
    integration: dict[str, Any]


@dataclass
class Area:
    """One attempt's folders."""

    root: Path
    work: Path
    home: Path
    tmp: Path
    outside: Path


@dataclass
class Guard:
    """Snapshots of what an agent must not write, compared after the attempt."""

    roots: list[tuple[Path, Callable[[str], bool], str]]  # a folder, what to skip, its label
    repo: Path | None
    repo_skip: tuple[str, ...] = ()
    before: list[dict[str, tuple[int, int]]] = field(default_factory=list)
    repo_before: dict[str, tuple[int, int]] | None = None

    def arm(self) -> None:
        self.before = [_stat_tree(root, skip) for root, skip, _ in self.roots]
        self.repo_before = self._repo_state()

    def breaches(self) -> list[str]:
        """The paths written outside the workspace since :meth:`arm`, named as the report shows them."""
        found: list[str] = []
        for (root, skip, label), before in zip(self.roots, self.before):
            after = _stat_tree(root, skip)
            for rel in sorted(set(before) | set(after)):
                if before.get(rel) != after.get(rel):
                    found.append(f"{label}{rel}")
        after_repo = self._repo_state()
        if self.repo_before is not None and after_repo is not None:
            for rel in sorted(set(self.repo_before) | set(after_repo)):
                if self.repo_before.get(rel) != after_repo.get(rel):
                    found.append(f"repository: {rel}")
        return found

    def _repo_state(self) -> dict[str, tuple[int, int]] | None:
        """The checkout's changed and untracked files (with their size and time) and its HEAD."""
        if self.repo is None:
            return None
        try:
            status = subprocess.run(
                ["git", "status", "--porcelain=v1", "-z", "--untracked-files=all"],
                cwd=self.repo,
                capture_output=True,
                check=True,
            ).stdout.decode("utf-8", "replace")
            head = subprocess.run(
                ["git", "rev-parse", "HEAD"], cwd=self.repo, capture_output=True, check=False
            ).stdout.decode()
        except (OSError, subprocess.CalledProcessError):
            return None
        state: dict[str, tuple[int, int]] = {"HEAD " + head.strip(): (0, 0)}
        entries = status.split("\0")
        index = 0
        while index < len(entries):
            entry = entries[index]
            index += 1
            if len(entry) < 4:
                continue
            if entry[0] in "RC":  # a rename names its source in the next entry
                index += 1
            rel = entry[3:]
            if any(rel == skip or rel.startswith(skip + "/") for skip in self.repo_skip):
                continue
            try:
                info = os.lstat(self.repo / rel)
                state[rel] = (info.st_size, info.st_mtime_ns)
            except OSError:
                state[rel] = (-1, -1)
        return state


def _stat_tree(root: Path, skip: Callable[[str], bool]) -> dict[str, tuple[int, int]]:
    result: dict[str, tuple[int, int]] = {}
    for rel in _walk(root, skip):
        try:
            info = os.lstat(root / rel)
        except OSError:
            continue
        result[rel] = (info.st_size, info.st_mtime_ns)
    return result


class Workspaces:
    """Builds each (workspace, condition) once and hands out fresh copies, one per attempt."""

    def __init__(self, repo: Path, root: Path, kapi: Path | None, host: str) -> None:
        self.repo = repo
        self.root = root
        self.kapi = kapi
        self.host = host
        self._prepared: dict[tuple[tuple[str, ...], str], Prepared] = {}
        self._initialised_: dict[
            tuple[tuple[str, ...], bool], tuple[Path, list[dict[str, Any]]]
        ] = {}
        self._attempts = 0

    def prepared(self, copy: tuple[str, ...], condition: Condition) -> Prepared:
        key = (copy, condition.name)
        if key not in self._prepared:
            self._prepared[key] = self._prepare(copy, condition)
        return self._prepared[key]

    def _initialised(self, copy: tuple[str, ...], wired: bool) -> tuple[Path, list[dict[str, Any]]]:
        """The templates copied, committed and given ``kapi init`` (the store always; the host's
        wiring and the rules files when ``wired``), once; with the agent files init wrote."""
        key = (copy, wired)
        if key not in self._initialised_:
            work = self.root / "prepared" / f"init{len(self._initialised_) + 1}"
            work.mkdir(parents=True)
            for folder in copy:
                shutil.copytree(self.repo / folder, work, dirs_exist_ok=True, symlinks=True)
            for cache in list(work.rglob("__pycache__")) + list(work.rglob(".kapi")):
                shutil.rmtree(cache, ignore_errors=True)
            git(work, "init", "-q", "-b", "main")
            git(work, "config", "user.name", "kapi evals")
            git(work, "config", "user.email", "evals@kapi.invalid")
            git(work, "add", "-A")
            git(work, "commit", "-q", "-m", "The workspace as the scenario's templates give it")
            self._initialised_[key] = (work, self._init(work, wired))
        return self._initialised_[key]

    def _init(self, work: Path, wired: bool) -> list[dict[str, Any]]:
        if self.kapi is None:
            raise EvalError("no kapi executable to wire the workspace with (--kapi)")
        wiring = ["--agents", self.host] if wired else ["--agents", "none", "--no-rules-files"]
        done = subprocess.run(
            [str(self.kapi), "init", *wiring, "--json"],
            cwd=work,
            env=kapi_env(),
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise EvalError(
                f"kapi init {' '.join(wiring)} failed in a scenario workspace: "
                f"{done.stderr.strip()}",
                EXIT_FAILED,
            )
        files: list[dict[str, Any]] = json.loads(done.stdout).get("agents", {}).get("files", [])
        return files

    def _prepare(self, copy: tuple[str, ...], condition: Condition) -> Prepared:
        """The initialised workspace adjusted to the condition and committed."""
        source, files = self._initialised(copy, condition.wired)
        work = self.root / "prepared" / f"w{len(self._prepared) + 1}"
        shutil.copytree(source, work, symlinks=True)
        integration: dict[str, Any] = {
            "condition": condition.name,
            "about": condition.about,
            "skill": None,
            "mcp": None,
            "kapi_on_path": condition.kapi_on_path,
            "kapi_no_project": not condition.project,
            "rules_files": [],
        }
        for item in files:
            target = work / item["path"]
            if item["kind"] == "mcp" and not condition.mcp:
                target.unlink(missing_ok=True)
            elif item["kind"] == "skill" and not condition.skill:
                shutil.rmtree(target, ignore_errors=True)
            elif item["kind"] == "skill":
                skill = target / "SKILL.md"
                integration["skill"] = {
                    "path": f"{item['path']}/SKILL.md",
                    "sha256": hashlib.sha256(skill.read_bytes()).hexdigest(),
                }
            elif item["kind"] == "mcp":
                servers = json.loads(target.read_text(encoding="utf-8"))
                key = "servers" if "servers" in servers else "mcpServers"
                integration["mcp"] = {"config": item["path"], "kapi": servers[key]["kapi"]}
        baseline = file_digests(work)
        integration["rules_files"] = sorted(
            path for path in baseline if path.rsplit("/", 1)[-1] in ("AGENTS.md", "CLAUDE.md")
        )
        git(work, "add", "-A")
        git(work, "commit", "-q", "--allow-empty", "-m", "kapi init, as the condition has it")
        return Prepared(work, baseline, integration)

    def attempt(self, prepared: Prepared) -> Area:
        """A fresh attempt folder holding a copy of the prepared workspace."""
        self._attempts += 1
        root = self.root / f"a{self._attempts:03d}"
        area = Area(root, root / "workspace", root / "home", root / "tmp", root / "outside")
        shutil.copytree(prepared.path, area.work, symlinks=True)
        for folder in (area.home, area.tmp, area.outside):
            folder.mkdir(parents=True)
        (area.outside / "README").write_text(
            "A folder beside the workspace. An agent that writes here wrote outside its workspace.\n",
            encoding="utf-8",
        )
        return area


def kapi_env() -> dict[str, str]:
    """The environment kapi runs in for the runner (wiring, checks): a person, discovery on."""
    return {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("KAPI_") and key not in HOST_MARKERS
    }


def agent_env(
    base: Mapping[str, str],
    condition: Condition,
    area: Area,
    bin_dir: Path,
    drop: Iterable[str],
    keep_dirs: Iterable[Path] = (),
) -> tuple[dict[str, str], list[str]]:
    """The agent's environment for one attempt, and the PATH folders holding another kapi left in.

    HOME and TMPDIR are the attempt's own; no ``KAPI_*`` variable of the person's
    reaches the agent; PATH starts with the measured kapi where the condition
    gives it, and folders holding another ``kapi`` are left out (unless the
    agent's own executable lives there: those are returned, and recorded).
    """
    drop = set(drop)
    env = {
        key: value
        for key, value in base.items()
        if not key.startswith("KAPI_") and key not in drop and not key.startswith("XDG_")
    }
    env["HOME"] = str(area.home)
    env["TMPDIR"] = str(area.tmp)
    keep = {Path(folder).resolve() for folder in keep_dirs}
    path: list[str] = []
    shadowed: list[str] = []
    for folder in base.get("PATH", "").split(os.pathsep):
        if not folder or Path(folder).resolve() == bin_dir.resolve():
            continue
        if any(os.access(Path(folder) / name, os.X_OK) for name in KAPI_EXECUTABLES):
            if Path(folder).resolve() not in keep:
                continue
            shadowed.append(folder)
        path.append(folder)
    if condition.kapi_on_path:
        path.insert(0, str(bin_dir))
    env["PATH"] = os.pathsep.join(path)
    if not condition.project:
        env["KAPI_NO_PROJECT"] = "1"
    return env, shadowed


def link_kapi(kapi: Path, bin_dir: Path) -> list[str]:
    """Links the measured kapi and its toolbox (found beside it) into ``bin_dir``; their names."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    linked = []
    for name in KAPI_EXECUTABLES:
        source = kapi if name == "kapi" else kapi.parent / name
        if source.is_file() and os.access(source, os.X_OK):
            (bin_dir / name).symlink_to(source.resolve())
            linked.append(name)
    return linked
