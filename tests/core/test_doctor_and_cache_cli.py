"""``curllm doctor`` and ``curllm cache``, through the real command in a subprocess; a contract a real
process shows takes its further cases through the console entry point in this process (`here`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.in_process import Exited, cli_main

CURLLM = [sys.executable, "-m", "curllm_core"]


def curllm(*args: str, tmp: Path, **env_extra: str) -> subprocess.CompletedProcess:
    """A user's environment: a private cache and config home, no model, no tools path."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("CURLLM_") or k in ("CURLLM_BROWSER", "CURLLM_LOAD_PLUGINS")
    }
    env |= {"CURLLM_CACHE_DIR": str(tmp / "cache"), "XDG_CONFIG_HOME": str(tmp / "config")} | env_extra
    return subprocess.run([*CURLLM, *args], env=env, capture_output=True, text=True, timeout=120)


def here(*args: str, tmp: Path, **env_extra: str) -> Exited:
    """``curllm ARGS`` by its console entry point in this process (`cli_main`: the same parsing,
    report, output and exit code), in the environment `curllm` gives its process."""
    env = {"CURLLM_CACHE_DIR": str(tmp / "cache"), "XDG_CONFIG_HOME": str(tmp / "config")} | env_extra
    if "CURLLM_LOAD_PLUGINS" in os.environ:
        env.setdefault("CURLLM_LOAD_PLUGINS", os.environ["CURLLM_LOAD_PLUGINS"])
    return cli_main(args, env=env)


def findings(out: subprocess.CompletedProcess | Exited) -> dict[str, list[dict]]:
    by_topic: dict[str, list[dict]] = {}
    for finding in json.loads(out.stdout)["findings"]:
        by_topic.setdefault(finding["topic"], []).append(finding)
    return by_topic


# --- doctor --------------------------------------------------------------------------------------


@pytest.mark.browser
def test_doctor_with_a_browser(tmp_path, browser_path):
    out = curllm("doctor", tmp=tmp_path, CURLLM_BROWSER=browser_path)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert f"ok    browser {browser_path} (CURLLM_BROWSER)" in lines
    assert any(line.startswith("ok    the browser starts and renders a page: Chromium ") for line in lines)
    assert any(
        line.startswith(f"ok    Python {sys.version_info.major}.{sys.version_info.minor}") for line in lines
    )
    assert any(line.startswith("ok    plugin builtin ") and line.endswith(" tools") for line in lines)
    assert any(line.startswith("info  extra llm: installed; --model: ") for line in lines)
    assert f"ok    config {tmp_path / 'config' / 'curllm' / 'config.toml'}: none (defaults apply)" in lines
    assert lines[-1] == "curllm can do its job: plan a task and run it in the browser."

    report = here("doctor", "--json", tmp=tmp_path, CURLLM_BROWSER=browser_path)
    assert report.returncode == 0 and json.loads(report.stdout)["ok"] is True
    found = findings(report)
    assert found["launch"][0]["status"] == "ok" and found["launch"][0]["data"]["version"]
    assert found["browser"][0]["data"] == {"path": browser_path, "origin": "CURLLM_BROWSER"}
    assert found["cache"][0]["data"]["path"] == str(tmp_path / "cache")
    assert {f["data"]["extra"] for f in found["extra"]} >= {"llm"}


def test_doctor_without_a_browser(tmp_path):
    nowhere = str(tmp_path / "no-such-chromium")
    out = curllm("doctor", tmp=tmp_path, CURLLM_BROWSER=nowhere)
    assert out.returncode == 1, out.stdout + out.stderr
    assert out.stderr == ""  # a report, not a traceback
    lines = out.stdout.splitlines()
    assert (
        f"FAIL  no browser: CURLLM_BROWSER={nowhere!r} is not an executable file (then no other is looked for)"
        in lines
    )
    fixes = [line.strip() for line in lines if line.startswith("      → ")]
    assert "→ unset CURLLM_BROWSER, or set it to the path of a Chromium executable" in fixes
    assert "→ install Debian's headless Chromium: sudo apt-get install chromium-headless-shell" in fixes
    assert not any("the browser starts" in line for line in lines)  # nothing to start
    assert lines[-1].startswith("curllm cannot run tasks yet: 1 problem (FAIL above)")
    found = findings(here("doctor", "--json", tmp=tmp_path, CURLLM_BROWSER=nowhere))
    assert found["browser"][0]["status"] == "fail" and "launch" not in found


def test_doctor_with_a_browser_that_does_not_start(tmp_path):
    """An executable that is no Chromium (here: false) is found, and fails to start: exit 1."""
    false = "/bin/false" if os.path.exists("/bin/false") else "/usr/bin/false"
    out = curllm("doctor", tmp=tmp_path, CURLLM_BROWSER=false)
    assert out.returncode == 1, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert f"ok    browser {false} (CURLLM_BROWSER)" in lines
    failed = next(i for i, line in enumerate(lines) if line.startswith("FAIL  the browser does not start: "))
    assert lines[failed + 1].startswith("      → usually missing shared libraries")


