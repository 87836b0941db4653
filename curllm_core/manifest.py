"""The tool manifest: a JSON document that says what a tool does, when to use it and how to call it.

`manifest.schema.json` (beside the built-in manifests) is the source of truth for the format; the
`Manifest` dataclass mirrors it (a test keeps the two in step). Checking a manifest needs the
`jsonschema` package, imported here only when a document is actually checked: the registry caches
manifests that passed, so listing tools does not pay for it.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field, fields
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import Any

from .errors import ManifestError, Problem, json_pointer


class Category(StrEnum):
    """A tool's category (a ``str``: compares equal to its name, and is its name in JSON)."""

    EXTRACTION = "extraction"
    FORMS = "forms"
    NAVIGATION = "navigation"
    VALIDATION = "validation"


CATEGORIES = tuple(Category)
#: Order of the categories in a plan built by rules.
CATEGORY_ORDER: dict[str, int] = {
    c: i
    for i, c in enumerate((Category.FORMS, Category.NAVIGATION, Category.EXTRACTION, Category.VALIDATION))
}
PAGE_DEPENDENCIES = {"page", "playwright"}


def manifests_dir() -> Path:
    """Directory of the built-in manifests: packaged inside curllm_core, or at the top of a checkout."""
    here = Path(__file__).resolve().parent
    packaged = here / "tools_manifests"
    return packaged if packaged.is_dir() else here.parent / "tools_manifests"


#: What a parameter may stand for, beyond its value: ``data_key``, the data key the tool reads and
#: writes instead of its consumes/produces; ``input_key``, the data key it reads instead of its
#: consumes (what it writes stays its produces: an aggregate reads ``articles``, writes ``summary``);
#: ``tool``, a tool the step runs (the step produces what it produces); ``tool_parameters``, that
#: tool's parameters.
ROLES = ("data_key", "input_key", "tool", "tool_parameters", "min_price", "max_price")
_CONVENTIONAL_ROLES = {"key": "data_key", "extract": "tool", "extract_parameters": "tool_parameters"}


def _roles(parameters: dict) -> dict[str, str]:
    """Role -> parameter name, as declared; by the conventional names when none is declared."""
    props = parameters.get("properties") or {}
    declared = {
        schema["role"]: name
        for name, schema in props.items()
        if isinstance(schema, dict) and "role" in schema
    }
    if declared:
        return declared
    return {role: name for name, role in _CONVENTIONAL_ROLES.items() if name in props}


@cache
def manifest_schema() -> dict:
    return json.loads((manifests_dir() / "manifest.schema.json").read_text(encoding="utf-8"))


_NOT_IN_DOCUMENT = frozenset({"extra", "source", "path", "entrypoint_from"})


@dataclass(frozen=True)
class Manifest:
    """A validated tool manifest. ``source`` names who registered it; ``path`` is its file, if any."""

    name: str
    version: str
    description: str
    category: str  # a `Category` once made (any other name is kept for the check to report)
    parameters: dict
    output_schema: dict
    entrypoint: str = ""  # filled by convention in `from_dict` when the document has none
    triggers: tuple[str, ...] = ()
    examples: tuple[dict, ...] = ()
    dependencies: tuple[str, ...] = ()
    timeout_ms: int = 30000
    consumes: tuple[str, ...] = ()
    produces: tuple[str, ...] = ()
    sites: tuple[str, ...] = ()
    detect: tuple[str, ...] = ()  # CSS selectors of the site's markup (a string in the file is one)
    effects: str = "read"
    #: Whether the tool needs a live page (a browser) or runs on the page's HTML as fetched: None when
    #: the manifest does not say, which counts as live for a tool that depends on ``page`` (`live_page`).
    html: bool | None = None
    selectors: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)  # x-* fields, kept as given
    source: str = ""
    path: str = ""
    #: How ``entrypoint`` was found: "manifest" (written in it), "beside" (the module of the same
    #: name beside the manifest file) or "builtin" (``curllm_core.tools.<category>.<name>``).
    entrypoint_from: str = "manifest"

    def __post_init__(self) -> None:
        if self.category in CATEGORIES and not isinstance(self.category, Category):
            object.__setattr__(self, "category", Category(self.category))

    @property
    def key(self) -> str:
        """The address of the tool: ``category.name``."""
        return f"{self.category}.{self.name}"

    @property
    def needs_page(self) -> bool:
        return bool(PAGE_DEPENDENCIES & set(self.dependencies))

    @property
    def live_page(self) -> bool:
        """Whether the tool needs a live page in a browser: it depends on ``page`` and its manifest does
        not say ``"html": true`` (an absent field is judged safely: a page tool needs the browser)."""
        return self.needs_page and not self.html

    def parameter_for(self, role: str) -> str | None:
        """The parameter that plays ``role`` (one of `ROLES`) for planners and the plan check.

        A parameter declares it in its schema (``"role": "data_key"``). A manifest that declares no
        role at all keeps the names of the older conventions: ``key``, ``extract``,
        ``extract_parameters``.
        """
        return _roles(self.parameters).get(role)

    @classmethod
    def from_dict(cls, doc: dict, *, source: str = "", path: str = "") -> Manifest:
        """Build from a document that already passed `check_manifest`."""
        tuples = ("triggers", "examples", "dependencies", "consumes", "produces", "sites")
        known = {
            f for f in cls.__dataclass_fields__ if f not in ("extra", "source", "path", "entrypoint_from")
        }
        values: dict[str, Any] = {k: (tuple(v) if k in tuples else v) for k, v in doc.items() if k in known}
        if "detect" in doc:
            values["detect"] = (doc["detect"],) if isinstance(doc["detect"], str) else tuple(doc["detect"])
        values["parameters"] = normalize_parameters(doc["parameters"])
        extra = {k: v for k, v in doc.items() if k.startswith("x-")}
        how = "manifest"
        if not values.get("entrypoint"):
            values["entrypoint"], how = conventional_entrypoint(doc["category"], doc["name"], path)
        return cls(**values, extra=extra, source=source, path=path, entrypoint_from=how)

    def to_dict(self) -> dict:
        """The manifest as a JSON document (the form the schema describes)."""
        doc = asdict(self)
        for k in ("extra", "source", "path", "entrypoint_from"):
            doc.pop(k)
        if doc["html"] is None:  # not said: the document leaves it out, as its author did
            doc.pop("html")
        for k, v in list(doc.items()):
            if isinstance(v, tuple):
                doc[k] = list(v)
        doc.update(self.extra)
        return doc

    def json_text(self) -> str:
        """``json.dumps(self.to_dict(), sort_keys=True)`` without the deep copy `to_dict` makes (the
        registry's fingerprint hashes it for every tool of every task's planning)."""
        doc = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in _NOT_IN_DOCUMENT}
        doc.update(self.extra)
        return json.dumps(doc, sort_keys=True, default=str)


