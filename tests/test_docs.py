"""The documentation against the code: fields, options, settings, codes, links and examples.

Each test fails with the names that drifted, so that a change to a schema, a click option, a
config key, an environment variable or an error code comes with its line in ``docs/``.
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

import click
import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
MANIFESTS = ROOT / "tools_manifests"
CODE_DIRS = [ROOT / "curllm_core", *sorted((ROOT / "plugins").glob("*/src"))]


# --- Markdown helpers ------------------------------------------------------------------------------

_FENCE_RE = re.compile(r"^([ \t]*)(```|~~~)([^\n]*)\n(.*?)^\1\2[ \t]*$", re.M | re.S)
_HEADING_RE = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$", re.M)


def read(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def without_code_blocks(md: str) -> str:
    """The Markdown with fenced code blocks blanked (keeping line numbers), so that their
    contents are not taken for headings, tables or links."""
    return _FENCE_RE.sub(lambda m: "\n" * m.group(0).count("\n"), md)


def headings(md: str) -> list[tuple[int, str, int, int]]:
    """``(level, title, start, end)`` of every heading; ``end`` is where its section ends (the next
    heading of the same or a higher level)."""
    text = without_code_blocks(md)
    found = [(len(m.group(1)), m.group(2), m.start()) for m in _HEADING_RE.finditer(text)]
    out = []
    for i, (level, title, start) in enumerate(found):
        end = next((s for lv, _, s in found[i + 1 :] if lv <= level), len(text))
        out.append((level, title, start, end))
    return out


def section(md: str, title: str) -> str:
    """The text of the section whose heading is ``title`` (subsections included)."""
    text = without_code_blocks(md)
    matches = [(s, e) for _, t, s, e in headings(md) if t.strip() == title]
    assert matches, f"no section headed {title!r}"
    assert len(matches) == 1, f"{len(matches)} sections headed {title!r}"
    start, end = matches[0]
    return text[start:end]


def own_text(md: str, title: str) -> str:
    """The section's text before its first subsection."""
    body = section(md, title)
    first_line_end = body.find("\n") + 1
    nxt = _HEADING_RE.search(body, first_line_end)
    return body[: nxt.start()] if nxt else body


def split_row(line: str) -> list[str]:
    """The cells of a Markdown table row (``\\|`` is a pipe inside a cell)."""
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", inner)]


def table_rows(text: str) -> list[list[str]]:
    """The body rows of every table in ``text`` (header and separator rows left out)."""
    rows: list[list[str]] = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if not line.lstrip().startswith("|"):
            continue
        if re.fullmatch(r"\s*\|?(\s*:?-{3,}:?\s*\|)+\s*:?-*:?\s*\|?\s*", line):
            continue  # the separator
        if i + 1 < len(lines) and re.fullmatch(r"\s*\|?(\s*:?-{3,}:?\s*\|)+\s*:?-*:?\s*\|?\s*", lines[i + 1]):
            continue  # the header
        rows.append(split_row(line))
    return rows


def ticked(cell: str) -> list[str]:
    """The ``code`` spans of a cell."""
    return re.findall(r"`([^`]+)`", cell)


def field_table(md: str, title: str) -> dict[str, list[str]]:
    """Documented field -> its row, for the table right under heading ``title``."""
    rows = table_rows(own_text(md, title))
    assert rows, f"no table under {title!r}"
    out = {}
    for row in rows:
        names = ticked(row[0])
        assert names, f"under {title!r}: a row whose first cell names no field in backticks: {row}"
        assert names[0] not in out, f"under {title!r}: {names[0]} documented twice"
        out[names[0]] = row
    return out


