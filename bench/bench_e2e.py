"""One task end to end: `curllm "find products under 150zł"` on the example shop against a
hand-written Playwright script doing the same steps (the physical limit). Target: at most 1.2x.

Both run as fresh processes (interpreter start, imports, browser launch, the pages, exit), as a
user would run them; the plan cache is warm for curllm (a repeated task), as it would be in use.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from common import PYTHON, ROOT, command_ms, write_section

from curllm_core.browser_path import find_browser


def start_shop():
    sys.path.insert(0, str(ROOT / "examples" / "shop"))
    import serve

    serve.ShopHandler.quiet = True
    server = serve.make_server(0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def main(runs: int = 7) -> None:
    server, url = start_shop()
    executable = find_browser()
    with tempfile.TemporaryDirectory() as cache:
        env = {"CURLLM_CACHE_DIR": cache, "CURLLM_LOAD_PLUGINS": ""}
        curllm = [PYTHON, "-m", "curllm_core", "find products under 150zł", "--url", url, "--format", "json"]
        check = subprocess.run(
            curllm, capture_output=True, text=True, env={**__import__("os").environ, **env}
        )
        names = sorted(p["name"] for p in json.loads(check.stdout)["data"]["products"])
        hand = [PYTHON, str(Path(__file__).parent / "handwritten_shop.py"), url, executable]
        hand_names = sorted(
            p["name"] for p in json.loads(subprocess.run(hand, capture_output=True, text=True).stdout)
        )
        assert names == hand_names, (names, hand_names)
        base = command_ms(hand, runs=runs)
        ours = command_ms(curllm, runs=runs, env=env)
        plan_only = command_ms([*curllm, "--plan-only"], runs=runs, env=env)
    server.shutdown()
    write_section(
        "e2e",
        "One task end to end",
        [
            f'`curllm "find products under 150zł" --url <example shop>`: price filter form, every page of the listing,'
            f" the price check; {len(names)} products, the same as the hand-written script's. Median of {runs} runs"
            " of each, as fresh processes.",
            "",
            "| what | median | ratio | target |",
            "|---|---|---|---|",
            f"| hand-written Playwright script (`bench/handwritten_shop.py`) | {base:.0f} ms | 1.00x | |",
            f"| `curllm` (rule planner, plan cached) | {ours:.0f} ms | {ours / base:.2f}x | ≤ 1.2x |",
            f"| `curllm --plan-only` (no browser) | {plan_only:.0f} ms | {plan_only / base:.2f}x | |",
        ],
    )


if __name__ == "__main__":
    main()
