"""kapi's agent evaluations: does an agent reach for kapi when it should, and finish the job.

A scenario (``evals/scenarios/*.yaml``) is a prompt, a throwaway workspace built
from templates in this repository, and artifact checks that decide success from
the files and kapi's own records. The runner drives a real agent CLI once per
attempt in a fresh workspace under one of the paired study's conditions, and
writes every attempt, its transcript and a report. Run it with
``python scripts/evals.py run --agent claude`` (see ``docs/evals.md``).
"""

from __future__ import annotations

__all__ = ["SCHEMA"]

SCHEMA = "kapi.evals/v1"
