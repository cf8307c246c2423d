"""``kapi check``: files, text or a diff through the one check engine, with governance by path."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from attrs import frozen

from kapi.core.check.engine import run_check
from kapi.core.check.findings import Lines
from kapi.core.check.options import CheckOptions
from kapi.core.check.report import Report
from kapi.core.check.target import CheckTarget, text_target
from kapi.core.format import FormatError
from kapi.core.governance.errors import GovernanceError
from kapi.core.model import Block, Document
from kapi.host.errors import EXIT_ERROR, EXIT_USAGE, HostError
from kapi.host.governance import Governance, governance_error

if TYPE_CHECKING:
    from kapi.host.workspace import Workspace

__all__ = ["DiffScope", "changed_lines", "check_diff", "check_files", "check_text"]


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("kapi-cli")
    except PackageNotFoundError:
        return "0"


def block_lines(document: Document) -> dict[str, Lines] | None:
    """Each block's lines in its file, when the format's skeleton knows positions."""
    skeleton = document.skeleton
    if skeleton is None:
        return None
    provider = getattr(skeleton, "block_lines", None)
    if callable(provider):
        found = provider()
        return {key: Lines(start, end) for key, (start, end) in found.items()}
    inner = getattr(skeleton, "text", None)
    if inner is not None and not isinstance(inner, str) and hasattr(inner, "spans"):
        skeleton = inner  # a format's skeleton wrapping a span skeleton (Markdown)
    spans = getattr(skeleton, "spans", None)
    text = getattr(skeleton, "text", None)
    if spans is None or not isinstance(text, str):
        return None
    by_id = {block.id: block.ref_key for block in document.blocks}
    lines: dict[str, Lines] = {}
    for span in spans:
        key = by_id.get(getattr(span, "block_id", ""))
        if key is None:
            continue
        start = text.count("\n", 0, span.start) + 1
        end = start + text.count("\n", span.start, max(span.start, span.end))
        known = lines.get(key)
        lines[key] = (
            Lines(min(start, known.start), max(end, known.end)) if known else Lines(start, end)
        )
    return lines


def _read_target(
    workspace: Workspace,
    path: Path,
    display: str,
    data: bytes | None = None,
    format_name: str | None = None,
) -> CheckTarget:
    from kapi.formats import registry
    from kapi.formats.home import read_file

    started = time.perf_counter()
    try:
        if data is not None or format_name:
            raw = data if data is not None else path.read_bytes()
            spec = (
                registry.get(format_name) if format_name else registry.detect(display, raw[:4096])
            )
            document = registry.load_codec(spec).read(
                raw, path=display, locale=workspace.source_language
            )
        else:
            _, document, spec = read_file(path, display=display, locale=workspace.source_language)
    except registry.UnknownFormat as err:
        return CheckTarget(file=display, status="no_reader", reason=str(err))
    except FormatError as err:
        status = "deleted" if err.code == "not_found" else "did_not_run"
        return CheckTarget(file=display, status=status, reason=err.located())
    except OSError as err:
        return CheckTarget(
            file=display, status="did_not_run", reason=f"{display}: {err.strerror or err}"
        )
    elapsed = (time.perf_counter() - started) * 1000
    return CheckTarget(
        file=display,
        format=spec.name,
        blocks=document.blocks,
        locale=document.locale or workspace.source_language,
        context_path=display,
        block_lines=block_lines(document) or {},
        extraction_ms=elapsed,
        target_locale=document.target_locale,
    )


def _display(workspace: Workspace, path: Path) -> str:
    absolute = path if path.is_absolute() else Path.cwd() / path
    try:
        return absolute.resolve().relative_to(workspace.root).as_posix()
    except ValueError:
        return str(path)


def _run(
    workspace: Workspace,
    targets: Sequence[CheckTarget],
    governance: Governance,
    options: CheckOptions,
    label: str,
) -> Report:
    context = None
    if workspace.project is not None:
        context = {"project": workspace.project.id or workspace.project.name}
    try:
        return run_check(targets, governance.resolver(), options, label=label, context=context)
    except GovernanceError as err:
        raise governance_error(err) from None


def _options(options: CheckOptions) -> CheckOptions:
    from attrs import evolve

    from kapi.host.store import now

    return evolve(options, at=options.at or now(), tool_version=options.tool_version or _version())


def check_files(
    workspace: Workspace,
    paths: Sequence[str],
    options: CheckOptions,
    governance: Governance,
    *,
    format_name: str | None = None,
    target: str | None = None,
    target_lang: str | None = None,
) -> Report:
    """Check files (or ``-`` for stdin with ``format_name``)."""
    import sys

    targets: list[CheckTarget] = []
    for path in paths:
        if path == "-":
            if not format_name:
                raise HostError(
                    "checking stdin needs --format (see `kapi formats`)", exit_code=EXIT_USAGE
                )
            targets.append(
                _read_target(workspace, Path("-"), "-", sys.stdin.buffer.read(), format_name)
            )
        else:
            targets.append(
                _read_target(
                    workspace, Path(path), _display(workspace, Path(path)), format_name=format_name
                )
            )
    if target is not None:
        if len(targets) != 1 or not target_lang:
            raise HostError(
                "--target checks one source file against one translation; give --target-lang",
                exit_code=EXIT_USAGE,
            )
        from attrs import evolve

        translated = _read_target(workspace, Path(target), _display(workspace, Path(target)))
        if translated.status != "checked":
            raise HostError(f"--target {target}: {translated.reason}", exit_code=EXIT_ERROR)
        targets[0] = evolve(targets[0], target_blocks=translated.blocks, target_locale=target_lang)
        options = evolve(options, target_locale=target_lang)
    label = paths[0] if len(paths) == 1 else f"{len(paths)} files"
    return _run(workspace, targets, governance, _options(options), label)


def check_text(
    workspace: Workspace,
    text: str,
    options: CheckOptions,
    governance: Governance,
    *,
    path: str = "",
    format_name: str | None = None,
) -> Report:
    """Check a draft: plain paragraphs, or read by a format when one is named."""
    if format_name:
        target = _read_target(
            workspace, Path(path or "-"), path or "-", text.encode("utf-8"), format_name
        )
    else:
        target = text_target(
            text, locale=workspace.source_language, context_path=path, file=path or "<text>"
        )
    return _run(workspace, [target], governance, _options(options), path or "<text>")


# --- diffs ------------------------------------------------------------------------------


@frozen
class DiffScope:
    """What a diff touched: per file, the changed line numbers of the new side."""

    files: Mapping[str, frozenset[int]]
    deleted: frozenset[str] = frozenset()
    whole: frozenset[str] = frozenset()  # new files: every line counts


def changed_lines(diff: str) -> DiffScope:
    """Parse a unified diff (``git diff`` output or a patch file)."""
    files: dict[str, set[int]] = {}
    deleted: set[str] = set()
    whole: set[str] = set()
    current: str | None = None
    old_name = ""
    new_line = 0
    for raw in diff.splitlines():
        if raw.startswith("--- "):
            old_name = raw[4:].split("\t")[0]
            continue
        if raw.startswith("+++ "):
            name = raw[4:].split("\t")[0]
            if name == "/dev/null":
                gone = old_name[2:] if old_name.startswith("a/") else old_name
                deleted.add(gone)
                current = None
                continue
            current = name[2:] if name.startswith("b/") else name
            files.setdefault(current, set())
            if old_name == "/dev/null":
                whole.add(current)
            continue
        if raw.startswith("@@"):
            try:
                new = raw.split("+", 1)[1].split(" ", 1)[0]
            except IndexError:
                raise HostError(
                    f"diff: malformed hunk header {raw!r}", exit_code=EXIT_USAGE
                ) from None
            start, _, count = new.partition(",")
            if not start.isdigit() or (count and not count.isdigit()):
                raise HostError(f"diff: malformed hunk header {raw!r}", exit_code=EXIT_USAGE)
            new_line = int(start)
            if current is not None and count == "0":
                # a pure deletion: the neighbours of the cut count as touched
                files[current].update({max(1, new_line), new_line + 1})
            continue
        if current is None:
            continue
        if raw.startswith("+"):
            files[current].add(new_line)
            new_line += 1
        elif raw.startswith(" "):
            new_line += 1
    return DiffScope(
        files={k: frozenset(v) for k, v in files.items()},
        deleted=frozenset(deleted),
        whole=frozenset(whole),
    )


def _git(workspace: Workspace, *args: str) -> str:
    try:
        done = subprocess.run(
            ["git", *args], cwd=workspace.root, capture_output=True, text=True, check=False
        )
    except FileNotFoundError:
        raise HostError(
            "git is not installed; --diff-against and --staged need it", exit_code=EXIT_ERROR
        ) from None
    if done.returncode != 0:
        raise HostError(
            f"git {' '.join(args)}: {done.stderr.strip() or 'failed'}", exit_code=EXIT_ERROR
        )
    return done.stdout


def check_diff(
    workspace: Workspace,
    options: CheckOptions,
    governance: Governance,
    *,
    against: str | None = None,
    diff_text: str | None = None,
    staged: bool = False,
) -> Report:
    """Check what a diff changed: each changed line widens to its whole block."""
    from attrs import evolve

    description = ""
    if diff_text is not None:
        scope = changed_lines(diff_text)
        description = "diff file"
    elif staged:
        if _git(workspace, "diff", "--name-only", "--diff-filter=U").strip():
            raise HostError(
                "the index has merge conflicts; resolve them first", exit_code=EXIT_USAGE
            )
        scope = changed_lines(
            _git(workspace, "diff", "--cached", "--unified=0", "--no-color", "--no-ext-diff")
        )
        description = "staged"
    else:
        assert against is not None
        scope = changed_lines(
            _git(workspace, "diff", "--unified=0", "--no-color", "--no-ext-diff", against, "--")
        )
        untracked = _git(workspace, "ls-files", "--others", "--exclude-standard").split("\n")
        files = dict(scope.files)
        for name in filter(None, untracked):
            files.setdefault(name, frozenset())
        scope = DiffScope(
            files=files,
            deleted=scope.deleted,
            whole=scope.whole | frozenset(filter(None, untracked)),
        )
        description = f"against {against}"
    targets: list[CheckTarget] = []
    for name in sorted(scope.deleted):
        targets.append(CheckTarget(file=name, status="deleted", reason="deleted by the diff"))
    for name, lines in sorted(scope.files.items()):
        path = workspace.root / name
        data = None
        if staged:
            data = _git_bytes(workspace, f":{name}")
        target = _read_target(workspace, path, name, data)
        if target.status == "no_reader":
            targets.append(
                evolve(target, status="out_of_scope", reason="no format reads this file")
            )
            continue
        if target.status != "checked":
            targets.append(target)
            continue
        if name in scope.whole or not target.block_lines:
            targets.append(
                evolve(
                    target, scope_blocks=None if name in scope.whole else _all_keys(target.blocks)
                )
            )
            continue
        touched = frozenset(
            key
            for key, span in target.block_lines.items()
            if any(span.start <= n <= span.end for n in lines)
        )
        if not touched:
            targets.append(evolve(target, status="untouched", reason="no block changed"))
            continue
        targets.append(evolve(target, scope_blocks=touched))
    return _run(
        workspace, targets, governance, _options(evolve(options, diff=description)), description
    )


def _all_keys(blocks: Sequence[Block]) -> frozenset[str]:
    return frozenset(block.ref_key for block in blocks)


def _git_bytes(workspace: Workspace, spec: str) -> bytes:
    done = subprocess.run(
        ["git", "show", spec], cwd=workspace.root, capture_output=True, check=False
    )
    if done.returncode != 0:
        raise HostError(
            f"git show {spec}: {done.stderr.decode(errors='replace').strip()}", exit_code=EXIT_ERROR
        )
    return done.stdout
