"""The terms verbs called directly: typed requests in, typed results out, errors with exit codes.

Each case mirrors one of ``test_terms.py``, which drives the same functions
through ``kapi terms``.
"""

from __future__ import annotations

import json
import textwrap

import pytest

from kapi.core.change.ports import Actor, ActorKind
from kapi.host.errors import EXIT_ERROR, EXIT_USAGE, HostError
from kapi.host.terms import (
    TermHit,
    TermLookupRequest,
    TermRow,
    TermsExport,
    TermsExportRequest,
    TermsImported,
    TermsImportRequest,
    TermsListRequest,
    export_terms,
    import_terms,
    list_terms,
    lookup_term,
)
from kapi.host.wire import encode
from kapi.host.workspace import open_workspace

PERSON = Actor(kind=ActorKind.PERSON)
AGENT = Actor(kind=ActorKind.AGENT, name="helper")

BUNDLE = {
    "schemaVersion": "1.0",
    "kind": "kapi-terms",
    "concepts": [
        {
            "id": "term:en-GB:berth",
            "domain": "harbour",
            "terms": [
                {"text": "berth", "locale": "en-GB", "status": "preferred", "forms": ["berths"]},
                {
                    "text": "mooring",
                    "locale": "en-GB",
                    "status": "deprecated",
                    "note": "use: berth",
                },
                {"text": "Liegeplatz", "locale": "de", "status": "preferred"},
            ],
        },
        {
            "id": "brand:acme",
            "source": "brand_vocabulary",
            "do_not_translate": True,
            "terms": [
                {"text": "Acme Cloud", "locale": "en", "status": "preferred"},
                {
                    "text": "RivalSoft",
                    "locale": "en",
                    "status": "forbidden",
                    "competitor_term": True,
                },
            ],
        },
    ],
}
TBX = textwrap.dedent(
    """\
    <?xml version="1.0" encoding="UTF-8"?>
    <martif type="TBX-Basic" xml:lang="en">
      <text><body>
        <termEntry id="c-login">
          <langSet xml:lang="en">
            <tig>
              <term>sign in</term>
              <termNote type="administrativeStatus">preferredTerm-admn-sts</termNote>
            </tig>
            <tig>
              <term>login</term>
              <termNote type="administrativeStatus">deprecatedTerm-admn-sts</termNote>
            </tig>
          </langSet>
        </termEntry>
      </body></text>
    </martif>
    """
)
CSV = "concept,locale,text,status,note\nc-cart,en,cart,preferred,\nc-cart,en,basket,forbidden,US site\n"


