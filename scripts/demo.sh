#!/usr/bin/env bash
# The main job on the bundled example: installs kapi into .venv (once) and runs the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python scripts/demo.py
