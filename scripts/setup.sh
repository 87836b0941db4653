#!/usr/bin/env bash
# Set up a fresh Debian machine for curllm: a venv with curllm and its test tools, and Debian's Chromium.
# The versions installed are the lock's (constraints.txt, refreshed on purpose by scripts/lock.sh).
# Idempotent: what is already there is left alone. Sourced by scripts/demo.sh and scripts/test.sh.
# Says what it does on stderr (the first run takes about a minute, mostly pip).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { echo "curllm set-up: $*" >&2; }

PYTHON=${PYTHON:-python3}
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "curllm needs Python 3.11 or newer (found: $("$PYTHON" --version 2>&1))" >&2
  exit 2
fi

if [ ! -x .venv/bin/python ]; then
  say "creating the virtual environment .venv ($("$PYTHON" --version 2>&1))"
  "$PYTHON" -m venv .venv
fi
# The stamp holds a digest of pyproject.toml and the lock (constraints.txt): a change to either installs again.
stamp=.venv/.curllm-installed
wanted=$(cat pyproject.toml constraints.txt | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
  # pip's own output is hundreds of lines: show a dot per package instead, the whole log on failure.
  log=$(mktemp)
  printf 'curllm set-up: installing curllm and its test tools (the versions of constraints.txt) into .venv (about a minute the first time) ' >&2
  if ! { .venv/bin/python -m pip install --upgrade pip && .venv/bin/python -m pip install -e ".[test]" -c constraints.txt; } 2>&1 \
    | tee "$log" | while IFS= read -r line; do case "$line" in Collecting*) printf '.' >&2 ;; esac; done; then
    echo " failed:" >&2
    cat "$log" >&2
    rm -f "$log"
    exit 1
  fi
  echo " done" >&2
  rm -f "$log"
  echo "$wanted" >"$stamp"
fi

# A browser: Debian's headless Chromium (Playwright cannot download its own here).
if [ -n "${CURLLM_BROWSER:-}" ]; then
  say "browser: CURLLM_BROWSER=$CURLLM_BROWSER"
elif browser=$(.venv/bin/python -c 'from curllm_core.browser_path import find_browser; print(find_browser())' 2>/dev/null); then
  say "browser: $browser"
else
  say "no Chromium found: installing Debian's chromium-headless-shell with apt-get"
  sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium-headless-shell >/dev/null
  say "browser: /usr/lib/chromium/chromium-headless-shell"
fi
