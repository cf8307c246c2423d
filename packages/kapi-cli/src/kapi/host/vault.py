"""The redaction vault: sensitive values swapped for typed placeholders, the originals kept under ``.kapi/``.

``redact_text`` replaces e-mail addresses, URLs, IP addresses, card and phone
numbers and key-like strings with placeholders such as ``{{EMAIL_1a2b3c}}``
and records each original in ``.kapi/vault.json`` (readable by its owner
only); ``unredact_text`` puts them back. Without the vault nothing is
restored: the refusal says so and the placeholders stay as they are.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kapi.host.errors import EXIT_USAGE, HostError

if TYPE_CHECKING:
    from kapi.host.workspace import Workspace

__all__ = ["VAULT_NAME", "redact_text", "unredact_text"]

VAULT_NAME = "vault.json"
_KINDS = (
    ("EMAIL", r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),
    ("URL", r"(?:https?|ftp)://[^\s<>\"']+"),
    ("IP", r"\b(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)\b"),
    ("CARD", r"\b(?:\d[ -]?){12,18}\d\b"),
    ("PHONE", r"(?<![\w+])\+?\d[\d ().-]{6,}\d\b"),
    ("KEY", r"\b(?:sk|pk|key|tok)[-_][A-Za-z0-9_-]{8,}\b"),
)
_PATTERN = re.compile("|".join(f"(?P<{kind}>{rx})" for kind, rx in _KINDS))
_PLACEHOLDER = re.compile(r"\{\{(?:EMAIL|URL|IP|CARD|PHONE|KEY)_[0-9a-f]{12}\}\}")


def _vault_path(workspace: Workspace) -> Path:
    project = workspace.project
    if project is None:
        raise HostError(
            "redaction keeps its originals in the project's .kapi/ vault: run `kapi init` first",
            exit_code=EXIT_USAGE,
        )
    return Path(project.state_dir) / VAULT_NAME


def _load(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as err:
        raise HostError(f".kapi/{VAULT_NAME} cannot be read ({err})", exit_code=1) from None
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def redact_text(text: str, workspace: Workspace) -> dict[str, Any]:
    """``{"text", "placeholders", "redacted"}``: the text with each sensitive value a placeholder."""
    path = _vault_path(workspace)
    vault = _load(path)
    placeholders: list[dict[str, str]] = []

    def swap(match: re.Match[str]) -> str:
        kind = match.lastgroup or "KEY"
        value = match.group(0)
        digest = hashlib.sha256(f"{kind}\0{value}".encode()).hexdigest()[:12]
        placeholder = f"{{{{{kind}_{digest}}}}}"
        vault[placeholder] = value
        placeholders.append({"placeholder": placeholder, "type": kind.lower()})
        return placeholder

    redacted = _PATTERN.sub(swap, text)
    if placeholders:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(VAULT_NAME + ".tmp")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            json.dump(vault, handle, ensure_ascii=False, sort_keys=True)
        temporary.replace(path)
    return {"text": redacted, "placeholders": placeholders, "redacted": len(placeholders)}


def unredact_text(text: str, workspace: Workspace) -> dict[str, Any]:
    """``{"text", "restored"}``; refused when the vault is missing or lacks a placeholder."""
    path = _vault_path(workspace)
    found = _PLACEHOLDER.findall(text)
    if not found:
        return {"text": text, "restored": 0}
    if not path.exists():
        raise HostError(
            f".kapi/{VAULT_NAME} is missing, so nothing can be restored; the placeholders are "
            "left as they are (redact on the machine that holds the vault)",
            exit_code=3,
            code="not_found",
        )
    vault = _load(path)
    unknown = sorted({p for p in found if p not in vault})
    if unknown:
        raise HostError(
            f"the vault holds no original for {', '.join(unknown)}; nothing was restored",
            exit_code=3,
            code="not_found",
        )
    restored = _PLACEHOLDER.sub(lambda m: vault[m.group(0)], text)
    return {"text": restored, "restored": len(found)}
