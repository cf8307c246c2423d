"""`ksed`, the console script: sed's s command over block text, landed through the change service."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from kapi.host.errors import HostError
from kapi.host.toolbox_sed import parse_script

BIN = Path(sys.executable).parent
REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO / "packages" / "kapi-formats" / "tests" / "fixtures"

RECIPE = """version: v1
name: shop
defaults:
  source_language: en
  target_languages: [fr]
collections:
  - name: ui
    content:
      - path: locales/en.json
        target: locales/{lang}.json
"""

UI = (
    '{\n  "greeting": "Hello, {name}!",\n  "cart": {\n    "empty": "Your cart is empty",\n'
    '    "pay": "Pay for your cart"\n  },\n  "help": "Simply contact support"\n}\n'
)


def office_bytes(kind: str) -> bytes:
    spec = importlib.util.spec_from_file_location("office_made", REPO / "tests" / "office_made.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.office_bytes(kind)  # type: ignore[no-any-return]


def environment(actor: str = "person", project: bool = False) -> dict[str, str]:
    env = {**os.environ, "KAPI_ACTOR": actor, "PYTHONDONTWRITEBYTECODE": "1"}
    for name in ("KAPI_PROJECT", "CLAUDECODE", "CODEX_SESSION_ID"):
        env.pop(name, None)
    if project:
        env.pop("KAPI_NO_PROJECT", None)
    else:
        env["KAPI_NO_PROJECT"] = "1"
    return env


def run(tool: str, *args: str, cwd: Path, stdin: str = "", **kwargs: object):
    return subprocess.run(
        [str(BIN / tool), *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=environment(**kwargs),  # type: ignore[arg-type]
        check=False,
    )


def run_bytes(tool: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [str(BIN / tool), *args], cwd=cwd, capture_output=True, env=environment(), check=False
    )


def on_a_terminal(tool: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """Run with stdout on a pseudo-terminal, drained as a terminal would show it."""
    import threading

    primary, secondary = os.openpty()
    shown: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                chunk = os.read(primary, 65536)
            except OSError:
                return
            if not chunk:
                return
            shown.append(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        done = subprocess.run(
            [str(BIN / tool), *args],
            cwd=cwd,
            stdout=secondary,
            stderr=subprocess.PIPE,
            env=environment(),
            check=False,
        )
    finally:
        os.close(secondary)
        reader.join(timeout=10)
        os.close(primary)
    return subprocess.CompletedProcess(done.args, done.returncode, b"".join(shown), done.stderr)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for name in ("po/basic.po", "markdown/guide.md", "xliff/okapi.xlf"):
        shutil.copy(FIXTURES / name, tmp_path / Path(name).name)
    (tmp_path / "report.docx").write_bytes(office_bytes("docx"))
    (tmp_path / "ui.json").write_text(UI, encoding="utf-8")
    return tmp_path


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


# --- the script ------------------------------------------------------------------------------


def test_scripts_parse_as_sed_writes_them() -> None:
    (command,) = parse_script("s|a/b|c|g")
    assert command.pattern.pattern == "a/b" and command.every
    (escaped,) = parse_script(r"s/a\/b/x\/y/")
    assert escaped.pattern.pattern == r"a\/b" and escaped.replacement == ("x/y",)
    (groups,) = parse_script(r"s/(\w+) (\w+)/\2 \1 & \& \n/2i")
    assert groups.replacement == (2, " ", 1, " ", 0, " & \n")
    assert groups.occurrence == 2 and groups.pattern.flags & 2  # re.IGNORECASE
    assert len(parse_script("s/a/b/; s/c/d/g\ns/e/f/")) == 3
    for script, says in (
        ("s/a/b", "unterminated"),
        ("y/a/b/", "unknown command"),
        ("s/a/b/q", "unknown option"),
        ("s/(/x/", "bad regexp"),
        (r"s/a/\1/", "invalid reference"),
        ("s//x/", "empty"),
        ("", "no command"),
    ):
        with pytest.raises(HostError, match=says) as refused:
            parse_script(script)
        assert refused.value.exit_code == 2


def test_compile_sed_edits_text_by_position_and_a_taken_code_by_content(tmp_path: Path) -> None:
    from kapi.host.toolbox_sed import SedRequest, compile_sed
    from kapi.host.workspace import open_workspace

    (tmp_path / "ui.json").write_text(UI, encoding="utf-8")
    with open_workspace(cwd=tmp_path, environ={"KAPI_NO_PROJECT": "1"}) as workspace:
        plan = compile_sed(
            SedRequest(scripts=("s/cart/basket/g; s/, {name}//",), paths=("ui.json",)),
            workspace,
        )
    by_block = {op.at.block: op for op in plan.change_set.ops}
    empty = by_block["cart.empty"]
    assert empty.op == "replace_text"
    assert [(e.start, e.end, e.text) for e in empty.edits] == [(5, 9, "basket")]
    greeting = by_block["greeting"]  # the match took the placeholder: the guard will decide
    assert greeting.op == "set_content" and greeting.text == "Hello!"
    assert plan.replaced == 3


def test_run_sed_to_stdout_lands_in_memory(tmp_path: Path) -> None:
    from kapi.host.actor import actor_from_env
    from kapi.host.toolbox_sed import SedRequest, run_sed
    from kapi.host.workspace import open_workspace

    (tmp_path / "ui.json").write_text(UI, encoding="utf-8")
    with open_workspace(cwd=tmp_path, environ={"KAPI_NO_PROJECT": "1"}) as workspace:
        outcome = run_sed(
            SedRequest(scripts=("s/Simply contact/Contact/",), paths=("ui.json",)),
            workspace,
            actor=actor_from_env({"KAPI_ACTOR": "person"}),
        )
    assert outcome.exit_code == 0
    assert outcome.outputs == (("ui.json", UI.replace("Simply contact", "Contact").encode()),)
    assert (tmp_path / "ui.json").read_text(encoding="utf-8") == UI


# --- landing -------------------------------------------------------------------------------


def test_stdout_gets_the_edited_document_and_the_file_is_left_alone(folder: Path) -> None:
    before = snapshot(folder)
    done = run("ksed", "s/cart/basket/g", "ui.json", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert done.stdout == UI.replace("cart is", "basket is").replace("your cart", "your basket")
    assert snapshot(folder) == before


def test_in_place_changes_only_what_matched(folder: Path) -> None:
    done = run("ksed", "-i", "s/Simply contact/Contact/", "ui.json", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert (folder / "ui.json").read_text(encoding="utf-8") == UI.replace(
        "Simply contact", "Contact"
    )
    assert "applied" in done.stderr and not (folder / "ui.json.bak").exists()


def test_a_backup_is_kept_inside_the_folder_after_the_set_lands(folder: Path) -> None:
    original = (folder / "basic.po").read_bytes()
    done = run("ksed", "-i.orig", "s/Welcome/Hello/", "basic.po", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert (folder / "basic.po.orig").read_bytes() == original
    assert b'msgid "Hello"' in (folder / "basic.po").read_bytes()
    assert "basic.po.orig" in done.stderr


def test_a_backup_may_not_lead_outside_the_folder(
    folder: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (folder / "ui.json.bak").symlink_to(elsewhere / "stolen.json")
    before = (folder / "ui.json").read_bytes()
    done = run("ksed", "-i.bak", "s/cart/basket/", "ui.json", cwd=folder)
    assert (
        done.returncode == 2 and "outside" in done.stderr and "nothing was changed" in done.stderr
    )
    assert (folder / "ui.json").read_bytes() == before
    assert not (elsewhere / "stolen.json").exists()
    climbing = run("ksed", "-i/../../x", "s/cart/basket/", "ui.json", cwd=folder)
    assert climbing.returncode == 2 and "slash" in climbing.stderr
    assert (folder / "ui.json").read_bytes() == before


def test_print_ops_applies_unchanged_with_kapi_apply(folder: Path) -> None:
    script = r"s/(Y|y)our/\1our own/g;s/Hello/& there/"
    printed = run("ksed", "--print-ops", script, "ui.json", "basic.po", cwd=folder)
    assert printed.returncode == 0, printed.stderr
    change_set = json.loads(printed.stdout)
    assert change_set["schema"] == "kapi.change/v1"
    kinds = {op["op"] for op in change_set["ops"]}
    assert kinds == {"replace_text"}
    assert all(op["if_match"].startswith("r:") for op in change_set["ops"])
    twin = folder / "twin"
    twin.mkdir()
    for name in ("ui.json", "basic.po"):
        shutil.copy(folder / name, twin / name)
    (folder / "set.json").write_text(printed.stdout, encoding="utf-8")
    applied = run("kapi", "apply", "set.json", cwd=folder)
    assert applied.returncode == 0, applied.stderr
    landed = run("ksed", "-i", script, "ui.json", "basic.po", cwd=twin)
    assert landed.returncode == 0, landed.stderr
    for name in ("ui.json", "basic.po"):
        assert (folder / name).read_bytes() == (twin / name).read_bytes()
    assert "Your own cart is empty" in (folder / "ui.json").read_text(encoding="utf-8")
    # read again, the set is stale: kapi apply refuses it and writes nothing
    again = run("kapi", "apply", "set.json", cwd=folder)
    assert again.returncode == 3 and "stale" in again.stderr


def test_dry_run_prints_the_diff_and_writes_nothing(folder: Path) -> None:
    before = snapshot(folder)
    done = run("ksed", "--dry-run", "s/Markdown/MD/", "guide.md", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert "-Kapi reads *Markdown* and **keeps**" in done.stdout
    assert "+Kapi reads *MD* and **keeps**" in done.stdout
    assert snapshot(folder) == before


def test_flags_groups_and_repeated_expressions(folder: Path) -> None:
    done = run(
        "ksed",
        "-e",
        r"s:(\w+), (\{name\}):\1 dear \2:",  # the placeholder kept by its group
        "-e",
        "s/CART/crate/ig",
        "-e",
        "s/o/0/2",
        "ui.json",
        cwd=folder,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["greeting"] == "Hello dear {name}!"
    assert data["cart"] == {"empty": "Your crate is empty", "pay": "Pay for y0ur crate"}
    assert data["help"] == "Simply contact supp0rt"


def test_markup_survives_and_code_is_not_edited(folder: Path) -> None:
    done = run("ksed", "-i", "s/keeps/holds/;s/not translated/edited/", "guide.md", cwd=folder)
    assert done.returncode == 0, done.stderr
    text = (folder / "guide.md").read_text(encoding="utf-8")
    assert "Kapi reads *Markdown* and **holds** every byte." in text
    assert 'print("not translated")' in text  # a code block is not content to edit
    assert "not editable" in done.stderr


def test_plural_forms_are_edited_each_by_its_path(folder: Path) -> None:
    printed = run("ksed", "--print-ops", "s/file/document/g", "basic.po", cwd=folder)
    ops = json.loads(printed.stdout)["ops"]
    plural = next(op for op in ops if op["at"]["block"] == "%(count)d file")
    assert [edit["path"][1] for edit in plural["edits"]] == [
        {"plural": "one"},
        {"plural": "other"},
    ]
    done = run("ksed", "-i", "s/file/document/g", "basic.po", cwd=folder)
    assert done.returncode == 0, done.stderr
    data = (folder / "basic.po").read_text(encoding="utf-8")
    assert 'msgid "%(count)d document"\nmsgid_plural "%(count)d documents"' in data


def test_target_edits_the_translation(folder: Path) -> None:
    done = run("ksed", "-i", "--target", "fr", "s/Bienvenue/Salut/", "basic.po", cwd=folder)
    assert done.returncode == 0, done.stderr
    data = (folder / "basic.po").read_text(encoding="utf-8")
    assert 'msgid "Welcome"\nmsgstr "Salut"' in data
    xliff = run("ksed", "-i", "--target", "ja-JP", "s/ガイド/案内/", "okapi.xlf", cwd=folder)
    assert xliff.returncode == 0, xliff.stderr
    unit = next(
        line
        for line in (folder / "okapi.xlf").read_text(encoding="utf-8").splitlines()
        if 'id="1"' in line
    )
    assert (
        '<source xml:lang="en-us">Acme&#8482; <g id="1" ctype="bold">User</g> Guide</source>'
        in unit
    )
    assert "</g>案内</target>" in unit


def test_a_translation_file_in_a_project_edits_that_language(tmp_path: Path) -> None:
    (tmp_path / "kapi.yaml").write_text(RECIPE, encoding="utf-8")
    (tmp_path / "locales").mkdir()
    (tmp_path / "locales/en.json").write_text('{"hi": "Hello"}\n', encoding="utf-8")
    (tmp_path / "locales/fr.json").write_text('{"hi": "Bonjour"}\n', encoding="utf-8")
    out = run("ksed", "s/Bonjour/Salut/", "locales/fr.json", cwd=tmp_path, project=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout == '{"hi": "Salut"}\n'
    done = run("ksed", "-i.bak", "s/Bonjour/Salut/", "locales/fr.json", cwd=tmp_path, project=True)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "locales/fr.json").read_text(encoding="utf-8") == '{"hi": "Salut"}\n'
    assert (tmp_path / "locales/fr.json.bak").read_text(encoding="utf-8") == '{"hi": "Bonjour"}\n'
    assert (tmp_path / "locales/en.json").read_text(encoding="utf-8") == '{"hi": "Hello"}\n'
    # no file named: sed's stdin, never the whole project
    unnamed = run("ksed", "-i", "s/Hello/Hi/", cwd=tmp_path, project=True)
    assert unnamed.returncode == 2 and "stdin" in unnamed.stderr
    assert (tmp_path / "locales/en.json").read_text(encoding="utf-8") == '{"hi": "Hello"}\n'


def test_an_agent_may_not_edit_the_recipe(tmp_path: Path) -> None:
    (tmp_path / "kapi.yaml").write_text(RECIPE, encoding="utf-8")
    (tmp_path / "locales").mkdir()
    (tmp_path / "locales/en.json").write_text('{"hi": "Hello"}\n', encoding="utf-8")
    done = run(
        "ksed", "-i", "s/shop/store/", "kapi.yaml", cwd=tmp_path, project=True, actor="agent"
    )
    assert done.returncode == 3 and "not_permitted" in done.stderr
    assert (tmp_path / "kapi.yaml").read_text(encoding="utf-8") == RECIPE


# --- refusals --------------------------------------------------------------------------------


def test_dropping_a_placeholder_is_refused_with_the_guards_message(folder: Path) -> None:
    before = snapshot(folder)
    done = run("ksed", "-i.bak", r"s/Hello, %\(name\)s/Hi/", "basic.po", cwd=folder)
    assert done.returncode == 3
    assert "guard/codes_changed" in done.stderr and "may not be deleted" in done.stderr
    assert "takes `%(name)s` with it" in done.stderr and "in a group" in done.stderr
    assert snapshot(folder) == before  # nothing written, and no backup
    kept = run("ksed", r"s/Hello, (%\(name\)s)/Hi \1/", "basic.po", cwd=folder)
    assert kept.returncode == 0, kept.stderr
    assert 'msgid "Hi %(name)s! You have %d%% left."' in kept.stdout
    json_placeholder = run("ksed", "-i", "s/, {name}//", "ui.json", cwd=folder)
    assert json_placeholder.returncode == 3 and "guard" in json_placeholder.stderr
    crossing = run("ksed", "-i", "s/reads Markdown/reads MD/", "guide.md", cwd=folder)
    assert crossing.returncode == 3 and "crosses the edge of marked text" in crossing.stderr
    assert snapshot(folder) == before


def test_bad_input_is_exit_2_and_writes_nothing(
    folder: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("elsewhere") / "secret.json"
    outside.write_text('{"k": "keep me"}', encoding="utf-8")
    (folder / "blob.bin").write_bytes(bytes(range(256)))
    before = snapshot(folder)
    cases = [
        ("-i", "s/a/b", "ui.json"),
        ("-i", "x/a/b/", "ui.json"),
        ("-i", "s/a/b/z", "ui.json"),
        ("-i", "s/(/b/", "ui.json"),
        ("-i", r"s/a/\3/", "ui.json"),
        ("--unknown-flag", "s/a/b/", "ui.json"),
        ("-i", "s/keep/lose/", str(outside)),
        ("-i", "s/a/b/", "blob.bin"),
        ("-i", "s/a/b/", "ui.json", "missing.json"),
        ("-i", "--dry-run", "s/a/b/", "ui.json"),
    ]
    for args in cases:
        done = run("ksed", *args, cwd=folder)
        assert done.returncode == 2, (args, done.stderr)
        assert done.stderr.strip() and "Traceback" not in done.stderr, args
    assert snapshot(folder) == before
    assert outside.read_text(encoding="utf-8") == '{"k": "keep me"}'
    (folder / "docs").mkdir()
    folder_named = run("ksed", "-i", "s/a/b/", "docs", cwd=folder)
    assert (
        folder_named.returncode == 2 and "docs: is a folder; name its files" in folder_named.stderr
    )
    stdin = run("ksed", "-i", "--format", "json", "s/a/b/", "-", cwd=folder, stdin='{"k": "a"}')
    assert stdin.returncode == 2 and "stdout" in stdin.stderr
    piped = run("ksed", "--format", "json", "s/a/b/", "-", cwd=folder, stdin='{"k": "a"}')
    assert piped.returncode == 0 and piped.stdout == '{"k": "b"}'


def test_docx_edits_in_place_and_goes_to_a_pipe_not_a_terminal(folder: Path) -> None:
    piped = run_bytes("ksed", "s/north/south/", "report.docx", cwd=folder)
    assert piped.returncode == 0 and piped.stdout.startswith(b"PK")
    (folder / "out.docx").write_bytes(piped.stdout)
    assert "in the south." in run("kcat", "out.docx", cwd=folder).stdout
    terminal = on_a_terminal("ksed", "s/north/south/", "report.docx", cwd=folder)
    forced = on_a_terminal("ksed", "--force", "s/north/south/", "report.docx", cwd=folder)
    assert terminal.returncode == 2 and b"binary" in terminal.stderr
    assert forced.returncode == 0 and forced.stdout.startswith(b"PK")
    done = run("ksed", "-i", "s/three releases/four releases/", "report.docx", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert "The team shipped four releases." in run("kcat", "report.docx", cwd=folder).stdout


def test_help_names_the_modes(folder: Path) -> None:
    done = run("ksed", "--help", cwd=folder)
    assert done.returncode == 0
    for flag in ("-e, --expression", "--in-place", "--print-ops", "--dry-run", "--target"):
        assert flag in done.stdout, flag


# --- a substitution lands as re.sub would make it --------------------------------------------

_TEXT = st.text(alphabet="ab c", min_size=1, max_size=12)
_PATTERN = st.sampled_from(["a", "b", "ab", "a+", "b*", "(a)(b)?", " c", "c$", "^a", "x?"])
_REPLACEMENT = st.sampled_from(["", "X", "&&", r"\1", "Y\\1Z", "a", " "])


def _landed(tmp_path: Path, name: str, data: str, script: str):
    from kapi.formats.reading import read_document
    from kapi.host.actor import actor_from_env
    from kapi.host.toolbox import display_text
    from kapi.host.toolbox_sed import SedRequest, run_sed
    from kapi.host.workspace import open_workspace

    (tmp_path / name).write_text(data, encoding="utf-8")
    with open_workspace(cwd=tmp_path, environ={"KAPI_NO_PROJECT": "1"}) as workspace:
        outcome = run_sed(
            SedRequest(scripts=(script,), paths=(name,)),
            workspace,
            actor=actor_from_env({"KAPI_ACTOR": "person"}),
        )
    if outcome.exit_code != 0:
        return outcome, None
    _, document, _ = read_document(outcome.outputs[0][1], display=name, locale="en")
    return outcome, [display_text(b.source) for b in document.blocks]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(values=st.lists(_TEXT, min_size=1, max_size=3), pattern=_PATTERN, replacement=_REPLACEMENT)
def test_plain_text_lands_as_re_sub_makes_it(
    tmp_path: Path, values: list[str], pattern: str, replacement: str
) -> None:
    import re

    if "\\1" in replacement and "(" not in pattern:
        replacement = replacement.replace("\\1", "&")
    script = f"s/{pattern}/{replacement}/g"
    catalogue = json.dumps({f"k{i}": v for i, v in enumerate(values)})
    outcome, texts = _landed(tmp_path, "ui.json", catalogue, script)
    python = replacement.replace("&", r"\g<0>")
    expected = [re.sub(pattern, python, v) for v in values]
    assert texts is not None, outcome.applied.result if outcome.applied else outcome
    assert texts == expected


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    words=st.lists(st.sampled_from(["ab", "ba", "cab", "b"]), min_size=2, max_size=5),
    bold=st.integers(min_value=0, max_value=4),
    pattern=st.sampled_from(["a", "ab", "b a", "ba c", "c"]),
    replacement=st.sampled_from(["X", "&&", "xy"]),
)
def test_around_markup_a_substitution_lands_as_re_sub_or_is_refused(
    tmp_path: Path, words: list[str], bold: int, pattern: str, replacement: str
) -> None:
    import re

    index = bold % len(words)
    marked = [f"**{w}**" if i == index else w for i, w in enumerate(words)]
    shown = " ".join(words)
    outcome, texts = _landed(
        tmp_path, "page.md", " ".join(marked) + "\n", f"s/{pattern}/{replacement}/g"
    )
    if texts is None:  # a match crossed the edge of the bold text: refused, nothing written
        assert outcome.exit_code == 3
        hints = " ".join(outcome.plan.hints.values())
        assert "the edge of marked text" in hints, outcome.applied
        event("refused")
        return
    event("landed")
    assert texts == [re.sub(pattern, replacement.replace("&", r"\g<0>"), shown)]
