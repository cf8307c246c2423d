#!/usr/bin/env bash
# Builds each distribution's sdist and wheel with the standard `build` frontend (the wheel is
# built from the sdist, so an sdist missing a file gives a wheel missing it), checks each wheel
# holds every file of its distribution's src/, then installs kapi-cli and kapi-mcp from those
# wheels into a clean virtual environment (kapi's own from dist/ only, third-party
# dependencies from the package index) and runs scripts/smoke_wheels.py there.
#
#   bash scripts/smoke_wheels.sh          # artefacts in dist/ (DIST=folder to change)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
root=$(pwd)
dist=${DIST:-dist}
version=$(.venv/bin/python scripts/version.py)
.venv/bin/python scripts/version.py >/dev/null  # every place says the same version

SECONDS=0
rm -rf "$dist"
mkdir -p "$dist"
for package in packages/*/; do
  # In an isolated environment with only what its pyproject's build-system requires.
  .venv/bin/python -m build --outdir "$dist" "$package" >/dev/null
done
.venv/bin/python scripts/smoke_wheels.py --check-wheels "$root" "$version" "$dist"
echo "built the sdists and wheels in ${SECONDS} s"
SECONDS=0

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
.venv/bin/python -c 'import sys; print(sys._base_executable)' >"$work/python"
"$(cat "$work/python")" -m venv --without-pip "$work/venv"  # the project's pip installs into it
pip=(.venv/bin/python -m pip --python "$work/venv/bin/python" --quiet --disable-pip-version-check)
# kapi's five distributions from the wheels just built, and nothing else...
"${pip[@]}" install --no-index --find-links "$dist" --no-deps \
  "kapi-core==$version" "kapi-formats==$version" "kapi-skill==$version" \
  "kapi-cli==$version" "kapi-mcp==$version"
# ...then what they depend on, from the package index (kapi's are installed already).
"${pip[@]}" install --find-links "$dist" "kapi-cli==$version" "kapi-mcp==$version"
"${pip[@]}" check
echo "installed kapi-cli and kapi-mcp from the wheels into a clean venv in ${SECONDS} s"
SECONDS=0
(cd "$work" && "$work/venv/bin/python" "$root/scripts/smoke_wheels.py" "$root" "$version")
echo "smoke test in ${SECONDS} s"
