"""Edited units written back into the XLIFF text: changed parts re-rendered, new codes and
targets synthesised, removed targets cut out, ``state`` rewritten; everything else spliced
back as read."""

from __future__ import annotations

import re
from collections.abc import Sequence

from kapi.core.format import WriteRefused
from kapi.core.model import Block, PcClose, PcOpen, Ph, Run, Runs, Text
from kapi.formats.xliff_read import Slot, Unit, XliffSkeleton
from kapi.formats.xmlspans import (
    Edit,
    Node,
    escape_attribute,
    escape_text,
    render_text,
    rewrite_element,
    start_tag_with,
)

__all__ = ["unit_edits"]

_BARE_START = re.compile(r"^<([^\s/>!?]+)(?:\s[^<>]*)?(?<!/)>$")
_BARE_END = re.compile(r"^</([^\s>]+)\s*>$")
_ID_ATTR = re.compile(r"""\bid\s*=\s*["']([^"']*)["']""")
_XML_SPACE = " \t\r\n"

_STATE1_FOR = {
    "translated": "translated",
    "draft": "needs-review-translation",
    "reviewed": "signed-off",
    "final": "final",
}

_STATE2_FOR = {
    "translated": "translated",
    "draft": "initial",
    "reviewed": "reviewed",
    "final": "final",
    "signed-off": "final",
}


class _Renderer:
    """Renders runs of one unit into XLIFF markup, synthesising new codes where it can."""

    def __init__(self, skeleton: XliffSkeleton, unit: Unit, block: Block) -> None:
        self.skeleton = skeleton
        self.block = block
        self.known: dict[str, str] = {}
        used: set[str] = set()
        for part in unit.parts:
            for slot in (part.source, part.target):
                for run, piece in zip(slot.runs, slot.pieces):
                    if isinstance(run, Text):
                        self.known.setdefault(run.text, piece)
                    else:
                        used.update(_ID_ATTR.findall(piece))
        numbers = [int(value) for value in used if value.isdigit()]
        self.next_id = max(numbers, default=0) + 1
        self.synthesised: dict[str, str] = {}  # code id -> closing markup

    def escape(self, value: str) -> str:
        text = self.skeleton.text
        return escape_text(
            value, encoding=text.encoding, newline=self.skeleton.newline, block=self.block.id
        )

    def render(self, runs: Runs, slot: Slot, prefix: str) -> str:
        out: list[str] = []
        open_tags: list[str] = []
        for index, run in enumerate(runs):
            if isinstance(run, Text):
                old = slot.runs[index] if index < len(slot.runs) else None
                if isinstance(old, Text):
                    out.append(render_text(run.text, slot.pieces[index], self.escape))
                elif run.text in self.known:
                    out.append(self.known[run.text])
                else:
                    out.append(self.escape(run.text))
                continue
            if isinstance(run, PcOpen):
                data = run.data or self.synthesise(run, prefix)
                found = _BARE_START.match(data)
                if found:
                    open_tags.append(found.group(1))
                out.append(data)
            elif isinstance(run, PcClose):
                data = run.data or self.synthesised.get(run.id, "")
                if not data:
                    data = self.close_for(run, runs[:index])
                found = _BARE_END.match(data)
                if found:
                    if not open_tags or open_tags[-1] != found.group(1):
                        raise WriteRefused(
                            f"block {self.block.id}: the paired codes cross each other "
                            "(or cross a segment boundary); XML elements must nest",
                            capability="code-order",
                            block=self.block.id,
                        )
                    open_tags.pop()
                out.append(data)
            elif isinstance(run, Ph):
                out.append(run.data or self.synthesise(run, prefix))
            else:
                raise WriteRefused(
                    f"block {self.block.id}: XLIFF cannot hold a {type(run).__name__} run",
                    capability=f"run:{type(run).__name__.lower()}",
                    block=self.block.id,
                )
        if open_tags:
            raise WriteRefused(
                f"block {self.block.id}: <{open_tags[-1]}> is opened and not closed "
                "(or its close is in another segment)",
                capability="code-order",
                block=self.block.id,
            )
        return "".join(out)

    def synthesise(self, run: Ph | PcOpen, prefix: str) -> str:
        number = str(self.next_id)
        if self.skeleton.version == 1:
            ctype = {"fmt:bold": "bold", "fmt:italic": "italic", "fmt:underline": "underlined"}
            if isinstance(run, PcOpen) and run.type in ctype:
                self.next_id += 1
                self.synthesised[run.id] = f"</{prefix}g>"
                return f'<{prefix}g id="{number}" ctype="{ctype[run.type]}">'
            if isinstance(run, Ph) and run.type == "fmt:linebreak":
                self.next_id += 1
                return f'<{prefix}x id="{number}" ctype="lb"/>'
        else:
            sub = {"fmt:bold": "xlf:b", "fmt:italic": "xlf:i", "fmt:underline": "xlf:u"}
            if isinstance(run, PcOpen) and run.type in sub:
                self.next_id += 1
                self.synthesised[run.id] = f"</{prefix}pc>"
                return f'<{prefix}pc id="{number}" type="fmt" subType="{sub[run.type]}">'
            if isinstance(run, Ph) and run.type == "fmt:linebreak":
                self.next_id += 1
                return f'<{prefix}ph id="{number}" type="fmt" subType="xlf:lb"/>'
        raise WriteRefused(
            f"block {self.block.id}: cannot make XLIFF markup for a new {run.type or 'untyped'} code",
            capability=f"synthesize:{run.type}",
            block=self.block.id,
        )

    def close_for(self, run: PcClose, before: Runs) -> str:
        for earlier in reversed(before):
            if isinstance(earlier, PcOpen) and earlier.id == run.id and earlier.data:
                found = _BARE_START.match(earlier.data)
                if found:
                    return f"</{found.group(1)}>"
        raise WriteRefused(
            f"block {self.block.id}: cannot make XLIFF markup for the new closing code {run.id}",
            capability=f"synthesize:{run.type}",
            block=self.block.id,
        )


