"""Fixtures of the browser tests: a real `jupyter lab` on 127.0.0.1 and Debian's chromium driven by Playwright.

The server runs from this venv with a token, a random free port, `--no-browser`, clean Jupyter config/data/
runtime dirs and a temporary root dir holding copies of tests/browser/notebooks/ (and of the first cells of
tutorial 03). `window.jupyterapp` is exposed so tests run JupyterLab commands (run all cells, save, change
theme) instead of chasing menus. Nothing downloads a browser: a missing chromium, playwright or built extension
fails the tests with what to run (`make setup`); they are never skipped.
"""
from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = Path(__file__).resolve().parent / "notebooks"
TUTORIAL_03 = REPO_ROOT / "tutorials" / "03_watching_a_model_learn.ipynb"
ARTIFACTS = REPO_ROOT / "test-artifacts" / "browser"
EXTENSION_NAME = "minipaddle"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]
SERVER_START_TIMEOUT_S = 60
FIX = "run `make setup` (it installs Debian's chromium, playwright and builds the JupyterLab extension)"


@dataclass
class Lab:
    """A running JupyterLab server: where it listens and the environment its commands need."""

    url: str
    token: str
    jupyter: Path
    root_dir: Path
    env: dict
    log: Path

    def page_url(self, path: str = "lab", **params: str) -> str:
        query = "&".join([f"token={self.token}", *(f"{k}={v}" for k, v in params.items())])
        return f"{self.url}/{path}?{query}"

    def get(self, path: str, timeout: float = 10.0) -> bytes:
        request = urllib.request.Request(f"{self.url}/{path}", headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.read()

    def page_config(self) -> dict:
        """The PageConfig JupyterLab embeds in /lab (federated extensions, disabled plugins, ...)."""
        html = self.get("lab").decode("utf-8")
        match = re.search(r'<script id="jupyter-config-data" type="application/json">(.*?)</script>', html, re.S)
        assert match, "the /lab page has no jupyter-config-data script"
        return json.loads(match.group(1))

    def log_tail(self, chars: int = 4000) -> str:
        return self.log.read_text(errors="replace")[-chars:] if self.log.exists() else ""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _tutorial_prefix(dest: Path) -> None:
    """Tutorial 03 up to and including its first `%%paddle_trace` cell, outputs cleared: the README's view."""
    doc = json.loads(TUTORIAL_03.read_text())
    cells = []
    for cell in doc["cells"]:
        if cell["cell_type"] == "code":
            cell = {**cell, "outputs": [], "execution_count": None}
        cells.append(cell)
        if cell["cell_type"] == "code" and "".join(cell["source"]).lstrip().startswith("%%paddle_trace"):
            break
    dest.write_text(json.dumps({**doc, "cells": cells}, indent=1))


def _jupyter_env(base: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUPYTER")}
    for name in ("config", "data", "runtime"):
        (base / name).mkdir(parents=True, exist_ok=True)
    env.update(JUPYTER_CONFIG_DIR=str(base / "config"), JUPYTER_DATA_DIR=str(base / "data"),
               JUPYTER_RUNTIME_DIR=str(base / "runtime"), JUPYTER_PLATFORM_DIRS="1", IPYTHONDIR=str(base / "ipython"),
               PYTHONUNBUFFERED="1")
    # the news prompt is a toast that can sit on top of the outputs; the tests do not want it
    labconfig = base / "config" / "labconfig"
    labconfig.mkdir(parents=True, exist_ok=True)
    (labconfig / "page_config.json").write_text(json.dumps(
        {"disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True}}))
    return env


def _wait_ready(lab: Lab, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + SERVER_START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"jupyter lab exited with {proc.returncode} before it was ready:\n{lab.log_tail()}",
                        pytrace=False)
        try:
            lab.get("api/status", timeout=2)
            return
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            time.sleep(0.25)
    pytest.fail(f"jupyter lab was not ready in {SERVER_START_TIMEOUT_S}s:\n{lab.log_tail()}", pytrace=False)


@pytest.fixture(scope="session")
def lab():
    """A real `jupyter lab` from this venv, on a random port with a token, serving a temporary root dir."""
    jupyter = Path(sys.executable).with_name("jupyter")
    if not jupyter.exists():
        pytest.fail(f"{jupyter} is missing: {FIX}", pytrace=False)
    base = Path(tempfile.mkdtemp(prefix="mp-browser-"))
    root = base / "root"
    root.mkdir()
    for notebook in NOTEBOOKS.glob("*.ipynb"):
        shutil.copy(notebook, root / notebook.name)
    _tutorial_prefix(root / "tutorial03_step.ipynb")
    env = _jupyter_env(base)
    port, token = _free_port(), secrets.token_hex(16)
    cmd = [str(jupyter), "lab", "--no-browser", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
           "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
           "--LabApp.expose_app_in_browser=True", "--LabApp.news_url=None", "--LabApp.check_for_updates_class="
           "jupyterlab.NeverCheckForUpdate"]
    if hasattr(os, "getuid") and os.getuid() == 0:
        cmd.append("--allow-root")  # Jupyter refuses root without it; containers often run as root
    log = base / "jupyter.log"
    lab = Lab(url=f"http://127.0.0.1:{port}", token=token, jupyter=jupyter, root_dir=root, env=env, log=log)
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        _wait_ready(lab, proc)
        yield lab
    finally:
        _stop(proc)
        shutil.rmtree(base, ignore_errors=True)


def _stop(proc: subprocess.Popen) -> None:
    """Stop the server (it shuts its kernels down on SIGTERM); kill its process group if it hangs."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.wait(timeout=5)


@pytest.fixture(scope="session")
def extension(lab: Lab) -> dict:
    """The extension's entry in the page's federated extensions; fails (with the fix) when it is not built."""
    federated = lab.page_config().get("federated_extensions", [])
    found = [ext for ext in federated if EXTENSION_NAME in ext.get("name", "")]
    if not found:
        names = ", ".join(ext.get("name", "?") for ext in federated) or "none"
        pytest.fail(f"the minipaddle JupyterLab extension is not installed (federated extensions: {names}); "
                    f"{FIX}", pytrace=False)
    return found[0]


@pytest.fixture(scope="session")
def browser():
    """Debian's chromium, headless, with a fresh profile; never a downloaded browser."""
    executable = shutil.which("chromium")
    if executable is None:
        pytest.fail(f"chromium is not installed; {FIX} (as root), or `apt-get install chromium`", pytrace=False)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail(f"the playwright package is missing; {FIX}", pytrace=False)
    for stale in ARTIFACTS.glob("failed-*.png"):  # a failure screenshot belongs to the run that made it
        stale.unlink()
    profile = tempfile.mkdtemp(prefix="mp-chromium-")
    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            profile, executable_path=executable, args=CHROMIUM_ARGS, headless=True,
            viewport={"width": 1400, "height": 900}, timeout=30_000)
        try:
            yield context
        finally:
            context.close()
            shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def page(browser, request):
    """A fresh tab with short default timeouts; on failure its screenshot goes into the artifacts folder."""
    tab = browser.new_page()
    tab.set_default_timeout(20_000)
    tab.set_default_navigation_timeout(30_000)
    errors: list[str] = []
    console: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.on("console", lambda msg: console.append(msg.text) if msg.type == "error" else None)
    tab.page_errors, tab.console_errors = errors, console
    yield tab
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        try:
            tab.screenshot(path=str(ARTIFACTS / f"failed-{request.node.name}.png"), timeout=5_000)
        except Exception:  # noqa: BLE001 - a failed screenshot must not hide the test's own failure
            pass
    tab.close()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    # keep each phase's report on the item, so the page fixture knows whether the test failed
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report
