"""Reading for editing: a page of blocks with revisions, edit text, codes and structures,
and what a format lets a change set do (``describe_format``)."""

from __future__ import annotations

import base64
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from attrs import frozen

from kapi.core.change.errors import ChangeError, ErrorCode
from kapi.core.change.labels import code_kind, code_label
from kapi.core.change.ops import Branch, PathStep
from kapi.core.change.plan import edition_rev, own_edition_key
from kapi.core.change.ports import Staged
from kapi.core.change.read import (
    BlockRead,
    CodeInfo,
    EditionRead,
    PlainRead,
    ReadPage,
    Structure,
)
from kapi.core.change.result import ResultRef
from kapi.core.edittext import code_token, entity_char, render_edit_text
from kapi.core.format import FormatCapabilities
from kapi.core.model import (
    Block,
    EditionStatus,
    PcClose,
    PcOpen,
    Ph,
    Plural,
    Runs,
    Select,
    Sub,
    Text,
    code_constraints,
    plain_text,
)
from kapi.core.revision import revision

__all__ = [
    "DEFAULT_LIMIT",
    "MAX_LIMIT",
    "Description",
    "ReadRequest",
    "block_ops",
    "describe",
    "read_blocks",
    "read_page",
]

DEFAULT_LIMIT = 100
MAX_LIMIT = 1000


@frozen
class ReadRequest:
    """What to read: a document, optionally some blocks and editions kept in own files."""

    doc: str
    blocks: tuple[str, ...] = ()
    editions: tuple[str, ...] = ()
    cursor: str | None = None
    limit: int = DEFAULT_LIMIT
    own_edition: bool = False
    skip_empty: bool = True


def block_ops(block: Block, staged: Staged) -> tuple[str, ...]:
    """The operation kinds a block accepts, in contract order."""
    if not block.translatable:
        return ()
    caps = staged.capabilities
    ops = ["set_content", "replace_text"]
    if caps.writable_attrs and any(
        isinstance(run, Ph | PcOpen) and run.type in caps.writable_attrs
        for run in _codes(block.source)
    ):
        ops.append("set_attribute")
    if caps.new_codes:
        ops.append("mark")
    if caps.interchange or staged.editions is None or staged.editions:
        ops.append("remove_edition")
    if staged.annotations:
        ops += ["annotate", "unannotate"]
    if caps.structural:
        ops.append("delete_block")
    return tuple(ops)


def _codes(runs: Runs) -> list[Any]:
    out: list[Any] = []
    for run in runs:
        if isinstance(run, Plural):
            for branch in run.forms.values():
                out.extend(_codes(branch))
        elif isinstance(run, Select):
            for branch in run.cases.values():
                out.extend(_codes(branch))
        elif code_token(run) is not None:
            out.append(run)
    return out


def code_infos(runs: Runs, caps: FormatCapabilities) -> dict[str, CodeInfo] | None:
    """The codes of ``runs`` by token id: kind, what each stands for, what an edit may do."""
    infos: dict[str, CodeInfo] = {}
    codes = _codes(runs)
    closes = {run.id: run for run in codes if isinstance(run, PcClose)}
    for run in codes:
        if isinstance(run, Sub):
            infos.setdefault(
                f"sub:{run.id}",
                CodeInfo(kind="subblock", attrs={"ref": run.ref} if run.ref else None),
            )
            continue
        if not isinstance(run, Ph | PcOpen) or entity_char(run) is not None:
            continue  # a closing half, or a character reference the text shows as its character
        token = run.id + ("/" if isinstance(run, Ph) else "")
        writable = caps.writable_attrs.get(run.type)
        infos.setdefault(
            token,
            CodeInfo(
                kind=code_kind(run),
                type=run.type or None,
                attrs=dict(run.attrs) or None,
                equiv=run.equiv if run.equiv and run.equiv != run.data else None,
                disp=code_label(run, closes.get(run.id)),
                writable=tuple(writable) if writable else None,
                constraints=code_constraints(run),
            ),
        )
    return infos or None


