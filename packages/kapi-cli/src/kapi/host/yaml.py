"""YAML as a project's own files hold it (the recipe, voice profiles): one loader, with lines.

An error in such a file names its line and key, so every loader keeps
ruamel's positions: :func:`load_yaml` returns nodes that know where they
stood, and the ``line_of`` functions find a key's line again. ruamel is
imported only when a YAML file is actually read.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any

from kapi.core.errors import EXIT_USAGE, KapiError

__all__ = [
    "YamlSyntaxError",
    "key_path",
    "line_of",
    "line_of_path",
    "line_of_text",
    "load_plain",
    "load_yaml",
    "round_trip",
]

KeyStep = str | int

_KEY_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


class YamlSyntaxError(KapiError):
    """Text that is not YAML; ``line`` (1-based) is where the parser stopped, when it knows."""

    code = "invalid"
    exit_code = EXIT_USAGE

    def __init__(self, problem: str, line: int | None) -> None:
        super().__init__(f"not valid YAML: {problem}")
        self.problem = problem
        self.line = line


def round_trip() -> Any:
    """A ruamel loader and dumper that keeps comments, quotes and layout.

    A key must be a scalar: ruamel hashes a mapping used as a key by hashing its
    items again at every level, so keys nested in keys (``? ? ? …``) take time
    exponential in their depth. No file kapi reads has such a key; the loader
    refuses it where it stands.
    """
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.Constructor = _scalar_keys()
    yaml.preserve_quotes = True
    return yaml


@functools.cache
def _scalar_keys() -> Any:
    """ruamel's round-trip constructor, refusing a key that is a mapping or a list."""
    from ruamel.yaml.constructor import ConstructorError, RoundTripConstructor
    from ruamel.yaml.nodes import ScalarNode

    class ScalarKeys(RoundTripConstructor):
        def construct_mapping(self, node: Any, maptyp: Any, deep: bool = False) -> Any:  # type: ignore[override]
            for key, _ in getattr(node, "value", ()):
                if not isinstance(key, ScalarNode):
                    raise ConstructorError(
                        "while constructing a mapping",
                        node.start_mark,
                        "found a key that is a mapping or a list (a key is a plain value)",
                        key.start_mark,
                    )
            return super().construct_mapping(node, maptyp, deep)

    return ScalarKeys


# ruamel's scanner keeps a possible key open at every flow level ("[", "{") and walks them
# all at every token: time grows with the square of the depth. No file kapi reads nests deep.
_MAX_FLOW_DEPTH = 200
_BRACKETS = re.compile(r"[\[\]{}]")


def _too_deep(text: str) -> bool:
    """Whether ``text`` opens more flow levels than :data:`_MAX_FLOW_DEPTH` (brackets in
    strings and comments count too: a file needs hundreds of unclosed ones to be refused)."""
    depth = 0
    for match in _BRACKETS.finditer(text):
        depth = depth + 1 if match.group() in "[{" else max(0, depth - 1)
        if depth > _MAX_FLOW_DEPTH:
            return True
    return False


def load_yaml(text: str) -> Any:
    """The document as nodes that remember their lines; raises :class:`YamlSyntaxError`."""
    from ruamel.yaml.error import YAMLError

    if _too_deep(text):
        raise YamlSyntaxError("nested too deeply", None)
    try:
        return round_trip().load(text)
    except YAMLError as err:
        raise _syntax_error(err) from None
    except RecursionError:
        raise YamlSyntaxError("nested too deeply", None) from None


def load_plain(text: str) -> Any:
    """The document as plain dicts, lists and scalars; raises :class:`YamlSyntaxError`."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    if _too_deep(text):
        raise YamlSyntaxError("nested too deeply", None)
    try:
        return YAML(typ="safe", pure=True).load(text)
    except YAMLError as err:
        raise _syntax_error(err) from None
    except RecursionError:
        raise YamlSyntaxError("nested too deeply", None) from None


def _syntax_error(err: Exception) -> YamlSyntaxError:
    mark = getattr(err, "problem_mark", None)
    return YamlSyntaxError(
        str(getattr(err, "problem", None) or err), mark.line + 1 if mark is not None else None
    )


def line_of(node: Any, step: KeyStep | None = None) -> int | None:
    """The 1-based line of ``node`` itself, or of its key or item ``step``; None if unknown."""
    try:
        if step is None:
            return int(node.lc.line) + 1
        if isinstance(step, int):
            return int(node.lc.item(step)[0]) + 1
        return int(node.lc.key(step)[0]) + 1
    except (AttributeError, KeyError, TypeError, IndexError):
        return None


def key_path(key: str) -> tuple[KeyStep, ...]:
    """``collections[0].channel`` as steps: ``("collections", 0, "channel")``."""
    return tuple(int(index) if index else name for name, index in _KEY_STEP.findall(key))


def line_of_path(root: Any, path: Sequence[KeyStep]) -> int | None:
    """The line of the deepest step of ``path`` that can be found below ``root``."""
    node = root
    line: int | None = None
    for step in path:
        found = line_of(node, step)
        if found is None:
            break
        line = found
        try:
            node = node[step]
        except (KeyError, IndexError, TypeError):
            break
    return line


def line_of_text(text: str, path: Sequence[KeyStep]) -> int | None:
    """The line of a key path in YAML text (None when the text does not load)."""
    try:
        return line_of_path(load_yaml(text), path)
    except YamlSyntaxError:
        return None
