"""What kapi's start compiles every time, kept beside kapi's bytecode: generated code, patterns.

attrs writes each class's methods (``__init__``, ``__eq__``, ``__hash__``…) as source and
compiles it when the class is defined; cattrs does the same for its converters; and the
modules a command imports compile their regular expressions as they load. That is most of
what a ``kapi`` process does before its work. :func:`install` serves both from one marshal
file kept where Python keeps kapi's bytecode (``kapi/host/__pycache__``, or under
``PYTHONPYCACHEPREFIX``) and, like bytecode, never written under ``PYTHONDONTWRITEBYTECODE``:
code objects keyed by the SHA-1 of their file name and source, each left marshalled until a
class asks for it, and the compiled form of the patterns a module compiles as it is imported.
Patterns built at run time (a project's term rules and voice) are never kept there: in a
project they are kept in its own ``.kapi/cache`` (:func:`keep_patterns_in`), with its other
compiled governance. A missing, truncated or foreign file is ignored and replaced; what a
file does not hold is compiled as usual, and an entry the engine refuses is compiled again.
"""

from __future__ import annotations

import atexit
import contextlib
import marshal
import os
import sys
from collections.abc import Callable, Sequence
from importlib.machinery import ModuleSpec, PathFinder
from types import FrameType, ModuleType, SimpleNamespace
from typing import Any

try:  # CPython's regular-expression engine; elsewhere patterns are compiled as usual
    import _sre
    import _thread
    import re._compiler as _re_compiler
except ImportError:  # pragma: no cover - other interpreters
    _sre = None

__all__ = ["cache_path", "install", "keep_patterns_in", "save"]

# The modules whose ``compile`` is served from the cache: the ones that generate code.
_GENERATORS = frozenset({"attr._make", "cattrs.gen", "cattrs.gen.typeddicts"})
# (format, {sha1(filename NUL source): marshal.dumps(code)}, {(pattern, flags): sre arguments})
_FORMAT = b"kapi-codegen/3"
_MAX_ENTRIES = 4096  # past this the file starts afresh (classes of older kapi versions)
_PATTERNS_FORMAT = b"kapi-patterns/1"  # (format, engine, {(pattern, flags): sre arguments})
_MAX_PROJECT_PATTERNS = 256  # past this a project's file starts afresh (rules long gone)
_ATTRS = "<attrs generated "

_compile = compile
_project: dict[str, Any] = {"path": None, "patterns": None, "added": {}}
_state: dict[str, Any] = {
    "installed": False,
    "codes": None,
    "added": {},
    "patterns": None,
    "patterns_added": {},
}


def cache_path() -> str:
    """Where the cache lives: beside this module's bytecode, as Python would place it."""
    folder = os.path.dirname(os.path.abspath(__file__))
    prefix = sys.pycache_prefix
    if prefix:
        cache_folder = os.path.join(prefix, folder.lstrip(os.sep))
    else:
        cache_folder = os.path.join(folder, "__pycache__")
    return os.path.join(cache_folder, f"codegen.{sys.implementation.cache_tag}.marshal")


def _unmarshal(path: str) -> Any:
    try:
        with open(path, "rb") as handle:
            return marshal.loads(handle.read())  # one read: load() reads piece by piece
    except (OSError, EOFError, ValueError, TypeError):
        return None


def _load(path: str) -> tuple[dict[bytes, bytes], dict[Any, Any]]:
    loaded = _unmarshal(path)
    if (
        not isinstance(loaded, tuple)
        or len(loaded) != 4
        or loaded[0] != _FORMAT
        or loaded[1] != _engine()
        or not isinstance(loaded[2], dict)
        or not isinstance(loaded[3], dict)
    ):
        return {}, {}
    return loaded[2], loaded[3]


def _engine() -> tuple[int, ...]:
    """What a compiled pattern depends on: the interpreter and its regular-expression engine."""
    return (*sys.version_info[:3], getattr(_sre, "MAGIC", 0) if _sre is not None else 0)


def _read() -> None:
    """Read the file on the first compilation a command asks for, not before."""
    if _state["codes"] is None:
        _state["codes"], _state["patterns"] = _load(cache_path())


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
    _read()
    codes = _state["codes"]
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


def _noting_compile(pattern: Any, flags: int, *arguments: Any) -> Any:
    """``_sre.compile`` as ``re``'s compiler calls it, noting the arguments of the pattern the
    calling thread is compiling."""
    noted = _noting.get(_thread.get_ident())
    if noted is not None and noted[0] is pattern and len(arguments) == 4:
        code, groups, groupindex, indexgroup = arguments
        noted.append(
            (int(flags), [int(c) for c in code], int(groups), dict(groupindex), indexgroup)
        )
    return _sre.compile(pattern, flags, *arguments)


_noting: dict[int, list[Any]] = {}
_compile_pattern: Callable[..., Any] | None = None


def _is_engine(module: str) -> bool:
    return module in ("re", "enum", "sre_compile") or module.startswith("re.")


def _caller() -> FrameType | None:
    """The frame that asked for the pattern: the first outside the regular-expression engine."""
    frame: FrameType | None = sys._getframe(2)
    while frame is not None and _is_engine(frame.f_globals.get("__name__", "")):
        frame = frame.f_back
    return frame


