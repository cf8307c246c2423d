"""Translation QA: what a target must keep of its source, and what usually shows a slip.

Critical rules (a finding fails the check) compare what the program reading
the string depends on: printf conversions (``%s``, ``%5.2f``, ``%(name)s``;
positional ``%1$s`` may be reordered, and a date format such as
``%b %d, %Y`` may be reordered as a language writes dates), brace
placeholders (``{0}``, ``{name}``, ``{{x}}``), variables (``${x}``,
``$name``), backslash escapes, newlines, tabs, XML/HTML tags, and plural and
select structure (same pivots, the forms the target language needs, the same
select cases). Advisory rules (findings that do not fail) point at a likely
slip: an empty or unchanged target, leading or trailing whitespace that
differs, end punctuation that differs (full stop and ``。``, question marks
``?`` ``؟`` ``？`` and the Greek ``;`` count as the same), and a target far
longer or shorter than its source.

A placeholder code counts as the text it is written as, so a ``%(provider)s``
a PO reader turned into a code counts as that conversion; other codes (an
XLIFF segment marker, a Word run) are the format's markup, which the
placeholder analyzer and the change guard look after.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from attrs import frozen

from kapi.core.check.analyzers import CheckUnit, Probe
from kapi.core.check.bilingual import BilingualAnalyzer, placeholders, target_pairs
from kapi.core.check.findings import Finding
from kapi.core.edittext import entity_char
from kapi.core.model import Block, PcClose, PcOpen, Ph, Plural, Runs, Select, Sub, Text
from kapi.core.plurals import required_categories

__all__ = ["CRITICAL", "QaAnalyzer", "QaIssue", "language_plural_forms", "qa_issues"]


@frozen
class QaIssue:
    """One QA rule a target breaks: the rule, what is wrong, and whether it fails the check."""

    rule: str
    message: str
    fails: bool
    token: str = ""  # the placeholder, variable or tag lacking or added, when that is the issue


CRITICAL = (
    "qa.printf",
    "qa.brace",
    "qa.variables",
    "qa.escapes",
    "qa.newlines",
    "qa.tabs",
    "qa.xmltags",
    "qa.plural",
    "qa.select",
)

_PRINTF = re.compile(
    r"%(?:(?P<ord>\d+)\$|\((?P<key>[A-Za-z0-9_.-]+)\))?"
    r"(?P<spec>[-+0#]*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|L|q|j|z|t)?[diouxXeEfFgGaAcspn@r])"
)
_BRACE = re.compile(
    r"\{\{[^{}\n]+\}\}|\{[A-Za-z0-9_]*(?:[.\[][^{}\n]*)?(?:![rsa])?(?::[^{}\n]*)?\}"
)
_VARIABLE = re.compile(r"\$\{[^{}\n]+\}|\$[A-Za-z_][A-Za-z0-9_]*")
# A tag: a name, then attributes that each have a value (``<original entry>`` is prose).
_TAG = re.compile(
    r"<(/?)([A-Za-z][A-Za-z0-9:_-]*)"
    r"(?:\s+[A-Za-z_:][\w:.-]*\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s\"'<>]+))*\s*(/?)>"
)
_ENDS = {
    ".": ".",
    "。": ".",
    "．": ".",
    "।": ".",
    "۔": ".",
    "?": "?",
    "？": "?",
    "؟": "?",
    "!": "!",
    "！": "!",
    ":": ":",
    "：": ":",
    ",": ",",
    "，": ",",
    "、": ",",
    "،": ",",
    ";": ";",
    "；": ";",
    "؛": ";",
    "…": "…",
}


def language_plural_forms(language: str) -> tuple[str, ...]:
    """The plural categories a target in ``language`` must give (``other`` when unknown)."""
    return required_categories(language)


# Codes a program fills in: they count as the text they are written as.
_FILLED = frozenset({"code:placeholder", "code:variable", "code:field", "code:expression", ""})


def _flat(runs: Runs) -> str:
    """The string as the program sees it: text, a placeholder code as it is written, a
    character reference as its character; other codes are the format's markup."""
    out: list[str] = []
    for run in runs:
        if isinstance(run, Text):
            out.append(run.text)
        elif isinstance(run, Ph | PcOpen | PcClose):
            if run.type in _FILLED:
                out.append(run.data or run.equiv)
            elif isinstance(run, Ph) and (char := entity_char(run)) is not None:
                out.append(char)
            # any other code is markup the format keeps (a tag, a segment marker): not text
        elif isinstance(run, Sub):
            out.append(run.equiv)
        elif isinstance(run, Plural):
            out.append(_flat(run.forms.get("other") or next(iter(run.forms.values()), ())))
        elif isinstance(run, Select):
            out.append(_flat(run.cases.get("other") or next(iter(run.cases.values()), ())))
    return "".join(out)