def slug(title: str) -> str:
    """GitHub's anchor for a heading."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title)  # a link's text
    text = unicodedata.normalize("NFC", text).lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors(md: str) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for _, title, _, _ in headings(md):
        base = slug(title)
        n = seen.get(base, 0)
        out.add(base if n == 0 else f"{base}-{n}")
        seen[base] = n + 1
    return out


def code_blocks(md: str) -> list[tuple[str, str, str]]:
    """``(language, body, the line before the fence)`` of every fenced code block."""
    out = []
    for m in _FENCE_RE.finditer(md):
        before = md[: m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        indent = m.group(1)
        body = "\n".join(
            line[len(indent) :] if line.startswith(indent) else line for line in m.group(4).splitlines()
        )
        out.append((m.group(3).strip(), body, before.strip()))
    return out


def doc_files() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


# --- 1. schemas vs docs/manifest.md and docs/plan.md ------------------------------------------------


def _check_fields(md: str, title: str, schema: dict, where: str) -> None:
    documented = field_table(md, title)
    props = {k: v for k, v in schema["properties"].items() if k != "$schema"}
    missing = sorted(set(props) - set(documented))
    unknown = sorted(set(documented) - set(props) - {"$schema"})
    assert not missing, f"{where}: fields of the schema not documented under {title!r}: {missing}"
    assert not unknown, f"{where}: documented under {title!r} but not in the schema: {unknown}"
    required = set(schema.get("required", []))
    for name, prop in props.items():
        row = documented[name]
        assert row[2].strip().lower() == ("yes" if name in required else "no"), (
            f"{where}: {name} is {'required' if name in required else 'optional'} in the schema, "
            f"the docs' Required column says {row[2]!r}"
        )
        if isinstance(prop, dict) and "default" in prop:
            default = f"`{json.dumps(prop['default'])}`"
            assert default in row[3], f"{where}: the default of {name} is {default}, the docs say {row[3]!r}"


def test_manifest_fields_match_the_schema():
    schema = json.loads((MANIFESTS / "manifest.schema.json").read_text(encoding="utf-8"))
    md = read("manifest.md")
    _check_fields(md, "Fields", schema, "manifest.md")
    _check_fields(md, "Example fields", schema["properties"]["examples"]["items"], "manifest.md")


def test_plan_fields_match_the_schema():
    schema = json.loads((MANIFESTS / "plan.schema.json").read_text(encoding="utf-8"))
    md = read("plan.md")
    _check_fields(md, "Plan fields", schema, "plan.md")
    _check_fields(md, "Step fields", schema["properties"]["plan"]["items"], "plan.md")


# --- 2. click commands vs docs/cli.md ---------------------------------------------------------------


def _commands(cmd: click.Command, path: str):
    yield path, cmd
    if isinstance(cmd, click.Group):
        for name in sorted(cmd.commands):
            yield from _commands(cmd.commands[name], f"{path} {name}")


def _option_names(cmd: click.Command) -> set[str]:
    return {o for p in cmd.params if isinstance(p, click.Option) for o in (*p.opts, *p.secondary_opts)}


def _mentions(text: str, option: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text) is not None


def test_every_cli_option_is_documented():
    from curllm_core.cli import cli

    md = read("cli.md")
    problems = []
    for path, cmd in _commands(cli, "curllm"):
        options = _option_names(cmd)
        if path == "curllm":
            text = without_code_blocks(md)  # the group's own options (--version)
        elif isinstance(cmd, click.Group):
            continue  # `tools`, `plugins`: nothing but subcommands
        else:
            text = section(md, f"`{path}`")  # every command has a section headed `curllm ...`
        problems += [f"{path} {o}" for o in sorted(options) if not _mentions(text, o)]
        if path != "curllm":
            # Options documented in the section's tables must exist.
            for row in table_rows(text):
                for name in ticked(row[0]):
                    option = name.split()[0]
                    if option.startswith("-") and option not in options:
                        problems.append(f"{path}: documents {option}, which it does not have")
    assert not problems, "docs/cli.md is out of date: " + "; ".join(problems)


def _plain(md: str) -> str:
    """Markdown as it reads: links and code spans reduced to their text, white space folded."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", md)
    text = text.replace("\\|", "|").replace("`", "")
    return " ".join(text.split())


