#!/usr/bin/env bash
# Set up (venv, curllm, Chromium) and run the whole test suite. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# One worker per core (at most 4), a test file to a worker: its module-wide browser and servers start
# once. `-n 0` runs everything in this process.
exec .venv/bin/python -m pytest -q -n auto --maxprocesses=4 --dist loadfile --durations=15 "$@"
