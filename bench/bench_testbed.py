"""Generic extraction on the listing testbed, in process: the quick measure between two rules.

    .venv/bin/python bench/bench_testbed.py [--only news,github] [--out scores.json]

Runs articles_generic (search results) or products_generic (product listings) on the raw HTML of every
page of ../shared/testbed (the development half of a listing benchmark, 219 pages from 75 sites; the
other half is held out) and scores them with the testbed's own `score.py` rules: mean F1 per domain
and overall, pages at 0, names with prices exact on the product listings, CPU time per page. No browser:
what a page's CSS hides is not left out, so the figure differs a little from `score.py`'s (which runs
`curllm batch` over the pages served on 127.0.0.1, about 9 minutes); use that one for the record.
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, write_section  # noqa: E402

sys.path.insert(0, str(ROOT))
from curllm_core.tools.extraction import articles_generic, products_generic  # noqa: E402

TESTBED = ROOT.parent / "shared" / "testbed"


def _scorer():
    spec = importlib.util.spec_from_file_location("testbed_score", TESTBED / "score.py")
    if spec is None or spec.loader is None:
        sys.exit(f"no score.py in {TESTBED}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _html(path: Path) -> str:
    raw = gzip.decompress(path.read_bytes())
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="replace")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated parts of page names to run")
    parser.add_argument("--out", default="", help="write every page's score, misses and unmatched items here")
    args = parser.parse_args()
    if not (TESTBED / "truth.json").is_file():
        sys.exit(f"testbed not found in {TESTBED}")
    score = _scorer()
    pages = json.loads((TESTBED / "truth.json").read_text(encoding="utf-8"))["pages"]
    if args.only:
        pages = {k: v for k, v in pages.items() if any(x in k for x in args.only.split(","))}
    rows: dict[str, dict] = {}
    for slug, truth in sorted(pages.items()):
        html = _html(TESTBED / truth["file"])
        url = f"http://127.0.0.1:8000/{slug}.html"
        start = time.process_time()
        if truth["product_listing"]:
            items = products_generic.extract(html, url)["products"]
        else:
            items = articles_generic.extract(html, url)["articles"]
        row = score.score(items, truth)
        row.update(domain=truth["domain"], cpu_ms=(time.process_time() - start) * 1000)
        rows[slug] = row
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))
    by_domain: dict[str, list[float]] = defaultdict(list)
    for row in rows.values():
        by_domain[row["domain"]].append(row["f1"])
    f1s = [row["f1"] for row in rows.values()]
    priced = [row for row in rows.values() if "priced" in row]
    cpu = sorted(row["cpu_ms"] for row in rows.values())
    lines = ["| domain | pages | mean F1 |", "|---|---|---|"]
    lines += [f"| {d} | {len(xs)} | {sum(xs) / len(xs):.3f} |" for d, xs in sorted(by_domain.items())]
    lines += [
        f"| **all** | **{len(f1s)}** | **{sum(f1s) / len(f1s):.3f}** |",
        "",
        f"Pages at F1 0: {sum(f == 0 for f in f1s)}; below 0.9: {sum(f < 0.9 for f in f1s)}. Product listings: "
        f"names with prices exact {sum(r['name_price_exact'] for r in priced)} of "
        f"{sum(r['priced'] for r in priced)} priced records. CPU per page (parse and rules): median "
        f"{cpu[len(cpu) // 2]:.0f} ms, slowest {cpu[-1]:.0f} ms.",
        "",
        "In process on the raw HTML (no browser; `score.py` through `curllm batch` is the record). Issue 24's "
        "rules of 2026-11-26, each measured here against the one before it: a heading without a link titles "
        "the link beside it that shows no title (its address, a picture, a badge): 0.908 -> 0.935, pages at "
        "0 11 -> 5; two prices nothing tells apart are a reduction (the lower the price) and a typeface "
        "class word is no role: names with prices 715 -> 741 of 775; title links that run a script, a line "
        "break ending a title's line, a note in brackets, one-word titles named so by markup, byline links "
        "never titles: 0.935 -> 0.955, pages at 0 5 -> 2; an ``<aside>`` inside a container named for the results is a box of results, not a sidebar: 0.955 -> 0.959, pages at 0 2 -> 1; "
        "inline elements joined inside words (``<span>Sam</span><span>sung</span>``, ``Ca<sup>2+</sup>``, a custom "
        "``<kw>``, quotation marks): 0.959 -> 0.961; badges classed by convention out of titles: 0.961 unchanged; a "
        "filter box of price facets counts a quarter in products_generic: 0.961 -> 0.965, pages at 0 1 -> 0, names "
        "with prices 742 -> 744. No page scored lower than before them.",
        "",
        "The rules of 2026-11-27 (issue 24, each found on a fresh page written before any tool ran on it, each "
        "measured here against the one before it): the list's first record drawn in a markup of its own right "
        'before it (a lead story, a "best match" box, a first result outside the container of the others): '
        "0.965 -> 0.970, 16 pages better; records of another kind beside the list's, their title link at the "
        "same place (a second kind of result row): 0.970 -> 0.971, 6 pages better; a shelf of captioned "
        "thumbnails, lists split under headings, ads labelled in more languages, one-word titles of described "
        "entries, columns of employers and authors, titles named in the site's language, members' and "
        "quantity prices, each card's format rows, Indian digit grouping: unchanged here (patterns this half "
        "lacks). No page scored lower. Their cost, this page set in process, three interleaved rounds against "
        "the code before them on a loaded machine: 8.4 s of CPU over the 219 pages against 8.5 s, median per page "
        "29.2 ms against 28.1 ms: within the noise.",
        "",
        "The rules of the second session of 2026-11-27 (issue 24, found on seven fresh sets of pages written "
        "before any tool ran on them): savings, multi-buys and prices per piece never the price, a price classed "
        "per unit beside one that says per measure, pence with decimals; cards a script opens (no ``<a>``, "
        "``data-href``); two different actions every record shows; a column headed Title; a definition list's "
        "terms and a row's header cell as titles; a headline class; reviews titled by their heading; people's "
        "profiles when people are asked for: unchanged here (every page's answer identical: patterns this half "
        "lacks). Their cost, this page set in process, three interleaved rounds against the code before them on "
        "an otherwise idle fast machine: 2.83 s of CPU over the 219 pages against 2.68 s (+6%), median per page "
        "9.8 ms against 9.4 ms.",
    ]
    write_section("testbed", "Generic extraction on the listing testbed (issue 24)", lines)


if __name__ == "__main__":
    main()
