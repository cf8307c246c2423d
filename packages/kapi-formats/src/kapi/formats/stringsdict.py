"""Apple ``.stringsdict``: plural rules in an XML property list, read into Plural runs.

Each top-level key whose dict holds ``NSStringLocalizedFormatKey`` is one block
(``name`` = the key, ``id`` = ``e1``, ``e2``… in file order). Its source is the
format string: text, printf specifiers (``%d``, ``%@``, ``%1$lld``…) as
placeholders (``code:placeholder``, ``sub_type`` ``printf:<length><conversion>``,
``data`` = the specifier), ``%%`` as ``entity:char``, and each ``%#@var@`` as a
``Plural`` run (``pivot`` = ``var``) whose forms are the variable's CLDR keys
(zero, one, two, few, many, other, in that order) read the same way, when the
variable's dict says ``NSStringFormatSpecTypeKey`` = ``NSStringPluralRuleType``.
A variable is expanded at its first reference; a repeated reference, or one to
a variable of another rule type, stays a placeholder. Entries of other shapes
(variable-width or device-specific rules) give no block and are kept as they
are. The file is monolingual: its language is the ``locale`` argument ("en"
when empty).

Writing splices only the ``<string>`` values whose text changed (unchanged
text at the start and end of an edited value keeps its raw form); the plist
layout, DOCTYPE and comments stay byte for byte. A form the file lacks is
inserted as a ``<key>``/``<string>`` pair after the preceding form (CLDR order)
with the whitespace the file uses; a form an edit drops is removed (``other``
never is: that is refused). A Plural whose pivot has no plural variable in the
entry, a Select or a Sub run, or a form name outside the CLDR six is refused
(``WriteRefused``). A new placeholder with empty ``data`` is written from its
``equiv`` when that is a printf specifier. ``%`` in new text is written as is.

Limits: those of :mod:`kapi.formats.xmlspans`, and at most
``Limits.max_entries`` entries (``budget_exceeded``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from attrs import frozen

from kapi.core.edition import EditionKeyError, canonical_locale
from kapi.core.format import DEFAULT_LIMITS, FormatError, Limits, WriteRefused
from kapi.core.model import Block, Document, PcClose, PcOpen, Ph, Plural, Run, Runs, Text
from kapi.formats.skeleton import TextSkeleton, line_column
from kapi.formats.xmlspans import (
    Edit,
    Node,
    decode_gap,
    decode_xml,
    escape_text,
    newline_of,
    parse_xml,
    render_text,
    rewrite_element,
)

__all__ = ["StringsdictFormat"]

FORMS = ("zero", "one", "two", "few", "many", "other")
_FORMAT_KEY = "NSStringLocalizedFormatKey"
_SPEC_KEY = "NSStringFormatSpecTypeKey"
_PLURAL_RULE = "NSStringPluralRuleType"
_TOKEN = re.compile(
    r"(?P<var>%(?:\d+\$)?#@(?P<name>[^@\s]+)@)"
    r"|%(?:\d+\$)?[-+ #0']*(?:\d+|\*)?(?:\.(?:\d+|\*))?"
    r"(?P<length>hh|h|ll|l|q|L|z|t|j)?(?P<conversion>[@dDuUxXoOfFeEgGcCsSpaAi%])"
)
_SPECIFIER = re.compile(_TOKEN.pattern)


@frozen
class _Value:
    """A ``<string>`` a block's text comes from: where it is and what it said."""

    element: Node
    text: str
    raw: str


@frozen
class _Variable:
    """A plural variable's dict: its forms and every key/value pair (for placing new forms)."""

    forms: Mapping[str, tuple[Node, _Value]]
    pairs: tuple[tuple[Node, Node], ...]
    dict_node: Node


@frozen
class _Entry:
    block_id: str
    format: _Value
    variables: Mapping[str, _Variable]
    tokens: Mapping[str, str]  # pivot -> the reference as the file writes it
    source: Runs


@frozen
class _StringsdictSkeleton:
    text: TextSkeleton
    entries: tuple[_Entry, ...]
    newline: str


