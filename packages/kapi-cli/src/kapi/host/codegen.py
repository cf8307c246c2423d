"""The code attrs and cattrs generate for kapi's classes, kept beside kapi's bytecode.

attrs writes each class's methods (``__init__``, ``__eq__``, ``__hash__``…) as source and
compiles it when the class is defined; cattrs does the same for its converters. Compiling is
most of what defining a class costs, and a ``kapi`` process defines about a hundred before it
does any work. :func:`install` serves those compilations from one marshal file of code objects
keyed by the SHA-1 of their file name and source, kept where Python keeps kapi's bytecode
(``kapi/host/__pycache__``, or under ``PYTHONPYCACHEPREFIX``) and, like bytecode, never
written under ``PYTHONDONTWRITEBYTECODE``. Each code object stays marshalled until a class
asks for it. A missing, truncated or foreign file is ignored and replaced; a source never
seen is compiled as usual.
"""

from __future__ import annotations

import atexit
import contextlib
import marshal
import os
import sys
from collections.abc import Callable, Sequence
from importlib.machinery import ModuleSpec, PathFinder
from types import ModuleType
from typing import Any

__all__ = ["cache_path", "install", "save"]

# The modules whose ``compile`` is served from the cache: the ones that generate code.
_GENERATORS = frozenset({"attr._make", "cattrs.gen", "cattrs.gen.typeddicts"})
_FORMAT = b"kapi-codegen/2"  # (format, {sha1(filename NUL source): marshal.dumps(code)})
_MAX_ENTRIES = 4096  # past this the file starts afresh (classes of older kapi versions)
_ATTRS = "<attrs generated "

_compile = compile
_state: dict[str, Any] = {"installed": False, "codes": None, "added": {}}


def cache_path() -> str:
    """Where the cache lives: beside this module's bytecode, as Python would place it."""
    folder = os.path.dirname(os.path.abspath(__file__))
    prefix = sys.pycache_prefix
    if prefix:
        cache_folder = os.path.join(prefix, folder.lstrip(os.sep))
    else:
        cache_folder = os.path.join(folder, "__pycache__")
    return os.path.join(cache_folder, f"codegen.{sys.implementation.cache_tag}.marshal")


def _load(path: str) -> dict[bytes, bytes]:
    try:
        with open(path, "rb") as handle:
            loaded = marshal.load(handle)
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if (
        not isinstance(loaded, tuple)
        or len(loaded) != 2
        or loaded[0] != _FORMAT
        or not isinstance(loaded[1], dict)
    ):
        return {}
    return loaded[1]


def _key(source: str, filename: str) -> bytes:
    """What names a compilation; attrs's per-process hash salt in ``__hash__`` is left out.

    attrs seeds each class's ``__hash__`` with ``hash()`` of a name, which differs per process;
    a code object from another process carries that process's number, which serves as well:
    it only keeps two classes with equal fields from hashing alike.
    """
    from hashlib import sha1

    if filename.startswith(_ATTRS) and "hash((" in source:
        _, _, qualified = filename[len(_ATTRS) :].partition(" ")
        salt = hash(f"{_ATTRS}hash {qualified}")
        source = source.replace(f" {salt},\n", " #,\n")
    return sha1(f"{filename}\0{source}".encode(errors="surrogatepass")).digest()


def _cached_compile(source: Any, filename: Any, mode: str, *args: Any, **kwargs: Any) -> Any:
    if args or kwargs or not isinstance(source, str) or not isinstance(filename, str):
        return _compile(source, filename, mode, *args, **kwargs)
    codes = _state["codes"]
    if codes is None:  # read on the first class a command defines, not before
        codes = _state["codes"] = _load(cache_path())
    key = _key(source, filename)
    data = codes.get(key)
    if data is not None:
        try:
            return marshal.loads(data)
        except (EOFError, ValueError, TypeError):
            pass  # a damaged entry: compiled again below, and replaced
    code = _compile(source, filename, mode)
    _state["added"][key] = marshal.dumps(code)
    return code


def _serve(module: ModuleType) -> None:
    if "compile" not in vars(module) or vars(module)["compile"] is _compile:
        module.compile = _cached_compile  # type: ignore[attr-defined]


class _Finder:
    """Serves ``compile`` to a generating module as it is imported; every other import passes."""

    @staticmethod
    def find_spec(
        name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if name not in _GENERATORS:
            return None
        spec = PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        execute: Callable[[ModuleType], None] = loader.exec_module

        class _Loader:
            def __getattr__(self, attribute: str) -> Any:
                return getattr(loader, attribute)

            @staticmethod
            def create_module(spec: ModuleSpec) -> ModuleType | None:
                return loader.create_module(spec)

            @staticmethod
            def exec_module(module: ModuleType) -> None:
                module.compile = _cached_compile  # type: ignore[attr-defined]
                execute(module)

        spec.loader = _Loader()  # type: ignore[assignment]
        return spec


def install() -> None:
    """Serve attrs's and cattrs's compilations from the cache (once per process)."""
    if _state["installed"]:
        return
    _state["installed"] = True
    for name in _GENERATORS:
        module = sys.modules.get(name)
        if module is not None:
            _serve(module)
    sys.meta_path.insert(0, _Finder())
    atexit.register(save)


def save() -> None:
    """Write the cache when this process compiled something new; never fails the caller."""
    added: dict[bytes, bytes] = _state["added"]
    if not added or sys.dont_write_bytecode:
        return
    _state["added"] = {}
    path = cache_path()
    kept = _load(path)
    if len(kept) + len(added) > _MAX_ENTRIES:
        kept = {}
    kept.update(added)
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(temporary, "wb") as handle:
            marshal.dump((_FORMAT, kept), handle)
        os.replace(temporary, path)
    except (OSError, ValueError):
        with contextlib.suppress(OSError):
            os.unlink(temporary)
