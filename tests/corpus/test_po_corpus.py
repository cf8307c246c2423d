"""PO corpus: real gettext catalogues shipped in the Django 5.2.8 wheel (BSD-3).

A deterministic sample of about 150 of its 1,226 ``.po`` files, with every
catalogue of the locales whose plural rules are the hardest (3 to 6 forms).
Django ships no BOM or CRLF catalogue, so a few real files are also checked
after giving them both, the way a Windows editor saves them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kapi.core.model import Document, Edition, Plural
from kapi.formats.po import PoFormat, quote, render_runs
from tests.corpus.faithful import assert_faithful, map_text, pseudo_text
from tests.corpus.fetch import Source, unpacked

pytestmark = pytest.mark.corpus

DJANGO = Source(
    registry="pypi",
    name="django",
    version="5.2.8",
    sha256="37e687f7bd73ddf043e2b6b97cfe02fcbb11f2dbb3adccc6a2b18c6daa054d7f",
    filename="django-5.2.8-py3-none-any.whl",
)
PLURAL_HEAVY = (
    "ar",
    "ar_DZ",
    "br",
    "cs",
    "cy",
    "dsb",
    "ga",
    "gd",
    "he",
    "hsb",
    "lt",
    "lv",
    "pl",
    "ru",
    "sk",
    "sl",
    "uk",
)
SAMPLE_SIZE = 150
CODEC = PoFormat()


def sample() -> list[Path]:
    tree = unpacked(DJANGO)
    files = sorted(tree.rglob("*.po"))
    assert len(files) == 1226, "the pinned wheel ships 1,226 catalogues"
    heavy = [f for f in files if f.parts[-3] in PLURAL_HEAVY and f.name == "django.po"]
    rest = [f for f in files if f not in heavy]
    step = max(1, len(rest) // (SAMPLE_SIZE - len(heavy)))
    return sorted(heavy + rest[::step])[:SAMPLE_SIZE]


def relative(path: Path) -> str:
    return path.relative_to(unpacked(DJANGO)).as_posix()


def single_form_gaps(document: Document) -> bool:
    """A one-form catalogue (ja, vi, km) with an untranslated plural entry.

    The shared harness fills an absent target with the source's {one, other};
    such a catalogue has no msgstr for ``one``, the writer drops it, and the
    harness's code comparison cannot hold. These files get the check below.
    """
    return any(
        b.properties.get("plural_forms") == "other" and not b.targets for b in document.blocks
    )


def test_sampled_catalogues_are_faithful() -> None:
    files = sample()
    failures: list[str] = []
    blocks = plural_blocks = skipped = 0
    for path in files:
        data = path.read_bytes()
        if single_form_gaps(CODEC.read(data, path=relative(path))):
            skipped += 1
            continue
        try:
            assert_faithful(CODEC, data, relative(path))
        except AssertionError as err:
            failures.append(f"{relative(path)}: {err}")
        document = CODEC.read(data, path=relative(path))
        blocks += len(document.blocks)
        plural_blocks += sum(
            1 for b in document.blocks if b.source and isinstance(b.source[0], Plural)
        )
    assert not failures, "\n".join(failures[:10])
    assert len(files) >= 140 and skipped < 15
    assert blocks > 10_000 and plural_blocks > 300


def test_single_form_catalogues_take_the_other_form() -> None:
    files = [f for f in sample() if single_form_gaps(CODEC.read(f.read_bytes()))]
    assert files
    for path in files:
        data = path.read_bytes()
        document = CODEC.read(data, path=relative(path))
        assert CODEC.write(document) == data
        language = document.target_locale
        blocks = []
        for block in document.blocks:
            edition = block.targets.get(language)
            runs = edition.runs if edition is not None else block.source
            status = edition.status if edition is not None else "translated"
            blocks.append(block.with_target(language, Edition(map_text(runs, pseudo_text), status)))
        again = CODEC.read(CODEC.write(document.with_blocks(tuple(blocks))), path=relative(path))
        for wanted, got in zip(blocks, again.blocks):
            want_runs = wanted.targets[language].runs
            got_runs = got.targets[language].runs if language in got.targets else ()
            if want_runs and isinstance(want_runs[0], Plural):
                assert isinstance(got_runs[0], Plural)
                assert got_runs[0].forms == {"other": want_runs[0].forms["other"]}
            else:
                assert got_runs == want_runs, (relative(path), wanted.id)


def test_bom_and_crlf_variants_are_faithful() -> None:
    files = [f for f in sample() if f.parts[-3] in ("ru", "ar", "ja", "fr", "pl")]
    assert files
    for path in files:
        data = b"\xef\xbb\xbf" + path.read_bytes().replace(b"\n", b"\r\n")
        assert_faithful(CODEC, data, relative(path) + " (BOM, CRLF)")


def test_plural_forms_match_the_header() -> None:
    counts = {"ru": 4, "ar": 6, "ja": 1, "pl": 4, "cs": 4, "ga": 5, "fr": 3}
    tree = unpacked(DJANGO)
    for language, nplurals in counts.items():
        path = tree / "django" / "conf" / "locale" / language / "LC_MESSAGES" / "django.po"
        document = CODEC.read(path.read_bytes(), path=str(path))
        targets = [
            b.targets[document.target_locale].runs[0]
            for b in document.blocks
            if b.source and isinstance(b.source[0], Plural) and b.targets
        ]
        assert targets, language
        for target in targets:
            assert isinstance(target, Plural)
            assert len(target.forms) == nplurals
            assert list(target.forms)[-1] == "other" or language in ("ru", "pl")


def test_parsing_agrees_with_translate_toolkit() -> None:
    pypo = pytest.importorskip("translate.storage.pypo")
    for path in sample()[::3]:
        data = path.read_bytes()
        document = CODEC.read(data, path=relative(path))
        units = [u for u in pypo.pofile(data).units if not u.isheader() and not u.isobsolete()]
        assert len(units) == len(document.blocks), relative(path)
        for unit, block in zip(units, document.blocks):
            msgid = unit.source.strings if unit.hasplural() else [unit.source]
            msgstr = unit.target.strings if unit.hasplural() else [unit.target]
            context = unit.getcontext()
            assert block.name == (f"{context}\u0004" if unit.msgctxt else "") + msgid[0]
            if unit.hasplural():
                (source,) = block.source
                assert isinstance(source, Plural)
                assert [render_runs(source.forms[f], block.id) for f in ("one", "other")] == msgid
            else:
                assert render_runs(block.source, block.id) == msgid[0]
            edition = block.targets.get(document.target_locale)
            if edition is None:
                assert not any(msgstr)
                continue
            if unit.hasplural():
                (target,) = edition.runs
                assert isinstance(target, Plural)
                assert [render_runs(r, block.id) for r in target.forms.values()] == msgstr
            else:
                assert render_runs(edition.runs, block.id) == msgstr[0]
            assert (edition.status == "draft") == unit.isfuzzy()


def test_rewrapping_reproduces_gettext_layout() -> None:
    same = different = 0
    for path in sample():
        document = CODEC.read(path.read_bytes(), path=relative(path))
        skeleton = document.skeleton
        text = skeleton.text.text
        for entry in skeleton.entries:
            for field in (entry.msgid, entry.msgid_plural, *entry.msgstr):
                if field is None:
                    continue
                again = quote(
                    field.value,
                    prefix=len(field.keyword) + 1,
                    wrap=skeleton.wrap,
                    newline=field.newline,
                )
                if again == text[field.start : field.end]:
                    same += 1
                else:
                    different += 1
    # gettext breaks lines by Unicode line-breaking rules (after "-", "/", ...);
    # the writer breaks only at spaces, which matches almost every string.
    assert same / (same + different) > 0.97, (same, different)
