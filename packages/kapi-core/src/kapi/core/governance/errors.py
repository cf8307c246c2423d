"""What a governance load refuses (an error naming the key) and what it only warns about."""

from __future__ import annotations

from attrs import frozen

from kapi.core.errors import KapiError

__all__ = ["ConfigWarning", "GovernanceError", "KeyPath", "render_key"]

KeyPath = tuple[str | int, ...]


def render_key(path: KeyPath) -> str:
    """A key path as people read it: ``style.prohibited_patterns[2].regex``."""
    out = ""
    for step in path:
        if isinstance(step, int):
            out += f"[{step}]"
        else:
            out += f".{step}" if out else step
    return out


class GovernanceError(KapiError, ValueError):
    """A voice profile, terms file or recipe binding that cannot be used.

    ``source`` names where the data came from (``pack:<name>``, ``store:<name>``
    or a file path), ``key`` the key path inside it (``style.foo``), ``path``
    the same path as steps (so a host can look up the YAML line), and ``line``
    a line number when the parser of the text knows one (CSV, TBX).
    """

    code = "governance"

    def __init__(
        self,
        message: str,
        source: str = "",
        key: str = "",
        *,
        path: KeyPath = (),
        line: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.source = source
        self.key = key or render_key(path)
        self.path = path
        self.line = line

    def __str__(self) -> str:
        where = self.source
        if self.line is not None:
            where = f"{where}:{self.line}" if where else f"line {self.line}"
        if self.key:
            where = f"{where} ({self.key})" if where else self.key
        return f"{where}: {self.message}" if where else self.message


@frozen
class ConfigWarning:
    """A configuration problem that is reported and never moves a verdict.

    ``code`` is one of ``voice.unknown_key``, ``voice.unfamiliar_value``,
    ``voice.preferred_term_dropped``, ``voice.override_drops_pattern``,
    ``format.no_reader``, ``governance.profile_skipped``, ``terms.unknown_key``.
    """

    code: str
    message: str
    source: str = ""
    key: str = ""