def _prefix(qname: str) -> str:
    return qname[: qname.index(":") + 1] if ":" in qname else ""


def _same_shape(new: Runs, old: Runs) -> bool:
    if len(new) != len(old):
        return False
    return all(type(a) is type(b) for a, b in zip(new, old))


def _atoms(runs: Runs) -> list[object]:
    out: list[object] = []
    for run in runs:
        if isinstance(run, Text):
            out.extend((char, run.no_translate) for char in run.text)
        else:
            out.append(run)
    return out


def _from_atoms(atoms: Sequence[object]) -> Runs:
    runs: list[Run] = []
    chars: list[str] = []
    flag: bool | None = None
    for atom in atoms:
        if isinstance(atom, tuple):
            char, no_translate = atom
            if flag is not None and no_translate != flag:
                runs.append(Text("".join(chars), no_translate=flag))
                chars = []
            chars.append(char)
            flag = no_translate
        else:
            if chars:
                runs.append(Text("".join(chars), no_translate=bool(flag)))
                chars, flag = [], None
            runs.append(atom)  # type: ignore[arg-type]
    if chars:
        runs.append(Text("".join(chars), no_translate=bool(flag)))
    return tuple(runs)


def _split(
    new: Runs,
    old_parts: Sequence[Runs],
    layouts: Sequence[Sequence[Runs]],
    kinds: Sequence[str],
    *,
    diff: bool = True,
) -> list[Runs] | None:
    """New runs divided among the parts (segments, ignorables), or None when it is unclear."""
    if len(old_parts) == 1:
        return [new]
    for layout in layouts:
        flat = tuple(run for runs in layout for run in runs)
        if _same_shape(new, flat):
            out: list[Runs] = []
            cursor = 0
            for runs in layout:
                out.append(new[cursor : cursor + len(runs)])
                cursor += len(runs)
            return out
    if not diff:
        return None
    old_atoms = [_atoms(runs) for runs in old_parts]
    flat_old = [atom for atoms in old_atoms for atom in atoms]
    flat_new = _atoms(new)
    head = 0
    limit = min(len(flat_old), len(flat_new))
    while head < limit and flat_old[head] == flat_new[head]:
        head += 1
    tail = 0
    while tail < limit - head and flat_old[-1 - tail] == flat_new[-1 - tail]:
        tail += 1
    changed_end = len(flat_old) - tail
    candidates: list[int] = []
    start = 0
    for index, atoms in enumerate(old_atoms):
        end = start + len(atoms)
        if start <= head and changed_end <= end:
            candidates.append(index)
        start = end
    if not candidates:
        return None
    segments = [index for index in candidates if kinds[index] != "ignorable"]
    chosen = (segments or candidates)[0]
    start = sum(len(atoms) for atoms in old_atoms[:chosen])
    atoms = old_atoms[chosen]
    middle = flat_new[head : len(flat_new) - tail]
    replaced = atoms[: head - start] + middle + atoms[changed_end - start :]
    out = list(old_parts)
    out[chosen] = _from_atoms(replaced)
    return out


