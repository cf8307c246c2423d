"""Reading the files a verb names: each through the workspace's home into a staged document."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from attrs import frozen

from kapi.core.change.ports import Staged, digest
from kapi.core.format import FormatError
from kapi.core.model import Document
from kapi.formats.home import FileHome

__all__ = ["FileFailure", "InspectedFile", "read_inputs"]


@frozen
class FileFailure:
    """A file that could not be read, and why (message names the file and position)."""

    path: str
    message: str
    code: str


@frozen
class InspectedFile:
    path: str
    format: str
    document: Document
    staged: Staged


def read_inputs(
    paths: Sequence[str],
    *,
    home: FileHome,
    locale: str = "en",
    format_name: str | None = None,
) -> Iterator[InspectedFile | FileFailure]:
    """Read each path (``-`` is stdin, which needs ``format_name``) into a staged document.

    ``home`` is the workspace's (``Workspace.home()``): through a project's
    home a source document carries its translations' own files as editions,
    and a translation's file reads as its source.
    """
    from kapi.core.change.errors import ChangeError
    from kapi.formats import registry
    from kapi.formats.reading import read_document

    seen: set[str] = set()  # a translation's own file reads as its source: read that once
    for path in paths:
        try:
            if path == "-" or format_name:
                if not format_name:
                    yield FileFailure(
                        "-", "reading stdin needs --format (see `kapi formats`)", "usage"
                    )
                    continue
                key = "-" if path == "-" else home.key_for(Path(path))
                data, document, spec = read_document(
                    sys.stdin.buffer.read() if path == "-" else home.path_for(key),
                    display=key,
                    locale=locale,
                    format_name=format_name,
                    limits=home.limits,
                )
                editions = (
                    frozenset({document.target_locale})
                    if spec.interchange and document.target_locale
                    else frozenset()
                )
                staged = Staged(
                    doc=key,
                    document=document,
                    head=digest(data),
                    capabilities=spec.capabilities,
                    editions=editions,
                )
            else:
                staged = home.stage(home.key_for(Path(path)))
        except ChangeError as err:
            yield FileFailure(path, err.info.message, str(err.info.code))
            continue
        except FormatError as err:
            yield FileFailure(path, err.located(), err.code)
            continue
        except registry.UnknownFormat as err:
            yield FileFailure(path, str(err), "unsupported")
            continue
        except OSError as err:
            yield FileFailure(path, f"{path}: {err.strerror or err}", "invalid")
            continue
        if staged.doc in seen:
            continue
        seen.add(staged.doc)
        yield InspectedFile(
            path=staged.doc,
            format=staged.capabilities.name,
            document=staged.document,
            staged=staged,
        )
