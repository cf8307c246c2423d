"""Revisions: the guard every edit carries, ``r:`` + 16 hex of a digest of an edition.

``rev = "r:" + sha256(key_text + "\\0" + canonical_runs_json)[:16]``. The
canonical JSON has a fixed field order, omits empty optional fields, sorts
map keys, and escapes strings the way Go's encoder does with HTML escaping
off, so a revision is the same in every process and on every platform.
Status, origin and other editions are not part of it; codes' native data and
attributes are.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping

from kapi.core.model import (
    Constraints,
    PcClose,
    PcOpen,
    Ph,
    Plural,
    Run,
    Runs,
    Select,
    Sub,
    Text,
)

__all__ = ["ABSENT", "canonical_runs_json", "is_revision", "revision"]

ABSENT = "absent"


# The C string encoder of the standard library escapes exactly what Go's encoder does
# (quote, backslash, \b \f \n \r \t, other C0 as \u00xx) except U+2028/U+2029,
# which Go escapes too, and lone surrogates, which Go cannot hold (U+FFFD).
_encode_string = json.encoder.encode_basestring
_sha256 = hashlib.sha256
_SURROGATE = re.compile("[\ud800-\udfff]")


def _string(value: str) -> str:
    out: str = _encode_string(value)
    if "\u2028" in out or "\u2029" in out:
        out = out.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return out


def _attrs(values: Mapping[str, str]) -> str:
    keys = sorted(values, key=lambda key: key.encode("utf-8", "surrogatepass"))
    return "{" + ",".join(f"{_string(k)}:{_string(values[k])}" for k in keys) + "}"


def _constraints(value: Constraints) -> str:
    return (
        f'{{"deletable":{_bool(value.deletable)},"cloneable":{_bool(value.cloneable)},'
        f'"reorderable":{_bool(value.reorderable)}}}'
    )


def _bool(value: bool) -> str:
    return "true" if value else "false"


def _code(run: Ph | PcOpen) -> str:
    parts = [f'"id":{_string(run.id)}', f'"type":{_string(run.type)}']
    if run.sub_type:
        parts.append(f'"subType":{_string(run.sub_type)}')
    parts.append(f'"data":{_string(run.data)}')
    parts.append(f'"equiv":{_string(run.equiv)}')
    if run.disp:
        parts.append(f'"disp":{_string(run.disp)}')
    if run.attrs:
        parts.append(f'"attrs":{_attrs(run.attrs)}')
    if run.constraints is not None:
        parts.append(f'"constraints":{_constraints(run.constraints)}')
    return "{" + ",".join(parts) + "}"


def _branches(branches: Mapping[str, Runs] | None) -> str:
    if branches is None:
        return "null"
    keys = sorted(branches, key=lambda key: key.encode("utf-8", "surrogatepass"))
    return "{" + ",".join(f"{_string(k)}:{_runs(branches[k])}" for k in keys) + "}"


def _run(run: Run) -> str:
    if isinstance(run, Text):
        if run.no_translate:
            return f'{{"text":{_string(run.text)},"noTranslate":true}}'
        return f'{{"text":{_string(run.text)}}}'
    if isinstance(run, Ph):
        return f'{{"ph":{_code(run)}}}'
    if isinstance(run, PcOpen):
        return f'{{"pcOpen":{_code(run)}}}'
    if isinstance(run, PcClose):
        parts = [f'"id":{_string(run.id)}', f'"type":{_string(run.type)}']
        if run.sub_type:
            parts.append(f'"subType":{_string(run.sub_type)}')
        parts.append(f'"data":{_string(run.data)}')
        if run.equiv:
            parts.append(f'"equiv":{_string(run.equiv)}')
        return '{"pcClose":{' + ",".join(parts) + "}}"
    if isinstance(run, Sub):
        return (
            f'{{"sub":{{"id":{_string(run.id)},"ref":{_string(run.ref)},'
            f'"equiv":{_string(run.equiv)}}}}}'
        )
    if isinstance(run, Plural):
        return f'{{"plural":{{"pivot":{_string(run.pivot)},"forms":{_branches(run.forms)}}}}}'
    if isinstance(run, Select):
        return f'{{"select":{{"pivot":{_string(run.pivot)},"cases":{_branches(run.cases)}}}}}'
    return "null"


def _runs(runs: Runs | None) -> str:
    if runs is None:
        return "null"
    return "[" + ",".join(_run(run) for run in runs) + "]"


def canonical_runs_json(runs: Runs) -> str:
    """The canonical JSON of a run sequence that a revision hashes."""
    if len(runs) == 1 and type(runs[0]) is Text and not runs[0].no_translate:
        out = '[{"text":' + _string(runs[0].text) + "}]"  # plain text: most catalogue values
    else:
        out = _runs(runs)
    if not out.isascii() and _SURROGATE.search(out):
        out = _SURROGATE.sub("\ufffd", out)
    return out


def revision(edition_key: str, runs: Runs) -> str:
    """The revision of an edition: its canonical key text and its runs.

    ``edition_key`` is the edition as resolved: for a block's own edition the
    block's source locale (``"en"``), or ``""`` when the block also holds a
    target in the same language.
    """
    first = runs[0] if len(runs) == 1 else None
    if type(first) is Text and not first.no_translate:
        # Plain text (most catalogue values), as canonical_runs_json writes it.
        out = _encode_string(first.text)
        if "\u2028" in out or "\u2029" in out:
            out = out.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
        if not out.isascii() and _SURROGATE.search(out):
            out = _SURROGATE.sub("\ufffd", out)
        canonical = '[{"text":' + out + "}]"
    else:
        canonical = canonical_runs_json(runs)
    payload = edition_key.encode("utf-8", "replace") + b"\x00" + canonical.encode("utf-8")
    return "r:" + _sha256(payload).hexdigest()[:16]


def is_revision(value: str) -> bool:
    """True for ``r:`` followed by 16 lowercase hex digits."""
    return (
        len(value) == 18
        and value.startswith("r:")
        and all(c in "0123456789abcdef" for c in value[2:])
    )
