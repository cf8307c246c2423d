"""The project home: a source document with its translations' own files joined as editions.

Inside a project, ``locales/en.json`` carries ``fr`` and ``de`` editions read
from ``locales/fr.json`` and ``locales/de.json`` (the item's target
template). Blocks pair by key. An edit to an edition is written into that
language's file, keeping its bytes everywhere else; a key the file lacks is
inserted where the format can insert (JSON, YAML, ARB; a PO catalogue in its
template's order, as msgmerge adds it). Naming a
translation's own file as the document addresses that edition of its source.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from attrs import evolve

from kapi.core.change.errors import ChangeError, ErrorCode
from kapi.core.change.ports import JoinedFile, Staged, Write, digest
from kapi.core.format import FormatError, WriteRefused
from kapi.core.model import Block, Document, Edition, Runs
from kapi.formats.home import FileHome, read_file
from kapi.host.project import Project

__all__ = ["ProjectHome"]


class ProjectHome(FileHome):
    """A file home that knows the project's target templates."""

    scope = "the project"

    def __init__(self, project: Project, *, cwd: Path | None = None) -> None:
        super().__init__(project.root, locale=project.source_language, cwd=cwd)
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
        if claimed is None:
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
            file_path = self.path_for(relpath)  # a template may not lead outside the project
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
            editions=None if staged.editions is None else staged.editions | frozenset(paths),
            joined=tuple(joined),
        )

    def translation(self, doc: str, language: str) -> Document | None:
        """The translation's own file of a document staged here, as read; None when it has none."""
        return self._translations.get((doc, language))

    def render(self, staged: Staged, document: Document) -> Sequence[Write]:
        own = _without_joined(document, {joined.edition for joined in staged.joined})
        writes = [Write(staged=staged, data=self.write_checked(staged, own, staged.doc))]
        moved = _moved_sources(staged.document, document) if staged.joined else {}
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
            updated = _apply_edition(translation, edited, document, joined, moved)
            caps = staged.capabilities
            if updated is not translation and not caps.structural:
                keys = {b.ref_key for b in translation.blocks}
                now = {b.ref_key for b in updated.blocks}
                if keys != now and not (caps.adds_blocks and keys <= now):
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


def _held(translation: Document, block: Block) -> Edition | None:
    """The edition a translation's own file holds for a block.

    A monolingual file (JSON, YAML, Android) holds it as the block's content; a
    bilingual one (PO, XLIFF) as the block's target, its source being the
    source text again.
    """
    if not translation.target_locale:
        return Edition(runs=block.source)
    return block.targets.get(translation.target_locale)


def _join(document: Document, translation: Document, language: str) -> Document:
    by_key = {b.ref_key: b for b in translation.blocks}
    blocks = []
    for block in document.blocks:
        other = by_key.get(block.ref_key)
        held = _held(translation, other) if other is not None else None
        if held is not None and block.translatable:
            block = block.with_target(language, held)
        blocks.append(block)
    return document.with_blocks(tuple(blocks))


def _without_joined(document: Document, joined: set[str]) -> Document:
    """The document as its own file holds it: without the editions joined from other files.

    Editions the file itself holds (a PO or XLIFF target) stay; only those read
    from a translation's own file are written there instead.
    """
    if not joined:
        return document
    return document.with_blocks(
        tuple(
            evolve(b, targets={k: v for k, v in b.targets.items() if k not in joined})
            if joined & b.targets.keys()
            else b
            for b in document.blocks
        )
    )


def _editions(document: Document, language: str) -> dict[str, Edition | None]:
    return {b.ref_key: b.targets.get(language) for b in document.blocks if b.translatable}


def _moved_sources(before: Document, after: Document) -> dict[str, Runs]:
    """The source text of every block the change set edited there, by block key."""
    was = {b.ref_key: b.source for b in before.blocks}
    return {
        b.ref_key: b.source for b in after.blocks if b.ref_key in was and was[b.ref_key] != b.source
    }


def _apply_edition(
    translation: Document,
    edited: dict[str, Edition | None],
    source: Document,
    joined: JoinedFile,
    moved: dict[str, Runs],
) -> Document:
    """The translation document with the edition's current content; the same object if unchanged.

    A bilingual file (PO, XLIFF) also holds the source text again: where the
    change set edited a block's source, the translation's copy follows it, so
    the entry still pairs with its block (gettext names an entry by its msgid).
    """
    by_key = {b.ref_key: b for b in translation.blocks}
    bilingual = translation.target_locale
    changed = False
    blocks: list[Block] = []
    for block in translation.blocks:
        if bilingual and block.ref_key in moved and block.source != moved[block.ref_key]:
            block = block.with_source(moved[block.ref_key])
            changed = True
        if block.ref_key in edited:
            edition = edited[block.ref_key]
            held = _held(translation, block)
            if edition is None and held is not None:
                changed = True
                if not bilingual:
                    continue  # the edition was removed: the key leaves the file
                block = block.with_target(bilingual, None)
            elif edition is not None and (held is None or edition.runs != held.runs):
                changed = True
                if bilingual:
                    block = block.with_target(bilingual, edition)
                else:
                    block = block.with_source(edition.runs)
        blocks.append(block)
    following = _following(source, by_key) if bilingual else {}
    previous = ""
    for block in source.blocks:
        edition = edited.get(block.ref_key)
        if edition is not None and block.ref_key not in by_key:
            # A bilingual file's entry carries what its source's does (a PO entry's
            # context, flags, comments and references, as msgmerge copies them), and
            # one that comes first goes before the entries the file has, as there.
            properties = dict(block.properties) if bilingual else {}
            properties.pop("insert_after", None)
            properties.pop("insert_before", None)
            if previous:
                properties["insert_after"] = previous
            elif following.get(block.ref_key):
                properties["insert_before"] = following[block.ref_key]
            blocks.append(
                Block(
                    id=f"joined-{block.id}",
                    name=block.name,
                    key=block.key,
                    source=block.source if bilingual else edition.runs,
                    targets={bilingual: edition} if bilingual else {},
                    locale=translation.locale if bilingual else joined.edition,
                    properties=properties,
                )
            )
            changed = True
        if block.ref_key in by_key or (edition is not None):
            previous = block.name or previous
    if not changed:
        return translation
    return translation.with_blocks(tuple(blocks))


def _following(source: Document, held: dict[str, Block]) -> dict[str, str]:
    """For each source block, the name of the next one after it the translation holds."""
    out: dict[str, str] = {}
    after = ""
    for block in reversed(source.blocks):
        out[block.ref_key] = after
        if block.ref_key in held:
            after = block.name or after
    return out