_DATE = re.compile(r"%[-_0^#]?(?:[bBYHIMSjUWZy]|h(?![diouxXn]))")


def _is_date_format(text: str) -> bool:
    """A strftime pattern: a conversion only a date format has (``%b``, ``%Y``, ``%H``)."""
    return _DATE.search(text) is not None


def _printf(source: str, target: str) -> list[QaIssue]:
    if "%" not in source and "%" not in target:
        return []
    source, target = source.replace("%%", ""), target.replace("%%", "")  # a literal percent
    mine = list(_PRINTF.finditer(source))
    theirs = list(_PRINTF.finditer(target))
    if _is_date_format(source):
        # the fields of a date, whatever padding a language gives them (%d, %-d, %e)
        field = {"e": "d", "k": "H", "l": "I"}
        left = Counter("%" + field.get(m.group(0)[-1], m.group(0)[-1]) for m in mine)
        right = Counter("%" + field.get(m.group(0)[-1], m.group(0)[-1]) for m in theirs)
        return _multiset("qa.printf", "date format conversion", left, right)
    issues: list[QaIssue] = []
    named = Counter(m.group(0) for m in mine if m.group("key"))
    named_target = Counter(m.group(0) for m in theirs if m.group("key"))
    issues += _multiset("qa.printf", "printf conversion", named, named_target)
    # the others by the argument they take: %1$s is the first, an unnumbered one its place
    have: dict[int, re.Match[str]] = {}
    for index, match in enumerate((m for m in mine if not m.group("key")), start=1):
        have.setdefault(int(match.group("ord")) if match.group("ord") else index, match)
    want: dict[int, re.Match[str]] = {}
    for index, match in enumerate((m for m in theirs if not m.group("key")), start=1):
        want.setdefault(int(match.group("ord")) if match.group("ord") else index, match)
    for index in sorted(set(have) | set(want)):
        mine_match, their_match = have.get(index), want.get(index)
        if their_match is None and mine_match is not None:
            token = mine_match.group(0)
            message = f"The translation lacks printf conversion {index} ({token})"
            issues.append(QaIssue("qa.printf", message, True, token))
        elif mine_match is None and their_match is not None:
            token = their_match.group(0)
            message = f"The translation adds the printf conversion {token}"
            issues.append(QaIssue("qa.printf", message, True, token))
        elif (
            mine_match is not None
            and their_match is not None
            and mine_match.group("spec") != their_match.group("spec")
        ):
            message = (
                f"printf conversion {index} is {mine_match.group(0)} in the source and "
                f"{their_match.group(0)} in the translation; number them (%1$s) to reorder"
            )
            issues.append(QaIssue("qa.printf", message, True))
    return issues


def _named(
    rule: str, what: str, pattern: re.Pattern[str], source: str, target: str
) -> list[QaIssue]:
    """Placeholders compared as sets: a translation may name one fewer times than its source
    (``another {name}`` said once), never leave one out or bring a new one."""
    left = Counter(set(m.group(0) for m in pattern.finditer(source)))
    right = Counter(set(m.group(0) for m in pattern.finditer(target)))
    return _multiset(rule, what, left, right)


def _multiset(rule: str, what: str, left: Counter[str], right: Counter[str]) -> list[QaIssue]:
    issues: list[QaIssue] = []
    for token, count in sorted((left - right).items()):
        issues.append(
            QaIssue(rule, f"The translation lacks the {what} {token}" + _times(count), True, token)
        )
    for token, count in sorted((right - left).items()):
        issues.append(
            QaIssue(rule, f"The translation adds the {what} {token}" + _times(count), True, token)
        )
    return issues


def _times(count: int) -> str:
    return f" ({count} times)" if count > 1 else ""


def _tags(text: str) -> Counter[str]:
    return Counter(f"<{m.group(1)}{m.group(2).lower()}{m.group(3)}>" for m in _TAG.finditer(text))


def _counted(rule: str, what: str, source: str, target: str, token: str) -> list[QaIssue]:
    have, want = source.count(token), target.count(token)
    if have == want:
        return []
    return [QaIssue(rule, f"The source has {have} {what} and the translation {want}", True)]