def _option_rows(md: str, path: str, cmd: click.Command) -> dict[str, list[str]]:
    """Option name -> its table row: the command's own tables, and run's browser and network
    options for the commands that take them."""
    texts = [section(md, f"`{path}`")]
    if any(isinstance(p, click.Option) and "--headful" in p.opts for p in cmd.params):
        texts.append(section(md, "Browser and network options"))
    rows = {}
    for text in texts:
        for row in table_rows(text):
            for name in ticked(row[0]):
                rows.setdefault(name.split()[0], row)
    return rows


def _first_paragraph(text: str) -> str:
    paragraphs = [p for p in re.split(r"\n\s*\n", text) if p.strip() and not p.lstrip().startswith("#")]
    return paragraphs[0] if paragraphs else ""


def test_every_help_text_matches_the_docs():
    """What `--help` shows is what docs/cli.md says: each option as the docs' Option column names it
    (metavar included), its help the start of the docs' Meaning (a "(default: ...)" it ends with is
    the docs' Default column), and each command's help the start of its section's first paragraph."""
    from curllm_core.cli import cli

    md = read("cli.md")
    problems = []
    for path, cmd in _commands(cli, "curllm"):
        if path == "curllm" or isinstance(cmd, click.Group):
            continue
        ctx = click.Context(cmd, info_name=path)
        own = _plain(_first_paragraph(own_text(md, f"`{path}`").split("\n", 1)[1]))
        summary = " ".join((cmd.help or "").split("\n\n")[0].split())
        if not summary or not own.startswith(summary):
            problems.append(f"{path}: its help {summary!r} is not how its section starts: {own[:120]!r}")
        rows = _option_rows(md, path, cmd)
        for opt in cmd.params:
            if not isinstance(opt, click.Option) or opt.hidden or opt.name == "help":
                continue
            long = next((o for o in opt.opts if o.startswith("--")), opt.opts[0])
            row = rows.get(long) or next((rows[o] for o in opt.opts if o in rows), None)
            if row is None:
                problems.append(f"{path} {long}: no row in a table of its section")
                continue
            shown = opt.get_help_record(ctx)[0].replace(" / ", ", ")
            documented = ", ".join(ticked(row[0]))
            if shown != documented:
                problems.append(f"{path} {long}: --help shows {shown!r}, the docs {documented!r}")
            meaning = _plain(row[-1])
            default = _plain(row[1]) if len(row) >= 3 else ""
            text = " ".join((opt.help or "").split())
            m = re.fullmatch(r"(.*) \(default: (.*)\)(\.?)", text)
            if m:
                text = m.group(1) + m.group(3)
                if m.group(2) != default:
                    problems.append(
                        f"{path} {long}: --help says default {m.group(2)!r}, the docs {default!r}"
                    )
            if not text or not meaning.startswith(text):
                problems.append(f"{path} {long}: --help says {text!r}, the docs {meaning!r}")
            if opt.show_default and opt.default not in (None, False, ()) and str(opt.default) not in default:
                problems.append(f"{path} {long}: default {opt.default!r} not in the docs' {default!r}")
    assert not problems, "--help and docs/cli.md disagree:\n" + "\n".join(problems)


# --- 3. config keys and environment variables vs docs/configuration.md ------------------------------


def _sources() -> dict[Path, str]:
    return {f: f.read_text(encoding="utf-8") for d in CODE_DIRS for f in sorted(d.rglob("*.py"))}


def _error_codes(sources: dict[Path, str]) -> set[str]:
    codes = set()
    for text in sources.values():
        codes |= set(re.findall(r"\bcode\s*=\s*\"([A-Z][A-Z0-9_]+)\"", text))
        codes |= set(re.findall(r"\berror_entry\(\s*\"([A-Z][A-Z0-9_]+)\"", text))
        codes |= {m.group(1) for m in re.finditer(r"^([A-Z][A-Z0-9_]+) = \"\1\"$", text, re.M)}
    return codes


