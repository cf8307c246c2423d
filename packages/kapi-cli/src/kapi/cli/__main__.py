"""``python -m kapi.cli`` runs the ``kapi`` command."""

from kapi.cli.main import main

main()
