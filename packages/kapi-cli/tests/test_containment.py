"""Nothing outside the root: change sets, file arguments, globs and symlinks stay inside.

The root is the project's folder, or the current folder without a project.
Every attempt runs the real ``kapi`` executable and asserts that the outside
file is untouched, that its text appears nowhere in the output, and that no
traceback is printed.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

KAPI = Path(sys.executable).with_name("kapi")
SECRET = "outside secret text"
RECIPE = """version: v1
name: contained
defaults:
  source_language: en
collections:
  - name: ui
    content:
      - path: "locales/*.json"
"""


def run(root: Path, *args: str, stdin: str | bytes | None = None, project: bool = True):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KAPI_", "CLAUDE", "CODEX"))}
    if not project:
        env["KAPI_NO_PROJECT"] = "1"
    data = stdin.encode() if isinstance(stdin, str) else stdin
    return subprocess.run(
        [str(KAPI), *args], cwd=root, input=data, capture_output=True, timeout=60, env=env
    )


@pytest.fixture(params=["project", "no project"])
def layout(request, tmp_path):
    """``(root, outside, project)``: a root with a catalogue, and files beside it it must not reach."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "o.json").write_text(json.dumps({"a": SECRET}))
    (tmp_path / "outside.json").write_text(json.dumps({"a": SECRET}))
    root = tmp_path / "root"
    (root / "locales").mkdir(parents=True)
    (root / "locales/en.json").write_text('{"a": "Hello"}\n')
    if request.param == "project":
        (root / "kapi.yaml").write_text(RECIPE)
    (root / "locales/link.json").symlink_to(outside / "o.json")
    (root / "locales/zero.json").symlink_to("/dev/zero")
    (root / "locales/random.json").symlink_to("/dev/urandom")
    (root / "linked").symlink_to(outside)
    return root, tmp_path, request.param == "project"


def untouched(base: Path) -> None:
    assert json.loads((base / "outside.json").read_text()) == {"a": SECRET}
    assert json.loads((base / "outside/o.json").read_text()) == {"a": SECRET}


def quiet(completed) -> str:
    """Everything the run printed; asserts it holds no outside text and no traceback."""
    text = completed.stdout.decode() + completed.stderr.decode()
    assert SECRET not in text
    assert "Traceback" not in text
    return text


OUTSIDE_DOCS = [
    "../outside.json",
    "{base}/outside.json",
    "a/../../outside.json",
    "locales/en.json/../../../outside.json",
    "//{base}/outside.json",
    "locales/link.json",
    "linked/o.json",
    "../root/../outside.json",
    "locales/zero.json",
    "locales/random.json",
]


@pytest.mark.parametrize("doc", OUTSIDE_DOCS)
@pytest.mark.parametrize("if_match", ["r:0000000000000000", "*"])
def test_a_change_set_naming_a_file_outside_is_refused_before_any_read(layout, doc, if_match):
    root, base, project = layout
    doc = doc.format(base=base)
    op = {"op": "set_content", "at": {"doc": doc, "block": "a"}, "if_match": if_match}
    change = json.dumps({"ops": [{**op, "text": "written outside"}]})
    completed = run(root, "apply", "--json", "-", stdin=change, project=project)
    quiet(completed)
    assert completed.returncode == 2
    result = json.loads(completed.stdout)
    error = result["ops"][0]["error"]
    assert (error["code"], error["pointer"]) == ("invalid", "/ops/0/at/doc")
    assert "outside the" in error["message"]
    untouched(base)


def test_a_nul_byte_in_a_document_path_is_invalid(layout):
    root, _base, project = layout
    op = {"op": "set_content", "at": {"doc": "locales/\u0000en.json", "block": "a"}}
    change = json.dumps({"ops": [{**op, "if_match": "r:0000000000000000", "text": "x"}]})
    completed = run(root, "apply", "--json", "-", stdin=change, project=project)
    quiet(completed)
    assert completed.returncode == 2
    assert json.loads(completed.stdout)["error"]["pointer"] == "/ops/0/at/doc"


@pytest.mark.parametrize(
    "argument",
    [
        "../outside.json",
        "{base}/outside.json",
        "locales/link.json",
        "linked/o.json",
        "linked",
        "locales/zero.json",
        "locales/random.json",
    ],
)
@pytest.mark.parametrize("verb", ["inspect", "check", "stats"])
def test_a_file_argument_outside_is_a_usage_error(layout, verb, argument):
    root, base, project = layout
    completed = run(root, verb, argument.format(base=base), project=project)
    text = quiet(completed)
    assert completed.returncode == 2
    assert "outside the" in text


