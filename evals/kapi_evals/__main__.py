"""``python -m kapi_evals`` (with ``evals/`` on the path): the same as ``scripts/evals.py``."""

from kapi_evals.cli import main

raise SystemExit(main())
