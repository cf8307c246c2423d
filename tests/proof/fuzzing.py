"""What the fuzzers feed kapi and what each input must do: one definition for every driver.

A *target* is one parser kapi exposes to files or callers: every format reader
of the registry (``format:<name>``), one part of each office package
(``office-part:<name>``: the bytes become the main XML part of a small valid
package), the change-set decoder (``change-set``), the edit-text parser
(``edit-text``), the hook payload reader (``hook:<name>``), and the importers
of the files a person or an agent hands kapi: terms (``terms:json|tbx|csv``),
translation memory (``tmx``), the recipe ``kapi.yaml`` (``recipe``), a voice
profile (``voice``), the context log (``store-import``) and the unified diff of
``kapi check --diff-file`` (``diff-file``). :func:`check` runs one input
through one target and raises :class:`Finding` when it does anything but what
the target documents:

* a format reader returns a document or raises ``FormatError``, and the
  document it returns writes back to exactly the bytes it was read from;
* the decoder returns a change set or raises ``ChangeError`` whose message is
  not the "internal decoder error" fallback;
* the edit-text parser returns runs or raises ``EditTextError``;
* a hook returns a verdict whose stdout is empty or one JSON object of the
  protocol, and never raises;
* a terms file, a TMX file and a diff are read or refused with a usage error
  (``HostError``, exit 2) naming the file; a recipe with a ``RecipeError``
  naming ``kapi.yaml``; a voice profile with a ``GovernanceError`` naming its
  source; a context log with a ``ContextError`` (``invalid``) naming the file
  and line;

each within :data:`DEADLINE_SECONDS` (a SIGALRM turns a hang into a finding).

Three drivers use it: the hypothesis tests (``test_fuzz.py``), the long run in
a memory-capped subprocess (``python -m tests.proof.fuzzing``) and the atheris
harness (``atheris_fuzz.py``).
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import io
import json
import os
import random
import signal
import sys
import time
import traceback
import zipfile
from collections.abc import Callable, Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "packages/kapi-formats/tests/fixtures"
MALFORMED = ROOT / "packages/kapi-core/tests/malformed"
DEADLINE_SECONDS = 10.0

# Fixture folders of each format (every file in them is a seed).
_FOLDERS = {
    "json": ("json/*.json",),
    "arb": ("json/*.arb",),
    "yaml": ("yaml/*",),
    "po": ("po/*",),
    "xliff": ("xliff/angular.xlf", "xliff/okapi.xlf", "xliff/crlf-bom.xlf", "xliff/xcode.xliff"),
    "xliff2": ("xliff/segments.xlf",),
    "androidxml": ("android/*",),
    "applestrings": ("strings/*",),
    "stringsdict": ("stringsdict/*",),
    "properties": ("properties/*",),
    "markdown": ("markdown/*",),
    "myst": ("myst/*",),
    "mdx": ("mdx/*",),
    "html": ("html/*",),
    "plaintext": ("text/*",),
}
OFFICE = ("docx", "xlsx", "pptx")
# The part of each office seed an ``office-part`` input replaces.
MAIN_PART = {
    "docx": "word/document.xml",
    "xlsx": "xl/sharedStrings.xml",
    "pptx": "ppt/slides/slide1.xml",
}

# Pieces of syntax the mutator splices in: markup, escapes, encodings, sizes.
TOKENS: tuple[bytes, ...] = tuple(
    part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part
    for part in (
        "<",
        ">",
        "</",
        "/>",
        '"',
        "'",
        "&",
        "&amp;",
        "&#0;",
        "&#x110000;",
        "&#xD800;",
        "&lt;",
        "<![CDATA[",
        "]]>",
        "<!--",
        "-->",
        "<?xml version='1.0'?>",
        "<?pi x?>",
        '<?xml version="1.0" encoding="rot13"?>',
        '<?xml version="1.0" encoding="Mtf-8"?>',
        '<?xml version="1.0" encoding="UTF-16"?>',
        '<meta charset="hex">',
        "charset=punycode",
        '<!DOCTYPE x [<!ENTITY e "ee">]>',
        "&e;",
        "&undefined;",
        "{",
        "}",
        "[",
        "]",
        ":",
        ",",
        "\\",
        "\\u",
        "\\ud800",
        "\\U0010FFFF",
        "%s",
        "%1$@",
        "%d",
        "{0}",
        "{n, plural, one {# x} other {# y}}",
        "{g, select, m {he} other {they}}",
        "{{x}}",
        "\n",
        "\r",
        "\r\n",
        "\t",
        " ",
        "\x00",
        "\u2028",
        "\ufeff",
        b"\xef\xbb\xbf",
        b"\xff\xfe",
        b"\xfe\xff",
        b"\xed\xa0\x80",
        b"\xc3",
        b"\x80",
        b"\xf4\x90\x80\x80",
        "#",
        "*",
        "_",
        "`",
        "```",
        "~~~",
        "---",
        "- ",
        "1. ",
        "> ",
        "|",
        "| a | b |\n|---|---|",
        "[x](y)",
        "![i](j)",
        "<http://a>",
        "[^1]",
        "$$",
        "\\(",
        ":::{note}",
        "```{code}",
        "(t)=",
        "import x from 'y'",
        "export const a = 1",
        "<Tabs>",
        "</Tabs>",
        "{1+1}",
        "{/* c */}",
        'msgid ""',
        "msgid ",
        "msgstr ",
        "msgid_plural ",
        "msgstr[0] ",
        "msgctxt ",
        "#~ ",
        "#, fuzzy",
        "#| msgid ",
        '"\\n"',
        "=",
        ";",
        "/*",
        "*/",
        "//",
        "\\\n",
        "key = value",
        "a\\:b",
        '<string name="a">',
        "</string>",
        '<plurals name="p">',
        '<item quantity="one">',
        "</item>",
        '<string-array name="s">',
        'translatable="false"',
        "<xliff:g>",
        '<trans-unit id="x">',
        "<source>",
        "</source>",
        "<target>",
        "</target>",
        '<g id="1">',
        "</g>",
        '<x id="2"/>',
        '<ph id="1"/>',
        '<pc id="1">',
        "</pc>",
        '<unit id="u">',
        "<segment>",
        "<mrk>",
        "<dict>",
        "</dict>",
        "<key>",
        "</key>",
        "<string>",
        "<integer>",
        "NSStringLocalizedFormatKey",
        "<w:t>",
        "</w:t>",
        "<w:r>",
        "<w:p>",
        '<w:t xml:space="preserve">',
        "<w:tab/>",
        "<w:br/>",
        "<a:t>",
        "<a:r>",
        "<a:p>",
        "<c>",
        '<c t="s">',
        "<si>",
        "<t>",
        "<v>0</v>",
        "<v>99</v>",
        "{%",
        "%}",
        "- a: b",
        "  ",
        "? ",
        "!!python/object",
        "&anchor",
        "*anchor",
        "<<: ",
        "|-",
        ">-",
        "0x",
        "1e400",
        "null",
        "true",
        "~",
        "'''",
        "<script>",
        "</script>",
        "<style>",
        "<!DOCTYPE html>",
        "<br>",
        '<a href="x">',
        "</a>",
        '<img alt="a">',
        "&nbsp;",
        "<p>",
        "</p>",
        "<pre>",
        "<template>",
        'translate="no"',
        "@@locale",
        '"@key": {',
        '"placeholders": {',
        '"description": ',
        "@@ -1,2 +1,3 @@",
        "--- a/",
        "+++ b/",
        "/dev/null",
        "\u00b2",
        "\u0663",
    )
)


class Finding(AssertionError):
    """An input a target handled in a way it does not document."""


class Hang(BaseException):  # not an Exception: code that catches Exception cannot swallow it
    """The deadline passed."""


@contextlib.contextmanager
def deadline(seconds: float = DEADLINE_SECONDS) -> Iterator[None]:
    """Raise :class:`Hang` in this (main) thread when the block runs longer than ``seconds``."""

    def expired(*_: object) -> None:
        raise Hang()

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# --- seeds ------------------------------------------------------------------------------


@cache
def seeds(target: str) -> tuple[bytes, ...]:
    """The valid inputs a target's mutations start from."""
    kind, _, name = target.partition(":")
    if kind == "format" and name in OFFICE:
        return (_office_seed(name),)
    if kind == "format":
        paths = sorted({p for g in _FOLDERS[name] for p in FIXTURES.glob(g) if p.is_file()})
        return tuple(p.read_bytes() for p in paths)
    if kind == "office-part":
        return (_parts(_office_seed(name))[MAIN_PART[name]],)
    if kind == "change-set":
        return _change_set_seeds()
    if kind == "edit-text":
        return tuple(text.encode() for text in _EDIT_TEXTS)
    if kind == "hook":
        return _hook_seeds(name)
    if kind in _IMPORT_SEEDS:
        return _IMPORT_SEEDS[kind](name)
    raise ValueError(target)


