"""Registry and plugin discovery: sources, clashes, bad manifests isolated, entry points, allow-list."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from curllm_core.errors import ToolNotFound
from curllm_core.plugins import _parse_entry_points, entry_points, load_registry
from curllm_core.registry import Registry
from curllm_core.tool import CodeTool, tool

from .test_manifest import good_doc


def write(dirpath: Path, name: str, doc) -> Path:
    dirpath.mkdir(parents=True, exist_ok=True)
    path = dirpath / f"{name}.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return path


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("CURLLM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("CURLLM_LOAD_PLUGINS", "")
    monkeypatch.delenv("CURLLM_TOOLS_PATH", raising=False)
    import os

    return os.environ


def test_builtin_tools_load_through_the_default_plugin(env):
    registry = load_registry(env)
    builtin = next(p for p in registry.plugins if p.name == "builtin")
    assert builtin.builtin and not builtin.error
    assert set(builtin.tools) == set(registry.tools)
    assert "validation.price_range_check" in registry.tools
    assert registry.problems == [] and registry.warnings == []


def test_every_kind_of_bad_manifest_is_skipped_while_the_others_load(env, tmp_path, monkeypatch):
    d = tmp_path / "tools"
    write(d, "good", good_doc(name="good"))
    write(d, "broken_json", '{"name": "x",')
    write(d, "schema_violation", good_doc(name="schema_violation", category="magic"))
    write(d, "bad_regex", good_doc(name="bad_regex", triggers=["(x"]))
    write(
        d,
        "bad_params",
        good_doc(name="bad_params", parameters={"type": "object", "properties": {"a": {"type": 1}}}),
    )
    write(
        d,
        "bad_example",
        good_doc(name="bad_example", examples=[{"instruction": "i", "parameters": {"limit": "x"}}]),
    )
    write(d, "no_import", good_doc(name="no_import", entrypoint="curllm_no_such_module.x:run"))
    monkeypatch.setenv("CURLLM_TOOLS_PATH", str(d))
    registry = load_registry(env)
    assert "validation.good" in registry.tools
    by_file = {Path(p.source).stem: p for p in registry.problems}
    assert set(by_file) == {
        "broken_json",
        "schema_violation",
        "bad_regex",
        "bad_params",
        "bad_example",
        "no_import",
    }
    assert "not valid JSON" in by_file["broken_json"].message
    assert by_file["schema_violation"].pointer == "/category"
    assert by_file["bad_regex"].pointer == "/triggers/0"
    assert by_file["bad_params"].pointer.startswith("/parameters/properties/a")
    assert by_file["bad_example"].pointer == "/examples/0/parameters/limit"
    assert by_file["no_import"].pointer == "/entrypoint" and "not found" in by_file["no_import"].message


def test_duplicate_name_later_source_wins_with_a_warning(env, tmp_path, monkeypatch):
    a, b = tmp_path / "a", tmp_path / "b"
    write(a, "dup", good_doc(name="dup", version="1.0.0"))
    write(b, "dup", good_doc(name="dup", version="2.0.0"))
    import os

    monkeypatch.setenv("CURLLM_TOOLS_PATH", f"{a}{os.pathsep}{b}")
    registry = load_registry(env)
    assert registry.tools["validation.dup"].version == "2.0.0"
    [warning] = registry.warnings
    assert str(a) in warning and str(b) in warning and "validation.dup" in warning


def test_tools_whose_modules_share_a_name_in_two_directories_run_their_own_code(env, tmp_path, monkeypatch):
    import asyncio
    import os

    from curllm_core.tool import load_callable

    for folder, answer in (("a", "first"), ("b", "second")):
        write(tmp_path / folder, f"tool_{folder}", good_doc(name=f"tool_{folder}", entrypoint="impl:run"))
        (tmp_path / folder / "impl.py").write_text(
            f"async def run(ctx, **params):\n    return {{'answer': '{answer}'}}\n"
        )
    monkeypatch.setenv("CURLLM_TOOLS_PATH", f"{tmp_path / 'a'}{os.pathsep}{tmp_path / 'b'}")
    registry = load_registry(env)
    answers = [
        asyncio.run(load_callable(registry.tools[f"validation.tool_{folder}"])(None))["answer"]
        for folder in ("a", "b")
    ]
    assert answers == ["first", "second"]


def test_resolve_bare_names_and_suggestions(env):
    registry = load_registry(env)
    assert registry.resolve("price_range_check").key == "validation.price_range_check"
    with pytest.raises(ToolNotFound, match="did you mean"):
        registry.resolve("price_range_chek")


def test_ambiguous_bare_name(tmp_path):
    registry = Registry()
    registry.add(Registry_manifest(good_doc(name="same", category="validation")))
    registry.add(Registry_manifest(good_doc(name="same", category="extraction")))
    with pytest.raises(ToolNotFound, match="ambiguous"):
        registry.resolve("same")


def Registry_manifest(doc):
    from curllm_core.manifest import Manifest

    return Manifest.from_dict(doc, source="test")


def test_fingerprint_changes_with_the_tools(tmp_path):
    r1, r2 = Registry(), Registry()
    r1.register(write(tmp_path / "x", "one", good_doc(name="one")))
    r2.register(write(tmp_path / "y", "one", good_doc(name="one", version="1.0.1")))
    assert r1.fingerprint != r2.fingerprint
    before = r1.fingerprint
    r1.register(write(tmp_path / "z", "two", good_doc(name="two")))
    assert r1.fingerprint != before


def test_manifest_cache_serves_unchanged_files_and_notices_edits(tmp_path):
    from curllm_core.registry import ManifestCache

    path = write(tmp_path / "t", "c", good_doc(name="c"))
    cache_file = tmp_path / "m.json"
    cache = ManifestCache(cache_file)
    assert cache.check(path)[0]["name"] == "c"
    cache.save()
    cache2 = ManifestCache(cache_file)
    assert str(path) in cache2.entries and not cache2.dirty
    path.write_text(json.dumps(good_doc(name="c", category="magic")))
    doc, problems = cache2.check(path)
    assert doc is None and problems[0].pointer == "/category"


def test_code_first_tool_registers_and_derives_a_manifest():
    @tool(category="validation", consumes=["products"], produces=["products"], dependencies=[])
    async def cheaper_than(ctx, limit: float = 100.0, strict: bool = False) -> dict:
        """Keep products cheaper than a limit.

        Args:
            limit: the highest price kept
            strict: drop items without a price
        """
        return {"products": [p for p in ctx.data["products"] if (p.get("price") or 0) < limit]}

    assert isinstance(cheaper_than, CodeTool)
    registry = Registry()
    [key] = registry.register(cheaper_than, source="test")
    m = registry.tools[key]
    assert key == "validation.cheaper_than"
    assert m.description == "Keep products cheaper than a limit."
    assert m.parameters["properties"]["limit"] == {
        "default": 100.0,
        "description": "the highest price kept",
        "type": "number",
    }
    assert registry.impls[key] is cheaper_than


def test_register_rejects_unknown_things():
    with pytest.raises(TypeError, match="directory, a manifest file or a @tool"):
        Registry().register(42)


def test_entry_points_file_parsing():
    text = "[console_scripts]\nx = y:z\n\n[curllm]\nallegro = curllm_allegro.plugin\nother = a.b:c [extra]\n"
    assert _parse_entry_points(text, "curllm") == [("allegro", "curllm_allegro.plugin"), ("other", "a.b:c")]


# --- a real plugin package, pip-installed into a temporary venv -------------------------------------

PLUGIN_FILES = {
    "pyproject.toml": """
        [build-system]
        requires = ["hatchling"]
        build-backend = "hatchling.build"
        [project]
        name = "curllm-fixture-plugin"
        version = "0.3.0"
        [project.entry-points.curllm]
        fixture = "curllm_fixture_plugin"
        broken = "curllm_fixture_plugin.broken"
        [tool.hatch.build.targets.wheel]
        packages = ["curllm_fixture_plugin"]
    """,
    "curllm_fixture_plugin/__init__.py": """
        from pathlib import Path
        from curllm_core import hookimpl, tool

        @tool(category="validation", consumes=["products"], produces=["products"], dependencies=[])
        async def first_only(ctx) -> dict:
            \"\"\"Keep the first product.\"\"\"
            return {"products": ctx.data["products"][:1]}

        @hookimpl
        def curllm_register_tools(register):
            register(Path(__file__).parent / "manifests")
            register(first_only)
    """,
    "curllm_fixture_plugin/broken.py": """
        import curllm_no_such_dependency  # the plugin's import fails: reported, never fatal
    """,
    "curllm_fixture_plugin/tools.py": """
        async def run(ctx, factor: float = 2.0):
            return {"products": [dict(p, price=p["price"] * factor) for p in ctx.data["products"]]}
    """,
}


@pytest.fixture(scope="module")
def plugin_venv(tmp_path_factory):
    """A venv that sees curllm (and its dependencies) and has the fixture plugin pip-installed."""
    root = tmp_path_factory.mktemp("plugin")
    src = root / "src"
    for rel, text in PLUGIN_FILES.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(textwrap.dedent(text))
    write(
        src / "curllm_fixture_plugin" / "manifests",
        "double_prices",
        good_doc(
            name="double_prices",
            description="Double every price.",
            entrypoint="curllm_fixture_plugin.tools:run",
            parameters={"type": "object", "properties": {"factor": {"type": "number", "default": 2}}},
            examples=[],
        ),
    )
    venv = root / "venv"
    # No pip of its own (ensurepip costs ~6 s of CPU): this environment's pip installs into it.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    # The new venv sees this environment's packages (curllm and its dependencies) through a .pth
    # file, so the plugin is the only thing pip really installs into it.
    site = subprocess.run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    import sysconfig

    Path(site, "outer.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(py),
            "install",
            "-q",
            "--no-build-isolation",
            "--no-deps",
            str(src),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return venv


def _curllm(venv: Path, *args: str, env_extra: dict | None = None, tmp: Path) -> subprocess.CompletedProcess:
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("CURLLM_")}
    env["CURLLM_CACHE_DIR"] = str(tmp / "cache")
    env.update(env_extra or {})
    return subprocess.run(
        [str(venv / "bin" / "python"), "-m", "curllm_core", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.mark.slow
def test_pip_installed_plugin_is_discovered_and_a_broken_one_isolated(plugin_venv, tmp_path):
    out = _curllm(plugin_venv, "plugins", "list", "--json", tmp=tmp_path)
    assert out.returncode == 0, out.stderr
    plugins = {p["name"]: p for p in json.loads(out.stdout)}
    assert set(plugins["fixture"]["tools"]) == {"validation.double_prices", "validation.first_only"}
    assert plugins["fixture"]["version"] == "0.3.0"
    assert "curllm_no_such_dependency" in plugins["broken"]["error"]
    tools = {
        t["name"]: t for t in json.loads(_curllm(plugin_venv, "tools", "list", "--json", tmp=tmp_path).stdout)
    }
    assert tools["validation.double_prices"]["source"] == "fixture"
    assert tools["validation.price_range_check"]["source"] == "builtin"


@pytest.mark.slow
def test_plugin_tools_run_through_the_executor(plugin_venv, tmp_path):
    plan = tmp_path / "plan.json"
    plan.write_text(
        json.dumps(
            {"plan": [{"tool": "double_prices"}, {"tool": "first_only"}], "expected_output": "products"}
        )
    )
    data = tmp_path / "in.json"
    data.write_text(json.dumps({"products": [{"name": "a", "price": 2}, {"name": "b", "price": 3}]}))
    out = _curllm(plugin_venv, "--plan", str(plan), "--input", str(data), "--format", "json", tmp=tmp_path)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["data"]["products"] == [{"name": "a", "price": 4}]


@pytest.mark.slow
@pytest.mark.parametrize("allow, expected", [("", set()), ("fixture", {"fixture"}), ("broken", {"broken"})])
def test_load_plugins_allow_list(plugin_venv, tmp_path, allow, expected):
    out = _curllm(
        plugin_venv, "plugins", "list", "--json", env_extra={"CURLLM_LOAD_PLUGINS": allow}, tmp=tmp_path
    )
    names = {p["name"] for p in json.loads(out.stdout) if not p["builtin"]}
    assert names == expected


def test_entry_points_scan_finds_installed_distributions():
    # pytest11 of curllm itself is an installed entry point of this very environment.
    assert any(ep.dist.replace("-", "_") == "curllm" for ep in entry_points("pytest11"))


def test_code_first_manifests_are_cached_so_plugins_do_not_pay_for_pydantic(tmp_path):
    module = tmp_path / "cached_tool_mod.py"
    module.write_text(
        "from curllm_core import tool\n\n"
        "@tool(category='validation', consumes=['products'], produces=['products'], dependencies=[])\n"
        "async def keep(ctx, n: int = 1) -> dict:\n"
        "    '''Keep n products.'''\n"
        "    return {'products': ctx.data['products'][:n]}\n"
    )
    code = (
        f"import sys; sys.path.insert(0, {str(tmp_path)!r}); import cached_tool_mod\n"
        "print(cached_tool_mod.keep.manifest.parameters['properties']['n']['default'],"
        " 'pydantic' in sys.modules, 'jsonschema' in sys.modules)"
    )
    import os

    env = {**os.environ, "CURLLM_CACHE_DIR": str(tmp_path / "cache")}
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    second = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert first.stdout.split() == ["1", "True", "True"], first.stderr
    assert second.stdout.split() == ["1", "False", "False"], second.stderr