def _state_for(status: str, version: int) -> str:
    return (_STATE1_FOR if version == 1 else _STATE2_FOR).get(status, "")


def unit_edits(skeleton: XliffSkeleton, unit: Unit, block: Block) -> list[Edit]:
    text = skeleton.text.text
    edits: list[Edit] = []
    renderer: _Renderer | None = None
    kinds = [part.kind for part in unit.parts]

    def refuse(edition: str) -> WriteRefused:
        return WriteRefused(
            f"block {block.id} ({block.name}): unit has {len(unit.parts)} segments and the "
            f"{edition} edit spans several; keep the text of each segment in its own runs "
            "or edit one segment at a time",
            capability="edition",
            block=block.id,
        )

    if block.source != unit.source:
        if unit.segmented_source:
            raise WriteRefused(
                f"block {block.id} ({block.name}): the source of a segmented unit "
                "(<seg-source>) cannot be edited here",
                capability="edition",
                block=block.id,
            )
        old = [part.source.runs for part in unit.parts]
        split = _split(block.source, old, [old], kinds)
        if split is None:
            raise refuse("source")
        renderer = _Renderer(skeleton, unit, block)
        for part, runs in zip(unit.parts, split):
            slot = part.source
            if runs != slot.runs and slot.element is not None:
                content = renderer.render(runs, slot, _prefix(slot.element.qname(text)))
                edits.extend(rewrite_element(text, slot.element, content=content))

    for key in block.targets:
        if key != skeleton.target_key:
            held = skeleton.target_key or "no target language"
            raise WriteRefused(
                f"block {block.id} ({block.name}): this XLIFF file holds {held!r}; "
                f"it has no place for the {key!r} edition",
                capability="edition",
                block=block.id,
            )
    if not skeleton.target_key:
        return edits
    edition = block.targets.get(skeleton.target_key)
    if edition is None:
        if unit.target is not None:  # the target edition was removed
            edits.extend(_removal_edits(skeleton, unit, block))
        return edits
    old_target = unit.target or ()
    runs_changed = edition.runs != old_target
    new_state = ""
    if edition.status != unit.status and (unit.target is not None or edition.runs):
        new_state = _state_for(edition.status, skeleton.version)
    if not runs_changed and not new_state:
        return edits
    renderer = renderer or _Renderer(skeleton, unit, block)
    old_parts = [part.target.runs for part in unit.parts]
    if runs_changed:
        layouts: list[list[Runs]] = []
        if unit.target is not None:
            layouts.append(old_parts)
        layouts.append([part.source.runs for part in unit.parts])
        split = _split(edition.runs, old_parts, layouts, kinds, diff=unit.target is not None)
        if split is None:
            raise refuse("target")
        per_part = split
    else:
        per_part = old_parts
    for part, runs in zip(unit.parts, per_part):
        slot = part.target
        will_hold = bool(runs) if slot.element is None else True
        attributes: dict[str, str] = {}
        state_node = slot.element if skeleton.version == 1 else part.element
        if (
            new_state
            and part.kind != "ignorable"
            and will_hold
            and (skeleton.state_used or (state_node is not None and "state" in state_node.attrs))
        ):
            attributes["state"] = new_state
        changed = runs != slot.runs
        if skeleton.version == 2 and attributes:
            edits.extend(rewrite_element(text, part.element, attributes=attributes))
            attributes = {}
        if slot.element is not None:
            new_content = renderer.render(runs, slot, _prefix(slot.qname)) if changed else None
            if new_content is not None or attributes:
                edits.extend(
                    rewrite_element(text, slot.element, content=new_content, attributes=attributes)
                )
        elif changed and runs:
            content = renderer.render(runs, slot, _prefix(slot.qname))
            edits.append(
                (
                    slot.insert_at,
                    slot.insert_at,
                    slot.indent + _new_target(skeleton, slot, attributes, content),
                )
            )
    return edits


