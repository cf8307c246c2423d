"""The redaction vault: the originals of redacted values, kept under the project's ``.kapi/``.

``redact_text`` replaces each sensitive value (:mod:`kapi.host.redaction`) with
a typed placeholder such as ``{{EMAIL_1a2b3c4d5e6f}}`` and records the original
in ``.kapi/vault.json`` (readable by its owner only); ``unredact_text`` puts
them back. Without the vault nothing is restored: the refusal says so and the
placeholders stay as they are.
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
    from kapi.host.project import RedactionRule
    from kapi.host.workspace import Workspace

__all__ = ["VAULT_NAME", "Vault", "redact_text", "unredact_text"]

VAULT_NAME = "vault.json"
PLACEHOLDER = re.compile(r"\{\{[A-Z][A-Z0-9_]*_[0-9a-f]{12}\}\}")


class Vault:
    """The placeholders of a project and their originals, read once and written whole."""

    def __init__(self, path: Path, entries: dict[str, str]) -> None:
        self.path = path
        self.entries = entries
        self.added = False

    @classmethod
    def of(cls, workspace: Workspace) -> Vault:
        """The project's vault (empty when it has none yet); a usage error outside a project."""
        project = workspace.project
        if project is None:
            raise HostError(
                "redaction keeps its originals in the project's .kapi/ vault: run `kapi init` first",
                exit_code=EXIT_USAGE,
            )
        path = Path(project.state_dir) / VAULT_NAME
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            data = {}
        except (OSError, ValueError) as err:
            raise HostError(f".kapi/{VAULT_NAME} cannot be read ({err})", exit_code=1) from None
        entries = {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}
        return cls(path, entries)

    @property
    def exists(self) -> bool:
        return self.path.exists()

    def keep(self, kind: str, value: str) -> str:
        """The placeholder of ``value`` (the same value, the same placeholder), its original kept."""
        digest = hashlib.sha256(f"{kind}\0{value}".encode()).hexdigest()[:12]
        placeholder = f"{{{{{kind}_{digest}}}}}"
        if self.entries.get(placeholder) != value:
            self.entries[placeholder] = value
            self.added = True
        return placeholder

    def original(self, placeholder: str) -> str:
        """The value ``placeholder`` stands for; ``KeyError`` when the vault does not hold it."""
        return self.entries[placeholder]

    def save(self) -> None:
        """Write the vault (owner-only) when something was added: a temporary file, then a rename."""
        if not self.added:
            return
        from kapi.host.state import make_state_dir

        make_state_dir(self.path.parent)  # the project's .kapi/, with its .gitignore when new
        temporary = self.path.with_name(VAULT_NAME + ".tmp")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            json.dump(self.entries, handle, ensure_ascii=False, sort_keys=True)
        temporary.replace(self.path)
        self.added = False


def redact_text(text: str, workspace: Workspace, *, rules_file: str = "") -> dict[str, Any]:
    """``{"text", "placeholders", "redacted"}``: the text with each sensitive value a placeholder.

    ``rules_file`` names a redaction rules file inside the workspace (see
    :func:`kapi.host.project.redaction_rules_file`) whose rules run first; a file
    outside it, or one that does not load, is refused before anything is redacted.
    """
    from kapi.host.redaction import detector_for

    extra: tuple[RedactionRule, ...] = ()
    if rules_file:
        from kapi.host.inputs import read_in
        from kapi.host.project import redaction_rules_file

        extra = redaction_rules_file(read_in(workspace, rules_file), Path(rules_file))
    detector = detector_for(workspace.project, extra)
    vault = Vault.of(workspace)
    placeholders: list[dict[str, str]] = []
    out: list[str] = []
    position = 0
    for start, end, kind in detector.spans(text):
        placeholder = vault.keep(kind, text[start:end])
        out.append(text[position:start] + placeholder)
        placeholders.append({"placeholder": placeholder, "type": kind.lower()})
        position = end
    out.append(text[position:])
    vault.save()
    return {"text": "".join(out), "placeholders": placeholders, "redacted": len(placeholders)}


def unredact_text(text: str, workspace: Workspace) -> dict[str, Any]:
    """``{"text", "restored"}``; refused when the vault is missing or lacks a placeholder."""
    vault = Vault.of(workspace)
    found = PLACEHOLDER.findall(text)
    if not found:
        return {"text": text, "restored": 0}
    if not vault.exists:
        raise missing_vault()
    unknown = sorted({p for p in found if p not in vault.entries})
    if unknown:
        raise HostError(
            f"the vault holds no original for {', '.join(unknown)}; nothing was restored",
            exit_code=3,
            code="not_found",
        )
    restored = PLACEHOLDER.sub(lambda m: vault.original(m.group(0)), text)
    return {"text": restored, "restored": len(found)}


def missing_vault() -> HostError:
    return HostError(
        f".kapi/{VAULT_NAME} is missing, so nothing can be restored; the placeholders are "
        "left as they are (redact on the machine that holds the vault)",
        exit_code=3,
        code="not_found",
    )