_ENV_READ_RE = re.compile(
    r"(?:environ(?:\.get|\.setdefault)?\(|environ\[|getenv\(|\benv\.get\(|\benv\[|in env\b|in os\.environ\b)"
    r"\s*[\"']([A-Z_][A-Z0-9_]*)[\"']"
    r"|[\"']([A-Z_][A-Z0-9_]*)[\"']\s+(?:not\s+)?in\s+(?:os\.)?env(?:iron)?\b"
)


def test_every_config_key_is_documented():
    from curllm_core.config import KEYS

    documented = field_table(read("configuration.md"), "The config file")
    assert sorted(set(KEYS) - set(documented)) == [], "config keys missing from docs/configuration.md"
    assert sorted(set(documented) - set(KEYS)) == [], "docs/configuration.md documents unknown config keys"
    names = {str: "string", int: "integer", float: "number", bool: "boolean", list: "list"}
    for key, types in KEYS.items():
        types = types if isinstance(types, tuple) else (types,)
        word = "number" if float in types else names[types[0]]
        assert word in documented[key][1], (
            f"config key {key} is a {word}; the docs say {documented[key][1]!r}"
        )


def test_every_environment_variable_is_documented():
    sources = _sources()
    codes = _error_codes(sources)
    md = read("configuration.md")
    in_docs = set(re.findall(r"`([A-Z_][A-Z0-9_]*)`", md))
    curllm_vars = {v for text in sources.values() for v in re.findall(r"\bCURLLM_[A-Z0-9_]+\b", text)} - codes
    read_vars = {a or b for text in sources.values() for a, b in _ENV_READ_RE.findall(text)}
    missing = sorted((curllm_vars | read_vars) - in_docs)
    assert not missing, (
        f"environment variables the code reads but docs/configuration.md does not name: {missing}"
    )
    scripts = " ".join(
        f.read_text(encoding="utf-8") for f in sorted((ROOT / "scripts").glob("*")) if f.is_file()
    )
    everything = " ".join(sources.values()) + scripts
    stale = sorted(v for v in set(re.findall(r"\bCURLLM_[A-Z0-9_]+\b", md)) if v not in everything)
    assert not stale, f"docs/configuration.md names CURLLM_ variables nothing reads: {stale}"


def test_sanity_of_the_environment_scan():
    """The scan above finds what it is meant to find (a regex that finds nothing passes vacuously)."""
    sources = _sources()
    read_vars = {a or b for text in sources.values() for a, b in _ENV_READ_RE.findall(text)}
    assert {"CURLLM_BROWSER", "CURLLM_CONFIG", "XDG_CACHE_HOME", "PLAYWRIGHT_BROWSERS_PATH"} <= read_vars
    assert {"BAD_PLAN", "STEP_TIMEOUT", "CANCELLED", "NO_OUTPUT", "CURLLM_ERROR"} <= _error_codes(sources)


# --- error codes and event types vs docs/results-and-events.md --------------------------------------


def test_every_error_code_is_documented():
    codes = _error_codes(_sources())
    documented = field_table(read("results-and-events.md"), "Error codes")
    assert sorted(codes - set(documented)) == [], "error codes missing from docs/results-and-events.md"
    assert sorted(set(documented) - codes) == [], "docs/results-and-events.md documents codes nothing raises"


def test_every_event_type_is_documented():
    from curllm_core.events import EVENT_TYPES

    documented = field_table(read("results-and-events.md"), "Events")
    assert sorted(set(EVENT_TYPES) ^ set(documented)) == []


# --- 4. relative links ------------------------------------------------------------------------------


