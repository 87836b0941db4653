"""Sites an instruction names ("on Ceneo", "na allegro", "amazon.de") that installed tools know."""

from __future__ import annotations

import re

from ..registry import Registry
from ..sites import site_label
from .facts import detect_lang
from .memo import trigger_rx


def named_sites(instruction: str, registry: Registry) -> list[str]:
    """Sites of installed tools that the instruction names: "on Ceneo", "na allegro", "amazon.de".

    Best first: a full domain beats a bare name; among sites sharing a name (amazon.com, amazon.de)
    the one whose country matches the instruction's language wins, then the order in the manifest.
    """
    low = instruction.lower()
    lang = detect_lang(instruction)
    found: list[tuple[int, int, str]] = []
    seen: set[str] = set()
    order = 0
    for m in registry:
        for site in m.sites:
            order += 1
            if site in seen:
                continue
            seen.add(site)
            if re.search(r"(?<![\w.-])" + re.escape(site) + r"(?![\w-])", low):
                found.append((0, order, site))
                continue
            label = site_label(site)
            # A trigger that matches the site's own name names the site ("hacker ?news|\\bhn\\b|ycombinator").
            naming = [rx for t in m.triggers if (rx := trigger_rx(t)) is not None and rx.search(label)]
            if (len(label) >= 3 and re.search(r"(?<![\w.-])" + re.escape(label) + r"(?![\w-])", low)) or any(
                rx.search(instruction) for rx in naming
            ):
                tld = site.rsplit(".", 1)[-1]
                native = (
                    (lang == "pl" and tld == "pl")
                    or (lang == "de" and tld == "de")
                    or (lang == "en" and tld == "com")
                )
                found.append((1 if native else 2, order, site))
    return [site for *_, site in sorted(found)]
