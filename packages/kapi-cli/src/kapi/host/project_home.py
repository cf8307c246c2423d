"""The project home: a source document with its translations' own files joined as editions.

Inside a project, ``locales/en.json`` carries ``fr`` and ``de`` editions read
from ``locales/fr.json`` and ``locales/de.json`` (the item's target
template). Blocks pair by key. An edit to an edition is written into that
language's file, keeping its bytes everywhere else; a key the file lacks is
inserted where the format can insert (JSON, YAML, ARB). Naming a
translation's own file as the document addresses that edition of its source.
"""

from __future__ import annotations

from collections.abc import Sequence

from attrs import evolve

from kapi.core.change.errors import ChangeError, ErrorCode
from kapi.core.change.ports import JoinedFile, Staged, Write, digest
from kapi.core.format import FormatError, WriteRefused
from kapi.core.model import Block, Document, Edition
from kapi.formats.home import FileHome, read_file
from kapi.host.project import Project

__all__ = ["ProjectHome"]


class ProjectHome(FileHome):
    """A file home that knows the project's target templates."""

    def __init__(self, project: Project) -> None:
        super().__init__(project.root, locale=project.source_language)
        self.project = project
        self._translations: dict[tuple[str, str], Document] = {}

    def stage(self, doc: str) -> Staged:
        path = self.path_for(doc)
        key = self.key_for(path)
        source = self.project.source_of(key)
        if source is not None:
            key = source[0]
        staged = super().stage(key)
        claimed = self.project.claim(key)
        if claimed is None or staged.capabilities.interchange:
            return staged
        collection, _ = claimed
        source_language, _ = self.project.languages_of(collection)
        paths = self.project.translation_paths(key)
        if not paths:
            return staged
        document = staged.document
        if source_language != document.locale:
            document = _relocale(document, source_language)
        joined: list[JoinedFile] = []
        for language, relpath in sorted(paths.items()):
            file_path = self.root / relpath
            if not file_path.exists():
                joined.append(JoinedFile(file=relpath, edition=language, head=None))
                continue
            try:
                data, translation, _ = read_file(
                    file_path, display=relpath, locale=language, limits=self.limits
                )
            except FormatError as err:
                raise ChangeError.of(
                    ErrorCode(err.code) if err.code != "not_found" else ErrorCode.NOT_FOUND,
                    err.located(),
                ) from None
            self._original[relpath] = data
            self._translations[(key, language)] = translation
            joined.append(JoinedFile(file=relpath, edition=language, head=digest(data)))
            document = _join(document, translation, language)
        return evolve(
            staged,
            document=document,
            editions=frozenset(paths),
            joined=tuple(joined),
        )

    def render(self, staged: Staged, document: Document) -> Sequence[Write]:
        writes = [
            Write(staged=staged, data=self.write_checked(staged, _own_only(document), staged.doc))
        ]
        for joined in staged.joined:
            translation = self._translations.get((staged.doc, joined.edition))
            edited = _editions(document, joined.edition)
            if translation is None:
                if any(edited.values()):
                    raise WriteRefused(
                        f"{joined.file} does not exist yet; create it (a copy of {staged.doc} "
                        "is a good start) and send the edit again",
                        capability="edition",
                    )
                continue
            updated = _apply_edition(translation, edited, document, joined)
            if updated is not translation and not staged.capabilities.structural:
                keys = {b.ref_key for b in translation.blocks}
                if keys != {b.ref_key for b in updated.blocks}:
                    raise WriteRefused(
                        f"{joined.file}: format {staged.capabilities.name} cannot add or remove "
                        "a block in a translation's own file; edit the blocks it has",
                        capability="edition",
                    )
            if updated is not translation:
                writes.append(
                    Write(
                        staged=staged,
                        data=self.write_checked(staged, updated, joined.file),
                        file=joined.file,
                        edition=joined.edition,
                    )
                )
        return writes


def _relocale(document: Document, locale: str) -> Document:
    return document.with_blocks(tuple(evolve(b, locale=locale) for b in document.blocks))


def _join(document: Document, translation: Document, language: str) -> Document:
    by_key = {b.ref_key: b for b in translation.blocks}
    blocks = []
    for block in document.blocks:
        other = by_key.get(block.ref_key)
        if other is not None and block.translatable:
            block = block.with_target(language, Edition(runs=other.source))
        blocks.append(block)
    return document.with_blocks(tuple(blocks))


def _own_only(document: Document) -> Document:
    """The document as its own file holds it: translations live in their own files."""
    return document.with_blocks(
        tuple(evolve(b, targets={}) if b.targets else b for b in document.blocks)
    )


def _editions(document: Document, language: str) -> dict[str, Edition | None]:
    return {b.ref_key: b.targets.get(language) for b in document.blocks if b.translatable}


def _apply_edition(
    translation: Document, edited: dict[str, Edition | None], source: Document, joined: JoinedFile
) -> Document:
    """The translation document with the edition's current content; the same object if unchanged."""
    by_key = {b.ref_key: b for b in translation.blocks}
    changed = False
    blocks: list[Block] = []
    for block in translation.blocks:
        if block.ref_key in edited:
            edition = edited[block.ref_key]
            if edition is None:
                changed = True  # the edition was removed: the key leaves the file
                continue
            if edition.runs != block.source:
                block = block.with_source(edition.runs)
                changed = True
        blocks.append(block)
    previous = ""
    for block in source.blocks:
        edition = edited.get(block.ref_key)
        if edition is not None and block.ref_key not in by_key:
            properties = {"insert_after": previous} if previous else {}
            blocks.append(
                Block(
                    id=f"joined-{block.id}",
                    name=block.name,
                    key=block.key,
                    source=edition.runs,
                    locale=joined.edition,
                    properties=properties,
                )
            )
            changed = True
        if block.ref_key in by_key or (edition is not None):
            previous = block.name or previous
    if not changed:
        return translation
    return translation.with_blocks(tuple(blocks))
