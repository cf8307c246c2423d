#!/usr/bin/env bash
# Creates .venv (once) and installs every kapi distribution into it, editable.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=.venv/.kapi-installed
if [ ! -f "$stamp" ] || [ -n "$(find packages pyproject.toml -name pyproject.toml -newer "$stamp" 2>/dev/null)" ]; then
  .venv/bin/python -m pip install --quiet --upgrade pip >/dev/null
  .venv/bin/python -m pip install --quiet \
    -e packages/kapi-core -e 'packages/kapi-formats[code]' -e packages/kapi-skill \
    -e packages/kapi-cli -e packages/kapi-mcp --group dev
  touch "$stamp"
fi
