"""``kapi help [TOPIC]``: the skill's reference topics, served by the binary they describe."""

from __future__ import annotations

import click

from kapi.cli.output import fail, say, table


@click.command("help")
@click.argument("topic", required=False)
def help_command(topic: str | None) -> None:
    """The topics an assistant (or a person) reads before a task: list them, or print TOPIC.

    \b
    kapi help             the topics, with their titles
    kapi help edit        read, edit, write and verify content inside a file
    kapi help i18n-react  one ecosystem's playbook

    A link between topics is printed as the `kapi help` command that serves it.
    `kapi --help` lists the commands.
    """
    import kapi.skill as skill

    if not topic:
        rows = [(t.name, t.title) for t in skill.topics()]
        say(table(("TOPIC", "TITLE"), rows))
        say("Run `kapi help TOPIC` to read one; `kapi --help` lists the commands.", err=True)
        return
    text = skill.read_topic(topic)
    if text is None:
        from kapi.host.errors import EXIT_USAGE, HostError

        names = ", ".join(t.name for t in skill.topics())
        fail(
            HostError(
                f"no help topic {topic!r}; the topics are {names} (`kapi help` lists them)",
                exit_code=EXIT_USAGE,
            )
        )
    say(text, nl=not text.endswith("\n"))
