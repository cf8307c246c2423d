"""kapi's agent evaluations: ``python scripts/evals.py run --agent claude`` (see docs/evals.md)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "evals"))

from kapi_evals.cli import main

raise SystemExit(main())
