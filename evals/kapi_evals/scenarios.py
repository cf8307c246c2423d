"""Scenarios: a prompt, the workspace it runs in, and the checks that decide success.

A scenario file is read strictly: an unknown field, a missing field, a check
kind kapi does not know or a scenario without checks is an error naming the
file, its line and the field, and no scenario of the set is run.

```yaml
title: Edit a translation in an XLIFF file
kind: positive                  # positive: an agent should reach for kapi; negative: it should not
prompt: >-
  In translations/checkout.fr.xlf ...
workspace:
  copy: [examples/shop, evals/templates/shop-files]   # folders of this repository, in order
mcp:
  first_tool: [read_blocks]     # positives: the kapi MCP tools a right first call may be
checks:
  - changed: [translations/checkout.fr.xlf]
  - unchanged_except: [translations/checkout.fr.xlf]
  - text: {file: translations/checkout.fr.xlf, target: fr, contains: ["Régler"]}
  - kapi_check: [translations/checkout.fr.xlf]
  - context_log: {kind: [correct, observe], actor: agent, contains: Profile}
  - command: {run: [python, -m, unittest, -q], cwd: app, exit: 0}
```
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from kapi_evals.errors import EvalError

__all__ = [
    "CHECK_KINDS",
    "Changed",
    "Check",
    "CommandCheck",
    "ContextLogCheck",
    "KapiCheck",
    "Scenario",
    "TextCheck",
    "UnchangedExcept",
    "load_scenario",
    "load_scenarios",
]

KINDS = ("positive", "negative")
READS = ("kapi", "raw")
OP_KINDS = ("observe", "correct", "withdraw")
ACTORS = ("agent", "person")


@dataclass(frozen=True)
class Changed:
    """Each path holds other bytes than the workspace started with, or was created."""

    paths: tuple[str, ...]

    def describe(self) -> str:
        return "changed " + ", ".join(self.paths)


@dataclass(frozen=True)
class UnchangedExcept:
    """Every file the workspace started with, other than these, is byte for byte as it was."""

    paths: tuple[str, ...]

    def describe(self) -> str:
        return "nothing else changed than " + ", ".join(self.paths)


@dataclass(frozen=True)
class TextCheck:
    """The text of a file (its blocks as kapi reads them, or its raw text) holds and lacks strings."""

    file: str
    contains: tuple[str, ...]
    lacks: tuple[str, ...]
    target: str
    read: str

    def describe(self) -> str:
        parts = [f"contains {text!r}" for text in self.contains]
        parts += [f"lacks {text!r}" for text in self.lacks]
        where = f"{self.file} [{self.target}]" if self.target else self.file
        return f"{where} " + ", ".join(parts)


@dataclass(frozen=True)
class KapiCheck:
    """``kapi check PATHS`` passes (exit 0) in the workspace's project."""

    paths: tuple[str, ...]

    def describe(self) -> str:
        return "kapi check " + " ".join(self.paths) + " passes"


@dataclass(frozen=True)
class ContextLogCheck:
    """``kapi context log --json`` holds an operation of these kinds, by this actor, with this text."""

    kinds: tuple[str, ...]
    actor: str
    contains: str
    seen_in: str

    def describe(self) -> str:
        parts = ["/".join(self.kinds) if self.kinds else "an operation"]
        if self.actor:
            parts.append(f"by an {self.actor}")
        if self.contains:
            parts.append(f"saying {self.contains!r}")
        if self.seen_in:
            parts.append(f"seen in {self.seen_in}")
        return "context log has " + " ".join(parts)


@dataclass(frozen=True)
class CommandCheck:
    """A command run in the workspace (``python`` is the runner's interpreter) exits as expected."""

    run: tuple[str, ...]
    cwd: str
    exit: int

    def describe(self) -> str:
        where = f" in {self.cwd}" if self.cwd else ""
        return f"`{' '.join(self.run)}`{where} exits {self.exit}"


Check = Changed | UnchangedExcept | TextCheck | KapiCheck | ContextLogCheck | CommandCheck


@dataclass(frozen=True)
class Scenario:
    """One task, as the runner and the report know it."""

    id: str
    title: str
    kind: str
    prompt: str
    copy: tuple[str, ...]
    first_tool: tuple[str, ...]
    checks: tuple[Check, ...]
    source: str

    @property
    def positive(self) -> bool:
        return self.kind == "positive"