def structures(
    runs: Runs,
    prefix: tuple[PathStep, ...] = (),
    *,
    caps: FormatCapabilities | None = None,
    outer: Mapping[str, CodeInfo] | None = None,
) -> list[Structure]:
    """The plurals and selects of ``runs``, nested ones after their parent.

    With ``caps``, a structure lists the codes of its branches that the text
    around it (``outer``) names differently: a plural's ``#`` that shares its
    id with the argument before the plural.
    """
    found: list[Structure] = []
    nested: list[Structure] = []
    for index, run in enumerate(runs):
        if isinstance(run, Plural):
            kind, branches, step = "plural", run.forms, "plural"
        elif isinstance(run, Select):
            kind, branches, step = "select", run.cases, "select"
        else:
            continue
        path = (*prefix, index)
        around = dict(outer or {})
        own: dict[str, CodeInfo] = {}
        if caps is not None:
            inside = code_infos(tuple(r for branch in branches.values() for r in branch), caps)
            own = {t: info for t, info in (inside or {}).items() if around.get(t) != info}
            around.update(own)
        found.append(
            Structure(
                path=path,
                kind=kind,
                pivot=run.pivot or None,
                branches={name: render_edit_text(branch) for name, branch in branches.items()},
                codes=own or None,
            )
        )
        for name, branch in branches.items():
            step_value = Branch(plural=name) if step == "plural" else Branch(select=name)
            nested.extend(structures(branch, (*path, step_value), caps=caps, outer=around))
    return found + nested


def _cursor(head: str, count: int) -> str:
    raw = f"c1:{head}|{count}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_cursor(cursor: str, head: str) -> int:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        text = base64.urlsafe_b64decode(padded.encode()).decode()
        tag, _, rest = text.partition(":")
        cursor_head, _, count = rest.rpartition("|")
        if tag != "c1" or not count.isdigit():
            raise ValueError(text)
    except (ValueError, UnicodeDecodeError):
        raise ChangeError.of(
            ErrorCode.INVALID, "the cursor is not one a read returned", field="cursor"
        ) from None
    if cursor_head != head:
        raise ChangeError.of(
            ErrorCode.STALE,
            "the document changed since this cursor was made; read from the start",
            field="cursor",
        )
    return int(count)


def _edition_status(block: Block, key: str) -> str:
    edition = block.targets[key]
    if edition.status in (
        EditionStatus.DRAFT,
        EditionStatus.TRANSLATED,
        EditionStatus.ESTABLISHED,
    ):
        return edition.status
    if edition.status in (EditionStatus.REVIEWED, EditionStatus.SIGNED_OFF):
        return EditionStatus.ESTABLISHED
    if edition.runs == block.source:
        return "untranslated"
    return "new"


def _only_text(runs: Runs) -> bool:
    return all(type(run) is Text for run in runs)


def read_block(block: Block, staged: Staged, *, own_edition: bool) -> BlockRead:
    caps = staged.capabilities
    source = block.source
    source_rev = revision(own_edition_key(block), source)
    if _only_text(source):
        # Plain text (most catalogue values): no codes, no structures.
        text = "".join([run.text for run in source])  # type: ignore[union-attr]
        source_codes = None
        source_structures = None
    else:
        text = render_edit_text(source)
        source_codes = code_infos(source, caps)
        source_structures = tuple(structures(source, caps=caps, outer=source_codes)) or None
    editions: dict[str, EditionRead] = {}
    for key in sorted(block.targets):
        edition = block.targets[key]
        runs = edition.runs
        codes = code_infos(runs, caps)
        editions[key] = EditionRead(
            rev=edition_rev(block, key),
            text=render_edit_text(runs),
            status=_edition_status(block, key),
            stale=bool(edition.basis) and edition.basis != source_rev,
            codes=codes if codes != source_codes else None,
            structures=tuple(structures(runs, caps=caps, outer=codes)) or None,
            basis=edition.basis or None,
        )
    edition_name = block.locale if own_edition and block.locale not in block.targets else None
    return BlockRead(
        ref=ResultRef(doc=staged.doc, block=block.ref_key, edition=edition_name or None),
        rev=source_rev,
        text=text,
        ops=block_ops(block, staged),
        codes=source_codes,
        structures=source_structures,
        editions=editions or None,
        role=block.role or None,
        level=block.level or None,
    )