@pytest.mark.parametrize("pattern", ["../*.json", "{base}/*.json", "linked/*.json", "../**/*.json"])
@pytest.mark.parametrize("verb", ["inspect", "check", "stats"])
def test_a_glob_reaching_outside_is_a_usage_error(layout, verb, pattern):
    root, base, project = layout
    completed = run(root, verb, pattern.format(base=base), project=project)
    quiet(completed)
    assert completed.returncode == 2


@pytest.mark.parametrize("verb", ["inspect", "stats"])
def test_globs_and_folders_never_yield_a_link_that_leads_outside(layout, verb):
    root, _base, project = layout
    for argument in ("locales/*.json", "locales", "."):
        completed = run(
            root, verb, "--json" if verb == "stats" else "--jsonl", argument, project=project
        )
        text = quiet(completed)
        assert completed.returncode == 0, text
        assert "link.json" not in text
        assert verb == "stats" or "Hello" in text


def test_declared_content_leaves_out_links_that_lead_outside(tmp_path):
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps({"a": SECRET}))
    root = tmp_path / "root"
    (root / "locales").mkdir(parents=True)
    (root / "kapi.yaml").write_text(RECIPE)
    (root / "locales/en.json").write_text('{"a": "Hello"}\n')
    (root / "locales/out.json").symlink_to(outside)
    completed = run(root, "inspect", "--jsonl")
    quiet(completed)
    assert completed.returncode == 0
    docs = {json.loads(line)["ref"]["doc"] for line in completed.stdout.decode().splitlines()}
    assert docs == {"locales/en.json"}


def test_a_target_template_leading_outside_is_refused(tmp_path):
    (tmp_path / "fr.json").write_text(json.dumps({"a": SECRET}))
    root = tmp_path / "root"
    (root / "locales").mkdir(parents=True)
    (root / "locales/en.json").write_text('{"a": "Hello"}\n')
    (root / "kapi.yaml").write_text(
        RECIPE.replace("target_languages: []", "")
        .replace("  source_language: en\n", "  source_language: en\n  target_languages: [fr]\n")
        .replace(
            '      - path: "locales/*.json"',
            '      - path: "locales/en.json"\n        target: ../../{lang}.json',
        )
    )
    completed = run(root, "inspect", "locales/en.json")
    text = quiet(completed)
    assert completed.returncode == 2
    assert "outside the project" in text
    change = {"op": "set_content", "at": {"doc": "locales/en.json", "block": "a", "edition": "fr"}}
    change = json.dumps({"ops": [{**change, "if_match": "*", "text": "written outside"}]})
    completed = run(root, "apply", "-", stdin=change)
    quiet(completed)
    assert completed.returncode in (2, 3)
    assert json.loads((tmp_path / "fr.json").read_text()) == {"a": SECRET}


def test_two_spellings_of_one_document_are_one_document(layout):
    root, _base, project = layout
    [record] = json.loads(run(root, "inspect", "locales/en.json", project=project).stdout)

    def change(second: str) -> str:
        ops = [
            {
                "op": "set_content",
                "at": {"doc": doc, "block": "a"},
                "if_match": record["rev"],
                "text": text,
            }
            for doc, text in (("locales/en.json", "Hi"), (second, "Hey"))
        ]
        return json.dumps({"ops": ops})

    preview = run(
        root, "apply", "--json", "--dry-run", "-", stdin=change("locales/en.json"), project=project
    )
    completed = run(
        root, "apply", "--json", "-", stdin=change("locales/./en.json"), project=project
    )
    quiet(completed)
    result, same = json.loads(completed.stdout), json.loads(preview.stdout)
    # The second spelling is the same document: one plan, one write, as if spelled alike.
    assert [d["doc"] for d in result["docs"]] == [d["doc"] for d in same["docs"]]
    assert [d["doc"] for d in result["docs"]] == ["locales/en.json"]
    assert [o["status"] for o in result["ops"]] == [
        "applied" if o["status"] == "previewed" else o["status"] for o in same["ops"]
    ]
    assert sorted(p.name for p in (root / "locales").iterdir()) == [
        "en.json",
        "link.json",
        "random.json",
        "zero.json",
    ]