class _Reader:
    """Reads one scenario file's nodes, every mistake naming the file, the line and the field."""

    def __init__(self, label: str, root: Any) -> None:
        self.label = label
        self.root = root

    def fail(self, node: Any, step: str | int | None, message: str) -> EvalError:
        from kapi.host.yaml import line_of

        line = line_of(node, step) if node is not None else None
        where = f"{self.label}:{line}" if line else self.label
        return EvalError(f"{where}: {message}")

    def mapping(
        self, node: Any, name: str, fields: Mapping[str, bool], parent: Any, step: str | int
    ) -> dict[str, Any]:
        if not isinstance(node, Mapping):
            raise self.fail(parent, step, f"{name} must be a mapping")
        for key in node:
            if key not in fields:
                known = ", ".join(fields)
                raise self.fail(node, key, f'unknown field "{key}" in {name} (fields: {known})')
        for key, required in fields.items():
            if required and key not in node:
                raise self.fail(node, None, f'{name} is missing the field "{key}"')
        return dict(node)

    def text(self, node: Any, key: str, name: str) -> str:
        value = node[key]
        if not isinstance(value, str) or not value.strip():
            raise self.fail(node, key, f'"{key}" in {name} must be a non-empty string')
        return value

    def strings(self, node: Any, key: str, name: str, *, empty: bool = False) -> tuple[str, ...]:
        value = node[key]
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
            raise self.fail(node, key, f'"{key}" in {name} must be a string or a list of strings')
        if not value and not empty:
            raise self.fail(node, key, f'"{key}" in {name} names nothing')
        return tuple(value)

    def paths(self, node: Any, key: str, name: str) -> tuple[str, ...]:
        paths = self.strings(node, key, name)
        for path in paths:
            pure = PurePosixPath(path)
            if pure.is_absolute() or ".." in pure.parts or "\\" in path:
                raise self.fail(
                    node, key, f'"{key}" in {name}: {path!r} is not a path inside the workspace'
                )
        return paths

    def choice(self, node: Any, key: str, name: str, allowed: Iterable[str]) -> str:
        value = self.text(node, key, name)
        allowed = tuple(allowed)
        if value not in allowed:
            raise self.fail(
                node, key, f'"{key}" in {name} is {value!r}; it is one of {", ".join(allowed)}'
            )
        return value


def _path_list(kind: type[Changed] | type[UnchangedExcept] | type[KapiCheck]) -> _CheckReader:
    def read(reader: _Reader, node: Any, name: str) -> Check:
        return kind(reader.paths(node, name, name))

    return read


def _text_check(reader: _Reader, node: Any, name: str) -> Check:
    body = reader.mapping(
        node[name],
        name,
        {"file": True, "contains": False, "lacks": False, "target": False, "read": False},
        node,
        name,
    )
    spec = node[name]
    if "contains" not in body and "lacks" not in body:
        raise reader.fail(spec, None, f'{name} needs "contains" or "lacks"')
    read = reader.choice(spec, "read", name, READS) if "read" in body else "kapi"
    target = reader.text(spec, "target", name) if "target" in body else ""
    if target and read == "raw":
        raise reader.fail(spec, "target", f'{name}: "target" reads through kapi, not "raw"')
    return TextCheck(
        file=reader.paths(spec, "file", name)[0],
        contains=reader.strings(spec, "contains", name) if "contains" in body else (),
        lacks=reader.strings(spec, "lacks", name) if "lacks" in body else (),
        target=target,
        read=read,
    )


def _context_log_check(reader: _Reader, node: Any, name: str) -> Check:
    fields = {"kind": False, "actor": False, "contains": False, "seen_in": False}
    body = reader.mapping(node[name], name, fields, node, name)
    spec = node[name]
    kinds = reader.strings(spec, "kind", name) if "kind" in body else ()
    for kind in kinds:
        if kind not in OP_KINDS:
            raise reader.fail(
                spec, "kind", f'"kind" in {name} is {kind!r}; it is one of {", ".join(OP_KINDS)}'
            )
    return ContextLogCheck(
        kinds=kinds,
        actor=reader.choice(spec, "actor", name, ACTORS) if "actor" in body else "",
        contains=reader.text(spec, "contains", name) if "contains" in body else "",
        seen_in=reader.paths(spec, "seen_in", name)[0] if "seen_in" in body else "",
    )