_LINK_RE = re.compile(r"(?<!!)\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


@pytest.mark.parametrize("doc", doc_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(doc: Path):
    md = doc.read_text(encoding="utf-8")
    text = re.sub(r"`[^`\n]*`", "", without_code_blocks(md))
    broken = []
    for target in _LINK_RE.findall(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
            continue  # http:, https:, mailto:
        path, _, anchor = target.partition("#")
        file = (doc.parent / path).resolve() if path else doc
        if not file.exists():
            broken.append(f"{target} (no such file)")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file.read_text(encoding="utf-8")):
            broken.append(f"{target} (no heading #{anchor} in {file.name})")
    assert not broken, f"{doc.relative_to(ROOT)}: broken links: {broken}"


# --- 5. the examples in the docs are true -----------------------------------------------------------


@pytest.fixture(scope="module")
def builtin_registry():
    from curllm_core.plugins import load_registry

    return load_registry({"CURLLM_LOAD_PLUGINS": ""}, use_cache=False)


@pytest.mark.parametrize("doc", sorted(DOCS.glob("*.md")), ids=lambda p: p.name)
def test_json_examples_are_valid(doc: Path, builtin_registry):
    """Every ```json block that is a whole document parses; plan documents pass the plan check
    against the built-in tools (``<!-- data: key, ... -->`` before the block names initial data),
    manifests pass the manifest check, events have a known type."""
    from curllm_core.errors import PlanError
    from curllm_core.events import EVENT_TYPES
    from curllm_core.manifest import check_manifest
    from curllm_core.plan import check_plan

    problems = []
    for lang, body, before in code_blocks(doc.read_text(encoding="utf-8")):
        if lang != "json" or not body.lstrip().startswith(("{", "[")):
            continue  # other languages, and fragments ("parameters": {...})
        docs_json = [body]
        if not _parses(body):  # one JSON document per line (JSONL), as event examples are
            docs_json = [line for line in body.splitlines() if line.strip()]
        for text in docs_json:
            try:
                value = json.loads(text)
            except ValueError as e:
                problems.append(f"not valid JSON ({e}): {text[:80]}")
                continue
            if isinstance(value, dict) and isinstance(value.get("plan"), list):
                data = re.fullmatch(r"<!--\s*data:\s*(.*?)\s*-->", before)
                keys = {k.strip() for k in data.group(1).split(",")} if data else set()
                try:
                    check_plan(value, builtin_registry, initial_keys=keys)
                except PlanError as e:
                    problems.append(f"plan does not check: {e}")
            elif isinstance(value, dict) and "entrypoint" in value and "name" in value:
                problems += [f"manifest {value['name']}: {p}" for p in check_manifest(value)]
            elif isinstance(value, dict) and "type" in value and "data" in value:
                if value["type"] not in EVENT_TYPES:
                    problems.append(f"unknown event type {value['type']!r}")
    assert not problems, f"{doc.name}: " + "; ".join(problems)


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


# --- 6. docs/rule-planner.md: what the rule planner understands ------------------------------------


def _quoted(cell: str) -> list[str]:
    """The example instructions of a cell: its "double-quoted" strings."""
    return re.findall(r'"([^"]+)"', cell)


def _rows(title: str) -> list[list[str]]:
    rows = table_rows(own_text(read("rule-planner.md"), title))
    assert rows, f"rule-planner.md: no table under {title!r}"
    return rows


def _facts(instruction: str) -> dict:
    from curllm_core.planner.facts import extract_facts

    return extract_facts(instruction).as_dict()


def test_rule_planner_kinds(builtin_registry):
    from curllm_core.planner.facts import extract_facts
    from curllm_core.planner.wanted import KIND_WORDS, wanted_kind

    problems, kinds = [], set()
    for row in _rows("Kinds of data"):
        kind = ticked(row[0])[0]
        kinds.add(kind)
        for lang, cell in zip(("en", "pl", "de"), row[1:4], strict=True):
            examples = _quoted(cell)
            problems += [f"{kind}: no {lang} example"] if not examples else []
            for ex in examples:
                got = wanted_kind(ex, extract_facts(ex), builtin_registry)[0]
                if got != kind:
                    problems.append(f"{ex!r} asks for {got}, the docs say {kind}")
    # Every kind the planner names by words, and beside them only keys a built-in tool produces.
    produced = {key for m in builtin_registry.tools.values() for key in m.produces}
    assert set(KIND_WORDS) <= kinds <= set(KIND_WORDS) | produced, (
        f"kinds documented {sorted(kinds)}, the planner's {sorted(KIND_WORDS)} (tools' keys: {sorted(produced)})"
    )
    assert not problems, "rule-planner.md, Kinds of data: " + "; ".join(problems)


def test_rule_planner_counts():
    problems = []
    rows = _rows("Counts")
    for row in rows:
        [example], count = _quoted(row[0]), int(row[1])
        if _facts(example).get("limit") != count:
            problems.append(f"{example!r} gives count {_facts(example).get('limit')}, the docs say {count}")
    assert len(rows) >= 12 and not problems, "rule-planner.md, Counts: " + "; ".join(problems)


def test_rule_planner_order():
    from curllm_core.item_fields import SORT_DEFAULT_ORDER

    problems, fields = [], set()
    for row in _rows("Order"):
        field, order = ticked(row[0])[0], ticked(row[1])[0]
        fields.add(field)
        for lang, cell in zip(("en", "pl", "de"), row[2:5], strict=True):
            examples = _quoted(cell)
            problems += [f"{field} {order}: no {lang} example"] if not examples else []
            for ex in examples:
                got = _facts(ex)
                if (got.get("sort_by"), got.get("sort_order")) != (field, order):
                    problems.append(f"{ex!r} orders by {got.get('sort_by')} {got.get('sort_order')}")
    missing = set(SORT_DEFAULT_ORDER) - fields - {"rank"}
    assert not missing, f"rule-planner.md, Order: fields the planner orders by but not documented: {missing}"
    assert not problems, "rule-planner.md, Order: " + "; ".join(problems)


def test_rule_planner_fields():
    from curllm_core.item_fields import CONCEPTS, WORDS, concept_of

    problems, fields = [], set()
    for row in _rows("Fields"):
        field, keys = ticked(row[0])[0], ticked(row[1])
        fields.add(field)
        if field in WORDS and keys != list(CONCEPTS[concept_of(field)]):
            problems.append(f"{field}: item keys {keys}, the code's {list(CONCEPTS[concept_of(field)])}")
        for lang, cell in zip(("en", "pl", "de"), row[2:5], strict=True):
            for ex in _quoted(cell) or [f"(no {lang} example)"]:
                if field not in (_facts(ex).get("select_fields") or []):
                    problems.append(
                        f"{ex!r} does not choose field {field}: {_facts(ex).get('select_fields')}"
                    )
    assert fields == set(WORDS), f"fields documented {sorted(fields)}, the code's {sorted(WORDS)}"
    assert not problems, "rule-planner.md, Fields: " + "; ".join(problems)


def test_rule_planner_link_targets(builtin_registry):
    from curllm_core.planner.rules import plan_with_rules
    from curllm_core.tools.extraction import links_by_pattern

    problems = []
    for row in _rows("Link targets"):
        [example] = _quoted(row[0])
        plan = plan_with_rules(example, "https://shop.example/", builtin_registry).plan
        step = plan.steps[0]
        params = step.parameters
        if step.tool != "extraction.links_by_pattern" or not (
            params.get("pattern") or params.get("external")
        ):
            problems.append(f"{example!r} plans {step.tool} {params}")
            continue
        # The links the tool itself keeps, with the planned parameters, from a page linking to each URL.
        urls = [*ticked(row[1]), *ticked(row[2])]
        page = "".join(f'<a href="{u}">{i}</a>' for i, u in enumerate(urls))
        kept = {
            link["url"] for link in links_by_pattern.extract(page, "https://shop.example/", **params)["links"]
        }
        problems += [f"{example!r} misses {u}" for u in ticked(row[1]) if u not in kept]
        problems += [f"{example!r} matches {u}" for u in ticked(row[2]) if u in kept]
    assert not problems, "rule-planner.md, Link targets: " + "; ".join(problems)


def test_rule_planner_other_facts():
    problems = []
    for row in _rows("Other facts"):
        [example], expected = _quoted(row[0]), json.loads(ticked(row[1])[0])
        got = _facts(example)
        wrong = {k: got.get(k) for k, v in expected.items() if got.get(k) != v}
        if wrong:
            problems.append(f"{example!r} gives {wrong}, the docs say {expected}")
    assert not problems, "rule-planner.md, Other facts: " + "; ".join(problems)


def test_rule_planner_actions(builtin_registry):
    from curllm_core.planner.facts import ACTIONS

    problems, actions = [], set()
    for row in _rows("What no tool does"):
        action = ticked(row[0])[0]
        actions.add(action)
        for lang, cell in zip(("en", "pl", "de"), row[1:4], strict=True):
            for ex in _quoted(cell) or [f"(no {lang} example)"]:
                found = [a for a, *_ in _facts(ex).get("actions") or ()]
                if action not in found:
                    problems.append(f"{ex!r} is not read as {action} ({found})")
    assert actions == set(ACTIONS), f"actions documented {sorted(actions)}, the planner's {sorted(ACTIONS)}"
    assert not problems, "rule-planner.md, What no tool does: " + "; ".join(problems)


def test_rule_planner_limit_is_documented():
    from curllm_core.planner.rules import MAX_INSTRUCTION_CHARS

    assert f"{MAX_INSTRUCTION_CHARS:,} characters" in own_text(read("rule-planner.md"), "Limits")


def test_rule_planner_operations(builtin_registry):
    """Every example of "Operations on items" plans the step its row names, with those parameters."""
    from curllm_core.planner.rules import plan_with_rules

    problems = []
    for row in _rows("Operations on items"):
        ticks = ticked(row[1])
        what, expected = ticks[0], json.loads(ticks[1])
        for lang, cell in zip(("en", "pl", "de"), row[2:5], strict=True):
            examples = _quoted(cell)
            problems += [f"{row[0]}: no {lang} example"] if not examples else []
            for ex in examples:
                plan = plan_with_rules(ex, "https://shop.example/", builtin_registry).plan
                if what == "format":
                    if plan.format != expected:
                        problems.append(f"{ex!r}: format {plan.format!r}, the docs say {expected!r}")
                    continue
                steps = [s.parameters for s in plan.steps if s.tool == what]
                if not any(all(p.get(k) == v for k, v in expected.items()) for p in steps):
                    problems.append(f"{ex!r}: {what} {steps}, the docs say {expected}")
    assert not problems, "rule-planner.md, Operations on items: " + "; ".join(problems)


def test_rule_planner_refusals(builtin_registry):
    """Every example of "Every word accounted for" is refused by name, in a warning or in the error."""
    from curllm_core.errors import PlanningError
    from curllm_core.planner.facts import extract_facts
    from curllm_core.planner.facts.operations import REFUSALS
    from curllm_core.planner.rules import plan_with_rules

    problems, rows = [], _rows("Every word accounted for")
    assert len(rows) == len(REFUSALS), f"refusals documented {len(rows)}, the planner's {len(REFUSALS)}"
    for row in rows:
        for lang, cell in zip(("en", "pl", "de"), row[1:4], strict=True):
            for ex in _quoted(cell) or [f"(no {lang} example)"]:
                if not extract_facts(ex).get("refused"):
                    problems.append(f"{ex!r} is not refused")
                    continue
                try:
                    said = " ".join(
                        plan_with_rules(ex, "https://shop.example/", builtin_registry).plan.warnings
                    )
                except PlanningError as e:
                    said = e.message
                if "not done" not in said and "nothing the instruction asks for" not in said:
                    problems.append(f"{ex!r}: {said!r} names no refusal")
    assert not problems, "rule-planner.md, Every word accounted for: " + "; ".join(problems)