def test_a_symlink_inside_the_root_to_a_file_inside_is_one_document(layout):
    root, _base, project = layout
    (root / "locales/alias.json").symlink_to("en.json")
    [record] = json.loads(run(root, "inspect", "locales/alias.json", project=project).stdout)
    assert record["ref"]["doc"] == "locales/en.json"
    op = {"op": "set_content", "at": {"doc": "locales/alias.json", "block": "a"}}
    change = json.dumps({"ops": [{**op, "if_match": record["rev"], "text": "Hi"}]})
    completed = run(root, "apply", "-", stdin=change, project=project)
    quiet(completed)
    assert completed.returncode == 0
    assert (root / "locales/alias.json").is_symlink()
    assert (root / "locales/en.json").read_text() == '{"a": "Hi"}\n'


def test_a_project_whose_root_is_a_symlink_works_and_stays_contained(tmp_path):
    real = tmp_path / "real"
    (real / "locales").mkdir(parents=True)
    (real / "kapi.yaml").write_text(RECIPE)
    (real / "locales/en.json").write_text('{"a": "Hello"}\n')
    (tmp_path / "outside.json").write_text(json.dumps({"a": SECRET}))
    link = tmp_path / "link"
    link.symlink_to(real)
    [record] = json.loads(run(link, "inspect", "locales/en.json").stdout)
    op = {"op": "set_content", "at": {"doc": "locales/en.json", "block": "a"}}
    change = json.dumps({"ops": [{**op, "if_match": record["rev"], "text": "Hi"}]})
    assert run(link, "apply", "-", stdin=change).returncode == 0
    assert (real / "locales/en.json").read_text() == '{"a": "Hi"}\n'
    outside = json.dumps(
        {
            "ops": [
                {**op, "at": {"doc": "../outside.json", "block": "a"}, "if_match": "*", "text": "x"}
            ]
        }
    )
    completed = run(link, "apply", "-", stdin=outside)
    quiet(completed)
    assert completed.returncode == 2
    assert json.loads((tmp_path / "outside.json").read_text()) == {"a": SECRET}


# --- files that are not regular files --------------------------------------------------------


def _special(root: Path, kind: str) -> str:
    path = root / "locales" / f"{kind}.json"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
        server.close()
    elif kind == "device":
        if os.geteuid() != 0:
            pytest.skip("making a device node needs root")
        os.mknod(path, 0o600 | 0o020000, os.makedev(1, 5))  # a character device, like /dev/zero
    elif kind == "loop":
        (root / "locales/loop-b.json").symlink_to("loop.json")
        path = root / "locales/loop.json"
        path.symlink_to("loop-b.json")
    elif kind == "folder":
        path = root / "locales" / "folder.json"
        path.mkdir()
    return path.relative_to(root).as_posix()


@pytest.mark.parametrize("kind", ["fifo", "socket", "device", "loop", "folder"])
def test_a_document_that_is_not_a_regular_file_is_refused_without_blocking(layout, kind):
    root, _base, project = layout
    name = _special(root, kind)
    completed = run(root, "inspect", name, project=project)
    text = quiet(completed)
    if kind == "folder":  # a folder argument means the files in it: none here
        assert (completed.returncode, completed.stdout) == (0, b"[]\n")
    else:
        assert completed.returncode == 2
        assert name in text
    op = {"op": "set_content", "at": {"doc": name, "block": "a"}, "if_match": "*", "text": "x"}
    completed = run(root, "apply", "--json", "-", stdin=json.dumps({"ops": [op]}), project=project)
    quiet(completed)
    assert completed.returncode == 2
    assert json.loads(completed.stdout)["status"] == "refused"
    if kind != "folder":
        completed = run(root, "check", name, project=project)
        quiet(completed)
        assert completed.returncode == 4  # did not run: named, and nothing could be read


@pytest.mark.parametrize("key", ["path", "target"])
@pytest.mark.parametrize("value", ["../outside/*.json", "/etc/*.json", "a/../../x/{lang}.json"])
def test_a_recipe_pattern_leading_outside_names_its_line_and_key(tmp_path, key, value):
    (tmp_path / "locales").mkdir()
    (tmp_path / "locales/en.json").write_text('{"a": "Hello"}\n')
    item = {"path": "locales/en.json", "target": "locales/{lang}.json", key: value}
    (tmp_path / "kapi.yaml").write_text(
        RECIPE.replace('      - path: "locales/*.json"\n', "")
        + f'      - path: "{item["path"]}"\n        target: "{item["target"]}"\n'
    )
    completed = run(tmp_path, "inspect")
    text = quiet(completed)
    assert completed.returncode == 2
    assert f"kapi.yaml:{8 if key == 'path' else 9}: collections[0].content[0].{key}" in text
    assert "leads outside the project" in text
