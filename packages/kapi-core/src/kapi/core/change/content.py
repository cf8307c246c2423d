"""Content operations applied in memory to one block: the heart of a change set.

Each function takes a block as it stands after earlier ops, the block as the
set began, and the op; it returns the new block and what the result echoes,
or raises :class:`ChangeError`. Nothing here touches a file.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

from attrs import evolve, frozen

from kapi.core.change.cells import (
    Cell,
    cell_of_position,
    cells_of,
    run_position,
    runs_of,
    search_text,
    text_cell_indexes,
)
from kapi.core.change.errors import (
    Candidate,
    ChangeError,
    ErrorCode,
    GuardSubcode,
    Searched,
    TextSpan,
)
from kapi.core.change.ops import Branch, Edit, PathStep, Position, Selection
from kapi.core.edittext import (
    TOKEN,
    EditTextError,
    entity_char,
    parse_edit_text,
    render_edit_text,
)
from kapi.core.model import PcClose, PcOpen, Ph, Plural, Run, Runs, Select, Sub, code_constraints

__all__ = [
    "EditLog",
    "apply_edits",
    "fill_payload_codes",
    "get_branch",
    "mark_range",
    "parse_text",
    "set_branch",
]


def guard(subcode: GuardSubcode, message: str, field: str, **extra: object) -> ChangeError:
    return ChangeError.of(ErrorCode.GUARD, message, subcode=subcode, field=field, **extra)


# --- paths -----------------------------------------------------------------------------


def _step_error(path: Sequence[PathStep], at: int, message: str, field: str) -> ChangeError:
    return ChangeError.of(ErrorCode.NOT_FOUND, message, field=f"{field}/{at}")


def get_branch(runs: Runs, path: Sequence[PathStep], field: str = "path") -> Runs:
    """The run sequence a path reaches."""
    current = runs
    for index in range(0, len(path), 2):
        step = path[index]
        if not isinstance(step, int) or index + 1 >= len(path):
            raise ChangeError.of(
                ErrorCode.INVALID,
                "a path alternates a run index and a {plural|select: name} step",
                field=f"{field}/{index}",
            )
        branch = path[index + 1]
        assert isinstance(branch, Branch)
        if step >= len(current):
            raise _step_error(path, index, f"run {step} does not exist here", field)
        run = current[step]
        branches = _branches_of(run, branch, path, index, field)
        if branch.name not in branches:
            raise ChangeError.of(
                ErrorCode.NOT_FOUND,
                f"{branch.kind} {branch.name!r} does not exist; it has "
                + ", ".join(sorted(branches)),
                field=f"{field}/{index + 1}",
            )
        current = branches[branch.name]
    return current


def _branches_of(
    run: Run, branch: Branch, path: Sequence[PathStep], index: int, field: str
) -> Mapping[str, Runs]:
    if branch.plural is not None and isinstance(run, Plural):
        return run.forms
    if branch.select is not None and isinstance(run, Select):
        return run.cases
    raise _step_error(path, index, f"run {path[index]} is not a {branch.kind}", field)


def set_branch(
    runs: Runs, path: Sequence[PathStep], new: Runs, *, create: bool, field: str = "path"
) -> Runs:
    """``runs`` with the branch at ``path`` replaced (created when ``create`` and missing)."""
    if not path:
        return new
    step, branch = path[0], path[1]
    assert isinstance(step, int) and isinstance(branch, Branch)
    if step >= len(runs):
        raise _step_error(path, 0, f"run {step} does not exist here", field)
    run = runs[step]
    branches = dict(_branches_of(run, branch, path, 0, field))
    if branch.name not in branches:
        if not create or len(path) > 2:
            raise ChangeError.of(
                ErrorCode.NOT_FOUND,
                f"{branch.kind} {branch.name!r} does not exist",
                field=f"{field}/1",
            )
        branches[branch.name] = ()
    branches[branch.name] = set_branch(
        branches[branch.name], path[2:], new, create=create, field=field
    )
    replaced: Run = (
        evolve(run, forms=branches) if isinstance(run, Plural) else evolve(run, cases=branches)  # type: ignore[arg-type]
    )
    return (*runs[:step], replaced, *runs[step + 1 :])


def branch_reference(runs: Runs, path: Sequence[PathStep]) -> Runs:
    """What a new branch is read against: the branch if it exists, else its ``other``."""
    try:
        return get_branch(runs, path)
    except ChangeError:
        if len(path) >= 2:
            parent = get_branch(runs, path[:-2]) if len(path) > 2 else runs
            step = path[-2]
            if isinstance(step, int) and step < len(parent):
                run = parent[step]
                if isinstance(run, Plural):
                    return run.forms.get("other", ())
                if isinstance(run, Select):
                    return run.cases.get("other", ())
        raise


# --- text and runs payloads -------------------------------------------------------------


def parse_text(text: str, reference: Runs, extra: Sequence[Runs], field: str) -> Runs:
    try:
        return parse_edit_text(text, reference, extra=extra)
    except EditTextError as err:
        raise guard(
            GuardSubcode(err.subcode),
            err.message,
            field,
            expected=err.expected or None,
            found=err.found or None,
        ) from None


def _codes(runs: Runs) -> dict[tuple[type, str], Run]:
    found: dict[tuple[type, str], Run] = {}
    for run in runs:
        if isinstance(run, Ph | PcOpen | PcClose | Sub):
            found.setdefault((type(run), run.id), run)
        elif isinstance(run, Plural):
            for branch in run.forms.values():
                for key, value in _codes(branch).items():
                    found.setdefault(key, value)
        elif isinstance(run, Select):
            for branch in run.cases.values():
                for key, value in _codes(branch).items():
                    found.setdefault(key, value)
    return found


def fill_payload_codes(
    runs: Runs, references: Sequence[Runs], new_codes: Sequence[str], field: str
) -> Runs:
    """Give payload codes the native form of the existing code with the same id.

    A payload code may leave type, subType and attrs out; where it gives them
    they must agree with the existing code. A code with a new id keeps empty
    data, which the format spells from its type, if the format can.
    """
    known: dict[tuple[type, str], Run] = {}
    for reference in references:
        for key, value in _codes(reference).items():
            known.setdefault(key, value)
    out: list[Run] = []
    for index, run in enumerate(runs):
        here = f"{field}/{index}"
        if isinstance(run, Plural):
            out.append(
                evolve(
                    run,
                    forms={
                        k: fill_payload_codes(v, references, new_codes, here)
                        for k, v in run.forms.items()
                    },
                )
            )
        elif isinstance(run, Select):
            out.append(
                evolve(
                    run,
                    cases={
                        k: fill_payload_codes(v, references, new_codes, here)
                        for k, v in run.cases.items()
                    },
                )
            )
        elif isinstance(run, Ph | PcOpen | PcClose):
            existing = known.get((type(run), run.id))
            if existing is None:
                if run.type not in new_codes:
                    raise ChangeError.of(
                        ErrorCode.UNSUPPORTED,
                        f"code {run.id!r} is new and this format cannot spell a new "
                        f"{run.type or 'untyped'} code",
                        capability=f"synthesize:{run.type}",
                        field=here,
                    )
                out.append(run)
                continue
            assert isinstance(existing, Ph | PcOpen | PcClose)
            if (run.type and run.type != existing.type) or (
                run.sub_type and run.sub_type != existing.sub_type
            ):
                raise ChangeError.of(
                    ErrorCode.UNSUPPORTED,
                    f"code {run.id!r} is {existing.type or 'untyped'}; a payload may not retype it",
                    capability="set_attribute",
                    field=here,
                    expected=existing.type,
                    found=run.type,
                )
            if (
                not isinstance(run, PcClose)
                and isinstance(existing, Ph | PcOpen)
                and run.attrs
                and dict(run.attrs) != dict(existing.attrs)
            ):
                raise ChangeError.of(
                    ErrorCode.UNSUPPORTED,
                    f"code {run.id!r} has other attributes; change them with set_attribute",
                    capability="set_attribute",
                    field=here,
                )
            out.append(existing)
        elif isinstance(run, Sub):
            existing = known.get((Sub, run.id))
            out.append(existing if existing is not None else run)
        else:
            out.append(run)
    return tuple(out)


# --- positional edits -------------------------------------------------------------------


@frozen
class _Region:
    """A changed span in the cell indexes of the content as read, and its new width."""

    start: int
    end: int
    width: int


class EditLog:
    """Where earlier ops changed one edition, so positions (which name the content as read)
    can be mapped onto the content as it stands, and a position inside changed text refused."""

    def __init__(self) -> None:
        self.regions: list[_Region] = []
        self.whole = False

    def replaced_whole(self) -> None:
        self.whole = True

    def to_current(self, start: int, end: int, field: str) -> tuple[int, int]:
        if self.whole:
            raise guard(
                GuardSubcode.OVERLAP,
                "an earlier op replaced this content; a position names the content as read, "
                "so use find here",
                field,
            )
        shift = 0
        for region in self.regions:
            if region.end <= start and not (region.start == region.end == start):
                shift += region.width - (region.end - region.start)
            elif region.start >= end and not (start == end == region.start):
                continue
            else:
                raise guard(
                    GuardSubcode.OVERLAP,
                    "the position is inside text an earlier op changed; use find",
                    field,
                )
        return start + shift, end + shift

    def to_original(self, start: int, end: int) -> tuple[int, int] | None:
        if self.whole:
            return None
        shift = 0
        for region in sorted(self.regions, key=lambda r: r.start):
            new_start = region.start + shift
            new_end = new_start + region.width
            if new_end <= start:
                shift += region.width - (region.end - region.start)
            elif new_start >= end:
                break
            else:
                return None
        return start - shift, end - shift

    def add(self, start: int, end: int, width: int) -> None:
        self.regions.append(_Region(start, end, width))


@frozen
class _Resolved:
    start: int  # cell indexes in the current content
    end: int
    tokens: bool  # the find named codes by token
    original: tuple[int, int] | None  # cell indexes in the content as read


def _selector_field(field: str, selection: Edit | Selection) -> str:
    if selection.find is not None:
        return f"{field}/find"
    if selection.range is not None:
        return f"{field}/range"
    return f"{field}/start"


def resolve_selection(
    selection: Edit | Selection,
    current: Runs,
    original: Runs,
    log: EditLog,
    field: str,
) -> _Resolved:
    """Cell indexes of a selection: ``find`` on the current content, positions on the original."""
    if selection.find is not None:
        return _resolve_find(selection, current, log, field)
    cells = cells_of(original)
    if selection.range is not None:
        start = _range_cell(original, selection.range.start, f"{field}/range/start")
        end = _range_cell(original, selection.range.end, f"{field}/range/end")
    else:
        assert selection.start is not None and selection.end is not None
        chars = text_cell_indexes(cells)
        if not 0 <= selection.start <= selection.end <= len(chars):
            raise guard(
                GuardSubcode.BAD_POSITION,
                f"start {selection.start} and end {selection.end} must lie within the "
                f"{len(chars)} characters of the text (codes have zero width)",
                f"{field}/start",
            )
        if selection.start == selection.end:
            start = end = chars[selection.start - 1] + 1 if selection.start else 0
        else:
            start = chars[selection.start]
            end = chars[selection.end - 1] + 1
    if end < start:
        raise guard(GuardSubcode.BAD_POSITION, "the range ends before it starts", field)
    current_start, current_end = log.to_current(start, end, _selector_field(field, selection))
    return _Resolved(current_start, current_end, tokens=False, original=(start, end))


def _range_cell(runs: Runs, position: Position, field: str) -> int:
    cell = cell_of_position(runs, position.run, position.offset or 0)
    if cell is None:
        raise guard(
            GuardSubcode.BAD_POSITION,
            f"run {position.run} offset {position.offset or 0} is outside the content",
            field,
        )
    return cell


def _resolve_find(
    selection: Edit | Selection, current: Runs, log: EditLog, field: str
) -> _Resolved:
    assert selection.find is not None
    find = selection.find
    here = f"{field}/find"
    if not find:
        raise ChangeError.of(ErrorCode.INVALID, "find may not be empty", field=here)
    tokens = TOKEN.search(find) is not None
    cells = cells_of(current)
    text, starts = search_text(cells, with_tokens=tokens)
    matches: list[int] = []
    position = text.find(find)
    while position != -1:
        matches.append(position)
        position = text.find(find, position + 1)
    # Only matches that begin and end on cell boundaries count (a token is atomic).
    boundaries = set(starts)
    matches = [m for m in matches if m in boundaries and m + len(find) in boundaries]
    if not matches:
        hint = _branch_hint(current, find)
        raise ChangeError.of(
            ErrorCode.NOT_FOUND,
            f"{find!r} does not occur in the text"
            + (hint or "; read the block again and copy the text"),
            field=here,
            searched=Searched(text=render_edit_text(current)),
        )
    if selection.occurrence is not None:
        if selection.occurrence < 1 or selection.occurrence > len(matches):
            raise ChangeError.of(
                ErrorCode.NOT_FOUND,
                f"occurrence {selection.occurrence} asked, {find!r} occurs {len(matches)} time(s)",
                field=f"{field}/occurrence",
            )
        chosen = matches[selection.occurrence - 1]
    elif len(matches) > 1:
        raise ChangeError.of(
            ErrorCode.AMBIGUOUS,
            f"{find!r} occurs {len(matches)} times; add occurrence (1-based) to pick one",
            field=here,
            candidates=tuple(
                Candidate(
                    occurrence=n + 1,
                    text=text[max(0, m - 20) : m + len(find) + 20],
                    at=_span(current, *_cells_for(starts, m, len(find), tokens, cells)),
                )
                for n, m in enumerate(matches)
            ),
        )
    else:
        chosen = matches[0]
    start, end = _cells_for(starts, chosen, len(find), tokens, cells)
    return _Resolved(start, end, tokens=tokens, original=log.to_original(start, end))


def _branch_hint(runs: Runs, find: str) -> str:
    """Where ``find`` occurs inside a plural or select branch, as a path to send."""
    for index, run in enumerate(runs):
        if isinstance(run, Plural | Select):
            kind = "plural" if isinstance(run, Plural) else "select"
            branches = run.forms if isinstance(run, Plural) else run.cases
            for name, branch in branches.items():
                if find in render_edit_text(branch):
                    return (
                        f"; it is inside the {name!r} branch of a {kind}: "
                        f'send "path": [{index}, {{"{kind}": "{name}"}}] with the edit'
                    )
    return ""


def _cells_for(
    starts: list[int], offset: int, length: int, tokens: bool, cells: list[Cell]
) -> tuple[int, int]:
    start = starts.index(offset)
    end = start
    while end < len(cells) and starts[end] < offset + length:
        end += 1
    if not tokens:
        # zero-width codes at either edge belong outside the match
        while start < end and not cells[start].is_char and starts[start] == starts[start + 1]:
            start += 1
        while end > start and not cells[end - 1].is_char and starts[end - 1] == starts[end]:
            end -= 1
    return start, end


def _span(runs: Runs, start: int, end: int, path: tuple[PathStep, ...] | None = None) -> TextSpan:
    return TextSpan(start=run_position(runs, start), end=run_position(runs, end), path=path)


def apply_edits(
    edits: Sequence[Edit],
    op_path: tuple[PathStep, ...] | None,
    current_root: Runs,
    original_root: Runs,
    logs: dict[tuple[PathStep, ...], EditLog],
    extra: Sequence[Runs],
    field: str,
) -> tuple[Runs, list[TextSpan]]:
    """Apply a replace_text's edits; returns the new root runs and each edit's resolved span."""
    resolved: list[tuple[int, tuple[PathStep, ...], _Resolved]] = []
    for index, edit in enumerate(edits):
        here = f"{field}/{index}"
        path = edit.path if edit.path is not None else (op_path or ())
        current = get_branch(current_root, path, f"{here}/path") if path else current_root
        try:
            original = get_branch(original_root, path) if path else original_root
        except ChangeError:
            original = current
        log = logs.setdefault(path, EditLog())
        resolved.append((index, path, resolve_selection(edit, current, original, log, here)))
    # Edits of one op must not overlap one another.
    by_path: dict[tuple[PathStep, ...], list[tuple[int, _Resolved]]] = {}
    for index, path, span in resolved:
        by_path.setdefault(path, []).append((index, span))
    for spans in by_path.values():
        ordered = sorted(spans, key=lambda item: (item[1].start, item[1].end))
        for (_, a), (index, b) in itertools.pairwise(ordered):
            if b.start < a.end or (a.start == a.end == b.start == b.end):
                raise guard(
                    GuardSubcode.OVERLAP,
                    "two edits of this op cover the same text; merge them",
                    f"{field}/{index}",
                )
    root = current_root
    echoes: dict[int, TextSpan] = {}
    for path, spans in by_path.items():
        current = get_branch(root, path) if path else root
        cells = cells_of(current)
        widths: dict[int, int] = {}
        # right to left, so earlier cell indexes stay valid
        for index, span in sorted(spans, key=lambda item: item[1].start, reverse=True):
            cells, widths[index] = _replace(
                cells, span, edits[index].text, current, extra, f"{field}/{index}"
            )
            log = logs[path]
            if span.original is not None:
                log.add(span.original[0], span.original[1], widths[index])
            else:
                log.replaced_whole()
        new_branch = runs_of(cells)
        root = set_branch(root, path, new_branch, create=False) if path else new_branch
        shift = 0
        for index, span in sorted(spans, key=lambda item: item[1].start):
            start = span.start + shift
            echoes[index] = _span(new_branch, start, start + widths[index], path or None)
            shift += widths[index] - (span.end - span.start)
    return root, [echoes[i] for i in range(len(edits))]


def _replace(
    cells: list[Cell],
    span: _Resolved,
    text: str,
    reference: Runs,
    extra: Sequence[Runs],
    field: str,
) -> tuple[list[Cell], int]:
    inner = cells[span.start : span.end]
    if span.tokens:
        # The find named codes: the replacement is placeholder text naming the codes it keeps.
        replaced = runs_of(inner)
        new_runs = parse_text(text, replaced, [reference, *extra], f"{field}/text")
        new_cells = cells_of(new_runs)
        return [*cells[: span.start], *new_cells, *cells[span.end :]], len(new_cells)
    if TOKEN.search(text):
        new_runs = parse_text(text, runs_of(inner), [reference, *extra], f"{field}/text")
        kept: list[Cell] = []
        new_cells = cells_of(new_runs)
    else:
        kept = _kept_codes(inner, field)
        flag = next((c.no_translate for c in inner if c.is_char), False)
        new_cells = [Cell(char=c, no_translate=flag) for c in text]
    block = new_cells + kept
    return [*cells[: span.start], *block, *cells[span.end :]], len(block)


def _kept_codes(inner: list[Cell], field: str) -> list[Cell]:
    """Codes inside replaced text: emptied deletable ones go, the rest stay at the edge."""
    opened = {c.run.id for c in inner if isinstance(c.run, PcOpen)}
    closed = {c.run.id for c in inner if isinstance(c.run, PcClose)}
    if opened != closed:
        raise guard(
            GuardSubcode.BAD_POSITION,
            "the span crosses a code boundary (it holds one half of a paired code); "
            "widen or narrow it to whole codes, or name the codes by token in find",
            field,
        )
    kept: list[Cell] = []
    openers = {c.run.id: c.run for c in inner if isinstance(c.run, PcOpen)}
    for cell in inner:
        run = cell.run
        if run is None or entity_char(run) is not None:
            continue  # text, or a character reference: the replacement stands for it
        if isinstance(run, Plural | Select):
            raise guard(
                GuardSubcode.STRUCTURE_LOST,
                "the span covers a plural or select; edit its branches with a path",
                field,
            )
        if isinstance(run, Ph | PcOpen | PcClose):
            opener = openers.get(run.id) if isinstance(run, PcClose) else None
            if code_constraints(run, opener).deletable:
                continue
        kept.append(cell)
    return kept


def mark_range(
    selection: Selection,
    current_root: Runs,
    original_root: Runs,
    logs: dict[tuple[PathStep, ...], EditLog],
    code_type: str,
    attrs: Mapping[str, str],
    field: str,
) -> tuple[Runs, TextSpan]:
    """Wrap the selection in a new paired code with a fresh numeric id."""
    path = selection.path or ()
    current = get_branch(current_root, path, f"{field}/path") if path else current_root
    original = get_branch(original_root, path) if path else original_root
    log = logs.setdefault(path, EditLog())
    span = resolve_selection(selection, current, original, log, field)
    cells = cells_of(current)
    inner = cells[span.start : span.end]
    if not any(cell.is_char for cell in inner):
        raise ChangeError.of(ErrorCode.INVALID, "mark needs a non-empty range of text", field=field)
    opened = {c.run.id for c in inner if isinstance(c.run, PcOpen)}
    closed = {c.run.id for c in inner if isinstance(c.run, PcClose)}
    if opened != closed:
        raise guard(
            GuardSubcode.BAD_POSITION,
            "the range crosses a code boundary; mark whole codes or text inside one",
            field,
        )
    ids = [int(run.id) for run in _all_codes(current_root) if run.id.isdigit()]
    new_id = str(max(ids, default=0) + 1)
    open_cell = Cell(run=PcOpen(id=new_id, type=code_type, attrs=dict(attrs)))
    close_cell = Cell(run=PcClose(id=new_id, type=code_type))
    cells = [*cells[: span.start], open_cell, *inner, close_cell, *cells[span.end :]]
    if span.original is not None:
        log.add(span.original[0], span.original[0], 0)
    new_branch = runs_of(cells)
    root = set_branch(current_root, path, new_branch, create=False) if path else new_branch
    return root, _span(new_branch, span.start, span.end + 2, path or None)


def _all_codes(runs: Runs) -> list[Ph | PcOpen | PcClose | Sub]:
    out: list[Ph | PcOpen | PcClose | Sub] = []
    for run in runs:
        if isinstance(run, Ph | PcOpen | PcClose | Sub):
            out.append(run)
        elif isinstance(run, Plural):
            for branch in run.forms.values():
                out.extend(_all_codes(branch))
        elif isinstance(run, Select):
            for branch in run.cases.values():
                out.extend(_all_codes(branch))
    return out


def set_code_attribute(runs: Runs, code: str, name: str, value: str) -> tuple[Runs, int]:
    """Every occurrence of code ``code`` with attribute ``name`` set; returns the count changed."""
    count = 0
    out: list[Run] = []
    for run in runs:
        if isinstance(run, Ph | PcOpen) and run.id == code.rstrip("/"):
            attrs = dict(run.attrs)
            attrs[name] = value
            out.append(evolve(run, attrs=attrs))
            count += 1
        elif isinstance(run, Plural):
            forms = {}
            for key, branch in run.forms.items():
                forms[key], n = set_code_attribute(branch, code, name, value)
                count += n
            out.append(evolve(run, forms=forms))
        elif isinstance(run, Select):
            cases = {}
            for key, branch in run.cases.items():
                cases[key], n = set_code_attribute(branch, code, name, value)
                count += n
            out.append(evolve(run, cases=cases))
        else:
            out.append(run)
    return tuple(out), count


def find_code(runs: Runs, code: str) -> Ph | PcOpen | None:
    for run in _all_codes(runs):
        if isinstance(run, Ph | PcOpen) and run.id == code.rstrip("/"):
            return run
    return None
