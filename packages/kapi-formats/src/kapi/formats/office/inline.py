"""Paragraph content shared by the three OOXML formats: text nodes and codes, and how an edit lands.

A format walks one paragraph (``w:p``, ``a:p``, a shared string ``si``) and
feeds an :class:`InlineBuilder` with text nodes (slots) and codes, each code
with the byte range of the markup it stands for. The result is the block's
runs and a :class:`ParagraphSkeleton` that remembers where every run came from.

Writing an edited paragraph takes one of two paths:

* **Text only** (the codes are the same, in the same order): the text between
  two codes (a segment) is spread over that segment's original text nodes.
  The common prefix and suffix stay where they were; the changed middle goes
  into the node where the change starts; nodes the change swallows keep their
  element with empty text; text added at a node boundary joins the node before
  it. So a one-word edit rewrites one text node. A segment that had no text
  node gets a new one inside the adjacent run, or a new run with the
  paragraph's base formatting.
* **Codes changed** (a pair moved, dropped or cloned): the paragraph's inline
  content is rebuilt from the runs: each code's original markup (with any
  edits nested in it, such as a text box), text in new text nodes inside the
  run its formatting pair names (or the base run), runs closed and reopened
  around containers. Zero-width markers that were not codes (``w:proofErr``,
  ``w:lastRenderedPageBreak``, empty runs) are not carried over.

A paragraph with tracked changes takes only the first path, and only when no
edited segment lies inside an insertion: anything else would silently accept
or reject a revision, so it is refused (``WriteRefused``, capability ``editable``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from attrs import frozen

from kapi.core.format import WriteRefused
from kapi.core.model import PcClose, PcOpen, Ph, Plural, Run, Runs, Select, Sub, Text
from kapi.formats.office.xmlsplice import Element, RangeRenderer, Splicer, xml_encoding

__all__ = [
    "CodeInfo",
    "Dialect",
    "InlineBuilder",
    "ParagraphSkeleton",
    "PartEdits",
    "Slot",
    "choose_base",
    "rebuild_content",
    "write_paragraph",
]

# Where a code sits: inside a run element ("run") or between runs ("outer").
RUN_LEVEL = "run"
OUTER_LEVEL = "outer"
# What a paired code is: a run's formatting ("run") or an element around runs ("container").
RUN_PAIR = "run"
CONTAINER = "container"
STANDALONE = "ph"


@frozen
class Slot:
    """A text node: its element's offsets, the text it held, the run it sits in."""

    start: int
    content_start: int
    content_end: int
    end: int
    text: str
    preserve: bool
    raw_name: bytes
    run_open: bytes = b""

    @property
    def self_closing(self) -> bool:
        return self.content_start == self.end


@frozen
class CodeInfo:
    """Where a code's markup sits and how it nests."""

    start: int
    end: int
    kind: str  # RUN_PAIR, CONTAINER or STANDALONE
    level: str  # RUN_LEVEL or OUTER_LEVEL
    protected: bool = False  # a tracked insertion: its text may not be edited


@frozen
class Segment:
    """The text between two codes and the text nodes it came from."""

    slots: tuple[Slot, ...]
    gap_at: int  # where a new text node goes when there is no slot
    gap_in_run: bool
    gap_run_open: bytes
    protected: bool

    @property
    def text(self) -> str:
        return "".join(slot.text for slot in self.slots)


class Dialect:
    """How one format spells text nodes and runs; subclasses fill in the details."""

    text_local = b"t"
    run_local = b"r"
    preserve_edges = True  # add xml:space="preserve" for edge whitespace

    def escape(self, text: str, prefix: bytes, run_open: bytes, block: str) -> tuple[bytes, str]:
        """Content bytes for ``text`` in a text node, and the text of its first piece.

        A format that turns a tab or a newline into an element closes the text
        node and opens a new one; the first piece decides ``xml:space``.
        """
        raise NotImplementedError

    def synthesize(
        self, run: Ph | PcOpen | PcClose, prefix: bytes, block: str
    ) -> tuple[bytes, CodeInfo]:
        """Markup for a new code that carries no ``data``."""
        raise WriteRefused(
            f"block {block}: a new {run.type or 'code'} has no markup and this format cannot "
            "make one; copy an existing code instead",
            capability=f"synthesize:{run.type}",
            block=block,
        )

    def classify(self, run: Ph | PcOpen | PcClose, data: bytes) -> CodeInfo:
        """Kind and level of a code that was not read from this paragraph."""
        kind = (
            STANDALONE
            if isinstance(run, Ph)
            else (RUN_PAIR if run.sub_type.endswith(":run") else CONTAINER)
        )
        return CodeInfo(0, 0, kind, OUTER_LEVEL)

    def text_node(self, text: str, prefix: bytes, run_open: bytes, block: str) -> bytes:
        content, first = self.escape(text, prefix, run_open, block)
        name = prefix + self.text_local
        space = b' xml:space="preserve"' if self.preserve_edges and _needs_preserve(first) else b""
        return b"<" + name + space + b">" + content + b"</" + name + b">"

    def run_close(self, prefix: bytes) -> bytes:
        return b"</" + prefix + self.run_local + b">"


