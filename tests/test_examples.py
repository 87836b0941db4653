"""Every example in examples/ runs as its README says, through the real CLI or Python, in a real browser.

The example shop (examples/shop/serve.py) is served in-process on a free port; each example runs in
a subprocess with a private cache, so a user's plan cache or tools path cannot change the outcome.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
CATALOG = json.loads((EXAMPLES / "shop" / "catalog.json").read_text(encoding="utf-8"))["products"]

#: Every entry of examples/ and the test that runs it; a new example without a test fails
#: `test_every_example_is_tested`.
TESTED = {
    "README.md": "test_readme_names_every_example",
    "shop": "the server every browser example here uses",
    "python_api.py": "test_python_api",
    "plans": "test_plan_file_on_the_shop, test_plan_over_given_data",
    "custom_tool": "test_custom_tool",
    "code_first_tool.py": "test_code_first_tool",
    "plugin_minimal": "test_minimal_plugin",
    "batch": "test_batch_files",
}


@pytest.fixture(scope="module")
def shop_url():
    """The example shop on 127.0.0.1, for this module."""
    spec = importlib.util.spec_from_file_location("examples_shop_serve", EXAMPLES / "shop" / "serve.py")
    serve = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(serve)
    serve.ShopHandler.quiet = True
    server = serve.make_server(port=0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


@pytest.fixture
def env(tmp_path) -> dict:
    """A fresh user's environment: private cache, no model, no tools path, no plugin filter."""
    env = {**os.environ, "CURLLM_CACHE_DIR": str(tmp_path / "cache")}
    for name in ("CURLLM_MODEL", "CURLLM_TOOLS_PATH", "CURLLM_LOAD_PLUGINS", "CURLLM_CONFIG"):
        env.pop(name, None)
    return env


def run(args: list[str], env: dict, cwd: Path = ROOT, timeout: float = 180) -> subprocess.CompletedProcess:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    return done