def targets() -> list[str]:
    """Every target, in a stable order."""
    from kapi.formats.builtin import SPECS

    return [
        *(f"format:{spec.name}" for spec in SPECS),
        *(f"office-part:{name}" for name in OFFICE),
        "change-set",
        "edit-text",
        "hook:post-edit",
        "hook:pre-edit",
        "hook:stop",
        *(f"terms:{kind}" for kind in TERMS_KINDS),
        "tmx",
        "recipe",
        "voice",
        "store-import",
        "diff-file",
    ]


def _office_seed(name: str) -> bytes:
    """A small package of each kind, as the office tests build them (text, a table, notes)."""
    fx = _office_fixtures()
    if name == "docx":
        body = fx.para(fx.run("Hello ") + fx.run("world", "<w:rPr><w:b/></w:rPr>")) + fx.para(
            fx.run("Second &amp; last")
        )
        return bytes(fx.docx(body))
    if name == "xlsx":
        rows = '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>'
        return bytes(
            fx.xlsx([("Sheet1", rows)], ["<t>Name</t>", "<r><t>Rich</t></r><r><t> text</t></r>"])
        )
    return bytes(
        fx.pptx([fx.shape(2, "<a:p><a:r><a:t>Title</a:t></a:r></a:p>", "title")], {1: "Notes"})
    )