def choose_base(weights: Counter[bytes]) -> bytes | None:
    """The paragraph's base run properties: none at all if some text has none, else the
    properties under the most text. Plain runs as the base keep the codes of a paragraph
    stable when an edit changes how much text each formatting holds."""
    if not weights:
        return None
    if b"" in weights:
        return b""
    return weights.most_common(1)[0][0]


def _needs_preserve(text: str) -> bool:
    return bool(text) and (text[0] in " \t\n\r" or text[-1] in " \t\n\r" or "  " in text)


@frozen
class ParagraphSkeleton:
    """Everything the writer needs to put new runs where the old ones were."""

    runs: Runs
    segments: tuple[Segment, ...]
    codes: tuple[CodeInfo, ...]  # one per code run, in order
    content_start: int
    content_end: int
    base_open: bytes
    prefix: bytes
    dialect: Dialect
    tracked: bool = False


class InlineBuilder:
    """Collects one paragraph's slots and codes in document order."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self._items: list[Slot | tuple[Run, CodeInfo]] = []
        self._next_id = 0
        self.tracked = False

    def _new_id(self) -> str:
        self._next_id += 1
        return str(self._next_id)

    def slot(self, element: Element, run_open: bytes = b"", text: str | None = None) -> None:
        content_start = element.start_end(self.data)
        self._items.append(
            Slot(
                start=element.start,
                content_start=content_start,
                content_end=element.end_start if not element.self_closing else content_start,
                end=element.end,
                text=element.text if text is None else text,
                preserve=element.attrs.get("xml:space") == "preserve",
                raw_name=element.raw_name(self.data),
                run_open=run_open,
            )
        )

    def ph(
        self,
        start: int,
        end: int,
        *,
        level: str,
        type: str,
        sub_type: str,
        equiv: str = "",
        attrs: dict[str, str] | None = None,
    ) -> None:
        run = Ph(
            id=self._new_id(),
            type=type,
            sub_type=sub_type,
            data=self.data[start:end].decode("utf-8"),
            equiv=equiv,
            attrs=attrs or {},
        )
        self._items.append((run, CodeInfo(start, end, STANDALONE, level)))

    def open(
        self,
        start: int,
        end: int,
        *,
        kind: str,
        type: str,
        sub_type: str,
        attrs: dict[str, str] | None = None,
        protected: bool = False,
    ) -> str:
        code_id = self._new_id()
        run = PcOpen(
            id=code_id,
            type=type,
            sub_type=sub_type,
            data=self.data[start:end].decode("utf-8"),
            attrs=attrs or {},
        )
        level = RUN_LEVEL if kind == RUN_PAIR else OUTER_LEVEL
        self._items.append((run, CodeInfo(start, end, kind, level, protected)))
        return code_id

    def close(
        self,
        code_id: str,
        start: int,
        end: int,
        *,
        kind: str,
        type: str,
        sub_type: str,
        protected: bool = False,
    ) -> None:
        run = PcClose(
            id=code_id, type=type, sub_type=sub_type, data=self.data[start:end].decode("utf-8")
        )
        level = RUN_LEVEL if kind == RUN_PAIR else OUTER_LEVEL
        self._items.append((run, CodeInfo(start, end, kind, level, protected)))

    def has_text(self) -> bool:
        return any(isinstance(item, Slot) and item.text.strip() for item in self._items)

    def finish(
        self,
        *,
        content_start: int,
        content_end: int,
        base_open: bytes,
        prefix: bytes,
        dialect: Dialect,
    ) -> ParagraphSkeleton:
        runs: list[Run] = []
        codes: list[CodeInfo] = []
        segments: list[Segment] = []
        slots: list[Slot] = []
        protected_depth = 0
        previous: CodeInfo | None = None
        previous_run: Run | None = None

        def end_segment(following: CodeInfo | None, following_run: Run | None) -> None:
            gap_at, in_run = content_start, False
            if previous is not None:
                gap_at = previous.end
                in_run = (previous.kind == RUN_PAIR and isinstance(previous_run, PcOpen)) or (
                    previous.kind == STANDALONE and previous.level == RUN_LEVEL
                )
            elif following is not None:
                gap_at = following.start
                in_run = (following.kind == RUN_PAIR and isinstance(following_run, PcClose)) or (
                    following.kind == STANDALONE and following.level == RUN_LEVEL
                )
            run_open = slots[-1].run_open if slots else b""
            segments.append(Segment(tuple(slots), gap_at, in_run, run_open, protected_depth > 0))
            text = "".join(slot.text for slot in slots)
            if text:
                runs.append(Text(text))

        for item in self._items:
            if isinstance(item, Slot):
                slots.append(item)
                continue
            run, info = item
            end_segment(info, run)
            slots = []
            runs.append(run)
            codes.append(info)
            if info.protected:
                protected_depth += 1 if isinstance(run, PcOpen) else -1
            previous, previous_run = info, run
        end_segment(None, None)
        return ParagraphSkeleton(
            runs=tuple(runs),
            segments=tuple(segments),
            codes=tuple(codes),
            content_start=content_start,
            content_end=content_end,
            base_open=base_open,
            prefix=prefix,
            dialect=dialect,
            tracked=self.tracked,
        )


# -- writing -----------------------------------------------------------------


def _split(runs: Runs, block: str) -> tuple[list[Run], list[str]]:
    codes: list[Run] = []
    texts: list[str] = [""]
    for run in runs:
        if isinstance(run, Text):
            texts[-1] += run.text
        elif isinstance(run, Plural | Select | Sub):
            raise WriteRefused(
                f"block {block}: an office paragraph cannot hold a {type(run).__name__.lower()}",
                capability=f"synthesize:{type(run).__name__.lower()}",
                block=block,
            )
        else:
            codes.append(run)
            texts.append("")
    return codes, texts


def write_paragraph(skeleton: ParagraphSkeleton, runs: Runs, splicer: Splicer, block: str) -> None:
    """Register the replacements that turn the paragraph as read into ``runs``."""
    codes, texts = _split(runs, block)
    old_codes = [run for run in skeleton.runs if not isinstance(run, Text)]
    if codes == old_codes:
        for segment, text in zip(skeleton.segments, texts):
            if segment.text == text:
                continue
            if segment.protected:
                raise WriteRefused(
                    f"block {block}: the edit changes text inside a tracked insertion; accept or "
                    "reject the tracked changes in this paragraph first",
                    capability="editable",
                    block=block,
                )
            _splice_segment(skeleton, segment, text, splicer, block)
        return
    if skeleton.tracked:
        raise WriteRefused(
            f"block {block}: the paragraph has tracked changes and the edit moves or drops "
            "its codes, which would accept or reject a revision; accept or reject the tracked "
            "changes first, or edit only the text outside them",
            capability="editable",
            block=block,
        )
    _check_balance(codes, skeleton, block)

    def produce(render_range: RangeRenderer) -> bytes:
        return _rebuild(skeleton, runs, render_range, block)

    splicer.replace(skeleton.content_start, skeleton.content_end, produce)


def rebuild_content(skeleton: ParagraphSkeleton, runs: Runs, data: bytes, block: str) -> bytes:
    """The paragraph's inline content made afresh from ``runs`` (for a copy elsewhere)."""
    codes, _texts = _split(runs, block)
    _check_balance(codes, skeleton, block)
    return _rebuild(skeleton, runs, lambda start, end: data[start:end], block)