#: What `conventional_entrypoint`'s second value means, in words (``curllm tools validate`` says it).
CONVENTIONS = {
    "beside": "the module of the same name beside the manifest, its run",
    "builtin": "the built-in module curllm_core.tools.<category>.<name>, its run",
}


def conventional_entrypoint(category: str, name: str, path: str = "") -> tuple[str, str]:
    """The entrypoint of a manifest that names none, and which convention gave it.

    The design's manifests carry no ``entrypoint``: ``products_ceneo.json`` is implemented by
    ``products_ceneo.py`` beside it (its ``run``); failing that, a built-in tool lives at
    ``curllm_core.tools.<category>.<name>:run``.
    """
    if path and Path(path).with_name(f"{name}.py").is_file():
        return f"{name}:run", "beside"
    return f"curllm_core.tools.{category}.{name}:run", "builtin"


def normalize_parameters(schema: dict) -> dict:
    """Accept the design's ``"optional": true`` on a property: it is dropped from ``required``."""
    props = schema.get("properties") or {}
    optional = {
        name for name, prop in props.items() if isinstance(prop, dict) and prop.get("optional") is True
    }
    if not optional or "required" not in schema:
        return schema
    return {**schema, "required": [r for r in schema["required"] if r not in optional]}


def _message(error) -> str:
    """jsonschema's message, made actionable where it is cryptic (unknown fields)."""
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = set(error.schema.get("properties", {}))
        unknown = sorted(k for k in error.instance if k not in allowed and not k.startswith("x-"))
        if unknown:
            return (
                f"Additional properties are not allowed: unknown field(s) {', '.join(map(repr, unknown))} "
                "(custom fields must start with 'x-')"
            )
    return error.message


def check_manifest(doc: Any, *, source: str = "") -> list[Problem]:
    """Every problem with a manifest document: schema, sub-schemas, triggers, examples."""
    from jsonschema import Draft202012Validator

    problems = [
        Problem(_message(e), json_pointer(e.absolute_path), source)
        for e in sorted(
            Draft202012Validator(manifest_schema()).iter_errors(doc),
            key=lambda e: list(map(str, e.absolute_path)),
        )
    ]
    if problems:
        return problems
    meta = Draft202012Validator(Draft202012Validator.META_SCHEMA)
    for key in ("parameters", "output_schema"):
        for e in meta.iter_errors(doc[key]):
            problems.append(
                Problem(
                    f"not a valid JSON Schema: {e.message}", json_pointer([key, *e.absolute_path]), source
                )
            )
    if doc["parameters"].get("type", "object") != "object":
        problems.append(
            Problem("parameters must be a JSON Schema of type object", "/parameters/type", source)
        )
    for i, trigger in enumerate(doc.get("triggers", [])):
        try:
            re.compile(trigger)
        except re.error as e:
            problems.append(
                Problem(f"trigger is not a valid regular expression: {e}", f"/triggers/{i}", source)
            )
    problems += detect_problems(doc.get("detect", []), source)
    problems += layout_problems(doc.get("selectors", {}).get("layouts", []), source)
    problems += role_problems(doc["parameters"], source)
    if problems:
        return problems
    params = Draft202012Validator(normalize_parameters(doc["parameters"]))
    for i, example in enumerate(doc.get("examples", [])):
        for error in params.iter_errors(example["parameters"]):
            problems.append(
                Problem(
                    f"example parameters do not match parameters: {error.message}",
                    json_pointer(["examples", i, "parameters", *error.absolute_path]),
                    source,
                )
            )
    return problems


