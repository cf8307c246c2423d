"""``kapi init`` and the project's ``.kapi/`` in real git repositories, through the real executable:
the recipe it writes, the id it keeps, and what ``git status`` shows afterwards."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kapi.host.project import load_project

KAPI = str(Path(sys.executable).parent / "kapi")
SHOP = Path(__file__).resolve().parents[3] / "examples" / "shop"
SHOP_ID = "prj_northwindshopexample00000000"
PO = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\nmsgid "Hello"\nmsgstr ""\n'
RULES = "# Notes for agents\n\n<!-- kapi:rules -->\nWrite plainly.\n<!-- /kapi:rules -->\n"


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KAPI_", "CLAUDE"))}
    env.pop("CODEX_SESSION_ID", None)
    return env | {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }


def _kapi(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [KAPI, *args], cwd=root, capture_output=True, text=True, env=_env(), timeout=60
    )


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=root, capture_output=True, text=True, env=_env(), check=True
    )
    return done.stdout


def _commit_all(root: Path) -> None:
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "files")


def _status(root: Path) -> list[str]:
    return _git(root, "status", "--porcelain", "--untracked-files=all").splitlines()


def _recipe_id(root: Path) -> str:
    found = re.search(r"^id: (\S+)$", (root / "kapi.yaml").read_text(encoding="utf-8"), re.M)
    assert found is not None
    return found.group(1)


def _collections(root: Path) -> dict[str, list[str]]:
    project = load_project(root / "kapi.yaml")
    return {c.name: [item.path for item in c.items] for c in project.collections}


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    """examples/shop, committed in a git repository of its own."""
    root = tmp_path / "shop"
    shutil.copytree(SHOP, root)
    _git(root, "init", "-q")
    _commit_all(root)
    return root


@pytest.fixture
def ruled(shop: Path) -> Path:
    """The shop with rules files at the root, in a content folder and in folders of their own."""
    (shop / "AGENTS.md").write_text(RULES, encoding="utf-8")
    (shop / "CLAUDE.md").write_text("@AGENTS.md\n", encoding="utf-8")
    (shop / "docs/AGENTS.md").write_text(RULES, encoding="utf-8")
    (shop / "locales/CLAUDE.md").write_text(RULES, encoding="utf-8")
    (shop / "agents").mkdir()
    (shop / "agents/AGENTS.md").write_text(RULES, encoding="utf-8")
    (shop / "agents/CLAUDE.md").write_text(RULES, encoding="utf-8")
    _commit_all(shop)
    return shop


# --- the rules files are never content ---------------------------------------------


def test_force_on_the_shop_takes_no_rules_file_as_content(ruled: Path) -> None:
    done = _kapi(ruled, "init", "--force", "--agents", "none")
    assert done.returncode == 0, done.stderr
    assert _collections(ruled) == {"ui": ["locales/en.json"], "docs": ["docs/**/*.md"]}
    recipe = (ruled / "kapi.yaml").read_text(encoding="utf-8")
    assert "- name: docs  # 1 file(s) found" in recipe
    assert "*.md'" not in recipe.replace("docs/**/*.md'", "")
    assert "AGENTS" not in recipe and "CLAUDE" not in recipe
    assert "AGENTS.md" not in done.stderr.split("wrote ")[0]  # neither found nor left out
    assert sorted(load_project(ruled / "kapi.yaml").source_files()) == [
        "docs/getting-started.md",
        "locales/en.json",
    ]


def test_a_second_init_after_kapi_wrote_the_rules_files_proposes_the_same_collections(
    tmp_path: Path,
) -> None:
    root = tmp_path / "app"
    shutil.copytree(SHOP / "docs", root / "docs")
    shutil.copytree(SHOP / "locales", root / "locales")
    _git(root, "init", "-q")
    _commit_all(root)
    first = _kapi(root, "init", "--agents", "none")
    assert first.returncode == 0, first.stderr
    assert "<!-- kapi:rules" in (root / "AGENTS.md").read_text(encoding="utf-8")
    proposed = _collections(root)
    assert proposed == {"ui": ["locales/en.json"], "docs": ["docs/**/*.md"]}
    again = _kapi(root, "init", "--force", "--agents", "none", "--json")
    assert again.returncode == 0, again.stderr
    summary = json.loads(again.stdout)
    assert [(c["name"], c["path"], c["files"]) for c in summary["collections"]] == [
        ("ui", "locales/en.json", 3),
        ("docs", "docs/**/*.md", 1),
    ]
    assert _collections(root) == proposed
    assert not [out for out in summary["left_out"] if out["path"].endswith(".md")]


def test_a_folder_of_rules_files_alone_gets_no_collection(tmp_path: Path) -> None:
    root = tmp_path / "app"
    (root / "guides").mkdir(parents=True)
    (root / "guides/AGENTS.md").write_text(RULES, encoding="utf-8")
    (root / "guides/CLAUDE.md").write_text(RULES, encoding="utf-8")
    (root / "AGENTS.md").write_text(RULES, encoding="utf-8")
    (root / "README.md").write_text("# App\n\nRead me.\n", encoding="utf-8")
    _git(root, "init", "-q")
    done = _kapi(root, "init", "--agents", "none", "--no-rules-files", "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert [(c["path"], c["files"]) for c in summary["collections"]] == [("*.md", 1)]
    assert sorted(load_project(root / "kapi.yaml").source_files()) == ["README.md"]


# --- --force keeps the project id ------------------------------------------------------


def test_force_keeps_the_recipe_id_and_says_so(shop: Path) -> None:
    done = _kapi(shop, "init", "--force", "--agents", "none", "--no-rules-files")
    assert done.returncode == 0, done.stderr
    assert _recipe_id(shop) == SHOP_ID
    assert f"kept the project id {SHOP_ID}" in done.stderr
    again = _kapi(shop, "init", "--force", "--agents", "none", "--no-rules-files", "--json")
    summary = json.loads(again.stdout)
    assert summary["id"] == SHOP_ID and summary["id_kept"] is True
    assert _recipe_id(shop) == SHOP_ID
    assert [line for line in _status(shop) if "kapi.yaml" in line] == [" M kapi.yaml"]


def test_force_keeps_a_minted_id_through_an_extract(shop: Path) -> None:
    """The store and the XLIFF an extract wrote name the project by its id; --force keeps it."""
    (shop / "kapi.yaml").unlink()
    first = _kapi(shop, "init", "--agents", "none", "--no-rules-files", "--json")
    minted = json.loads(first.stdout)["id"]
    assert (
        re.fullmatch(r"prj_[a-z2-7]{26}", minted) and json.loads(first.stdout)["id_kept"] is False
    )
    extracted = _kapi(shop, "extract", "--to", "de", "-o", "de.xlf")
    assert extracted.returncode == 0, extracted.stderr
    assert minted in (shop / "de.xlf").read_text(encoding="utf-8")
    done = _kapi(shop, "init", "--force", "--agents", "none", "--no-rules-files")
    assert done.returncode == 0, done.stderr
    assert _recipe_id(shop) == minted


def test_force_on_a_recipe_that_does_not_parse_keeps_its_id_line(shop: Path) -> None:
    recipe = shop / "kapi.yaml"
    recipe.write_text(f"version: v1\nid: {SHOP_ID}\ncollections: [\n", encoding="utf-8")
    done = _kapi(shop, "init", "--force", "--agents", "none", "--no-rules-files")
    assert done.returncode == 0, done.stderr
    assert _recipe_id(shop) == SHOP_ID
    load_project(recipe)


@pytest.mark.parametrize(
    ("line", "said"),
    [("", "had no project id"), ("id: my-shop\n", "had id 'my-shop', not a kapi project id")],
)
def test_force_mints_an_id_only_where_the_recipe_has_none_valid(
    shop: Path, line: str, said: str
) -> None:
    (shop / "kapi.yaml").write_text(f"version: v1\n{line}collections: []\n", encoding="utf-8")
    done = _kapi(shop, "init", "--force", "--agents", "none", "--no-rules-files", "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert re.fullmatch(r"prj_[a-z2-7]{26}", summary["id"]) and summary["id_kept"] is False
    assert _recipe_id(shop) == summary["id"]
    assert any(said in note and summary["id"] in note for note in summary["notes"])


# --- .kapi/ stays out of git, whoever creates it ------------------------------------


@pytest.mark.parametrize("verb", [("status",), ("up", "--plan")])
def test_a_store_made_before_any_init_is_ignored_by_git(shop: Path, verb: tuple[str, ...]) -> None:
    done = _kapi(shop, *verb)
    assert done.returncode == 0, done.stderr
    assert (shop / ".kapi/project.db").is_file()
    assert (shop / ".kapi/.gitignore").read_bytes() == b"*\n"
    assert _status(shop) == []
    _git(shop, "add", "-A")
    assert _git(shop, "diff", "--cached", "--name-only") == ""


def test_the_store_keeps_an_ignore_file_already_there(shop: Path) -> None:
    (shop / ".kapi").mkdir()
    (shop / ".kapi/.gitignore").write_text("project.db*\ncache/\n", encoding="utf-8")
    _commit_all(shop)
    assert _kapi(shop, "status").returncode == 0
    assert (shop / ".kapi/.gitignore").read_text(encoding="utf-8") == "project.db*\ncache/\n"
    assert _status(shop) == []


def test_a_store_without_its_ignore_file_gets_one(shop: Path) -> None:
    """A .kapi/ holding only the store (as a kapi that did not write the file left it)."""
    assert _kapi(shop, "status").returncode == 0
    (shop / ".kapi/.gitignore").unlink()
    assert _status(shop) != []
    assert _kapi(shop, "status").returncode == 0
    assert (shop / ".kapi/.gitignore").read_bytes() == b"*\n"
    assert _status(shop) == []


def test_a_committed_state_folder_is_left_as_its_owner_keeps_it(shop: Path) -> None:
    """An older kapi kept voices and terms in .kapi/ under git: no ignore file is added there."""
    (shop / ".kapi").mkdir()
    (shop / ".kapi/terms.json").write_text("[]\n", encoding="utf-8")
    (shop / ".gitignore").write_text(".kapi/project.db*\n.kapi/cache/\n", encoding="utf-8")
    _commit_all(shop)
    assert _kapi(shop, "status").returncode == 0
    assert (shop / ".kapi/project.db").is_file()
    assert not (shop / ".kapi/.gitignore").exists()
    assert _git(shop, "ls-files", ".kapi") == ".kapi/terms.json\n"
    assert _status(shop) == []


def test_init_after_a_store_keeps_the_tree_clean(shop: Path) -> None:
    assert _kapi(shop, "status").returncode == 0
    done = _kapi(shop, "init", "--agents", "none", "--no-rules-files")
    assert done.returncode == 0, done.stderr
    assert "kept" in done.stderr
    assert (shop / ".kapi/.gitignore").read_bytes() == b"*\n"
    assert _status(shop) == []


# --- a .po file with nothing to translate from ---------------------------------------


def test_a_lone_po_file_is_listed_as_left_out(tmp_path: Path) -> None:
    root = tmp_path / "app"
    (root / "po").mkdir(parents=True)
    (root / "po/fr.po").write_text(PO, encoding="utf-8")
    _git(root, "init", "-q")
    done = _kapi(root, "init", "--agents", "none", "--no-rules-files", "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["collections"] == [] and summary["target_languages"] == []
    reasons = {out["path"]: out["reason"] for out in summary["left_out"]}
    assert "no .pot template and no po/en.po" in reasons["po/fr.po"]
    text = _kapi(root, "init", "--force", "--agents", "none", "--no-rules-files")
    assert "left out po/fr.po: a translation with no source" in text.stderr
    assert sorted(_status(root)) == ["?? kapi.yaml", "?? po/fr.po"]
