"""`kapi terms`: import (JSON bundle, TBX, CSV), export, list and lookup over the project store."""

import hashlib
import json
import subprocess
import sys
import textwrap

import pytest

from kapi.host.store import ProjectStore

BUNDLE = textwrap.dedent(
    """\
    {
      "schemaVersion": "1.0",
      "kind": "kapi-terms",
      "concepts": [
        {
          "id": "term:en-GB:berth",
          "domain": "harbour",
          "definition": "A place where a boat is kept",
          "terms": [
            {"text": "berth", "locale": "en-GB", "status": "preferred", "forms": ["berths"]},
            {"text": "mooring", "locale": "en-GB", "status": "deprecated", "note": "use: berth"},
            {"text": "Liegeplatz", "locale": "de", "status": "preferred", "gender": "masculine"}
          ]
        },
        {
          "id": "brand:acme",
          "source": "brand_vocabulary",
          "do_not_translate": true,
          "properties": {"owner": "legal"},
          "terms": [
            {"text": "Acme Cloud", "locale": "en", "status": "preferred"},
            {"text": "RivalSoft", "locale": "en", "status": "forbidden", "competitor_term": true,
             "validity": {"valid_from": "2026-01-01"}}
          ]
        }
      ]
    }
    """
)

TBX = textwrap.dedent(
    """\
    <?xml version="1.0" encoding="UTF-8"?>
    <martif type="TBX-Basic" xml:lang="en">
      <text><body>
        <termEntry id="c-login">
          <descrip type="subjectField">accounts</descrip>
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
          <langSet xml:lang="fr_FR">
            <tig><term>se connecter</term></tig>
          </langSet>
        </termEntry>
      </body></text>
    </martif>
    """
)

CSV = textwrap.dedent(
    """\
    concept,locale,text,status,note,competitor,do_not_translate
    c-cart,en,cart,preferred,,,
    c-cart,en,basket,forbidden,US English site,,
    ,en,GitHub,preferred,,,yes
    """
)


def _project(kapi):
    (kapi.root / "kapi.yaml").write_text("version: v1\n")
    return kapi


@pytest.fixture
def project(kapi, monkeypatch):
    monkeypatch.delenv("KAPI_PROJECT", raising=False)
    monkeypatch.delenv("KAPI_NO_PROJECT", raising=False)
    return _project(kapi)


def _store(kapi):
    return ProjectStore(kapi.root / ".kapi" / "project.db")


