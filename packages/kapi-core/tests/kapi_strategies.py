"""Hypothesis strategies for the content model, shared by the core's tests."""

from __future__ import annotations

from hypothesis import strategies as st

from kapi.core.model import Constraints, PcClose, PcOpen, Ph, Plural, Run, Select, Sub, Text

words = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="<"),
    min_size=1,
    max_size=12,
)
code_types = st.sampled_from(["", "fmt:bold", "fmt:italic", "link:hyperlink", "code:placeholder"])
attrs = st.dictionaries(st.sampled_from(["href", "title", "alt"]), st.text(max_size=5), max_size=2)


@st.composite
def flat_runs(draw: st.DrawFn, max_codes: int = 4) -> tuple[Run, ...]:
    """Runs without structures: text with well-nested paired codes and placeholders."""
    out: list[Run] = []
    next_id = 1
    stack: list[PcOpen] = []
    for _ in range(draw(st.integers(0, 8))):
        choice = draw(st.integers(0, 5))
        if choice <= 2:
            text = draw(words)
            if out and isinstance(out[-1], Text):
                out[-1] = Text(out[-1].text + text, out[-1].no_translate)
            else:
                out.append(Text(text, no_translate=draw(st.booleans()) and choice == 2))
        elif choice == 3 and next_id <= max_codes:
            out.append(
                Ph(
                    id=str(next_id),
                    type=draw(code_types),
                    data=draw(st.sampled_from(["{x}", "%s", "<br/>", "&amp;", "&#8217;"])),
                    equiv=draw(st.sampled_from(["", "{x}"])),
                    attrs=draw(attrs),
                    constraints=draw(
                        st.none()
                        | st.builds(Constraints, st.booleans(), st.booleans(), st.booleans())
                    ),
                )
            )
            next_id += 1
        elif choice == 4 and next_id <= max_codes:
            opener = PcOpen(id=str(next_id), type=draw(code_types), data="<b>", attrs=draw(attrs))
            out.append(opener)
            stack.append(opener)
            next_id += 1
        elif choice == 5 and stack:
            opener = stack.pop()
            out.append(PcClose(id=opener.id, type=opener.type, data="</b>"))
    while stack:
        opener = stack.pop()
        out.append(PcClose(id=opener.id, type=opener.type, data="</b>"))
    return tuple(out)


@st.composite
def any_runs(draw: st.DrawFn) -> tuple[Run, ...]:
    """Runs that may hold a plural or select whose branches are flat runs."""
    base = list(draw(flat_runs()))
    if draw(st.booleans()):
        forms = draw(
            st.dictionaries(
                st.sampled_from(["one", "other", "few", "=0"]), flat_runs(2), min_size=1, max_size=3
            )
        )
        base.append(Plural(pivot=draw(st.sampled_from(["n", "count"])), forms=forms))
    if draw(st.booleans()):
        cases = draw(
            st.dictionaries(
                st.sampled_from(["male", "female", "other"]), flat_runs(2), min_size=1, max_size=3
            )
        )
        base.append(Select(pivot="g", cases=cases))
    if draw(st.booleans()):
        base.append(Sub(id="9", ref="b7", equiv="x"))
    return tuple(base)
