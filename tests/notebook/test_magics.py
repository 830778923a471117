"""%%paddle_trace and %paddle_graph in a real IPython shell, in-process."""
from __future__ import annotations

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from minipaddle.framework import instrument
from minipaddle.notebook.display import MIME_TYPE, bundle_document
from minipaddle.notebook.magics import byte_size
from minipaddle.visualizer import Trace

SETUP = """
import numpy as np
import minipaddle as paddle
from minipaddle import nn
paddle.seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
x = paddle.to_tensor(np.random.default_rng(0).standard_normal((5, 4)).astype("float32"))
"""
STEP = """
out = model(x)
loss = (out * out).mean()
loss.backward()
loss
"""


@pytest.fixture(scope="module")
def shell():
    sh = InteractiveShell.instance()
    assert sh.extension_manager.load_extension("minipaddle") in (None, "already loaded")
    run(sh, SETUP)
    return sh


def run(sh, source: str):
    """Run a cell; return (result, displayed outputs as dicts with data/update, stdout)."""
    with capture_output() as cap:
        result = sh.run_cell(source, store_history=False)
    outputs = [{"data": o.data, "update": o.update} for o in cap.outputs]
    return result, outputs, cap.stdout


def test_trace_cell_shows_one_bundle_and_returns_the_cells_value(shell):
    result, outputs, _ = run(shell, "%%paddle_trace\n" + STEP)
    assert result.success and result.result is shell.user_ns["loss"]
    (shown,) = outputs
    assert set(shown["data"]) == {MIME_TYPE, "text/html", "text/plain"}
    trace = shell.user_ns["_paddle_trace"]
    assert isinstance(trace, Trace) and bundle_document(shown["data"]) == trace.to_dict()
    assert [n["op"] for n in trace.nodes] == ["linear", "relu", "linear", "multiply", "mean"]
    assert shown["data"]["text/plain"].startswith("minipaddle trace: 5 ops, ")
    assert not instrument.subscribers  # recording stopped with the cell


def test_options_reach_the_recorder(shell):
    result, _, _ = run(shell, "%%paddle_trace --values none --max-bytes 512K --no-backward --max-steps 3 -o t\n"
                              + STEP)
    assert result.success
    rec = shell.user_ns["t"].to_dict()["recording"]
    assert (rec["values"], rec["max_bytes"], rec["backward"], rec["max_steps"]) == ("none", 512 << 10, False, 3)
    assert rec["dropped_steps"] > 0
    assert all(s["kind"] != "backward_step" for s in shell.user_ns["t"].steps)
    assert shell.user_ns["t"] is shell.user_ns["_paddle_trace"]


@pytest.mark.parametrize("line, message", [
    ("--values bogus", "argument --values: invalid choice: 'bogus'"),
    ("--max-bytes 12Q", "--max-bytes '12Q': expected a size such as"),
    ("--max-bytes 100", "max_bytes=100, expected an integer >= 1024"),
    ("--max-steps 0", "max_steps=0, expected an integer >= 1"),
    ("-o 1abc", "-o '1abc' is not a Python variable name"),
    ("--live --interval 0", "--interval 0.0 must be > 0 seconds"),
    ("--frobnicate", "unrecognized arguments: --frobnicate"),
])
def test_bad_options_are_usage_errors(shell, line, message):
    result, outputs, _ = run(shell, f"%%paddle_trace {line}\n" + STEP)
    assert type(result.error_in_exec).__name__ == "UsageError" and message in str(result.error_in_exec)
    assert outputs == [] and not instrument.subscribers


def test_an_empty_cell_is_a_usage_error(shell):
    result, _, _ = run(shell, "%%paddle_trace\n\n")
    assert "the cell is empty" in str(result.error_in_exec)


def test_a_failing_cell_fails_and_still_shows_its_trace(shell):
    result, outputs, _ = run(shell, "%%paddle_trace\nh = model(x)\nraise ValueError('boom')\n")
    assert isinstance(result.error_in_exec, ValueError)
    (shown,) = outputs
    assert shown["data"]["text/plain"].startswith("minipaddle trace: 3 ops, ")
    assert len(shell.user_ns["_paddle_trace"].nodes) == 3 and not instrument.subscribers


def test_cells_can_use_magics_and_print(shell):
    result, _, stdout = run(shell, "%%paddle_trace\nv = %time model(x)\nprint('shape', v.shape)\n")
    assert result.success and "shape [5, 3]" in stdout


def test_live_mode_updates_one_output_in_place(shell):
    source = ("%%paddle_trace --live --interval 0.001\n"
              "import time\n"
              "for _ in range(20):\n"
              "    time.sleep(0.002)\n"
              "    model(x)\n")
    result, outputs, _ = run(shell, source)
    assert result.success
    first, *updates = outputs
    assert first["data"]["text/plain"] == "minipaddle trace: recording..." and not first["update"]
    assert len(updates) >= 2 and all(u["update"] for u in updates)
    assert updates[-1]["data"]["text/plain"].startswith("minipaddle trace: 60 ops, ")
    assert MIME_TYPE in updates[-1]["data"]
    assert not instrument.subscribers


def test_graph_shows_forward_ops_of_a_traced_tensor_and_grad_nodes_of_any(shell):
    run(shell, "%%paddle_trace\n" + STEP)
    result, outputs, _ = run(shell, "%paddle_graph out")
    assert result.success
    (shown,) = outputs
    assert set(shown["data"]) == {"text/html", "text/plain"}
    assert shown["data"]["text/plain"] == "graph of tensor [5, 3] float32: 7 backward nodes, 5 forward ops"
    result, outputs, _ = run(shell, '%paddle_graph --max-nodes 2 model(x) * {"k": 2.0}["k"]')
    assert result.success
    text = outputs[0]["data"]["text/plain"]
    assert text.startswith("graph of tensor [5, 3] float32: 2 backward nodes, 0 forward ops")
    assert "backward: 6 more nodes not shown (raise --max-nodes)." in text


@pytest.mark.parametrize("line, message", [
    ("%paddle_graph", "give an expression"),
    ("%paddle_graph 3 + 4", "'3 + 4' has type int, expected a minipaddle Tensor"),
    ("%paddle_graph no_such_name", "could not evaluate 'no_such_name': NameError"),
    ("%paddle_graph --max-nodes 0 out", "--max-nodes 0 must be >= 1"),
    ("%paddle_graph --max-nodes many out", "argument --max-nodes: invalid int value: 'many'"),
])
def test_graph_usage_errors(shell, line, message):
    result, outputs, _ = run(shell, line)
    assert type(result.error_in_exec).__name__ == "UsageError" and message in str(result.error_in_exec)
    assert outputs == []


def test_a_bare_trace_displays_as_its_bundle(shell):
    run(shell, "%%paddle_trace\n" + STEP)
    data, _ = shell.display_formatter.format(shell.user_ns["_paddle_trace"])
    assert {MIME_TYPE, "text/html", "text/plain"} <= set(data)
    assert data["text/plain"].startswith("minipaddle trace: ")


@pytest.mark.parametrize("text, size", [("4096", 4096), ("512K", 512 << 10), ("16M", 16 << 20), ("1g", 1 << 30),
                                        ("2MiB", 2 << 20)])
def test_byte_sizes(text, size):
    assert byte_size(text) == size


def test_load_ext_registers_every_magic(shell):
    magics = shell.magics_manager.magics
    assert {"paddle_trace", "paddle_profile"} <= set(magics["cell"])
    assert {"paddle_graph", "paddle_profile"} <= set(magics["line"])