def _compiled_noting(pattern: str, flags: int) -> tuple[Any, Any]:
    """The compiled pattern, and the engine's arguments for it (None when not seen)."""
    assert _compile_pattern is not None
    noted: list[Any] = [pattern]
    thread = _thread.get_ident()
    _noting[thread] = noted
    try:
        compiled = _compile_pattern(pattern, flags)
    finally:
        _noting.pop(thread, None)
    return compiled, noted[1] if len(noted) == 2 else None


def _cached_pattern(pattern: Any, flags: int = 0) -> Any:
    assert _compile_pattern is not None
    if type(pattern) is not str or flags & _re_compiler.SRE_FLAG_DEBUG:
        return _compile_pattern(pattern, flags)
    _read()
    key = (pattern, int(flags))
    known = _state["patterns"].get(key)
    if known is None and _project["path"] is not None:
        known = _project_patterns().get(key)
    if known is not None:
        try:
            return _sre.compile(pattern, *known)
        except (TypeError, ValueError, RuntimeError):
            pass  # a damaged entry: compiled again below
    caller = _caller()
    if caller is None:
        return _compile_pattern(pattern, flags)
    if caller.f_code.co_name == "<module>":  # a module's own, written in its source
        added = _state["patterns_added"]
    elif _project["path"] is not None and caller.f_globals.get("__name__", "").startswith(
        "kapi.core."
    ):  # a project's governance compiled (term rules, voice patterns): kept in its .kapi/
        added = _project["added"]
    else:  # anything else built at run time is compiled as usual, and not kept
        return _compile_pattern(pattern, flags)
    compiled, arguments = _compiled_noting(pattern, flags)
    if arguments is not None:
        added[key] = arguments
    return compiled


def keep_patterns_in(cache_folder: str) -> None:
    """Keep the patterns this process builds at run time (a project's term rules, its voice's
    patterns) compiled in ``cache_folder`` (the project's ``.kapi/cache``), beside its other
    compiled governance; a folder whose parent does not exist is never made."""
    path = os.path.join(cache_folder, f"patterns.{sys.implementation.cache_tag}.marshal")
    if _project["path"] != path:
        _project.update(path=path, patterns=None, added={})


def _project_patterns() -> dict[Any, Any]:
    if _project["patterns"] is None:
        _project["patterns"] = _load_patterns(_project["path"])
    patterns: dict[Any, Any] = _project["patterns"]
    return patterns


def _load_patterns(path: str) -> dict[Any, Any]:
    loaded = _unmarshal(path)
    if (
        not isinstance(loaded, tuple)
        or len(loaded) != 3
        or loaded[0] != _PATTERNS_FORMAT
        or loaded[1] != _engine()
        or not isinstance(loaded[2], dict)
    ):
        return {}
    return loaded[2]


def _serve_patterns() -> None:
    global _compile_pattern
    if _sre is None or not hasattr(_re_compiler, "_sre") or _compile_pattern is not None:
        return
    _compile_pattern = _re_compiler.compile
    # ``_sre`` as the compiler sees it: the engine's own names, and a compile that takes notes
    _re_compiler._sre = SimpleNamespace(**{**vars(_sre), "compile": _noting_compile})
    _re_compiler.compile = _cached_pattern


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
    _serve_patterns()
    atexit.register(save)


def save() -> None:
    """Write what this process compiled anew; never fails the caller."""
    added: dict[bytes, bytes] = _state["added"]
    patterns_added: dict[Any, Any] = _state["patterns_added"]
    if (added or patterns_added) and not sys.dont_write_bytecode:
        _state["added"], _state["patterns_added"] = {}, {}
        path = cache_path()
        codes, patterns = _load(path)
        if len(codes) + len(added) + len(patterns) + len(patterns_added) > _MAX_ENTRIES:
            codes, patterns = {}, {}
        codes.update(added)
        patterns.update(patterns_added)
        _write(path, (_FORMAT, _engine(), codes, patterns), make_folder=True)
    project_added: dict[Any, Any] = _project["added"]
    if project_added and _project["path"] is not None:
        _project["added"] = {}
        kept = _load_patterns(_project["path"])
        if len(kept) + len(project_added) > _MAX_PROJECT_PATTERNS:
            kept = {}
        kept.update(project_added)
        _write(_project["path"], (_PATTERNS_FORMAT, _engine(), kept), make_folder=False)


def _write(path: str, payload: Any, *, make_folder: bool) -> None:
    """The file whole (a temporary, then a rename); a folder that refuses is left be."""
    folder = os.path.dirname(path)
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        if make_folder:
            os.makedirs(folder, exist_ok=True)
        elif not os.path.isdir(os.path.dirname(folder)):
            return  # the project's state folder is made by kapi init or the store, not here
        else:
            os.makedirs(folder, exist_ok=True)
        with open(temporary, "wb") as handle:
            marshal.dump(payload, handle)
        os.replace(temporary, path)
    except (OSError, ValueError):
        with contextlib.suppress(OSError):
            os.unlink(temporary)
