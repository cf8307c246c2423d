"""``kapi inspect`` says what each inline code is, and the guard of ``kapi apply`` agrees.

Every code in a record's ``codes`` carries its kind, what it stands for
(``disp``/``equiv``) and its constraints. The matrix test drives the real
``kapi`` executable over every format's fixtures: a code inspect calls
deletable is dropped by a change set, one it calls not deletable is refused;
likewise a code repeated once more, by what inspect says of ``cloneable``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import attrs
import pytest

from tests.office_made import office_bytes

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "packages/kapi-formats/tests/fixtures"
TEXT_FILES = sorted(p for p in FIXTURES.rglob("*") if p.is_file() and p.name != "duplicates.json")
KAPI_SCRIPT = Path(sys.executable).parent / "kapi"
TOKEN = re.compile(r'<x id="[^"]*"/>')
CASES = [pytest.param(p, id=f"{p.parent.name}/{p.name}") for p in TEXT_FILES] + [
    pytest.param(kind, id=f"office/{kind}") for kind in ("docx", "xlsx", "pptx")
]


def kapi(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    command = [str(KAPI_SCRIPT)] if KAPI_SCRIPT.exists() else [sys.executable, "-m", "kapi.cli"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("KAPI_")}
    env.update(KAPI_NO_PROJECT="1", KAPI_ACTOR="person", PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run(
        [*command, *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def inspect(path: Path) -> list[dict[str, Any]]:
    done = kapi("inspect", path.name, cwd=path.parent)
    assert done.returncode == 0, done.stderr
    records: list[dict[str, Any]] = json.loads(done.stdout)
    return records


def apply(change: dict[str, Any], cwd: Path) -> tuple[int, dict[str, Any]]:
    done = kapi("apply", "--json", "-", cwd=cwd, stdin=json.dumps(change))
    assert "Traceback" not in done.stderr, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return done.returncode, result


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


# --- what inspect says, format by format ---------------------------------------------------

FIXED = {"deletable": False, "cloneable": False, "reorderable": True}
FREE = {"deletable": True, "cloneable": True, "reorderable": True}


def test_a_po_placeholder_says_what_it_stands_for_and_that_it_must_stay(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "fr.po",
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        'msgid "Sign in with %(provider)s"\nmsgstr "Connexion avec %(provider)s"\n',
    )
    (record,) = inspect(path)
    assert record["text"] == 'Sign in with <x id="1/"/>'
    assert record["codes"] == {
        "1/": {
            "kind": "placeholder",
            "type": "code:placeholder",
            "disp": "%(provider)s",
            "constraints": FIXED,
        }
    }


def test_markdown_codes_are_formatting_not_placeholders(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "guide.md",
        "Run `kapi check` on **every** [page](https://example.com/p) and <kbd>Enter</kbd>.\n",
    )
    (record,) = inspect(path)
    codes = record["codes"]
    assert codes["1/"] == {
        "kind": "standalone",
        "type": "fmt:code",
        "equiv": "kapi check",
        "disp": "`kapi check`",
        "constraints": FREE,
    }
    assert codes["2"]["kind"] == "paired"
    assert (codes["2"]["disp"], codes["2"]["constraints"]) == ("**…**", FREE)
    assert codes["3"]["disp"] == "[…](https://example.com/p)"
    assert codes["3"]["constraints"] == FREE
    assert (codes["4/"]["kind"], codes["4/"]["disp"]) == ("standalone", "<kbd>")
    assert codes["4/"]["constraints"] == FIXED
    assert not any(code["kind"] == "placeholder" for code in codes.values())


def test_catalogue_placeholders_show_their_spelling(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "en.json",
        '{"cart": "You have {count} items", "hi": "Hello {{name}}", "nav": "Go $t(nav.home)"}\n',
    )
    shown = {
        record["ref"]["block"]: (record["codes"]["1/"]["kind"], record["codes"]["1/"]["disp"])
        for record in inspect(path)
    }
    assert shown == {
        "cart": ("placeholder", "{count}"),
        "hi": ("placeholder", "{{name}}"),
        "nav": ("placeholder", "$t(nav.home)"),
    }


def test_a_plural_names_the_codes_its_branches_spell_differently(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "en.json",
        '{"inbox": "Hello {name}, you have {count, plural, one {# file} other {# files}}"}\n',
    )
    (record,) = inspect(path)
    assert record["codes"]["1/"]["disp"] == "{name}"
    (plural,) = record["structures"]
    assert plural["branches"]["one"] == '<x id="1/"/> file'
    assert plural["codes"] == {
        "1/": {"kind": "placeholder", "type": "code:placeholder", "disp": "#", "constraints": FIXED}
    }


def test_a_read_page_with_constraints_decodes_to_what_was_encoded() -> None:
    from kapi.core.change.decode import decode_read_page
    from kapi.core.change.read import BlockRead, CodeInfo, ReadPage, Structure
    from kapi.core.change.result import ResultRef
    from kapi.core.change.wire import dumps
    from kapi.core.model import Constraints

    fixed = Constraints(deletable=False, cloneable=False)
    page = ReadPage(
        doc="en.json",
        home="file",
        format="json",
        head="sha256:" + "0" * 64,
        blocks=(
            BlockRead(
                ref=ResultRef(doc="en.json", block="inbox"),
                rev="r:0123456789abcdef",
                text='Hi <x id="1/"/>',
                ops=("set_content",),
                codes={"1/": CodeInfo(kind="placeholder", disp="{name}", constraints=fixed)},
                structures=(
                    Structure(
                        path=(1,),
                        kind="plural",
                        branches={"other": '<x id="1/"/> files'},
                        codes={"1/": CodeInfo(kind="placeholder", disp="#", constraints=fixed)},
                    ),
                ),
            ),
        ),
    )
    assert decode_read_page(dumps(page)) == page


def test_android_printf_and_markup(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "strings.xml",
        '<?xml version="1.0" encoding="utf-8"?>\n<resources>\n'
        '    <string name="left">%1$s has <b>%2$d</b> left</string>\n</resources>\n',
    )
    (record,) = inspect(path)
    assert record["text"] == '<x id="1/"/> has <x id="2"/><x id="3/"/><x id="/2"/> left'
    codes = record["codes"]
    assert (codes["1/"]["kind"], codes["1/"]["disp"], codes["1/"]["constraints"]) == (
        "placeholder",
        "%1$s",
        FIXED,
    )
    assert (codes["2"]["disp"], codes["2"]["constraints"]) == ("<b>…</b>", FREE)
    assert codes["3/"]["disp"] == "%2$d"


def test_an_xliff_code_shows_its_equiv_text_not_its_markup(tmp_path: Path) -> None:
    shutil.copyfile(FIXTURES / "xliff/angular.xlf", tmp_path / "angular.xlf")
    records = {r["ref"]["block"]: r for r in inspect(tmp_path / "angular.xlf")}
    welcome = records["welcomeName"]["codes"]["1/"]
    assert (welcome["kind"], welcome["equiv"], welcome["disp"]) == (
        "placeholder",
        "{{ user.name }}",
        "{{ user.name }}",
    )
    bold = records["boldWarning"]["codes"]["1/"]
    assert (bold["kind"], bold["type"], bold["disp"]) == ("standalone", "code:tag", "<b>")
    assert all(
        "<x " not in code.get("disp", "") for code in records["boldWarning"]["codes"].values()
    )


def test_office_markup_is_never_shown_as_what_a_code_stands_for(tmp_path: Path) -> None:
    path = tmp_path / "made.docx"
    path.write_bytes(office_bytes("docx"))
    codes = [code for record in inspect(path) for code in (record.get("codes") or {}).values()]
    assert codes, "the document has a bold run"
    assert all("<w:" not in code.get("disp", "") for code in codes)
    assert {code["type"]: code["constraints"] for code in codes} == {"fmt:bold": FREE}


def test_a_character_reference_is_text_and_not_listed_as_a_code(tmp_path: Path) -> None:
    path = write(
        tmp_path, "page.html", "<html><body><p>Caf&eacute; &amp; th&eacute;</p></body></html>\n"
    )
    (record,) = inspect(path)
    assert record["text"] == "Café & thé"
    assert "codes" not in record


# --- what inspect says is what the guard does, on every format ------------------------------


def _holder(record: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    """The edition a change set edits (a bilingual file's target, else the own) and its codes."""
    for key, edition in (record.get("editions") or {}).items():
        codes = edition.get("codes") or record.get("codes") or {}
        return key, {"text": edition["text"], "rev": edition["rev"], "codes": codes}
    return None, {"text": record["text"], "rev": record["rev"], "codes": record.get("codes") or {}}


def _dropped(text: str, token: str, kind: str) -> str:
    text = text.replace(f'<x id="{token}"/>', "")
    if kind == "paired":
        text = text.replace(f'<x id="/{token}"/>', "")
    return text


def _drops(records: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """One drop per code type and verdict: (deletable ones, each in its own block; fixed ones)."""
    free: dict[str, dict[str, Any]] = {}
    fixed: dict[str, dict[str, Any]] = {}
    used_blocks: set[str] = set()
    for record in records:
        if "set_content" not in record["ops"] or record.get("structures"):
            continue
        edition, holder = _holder(record)
        if edition is not None and (record["editions"][edition].get("structures")):
            continue
        for token, code in holder["codes"].items():
            if code["kind"] == "subblock":
                continue
            text = _dropped(holder["text"], token, code["kind"])
            if not text.strip() or "<x id=" not in holder["text"]:
                continue
            at = dict(record["ref"])
            if edition is not None:
                at["edition"] = edition
            drop = {"at": at, "rev": holder["rev"], "text": text, "token": token, "code": code}
            key = f"{code['kind']}:{code.get('type')}"
            if code["constraints"]["deletable"]:
                if key not in free and record["ref"]["block"] not in used_blocks:
                    free[key] = drop
                    used_blocks.add(record["ref"]["block"])
            else:
                fixed.setdefault(key, drop)
    return list(free.values()), list(fixed.values())


def _op(drop: dict[str, Any]) -> dict[str, Any]:
    return {"op": "set_content", "at": drop["at"], "if_match": drop["rev"], "text": drop["text"]}


def _place(source: Path | str, folder: Path) -> Path:
    if isinstance(source, str):
        path = folder / f"made.{source}"
        path.write_bytes(office_bytes(source))
        return path
    path = folder / source.name
    shutil.copyfile(source, path)
    return path


@pytest.mark.parametrize("source", CASES)
def test_inspect_constraints_agree_with_what_apply_accepts(
    source: Path | str, tmp_path: Path
) -> None:
    path = _place(source, tmp_path)
    records = inspect(path)
    free, fixed = _drops(records)
    original = path.read_bytes()
    for drop in fixed:
        code, result = apply({"ops": [_op(drop)]}, tmp_path)
        assert code == 3, (drop, result)
        error = result["ops"][0]["error"]
        assert (error["code"], error["subcode"]) == ("guard", "codes_changed"), (drop, error)
        assert drop["token"] in error.get("expected", ""), error
    assert path.read_bytes() == original
    if not free:
        return
    code, result = apply({"ops": [_op(drop) for drop in free]}, tmp_path)
    assert (code, result["status"]) == (0, "applied"), (free, result)
    after = {json.dumps(r["ref"], sort_keys=True): r for r in inspect(path)}
    for drop in free:
        ref = {k: v for k, v in drop["at"].items() if k != "edition"}
        record = after[json.dumps(ref, sort_keys=True)]
        _, holder = _holder(record)
        # ids are numbered afresh on reading: the edition holds the codes it was sent
        assert TOKEN.sub("#", holder["text"]) == TOKEN.sub("#", drop["text"]), (drop, holder)


@pytest.mark.parametrize("source", CASES)
def test_inspect_cloneable_agrees_with_what_a_preview_accepts(
    source: Path | str, tmp_path: Path
) -> None:
    """A code repeated once more: previewed when inspect calls it cloneable, else refused."""
    path = _place(source, tmp_path)
    judged: set[tuple[str, bool]] = set()
    for record in inspect(path):
        if "set_content" not in record["ops"] or record.get("structures"):
            continue
        edition, holder = _holder(record)
        if edition is not None and record["editions"][edition].get("structures"):
            continue
        for token, code in holder["codes"].items():
            verdict = (code.get("type", ""), code["constraints"]["cloneable"])
            if code["kind"] == "subblock" or verdict in judged:
                continue
            judged.add(verdict)
            again = f'<x id="{token}"/>'
            if code["kind"] == "paired":
                again += f'again<x id="/{token}"/>'
            at = dict(record["ref"]) | ({"edition": edition} if edition else {})
            op = {"op": "set_content", "at": at, "if_match": holder["rev"]}
            op["text"] = f"{holder['text']} {again}"
            _, result = apply({"mode": "preview", "ops": [op]}, tmp_path)
            if code["constraints"]["cloneable"]:
                assert result["status"] == "previewed", (token, code, result)
            else:
                error = result["ops"][0]["error"]
                assert (error["code"], error["subcode"]) == ("guard", "codes_changed"), error
                assert token in error.get("found", ""), error


def test_every_format_fixture_has_a_code_the_matrix_judges() -> None:
    """The matrix above is not vacuous: across the fixtures both verdicts are driven."""
    judged: dict[str, set[bool]] = {}
    with_codes = 0
    for source in TEXT_FILES:
        done = kapi("inspect", str(source.name), cwd=source.parent)
        records = json.loads(done.stdout)
        free, fixed = _drops(records)
        if free or fixed:
            with_codes += 1
        for drop in free + fixed:
            judged.setdefault(drop["code"]["kind"], set()).add(
                drop["code"]["constraints"]["deletable"]
            )
    assert with_codes >= 15
    assert judged["paired"] >= {True, False}
    assert judged["standalone"] >= {True, False}
    assert judged["placeholder"] == {False}


def test_the_contract_page_states_the_constraints_the_guard_holds() -> None:
    """Each row of the type table in docs/change-contract.md is what a read says of such a code."""
    from kapi.core.change.reading import code_infos
    from kapi.core.format import FormatCapabilities
    from kapi.core.model import PcClose, PcOpen, Ph

    page = (ROOT / "docs/change-contract.md").read_text(encoding="utf-8")
    rows = re.findall(
        r"^\| (`[^|]*`[^|]*) \| (`[^|]*`[^|]*) \| (yes|no) \| (yes|no) \| (yes|no) \|$", page, re.M
    )
    assert len(rows) == 4
    caps = FormatCapabilities(name="any")
    checked = 0
    for types, kinds, deletable, cloneable, reorderable in rows:
        expected = {
            "deletable": deletable == "yes",
            "cloneable": cloneable == "yes",
            "reorderable": reorderable == "yes",
        }
        shown = set(re.findall(r"`([^`]+)`", kinds))
        for name in re.findall(r"`([^`]+)`", types):
            name = name.replace("*", "any")
            matched = 0
            for runs in ((Ph("1", name),), (PcOpen("1", name), PcClose("1", name))):
                (info,) = (code_infos(runs, caps) or {}).values()
                if info.kind in shown:
                    assert attrs.asdict(info.constraints) == expected, name
                    matched += 1
            assert matched == len(shown), (name, shown)
            checked += matched
        if "untyped" in types:
            (info,) = (code_infos((Ph("1"),), caps) or {}).values()
            assert (info.kind, attrs.asdict(info.constraints)) == ("placeholder", expected)
    assert checked >= 16


def _code_types(records: list[dict[str, Any]]) -> dict[str, dict[str, bool]]:
    found: dict[str, dict[str, bool]] = {}
    for record in records:
        holders = [record, *(record.get("editions") or {}).values()]
        holders += [s for h in list(holders) for s in h.get("structures") or ()]
        for holder in holders:
            for code in (holder.get("codes") or {}).values():
                if code["kind"] != "subblock":
                    found.setdefault(code.get("type", ""), code["constraints"])
    return found


@pytest.mark.parametrize("source", CASES)
def test_kapi_formats_declares_every_code_type_a_reader_makes(
    source: Path | str, tmp_path: Path
) -> None:
    from kapi.formats import registry

    declared = {
        f["name"]: f["codes"] for f in json.loads(kapi("formats", "--json", cwd=tmp_path).stdout)
    }
    path = _place(source, tmp_path)
    name = registry.detect(path.name, path.read_bytes()[:4096]).name
    made = _code_types(inspect(path))
    assert set(made) <= set(declared[name]), (name, sorted(set(made) - set(declared[name])))
    assert made == {kind: declared[name][kind] for kind in made}


def _pages() -> Any:
    from hypothesis import strategies as st

    from kapi.core.change.read import BlockRead, CodeInfo, ReadPage, Structure
    from kapi.core.change.result import ResultRef
    from kapi.core.model import Constraints

    labels = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
    infos = st.builds(
        CodeInfo,
        kind=st.sampled_from(["paired", "placeholder", "standalone"]),
        type=st.none() | st.sampled_from(["fmt:bold", "code:placeholder", "fmt:code"]),
        equiv=st.none() | labels.filter(bool),
        disp=st.none() | labels.filter(bool),
        constraints=st.none() | st.builds(Constraints, st.booleans(), st.booleans(), st.booleans()),
    )
    codes = st.none() | st.dictionaries(st.sampled_from(["1", "2/", "3/"]), infos, min_size=1)
    structure = st.builds(
        Structure,
        path=st.just((0,)),
        kind=st.just("plural"),
        branches=st.just({"other": '<x id="2/"/> files'}),
        codes=codes,
    )
    block = st.builds(
        BlockRead,
        ref=st.just(ResultRef(doc="en.json", block="cart")),
        rev=st.just("r:0123456789abcdef"),
        text=st.just('<x id="2/"/>'),
        ops=st.just(("set_content",)),
        codes=codes,
        structures=st.none() | st.tuples(structure),
    )
    return st.builds(
        ReadPage,
        doc=st.just("en.json"),
        home=st.just("file"),
        format=st.just("json"),
        head=st.just("sha256:" + "0" * 64),
        blocks=st.lists(block, max_size=3).map(tuple),
    )


def test_any_read_page_with_code_constraints_round_trips_and_fits_the_read_schema() -> None:
    from hypothesis import given, settings
    from jsonschema import Draft202012Validator

    from kapi.core.change.decode import decode_read_page
    from kapi.core.change.schema import read_page_schema
    from kapi.core.change.wire import dumps, encode_read_page

    validator = Draft202012Validator(read_page_schema())

    @settings(max_examples=150, deadline=None)
    @given(_pages())
    def round_trip(page: Any) -> None:
        validator.validate(encode_read_page(page))
        assert decode_read_page(dumps(page)) == page

    round_trip()
