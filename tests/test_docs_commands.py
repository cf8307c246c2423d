"""Every command in the documentation runs: each ``kapi``, ``kcat``, ``kgrep``, ``ksed``,
``kdiff`` and ``python -m kapi.…`` line of a shell block in README.md and docs/**/*.md, with
the real executables.

Each page's commands run in order, as a reader would type them, through bash in one copy of
examples/shop per page, with the few files the pages name besides (a Word report, a PO
catalogue, a diff, a change set, Markdown guides) and a git repository on ``main``. A command
must end with a documented outcome: exit 0, or 3 (a refusal or a failing finding); ``kgrep``
may also exit 1 (no match) and ``kdiff`` 1 (the files differ). A fenced block may be marked
just above its fence, as docs/index.md describes::

    <!-- docs-test: skip: REASON -->                      every command of the block
    <!-- docs-test: skip "TEXT" "TEXT": REASON -->        the commands containing a TEXT

and its commands are reported as skipped with the reason (``pytest -rs`` lists them).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
SHELL = {"", "sh", "bash", "shell", "console"}
COMMAND = re.compile(
    r"^(?:\$\s+)?((?:kapi|kcat|kgrep|ksed|kdiff|python -m kapi(?:\.\w+)+)(?:\s.*)?)$"
)
MARK = re.compile(r'^<!--\s*docs-test:\s*skip\s*(?P<only>(?:"[^"]+"\s*)*):\s*(?P<why>.+?)\s*-->$')
ALSO = {"kgrep": {1}, "kdiff": {1}}  # exit codes a tool documents besides 0 and 3


@dataclass(frozen=True)
class DocCommand:
    page: str  # relative to the repository
    line: int  # 1-based, in the page
    text: str
    skip: str | None = None

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def _pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _markers(lines: list[str], fence_line: int) -> list[tuple[list[str], str]]:
    """The skip markers on the lines just above a fence (blank lines between allowed)."""
    found: list[tuple[list[str], str]] = []
    index = fence_line - 1
    while index >= 0:
        line = lines[index].strip()
        match = MARK.match(line)
        if match:
            found.append((re.findall(r'"([^"]+)"', match["only"]), match["why"]))
        elif line:
            break
        index -= 1
    return found


def doc_commands() -> list[DocCommand]:
    """Every command of every shell block, with the reason it is skipped, if it is."""
    parser = MarkdownIt("commonmark")
    found: list[DocCommand] = []
    for path in _pages():
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        page = path.relative_to(ROOT).as_posix()
        for token in parser.parse(text):
            if token.type != "fence" or token.map is None:
                continue
            if (token.info.split() or [""])[0] not in SHELL:
                continue
            markers = _markers(lines, token.map[0])
            pending = ""
            for offset, raw in enumerate(token.content.splitlines(), start=1):
                line = pending + raw.strip()
                if line.endswith("\\"):
                    pending = line[:-1] + " "
                    continue
                pending = ""
                match = COMMAND.match(line)
                if match is None:
                    continue
                command = match[1]
                why = next(
                    (
                        reason
                        for only, reason in markers
                        if not only or any(part in command for part in only)
                    ),
                    None,
                )
                found.append(DocCommand(page, token.map[0] + 1 + offset, command, why))
    return found


COMMANDS = doc_commands()


def _docx(path: Path) -> None:
    import docx

    document = docx.Document()
    document.add_heading("Quarterly report", level=1)
    document.add_paragraph("Send an e-mail to support before you log in to the web site.")
    document.save(str(path))


PO = """\
msgid ""
msgstr ""
"Language: fr\\n"
"Content-Type: text/plain; charset=UTF-8\\n"

msgid "Your cart"
msgstr "Votre panier"

msgid "Pay %(amount)s now"
msgstr "Payer %(amount)s maintenant"
"""

GUIDE = """\
# A guide

Simply contact support if your colour printer does not print. Send an e-mail
to the team, then log in again.

