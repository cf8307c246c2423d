import hashlib
import subprocess
import sys

from attrs import evolve
from hypothesis import given
from hypothesis import strategies as st
from kapi_strategies import any_runs, flat_runs

from kapi.core.model import Constraints, PcClose, PcOpen, Ph, Plural, Select, Sub, Text
from kapi.core.revision import canonical_runs_json, is_revision, revision


def test_revision_is_prefix_of_sha256_over_key_nul_and_canonical_json():
    runs = (Text("Hello"),)
    expected = hashlib.sha256(b'en\x00[{"text":"Hello"}]').hexdigest()[:16]
    assert revision("en", runs) == "r:" + expected


def test_canonical_json_field_order_and_omissions():
    runs = (
        Text("a"),
        Text("cmd", no_translate=True),
        Ph(id="1", type="code:placeholder", data="{x}", equiv="{x}"),
        PcOpen(
            id="2",
            type="link:hyperlink",
            sub_type="html:a",
            data="<a>",
            attrs={"title": "t", "href": "h"},
            constraints=Constraints(deletable=False),
        ),
        PcClose(id="2", type="link:hyperlink", data="</a>"),
        Sub(id="3", ref="b9"),
        Plural(pivot="n", forms={"other": (Text("x"),), "one": ()}),
        Select(pivot="g", cases={}),
    )
    assert canonical_runs_json(runs) == (
        '[{"text":"a"},{"text":"cmd","noTranslate":true},'
        '{"ph":{"id":"1","type":"code:placeholder","data":"{x}","equiv":"{x}"}},'
        '{"pcOpen":{"id":"2","type":"link:hyperlink","subType":"html:a","data":"<a>","equiv":"",'
        '"attrs":{"href":"h","title":"t"},"constraints":{"deletable":false,"cloneable":true,"reorderable":true}}},'
        '{"pcClose":{"id":"2","type":"link:hyperlink","data":"</a>"}},'
        '{"sub":{"id":"3","ref":"b9","equiv":""}},'
        '{"plural":{"pivot":"n","forms":{"one":[],"other":[{"text":"x"}]}}},'
        '{"select":{"pivot":"g","cases":{}}}]'
    )


def test_strings_are_escaped_like_go_without_html_escaping():
    text = 'q" b\\ \b\f\n\r\t \x01 \u2028\u2029 <&> é \ud800'
    assert canonical_runs_json((Text(text),)) == (
        '[{"text":"q\\" b\\\\ \\b\\f\\n\\r\\t \\u0001 \\u2028\\u2029 <&> é \ufffd"}]'
    )


def test_revision_depends_on_edition_key():
    runs = (Text("Hi"),)
    assert revision("en", runs) != revision("fr", runs)
    assert revision("", runs) != revision("en", runs)


def test_revision_is_stable_across_processes():
    code = (
        "from kapi.core.model import Text, Ph;"
        "from kapi.core.revision import revision;"
        "print(revision('de-CH', (Text('Grüezi '), Ph(id='1', data='{n}'))))"
    )
    outs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2")
    }
    assert len(outs) == 1
    assert outs.pop().strip() == revision("de-CH", (Text("Grüezi "), Ph(id="1", data="{n}")))


@given(any_runs())
def test_revision_shape(runs):
    assert is_revision(revision("en", runs))


@given(flat_runs(), st.data())
def test_revision_moves_when_any_run_field_changes(runs, data):
    if not runs:
        return
    index = data.draw(st.integers(0, len(runs) - 1))
    run = runs[index]
    if isinstance(run, Text):
        changed = data.draw(
            st.sampled_from(
                [evolve(run, text=run.text + "x"), evolve(run, no_translate=not run.no_translate)]
            )
        )
    elif isinstance(run, Ph | PcOpen):
        changed = data.draw(
            st.sampled_from(
                [
                    evolve(run, data=run.data + "x"),
                    evolve(run, type=run.type + "x"),
                    evolve(run, equiv=run.equiv + "x"),
                    evolve(run, disp=run.disp + "x"),
                    evolve(run, sub_type=run.sub_type + "x"),
                    evolve(run, attrs={**run.attrs, "zz": "1"}),
                    evolve(run, id=run.id + "0"),
                ]
            )
        )
    else:
        changed = evolve(run, data=run.data + "x")
    other = (*runs[:index], changed, *runs[index + 1 :])
    assert revision("en", other) != revision("en", runs)


def test_is_revision():
    assert is_revision("r:0123456789abcdef")
    assert not is_revision("r:0123456789ABCDEF")
    assert not is_revision("r:0123")
    assert not is_revision("absent")
