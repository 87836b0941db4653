"""Steps learned from manifest examples: a group switched on without a value takes the values of the
example that says the same ("all pages" -> ``max_pages=20``), and a tool whose value-free example
the instruction contains joins as that example ("accept the cookies", "only products in stock")."""

from __future__ import annotations

import json

from ..manifest import CATEGORY_ORDER, Category, Manifest
from .facts import Facts, extract_facts
from .fitting import complete, param_for, with_data_key
from .memo import dice, memo, stems
from .scoring import Scored
from .steps import GROUPS, PRESENCE, Draft


def example_facts(m: Manifest) -> list[tuple[dict, frozenset[str], Facts]]:
    """Each example's parameters, word stems and facts (computed once per manifest)."""
    return memo(
        m,
        "example_facts",
        lambda m: [
            (
                dict(e.get("parameters") or {}),
                stems(str(e.get("instruction", ""))),
                extract_facts(str(e.get("instruction", ""))),
            )
            for e in m.examples
        ],
    )


def example_hint(m: Manifest, group: str, facts: Facts) -> tuple[dict, list[str]]:
    """Values for a group switched on without one ("all pages"), from the example that says the same.

    ``{"instruction": "zbierz produkty ze wszystkich stron", "parameters": {"max_pages": 20}}`` teaches
    that "all pages" means 20 pages for this tool.
    """
    presence = PRESENCE[group]
    names = {param_for(m, k)[0] for k in GROUPS[group]} - {None}
    words = stems(facts.instruction)
    best: tuple[float, dict, str] | None = None
    for params, tokens, ex_facts in example_facts(m):
        if presence not in ex_facts or ex_facts.kinds() & set(GROUPS[group]):
            continue
        hint = {k: v for k, v in params.items() if k in names}
        sim = dice(words, tokens)
        if hint and (best is None or sim > best[0]):
            best = (sim, hint, ex_facts.instruction)
    if best is None:
        return {}, []
    return best[1], [
        f"{k}={json.dumps(v, ensure_ascii=False)} as in its example {best[2]!r}" for k, v in best[1].items()
    ]


def example_steps(page_tools: list[Scored], facts: Facts, instruction: str, used: set[str]) -> list[Draft]:
    """A page tool whose example (with no values of its own) the instruction contains, as that example.

    ``{"instruction": "accept the cookies", "parameters": {"text": "Accept all"}}`` makes "accept the
    cookies and find products" click "Accept all" first. Such a step is optional: the page may not need it.
    """
    words = stems(instruction)
    steps: list[Draft] = []
    for s in page_tools:
        m = s.manifest
        if m.key in used:
            continue
        for params, tokens, ex_facts in example_facts(m):
            if (
                ex_facts.kinds()
                or (not params and m.source == "builtin")
                or len(tokens) < 2
                or not tokens <= words
                or not complete(m, params)
            ):
                continue
            used.add(m.key)
            # First of all: such steps prepare the page (a cookie banner), before any form is touched.
            steps.append(
                Draft(
                    m,
                    params,
                    f"the instruction contains its example {ex_facts.instruction!r}; optional: "
                    "the page may not need it",
                    (-2, 0, 0, 0),
                    optional=True,
                )
            )
            break
    return steps


def example_checks(guards: list[Scored], facts: Facts, out_key: str, used: set[str]) -> list[Draft]:
    """A validation tool whose example (with no values of its own) the instruction contains, with that
    example's parameters: a plugin's ``{"instruction": "only products in stock", "parameters":
    {"field": "availability"}}`` is planned for "only products in stock under 100 zł", as a built-in
    check is for the words it understands. An operation the example states must be the instruction's
    own, values included: "mit mindestens 4 Sternen" never takes the 100 of an example's "mit
    mindestens 100 Bewertungen"."""
    words = stems(facts.instruction)
    steps: list[Draft] = []
    for s in guards:
        m = s.manifest
        if m.key in used:
            continue
        for params, tokens, ex_facts in example_facts(m):
            keyed = with_data_key(m, dict(params), out_key)
            if (
                # An operation ("in stock", "without duplicates") is what a check's example may say;
                # a tool added from outside is planned for its example with or without parameters.
                {k for k in ex_facts.kinds() if not k.startswith("op_")}
                or (not params and m.source == "builtin")
                or len(tokens) < 2
                or not tokens <= words
                or not complete(m, keyed)
                or any(facts.get(k) != ex_facts.get(k) for k in ex_facts.kinds() if k.startswith("op_"))
            ):
                continue
            used.add(m.key)
            steps.append(
                Draft(
                    m,
                    keyed,
                    f"the instruction contains its example {ex_facts.instruction!r}",
                    (CATEGORY_ORDER[Category.VALIDATION], 0, 0, 0),
                    # The operations the example says are this step's: no built-in step repeats them.
                    group=",".join(sorted(k for k in ex_facts.kinds() if k.startswith("op_"))) or None,
                )
            )
            break
    return steps
