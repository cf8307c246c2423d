"""What the fuzzers feed kapi and what each input must do: one definition for every driver.

A *target* is one parser kapi exposes to files or callers: every format reader
of the registry (``format:<name>``), one part of each office package
(``office-part:<name>``: the bytes become the main XML part of a small valid
package), the change-set decoder (``change-set``), the edit-text parser
(``edit-text``) and the hook payload reader (``hook:<name>``). :func:`check`
runs one input through one target and raises :class:`Finding` when it does
anything but what the target documents:

* a format reader returns a document or raises ``FormatError``, and the
  document it returns writes back to exactly the bytes it was read from;
* the decoder returns a change set or raises ``ChangeError`` whose message is
  not the "internal decoder error" fallback;
* the edit-text parser returns runs or raises ``EditTextError``;
* a hook returns a verdict whose stdout is empty or one JSON object of the
  protocol, and never raises;

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
        "target", help="format:<name>, office-part:<name>, change-set, edit-text, hook:<name>"
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
