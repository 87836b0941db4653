#!/usr/bin/env bash
# Set up (venv, curllm, Chromium) and run the whole test suite. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# Python writes its compiled files (__pycache__, ignored by git): with PYTHONDONTWRITEBYTECODE set (some
# shells and images set it) every `curllm` process a test starts would compile curllm's sources again
# (~0.3 s of CPU a process; bench/common.py drops it for the same reason), and pytest would rewrite
# every test module's asserts on every run (~10 s of CPU for each worker).
unset PYTHONDONTWRITEBYTECODE
# One worker per core (at most 4), a test file to a worker: its module-wide browser and servers start
# once. `-n 0` runs everything in this process.
exec .venv/bin/python -m pytest -q -n auto --maxprocesses=4 --dist loadfile --durations=15 "$@"
