"""What a read says of inline codes, on real files: every placeholder shows what it stands for,
and the guard refuses dropping exactly the codes the read calls not deletable.

Django's and Sphinx's catalogues, Android resources, Weblate's XLIFF, i18next and ICU
JSON catalogues, Java bundles, an iOS library's string tables, docutils' HTML, a Sphinx
theme's MyST pages and typescript-eslint's MDX pages. Each code of each block's own text
(outside plurals, which are edited through a path) is dropped, a pair with both halves.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from kapi.core.change.guards import check_codes
from kapi.core.change.reading import code_infos
from kapi.core.errors import KapiError
from kapi.core.model import PcClose, PcOpen, Ph, Runs
from kapi.formats import registry
from tests.corpus.fetch import unpacked
from tests.corpus.test_android_corpus import resource_files
from tests.corpus.test_html_corpus import DOCUTILS
from tests.corpus.test_json_corpus import AIRFLOW, HOME_ASSISTANT, catalogues
from tests.corpus.test_myst_mdx_corpus import mdx_files, myst_files
from tests.corpus.test_po_corpus import sample
from tests.corpus.test_project_corpus import SPHINX
from tests.corpus.test_properties_corpus import viewer_files
from tests.corpus.test_strings_corpus import tables
from tests.corpus.test_xliff_corpus import weblate_files

pytestmark = pytest.mark.corpus


def _dropped(runs: Runs, token: str) -> Runs:
    code_id = token.rstrip("/")
    if token.endswith("/"):
        return tuple(r for r in runs if not (isinstance(r, Ph) and r.id == code_id))
    return tuple(r for r in runs if not (isinstance(r, PcOpen | PcClose) and r.id == code_id))


def _judge(format_name: str, items: list[tuple[str, bytes]], counts: Counter[str]) -> list[str]:
    spec = registry.get(format_name)
    codec = registry.load_codec(spec)
    wrong: list[str] = []
    for name, data in items:
        try:
            document = codec.read(data, path=name, locale="en")
        except KapiError:
            counts["unread"] += 1  # the format's own corpus test says why
            continue
        for block in document.blocks:
            top_level = {r.id for r in block.source if isinstance(r, Ph | PcOpen)}
            for token, info in (code_infos(block.source, spec.capabilities) or {}).items():
                if info.constraints is None:
                    continue  # a sub-block
                counts[info.kind] += 1
                if info.kind == "placeholder" and not (info.disp or info.equiv):
                    wrong.append(f"{name} {block.id} {token}: a placeholder with no disp or equiv")
                if token.rstrip("/") not in top_level:
                    continue
                refused = check_codes(block.source, _dropped(block.source, token)) is not None
                counts["judged"] += 1
                if refused == info.constraints.deletable:
                    verdict = "refused" if refused else "accepted"
                    wrong.append(f"{name} {block.id} {token} ({info.type}): the guard {verdict}")
    return wrong


def _paths(paths: list[Path], cap: int = 200) -> list[tuple[str, bytes]]:
    return [(path.name, path.read_bytes()) for path in paths[:cap]]


CASES = {
    "po": lambda: _paths(sample() + sorted(unpacked(SPHINX).rglob("*.po"))[:60]),
    "androidxml": lambda: _paths([path for _, path in resource_files()]),
    "xliff": lambda: _paths(weblate_files("*.xliff") + weblate_files("*.poxliff")),
    "json": lambda: (
        catalogues(AIRFLOW, "airflow/ui/dist/i18n/locales/*/*.json", 60)
        + catalogues(HOME_ASSISTANT, "hass_frontend/static/translations/**/*.json", 60)
    ),
    "properties": viewer_files,
    "applestrings": lambda: tables()[0],
    "html": lambda: _paths(sorted(unpacked(DOCUTILS).rglob("*.html"))),
    "myst": lambda: _paths(myst_files()),
    "mdx": lambda: _paths(mdx_files()),
}


@pytest.mark.parametrize("format_name", sorted(CASES))
def test_every_code_says_what_it_is_and_the_guard_agrees(format_name: str) -> None:
    counts: Counter[str] = Counter()
    wrong = _judge(format_name, CASES[format_name](), counts)
    assert wrong == [], wrong[:10]
    assert counts["judged"] > 0, counts
