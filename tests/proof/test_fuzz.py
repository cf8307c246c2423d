"""Fuzzing every parser kapi exposes: each input is read or refused with the documented error.

The targets and what each must do are :mod:`tests.proof.fuzzing`'s: every
format reader of the registry (mutated fixtures and random bytes; a document
read must write back to its own bytes), the main XML part of each office
package, the change-set decoder, the edit-text parser, the three hook
payload readers, and the importers of terms (JSON, TBX, CSV), TMX, the recipe,
voice profiles, the context log and ``--diff-file`` diffs. Hypothesis draws the mutations (so a finding shrinks to a
small input); a deadline turns a hang into a failure. Under
``KAPI_PROOF_LONG=1`` each target gets many more examples, and also runs for
a while in a subprocess whose address space is capped, so unbounded memory
fails too. The regression tests below hold the inputs the fuzzers found.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kapi.core.format import FormatError
from kapi.formats import registry
from kapi.formats.builtin import SPECS
from tests.proof import fuzzing
from tests.proof.conftest import LONG, scale

ROOT = Path(__file__).resolve().parents[2]
SHOP = ROOT / "examples/shop"
TARGETS = fuzzing.targets()
# examples per target in a normal run: the hook and store-import targets open a project per input
EXAMPLES = {"hook": 20, "store-import": 20, "office-part": 50, "format": 100}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fuzz") / "shop"
    shutil.copytree(SHOP, root)
    return root


@pytest.mark.parametrize("target", TARGETS)
def test_every_input_is_read_or_refused_with_the_documented_error(target, project):
    short = EXAMPLES.get(target.partition(":")[0], 60)

    @settings(
        max_examples=scale(short, 40 * short),
        deadline=None,
        derandomize=not LONG,  # the normal run is the same every time
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.randoms(use_true_random=False))
    def one(rng):
        fuzzing.check(target, fuzzing.generate(target, rng), project=project)

    one()


@pytest.mark.skipif(
    not LONG, reason="the memory-capped run is the long version (KAPI_PROOF_LONG=1)"
)
@pytest.mark.parametrize("target", TARGETS)
def test_long_run_in_a_memory_capped_process(target, project):
    seconds = float(os.environ.get("KAPI_PROOF_SECONDS", "60"))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.proof.fuzzing",
            target,
            "--seconds",
            str(seconds),
            "--memory-mb",
            "2048",
            "--seed",
            str(os.getpid()),
            "--project",
            str(project),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=seconds * 3 + 120,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["runs"] > 0 and report["findings"] == []


def test_the_targets_cover_every_format_of_the_registry():
    names = {target.partition(":")[2] for target in TARGETS if target.startswith("format:")}
    assert names == {spec.name for spec in SPECS} and len(names) == len(SPECS)
    for target in TARGETS:
        assert fuzzing.seeds(target), target


def test_a_finding_is_reported_with_its_target_and_error():
    with pytest.raises(fuzzing.Finding, match=r"format:json: raised TypeError"):
        fuzzing.check("format:json", None)  # type: ignore[arg-type]


def test_a_hang_is_a_finding():
    with pytest.raises(fuzzing.Hang), fuzzing.deadline(0.05):
        while True:
            pass


# --- what the fuzzers found --------------------------------------------------------------


def read(name: str, data: bytes):
    return registry.load_codec(name).read(data, path=f"f{registry.get(name).extensions[0]}")


@pytest.mark.parametrize("encoding", ["Mtf-8", "shift_jis", "rot13", "punycode"])
def test_an_android_file_declaring_an_unknown_encoding_is_read_as_the_utf_8_it_is(encoding):
    data = f'<?xml version="1.0" encoding="{encoding}"?>\n<resources><string name="a">Grüße</string></resources>'
    document = read("androidxml", data.encode())
    assert document.blocks[0].source[0].text == "Grüße"
    assert registry.load_codec("androidxml").write(document) == data.encode()


@pytest.mark.parametrize("name", ["androidxml", "xliff", "stringsdict"])
def test_an_xml_error_reported_inside_a_character_is_placed_at_that_character(name):
    """expat reports the error in ``1\\x00\\ufeff<?xml`` at a byte inside the U+FEFF."""
    root = {"androidxml": "resources", "xliff": 'xliff version="1.2"', "stringsdict": "plist"}[name]
    data = b"\xef\xbb\xbf1\x00\xef\xbb\xbf<?xml version='1.0'?><" + root.encode() + b"/>"
    with pytest.raises(FormatError) as refused:
        read(name, data)
    assert (refused.value.line, refused.value.column) == (1, 3)
    assert "not well-formed XML" in refused.value.message


def test_an_android_quantity_the_file_spells_is_kept_when_the_file_is_written():
    data = (
        b'<resources>\n  <plurals name="apples">\n    <item quantity="-ne">%d apple</item>\n'
        b'    <item quantity="other">%d apples</item>\n  </plurals>\n</resources>\n'
    )
    codec = registry.load_codec("androidxml")
    assert codec.write(read("androidxml", data)) == data


@pytest.mark.parametrize(
    ("name", "template"),
    [
        (
            "xliff",
            '<?xml version="1.0" encoding="{}"?><xliff version="1.2"><file><body/></file></xliff>',
        ),
        (
            "xliff2",
            '<?xml version="1.0" encoding="{}"?><xliff version="2.0"><file id="f"/></xliff>',
        ),
        ("stringsdict", '<?xml version="1.0" encoding="{}"?><plist><dict/></plist>'),
        ("html", '<html><head><meta charset="{}"></head><body><p>h\xe9</p></body></html>'),
        (
            "po",
            'msgid ""\nmsgstr "Content-Type: text/plain; charset={}\\n"\n\nmsgid "a"\nmsgstr "b"\n',
        ),
    ],
)
@pytest.mark.parametrize(
    "encoding", ["rot13", "hex", "zlib", "uu", "punycode", "undefined", "idna", "utf-7"]
)
def test_a_declared_encoding_that_is_no_text_encoding_is_refused_or_ignored(
    name, template, encoding
):
    data = template.format(encoding).encode("latin-1")
    try:
        document = read(name, data)
    except FormatError as err:
        assert err.code in ("unsupported", "invalid") and err.message
        return
    assert registry.load_codec(name).write(document) == data


@pytest.mark.parametrize("encoding", ["Mtf-8", "shift_jis", "rot13", "idna"])
def test_an_office_part_declaring_an_encoding_expat_cannot_use_is_refused(encoding):
    package = fuzzing.with_part(
        "docx",
        fuzzing.seeds("office-part:docx")[0].replace(
            b'encoding="UTF-8"', f'encoding="{encoding}"'.encode()
        ),
    )
    with pytest.raises(FormatError) as refused:
        read("docx", package)
    assert refused.value.code == "unsupported"
    assert "word/document.xml declares an encoding kapi cannot read" in refused.value.message


def test_a_package_is_found_by_its_part_names_only_inside_itself():
    """A part name that climbs (zip slip) names nothing kapi reads or writes."""
    parts = {}
    with zipfile.ZipFile(io.BytesIO(fuzzing.seeds("format:docx")[0])) as archive:
        parts = {info.filename: archive.read(info) for info in archive.infolist()}
    parts["../../evil.xml"] = b"<x/>"
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for part, content in parts.items():
            archive.writestr(part, content)
    fuzzing.check("format:docx", out.getvalue())


@pytest.mark.parametrize(
    "text",
    [
        "defaults:\n  " + "? " * 30 + "\n",  # keys nested in keys: exponential in ruamel
        "[a]: 1\n",
        "{a: b}: c\n",
    ],
)
def test_a_yaml_key_that_is_a_mapping_or_a_list_is_refused_at_once(text):
    from kapi.host.yaml import YamlSyntaxError, load_yaml

    with (
        pytest.raises(YamlSyntaxError, match="a key is a plain value") as refused,
        fuzzing.deadline(2),
    ):
        load_yaml(text)
    assert refused.value.line == (2 if text.startswith("defaults") else 1)


@pytest.mark.parametrize("text", ["- " * 2000 + "x\n", "[" * 2000, "{a: " * 2000])
def test_yaml_nested_too_deeply_is_a_syntax_error(text):
    from kapi.host.yaml import YamlSyntaxError, load_plain, load_yaml

    for load in (load_yaml, load_plain):
        with pytest.raises(YamlSyntaxError, match="nested too deeply"):
            load(text)
    fuzzing.check("voice", text.encode())
    fuzzing.check("recipe", text.encode())


def test_a_terms_bundle_key_ending_in_a_dot_is_placed_at_its_parent_line():
    """The unknown key ``s1. tatus`` is reported as ``…terms[0].s1.``; finding its line looped."""
    from kapi.host.errors import HostError
    from kapi.host.terms import _parse

    data = (
        b'{"schemaVersion": "1.0", "kind": "kapi-terms", "concepts": [\n'
        b'  {"id": "c", "terms": [\n    {"text": "a", "locale": "en", "s1. tatus": "x"}]}]}'
    )
    with pytest.raises(HostError) as refused, fuzzing.deadline(2):
        _parse(data, "json", "t.json")
    assert refused.value.message.startswith("t.json:3: concepts[0].terms[0].s1.:")


@pytest.mark.parametrize(
    ("snippet", "line", "key"),
    [
        ("profiles:\n  app: shop-ui\n", 3, "profiles.app"),
        ("profiles:\n  app: 2026-01-01\n", 3, "profiles.app"),
        ("profiles: [app]\n", 2, "profiles"),
        ("profiles:\n  app:\n    channels: 7\n", 4, "profiles.app.channels"),
        ("defaults:\n  coordinates: [eu]\n", 3, "defaults.coordinates"),
        (
            "collections:\n  - path: a.json\n    coordinates: [eu]\n",
            4,
            "collections[0].coordinates",
        ),
    ],
)
def test_a_recipe_whose_profiles_or_coordinates_have_another_shape_names_the_key(
    snippet, line, key
):
    from kapi.host.errors import HostError
    from kapi.host.project import RecipeError, _project_of
    from kapi.host.yaml import load_yaml

    with pytest.raises(RecipeError) as refused:
        _project_of(Path("/p/kapi.yaml"), load_yaml("version: v1\n" + snippet))
    assert isinstance(refused.value, HostError) and refused.value.exit_code == 2
    assert f"kapi.yaml:{line}: {key}:" in refused.value.message
    fuzzing.check("recipe", ("version: v1\n" + snippet).encode())


@pytest.mark.parametrize(
    "header", ["@@ -1 +\u00b2 @@", "@@ -1 +" + "9" * 5000 + " @@", "+++ b/a\x00b"]
)
def test_a_diff_with_a_line_number_or_a_name_no_file_has_is_a_usage_error(header):
    from kapi.host.checking import changed_lines
    from kapi.host.errors import HostError

    with pytest.raises(HostError) as refused:
        changed_lines("--- a/a\n+++ b/a\n" + header + "\n+x\n")
    assert refused.value.exit_code == 2 and refused.value.message.startswith("diff: ")


def test_a_context_log_line_holding_a_lone_surrogate_is_refused_whole(tmp_path):
    """``"\\ud800"`` decodes to a string the project's store cannot encode."""
    from kapi.core.change.ports import Actor, ActorKind
    from kapi.core.context.errors import ContextError
    from kapi.host.context_store import import_store
    from kapi.host.project import load_project
    from kapi.host.workspace import Workspace

    line = json.dumps({"id": "0" * 24, "kind": "observe", "actor": {"kind": "agent"}})
    data = (line.replace('"observe"', '"observe", "note": "a\\ud800"') + "\n").encode()
    root = tmp_path / "project"
    shutil.copytree(fuzzing._store_project(), root)
    with Workspace(root, load_project(root / "kapi.yaml")) as workspace:
        with pytest.raises(ContextError, match=r"c.jsonl:1: a string holds a lone surrogate"):
            import_store(data, "c.jsonl", workspace, Actor(ActorKind.PERSON, "ana"))
        assert workspace.store is not None and workspace.store.context_log() == []
    fuzzing.check("store-import", data)
