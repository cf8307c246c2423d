"""``kapi check``: the gate, on files, a diff or text."""

from __future__ import annotations

import sys

import click

from kapi.cli.common import (
    format_option,
    locale_of,
    project_inputs,
    source_lang_option,
    workspace_of,
)
from kapi.cli.output import emit_json, fail, warn
from kapi.host.errors import EXIT_USAGE, HostError


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
@click.option("--voice", default="", help="Use this voice profile id instead of the one bound.")
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
    from kapi.core.check.options import CheckOptions
    from kapi.core.check.report import Verdict, encode_report, exit_code, render_text
    from kapi.core.governance.errors import GovernanceError
    from kapi.host.checking import check_diff, check_files, check_text
    from kapi.host.governance import Governance, governance_error

    scopes = [bool(diff_against), bool(diff_file), staged]
    if sum(scopes) > 1:
        fail(
            HostError(
                "--diff-against, --diff-file and --staged exclude one another", exit_code=EXIT_USAGE
            ),
            as_json=as_json,
        )
    if any(scopes) and (ship or target):
        fail(
            HostError(
                "a diff-scoped check takes neither --ship nor --target", exit_code=EXIT_USAGE
            ),
            as_json=as_json,
        )
    workspace = workspace_of(source_lang)
    if ship and workspace.project is None:
        fail(HostError("--ship needs a project (kapi init)", exit_code=1), as_json=as_json)
    try:
        options = CheckOptions(
            max_chars=max_chars,
            max_words=max_words,
            forbid=forbid,
            require=require,
            dnt=dnt,
            target_locale=locale_of(target_lang) if target_lang else "",
        )
        options.validate()
        governance = Governance(workspace, profile=profile, channel=channel, voice=voice)
        if text is not None:
            report = check_text(
                workspace,
                text,
                options,
                governance,
                path=files[0] if files else "",
                format_name=format_name,
            )
        elif any(scopes):
            diff_text = None
            if diff_file:
                diff_text = sys.stdin.read() if diff_file == "-" else _read_text_file(diff_file)
            report = check_diff(
                workspace,
                options,
                governance,
                against=diff_against,
                diff_text=diff_text,
                staged=staged,
            )
        else:
            paths = project_inputs(files, workspace)

            def skipped(path: str, what: str) -> None:
                if path in files:  # named outright, not found in a folder or by a glob
                    warn(f"{path}: skipped as governance ({what}), not content")

            report = check_files(
                workspace,
                paths,
                options,
                governance,
                format_name=format_name,
                target=target,
                target_lang=locale_of(target_lang) if target_lang else None,
                on_governance=skipped,
            )
    except GovernanceError as err:
        code = EXIT_USAGE if err.source == "options" else 1
        error = governance_error(err)
        error.exit_code = code
        fail(error, as_json=as_json)
    except HostError as err:
        fail(err, as_json=as_json)
    if ship:
        from kapi.host.ship import GATES, ship_report

        shipped = ship_report(
            report,
            gates or GATES,
            terms_bound=bool(governance.concepts()),
            bilingual=target is not None,
        )
        if as_json:
            emit_json(shipped)
        else:
            for gate in shipped["gates"]:
                reason = f"  ({gate['reason']})" if "reason" in gate else ""
                click.echo(
                    f"{gate['gate']:<12} {'pass' if gate['pass'] else 'FAIL'}  {len(gate['findings'])} finding(s){reason}"
                )
        code = 0 if shipped["pass"] else (4 if report.verdict == Verdict.DID_NOT_RUN else 3)
        sys.exit(0 if (no_fail and code == 3) else code)
    if as_json:
        emit_json(encode_report(report))
    else:
        click.echo(render_text(report))
    sys.exit(exit_code(report, no_fail=no_fail))


def _read_text_file(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as err:
        fail(HostError(f"{path}: {err}", exit_code=EXIT_USAGE))
    raise AssertionError
