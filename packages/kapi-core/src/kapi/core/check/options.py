"""What a check was asked for beyond governance: limits, patterns, bilingual checks, gates."""

from __future__ import annotations

from attrs import frozen

from kapi.core.governance.errors import GovernanceError
from kapi.core.governance.regex import PatternError, compile_portable

__all__ = ["CheckOptions"]


@frozen
class CheckOptions:
    """The flags of ``kapi check`` (and the same fields of MCP ``check_file``/``check_text``).

    ``max_chars``/``max_words`` of 0 are off. ``forbid``/``require`` are
    portable regular expressions. ``dnt`` lists do-not-translate terms for the
    bilingual checks, which run when a target side exists (``target_locale``
    with a ``--target`` file, or a bilingual file's own targets). ``required``
    names analyzers whose ``did_not_run`` blocks a verdict (an analyzer asked
    for by a flag is required anyway). ``diff`` is echoed as ``scope.diff``.
    ``at`` (an ISO instant) and ``tool_version`` fill ``evaluation``.
    """

    max_chars: int = 0
    max_words: int = 0
    forbid: tuple[str, ...] = ()
    require: tuple[str, ...] = ()
    dnt: tuple[str, ...] = ()
    target_locale: str = ""
    required: frozenset[str] = frozenset()
    diff: str = ""
    at: str = ""
    tool_version: str = ""

    def validate(self) -> None:
        """Refuse a bad limit or pattern with :class:`GovernanceError` naming the flag."""
        for name in ("max_chars", "max_words"):
            value = getattr(self, name)
            if value < 0:
                raise GovernanceError(f"must be 0 (off) or more, found {value}", "options", name)
        for name in ("forbid", "require"):
            for index, pattern in enumerate(getattr(self, name)):
                try:
                    compile_portable(pattern)
                except PatternError as error:
                    raise GovernanceError(str(error), "options", f"{name}[{index}]") from None
