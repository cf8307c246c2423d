"""Entry points of one group, read from the installed distributions' ``entry_points.txt``.

``importlib.metadata`` costs more to import than kapi's whole start (it brings
``email``, ``zipfile`` and ``csv``), while kapi only needs the ``name =
module:attr`` lines of one group. Folders on ``sys.path`` are read directly,
first distribution of a name winning as ``importlib.metadata`` does; anything
else on the path (a zip file, an import hook) is left to ``importlib.metadata``.
The module imports nothing but ``os`` and ``sys``: ``kapi --help`` reads the
plug-in commands through it before anything else is loaded.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["EntryPoint", "entry_points"]

_DIST_SUFFIXES = (".dist-info", ".egg-info")


class EntryPoint(tuple[str, str, str]):
    """One ``name = module:attribute`` line of a group (a tuple: ``kapi --help`` loads no attrs)."""

    __slots__ = ()

    def __new__(cls, name: str, value: str, group: str) -> EntryPoint:
        return super().__new__(cls, (name, value, group))

    @property
    def name(self) -> str:
        return self[0]

    @property
    def value(self) -> str:
        return self[1]

    @property
    def group(self) -> str:
        return self[2]

    def __repr__(self) -> str:
        return f"EntryPoint(name={self.name!r}, value={self.value!r}, group={self.group!r})"

    def load(self) -> object:
        import importlib

        module_name, _, attribute = self.value.partition(":")
        found: object = importlib.import_module(module_name.strip())
        for part in attribute.split("[")[0].strip().split(".") if attribute.strip() else ():
            found = getattr(found, part)
        return found


def entry_points(group: str, path: Iterable[str] | None = None) -> list[EntryPoint]:
    """The entry points of ``group`` in every distribution on ``path`` (default ``sys.path``)."""
    seen: set[str] = set()
    found: list[EntryPoint] = []
    for entry in sys.path if path is None else path:
        folder = entry or "."
        if not os.path.isdir(folder):
            if os.path.exists(folder):
                found.extend(_from_importlib(group, folder, seen))
            continue
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            distribution = _distribution(name)
            if distribution is None:
                continue
            if distribution in seen:
                continue
            seen.add(distribution)
            try:
                with open(os.path.join(folder, name, "entry_points.txt"), encoding="utf-8") as f:
                    text = f.read()
            except OSError:
                continue
            found.extend(_parse(text, group))
    return found


def _distribution(folder: str) -> str | None:
    """The normalized distribution name of a ``NAME-VERSION.dist-info`` (or ``.egg-info``)
    folder, or None for any other name."""
    for suffix in _DIST_SUFFIXES:
        if folder.endswith(suffix):
            stem = folder[: -len(suffix)]
            break
    else:
        return None
    name, dash, version = stem.partition("-")
    if not name or not dash or not version or "-" in version:
        return None
    return _normal(name)


def _normal(name: str) -> str:
    """``name`` with each run of ``-``, ``_`` and ``.`` made one ``_``, lower-cased (PEP 503)."""
    out: list[str] = []
    for char in name.lower():
        if char in "-_.":
            if not out or out[-1] != "_":
                out.append("_")
        else:
            out.append(char)
    return "".join(out)


def _parse(text: str, group: str) -> list[EntryPoint]:
    """The lines of ``[group]`` in an ``entry_points.txt`` (an INI file)."""
    out: list[EntryPoint] = []
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
            continue
        if section != group:
            continue
        name, equals, value = line.partition("=")
        if equals:
            out.append(EntryPoint(name=name.strip(), value=value.strip(), group=group))
    return out


def _from_importlib(group: str, entry: str, seen: set[str]) -> list[EntryPoint]:
    from importlib.metadata import distributions

    out: list[EntryPoint] = []
    for distribution in distributions(path=[entry]):
        name = _normal(distribution.metadata["Name"] or "")
        if name in seen:
            continue
        seen.add(name)
        out.extend(
            EntryPoint(name=ep.name, value=ep.value, group=group)
            for ep in distribution.entry_points
            if ep.group == group
        )
    return out
