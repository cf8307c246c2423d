"""Reading an XLIFF file of either version into blocks, and the skeleton that records where
each unit's source and target sit (or where a missing target would go) for the writer."""

from __future__ import annotations

from collections import defaultdict

from attrs import evolve, frozen

from kapi.core.edition import EditionKeyError, canonical_locale
from kapi.core.format import FormatError, Limits
from kapi.core.model import Block, Edition, Runs
from kapi.formats.skeleton import Span, TextSkeleton, line_column
from kapi.formats.xliff_inline import NS1, NS2, InlineReader, Raw, finish
from kapi.formats.xmlspans import XML_NS, Node, decode_gap

__all__ = ["Reader", "Slot", "Unit", "XliffSkeleton"]

_LANG = f"{{{XML_NS}}}lang"
# The size and length restriction module of XLIFF 2: a unit's limit, counted in code points
# when the file's profile says so.
_SLR = "urn:oasis:names:tc:xliff:sizerestriction:2.0"
_SIZE = f"{{{_SLR}}}sizeRestriction"
LIMIT = "max_chars"  # the block property of a unit's length limit in characters


# status as read from XLIFF 1.2 state values
_DONE_STATES1 = frozenset({"translated", "final", "signed-off"})

_RANK2 = {"initial": 0, "translated": 1, "reviewed": 2, "final": 3}


@frozen
class Slot:
    """Where one part of one edition sits: an element's content, or where one would go."""

    element: Node | None
    runs: Runs
    pieces: tuple[str, ...]
    insert_at: int = 0
    indent: str = ""
    qname: str = "target"
    inherited: bool = False  # an ignorable's target that stands for its source


@frozen
class _Part:
    kind: str  # "unit" (1.2), "segment" or "ignorable" (2.x)
    element: Node
    source: Slot
    target: Slot


@frozen
class Unit:
    block_id: str
    parts: tuple[_Part, ...]
    source: Runs
    target: Runs | None
    status: str
    segmented_source: bool = False


@frozen
class XliffSkeleton:
    text: TextSkeleton
    version: int
    units: tuple[Unit, ...]
    target_key: str
    target_lang: str  # the file's raw target language, for xml:lang on new targets
    newline: str
    lang_on_targets: bool
    state_used: bool

    def located(self) -> TextSkeleton:
        """The text with a span per source and target element, so a finding can name the line
        and column it is at (the writer splices by units and needs none)."""
        spans: list[Span] = []
        for unit in self.units:
            for part in unit.parts:
                for slot, edition in ((part.source, ""), (part.target, self.target_key)):
                    element = slot.element if slot is not None else None
                    if element is None or element.content_end <= element.content_start:
                        continue
                    spans.append(
                        Span(
                            unit.block_id,
                            element.content_start,
                            element.content_end,
                            slot.runs,
                            edition=edition,
                        )
                    )
        spans.sort(key=lambda span: span.start)
        return TextSkeleton(self.text.text, self.text.encoding, self.text.bom, tuple(spans))


