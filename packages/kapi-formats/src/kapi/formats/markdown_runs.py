"""Scanned inline items become runs: the code type, sub-type and attrs of each Markdown
construct, with the exact source slice as the code's data."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from kapi.core.model import PcClose, PcOpen, Ph, Run, Runs, Text
from kapi.formats.markdown_inline import Item

__all__ = ["items_to_runs"]

_TAG_NAME = re.compile(r"</?([A-Za-z][A-Za-z0-9-]*)")

_EMPHASIS = {
    "em": ("fmt:italic", "md:emphasis"),
    "strong": ("fmt:bold", "md:strong"),
    "strike": ("fmt:strikethrough", "md:strikethrough"),
}
_LINK_FORMS = {
    "inline": "md:link",
    "full": "md:link-full",
    "collapsed": "md:link-collapsed",
    "shortcut": "md:link-shortcut",
}


def _html_sub_type(data: str) -> str:
    if data.startswith("<!--"):
        return "html:comment"
    name = _TAG_NAME.match(data)
    return f"html:{name.group(1).lower()}" if name else "html:markup"


def items_to_runs(
    items: Sequence[Item], content: str, source: Callable[[int, int], str]
) -> tuple[Runs, tuple[str, ...], dict[str, str]]:
    """Runs, the soft-break separators as written, and the raw labels of reference links."""
    runs: list[Run] = []
    separators: list[str] = []
    labels: dict[str, str] = {}
    pending: list[str] = []
    pending_flag = False
    next_id = 0
    pair_ids: dict[int, tuple[str, str, str, Item]] = {}

    def flush() -> None:
        if pending:
            runs.append(Text("".join(pending), no_translate=pending_flag))
            pending.clear()

    def add_text(text: str, flag: bool) -> None:
        nonlocal pending_flag
        if pending and flag != pending_flag:
            flush()
        pending_flag = flag
        pending.append(text)

    for item in items:
        kind = item.kind
        if kind == "text":
            add_text(content[item.start : item.end], item.no_translate)
            continue
        if kind == "soft":
            add_text("\n", item.no_translate)
            separators.append(source(item.start, item.end))
            continue
        flush()
        data = source(item.start, item.end)
        info = item.info
        if kind == "close":
            code_id, code_type, sub_type, opener = pair_ids.pop(item.pair)
            runs.append(PcClose(code_id, code_type, sub_type, data))
            if opener.info.get("form") in ("collapsed", "shortcut"):
                labels[code_id] = source(opener.end, item.start)
            continue
        next_id += 1
        code_id = str(next_id)
        if kind == "open":
            if "emphasis" in info:
                code_type, sub_type = _EMPHASIS[info["emphasis"]]
                attrs: dict[str, str] = {}
            else:
                code_type, sub_type = "link:hyperlink", _LINK_FORMS[info["form"]]
                attrs = {"href": info["href"]}
                if info["title"]:
                    attrs["title"] = info["title"]
            pair_ids[item.pair] = (code_id, code_type, sub_type, item)
            runs.append(PcOpen(code_id, code_type, sub_type, data, attrs=attrs))
        elif kind in ("escape", "entity"):
            sub_type = "md:escape" if kind == "escape" else "md:entity"
            runs.append(Ph(code_id, "entity:char", sub_type, data, equiv=info["char"]))
        elif kind == "code":
            runs.append(Ph(code_id, "fmt:code", "md:code", data, equiv=info["text"]))
        elif kind == "hardbreak":
            runs.append(Ph(code_id, "fmt:linebreak", "md:hardbreak", data, equiv="\n"))
        elif kind == "autolink":
            attrs = {"href": info["href"]}
            runs.append(
                Ph(code_id, "link:hyperlink", "md:autolink", data, info["text"], attrs=attrs)
            )
        elif kind == "html":
            runs.append(Ph(code_id, "code:tag", _html_sub_type(data), data))
        elif kind == "image":
            attrs = {"src": info["src"], "alt": info["alt"]}
            if info["title"]:
                attrs["title"] = info["title"]
            runs.append(Ph(code_id, "media:image", "md:image", data, attrs=attrs))
    flush()
    return tuple(runs), tuple(separators), labels
