"""%paddle_profile and %%paddle_profile in a real IPython shell, in-process."""
from __future__ import annotations

import json

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from minipaddle.framework import instrument
from minipaddle.notebook.display import MIME_TYPE
from minipaddle.notebook.profile_magic import ProfileMagics
from minipaddle.profiler import ProfileResult

SETUP = """
import numpy as np
import minipaddle as paddle
from minipaddle import nn
paddle.seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
x = paddle.to_tensor(np.random.default_rng(0).standard_normal((5, 4)).astype("float32"))
def train_step():
    loss = (model(x) ** 2).mean()
    loss.backward()
    return loss
"""


@pytest.fixture(scope="module")
def shell():
    sh = InteractiveShell.instance()
    sh.register_magics(ProfileMagics)
    run(sh, SETUP)
    return sh


def run(sh, source: str):
    with capture_output() as cap:
        result = sh.run_cell(source, store_history=False)
    return result, [o.data for o in cap.outputs], cap.stdout


def test_line_magic_shows_tables_and_returns_the_value(shell):
    result, outputs, _ = run(shell, "%paddle_profile train_step()")
    assert result.success
    assert type(result.result).__name__ == "Tensor"
    (bundle,) = outputs
    assert set(bundle) == {"text/plain", "text/html", MIME_TYPE}
    text = bundle["text/plain"]
    assert "Operator Summary" in text and "linear" in text and "linear_grad" in text
    assert "<table" in bundle["text/html"] and "<script" not in bundle["text/html"]
    profile = bundle[MIME_TYPE]["profile"]
    assert {op["name"] for op in profile["ops"]} >= {"linear", "relu", "mean", "linear_grad"}
    assert isinstance(shell.user_ns["_paddle_profile"], ProfileResult)
    assert not instrument.subscribers


def test_cell_magic_options(shell, tmp_path):
    path = tmp_path / "prof.json"
    result, outputs, stdout = run(shell, f"%%paddle_profile -s avg -n 2 --trace {path} -o\n"
                                         "for _ in range(2):\n    train_step()\n")
    assert result.success and isinstance(result.result, ProfileResult)
    assert "Chrome trace written to" in stdout
    events = json.loads(path.read_text())["traceEvents"]
    assert sum(1 for e in events if e.get("name") == "relu") == 2
    text = outputs[0]["text/plain"]
    assert "more operators not shown" in text
    section = text.split("Operator Summary")[1].split("Kernel Summary")[0]
    top = [line.split()[0] for line in section.splitlines()[3:]
           if line and not line.startswith(("-", " ")) and "not shown" not in line]
    assert len(top) == 2


def test_names_from_user_code_are_escaped(shell):
    result, outputs, _ = run(shell, "%%paddle_profile\nwith paddle.profiler.RecordEvent('<b>x</b>'):\n"
                                    "    train_step()\n")
    assert result.success
    html = outputs[0]["text/html"]
    assert "&lt;b&gt;x&lt;/b&gt;" in html and "<b>x</b>" not in html


def test_failing_code_still_shows_tables_and_raises(shell):
    result, outputs, _ = run(shell, "%%paddle_profile\ntrain_step()\nraise ValueError('boom')\n")
    assert not result.success and isinstance(result.error_in_exec, ValueError)
    assert "linear" in outputs[0]["text/plain"]
    assert not instrument.subscribers


@pytest.mark.parametrize("line, message", [
    ("%paddle_profile", "nothing to run"),
    ("%paddle_profile -s fastest train_step()", "-s 'fastest' is not a sort key"),
    ("%paddle_profile -n 0 train_step()", "-n '0' must be an integer >= 1"),
])
def test_usage_errors(shell, line, message, capsys):
    result, _, _ = run(shell, line)
    assert not result.success
    assert message in str(result.error_in_exec)


def test_the_bundle_carries_a_valid_trace_document_with_the_profile_section(shell):
    jsonschema = pytest.importorskip("jsonschema")
    from minipaddle.visualizer import load_schema
    _, outputs, _ = run(shell, "%paddle_profile train_step()")
    doc = outputs[0][MIME_TYPE]
    jsonschema.Draft202012Validator(load_schema()).validate(doc)
    lanes = {span["lane"] for span in doc["profile"]["spans"]}
    assert {"python", "forward", "backward"} <= lanes
    assert any(span["node"] for span in doc["profile"]["spans"] if span["cat"] == "Operator")


def test_graph_option_puts_the_recorded_graph_beside_the_profile(shell):
    """-g: the Graph tab has the run's ops, and every Operator slice names a node of that graph."""
    _, outputs, _ = run(shell, "%paddle_profile train_step()")
    assert outputs[0][MIME_TYPE]["graph"]["forward"]["nodes"] == []   # without -g: the profile alone
    _, outputs, _ = run(shell, "%paddle_profile -g train_step()")
    doc = outputs[0][MIME_TYPE]
    nodes = {n["id"] for n in doc["graph"]["forward"]["nodes"]}
    op_nodes = {span["node"] for span in doc["profile"]["spans"] if span["cat"] == "Operator" and span["node"]}
    assert {"linear", "relu"} <= {n["op"] for n in doc["graph"]["forward"]["nodes"]}
    assert op_nodes and op_nodes <= nodes


def test_terminal_ipython_prints_the_tables_as_plain_text(tmp_path):
    """A terminal shows the bundle's text/plain: the tables, no HTML and no JSON document."""
    import subprocess
    import sys
    from pathlib import Path
    ipython = Path(sys.executable).with_name("ipython")
    if not ipython.exists():
        pytest.skip("the ipython console script is not installed next to this Python")
    code = ("%load_ext minipaddle\nimport numpy as np, minipaddle as paddle\n"
            "x = paddle.to_tensor(np.ones((3, 3), 'float32'))\n%paddle_profile paddle.matmul(x, x).sum()\n")
    out = subprocess.run([str(ipython), "--no-banner", "--colors=NoColor", "--HistoryManager.enabled=False",
                          "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "Operator Summary" in out.stdout and "kernel blas" in out.stdout
    assert "<table" not in out.stdout and '"profile"' not in out.stdout