def curllm(*args: str, env: dict, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return run([sys.executable, "-m", "curllm_core", *args], env, cwd)


def under(limit: float) -> list[str]:
    """Names of the catalogue's products priced up to ``limit``, the truth the examples must match."""
    return sorted(p["name"] for p in CATALOG if p["price"] <= limit)


def test_every_example_is_tested():
    present = {p.name for p in EXAMPLES.iterdir() if not p.name.startswith((".", "__"))}
    assert present - set(TESTED) == set(), "an example without a test: add it to TESTED and test it"


def test_readme_names_every_example():
    readme = (EXAMPLES / "README.md").read_text(encoding="utf-8")
    for name in set(TESTED) - {"README.md"}:
        assert f"{name}" in readme, name


@pytest.mark.browser
def test_python_api(env, browser_path):
    done = run([sys.executable, str(EXAMPLES / "python_api.py")], env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1. instruction: ok=True" in done.stdout
    assert f"2. plan file: ok=True, {len(under(150))} products, all <= 150: True" in done.stdout
    assert "3. streamed:" in done.stdout and "complete; 3 products" in done.stdout


@pytest.mark.browser
def test_plan_file_on_the_shop(env, shop_url, browser_path):
    done = curllm(
        "--plan", "examples/plans/shop_under_150.json", "--url", shop_url, "--format", "json", env=env
    )
    assert done.returncode == 0, done.stderr
    products = json.loads(done.stdout)["data"]["products"]
    assert sorted(p["name"] for p in products) == under(150)


def test_plan_over_given_data(env):
    done = curllm(
        "--plan",
        "examples/plans/check_products.json",
        "--input",
        "examples/plans/products.json",
        "--format",
        "json",
        env=env,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert [p["name"] for p in result["data"]["products"]] == [
        "Słuchawki douszne SoundFree",
        "Czajnik elektryczny 1,7 l",
    ]
    assert result["timings"].get("browser_ms", 0) == 0  # validations only: no browser was started


@pytest.mark.browser
def test_custom_tool(env, shop_url, browser_path):
    validated = curllm("tools", "validate", "examples/custom_tool", env=env)
    assert validated.returncode == 0, validated.stdout + validated.stderr
    env = {**env, "CURLLM_TOOLS_PATH": "examples/custom_tool"}
    listed = json.loads(curllm("tools", "list", "--json", env=env).stdout)
    assert {"name": "extraction.product_details", "source": "examples/custom_tool"}.items() <= next(
        t for t in listed if t["name"] == "extraction.product_details"
    ).items()
    done = curllm(
        "--plan", "examples/plans/shop_with_details.json", "--url", shop_url, "--format", "json", env=env
    )
    assert done.returncode == 0, done.stderr
    products = json.loads(done.stdout)["data"]["products"]
    assert sorted(p["name"] for p in products) == under(150)
    truth = {p["name"]: p["description"] for p in CATALOG}
    detailed = [p for p in products if "description" in p]
    assert len(detailed) == 3
    assert all(p["description"] == truth[p["name"]] and p["category"] for p in detailed)


@pytest.mark.browser
def test_code_first_tool(env, browser_path):
    done = run([sys.executable, str(EXAMPLES / "code_first_tool.py")], env)
    assert done.returncode == 0, done.stdout + done.stderr
    cheapest = sorted((p for p in CATALOG if p["price"] <= 150), key=lambda p: p["price"])[:3]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("derived parameters:") and '"n": {"default": 5' in lines[0]
    assert [line.split("PLN", 1)[1].strip() for line in lines[1:]] == [p["name"] for p in cheapest]


def test_minimal_plugin(env, tmp_path):
    # A real pip install of the package, into a directory put on the path: the entry point is read
    # from the installed dist-info exactly as from site-packages, without building a whole venv.
    site = tmp_path / "site"
    pip = run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--target",
            str(site),
            str(EXAMPLES / "plugin_minimal"),
        ],
        env,
        timeout=300,
    )
    assert pip.returncode == 0, pip.stderr
    env = {**env, "PYTHONPATH": str(site)}
    plugins = {p["name"]: p for p in json.loads(curllm("plugins", "list", "--json", env=env).stdout)}
    assert plugins["dedupe"]["tools"] == ["validation.dedupe"] and plugins["dedupe"]["error"] is None
    assert plugins["dedupe"]["version"] == "0.1.0"
    done = curllm(
        "--plan",
        "examples/plugin_minimal/plan.json",
        "--input",
        "examples/plugin_minimal/products.json",
        "--format",
        "json",
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert [p["name"] for p in json.loads(done.stdout)["data"]["products"]] == [
        "Słuchawki JBL Tune 520BT",
        "Xiaomi Redmi Buds 4 Lite",
    ]
    hidden = json.loads(curllm("plugins", "list", "--json", env={**env, "CURLLM_LOAD_PLUGINS": ""}).stdout)
    assert "dedupe" not in {p["name"] for p in hidden}


@pytest.mark.browser
def test_batch_files(env, shop_url, tmp_path, browser_path):
    # The task files name the shop at its README's address, http://127.0.0.1:8000/; that port may
    # be taken here, so the same files run from a copy that names the shop this module serves.
    copy = tmp_path / "batch"
    shutil.copytree(EXAMPLES / "batch", copy)
    files = sorted(p for p in copy.iterdir() if p.suffix in (".jsonl", ".yaml", ".yml", ".csv"))
    assert {p.suffix for p in files} >= {".jsonl", ".yaml", ".csv"}
    for tasks in files:
        tasks.write_text(
            tasks.read_text(encoding="utf-8").replace("http://127.0.0.1:8000/", shop_url), encoding="utf-8"
        )
        out = tmp_path / f"{tasks.name}.results.jsonl"
        done = curllm("batch", str(tasks), "--out", str(out), "-j", "4", env=env)
        assert done.returncode == 0, f"{tasks.name}: {done.stderr}"
        lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        ids = [line["id"] for line in lines]
        assert len(ids) == len(set(ids)) > 0 and all(line["ok"] for line in lines), tasks.name
        for line in lines:
            products = line["data"].get("products") or []
            assert products and all(p["price"] <= 200 for p in products), (tasks.name, line["id"])