@pytest.fixture
def root(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kapi.yaml").write_text("version: v1\n")
    (tmp_path / "terms.json").write_text(json.dumps(BUNDLE, indent=2))
    (tmp_path / "terms.csv").write_text(CSV)
    (tmp_path / "glossary.tbx").write_text(TBX)
    return tmp_path


def imported(root, path: str, **fields) -> TermsImported:
    fields.setdefault("actor", PERSON)
    with open_workspace(cwd=root, environ={}) as workspace:
        return import_terms(TermsImportRequest(path=path, **fields), workspace)


def listed(root, **fields) -> tuple[TermRow, ...]:
    with open_workspace(cwd=root, environ={}) as workspace:
        return list_terms(TermsListRequest(**fields), workspace)


def looked_up(root, text: str, locale: str | None = None) -> list[tuple[str, str, float]]:
    with open_workspace(cwd=root, environ={}) as workspace:
        hits = lookup_term(TermLookupRequest(text=text, locale=locale), workspace)
    return [(hit.tier, hit.row.term, hit.score) for hit in hits]


def exported(root, path: str = "-", format: str | None = None) -> TermsExport:
    with open_workspace(cwd=root, environ={}) as workspace:
        return export_terms(TermsExportRequest(path=path, format=format), workspace)


def concepts(root) -> list:
    with open_workspace(cwd=root, environ={}) as workspace:
        assert workspace.store is not None
        return workspace.store.concepts()


def test_import_each_format_says_what_changed(root):
    bundle = imported(root, "terms.json")
    assert (bundle.path, bundle.format, bundle.concepts, bundle.terms) == (
        "terms.json",
        "json",
        2,
        5,
    )
    assert (bundle.added, bundle.updated, bundle.removed) == (2, 0, 0)
    assert bundle.op  # the context operation that records the import
    tbx = imported(root, "glossary.tbx")
    assert (tbx.format, tbx.concepts, tbx.terms, tbx.added) == ("tbx", 1, 2, 1)
    sheet = imported(root, "terms.csv")
    assert (sheet.format, sheet.concepts, sheet.terms) == ("csv", 1, 2)
    assert {c.id for c in concepts(root)} == {"term:en-GB:berth", "brand:acme", "c-login", "c-cart"}
    wire = encode(bundle)
    assert list(wire) == [
        "path",
        "format",
        "concepts",
        "terms",
        "added",
        "updated",
        "removed",
        "op",
    ]


def test_reimport_replaces_by_id_and_replace_removes_the_rest(root):
    imported(root, "terms.json")
    again = imported(root, "terms.json")
    assert (again.added, again.updated, again.removed) == (0, 2, 0)
    replaced = imported(root, "terms.csv", replace=True)
    assert (replaced.added, replaced.removed) == (1, 2)
    assert [c.id for c in concepts(root)] == ["c-cart"]


def test_data_stands_in_for_stdin_and_needs_a_format(root):
    done = imported(root, "-", format="tbx", data=TBX.encode())
    assert (done.path, done.concepts, done.terms) == ("-", 1, 2)
    with pytest.raises(HostError) as raised:
        imported(root, "-", data=TBX.encode())
    assert raised.value.exit_code == EXIT_USAGE and "--format" in raised.value.message


def test_an_agent_may_not_import_but_may_read(root):
    with pytest.raises(HostError) as raised:
        imported(root, "terms.csv", actor=AGENT)
    assert raised.value.exit_code == EXIT_ERROR and "a person imports" in raised.value.message
    assert concepts(root) == []
    assert listed(root) == () and looked_up(root, "cart") == []


@pytest.mark.parametrize(
    ("name", "text", "where"),
    [
        ("broken.json", '{\n  "kind": "kapi-terms",\n  "concepts": [,]\n}\n', "broken.json:3:"),
        ("late.csv", CSV + "c-x,en,queue,obsolete,\n", "late.csv:4: status:"),
        ("sheet.txt", CSV, "cannot tell the terms format"),
        ("nowhere.csv", None, "nowhere.csv"),
    ],
)
def test_bad_input_is_a_usage_error_and_imports_nothing(root, name, text, where):
    if text is not None:
        (root / name).write_text(text)
    with pytest.raises(HostError) as raised:
        imported(root, name)
    assert raised.value.exit_code == EXIT_USAGE and where in raised.value.message
    assert concepts(root) == []


def test_export_is_text_for_stdout_or_a_file_written(root):
    imported(root, "terms.json")
    out = exported(root)
    assert out.written is None
    data = json.loads(out.text)
    assert data["kind"] == "kapi-terms"
    assert [c["id"] for c in data["concepts"]] == ["brand:acme", "term:en-GB:berth"]
    assert "<martif" in exported(root, format="tbx").text
    saved = exported(root, "out/saved.csv")
    assert saved.written == "out/saved.csv"
    assert (root / "out/saved.csv").read_text() == saved.text
    assert saved.text.startswith("concept,locale,text,status")
    with pytest.raises(HostError) as raised:
        exported(root, "saved.txt")
    assert raised.value.exit_code == EXIT_USAGE


def test_an_exported_bundle_reimports_byte_identically(root):
    imported(root, "terms.json")
    first = exported(root, "saved.json").text
    imported(root, "saved.json", replace=True)
    assert exported(root).text == first


def test_list_rows_and_filters(root):
    imported(root, "terms.json")
    assert [row.term for row in listed(root)] == [
        "Acme Cloud",
        "berth",
        "Liegeplatz",
        "mooring",
        "RivalSoft",
    ]
    assert [row.term for row in listed(root, locale="de")] == ["Liegeplatz"]
    # a term in en holds for en-GB content too, as in `kapi check`
    assert [row.term for row in listed(root, locale="en_GB")] == [
        "Acme Cloud",
        "berth",
        "mooring",
        "RivalSoft",
    ]
    (forbidden,) = listed(root, status="forbidden")
    assert forbidden == TermRow(
        term="RivalSoft",
        locale="en",
        status="forbidden",
        concept="brand:acme",
        replacement="Acme Cloud",
        note="",
        competitor=True,
        do_not_translate=True,
        forms=(),
        source="brand_vocabulary",
    )
    wire = encode(forbidden)
    assert wire["forms"] == [] and list(wire) == [
        "term",
        "locale",
        "status",
        "concept",
        "replacement",
        "note",
        "competitor",
        "do_not_translate",
        "forms",
        "source",
    ]
    assert TermsListRequest(status="forbidden").filtered and not TermsListRequest().filtered


@pytest.mark.parametrize("fields", [{"status": "great"}, {"locale": "not a tag!"}])
def test_a_bad_filter_is_a_usage_error(root, fields):
    with pytest.raises(HostError) as raised:
        listed(root, **fields)
    assert raised.value.exit_code == EXIT_USAGE


def test_lookup_tiers(root):
    imported(root, "terms.json")
    (root / "more.csv").write_text("text,locale,status\nberths,en,admitted\nBerth,en,admitted\n")
    imported(root, "more.csv")
    assert looked_up(root, "berth") == [
        ("exact", "berth", 1.0),
        ("normalized", "Berth", 1.0),
        ("fuzzy", "berths", 0.833),
    ]
    assert looked_up(root, "  ACME   cloud ") == [("normalized", "Acme Cloud", 1.0)]
    assert looked_up(root, "moorng") == [("fuzzy", "mooring", 0.857)]
    assert looked_up(root, "harbour") == []
    assert looked_up(root, "berth", "de") == []
    assert looked_up(root, "Liegeplatz", "de-AT") == [("exact", "Liegeplatz", 1.0)]
    with pytest.raises(HostError) as raised:
        looked_up(root, "   ")
    assert raised.value.exit_code == EXIT_USAGE


def test_a_hit_on_the_wire_is_its_row_with_tier_and_score_first(root):
    imported(root, "terms.json")
    with open_workspace(cwd=root, environ={}) as workspace:
        (hit,) = lookup_term(TermLookupRequest(text="Mooring"), workspace)
    assert isinstance(hit, TermHit) and hit.row.replacement == "berth"
    wire = encode(hit)
    assert list(wire)[:3] == ["tier", "score", "term"]
    assert wire == {"tier": "normalized", "score": 1.0, **encode(hit.row)}


@pytest.mark.parametrize("verb", ["import", "export", "list", "lookup"])
def test_outside_a_project_every_verb_is_exit_1(tmp_path, monkeypatch, verb):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "terms.csv").write_text(CSV)
    calls = {
        "import": lambda w: import_terms(TermsImportRequest(path="terms.csv", actor=PERSON), w),
        "export": lambda w: export_terms(TermsExportRequest(), w),
        "list": lambda w: list_terms(TermsListRequest(), w),
        "lookup": lambda w: lookup_term(TermLookupRequest(text="cart"), w),
    }
    with open_workspace(cwd=tmp_path, environ={}) as workspace, pytest.raises(HostError) as raised:
        calls[verb](workspace)
    assert raised.value.exit_code == EXIT_ERROR and "kapi init" in raised.value.message
    assert not (tmp_path / ".kapi").exists()