def _splice_segment(
    skeleton: ParagraphSkeleton, segment: Segment, text: str, splicer: Splicer, block: str
) -> None:
    dialect, prefix = skeleton.dialect, skeleton.prefix
    if not segment.slots:
        if segment.gap_in_run:
            splicer.insert(
                segment.gap_at, dialect.text_node(text, prefix, segment.gap_run_open, block)
            )
        else:
            node = dialect.text_node(text, prefix, skeleton.base_open, block)
            splicer.insert(segment.gap_at, skeleton.base_open + node + dialect.run_close(prefix))
        return
    for slot, new_text in zip(segment.slots, _distribute([s.text for s in segment.slots], text)):
        if new_text != slot.text:
            _write_slot(skeleton, slot, new_text, splicer, block)


def _distribute(olds: list[str], new: str) -> list[str]:
    """Spread ``new`` over nodes that held ``olds``, changing as few nodes as possible."""
    old = "".join(olds)
    limit = min(len(old), len(new))
    prefix = 0
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    change_end = len(old) - suffix
    middle = new[prefix : len(new) - suffix]
    bounds: list[tuple[int, int]] = []
    cursor = 0
    for text in olds:
        bounds.append((cursor, cursor + len(text)))
        cursor += len(text)
    # The node the change starts in: the one holding old[prefix]; for a pure
    # insertion, the node that ends at (or runs past) the insertion point.
    first = 0
    for index, (start, end) in enumerate(bounds):
        if (start <= prefix < end) if change_end > prefix else (start < prefix <= end):
            first = index
            break
    result = list(olds)
    first_start, first_end = bounds[first]
    head = olds[first][: prefix - first_start]
    if change_end <= first_end:
        result[first] = head + middle + olds[first][change_end - first_start :]
        return result
    result[first] = head + middle
    for index in range(first + 1, len(olds)):
        node_start, node_end = bounds[index]
        if node_end <= change_end:
            result[index] = ""
        else:
            result[index] = olds[index][change_end - node_start :]
            break
    return result


