#!/usr/bin/env bash
# The whole test command: lint, types, then every test (pass pytest options after it).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check packages tests bench evals scripts/evals.py
.venv/bin/ruff format --check packages tests bench evals scripts/evals.py
.venv/bin/mypy packages/kapi-core/src/kapi/core packages/kapi-formats/src/kapi/formats packages/kapi-cli/src/kapi/host packages/kapi-cli/src/kapi/cli packages/kapi-mcp/src/kapi/mcp evals/kapi_evals
# The tests run spread over the machine's cores, a test file to a worker (its module fixtures
# built once); KAPI_TEST_WORKERS=0 runs them in this one process.
.venv/bin/python -m pytest -n "${KAPI_TEST_WORKERS:-auto}" --dist loadfile "$@"
