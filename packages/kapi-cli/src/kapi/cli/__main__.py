"""``python -m kapi.cli`` runs the ``kapi`` command."""

from kapi.cli.launch import main

main()