def _newlines(source: str, target: str) -> list[QaIssue]:
    issues = _counted("qa.newlines", "line breaks", source, target, "\n")
    if not issues and source.endswith("\n") != target.endswith("\n"):
        issues.append(QaIssue("qa.newlines", "A line break ends only one of the two", True))
    if not issues and source.startswith("\n") != target.startswith("\n"):
        issues.append(QaIssue("qa.newlines", "A line break starts only one of the two", True))
    return issues


def _end(text: str) -> str:
    stripped = text.rstrip()
    if not stripped:
        return ""
    return _ENDS.get(stripped[-1], "")


def _end_punctuation(source: str, target: str, target_language: str) -> list[QaIssue]:
    mine, theirs = _end(source), _end(target)
    if target_language.split("-")[0] == "el" and mine == "?" and theirs == ";":
        return []  # Greek writes its question mark as ;
    if target_language.split("-")[0] in ("th", "lo", "km", "my") and mine == "." and not theirs:
        return []  # these scripts end a sentence with a space or no mark
    if (
        mine == theirs
        or (mine == "…" and target.rstrip().endswith("..."))
        or (theirs == "…" and source.rstrip().endswith("..."))
    ):
        return []
    shown = {"": "no end mark"}
    return [
        QaIssue(
            "qa.endpunc",
            f"The source ends with {shown.get(mine, repr(mine))} and the translation with "
            f"{shown.get(theirs, repr(theirs))}",
            False,
        )
    ]


def _structure(source: Runs, target: Runs, target_language: str) -> list[QaIssue]:
    if not any(isinstance(r, Plural | Select) for r in (*source, *target)):
        return []
    issues: list[QaIssue] = []
    mine = [r for r in source if isinstance(r, Plural | Select)]
    theirs = [r for r in target if isinstance(r, Plural | Select)]
    if [(type(r).__name__, r.pivot) for r in mine] != [(type(r).__name__, r.pivot) for r in theirs]:
        shown = ", ".join(f"{type(r).__name__.lower()} on {r.pivot}" for r in mine) or "none"
        found = ", ".join(f"{type(r).__name__.lower()} on {r.pivot}" for r in theirs) or "none"
        rule = "qa.select" if any(isinstance(r, Select) for r in [*mine, *theirs]) else "qa.plural"
        return [QaIssue(rule, f"The source varies by {shown}; the translation by {found}", True)]
    for a, b in zip(mine, theirs):
        if isinstance(a, Plural) and isinstance(b, Plural):
            needed = set(language_plural_forms(target_language))
            exact = {k for k in a.forms if k.startswith("=")}
            missing = sorted(needed - set(b.forms)) + sorted(exact - set(b.forms))
            if missing:
                issues.append(
                    QaIssue(
                        "qa.plural",
                        f"The translation lacks the plural form(s) {', '.join(missing)} that "
                        f"{target_language} needs",
                        True,
                    )
                )
        elif isinstance(a, Select) and isinstance(b, Select) and set(a.cases) != set(b.cases):
            issues.append(
                QaIssue(
                    "qa.select",
                    f"The source's cases are {', '.join(sorted(a.cases))} and the "
                    f"translation's {', '.join(sorted(b.cases))}",
                    True,
                )
            )
    return issues


def _branch_pairs(source: Runs, target: Runs) -> Iterable[tuple[str, str]]:
    """The strings to compare: the whole text, or a plural's ``other`` forms.

    The other forms of a plural are compared with the source's as a whole:
    a translator may write ``{count}`` in a ``one`` form the source spells
    ``One file``, or leave it out of a ``one`` that only ever means 1.
    """
    mine = [r for r in source if isinstance(r, Plural)]
    theirs = [r for r in target if isinstance(r, Plural)]
    if len(mine) == 1 and len(theirs) == 1 and len(source) == 1 and len(target) == 1:
        own = mine[0].forms.get("other") or next(iter(mine[0].forms.values()), ())
        their = theirs[0].forms.get("other") or next(iter(theirs[0].forms.values()), ())
        yield _flat(own), _flat(their)
        return
    yield _flat(source), _flat(target)