def role_problems(parameters: dict, source: str = "") -> list[Problem]:
    """Each role played by one parameter at most; ``tool_parameters`` only beside a ``tool``."""
    props = parameters.get("properties") or {}
    seen: dict[str, str] = {}
    problems = []
    for name, schema in props.items():
        role = schema.get("role") if isinstance(schema, dict) else None
        if role is None:
            continue
        if role in seen:
            problems.append(
                Problem(
                    f"role {role!r} is already {seen[role]!r}'s",
                    f"/parameters/properties/{name}/role",
                    source,
                )
            )
        seen.setdefault(role, name)
    if "tool_parameters" in seen and "tool" not in seen:
        problems.append(
            Problem(
                "a tool_parameters parameter needs a parameter with role tool beside it",
                f"/parameters/properties/{seen['tool_parameters']}/role",
                source,
            )
        )
    return problems


def layout_problems(layouts: list[dict], source: str = "") -> list[Problem]:
    """What the schema cannot see in ``selectors.layouts`` (its shape is checked by the schema's
    ``$defs``): CSS selectors that do not parse, regular expressions that do not compile, required
    fields the layout does not define."""
    from selectolax.lexbor import LexborHTMLParser, SelectolaxError

    probe = LexborHTMLParser("<p></p>")
    problems: list[Problem] = []

    def css(selector: str, where: str) -> None:
        try:
            probe.css(selector)
        except SelectolaxError:
            problems.append(Problem(f"not a valid CSS selector: {selector!r}", where, source))

    for i, layout in enumerate(layouts):
        at = f"/selectors/layouts/{i}"
        for key in ("within", "item", "exclude"):
            given = layout.get(key, [])
            for k, selector in enumerate([given] if isinstance(given, str) else given):
                css(selector, f"{at}/{key}" + ("" if isinstance(given, str) else f"/{k}"))
        fields = layout.get("fields", {})
        for name, given in fields.items():
            alternatives = given if isinstance(given, list) else [given]
            for j, spec in enumerate(alternatives):
                where = f"{at}/fields/{name}" + (f"/{j}" if isinstance(given, list) else "")
                if isinstance(spec, str):
                    css(spec, where)
                    continue
                selectors = spec.get("css", [])
                for k, selector in enumerate([selectors] if isinstance(selectors, str) else selectors):
                    css(selector, f"{where}/css" + ("" if isinstance(selectors, str) else f"/{k}"))
                if "self" in spec:
                    css(spec["self"], f"{where}/self")
                if "regex" in spec:
                    try:
                        re.compile(spec["regex"])
                    except re.error as e:
                        problems.append(
                            Problem(f"not a valid regular expression: {e}", f"{where}/regex", source)
                        )
        for j, name in enumerate(layout.get("require", [])):
            if name not in fields:
                problems.append(
                    Problem(
                        f"requires field {name!r}, which the layout does not define",
                        f"{at}/require/{j}",
                        source,
                    )
                )
    return problems


def detect_problems(detect: str | list, source: str = "") -> list[Problem]:
    """``detect`` selectors that are not valid CSS (parsed by selectolax, as the extraction tools do)."""
    from selectolax.lexbor import LexborHTMLParser, SelectolaxError

    probe = LexborHTMLParser("<p></p>")
    problems = []
    for i, selector in enumerate([detect] if isinstance(detect, str) else detect):
        try:
            probe.css(selector)
        except SelectolaxError:
            where = "/detect" if isinstance(detect, str) else f"/detect/{i}"
            problems.append(Problem(f"not a valid CSS selector: {selector!r}", where, source))
    return problems


def read_manifest(path: Path) -> dict:
    """Parse a manifest file; a file that is not JSON raises ManifestError naming line and column."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ManifestError(
            f"{path}: cannot read manifest: {e.strerror}", problems=[Problem(str(e), "", str(path))]
        ) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        msg = f"not valid JSON: {e.msg} (line {e.lineno}, column {e.colno})"
        raise ManifestError(f"{path}: {msg}", problems=[Problem(msg, "", str(path))]) from None


def load_manifest(path: Path, *, source: str = "") -> Manifest:
    """Read and check one manifest file. Raises ManifestError with every problem."""
    doc = read_manifest(path)
    problems = check_manifest(doc, source=str(path))
    if problems:
        raise ManifestError(f"{path}: invalid manifest", problems=problems)
    return Manifest.from_dict(doc, source=source, path=str(path))