def _new_target(
    skeleton: XliffSkeleton, slot: Slot, attributes: dict[str, str], content: str
) -> str:
    pairs: list[tuple[str, str]] = []
    if skeleton.lang_on_targets and skeleton.target_lang:
        pairs.append(("xml:lang", skeleton.target_lang))
    pairs.extend(attributes.items())
    attrs = "".join(f' {name}="{escape_attribute(value)}"' for name, value in pairs)
    return f"<{slot.qname}{attrs}>{content}</{slot.qname}>"


def _removal_edits(skeleton: XliffSkeleton, unit: Unit, block: Block) -> list[Edit]:
    """Edits that take every ``<target>`` out of the unit, as if none had been added.

    Each target goes with the whitespace before it (the indentation a new target is
    inserted with), or alone when it is followed directly by a sibling. XLIFF 1.2:
    ``approved`` on the ``<trans-unit>`` goes too (it approves the removed target).
    XLIFF 2.x: a segment's ``state`` becomes ``initial`` and its ``subState`` goes.
    Refused when a target sits next to text or its parent holds two targets.
    """
    text = skeleton.text.text
    edits: list[Edit] = []
    for part in unit.parts:
        target = part.target.element
        if target is None:
            continue
        edits.append(_cut(text, part.element, target, block))
        if skeleton.version == 2 and part.kind == "segment":
            state = part.element.attrs.get("state")
            if (state is not None and state != "initial") or "subState" in part.element.attrs:
                changes = {"state": "initial"} if state is not None else {}
                tag = start_tag_with(text, part.element, changes)
                tag = _without_attribute(tag, "subState")
                edits.append((part.element.start, part.element.content_start, tag))
    if skeleton.version == 1:
        unit_node = unit.parts[0].element
        if "approved" in unit_node.attrs:
            tag = text[unit_node.start : unit_node.content_start]
            edits.append(
                (unit_node.start, unit_node.content_start, _without_attribute(tag, "approved"))
            )
    return edits


def _cut(text: str, parent: Node, target: Node, block: Block) -> Edit:
    siblings = parent.children
    position = next(index for index, node in enumerate(siblings) if node is target)
    twins = [node for node in parent.elements(target.local) if node.ns == target.ns]
    if len(twins) > 1:
        raise WriteRefused(
            f"block {block.id} ({block.name}): <{parent.local}> holds {len(twins)} "
            f"<{target.local}> elements; kapi cannot tell which to remove",
            capability="remove_edition",
            block=block.id,
        )
    before_start = siblings[position - 1].end if position else parent.content_start
    has_next = position + 1 < len(siblings)
    after_end = siblings[position + 1].start if has_next else parent.content_end
    before = text[before_start : target.start]
    after = text[target.end : after_end]
    if before.strip(_XML_SPACE) or after.strip(_XML_SPACE):
        raise WriteRefused(
            f"block {block.id} ({block.name}): the <{target.local}> to remove sits next to "
            f"text in <{parent.local}>; kapi removes a target only when whitespace alone "
            "separates it from its siblings",
            capability="remove_edition",
            block=block.id,
        )
    if has_next and not after:
        return (target.start, target.end, "")  # keep the line break the next sibling uses
    return (before_start, target.end, "")


def _without_attribute(tag: str, name: str) -> str:
    """A start tag as written, without the attribute ``name`` (and its leading space)."""
    pattern = re.compile(rf"""\s+{re.escape(name)}\s*=\s*(["']).*?\1""", re.S)
    return pattern.sub("", tag, count=1)