```sh
shop print --colour
```
"""


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=docs", "-c", "user.email=docs@example.com", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


def make_workspace(root: Path) -> Path:
    """examples/shop and the files the pages name, committed on ``main``."""
    shutil.copytree(ROOT / "examples" / "shop", root, ignore=shutil.ignore_patterns(".kapi"))
    _docx(root / "report.docx")
    (root / "docs" / "intro.md").write_text("# Quickcast\n\nQuick cast sends your order.\n")
    (root / "docs" / "guide.md").write_text(GUIDE)
    (root / "guide.md").write_text(GUIDE)
    (root / "locales" / "messages.po").write_text(PO)
    english = (root / "locales" / "en.json").read_text()
    (root / "locales" / "en.old.json").write_text(english.replace("Your cart", "Your basket"))
    (root / "en.json").write_text('{"pay": "Pay {{amount}} now", "brand": "Northwind"}\n')
    (root / "fr.json").write_text('{"pay": "Payer maintenant", "brand": "Northwind"}\n')
    (root / "app").mkdir()
    (root / "app" / "en.json").write_text('{"login": "Please log in"}\n')
    (root / "handoff").mkdir()
    read = subprocess.run(
        [str(BIN / "kapi"), "inspect", "locales/en.json"],
        cwd=root,
        env=_env(root),
        capture_output=True,
        text=True,
        check=True,
    )
    help_block = next(r for r in json.loads(read.stdout) if r["ref"]["block"] == "checkout.help")
    op = {
        "op": "replace_text",
        "at": help_block["ref"],
        "if_match": help_block["rev"],
        "edits": [{"find": "Simply contact", "text": "Contact"}],
    }
    (root / "change.json").write_text(json.dumps({"note": "docs", "ops": [op]}, indent=2))
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "the example project")
    guide = root / "docs" / "guide.md"
    guide.write_text(guide.read_text().replace("Simply contact", "Contact"))
    diff = subprocess.run(
        ["git", "diff"], cwd=root, capture_output=True, text=True, check=True
    ).stdout
    (root / "patch.diff").write_text(diff)
    _git(root, "add", "docs/guide.md")  # a change in the index, for --staged
    return root


def _env(root: Path) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("KAPI_", "CLAUDE", "CODEX")) and key != "PYTHONDONTWRITEBYTECODE"
    }
    env.update(
        # Bytecode cached once for every command, as an installed kapi has it.
        PYTHONPYCACHEPREFIX=str(root.parent.parent / "pycache"),
        PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        HOME=str(root.parent / "home"),
        KAPI_ACTOR="person",
        NO_COLOR="1",
        GIT_AUTHOR_NAME="docs",
        GIT_AUTHOR_EMAIL="docs@example.com",
        GIT_COMMITTER_NAME="docs",
        GIT_COMMITTER_EMAIL="docs@example.com",
    )
    return env


@pytest.fixture(scope="module")
def workspaces(tmp_path_factory):
    """One workspace per page, each a copy (git repository and all) of one made once."""
    template = make_workspace(tmp_path_factory.mktemp("template") / "shop")
    made: dict[str, Path] = {}

    def of(page: str) -> Path:
        if page not in made:
            folder = tmp_path_factory.mktemp(page.replace("/", "-"))
            (folder / "home").mkdir()
            made[page] = Path(shutil.copytree(template, folder / "shop", symlinks=True))
        return made[page]

    return of


@pytest.mark.parametrize("command", COMMANDS, ids=[command.id for command in COMMANDS])
def test_the_documented_command_runs(command, workspaces):
    if command.skip:
        pytest.skip(f"{command.skip}: {command.text}")
    root = workspaces(command.page)
    done = subprocess.run(
        ["bash", "-c", command.text],
        cwd=root,
        env=_env(root),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    tool = command.text.split()[0]
    allowed = {0, 3} | ALSO.get(tool, set())
    assert done.returncode in allowed, (
        f"{command.id}: `{command.text}` exited {done.returncode}\n"
        f"stdout: {done.stdout[-1500:]}\nstderr: {done.stderr[-1500:]}"
    )
    assert "Traceback" not in done.stderr, done.stderr


def test_the_pages_have_commands_and_their_skips_say_why():
    pages = {command.page for command in COMMANDS}
    assert {"README.md", "docs/getting-started/terminal.md", "docs/toolbox.md"} <= pages
    skipped = [command for command in COMMANDS if command.skip]
    assert all(command.skip.strip() for command in skipped)
    assert len(skipped) * 4 < len(COMMANDS), [command.id for command in skipped]


def test_a_marker_skips_its_block_or_only_the_commands_it_quotes(tmp_path, monkeypatch):
    page = tmp_path / "docs" / "page.md"
    page.parent.mkdir()
    page.write_text(
        "Text.\n\n"
        "<!-- docs-test: skip: needs a terminal -->\n"
        "```\nkapi context review\n```\n\n"
        '<!-- docs-test: skip "--provider openai": needs a key -->\n\n'
        "```sh\n$ kapi up --provider pseudo\nkapi translate x.json --provider openai\n```\n\n"
        "```python\nkapi = 1\n```\n\n"
        "```json\n{}\n```\n"
    )
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    monkeypatch.setattr(sys.modules[__name__], "_pages", lambda: [page])
    found = [(c.line, c.text, c.skip) for c in doc_commands()]
    assert found == [
        (5, "kapi context review", "needs a terminal"),
        (11, "kapi up --provider pseudo", None),
        (12, "kapi translate x.json --provider openai", "needs a key"),
    ]