def _write_slot(
    skeleton: ParagraphSkeleton, slot: Slot, text: str, splicer: Splicer, block: str
) -> None:
    dialect = skeleton.dialect
    content, first = dialect.escape(text, skeleton.prefix, slot.run_open, block)
    preserve = dialect.preserve_edges and not slot.preserve and _needs_preserve(first)
    if slot.self_closing:
        tag = splicer.data[slot.start : slot.end].rstrip(b"/>").rstrip()
        space = b' xml:space="preserve"' if preserve else b""
        splicer.replace(
            slot.start, slot.end, tag + space + b">" + content + b"</" + slot.raw_name + b">"
        )
        return
    if preserve:
        splicer.insert(slot.content_start - 1, b' xml:space="preserve"')
    splicer.replace(slot.content_start, slot.content_end, content)


def _check_balance(codes: list[Run], skeleton: ParagraphSkeleton, block: str) -> None:
    open_ids: list[str] = []
    known = _known_codes(skeleton)
    for run in codes:
        if isinstance(run, PcOpen):
            open_ids.append(run.id)
        elif isinstance(run, PcClose):
            info = known.get(("close", run.id))
            is_run_pair = info.kind == RUN_PAIR if info else run.sub_type.endswith(":run")
            if run.id not in open_ids:
                raise WriteRefused(
                    f"block {block}: code {run.id} closes without opening",
                    capability="codes",
                    block=block,
                )
            if not is_run_pair and open_ids[-1] != run.id:
                # Containers must nest; runs may be closed and reopened around them.
                pending = [
                    code_id
                    for code_id in open_ids[open_ids.index(run.id) + 1 :]
                    if not _is_run_pair_id(code_id, codes, known)
                ]
                if pending:
                    raise WriteRefused(
                        f"block {block}: code {run.id} closes across code {pending[-1]}",
                        capability="codes",
                        block=block,
                    )
            open_ids.remove(run.id)
    if open_ids:
        raise WriteRefused(
            f"block {block}: code {open_ids[-1]} is never closed", capability="codes", block=block
        )


def _is_run_pair_id(code_id: str, codes: list[Run], known: dict[tuple[str, str], CodeInfo]) -> bool:
    info = known.get(("open", code_id))
    if info is not None:
        return info.kind == RUN_PAIR
    for run in codes:
        if isinstance(run, PcOpen) and run.id == code_id:
            return run.sub_type.endswith(":run")
    return False