def _command_check(reader: _Reader, node: Any, name: str) -> Check:
    body = reader.mapping(node[name], name, {"run": True, "cwd": False, "exit": False}, node, name)
    spec = node[name]
    code = body.get("exit", 0)
    if isinstance(code, bool) or not isinstance(code, int):
        raise reader.fail(spec, "exit", f'"exit" in {name} must be a whole number')
    return CommandCheck(
        run=reader.strings(spec, "run", name),
        cwd=reader.paths(spec, "cwd", name)[0] if "cwd" in body else "",
        exit=code,
    )


_CheckReader = Callable[[_Reader, Any, str], Check]

CHECK_KINDS: dict[str, _CheckReader] = {
    "changed": _path_list(Changed),
    "unchanged_except": _path_list(UnchangedExcept),
    "text": _text_check,
    "kapi_check": _path_list(KapiCheck),
    "context_log": _context_log_check,
    "command": _command_check,
}

_SCENARIO_FIELDS = {
    "title": True,
    "kind": True,
    "prompt": True,
    "workspace": True,
    "mcp": False,
    "checks": True,
}


def load_scenario(path: Path, repo: Path) -> Scenario:
    """One scenario file, read strictly; raises :class:`EvalError` naming file, line and field."""
    from kapi.host.yaml import YamlSyntaxError, load_yaml

    label = _label(path, repo)
    try:
        root = load_yaml(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as err:
        raise EvalError(f"{label}: cannot be read ({err})") from None
    except YamlSyntaxError as err:
        where = f"{label}:{err.line}" if err.line else label
        raise EvalError(f"{where}: {err}") from None
    reader = _Reader(label, root)
    if root is None:
        raise reader.fail(None, None, "is empty")
    body = reader.mapping(root, "the scenario", _SCENARIO_FIELDS, None, 0)
    kind = reader.choice(root, "kind", "the scenario", KINDS)
    reader.mapping(body["workspace"], "workspace", {"copy": True}, root, "workspace")
    copy = reader.strings(body["workspace"], "copy", "workspace")
    for folder in copy:
        source = (repo / folder).resolve()
        if not source.is_relative_to(repo.resolve()) or not source.is_dir():
            raise reader.fail(
                body["workspace"],
                "copy",
                f"workspace copies {folder!r}, not a folder of the repository",
            )
    first_tool: tuple[str, ...] = ()
    if kind == "positive":
        if "mcp" not in body:
            raise reader.fail(root, None, 'a positive scenario is missing the field "mcp"')
        reader.mapping(body["mcp"], "mcp", {"first_tool": True}, root, "mcp")
        first_tool = reader.strings(body["mcp"], "first_tool", "mcp")
    elif "mcp" in body:
        raise reader.fail(root, "mcp", 'a negative scenario has no "mcp": no kapi tool is right')
    checks_node = body["checks"]
    if not isinstance(checks_node, list) or not checks_node:
        raise reader.fail(root, "checks", "checks must list at least one check")
    checks = []
    for index, item in enumerate(checks_node):
        if not isinstance(item, Mapping) or len(item) != 1:
            raise reader.fail(
                checks_node, index, f"check {index + 1} must be one mapping of a check kind"
            )
        (name,) = item
        if name not in CHECK_KINDS:
            raise reader.fail(
                item,
                name,
                f'unknown check "{name}" (checks: {", ".join(CHECK_KINDS)})',
            )
        checks.append(CHECK_KINDS[name](reader, item, name))
    return Scenario(
        id=path.stem,
        title=reader.text(root, "title", "the scenario"),
        kind=kind,
        prompt=reader.text(root, "prompt", "the scenario").strip(),
        copy=copy,
        first_tool=first_tool,
        checks=tuple(checks),
        source=label,
    )


def load_scenarios(folder: Path, repo: Path) -> list[Scenario]:
    """Every ``*.yaml`` of a folder, sorted by id; the first bad file stops the load."""
    if not folder.is_dir():
        raise EvalError(f"{_label(folder, repo)}: no such folder of scenarios")
    scenarios = [load_scenario(path, repo) for path in sorted(folder.glob("*.yaml"))]
    if not scenarios:
        raise EvalError(f"{_label(folder, repo)}: holds no scenario (*.yaml)")
    return scenarios


def _label(path: Path, repo: Path) -> str:
    """A path as the messages name it: relative to the repository when inside it."""
    try:
        return path.resolve().relative_to(repo.resolve()).as_posix()
    except ValueError:
        return path.name