class _Reader:
    def __init__(self, text: str, path: str, limits: Limits) -> None:
        self.text = text
        self.path = path
        self.limits = limits

    def error(self, message: str, node: Node | None, code: str = "invalid") -> FormatError:
        index = node.start if node is not None else 0
        line, column = line_column(self.text, index)
        return FormatError(
            message, path=self.path, line=line, column=column, offset=index, code=code
        )

    def pairs(self, node: Node) -> list[tuple[Node, Node]]:
        out: list[tuple[Node, Node]] = []
        key: Node | None = None
        for child in node.elements():
            if key is None:
                if child.local != "key":
                    raise self.error(f"<{child.local}> in a <dict> where a <key> belongs", child)
                key = child
            else:
                if child.local == "key":
                    raise self.error("a <key> without a value", key)
                out.append((key, child))
                key = None
        if key is not None:
            raise self.error("a <key> without a value", key)
        return out

    def string(self, node: Node) -> str:
        if node.children and any(child.kind == "element" for child in node.children):
            raise self.error(f"<{node.local}> holds elements; a plist value holds text", node)
        return decode_gap(self.text[node.content_start : node.content_end])

    def value(self, node: Node) -> _Value:
        raw = self.text[node.content_start : node.content_end]
        return _Value(node, self.string(node), raw)

    def read(self, root: Node) -> tuple[list[Block], list[_Entry]]:
        if root.local != "plist":
            raise self.error("not a property list (the root element is not <plist>)", root)
        top = root.first("dict")
        if top is None:
            raise self.error("the property list holds no <dict>", root)
        blocks: list[Block] = []
        entries: list[_Entry] = []
        for key, value in self.pairs(top):
            if value.local != "dict":
                continue
            inner = self.pairs(value)
            format_node = next(
                (v for k, v in inner if self.string(k) == _FORMAT_KEY and v.local == "string"),
                None,
            )
            if format_node is None:
                continue
            if len(entries) >= self.limits.max_entries:
                raise self.error(
                    f"more than {self.limits.max_entries} entries", key, code="budget_exceeded"
                )
            variables: dict[str, _Variable] = {}
            for var_key, var_value in inner:
                if var_value.local != "dict":
                    continue
                var_pairs = self.pairs(var_value)
                spec = next(
                    (self.string(v) for k, v in var_pairs if self.string(k) == _SPEC_KEY), ""
                )
                if spec != _PLURAL_RULE:
                    continue
                forms = {
                    self.string(k): (k, self.value(v))
                    for k, v in var_pairs
                    if self.string(k) in FORMS and v.local == "string"
                }
                variables[self.string(var_key)] = _Variable(forms, tuple(var_pairs), var_value)
            format_value = self.value(format_node)
            tokens: dict[str, str] = {}
            source = _runs(format_value.text, variables, set(), tokens)
            block_id = f"e{len(entries) + 1}"
            entries.append(_Entry(block_id, format_value, variables, tokens, source))
            blocks.append(Block(id=block_id, source=source, name=self.string(key)))
        return blocks, entries


def _runs(
    text: str, variables: Mapping[str, _Variable], expanded: set[str], tokens: dict[str, str]
) -> Runs:
    out: list[Run] = []
    number = 0
    cursor = 0
    for match in _TOKEN.finditer(text):
        if match.start() > cursor:
            out.append(Text(text[cursor : match.start()]))
        cursor = match.end()
        token = match.group()
        name = match.group("name")
        if name is not None and name in variables and name not in expanded:
            expanded.add(name)
            tokens[name] = token
            forms = variables[name].forms
            out.append(
                Plural(
                    pivot=name,
                    forms={
                        form: _runs(forms[form][1].text, variables, expanded, tokens)
                        for form in FORMS
                        if form in forms
                    },
                )
            )
            continue
        number += 1
        if name is not None:
            out.append(
                Ph(
                    str(number),
                    type="code:placeholder",
                    sub_type="printf:#@",
                    data=token,
                    equiv=token,
                )
            )
        elif token == "%%":
            out.append(
                Ph(str(number), type="entity:char", sub_type="printf:%", data=token, equiv="%")
            )
        else:
            conversion = (match.group("length") or "") + match.group("conversion")
            out.append(
                Ph(
                    str(number),
                    type="code:placeholder",
                    sub_type=f"printf:{conversion}",
                    data=token,
                    equiv=token,
                )
            )
    if cursor < len(text):
        out.append(Text(text[cursor:]))
    return tuple(out)