def _import(kapi, name, text, *args):
    (kapi.root / name).write_text(text)
    result = kapi("terms", "import", name, "--json", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _list(kapi, *args):
    result = kapi("terms", "list", "--json", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _export(kapi, *args):
    result = kapi("terms", "export", *args)
    assert result.exit_code == 0, result.output
    return result.stdout


# --- import ---------------------------------------------------------------------------


def test_import_json_bundle(project):
    summary = _import(project, "terms.json", BUNDLE)
    assert {k: summary[k] for k in ("path", "format", "concepts", "terms", "added")} == {
        "path": "terms.json",
        "format": "json",
        "concepts": 2,
        "terms": 5,
        "added": 2,
    }
    concepts = {c.id: c for c in _store(project).concepts()}
    berth = concepts["term:en-GB:berth"]
    assert berth.domain == "harbour" and berth.definition.startswith("A place")
    assert [(t.text, t.locale, t.status) for t in berth.terms] == [
        ("berth", "en-GB", "preferred"),
        ("mooring", "en-GB", "deprecated"),
        ("Liegeplatz", "de", "preferred"),
    ]
    assert berth.terms[0].forms == ("berths",) and berth.terms[2].gender == "masculine"
    acme = concepts["brand:acme"]
    assert acme.do_not_translate and acme.source == "brand_vocabulary"
    assert dict(acme.properties) == {"owner": "legal"}
    assert acme.terms[1].competitor_term and acme.terms[1].validity.valid_from == "2026-01-01"
    assert berth.created_at and berth.updated_at  # stamped on the way in


def test_import_records_one_context_op_with_evidence(project):
    summary = _import(project, "terms.json", BUNDLE)
    ops = [op for op in _store(project).context_log() if op["kind"] == "context.import"]
    assert len(ops) == 1 and ops[0]["id"] == summary["op"]
    assert ops[0]["actor"]["kind"] == "person"
    assert ops[0]["evidence"] == {
        "path": "terms.json",
        "sha256": hashlib.sha256(BUNDLE.encode()).hexdigest(),
    }
    assert ops[0]["count"] == 2


def test_import_tbx(project):
    summary = _import(project, "glossary.tbx", TBX)
    assert summary["format"] == "tbx" and summary["terms"] == 3
    (concept,) = _store(project).concepts()
    assert concept.id == "c-login" and concept.domain == "accounts"
    assert [(t.text, t.locale, t.status) for t in concept.terms] == [
        ("sign in", "en", "preferred"),
        ("login", "en", "deprecated"),
        ("se connecter", "fr-FR", "approved"),
    ]


def test_import_csv(project):
    summary = _import(project, "terms.csv", CSV)
    assert summary["format"] == "csv" and summary["concepts"] == 2 and summary["terms"] == 3
    concepts = {c.id: c for c in _store(project).concepts()}
    assert [(t.text, t.status, t.note) for t in concepts["c-cart"].terms] == [
        ("cart", "preferred", ""),
        ("basket", "forbidden", "US English site"),
    ]
    assert concepts["term:en:github"].do_not_translate


def test_format_flag_overrides_the_extension_and_stdin_needs_it(project):
    (project.root / "sheet.txt").write_text(CSV)
    unknown = project("terms", "import", "sheet.txt")
    assert unknown.exit_code == 2 and "--format" in unknown.stderr
    assert _store(project).concepts() == []
    assert project("terms", "import", "sheet.txt", "--format", "csv").exit_code == 0
    piped = project("terms", "import", "-", "--format", "tbx", input=TBX)
    assert piped.exit_code == 0, piped.output
    assert "imported 1 concept (3 terms)" in piped.stderr
    assert {c.id for c in _store(project).concepts()} == {"c-cart", "term:en:github", "c-login"}


def test_reimport_replaces_by_id_and_replace_removes_the_rest(project):
    _import(project, "terms.json", BUNDLE)
    created = {c.id: c.created_at for c in _store(project).concepts()}
    only_berth = json.loads(BUNDLE)
    only_berth["concepts"] = only_berth["concepts"][:1]
    only_berth["concepts"][0]["terms"] = only_berth["concepts"][0]["terms"][:1]
    merged = _import(project, "berth.json", json.dumps(only_berth))
    assert (merged["added"], merged["updated"], merged["removed"]) == (0, 1, 0)
    concepts = {c.id: c for c in _store(project).concepts()}
    assert set(concepts) == {"term:en-GB:berth", "brand:acme"}
    assert [t.text for t in concepts["term:en-GB:berth"].terms] == ["berth"]
    assert concepts["term:en-GB:berth"].created_at == created["term:en-GB:berth"]

    replaced = _import(project, "terms.csv", CSV, "--replace")
    assert (replaced["added"], replaced["removed"]) == (2, 2)
    assert {c.id for c in _store(project).concepts()} == {"c-cart", "term:en:github"}


# --- export and round trips -----------------------------------------------------------


def test_export_defaults_to_a_json_bundle_on_stdout(project):
    _import(project, "terms.json", BUNDLE)
    data = json.loads(_export(project))
    assert data["schemaVersion"] == "1.0" and data["kind"] == "kapi-terms"
    assert [c["id"] for c in data["concepts"]] == ["brand:acme", "term:en-GB:berth"]
    assert "<martif" in _export(project, "--format", "tbx")
    assert _export(project, "-", "--format", "csv").startswith("concept,locale,text,status")


def _same(concept, *, exact):
    if exact:
        return concept
    # TBX and CSV carry no properties, project id or timestamps
    return (concept.id, concept.terms, concept.domain, concept.definition, concept.source,
            concept.do_not_translate)  # fmt: skip


@pytest.mark.parametrize("name", ["out.json", "out.tbx", "out.csv"])
def test_export_then_import_gives_the_same_concepts(project, tmp_path, monkeypatch, name):
    _import(project, "terms.json", BUNDLE)
    result = project("terms", "export", name)
    assert result.exit_code == 0 and result.stdout == ""
    assert f"wrote {name}" in result.stderr
    before = _store(project).concepts()

    other = tmp_path / "other"
    other.mkdir()
    (other / "kapi.yaml").write_text("version: v1\n")
    (other / name).write_bytes((project.root / name).read_bytes())  # a file of that project
    again = project("-p", str(other), "terms", "import", str(other / name))
    assert again.exit_code == 0, again.output
    after = ProjectStore(other / ".kapi" / "project.db").concepts()
    exact = name.endswith(".json")
    assert [_same(c, exact=exact) for c in after] == [_same(c, exact=exact) for c in before]


def test_exported_bundle_reimports_byte_identically(project):
    _import(project, "terms.json", BUNDLE)
    _export(project, "saved.json")
    first = (project.root / "saved.json").read_text()
    _import(project, "saved.json", first, "--replace")
    assert _export(project) == first


# --- list -----------------------------------------------------------------------------


def test_list_table(project):
    _import(project, "terms.json", BUNDLE)
    result = project("terms", "list")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["TERM", "LOCALE", "STATUS", "CONCEPT", "REPLACEMENT/NOTE"]
    body = {line.split()[0]: line for line in lines[1:]}
    assert list(body) == ["Acme", "berth", "Liegeplatz", "mooring", "RivalSoft"]
    assert "use: berth" in body["mooring"] and "deprecated" in body["mooring"]
    assert "forbidden, competitor, do not translate" in body["RivalSoft"]
    assert "use: Acme Cloud" in body["RivalSoft"]


def test_list_filters(project):
    _import(project, "terms.json", BUNDLE)
    assert [r["term"] for r in _list(project, "--locale", "de")] == ["Liegeplatz"]
    assert [r["term"] for r in _list(project, "--locale", "en")] == [
        "Acme Cloud",
        "berth",
        "mooring",
        "RivalSoft",
    ]
    # a term in en holds for en-GB content too, as in `kapi check`
    assert [r["term"] for r in _list(project, "--locale", "en_GB")] == [
        "Acme Cloud",
        "berth",
        "mooring",
        "RivalSoft",
    ]
    (forbidden,) = _list(project, "--status", "forbidden")
    assert forbidden == {
        "term": "RivalSoft",
        "locale": "en",
        "status": "forbidden",
        "concept": "brand:acme",
        "replacement": "Acme Cloud",
        "note": "",
        "competitor": True,
        "do_not_translate": True,
        "forms": [],
        "source": "brand_vocabulary",
    }
    assert project("terms", "list", "--status", "great").exit_code == 2
    assert project("terms", "list", "--locale", "not a tag!").exit_code == 2


def test_list_of_an_empty_store(project):
    result = project("terms", "list")
    assert result.exit_code == 0 and result.stdout == ""
    assert "kapi terms import" in result.stderr
    assert _list(project) == []


# --- lookup ---------------------------------------------------------------------------


def _lookup(kapi, *args):
    result = kapi("terms", "lookup", *args, "--json")
    assert result.exit_code == 0, result.output
    return [(hit["tier"], hit["term"], hit["score"]) for hit in json.loads(result.stdout)]


def test_lookup_tiers(project):
    _import(project, "terms.json", BUNDLE)
    _import(project, "more.csv", "text,locale,status\nberths,en,admitted\nBerth,en,admitted\n")
    assert _lookup(project, "berth") == [
        ("exact", "berth", 1.0),
        ("normalized", "Berth", 1.0),
        ("fuzzy", "berths", 0.833),
    ]
    assert _lookup(project, "  ACME   cloud ") == [("normalized", "Acme Cloud", 1.0)]
    assert _lookup(project, "moorng") == [("fuzzy", "mooring", 0.857)]
    assert _lookup(project, "harbour") == []
    assert _lookup(project, "berth", "--locale", "de") == []
    assert _lookup(project, "Liegeplatz", "--locale", "de-AT") == [("exact", "Liegeplatz", 1.0)]


def test_lookup_table_says_the_tier_and_the_fix(project):
    _import(project, "terms.json", BUNDLE)
    result = project("terms", "lookup", "Mooring")
    assert result.exit_code == 0
    header, row = result.stdout.splitlines()
    assert header.split()[:2] == ["MATCH", "TERM"]
    assert row.split()[:4] == ["normalized", "mooring", "en-GB", "deprecated"]
    assert row.endswith("use: berth")
    none = project("terms", "lookup", "quay")
    assert none.exit_code == 0 and none.stdout == "" and "no term matches 'quay'" in none.stderr


# --- bad input: usage error naming file, line and key; nothing written ----------------

BAD = [
    (
        "broken.json",
        '{\n  "schemaVersion": "1.0",\n  "kind": "kapi-terms",\n  "concepts": [,]\n}\n',
        "broken.json:4:",
        "not JSON",
    ),
    (
        "unknown.json",
        BUNDLE.replace('"gender": "masculine"', '"colour": "blue"'),
        "unknown.json:12: concepts[0].terms[2].colour:",
        "unknown key",
    ),
    (
        "status.json",
        BUNDLE.replace('"status": "deprecated"', '"status": "obsolete"'),
        "status.json:11: concepts[0].terms[1].status:",
        "obsolete",
    ),
    (
        "kind.json",
        BUNDLE.replace('"kapi-terms"', '"glossary"'),
        "kind.json:3: kind:",
        "kapi-terms",
    ),
    (
        "broken.tbx",
        TBX.replace("<term>login</term>", "<term>login"),
        "broken.tbx:14:",
        "malformed XML",
    ),
    (
        "status.tbx",
        TBX.replace("deprecatedTerm-admn-sts", "oldTerm"),
        "status.tbx:13: termNote:",
        "oldTerm",
    ),
    (
        "nocolumn.csv",
        "concept,locale,status\nc,en,preferred\n",
        "nocolumn.csv:1:",
        "text (or term) column",
    ),
    ("late.csv", CSV + "c-x,en,queue,obsolete,,,\n", "late.csv:5: status:", "obsolete"),
    ("latin1.csv", "text,locale\nna\xefve,en\n", "latin1.csv:2:", "UTF-8"),
]


@pytest.mark.parametrize(("name", "text", "where", "what"), BAD, ids=[b[0] for b in BAD])
def test_malformed_input_names_file_line_and_key_and_writes_nothing(
    project, name, text, where, what
):
    _import(project, "terms.json", BUNDLE)
    before = _export(project)
    log = len(_store(project).context_log())
    data = text.encode("latin-1") if name == "latin1.csv" else text.encode()
    (project.root / name).write_bytes(data)
    result = project("terms", "import", name)
    assert result.exit_code == 2, result.output
    assert where in result.stderr and what in result.stderr
    assert "nothing imported" in result.stderr
    assert _export(project) == before
    assert len(_store(project).context_log()) == log


def test_malformed_input_under_json_prints_the_envelope(project):
    (project.root / "broken.json").write_text("{")
    result = project("terms", "import", "broken.json", "--json")
    assert result.exit_code == 2
    assert json.loads(result.stdout)["code"] == "usage"


def test_missing_file_is_a_usage_error(project):
    result = project("terms", "import", "nowhere.csv")
    assert result.exit_code == 2 and "nowhere.csv" in result.stderr


# --- who and where --------------------------------------------------------------------


@pytest.mark.parametrize(
    "verb",
    [("import", "terms.csv"), ("export",), ("list",), ("lookup", "cart")],
    ids=lambda verb: verb[0],
)
def test_outside_a_project_every_verb_exits_1(kapi, monkeypatch, verb):
    monkeypatch.delenv("KAPI_PROJECT", raising=False)
    (kapi.root / "terms.csv").write_text(CSV)
    result = kapi("terms", *verb)
    assert result.exit_code == 1
    assert "kapi init" in result.stderr
    assert not (kapi.root / ".kapi").exists()


@pytest.mark.parametrize(
    "env",
    [{"KAPI_ACTOR": "agent"}, {"CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s1"}],
    ids=["declared", "claude-code"],
)
def test_an_agent_may_not_import(project, env):
    (project.root / "terms.csv").write_text(CSV)
    result = project("terms", "import", "terms.csv", env=env)
    assert result.exit_code == 1
    assert "a person imports" in result.stderr
    assert _store(project).concepts() == [] and _store(project).context_log() == []
    # reading stays open to agents
    assert project("terms", "list", env=env).exit_code == 0
    assert project("terms", "lookup", "cart", env=env).exit_code == 0


def test_help_is_light_and_lists_the_verbs(project):
    probe = (
        "import sys, kapi.cli.main; "
        "heavy = [m for m in sys.modules if m.startswith(('cattrs', 'kapi.core.governance', "
        "'kapi.host.terms', 'kapi.host.store'))]; "
        "assert not heavy, heavy"
    )
    subprocess.run([sys.executable, "-c", probe], check=True)
    result = project("terms", "--help")
    assert result.exit_code == 0
    for verb in ("import", "export", "list", "lookup"):
        assert verb in result.stdout
    assert "terms" in project("--help").stdout
