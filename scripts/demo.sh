#!/usr/bin/env bash
# Set up (venv, curllm, Chromium), serve the example shop on 127.0.0.1 and ask curllm for the
# products under 150 zł. Works offline; no model, no key. Extra arguments go to curllm
# (e.g. --format json, --events -).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

log=$(mktemp)
.venv/bin/python examples/shop/serve.py --port 0 --quiet >"$log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 50); do
  url=$(grep -o 'http://127.0.0.1:[0-9]*/' "$log" || true)
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { echo "the example shop did not start:" >&2; cat "$log" >&2; exit 1; }

echo "\$ curllm \"find products under 150zł\" --url $url" >&2
status=0
.venv/bin/curllm "find products under 150zł" --url "$url" --format "${CURLLM_DEMO_FORMAT:-table}" "$@" || status=$?

# curllm is in .venv, not on PATH: say how to call it for a task of your own.
cat >&2 <<EOF

curllm is installed in $PWD/.venv (nothing was added to your PATH). Your own task:
  .venv/bin/curllm "find products under 150zł" --url https://your-shop.example/
or 'source .venv/bin/activate' first, then just 'curllm ...'. '.venv/bin/curllm doctor' checks the set-up.
EOF
exit $status