def _known_codes(skeleton: ParagraphSkeleton) -> dict[tuple[str, str], CodeInfo]:
    known: dict[tuple[str, str], CodeInfo] = {}
    code_runs = [run for run in skeleton.runs if not isinstance(run, Text)]
    for run, info in zip(code_runs, skeleton.codes):
        assert isinstance(run, Ph | PcOpen | PcClose)
        side = "open" if isinstance(run, PcOpen) else "close" if isinstance(run, PcClose) else "ph"
        known[(side, run.id)] = info
    return known


def _rebuild(
    skeleton: ParagraphSkeleton, runs: Runs, render_range: RangeRenderer, block: str
) -> bytes:
    dialect, prefix = skeleton.dialect, skeleton.prefix
    originals: dict[tuple[str, str], tuple[Run, CodeInfo]] = {}
    code_runs = [run for run in skeleton.runs if not isinstance(run, Text)]
    for code, info in zip(code_runs, skeleton.codes):
        assert isinstance(code, Ph | PcOpen | PcClose)
        side = (
            "open" if isinstance(code, PcOpen) else "close" if isinstance(code, PcClose) else "ph"
        )
        originals[(side, code.id)] = (code, info)

    def markup(run: Ph | PcOpen | PcClose) -> tuple[bytes, CodeInfo]:
        side = "open" if isinstance(run, PcOpen) else "close" if isinstance(run, PcClose) else "ph"
        found = originals.get((side, run.id))
        if found is not None and found[0] == run:
            info = found[1]
            return render_range(info.start, info.end), info
        if not run.data:
            return dialect.synthesize(run, prefix, block)
        raw = run.data.encode("utf-8")
        return raw, dialect.classify(run, raw)

    merged: list[Run] = []
    for item in runs:
        previous = merged[-1] if merged else None
        if isinstance(item, Text) and isinstance(previous, Text):
            merged[-1] = Text(previous.text + item.text)
        else:
            merged.append(item)
    out: list[bytes] = []
    run_stack: list[tuple[str, bytes]] = []
    emitting: list[bytes] = []  # the run start open in the output, if any

    def close_run() -> None:
        if emitting:
            out.append(dialect.run_close(prefix))
            emitting.clear()

    def ensure_run() -> bytes:
        desired = run_stack[-1][1] if run_stack else skeleton.base_open
        if not emitting or emitting[0] != desired:
            close_run()
            out.append(desired)
            emitting.append(desired)
        return desired

    for piece in merged:
        if isinstance(piece, Text):
            if piece.text:
                run_open = ensure_run()
                out.append(dialect.text_node(piece.text, prefix, run_open, block))
            continue
        assert isinstance(piece, Ph | PcOpen | PcClose)
        run = piece
        raw, info = markup(run)
        if info.kind == RUN_PAIR:
            if isinstance(run, PcOpen):
                run_stack.append((run.id, raw))
            else:
                run_stack[:] = [entry for entry in run_stack if entry[0] != run.id]
            continue
        if info.kind == STANDALONE and info.level == RUN_LEVEL:
            ensure_run()
            out.append(raw)
            continue
        close_run()
        out.append(raw)
    close_run()
    return b"".join(out)


class PartEdits:
    """Edits to the parts of one package, gathered block by block and rendered once."""

    def __init__(self, read_part: Callable[[str], bytes]) -> None:
        self._read_part = read_part
        self.splicers: dict[str, Splicer] = {}
        self.whole: dict[str, bytes] = {}  # parts written anew (an embedded package)

    def splicer(self, part: str, block: str) -> Splicer:
        found = self.splicers.get(part)
        if found is None:
            data = self._read_part(part)
            if xml_encoding(data) not in ("utf-8", "utf8"):
                raise WriteRefused(
                    f"block {block}: part {part} is not UTF-8; this writer edits UTF-8 parts only",
                    capability="encoding",
                    block=block,
                )
            found = self.splicers[part] = Splicer(data)
        return found

    def paragraph(self, part: str, skeleton: ParagraphSkeleton, runs: Runs, block: str) -> None:
        write_paragraph(skeleton, runs, self.splicer(part, block), block)

    def replace_part(self, part: str, content: bytes) -> None:
        """Give a part that is not edited text by text its new bytes."""
        self.whole[part] = content

    def rendered(self) -> dict[str, bytes]:
        out = {part: splicer.render() for part, splicer in self.splicers.items() if splicer}
        out.update(self.whole)
        return out