class Reader:
    """Reads one XLIFF file (either version) into blocks and a skeleton."""

    def __init__(self, text: str, path: str, locale: str, version: int, limits: Limits) -> None:
        self.text = text
        self.path = path
        self.locale = locale
        self.version = version
        self.limits = limits
        self.namespaces = NS1 if version == 1 else NS2
        self.blocks: list[Block] = []
        self.units: list[Unit] = []
        self.source_lang = ""
        self.target_lang = ""
        self.lang_on_targets = False
        self.state_used = False
        self.file_keys: list[tuple[str, str]] = []  # (file key, unit id) per block
        self.target_lang_raw = ""
        self.unnamed_files: set[str] = set()
        self.codepoints = False  # the current 2.x file counts sizes in code points

    def error(self, message: str, node: Node | None, code: str = "invalid") -> FormatError:
        index = node.start if node is not None else 0
        line, column = line_column(self.text, index)
        return FormatError(
            message, path=self.path, line=line, column=column, offset=index, code=code
        )

    def child(self, node: Node, local: str) -> Node | None:
        for child in node.elements(local):
            if child.ns in self.namespaces:
                return child
        return None

    def canonical(self, tag: str, node: Node) -> str:
        try:
            return canonical_locale(tag.strip())
        except EditionKeyError as err:
            raise self.error(f"{tag!r} is not a language tag: {err}", node) from None

    def language(self, current: str, value: str, node: Node, what: str) -> str:
        if not value:
            return current
        canonical = self.canonical(value, node)
        if current and canonical != current:
            raise self.error(
                f"this file mixes {what}s {current!r} and {canonical!r}; "
                "kapi reads XLIFF files with one language pair (split the file)",
                node,
                code="unsupported",
            )
        return canonical

    # -- structure

    def read_root(self, root: Node) -> None:
        if root.local != "xliff" or root.ns not in (NS1 | NS2):
            raise self.error("not an XLIFF document (the root element is not <xliff>)", root)
        version = root.attrs.get("version", "")
        major = 2 if version.startswith("2") or root.ns.endswith((":2.0", ":2.1", ":2.2")) else 1
        if major != self.version:
            other = "xliff2" if major == 2 else "xliff"
            raise self.error(
                f"this is XLIFF {version or major}; read it with the {other!r} format",
                root,
                code="unsupported",
            )
        if self.version == 2:
            self.source_lang = self.language("", root.attrs.get("srcLang", ""), root, "source")
            self.target_lang_raw = root.attrs.get("trgLang", "")
            self.target_lang = self.language("", self.target_lang_raw, root, "target")
        for index, file_node in enumerate(root.elements("file")):
            if file_node.ns not in self.namespaces:
                continue
            if self.version == 1:
                self.source_lang = self.language(
                    self.source_lang,
                    file_node.attrs.get("source-language", ""),
                    file_node,
                    "source",
                )
                raw_target = file_node.attrs.get("target-language", "")
                self.target_lang = self.language(self.target_lang, raw_target, file_node, "target")
                self.target_lang_raw = self.target_lang_raw or raw_target
                key = file_node.attrs.get("original", "")
                if not key:
                    key = f"file{index + 1}"
                    self.unnamed_files.add(key)
                for body in file_node.elements("body"):
                    self.walk(body, key, translate=True)
            else:
                key = file_node.attrs.get("id", "")
                if not key:
                    key = f"file{index + 1}"
                    self.unnamed_files.add(key)
                self.codepoints = any(
                    child.ns == _SLR and child.attrs.get("generalProfile") == "xliff:codepoints"
                    for child in file_node.elements("profiles")
                )
                self.walk(file_node, key, translate=file_node.attrs.get("translate") != "no")

    def walk(self, node: Node, file_key: str, translate: bool) -> None:
        unit_name = "trans-unit" if self.version == 1 else "unit"
        for child in node.elements():
            if child.ns not in self.namespaces:
                continue
            flag = child.attrs.get("translate")
            inherited = translate if flag is None else flag != "no"
            if child.local == "group":
                self.walk(child, file_key, inherited)
            elif child.local == unit_name:
                if len(self.units) >= self.limits.max_entries:
                    raise self.error(
                        f"more than {self.limits.max_entries} units",
                        child,
                        code="budget_exceeded",
                    )
                self.file_keys.append((file_key, child.attrs.get("id", "")))
                if self.version == 1:
                    self.unit1(child, file_key, inherited)
                else:
                    self.unit2(child, file_key, inherited)

    def insertion(self, parent: Node, anchor: Node, source: Node) -> tuple[int, str]:
        """Where a new target goes (after ``anchor``) and the whitespace put before it."""
        siblings = parent.children
        position = siblings.index(anchor)
        if position + 1 < len(siblings):
            gap = self.text[anchor.end : siblings[position + 1].start]
            if not gap.strip():
                return anchor.end, gap
        position = siblings.index(source)
        before = siblings[position - 1].end if position else parent.content_start
        gap = self.text[before : source.start]
        return anchor.end, gap if not gap.strip() else ""

    def target_qname(self, source: Node) -> str:
        qname = source.qname(self.text)
        prefix = qname[: -len("source")] if qname.endswith("source") else ""
        return f"{prefix}target"

    def slot(self, element: Node, reader: InlineReader, **extra: object) -> Slot:
        runs, pieces = finish(reader.read(element))
        return Slot(element=element, runs=runs, pieces=pieces, **extra)  # type: ignore[arg-type]

    def notes(self, unit: Node) -> str:
        holder = unit if self.version == 1 else self.child(unit, "notes")
        if holder is None:
            return ""
        texts = [
            decode_gap(self.text[note.content_start : note.content_end])
            for note in holder.elements("note")
            if note.ns in self.namespaces and not note.children
        ]
        return "\n".join(texts)

    # -- XLIFF 1.2

    def unit1(self, unit: Node, file_key: str, translate: bool) -> None:
        source = self.child(unit, "source")
        if source is None:
            raise self.error("<trans-unit> without <source>", unit)
        seg_source = self.child(unit, "seg-source")
        target = self.child(unit, "target")
        reader = InlineReader(self.text, 1)
        source_slot = self.slot(source, reader)
        qname = self.target_qname(source)
        if target is not None:
            target_slot = self.slot(target, reader, qname=qname)
            self.lang_on_targets = self.lang_on_targets or _LANG in target.attrs
            self.state_used = self.state_used or "state" in target.attrs
        else:
            at, indent = self.insertion(unit, seg_source or source, source)
            target_slot = Slot(None, (), (), insert_at=at, indent=indent, qname=qname)
        properties: dict[str, str] = {}
        for name in ("resname", "restype", "approved"):
            if name in unit.attrs:
                properties[name] = unit.attrs[name]
        if unit.attrs.get("size-unit") == "char" and unit.attrs.get("maxwidth", "").isdigit():
            properties[LIMIT] = str(int(unit.attrs["maxwidth"]))
        if target is not None and "state" in target.attrs:
            properties["state"] = target.attrs["state"]
        if file_key not in self.unnamed_files:
            properties["file"] = file_key
        note = self.notes(unit)
        if note:
            properties["note"] = note
        status = _status1(target, unit)
        part = _Part("unit", unit, source_slot, target_slot)
        self.add(unit, (part,), translate, properties, status, seg_source is not None)

    # -- XLIFF 2.x

    def unit2(self, unit: Node, file_key: str, translate: bool) -> None:
        data_refs: dict[str, str] = {}
        original = self.child(unit, "originalData")
        if original is not None:
            for data in original.elements("data"):
                data_refs[data.attrs.get("id", "")] = decode_gap(
                    self.text[data.content_start : data.content_end]
                )
        reader = InlineReader(self.text, 2, data_refs)
        found: list[tuple[Node, Node, Node | None, list[Raw], list[Raw] | None]] = []
        for element in unit.elements():
            if element.ns not in self.namespaces or element.local not in ("segment", "ignorable"):
                continue
            source = self.child(element, "source")
            if source is None:
                raise self.error(f"<{element.local}> without <source>", element)
            target = self.child(element, "target")
            source_raws = reader.read(source)
            if target is not None:
                target_raws: list[Raw] | None = reader.read(target)
                self.lang_on_targets = self.lang_on_targets or _LANG in target.attrs
            elif element.local == "ignorable":
                target_raws = reader.read(source)  # an ignorable's target is its source
            else:
                target_raws = None
            if element.local == "segment":
                self.state_used = self.state_used or "state" in element.attrs
            found.append((element, source, target, source_raws, target_raws))
        all_source = [raw for item in found for raw in item[3]]
        all_target = [raw for item in found for raw in (item[4] or ())]
        source_runs, source_pieces = finish(all_source)
        target_runs, target_pieces = finish(all_target)
        parts: list[_Part] = []
        at_source = at_target = 0
        for element, source, target, source_raws, target_raws in found:
            size = len(source_raws)
            source_slot = Slot(
                source,
                source_runs[at_source : at_source + size],
                source_pieces[at_source : at_source + size],
            )
            at_source += size
            size = len(target_raws or ())
            runs = target_runs[at_target : at_target + size]
            pieces = target_pieces[at_target : at_target + size]
            at_target += size
            qname = self.target_qname(source)
            if target is not None:
                target_slot = Slot(target, runs, pieces, qname=qname)
            else:
                at, indent = self.insertion(element, source, source)
                target_slot = Slot(
                    None,
                    runs,
                    pieces,
                    insert_at=at,
                    indent=indent,
                    qname=qname,
                    inherited=element.local == "ignorable",
                )
            parts.append(_Part(element.local, element, source_slot, target_slot))
        properties: dict[str, str] = {}
        if "name" in unit.attrs:
            properties["name"] = unit.attrs["name"]
        if self.codepoints and unit.attrs.get(_SIZE, "").isdigit():
            properties[LIMIT] = str(int(unit.attrs[_SIZE]))
        if file_key not in self.unnamed_files:
            properties["file"] = file_key
        note = self.notes(unit)
        if note:
            properties["note"] = note
        states = [
            part.element.attrs["state"]
            for part in parts
            if part.kind == "segment" and "state" in part.element.attrs
        ]
        if states:
            properties["state"] = " ".join(states)
        status = ""
        if states:
            least = min(states, key=lambda state: _RANK2.get(state, 0))
            status = "draft" if _RANK2.get(least, 0) == 0 else "translated"
        self.add(
            unit,
            tuple(parts),
            translate,
            properties,
            status,
            False,
            source=source_runs,
            target=target_runs,
        )

    # -- both

    def add(
        self,
        unit: Node,
        parts: tuple[_Part, ...],
        translate: bool,
        properties: dict[str, str],
        status: str,
        segmented: bool,
        *,
        source: Runs | None = None,
        target: Runs | None = None,
    ) -> None:
        block_id = f"tu{len(self.units) + 1}"
        if source is None:
            source = parts[0].source.runs
        has_target = any(
            part.target.element is not None and part.target.runs and part.kind != "ignorable"
            for part in parts
        )
        if not has_target:
            target = None
        elif target is None:
            target = parts[0].target.runs
        targets: dict[str, Edition] = {}
        if target is not None and self.target_lang:
            targets[self.target_lang] = Edition(runs=target, status=status)
        else:
            target = None
            status = ""
        locale = self.source_lang or self.locale
        self.blocks.append(
            Block(
                id=block_id,
                source=source,
                name=unit.attrs.get("id", ""),
                translatable=translate,
                locale=locale,
                targets=targets,
                properties=properties,
            )
        )
        self.units.append(Unit(block_id, parts, source, target, status, segmented))

    def finish_names(self) -> list[Block]:
        files_of: dict[str, set[str]] = defaultdict(set)
        for file_key, unit_id in self.file_keys:
            files_of[unit_id].add(file_key)
        out: list[Block] = []
        for block, (file_key, unit_id) in zip(self.blocks, self.file_keys):
            if unit_id and len(files_of[unit_id]) > 1:
                block = evolve(block, name=f"{file_key}\u0004{unit_id}")
            out.append(block)
        return out


def _status1(target: Node | None, unit: Node) -> str:
    if target is None:
        return ""
    state = target.attrs.get("state", "")
    if state in _DONE_STATES1:
        return "translated"
    if state == "new" or state.startswith("needs-"):
        return "draft"
    if not state and unit.attrs.get("approved") == "yes":
        return "translated"
    return ""
