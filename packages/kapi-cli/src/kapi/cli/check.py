"""``kapi check``: the gate, on files, a diff or text."""

from __future__ import annotations

import sys

import click

from kapi.cli.common import format_option, source_lang_option, workspace_of
from kapi.cli.output import fail
from kapi.host.errors import KapiError


@click.command()
@click.argument("files", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print the kapi.check/v2 report as JSON.")
@click.option(
    "--no-fail", is_flag=True, help="Exit 0 even when findings fail (never hides exit 4)."
)
@click.option("--max-chars", type=int, default=0, help="Fail a block longer than N characters.")
@click.option("--max-words", type=int, default=0, help="Fail a block longer than N words.")
@click.option("--forbid", multiple=True, metavar="REGEX", help="Fail where this pattern occurs.")
@click.option(
    "--require", multiple=True, metavar="REGEX", help="Fail a file where this pattern never occurs."
)
@click.option(
    "--target", metavar="FILE", help="A translation of the one source file, for bilingual checks."
)
@click.option("--target-lang", metavar="LANG", help="The language of --target.")
@click.option(
    "--dnt", multiple=True, metavar="TERM", help="A term a translation must keep verbatim."
)
@click.option("--profile", default="", help="Check as this recipe profile (outranks location).")
@click.option("--channel", default="", help="Check as this channel of the profile.")
@click.option(
    "--voice",
    default="",
    help="Use this voice profile id (or pack:NAME, a starter pack) instead of the one bound.",
)
@click.option(
    "--diff-against",
    metavar="REV",
    help="Check only blocks changed since REV (git; untracked files count).",
)
@click.option(
    "--diff-file", metavar="FILE", help="Check only blocks a unified diff changes (- for stdin)."
)
@click.option("--staged", is_flag=True, help="Check only blocks changed in the git index.")
@click.option(
    "--ship", is_flag=True, help="Report as ship gates (voice, terminology, qa); needs a project."
)
@click.option(
    "--gate",
    "gates",
    multiple=True,
    type=click.Choice(["voice", "terminology", "qa"]),
    help="With --ship: a gate to judge (repeatable; default all).",
)
@click.option("--text", "text", metavar="TEXT", help="Check this text instead of files.")
@click.option(
    "--comments",
    is_flag=True,
    help="Check the prose in source files' comments and docstrings (kapi-formats[code]).",
)
@format_option
@source_lang_option
def check(
    files: tuple[str, ...],
    as_json: bool,
    no_fail: bool,
    max_chars: int,
    max_words: int,
    forbid: tuple[str, ...],
    require: tuple[str, ...],
    target: str | None,
    target_lang: str | None,
    dnt: tuple[str, ...],
    profile: str,
    channel: str,
    voice: str,
    diff_against: str | None,
    diff_file: str | None,
    staged: bool,
    ship: bool,
    gates: tuple[str, ...],
    text: str | None,
    comments: bool,
    format_name: str | None,
    source_lang: str | None,
) -> None:
    """Check FILES against the voice and terms that hold where each file sits.

    FILES may be files, folders, globs or - (with --format); with none, the
    project's declared content. Findings never come from code, front matter or URLs.
    The recipe, voice and terms files and .kapi/ are rules, never checked as content.

    \b
    Exit codes: 0 passed; 3 a finding failed (0 with --no-fail); 4 nothing was
    checked or a checker missed its canary (never a pass); 1 governance did not
    resolve; 2 bad flags or input.
    """
    from kapi.cli.check_run import report
    from kapi.host.check import CheckRequest

    try:
        request = CheckRequest(
            files=files,
            stdin_is_terminal=sys.stdin.isatty(),
            text=text,
            format_name=format_name,
            max_chars=max_chars,
            max_words=max_words,
            forbid=forbid,
            require=require,
            dnt=dnt,
            target=target,
            target_lang=target_lang,
            profile=profile,
            channel=channel,
            voice=voice,
            diff_against=diff_against,
            diff_file=diff_file,
            staged=staged,
            ship=ship,
            gates=gates,
            no_fail=no_fail,
            comments=comments,
        )
    except KapiError as err:
        fail(err, as_json=as_json)
    report(request, workspace_of(source_lang), as_json=as_json, comments=comments)