class _Writer:
    """The edits one entry needs so its strings say what the block's runs say."""

    def __init__(self, skeleton: _StringsdictSkeleton, entry: _Entry, block: Block) -> None:
        self.skeleton = skeleton
        self.text = skeleton.text.text
        self.entry = entry
        self.block = block

    def refuse(self, message: str, capability: str) -> WriteRefused:
        return WriteRefused(
            f"block {self.block.id} ({self.block.name}): {message}",
            capability=capability,
            block=self.block.id,
        )

    def escape(self, value: str) -> str:
        return escape_text(
            value,
            encoding=self.skeleton.text.encoding,
            newline=self.skeleton.newline,
            block=self.block.id,
        )

    def native(self, runs: Runs, plurals: dict[str, dict[str, str]]) -> str:
        out: list[str] = []
        for run in runs:
            if isinstance(run, Text):
                out.append(run.text)
            elif isinstance(run, Ph | PcOpen | PcClose):
                data = run.data
                if not data and _SPECIFIER.fullmatch(run.equiv or ""):
                    data = run.equiv
                if not data:
                    raise self.refuse(
                        f"a stringsdict cannot hold a new {run.type or 'untyped'} code",
                        f"synthesize:{run.type}",
                    )
                out.append(data)
            elif isinstance(run, Plural):
                pivot = run.pivot
                if pivot in plurals:
                    raise self.refuse(f"the plural {pivot!r} appears twice", "plural")
                if pivot not in self.entry.variables:
                    raise self.refuse(
                        f"the entry has no plural variable {pivot!r} to hold this plural",
                        "plural",
                    )
                forms: dict[str, str] = {}
                plurals[pivot] = forms
                for form, form_runs in run.forms.items():
                    if form not in FORMS:
                        raise self.refuse(
                            f"a stringsdict plural has no form {form!r} (only {', '.join(FORMS)})",
                            "plural",
                        )
                    forms[form] = self.native(form_runs, plurals)
                out.append(self.entry.tokens.get(pivot, f"%#@{pivot}@"))
            else:
                raise self.refuse(
                    f"a stringsdict cannot hold a {type(run).__name__} run",
                    f"run:{type(run).__name__.lower()}",
                )
        return "".join(out)

    def replace(self, value: _Value, new: str) -> list[Edit]:
        content = render_text(new, value.raw, self.escape)
        return rewrite_element(self.text, value.element, content=content)

    def edits(self) -> list[Edit]:
        plurals: dict[str, dict[str, str]] = {}
        top = self.native(self.block.source, plurals)
        edits: list[Edit] = []
        if top != self.entry.format.text:
            edits.extend(self.replace(self.entry.format, top))
        for pivot, forms in plurals.items():
            variable = self.entry.variables[pivot]
            for form in FORMS:
                if form in forms and form in variable.forms:
                    value = variable.forms[form][1]
                    if forms[form] != value.text:
                        edits.extend(self.replace(value, forms[form]))
                elif form in forms:
                    edits.append(self.insert(variable, form, forms[form]))
                elif form in variable.forms:
                    if form == "other":
                        raise self.refuse(
                            f"the plural {pivot!r} must keep its 'other' form", "plural"
                        )
                    edits.append(self.remove(variable, form))
        return edits

    def gap_before(self, node: Node) -> tuple[int, str]:
        parent = node.parent
        assert parent is not None
        siblings = parent.children
        position = siblings.index(node)
        start = siblings[position - 1].end if position else parent.content_start
        gap = self.text[start : node.start]
        return (start, gap) if not gap.strip() else (node.start, "")

    def insert(self, variable: _Variable, form: str, value: str) -> Edit:
        existing = [name for name in FORMS if name in variable.forms]
        before = [name for name in existing if FORMS.index(name) < FORMS.index(form)]
        after = [name for name in existing if FORMS.index(name) > FORMS.index(form)]
        if before or after or variable.pairs:
            if before:
                key, string = variable.forms[before[-1]][0], variable.forms[before[-1]][1].element
            elif after:
                key, string = variable.forms[after[0]][0], variable.forms[after[0]][1].element
            else:
                key, string = variable.pairs[-1]
            _, lead = self.gap_before(key)
            between = self.text[key.end : string.start]
            between = between if not between.strip() else ""
            key_name = key.qname(self.text)
            string_name = string.qname(self.text) if string.local == "string" else "string"
        else:
            lead, between, key_name, string_name = "", "", "key", "string"
        pair = (
            f"<{key_name}>{self.escape(form)}</{key_name}>{between}"
            f"<{string_name}>{self.escape(value)}</{string_name}>"
        )
        if not before and after:
            return (key.start, key.start, pair + lead)
        if not before and not variable.pairs:
            node = variable.dict_node
            if node.empty:
                raise self.refuse("the plural variable's dict is empty", "plural")
            return (node.content_end, node.content_end, pair)
        return (string.end, string.end, lead + pair)

    def remove(self, variable: _Variable, form: str) -> Edit:
        key, value = variable.forms[form]
        start, _ = self.gap_before(key)
        return (start, value.element.end, "")