@cache
def _office_fixtures() -> Any:
    import importlib.util

    path = ROOT / "packages/kapi-formats/tests/office_fixtures.py"
    spec = importlib.util.spec_from_file_location("office_fixtures", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _parts(package: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(package)) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def with_part(name: str, data: bytes) -> bytes:
    """The seed package of office format ``name`` with its main part replaced by ``data``."""
    parts = _parts(_office_seed(name))
    parts[MAIN_PART[name]] = data
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        for part, content in parts.items():
            archive.writestr(part, content)
    return out.getvalue()


def _change_set_seeds() -> tuple[bytes, ...]:
    valid = [
        {
            "ops": [
                {
                    "op": "set_content",
                    "at": {"doc": "app/en.json", "block": "home.title"},
                    "if_match": "r:0123456789abcdef",
                    "runs": [{"text": "Hi "}, {"ph": {"id": "1", "equiv": "{name}"}}],
                },
                {
                    "op": "replace_text",
                    "at": {"doc": "a.po", "block": "b", "edition": "fr-FR"},
                    "if_match": "*",
                    "edits": [{"find": "a", "replace": "b"}],
                },
                {"op": "delete_block", "at": {"doc": "d.md", "block": "p1"}, "if_match": "*"},
            ],
            "note": "seed",
            "mode": "preview",
        }
    ]
    found = [json.dumps(v).encode() for v in valid]
    found.append(b'{"mode": "apply"}\n{"op": "set_content", "at": {"doc": "a", "block": "b"}}\n')
    found.extend(
        p.read_bytes() for p in sorted(MALFORMED.glob("*.json")) if p.name != "expected.json"
    )
    return tuple(found)


_EDIT_TEXTS = (
    'Click <x id="1"/>here<x id="/1"/> for <x id="2/"/><x id="sub:3"/>',
    "Tom & Jerry’s",
    "You have files",
    "Please run kapi check first",
)


def _edit_text_reference() -> tuple[Any, ...]:
    from kapi.core.model import PcClose, PcOpen, Ph, Sub, Text

    return (
        Text("Click "),
        PcOpen(id="1", type="link:hyperlink", data='<a href="/x">'),
        Text("here"),
        PcClose(id="1", type="link:hyperlink", data="</a>"),
        Text(" for "),
        Ph(id="2", type="code:placeholder", data="{name}", equiv="{name}"),
        Sub(id="3", ref="b4"),
        Ph(id="4", type="entity:char", data="&amp;", equiv="&"),
        Text("kapi check", no_translate=True),
    )


def _edit_text_plural() -> tuple[Any, ...]:
    from kapi.core.model import Plural, Text

    return (
        Text("You have "),
        Plural(pivot="n", forms={"one": (Text("a file"),), "other": (Text("files"),)}),
    )


HOOK_CWD = "/nonexistent/kapi-fuzz"  # replaced by a real project folder when one is given


def _hook_seeds(name: str) -> tuple[bytes, ...]:
    event = {"post-edit": "PostToolUse", "pre-edit": "PreToolUse", "stop": "Stop"}[name]
    base = {"session_id": "s-1", "transcript_path": "/t.jsonl", "hook_event_name": event}
    payloads = [
        {
            **base,
            "cwd": HOOK_CWD,
            "tool_name": "Edit",
            "tool_input": {"file_path": "locales/en.json"},
        },
        {
            **base,
            "cwd": HOOK_CWD,
            "tool_name": "Write",
            "tool_input": {"file_path": "docs/a.md", "content": "x"},
        },
        {**base, "cwd": HOOK_CWD, "stop_hook_active": False},
    ]
    return tuple(json.dumps(p).encode() for p in payloads)


# Seeds of the importers: the example shop's files, the starter voice packs, tiny samples.
SHOP = ROOT / "examples/shop"
PACKS = ROOT / "packages/kapi-core/src/kapi/core/governance/pack_data"
TERMS_FIXTURES = ROOT / "packages/kapi-core/tests/governance/fixtures"
MEMORY_FIXTURES = ROOT / "packages/kapi-cli/tests/fixtures"
TERMS_KINDS = ("json", "tbx", "csv")

_TERMS_JSON = """{"schemaVersion": "1.0", "kind": "kapi-terms", "concepts": [
  {"id": "c1", "domain": "boats", "definition": "Where a boat is kept.",
   "properties": {"surface": "app"}, "created_at": "2026-01-01T00:00:00Z",
   "terms": [{"text": "berth", "locale": "en-GB", "status": "preferred", "forms": ["berths"],
              "validity": {"valid_from": "2026-01-01", "valid_to": "2027-01-01"}},
             {"text": "mooring", "locale": "en", "status": "forbidden", "note": "use: berth",
              "part_of_speech": "noun", "competitor_term": false}]},
  {"id": "c2", "source": "brand_vocabulary", "do_not_translate": true,
   "terms": [{"text": "Northwind", "locale": "en"}]}]}
"""

_TERMS_CSV = (
    "concept,locale,text,status,note,forms,competitor,dnt\n"
    "c1,en_GB,berth,preferred,,berths,,\n"
    'c1,en-GB,mooring,forbidden,"use: berth, always",,no,\n'
    ",en,GitHub,preferred,,,,yes\n",
    "\ufeffterm;status;locale\nberth;preferred;en\n",
    "concept,text,locale,domain,valid_to\nc,a,en,boats,2027-01-01\nc,b,fr,boats,\n",
)

# Beside the memory tests' file: attributes TMX 1.1 spelled, and inline markup to drop.
_TMX_MORE = (
    '<tmx version="1.4"><header srclang="en"/><body><tu><tuv lang="en"><seg>A <hi>b</hi> '
    '<it pos="begin">c</it></seg></tuv><tuv lang="pt_BR"><seg>d</seg></tuv></tu></body></tmx>\n'
)

_RECIPE = """version: v1
id: prj_fuzz
name: northwind-shop
defaults:
  source_language: en
  target_languages: [fr, de, pt-BR]
  voice: {pack: technical-docs}
  exclude: ['**/vendor/**']
  translate_after: written
  locale_format: bcp-47
  coordinates: {region: eu}
  comments: {channel: app/ui}
  redaction:
    rules:
      - pattern: 'ACME-[A-Z]+-\\d+'
        category: sku
      - term: Northwind
        category: brand
        flags: [ignorecase, wholeword]
profiles:
  app:
    channels: [ui, {id: mail, concept: c1}]
    voice: shop-ui
    valid_from: 2026-01-01
    valid_to: 2027-01-01
  docs:
    channels: [guides]
    voice: {pack: technical-docs}
gates:
  strict: {reviewed: 100, established: {pct: 90, by: human}}
ship_gate: strict
ship_gates:
  - when: {locales: [fr]}
    gate: {translated: 50}
collections:
  - name: ui
    channel: app/ui
    coordinates: {surface: app}
    content:
      - path: locales/en.json
        target: locales/{lang}.json
      - path: po/{a,b}/*.po
        target: po/{lang}/{filename}
        locale_format: posix
  - name: docs
    channel: docs/guides
    source_only: true
    source_language: en
    target_languages: [fr]
    content:
      - path: docs/**/*.md
        format: myst
      - path: src/**/*.py
        comments: {channel: docs/guides, formatter: ruff}
  - name: bare
    path: web/*.json
    base: web
"""

_CONTEXT_LOG = "".join(
    json.dumps(record) + "\n"
    for record in (
        {
            "actor": {"kind": "agent", "name": "claude-code", "session": "s-one"},
            "at": "2026-01-04T12:42:11.448Z",
            "evidence": [{"path": "docs/intro.md", "unit": "p1", "quote": "Quick cast"}],
            "id": "0v53htkr9p2bagjm8zk8hg5z",
            "kind": "observe",
            "project": "prj_fuzz",
            "subject": {
                "kind": "term",
                "term": {
                    "case_sensitive": True,
                    "forms": ["Quick-cast", "QuickCast"],
                    "replacement": "Quickcast",
                    "term": "Quick cast",
                },
            },
        },
        {
            "actor": {"kind": "person", "name": "ana@example.com", "session": ""},
            "at": "2026-01-04T12:42:11.474Z",
            "id": "0v53htmjxge3385ms8zeafmb",
            "kind": "keep",
            "project": "prj_fuzz",
            "target": "0v53htkr9p2bagjm8zk8hg5z",
            "replacement": "QuickCast",
            "advisory": True,
        },
        {
            "actor": {"kind": "person", "name": "ana@example.com", "session": ""},
            "at": "2026-01-04T12:42:11Z",
            "id": "op_b509ae98d09a425f",
            "kind": "edit",
            "note": 'terms store: "Quickcast" (en) preferred',
        },
        {
            "actor": {"kind": "agent", "name": "codex", "session": "s-two"},
            "at": "2026-01-04T12:43:00Z",
            "id": "0v53htqrzjp16mr3wfmbbrdr",
            "kind": "correct",
            "correction": {"from": "log in", "to": "sign in"},
            "suggest": True,
            "scope": {"level": "coordinates", "coordinates": {"surface": "app"}},
        },
        {
            "actor": {"kind": "agent", "name": "codex", "session": "s-two"},
            "id": "0v53htqrzjp16mr3wfmbbrds",
            "kind": "observe",
            "subject": {
                "kind": "memory",
                "memory": {
                    "source": "Save",
                    "target": "Enregistrer",
                    "source_locale": "en",
                    "target_locale": "fr",
                },
            },
        },
        {
            "actor": {"kind": "tool", "name": "kapi"},
            "id": "context.0v53htqrzjp16mr3wfmbbrdt",
            "kind": "context.signal",
            "target": "0v53htkr9p2bagjm8zk8hg5z",
            "signal": {"source": "merge", "commit": "abc123", "preferred": 3, "rejected": 1},
        },
        {
            "actor": {"kind": "person", "name": "ana@example.com"},
            "id": "0v53htqrzjp16mr3wfmbbrdv",
            "kind": "widen",
            "target": "0v53htqrzjp16mr3wfmbbrdr",
            "widen_to": "project",
        },
        {
            "actor": {"kind": "tool", "name": "kapi"},
            "id": "0v53htqrzjp16mr3wfmbbrdw",
            "kind": "establish",
            "target": "0v53htqrzjp16mr3wfmbbrdr",
            "because": ["0v53htqrzjp16mr3wfmbbrdt"],
        },
        {
            "actor": {"kind": "person", "name": "ana@example.com"},
            "id": "0v53htqrzjp16mr3wfmbbrdx",
            "kind": "reset",
            "before": "0v53htkr9p2bagjm8zk8hg5z",
            "address": "sha256:00",
        },
    )
)

_DIFFS = (
    """diff --git a/locales/en.json b/locales/en.json
index 1111111..2222222 100644
--- a/locales/en.json
+++ b/locales/en.json
@@ -2,3 +2,4 @@
   "home.title": "Welcome",
-  "cart.empty": "Your basket is empty",
+  "cart.empty": "Your cart is empty",
+  "cart.add": "Add to cart",
   "checkout": "Check out"
@@ -10,2 +11,0 @@
-  "gone": "x",
-  "too": "y",
""",
    """--- /dev/null\t2026-01-01 00:00:00
+++ b/docs/new.md\t2026-01-01 00:00:00
@@ -0,0 +1,2 @@
+# New
+Text
--- a/docs/old.md
+++ /dev/null
@@ -1 +0,0 @@
-# Old
""",
)


def _file_seeds(*paths: Path) -> tuple[bytes, ...]:
    return tuple(p.read_bytes() for p in paths)


_IMPORT_SEEDS: dict[str, Callable[[str], tuple[bytes, ...]]] = {
    "terms": lambda kind: {
        "json": lambda: (*_file_seeds(SHOP / "terms.json"), _TERMS_JSON.encode()),
        "tbx": lambda: _file_seeds(*sorted(TERMS_FIXTURES.glob("*.tbx"))),
        "csv": lambda: tuple(text.encode() for text in _TERMS_CSV),
    }[kind](),
    "tmx": lambda _: (*_file_seeds(MEMORY_FIXTURES / "memory.tmx"), _TMX_MORE.encode()),
    "recipe": lambda _: (*_file_seeds(SHOP / "kapi.yaml"), _RECIPE.encode()),
    "voice": lambda _: _file_seeds(SHOP / "voices/shop-ui.yaml", *sorted(PACKS.glob("*.yaml"))),
    "store-import": lambda _: (_CONTEXT_LOG.encode(),),
    "diff-file": lambda _: tuple(text.encode() for text in _DIFFS),
}


# --- the mutator ------------------------------------------------------------------------


def mutate(data: bytes, rng: random.Random, rounds: int = 0) -> bytes:
    """``data`` changed a few times: cut, spliced with a token, a byte flipped, truncated,
    a span copied, a token repeated, a span multiplied."""
    out = bytearray(data)
    for _ in range(rounds or rng.randint(1, 8)):
        op = rng.randrange(7)
        at = rng.randint(0, len(out))
        if op == 0 and out:
            del out[at : at + rng.randint(1, 32)]
        elif op == 1:
            out[at:at] = rng.choice(TOKENS)
        elif op == 2 and out:
            out[min(at, len(out) - 1)] = rng.randrange(256)
        elif op == 3:
            del out[at:]
        elif op == 4 and out:
            start = rng.randint(0, len(out))
            out[at:at] = out[start : start + rng.randint(1, 200)]
        elif op == 5:
            out[at:at] = rng.choice(TOKENS) * rng.randint(2, 300)
        elif op == 6 and out:
            start = rng.randint(0, len(out))
            end = min(len(out), start + rng.randint(1, 64))
            out[start:end] = bytes(out[start:end]) * rng.randint(2, 50)
    return bytes(out)


def generate(target: str, rng: random.Random) -> bytes:
    """One input for ``target``: a mutated seed most of the time, else random bytes."""
    if rng.random() < 0.1:
        return bytes(rng.randrange(256) for _ in range(rng.randint(0, 300)))
    kind, _, name = target.partition(":")
    seed = rng.choice(seeds(target))
    if kind == "format" and name in OFFICE and rng.random() < 0.8:
        parts = _parts(seed)
        xml = sorted(p for p in parts if p.endswith((".xml", ".rels")))
        chosen = rng.choice(xml)
        parts[chosen] = mutate(parts[chosen], rng)
        if rng.random() < 0.1:  # a part name that climbs out of the package
            parts[rng.choice(("../evil.xml", "/abs.xml", "word/../../x.xml"))] = b"<x/>"
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
            for part, content in parts.items():
                archive.writestr(part, content)
        return out.getvalue()
    return mutate(seed, rng)


# --- what each target must do ------------------------------------------------------------


def check(
    target: str,
    data: bytes,
    *,
    project: Path | None = None,
    seconds: float | None = DEADLINE_SECONDS,
) -> None:
    """Run ``data`` through ``target``; raise :class:`Finding` for anything undocumented.

    ``seconds`` is the deadline (None: none, for a driver that keeps its own).
    """
    kind, _, name = target.partition(":")
    runner: Callable[[], None]
    if kind == "format":
        runner = lambda: _read_format(name, data)  # noqa: E731
    elif kind == "office-part":
        package = with_part(name, data)
        runner = lambda: _read_format(name, package)  # noqa: E731
    elif kind == "change-set":
        runner = lambda: _decode_change_set(data)  # noqa: E731
    elif kind == "edit-text":
        runner = lambda: _parse_edit_text(data)  # noqa: E731
    elif kind == "hook":
        runner = lambda: _run_hook(name, data, project)  # noqa: E731
    elif kind in _IMPORTERS:
        runner = lambda: _IMPORTERS[kind](name, data)  # noqa: E731
    else:
        raise ValueError(target)
    try:
        with deadline(seconds) if seconds else contextlib.nullcontext():
            runner()
    except Finding:
        raise
    except Hang:
        raise Finding(f"{target}: no answer within {seconds} s") from None
    except BaseException as err:
        raise Finding(
            f"{target}: raised {type(err).__name__}: {_short(err)}\n{_trace(err)}"
        ) from None


def _short(err: BaseException) -> str:
    return str(err)[:300]


def _trace(err: BaseException) -> str:
    return "".join(traceback.format_exception(err)[-6:])


def _read_format(name: str, data: bytes) -> None:
    from kapi.core.format import FormatError
    from kapi.formats import registry

    spec = registry.get(name)
    codec = registry.load_codec(spec)
    try:
        document = codec.read(data, path=f"fuzz{spec.extensions[0]}", locale="en")
    except FormatError as err:
        if not err.message:
            raise Finding(f"format:{name}: a refusal without a message") from None
        return
    written = codec.write(document)
    if written != data:
        raise Finding(
            f"format:{name}: the document read back unchanged wrote {len(written)} bytes, "
            f"not the {len(data)} it was read from"
        )


def _decode_change_set(data: bytes) -> None:
    from kapi.core.change.decode import decode_change_set
    from kapi.core.change.errors import ChangeError

    try:
        decode_change_set(data)
    except ChangeError as err:
        if "internal decoder error" in err.info.message or not err.info.message:
            raise Finding(f"change-set: refused through the fallback: {err.info.message}") from None


def _parse_edit_text(data: bytes) -> None:
    from kapi.core.edittext import EditTextError, parse_edit_text

    text = data.decode("utf-8", "surrogateescape")
    for reference in (_edit_text_reference(), _edit_text_plural()):
        with contextlib.suppress(EditTextError):
            parse_edit_text(text, reference)


_VERDICT_KEYS = ({"systemMessage"}, {"decision", "reason"}, {"hookSpecificOutput"})


def _run_hook(name: str, data: bytes, project: Path | None) -> None:
    from kapi.host.hooks import run_hook

    if project is not None:
        data = data.replace(HOOK_CWD.encode(), os.fspath(project).encode())
    verdict = run_hook(name, io.BytesIO(data))
    if not verdict.stdout:
        return
    try:
        shown = json.loads(verdict.stdout)
    except ValueError:
        raise Finding(f"hook:{name}: stdout is not JSON: {verdict.stdout[:200]!r}") from None
    if not isinstance(shown, dict) or set(shown) not in _VERDICT_KEYS:
        raise Finding(f"hook:{name}: stdout is not a hook verdict: {verdict.stdout[:200]!r}")
    if "Traceback" in verdict.stdout + verdict.warning:
        raise Finding(f"hook:{name}: a traceback reached the agent: {verdict.stdout[:300]!r}")


def _usage_error(target: str, err: BaseException, where: str) -> None:
    """``err`` must be the usage error (exit 2) the importer documents, naming ``where``."""
    from kapi.host.errors import EXIT_USAGE, HostError

    if not isinstance(err, HostError) or err.exit_code != EXIT_USAGE:
        raise err
    if not err.message.startswith(where) or len(err.message) <= len(where) + 2:
        raise Finding(f"{target}: a refusal that does not name {where}: {err.message[:300]!r}")


def _import_terms(kind: str, data: bytes) -> None:
    from kapi.host.errors import HostError
    from kapi.host.terms import _parse

    source = f"fuzz.{kind}"
    try:
        _parse(data, kind, source)
    except HostError as err:
        _usage_error(f"terms:{kind}", err, source + ":")


def _import_tmx(_: str, data: bytes) -> None:
    from kapi.host.errors import HostError
    from kapi.host.memory import read_tmx

    try:
        read_tmx(data, "fuzz.tmx")
    except HostError as err:
        _usage_error("tmx", err, "fuzz.tmx")


def _load_recipe(_: str, data: bytes) -> None:
    """The recipe as ``load_project`` reads it (text mode: UTF-8, universal newlines) and the
    governance a project builds from it; a ``RecipeError`` names ``kapi.yaml``."""
    from kapi.core.governance.errors import GovernanceError
    from kapi.core.governance.resolve import validate_recipe
    from kapi.host.governance import recipe_error, recipe_model
    from kapi.host.project import RecipeError, _project_of
    from kapi.host.yaml import YamlSyntaxError, load_yaml

    path = Path("/nonexistent/kapi-fuzz/kapi.yaml")
    try:
        try:
            text = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8").read()
        except UnicodeDecodeError:
            return  # refused as it is read: "cannot read"
        try:
            raw = load_yaml(text)
        except YamlSyntaxError as err:
            raise RecipeError(str(err), path=path, line=err.line) from None
        project = _project_of(path, raw)
        try:
            validate_recipe(recipe_model(project.raw, project.collections), str(path))
        except GovernanceError as err:
            raise recipe_error(project, err) from None
    except RecipeError as err:
        _usage_error("recipe", err, f"{path}")


def _load_voice(_: str, data: bytes) -> None:
    """A ``voices/<id>.yaml`` as ``kapi voice validate`` (strict) and a check (lenient) load
    it; a refusal is a ``GovernanceError`` naming the file, placed at its line."""
    from kapi.core.governance.errors import GovernanceError
    from kapi.core.governance.voice import load_voice_profile
    from kapi.host.governance import parse_yaml
    from kapi.host.yaml import line_of_text

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return  # refused as it is read: "cannot read"
    source = "voices/fuzz.yaml"
    for strict in (True, False):
        try:
            load_voice_profile(parse_yaml(text, source), source, strict=strict)
        except GovernanceError as err:
            if err.source != source or not err.message:
                raise Finding(f"voice: a refusal that does not name {source}: {err}") from None
            line_of_text(text, tuple(err.path))


@cache
def _store_project() -> Path:
    """A small project with its store made, copied for each context log imported."""
    import tempfile

    from kapi.host.project import load_project
    from kapi.host.workspace import Workspace

    root = Path(tempfile.mkdtemp(prefix="kapi-fuzz-store-")) / "template"
    (root / "docs").mkdir(parents=True)
    (root / "docs/intro.md").write_text("# Intro\n\nUse Quickcast to log in.\n", encoding="utf-8")
    (root / ".kapi").mkdir()
    (root / "kapi.yaml").write_text(
        "version: v1\nid: prj_fuzz\ncollections:\n  - name: docs\n    path: docs/**/*.md\n",
        encoding="utf-8",
    )
    with Workspace(root, load_project(root / "kapi.yaml")) as workspace:
        assert workspace.store is not None
    return root


def _import_store(_: str, data: bytes) -> None:
    """``kapi store import`` of ``data`` into a fresh copy of a small project, by a person."""
    import shutil
    import tempfile

    from kapi.core.change.ports import Actor, ActorKind
    from kapi.core.context.errors import ContextError
    from kapi.host.context_store import import_store
    from kapi.host.project import load_project
    from kapi.host.workspace import Workspace

    template = _store_project()
    with tempfile.TemporaryDirectory(dir=template.parent) as folder:
        root = Path(folder) / "project"
        shutil.copytree(template, root)
        with Workspace(root, load_project(root / "kapi.yaml")) as workspace:
            try:
                import_store(data, "fuzz.jsonl", workspace, Actor(ActorKind.PERSON, "fuzz"))
            except ContextError as err:
                if err.code != "invalid" or not err.message.startswith("fuzz.jsonl"):
                    raise Finding(
                        f"store-import: a refusal that does not name the file: {err.message!r}"
                    ) from None


def _parse_diff(_: str, data: bytes) -> None:
    """A ``--diff-file`` read as ``kapi check`` reads it (UTF-8, newlines made ``\\n``)."""
    from kapi.host.checking import changed_lines
    from kapi.host.errors import HostError

    try:
        text = data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    except UnicodeDecodeError:
        return  # refused as it is read: "not UTF-8 text"
    try:
        changed_lines(text)
    except HostError as err:
        _usage_error("diff-file", err, "diff: ")


_IMPORTERS: dict[str, Callable[[str, bytes], None]] = {
    "terms": _import_terms,
    "tmx": _import_tmx,
    "recipe": _load_recipe,
    "voice": _load_voice,
    "store-import": _import_store,
    "diff-file": _parse_diff,
}

# --- the long run: one target in this process, memory capped ------------------------------


def run(
    target: str, *, seconds: float, runs: int, seed: int, project: Path | None
) -> list[dict[str, str]]:
    """Fuzz ``target`` until ``runs`` inputs or ``seconds`` pass; the findings (input in base64)."""
    rng = random.Random(seed)
    findings: list[dict[str, str]] = []
    started = time.monotonic()
    done = 0
    while done < runs and time.monotonic() - started < seconds:
        data = generate(target, rng)
        done += 1
        try:
            check(target, data, project=project)
        except Finding as found:
            findings.append({"finding": str(found), "input": base64.b64encode(data).decode()})
            if len(findings) >= 5:
                break
    print(json.dumps({"target": target, "runs": done, "findings": findings}))
    return findings


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Fuzz one kapi target with the mutator.")
    parser.add_argument(
        "target",
        help="format:<name>, office-part:<name>, change-set, edit-text, hook:<name>, "
        "terms:<kind>, tmx, recipe, voice, store-import, diff-file",
    )
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--runs", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--memory-mb", type=int, default=0, help="cap the address space (RLIMIT_AS)"
    )
    parser.add_argument("--project", type=Path, default=None, help="a project folder for the hooks")
    args = parser.parse_args(argv)
    if args.memory_mb:
        import resource

        limit = args.memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    findings = run(
        args.target, seconds=args.seconds, runs=args.runs, seed=args.seed, project=args.project
    )
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
