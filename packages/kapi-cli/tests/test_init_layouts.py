"""``kapi init`` on trees shaped like real projects: the recipe it writes loads and claims
exactly the content found, with translations where the layout shows them."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from kapi.host.init import InitRequest, InitResult, run_init
from kapi.host.project import load_project

PO = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\nmsgid "Hello"\nmsgstr ""\n'
XLF = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">\n'
    '<file source-language="en" datatype="plaintext" original="ng2.template"><body>\n'
    '<trans-unit id="hello"><source>Hello</source></trans-unit>\n'
    "</body></file></xliff>\n"
)
ANDROID = '<?xml version="1.0" encoding="utf-8"?>\n<resources>\n<string name="hi">Hi</string>\n</resources>\n'


def _tree(root: Path, files: dict[str, str]) -> None:
    for relpath, text in files.items():
        path = root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _init(root: Path) -> InitResult:
    return run_init(InitRequest(folder=root))


def _claims(root: Path) -> dict[str, dict[str, str]]:
    project = load_project(root / "kapi.yaml")
    return {source: project.translation_paths(source) for source in project.source_files()}


def _left_out(result: InitResult) -> dict[str, str]:
    return {out.path: out.reason for out in result.plan.left_out}


def test_gettext_pot_with_locale_lc_messages(tmp_path: Path) -> None:
    _tree(
        tmp_path,
        {
            "setup.py": "",
            "myapp/__init__.py": "",
            "myapp/locale/messages.pot": PO,
            "myapp/locale/fr/LC_MESSAGES/messages.po": PO,
            "myapp/locale/de/LC_MESSAGES/messages.po": PO,
            "myapp/locale/pt_BR/LC_MESSAGES/messages.po": PO,
        },
    )
    result = _init(tmp_path)
    # gettext writes a language pt_BR: the template spells {lang} so, and pt_BR is pt-BR
    assert result.plan.target_languages == ("de", "fr", "pt-BR")
    assert _claims(tmp_path) == {
        "myapp/locale/messages.pot": {
            "de": "myapp/locale/de/LC_MESSAGES/messages.po",
            "fr": "myapp/locale/fr/LC_MESSAGES/messages.po",
            "pt-BR": "myapp/locale/pt_BR/LC_MESSAGES/messages.po",
        }
    }
    assert "myapp/locale/pt_BR/LC_MESSAGES/messages.po" not in _left_out(result)
    recipe = result.plan.recipe_text()
    assert "target: 'myapp/locale/{lang}/LC_MESSAGES/messages.po'" in recipe
    assert "locale_format: posix" in recipe


def test_gettext_po_folder_without_pot(tmp_path: Path) -> None:
    _tree(tmp_path, {"po/en.po": PO, "po/fr.po": PO, "po/de.po": PO, "src/main.c": ""})
    result = _init(tmp_path)
    assert result.plan.target_languages == ("de", "fr")
    assert _claims(tmp_path) == {"po/en.po": {"de": "po/de.po", "fr": "po/fr.po"}}


def test_gettext_translations_without_any_source_are_reported(tmp_path: Path) -> None:
    _tree(tmp_path, {"po/fr.po": PO, "po/de.po": PO})
    result = _init(tmp_path)
    assert result.plan.collections == ()
    assert "no source" in _left_out(result)["po/fr.po"]
    assert _claims(tmp_path) == {}


def test_gettext_pot_beside_language_catalogues(tmp_path: Path) -> None:
    _tree(tmp_path, {"po/hello.pot": PO, "po/fr.po": PO, "po/es.po": PO})
    _init(tmp_path)
    assert _claims(tmp_path) == {"po/hello.pot": {"es": "po/es.po", "fr": "po/fr.po"}}


def test_xliff_angular_and_i18n_folder(tmp_path: Path) -> None:
    _tree(
        tmp_path,
        {
            "angular.json": "{}",
            "src/locale/messages.xlf": XLF,
            "src/locale/messages.fr.xlf": XLF,
            "src/locale/messages.ja.xlf": XLF,
            "i18n/en.xlf": XLF,
            "i18n/fr.xlf": XLF,
        },
    )
    result = _init(tmp_path)
    assert result.plan.target_languages == ("fr", "ja")
    assert _claims(tmp_path) == {
        "i18n/en.xlf": {"fr": "i18n/fr.xlf", "ja": "i18n/ja.xlf"},
        "src/locale/messages.xlf": {
            "fr": "src/locale/messages.fr.xlf",
            "ja": "src/locale/messages.ja.xlf",
        },
    }


def test_android_values_folders(tmp_path: Path) -> None:
    res = "app/src/main/res"
    _tree(
        tmp_path,
        {
            f"{res}/values/strings.xml": ANDROID,
            f"{res}/values/colors.xml": '<resources><color name="a">#fff</color></resources>',
            f"{res}/values-fr/strings.xml": ANDROID,
            f"{res}/values-de/strings.xml": ANDROID,
            f"{res}/values-pt-rBR/strings.xml": ANDROID,
            "app/build/intermediates/res/values/strings.xml": ANDROID,
        },
    )
    result = _init(tmp_path)
    assert result.plan.target_languages == ("de", "fr")
    assert _claims(tmp_path) == {
        f"{res}/values/strings.xml": {
            "de": f"{res}/values-de/strings.xml",
            "fr": f"{res}/values-fr/strings.xml",
        }
    }
    left = _left_out(result)
    assert left["app/build/"] == "build output"
    assert "pt-BR" in left[f"{res}/values-pt-rBR/strings.xml"]


def test_ios_lproj(tmp_path: Path) -> None:
    strings = '"hello" = "Hello";\n'
    _tree(
        tmp_path,
        {
            "App/en.lproj/Localizable.strings": strings,
            "App/fr.lproj/Localizable.strings": strings,
            "App/es.lproj/Localizable.strings": strings,
            "App/Base.lproj/Main.storyboard": "",
        },
    )
    result = _init(tmp_path)
    assert result.plan.target_languages == ("es", "fr")
    assert _claims(tmp_path) == {
        "App/en.lproj/Localizable.strings": {
            "es": "App/es.lproj/Localizable.strings",
            "fr": "App/fr.lproj/Localizable.strings",
        }
    }
    assert "target: 'App/{lang}.lproj/Localizable.strings'" in result.plan.recipe_text()


def test_rails_config_locales(tmp_path: Path) -> None:
    _tree(
        tmp_path,
        {
            "Gemfile": "",
            "config/database.yml": "dev: {}\n",
            "config/locales/en.yml": "en:\n  hello: Hello\n",
            "config/locales/fr.yml": "fr:\n  hello: Bonjour\n",
            "config/locales/devise.en.yml": "en:\n  devise: {}\n",
            "config/locales/devise.fr.yml": "fr:\n  devise: {}\n",
            "vendor/bundle/gems/x/config/locales/en.yml": "en: {}\n",
        },
    )
    result = _init(tmp_path)
    assert result.plan.target_languages == ("fr",)
    assert _claims(tmp_path) == {
        "config/locales/devise.en.yml": {"fr": "config/locales/devise.fr.yml"},
        "config/locales/en.yml": {"fr": "config/locales/fr.yml"},
    }
    assert _left_out(result)["vendor/"] == "vendored code"


def test_json_and_arb_catalogues(tmp_path: Path) -> None:
    _tree(
        tmp_path,
        {
            "package.json": "{}",
            "src/locales/en.json": '{"hi": "Hi"}',
            "src/locales/fr.json": '{"hi": "Salut"}',
            "public/locales/en/common.json": '{"hi": "Hi"}',
            "public/locales/en/auth.json": '{"in": "Sign in"}',
            "public/locales/de/common.json": '{"hi": "Hallo"}',
            "lib/l10n/app_en.arb": '{"hi": "Hi"}',
            "lib/l10n/app_es.arb": '{"hi": "Hola"}',
            "node_modules/pkg/locales/en.json": "{}",
            "dist/locales/en.json": "{}",
            ".next/server/locales/en.json": "{}",
        },
    )
    result = _init(tmp_path)
    assert result.plan.target_languages == ("de", "es", "fr")
    claims = _claims(tmp_path)
    assert set(claims) == {
        "lib/l10n/app_en.arb",
        "public/locales/en/auth.json",
        "public/locales/en/common.json",
        "src/locales/en.json",
    }
    assert claims["src/locales/en.json"]["fr"] == "src/locales/fr.json"
    assert claims["public/locales/en/common.json"]["de"] == "public/locales/de/common.json"
    assert claims["lib/l10n/app_en.arb"]["es"] == "lib/l10n/app_es.arb"
    left = _left_out(result)
    assert left["node_modules/"] == "installed dependencies"
    assert left["dist/"] == left[".next/"] == "build output"


def test_docs_site_leaves_out_templates_and_tests(tmp_path: Path) -> None:
    _tree(
        tmp_path,
        {
            "README.md": "# Site\n",
            "mkdocs.yml": "site_name: x\n",
            "docs/index.md": "# Home\n",
            "docs/guide/install.md": "# Install\n",
            "docs/about.html": "<p>About us</p>\n",
            "docs/overrides/main.html": "{% extends 'base.html' %}\n",
            "docs/tests/sample.md": "# fixture\n",
            "templates/base.html.j2": "<html>{{ body }}</html>\n",
            "templates/page.html": "<h1>{{ title }}</h1>\n",
            "theme/partials/nav.hbs": "{{#each}}{{/each}}\n",
            "layouts/list.gotmpl": "{{ range }}\n",
            "tests/fixtures/page.md": "# fixture\n",
            "site/index.html": "<p>built</p>\n",
        },
    )
    result = _init(tmp_path)
    assert set(_claims(tmp_path)) == {
        "README.md",
        "docs/about.html",
        "docs/guide/install.md",
        "docs/index.md",
    }
    left = _left_out(result)
    assert left["tests/"] == left["docs/tests/"] == "tests and their fixtures"
    assert left["site/"] == "build output"
    assert "template" in left["docs/overrides/main.html"]
    assert "Jinja" in left["templates/base.html.j2"]
    assert "template" in left["templates/page.html"]
    assert "Handlebars" in left["theme/partials/nav.hbs"]
    assert "Go template" in left["layouts/list.gotmpl"]
    assert "docs/overrides/main.html" in result.plan.exclude
    assert "docs/tests/**" in result.plan.exclude


def test_recipe_names_only_commands_that_exist(tmp_path: Path) -> None:
    import click

    from kapi.cli.main import cli

    verbs = set(cli.list_commands(click.Context(cli)))
    _tree(tmp_path, {"locales/en.json": "{}"})
    text = _init(tmp_path).plan.recipe_text()
    assert "kapi help" not in text
    comments = [line for line in text.splitlines() if line.startswith("#")]
    assert comments[0].startswith("# kapi project recipe")
    for line in comments[1:]:
        if "kapi " in line:
            for word in line.split("kapi ")[1:]:
                command = word.split()[0].strip(";,.")
                assert command == "--help" or command in verbs


def test_cli_init_json_reports_found_and_left_out(tmp_path: Path) -> None:
    from kapi.cli.main import cli

    _tree(
        tmp_path,
        {
            "locales/en.json": '{"hi": "Hi"}',
            "locales/fr.json": '{"hi": "Salut"}',
            "tests/locales/en.json": "{}",
        },
    )
    outcome = CliRunner().invoke(cli, ["init", "--json", str(tmp_path)])
    assert outcome.exit_code == 0, outcome.output
    data = json.loads(outcome.stdout)
    assert list(data)[:5] == ["recipe", "id", "source_language", "target_languages", "collections"]
    assert data["target_languages"] == ["fr"]
    assert data["collections"][0]["path"] == "locales/en.json"
    assert data["collections"][0]["target"] == "locales/{lang}.json"
    assert {"path": "tests/", "reason": "tests and their fixtures"} in data["left_out"]
    assert _claims(tmp_path) == {"locales/en.json": {"fr": "locales/fr.json"}}


def test_cli_init_text_says_what_was_left_out(tmp_path: Path) -> None:
    from kapi.cli.main import cli

    _tree(tmp_path, {"docs/index.md": "# Hi\n", "node_modules/x/README.md": "x"})
    outcome = CliRunner().invoke(cli, ["init", str(tmp_path)])
    assert outcome.exit_code == 0, outcome.output
    assert "left out node_modules/: installed dependencies" in outcome.stderr
    assert "found docs" in outcome.stderr


def test_docs_translated_in_language_folders(tmp_path: Path) -> None:
    _tree(
        tmp_path,
        {
            "docs/index.md": "# Home\n",
            "docs/guide/install.md": "# Install\n",
            "docs/fr/index.md": "# Accueil\n",
            "docs/fr/guide/install.md": "# Installer\n",
            "docs/pt_BR/index.md": "# Início\n",
        },
    )
    result = _init(tmp_path)
    assert result.plan.target_languages == ("fr", "pt-BR")
    assert _claims(tmp_path) == {
        "docs/guide/install.md": {
            "fr": "docs/fr/guide/install.md",
            "pt-BR": "docs/pt_BR/guide/install.md",
        },
        "docs/index.md": {"fr": "docs/fr/index.md", "pt-BR": "docs/pt_BR/index.md"},
    }


def test_a_language_spelled_unlike_its_neighbours_is_left_out_with_the_reason(
    tmp_path: Path,
) -> None:
    _tree(
        tmp_path,
        {
            "locale/messages.pot": PO,
            "locale/pt_BR/LC_MESSAGES/messages.po": PO,
            "locale/zh_TW/LC_MESSAGES/messages.po": PO,
            "locale/sr-Latn/LC_MESSAGES/messages.po": PO,
        },
    )
    result = _init(tmp_path)
    assert result.plan.target_languages == ("pt-BR", "zh-TW")
    reason = _left_out(result)["locale/sr-Latn/LC_MESSAGES/messages.po"]
    assert "sr_Latn" in reason and "declare its path by hand" in reason


def test_docs_translated_beside_the_source(tmp_path: Path) -> None:
    _tree(
        tmp_path,
        {
            "docs/en/index.md": "# Home\n",
            "docs/de/index.md": "# Start\n",
            "site-src/index.md": "# Home\n",
            "site-src/index.es.md": "# Inicio\n",
        },
    )
    _init(tmp_path)
    assert _claims(tmp_path) == {
        "docs/en/index.md": {"de": "docs/de/index.md", "es": "docs/es/index.md"},
        "site-src/index.md": {"de": "site-src/index.de.md", "es": "site-src/index.es.md"},
    }


def test_sphinx_myst_docs_are_declared_myst(tmp_path: Path) -> None:
    _tree(
        tmp_path,
        {
            "README.md": "# Theme\n",
            "docs/conf.py": "extensions = ['myst_nb']\n",
            "docs/index.md": "# Home\n\n```{note}\nRead me.\n```\n",
            "docs/guide/usage.md": "# Usage\n\nPlain page.\n",
            "src/theme/__init__.py": "",
        },
    )
    result = _init(tmp_path)
    formats = {c.path: c.format for c in result.plan.collections}
    assert formats == {"*.md": "markdown", "docs/**/*.md": "myst"}
    project = load_project(tmp_path / "kapi.yaml")
    assert set(project.source_files()) == {"README.md", "docs/index.md", "docs/guide/usage.md"}
    assert "format: myst" in (tmp_path / "kapi.yaml").read_text()


def test_docusaurus_mdx_docs_are_declared_mdx(tmp_path: Path) -> None:
    _tree(
        tmp_path,
        {
            "docusaurus.config.js": "module.exports = {};\n",
            "docs/intro.mdx": "import Tabs from '@theme/Tabs';\n\n# Intro\n",
            "docs/guide/setup.md": "# Setup\n",
            "node_modules/pkg/docs/readme.mdx": "# vendored\n",
            "build/docs/intro.html": "<p>built</p>\n",
        },
    )
    result = _init(tmp_path)
    formats = {c.path: c.format for c in result.plan.collections}
    assert formats == {"docs/**/*.mdx": "mdx", "docs/**/*.md": "markdown"}
    project = load_project(tmp_path / "kapi.yaml")
    assert set(project.source_files()) == {"docs/intro.mdx", "docs/guide/setup.md"}
