#!/usr/bin/env bash
# Refresh constraints.txt, on purpose: the exact versions scripts/setup.sh (and so CI and
# scripts/test.sh) installs. pyproject.toml keeps ranges for users; the tests run with these pins, so a
# dependency's new release cannot break a fresh clone's tests until someone locks it in and the suite
# passes with it. Resolves `.[test]` afresh in a throw-away venv (the newest the registry serves today),
# then writes every installed package but curllm itself. Afterwards: `bash scripts/test.sh` (setup.sh
# sees the changed lock and installs it), and commit constraints.txt with whatever the new versions needed.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "curllm lock: resolving .[test] afresh in a temporary venv ($("$PYTHON" --version 2>&1))" >&2
"$PYTHON" -m venv "$tmp/venv"
"$tmp/venv/bin/python" -m pip install -q --upgrade pip
"$tmp/venv/bin/python" -m pip install -q -e ".[test]"
{
  echo "# The versions the tests run with: scripts/setup.sh installs curllm with \`pip install -c constraints.txt\`."
  echo "# Written by scripts/lock.sh ($("$PYTHON" --version 2>&1), $(date -u +%Y-%m-%d)); refresh it with that script, not by hand."
  "$tmp/venv/bin/python" -m pip freeze --exclude-editable | grep -vi '^curllm[=@ ]'
} >constraints.txt.new
mv constraints.txt.new constraints.txt
echo "curllm lock: wrote constraints.txt ($(grep -vc '^#' constraints.txt) packages); now run bash scripts/test.sh" >&2