def read_blocks(
    blocks: Iterable[Block], staged: Staged, *, own_edition: bool, skip_empty: bool = True
) -> Iterator[BlockRead | PlainRead]:
    """:func:`read_block` of each block, made one at a time (``skip_empty``: a block with no
    text and no editions is left out, as a read page leaves it out).

    A block of plain text with no editions (most of a catalogue) is read without the
    general path, as a :class:`PlainRead`: its edit text is its text, it has no codes
    and no structures, and its ops depend only on whether it is translatable.
    """
    ops_of: dict[bool, tuple[str, ...]] = {}
    doc = staged.doc
    new = tuple.__new__
    for block in blocks:
        source = block.source
        if len(source) == 1 and source[0].__class__ is Text and not block.targets:
            text = source[0].text
            if skip_empty and not text.strip():
                continue
            ops = ops_of.get(block.translatable)
            if ops is None:
                ops = ops_of[block.translatable] = block_ops(block, staged)
            locale = block.locale
            yield new(
                PlainRead,
                (
                    doc,
                    block.key or block.name or block.id,
                    locale or None if own_edition else None,
                    revision(locale, source),
                    text,
                    ops,
                    block.role or None,
                    block.level or None,
                ),
            )
            continue
        if skip_empty and not block.targets and not plain_text(source).strip():
            continue
        yield read_block(block, staged, own_edition=own_edition)


def read_page(staged: Staged, request: ReadRequest) -> ReadPage:
    """A page of ``staged``'s blocks as :class:`ReadRequest` asks."""
    limit = request.limit
    if limit < 1 or limit > MAX_LIMIT:
        raise ChangeError.of(ErrorCode.INVALID, f"limit must be 1 to {MAX_LIMIT}", field="limit")
    blocks: Sequence[Block] = staged.document.blocks
    if request.blocks:
        wanted = set(request.blocks)
        blocks = [b for b in blocks if wanted & {b.key, b.name, b.id}]
        missing = wanted - {k for b in blocks for k in (b.key, b.name, b.id)}
        if missing:
            raise ChangeError.of(
                ErrorCode.NOT_FOUND,
                f"no block {sorted(missing)[0]!r} in {staged.doc}",
                field="blocks",
            )
    if request.skip_empty:
        blocks = [b for b in blocks if plain_text(b.source).strip() or b.targets]
    start = _decode_cursor(request.cursor, staged.head) if request.cursor else 0
    page = blocks[start : start + limit]
    more = start + limit < len(blocks)
    return ReadPage(
        doc=staged.doc,
        home=staged.home,
        format=staged.capabilities.name,
        head=staged.head,
        blocks=tuple(read_block(b, staged, own_edition=request.own_edition) for b in page),
        next=_cursor(staged.head, start + limit) if more else None,
    )


@frozen
class Description:
    """``describe_format``: what a change set may do to documents of a format."""

    format: str
    editions: str
    ops: Mapping[str, Any]
    native: tuple[Mapping[str, Any], ...] = ()


def describe(caps: FormatCapabilities, staged: Staged | None = None) -> Description:
    """What a format (or one document's home) lets a change set do; ``None`` = unsupported."""
    writable = caps.reader and caps.writer
    ops: dict[str, Any] = {
        "set_content": {"forms": ["text", "runs"], "new_codes": list(caps.new_codes)}
        if writable
        else None,
        "replace_text": {} if writable else None,
        "set_attribute": {k: list(v) for k, v in caps.writable_attrs.items()} or None,
        "mark": {"types": list(caps.new_codes)} if caps.new_codes else None,
        "remove_edition": {} if caps.interchange else None,
        "annotate": {"inline": []} if staged is not None and staged.annotations else None,
        "unannotate": {} if staged is not None and staged.annotations else None,
        "insert_block": {} if caps.structural else None,
        "delete_block": {} if caps.structural else None,
    }
    return Description(format=caps.name, editions=caps.editions, ops=ops)