def qa_issues(
    source: Runs, target: Runs, *, source_language: str = "", target_language: str = ""
) -> list[QaIssue]:
    """What ``target`` breaks of ``source``: every critical rule, then the advisory ones."""
    whole_source, whole_target = _flat(source), _flat(target)
    if not whole_target.strip():
        if whole_source.strip():
            return [QaIssue("qa.empty", "The translation is empty", False)]
        return []
    issues = _structure(source, target, target_language)
    for mine, theirs in _branch_pairs(source, target):
        both = mine + theirs
        if "%" in both:
            issues += _printf(mine, theirs)
        if "{" in both:
            issues += _named("qa.brace", "placeholder", _BRACE, mine, theirs)
        if "$" in both:
            issues += _named("qa.variables", "variable", _VARIABLE, mine, theirs)
        if "\\" in both:
            issues += _counted("qa.escapes", "backslash escapes", mine, theirs, "\\")
        if "\n" in both:
            issues += _newlines(mine, theirs)
        if "\t" in both:
            issues += _counted("qa.tabs", "tabs", mine, theirs, "\t")
        whole_tag = _TAG.fullmatch(mine.strip())
        if "<" in both and not (whole_tag and "=" not in mine):
            # a string that is one bare tag (``<command>``) names a thing to translate
            issues += _multiset("qa.xmltags", "tag", _tags(mine), _tags(theirs))
    issues += _advice(whole_source, whole_target, source_language, target_language)
    seen: set[tuple[str, str]] = set()
    unique = []
    for issue in issues:
        if (issue.rule, issue.message) not in seen:
            seen.add((issue.rule, issue.message))
            unique.append(issue)
    return unique


def _advice(source: str, target: str, source_language: str, target_language: str) -> list[QaIssue]:
    issues: list[QaIssue] = []
    letters = sum(1 for char in source if char.isalpha())
    different_language = source_language.split("-")[0] != target_language.split("-")[0]
    if (
        source == target
        and letters >= 4
        and different_language
        and not source.isupper()
        and " " in source.strip()
    ):
        issues.append(QaIssue("qa.unchanged", "The translation is the source unchanged", False))
    if source[: len(source) - len(source.lstrip())] != target[: len(target) - len(target.lstrip())]:
        issues.append(QaIssue("qa.whitespace", "Leading whitespace differs", False))
    if source[len(source.rstrip()) :] != target[len(target.rstrip()) :]:
        issues.append(QaIssue("qa.whitespace", "Trailing whitespace differs", False))
    issues += _end_punctuation(source, target, target_language)
    shown, written = len(source.strip()), len(target.strip())
    if shown >= 2 and written > max(shown * 3, shown + 20):
        issues.append(
            QaIssue(
                "qa.length",
                f"The translation is {written / shown:.1f}× as long as the source",
                False,
            )
        )
    elif shown >= 20 and written * 5 < shown:
        issues.append(
            QaIssue("qa.length", "The translation is a fifth of the source's length or less", False)
        )
    return issues


class QaAnalyzer(BilingualAnalyzer):
    """The QA rules over each block's source and target edition."""

    id = "qa"
    family = "qa"

    def run(self, unit: CheckUnit) -> list[Finding]:
        out: list[Finding] = []
        for block, target in target_pairs(unit):
            # a placeholder lacking or added is the placeholder analyzer's finding already
            counted = placeholders(block.source)
            shown = set(counted - placeholders(target)) | set(placeholders(target) - counted)
            for issue in qa_issues(
                block.source,
                target,
                source_language=unit.locale,
                target_language=unit.target_locale,
            ):
                if issue.token and issue.token in shown:
                    continue
                out.append(
                    self.finding(
                        unit,
                        issue.rule,
                        issue.message,
                        fails=issue.fails,
                        block=block,
                        metadata={"edition": unit.target_locale},
                    )
                )
        return out

    def probes(self, unit: CheckUnit) -> list[Probe]:
        """A known fault per critical rule the placeholder analyzer does not already catch."""
        samples: list[tuple[str, Runs, Runs]] = [
            ("qa.printf", (Text("Deleted %d files in %s"),), (Text("Dans %s, %d fichiers"),)),
            ("qa.escapes", (Text("C:\\temp"),), (Text("C: temp"),)),
            ("qa.newlines", (Text("First\nSecond"),), (Text("Premier Second"),)),
            ("qa.tabs", (Text("Name\tValue"),), (Text("Nom Valeur"),)),
            ("qa.xmltags", (Text("<b>Bold</b> text"),), (Text("Texte gras"),)),
            (
                "qa.plural",
                (Plural("n", {"one": (Text("One file"),), "other": (Text("Many files"),)}),),
                (Text("Fichiers"),),
            ),
        ]
        probes = []
        for rule, source, target in samples:
            block = Block(id="canary", source=source)
            probe_unit = unit.with_blocks([block], {"canary": target})
            probes.append(Probe(probe_unit, rule, f"{_flat(source)!r} → {_flat(target)!r}"))
        return probes