class StringsdictFormat:
    """Apple ``.stringsdict`` plural entries as Plural runs, spliced back into the plist."""

    name = "stringsdict"

    def __init__(self, limits: Limits = DEFAULT_LIMITS) -> None:
        self.limits = limits

    def read(self, data: bytes, *, path: str = "", locale: str = "") -> Document:
        text, encoding, bom = decode_xml(data, path=path, limits=self.limits)
        root = parse_xml(text, path=path, limits=self.limits)
        blocks, entries = _Reader(text, path, self.limits).read(root)
        own = "en"
        if locale:
            try:
                own = canonical_locale(locale)
            except EditionKeyError:
                own = locale
        skeleton = _StringsdictSkeleton(
            text=TextSkeleton(text=text, encoding=encoding, bom=bom),
            entries=tuple(entries),
            newline=newline_of(text),
        )
        return Document(
            format="stringsdict",
            blocks=tuple(_with_locale(block, own) for block in blocks),
            locale=own,
            skeleton=skeleton,
        )

    def write(self, document: Document) -> bytes:
        skeleton = document.skeleton
        if not isinstance(skeleton, _StringsdictSkeleton):
            raise WriteRefused(
                "this document was not read from a .stringsdict file; "
                "kapi writes a stringsdict only back over the file it read",
                capability="generative",
            )
        entries = {entry.block_id: entry for entry in skeleton.entries}
        edits: list[Edit] = []
        for block in document.blocks:
            entry = entries.get(block.id)
            if entry is None:
                raise WriteRefused(
                    f"block {block.id} is not in the stringsdict file; new entries cannot be added",
                    capability="structure",
                    block=block.id,
                )
            if block.targets:
                key = next(iter(block.targets))
                raise WriteRefused(
                    f"block {block.id}: a stringsdict holds one language; "
                    f"the {key!r} edition belongs in its own file",
                    capability="edition",
                    block=block.id,
                )
            if block.source != entry.source:
                edits.extend(_Writer(skeleton, entry, block).edits())
        return skeleton.text.splice(edits)

    def block_lines(self, document: Document) -> dict[str, tuple[int, int]] | None:
        skeleton = document.skeleton
        if not isinstance(skeleton, _StringsdictSkeleton):
            return None
        return skeleton.text.block_lines(document)


def _with_locale(block: Block, locale: str) -> Block:
    return Block(id=block.id, source=block.source, name=block.name, locale=locale)
