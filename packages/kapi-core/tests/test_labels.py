"""What a read says a code stands for: its spelling when it reads as a label, never markup."""

from __future__ import annotations

import pytest

from kapi.core.change.labels import code_kind, code_label
from kapi.core.model import PcClose, PcOpen, Ph


@pytest.mark.parametrize(
    ("data", "label"),
    [
        ("%(provider)s", "%(provider)s"),
        ("{count}", "{count}"),
        ("`kapi check`", "`kapi check`"),
        ("<https://kapi.dev>", "<https://kapi.dev>"),
        ("<kbd>", "<kbd>"),
        ('<x id="1" equiv-text="{{ name }}"/>', "{{ name }}"),
        ('<x id="B" ctype="x-b" equiv-text="&lt;b&gt;"/>', "<b>"),
        ('<ph id="1" disp="{count}" equiv="3"/>', "{count}"),
        ('<x id="LINE"/>', None),
        ('<cp hex="0007"/>', None),
        ("<w:r><w:t>", None),
        ('<a:fld id="{5}" type="slidenum">', None),
        ("%d\n", None),
        ("{" + "x" * 90 + "}", None),
        ("", None),
    ],
)
def test_a_standalone_code_reads_as_its_spelling_or_nothing(data: str, label: str | None) -> None:
    assert code_label(Ph("1", "code:placeholder", data=data), None) == label


def test_a_pair_reads_as_its_two_halves_around_an_ellipsis() -> None:
    assert code_label(PcOpen("1", "fmt:bold", data="**"), PcClose("1", data="**")) == "**…**"
    link = code_label(PcOpen("2", "link:hyperlink", data="["), PcClose("2", data="](https://x.y)"))
    assert link == "[…](https://x.y)"
    assert code_label(PcOpen("3", "fmt:italic", data="<em>"), PcClose("3", data="</em>")) == (
        "<em>…</em>"
    )
    docx = PcOpen("4", "fmt:bold", data="<w:r><w:rPr><w:b/></w:rPr><w:t>")
    assert code_label(docx, PcClose("4", data="</w:t></w:r>")) is None
    assert code_label(PcOpen("5", "fmt:bold", data="<b>"), None) is None


def test_a_format_label_wins_over_the_spelling() -> None:
    assert code_label(Ph("1", "code:placeholder", data="%d", disp="3"), None) == "3"
    assert code_label(Ph("1", "code:placeholder", data="%d", disp="%d"), None) == "%d"


@pytest.mark.parametrize(
    ("run", "kind"),
    [
        (Ph("1", "code:placeholder"), "placeholder"),
        (Ph("1", "code:field"), "placeholder"),
        (Ph("1", "code:expression"), "placeholder"),
        (Ph("1"), "placeholder"),
        (Ph("1", "code:placeholder", data="%(name)s"), "placeholder"),
        (Ph("1", "code:placeholder", data="%%", equiv="%"), "standalone"),
        (Ph("1", "code:placeholder", data="{{", equiv="{"), "standalone"),
        (Ph("1", "fmt:code"), "standalone"),
        (Ph("1", "code:tag"), "standalone"),
        (Ph("1", "fmt:linebreak"), "standalone"),
        (PcOpen("1", "fmt:bold"), "paired"),
    ],
)
def test_only_a_value_the_program_fills_in_is_a_placeholder(run: Ph | PcOpen, kind: str) -> None:
    assert code_kind(run) == kind
