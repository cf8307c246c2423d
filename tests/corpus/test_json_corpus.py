"""JSON catalogue corpus: real locale files from pinned npm and PyPI packages.

* apache-airflow-core 3.3.2 (PyPI wheel, Apache-2.0): the UI's i18next v4
  catalogues, ``airflow/ui/dist/i18n/locales/<lang>/<ns>.json``: nested,
  ``{{x}}`` interpolation, ``_one``/``_few``/``_many``/``_other`` plural keys.
* home-assistant-frontend 20250109.2 (PyPI wheel, Apache-2.0): compiled
  translations, one-line flat JSON whose values are ICU MessageFormat with
  multi-line plurals and selects.
* zod-i18n-map 2.27.0 (npm, MIT): nested i18next catalogues with ``{{- x}}``.
* i18n-iso-countries 7.14.0 (npm, MIT): nested objects with arrays of names.
* @docusaurus/theme-translations 3.10.2 (npm, MIT): flat catalogues with dotted
  keys and ``{name}`` placeholders.

No ARB files were found in a registry package; ARB is covered by the unit
fixtures.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kapi.core.model import Ph, Plural, Runs, Select
from kapi.formats.json_catalog import JsonFormat, JsonSkeleton
from tests.corpus.faithful import assert_faithful
from tests.corpus.fetch import Source, unpacked

pytestmark = pytest.mark.corpus

CODEC = JsonFormat()

AIRFLOW = Source(
    registry="pypi",
    name="apache-airflow-core",
    version="3.3.2",
    sha256="99258922bccec15be4700ff89f3c942b8acd93407e263c287ce863e671bb3c50",
    filename="apache_airflow_core-3.3.2-py3-none-any.whl",
)
HOME_ASSISTANT = Source(
    registry="pypi",
    name="home-assistant-frontend",
    version="20250109.2",
    sha256="8c4f3e4336147ed405b86809baf15823367d0ec105a0da4f4bde168e693bdd2b",
    filename="home_assistant_frontend-20250109.2-py3-none-any.whl",
)
ZOD = Source(
    registry="npm",
    name="zod-i18n-map",
    version="2.27.0",
    sha256="a95b945d2c05f9726bb50c4ad35771030a8241613b35635b8b1cc89a5d777319",
    filename="zod-i18n-map-2.27.0.tgz",
)
COUNTRIES = Source(
    registry="npm",
    name="i18n-iso-countries",
    version="7.14.0",
    sha256="bb418ebfb965789fcfbcce7dee59888d901ef64b03601da78b2e224cd6f5825c",
    filename="i18n-iso-countries-7.14.0.tgz",
)
DOCUSAURUS = Source(
    registry="npm",
    name="@docusaurus/theme-translations",
    version="3.10.2",
    sha256="fb437137d55c487b8598832c037bd9d29490624c6fa39de45b1a6a79fbd52220",
    filename="docusaurus-theme-translations-3.10.2.tgz",
)


def catalogues(source: Source, pattern: str, cap: int) -> list[tuple[str, bytes]]:
    """Up to ``cap`` files, spread evenly over the sorted list."""
    tree = unpacked(source)
    paths = sorted(tree.glob(pattern))
    step = max(1, len(paths) // cap)
    return [(p.relative_to(tree).as_posix(), p.read_bytes()) for p in paths[::step][:cap]]


def locale_of(relative: str) -> str:
    for part in reversed(Path(relative).parts[:-1]):
        if 2 <= len(part) <= 7 and part.replace("-", "").replace("_", "").isalpha():
            return part
    return Path(relative).name.split("-")[0].split(".")[0]


def string_leaves(value: object) -> int:
    if isinstance(value, str):
        return 1
    if isinstance(value, dict):
        return sum(string_leaves(v) for v in value.values())
    if isinstance(value, list):
        return sum(string_leaves(v) for v in value)
    return 0


def codes(runs: Runs) -> int:
    total = 0
    for run in runs:
        if isinstance(run, Ph):
            total += 1
        elif isinstance(run, Plural):
            total += sum(codes(form) for form in run.forms.values())
        elif isinstance(run, Select):
            total += sum(codes(case) for case in run.cases.values())
    return total


def check(files: list[tuple[str, bytes]]) -> dict[str, int]:
    failures: list[str] = []
    counts = {"files": 0, "blocks": 0, "plurals": 0, "selects": 0, "codes": 0}
    for relative, data in files:
        try:
            assert_faithful(CODEC, data, relative, locale=locale_of(relative))
        except AssertionError as err:
            failures.append(f"{relative}: {err}")
            continue
        document = CODEC.read(data, path=relative)
        skeleton = document.skeleton
        assert isinstance(skeleton, JsonSkeleton)
        # the scanner finds every string value the stdlib parser finds (no duplicates here)
        assert len(skeleton.values) == string_leaves(json.loads(data.decode("utf-8-sig")))
        counts["files"] += 1
        counts["blocks"] += len(document.blocks)
        for block in document.blocks:
            counts["plurals"] += sum(isinstance(r, Plural) for r in block.source)
            counts["selects"] += sum(isinstance(r, Select) for r in block.source)
            counts["codes"] += codes(block.source)
    assert not failures, "\n".join(failures[:10])
    return counts


def test_airflow_i18next_catalogues() -> None:
    files = catalogues(AIRFLOW, "airflow/ui/dist/i18n/locales/*/*.json", 250)
    counts = check(files)
    assert counts["files"] >= 200
    assert counts["plurals"] >= 700  # i18next _one/_few/_other siblings folded
    assert counts["codes"] >= 2000


def test_home_assistant_icu_catalogues() -> None:
    files = catalogues(HOME_ASSISTANT, "hass_frontend/static/translations/**/*.json", 150)
    counts = check(files)
    assert counts["files"] >= 140
    assert counts["plurals"] >= 700
    assert counts["selects"] >= 300
    assert counts["codes"] >= 5000


def test_npm_catalogues() -> None:
    files = [
        *catalogues(ZOD, "package/locales/*/*.json", 40),
        *catalogues(COUNTRIES, "package/langs/*.json", 40),
        *catalogues(DOCUSAURUS, "package/locales/*/*.json", 80),
    ]
    counts = check(files)
    assert counts["files"] >= 140
    assert counts["codes"] >= 1200