def test_doctor_reports_plugins_manifests_and_config(tmp_path):
    site = tmp_path / "site"
    dist = site / "broken_plugin-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "entry_points.txt").write_text("[curllm]\nbroken = curllm_no_such_plugin_module\n")
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "bad.json").write_text('{"name": "Bad-Name"}')
    env = {"PYTHONPATH": str(site), "CURLLM_LOAD_PLUGINS": "broken", "CURLLM_TOOLS_PATH": str(tools)}
    out = curllm("doctor", "--no-launch", tmp=tmp_path, **env)
    # A broken plugin and a bad manifest are warnings: the main job still works.
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    broken = next(i for i, line in enumerate(lines) if line.startswith("WARN  plugin broken"))
    assert "failed to load: ModuleNotFoundError" in lines[broken]
    assert 'import curllm_no_such_plugin_module" shows the traceback' in lines[broken + 1]
    bad = str(tools / "bad.json")
    assert any(
        line.startswith(f"WARN  skipped a bad manifest: {bad}: 6 problems, the first: ") for line in lines
    )
    assert f"      → curllm tools validate {bad} lists every problem" in lines
    assert f"ok    tools directory {tools} (CURLLM_TOOLS_PATH): 0 tools" in lines
    assert "info  the browser was not started (--no-launch)" in lines
    assert lines[-1].endswith("(2 warnings above).")

    config = tmp_path / "bad.toml"
    config.write_text('modle = "x"\n')
    out = here("doctor", "--no-launch", tmp=tmp_path, CURLLM_CONFIG=str(config))
    assert out.returncode == 1
    assert any(
        line.startswith("FAIL  config: config file ") and "unknown key 'modle'" in line
        for line in out.stdout.splitlines()
    )


def test_doctor_names_the_model_and_hides_secrets(tmp_path):
    out = curllm(
        "doctor",
        "--no-launch",
        "--json",
        tmp=tmp_path,
        CURLLM_MODEL="ollama/llama3.1",
        CURLLM_API_KEY="sk-very-secret",
        CURLLM_API_BASE="http://127.0.0.1:11434",
    )
    assert out.returncode == 0, out.stderr
    assert "sk-very-secret" not in out.stdout
    found = findings(out)
    assert found["model"][0]["data"]["model"] == "ollama/llama3.1"
    assert found["model"][0]["data"]["from"] == "CURLLM_MODEL"
    assert found["env"][0]["data"]["variables"]["CURLLM_API_KEY"] == "(set)"


# --- cache ---------------------------------------------------------------------------------------


def _plan_something(tmp: Path) -> None:
    page = tmp / "page.html"
    page.write_text("<html><body><a href='/a.pdf'>a</a></body></html>")
    out = curllm("find products under 150zł", "--url", str(page), "--plan-only", tmp=tmp)
    assert out.returncode == 0, out.stderr


def test_cache_list_and_clear(tmp_path):
    _plan_something(tmp_path)
    cache = tmp_path / "cache"
    out = curllm("cache", "list", tmp=tmp_path)
    assert out.returncode == 0, out.stderr
    plans, manifests = out.stdout.splitlines()
    assert plans.split()[:3] == ["plans", "1", "entries"] and plans.endswith(str(cache / "plans"))
    assert manifests.startswith("manifests") and str(cache / "manifests.json") in manifests

    listed = here("cache", "list", "--plans", tmp=tmp_path)
    line = listed.stdout.splitlines()[1]
    assert line.startswith("plan ") and ' rules  "find products under 150zł"  file:' in line

    doc = json.loads(here("cache", "list", "--json", "--all", tmp=tmp_path).stdout)
    assert [c["kind"] for c in doc["caches"]] == ["plans", "manifests"]
    assert doc["plans"][0]["instruction"] == "find products under 150zł"
    assert any(m["name"].endswith("products_generic.json") and m["ok"] for m in doc["manifests"])

    (cache / "keep.txt").write_text("not a cache file")
    out = here("cache", "clear", "--plans", tmp=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("cleared plans: 1 entries, ")
    assert list((cache / "plans").iterdir()) == [] and (cache / "manifests.json").exists()

    out = curllm("cache", "clear", tmp=tmp_path)
    assert [line.split(":")[0] for line in out.stdout.splitlines()] == ["cleared plans", "cleared manifests"]
    assert sorted(p.name for p in cache.iterdir()) == ["keep.txt", "plans"]


def test_cache_clear_that_cannot_remove_says_so(tmp_path):
    _plan_something(tmp_path)
    (tmp_path / "cache" / "plans" / "zz.json").mkdir()  # not a file: unlink fails, even for root
    out = curllm("cache", "clear", "--plans", tmp=tmp_path)
    assert out.returncode == 1
    assert out.stderr.startswith("curllm: error [CURLLM_ERROR]: cannot clear the cache: ")
    assert "zz.json" in out.stderr
